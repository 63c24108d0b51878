"""``compose NAME --debug``: the layout overlay, written beside outputs that stay byte-identical."""

from __future__ import annotations

import shutil

import pytest
from lxml import etree

from composer.pipeline import build
from composer.stages.geometry import Box
from composer.stages.overlay import gutters
from conftest import DEMO, REPO, read_png


@pytest.fixture(scope="module")
def flagship_debug(tmp_path_factory):
    out = tmp_path_factory.mktemp("volume_kv_debug")
    return build("volume_kv", root=REPO, out=out, formats=("svg",), dpi=150, debug=True)


def test_debug_overlay_names_every_element_of_the_flagship(flagship_debug):
    from composer.pipeline import render_panels
    from composer.stages.compose import figure_geometry
    from composer.stages.inputs import Project, read_inputs

    inputs = read_inputs(Project.at(REPO), "volume_kv")
    figure = inputs.figure
    expected = {f"panel {p.name}" for p in figure.panels}
    expected |= {f"text {t.name}" if t.name else f"text[{i}]" for i, t in enumerate(figure.texts)}
    expected |= {f"shape {s.name}" if s.name else f"shape[{i}]" for i, s in enumerate(figure.shapes)}
    expected |= {f"arrow[{i}]" for i in range(len(figure.arrows))}
    expected |= {f"{p.name}.label" for p in figure.panels if p.label}
    expected |= {f"{p.name}.title" for p in figure.panels if p.title}
    geometry = figure_geometry(inputs, render_panels(inputs))
    expected |= {f"{panel}.{name}" for panel, name in geometry.data_anchors}
    root = etree.fromstring(flagship_debug.outputs["debug-svg"].read_bytes())
    overlay = root.find("{http://www.w3.org/2000/svg}g[@id='debug-overlay']")
    labels = {el.get("aria-label") for el in overlay.iter() if el.get("aria-label")}
    assert len(expected) > 30
    assert expected <= labels, sorted(expected - labels)
    assert {"n", "se", "center", "mm"} <= labels  # compass anchor names and the ruler
    assert any(label.startswith("fmap / fvec: ") or label.startswith("rgb | pca: ") for label in labels)


def test_real_outputs_are_byte_identical_with_and_without_debug(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    plain = build("demo", root=root, out=tmp_path / "plain", dpi=100).outputs
    debug = build("demo", root=root, out=tmp_path / "debug", dpi=100, debug=True).outputs
    assert set(debug) == set(plain) | {"debug-svg", "debug-png", "debug-txt"}
    for kind in ("svg", "pdf", "png"):
        assert debug[kind].read_bytes() == plain[kind].read_bytes(), kind
    assert debug["debug-svg"].name == "demo.debug.svg" and debug["debug-png"].name == "demo.debug.png"
    figure, overlay = read_png(plain["png"]), read_png(debug["debug-png"])
    assert figure.shape == overlay.shape
    # the overlay draws panel a's box as a dashed blue line: its left edge at x = 5 mm, from y = 8 mm to 53 mm
    x, rows = round(5 / 25.4 * 100), slice(round(20 / 25.4 * 100), round(45 / 25.4 * 100))

    def bluish(png):
        px = png[rows, x - 1:x + 2, :3].astype(int)
        return ((px[..., 2] - px[..., 0] > 40) & (px[..., 2] > 200)).any(axis=1)

    assert bluish(overlay).mean() > 0.4  # dashes 1.5 pt on, 1 pt off
    assert not bluish(figure).any()


def test_cli_debug_flag(tmp_path, capsys):
    from composer.cli.main import main

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    assert main(["demo", "--root", str(root), "--debug", "--format", "svg"]) == 0
    assert (root / "build" / "demo.debug.svg").is_file() and (root / "build" / "demo.debug.png").is_file()
    assert "demo.debug.svg" in capsys.readouterr().out


def test_gutters_between_neighbouring_panels():
    a, b, c = Box(0, 0, 10, 10), Box(14, 2, 10, 10), Box(0, 13, 24, 5)
    found = dict((d.split(":")[0], s) for d, s in gutters({"a": a, "b": b, "c": c}))
    assert found["a | b"] == Box(10, 2, 4, 8)
    assert found["a / c"] == Box(0, 10, 10, 3)
    assert found["b / c"] == Box(14, 12, 10, 1)
    blocked = gutters({"a": a, "b": b, "mid": Box(11, 0, 2, 20)})
    assert not any(d.startswith("a | b") for d, _ in blocked)


def test_debug_marks_and_lists_the_ids_an_imported_svg_offers(tmp_path):
    """``--debug`` marks each element of an imported SVG whose id was written by hand (its box, teal, named
    ``panel#id``) and lists the ids in ``build/NAME.debug.txt``, counting those an editor numbered
    (``layer1``, ``rect12``): a user probed 83 generic ids with test arrows to find one. The file is
    30 x 20 user units in a 30 x 20 mm box at (40 mm, 0): pump's box is (40, 0, 10, 10) mm."""
    from conftest import layout_project

    root = layout_project(tmp_path, '''
[panels.two]
svg = "../art/y.svg"
at = ["40mm", "0mm"]
size = ["30mm", "20mm"]
''', head='width = "80mm"\nheight = "30mm"\n')
    (root / "art").mkdir()
    (root / "art" / "y.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><g id="layer1">'
        '<rect id="pump" width="10" height="10" fill="#c00"/><rect id="rect12" x="15" width="10" height="10"/>'
        '<circle id="valve" cx="10" cy="15" r="4"/></g></svg>')
    outputs = build("fig", root=root, formats=("svg",), dpi=50, debug=True, cache=False).outputs
    assert outputs["debug-txt"].read_text().splitlines() == [
        "panel two (../art/y.svg): 2 ids: pump, valve", "  and 2 numbered by an editor: layer1, rect12"]
    svg = etree.fromstring(outputs["debug-svg"].read_bytes())
    labels = {el.get("aria-label") for el in svg.iter() if el.get("aria-label")}
    assert {"two#pump", "two#valve"} <= labels and "two#rect12" not in labels
    mm = 72 / 25.4
    marked = [tuple(round(float(el.get(a)) / mm, 2) for a in ("x", "y", "width", "height"))
              for el in svg.iter("{http://www.w3.org/2000/svg}rect") if el.get("stroke") == "#0d9488"]
    assert (40.0, 0.0, 10.0, 10.0) in marked and (46.0, 11.0, 8.0, 8.0) in marked, marked  # pump; valve r 4
