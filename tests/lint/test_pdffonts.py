"""The PDF's fonts as ``compose check`` reads them (:mod:`composer.lint.pdffonts`) and the ``pdf-fonts`` rule
(:func:`composer.lint.rules.pdf_font_findings`), on PDFs made here: one typed with pikepdf (Helvetica named,
not embedded), one saved by matplotlib with its default Type 3 fonts, one the resvg engine writes from SVG
``<text>``. Each font's name, type and embedding are checked against poppler's ``pdffonts`` listing of the
same file.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from composer.layout.model import CheckLimits
from composer.lint.pdffonts import pdf_fonts, takes
from composer.lint.rules import pdf_font_findings

pikepdf = pytest.importorskip("pikepdf")


def _helvetica_not_embedded() -> bytes:
    pdf = pikepdf.new()
    font = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name.Helvetica))
    page = pdf.add_blank_page(page_size=(100, 50))
    page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    page.obj.Contents = pdf.make_stream(b"BT /F1 12 Tf 10 20 Td (Hello) Tj ET")
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def _matplotlib_type3() -> bytes:
    import matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.5, 1))
    fig.text(0.1, 0.5, "Type three")
    out = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 3}):
        fig.savefig(out, format="pdf", metadata={"CreationDate": None})
    return out.getvalue()


def _engine_text() -> bytes:
    """The resvg engine's PDF of a ``<text>``, drawn in the export stage's forked worker (Typst's thread pool
    started in the test process would hang every later export's fork)."""
    from composer.stages.export import export

    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="30pt" viewBox="0 0 100 30">'
           b'<text x="5" y="20" font-family="DejaVu Sans" font-size="10">Real text</text></svg>')
    return export(svg, ["pdf"], dpi=72)["pdf"]


@pytest.fixture(scope="module")
def pdfs() -> dict[str, bytes]:
    return {"helvetica": _helvetica_not_embedded(), "type3": _matplotlib_type3(), "engine": _engine_text()}


def _poppler(pdf: bytes, tmp_path: Path) -> list[tuple[str, str, bool]]:
    """``pdffonts``' rows: (name, type, emb)."""
    if shutil.which("pdffonts") is None:
        pytest.skip("poppler's pdffonts is not installed")
    path = tmp_path / "f.pdf"
    path.write_bytes(pdf)
    lines = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout.splitlines()
    header = lines[0]
    cols = [header.index(h) for h in ("name", "type", "encoding", "emb")]
    return [(line[:cols[1]].strip(), line[cols[1]:cols[2]].strip(), line[cols[3]:cols[3] + 3].strip() == "yes")
            for line in lines[2:]]


def test_fonts_are_listed_as_pdffonts_lists_them(pdfs, tmp_path):
    for name, pdf in pdfs.items():
        ours = sorted((f.name, f.kind, f.embedded) for f in pdf_fonts(pdf))
        assert ours == sorted(_poppler(pdf, tmp_path)), name
    kinds = {name: {f.kind for f in pdf_fonts(pdf)} for name, pdf in pdfs.items()}
    assert kinds == {"helvetica": {"Type 1"}, "type3": {"Type 3"}, "engine": {"CID TrueType"}}
    assert {f.family for f in pdf_fonts(pdfs["engine"])} == {"DejaVuSans"}


def test_a_font_not_embedded_is_an_error_whatever_the_preset(pdfs):
    found = pdf_font_findings(CheckLimits(), "fig.pdf", pdfs["helvetica"])
    assert [(f.rule, f.level, f.element) for f in found] == [("pdf-fonts", "error", "fig.pdf: font Helvetica (Type 1)")]
    assert "not embedded" in found[0].problem
    assert pdf_font_findings(CheckLimits(), "fig.pdf", pdfs["engine"]) == []


def test_type3_is_an_error_only_where_the_journal_rejects_it(pdfs):
    assert pdf_font_findings(CheckLimits(), "fig.pdf", pdfs["type3"]) == []
    found = pdf_font_findings(CheckLimits(refuses_type3=True, journal="ICML"), "fig.pdf", pdfs["type3"])
    assert len(found) == 1 and "Type 3" in found[0].problem and "ICML" in found[0].problem
    assert pdf_font_findings(CheckLimits(refuses_type3=True), "fig.pdf", pdfs["engine"]) == []


def test_a_font_outside_the_presets_list_is_an_error(pdfs):
    plos = CheckLimits(fonts=("Arial", "Times", "Symbol"), journal="PLOS")
    found = pdf_font_findings(plos, "fig.pdf", pdfs["engine"])
    assert len(found) == 1 and "'DejaVuSans' is not one PLOS takes" in found[0].problem
    assert pdf_font_findings(CheckLimits(fonts=("DejaVu Sans",)), "fig.pdf", pdfs["engine"]) == []
    assert takes(("Arial", "Times"), "ArialMT") and takes(("Times",), "TimesNewRomanPSMT")
    assert not takes(("Arial",), "LiberationSans")


def test_bytes_that_are_not_a_pdf_give_no_finding():
    assert pdf_font_findings(CheckLimits(fonts=("Arial",)), "fig.png", b"\x89PNG\r\n\x1a\n") == []
