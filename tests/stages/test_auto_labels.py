"""``[figure] labels``, ``label_order``, ``label_at`` (issue #13 item 1), checked on built SVGs.

Positions are measured on the label's glyph outline (the ``label-NAME`` path's coordinates, pt) and
compared with corners worked out by hand: a renderer calling ``fig.add_axes([0.25, 0.2, 0.5, 0.6])``
on a 40 x 30 mm panel has its plot area's top-left at 25 % of the width and 1 - 0.8 = 20 % of the
height from the panel's top-left. The label's box is its outline's box widened by the glyph's side
bearing and the font's descent, read from the font file (DejaVu Sans Bold) with matplotlib's FT2Font.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from lxml import etree

from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.layout.presets import auto_label
from composer.pipeline import build
from conftest import drawing, layout_project

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"

PANELS_PY = '''
def axes(fig, data):
    fig.add_axes([0.25, 0.2, 0.5, 0.6]).plot([0, 1], [0, 1])

def square(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.imshow([[0, 1], [1, 0]])  # aspect locked: the drawn axes is a square centred in [0.1, 0.9]

def colorbar(fig, data):
    ax = fig.add_axes([0.2, 0.3, 0.5, 0.5])
    image = ax.pcolormesh([[0, 1], [1, 0]])
    fig.colorbar(image, cax=fig.add_axes([0.8, 0.1, 0.05, 0.85]))
'''


def project(tmp_path, body: str, head: str = ""):
    root = layout_project(tmp_path, body, head='width = "100mm"\nheight = "80mm"\n' + head)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS_PY)
    (root / "box.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5">'
                                  '<rect width="10" height="5" fill="#dddddd"/></svg>')
    return root


def svg_root(root) -> etree._Element:
    out = build("fig", root=root, formats=("svg",), cache=False).outputs["svg"]
    return etree.fromstring(out.read_bytes())


def outline_box(svg: etree._Element, name: str) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax) in pt of the path ``label-NAME`` (untransformed canvas coordinates)."""
    el = svg.find(f".//{SVG}path[@id='label-{name}']")
    assert el is not None and el.get("transform") is None
    xy = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", el.get("d"))]).reshape(-1, 2)
    return xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max()


def bold_metrics(char: str) -> tuple[float, float, float]:
    """(left side bearing of ``char``, its lowest point (y up: below 0 for an overshoot), descent), em, of DejaVu Sans Bold from its unscaled outline."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font
    try:
        from matplotlib.ft2font import LoadFlags
        flags = LoadFlags.NO_SCALE
    except ImportError:  # matplotlib < 3.10
        flags = 1
    font = FT2Font(font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans", weight="bold"),
                                         fallback_to_default=False))
    xmin, ymin = font.load_char(ord(char), flags=flags).bbox[:2]
    return xmin / font.units_per_EM, ymin / font.units_per_EM, -font.descender / font.units_per_EM


def label_corner(svg: etree._Element, name: str, char: str, size_pt: float = 8.0) -> tuple[float, float]:
    """The label box's lower-left corner (pt) recovered from its first glyph ``char`` (which sits on
    baseline: x by its side bearing, y by its overshoot and the font's descent)."""
    x0, _, _, y1 = outline_box(svg, name)
    bearing, lowest, descent = bold_metrics(char)
    return x0 - bearing * size_pt, y1 + (lowest + descent) * size_pt


def labels_of(svg: etree._Element) -> dict[str, str]:
    return {el.get("id").removeprefix("label-"): el.get("aria-label")
            for el in svg.iter(f"{SVG}path") if (el.get("id") or "").startswith("label-")}


GRID = """
[grid]
mosaic = "AB\\nCD"
[panels.a]
render = "p:axes"
cell = "A"
[panels.b]
svg = "../box.svg"
cell = "B"
[panels.c]
render = "p:square"
cell = "C"
[panels.d]
render = "p:colorbar"
cell = "D"
"""


