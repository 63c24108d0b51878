"""Real text in the PDF (``[figure] text = "selectable"``, the default; issue #24 item 1), measured on
built files: the PDF's text as poppler (``pdftotext``) and pdfium (pypdfium2) read it, its fonts as
pikepdf reads the ``/Font`` dictionaries, and its pixels as pdfium draws it against the outlines of
``text = "paths"`` (the oracle's metric, ``benchmarks/oracle.py``: a pixel differs when it lies more than
32/255 outside its neighbours' range in the other image).

The strings looked for are the ones written in each layout and panel module below; for volume_kv they
are every text of its SVG as ``compose check`` reads them (:func:`composer.svg.measure.scene`: canvas
text by its ``aria-label``, matplotlib's by its glyph ids), a reading that does not go through the PDF.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from composer.pipeline import build
from conftest import layout_project

pikepdf = pytest.importorskip("pikepdf")
pdfium = pytest.importorskip("pypdfium2")

ROOT = Path(__file__).resolve().parents[2]

PANEL_PY = r'''
def plot(fig, data):
    ax = fig.add_axes([0.3, 0.28, 0.62, 0.55])
    ax.plot([0, 1, 2], [1, 3, 2])
    ax.set_xticks([0, 1, 2], ["north", "south", "east"])
    ax.set_yticks([1, 2, 3], ["low", "mid", "top"])
    ax.set_ylabel("velocity fine")
    ax.set_title(r"$\alpha^2$ offset")
'''

BODY = """
[panels.p]
render = "p:plot"
at = ["2mm", "6mm"]
size = ["50mm", "34mm"]
label = "a"
title = "Speed trace"

[panels.far]
svg = "../far.svg"
at = ["55mm", "12mm"]
size = ["14mm", "6mm"]

[[text]]
text = "Caption with office"
at = ["55mm", "8mm"]
anchor = "w"

[[text]]
text = "Turned note"
at = ["75mm", "25mm"]
rotate = 90

[[text]]
text = "mass $m^2$ unit"
at = ["55mm", "36mm"]
anchor = "w"
"""

HEAD = 'width = "85mm"\nheight = "44mm"\nfont_size = "7pt"\nprovenance = false\n'  # equal bytes in both modes
WRITTEN = ["north", "south", "east", "low", "mid", "top", "velocityfine", "offset", "a", "Speedtrace",
           "Captionwithoffice", "Turnednote", "mass", "unit"]


def _oracle():
    if "oracle" in sys.modules:
        return sys.modules["oracle"]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("oracle", ROOT / "benchmarks" / "oracle.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["oracle"] = module  # its dataclasses are found by the module's name (as tests/test_oracle.py)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return module


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    """One project, two layouts drawn from the same cached panel: ``fig`` (the default text mode) and
    ``paths`` (``text = "paths"``), each as SVG, PDF and PNG at 100 dpi."""
    root = layout_project(tmp_path_factory.mktemp("realtext"), BODY, head=HEAD)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANEL_PY)
    _far_svg(root / "far.svg")
    (root / "layouts" / "paths.toml").write_text(
        "[figure]\n" + HEAD + 'text = "paths"\n' + BODY, encoding="utf-8")
    out = {}
    for name in ("fig", "paths"):
        result = build(name, root=root, formats=("svg", "pdf", "png"), dpi=100)
        out[name] = {kind: path.read_bytes() for kind, path in result.outputs.items()}
    return out


def _far_svg(path: Path) -> None:
    """An SVG saved by matplotlib elsewhere (its glyphs as outlines): imported, it keeps them in the PDF too
    (another matplotlib's font may number its glyphs otherwise)."""
    import matplotlib
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14 / 25.4, 6 / 25.4))
    fig.text(0.05, 0.3, "Remote")
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "far"}):
        fig.savefig(path, format="svg", metadata={"Date": None})


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _pdftotext(pdf: bytes, tmp_path: Path) -> str:
    if shutil.which("pdftotext") is None:
        pytest.skip("poppler's pdftotext is not installed")
    path = tmp_path / "in.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def _pdfium_text(pdf: bytes) -> str:
    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        return page.get_textpage().get_text_range()
    finally:
        doc.close()


