"""A PDF panel that paints a smooth shading (``sh``, as TikZ's shadings and LaTeX's ball shading write)
is checked and drawn (found trying composer on a real XeTeX/TikZ PDF).

``compose check`` stopped with a pypdfium2 traceback ("Failed to get matrix of pageobject"): reading
the panel's text sizes asked pdfium for the matrix of every page object, and pdfium has none for a
shading object. The PDF is typed here as bytes: an axial shading from red at x = 0 to blue at x = 200
(PDF pt), clipped to x 0..100, and a text at 3 pt (``/F1 6 Tf`` under a ``0.5`` text matrix).

Expected, worked out from the operators: the text is 3 pt (an error at Nature's 5 pt); at x = 50 pt
the shading is a quarter of the way from red to blue, (1 - 0.25) * 255 = 191 red and 0.25 * 255 = 64
blue; right of x = 100 the page is white (the clip), in the PNG and in pdfium's render of the PDF.
"""

from __future__ import annotations

import numpy as np
import pytest
from pdf_samples import hand_pdf
from PIL import Image

from composer.pipeline import build, check
from composer.stages import pdf as pdf_stage
from conftest import layout_project

pytestmark = pytest.mark.skipif(pdf_stage.missing() is not None, reason=pdf_stage.missing() or "")

SHADING = (b" /Shading << /Sh0 << /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 200 0]"
           b" /Function << /FunctionType 2 /Domain [0 1] /C0 [1 0 0] /C1 [0 0 1] /N 1 >> >> >>")
PAGE = (b"q 0 0 100 100 re W n /Sh0 sh Q\n"
        b"BT /F1 6 Tf 0.5 0 0 0.5 120 80 Tm 0 g (Small) Tj ET")
DPI = 72  # 1 px = 1 pt


@pytest.fixture(scope="module")
def shaded(tmp_path_factory):
    root = layout_project(tmp_path_factory.mktemp("shading"), '''
[panels.tex]
pdf = "../figs/shaded.pdf"
at = ["0pt", "0pt"]
size = ["200pt", "100pt"]
''', head='preset = "nature"\nwidth = "200pt"\nheight = "100pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "shaded.pdf").write_bytes(hand_pdf([PAGE], resources=SHADING))
    build("fig", root=root, formats=("pdf", "png"), dpi=DPI, jobs=1)
    return root


def test_a_pdf_panel_with_a_shading_is_checked_and_its_text_measured(shaded):
    report = check("fig", root=shaded, jobs=1)
    found = {f.rule: f for f in report.errors}
    assert found["font-size"].measured == pytest.approx(3.0, abs=1e-3)
    assert "'Small'" in found["font-size"].element


def test_the_shading_is_drawn_and_clipped_in_the_png_and_the_pdf(shaded):
    import pypdfium2 as pdfium

    png = np.asarray(Image.open(shaded / "build" / "fig.png").convert("RGB"), dtype=float)
    page = pdfium.PdfDocument(str(shaded / "build" / "fig.pdf"))[0]
    rendered = np.asarray(page.render(scale=DPI / 72).to_pil().convert("RGB"), dtype=float)
    for rgb in (png, rendered):
        assert rgb.shape[:2] == (100, 200)
        assert rgb[50, 50] == pytest.approx([191, 0, 64], abs=8)  # a quarter of the way from red to blue
        assert rgb[30, 150] == pytest.approx([255, 255, 255], abs=2)  # right of the clip: the white page
