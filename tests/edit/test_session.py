"""The preview's edits as the server answers them (:class:`composer.edit.session.Editor`), in-process.

One small project per module: two imported SVG panels (nothing for matplotlib to render), a text
placed from one of them, a connector with a label and a waypoint. It is built once with the
elements recorded, and ``elements.json`` written as the builder writes it; each test then edits the
layout file through the same calls the HTTP routes make, and compares the file's whole text with the
text expected (worked out by hand from the millimetres written). A second module-scoped project has
a matplotlib panel: a move of it renders nothing again, a resize renders it (counted by the build).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from composer.edit.elements import elements_document
from composer.edit.history import digest, read_text
from composer.edit.session import Editor
from composer.edit.writeback import Refused
from composer.pipeline import BuildOptions, build, build_figure
from composer.stages.inputs import Project
from conftest import DEMO

MM = 72 / 25.4

LAYOUT = """\
[figure]
width = "100mm"
height = "50mm"   # keep

# two drawings side by side
[panels.left]
svg = "../assets/logo.svg"
at = ["5mm", "5mm"]
size = ["30mm", "15mm"]

[panels.right]
svg = '../assets/logo.svg'
right_of = "left"
gap = "10mm"
size = ["30mm", "15mm"]

[[text]]
name = "cap"
text = "caption"
at = "left.s"
offset = ["0mm", "1mm"]
anchor = "n"

[[arrow]]
from = "left.e"
to = ["90mm", "40mm"]
via = [["60mm", "40mm"]]
label = "go"
"""


def _elements(root: Path, state: Path, name: str = "fig") -> dict:
    """Build ``name`` as the builder's check pass does (elements recorded) and write its ``elements.json``."""
    project = Project.at(root)
    path = project.layout_path(name)
    from composer.layout.loader import load_layout, read_document

    figure = load_layout(path, name=name, display=project.display(path))
    result, _ = build_figure(project, figure, project.display(path),
                             BuildOptions(formats=("svg",), elements=True, store=False), out=state / name)
    text = read_text(path)
    python = path.suffix == ".py"
    raw = read_document(path)
    document = elements_document(result, path=path, display=project.display(path), text=None if python else text,
                                 raw=raw, token="t", digest=digest(text), writable=not python, why=None)
    if python:
        document["raw"] = raw
    (state / name).mkdir(parents=True, exist_ok=True)
    (state / name / "elements.json").write_text(json.dumps(document))
    return document


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("edit") / "proj"
    (root / "layouts").mkdir(parents=True)
    shutil.copytree(DEMO / "assets", root / "assets")
    (root / "layouts" / "fig.toml").write_text(LAYOUT)
    state = root / "build" / ".serve-test"
    state.mkdir(parents=True)
    return root, state, _elements(root, state)


@pytest.fixture
def editor(built):
    root, state, _ = built
    (root / "layouts" / "fig.toml").write_text(LAYOUT)  # each test starts from the same text
    return Editor(root, state)


def _file(built) -> str:
    return read_text(built[0] / "layouts" / "fig.toml")


def test_elements_json_names_each_element_with_its_key_path_line_and_box(built):
    document = built[2]
    by_id = {e["id"]: e for e in document["elements"]}
    assert set(by_id) == {"panel:left", "panel:right", "text:cap", "connector:0.label", "connector:0.waypoint.0"}
    left = by_id["panel:left"]
    assert left["key_path"] == "panels.left" and left["line"] == 6 and left["how"] == "at" and left["unit"] == "mm"
    assert left["box_pt"] == pytest.approx([5 * MM, 5 * MM, 30 * MM, 15 * MM], abs=1e-3)
    assert by_id["panel:right"]["box_pt"][0] == pytest.approx(45 * MM, abs=1e-3)  # 5 + 30 + 10 mm
    assert by_id["text:cap"]["key_path"] == "text[0]" and by_id["text:cap"]["line"] == 17
    assert by_id["connector:0.label"]["line"] == 28 and len(by_id["connector:0.label"]["route_pt"]) == 3
    waypoint = by_id["connector:0.waypoint.0"]["box_pt"]
    assert waypoint[0] + waypoint[2] / 2 == pytest.approx(60 * MM, abs=1e-3)
    assert left["editor_url"] == f"vscode://file{built[0] / 'layouts' / 'fig.toml'}:6"
    snap_x = {(round(s["at"], 2), s["what"]) for s in document["snap"]["x_pt"]}
    assert (round(45 * MM, 2), "panel:right left") in snap_x and (round(50 * MM, 2), "canvas centre") in snap_x
    assert document["digest"] == digest(LAYOUT) and document["layout"]["writable"] is True


