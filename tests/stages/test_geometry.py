"""The layout engine: grids, relative placement, constraints, shapes, connectors, alignment."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from composer.errors import LayoutError
from composer.pipeline import build, render_panels
from composer.stages.compose import compose, figure_geometry
from composer.stages.inputs import Project, read_inputs
from conftest import REPO, SVG_NS, ids_and_refs, read_png

MM = 72 / 25.4


def project(tmp_path: Path, layout: str, name: str = "fig", panels: str | None = None, suffix: str = "toml") -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    (root / "layouts" / f"{name}.{suffix}").write_text(textwrap.dedent(layout))
    if panels is not None:
        (root / "panels").mkdir(exist_ok=True)
        (root / "panels" / "p.py").write_text(textwrap.dedent(panels))
    return root


def geometry_of(root: Path, name: str = "fig"):
    inputs = read_inputs(Project.at(root), name)
    return inputs, figure_geometry(inputs, render_panels(inputs))


def svg_of(root: Path, name: str = "fig") -> etree._Element:
    inputs = read_inputs(Project.at(root), name)
    return etree.fromstring(compose(inputs, render_panels(inputs)))


def numbers(d: str) -> np.ndarray:
    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]).reshape(-1, 2)


GRID = """
[figure]
width = "100mm"
height = "60mm"

[grid]
mosaic = '''
AAB
CDB
'''
columns = ["20mm", 1, 2]
rows = [1, "15mm"]
gutter = ["3mm", "4mm"]
margin = "5mm"

