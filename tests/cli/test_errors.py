"""Every bad input a researcher can give: one line on stderr, exit 1, no traceback, outputs untouched.

The demo project is copied and built once per module (so build/demo.svg, .pdf
and .png exist); every case copies that built project, breaks one thing (an
edit of layouts/demo.toml and/or an extra file), runs the CLI in-process and
checks the error line and that no file in build/ changed.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from composer.cli.main import main
from composer.layout.model import COMPASS
from conftest import snapshot
from errlines import without_frames

DEMO = Path(__file__).resolve().parents[1] / "projects" / "demo"
LAYOUT = "layouts/demo.toml"
OUTPUTS = ("demo.svg", "demo.pdf", "demo.png")
DEMO_TOML = (DEMO / LAYOUT).read_text(encoding="utf-8")
ANCHORS = set(COMPASS)
UNITS = {"pt", "in", "mm", "cm", "px"}

#: panel functions added to the copied project for the renderer cases
EXTRA_PANELS = '''\
def listy(fig, data):
    return [1]


def needs_z(fig, data):
    return data["z"]


def resize(fig, data):
    fig.set_size_inches(1, 1)
'''


def _npy_bytes() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.arange(3))
    return buf.getvalue()


@dataclass(frozen=True)
class Case:
    """One fault.

    Attributes:
        id: the pytest id.
        edits: (old, new) replacements on layouts/demo.toml; each old occurs once.
        expect: substrings the error line must contain (key path, bad value...).
        choices: (marker, names): the text after ``marker`` up to ``;`` is a
            comma-separated list that must include every one of ``names``.
        files: extra files written into the project copy (path -> text or bytes).
        without: programs the case runs without: ``shutil.which`` finds none of them (CI installs
            TeX for LaTeX text, so a case about a missing ``latex`` hides it).
    """

    id: str
    edits: tuple[tuple[str, str], ...]
    expect: tuple[str, ...]
    choices: tuple[str, set[str]] | None = None
    files: dict[str, str | bytes] = field(default_factory=dict)
    without: tuple[str, ...] = ()


def _line_of(text: str) -> int:
    return DEMO_TOML.splitlines().index(text) + 1


LABEL_B_LINE = _line_of('label = "b"')


LAYOUT_CASES = [
    # --- keys and values of the layout
    Case("unknown_key", (('label = "a"\n', 'label = "a"\ncolour = "red"\n'),),
         ("panels.a.colour", "'colour'"), ("valid keys are", {"at", "size", "label", "title", "params"})),
    Case("bad_unit", (('size = ["50mm", "45mm"]', 'size = ["12parsecs", "45mm"]'),),
         ("panels.a.size[0]", "'12parsecs'", "'parsecs'"), ("valid units are", UNITS)),
    Case("length_without_unit", (('size = ["50mm", "45mm"]', 'size = [50, 45]'),),
         ("panels.a.size[0]", "50 is not a length"), ("with a unit (", UNITS)),
    Case("negative_size", (('size = ["50mm", "45mm"]', 'size = ["50mm", "-45mm"]'),),
         ("panels.a.size[1]", "'-45mm'", "negative")),
    Case("zero_size", (('size = ["50mm", "45mm"]', 'size = ["50mm", "0mm"]'),),
         ("panels.a.size", "'0mm'", "positive")),
    Case("negative_canvas", (('width = "120mm"', 'width = "-120mm"'),),
         ("figure.width", "'-120mm'", "negative")),
    Case("zero_canvas", (('height = "70mm"', 'height = "0mm"'),),
         ("figure.height", "'0mm'", "positive")),
    Case("zero_radius", (('radius = "3mm"', 'radius = "0mm"'),),
         ("shape[0].radius", "'0mm'", "positive")),
    # keys that would do nothing for this element are refused, never ignored
    Case("radius_on_a_rect", (('kind = "circle"', 'kind = "rect"'), ('radius = "3mm"', 'radius = "3mm"\nsize = ["3mm", "3mm"]')),
         ("shape[0].radius", "does nothing here", "a rect takes size")),
    Case("size_on_a_circle", (('radius = "3mm"', 'radius = "3mm"\nsize = ["3mm", "3mm"]'),),
         ("shape[0].size", "does nothing here", "radius")),
    Case("gap_with_at", (('at = ["75mm", "8mm"]\n', 'at = ["75mm", "8mm"]\ngap = "2mm"\n'),),
         ("panels.b.gap", "does nothing here", "right_of", "anchor and offset")),
    Case("width_without_unit_as_a_number", (('width = "120mm"', 'width = 120'),),
         ("figure.width", "120 is not a length", 'e.g. "12mm"')),
    Case("preset_not_a_name", (('width = "120mm"', 'width = "120mm"\npreset = []'),),
         ("figure.preset", "[] is not a known preset", "'nature'")),
    Case("misspelt_refused_key", (('at = ["75mm", "8mm"]\n', 'at = ["75mm", "8mm"]\nalignn = "top"\n'),),
         ("panels.b.alignn", "unknown key 'alignn'", "did you mean 'align'?")),  # align itself would do nothing
    Case("symbol_on_a_rect", (('kind = "circle"', 'kind = "rect"'), ('radius = "3mm"', 'size = ["3mm", "3mm"]\nsymbol = "+"')),
         ("shape[0].symbol", "does nothing here", "circle")),
    Case("align_x_side_by_side", (('[[text]]', '[[align]]\npanels = ["a", "b"]\naxis = "x"\n\n[[text]]'),),
         ("align[0].axis", "panel 'a' shares a column with no other panel", 'axis = "y"')),
    Case("panel_off_canvas", (('at = ["75mm", "8mm"]', 'at = ["95mm", "8mm"]'),),
         # 95 + 40 = 135 mm on a 120 mm canvas: 15 mm past, in the layout's mm
         ("panels.b:", "panel 'b' reaches 15.0 mm past the right edge of the canvas (120mm x 70mm)")),
    Case("panel_at_a_data_anchor", (('at = ["75mm", "8mm"]', 'at = "a.peak"'),),
         ("panels.b.at: ", "at = \"a.peak\": 'peak' is a data anchor, known only after rendering")),
    Case("misspelt_required_key", (('height = "70mm"', 'hieght = "70mm"'),),
         ("figure.height:", "missing", "is 'hieght' a misspelling of 'height'?")),
    Case("misspelt_placement", (('at = ["75mm", "8mm"]', 'cel = "x"'),),
         ("panels.b:", "under-constrained", "is 'cel' a misspelling of 'cell'?")),
    Case("nan_text_value", (('data = "../data/demo.npz"', 'data = "../data/nan.json"'),),
         ("text[0]", "{total}", "nan", "never prints a missing value"),
         files={"data/nan.json": '{"y": [1.0, NaN], "scale": 2}'}),
    Case("misspelt_param", (('params = { n = 8 }', 'params = { m = 8 }'),),
         ("panels.a.params.m:", "demo:line takes no parameter 'm'", "it takes n")),
    Case("null_text_value", (('data = "../data/demo.npz"', 'data = "../data/none.json"'),),
         ("text[0]", "{scale} has no value"), files={"data/none.json": '{"y": [1.0, 2.0], "scale": null}'}),
    Case("truncated_png", (('image = "../assets/photo.png"', 'image = "../assets/trunc.png"'),),
         ("panels.photo.image", "cannot read image", "truncated"),
         files={"assets/trunc.png": (DEMO / "assets" / "photo.png").read_bytes()[:48]}),
    Case("zero_length_arrow", (('to = "b.w"', 'to = "node.e"'),),
         ("arrow[1]:", "connector is 0.0 mm long", "nothing would be drawn")),  # the layout's mm
    Case("zero_font_size", (('font_size = "7pt"', 'font_size = "0pt"'),),
         ("figure.font_size", "'0pt' is zero", "above 0 pt")),
    Case("tiny_canvas", (('width = "120mm"', 'width = "1e-300mm"'),),
         ("figure.width", "less than 1 mm")),
    Case("fullwidth_digits", (('width = "120mm"', 'width = "１２０mm"'),),
         ("figure.width", "is not a length")),
    Case("rcparam_composer_sets", (('[[text]]', '[rcparams]\n"savefig.bbox" = "tight"\n\n[[text]]'),),
         ("rcparams.savefig.bbox", "composer sets savefig.bbox itself", "exactly its box's size")),
    Case("rcparam_usetex_without_latex", (('[[text]]', '[rcparams]\n"text.usetex" = true\n\n[[text]]'),),
         ("rcparams.text.usetex", "needs LaTeX"), without=("latex",)),
    Case("bend_without_arc", (('route = "-|"', 'route = "-|"\nbend = 45'),),
         ("arrow[0].bend", "does nothing here", 'route = "arc"')),
    Case("label_style_without_label", (('route = "-|"', 'route = "-|"\nlabel_color = "red"'),),
         ("arrow[0].label_color", "does nothing here", "has none")),
    Case("params_on_an_svg_panel", (('svg = "../assets/logo.svg"', 'svg = "../assets/logo.svg"\nparams = { x = 1 }'),),
         ("panels.logo.params", "does nothing here", "embedded as it is")),
    Case("text_style_on_a_shape_without_text", (('text = "+"\n', ''), ('text_size = "9pt"', 'text_size = "9pt"')),
         ("shape[0].text_size", "does nothing here", "it has none")),
    Case("unused_text_style_with_a_typo", (('[[text]]', '[styles.big]\nsize = "banana"\n\n[[text]]'),),
         ("styles.big.size", "'banana' is not a length")),
    Case("shared_param_nobody_takes", (('data = "../data/demo.npz"', 'data = "../data/demo.npz"\nparams = { nn = 8 }'),),
         ("figure.params.nn", "no panel function, values() or text field takes 'nn'", "did you mean 'n'?")),
    Case("values_without_a_data_file", (('data = "../data/demo.npz"\n', ''),),
         ("values() in panels/demo.py raised KeyError", "the figure has no data file")),
    Case("missing_required_key", (('size = ["40mm", "40mm"]\n', ''),),
         ("panels.b.size", "missing")),
    Case("under_constrained", (('at = ["75mm", "8mm"]\n', ''),),
         ("panels.b:", "under-constrained", "at, cell, right_of")),
    Case("over_constrained", (('at = ["75mm", "8mm"]\n', 'at = ["75mm", "8mm"]\nright_of = "a"\n'),),
         ("panels.b:", "over-constrained", "at and right_of")),
    Case("missing_figure_table", (('[figure]', '[figures]'),),
         (f"{LAYOUT}: figure:", "[figure]", "width and height")),
    Case("malformed_toml", (('label = "b"', 'label = "b'),),
         ("not valid TOML", f"line {LABEL_B_LINE}", "'label = \"b'", 'a "string" ends on its line')),
    Case("byte_order_mark", (('[figure]', '\ufeff[figure]'),),
         ("not valid TOML", "the file starts with a byte order mark, U+FEFF: save it as UTF-8 without one")),
    Case("inline_table_trailing_comma", (('label = "b"', 'label = "b"\nparams = { n = 8, }'),),
         ("not valid TOML", f"line {LABEL_B_LINE + 1}", "'params = { n = 8, }'",
          "an inline table {...} takes no comma after its last entry")),
    Case("duplicate_toml_key", (('label = "b"', 'label = "b"\nlabel = "c"'),),
         ("not valid TOML", f"line {LABEL_B_LINE + 1}")),
    Case("unknown_route", (('route = "-|"', 'route = "->"'),),
         ("arrow[0].route", "'->'"), ("supported values are", {"straight", "-|", "|-"})),
    Case("unknown_head", (('route = "-|"', 'route = "-|"\nhead = "tail"'),),
         ("arrow[0].head", "'tail'"), ("supported values are", {"end", "start", "both", "none"})),
    Case("unknown_text_anchor", (('anchor = "n"', 'anchor = "north"'),),
         ("text[0].anchor", "'north'"), ("supported values are", ANCHORS)),
    Case("unknown_weight", (('weight = "bold"', 'weight = "heavy"'),),
         ("text[0].weight", "'heavy'"), ("supported values are", {"normal", "bold"})),
    Case("bad_colour_hex", (('color = "#334155"', 'color = "#33415"'),),
         ("text[0].color", "'#33415'", "not a colour")),
    Case("bad_colour_name", (('fill = "#eef2ff"', 'fill = "bluish"'),),
         ("shape[0].fill", "'bluish'", "not a colour")),
    Case("transparent_colour", (('color = "#334155"', 'color = "#33415580"'),),
         ("text[0].color", "'#33415580'", "transparency")),
    Case("unknown_font", (('font_size = "7pt"', 'font_size = "7pt"\nfont = "Comic Nonsense"'),),
         ("figure.font", "'Comic Nonsense'"), ("installed fonts are", {"DejaVu Sans"})),
    Case("duplicate_name", (('name = "node"', 'name = "a"'),),
         ("shape[0].name", "'a'", "panels.a")),
    # --- panel functions
    Case("unknown_function", (('"demo:line"', '"demo:lines"'),),
         ("panels.a.render", "'lines'", "demo.py", "did you mean 'line'?"), ("functions are", {"line", "heat", "broken"})),
    Case("values_is_not_a_renderer", (('"demo:line"', '"demo:values"'),),
         ("panels.a.render", "values() in demo.py fills text fields", "not a panel renderer"),
         ("renderers are ", {"line", "heat", "broken"})),
    Case("function_raises", (('"demo:heat"', '"demo:broken"'),),
         ("panels.b.render", "panel 'b'", "demo:broken", "ZeroDivisionError", "demo.py:")),
    Case("unknown_module", (('"demo:heat"', '"demos:heat"'),),
         ("panels.b.render", "'demos'"), ("modules are", {"demo"})),
    Case("render_not_module_function", (('"demo:heat"', '"demo.heat"'),),
         ("panels.b.render", "'demo.heat'", "module:function")),
    Case("module_import_fails", (('"demo:heat"', '"bad_import:heat"'),),
         ("panels.b.render", "panels/bad_import.py", "ModuleNotFoundError", "not_a_real_module_xyz"),
         files={"panels/bad_import.py": "import not_a_real_module_xyz\n"}),
    Case("function_returns_non_dict", (('"demo:heat"', '"extra:listy"'),),
         ("panels.b.render", "panel 'b'", "extra:listy", "returned list"), files={"panels/extra.py": EXTRA_PANELS}),
    Case("function_reads_missing_data_key", (('"demo:heat"', '"extra:needs_z"'),),
         ("panels.b.render", "panel 'b'", "extra:needs_z", "KeyError", "'z'; the data file has scale, y"), files={"panels/extra.py": EXTRA_PANELS}),
    Case("function_resizes_figure", (('"demo:heat"', '"extra:resize"'),),
         ("panels.b.render", "panel 'b'", "extra:resize",  # 1 in = 25.4 mm; b is 40 x 40 mm
          "changed the figure size to 25.4 x 25.4 mm; a panel is drawn at its box size (40.0 x 40.0 mm)"), files={"panels/extra.py": EXTRA_PANELS}),
    Case("panel_param_breaks_function", (('params = { n = 8 }', 'params = { n = 80 }'),),
         ("panels.a.render", "panel 'a'", "demo:line", "ValueError")),
    # --- data and text fields
    Case("missing_data_file", (('"../data/demo.npz"', '"../data/missing.npz"'),),
         ("figure.data", "'../data/missing.npz'", "not found")),
    Case("missing_panel_data_file", (('label = "b"', 'label = "b"\ndata = "../data/nope.csv"'),),
         ("panels.b.data", "'../data/nope.csv'", "not found")),
    Case("data_file_not_npz", (('"../data/demo.npz"', '"../data/broken.npz"'),),
         ("data/broken.npz", "not an .npz archive"), files={"data/broken.npz": "garbage, not a zip\n"}),
    Case("data_file_is_npy", (('"../data/demo.npz"', '"../data/array.npz"'),),
         ("data/array.npz", "not an .npz archive"), files={"data/array.npz": _npy_bytes()}),
    Case("bad_json_data", (('"../data/demo.npz"', '"../data/bad.json"'),),
         ("data/bad.json", "cannot read data", "line 1"), files={"data/bad.json": "{nope"}),
    Case("empty_csv_data", (('"../data/demo.npz"', '"../data/empty.csv"'),),
         ("data/empty.csv", "header row"), files={"data/empty.csv": "a,b\n"}),
    Case("text_field_without_value", (('{total:.1f}', '{totl:.1f}'),),
         ("text[0].text", "{totl}"), ("values are", {"total", "scale"})),
    Case("text_field_bad_format", (('{scale}', '{scale:d}'),),
         ("text[0].text", "{scale:d}", "'d'")),
    Case("bad_mathtext", ((r'$\\alpha_i^2 + \\beta$', r'$\\alphaa$'),),
         ("text[0].text", "alphaa", "cannot typeset")),
    # --- references between elements
    Case("arrow_to_unknown_panel", (('to = "b.w"', 'to = "c.w"'),),
         ("arrow[1].to", "to = \"c.w\": no panel, text or shape named 'c' (valid: "),
         ("valid: ", {"a", "b", "logo", "photo", "node", "canvas"})),
    Case("relation_to_unknown_element", (('at = ["75mm", "8mm"]', 'right_of = "zz"'),),
         ("panels.b.right_of: ", "right_of = \"zz\": no panel, text or shape named 'zz' (valid: "),
         ("valid: ", {"a", "logo", "photo", "node", "canvas"})),
    Case("relation_misspelt", (('at = ["75mm", "8mm"]', 'below = "lgo"'),),
         ("panels.b.below: ", "below = \"lgo\": no panel, text or shape named 'lgo'; did you mean 'logo'? (valid: ")),
    Case("rcparam_misspelt_key", (('[[text]]', '[rcparams]\n"lines.linewdith" = 2\n\n[[text]]'),),
         ("rcparams.lines.linewdith: ", "unknown rcParam 'lines.linewdith'; did you mean 'lines.linewidth'?")),
    Case("rcparam_bad_value", (('[[text]]', '[rcparams]\n"lines.linewidth" = "big"\n\n[[text]]'),),
         ("rcparams.lines.linewidth: ", "'lines.linewidth' = \"big\": not a valid value for this rcParam: ", "'big'")),
    Case("arrow_compass_typo_render_panel", (('to = "b.w"', 'to = "b.east"'),),
         ("arrow[1].to", "to = \"b.east\": 'b' has no anchor 'east'"), ("valid anchors are", ANCHORS)),
    Case("arrow_compass_typo_shape", (('to = "node.w"', 'to = "node.west"'),),
         ("arrow[0].to", "to = \"node.west\": 'node' has no anchor 'west'"), ("valid anchors are", ANCHORS)),
    Case("arrow_unpublished_data_anchor", (('from = "a.peak"', 'from = "a.peek"'),),
         ("arrow[0].from", "from = \"a.peek\": 'a' has no anchor 'peek'; did you mean 'peak'?"),
         ("valid anchors are", ANCHORS | {"peak"})),
    Case("text_at_unknown_element", (('at = "b.s"', 'at = "bb.s"'),),
         ("text[0].at", "at = \"bb.s\": no panel, text or shape named 'bb'; did you mean 'b'?"),
         ("valid: ", {"a", "b", "node"})),
    # --- imported files
    Case("svg_panel_not_svg", (('"../assets/logo.svg"', '"../assets/notes.svg"'),),
         ("panels.logo.svg", "'../assets/notes.svg'", "not well-formed XML"),
         files={"assets/notes.svg": "these are my notes, not a drawing\n"}),
    Case("svg_panel_is_a_png", (('"../assets/logo.svg"', '"../assets/photo_copy.svg"'),),
         ("panels.logo.svg", "'../assets/photo_copy.svg'", "not well-formed XML"),
         files={"assets/photo_copy.svg": (DEMO / "assets" / "photo.png").read_bytes()}),
    Case("svg_panel_wrong_root", (('"../assets/logo.svg"', '"../assets/page.svg"'),),
         ("panels.logo.svg", "'../assets/page.svg'", "not an SVG"),
         files={"assets/page.svg": '<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>\n'}),
    Case("image_panel_not_image", (('"../assets/photo.png"', '"../assets/fake.png"'),),
         ("panels.photo.image", "'../assets/fake.png'", "not a PNG or JPEG"),
         files={"assets/fake.png": "not an image\n"}),
    Case("svg_panel_missing_file", (('"../assets/logo.svg"', '"../assets/logo2.svg"'),),
         ("panels.logo.svg", "'../assets/logo2.svg'", "not found")),
    Case("svg_panel_wrong_suffix", (('"../assets/logo.svg"', '"../assets/logo.pdf"'),),
         ("panels.logo.svg", "'../assets/logo.pdf'"), ("supported: ", {".svg"})),
]

#: cases whose fault is in a data or panel file, not in the layout itself
NOT_LAYOUT = {"data_file_not_npz", "data_file_is_npy", "bad_json_data", "empty_csv_data"}


# ------------------------------------------------------------------ fixtures and helpers


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The demo project copied and built once: build/demo.{svg,pdf,png} exist."""
    root = tmp_path_factory.mktemp("errors") / "demo"
    shutil.copytree(DEMO, root)
    assert main(["demo", "--root", str(root)]) == 0
    for name in OUTPUTS:
        assert (root / "build" / name).stat().st_size > 0, name
    return root


