"""The check's findings carry their elements (names and boxes from the geometry), and the live preview gives
the page those boxes, whatever colours the debug overlay draws in.

Each expected box is worked out by hand from the layout's millimetres (1 mm = 72 / 25.4 pt), never read back
from composer's own output. The preview's builder and server are driven in this process (no subprocess, no
browser: tests/cli/test_serve.py has those): the builder's check (:meth:`composer.cli.serve.Builder._check`)
writes the state file, and the server's poll (:class:`composer.cli.serve._Figures`) reads it as the page gets it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from composer import check
from composer.cli.serve import Builder, Options, _Figures, _write_json
from composer.progress import Progress
from conftest import layout_project

MM = 72 / 25.4  # pt per mm

#: a box crossed by a text centred on its corner (5 mm, 5 mm), and a connector that touches nothing
LAYOUT = """
[[shape]]
name = "box"
at = ["5mm", "5mm"]
size = ["20mm", "10mm"]
fill = "#ff0000"
stroke = "none"

[[text]]
name = "title"
text = "Hello"
at = ["5mm", "5mm"]
anchor = "center"

[[arrow]]
from = ["30mm", "20mm"]
to = ["38mm", "20mm"]
"""
SHAPE_BOX = [5 * MM, 5 * MM, 20 * MM, 10 * MM]
ARROW_BOX = [30 * MM, 20 * MM, 8 * MM, 0.0]  # a straight route: its two ends


def expected(findings: list[dict]) -> dict[str, list[tuple[str, list[float] | None]]]:
    """Each finding's subject -> (name, box) of each of its elements."""
    return {f["element"]: [(e["name"], e["box_pt"]) for e in f["elements"]] for f in findings}


def test_findings_name_their_elements_with_boxes_from_the_layout(tmp_path):
    report = check("fig", root=layout_project(tmp_path, LAYOUT))
    by_subject = {f.element: f for f in report.findings}
    assert set(by_subject) == {"text title / shape box", "arrow[0] start", "arrow[0] end"}, report.table()
    crossing = by_subject["text title / shape box"]
    assert [(e.name, e.key, e.kind) for e in crossing.elements] == [("text title", "title", "text"),
                                                                    ("shape box", "box", "shape")]
    text, shape = (e.box for e in crossing.elements)
    assert [shape.x_pt, shape.y_pt, shape.width_pt, shape.height_pt] == pytest.approx(SHAPE_BOX, abs=1e-6)
    assert (text.x_pt + text.width_pt / 2, text.y_pt + text.height_pt / 2) == pytest.approx((5 * MM, 5 * MM))
    for end in ("start", "end"):
        (arrow,) = by_subject[f"arrow[0] {end}"].elements
        assert (arrow.name, arrow.key, arrow.kind) == ("arrow[0]", "arrow[0]", "arrow")
        assert [arrow.box.x_pt, arrow.box.y_pt, arrow.box.width_pt, arrow.box.height_pt] == \
            pytest.approx(ARROW_BOX, abs=1e-6)
    # the JSON of compose check --json carries the same data
    data = expected(json.loads(report.to_json())["findings"])
    assert data["text title / shape box"][1] == ("shape box", pytest.approx(SHAPE_BOX, abs=1e-3))
    assert data["arrow[0] end"] == [("arrow[0]", pytest.approx(ARROW_BOX, abs=1e-3))]


def preview_state(root: Path, tmp_path: Path) -> dict:
    """The figure's state as the preview's server sends it to the page, after one check by its builder."""
    out, state_dir = root / "build", tmp_path / "state"
    out.mkdir()
    builder = Builder("fig", root=root, out=out, options=Options(("svg",), 24.0, 1, 60.0, None, None),
                      state_dir=state_dir, report=lambda event: None, summary=lambda *args: "", progress=Progress)
    builder._check()
    _write_json(builder.path, builder.state)
    figures = _Figures(["fig"], out, state_dir)
    figures.poll()
    return json.loads(json.dumps(figures.snapshot()[1]))["figures"]["fig"]