[[shape]]
name = "a"
cell = "A"
[[shape]]
name = "b"
cell = "B"
[[shape]]
name = "c"
cell = "C"
[[shape]]
name = "d"
cell = "D"
"""


def test_mosaic_tiles_the_grid_with_the_declared_gutters(tmp_path):
    _, geo = geometry_of(project(tmp_path, GRID))
    cells = {area: geo.cells[("", area)] for area in "ABCD"}
    gutter_x, gutter_y, margin = 3 * MM, 4 * MM, 5 * MM
    inner_w, inner_h = 90 * MM, 50 * MM
    free = inner_w - 20 * MM - 2 * gutter_x
    col = [20 * MM, free / 3, 2 * free / 3]
    row = [inner_h - 15 * MM - gutter_y, 15 * MM]
    A, B, C, D = (cells[k] for k in "ABCD")
    assert (A.x_pt, A.y_pt) == pytest.approx((margin, margin))
    assert A.width_pt == pytest.approx(col[0] + gutter_x + col[1])  # spans two columns and a gutter
    assert C.width_pt == pytest.approx(col[0]) and D.width_pt == pytest.approx(col[1])
    assert B.height_pt == pytest.approx(inner_h) and B.width_pt == pytest.approx(col[2])
    assert C.y_pt - (A.y_pt + A.height_pt) == pytest.approx(gutter_y)
    assert D.x_pt - (C.x_pt + C.width_pt) == pytest.approx(gutter_x)
    assert B.x_pt - (A.x_pt + A.width_pt) == pytest.approx(gutter_x)
    assert B.x_pt + B.width_pt == pytest.approx(100 * MM - margin)
    assert C.y_pt + C.height_pt == pytest.approx(60 * MM - margin)
    # the areas plus gutters cover the inner canvas exactly
    covered = sum(c.width_pt * c.height_pt for c in cells.values())
    assert covered == pytest.approx(inner_w * inner_h - gutter_x * inner_h - gutter_y * (col[0] + gutter_x + col[1]) - gutter_x * row[1])
    # the shapes fill their cells
    assert geo.shapes[0] == A


def test_relative_placement_resolves_to_exact_boxes(tmp_path):
    layout = """
    [figure]
    width = "100mm"
    height = "80mm"
    [[shape]]
    name = "base"
    at = "canvas.center"
    anchor = "center"
    size = ["20mm", "10mm"]
    [[shape]]
    name = "r"
    right_of = "base"
    gap = "5mm"
    align = "top"
    size = ["10mm", "4mm"]
    [[shape]]
    name = "l"
    left_of = "base"
    gap = "2mm"
    size = ["6mm", "6mm"]
    [[shape]]
    name = "b"
    below = "base"
    gap = "3mm"
    align = "right"
    size = ["8mm", "8mm"]
    [[shape]]
    name = "a"
    above = "r"
    gap = "1mm"
    align = "left"
    size = ["4mm", "4mm"]
    """
    _, geo = geometry_of(project(tmp_path, layout))
    base, r, left, b, a = geo.shapes
    assert (base.x_pt, base.y_pt) == pytest.approx((40 * MM, 35 * MM))
    assert (r.x_pt, r.y_pt) == pytest.approx((base.x_pt + base.width_pt + 5 * MM, base.y_pt))
    assert left.x_pt + left.width_pt == pytest.approx(base.x_pt - 2 * MM)
    assert left.y_pt + left.height_pt / 2 == pytest.approx(base.y_pt + base.height_pt / 2)
    assert (b.x_pt + b.width_pt, b.y_pt) == pytest.approx((base.x_pt + base.width_pt, base.y_pt + base.height_pt + 3 * MM))
    assert (a.x_pt, a.y_pt + a.height_pt) == pytest.approx((r.x_pt, r.y_pt - 1 * MM))


@pytest.mark.parametrize("extra, fragment", [
    ('[[shape]]\nname = "x"\nsize = ["1mm", "1mm"]\n', "shape[1]: under-constrained"),
    ('[[shape]]\nname = "x"\nat = ["1mm", "1mm"]\nright_of = "s"\nsize = ["1mm", "1mm"]\n',
     "shape[1]: over-constrained: at and right_of"),
    ('[[shape]]\nname = "x"\nright_of = "y"\nsize = ["1mm", "1mm"]\n[[shape]]\nname = "y"\nright_of = "x"\n'
     'size = ["1mm", "1mm"]\n', "placement refers to itself: x -> y -> x"),
    ('[[shape]]\nname = "x"\ncell = "Q"\nsize = ["1mm", "1mm"]\n', "cell = \"Q\": no grid '[grid]' (valid: none: declare a [grid] or [grids.NAME] first)"),
    ('[panels.p]\nimage = "none.png"\nat = ["1mm", "1mm"]\nsize = ["1mm", "1mm"]\n', "none.png"),
])
def test_constraint_errors_name_the_elements(tmp_path, extra, fragment):
    layout = ('[figure]\nwidth = "50mm"\nheight = "50mm"\n[[shape]]\nname = "s"\nat = ["1mm", "1mm"]\n'
              'size = ["5mm", "5mm"]\n' + extra)
    root = project(tmp_path, layout)
    with pytest.raises(LayoutError) as err:
        geometry_of(root)
    assert fragment in str(err.value)
    assert re.match(r"layouts/fig\.toml(:\d+:\d+)?: ", str(err.value))  # the line, when the key is written


def test_overlapping_panels_are_an_error_unless_one_is_an_inset(tmp_path):
    from PIL import Image

    layout = """
    [figure]
    width = "50mm"
    height = "50mm"
    [panels.one]
    image = "../px.png"
    at = ["0mm", "0mm"]
    size = ["20mm", "20mm"]
    [panels.two]
    image = "../px.png"
    at = ["10mm", "10mm"]
    size = ["20mm", "20mm"]
    """
    root = project(tmp_path, layout)
    Image.new("RGB", (4, 4), "red").save(root / "px.png")
    with pytest.raises(LayoutError) as err:
        geometry_of(root)
    # [0, 20] x [0, 20] mm and [10, 30] x [10, 30] mm meet in 10 x 10 mm, said in the layout's mm
    assert "panels 'one' and 'two' overlap by 10.0 x 10.0 mm; " in str(err.value)
    (root / "layouts" / "fig.toml").write_text(textwrap.dedent(layout) + "overlap = true\n")
    geometry_of(root)  # an inset may overlap


def test_auto_sized_boxes_contain_their_text(tmp_path):
    layout = """
    [figure]
    width = "120mm"
    height = "60mm"
    [[shape]]
    name = "fit"
    at = ["5mm", "5mm"]
    text = "Per-(layer, head)\\nkey covariance $\\\\Sigma_{{h}}$"
    padding = "2pt"
    [[shape]]
    name = "wrap"
    kind = "rect"
    below = "fit"
    gap = "5mm"
    width = "25mm"
    text = "a long label that must wrap inside twenty-five millimetres of box"
    [[shape]]
    name = "node"
    kind = "circle"
    right_of = "fit"
    gap = "5mm"
    text = "+ Δ"
    """
    svg = svg_of(project(tmp_path, layout))
    for name in ("fit", "wrap", "node"):
        group = svg.find(f"svg:g[@id='shape-{name}']", SVG_NS)
        outline = group[0]
        glyphs = numbers(group.find("svg:path", SVG_NS).get("d"))
        if outline.tag.endswith("rect"):
            x, y = float(outline.get("x")), float(outline.get("y"))
            w, h = float(outline.get("width")), float(outline.get("height"))
            assert glyphs[:, 0].min() >= x + 1.9 and glyphs[:, 0].max() <= x + w - 1.9, name
            assert glyphs[:, 1].min() >= y + 1.9 and glyphs[:, 1].max() <= y + h - 1.9, name
        else:
            cx, cy, r = (float(outline.get(k)) for k in ("cx", "cy", "r"))
            assert np.hypot(glyphs[:, 0] - cx, glyphs[:, 1] - cy).max() < r
    wrap = svg.find("svg:g[@id='shape-wrap']/svg:rect", SVG_NS)
    assert float(wrap.get("width")) == pytest.approx(25 * MM, abs=1e-3)
    assert float(wrap.get("height")) > 3 * 7  # wrapped to at least three lines of 7 pt


def test_routes_elbows_are_axis_parallel_and_arcs_curve(tmp_path):
    layout = """
    [figure]
    width = "100mm"
    height = "60mm"
    [[shape]]
    name = "a"
    at = ["5mm", "5mm"]
    size = ["10mm", "10mm"]
    [[shape]]
    name = "b"
    at = ["60mm", "40mm"]
    size = ["10mm", "10mm"]
    [[arrow]]
    from = "a.e"
    to = "b.n"
    route = "-|"
    [[arrow]]
    from = "a.s"
    to = "b.w"
    route = "|-"
    [[arrow]]
    from = "a.e@0.25"
    to = "b.n@0.75"
    route = "-|"
    via = [["40mm", "20mm"], { at = "b.nw", offset = ["-5mm", "-10mm"] }]
    head = "both"
    head_style = "open"
    [[arrow]]
    from = "a.se"
    to = "b.nw"
    route = "arc"
    bend = 30
    label = "arc"
    """
    svg = svg_of(project(tmp_path, layout))
    for i in range(3):
        pts = numbers(svg.find(f"svg:g[@id='arrow-{i}']/svg:path", SVG_NS).get("d"))
        assert len(pts) >= 3
        for p, q in zip(pts, pts[1:]):
            assert p[0] == pytest.approx(q[0], abs=1e-3) or p[1] == pytest.approx(q[1], abs=1e-3), (i, p, q)
    via = numbers(svg.find("svg:g[@id='arrow-2']/svg:path", SVG_NS).get("d"))
    assert any(np.allclose(p, (40 * MM, 20 * MM), atol=1e-3) for p in via)
    assert any(np.allclose(p, (55 * MM, 30 * MM), atol=1e-3) for p in via)
    assert via[0][1] == pytest.approx(5 * MM + 2.5 * MM, abs=1e-3)  # a.e@0.25
    arc = svg.find("svg:g[@id='arrow-3']/svg:path", SVG_NS).get("d")
    assert " Q" in arc
    assert svg.find("svg:g[@id='arrow-3']/svg:path[@id='arrow-3-label']", SVG_NS) is not None


def test_placement_shows_in_rendered_pixels(tmp_path):
    layout = """
    [figure]
    width = "40mm"
    height = "20mm"
    [colors]
    hot = "#ff0000"
    [[shape]]
    name = "red"
    at = "canvas.w"
    offset = ["5mm", "0mm"]
    anchor = "w"
    size = ["10mm", "10mm"]
    fill = "hot"
    stroke = "none"
    [[shape]]
    name = "blue"
    right_of = "red"
    gap = "6mm"
    size = ["10mm", "10mm"]
    fill = "#0000ff"
    stroke = "none"
    """
    root = project(tmp_path, layout)
    out = build("fig", root=root, formats=("png",), dpi=254)  # 10 px per mm
    png = read_png(out.outputs["png"])
    assert tuple(png[100, 100, :3]) == (255, 0, 0)     # centre of red: 10 mm, 10 mm
    assert tuple(png[100, 180, :3]) == (255, 255, 255)  # in the 6 mm gap
    assert tuple(png[100, 260, :3]) == (0, 0, 255)     # centre of blue: 26 mm
    assert tuple(png[100, 148, :3]) == (255, 0, 0) and tuple(png[100, 152, :3]) == (255, 255, 255)
    assert tuple(png[100, 208, :3]) == (255, 255, 255) and tuple(png[100, 212, :3]) == (0, 0, 255)


PANELS = """
def wide(fig, data):
    ax = fig.add_subplot()
    ax.set_xlim(0, 1); ax.set_ylim(0, 100000)
    ax.set_ylabel("a long y label")
    ax.set_title("title")
    fig.subplots_adjust(left=0.35, bottom=0.2, right=0.95, top=0.85)
    return {"ll": (ax, 0, 0), "ur": (ax, 1, 100000)}

