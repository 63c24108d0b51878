"""A move or a resize written back into a layout's text (:mod:`composer.edit.writeback`).

Each test loads a small layout with the loader, edits one element, and compares the whole new text
with the old one with exactly the expected value changed (worked out by hand from the millimetres
written), so every other byte (comments, key order, quoting, spacing) is shown to be kept. Nothing
is built: these run in-process in milliseconds.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from composer.edit.check import load_text
from composer.edit.targets import targets
from composer.edit.writeback import Refused, plan, written_length
from composer.errors import LayoutError

MM = 72 / 25.4  # pt per mm

LAYOUT = """\
# a figure edited from the preview
[figure]
width = "100mm"   # the canvas
height = "60mm"

[panels.a]                      # the first panel
render = 'demo:a'
at = ["10mm", "5mm"]
size = ["40mm", "30mm"]

[panels.b]
render = "demo:b"
right_of = "a"   # beside a
gap = "4mm"
size = ["30mm", "30mm"]

[panels.c]
render = "demo:c"
at = "canvas.se"
anchor = "center"
offset = ["-20mm", "-10mm"]
size = ["20mm", "10mm"]

[[text]]
name = "title"
text = "Title"
at = "a.n"
offset = [ '0mm' , "-1.5mm" ]   # lifted a little
anchor = "s"

[[text]]
text = "note"
at = ["1in", "20mm"]
"""


def edited(text: str, ident: str, **move: float) -> tuple[str, object]:
    path = Path("/nowhere/layouts/fig.toml")
    figure = load_text(text, path, name="fig", display="layouts/fig.toml")
    return plan(text, figure, targets(figure, tomllib.loads(text))[ident], **move)


def test_an_anchored_text_moves_by_its_offset_and_nothing_else_changes():
    new, change = edited(LAYOUT, "text:title", dx_pt=1.2 * MM, dy_pt=-0.5 * MM)
    assert new == LAYOUT.replace("""offset = [ '0mm' , "-1.5mm" ]""", """offset = [ '1.2mm' , "-2mm" ]""")
    assert change.key == "text[0].offset" and change.line == 28
    assert change.before == """[ '0mm' , "-1.5mm" ]""" and change.after == """[ '1.2mm' , "-2mm" ]"""


def test_a_panel_placed_by_coordinates_gets_new_at_values():
    new, change = edited(LAYOUT, "panel:a", dx_pt=2 * MM, dy_pt=0.0)
    assert new == LAYOUT.replace('at = ["10mm", "5mm"]', 'at = ["12mm", "5mm"]')  # y untouched
    assert change.key == "panels.a.at"


def test_a_relation_gets_an_offset_line_after_it():
    new, change = edited(LAYOUT, "panel:b", dx_pt=0.0, dy_pt=3 * MM)
    assert new == LAYOUT.replace('right_of = "a"   # beside a\n', 'right_of = "a"   # beside a\noffset = ["0mm", "3mm"]\n')
    assert change.key == "panels.b.offset" and change.before == "" and change.line == 14


def test_each_value_keeps_its_own_unit_and_is_rounded_to_its_step():
    new, _ = edited(LAYOUT, "text:1", dx_pt=0.5 * 72 * 0.0101, dy_pt=0.26 * MM)  # 0.00505 in, 0.26 mm
    assert new == LAYOUT.replace('at = ["1in", "20mm"]', 'at = ["1.01in", "20.3mm"]')
    assert written_length(10.0, "pt") == "10pt" and written_length(10.04, "pt") == "10pt"
    assert written_length(10.06, "pt") == "10.1pt" and written_length(-0.3 * MM, "mm") == "-0.3mm"
    assert written_length(0.004 * 72, "in") == "0in" and written_length(2.54 * MM, "cm") == "0.25cm"


def test_a_resize_writes_size_and_keeps_the_top_left_of_a_centred_box():
    # c is anchored at its centre: 4 mm wider and 2 mm taller from the top-left moves the centre 2 mm, 1 mm
    new, change = edited(LAYOUT, "panel:c", dw_pt=4 * MM, dh_pt=2 * MM)
    assert new == LAYOUT.replace('offset = ["-20mm", "-10mm"]\nsize = ["20mm", "10mm"]',
                                 'offset = ["-18mm", "-9mm"]\nsize = ["24mm", "12mm"]')
    assert change.key == "panels.c.size" and change.after == '["24mm", "12mm"]'
    # both keys written, size first (the page's "changed"), each with its line in the new text
    assert [(c.key, c.line, c.before, c.after) for c in change.all] == [
        ("panels.c.size", 22, '["20mm", "10mm"]', '["24mm", "12mm"]'),
        ("panels.c.offset", 21, '["-20mm", "-10mm"]', '["-18mm", "-9mm"]')]


def test_a_resize_from_the_top_left_of_a_nw_box_changes_its_size_only():
    new, _ = edited(LAYOUT, "panel:a", dw_pt=-5 * MM)
    assert new == LAYOUT.replace('size = ["40mm", "30mm"]', 'size = ["35mm", "30mm"]')


def test_what_cannot_be_written_is_refused_with_the_reason():
    with pytest.raises(Refused, match="no size"):
        edited(LAYOUT, "text:title", dw_pt=3.0)
    with pytest.raises(Refused, match="above zero"):
        edited(LAYOUT, "panel:a", dw_pt=-41 * MM)
    with pytest.raises(Refused, match="rounds to no change"):
        edited(LAYOUT, "panel:a", dx_pt=0.01)
    cell = """[figure]\nwidth = "50mm"\nheight = "40mm"\n[grid]\nmosaic = "a"\n[panels.a]\nrender = "m:f"\ncell = "a"\n"""
    with pytest.raises(Refused, match="grid cell"):
        edited(cell, "panel:a", dx_pt=3.0)


def test_an_edit_the_loader_refuses_names_the_line_in_the_new_text():
    new = LAYOUT.replace('size = ["40mm", "30mm"]', 'size = ["40000mm", "30mm"]')  # as an edit would write it
    with pytest.raises(LayoutError) as caught:
        load_text(new, Path("/nowhere/layouts/fig.toml"), name="fig", display="layouts/fig.toml")
    assert str(caught.value).startswith("layouts/fig.toml:9:")
    assert "panels.a.size[0]" in str(caught.value) and "too large" in str(caught.value)


def test_a_length_past_the_loaders_limit_is_refused_in_a_short_line_naming_its_key():
    # 40 mm + 99,000 pt = 34,964.2 mm; + 100,000 pt = 35,317.8 mm, past the loader's 100,000 pt = 35,277.8 mm
    edited(LAYOUT, "panel:a", dw_pt=99_000.0)
    with pytest.raises(Refused) as caught:
        edited(LAYOUT, "panel:a", dw_pt=100_000.0)
    assert caught.value.key == "panels.a.size[0]" and caught.value.line == 9
    assert str(caught.value).endswith("the edit makes a length of 35317.8 mm; lengths are at most 35277.8 mm")


@pytest.mark.parametrize("dx_pt", [1e308, -100_000.1])
def test_a_move_no_length_could_hold_is_refused_in_a_short_line(dx_pt):
    with pytest.raises(Refused) as caught:
        edited(LAYOUT, "panel:a", dx_pt=dx_pt)
    assert str(caught.value) == f"the edit moves by {dx_pt:.6g} pt; lengths are at most 100000.0 pt"


ARROWS = """\
[figure]
width = "100mm"
height = "50mm"

