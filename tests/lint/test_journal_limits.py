"""Each journal limit of every preset (composer/layout/presets.py names every number's source), held
against a figure made to just pass it and one made to just fail it.

Figure-level limits (widths, heights, text sizes, fonts) are checked on canvases of shapes and texts (no
panel: nothing to render); the limits measured on output files (format, TIFF compression and alpha,
pixels per inch, file size) on the files one build wrote and on files exported from its canvas at the
dpi on either side of the limit. The expected numbers are the journals' own (2.63 in, 8.75 in, 8 and
12 pt, 300 and 600 dpi, 10 and 20 MB; for the older presets the table STATED), written here, not read
from the presets.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from composer.layout.loader import load_layout
from composer.lint.rules import fonts_in_use, output_findings
from composer.pipeline import build, check

MM_PER_IN = 25.4

SHAPE = """
[[shape]]
kind = "rect"
at = ["2mm", "2mm"]
size = ["10mm", "5mm"]
"""

TEXTS = """
[[text]]
text = "small"
at = ["20mm", "10mm"]
size = "{small}"

[[text]]
text = "large"
at = ["20mm", "40mm"]
size = "{large}"
"""


def _layout(width: str, height: str, preset: str, body: str = SHAPE, extra: str = "") -> str:
    return f'[figure]\nwidth = "{width}"\nheight = "{height}"\npreset = "{preset}"\n{extra}\n{body}'


LAYOUTS = {
    # PLOS: 2.63 to 7.5 in wide, at most 8.75 in high, text 8 to 12 pt, Arial, Times or Symbol
    "plos_pass_min": _layout("2.63in", "8.75in", "plos", TEXTS.format(small="8pt", large="12pt")),
    "plos_fail_min": _layout("2.62in", "8.76in", "plos", TEXTS.format(small="7.9pt", large="12.1pt")),
    "plos_pass_max": _layout("7.5in", "1in", "plos"),
    "plos_fail_max": _layout("7.51in", "1in", "plos"),
    # eLife: elife.cls's full width, 6 cm + 4.5 cm of margin off letter paper less 1.3 cm: 187.9 mm
    "elife_pass": _layout("187.9mm", "20mm", "elife"),
    "elife_fail": _layout("188mm", "20mm", "elife"),
    # IEEE: "The maximum depth of a graphic is 9 inches"
    "ieee_pass": _layout("ieee.single", "9in", "ieee"),
    "ieee_fail": _layout("ieee.single", "9.01in", "ieee"),
    # built: PLOS as TIFF and PNG at 300 dpi, Science as a PNG at 600 dpi
    "plos_files": _layout("2.63in", "0.5in", "plos"),
    "science_files": _layout("55mm", "10mm", "science"),
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("journals")
    (root / "layouts").mkdir()
    for name, text in LAYOUTS.items():
        (root / "layouts" / f"{name}.toml").write_text(text)
    return root


@pytest.fixture(scope="module")
def built(project) -> dict[str, dict[str, Path]]:
    """One build of each figure whose files are measured."""
    plos = build("plos_files", root=project, formats=("svg", "tiff", "png"), dpi=300).outputs
    science = build("science_files", root=project, formats=("svg", "png"), dpi=600).outputs
    return {"plos": plos, "science": science}


def _rules(report) -> list[tuple[str, str]]:
    return sorted((f.rule, f.problem) for f in report.findings)


def _limits(project: Path, name: str):
    return load_layout(project / "layouts" / f"{name}.toml", display=f"{name}.toml").spec.check


def _exported(svg: Path, kind: str, dpi: float) -> bytes:
    from composer.stages.export import export

    return export(svg.read_bytes(), [kind], dpi=dpi)[kind]


def test_plos_size_and_text_limits_just_pass(project):
    report = check("plos_pass_min", root=project)
    # the default font (DejaVu Sans) is not one PLOS takes: the one finding; Arial is not installed here, so a
    # figure in it cannot be composed (test_plos_fonts holds the list)
    assert [(f.rule, f.element) for f in report.findings] == [("font-family", "figure.font")], report.table()
    assert check("plos_pass_max", root=project).findings == ()


def test_plos_size_and_text_limits_just_fail(project):
    report = check("plos_fail_min", root=project)
    assert "limits from plos preset: text 8 to 12 pt," in report.summary()
    found = {(f.rule, f.problem.split(" (")[0]): (f.measured, f.limit, f.unit) for f in report.findings}
    assert found.pop(("figure-size", "narrower than PLOS's narrowest figure")) == (
        pytest.approx(2.62 * MM_PER_IN), pytest.approx(2.63 * MM_PER_IN), "mm")
    assert found.pop(("figure-size", "taller than PLOS's tallest figure")) == (
        pytest.approx(8.76 * MM_PER_IN), pytest.approx(8.75 * MM_PER_IN), "mm")
    assert found.pop(("font-size", "text smaller than the minimum size at print")) == (
        pytest.approx(7.9), 8.0, "pt")
    assert found.pop(("font-size", "text larger than the largest size PLOS prints")) == (
        pytest.approx(12.1), 12.0, "pt")
    assert list(found) == [("font-family", "font 'DejaVu Sans' is not one PLOS takes; use Arial or Times or Symbol")]
    wide = check("plos_fail_max", root=project)
    assert [(f.rule, f.problem, round(f.measured, 3), round(f.limit, 3)) for f in wide.findings] == [
        ("figure-size", "wider than PLOS's widest figure", round(7.51 * MM_PER_IN, 3), round(7.5 * MM_PER_IN, 3))]


def test_plos_fonts(project, tmp_path):
    limits = _limits(project, "plos_pass_min")
    assert [f for f in ("Arial", "Times", "Times New Roman", "Symbol", "arial") if limits.takes_font(f)] == [
        "Arial", "Times", "Times New Roman", "Symbol", "arial"]
    assert [f for f in ("Helvetica", "DejaVu Sans", "Liberation Sans", "Arialx") if limits.takes_font(f)] == []
    layout = tmp_path / "arial.toml"
    layout.write_text(_layout("3in", "1in", "plos", '[[text]]\ntext = "a"\nat = ["1in", "0.5in"]\nfont = "Times"\n',
                              extra='font = "Arial"'))
    figure = load_layout(layout, display="arial.toml")
    assert fonts_in_use(figure) == {"Times": "text[0].font"}  # no panel: the figure's own font sets no text


def test_plos_font_lists(tmp_path):
    """A font list: every family sets some text (the first, and the others the characters it lacks), so
    each is held to PLOS's list: both are reported."""
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "listed.toml").write_text(_layout(
        "3in", "1in", "plos", '[[text]]\ntext = "a"\nat = ["1in", "0.5in"]\n',
        extra='font = "DejaVu Sans, WenQuanYi Micro Hei"'))
    report = check("listed", root=tmp_path)
    assert [(f.rule, f.element, f.problem.split(" is not")[0]) for f in report.findings] == [
        ("font-family", "figure.font", "font 'DejaVu Sans'"),
        ("font-family", "figure.font", "font 'WenQuanYi Micro Hei'")]