@pytest.fixture
def project(built, tmp_path) -> Path:
    """A fresh copy of the built project (mtimes kept), for one case to break."""
    root = tmp_path / "demo"
    shutil.copytree(built, root)
    return root



def break_layout(root: Path, edits) -> None:
    path = root / LAYOUT
    text = path.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, f"the demo layout no longer has exactly one {old!r}"
        text = text.replace(old, new)
    assert text != DEMO_TOML
    path.write_text(text, encoding="utf-8")


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()  # drop anything printed before
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def error_line(status: int, out: str, err: str) -> str:
    """Check the CLI failed cleanly and return its one error line."""
    assert status == 1, (status, err)
    assert "Traceback" not in err, err
    assert out == "", out
    lines = without_frames(err)  # an error in panel code: the traceback of the user's code follows
    assert len(lines) == 1 and lines[0].strip(), f"expected one non-empty line on stderr, got {err!r}"
    assert lines[0].startswith("compose: error: "), lines[0]
    return lines[0]


def listed(line: str, marker: str) -> set[str]:
    """The comma-separated names after ``marker`` (up to ``;`` or ``)``), quotes stripped."""
    assert marker in line, f"{marker!r} not in {line!r}"
    rest = line.split(marker, 1)[1].split(";")[0].split(")")[0]
    return {name.strip().strip("'\"") for name in rest.split(",")}


