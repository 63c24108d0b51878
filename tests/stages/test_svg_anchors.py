"""Arrows to elements inside an imported SVG panel (``to = "schem#sensor.w"``), issue #13 item 7.

The expected points are worked out by hand from the SVG specification's viewBox mapping (SVG 1.1,
7.8): the file's viewBox is 0 0 200 100 and ``sensor`` is the rect x 120..160, y 30..50 moved by
translate(10, 5), so x 130..170, y 35..55 in user units. The panel's box is 100 x 100 pt at
(20, 30) pt, not 2:1, so the alignment matters:

- ``xMidYMid meet`` (default): scale min(100/200, 100/100) = 0.5, content 100 x 50 pt centred
  vertically at y = 30 + (100 - 50) / 2 = 55: the rect is x 85..105, y 72.5..82.5 pt;
- ``none``: scale 0.5 across, 1 down: x 85..105, y 65..85 pt;
- ``xMaxYMax slice`` (covers the box, cropped at its edges as a viewer crops the file): scale
  max(0.5, 1) = 1, content 200 x 100 pt at x = 20 + (100 - 200) = -80, y = 30: x 50..90, y 65..85 pt;
- ``xMaxYMax meet``: content at y = 30 + 50 = 80: x 85..105, y 97.5..107.5 pt.
"""

from __future__ import annotations

import re

import pytest
from lxml import etree
from PIL import Image

from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.pipeline import build
from conftest import layout_project, read_png

SVG_NS = "{http://www.w3.org/2000/svg}"

PANEL = """
[panels.schem]
svg = "../schem.svg"
at = ["20pt", "30pt"]
size = ["100pt", "100pt"]
[panels.plain]
svg = "../plain.svg"
at = ["150pt", "10pt"]
size = ["40pt", "20pt"]
"""


def project(tmp_path, body: str, aspect: str | None = None):
    root = layout_project(tmp_path, PANEL + body, head='width = "200pt"\nheight = "200pt"\n')
    par = f' preserveAspectRatio="{aspect}"' if aspect else ""
    (root / "schem.svg").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"{par}>'
        '<rect width="200" height="100" fill="#eeeeee"/>'
        '<rect id="sensor" x="120" y="30" width="40" height="20" transform="translate(10,5)" '
        'stroke="#000000" stroke-width="6"/>'
        '<circle id="pump" cx="40" cy="50" r="10"/><defs><rect id="unused" width="1" height="1"/></defs></svg>')
    (root / "plain.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2">'
                                    '<rect width="4" height="2"/></svg>')
    return root


def arrow_ends(root) -> list[tuple[float, float]]:
    """The last point of each arrow's line in the built SVG (pt)."""
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    ends = []
    while (group := svg.find(f".//*[@id='arrow-{len(ends)}']")) is not None:
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", group.find(f"{SVG_NS}path").get("d"))]
        ends.append((numbers[-2], numbers[-1]))
    return ends


def arrows(*targets: str) -> str:
    return "".join(f'[[arrow]]\nfrom = ["5pt", "190pt"]\nto = "{t}"\nhead = "none"\ngap = "0pt"\n' for t in targets)


@pytest.mark.parametrize("aspect, left_pt, top_pt, width_pt, height_pt", [
    (None, 85.0, 72.5, 20.0, 10.0),
    ("xMidYMid meet", 85.0, 72.5, 20.0, 10.0),
    ("none", 85.0, 65.0, 20.0, 20.0),
    ("xMaxYMax slice", 50.0, 65.0, 40.0, 20.0),
    ("xMaxYMax meet", 85.0, 97.5, 20.0, 10.0),
])
def test_an_arrow_ends_on_the_svg_elements_edge(tmp_path, aspect, left_pt, top_pt, width_pt, height_pt):
    root = project(tmp_path, arrows("schem#sensor.w", "schem#sensor.e", "schem#sensor.ne", "schem#sensor",
                                    "schem#sensor.e@0.25", "schem#sensor.s@0.75"), aspect)
    x0, x1, y0, h = left_pt, left_pt + width_pt, top_pt, height_pt  # the stroke (6 user units) is not in the box
    expected = [(x0, y0 + h / 2), (x1, y0 + h / 2), (x1, y0), ((x0 + x1) / 2, y0 + h / 2),
                (x1, y0 + h / 4), (x0 + 0.75 * (x1 - x0), y0 + h)]
    ends = arrow_ends(root)
    assert len(ends) == len(expected)
    for got, want in zip(ends, expected):
        assert got == pytest.approx(want, abs=0.1)


