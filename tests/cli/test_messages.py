"""Errors speak the layout's units and name what the user wrote (issue #15, point 6).

Every case builds a good figure first (so build/ holds an output), breaks the layout, runs the
CLI and checks: exit 1, one line on stderr, no traceback, build/ unchanged, and the words and
numbers of the message. The numbers are worked out here by hand from the layout's own lengths:

- a length the user wrote is said in its own unit (``"3600cm"`` is too large: the limit
  100,000 pt is 100000 x 25.4 / 720 = 3527.78 cm);
- a length the engine derived (an overlap, a gap, a size a renderer set) is said in the unit of
  ``[figure] width``, one decimal in mm and pt, two in cm and in (a tenth of a mm or finer).
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from PIL import Image

from composer.cli.main import main
from conftest import snapshot

LAYOUT = "layouts/fig.toml"

PANELS = '''\
def line(fig, data, bins=10, colors=None):
    fig.add_subplot().plot([0, 1], [0, bins])


def resize(fig, data):
    fig.add_subplot().plot([0, 1])
    fig.set_size_inches(1, 1)


def values(data):
    return {"n": 1}
'''


def make(tmp_path: Path, good: str) -> Path:
    """A project whose ``layouts/fig.toml`` is ``good``, built once (SVG): build/fig.svg exists."""
    root = tmp_path / "proj"
    for folder in ("layouts", "assets", "panels"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), "red").save(root / "assets" / "px.png")
    (root / "panels" / "plots.py").write_text(PANELS, encoding="utf-8")
    (root / LAYOUT).write_text(textwrap.dedent(good), encoding="utf-8")
    assert main(["fig", "--root", str(root), "--format", "svg", "--no-cache"]) == 0
    assert (root / "build" / "fig.svg").stat().st_size > 0
    return root


def fails(root: Path, bad: str, capsys) -> str:
    """Write ``bad`` as the layout, build, and return the one error line (after checking it is one)."""
    (root / LAYOUT).write_text(textwrap.dedent(bad), encoding="utf-8")
    before = snapshot(root)
    capsys.readouterr()
    status = main(["fig", "--root", str(root), "--format", "svg"])
    out, err = capsys.readouterr()
    assert status == 1, err
    assert "Traceback" not in err and out == "", err
    lines = err.splitlines()
    assert len(lines) == 1 and re.match(rf"compose: error: {re.escape(LAYOUT)}:\d+:\d+: ", lines[0]), err
    assert snapshot(root) == before, "a failed build changed build/"
    return lines[0]


def figure(width: str, height: str, body: str) -> str:
    return f'[figure]\nwidth = "{width}"\nheight = "{height}"\n' + textwrap.dedent(body)


def image(name: str, at: tuple[str, str], size: tuple[str, str], extra: str = "") -> str:
    return (f'[panels.{name}]\nimage = "../assets/px.png"\nat = ["{at[0]}", "{at[1]}"]\n'
            f'size = ["{size[0]}", "{size[1]}"]\n{extra}\n')


# ------------------------------------------------------------------ lengths the engine derived

#: (unit, width, height, a, b, expected overlap): a at (0, 0); b overlaps it by hand-computed amounts
OVERLAPS = [
    # a: 40 x 40 mm at 0; b at (25 mm, 0): x overlap 40 - 25 = 15 mm, y overlap 40 mm
    ("mm", "180mm", "60mm", ("40mm", "40mm"), ("25mm", "0mm"), "overlap by 15.0 x 40.0 mm"),
    # a: 2 x 2 in; b at (1.5 in, 0.5 in): 0.5 x 1.5 in
    ("in", "7in", "3in", ("2in", "2in"), ("1.5in", "0.5in"), "overlap by 0.50 x 1.50 in"),
    # a: 4 x 4 cm; b at (2.5 cm, 1 cm): 1.5 x 3 cm
    ("cm", "18cm", "6cm", ("4cm", "4cm"), ("2.5cm", "1cm"), "overlap by 1.50 x 3.00 cm"),
    # the figure's width unit, whatever the panels use: b at 1 in = 25.4 mm, a 40 mm wide: 14.6 mm
    ("mixed", "180mm", "60mm", ("40mm", "40mm"), ("1in", "0mm"), "overlap by 14.6 x 40.0 mm"),
]


@pytest.mark.parametrize("unit, width, height, a_size, b_at, expected", OVERLAPS, ids=[o[0] for o in OVERLAPS])
def test_overlap_is_said_in_the_figure_width_unit(tmp_path, capsys, unit, width, height, a_size, b_at, expected):
    good = figure(width, height, image("a", ("0mm", "0mm"), a_size) + image("b", ("100mm", "0mm"), a_size))
    root = make(tmp_path, good)
    bad = figure(width, height, image("a", ("0mm", "0mm"), a_size) + image("b", b_at, a_size))
    line = fails(root, bad, capsys)
    assert f"panels.b: panels 'a' and 'b' {expected}; move one" in line, line
    assert " pt" not in line


@pytest.mark.parametrize("width, height, at, size, expected", [
    # 70 + 40 = 110 mm on a 100 mm canvas: 10 mm past the right edge
    ("100mm", "50mm", ("70mm", "5mm"), ("40mm", "20mm"), "reaches 10.0 mm past the right edge of the canvas "
                                                          "(100mm x 50mm)"),
    # 3 + 1.25 = 4.25 in on a 4 in canvas: 0.25 in
    ("4in", "2in", ("3in", "0.5in"), ("1.25in", "1in"), "reaches 0.25 in past the right edge of the canvas "
                                                         "(4in x 2in)"),
    # 40 mm + 2 cm = 60 mm down a 5.5 cm (55 mm) canvas, said in the width's cm: 0.50 cm past the bottom
    ("10cm", "55mm", ("1cm", "40mm"), ("2cm", "2cm"), "reaches 0.50 cm past the bottom edge of the canvas "
                                                       "(10cm x 55mm)"),
], ids=["mm", "in", "cm"])
def test_panel_past_the_canvas_edge(tmp_path, capsys, width, height, at, size, expected):
    root = make(tmp_path, figure(width, height, image("p", ("0mm", "0mm"), ("1mm", "1mm"))))
    line = fails(root, figure(width, height, image("p", at, size)), capsys)
    assert f"panels.p: panel 'p' {expected}; move or shrink it" in line, line


@pytest.mark.parametrize("width, columns, gutter, expected", [
    # 60 + 50 + 5 = 115 mm of tracks and gutter in a 100 mm grid
    ("100mm", '["60mm", "50mm"]', "5mm", "the tracks and gutters need 115.0 mm but the grid is 100.0 mm"),
    # 2.5 + 1.5 + 0.25 = 4.25 in in a 4 in grid
    ("4in", '["2.5in", "1.5in"]', "0.25in", "the tracks and gutters need 4.25 in but the grid is 4.00 in"),
], ids=["mm", "in"])
def test_grid_tracks_that_do_not_fit(tmp_path, capsys, width, columns, gutter, expected):
    body = '[grid]\nmosaic = "ab"\ncolumns = {columns}\ngutter = "{gutter}"\n' + textwrap.dedent("""
    [[shape]]
    name = "x"
    kind = "rect"
    cell = "a"
    """)
    root = make(tmp_path, figure(width, "1in", body.format(columns='[1, 1]', gutter=gutter)))
    line = fails(root, figure(width, "1in", body.format(columns=columns, gutter=gutter)), capsys)
    assert f"grid.columns: {expected}" in line, line


@pytest.mark.parametrize("width, start, end, gap, expected", [
    # from (10, 10) mm to (12, 10) mm: 2 mm long, a 1.5 mm gap at each end takes 3 mm; a gap leaves
    # 1 pt (0.353 mm) to draw below (2 - 0.353) / 2 = 0.82 mm. The ends are 2 mm apart: not the same point
    ("100mm", ("10mm", "10mm"), ("12mm", "10mm"), "1.5mm",
     "arrow[0].gap: gap = 1.5 mm at each end takes 3.0 mm, more than the connector's 2.0 mm: nothing would be "
     "drawn; use a gap below 0.8 mm"),
    # 0.05 in (3.6 pt) long, gaps of 0.05 in at each end: 0.10 in; below (3.6 - 1) / 2 = 1.3 pt = 0.018 in
    ("4in", ("1in", "0.5in"), ("1.05in", "0.5in"), "0.05in",
     "arrow[0].gap: gap = 0.05 in at each end takes 0.10 in, more than the connector's 0.05 in: nothing would "
     "be drawn; use a gap below 0.02 in"),
    # both ends the same point, no gap
    ("10cm", ("1cm", "1cm"), ("1cm", "1cm"), "0cm",
     "arrow[0]: the connector is 0.00 cm long: nothing would be drawn; its ends are (nearly) the same point"),
], ids=["mm", "in", "cm"])
def test_a_connector_too_short(tmp_path, capsys, width, start, end, gap, expected):
    arrow = '[[arrow]]\nfrom = ["{0}", "{1}"]\nto = ["{2}", "{3}"]\ngap = "{4}"\n'
    root = make(tmp_path, figure(width, "2in", arrow.format(*start, "3cm", "1cm", "0mm")))
    line = fails(root, figure(width, "2in", arrow.format(*start, *end, gap)), capsys)
    assert re.search(rf"layouts/fig\.toml:\d+:\d+: {re.escape(expected)}$", line), line


def test_a_renderer_resizing_its_figure_is_said_in_the_layout_unit(tmp_path, capsys):
    """set_size_inches(1, 1): 1 in = 2.54 cm; the box is 4 x 3 cm."""
    panel = '[panels.p]\nrender = "plots:{f}"\nat = ["0cm", "0cm"]\nsize = ["4cm", "3cm"]\n'
    root = make(tmp_path, figure("10cm", "5cm", panel.format(f="line")))
    line = fails(root, figure("10cm", "5cm", panel.format(f="resize")), capsys)
    assert "changed the figure size to 2.54 x 2.54 cm; a panel is drawn at its box size (4.00 x 3.00 cm)" in line


@pytest.mark.parametrize("written, limit", [("3600cm", "3527.78 cm"), ("1400in", "1388.89 in"),
                                            ("36000mm", "35277.8 mm")])
def test_a_length_too_large_is_said_in_its_own_unit(tmp_path, capsys, written, limit):
    """The limit, 100,000 pt: x 25.4 / 720 = 3527.78 cm; / 72 = 1388.89 in; x 25.4 / 72 = 35277.8 mm."""
    root = make(tmp_path, figure("10cm", "5cm", image("p", ("0cm", "0cm"), ("1cm", "1cm"))))
    line = fails(root, figure("10cm", "5cm", image("p", ("0cm", "0cm"), (written, "1cm"))), capsys)
    assert f"panels.p.size[0]: '{written}' is too large; lengths are at most {limit} (35 m)" in line, line


def test_check_findings_are_in_the_layout_unit(tmp_path, capsys):
    """An arrow from the right edge of a 1 in box (x = 1 in) to (3 in, 0.5 in): its end is 2 in from
    anything; the check says 2 in, in the layout's inches, and where the end is; the JSON too."""
    body = ('[[shape]]\nname = "box"\nkind = "rect"\nat = ["0in", "0in"]\nsize = ["1in", "1in"]\n'
            '[[arrow]]\nfrom = "box.e"\nto = ["3in", "0.5in"]\n')
    root = make(tmp_path, figure("4in", "2in", body))
    capsys.readouterr()
    assert main(["check", "fig", "--root", str(root)]) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "dangling-connector" in line)
    assert "connector end at (3.00, 0.50) in touches no element" in row
    assert re.search(r"\s2 in\s+0\.0139 in$", row), row  # measured 2 in; limit 1 pt = 1 / 72 in = 0.0139 in
    assert main(["check", "fig", "--root", str(root), "--json"]) == 1
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "dangling-connector"]
    assert [(f["measured"], f["limit"], f["unit"]) for f in found] == [(2.0, round(1 / 72, 5), "in")]