def test_an_edit_undo_and_redo_each_write_the_file(built, editor):
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": 2 * MM, "dy_pt": 0.5 * MM, "digest": digest(LAYOUT)})
    moved = LAYOUT.replace('offset = ["0mm", "1mm"]', 'offset = ["2mm", "1.5mm"]')
    assert status == 200 and _file(built) == moved
    assert answer["changed"] == {"key_path": "text[0].offset", "line": 21, "before": '["0mm", "1mm"]',
                                 "after": '["2mm", "1.5mm"]'}
    assert answer["digest"] == digest(moved) and (answer["undo"], answer["redo"]) == (1, 0)
    status, answer = editor.step("fig", {"digest": digest(moved)}, back=True)
    assert status == 200 and _file(built) == LAYOUT and (answer["undo"], answer["redo"]) == (0, 1)
    status, answer = editor.step("fig", {"digest": digest(LAYOUT)}, back=False)
    assert status == 200 and _file(built) == moved and answer["digest"] == digest(moved)


def test_a_file_changed_on_disk_is_never_overwritten(built, editor):
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": MM, "digest": digest("another text")})
    assert (status, answer["reason"]) == (409, "changed-on-disk") and _file(built) == LAYOUT
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": MM, "digest": digest(LAYOUT)})
    assert status == 200
    theirs = _file(built).replace("# two drawings", "# two pictures")  # an editor saves meanwhile
    (built[0] / "layouts" / "fig.toml").write_text(theirs)
    status, answer = editor.step("fig", {"digest": digest(theirs)}, back=True)
    assert (status, answer["reason"]) == (409, "changed-on-disk") and _file(built) == theirs


def test_an_edit_the_check_refuses_is_not_written(built, editor):
    # right, placed 10 mm right of left, moves with it: 40 mm more puts its right edge at 115 mm of 100
    status, answer = editor.edit("fig", {"id": "panel:left", "dx_pt": 40 * MM, "digest": digest(LAYOUT)})
    assert (status, answer["reason"]) == (422, "invalid") and _file(built) == LAYOUT
    assert "puts right 15.0 mm past the edge of the canvas" in answer["message"]
    # right alone 12 mm to the left: 33 to 63 mm over left's 5 to 35 mm
    status, answer = editor.edit("fig", {"id": "panel:right", "dx_pt": -12 * MM, "digest": digest(LAYOUT)})
    assert status == 422 and "over panel left by 2.0 mm" in answer["message"] and _file(built) == LAYOUT
    status, answer = editor.edit("fig", {"id": "panel:left", "dy_pt": -6 * MM, "digest": digest(LAYOUT)})
    assert status == 422 and "left 1.0 mm past the edge" in answer["message"]


def test_a_second_edit_before_the_rebuild_is_checked_where_the_first_left_it(built, editor):
    # elements.json still shows right at 45 mm: 6 mm left is clear of left (35 mm); 6 mm more is 2 mm over it
    status, answer = editor.edit("fig", {"id": "panel:right", "dx_pt": -6 * MM, "digest": digest(LAYOUT)})
    assert status == 200
    once = _file(built)
    status, second = editor.edit("fig", {"id": "panel:right", "dx_pt": -6 * MM, "digest": answer["digest"]})
    assert status == 422 and "over panel left by 2.0 mm" in second["message"] and _file(built) == once