def test_labels_at_plot_sit_on_each_plot_area_corner(tmp_path):
    """label_at = "plot": each label's lower-left corner is its plot area's top-left plus label_offset
    (default 0, -2 pt). Panels are 50 x 40 mm cells. a: add_axes([0.25, 0.2, 0.5, 0.6]) -> (12.5 mm,
    8 mm) into its cell. b: an SVG: its box's corner. c: an imshow square in [0.1, 0.9] x [0.1, 0.9] of
    a 50 x 40 mm panel: 0.8 * 40 = 32 mm tall and wide, centred: x = 25 - 16 = 9 mm, y = 4 mm. d: the
    colorbar (up to 0.95 of the height) is left out: its axes' top, 1 - 0.8 = 0.2 * 40 = 8 mm."""
    svg = svg_root(project(tmp_path, GRID, 'labels = "a"\nlabel_at = "plot"\n'))
    assert labels_of(svg) == {"a": "a", "b": "b", "c": "c", "d": "d"}
    expected = {"a": (12.5 * MM, 8 * MM), "b": (50 * MM, 0.0), "c": (9 * MM, 40 * MM + 4 * MM),
                "d": (50 * MM + 10 * MM, 40 * MM + 8 * MM)}
    for name, (x, y) in expected.items():
        cx, cy = label_corner(svg, name, name)
        assert cx == pytest.approx(x, abs=0.05), name
        assert cy == pytest.approx(y - 2.0, abs=0.05), name


def test_labels_at_box_by_default_sit_on_the_box_corner(tmp_path):
    """Without label_at the corner is the cell's top-left, as before (b, c, d at 50 mm / 40 mm)."""
    svg = svg_root(project(tmp_path, GRID, 'labels = "a"\n'))
    for name, (x, y) in {"a": (0, 0), "b": (50 * MM, 0), "c": (0, 40 * MM), "d": (50 * MM, 40 * MM)}.items():
        cx, cy = label_corner(svg, name, name)
        assert (cx, cy) == pytest.approx((x, y - 2.0), abs=0.05), name


def test_automatic_labels_are_the_typed_labels_bytes(tmp_path):
    """labels = "a" on panels written a, b, c, d draws exactly what typing label = "a" ... "d" draws."""
    typed = GRID
    for name in "abcd":
        typed = typed.replace(f"[panels.{name}]\n", f'[panels.{name}]\nlabel = "{name}"\n')
    auto = build("fig", root=project(tmp_path / "auto", GRID, 'labels = "a"\n'), formats=("svg",), cache=False)
    hand = build("fig", root=project(tmp_path / "hand", typed), formats=("svg",), cache=False)
    # the same drawing (the provenance records name two layouts of other bytes)
    assert drawing(auto.outputs["svg"].read_bytes()) == drawing(hand.outputs["svg"].read_bytes())


def many(n: int) -> str:
    return "".join(f'[panels.p{i:02d}]\nsvg = "../box.svg"\nat = ["{(i % 9) * 10 + 2}mm", "{(i // 9) * 20 + 8}mm"]\n'
                   'size = ["8mm", "4mm"]\n' for i in range(n))


def test_twenty_seven_panels_run_from_a_to_z_then_aa(tmp_path):
    figure = load_layout(project(tmp_path, many(28), 'labels = "a"\n') / "layouts" / "fig.toml")
    assert [p.label for p in figure.panels] == [*"abcdefghijklmnopqrstuvwxyz", "aa", "ab"]
    svg = svg_root(project(tmp_path / "b", many(27), 'labels = "A"\n'))
    assert labels_of(svg)["p25"] == "Z" and labels_of(svg)["p26"] == "AA"


@pytest.mark.parametrize("style, first_four", [
    ("a", ["a", "b", "c", "d"]), ("A", ["A", "B", "C", "D"]), ("(a)", ["(a)", "(b)", "(c)", "(d)"]),
    ("a)", ["a)", "b)", "c)", "d)"]), ("i", ["i", "ii", "iii", "iv"]), ("(i)", ["(i)", "(ii)", "(iii)", "(iv)"]),
    ("1", ["1", "2", "3", "4"]),
])
def test_each_style_draws_its_labels(tmp_path, style, first_four):
    svg = svg_root(project(tmp_path, GRID, f'labels = "{style}"\n'))
    assert [labels_of(svg)[n] for n in "abcd"] == first_four