# ------------------------------------------------------------------ the element the user wrote

GOOD_NAMES = image("alpha", ("0mm", "0mm"), ("10mm", "10mm")) + image("beta", ("20mm", "0mm"), ("10mm", "10mm"))


@pytest.mark.parametrize("relation", ["right_of", "left_of", "above", "below"])
def test_a_relation_names_the_element_as_written(tmp_path, capsys, relation):
    root = make(tmp_path, figure("100mm", "50mm", GOOD_NAMES))
    bad = GOOD_NAMES.replace('at = ["20mm", "0mm"]', f'{relation} = "alpah"')
    line = fails(root, figure("100mm", "50mm", bad), capsys)
    assert (f"panels.beta.{relation}: {relation} = \"alpah\": no panel, text or shape named 'alpah'; "
            "did you mean 'alpha'? (valid: alpha, beta, canvas)") in line, line
    assert "alpah." not in line  # never the anchor composer chose ('alpah.e')


def test_a_line_is_not_offered_as_a_place_to_refer_to(tmp_path, capsys):
    """A line has no box and no anchors: it is not among the valid names."""
    line_shape = '[[shape]]\nname = "stroke"\nkind = "line"\npoints = [["1mm", "40mm"], ["9mm", "40mm"]]\n'
    root = make(tmp_path, figure("100mm", "50mm", GOOD_NAMES + line_shape))
    bad = GOOD_NAMES.replace('at = ["20mm", "0mm"]', 'right_of = "zz"') + line_shape
    line = fails(root, figure("100mm", "50mm", bad), capsys)
    assert line.endswith("(valid: alpha, beta, canvas)"), line
    bad = GOOD_NAMES.replace('at = ["20mm", "0mm"]', 'right_of = "stroke"') + line_shape
    line = fails(root, figure("100mm", "50mm", bad), capsys)
    assert line.endswith("panels.beta.right_of: right_of = \"stroke\": 'stroke' is a line: it has no box to place "
                         "anything beside; place it relative to another element"), line


