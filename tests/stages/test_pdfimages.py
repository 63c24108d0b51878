"""Photos smoothed in every PDF viewer, data cells kept crisp (issue #23, item 3: ``/Interpolate``).

One canvas, 120 x 40 pt, three pictures of two pixels each drawn 40 x 40 pt
(each pixel 20 pt wide), made here with Pillow; all three are 2 x 1 px, so each XObject is told
from the others by its samples:

- x 0..40: a photo, black | white (``image-rendering`` unset, inherited ``optimizeQuality`` from its group);
- x 40..80: data cells, grey 100 | white (``style="image-rendering:pixelated"``, as matplotlib writes
  ``imshow``);
- x 80..120: an image panel shown beyond its pixels, black | grey 200 (``image-rendering="optimizeSpeed"``).

Exported at 288 dpi (4 px per pt: each source pixel 80 px wide), a smooth picture ramps from black to
white across the middle of its box, over tens of pixels; a crisp one jumps within a pixel or two
(antialiasing of the edge). Checked on the PNG (resvg) and on pdfium's render of the PDF, whose
``/Interpolate`` keys are read back with pikepdf.
"""

from __future__ import annotations

import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from composer.stages.export import export
from conftest import pdf_pixels

DPI = 288


def pair(left: int, right: int) -> bytes:
    img = Image.new("L", (2, 1), right)
    img.putpixel((0, 0), left)
    out = io.BytesIO()
    img.convert("RGB").save(out, format="PNG")
    return out.getvalue()


def uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


SVG = f'''<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120pt"
 height="40pt" viewBox="0 0 120 40"><rect width="120" height="40" fill="#fff"/>
<g image-rendering="optimizeQuality"><image id="photo" width="40" height="40" preserveAspectRatio="none"
 xlink:href="{uri(pair(0, 255))}"/></g>
<image id="cells" x="40" width="40" height="40" preserveAspectRatio="none" style="image-rendering:pixelated"
 xlink:href="{uri(pair(100, 255))}"/>
<image id="panel" x="80" width="40" height="40" preserveAspectRatio="none" image-rendering="optimizeSpeed"
 xlink:href="{uri(pair(0, 200))}"/></svg>'''.encode()


@pytest.fixture(scope="module")
def drawn():
    out = export(SVG, ["png", "pdf"], dpi=DPI)
    with Image.open(io.BytesIO(out["png"])) as img:
        png = np.asarray(img.convert("RGB")).astype(int)
    return png, pdf_pixels(out["pdf"], dpi=DPI), out["pdf"]


def ramp_px(row: np.ndarray, x0_pt: float, low: int, high: int) -> int:
    """How many pixels of ``row`` (one channel) over the picture at ``x0_pt`` lie clearly between its
    two colours (more than 10 % of the way from each)."""
    part = row[round(x0_pt * DPI / 72) + 8:round((x0_pt + 40) * DPI / 72) - 8]
    margin = 0.1 * (high - low)
    return int(np.count_nonzero((part > low + margin) & (part < high - margin)))


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_photos_are_smooth_and_cells_crisp_in_png_and_pdf(drawn, which):
    """The photo ramps over at least 40 px (half a source pixel each side of its middle, bilinear:
    80 px; 40 leaves room for other filters); the data cells and the upsampled panel jump within 3 px."""
    px = drawn[0] if which == "png" else drawn[1]
    row = px[px.shape[0] // 2, :, 0]
    assert ramp_px(row, 0, 0, 255) >= 40, ramp_px(row, 0, 0, 255)
    assert ramp_px(row, 40, 100, 255) <= 3, ramp_px(row, 40, 100, 255)
    assert ramp_px(row, 80, 0, 200) <= 3, ramp_px(row, 80, 0, 200)
    # and the colours themselves are the pictures' (sRGB, unchanged)
    assert row[round(5 * DPI / 72)] <= 3 and row[round(35 * DPI / 72)] >= 252
    assert abs(row[round(45 * DPI / 72)] - 100) <= 2 and abs(row[round(85 * DPI / 72)]) <= 2


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_only_the_photo_asks_for_interpolation(drawn, engine):
    """In either engine's PDF (cairo writes the key itself; it read the cells' ``style`` as smooth)."""
    import pikepdf

    from composer.stages.export import missing

    if engine != "resvg" and missing(engine):
        pytest.skip(f"{engine}: {missing(engine)}")
    pdf = pikepdf.open(io.BytesIO(drawn[2] if engine == "resvg" else export(SVG, ["pdf"], engine=engine)["pdf"]))
    keys = sorted(((int(o.Width), bool(o.get("/Interpolate", False))),
                   int(np.asarray(pikepdf.PdfImage(o).as_pil_image().convert("L"))[0, 0]))
                  for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")
    # (width, interpolate), left pixel: the photo's black (0) smooth, the cells' grey 100 and the panel's black crisp
    assert keys == [((2, False), 0), ((2, False), 100), ((2, True), 0)], keys


def test_pdf_a_is_left_without_interpolate():
    """PDF/A forbids ``/Interpolate true`` (ISO 19005-2, 6.2.8)."""
    pdf = export(SVG, ["pdf"], pdf_standard="a-2b")["pdf"]
    assert not re.search(rb"/Interpolate\s+true", pdf)


def test_a_figure_without_photos_keeps_the_engine_bytes():
    from composer.stages.export.pdfimages import interpolate_photos

    crisp = re.sub(rb'<g image-rendering="optimizeQuality">.*?</g>', b"", SVG, flags=re.DOTALL)
    pdf = export(crisp, ["pdf"])["pdf"]
    assert interpolate_photos(pdf, crisp) is pdf


def test_a_style_sheet_rule_marks_cells_too():
    """``image-rendering`` set by a ``<style>`` rule (as an imported file may): the cells stay crisp, the photo
    (the same size, other samples) is smoothed."""
    import pikepdf

    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="80pt" height="40pt" viewBox="0 0 80 40">'
           f'<style>.cells {{ image-rendering: pixelated }}</style>'
           f'<image width="40" height="40" preserveAspectRatio="none" href="{uri(pair(0, 255))}"/>'
           f'<g class="cells"><image x="40" width="40" height="40" preserveAspectRatio="none" '
           f'href="{uri(pair(100, 255))}"/></g></svg>').encode()
    pdf = pikepdf.open(io.BytesIO(export(svg, ["pdf"])["pdf"]))
    keys = sorted((int(np.asarray(pikepdf.PdfImage(o).as_pil_image().convert("L"))[0, 0]),
                   bool(o.get("/Interpolate", False)))
                  for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Image")
    assert keys == [(0, True), (100, False)], keys