def test_an_edit_the_loader_refuses_gives_its_line(built, editor):
    status, answer = editor.edit("fig", {"id": "panel:left", "dw_pt": 100_000.0, "digest": digest(LAYOUT)})
    assert status == 422 and answer["message"].startswith("layouts/fig.toml:9:")
    assert "panels.left.size[0]" in answer["message"] and _file(built) == LAYOUT


def test_a_waypoint_and_a_label_are_written_as_points_and_fractions(built, editor):
    status, answer = editor.edit("fig", {"id": "connector:0.waypoint.0", "dx_pt": -5 * MM, "digest": digest(LAYOUT)})
    assert status == 200 and _file(built) == LAYOUT.replace('[["60mm", "40mm"]]', '[["55mm", "40mm"]]')
    (built[0] / "layouts" / "fig.toml").write_text(LAYOUT)
    # the route: left.e (35, 12.5) mm to the waypoint (60, 40), then to (90, 40); the label's centre to
    # 5 mm below (75, 40): (hypot(25, 27.5) + 15) / (hypot(25, 27.5) + 30) = 0.7767 of the way, below
    x, y, w, h = next(e for e in built[2]["elements"] if e["id"] == "connector:0.label")["box_pt"]
    status, answer = editor.edit("fig", {"id": "connector:0.label", "dx_pt": 75 * MM - (x + w / 2),
                                         "dy_pt": 45 * MM - (y + h / 2), "digest": digest(LAYOUT)})
    assert status == 200, answer
    assert _file(built) == LAYOUT.replace('label = "go"\n', 'label = "go"\nlabel_pos = 0.78\nlabel_side = "below"\n')


def test_the_editor_command_runs_on_the_elements_line(built, tmp_path):
    out = tmp_path / "opened"
    editor = Editor(built[0], built[1], editor=f"sh -c 'echo {{path}}:{{line}} > {out}'")
    status, answer = editor.open("fig", {"id": "text:cap"})
    assert status == 200 and answer["url"].endswith("fig.toml:17")
    deadline = time.monotonic() + 30
    while not out.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert out.read_text().strip() == f"{built[0] / 'layouts' / 'fig.toml'}:17"


PYTHON_LAYOUT = '''\
def layout():
    return {"figure": {"width": "60mm", "height": "40mm"},
            "text": [{"name": "t", "text": "hi", "at": ["10mm", "10mm"]}]}
'''


def test_a_python_layout_is_refused_with_the_values_to_type(built):
    root, state, _ = built
    (root / "layouts" / "code.py").write_text(PYTHON_LAYOUT)
    document = _elements(root, state, "code")
    assert document["layout"]["writable"] is False and document["elements"][0]["movable"]  # dragged: the values
    status, answer = Editor(root, state).edit("code", {"id": "text:t", "dx_pt": 2.5 * MM, "dy_pt": -MM,
                                                               "digest": document["digest"]})
    assert (status, answer["reason"]) == (409, "python-layout")
    assert answer["values"] == {"at": ["12.5mm", "9mm"]} and (root / "layouts" / "code.py").read_text() == PYTHON_LAYOUT


PANEL = '''\
def f(fig, data, **params):
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label="rise")
'''


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    root = tmp_path_factory.mktemp("edit-render") / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANEL)
    (root / "layouts" / "fig.toml").write_text('[figure]\nwidth = "60mm"\nheight = "30mm"\n\n[panels.a]\n'
                                               'render = "p:f"\nat = ["2mm", "2mm"]\nsize = ["20mm", "15mm"]\n\n'
                                               '[[legend]]\nname = "key"\nfrom = ["a"]\nright_of = "a"\n')
    first = build("fig", root=root, formats=("svg",))
    return root, first