def empty(fig, data):
    fig.text(0.5, 0.5, "no axes")

def narrow(fig, data):
    ax = fig.add_subplot()
    ax.set_xlim(0, 1); ax.set_ylim(0, 1)
    fig.subplots_adjust(left=0.15, bottom=0.1, right=0.9, top=0.95)
    return {"ll": (ax, 0, 0), "ur": (ax, 1, 1)}
"""


@pytest.mark.parametrize("axis", ["x", "y", "both"])
def test_plot_areas_align_across_panels(tmp_path, axis):
    """An L of panels: one and two share a row, one and three a column; "both" aligns the row and the column."""
    members = {"x": '["one", "three"]', "y": '["one", "two"]', "both": '["one", "two", "three"]'}[axis]
    layout = f"""
    [figure]
    width = "120mm"
    height = "100mm"
    [panels.one]
    render = "p:wide"
    at = ["0mm", "0mm"]
    size = ["60mm", "45mm"]
    [panels.two]
    render = "p:narrow"
    at = ["60mm", "0mm"]
    size = ["60mm", "45mm"]
    [panels.three]
    render = "p:narrow"
    at = ["0mm", "50mm"]
    size = ["60mm", "45mm"]
    [[align]]
    panels = {members}
    axis = "{axis}"
    """
    _, geo = geometry_of(project(tmp_path, layout, panels=PANELS))
    ll = {p: geo.data_anchors[(p, "ll")] for p in ("one", "two", "three")}
    ur = {p: geo.data_anchors[(p, "ur")] for p in ("one", "two", "three")}
    if axis in ("y", "both"):  # top and bottom line up (row)
        assert ll["one"][1] == pytest.approx(ll["two"][1], abs=1e-3)
        assert ur["one"][1] == pytest.approx(ur["two"][1], abs=1e-3)
    if axis in ("x", "both"):  # left and right line up (column)
        assert ll["one"][0] == pytest.approx(ll["three"][0] + 0, abs=1e-3)
        assert ur["one"][0] == pytest.approx(ur["three"][0], abs=1e-3)
    if axis == "x":
        assert ll["one"][1] != pytest.approx(ll["two"][1], abs=1)  # rows untouched
    if axis == "both":  # two is alone in its column, three alone in its row: neither is pulled across
        assert ll["two"][0] != pytest.approx(ll["one"][0], abs=1)
        assert ll["three"][1] != pytest.approx(ll["one"][1], abs=1)


def test_a_panel_spanning_two_rows_aligns_with_both(tmp_path):
    """Mosaic "AB/AC", axis both: a's plot top meets b's, a's bottom meets c's, b and c share left/right
    (patchwork's grid lines), and nothing is squeezed."""
    layout = """
    [figure]
    width = "120mm"
    height = "90mm"
    [grid]
    mosaic = "AB\\nAC"
    gutter = "6mm"
    [panels.one]
    render = "p:narrow"
    cell = "A"
    [panels.two]
    render = "p:wide"
    cell = "B"
    [panels.three]
    render = "p:narrow"
    cell = "C"
    [[align]]
    panels = ["one", "two", "three"]
    axis = "both"
    """
    _, geo = geometry_of(project(tmp_path, layout, panels=PANELS))
    ll = {p: geo.data_anchors[(p, "ll")] for p in ("one", "two", "three")}
    ur = {p: geo.data_anchors[(p, "ur")] for p in ("one", "two", "three")}
    assert ur["one"][1] == pytest.approx(ur["two"][1], abs=1e-3)    # tops of row 1
    assert ll["one"][1] == pytest.approx(ll["three"][1], abs=1e-3)  # bottoms of row 2
    assert ll["two"][0] == pytest.approx(ll["three"][0], abs=1e-3)  # the right column's left edges
    assert ur["two"][0] == pytest.approx(ur["three"][0], abs=1e-3)
    assert ll["one"][1] - ur["one"][1] > 150  # a's plot area still spans both rows (pt)


def test_aligning_panels_that_only_partly_overlap_is_an_error(tmp_path):
    layout = """
    [figure]
    width = "120mm"
    height = "80mm"
    [panels.one]
    render = "p:narrow"
    at = ["0mm", "0mm"]
    size = ["50mm", "40mm"]
    [panels.two]
    render = "p:narrow"
    at = ["60mm", "35mm"]
    size = ["50mm", "40mm"]
    [[align]]
    panels = ["one", "two"]
    """
    with pytest.raises(LayoutError, match=r"align\[0\].panels: aligning would leave panel 'one' 0% of its plot "
                                          r"area's height"):
        geometry_of(project(tmp_path, layout, panels=PANELS))


def test_aligning_a_panel_without_axes_is_an_error(tmp_path):
    layout = """
    [figure]
    width = "120mm"
    height = "50mm"
    [panels.one]
    render = "p:narrow"
    at = ["0mm", "0mm"]
    size = ["50mm", "40mm"]
    [panels.two]
    render = "p:empty"
    at = ["60mm", "0mm"]
    size = ["50mm", "40mm"]
    [[align]]
    panels = ["one", "two"]
    """
    with pytest.raises(LayoutError, match="panel 'two' draws no axes, so it has no plot area to align"):
        geometry_of(project(tmp_path, layout, panels=PANELS))


def test_python_layout_gives_the_same_svg_as_toml(tmp_path):
    toml = GRID + '\n[[text]]\ntext = "<b>bold</b> and <color=hot>hot</color>"\nat = "a.center"\n[colors]\nhot = "#ff0000"\n'
    root_t = project(tmp_path / "t", toml)
    import tomllib

    doc = tomllib.loads(textwrap.dedent(toml))
    root_p = project(tmp_path / "p", f"def layout():\n    return {doc!r}\n", suffix="py")
    svg_t = etree.tostring(svg_of(root_t))
    svg_p = etree.tostring(svg_of(root_p))
    assert svg_t == svg_p


def test_rich_text_spans_are_separate_colours_and_weights(tmp_path):
    layout = """
    [figure]
    width = "60mm"
    height = "20mm"
    [colors]
    accent = "#A66B3F"
    [styles.note]
    size = "8pt"
    color = "#334155"
    [[text]]
    name = "t"
    text = "plain <b>bold</b> <color=accent>warm $x^2$</color>"
    at = "canvas.center"
    class = "note"
    """
    svg = svg_of(project(tmp_path, layout))
    group = svg.find("svg:g[@id='text-t']", SVG_NS)
    fills = [p.get("fill") for p in group.findall("svg:path", SVG_NS)]
    assert fills == ["#334155", "#a66b3f"]
    assert group.get("aria-label") == "plain <b>bold</b> <color=accent>warm $x^2$</color>"


def test_brace_and_line_shapes(tmp_path):
    layout = """
    [figure]
    width = "60mm"
    height = "30mm"
    [[shape]]
    kind = "brace"
    points = [["10mm", "20mm"], ["50mm", "20mm"]]
    side = "left"
    depth = "4mm"
    [[shape]]
    kind = "line"
    points = [["5mm", "5mm"], ["30mm", "5mm"], ["30mm", "12mm"]]
    dash = true
    """
    svg = svg_of(project(tmp_path, layout))
    brace = numbers(svg.find("svg:g[@id='shape-0']/svg:path", SVG_NS).get("d"))
    assert brace[0] == pytest.approx((10 * MM, 20 * MM), abs=1e-3) and brace[-1] == pytest.approx((50 * MM, 20 * MM), abs=1e-3)
    assert brace[:, 1].min() == pytest.approx(16 * MM, abs=1e-3)  # the tip: 4 mm up (left of travel)
    line = svg.find("svg:g[@id='shape-1']/svg:path", SVG_NS)
    assert line.get("stroke-dasharray") and len(numbers(line.get("d"))) == 3


@pytest.mark.parametrize("name", ["kvpath_delta", "sq_pipeline"])
def test_seed_diagrams_build_cleanly(tmp_path, name):
    out = build(name, root=REPO, out=tmp_path, formats=("svg",))
    svg = out.outputs["svg"].read_bytes()
    ids, refs = ids_and_refs(svg)
    assert len(ids) == len(set(ids)) and refs <= set(ids)
    root = etree.fromstring(svg)
    assert not root.findall(".//svg:g[@id='panel-']", SVG_NS)
    labels = [el.get("aria-label") for el in root.iter() if el.get("aria-label")]
    assert len(labels) >= 6


def test_one_style_source_reaches_canvas_and_panels(tmp_path):
    """A shared style file's palette, text styles and rcParams reach canvas text, shapes
    and the matplotlib panels; the layout's own tables override it."""
    layout = """
    [figure]
    width = "60mm"
    height = "40mm"
    style = "../styles/paper.toml"
    [colors]
    accent = "#00aa00"
    [panels.p]
    render = "p:styled"
    at = ["2mm", "2mm"]
    size = ["30mm", "30mm"]
    [[shape]]
    name = "box"
    right_of = "p"
    gap = "2mm"
    size = ["10mm", "10mm"]
    fill = "accent"
    stroke = "ink"
    [[text]]
    name = "t"
    text = "styled"
    below = "box"
    class = "note"
    """
    panels = """
    import matplotlib
    def styled(fig, data, colors):
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], color=colors["ink"])
        assert matplotlib.rcParams["axes.linewidth"] == 2.5
        return None
    """
    root = project(tmp_path, layout, panels=panels)
    (root / "styles").mkdir()
    (root / "styles" / "paper.toml").write_text(
        '[colors]\nink = "#123456"\naccent = "#ff0000"\n[styles.note]\nsize = "9pt"\ncolor = "ink"\n'
        '[rcparams]\n"axes.linewidth" = 2.5\n')
    svg = svg_of(root)
    rect = svg.find("svg:g[@id='shape-box']/svg:rect", SVG_NS)
    assert rect.get("fill") == "#00aa00" and rect.get("stroke") == "#123456"  # layout overrides the file
    assert svg.find("svg:path[@id='text-t']", SVG_NS).get("fill") == "#123456"
    panel = etree.tostring(svg.find("svg:g[@id='panel-p']", SVG_NS)).decode()
    assert "stroke: #123456" in panel  # the palette reached the renderer
    assert "stroke-width: 2.5" in panel  # the rcParam reached the axes spines


def test_bad_style_values_name_file_and_key(tmp_path):
    layout = '[figure]\nwidth = "10mm"\nheight = "10mm"\n[rcparams]\n"axes.linewidth" = "thick"\n'
    with pytest.raises(LayoutError) as err:
        geometry_of(project(tmp_path, layout))
    # "axes.linewidth" is on line 5, column 1
    assert str(err.value).startswith("layouts/fig.toml:5:1: rcparams.axes.linewidth: 'axes.linewidth' = \"thick\": "
                                     "not a valid value for this rcParam: ")
    layout = '[figure]\nwidth = "10mm"\nheight = "10mm"\n[[text]]\ntext = "x"\nat = ["1mm", "1mm"]\nclass = "nope"\n'
    with pytest.raises(LayoutError) as err:
        geometry_of(project(tmp_path / "b", layout))
    assert "text[0].class" in str(err.value) and "nope" in str(err.value)


@pytest.mark.parametrize("bend", [90, -120, 160])
def test_an_arc_bent_beyond_80_degrees_is_refused(tmp_path, bend):
    """The arc is a quadratic Bezier: its control point is tan(bend) half-chords off the chord, at infinity for 90
    and on the other side beyond it (a bend of 120 bent right, 90 put it 1e18 pt away). 80 is the most."""
    layout = f"""
    [figure]
    width = "60mm"
    height = "40mm"
    [[arrow]]
    from = ["5mm", "20mm"]
    to = ["55mm", "20mm"]
    route = "arc"
    bend = {bend}
    """
    with pytest.raises(LayoutError, match=rf"arrow\[0\]\.bend: {bend} is not an angle in degrees from -80 to 80"):
        svg_of(project(tmp_path, layout))
    control = numbers(svg_of(project(tmp_path / "ok", layout.replace(f"bend = {bend}", "bend = 80")))
                      .find("svg:g[@id='arrow-0']/svg:path", SVG_NS).get("d"))[1]
    assert control[1] == pytest.approx(20 * MM - np.tan(np.radians(80)) * 25 * MM, abs=0.01)  # up: left of travel