def _fonts(pdf: bytes) -> list:
    """Every font dictionary the page and its form XObjects use (pikepdf objects)."""
    found, seen = [], set()

    def walk(resources) -> None:
        for font in resources.get("/Font", {}).values():
            if font.objgen not in seen:
                seen.add(font.objgen)
                found.append(font)
        for xobject in resources.get("/XObject", {}).values():
            if "/Resources" in xobject:
                walk(xobject.Resources)

    with pikepdf.open(__import__("io").BytesIO(pdf)) as doc:
        for page in doc.pages:
            walk(page.Resources)
        return [{"subtype": str(f.Subtype), "base": str(f.get("/BaseFont", "")),
                 "descendant": str(f.DescendantFonts[0].Subtype) if "/DescendantFonts" in f else None,
                 "file2": "/DescendantFonts" in f and "/FontFile2" in f.DescendantFonts[0].FontDescriptor,
                 "tounicode": "/ToUnicode" in f} for f in found]


def test_pdf_text_is_read_by_poppler_and_pdfium(builds, tmp_path):
    for reader, text in (("pdftotext", _pdftotext(builds["fig"]["pdf"], tmp_path)),
                         ("pdfium", _pdfium_text(builds["fig"]["pdf"]))):
        flat = _squeezed(text)
        missing = [w for w in WRITTEN if w not in flat]
        assert not missing, f"{reader} does not find {missing} in {text!r}"
        assert "α" in text, f"{reader}: mathtext's alpha (DejaVu Sans Oblique has a cmap) is not text"
        assert "office" in text and "fine" in text, f"{reader}: ligatures are not read as their letters"
        assert "Remote" not in text, f"{reader}: an imported file's outlines were made text"


def test_pdf_fonts_are_embedded_cid_truetype_subsets(builds):
    fonts = _fonts(builds["fig"]["pdf"])
    assert fonts, "the PDF holds no font: its text is not text"
    for font in fonts:
        assert font["subtype"] == "/Type0" and font["descendant"] == "/CIDFontType2", font
        assert font["file2"] and font["tounicode"], font
        assert re.fullmatch(r"/[A-Z]{6}\+[A-Za-z-]+", font["base"]), font
    assert {"DejaVuSans", "DejaVuSans-Oblique"} <= {f["base"].split("+")[1] for f in fonts}


def test_paths_mode_keeps_every_glyph_an_outline(builds, tmp_path):
    assert _fonts(builds["paths"]["pdf"]) == []
    assert _squeezed(_pdftotext(builds["paths"]["pdf"], tmp_path)) == ""


def test_svg_and_png_are_the_same_outlines_in_both_modes(builds):
    assert builds["fig"]["svg"] == builds["paths"]["svg"]
    assert builds["fig"]["png"] == builds["paths"]["png"]
    assert b"data-composer-glyphs" not in builds["fig"]["svg"] and b"data-font-file" not in builds["fig"]["svg"]
    assert b"<text" not in builds["fig"]["svg"]


def test_text_is_drawn_where_the_outlines_were(builds):
    """pdfium draws the text PDF and the outline PDF alike at 300 dpi but for antialiasing; the text PDF
    is not the outline PDF (it is drawn from fonts, so some edge pixels differ by more than the
    tolerance). (At 150 dpi, 0.2 % of the pixels differ in pdfium and in poppler alike: the viewers'
    font rasterizers draw the stems of 7 pt glyphs, 15 px to the em, otherwise than paths.)"""
    oracle = _oracle()
    text_px = oracle.render_pdfium(builds["fig"]["pdf"], 300)
    outline_px = oracle.render_pdfium(builds["paths"]["pdf"], 300)
    assert text_px.shape == outline_px.shape
    assert oracle.differing(text_px, outline_px, edge_px=0).any()
    share = oracle.differing(text_px, outline_px).mean()
    assert share <= 0.0001, f"{share:.4%} of the pixels differ beyond antialiasing"  # measured: none