def test_elife_widths(project):
    assert check("elife_pass", root=project).findings == ()
    (finding,) = check("elife_fail", root=project).findings
    assert (finding.rule, finding.measured, round(finding.limit, 6)) == ("figure-size", pytest.approx(188), 187.9)


def test_plos_files_just_pass(project, built):
    tiff, png = built["plos"]["tiff"], built["plos"]["png"]
    with Image.open(tiff) as img:  # what the rule reads, read here independently
        assert (img.format, img.tag_v2[259], img.mode, img.size[0]) == ("TIFF", 5, "RGB", round(2.63 * 300))
    limits = _limits(project, "plos_files")
    size = (2.63 * 72, 0.5 * 72)
    assert output_findings(limits, {"tiff": ("f.tiff", tiff.read_bytes()), "png": ("f.png", png.read_bytes())},
                           size) == []
    assert check("plos_files", root=project).findings == ()  # compose check reads the built files back


def test_plos_files_just_fail(project, built):
    limits = _limits(project, "plos_files")
    size = (2.63 * 72, 0.5 * 72)
    png = built["plos"]["png"].read_bytes()
    (only_png,) = output_findings(limits, {"png": ("f.png", png)}, size)
    assert (only_png.rule, only_png.problem) == ("output-format", "PLOS takes figure files in TIFF or EPS only; "
                                                                  "build one with --format tiff")
    with Image.open(built["plos"]["tiff"]) as img:
        img.load()
        deflate, alpha = io.BytesIO(), io.BytesIO()
        img.save(deflate, format="TIFF", compression="tiff_adobe_deflate", dpi=(300, 300))
        img.convert("RGBA").save(alpha, format="TIFF", compression="tiff_lzw", dpi=(300, 300))
    assert [f.problem for f in output_findings(limits, {"tiff": ("f.tiff", deflate.getvalue())}, size)] == [
        "TIFF compressed as deflate; PLOS asks for LZW"]
    assert [f.problem for f in output_findings(limits, {"tiff": ("f.tiff", alpha.getvalue())}, size)] == [
        "TIFF with an alpha channel, which PLOS refuses (give the figure a background)"]


