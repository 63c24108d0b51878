"""``compose check`` finds canvas text crossed by a drawn line (issue #13 item 10).

Layouts draw between absolute points (pt), so where each line runs is known by hand: a label
placed across another arrow, a text on a line shape, and a connector's own label moved onto its
line (the placement never puts it there: the ink of "own", 7 pt, sits from about 8.3 to 3.2 pt
above the line; the test moves it 5 pt down, across it) are each one ``overlap`` finding naming both elements; labels placed
by composer on every side of slanted lines, elbows and arcs are none.
"""

from __future__ import annotations

import warnings

from lxml import etree

from composer.lint.rules import lint
from composer.pipeline import check, render_panels
from composer.stages.compose import compose, figure_geometry
from composer.stages.inputs import Project, read_inputs
from conftest import layout_project

HEAD = 'width = "300pt"\nheight = "200pt"\n'


def overlaps(tmp_path, body: str) -> list[tuple[str, str]]:
    root = layout_project(tmp_path, body, head=HEAD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = check("fig", root=root)
    return [(f.element, f.problem) for f in report.findings if f.rule == "overlap"]


def test_a_label_placed_across_another_arrow_is_reported(tmp_path):
    """Arrow 0 runs right along y = 100, its label above it (about 1.5 to 8.5 pt over the line,
    around x = 100); arrow 1 runs down x = 100 from y = 60 to 140, through that label."""
    found = overlaps(tmp_path, '''
[[arrow]]
from = ["50pt", "100pt"]
to = ["150pt", "100pt"]
label = "across"
[[arrow]]
from = ["100pt", "60pt"]
to = ["100pt", "140pt"]
''')
    assert ("arrow[0] label / arrow[1]", "text lies on a connector") in found, found


def test_a_text_on_a_line_shape_is_reported(tmp_path):
    found = overlaps(tmp_path, '''
[[text]]
name = "note"
text = "crossed"
at = ["100pt", "100pt"]
[[shape]]
name = "rule"
kind = "line"
points = [["40pt", "100pt"], ["160pt", "100pt"]]
''')
    assert found == [("text note / shape rule", "text is crossed by a line")], found


def test_a_label_moved_onto_its_own_connector_is_reported(tmp_path):
    root = layout_project(tmp_path, '''
[[arrow]]
from = ["50pt", "100pt"]
to = ["150pt", "100pt"]
label = "own"
''', head=HEAD)
    inputs = read_inputs(Project.at(root), "fig")
    rendered = render_panels(inputs)
    svg = compose(inputs, rendered)
    geometry = figure_geometry(inputs, rendered)
    assert [f for f in lint(inputs.figure, geometry, svg, file=inputs.file).findings if f.rule == "overlap"] == []
    tree = etree.fromstring(svg)
    label = tree.find(".//*[@id='arrow-0-label']")
    label.set("transform", "translate(0 5)")
    moved = etree.tostring(tree)
    found = [(f.element, f.problem) for f in lint(inputs.figure, geometry, moved, file=inputs.file).findings
             if f.rule == "overlap"]
    assert found == [("arrow[0] label / arrow[0]", "text is crossed by its own connector")], found


def test_labels_composer_places_are_not_crossed(tmp_path):
    """Every side of a 30-degree line, a 135-degree line, an elbow whose label falls by its corner and
    a strongly bent arc: no overlap finding (the ends touch no element: only dangling-connector)."""
    body = ""
    for j, side in enumerate(("above", "below", "left", "right")):
        x = 10 + 72 * j
        body += f'''
[[arrow]]
from = ["{x}pt", "60pt"]
to = ["{x + 50}pt", "31.13pt"]
label = "Wg"
label_side = "{side}"
[[arrow]]
from = ["{x + 50}pt", "110pt"]
to = ["{x}pt", "70pt"]
label = "Wg"
label_side = "{side}"
[[arrow]]
from = ["{x}pt", "130pt"]
to = ["{x + 50}pt", "150pt"]
route = "-|"
label_pos = 0.66
label = "Wg"
label_side = "{side}"
[[arrow]]
from = ["{x}pt", "190pt"]
to = ["{x + 50}pt", "190pt"]
route = "arc"
bend = 60
label = "Wg"
label_side = "{side}"
'''
    assert overlaps(tmp_path, body) == []
