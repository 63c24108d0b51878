"""Aspect-locked panels (issue #13 item 5): ``aspect`` of the plot area (default) or of the box.

Boxes are worked out by hand from the layouts below (cells in mm) and compared with the panel boxes
composer places (before rendering) and with the built SVG: a panel's group is translated to its box's
top-left corner, matplotlib's figure patch (``NAME--patch_1``) spans its box and its axes patch
(``NAME--patch_2``) is the plot area, whose measured width / height is checked against the aspect.
"""

from __future__ import annotations

import re

import pytest
from lxml import etree

from composer.errors import LayoutError, PanelError
from composer.layout.loader import load_layout
from composer.pipeline import build
from composer.stages.geometry import Box, aspect_box, panel_boxes
from conftest import layout_project

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"

RENDERERS = '''
def plain(fig, data):
    ax = fig.add_subplot()
    ax.imshow([[0, 1], [1, 0]])


def titled(fig, data):
    ax = fig.add_subplot()
    ax.imshow([[0, 1], [1, 0]])
    ax.set_title("a title\\non two lines")


def labelled(fig, data):
    ax = fig.add_subplot()
    ax.plot([0, 1000], [0, 1])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("signal")
    ax.set_title("a title")


def constrained(fig, data):
    fig.set_layout_engine("constrained")
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1e5])
    ax.set_ylabel("a long label")


def square_image(fig, data):
    ax = fig.add_subplot()
    ax.imshow([[0, 1], [1, 0]])
'''


def project(tmp_path, body: str, head: str = 'width = "200mm"\nheight = "40mm"\n'):
    root = layout_project(tmp_path, body, head=head)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(RENDERERS)
    return root


def boxes(root) -> dict[str, Box]:
    figure = load_layout(root / "layouts" / "fig.toml", name="fig")
    return panel_boxes(figure, [(0.0, 0.0)] * len(figure.texts), None, file="layouts/fig.toml")


def path_extent(d: str) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) of the points of an SVG path's ``d`` (matplotlib writes M/L x y pairs)."""
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", d)]
    xs, ys = numbers[0::2], numbers[1::2]
    return min(xs), min(ys), max(xs), max(ys)