# ------------------------------------------------------------------ tests


def test_unbroken_copy_builds(project, capsys):
    """Control: the copied project builds, so each failure below is the fault's doing.

    (``--no-cache``: the copy is up to date, and a no-op would prove nothing.)
    """
    status, out, err = run(capsys, ["demo", "--root", str(project), "--no-cache"])
    assert status == 0, err
    # the one warning: the demo's 30 x 20 px photo prints at 51 ppi (composer reports, never resamples, it)
    assert [line for line in err.splitlines() if not line.startswith("compose: warning: panel photo: image ")] == []
    assert "built demo" in out


@pytest.mark.parametrize("case", LAYOUT_CASES, ids=[c.id for c in LAYOUT_CASES])
def test_bad_input_is_one_clear_line(case: Case, project, capsys, monkeypatch):
    if case.without:  # the programs looked for are not found (the build runs in this process)
        which = shutil.which
        monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs:
                            None if name in case.without else which(name, *args, **kwargs))
    for rel, content in case.files.items():
        path = project / rel
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    break_layout(project, case.edits)
    before = snapshot(project)
    assert {f"build/{n}" for n in OUTPUTS} <= set(before)

    line = error_line(*run(capsys, ["demo", "--root", str(project)]))

    if case.id not in NOT_LAYOUT:
        assert re.search(rf"compose: error: {re.escape(LAYOUT)}(:\d+:\d+)?: ", line), line  # the key's line
    for part in case.expect:
        assert part in line, f"{part!r} not in {line!r}"
    if case.choices:
        marker, names = case.choices
        missing = names - listed(line, marker)
        assert not missing, f"{sorted(missing)} not listed after {marker!r} in {line!r}"
    assert snapshot(project) == before, "a failed build changed build/"