def test_a_move_renders_no_panel_and_a_resize_renders_it(rendered, tmp_path):
    root, first = rendered
    assert first.rendered == ("a",)
    state = tmp_path / "state"
    state.mkdir()
    _elements(root, state)
    editor = Editor(root, state)
    text = read_text(root / "layouts" / "fig.toml")
    status, answer = editor.edit("fig", {"id": "panel:a", "dx_pt": 3 * MM, "dy_pt": MM, "digest": digest(text)})
    assert status == 200 and answer["changed"]["after"] == '["5mm", "3mm"]'
    moved = build("fig", root=root, formats=("svg",))
    assert (moved.rendered, moved.cached) == ((), ("a",))
    status, answer = editor.edit("fig", {"id": "panel:a", "dw_pt": 2 * MM, "digest": answer["digest"]})
    assert status == 200 and answer["changed"]["after"] == '["22mm", "15mm"]'
    assert build("fig", root=root, formats=("svg",)).rendered == ("a",)
    legend = next(e for e in _elements(root, state)["elements"] if e["id"] == "legend:key")
    assert legend["kind"] == "legend" and legend["movable"] and not legend["resizable"]
    assert legend["box_pt"][0] == pytest.approx(5 * MM + 22 * MM, abs=1e-3)  # right of a: at 5 + 22 mm
    status, answer = editor.edit("fig", {"id": "legend:key", "dx_pt": 1.5 * MM, "dy_pt": 4 * MM,
                                         "digest": digest(read_text(root / "layouts" / "fig.toml"))})
    assert status == 200 and read_text(root / "layouts" / "fig.toml").endswith(
        '[[legend]]\nname = "key"\nfrom = ["a"]\nright_of = "a"\noffset = ["1.5mm", "4mm"]\n')
    assert build("fig", root=root, formats=("svg",)).rendered == ()


GRID = """\
[figure]
width = "100mm"
height = "40mm"

[grid]
mosaic = "ab"
columns = ["30mm", 1]
gutter = "4mm"
margin = "5mm"

[panels.a]
svg = "../assets/logo.svg"
cell = "a"

[panels.b]
svg = "../assets/logo.svg"
cell = "b"
"""


def test_grid_tracks_are_snap_lines_and_a_cell_is_not_movable(built):
    root, state, _ = built
    (root / "layouts" / "grid.toml").write_text(GRID)
    document = _elements(root, state, "grid")
    # columns: 5 to 35 mm, then 39 mm to 95 mm (100 - 5 margin); the row: 5 to 35 mm
    xs = {s["what"]: s["at"] for s in document["snap"]["x_pt"] if s["what"].startswith("grid")}
    assert xs == pytest.approx({"grid column 1 start": 5 * MM, "grid column 1 end": 35 * MM,
                                "grid column 2 start": 39 * MM, "grid column 2 end": 95 * MM}, abs=1e-3)
    ys = {s["what"]: s["at"] for s in document["snap"]["y_pt"] if s["what"].startswith("grid")}
    assert ys == pytest.approx({"grid row 1 start": 5 * MM, "grid row 1 end": 35 * MM}, abs=1e-3)
    a = next(e for e in document["elements"] if e["id"] == "panel:a")
    assert a["how"] == "cell" and not a["movable"] and not a["resizable"]
    status, answer = Editor(root, state).edit("grid", {"id": "panel:a", "dx_pt": MM, "digest": document["digest"]})
    assert status == 422 and "grid cell" in answer["message"] and read_text(root / "layouts" / "grid.toml") == GRID


BOXED = """\
[figure]
width = "100mm"
height = "50mm"

[[shape]]
name = "frame"
kind = "rect"
at = ["10mm", "10mm"]
size = ["40mm", "20mm"]

[[text]]
name = "inside"
text = "in"
at = "frame.center"
"""


def test_a_text_dragged_across_a_shapes_border_is_refused_and_into_it_is_not(built):
    root, state, _ = built
    (root / "layouts" / "boxed.toml").write_text(BOXED)
    document = _elements(root, state, "boxed")
    x, y, w, h = next(e for e in document["elements"] if e["id"] == "text:inside")["box_pt"]
    editor = Editor(root, state)
    # the text's centre to the frame's left border (10 mm): half of it outside
    status, answer = editor.edit("boxed", {"id": "text:inside", "dx_pt": 10 * MM - (x + w / 2),
                                           "digest": document["digest"]})
    assert status == 422 and "across the border of shape frame" in answer["message"]
    assert read_text(root / "layouts" / "boxed.toml") == BOXED
    status, answer = editor.edit("boxed", {"id": "text:inside", "dx_pt": 5 * MM, "digest": document["digest"]})
    assert status == 200 and read_text(root / "layouts" / "boxed.toml") == BOXED.replace(
        'at = "frame.center"\n', 'at = "frame.center"\noffset = ["5mm", "0mm"]\n')