[[shape]]
name = "p"
kind = "rect"
at = ["10mm", "10mm"]
size = ["10mm", "10mm"]

[[arrow]]
from = "p.e"
to = ["90mm", "15mm"]
via = [["50mm", "15mm"], "p.s"]
label = "flow"
"""


def test_a_waypoint_moves_its_values_or_becomes_a_point_with_an_offset():
    new, change = edited(ARROWS, "connector:0.waypoint.0", dx_pt=1 * MM, dy_pt=-2 * MM)
    assert new == ARROWS.replace('["50mm", "15mm"]', '["51mm", "13mm"]') and change.key == "arrow[0].via[0]"
    new, _ = edited(ARROWS, "connector:0.waypoint.1", dx_pt=0.0, dy_pt=2 * MM)
    assert new == ARROWS.replace('"p.s"]', '{ at = "p.s", offset = ["0mm", "2mm"] }]')


def test_a_label_moves_along_its_route_and_across_it():
    route = [[20 * MM, 15 * MM], [90 * MM, 15 * MM]]  # left to right; the label above it, at the middle
    box = [50 * MM, 10 * MM, 10 * MM, 3 * MM]  # centre (55 mm, 11.5 mm)
    # its centre to (37.5 mm, 18 mm): a quarter of the way, below the line
    new, change = edited(ARROWS, "connector:0.label", dx_pt=-17.5 * MM, dy_pt=6.5 * MM, box_pt=box, route_pt=route)
    assert new == ARROWS.replace('label = "flow"\n', 'label = "flow"\nlabel_pos = 0.25\nlabel_side = "below"\n')
    assert change.key == "arrow[0].label_pos"


def test_a_line_placed_by_its_points_moves_every_point():
    line = ARROWS + '\n[[shape]]\nkind = "line"\npoints = [["10mm", "30mm"], "p.s"]\n'
    new, change = edited(line, "shape:1", dx_pt=1 * MM, dy_pt=0.0)
    assert new == line.replace('points = [["10mm", "30mm"], "p.s"]',
                               'points = [["11mm", "30mm"], { at = "p.s", offset = ["1mm", "0mm"] }]')
    assert change.key == "shape[1].points"


def test_a_new_offset_takes_the_unit_of_the_size_and_the_quotes_of_the_placing_key():
    points = """[figure]\nwidth = "4in"\nheight = "2in"\n\n[panels.a]\nrender = "m:f"\nat = ["10pt", "10pt"]\n""" \
             """size = ["100pt", "80pt"]\n\n[panels.b]\nrender = "m:f"\nbelow = 'a'\nsize = ["3cm", "2cm"]\n\n""" \
             """[[text]]\ntext = "t"\nat = 'a.s'\n"""
    new, _ = edited(points, "panel:b", dx_pt=1.0, dy_pt=-72 / 2.54 * 0.123)  # 1 pt = 0.035 cm; -0.123 cm
    assert new == points.replace("below = 'a'\n", "below = 'a'\noffset = ['0.04cm', '-0.12cm']\n")
    new, _ = edited(points, "text:0", dx_pt=0.8, dy_pt=0.0)  # no size: [figure] width's unit: 0.0111 in
    assert new == points.replace("at = 'a.s'\n", "at = 'a.s'\noffset = ['0.01in', '0in']\n")
    with pytest.raises(Refused, match="rounds to no change"):
        edited(points, "text:0", dx_pt=0.3, dy_pt=0.0)  # 0.0042 in


def test_a_file_with_crlf_line_ends_keeps_them():
    crlf = LAYOUT.replace("\n", "\r\n")
    new, _ = edited(crlf, "panel:b", dx_pt=0.0, dy_pt=3 * MM)
    assert new == crlf.replace('right_of = "a"   # beside a\r\n', 'right_of = "a"   # beside a\r\noffset = ["0mm", "3mm"]\r\n')


def test_what_is_placed_from_a_resized_box_moves_with_the_point_it_is_placed_at():
    from composer.edit.check import moved_boxes

    text = LAYOUT + '\n[[text]]\nname = "side"\ntext = "s"\nat = "a.e@0.25"\nanchor = "w"\n'
    figure = load_text(text, Path("/nowhere/layouts/fig.toml"), name="fig", display="layouts/fig.toml")
    found = targets(figure, tomllib.loads(text))
    boxes = {"a": (10.0, 5.0, 40.0, 30.0), "b": (54.0, 5.0, 30.0, 30.0), "side": (50.0, 10.0, 5.0, 3.0),
             "title": (25.0, 0.0, 10.0, 3.0)}
    moved = moved_boxes(figure, found["panel:a"], boxes, 0.0, 0.0, 8.0, 4.0)
    # a 8 wider and 4 taller from its top-left: b (right_of a, centred on its east side: a.e) moves 8 right and
    # 2 down; side (at a's east side, a quarter down) 8 right and 1 down; title (at a.n) 4 right
    assert moved == {"a": (10.0, 5.0, 48.0, 34.0), "b": (62.0, 7.0, 30.0, 30.0), "side": (58.0, 11.0, 5.0, 3.0),
                     "title": (29.0, 0.0, 10.0, 3.0)}


def test_a_multi_line_string_keeps_its_own_quotes():
    text = LAYOUT.replace('size = ["40mm", "30mm"]', 'size = ["""40mm""", \'\'\'30mm\'\'\']')
    new, change = edited(text, "panel:a", dw_pt=1.1 * MM, dh_pt=2 * MM)  # at its nw corner: only the size written
    assert new == text.replace('size = ["""40mm""", \'\'\'30mm\'\'\']', 'size = ["""41.1mm""", \'\'\'32mm\'\'\']')
    assert tomllib.loads(new)["panels"]["a"]["size"] == ["41.1mm", "32mm"]