def test_unknown_figure_lists_figures(project, capsys):
    (project / "layouts" / "poster.toml").write_text((project / LAYOUT).read_text())
    before = snapshot(project)
    line = error_line(*run(capsys, ["demo_v2", "--root", str(project)]))
    assert "'demo_v2'" in line and "layouts/demo_v2.toml" in line
    assert listed(line, "figures are ") == {"demo", "poster"}
    assert snapshot(project) == before


@pytest.mark.parametrize("argv", [["demo"], ["list"]], ids=["build", "list"])
def test_outside_a_project(argv, tmp_path, monkeypatch, capsys):
    elsewhere = tmp_path / "notes"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    line = error_line(*run(capsys, argv))
    assert str(elsewhere) in line
    assert "no layouts/ folder" in line
    assert "--root" in line
    assert not (elsewhere / "build").exists()


def test_root_without_layouts(project, capsys):
    shutil.rmtree(project / "layouts")
    before = snapshot(project)
    line = error_line(*run(capsys, ["demo", "--root", str(project)]))
    assert str(project) in line and "no layouts/ folder" in line
    assert snapshot(project) == before


@pytest.mark.parametrize("formats, bad", [("svg,gif", "'gif'"), ("pdf,PNG", "'PNG'")])
def test_unknown_format(formats, bad, project, capsys):
    before = snapshot(project)
    line = error_line(*run(capsys, ["demo", "--root", str(project), "--format", formats]))
    assert f"unknown format {bad}" in line
    assert listed(line, "valid formats are ") == {"svg", "pdf", "png", "tiff", "eps", "pptx"}
    assert snapshot(project) == before


