"""README **Exports** promises on a build by name (the export stage's own tests call ``export`` directly):
the PDF is titled with the figure's name, its dates are pinned and its page is the canvas; every
``--pdf-standard`` the README names gives that profile or version. Read with pypdfium2."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from composer.pipeline import build

MM = 72 / 25.4

LAYOUT = """\
[figure]
width = "30mm"
height = "20mm"

[[shape]]
at = ["5mm", "5mm"]
size = ["10mm", "5mm"]
fill = "#0000ff"
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "layouts" / "tiny_fig.toml").write_text(LAYOUT)
    return root


def test_pdf_is_titled_with_the_figures_name_dated_2000_and_the_canvas_size(root):
    """Title "tiny_fig"; creation and modification dates pinned (the same in every build, not the build's
    date); one page of
    30 x 20 mm = 85.04 x 56.69 pt."""
    import pypdfium2 as pdfium

    first = build("tiny_fig", root=root, formats=("pdf",), cache=False).outputs["pdf"].read_bytes()
    again = build("tiny_fig", root=root, formats=("pdf",), cache=False).outputs["pdf"].read_bytes()
    assert first == again
    doc = pdfium.PdfDocument(first)
    meta = doc.get_metadata_dict()
    assert meta["Title"] == "tiny_fig"
    assert meta["CreationDate"] == meta["ModDate"]
    # pinned, not the time of the build: the date is not today (PDF dates are D:YYYYMMDD...)
    today = datetime.datetime.now(datetime.UTC).strftime("D:%Y%m%d")
    assert re.fullmatch(r"D:\d{14}.*", meta["CreationDate"]) and not meta["CreationDate"].startswith(today)
    assert len(doc) == 1
    width, height = doc[0].get_size()
    assert width == pytest.approx(30 * MM, abs=0.01) and height == pytest.approx(20 * MM, abs=0.01)


@pytest.mark.parametrize("standard, version, part, conformance", [
    ("a-2b", 17, b"2", b"B"), ("a-3b", 17, b"3", b"B"), ("a-4", 20, b"4", None),
    ("1.7", 17, None, None), ("2.0", 20, None, None),
])
def test_pdf_standard_writes_the_profile_or_version(root, standard, version, part, conformance):
    """README: ``--pdf-standard a-2b`` (or ``a-3b``, ``a-4``, ``1.7``, ``2.0``) writes PDF/A: the XMP
    ``pdfaid:part``/``conformance`` of ISO 19005 (PDF/A-4 has no conformance letter and is PDF 2.0)."""
    import pypdfium2 as pdfium

    pdf = build("tiny_fig", root=root, formats=("pdf",), pdf_standard=standard,
                cache=False).outputs["pdf"].read_bytes()
    assert pdfium.PdfDocument(pdf).get_version() == version
    assert pdf.startswith(b"%PDF-" + f"{version // 10}.{version % 10}".encode())
    found_part = re.findall(rb"pdfaid:part[^0-9<]{0,5}(\d)", pdf)
    found_conf = re.findall(rb"pdfaid:conformance[^A-Za-z<]{0,5}([A-Za-z])", pdf)
    assert (found_part[:1] or [None])[0] == part
    assert (found_conf[:1] or [None])[0] == conformance


def test_figure_pdf_is_titled_and_the_same_bytes_each_time(root):
    """docs/api.md ``Figure.pdf()``: titled with its name, creation date pinned (same input, same bytes)."""
    import pypdfium2 as pdfium

    from composer import Figure
    from composer.api import Shape

    fig = Figure("30mm", "20mm", name="in_code", root=root)
    fig.add(Shape(at=["5mm", "5mm"], size=["10mm", "5mm"], fill="#0000ff"))
    pdf = fig.pdf()
    assert pdf == fig.pdf()
    assert pdfium.PdfDocument(pdf).get_metadata_dict()["Title"] == "in_code"