def test_the_preview_highlights_findings_with_the_overlays_colours_changed(tmp_path, monkeypatch):
    from composer.stages import overlay

    new = {"PANEL": "#010203", "TEXT": "#040506", "SHAPE": "#070809", "ARROW": "#0a0b0c"}
    old = {name: getattr(overlay, name) for name in new}
    for name, colour in new.items():
        monkeypatch.setattr(overlay, name, colour)
    root = layout_project(tmp_path, LAYOUT)
    state = preview_state(root, tmp_path)
    debug = (tmp_path / "state" / "fig" / "fig.debug.svg").read_text()
    assert all(f'stroke="{c}"' in debug for c in (new["TEXT"], new["SHAPE"], new["ARROW"]))  # drawn in the new ones
    assert not any(f'stroke="{c}"' in debug for c in old.values())
    assert state["findings_error"] is None
    found = expected(state["findings"])
    assert set(found) == {"text title / shape box", "arrow[0] start", "arrow[0] end"}
    (text_name, text_box), (shape_name, shape_box) = found["text title / shape box"]
    assert (text_name, shape_name) == ("text title", "shape box")
    assert shape_box == pytest.approx(SHAPE_BOX, abs=1e-3)
    x, y, w, h = text_box
    assert (x + w / 2, y + h / 2) == pytest.approx((5 * MM, 5 * MM), abs=1e-3)
    assert found["arrow[0] start"] == found["arrow[0] end"] == [("arrow[0]", pytest.approx(ARROW_BOX, abs=1e-3))]


def test_ignore_sees_every_panel_of_a_pair(tmp_path):
    """A text of panel ``a`` on a text of panel ``b`` (``b`` an inset over ``a``) is about both panels: ``[check]
    ignore`` of ``b`` leaves it out, though ``b`` is named second (the element list, not the words, says so)."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm" viewBox="0 0 20 10">'
           '<text x="2" y="6" font-size="4" font-family="DejaVu Sans">{}</text></svg>')
    body = """
    [panels.a]
    svg = "a.svg"
    at = ["5mm", "5mm"]
    size = ["20mm", "10mm"]

    [panels.b]
    svg = "b.svg"
    at = ["5mm", "5mm"]
    size = ["20mm", "10mm"]
    overlap = true
    """
    root = layout_project(tmp_path, body)
    for name, word in (("a", "first"), ("b", "second")):
        (root / "layouts" / f"{name}.svg").write_text(svg.format(word))
    report = check("fig", root=root)
    pair = [f for f in report.findings if f.rule == "overlap" and "text overlaps text" in f.problem]
    assert [f.element for f in pair] == ["panel a: text 'first' / panel b: text 'second'"], report.table()
    assert [(e.name, e.kind) for e in pair[0].elements] == [("panel a", "panel"), ("panel b", "panel")]
    box = pair[0].elements[1].box
    assert [box.x_pt, box.y_pt, box.width_pt, box.height_pt] == pytest.approx([5 * MM, 5 * MM, 20 * MM, 10 * MM])

    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text() + '\n[check]\nignore = { b = ["overlap"] }\n')
    again = check("fig", root=root)
    assert not [f for f in again.findings if f.rule == "overlap" and "text overlaps text" in f.problem]
    assert any("panel b: 1 overlap finding not reported" in note for note in again.notes), again.notes


def test_a_panel_label_is_named_with_the_box_it_is_drawn_in(tmp_path):
    """The label's lower-left corner is the panel's top-left plus the default ``label_offset`` (0, -2 pt); a
    text whose lower-left corner is there too overlaps it."""
    body = """
    [panels.a]
    svg = "a.svg"
    at = ["5mm", "8mm"]
    size = ["20mm", "10mm"]
    label = "a"

    [[text]]
    name = "note"
    text = "NOTE"
    at = ["5mm", "8mm"]
    offset = ["0pt", "-2pt"]
    anchor = "sw"
    """
    root = layout_project(tmp_path, body)
    (root / "layouts" / "a.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm"/>')
    report = check("fig", root=root)
    pair = [f for f in report.findings if f.rule == "overlap"]
    assert len(pair) == 1, report.table()
    (label,) = [e for e in pair[0].elements if e.name == "a.label"]
    assert (label.key, label.kind) == ("a.label", "label")
    assert (label.box.x_pt, label.box.y_pt + label.box.height_pt) == pytest.approx((5 * MM, 8 * MM - 2))