@pytest.mark.parametrize("flag, other", [("--check", "--debug"), ("--debug", "--check")])
def test_all_with_check_or_debug_names_the_flag_given_and_what_to_type(flag, other, project, capsys):
    """`compose build --all --check` is refused naming --check alone (not --debug, which was not given) and
    the commands that do it for every figure; --debug likewise."""
    before = snapshot(project)
    with pytest.raises(SystemExit) as exited:
        main(["build", "--all", flag, "--root", str(project)])
    assert exited.value.code == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and err.startswith("compose build: error: "), err
    line = err
    assert flag in line and other not in line, line
    assert "compose build --all" in line and ("compose check --all" in line) == (flag == "--check"), line
    assert snapshot(project) == before


def test_watch_with_all_is_refused_not_built_once(project, capsys):
    """`compose --all --watch` used to build every figure once and return, not watching; `compose watch
    --all` says what does."""
    before = snapshot(project)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:  # an option error is argparse's: one line, exit status 1
        main(["--all", "--watch", "--root", str(project)])
    line = error_line(exited.value.code, *capsys.readouterr())
    assert "--watch rebuilds one figure" in line and "compose serve --all" in line, line
    with pytest.raises(SystemExit) as exited:
        main(["watch", "--all", "--root", str(project)])
    assert exited.value.code == 1
    assert capsys.readouterr().err == ("compose watch: error: compose watch rebuilds one figure; to rebuild every "
                                       "figure on change, use compose serve --all (see compose watch --help)\n")
    assert snapshot(project) == before


