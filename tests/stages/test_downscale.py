"""Photos drawn much smaller than their pixels are shrunk without aliasing in the PNG (resvg), as in a
browser and a PDF viewer (composer/stages/export/downscale.py).

A 96 x 96 px checkerboard of single black and white pixels drawn 13 x 13 pt at 72 dpi (13 px: 7.4 source
pixels per device pixel) is, averaged over any device pixel, half black and half white: 127.5 in the
picture's encoded values, the box average a browser's mipmaps take. resvg alone sampled it with its bicubic
filter and drew values from 52 to 203 (moiré); reduced 7 x 7 first it draws 126 to 129. pdfium, given every
pixel in the PDF, draws 126 to 127.
"""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from composer.stages.export import export
from composer.stages.export.downscale import reduced_photos
from conftest import pdf_pixels


def checkerboard(n: int = 96) -> str:
    cells = (np.indices((n, n)).sum(axis=0) % 2 * 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(cells, "L").convert("RGB").save(out, format="PNG")
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def canvas(image_attrs: str, size: int = 13) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="20pt" height="20pt" viewBox="0 0 20 20">'
            f'<rect width="20" height="20" fill="#fff"/><image x="2" y="2" width="{size}" height="{size}" '
            f'{image_attrs} href="{checkerboard()}"/></svg>').encode()


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_a_shrunk_photo_is_averaged_not_aliased(which):
    out = export(canvas(""), ["png", "pdf"], dpi=72)
    if which == "png":
        with Image.open(io.BytesIO(out["png"])) as img:
            px = np.asarray(img.convert("RGB")).astype(int)
    else:
        px = pdf_pixels(out["pdf"])
    inside = px[3:14, 3:14]  # the picture's 13 px, less a pixel at each edge (antialiased against white)
    assert np.abs(inside - 127.5).max() <= 6, (inside.min(), inside.max())


def test_cells_and_mild_shrinks_are_left_to_the_engine():
    """Data cells (``pixelated``) keep their pixels; a photo shrunk less than 2x on an axis needs no reduction
    (96 px over 60 pt at 72 dpi: 1.6); one shrunk 7x is rewritten as a smaller PNG."""
    assert reduced_photos(canvas('style="image-rendering:pixelated"'), dpi=72, size_pt=(20, 20)) is None
    assert reduced_photos(canvas("", size=60), dpi=72, size_pt=(20, 20)) is None
    reduced = reduced_photos(canvas(""), dpi=72, size_pt=(20, 20))
    assert reduced is not None
    b64 = reduced.split(b"base64,")[1].split(b'"')[0]
    with Image.open(io.BytesIO(base64.b64decode(b64))) as img:
        assert img.size == (-(-96 // 7),) * 2  # 7 x 7 source pixels per pixel (the last, partial block too)