def test_computer_modern_math_stays_outlines():
    """matplotlib's BaKoMa Computer Modern fonts put TeX's glyphs at TeX's own codes (cmmi10's alpha at
    U+00AE, '®'): text extraction would read the wrong letter, so such a glyph is not made text."""
    import matplotlib
    from matplotlib.font_manager import FontProperties
    from matplotlib.ft2font import FT2Font

    from composer.mpl.internals import glyph_layout
    from composer.text.realtext import Glyph, character_of, text_elements

    with matplotlib.rc_context({"mathtext.fontset": "cm"}):
        laid = glyph_layout(r"$\alpha x$", FontProperties(size=10), True)
    by_file = {Path(f).name: (f, i, c) for f, i, c, *_ in laid}
    cmmi = by_file["cmmi10.ttf"]
    alpha_font, alpha_index, alpha_char = next((f, i, c) for f, i, c, *_ in laid if c != "x")
    assert Path(alpha_font).name == "cmmi10.ttf" and alpha_char != "α"
    assert FT2Font(alpha_font).get_glyph_name(alpha_index) == "alpha"
    assert not character_of(alpha_font, alpha_index, alpha_char)
    x_font, x_index, _ = next((f, i, c) for f, i, c, *_ in laid if c == "x")
    assert character_of(x_font, x_index, "x") and cmmi[0] == x_font
    glyphs = [Glyph(f, i, c, x / 10, -y / 10, 10 * k) for f, i, c, x, y, k in laid]
    assert text_elements(glyphs) is None


def test_a_text_at_0_pt_keeps_its_outlines():
    """A canvas text at 0 pt (a fuzzed layout's font size) raised ZeroDivisionError in text_elements (its
    ``<text>`` is scaled by size / 100); it draws nothing, and keeps its outlines (none) as a glyph that
    cannot be a character does. The same glyph at 7 pt is one ``<text>``."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    from composer.text.realtext import Glyph, text_elements

    path = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans"))
    index = FT2Font(path).get_char_index(ord("a"))
    drawn = text_elements([Glyph(path, index, "a", 1.0, 2.0, 7.0)])
    assert drawn is not None and [el.text for el in drawn] == ["a"]
    assert text_elements([Glyph(path, index, "a", 1.0, 2.0, 0.0)]) is None


# ─── the flagship ────────────────────────────────────────────────────────────────────────────────────────

def _expected_texts(svg: bytes) -> list[str]:
    """Every text of the composed SVG as ``compose check`` reads it, squeezed, ``$...$`` left out."""
    from composer.svg.measure import scene

    out = []
    for run in scene(svg).texts:
        for line in run.text.split("\n"):
            out += [p for p in (_squeezed(part) for part in re.split(r"(?<!\\)\$.*?(?<!\\)\$", line)) if p]
    return out


def test_volume_kv_pdf_text_has_every_canvas_label_and_tick_label(flagship_build, tmp_path):
    svg, pdf = flagship_build["svg"].read_bytes(), flagship_build["pdf"].read_bytes()
    expected = _expected_texts(svg)
    assert len(expected) > 40  # the canvas texts, panel labels and titles, and the panels' own texts
    for reader, text in (("pdftotext", _pdftotext(pdf, tmp_path)), ("pdfium", _pdfium_text(pdf))):
        flat = _squeezed(text)
        missing = [t for t in expected if t not in flat]
        assert not missing, f"{reader} misses {missing}"
    fonts = _fonts(pdf)
    assert fonts and all(f["descendant"] == "/CIDFontType2" and f["file2"] for f in fonts), fonts
    assert not any(f["subtype"] == "/Type3" for f in fonts)
    from composer.layout.model import CheckLimits
    from composer.lint.rules import pdf_font_findings

    assert pdf_font_findings(CheckLimits(refuses_type3=True), "volume_kv.pdf", pdf) == []  # compose check's rule


def test_volume_kv_pdf_draws_its_png(flagship_build):
    """The PNG keeps the outlines; pdfium's drawing of the text PDF at the PNG's 300 dpi agrees with it
    within the oracle's antialiasing allowance: today's outline PDF, 384 px of 2.5 million (0.015 %), the
    text PDF 421 (0.017 %; 1,306, 0.052 %, when a superscript's scale was rounded to 3 decimals)."""
    oracle = _oracle()
    png = oracle.premultiplied(flagship_build["png"])
    drawn = oracle.render_pdfium(flagship_build["pdf"].read_bytes(), 300)
    h, w = min(png.shape[0], drawn.shape[0]), min(png.shape[1], drawn.shape[1])
    share = oracle.differing(drawn[:h, :w], png[:h, :w]).mean()
    assert share <= 0.0003, f"{share:.4%}"