def test_roman_and_spreadsheet_counts():
    """Hand-written counts: 9 ix, 14 xiv, 40 xl, 1994 mcmxciv; 52 az, 53 ba, 702 zz, 703 aaa."""
    assert [auto_label("i", n - 1) for n in (9, 14, 40, 1994)] == ["ix", "xiv", "xl", "mcmxciv"]
    assert [auto_label("a", n - 1) for n in (26, 27, 52, 53, 702, 703)] == ["z", "aa", "az", "ba", "zz", "aaa"]


def test_own_label_replaces_its_letter_and_false_skips_without_taking_one(tmp_path):
    """b's own label takes b's place (c is still c); a skipped panel takes no letter (after it, c)."""
    body = GRID.replace("[panels.b]\n", '[panels.b]\nlabel = "x"\n').replace("[panels.a]\n",
                                                                             "[panels.a]\nlabel = false\n")
    svg = svg_root(project(tmp_path, body, 'labels = "a"\n'))
    assert labels_of(svg) == {"b": "x", "c": "b", "d": "c"}


def test_label_order_sets_the_lettering(tmp_path):
    svg = svg_root(project(tmp_path, GRID, 'labels = "A"\nlabel_order = ["d", "c", "b", "a"]\n'))
    assert labels_of(svg) == {"d": "A", "c": "B", "b": "C", "a": "D"}


@pytest.mark.parametrize("head, body, message", [
    ('labels = "a"\nlabel_order = ["a", "b", "c"]\n', GRID, "figure.label_order: panel 'd' is not listed"),
    ('labels = "a"\nlabel_order = ["a", "b", "c", "dd"]\n', GRID, "'dd' is not a panel; did you mean 'd'?"),
    ('labels = "a"\nlabel_order = ["a", "a"]\n', GRID, "'a' is listed twice"),
    ('label_order = ["a"]\n', GRID, "[figure] has no labels"),
    ("", GRID.replace("[panels.a]\n", "[panels.a]\nlabel = false\n"), "panels.a.label: label = false skips"),
    ('labels = "a"\n', GRID.replace("[panels.a]\n", "[panels.a]\nlabel = true\n"), "true is not a label"),
    ('labels = "b"\n', GRID, "'b' is not a valid value; supported values are 'a', 'A', '(a)', 'a)', 'i'"),
    ('labels = "a"\npreset = "science"\n', GRID, "the Science preset labels panels 'A'"),
    ('label_at = "axes"\n', GRID, "supported values are 'box', 'plot'"),
    ("", GRID.replace("[panels.a]\n", '[panels.a]\nlabel = "x"\n').replace("[panels.c]\n", '[panels.c]\nlabel = "x"\n'),
     "panels.c.label: 'x': panel 'a' has this label too"),  # two written labels: at the second
    ('labels = "a"\n', GRID.replace("[panels.d]\n", '[panels.d]\nlabel = "a"\n'),
     "panels.d.label: 'a': panel 'a' has this label too"),  # a written label one of the letters: at the written one
    ('labels = "a"\n', GRID.replace("[panels.a]\n", '[panels.a]\nlabel = "c"\n'),
     "panels.a.label: 'c': panel 'c' has this label too"),  # a takes a's letter: b, c, d get b, c, d
])
def test_label_mistakes_are_one_line_naming_the_key(tmp_path, head, body, message):
    with pytest.raises(LayoutError) as err:
        load_layout(project(tmp_path, body, head) / "layouts" / "fig.toml")
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("preset, first, second, weight", [
    ("nature", "a", "b", "bold"), ("science", "A", "B", "bold"), ("cell", "A", "B", "bold"),
    ("ieee", "(a)", "(b)", "normal")])
def test_a_preset_takes_its_journal_style(tmp_path, preset, first, second, weight):
    """The journals' styles as presets.py cites them: Nature bold a, Science and Cell bold A, IEEE (a)."""
    figure = load_layout(project(tmp_path, GRID, f'labels = "{first}"\npreset = "{preset}"\n')
                         / "layouts" / "fig.toml")
    assert [p.label for p in figure.panels[:2]] == [first, second]
    assert figure.spec.label.weight == weight
