"""Connector labels beside their line (issue #13 item 10), measured on built SVGs.

Each test layout draws connectors between absolute points (pt) written here, so every segment, arc
and head is known by hand: an arc from A to B bent by ``bend`` is the quadratic Bezier whose control
point sits on the chord's perpendicular bisector at ``tan(bend) * chord / 2``, to the left of travel
(TikZ's ``bend left``); a head with the default ``gap`` (1 pt), ``head_length`` (4 pt) and
``head_width`` (3.2 pt) is the triangle with its tip 1 pt before the end, its base 4 pt behind the
tip, 1.6 pt either side of the line. A label's box is read from its glyph outline (the
``arrow-N-label`` path: every on-curve point, curves cut into short chords), so the clearance
measured is the ink's. The clearance promised is 1 pt from the stroke's edge
(``composer.stages.draw.LABEL_CLEARANCE_PT``); the side is the sign of the cross product of the
direction of travel with the label's centre seen from the point at ``label_pos`` (y down: left of
travel is negative).
"""

from __future__ import annotations

import math
import warnings

import pytest
from lxml import etree

from composer.lint.rules import EDGE_TOLERANCE_PT
from composer.pipeline import build
from composer.svg.measure import path_points
from conftest import layout_project

SVG = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4
#: the least clear space promised between a label's ink and its line's stroke (pt)
CLEARANCE_PT = 1.0
#: coordinates are written with 3 decimals: what rounding may take off a measured distance (pt)
ROUNDING_PT = 0.003
SIDES = ("above", "below", "left", "right")

Point = tuple[float, float]


def arrow_toml(start: Point, end: Point, side: str, extra: str = "", label: str = "Wg") -> str:
    return (f'\n[[arrow]]\nfrom = ["{start[0]}pt", "{start[1]}pt"]\nto = ["{end[0]}pt", "{end[1]}pt"]\n'
            f'label = "{label}"\nlabel_side = "{side}"\n{extra}\n')


def built(tmp_path, body: str, size: str = 'width = "300pt"\nheight = "300pt"\n') -> etree._Element:
    root = layout_project(tmp_path, body, head=size)
    out = build("fig", root=root, formats=("svg",), cache=False).outputs["svg"]
    return etree.fromstring(out.read_bytes())


