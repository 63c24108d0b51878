"""``--format pptx`` (composer/stages/export/pptx.py): one slide of the figure's size holding the figure as
PowerPoint's SVG picture (the SVG part, with the PNG as the blip's fallback), read back with python-pptx;
each panel alone with ``--panels``; deterministic bytes; LibreOffice opens and draws it (e2e).

Expected sizes are worked out here from the layout's millimetres: 914,400 EMU per inch (ECMA-376 Part 1,
20.1.2.1), so 80 mm is 80 / 25.4 * 914400 = 2,880,000 EMU, and the PNG at 50 dpi round(80 / 25.4 * 50) px.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from composer.errors import ComposerError
from composer.kinds.outputs import Job, check_formats
from composer.pipeline import build
from composer.stages.export.pptx import ASVG, SVG_EXTENSION, to_pptx

pptx = pytest.importorskip("pptx")

EMU_PER_IN = 914400
DPI = 50

LAYOUT = """
[figure]
width = "80mm"
height = "40mm"
alt = "A box, a blue rectangle and the word slide."

[panels.left]
svg = "box.svg"
at = ["4mm", "4mm"]
size = ["30mm", "30mm"]

[[shape]]
kind = "rect"
at = ["45mm", "8mm"]
size = ["30mm", "20mm"]
fill = "#0369a1"