def _builder(root: Path, state: Path):
    from composer.cli.serve import Builder, Options
    from composer.progress import Progress

    options = Options(formats=("svg",), dpi=72.0, jobs=1, timeout_s=None, engine=None, pdf_standard=None)
    return Builder("fig", root=root, out=None, options=options, state_dir=state, report=lambda event: None,
                   summary=lambda name, result, seconds: "built", progress=Progress)


def test_the_builder_writes_elements_json_unless_the_layout_was_saved_again_during_the_build(built, tmp_path):
    from composer.cli.watch import WatchEvent
    from composer.pipeline import BuildResult

    root = built[0]
    (root / "layouts" / "fig.toml").write_text(LAYOUT)
    state = tmp_path / "state"
    builder = _builder(root, state)
    event = WatchEvent(result=BuildResult(outputs={}), error=None, seconds=0.1, changed=("layouts/fig.toml",))
    builder._progress()
    (root / "layouts" / "fig.toml").write_text(LAYOUT + "\n")  # saved again while "building": a new stamp
    builder.on_build(event)
    assert not (state / "fig" / "elements.json").exists() and builder.state["findings"] is None
    builder._progress()  # the next build, with the file as it is
    builder.on_build(event)
    written = json.loads((state / "fig" / "elements.json").read_text())
    assert written["digest"] == digest(LAYOUT + "\n") and builder.state["findings"] is not None
    assert {e["id"] for e in written["elements"]} >= {"panel:left", "panel:right", "text:cap"}


# ─── refusals found by an adversarial tester (each failed before its fix) ─────────────────────────────
def test_undo_never_goes_back_past_a_change_made_outside_the_page(built, editor):
    status, first = editor.edit("fig", {"id": "text:cap", "dx_pt": 2 * MM, "digest": digest(LAYOUT)})
    assert status == 200
    theirs = _file(built) + "# saved in an editor\n"
    (built[0] / "layouts" / "fig.toml").write_text(theirs)
    status, second = editor.edit("fig", {"id": "text:cap", "dx_pt": MM, "digest": digest(theirs)})
    assert status == 200 and _file(built) == theirs.replace('["2mm", "1mm"]', '["3mm", "1mm"]')
    status, undone = editor.step("fig", {"digest": second["digest"]}, back=True)
    assert status == 200 and _file(built) == theirs and (undone["undo"], undone["redo"]) == (0, 1)
    status, past = editor.step("fig", {"digest": undone["digest"]}, back=True)  # would restore the text before it
    assert (status, past["reason"]) == (409, "changed-on-disk") and "does not go back past" in past["message"]
    assert _file(built) == theirs


def test_an_undo_refused_for_a_change_on_disk_drops_the_history_before_it(built, editor):
    status, first = editor.edit("fig", {"id": "text:cap", "dx_pt": 2 * MM, "digest": digest(LAYOUT)})
    mine = _file(built)
    (built[0] / "layouts" / "fig.toml").write_text(mine + "# saved\n")
    status, answer = editor.step("fig", {"digest": digest(mine + "# saved\n")}, back=True)
    assert (status, answer["reason"]) == (409, "changed-on-disk")
    (built[0] / "layouts" / "fig.toml").write_text(mine)  # the editor's own undo: the page's text again
    status, answer = editor.step("fig", {"digest": digest(mine)}, back=True)
    assert (status, answer["reason"]) == (409, "changed-on-disk") and _file(built) == mine