def ink_box(svg: etree._Element, element_id: str) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) pt of the ink of the path (or group of paths) ``element_id``."""
    el = svg.find(f".//*[@id='{element_id}']")
    assert el is not None and el.get("transform") is None
    points = [p for path in el.iter(f"{SVG}path") for sub in path_points(path.get("d")) for p in sub]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def _point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def rect_segment_distance(rect, a: Point, b: Point) -> float:
    """Distance between an axis-aligned rectangle and segment ab: 0 when the segment enters it
    (Liang-Barsky clipping of the segment to the rectangle), else the least of the endpoint-to-box
    and corner-to-segment distances."""
    x0, y0, x1, y1 = rect
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                break
        else:
            t = q / p
            if p < 0:
                t0 = max(t0, t)
            else:
                t1 = min(t1, t)
    else:
        if t0 <= t1:
            return 0.0
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    ends = [math.hypot(max(x0 - px, 0, px - x1), max(y0 - py, 0, py - y1)) for px, py in (a, b)]
    return min(ends + [_point_segment(c, a, b) for c in corners])


def clearance(rect, polyline: list[Point], width_pt: float = 0.75) -> float:
    """The clear space between a rectangle and a stroked polyline ``width_pt`` wide."""
    return min(rect_segment_distance(rect, p, q) for p, q in zip(polyline, polyline[1:])) - width_pt / 2


def cross(direction: Point, v: Point) -> float:
    return direction[0] * v[1] - direction[1] * v[0]


def centre(rect) -> Point:
    return (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2


def on_asked_side(side: str, direction: Point, at: Point, rect) -> bool:
    """Is the label's centre on ``side`` of a segment running along ``direction`` through ``at``?
    above/below: up/down the page (on a vertical segment: left/right); left/right: of travel."""
    cx, cy = centre(rect)
    v = (cx - at[0], cy - at[1])
    if side in ("left", "right"):
        return (cross(direction, v) < 0) == (side == "left")
    normal_up = (direction[1], -direction[0]) if direction[0] > 0 or direction[0] == 0 and direction[1] < 0 \
        else (-direction[1], direction[0])  # the normal pointing up the page (left on a vertical one)
    along_up = normal_up[0] * v[0] + normal_up[1] * v[1]
    return (along_up > 0) == (side == "above")


def head_triangle(start: Point, end: Point) -> list[Point]:
    """The default head at ``end`` of a straight arrow (gap 1 pt, length 4 pt, half width 1.6 pt)."""
    length = math.dist(start, end)
    ux, uy = (end[0] - start[0]) / length, (end[1] - start[1]) / length
    tip = (end[0] - ux * 1.0, end[1] - uy * 1.0)
    base = (tip[0] - ux * 4.0, tip[1] - uy * 4.0)
    return [tip, (base[0] - uy * 1.6, base[1] + ux * 1.6), (base[0] + uy * 1.6, base[1] - ux * 1.6), tip]


# ─── straight connectors ──────────────────────────────────────────────────

ANGLES = (0, 30, 90, 135)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """One 80 pt arrow per angle (counter-clockwise on the page, from +x) and side, centred on a grid point."""
    cases, body = [], ""
    for i, angle in enumerate(ANGLES):
        for j, side in enumerate(SIDES):
            cx, cy = 60 + 120 * j, 60 + 110 * i
            dx, dy = 40 * math.cos(math.radians(angle)), -40 * math.sin(math.radians(angle))
            start, end = (round(cx - dx, 3), round(cy - dy, 3)), (round(cx + dx, 3), round(cy + dy, 3))
            body += arrow_toml(start, end, side)
            cases.append((angle, side, start, end))
    svg = built(tmp_path_factory.mktemp("straight"), body, 'width = "500pt"\nheight = "470pt"\n')
    return svg, cases


@pytest.mark.parametrize("angle", ANGLES)
@pytest.mark.parametrize("side", SIDES)
def test_a_straight_arrows_label_is_clear_of_its_line_on_the_side_asked(straight, angle, side):
    svg, cases = straight
    i = next(k for k, c in enumerate(cases) if c[:2] == (angle, side))
    _, _, start, end = cases[i]
    rect = ink_box(svg, f"arrow-{i}-label")
    gap = clearance(rect, [start, end])
    assert gap >= CLEARANCE_PT - ROUNDING_PT, (angle, side, gap)
    assert gap <= CLEARANCE_PT + 2.5, f"the label sits beside its line, not {gap:.2f} pt away"
    length = math.dist(start, end)
    direction = ((end[0] - start[0]) / length, (end[1] - start[1]) / length)
    mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
    assert on_asked_side(side, direction, mid, rect), (angle, side, rect)


def test_slanted_labels_sit_on_the_segments_normal(straight):
    """On a 30-degree line the label's centre lies on the normal through the midpoint (within the
    ink's asymmetry in its block, under 1 pt here), not beside a horizontal edge of it."""
    svg, cases = straight
    for i, (angle, side, start, end) in enumerate(cases):
        if angle not in (30, 135):
            continue
        length = math.dist(start, end)
        u = ((end[0] - start[0]) / length, (end[1] - start[1]) / length)
        cx, cy = centre(ink_box(svg, f"arrow-{i}-label"))
        mid = ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)
        assert abs((cx - mid[0]) * u[0] + (cy - mid[1]) * u[1]) < 1.0, (angle, side)


def test_above_a_horizontal_line_the_label_bottom_is_1_5_pt_over_its_centre(tmp_path):
    """The rule for horizontal segments is unchanged: the block's bottom 1.5 pt above the line's
    centre, centred on the point. "W" and "H" have no descender and sit on the baseline; the block's
    descent is the font's 0.24 em (DejaVu Sans, 7 pt default size: 1.68 pt), so the ink's bottom is
    1.5 + 1.68 pt above the line (within the glyphs' overshoot, 0.05 pt)."""
    svg = built(tmp_path, arrow_toml((20, 100), (220, 100), "above", label="WH"))
    x0, _, x1, y1 = ink_box(svg, "arrow-0-label")
    assert y1 == pytest.approx(100 - 1.5 - 0.24 * 7, abs=0.05)
    assert (x0 + x1) / 2 == pytest.approx(120, abs=0.5)


def test_a_thick_lines_label_keeps_the_clearance_from_its_stroke(tmp_path):
    """A 3 pt line at 30 degrees: the label is 1.5 + 1 pt from its centre, 1 pt from its edge."""
    start, end = (40.0, 160.0), (40 + 160 * math.cos(math.pi / 6), 160 - 80.0)
    start, end = (40.0, 160.0), (round(end[0], 3), end[1])
    for side in SIDES:
        svg = built(tmp_path / side, arrow_toml(start, end, side, 'width = "3pt"'))
        gap = clearance(ink_box(svg, "arrow-0-label"), [start, end], 3.0)
        assert CLEARANCE_PT - ROUNDING_PT <= gap <= CLEARANCE_PT + 2.5, (side, gap)