[[text]]
text = "slide"
at = ["60mm", "34mm"]
"""

BOX = ('<svg xmlns="http://www.w3.org/2000/svg" width="30mm" height="30mm" viewBox="0 0 30 30">'
       '<rect width="30" height="30" fill="#f59e0b"/></svg>')


def emu(mm: float) -> int:
    return round(mm / 25.4 * EMU_PER_IN)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """One build: the figure as SVG, PNG and PPTX at 50 dpi, and each panel alone (--panels)."""
    root = tmp_path_factory.mktemp("slides")
    (root / "layouts").mkdir()
    (root / "layouts" / "slide.toml").write_text(LAYOUT)
    (root / "layouts" / "box.svg").write_text(BOX)  # paths are the layout's own
    outputs = build("slide", root=root, formats=("svg", "png", "pptx"), dpi=DPI, panels=True).outputs
    return {**outputs, "panel": root / "build" / "slide" / "left.pptx", "panel_svg": root / "build" / "slide" / "left.svg"}


def _picture(path: Path):
    prs = pptx.Presentation(str(path))
    (slide,) = prs.slides
    (shape,) = slide.shapes
    return prs, slide, shape


def _svg_part(slide, shape):
    blip = shape._element.blipFill.find("{http://schemas.openxmlformats.org/drawingml/2006/main}blip")
    (ext,) = [e for e in blip.iter("{http://schemas.openxmlformats.org/drawingml/2006/main}ext")
              if e.get("uri") == SVG_EXTENSION]
    rid = ext.find(f"{{{ASVG}}}svgBlip").get("{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed")
    return slide.part.related_part(rid)


def test_one_slide_of_the_figure_size_holding_the_picture(built):
    prs, slide, shape = _picture(built["pptx"])
    assert (prs.slide_width, prs.slide_height) == (emu(80), emu(40)) == (2880000, 1440000)
    assert shape.shape_type == pptx.enum.shapes.MSO_SHAPE_TYPE.PICTURE
    assert (shape.left, shape.top, shape.width, shape.height) == (0, 0, emu(80), emu(40))
    assert shape.name == "slide"
    assert shape._element.nvPicPr.cNvPr.get("descr") == "A box, a blue rectangle and the word slide."
    with zipfile.ZipFile(built["pptx"]) as z, Image.open(io.BytesIO(z.read("docProps/thumbnail.jpeg"))) as thumb:
        assert thumb.size == (157, 79)  # the figure's PNG (under 256 px: kept), not the template's picture
        x, y = round(60 / 25.4 * DPI), round(18 / 25.4 * DPI)  # inside the blue rectangle
        assert np.abs(np.asarray(thumb.convert("RGB"))[y, x].astype(int) - (3, 105, 161)).max() <= 12


def test_the_svg_part_is_composers_svg_and_the_png_its_fallback(built):
    _, slide, shape = _picture(built["pptx"])
    svg = _svg_part(slide, shape)
    assert svg.content_type == "image/svg+xml" and svg.partname.endswith(".svg")
    assert svg.blob == built["svg"].read_bytes()
    assert shape.image.content_type == "image/png" and shape.image.blob == built["png"].read_bytes()
    with Image.open(io.BytesIO(shape.image.blob)) as png:
        assert png.size == (round(80 / 25.4 * DPI), round(40 / 25.4 * DPI)) == (157, 79)


def test_each_panel_alone_is_a_slide_of_its_size(built):
    prs, slide, shape = _picture(built["panel"])
    # the panel's SVG states its size in pt to 0.001 (85.039pt for 30 mm): the slide is that size, within
    # half of it (6.35 EMU)
    for got in (prs.slide_width, prs.slide_height, shape.width, shape.height):
        assert abs(got - emu(30)) <= 6.35
    assert _svg_part(slide, shape).blob == built["panel_svg"].read_bytes()


def test_bytes_are_pinned(built):
    data = built["pptx"].read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert "2000-01-01T00:00:00Z" in core and "python-pptx" not in core
    job = Job(svg=built["svg"].read_bytes(), size_pt=(80 / 25.4 * 72, 40 / 25.4 * 72), title="slide", dpi=DPI,
              alt="A box, a blue rectangle and the word slide.")
    assert to_pptx(built["png"].read_bytes(), job) == data  # made again from the same SVG and PNG


def test_a_canvas_under_an_inch_sits_in_the_smallest_slide():
    png = io.BytesIO()
    Image.new("RGB", (25, 25), "white").save(png, "PNG")
    job = Job(svg=b'<svg xmlns="http://www.w3.org/2000/svg" width="36pt" height="36pt"/>', size_pt=(36.0, 36.0))
    prs = pptx.Presentation(io.BytesIO(to_pptx(png.getvalue(), job)))
    (shape,) = prs.slides[0].shapes
    assert (prs.slide_width, prs.slide_height) == (EMU_PER_IN, EMU_PER_IN)  # PowerPoint's smallest: 1 in
    assert (shape.left, shape.top, shape.width, shape.height) == (EMU_PER_IN // 4, EMU_PER_IN // 4,
                                                                  EMU_PER_IN // 2, EMU_PER_IN // 2)


def test_missing_python_pptx_is_one_line_naming_what_to_install(monkeypatch):
    import importlib.util

    find = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pptx" else find(name, *a))
    with pytest.raises(ComposerError) as info:
        check_formats(("svg", "pptx"))
    assert str(info.value) == "--format pptx needs pptx: pip install 'figure-composer[pptx]' (python-pptx)"


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("soffice") is None, reason="LibreOffice (soffice) is not installed")
def test_libreoffice_opens_the_slide_and_draws_the_figure(built, tmp_path):
    """LibreOffice Impress converts the slide to PDF: one page of the figure's size, drawing what composer's
    PNG shows (LibreOffice 7.4 draws the PNG fallback; PowerPoint draws the SVG)."""
    import pypdfium2 as pdfium

    subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{tmp_path / 'profile'}",
                    "--convert-to", "pdf", "--outdir", str(tmp_path), str(built["pptx"])],
                   check=True, capture_output=True, timeout=240)
    pdf = pdfium.PdfDocument(str(tmp_path / "slide.pdf"))
    assert len(pdf) == 1
    width_pt, height_pt = pdf[0].get_size()
    assert (width_pt, height_pt) == (pytest.approx(80 / 25.4 * 72, abs=0.05), pytest.approx(40 / 25.4 * 72, abs=0.05))
    drawn = np.asarray(pdf[0].render(scale=DPI / 72).to_pil().convert("RGB").resize((157, 79))).astype(int)
    with Image.open(built["png"]) as png:
        expected = np.asarray(png.convert("RGBA")).astype(float)
    on_white = (expected[..., :3] * expected[..., 3:] / 255 + 255 * (1 - expected[..., 3:] / 255)).round()
    assert np.abs(drawn - on_white).mean() < 4, "LibreOffice's page is not the figure"
    # the blue rectangle (#0369a1) is where the layout put it: 45 to 75 mm across, 8 to 28 mm down
    x, y = round(60 / 25.4 * DPI), round(18 / 25.4 * DPI)
    assert np.abs(drawn[y, x] - (3, 105, 161)).max() <= 6