def test_a_relation_without_a_close_name_lists_the_valid_ones(tmp_path, capsys):
    root = make(tmp_path, figure("100mm", "50mm", GOOD_NAMES))
    line = fails(root, figure("100mm", "50mm", GOOD_NAMES.replace('at = ["20mm", "0mm"]', 'right_of = "zz"')), capsys)
    assert line.endswith("panels.beta.right_of: right_of = \"zz\": no panel, text or shape named 'zz' "
                         "(valid: alpha, beta, canvas)"), line


@pytest.mark.parametrize("key, element", [
    ("from", '"alpah.e"'), ("to", '"alpah.w"'), ("via", '["alpah.s"]'),
])
def test_connector_ends_name_the_element_as_written(tmp_path, capsys, key, element):
    arrow = {"from": '"alpha.e"', "to": '"beta.w"', "via": '["alpha.s"]'}
    text = '[[arrow]]\n' + "".join(f"{k} = {v}\n" for k, v in arrow.items())
    root = make(tmp_path, figure("100mm", "50mm", GOOD_NAMES + text.replace('"alpha.s"', '"beta.s"')))
    arrow[key] = element
    bad = '[[arrow]]\n' + "".join(f"{k} = {v}\n" for k, v in arrow.items())
    line = fails(root, figure("100mm", "50mm", GOOD_NAMES + bad), capsys)
    path, written = (f"arrow[0].{key}", f'{key} = {element}') if key != "via" else ("arrow[0].via[0]",
                                                                                   'via[0] = "alpah.s"')
    assert f"{path}: {written}: no panel, text or shape named 'alpah'; did you mean 'alpha'?" in line, line