@pytest.mark.parametrize("dpi", ["-300", "0", "nan", "inf", "1e-3", "1e9"])
def test_dpi_out_of_range(dpi, project, capsys):
    before = snapshot(project)
    line = error_line(*run(capsys, ["demo", "--root", str(project), "--dpi", dpi]))
    assert f"dpi {float(dpi)} must be a number from 1 to 12000" in line, line
    assert snapshot(project) == before


@pytest.mark.e2e
def test_real_process_exit_status_and_no_traceback(project):
    """The installed entry point (the ``compose`` script pip wrote beside this Python; the other e2e tests
    run ``python -m composer.cli``): exit status 1, one line, no traceback, outputs kept."""
    script = shutil.which("compose", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip(f"no compose script beside {sys.executable}: pip install -e '.[test]' writes it")
    break_layout(project, [('size = ["50mm", "45mm"]', 'size = ["12parsecs", "45mm"]')])
    before = snapshot(project)
    proc = subprocess.run([script, "demo", "--root", str(project)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"compose: error: {LAYOUT}:10:9: panels.a.size[0]: '12parsecs' has unknown unit 'parsecs'; "  # demo.toml line 10
        "valid units are pt, in, mm, cm, px"
    ]
    assert snapshot(project) == before


def test_python_layout_that_raises_names_its_line(project, capsys):
    (project / "layouts" / "pyfig.py").write_text("def layout():\n    scale = 0\n    return {'w': 1 / scale}\n")
    line = error_line(*run(capsys, ["pyfig", "--root", str(project)]))
    assert line == ("compose: error: layouts/pyfig.py: running the layout raised ZeroDivisionError: division by "
                    "zero (at pyfig.py:3 in layout: return {'w': 1 / scale})"), line  # as a renderer's is worded


@pytest.mark.parametrize("body, expect", [
    ("    import sys\n    sys.exit(0)\n", "running the layout raised SystemExit"),
    ("    import os\n    os._exit(0)\n", "running the layout crashed"),
    ("    while True:\n        pass\n", "running the layout did not finish"),
])
def test_python_layout_that_exits_or_hangs_is_one_line(body, expect, project, capsys):
    """A Python layout runs isolated, as panel code does: exiting or hanging is an error, never a silent exit 0."""
    (project / "layouts" / "pyfig.py").write_text("def layout():\n" + body)
    before = snapshot(project)
    line = error_line(*run(capsys, ["pyfig", "--root", str(project), "--timeout", "2"]))
    assert line.startswith("compose: error: layouts/pyfig.py: " + expect), line
    assert snapshot(project) == before
    capsys.readouterr()
    assert main(["build", "--all", "--root", str(project), "--format", "svg", "--timeout", "2"]) == 1  # demo still built
    out, err = capsys.readouterr()
    assert "demo" in out and "pyfig" in out + err, (out, err)


@pytest.mark.parametrize("manifest", [
    '{"format": 2, "figure": "demo", "environment": []}',
    '{"format": 2, "outputs": {"svg": []}}',
    '{"format": 2, "panels": {"a": {"seconds": "x"}}}',
    '[]',
])
def test_a_damaged_manifest_is_no_manifest(manifest, project, capsys):
    """A manifest of the wrong shape means "no previous build": the figure is rebuilt, to the same bytes."""
    before = {n: (project / "build" / n).read_bytes() for n in OUTPUTS}
    (project / "build" / ".demo.manifest.json").write_text(manifest)
    status, out, err = run(capsys, ["demo", "--root", str(project)])
    assert status == 0 and "Traceback" not in err, err
    assert {n: (project / "build" / n).read_bytes() for n in OUTPUTS} == before


def test_unwritable_outputs_are_one_line(project, tmp_path, capsys):
    def error(argv):  # the one error line (the demo's low-ppi photo also warns)
        status, out, err = run(capsys, argv)
        lines = [line for line in err.splitlines() if not line.startswith("compose: warning: ")]
        assert status == 1 and out == "" and "Traceback" not in err and len(lines) == 1, err
        return lines[0]

    (tmp_path / "a_file").write_text("x")
    line = error(["demo", "--root", str(project), "--out", str(tmp_path / "a_file")])
    assert line == f"compose: error: cannot make the output folder {tmp_path / 'a_file'}: File exists", line
    before = snapshot(project)
    (project / "build" / "demo.svg").unlink()
    (project / "build" / "demo.svg").mkdir()
    line = error(["demo", "--root", str(project), "--no-cache"])
    assert "demo.svg: a folder is in its place" in line, line
    assert {k: v for k, v in snapshot(project).items() if k != "build/demo.svg"} == \
        {k: v for k, v in before.items() if k != "build/demo.svg"}


def test_the_layout_path_names_the_figure(project, tmp_path, capsys, monkeypatch):
    """``compose layouts/demo.toml`` as tab completion gives it: from the project, with --root, from layouts/."""
    for cwd, argv in ((project, ["layouts/demo.toml"]), (tmp_path, ["layouts/demo.toml", "--root", str(project)]),
                      (project / "layouts", ["demo.toml"])):
        monkeypatch.chdir(cwd)
        status, out, err = run(capsys, argv + ["--format", "svg"])
        assert status == 0 and "demo" in out, (cwd, out, err)
    # a layout in a subfolder of layouts/ names the figure sub/demo (it was looked up as layouts/layouts/...)
    (project / "layouts" / "sub").mkdir()
    shutil.copy(project / "layouts" / "demo.toml", project / "layouts" / "sub" / "demo.toml")
    text = (project / "layouts" / "sub" / "demo.toml").read_text().replace('"../', '"../../')
    (project / "layouts" / "sub" / "demo.toml").write_text(text)
    monkeypatch.chdir(project)
    status, out, err = run(capsys, ["layouts/sub/demo.toml", "--format", "svg"])
    assert status == 0 and out.startswith("built sub/demo in "), (out, err)
    assert (project / "build" / "sub" / "demo.svg").is_file()


def test_compose_all_and_list_include_figures_in_subfolders(project, capsys):
    """``compose sub/demo`` builds layouts/sub/demo.toml, so ``compose all`` and ``compose list`` name it too;
    folders starting with ``_`` or ``.`` (drafts, caches) and ``_helpers.py`` are not figures."""
    for folder in ("sub", "_drafts", ".hidden"):
        (project / "layouts" / folder).mkdir()
        text = (project / "layouts" / "demo.toml").read_text().replace('"../', '"../../')
        (project / "layouts" / folder / "demo.toml").write_text(text)
    (project / "layouts" / "_helpers.py").write_text("X = 1\n")
    capsys.readouterr()
    assert main(["build", "--all", "--root", str(project), "--format", "svg"]) == 0
    out, _ = capsys.readouterr()
    assert "built sub/demo in " in out and out.splitlines()[-1].startswith("2 of 2 figures built"), out
    assert (project / "build" / "sub" / "demo.svg").is_file()
    assert not (project / "build" / "_drafts").exists() and not (project / "build" / ".hidden").exists()
    assert main(["list", "--root", str(project)]) == 0
    out, _ = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines() if not line.startswith(" ")] == ["demo", "sub/demo"], out


@pytest.mark.parametrize("option", [["-j", "0"], ["--timeout", "-1"]])
def test_bad_options_fail_even_when_up_to_date(option, project, capsys):
    assert run(capsys, ["demo", "--root", str(project)])[0] == 0  # up to date now
    line = error_line(*run(capsys, ["demo", "--root", str(project), *option]))
    assert "must be" in line, line