def test_a_label_near_the_head_clears_the_head(tmp_path):
    """At label_pos 0.97 of a 100 pt horizontal arrow the label's point is 3 pt before the end, under
    the 3.2 pt wide head: the label moves out of it, and stays on its side."""
    start, end = (50.0, 100.0), (150.0, 100.0)
    for side in ("above", "below"):
        svg = built(tmp_path / side, arrow_toml(start, end, side, "label_pos = 0.97"))
        rect = ink_box(svg, "arrow-0-label")
        assert clearance(rect, [start, end]) >= CLEARANCE_PT - ROUNDING_PT
        assert clearance(rect, head_triangle(start, end), 0.0) >= CLEARANCE_PT - ROUNDING_PT, side
        assert on_asked_side(side, (1.0, 0.0), (147.0, 100.0), rect)


# ─── elbows ───────────────────────────────────────────────────────────────

@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("pos", [0.5, 0.68])
def test_an_elbows_label_is_clear_of_both_legs(tmp_path, side, pos):
    """``-|`` from (40, 60) to (140, 100): 100 pt right to the corner (140, 60), then 40 pt down. At
    0.5 the point is 70 pt along the first leg; at 0.68, 95.2 pt along it, 4.8 pt before the corner,
    where a label below (or right of travel) would lie across the second leg: it moves along the
    first leg, and stays on its side of it."""
    start, corner, end = (40.0, 60.0), (140.0, 60.0), (140.0, 100.0)
    svg = built(tmp_path, arrow_toml(start, end, side, f'route = "-|"\nlabel_pos = {pos}', label="Wg long"))
    rect = ink_box(svg, "arrow-0-label")
    assert clearance(rect, [start, corner, end]) >= CLEARANCE_PT - ROUNDING_PT, (side, pos)
    assert on_asked_side(side, (1.0, 0.0), (40 + 140 * pos, 60.0), rect)


@pytest.mark.parametrize("side", SIDES)
def test_a_vertical_legs_label_is_beside_it(tmp_path, side):
    """``|-`` from (60, 40) down 120 pt to (60, 160), then right to (160, 160); label_pos 0.25 is 55 pt
    down the vertical leg. Above on a vertical segment is to its left, below to its right;
    travelling down, left of travel is +x."""
    start, corner, end = (60.0, 40.0), (60.0, 160.0), (160.0, 160.0)
    svg = built(tmp_path, arrow_toml(start, end, side, 'route = "|-"\nlabel_pos = 0.25'))
    rect = ink_box(svg, "arrow-0-label")
    assert clearance(rect, [start, corner, end]) >= CLEARANCE_PT - ROUNDING_PT
    assert rect[1] < 95 < rect[3], "centred on the point, 55 pt down"
    expected_right = side in ("below", "left")
    assert (rect[0] > 60) == expected_right and (rect[2] < 60) != expected_right


# ─── arcs ─────────────────────────────────────────────────────────────────