@pytest.mark.parametrize("dpi, found", [(299, "fewer"), (600, None), (601, "more")])
def test_plos_dpi_range(project, built, dpi, found):
    limits = _limits(project, "plos_files")
    data = _exported(built["plos"]["svg"], "tiff", dpi)
    findings = output_findings(limits, {"tiff": ("f.tiff", data)}, (2.63 * 72, 0.5 * 72))
    assert [f.problem.split(" pixels")[0] for f in findings] == ([found] if found else [])
    if found:
        assert findings[0].measured == pytest.approx(round(2.63 * dpi) / 2.63)
        assert findings[0].limit == (300 if found == "fewer" else 600)


def test_science_line_art_dpi(project, built):
    limits = _limits(project, "science_files")
    size = (55 / MM_PER_IN * 72, 10 / MM_PER_IN * 72)
    assert output_findings(limits, {"png": ("f.png", built["science"]["png"].read_bytes())}, size) == []
    (low,) = output_findings(limits, {"png": ("f.png", _exported(built["science"]["svg"], "png", 599))}, size)
    assert (low.rule, low.limit, low.measured) == ("output-dpi", 600, pytest.approx(1297 / (55 / MM_PER_IN)))


@pytest.mark.parametrize("preset, mb", [("plos", 10), ("cell", 20), ("icml", 20)])
def test_file_size_limits(tmp_path, preset, mb):
    layout = tmp_path / "f.toml"
    width = {"plos": "3in", "cell": "cell.single", "icml": "icml.single"}[preset]
    layout.write_text(_layout(width, "1in", preset))
    limits = load_layout(layout, display="f.toml").spec.check
    at_limit = b"%" * (mb * 1_000_000)  # MB as journals write it: 10^6 bytes
    assert output_findings(limits, {"eps": ("f.eps", at_limit)}, (216, 72)) == []
    over = [f for f in output_findings(limits, {"eps": ("f.eps", at_limit + b"%")}, (216, 72)) if f.rule == "file-size"]
    assert [(f.element, f.limit, f.unit) for f in over] == [("f.eps", mb, "MB")]
    assert over[0].measured == pytest.approx(mb + 1e-6)


def test_ieee_height_and_line_art_dpi(project, built):
    assert check("ieee_pass", root=project).findings == ()
    (tall,) = check("ieee_fail", root=project).findings
    assert (tall.rule, tall.measured, tall.limit) == ("figure-size", pytest.approx(9.01 * MM_PER_IN),
                                                      pytest.approx(9 * MM_PER_IN))
    # IEEE's ">600dpi" for line art against a real PNG (the Science build's canvas, 55 mm wide)
    limits = _limits(project, "ieee_pass")
    size = (55 / MM_PER_IN * 72, 10 / MM_PER_IN * 72)
    assert output_findings(limits, {"png": ("f.png", built["science"]["png"].read_bytes())}, size) == []
    (low,) = output_findings(limits, {"png": ("f.png", _exported(built["science"]["svg"], "png", 599))}, size)
    assert (low.rule, low.limit) == ("output-dpi", 600)


#: the journals' own numbers, as their pages state them (composer/layout/presets.py quotes each page):
#: preset -> (widest figure, tallest figure or None, smallest text in pt or None, smallest ppi or None)
STATED = {
    "nature": ("183mm", "170mm", 5.0, 300),
    "science": ("183mm", None, None, 400),
    "cell": ("174mm", None, 6.0, 300),
    "pnas": ("178mm", None, 6.0, 300),
    "ieee": ("7.16in", "9in", 8.0, 300),
    "neurips": ("5.5in", None, None, None),
    "icml": ("6.75in", None, None, None),
}
PIXELS = 30  # the photo's side in pixels: printed PIXELS / ppi inches wide, it is exactly ppi