def built_panels(root) -> dict[str, tuple[float, float, float, float, tuple[float, float, float, float]]]:
    """Panel name -> (x, y, width, height) of its box in the built SVG (pt), and its first axes' patch
    (the plot area) as (x0, y0, x1, y1) on the canvas."""
    result = build("fig", root=root, formats=("svg",), cache=False)
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    found = {}
    for group in svg.iter(f"{SVG}g"):
        name = (group.get("id") or "").removeprefix("panel-")
        if not (group.get("id") or "").startswith("panel-") or "-" in name:
            continue
        tx, ty = (float(v) for v in re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", group.get("transform")).groups())
        figure_patch = group.find(f".//{SVG}g[@id='{name}--patch_1']/{SVG}path")
        axes_patch = group.find(f".//{SVG}g[@id='{name}--patch_2']/{SVG}path")
        x0, y0, x1, y1 = path_extent(figure_patch.get("d"))
        ax0, ay0, ax1, ay1 = path_extent(axes_patch.get("d"))
        found[name] = (tx + x0, ty + y0, x1 - x0, y1 - y0, (tx + ax0, ty + ay0, tx + ax1, ty + ay1))
    return found


CELLS = """
[grid]
mosaic = "ABCD"
[panels.a]
render = "p:plain"
cell = "A"
aspect = 1.0
aspect_of = "box"
[panels.b]
render = "p:plain"
cell = "B"
aspect = 1.0
aspect_of = "box"
align = "right"
[panels.c]
render = "p:plain"
cell = "C"
aspect = 2.5
aspect_of = "box"
align = "top"
[panels.d]
render = "p:plain"
cell = "D"
aspect = 2.5
aspect_of = "box"
align = "bottom"
"""

#: cells 50 x 40 mm side by side; aspect 1: 40 x 40 mm, 10 mm of room across; aspect 2.5: 50 x 20 mm,
#: 20 mm of room down. (x, y, width, height) in mm.
CELL_BOXES = {"a": (5, 0, 40, 40), "b": (60, 0, 40, 40), "c": (100, 0, 50, 20), "d": (150, 20, 50, 20)}


def test_a_locked_box_is_the_largest_of_its_aspect_in_its_cell_placed_by_align(tmp_path):
    """Centred by default, flush right with ``align = "right"``, flush top / bottom on the taller axis."""
    found = boxes(project(tmp_path, CELLS))
    for name, (x, y, w, h) in CELL_BOXES.items():
        box = found[name]
        assert (box.x_pt, box.y_pt, box.width_pt, box.height_pt) == pytest.approx(
            (x * MM, y * MM, w * MM, h * MM), abs=1e-6), name
        assert box.width_pt / box.height_pt == pytest.approx(float(w) / h, rel=1e-9)


def test_the_built_svg_draws_each_locked_panel_at_its_box(tmp_path):
    """The rendered panel's figure patch spans the hand-computed box, at its place on the canvas."""
    found = built_panels(project(tmp_path, CELLS))
    for name, (x, y, w, h) in CELL_BOXES.items():
        assert found[name][:4] == pytest.approx((x * MM, y * MM, w * MM, h * MM), abs=0.01), name
        assert found[name][2] / found[name][3] == pytest.approx(float(w) / h, rel=0.005)


def test_a_panel_placed_at_a_point_keeps_its_anchor(tmp_path):
    """``at`` with ``anchor = "se"`` and a 60 x 20 mm size, aspect 1: a 20 mm square whose bottom-right
    corner is still the point; a relation (``right_of``, ``align = "top"``) keeps its top-left."""
    found = boxes(project(tmp_path, """
        [panels.a]
        render = "p:plain"
        at = ["70mm", "30mm"]
        anchor = "se"
        size = ["60mm", "20mm"]
        aspect = 1.0
        aspect_of = "box"
        [panels.b]
        render = "p:plain"
        right_of = "a"
        gap = "5mm"
        align = "top"
        size = ["30mm", "30mm"]
        aspect = 0.5
        aspect_of = "box"
        """))
    a, b = found["a"], found["b"]
    assert (a.x_pt, a.y_pt, a.width_pt, a.height_pt) == pytest.approx((50 * MM, 10 * MM, 20 * MM, 20 * MM))
    assert (b.x_pt, b.y_pt, b.width_pt, b.height_pt) == pytest.approx((75 * MM, 10 * MM, 15 * MM, 30 * MM))


def test_an_svg_panels_plot_area_is_its_box(tmp_path):
    """An SVG panel has no axes: ``aspect = 2.0`` (of the plot area, the default) locks its box, in a
    50 x 40 mm cell a 50 x 25 mm box, centred down."""
    root = project(tmp_path, """
        [grid]
        mosaic = "AB"
        [panels.a]
        svg = "../box.svg"
        cell = "A"
        aspect = 2.0
        [panels.b]
        render = "p:plain"
        cell = "B"
        """, head='width = "100mm"\nheight = "40mm"\n')
    (root / "box.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5"><rect width="10" '
                                  'height="5"/></svg>')
    a = boxes(root)["a"]
    assert (a.x_pt, a.y_pt, a.width_pt, a.height_pt) == pytest.approx((0, 7.5 * MM, 50 * MM, 25 * MM))


def test_aspect_box_fills_the_constraining_side():
    """Hand-worked: a 100 x 40 box holds a 2:1 box of 80 x 40 (20 of room, split by align)."""
    assert aspect_box(Box(0, 0, 100, 40), 2.0) == Box(10, 0, 80, 40)
    assert aspect_box(Box(0, 0, 100, 40), 2.0, "left") == Box(0, 0, 80, 40)
    assert aspect_box(Box(0, 0, 100, 40), 0.5, "bottom") == Box(40, 0, 20, 40)
    assert aspect_box(Box(0, 0, 40, 100), 2.0, "bottom") == Box(0, 80, 40, 20)
    assert aspect_box(Box(5, 5, 40, 100), 1.0, anchor="se") == Box(5, 65, 40, 40)


def test_aligned_locked_panels_keep_their_plot_areas_lined_up(tmp_path):
    """Two locked boxes on one row (1:1 and 1.25:1), flush top: ``[[align]] axis = "y"`` still lines up the tops
    of their plot areas (one panel has a two-line title, the other none) to 0.01 pt."""
    root = project(tmp_path, """
        [grid]
        mosaic = "AB"
        [panels.a]
        render = "p:titled"
        cell = "A"
        aspect = 1.0
        aspect_of = "box"
        align = "top"
        [panels.b]
        render = "p:plain"
        cell = "B"
        aspect = 1.25
        aspect_of = "box"
        align = "top"
        [[align]]
        panels = ["a", "b"]
        axis = "y"
        """, head='width = "100mm"\nheight = "50mm"\n')
    found = built_panels(root)
    assert found["a"][:4] == pytest.approx((0, 0, 50 * MM, 50 * MM), abs=0.01)  # cells 50 x 50 mm
    assert found["b"][:4] == pytest.approx((50 * MM, 0, 50 * MM, 40 * MM), abs=0.01)
    assert found["a"][4][1] == pytest.approx(found["b"][4][1], abs=0.01)
    assert found["a"][4][1] > 10  # the title took room: b's plot area moved down to it


@pytest.mark.parametrize("value", ["0", "-1.5", "nan", "inf", '"square"', "true"])
def test_an_impossible_aspect_is_a_one_line_error_naming_the_key(tmp_path, value):
    root = project(tmp_path, f"""
        [panels.a]
        render = "p:plain"
        at = ["0mm", "0mm"]
        size = ["20mm", "20mm"]
        aspect = {value}
        aspect_of = "box"
        """)
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml", name="fig")
    message = str(err.value)
    assert "\n" not in message and "panels.a.aspect" in message and "positive number" in message


@pytest.mark.parametrize(("extra", "key", "words"), [
    ('aspect_of = "box"', "panels.a.aspect_of", "give aspect"),
    ('aspect = 1.0\naspect_of = "square"', "panels.a.aspect_of", "box"),
    ('aspect = 1.0\naspect_of = "box"\nalign = "middle"', "panels.a.align", "center"),
    ('align = "top"', "panels.a.align", "grid cell"),
])
def test_aspect_keys_that_do_not_fit_are_errors_naming_the_key(tmp_path, extra, key, words):
    root = project(tmp_path, '[grid]\nmosaic = "A"\n[panels.a]\nrender = "p:plain"\ncell = "A"\n' + extra + "\n")
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml", name="fig")
    message = str(err.value)
    assert "\n" not in message and key in message and words in message


PLOTS = """
[grid]
mosaic = "ABCD"
[panels.a]
render = "p:labelled"
cell = "A"
aspect = 1.0
align = "left"
[panels.b]
render = "p:labelled"
cell = "B"
aspect = 2.0
align = "bottom"
[panels.c]
render = "p:constrained"
cell = "C"
aspect = 0.6
[panels.d]
render = "p:square_image"
cell = "D"
aspect = 1.0
align = "right"
"""


def test_a_locked_plot_area_has_the_aspect_measured_in_the_svg(tmp_path):
    """Cells 50 x 40 mm. Each axes patch's measured width / height is the aspect to 0.5 %; the box is
    the largest: it keeps the cell's other side whole, lies inside the cell and sits per ``align``
    (a: flush left, b: flush bottom, c centred across, d flush right)."""
    found = built_panels(project(tmp_path, PLOTS))
    cell_w, cell_h = 50 * MM, 40 * MM
    for i, (name, aspect) in enumerate({"a": 1.0, "b": 2.0, "c": 0.6, "d": 1.0}.items()):
        x, y, w, h, (px0, py0, px1, py1) = found[name]
        assert (px1 - px0) / (py1 - py0) == pytest.approx(aspect, rel=0.005), name
        cell_x = i * cell_w
        assert cell_x - 0.01 <= x and x + w <= cell_x + cell_w + 0.01 and -0.01 <= y and y + h <= cell_h + 0.01
        assert w == pytest.approx(cell_w, abs=0.01) or h == pytest.approx(cell_h, abs=0.01), name
    a, b, c, d = (found[n] for n in "abcd")
    assert a[0] == pytest.approx(0, abs=0.01) and a[3] == pytest.approx(cell_h, abs=0.01) and a[2] < cell_w
    assert b[2] == pytest.approx(cell_w, abs=0.01) and b[1] + b[3] == pytest.approx(cell_h, abs=0.01) and b[1] > 1
    assert c[0] - 2 * cell_w == pytest.approx(3 * cell_w - (c[0] + c[2]), abs=0.01)  # centred across
    assert d[0] + d[2] == pytest.approx(4 * cell_w, abs=0.01)


def test_a_plot_area_matplotlib_keeps_at_another_aspect_is_a_one_line_error(tmp_path):
    """An ``imshow`` keeps its pixels square: a 2:1 plot area cannot be drawn; the message names the key."""
    root = project(tmp_path, """
        [grid]
        mosaic = "A"
        [panels.a]
        render = "p:square_image"
        cell = "A"
        aspect = 2.0
        """)
    with pytest.raises(PanelError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(err.value)
    assert "\n" not in message and "panels.a.aspect" in message and 'aspect_of = "box"' in message


def test_a_locked_plot_area_in_an_align_group_is_refused(tmp_path):
    root = project(tmp_path, """
        [grid]
        mosaic = "AB"
        [panels.a]
        render = "p:plain"
        cell = "A"
        aspect = 1.0
        [panels.b]
        render = "p:plain"
        cell = "B"
        [[align]]
        panels = ["a", "b"]
        """)
    with pytest.raises(LayoutError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(err.value)
    assert "\n" not in message and "panels.a.aspect_of" in message and "[[align]]" in message


def test_changing_the_aspect_draws_the_panel_again(tmp_path):
    """The box composer asks for is the cell either way; the aspect is in the panel's cache key."""
    root = project(tmp_path, PLOTS.replace("ABCD", "AB").split("[panels.c]")[0], head='width = "100mm"\nheight = "40mm"\n')
    first = build("fig", root=root, formats=("svg",))
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace("aspect = 2.0", "aspect = 1.5"))
    second = build("fig", root=root, formats=("svg",))
    assert set(first.rendered) == {"a", "b"} and second.rendered == ("b",)


def test_a_locked_panel_alone_has_its_drawn_size(tmp_path):
    """``--panels``: the plot-locked panel's own file is the box it was drawn at (its figure patch), not
    its cell; b's (aspect 2, 20 mm tall) title and axis labels reach past that box on the canvas, so its file
    holds them too (:func:`composer.stages.panels.drawn_extents`): no smaller than its box."""
    root = project(tmp_path, PLOTS.replace("ABCD", "AB").split("[panels.c]")[0], head='width = "100mm"\nheight = "40mm"\n')
    build("fig", root=root, formats=("svg",), cache=False, panels=True)
    canvas = built_panels(root)
    sizes = {}
    for name in "ab":
        alone = etree.fromstring((root / "build" / "fig" / f"{name}.svg").read_bytes())
        sizes[name] = tuple(float(v) for v in alone.get("viewBox").split()[2:])
    assert sizes["a"] == pytest.approx(canvas["a"][2:4], abs=0.01)
    assert all(s >= c - 0.01 for s, c in zip(sizes["b"], canvas["b"][2:4]))
    assert canvas["a"][2] < 50 * MM - 1  # locked: narrower than its cell


# ─── aspect = "auto": a file's own aspect (issue #26) ────────────────────────

AUTO = """
[grid]
mosaic = "ABC"
margin = ["5mm", "0mm", "0mm", "0mm"]
[panels.a]
image = "../pics/wide.png"
cell = "A"
aspect = "auto"
align = "top"
[panels.b]
svg = "../pics/tall.svg"
cell = "B"
aspect = "auto"
align = "right"
[panels.c]
pdf = "../pics/page.pdf"
cell = "C"
aspect = "auto"
[[text]]
text = "x"
at = "b#dot"
anchor = "center"
[[text]]
text = "y"
at = "c.sw"
anchor = "ne"
"""

#: 50 x 50 mm cells from y = 5 mm. a: a 40 x 20 px PNG (2:1), flush top: 50 x 25 mm; b: an SVG of viewBox
#: 0 0 10 30 (1:3), flush right: 50/3 x 50 mm; c: a 200 x 100 pt PDF page (2:1), centred: 50 x 25 mm, 12.5 mm
#: down. (x, y, width, height) in mm, worked out by hand.
AUTO_BOXES = {"a": (0, 5, 50, 25), "b": (100 - 50 / 3, 5, 50 / 3, 50), "c": (100, 17.5, 50, 25)}


@pytest.fixture(scope="module")
def auto_svg(tmp_path_factory):
    """One build of the three file panels with ``aspect = "auto"``: the composed SVG's root."""
    from pdf_samples import hand_pdf
    from PIL import Image

    root = layout_project(tmp_path_factory.mktemp("auto"), AUTO, head='width = "150mm"\nheight = "55mm"\n'
                                                                       'labels = "a"\nraster_ppi = 10\n')
    pics = root / "pics"
    pics.mkdir()
    Image.new("RGB", (40, 20), (200, 30, 30)).save(pics / "wide.png")
    (pics / "tall.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 30"><rect width="10" '
                                   'height="30" fill="#3c3"/><circle id="dot" cx="5" cy="15" r="1"/></svg>')
    (pics / "page.pdf").write_bytes(hand_pdf([b"0 0 1 rg 0 0 200 100 re f"]))
    result = build("fig", root=root, formats=("svg",), cache=False)
    return etree.fromstring(result.outputs["svg"].read_bytes())


def _by_id(svg, element_id: str):
    return next(el for el in svg.iter() if el.get("id") == element_id)


def test_an_auto_aspect_box_is_the_picture_drawn(auto_svg):
    """The image is drawn at its box (its <image>), the SVG's and the PDF's viewBoxes scaled onto theirs:
    each the largest box of the file's own aspect in its cell, placed by align, to 0.01 pt."""
    x, y, w, h = (v * MM for v in AUTO_BOXES["a"])
    image = _by_id(auto_svg, "panel-a").find(f".//{SVG}image")
    assert [float(image.get(k)) for k in ("x", "y", "width", "height")] == pytest.approx([x, y, w, h], abs=0.01)
    for name, view_w in (("b", 10), ("c", 200)):
        x, y, w, h = (v * MM for v in AUTO_BOXES[name])
        tx, ty, scale = (float(v) for v in re.match(r"translate\(([-\d.]+) ([-\d.]+)\) scale\(([-\d.]+)\)",
                                                     _by_id(auto_svg, f"panel-{name}").get("transform")).groups())
        assert (tx, ty, scale * view_w) == pytest.approx((x, y, w), abs=0.01), name


def test_an_auto_aspect_panels_label_sits_on_its_picture(auto_svg):
    """Each label's glyphs start at its picture's left edge (within the glyph's side bearing, 1.5 pt) and end
    above its top (within 4 pt): b's picture is 33.3 mm right of its cell's left, c's 12.5 mm below its top."""
    for name, (x_mm, y_mm, _, _) in AUTO_BOXES.items():
        x0, _, _, y1 = path_extent(_by_id(auto_svg, f"label-{name}").get("d"))
        assert 0 <= x0 - x_mm * MM <= 1.5, name
        assert 0 <= y_mm * MM - y1 <= 4.0, name


def test_an_auto_aspect_panels_anchors_are_on_its_picture(auto_svg):
    """``b#dot`` (the circle at (5, 15) of the 10 x 30 viewBox) is the picture's middle, where text x is centred;
    ``c.sw`` is the PDF picture's bottom-left corner (100 mm, 42.5 mm), where text y's box has its top-right."""
    bx, by, bw, bh = (v * MM for v in AUTO_BOXES["b"])
    x0, y0, x1, y1 = path_extent(_by_id(auto_svg, "text-0").get("d"))
    assert ((x0 + x1) / 2, (y0 + y1) / 2) == pytest.approx((bx + bw / 2, by + bh / 2), abs=0.5)
    x0, y0, x1, y1 = path_extent(_by_id(auto_svg, "text-1").get("d"))
    assert 0 <= 100 * MM - x1 <= 1.0 and 0 <= y0 - 42.5 * MM <= 2.5


@pytest.mark.parametrize(("extra", "words"), [
    ('render = "p:plain"\naspect = "auto"', "a render panel has none"),
    ('svg = "../box.svg"\naspect = "auto"\naspect_of = "plot"', "file's own aspect"),
])
def test_an_auto_aspect_that_cannot_hold_is_a_one_line_error(tmp_path, extra, words):
    root = project(tmp_path, '[grid]\nmosaic = "A"\n[panels.a]\ncell = "A"\n' + extra + "\n")
    (root / "box.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5"/>')
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml", name="fig")
    message = str(err.value)
    assert "\n" not in message and "panels.a.aspect" in message and words in message