def test_an_unknown_compass_anchor_names_the_element_and_anchor(tmp_path, capsys):
    good = GOOD_NAMES + '[[text]]\ntext = "x"\nat = "alpha.s"\n'
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, figure("100mm", "50mm", good.replace('"alpha.s"', '"alpha.south"')), capsys)
    assert ("text[0].at: at = \"alpha.south\": 'alpha' has no anchor 'south'; did you mean 's'?; valid anchors "
            "are nw, n") in line, line


def test_align_members_and_cells_name_what_was_written(tmp_path, capsys):
    good = ('[panels.p]\nrender = "plots:line"\nat = ["0mm", "0mm"]\nsize = ["30mm", "20mm"]\n'
            '[panels.q]\nrender = "plots:line"\nat = ["0mm", "25mm"]\nsize = ["30mm", "20mm"]\n'
            '[[align]]\npanels = ["p", "q"]\naxis = "x"\n')
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, figure("100mm", "50mm", good.replace('["p", "q"]', '["p", "qq"]')), capsys)
    assert ("align[0].panels[1]: panels[1] = \"qq\": no panel named 'qq'; did you mean 'q'?; aligned plot areas "
            "need matplotlib panels (valid: p, q)") in line, line
    pictures = image("i", ("0mm", "0mm"), ("20mm", "20mm")) + image("j", ("30mm", "0mm"), ("20mm", "20mm"))
    line = fails(root, figure("100mm", "50mm", pictures + '[[align]]\npanels = ["i", "j"]\naxis = "y"\n'), capsys)
    assert line.endswith("need matplotlib panels (valid: none: no panel is drawn by a renderer)"), line
    line = fails(root, figure("100mm", "50mm", '[grid]\nmosaic = "ab"\n' + good.replace(
        'at = ["0mm", "25mm"]\nsize = ["30mm", "20mm"]', 'cell = "c"')), capsys)
    assert "panels.q.cell: cell = \"c\": no area 'c' in the mosaic (valid: a, b)" in line, line
    nested = '[grids.side]\nmosaic = "xy"\nat = ["40mm", "0mm"]\nsize = ["40mm", "20mm"]\n'
    line = fails(root, figure("100mm", "50mm", nested + good.replace(
        'at = ["0mm", "25mm"]\nsize = ["30mm", "20mm"]', 'cell = "y"')), capsys)
    assert line.endswith("panels.q.cell: cell = \"y\": no grid '[grid]'; did you mean 'side.y'? "
                         "(valid: side.x, side.y)"), line


