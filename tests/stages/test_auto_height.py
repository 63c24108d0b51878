"""``[figure] height = "auto"`` (issue #13 item 6): the canvas is as tall as its content plus the margin.

Heights are worked out by hand from the layouts below (boxes in mm) and compared with the built SVG's
root ``height`` and ``viewBox`` and with what the build reports.
"""

from __future__ import annotations

import pytest
from lxml import etree

from composer.cli.main import main
from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.pipeline import build
from conftest import layout_project

MM = 72 / 25.4

BOX_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5">'
           '<rect width="10" height="5" fill="#dddddd"/></svg>')


def project(tmp_path, body: str, head: str = 'height = "auto"\n'):
    root = layout_project(tmp_path, body, head='width = "80mm"\n' + head)
    (root / "box.svg").write_text(BOX_SVG)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text("def axes(fig, data):\n    fig.add_axes([0.25, 0.2, 0.5, 0.6])\n")
    return root


def built(root):
    result = build("fig", root=root, formats=("svg",), cache=False)
    return result, etree.fromstring(result.outputs["svg"].read_bytes())


PANELS = """
[panels.a]
svg = "../box.svg"
at = ["5mm", "5mm"]
size = ["30mm", "20mm"]
[panels.b]
svg = "../box.svg"
right_of = "a"
gap = "5mm"
align = "top"
size = ["30mm", "40mm"]
"""


def test_the_canvas_ends_at_the_lowest_box_plus_the_margin(tmp_path):
    """b's box runs from 5 mm to 45 mm; margin 3 mm: the canvas is 48 mm tall, reported in the build."""
    result, svg = built(project(tmp_path, PANELS, 'height = "auto"\nmargin = "3mm"\n'))
    assert svg.get("height") == "48mm"
    assert float(svg.get("viewBox").split()[3]) == pytest.approx(48 * MM, abs=0.001)
    assert result.fitted_height == "48mm"
    background = svg.find("{http://www.w3.org/2000/svg}rect[@id='background']")
    assert float(background.get("height")) == pytest.approx(48 * MM, abs=0.001)


def test_without_a_margin_the_canvas_ends_at_the_content(tmp_path):
    _, svg = built(project(tmp_path, PANELS))
    assert svg.get("height") == "45mm"


def test_a_text_below_a_row_and_a_grid_margin_set_the_height(tmp_path):
    """A [grid] of fixed rows 20 mm + 4 mm gutter + 30 mm from 2 mm: it ends at 56 mm. A text beside the
    bottom panel's plot area (rendered: 0.2 of 30 mm above the box's bottom, so at 56 - 6 = 50 mm), 8 mm
    below it, placed by its top at 58 mm: the lowest content is the text's bottom. The grid margin's bottom
    (5 mm) is the space below it. The text's height: a 7 pt block, taken from the same text placed alone."""
    body = """
[grid]
mosaic = "A\\nB"
rows = ["20mm", "30mm"]
gutter = "4mm"
margin = ["2mm", "2mm", "5mm", "2mm"]
[panels.a]
svg = "../box.svg"
cell = "A"
[panels.b]
render = "p:axes"
cell = "B"
[[text]]
name = "t"
text = "Time (s)"
beside = ["b"]
side = "below"
gap = "8mm"
"""
    alone = project(tmp_path / "alone", '[[text]]\nname = "t"\ntext = "Time (s)"\nat = ["40mm", "0mm"]\n'
                                        'anchor = "n"\n')
    _, svg_alone = built(alone)
    text_height_mm = float(svg_alone.get("height").removesuffix("mm"))  # the text alone, from 0: its height
    result, svg = built(project(tmp_path, body))
    expected_mm = 58 + text_height_mm + 5
    assert float(svg.get("height").removesuffix("mm")) == pytest.approx(expected_mm, abs=0.001)
    assert result.fitted_height == svg.get("height")


def test_the_command_line_reports_the_height(tmp_path, capsys):
    root = project(tmp_path, PANELS, 'height = "auto"\nmargin = "3mm"\n')
    assert main(["fig", "--root", str(root), "--format", "svg", "--no-cache"]) == 0
    assert "height 48mm" in capsys.readouterr().out


@pytest.mark.parametrize("head, body, message", [
    ('height = "auto"\n', '[grid]\nmosaic = "A"\n', 'grid.rows: height = "auto" fits the canvas'),
    ('height = "auto"\n', '[grid]\nmosaic = "A\\nB"\nrows = ["10mm", 1]\n', "grid.rows: "),
    ('height = "auto"\n', '[[text]]\ntext = "T"\nat = "canvas.s"\n', 'text[0].at: at = "canvas.s": height = "auto"'),
    ('height = "auto"\n', '[[text]]\ntext = "T"\nat = "canvas.e@0.5"\n', 'at = "canvas.e@0.5": height'),
    ('height = "auto"\n', '[[text]]\ntext = "T"\nbelow = "canvas"\n', 'below = "canvas": height = "auto"'),
    ('height = "40mm"\nmargin = "2mm"\n', PANELS, "figure.margin: margin is the space below the content"),
    ('height = "tall"\n', PANELS, "figure.height"),
])
def test_what_cannot_fit_is_refused_in_one_line(tmp_path, head, body, message):
    with pytest.raises(LayoutError) as err:
        load_layout(project(tmp_path, body, head) / "layouts" / "fig.toml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_canvas_top_anchors_are_fine(tmp_path):
    """canvas.n does not move with the height: a text under it fits (its bottom is the canvas's)."""
    _, svg = built(project(tmp_path, '[[text]]\ntext = "T"\nat = "canvas.n"\nanchor = "n"\n'))
    assert 0 < float(svg.get("height").removesuffix("mm")) < 5


def test_the_canvas_holds_the_stroke_of_the_lowest_shape(tmp_path, capsys):
    """A rect from 5 mm to 15 mm with a 2 pt stroke (centred on its outline: 1 pt outside): the canvas is
    15 mm + 1 pt = 42.520 + 1 = 43.520 pt = 15.353 mm tall (it ended at 15 mm, half the stroke cut, and
    ``compose check`` refused the figure composer sized itself: outside-canvas). Without a stroke the
    rect's box is the ink: 15 mm."""
    rect = '[[shape]]\nkind = "rect"\nat = ["5mm", "5mm"]\nsize = ["30mm", "10mm"]\n'
    root = project(tmp_path / "stroked", rect + 'stroke_width = "2pt"\n')
    _, svg = built(root)
    assert svg.get("height") == "15.353mm"  # (15 * 72 / 25.4 + 1) * 25.4 / 72 = 15.3528 mm
    assert float(svg.get("viewBox").split()[3]) == pytest.approx(15.353 * MM, abs=0.001)
    assert main(["check", "fig", "--root", str(root)]) == 0, capsys.readouterr().out
    _, bare = built(project(tmp_path / "bare", rect + 'stroke = "none"\n'))
    assert bare.get("height") == "15mm"
