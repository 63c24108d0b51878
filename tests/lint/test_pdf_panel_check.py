"""``compose check`` reads what a PDF panel draws: its line widths and its text sizes (issue #23, item 5).

A 0.17 pt line and 3 pt text from an R ``pdf()`` file passed with 0 errors: pdftocairo writes every
stroke's colour as ``rgb(0%,0%,0%)``, which the check did not read, and draws text as outlines of no
size. The PDFs are made here: one typed as bytes the way R's ``pdf()`` writes (the standard Helvetica,
not embedded, named by ``Tf``; a line under a ``cm`` scale), and one by matplotlib's PDF backend with
its glyphs as Type 3 outlines and with a TrueType font (real text). The expected sizes are worked out
from the PDF's operators: ``0.34 w`` under ``0.5 0 0 0.5 cm`` is 0.17 pt; ``/F1 6 Tf`` under a text
matrix ``0.5 0 0 0.5`` is 3 pt; the page fills its box at scale 1.

The line is also measured where it is drawn, independently of the check: the ink of a vertical line,
summed across one row of pixels, is its width in pixels (at 600 dpi, 0.17 pt is 1.417 px), on the PNG and
on pdfium's render of the exported PDF.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from pdf_samples import hand_pdf
from PIL import Image

from composer.pipeline import build, check
from composer.stages import pdf as pdf_stage
from conftest import layout_project

pytestmark = pytest.mark.skipif(pdf_stage.missing() is not None, reason=pdf_stage.missing() or "")

#: R's pdf() draws in a scaled frame; a vertical line at x = 100 (page pt) from y 10 to 90, 0.17 pt wide,
#: and "Small" at 3 pt, "Big" at 8 pt
R_LIKE = (b"q 0.5 0 0 0.5 0 0 cm 0 0 0 RG 0.34 w 200 20 m 200 180 l S Q\n"
          b"BT /F1 6 Tf 0.5 0 0 0.5 10 10 Tm (Small) Tj ET\n"
          b"BT /F1 8 Tf 1 0 0 1 120 60 Tm (Big) Tj ET")
DPI = 600


def project(tmp_path, pdf: bytes, name: str = "plot.pdf"):
    root = layout_project(tmp_path, f'''
[panels.r]
pdf = "../figs/{name}"
at = ["0pt", "0pt"]
size = ["200pt", "100pt"]
''', head='preset = "nature"\nwidth = "200pt"\nheight = "100pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / name).write_bytes(pdf)
    return root


@pytest.fixture(scope="module")
def r_like(tmp_path_factory):
    root = project(tmp_path_factory.mktemp("rpdf"), hand_pdf([R_LIKE]))
    build("fig", root=root, formats=("pdf", "png"), dpi=DPI, jobs=1)
    return root, check("fig", root=root, jobs=1)


def test_an_r_pdf_s_thin_line_and_small_text_are_errors_at_the_preset_s_minimums(r_like):
    _, report = r_like
    found = {f.rule: f for f in report.errors}
    assert found["line-width"].measured == pytest.approx(0.17, abs=1e-3)
    assert found["line-width"].limit == pytest.approx(0.25)  # composer's default: Nature gives no line width
    assert found["font-size"].measured == pytest.approx(3.0, abs=1e-3)
    assert found["font-size"].limit == pytest.approx(5.0)  # Nature: 5 pt
    assert "'Small'" in found["font-size"].element and "'Big'" not in found["font-size"].element
    assert found["font-size"].element.startswith("panel r: 1 text")


def ink_across(gray: np.ndarray, row: int, x_px: float) -> float:
    """Darkness (0 white .. 1 black) summed across 6 px either side of ``x_px`` on one row: a vertical line's
    drawn width in pixels."""
    lo, hi = int(x_px) - 6, int(x_px) + 7
    return float(((255.0 - gray[row, lo:hi]) / 255.0).sum())


def test_the_line_the_check_measures_is_drawn_that_wide_in_the_png_and_the_pdf(r_like):
    import pypdfium2 as pdfium

    root, _ = r_like
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("L"), dtype=float)
    page = pdfium.PdfDocument(str(root / "build" / "fig.pdf"))[0]
    rendered = np.asarray(page.render(scale=DPI / 72).to_pil().convert("L"), dtype=float)
    expected = 0.17 * DPI / 72  # 1.417 px
    for gray in (png, rendered):
        # x = 100 pt, the middle row of the line (y 10..90 pt from the bottom: row 50 pt)
        assert ink_across(gray, int(50 * DPI / 72), 100 * DPI / 72) == pytest.approx(expected, rel=0.15)


@pytest.mark.parametrize("fonttype", [3, 42])  # Type 3: glyphs as outlines; 42: TrueType, real text
def test_matplotlib_pdf_text_and_lines_are_measured_whatever_the_font_type(tmp_path, fonttype):
    import matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(200 / 72, 100 / 72))
    fig.text(0.1, 0.5, "tiny", fontsize=3)
    fig.add_artist(matplotlib.lines.Line2D([0.5, 0.5], [0.1, 0.9], lw=0.17, color="k"))
    out = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": fonttype}):
        fig.savefig(out, format="pdf")
    report = check("fig", root=project(tmp_path, out.getvalue()), jobs=1)
    found = {f.rule: f for f in report.errors}
    assert found["font-size"].measured == pytest.approx(3.0, abs=1e-3)
    assert "'tiny'" in found["font-size"].element
    assert found["line-width"].measured == pytest.approx(0.17, abs=1e-3)