# ------------------------------------------------------------------ rcParams: a bad key is not a bad value


def test_a_misspelt_rcparam_is_a_bad_key_with_its_closest_match(tmp_path, capsys):
    good = image("p", ("0mm", "0mm"), ("10mm", "10mm"))
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, '[rcparams]\n"font.szie" = 9\n' + figure("100mm", "50mm", good), capsys)
    assert line.endswith("rcparams.font.szie: unknown rcParam 'font.szie'; did you mean 'font.size'?; "
                         "valid keys are matplotlib's (matplotlib.rcParams.keys())"), line
    assert "value" not in line.split("unknown rcParam")[1].split(";")[0]


def test_a_bad_value_for_a_real_rcparam_says_key_and_value(tmp_path, capsys):
    good = image("p", ("0mm", "0mm"), ("10mm", "10mm"))
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, '[rcparams]\n"lines.linewidth" = "big"\n' + figure("100mm", "50mm", good), capsys)
    assert ("rcparams.lines.linewidth: 'lines.linewidth' = \"big\": not a valid value for this rcParam: "
            "Could not convert 'big' to float") in line, line
    assert "unknown rcParam" not in line


# ------------------------------------------------------------------ renderers


def test_params_error_lists_only_the_users_parameters(tmp_path, capsys):
    """line(fig, data, bins=10, colors=None): the user may set bins; colors is composer's palette."""
    panel = '[panels.p]\nrender = "plots:line"\nat = ["0mm", "0mm"]\nsize = ["30mm", "20mm"]\nparams = {{ {p} = 3 }}\n'
    root = make(tmp_path, figure("100mm", "50mm", panel.format(p="bins")))
    line = fails(root, figure("100mm", "50mm", panel.format(p="binz")), capsys)
    assert line.endswith("panels.p.params.binz: panel 'p': plots:line takes no parameter 'binz'; did you mean "
                         "'bins'?; it takes bins; colors, the palette, is given by composer"), line