def arc_polyline(start: Point, end: Point, bend_deg: float, n: int = 2000) -> tuple[list[Point], Point]:
    """Points of the arc (see the module docstring) and its control point."""
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    h = math.tan(math.radians(bend_deg)) / 2
    c = (mx + dy * h, my - dx * h)
    pts = []
    for k in range(n + 1):
        t = k / n
        pts.append(((1 - t) ** 2 * start[0] + 2 * t * (1 - t) * c[0] + t * t * end[0],
                    (1 - t) ** 2 * start[1] + 2 * t * (1 - t) * c[1] + t * t * end[1]))
    return pts, c


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("bend", [40, -40])
def test_an_arcs_label_is_clear_of_the_curve(tmp_path, side, bend):
    """A 120 pt chord from (40, 150) to (160, 150) bent 40 degrees: the control point is
    tan(40) * 60 = 50.3 pt off the chord, the apex (t = 0.5, midway along by symmetry) half that.
    Bent +40 the curve bulges up (left of travel), so above is outside the curve, away from its
    centre; below is inside, where the label must clear the curve on both sides of it. Bent -40
    it bulges down, and the sides swap."""
    start, end = (40.0, 150.0), (160.0, 150.0)
    curve, control = arc_polyline(start, end, bend)
    apex = curve[len(curve) // 2]
    assert apex[1] == pytest.approx(150 - math.tan(math.radians(bend)) * 60 / 2)
    svg = built(tmp_path, arrow_toml(start, end, side, f'route = "arc"\nbend = {bend}', label="Wg long"))
    rect = ink_box(svg, "arrow-0-label")
    assert clearance(rect, curve) >= CLEARANCE_PT - ROUNDING_PT - 0.01, (side, bend)
    assert on_asked_side(side, (1.0, 0.0), apex, rect), (side, bend, rect, apex)
    outside = (side in ("above", "left")) == (bend > 0)
    if outside:  # away from the curve's centre: beyond the apex, seen from the chord
        assert abs(centre(rect)[1] - 150) > abs(apex[1] - 150)


def test_an_off_centre_label_on_a_strong_arc_clears_it(tmp_path):
    """Bent 60 degrees, label at 0.3 of the way: the tangent there is slanted, the label sits on its
    normal, outside the curve for left-of-travel (the side it bulges to) and inside for right."""
    start, end = (60.0, 60.0), (180.0, 140.0)
    curve, _ = arc_polyline(start, end, 60)
    for side in ("left", "right"):
        svg = built(tmp_path / side, arrow_toml(start, end, side, 'route = "arc"\nbend = 60\nlabel_pos = 0.3',
                                                label="Wg long"))
        rect = ink_box(svg, "arrow-0-label")
        assert clearance(rect, curve) >= CLEARANCE_PT - ROUNDING_PT - 0.01, side


# ─── the build warns of clipped text ──────────────────────────────────────

BOX_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5"><rect width="10" height="5" fill="#ddd"/></svg>'


def warned(tmp_path, body: str) -> tuple[list[str], etree._Element]:
    root = layout_project(tmp_path, body, head='width = "60mm"\nheight = "40mm"\n')
    (root / "box.svg").write_text(BOX_SVG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = build("fig", root=root, formats=("svg",), cache=False)
    return list(result.warnings), etree.fromstring(result.outputs["svg"].read_bytes())


def test_the_build_warns_of_a_panel_label_clipped_by_the_top_edge(tmp_path):
    """A panel at y = 0: its label's lower-left corner is 2 pt above the panel (label_offset), so the
    whole label is above the canvas; the warning names it and says by how much its ink reaches past."""
    found, svg = warned(tmp_path, '[panels.a]\nsvg = "../box.svg"\nat = ["5mm", "0mm"]\nsize = ["30mm", "20mm"]\n'
                                  'label = "a"\n')
    top = ink_box(svg, "label-a")[1]
    assert top < -2
    clipped = [w for w in found if "a.label" in w]  # named by its key path (it said "a.label")
    assert clipped == [f"layouts/fig.toml: panels.a.label: {-top / MM:.1f} mm past the top edge of the canvas, "
                       "clipped"], found


def test_the_warning_of_a_clipped_arrow_label_names_its_key_path(tmp_path):
    """An arrow along y = 0.5 mm whose label sits above it: past the top edge; the warning names
    ``arrow[0].label`` (it said ``arrow[0] label``)."""
    found, svg = warned(tmp_path, '[[arrow]]\nfrom = ["5mm", "0.5mm"]\nto = ["50mm", "0.5mm"]\nlabel = "over"\n')
    top = ink_box(svg, "arrow-0-label")[1]
    assert top < -EDGE_TOLERANCE_PT
    assert found == [f"layouts/fig.toml: arrow[0].label: {-top / MM:.1f} mm past the top edge of the canvas, "
                     "clipped"], found


def test_the_build_warns_of_text_off_the_left_edge(tmp_path):
    """A text whose west anchor is 3 mm left of the canvas: its ink starts "H"'s left side bearing
    later (DejaVu Sans: 201/2048 em, 0.69 pt at the default 7 pt); the warning says the left edge,
    and how far past it in mm."""
    found, svg = warned(tmp_path, '[[text]]\nname = "note"\ntext = "HELLO"\nat = ["-3mm", "20mm"]\nanchor = "w"\n')
    left = ink_box(svg, "text-note")[0]
    assert left == pytest.approx(-3 * MM + 201 / 2048 * 7, abs=0.05)
    assert found == [f"layouts/fig.toml: text note: {-left / MM:.1f} mm past the left edge of the canvas, clipped"]


def test_the_build_does_not_warn_of_text_inside(tmp_path):
    found, _ = warned(tmp_path, '[panels.a]\nsvg = "../box.svg"\nat = ["5mm", "10mm"]\nsize = ["30mm", "20mm"]\n'
                                'label = "a"\n[[text]]\nname = "note"\ntext = "HELLO"\nat = ["1mm", "35mm"]\n'
                                'anchor = "w"\n')
    assert found == []