def test_an_element_the_last_build_did_not_draw_is_not_moved_unchecked(built, editor):
    # a panel added after the build: elements.json has no box for it, so no move of it can be checked
    text = LAYOUT + '\n[panels.decoy]\nsvg = "../assets/logo.svg"\nat = ["60mm", "30mm"]\nsize = ["30mm", "15mm"]\n'
    (built[0] / "layouts" / "fig.toml").write_text(text)
    status, answer = editor.edit("fig", {"id": "panel:decoy", "dx_pt": 50 * MM, "digest": digest(text)})
    assert (status, answer["reason"]) == (422, "invalid") and _file(built) == text
    assert answer["message"] == ("no drawn box for panels.decoy yet: the last build did not draw it; save a layout "
                                 "that builds first")


def test_a_linked_layout_is_written_through_its_link_inside_the_project_only(built, editor, tmp_path):
    root, state, _ = built
    real = root / "kept" / "real.toml"
    real.parent.mkdir(exist_ok=True)
    real.write_text(LAYOUT)
    link = root / "layouts" / "link.toml"
    link.unlink(missing_ok=True)
    link.symlink_to(real)
    (state / "link").mkdir(exist_ok=True)  # the same text as fig's: its elements.json describes it
    (state / "link" / "elements.json").write_text((state / "fig" / "elements.json").read_text())
    status, answer = editor.edit("link", {"id": "text:cap", "dx_pt": 2 * MM, "digest": digest(LAYOUT)})
    assert status == 200 and link.is_symlink() and os.readlink(link) == str(real)
    assert read_text(real) == LAYOUT.replace('offset = ["0mm", "1mm"]', 'offset = ["2mm", "1mm"]')
    status, answer = editor.step("link", {"digest": answer["digest"]}, back=True)
    assert status == 200 and link.is_symlink() and read_text(real) == LAYOUT
    outside = tmp_path / "outside.toml"
    outside.write_text(LAYOUT)
    link.unlink()
    link.symlink_to(outside)
    status, answer = editor.edit("link", {"id": "text:cap", "dx_pt": 2 * MM, "digest": digest(LAYOUT)})
    assert (status, answer["reason"]) == (422, "invalid") and "outside the project" in answer["message"]
    assert link.is_symlink() and read_text(outside) == LAYOUT and "\n" not in answer["message"]
    link.unlink()
    away = tmp_path / "away"  # a linked folder: the file's real place is outside the project too
    away.mkdir()
    (root / "linked").symlink_to(away)
    try:
        with pytest.raises(Refused, match="outside the project"):
            editor._write_path(root / "linked" / "real.toml", "linked/real.toml")
    finally:
        (root / "linked").unlink()


@pytest.mark.parametrize("route", ["edit", "undo", "redo"])
def test_the_digest_is_required(built, editor, route):
    body = {"id": "text:cap", "dx_pt": MM}
    status, answer = (editor.edit("fig", body) if route == "edit" else editor.step("fig", body, back=route == "undo"))
    assert (status, answer["reason"]) == (400, "bad-request") and '"digest"' in answer["message"]
    assert _file(built) == LAYOUT


@pytest.mark.parametrize("value", [True, "1e5", None, [1], 10**400])
def test_only_json_numbers_are_lengths(built, editor, value):
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": value, "digest": digest(LAYOUT)})
    assert (status, answer["reason"]) == (400, "bad-request") and "dx_pt" in answer["message"]
    assert _file(built) == LAYOUT