def test_function_not_found_suggests_a_renderer_and_never_lists_values(tmp_path, capsys):
    panel = '[panels.p]\nrender = "plots:{f}"\nat = ["0mm", "0mm"]\nsize = ["30mm", "20mm"]\n'
    root = make(tmp_path, figure("100mm", "50mm", panel.format(f="line")))
    line = fails(root, figure("100mm", "50mm", panel.format(f="lines")), capsys)
    assert line.endswith("panels.p.render: function 'lines' not found in plots.py; did you mean 'line'?; "
                         "functions are line, resize"), line
    line = fails(root, figure("100mm", "50mm", panel.format(f="values")), capsys)
    assert line.endswith("panels.p.render: values() in plots.py fills text fields; it is not a panel renderer; "
                         "renderers are line, resize"), line


def test_a_renderer_without_fig_and_data_says_the_signature(tmp_path, capsys):
    """``def noargs(fig)`` raised Python's own "takes 1 positional argument but 2 were given"."""
    panel = '[panels.p]\nrender = "plots:{f}"\nat = ["0mm", "0mm"]\nsize = ["30mm", "20mm"]\n'
    root = make(tmp_path, figure("100mm", "50mm", panel.format(f="line")))
    (root / "panels" / "plots.py").write_text(PANELS + "\n\ndef noargs(fig):\n    fig.add_subplot()\n")
    line = fails(root, figure("100mm", "50mm", panel.format(f="noargs")), capsys)
    assert line.endswith("panels.p.render: panel 'p': plots:noargs takes 1 positional argument (fig); a renderer "
                         "is def NAME(fig, data, **params): the matplotlib Figure to draw on, and the figure's data"), line


def test_typos_of_a_palette_colour_and_a_compass_word_get_a_suggestion(tmp_path, capsys):
    good = ('[colors]\nmeas = "#d55e00"\n[panels.p]\nrender = "plots:line"\nat = ["0mm", "0mm"]\n'
            'size = ["30mm", "20mm"]\n[[text]]\ntext = "x"\nat = "p.e"\ncolor = "meas"\n')
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, figure("100mm", "50mm", good.replace('color = "meas"', 'color = "measured"')), capsys)
    assert "text[0].color: 'measured' is not a colour; did you mean 'meas'?; use a name" in line, line
    line = fails(root, figure("100mm", "50mm", good.replace('"p.e"', '"p.top-left"')), capsys)
    assert "'p' has no anchor 'top-left'; did you mean 'nw'?" in line, line


def test_a_misspelt_figure_name_gets_a_suggestion(tmp_path, capsys):
    root = make(tmp_path, figure("100mm", "50mm", image("a", ("0mm", "0mm"), ("10mm", "10mm"))))
    capsys.readouterr()
    assert main(["fgi", "--root", str(root)]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", "compose: error: no figure 'fgi' (no layouts/fgi.toml or .py); did you mean 'fig'?; "
                              "figures are fig\n")


@pytest.mark.parametrize("key, value, why", [
    ("mathtext.fontset", "[]", "unhashable type: 'list'"),  # matplotlib: TypeError
    ("mathtext.fallback", "[]", "'list' object has no attribute 'lower'"),  # AttributeError
    ("axes.xmargin", "-1", "Value must be >-0.5; got -1.0"),  # RuntimeError
])
def test_any_value_matplotlib_refuses_is_one_line_not_a_traceback(tmp_path, capsys, key, value, why):
    """matplotlib's validators raise more than ValueError: each one is the layout's error, one line."""
    good = image("p", ("0mm", "0mm"), ("10mm", "10mm"))
    root = make(tmp_path, figure("100mm", "50mm", good))
    line = fails(root, f'[rcparams]\n"{key}" = {value}\n' + figure("100mm", "50mm", good), capsys)
    assert f"rcparams.{key}: '{key}' = {value}: not a valid value for this rcParam: {why}" in line, line
