"""An image in a hidden layer (``display: none``) is not drawn, so composer says nothing about its pixels.

Found trying composer on a real Inkscape drawing (bioicons' tecan-plate-reader.svg): the photo it was
traced over sits in a hidden layer (``<g inkscape:groupmode="layer" style="display:none">``), and every
build warned "image ... has 275x183 px ... below raster_ppi 300" about a picture that no viewer, and
not composer's outputs, draws. The drawing is written here: a blue rect over the left half of a
100 x 50 viewBox in a visible layer, and a 4 x 4 px red PNG over the right half in a hidden one. The
same image shown in a second panel is the control: it is drawn and it is reported (4 px over 50 pt is
5.76 ppi).

Expected, from the geometry (canvas 200 x 50 pt at 72 dpi: 1 px = 1 pt): at (25, 25) blue, at (75, 25)
the white page (the hidden image), at (175, 25) red (the control), in the PNG and in pdfium's render
of the PDF; exactly one raster warning, the control's.
"""

from __future__ import annotations

import base64
import io
import warnings

import numpy as np
import pytest
from PIL import Image

from composer.errors import ComposerWarning
from composer.pipeline import build
from conftest import layout_project

DPI = 72


def red_png_uri() -> str:
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), (255, 0, 0)).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def drawing(layer_style: str) -> str:
    return f'''<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="100pt" height="50pt" viewBox="0 0 100 50">
  <g inkscape:groupmode="layer" id="layer2" inkscape:label="tracing" style="{layer_style}">
    <image id="template" x="50" y="0" width="50" height="50" preserveAspectRatio="none" xlink:href="{red_png_uri()}"/>
  </g>
  <g inkscape:groupmode="layer" id="layer1"><rect x="0" y="0" width="50" height="50" fill="#0000ff"/></g>
</svg>'''


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    root = layout_project(tmp_path_factory.mktemp("hidden"), '''
[panels.hid]
svg = "../figs/hidden.svg"
at = ["0pt", "0pt"]
size = ["100pt", "50pt"]

[panels.shown]
svg = "../figs/shown.svg"
at = ["100pt", "0pt"]
size = ["100pt", "50pt"]
''', head='width = "200pt"\nheight = "50pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "hidden.svg").write_text(drawing("display:none"))
    (root / "figs" / "shown.svg").write_text(drawing("display:inline"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build("fig", root=root, formats=("pdf", "png"), dpi=DPI, jobs=1)
    return root, [str(w.message) for w in caught if issubclass(w.category, ComposerWarning)]


def test_only_the_drawn_image_is_reported(hidden):
    _, messages = hidden
    rasters = [m for m in messages if "below raster_ppi" in m]
    assert len(rasters) == 1 and "panel shown: image has" in rasters[0] and "4x4 px" in rasters[0]


def test_the_hidden_image_is_not_drawn_in_the_png_and_the_pdf(hidden):
    import pypdfium2 as pdfium

    root, _ = hidden
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("RGB"), dtype=float)
    page = pdfium.PdfDocument(str(root / "build" / "fig.pdf"))[0]
    rendered = np.asarray(page.render(scale=DPI / 72).to_pil().convert("RGB"), dtype=float)
    for rgb in (png, rendered):
        assert rgb.shape[:2] == (50, 200)
        assert rgb[25, 25] == pytest.approx([0, 0, 255], abs=2)
        assert rgb[25, 75] == pytest.approx([255, 255, 255], abs=2)  # the hidden layer's image
        assert rgb[25, 175] == pytest.approx([255, 0, 0], abs=2)  # the same image, shown
