"""A photo zoomed in a PDF viewer: pdfium's drawing of volume_kv's PDF against composer's PNG, over the photo.

    python benchmarks/photo_zoom.py               # 1200 dpi (a 4x zoom of a 300 dpi page)
    python benchmarks/photo_zoom.py --dpi 2400

volume_kv's panel (a) is a 504 x 504 px photo in 36 mm (356 ppi). Zoomed, a PDF viewer draws it enlarged;
without ``/Interpolate`` pdfium repeats each pixel (blocks), where composer's PNG (resvg) and Chromium smooth
it. The figure is built from this repository into a temporary folder; the PDF's page is drawn by pdfium over
the photo's box at ``--dpi``, composer's PNG is exported at the same dpi and cropped to the same box, and the
two are compared as the issue measured them: the mean absolute difference over RGB (of 255) in each 24 px
tile, the worst tile printed; and again after registering the two by the shift (up to 4 px each way) that
makes the worst tile smallest, since pdfium places an image on whole device pixels (what is left then is
how each draws the pixels, not where). Measured on 2 cores (issue #23): without ``/Interpolate`` 33.1 and,
registered, 25.8; with it 29.0 and 12.3.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
TILE_PX = 24
SHIFT_PX = 4


def worst_tile(a: np.ndarray, b: np.ndarray) -> float:
    """The largest mean |a - b| (0..255, over RGB) of the whole ``TILE_PX`` tiles of two equal-sized images."""
    d = np.abs(a - b).mean(axis=2)
    h, w = d.shape[0] // TILE_PX * TILE_PX, d.shape[1] // TILE_PX * TILE_PX
    return float(d[:h, :w].reshape(h // TILE_PX, TILE_PX, w // TILE_PX, TILE_PX).mean(axis=(1, 3)).max())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpi", type=float, default=1200.0)
    args = parser.parse_args()

    import pypdfium2 as pdfium
    from PIL import Image

    from composer.pipeline import build
    from composer.stages.export import export
    from composer.svg.images import _images, drawn_box
    from composer.svg.io import parse_svg
    from composer.svg.transform import cumulative

    with tempfile.TemporaryDirectory(prefix="composer-zoom-") as out:
        build("volume_kv", root=REPO, out=out, formats=("svg", "pdf"), cache=False)
        svg = Path(out, "volume_kv.svg").read_bytes()
        pdf = Path(out, "volume_kv.pdf").read_bytes()
    photo = next((el, image) for el, info, image in _images(parse_svg(svg, source="volume_kv"))
                 if el.get("id", "").startswith("rgb--"))
    _, _, (x0, y0, x1, y1) = drawn_box(photo[0], cumulative(photo[0]), photo[1])
    scale = args.dpi / 72
    doc = pdfium.PdfDocument(pdf)
    page = doc[0]
    _, height_pt = page.get_size()
    crop = (x0, height_pt - y1, page.get_size()[0] - x1, y0)  # left, bottom, right, top, pt
    a = np.asarray(page.render(scale=scale, crop=crop, fill_color=(255, 255, 255, 255)).to_pil()
                   .convert("RGB")).astype(float)
    page.close()
    doc.close()
    Image.MAX_IMAGE_PIXELS = None
    with Image.open(io.BytesIO(export(svg, ["png"], dpi=args.dpi)["png"])) as img:
        left, top = round(x0 * scale), round(y0 * scale)
        b = np.asarray(img.convert("RGB").crop((left, top, left + a.shape[1], top + a.shape[0]))).astype(float)
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    a, b = a[:h, :w], b[:h, :w]
    s = SHIFT_PX
    registered = min(worst_tile(a[s + dy:h - s + dy, s + dx:w - s + dx], b[s:h - s, s:w - s])
                     for dy in range(-s, s + 1) for dx in range(-s, s + 1))
    print(f"volume_kv photo ({photo[1].width_px} px over {(x1 - x0) / 72 * 25.4:.0f} mm) at {args.dpi:g} dpi: "
          f"worst {TILE_PX} px tile, pdfium vs composer's PNG: {worst_tile(a, b):.1f}/255; registered "
          f"(best shift within {SHIFT_PX} px): {registered:.1f}/255")
    return 0


if __name__ == "__main__":
    sys.exit(main())