def test_a_via_point_uses_svg_elements(tmp_path):
    # the pump circle: centre (40, 50), r 10 user units -> canvas x 35..45, y 75..85 (meet, scale 0.5)
    root = project(tmp_path, '[[arrow]]\nfrom = ["5pt", "190pt"]\nvia = ["schem#pump.s"]\nto = "schem#pump.n"\n'
                             'route = "straight"\nhead = "none"\ngap = "0pt"\n')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    d = svg.find(".//*[@id='arrow-0']").find(f"{SVG_NS}path").get("d")
    points = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    assert points[2:4] == pytest.approx([40.0, 85.0], abs=0.1)
    assert points[-2:] == pytest.approx([40.0, 75.0], abs=0.1)


def test_an_unknown_id_lists_the_files_ids(tmp_path):
    root = project(tmp_path, arrows("schem#sensr.w"))
    with pytest.raises(LayoutError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(err.value)
    assert "arrow[0].to" in message and "'sensr'" in message and "did you mean 'sensor'?" in message
    assert "(its ids are pump, sensor); did you mean 'sensor'?" in message and "unused" not in message and "\n" not in message


def test_an_id_wrong_only_in_case_is_suggested_as_written():
    """``cella`` for ``cellA``: difflib finds ``cellB`` as close letter for letter (and returned it, the
    larger string of a tie); the id equal but for case is the one meant."""
    from composer.errors import closest, did_you_mean

    assert closest("cella", ["cellA", "cellB"]) == "cellA" and closest("cella", ["cellB", "cellA"]) == "cellA"
    assert did_you_mean("east", ["n", "e"], {"east": "e"}) == "; did you mean 'e'?"
    assert did_you_mean("zzz", ["cellA"]) == ""


def test_hash_on_a_panel_that_is_not_svg_or_missing_is_refused(tmp_path):
    root = project(tmp_path, arrows("nothere#sensor.w"))
    with pytest.raises(LayoutError, match=r"arrow\[0\]\.to.*no panel named 'nothere'.*valid: schem, plain"):
        load_layout(root / "layouts" / "fig.toml")
    root = project(tmp_path, '[panels.pic]\nimage = "../pic.png"\nat = ["150pt", "150pt"]\nsize = ["10pt", "10pt"]\n'
                   + arrows("pic#x.w"))
    Image.new("RGB", (4, 4)).save(root / "pic.png")
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml")
    assert "arrow[0].to" in str(err.value) and "'pic' is an image panel, not an svg one" in str(err.value)


def test_a_panel_placed_at_an_svg_element_is_refused(tmp_path):
    root = project(tmp_path, '[panels.late]\nsvg = "../plain.svg"\nat = "schem#sensor.e"\nsize = ["4pt", "2pt"]\n')
    with pytest.raises(LayoutError, match=r"known only once its file is read; panels and grids cannot be placed"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_a_line_shape_runs_between_svg_element_points(tmp_path):
    # meet: sensor x 85..105, y 72.5..82.5 pt; pump x 35..45, y 75..85 pt (see the module docstring)
    root = project(tmp_path, '[[shape]]\nkind = "line"\npoints = ["schem#pump.e", "schem#sensor.w"]\n')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    d = svg.find(".//*[@id='shape-0']").get("d") or svg.find(".//*[@id='shape-0']//*[@d]").get("d")
    points = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    assert points == pytest.approx([45.0, 80.0, 85.0, 77.5], abs=0.1)


def test_a_long_list_of_ids_is_cut_short(tmp_path):
    root = project(tmp_path, arrows("plain#nothing"))
    (root / "plain.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2">'
                                    + "".join(f'<rect id="r{i:02d}" width="1" height="1"/>' for i in range(20))
                                    + "</svg>")
    with pytest.raises(LayoutError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    # sorted, the first 12 shown: r00 ... r11, then the count of the rest
    assert "its ids are r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11 and 8 more)" in str(err.value)


def test_an_id_without_a_box_says_why(tmp_path):
    root = project(tmp_path, arrows("schem#unused.w"))
    with pytest.raises(LayoutError, match=r"arrow\[0\]\.to.*'unused' in \.\./schem\.svg is a <rect>, which has no "
                                          r"measured box \(texts, what <defs> holds and a <use> of nothing"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_a_use_is_the_box_of_what_it_draws(tmp_path):
    """Worked by hand: ``parts.svg`` (viewBox 0 0 200 100) fills its 100 x 50 pt box at (20, 140) pt exactly,
    scale 0.5. ``u1`` draws the 10 x 10 rect ``dot`` at (20, 30): x 30..35, y 155..160 pt, west midpoint
    (30, 157.5). ``u2`` draws a circle of radius 5 in a symbol of viewBox 0 0 10 10 into 40 x 20 at (100, 20),
    ``xMidYMid meet``: scale 2, 20 x 20 centred 10 in, so user x 110..130, y 20..40: x 75..85, y 150..160 pt,
    east midpoint (85, 155). ``grp`` holds only a use of ``dot`` at (150, 60): x 95..100, y 170..175 pt, north
    midpoint (97.5, 170)."""
    root = project(tmp_path, '[panels.parts]\nsvg = "../parts.svg"\nat = ["20pt", "140pt"]\nsize = ["100pt", "50pt"]\n'
                   + arrows("parts#u1.w", "parts#u2.e", "parts#grp.n"))
    (root / "parts.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100">'
        '<defs><rect id="dot" width="10" height="10"/></defs>'
        '<symbol id="sym" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5"/></symbol>'
        '<use id="u1" xlink:href="#dot" x="20" y="30"/>'
        '<use id="u2" href="#sym" x="100" y="20" width="40" height="20"/>'
        '<g id="grp"><use href="#dot" x="150" y="60"/></g></svg>')
    assert arrow_ends(root) == [pytest.approx(p, abs=0.1) for p in [(30.0, 157.5), (85.0, 155.0), (97.5, 170.0)]]


DEEP = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">'
        '<svg x="150" y="0" width="50" height="25" viewBox="0 0 10 10" preserveAspectRatio="xMaxYMid meet">'
        '<rect id="sensor" width="4" height="4" fill="#ff0000"/>'
        '<rect id="inner" x="50%" y="50%" width="50%" height="50%"/></svg>'
        '<rect id="pct" x="50%" y="50%" width="10%" height="10%" fill="#0000ff"/>'
        '<circle id="dot" cx="10%" cy="20%" r="10%"/>'
        '<path id="dome" d="M 10 95 A 20 20 0 0 1 50 95" fill="#008000"/>'
        '<path id="bump" d="M 100 90 C 100 70 140 70 140 90 Z"/></svg>')


def test_nested_viewports_percentages_and_curves_are_measured_as_drawn(tmp_path):
    """Worked by hand: ``deep.svg`` (viewBox 0 0 200 100) fills its 100 x 50 pt box at (20, 140) pt, scale 0.5.

    - the nested ``<svg>`` maps its viewBox 0 0 10 10 into 50 x 25 at (150, 0), ``xMaxYMid meet``: scale
      min(5, 2.5) = 2.5, content 25 wide pushed right by 50 - 25 = 25: ``sensor`` (0..4) is user x 175..185,
      y 0..10, canvas x 107.5..112.5, y 140..145: west midpoint (107.5, 142.5);
    - ``inner`` at 50 % of the nested viewBox (10 x 10): x 5..10, y 5..10 there, user x 187.5..200, y
      12.5..25, canvas x 113.75..120, y 146.25..152.5: south-east corner (120, 152.5);
    - ``pct`` at 50 % / 10 % of the root viewBox: x 100..120, y 50..60, canvas x 70..80, y 165..170: south
      midpoint (75, 170);
    - ``dot``: centre (10 % of 200, 20 % of 100) = (20, 20), r = 10 % of sqrt((200^2 + 100^2) / 2) = 15.8114
      (SVG 2, 8.9): canvas centre (30, 150), r 7.9057: east point (37.9057, 150);
    - ``dome``: the upper half of the circle centre (30, 95), r 20 (sweep 1 from (10, 95) to (50, 95) runs
      through negative y): top y 75, canvas (35, 177.5) for north;
    - ``bump``: the cubic's y at t = 1/2 is (90 + 3 * 70 + 3 * 70 + 90) / 8 = 75: x 100..140, canvas north
      (80, 177.5).
    """
    root = project(tmp_path, '[panels.deep]\nsvg = "../deep.svg"\nat = ["20pt", "140pt"]\nsize = ["100pt", "50pt"]\n'
                   + arrows("deep#sensor.w", "deep#inner.se", "deep#pct.s", "deep#dot.e", "deep#dome.n",
                            "deep#bump.n"))
    (root / "deep.svg").write_text(DEEP)
    expected = [(107.5, 142.5), (120.0, 152.5), (75.0, 170.0), (37.9057, 150.0), (35.0, 177.5), (80.0, 177.5)]
    assert arrow_ends(root) == [pytest.approx(p, abs=0.1) for p in expected]


def test_a_rotated_arc_and_ellipse_have_their_exact_extent():
    """A quarter turn maps (x, y) to (-y, x): the dome (x 10..50, y 75..95) becomes x -95..-75, y 10..50; an
    ellipse rx 10, ry 5 at (0, 0) under rotate(90) reaches 5 either side across and 10 up and down (a box of
    flattened points or of turned corners would miss the arc's bulge or be too large)."""
    from composer.svg.elements import element_boxes

    doc = etree.fromstring('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g transform="rotate(90)">'
                           '<path id="dome" d="M 10 95 A 20 20 0 0 1 50 95"/><ellipse id="e" rx="10" ry="5"/></g>'
                           '</svg>')
    boxes = element_boxes(doc)
    assert boxes["dome"] == pytest.approx((-95.0, 10.0, -75.0, 50.0), abs=1e-9)
    assert boxes["e"] == pytest.approx((-5.0, -10.0, 5.0, 10.0), abs=1e-9)


CSS_MOVED = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">'
             '<rect id="box" x="10" y="30" width="40" height="40" fill="#ff0000" '
             'style="transform: translate(120px, 0px); stroke: none"/>'
             '<rect id="bad" x="60" y="0" width="20" height="20" fill="#0000ff" transform="translate(0 5)" '
             'style="transform: translate(50%, 0)"/></svg>')


def test_a_css_transform_is_drawn_and_measured_the_same_in_every_output(tmp_path):
    """``box`` (user x 10..50, y 30..70) moved by ``transform: translate(120px, 0)``: user x 130..170, canvas
    (panel at (20, 140) pt, scale 0.5) x 85..105, y 155..175: its south midpoint is (95, 175). Browsers draw
    the CSS property; the composed SVG must say it as an attribute (what the PNG engine reads), so the PNG's
    red is there and not at the unmoved place (canvas x 25..45). ``bad`` (a percentage: relative to the
    element's box, no SVG 1.1 equivalent) loses its CSS transform, with one warning, and keeps its attribute's
    translate(0 5): user y 5..25, canvas y 142.5..152.5, north midpoint (55, 142.5)."""
    root = project(tmp_path, '[panels.moved]\nsvg = "../moved.svg"\nat = ["20pt", "140pt"]\nsize = ["100pt", "50pt"]\n'
                   + arrows("moved#box.s", "moved#bad.n"))
    (root / "moved.svg").write_text(CSS_MOVED)
    with pytest.warns(UserWarning) as caught:
        result = build("fig", root=root, formats=("svg", "png"), dpi=144, cache=False)
    messages = [str(w.message) for w in caught if "CSS transform" in str(w.message)]
    assert len(messages) == 1 and "moved.svg" in messages[0] and "<rect id='bad'>" in messages[0]
    assert "\n" not in messages[0] and "'box'" not in messages[0]
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    box = svg.find(".//*[@fill='#ff0000']")
    bad = svg.find(".//*[@fill='#0000ff']")
    assert box.get("transform") == "translate(120 0)" and "transform" not in (box.get("style") or "")
    assert bad.get("transform") == "translate(0 5)" and "transform" not in (bad.get("style") or "")
    with pytest.warns(UserWarning, match="CSS transform"):
        ends = arrow_ends(root)
    assert ends == [pytest.approx(p, abs=0.1) for p in [(95.0, 175.0), (55.0, 142.5)]]
    png = read_png(result.outputs["png"])[..., :3].astype(int)
    px = 2.0  # 144 dpi: 2 px per pt
    assert list(png[int(165 * px), int(95 * px)]) == [255, 0, 0]  # the moved box's centre
    assert list(png[int(165 * px), int(35 * px)]) == [255, 255, 255]  # where it stood unmoved
    assert list(png[int(147.5 * px), int(55 * px)]) == [0, 0, 255]  # bad, by its attribute


def test_element_boxes_read_a_css_transform_as_the_import_writes_it():
    """The file as written (element_boxes reads it before import): ``box`` moved by its CSS translate(120px, 0),
    ``bad`` by its attribute only (its CSS transform is dropped at import)."""
    from composer.svg.elements import element_boxes

    doc = etree.fromstring(CSS_MOVED)
    boxes = element_boxes(doc)
    assert boxes["box"] == pytest.approx((130.0, 30.0, 170.0, 70.0))
    assert boxes["bad"] == pytest.approx((60.0, 5.0, 80.0, 25.0))


def test_a_css_transform_from_a_style_rule_is_drawn_and_measured_the_same(tmp_path):
    """``.moved {transform: translate(120px, 0)}`` on ``box`` (user x 10..50, y 30..70): canvas x 85..105,
    y 155..175 (as in the test above), south midpoint (95, 175); ``kept`` has its own inline CSS transform,
    which beats the rule: translate(0, 10px) moves it (user x 60..80, y 0..20) to canvas y 145..155, x
    50..60: north midpoint (55, 145). The rule's transform leaves the stylesheet (browsers would apply it on
    top of nothing else, the engine not at all), its fill stays."""
    root = project(tmp_path, '[panels.moved]\nsvg = "../moved.svg"\nat = ["20pt", "140pt"]\nsize = ["100pt", "50pt"]\n'
                   + arrows("moved#box.s", "moved#kept.n"))
    (root / "moved.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">'
        '<style>.moved { transform: translate(120px, 0); fill: #ff0000 } rect { stroke: none }</style>'
        '<rect id="box" class="moved" x="10" y="30" width="40" height="40"/>'
        '<rect id="kept" class="moved" x="60" y="0" width="20" height="20" style="transform: translate(0, 10px)"/>'
        '</svg>')
    result = build("fig", root=root, formats=("svg", "png"), dpi=144, cache=False)
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    sheet = "".join(s.text or "" for s in svg.iter(f"{SVG_NS}style"))
    assert "transform" not in sheet and "#ff0000" in sheet
    assert [el.get("transform") for el in svg.iter(f"{SVG_NS}rect") if el.get("class") == "moved"] == [
        "translate(120 0)", "translate(0 10)"]
    assert arrow_ends(root) == [pytest.approx(p, abs=0.1) for p in [(95.0, 175.0), (55.0, 145.0)]]
    png = read_png(result.outputs["png"])[..., :3].astype(int)
    assert list(png[int(165 * 2), int(95 * 2)]) == [255, 0, 0]  # 144 dpi: 2 px per pt
    assert list(png[int(165 * 2), int(35 * 2)]) == [255, 255, 255]
    assert list(png[int(150 * 2), int(55 * 2)]) == [255, 0, 0]
    assert list(png[int(143 * 2), int(55 * 2)]) == [255, 255, 255]
