"""PDF panels (``pdf = "plot.pdf"``, ``page = N``): vector in every output, placed in the box, cached.

The test PDFs are written here by hand, as bytes (a rectangle, a line and text in the standard
Helvetica, which the PDF does not embed), and by cairo through cairosvg (text in an embedded subset
font): neither is made by matplotlib. Expected positions are worked out from the PDF's own
coordinates (origin bottom-left, y up, 1 unit = 1 pt) and the box, not from composer's code.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from pdf_samples import PAGE_1, PAGE_2, PAGE_3, hand_pdf
from PIL import Image

from composer.errors import DataError
from composer.pipeline import build
from composer.stages import pdf as pdf_stage

pytestmark = pytest.mark.skipif(pdf_stage.missing() is not None, reason=pdf_stage.missing() or "")

MM = 72 / 25.4
PAGE_W, PAGE_H = 200.0, 100.0  # pt, the MediaBox of every hand-written page
#: the box: 50 mm x 25 mm at (10 mm, 10 mm), the page's 2:1 aspect, so the page fills it exactly
BOX = (10 * MM, 10 * MM, 50 * MM, 25 * MM)
SCALE = BOX[2] / PAGE_W


def project(tmp_path: Path, pdf: bytes, *, page: int | None = None, name: str = "plot.pdf") -> Path:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / name).write_bytes(pdf)
    page_line = f"page = {page}\n" if page is not None else ""
    (tmp_path / "layouts" / "fig.toml").write_text(
        '[figure]\nwidth = "70mm"\nheight = "45mm"\nbackground = "white"\n\n'
        f'[panels.p]\npdf = "../figs/{name}"\n{page_line}at = ["10mm", "10mm"]\nsize = ["50mm", "25mm"]\n')
    return tmp_path


def panel_px(png: Image.Image, x_pdf: float, y_pdf: float, dpi: float) -> tuple[int, int, int]:
    """The PNG pixel where the PDF page's point (x, y) lands (PDF y is up, from the page's bottom)."""
    x_pt = BOX[0] + x_pdf * SCALE
    y_pt = BOX[1] + (PAGE_H - y_pdf) * SCALE
    return png.getpixel((int(x_pt * dpi / 72), int(y_pt * dpi / 72)))[:3]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = project(tmp_path_factory.mktemp("pdfpanel"), hand_pdf([PAGE_1, PAGE_2, PAGE_3]))
    build("fig", root=root, formats=("svg", "pdf", "png"), dpi=150)
    return root


def test_the_built_pdf_draws_the_panel_as_vector_paths_with_no_image(built):
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(str(built / "build" / "fig.pdf"))
    objects = list(doc[0].get_objects(max_depth=64))
    types = [obj.type for obj in objects]
    assert raw.FPDF_PAGEOBJ_IMAGE not in types
    paths = [obj for obj in objects if obj.type == raw.FPDF_PAGEOBJ_PATH]
    # the rectangle, the line, and the five glyphs of "Hello" as outlines (the background rect besides)
    assert len(paths) >= 1 + 1 + 5
    # the rectangle's path lies where the box puts it: PDF y up from the canvas bottom (45 mm)
    left, bottom, right, top = 10 * MM + 20 * SCALE, (45 - 10) * MM - 80 * SCALE, 10 * MM + 100 * SCALE, \
        (45 - 10) * MM - 20 * SCALE
    found = [obj.get_bounds() for obj in paths]
    assert any(all(abs(a - b) < 0.05 for a, b in zip(bounds, (left, bottom, right, top))) for bounds in found), found


def test_png_pixels_show_the_rectangle_line_and_text_where_the_box_puts_them(built):
    png = Image.open(built / "build" / "fig.png").convert("RGB")
    r, g, b = panel_px(png, 60, 50, 150)  # the red rectangle's middle
    assert r > 180 and g < 60 and b < 60, (r, g, b)
    r, g, b = panel_px(png, 150, 50, 150)  # on the blue line: (110, 20)-(190, 80) passes (150, 50)
    assert b > 150 and r < 120, (r, g, b)
    assert panel_px(png, 105, 50, 150) == (255, 255, 255)  # between them: nothing
    # "Hello" (Helvetica 14 pt, baseline y = 85): dark pixels where its capitals are, between x 110 and 140
    x0, x1 = (int((BOX[0] + x * SCALE) * 150 / 72) for x in (110, 140))
    y0, y1 = (int((BOX[1] + (PAGE_H - y) * SCALE) * 150 / 72) for y in (95, 86))
    region = np.asarray(png)[y0:y1, x0:x1]
    assert (region.max(axis=2) < 100).sum() > 20
    # and nothing of page 2 (the green rectangle)
    assert panel_px(png, 150, 80, 150) == (255, 255, 255)


def test_the_placed_panel_is_the_size_of_its_box_and_its_text_is_outlines(built):
    svg = etree.parse(str(built / "build" / "fig.svg")).getroot()
    group = svg.find(".//{http://www.w3.org/2000/svg}g[@id='panel-p']")
    found = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)(?: scale\(([-\d.e]+)\))?", group.get("transform"))
    assert found, group.get("transform")
    x, y, scale = float(found[1]), float(found[2]), float(found[3] or 1)
    assert (x, y) == pytest.approx(BOX[:2], abs=1e-3)
    assert (PAGE_W * scale, PAGE_H * scale) == pytest.approx(BOX[2:], abs=1e-3)
    assert group.findall(".//{http://www.w3.org/2000/svg}text") == []  # glyphs are paths
    assert group.findall(".//{http://www.w3.org/2000/svg}image") == []


def test_page_picks_the_page(tmp_path):
    root = project(tmp_path, hand_pdf([PAGE_1, PAGE_2, PAGE_3]), page=2)
    build("fig", root=root, formats=("png",), dpi=150)
    png = Image.open(root / "build" / "fig.png").convert("RGB")
    r, g, b = panel_px(png, 150, 50, 150)  # the green rectangle of page 2
    assert g > 120 and r < 40 and b < 40, (r, g, b)
    assert panel_px(png, 60, 50, 150) == (255, 255, 255)  # page 1's red rectangle is not there


def test_a_page_past_the_last_is_one_line_naming_the_page_count(tmp_path):
    root = project(tmp_path, hand_pdf([PAGE_1, PAGE_2, PAGE_3]), page=5)
    with pytest.raises(DataError) as err:
        build("fig", root=root, formats=("svg",))
    assert re.fullmatch(r"layouts/fig\.toml:\d+:\d+: panels\.p\.page: \.\./figs/plot\.pdf has 3 pages; page = 5 is "
                        r"not one of them", str(err.value)), str(err.value)


@pytest.mark.parametrize("data, said", [
    (b"%PDF-1.4\nthis is no PDF at all\n", "../figs/plot.pdf is damaged or not a PDF (pdfinfo: "),
    (b"GIF89a not a pdf", "../figs/plot.pdf is not a PDF file"),
    (hand_pdf([PAGE_1], encrypt=True), "../figs/plot.pdf is encrypted with a password"),
])
def test_a_damaged_or_encrypted_pdf_is_one_line(tmp_path, data, said):
    root = project(tmp_path, data)
    with pytest.raises(DataError) as err:
        build("fig", root=root, formats=("svg",))
    message = str(err.value)
    assert "\n" not in message
    assert re.match(rf"layouts/fig\.toml:\d+:\d+: panels\.p\.pdf: {re.escape(said)}", message), message


def test_a_missing_converter_is_one_line_with_the_install_command(tmp_path, monkeypatch):
    root = project(tmp_path, hand_pdf([PAGE_1]))
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(DataError) as err:
        build("fig", root=root, formats=("svg",))
    assert re.sub(r"^(layouts/fig\.toml):\d+:\d+", r"\1", str(err.value)) == ("layouts/fig.toml: panels.p.pdf: PDF panels need pdftocairo and pdfinfo (poppler-utils), "
                              "which are not installed: apt-get install poppler-utils (macOS: brew install poppler; "
                              "conda: conda install -c conda-forge poppler)")


def test_the_conversion_is_cached_by_content_and_page(tmp_path, monkeypatch):
    path = tmp_path / "a.pdf"
    path.write_bytes(hand_pdf([PAGE_1, PAGE_2]))
    cache = tmp_path / "cache"
    first = pdf_stage.pdf_page_svg(path, 1, source="a.pdf", cache=cache)
    assert len(list(cache.rglob("*.svg"))) == 1

    def no_converter(argv, source):
        raise AssertionError(f"converted again: {argv}")

    monkeypatch.setattr(pdf_stage, "_run", no_converter)
    assert pdf_stage.pdf_page_svg(path, 1, source="a.pdf", cache=cache) == first  # from the cache
    with pytest.raises(AssertionError):  # another page is another entry
        pdf_stage.pdf_page_svg(path, 2, source="a.pdf", cache=cache)
    path.write_bytes(hand_pdf([PAGE_2, PAGE_1]))
    with pytest.raises(AssertionError):  # changed bytes: converted again
        pdf_stage.pdf_page_svg(path, 1, source="a.pdf", cache=cache)


def test_the_conversion_is_deterministic(tmp_path):
    path = tmp_path / "a.pdf"
    path.write_bytes(hand_pdf([PAGE_1]))
    assert (pdf_stage.pdf_page_svg(path, 1, source="a.pdf")
            == pdf_stage.pdf_page_svg(path, 1, source="a.pdf"))


def test_a_cairo_pdf_with_an_embedded_font_comes_through_as_outlines(tmp_path):
    """A PDF from another tool (cairo, via cairosvg) with text in an embedded subset of DejaVu Sans."""
    cairosvg = pytest.importorskip("cairosvg")
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200pt" height="100pt" viewBox="0 0 200 100">'
           '<rect x="0" y="0" width="200" height="100" fill="white"/>'
           '<text x="10" y="60" font-family="DejaVu Sans" font-size="40" fill="black">HHHH</text></svg>')
    data = cairosvg.svg2pdf(bytestring=svg.encode())
    assert b"FontFile" in data  # the font is embedded
    root = project(tmp_path, data)
    build("fig", root=root, formats=("svg", "png"), dpi=150)
    page = etree.parse(str(root / "build" / "fig.svg")).getroot()
    assert page.findall(".//{http://www.w3.org/2000/svg}text") == []
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("L"))
    # the first H's left stem: x 10 + ~4 (DejaVu's H stem is 0.098-0.197 em), y 60-29 (cap height 0.729 em)
    x = int((BOX[0] + 15 * SCALE) * 150 / 72)
    y0, y1 = (int((BOX[1] + y * SCALE) * 150 / 72) for y in (35, 57))
    assert png[y0:y1, x].max() < 100


def test_the_converters_own_files_are_not_inputs_of_the_figure(tmp_path):
    """The conversion writes and reads a page in a temporary folder, and reads and writes its cache
    entry, while the panel modules are imported (a recorded block): none of these is a file the
    figure depends on (they were: `--deps` listed /tmp/composer-pdf-.../page.svg, and the next build
    was not a no-op)."""
    from composer.incremental.manifest import load as load_manifest

    root = project(tmp_path, hand_pdf([PAGE_1]))
    build("fig", root=root, formats=("svg",))
    recorded = load_manifest(root / "build", "fig")
    assert recorded["opened"] == {}, recorded["opened"]
    assert build("fig", root=root, formats=("svg",)).up_to_date