def test_a_huge_move_of_a_px_length_is_refused_in_one_short_line(built, editor):
    text = LAYOUT.replace('offset = ["0mm", "1mm"]', 'offset = ["100000px", "1px"]')  # 75,000 pt
    (built[0] / "layouts" / "fig.toml").write_text(text)
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": 1e308, "digest": digest(text)})
    assert (status, answer["reason"]) == (422, "invalid") and _file(built) == text
    assert answer["message"] == "the edit moves by 1e+308 pt; lengths are at most 100000.0 pt"
    # 75,000 + 50,000 pt = 166,666.7 px (0.75 pt each), past the loader's 100,000 pt = 133,333.3 px
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": 50_000.0, "digest": digest(text)})
    assert (status, answer["reason"]) == (422, "invalid") and _file(built) == text
    assert answer["message"].startswith("layouts/fig.toml:21:") and answer["message"].endswith(
        "text[0].offset[0]: the edit makes a length of 166667 px; lengths are at most 133333.3 px")
    x, y, w, h = next(e for e in built[2]["elements"] if e["id"] == "connector:0.label")["box_pt"]
    status, answer = editor.edit("fig", {"id": "connector:0.label", "dy_pt": -1e308, "digest": digest(text)})
    assert status == 422 and answer["message"] == "the edit moves by -1e+308 pt; lengths are at most 100000.0 pt"


def test_a_layout_that_is_not_utf8_is_refused_with_the_loaders_line(built, editor):
    (built[0] / "layouts" / "fig.toml").write_bytes(LAYOUT.encode() + b"# caf\xe9\n")
    status, answer = editor.edit("fig", {"id": "text:cap", "dx_pt": MM, "digest": digest(LAYOUT)})
    assert (status, answer["reason"]) == (422, "invalid")
    assert answer["message"].startswith("layouts/fig.toml: cannot read: 'utf-8' codec can't decode byte 0xe9")


def test_every_key_an_edit_writes_is_named_and_undo_names_them_turned(built, editor):
    x, y, w, h = next(e for e in built[2]["elements"] if e["id"] == "connector:0.label")["box_pt"]
    status, answer = editor.edit("fig", {"id": "connector:0.label", "dx_pt": 75 * MM - (x + w / 2),
                                         "dy_pt": 45 * MM - (y + h / 2), "digest": digest(LAYOUT)})
    assert status == 200
    # label_pos on line 29, label_side on line 30 of the new text (the label is on line 28), both added
    assert answer["all_changed"] == [
        {"key_path": "arrow[0].label_pos", "line": 29, "before": "", "after": "0.78"},
        {"key_path": "arrow[0].label_side", "line": 30, "before": "", "after": '"below"'}]
    assert answer["changed"] == answer["all_changed"][0]
    status, undone = editor.step("fig", {"digest": answer["digest"]}, back=True)
    assert status == 200 and [(c["key_path"], c["before"], c["after"]) for c in undone["all_changed"]] == [
        ("arrow[0].label_pos", "0.78", ""), ("arrow[0].label_side", '"below"', "")]


def test_a_layout_this_process_cannot_replace_is_not_writable(built, tmp_path, monkeypatch):
    from composer.cli.watch import WatchEvent
    from composer.edit import history
    from composer.pipeline import BuildResult

    root = built[0]
    path = root / "layouts" / "fig.toml"
    path.write_text(LAYOUT)
    assert history.why_not_writable(path, root) is None
    outside, link = tmp_path / "outside.toml", root / "layouts" / "away.toml"
    outside.write_text(LAYOUT)
    link.symlink_to(outside)
    try:
        assert "outside the project" in (history.why_not_writable(link, root) or "")
    finally:
        link.unlink()
    real_access = os.access
    # the process's own permissions (as root, os.access grants every write): a folder, then a file, refused
    monkeypatch.setattr(history.os, "access", lambda p, mode: Path(p) != path.parent and real_access(p, mode))
    assert f"the folder {path.parent} is not writable" in (history.why_not_writable(path, root) or "")
    monkeypatch.setattr(history.os, "access", lambda p, mode: Path(p) != path and real_access(p, mode))
    assert history.why_not_writable(path, root) == ("fig.toml is not writable by this process: edit its "
                                                    "permissions, or edit it by hand")
    builder = _builder(root, tmp_path / "state")  # elements.json says so, as the builder writes it
    builder._progress()
    builder.on_build(WatchEvent(result=BuildResult(outputs={}), error=None, seconds=0.1, changed=()))
    layout = json.loads((tmp_path / "state" / "fig" / "elements.json").read_text())["layout"]
    assert layout["writable"] is False and layout["why"].startswith("fig.toml is not writable")