def _past(length: str, fail: bool) -> str:
    """``length`` (``"183mm"``, ``"9in"``), or 0.1 mm more with ``fail``, in its own unit."""
    value, unit = float(length[:-2]), length[-2:]
    return f"{value + (0.1 / {'mm': 1.0, 'in': 25.4}[unit] if fail else 0.0)}{unit}"


def _stated_layout(preset: str, fail: bool) -> str:
    """A canvas at the preset's widest width and tallest height, a text at its smallest size and a photo at
    its smallest ppi; ``fail``: each a hair past the limit (0.1 mm, 0.1 pt, a photo 0.02 mm wider)."""
    width, height, font, ppi = STATED[preset]
    body = ""
    if font is not None:
        body += f'[[text]]\ntext = "small"\nat = ["20mm", "10mm"]\nsize = "{font - (0.1 if fail else 0)}pt"\n'
    if ppi is not None:
        side_mm = PIXELS / ppi * 25.4 + (0.02 if fail else 0.0)
        body += f'[panels.photo]\nimage = "photo.png"\nat = ["40mm", "5mm"]\nsize = ["{side_mm}mm", "{side_mm}mm"]\n'
    tall = "50mm" if height is None else _past(height, fail)
    # alt text: PNAS asks for it (rule alt-text), not a size limit
    return _layout(_past(width, fail), tall, preset, body, extra='alt = "a test figure"')


@pytest.fixture(scope="module")
def stated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("stated")
    (root / "layouts").mkdir()
    Image.new("RGB", (PIXELS, PIXELS), (200, 120, 40)).save(root / "layouts" / "photo.png")
    for preset in STATED:
        for fail in (False, True):
            (root / "layouts" / f"{preset}_{'fail' if fail else 'pass'}.toml").write_text(_stated_layout(preset, fail))
    return root


@pytest.mark.filterwarnings("ignore:panel photo")  # the failing photo is under 300 ppi: the build says so too
@pytest.mark.parametrize("preset", sorted(STATED))
def test_each_stated_value_just_passes_and_just_fails(stated, preset):
    width, height, font, ppi = STATED[preset]
    assert check(f"{preset}_pass", root=stated).findings == ()
    found = sorted((f.rule, round(f.limit, 3)) for f in check(f"{preset}_fail", root=stated).findings)
    mm = {"mm": 1.0, "in": 25.4}
    expected = [("figure-size", round(float(width[:-2]) * mm[width[-2:]], 3))]
    if height is not None:
        expected.append(("figure-size", round(float(height[:-2]) * mm[height[-2:]], 3)))
    if font is not None:
        expected.append(("font-size", font))
    if ppi is not None:
        expected.append(("raster-ppi", ppi))
    assert found == sorted(expected)


def test_plos_names_the_font_a_metric_twin_stands_for(tmp_path):
    """composer offers Liberation Sans when Arial is missing (the same metrics); PLOS still takes only
    Arial: the finding says which font the twin stands for and how to get there, not only the list."""
    (tmp_path / "layouts").mkdir()
    for name, font in (("twin", "Liberation Sans"), ("roman", "Nimbus Roman"), ("other", "DejaVu Serif")):
        (tmp_path / "layouts" / f"{name}.toml").write_text(_layout(
            "3in", "1in", "plos", '[[text]]\ntext = "a"\nat = ["1in", "0.5in"]\n', extra=f'font = "{font}"'))
    problems = {name: [f.problem for f in check(name, root=tmp_path).findings if f.rule == "font-family"]
                for name in ("twin", "roman", "other")}
    assert problems == {
        "twin": ["font 'Liberation Sans' is not one PLOS takes; use Arial or Times or Symbol; it has Arial's "
                 "metrics but is not Arial: install Arial and set font = 'Arial'"],
        "roman": ["font 'Nimbus Roman' is not one PLOS takes; use Arial or Times or Symbol; it has Times's "
                  "metrics but is not Times: install Times and set font = 'Times'"],
        "other": ["font 'DejaVu Serif' is not one PLOS takes; use Arial or Times or Symbol"]}
