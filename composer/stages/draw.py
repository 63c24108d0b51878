"""Draw stage: canvas annotations as SVG elements (pure: geometry in, lxml out).

Text is drawn as glyph outlines (see :mod:`composer.text.metrics`), with the string in
``aria-label`` for search and screen readers; under ``[figure] text =
"editable"`` it is ``<text>`` instead, one per line, every character at the x
composer measured, with a font stack (:func:`composer.text.fonts.font_stack`), and
only ``$...$`` formulas as outlines. Arrowheads are filled paths, not
``<marker>`` (cairosvg paints markers black via ``context-stroke``), and each
line stops under its head so no stroke pokes through the tip. A connector's label
sits beside the segment it names, on that segment's normal, clear of everything the
connector draws (:func:`connector_label_box`).
"""

from __future__ import annotations

import math
from functools import lru_cache

from lxml import etree

from composer.kinds.shapes import SHAPES, poly_d
from composer.layout.model import Arrow, FigureSpec, Panel, Shape, TextStyle
from composer.stages.geometry import Box, Route
from composer.svg.geometry import bezier_point, flatten_bezier
from composer.svg.io import svg_tag
from composer.svg.measure import path_points
from composer.text import realtext
from composer.text.metrics import TextBlock, translate_d
from composer.units import fmt

Point = tuple[float, float]


def background(spec: FigureSpec) -> etree._Element | None:
    """The canvas background rect, or None for ``background = "none"``."""
    if spec.background is None:
        return None
    return etree.Element(svg_tag("rect"), id="background", x="0", y="0", width=fmt(spec.width_pt),
                         height=fmt(spec.height_pt), fill=spec.background)


def text_element(block: TextBlock, box: Box, style: TextStyle, align: str, *, element_id: str,
                 label: str) -> etree._Element:
    """A text block as filled glyph outlines inside ``box``: one ``<path>``,
    or a ``<g>`` of one path per colour when the text has colour spans;
    for an editable style, a ``<g>`` of ``<text>`` lines (:func:`editable_text_element`).

    The outlines keep no font size of their own, so the nominal size (pt) is
    written as ``data-font-size``: ``compose check`` multiplies it by every
    transform above the element to get the size at print. The glyphs the outlines draw are noted on
    the element (:data:`composer.text.realtext.GLYPHS_ATTR`) for the PDF's real text; the compose
    stage removes the note before the SVG is written.
    """
    if style.editable:
        return editable_text_element(block, box, style, align, element_id=element_id, label=label)
    pieces = block.paths(box.x_pt, box.y_pt, align)
    if len(pieces) <= 1:
        el = etree.Element(svg_tag("path"), id=element_id)
        el.set("d", pieces[0][1] if pieces else "")
        el.set("fill", pieces[0][0] if pieces else style.color)
        paths = [el]
    else:
        el = etree.Element(svg_tag("g"), id=element_id)
        paths = [etree.SubElement(el, svg_tag("path"), d=d, fill=color) for color, d in pieces]
    if style.opacity != 1.0:
        for path in paths:
            path.set("fill-opacity", fmt(style.opacity))
    el.set("aria-label", label)
    el.set("data-font-size", fmt(style.size_pt))
    glyphs = block.placed_glyphs(box.x_pt, box.y_pt, align)
    if glyphs:  # what the PDF writes as text; never in a written file (composer.text.realtext)
        el.set(realtext.GLYPHS_ATTR, realtext.notes(glyphs))
    return el


def turned_text_element(block: TextBlock, box: Box, style: TextStyle, align: str, rotate_deg: float, *,
                        element_id: str, label: str) -> etree._Element:
    """A text block turned ``rotate_deg`` counter-clockwise about the centre of ``box`` (the turned
    block's axis-aligned box, :func:`composer.stages.geometry.turned_size`): the block is drawn
    unturned, centred on ``box``, inside ``<g transform="rotate(-rotate_deg cx cy)">`` (SVG's
    ``rotate`` turns clockwise on the y-down page, so the sign flips). Not turned: :func:`text_element`."""
    if rotate_deg % 360 == 0:
        return text_element(block, box, style, align, element_id=element_id, label=label)
    cx, cy = box.anchor("center")
    inner = Box.placed((cx, cy), "center", block.width_pt, block.height_pt)
    group = etree.Element(svg_tag("g"), id=element_id)
    group.set("transform", f"rotate({fmt(-rotate_deg)} {fmt(cx)} {fmt(cy)})")
    group.set("aria-label", label)
    group.append(text_element(block, inner, style, align, element_id=f"{element_id}-turned", label=label))
    return group


def editable_text_element(block: TextBlock, box: Box, style: TextStyle, align: str, *, element_id: str,
                          label: str) -> etree._Element:
    """A text block as ``<g>`` of one ``<text xml:space="preserve">`` per line.

    The ``<text>`` carries the block's font (stack, size, weight, style,
    colour); each run is a ``<tspan>`` with one x per character (pt) and the
    attributes in which it differs. (No ``text-rendering``: cairo 1.16 draws
    small text garbled under ``geometricPrecision``, which cairosvg maps to
    unhinted glyphs; renderers hint glyphs as they see fit, which moves
    stems by less than a pixel, never a glyph.) Formulas (``$...$``) follow as filled
    outlines in the same group: matplotlib's math fonts are not the fonts a
    browser has, and ``<text>`` would show other glyphs (docs/design.md).
    """
    from composer.text.fonts import font_stack

    group = etree.Element(svg_tag("g"), id=element_id)
    group.set("aria-label", label)
    maths = []
    for n, (line, x0, baseline) in enumerate(block.placed_lines(box.x_pt, box.y_pt, align)):
        plain = [run for run in line.runs if run.math_d is None]
        maths += [(run, x0, baseline) for run in line.runs if run.math_d is not None]
        if not plain:
            continue
        text = etree.SubElement(group, svg_tag("text"), id=f"{element_id}-line{n}")
        text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        _font_attrs(text, style, font_stack(style.font))
        for run in plain:
            tspan = etree.SubElement(text, svg_tag("tspan"))
            xs = run.char_x_pt or (run.x_pt,)
            tspan.set("x", " ".join(fmt(x0 + x) for x in xs))
            tspan.set("y", fmt(baseline))
            _font_attrs(tspan, run.style, font_stack(run.style.font), base=style)
            tspan.text = run.text
    for run, x0, baseline in maths:
        assert run.math_d is not None
        path = etree.SubElement(group, svg_tag("path"), d=translate_d(run.math_d, x0, baseline), fill=run.style.color)
        if run.style.opacity != 1.0:
            path.set("fill-opacity", fmt(run.style.opacity))
    return group


def _font_attrs(el: etree._Element, style: TextStyle, stack: str, base: TextStyle | None = None) -> None:
    """Set the font presentation attributes of ``style`` on ``el`` (only those differing from ``base``)."""
    if base is None or style.font != base.font:
        el.set("font-family", stack)
    if base is None or style.size_pt != base.size_pt:
        el.set("font-size", fmt(style.size_pt))
    if style.weight != (base.weight if base else "normal"):
        el.set("font-weight", style.weight)
    if style.style != (base.style if base else "normal"):
        el.set("font-style", style.style)
    if base is None or style.color != base.color:
        el.set("fill", style.color)
    if style.opacity != (base.opacity if base else 1.0):
        el.set("fill-opacity", fmt(style.opacity))


def default_align(anchor: str) -> str:
    """Lines of a block align with its anchor: ``e``-side anchors right, ``w``-side left."""
    if anchor.endswith("e"):
        return "right"
    if anchor.endswith("w"):
        return "left"
    return "center"


def _paint(el: etree._Element, shape: Shape, *, fill: bool = True) -> None:
    el.set("fill", (shape.fill or "none") if fill else "none")
    el.set("stroke", shape.stroke or "none")
    el.set("stroke-width", fmt(shape.stroke_width_pt))
    if shape.dash:
        el.set("stroke-dasharray", f"{fmt(3 * shape.stroke_width_pt + 1)} {fmt(2 * shape.stroke_width_pt + 1)}")


def shape_element(shape: Shape, box: Box | None, points: tuple[Point, ...], *, element_id: str,
                  block: TextBlock | None, label: str | None) -> etree._Element:
    """A shape as its kind's class draws it (:data:`composer.kinds.shapes.SHAPES`: a rect, circle or
    ellipse node, a line, a brace or a bracket), painted with its fill and stroke; a boxed one with its
    symbol and its text centred."""
    group = etree.Element(svg_tag("g"), id=element_id)
    if shape.opacity != 1.0:
        group.set("opacity", fmt(shape.opacity))
    for drawn in SHAPES[shape.kind].draw(shape, box, points):
        el = etree.SubElement(group, svg_tag(drawn.tag))
        for name, value in drawn.attributes:
            el.set(name, value)
        _paint(el, shape, fill=drawn.filled)
        for name, value in drawn.after:
            el.set(name, value)
    if box is None:
        return group
    cx, cy = box.anchor("center")
    if shape.symbol:
        group.append(_symbol(shape, box))
    if block is not None and shape.text_style is not None:
        inner = Box.placed((cx, cy), "center", block.width_pt, block.height_pt)
        group.append(text_element(block, inner, shape.text_style, "center", element_id=f"{element_id}-text",
                                  label=label or ""))
    return group


def _symbol(shape: Shape, box: Box) -> etree._Element:
    """``+``, ``x``, ``*`` as strokes of half the node's radius; ``.`` as a dot (the circled-dot operator)."""
    cx, cy = box.anchor("center")
    r = min(box.width_pt, box.height_pt) / 2
    color = shape.stroke or "#000000"
    if shape.symbol == ".":
        return etree.Element(svg_tag("circle"), cx=fmt(cx), cy=fmt(cy), r=fmt(0.16 * r), fill=color)
    arm = 0.5 * r
    angles = {"+": (0, 90), "x": (45, 135), "*": (0, 60, 120)}[shape.symbol or "+"]
    d = []
    for a in angles:
        dx, dy = arm * math.cos(math.radians(a)), arm * math.sin(math.radians(a))
        d.append(f"M{fmt(cx - dx)} {fmt(cy - dy)} L{fmt(cx + dx)} {fmt(cy + dy)}")
    return etree.Element(svg_tag("path"), d=" ".join(d), fill="none", stroke=color,
                         **{"stroke-width": fmt(max(shape.stroke_width_pt, 0.6)), "stroke-linecap": "round"})


_poly = poly_d


def arrow_element(route: Route, arrow: Arrow, *, element_id: str) -> etree._Element:
    """A connector along ``route`` with heads at its ends.

    The route is shortened by ``gap_pt`` at both ends; at a headed end the line
    stops 0.8 head lengths before the tip (closed heads) so the butt is hidden
    under the head. Curves (arcs) are shortened along their end tangents.
    """
    pts = list(route.points)
    pts[0] = _toward(pts[0], pts[1], arrow.gap_pt)
    pts[-1] = _toward(pts[-1], pts[-2], arrow.gap_pt)
    group = etree.Element(svg_tag("g"), id=element_id)
    heads = []
    line = list(pts)
    pull = 0.8 * arrow.head_length_pt if arrow.head_style in ("triangle", "stealth") else 0.0
    if arrow.head in ("end", "both"):
        heads.append(_head(pts[-1], pts[-2], arrow))
        line[-1] = _toward(pts[-1], pts[-2], pull)
    if arrow.head in ("start", "both"):
        heads.append(_head(pts[0], pts[1], arrow))
        line[0] = _toward(pts[0], pts[1], pull)
    path = etree.SubElement(group, svg_tag("path"))
    if route.curve:
        path.set("d", f"M{fmt(line[0][0])} {fmt(line[0][1])} Q{fmt(line[1][0])} {fmt(line[1][1])} "
                      f"{fmt(line[2][0])} {fmt(line[2][1])}")
    else:
        path.set("d", _poly(line))
    path.set("fill", "none")
    path.set("stroke", arrow.color)
    path.set("stroke-width", fmt(arrow.width_pt))
    path.set("stroke-linecap", "butt")
    path.set("stroke-linejoin", "miter")
    if arrow.dash:
        path.set("stroke-dasharray", f"{fmt(4 * arrow.width_pt)} {fmt(3 * arrow.width_pt)}")
    for d, filled in heads:
        head = etree.SubElement(group, svg_tag("path"), d=d)
        if filled:
            head.set("fill", arrow.color)
        else:
            head.set("fill", "none")
            head.set("stroke", arrow.color)
            head.set("stroke-width", fmt(arrow.width_pt))
            head.set("stroke-linejoin", "miter")
    return group


def _toward(p: Point, q: Point, distance: float) -> Point:
    """``p`` moved ``distance`` toward ``q`` (never past it)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return p
    t = min(distance / length, 1.0)
    return p[0] + dx * t, p[1] + dy * t


def _head(tip: Point, before: Point, arrow: Arrow) -> tuple[str, bool]:
    """A head with its tip at ``tip``, pointing away from ``before``: ``(d, filled)``.

    Styles: ``triangle`` (filled), ``stealth`` (filled, notched back, TikZ's
    stealth), ``open`` (two strokes), ``bar`` (a stroke across the line).
    """
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    hl, hw = arrow.head_length_pt, arrow.head_width_pt / 2

    def p(along: float, across: float) -> str:
        return f"{fmt(tip[0] - ux * along - uy * across)} {fmt(tip[1] - uy * along + ux * across)}"

    if arrow.head_style == "triangle":
        return f"M{p(0, 0)} L{p(hl, hw)} L{p(hl, -hw)} Z", True
    if arrow.head_style == "stealth":
        return f"M{p(0, 0)} L{p(hl, hw)} L{p(0.7 * hl, 0)} L{p(hl, -hw)} Z", True
    if arrow.head_style == "open":
        return f"M{p(hl, hw)} L{p(0, 0)} L{p(hl, -hw)}", False
    return f"M{p(0, hw)} L{p(0, -hw)}", False


def point_along(route: Route, fraction: float) -> tuple[Point, Point]:
    """The point at ``fraction`` of a route's length and the unit direction of travel there."""
    if route.curve:
        a, c, b = route.points
        samples = [bezier_point((a, c, b), i / 64) for i in range(65)]
    else:
        samples = list(route.points)
    segments = [(p, q, math.hypot(q[0] - p[0], q[1] - p[1])) for p, q in zip(samples, samples[1:])]
    segments = [s for s in segments if s[2] > 0] or [(samples[0], samples[0], 0.0)]
    target = fraction * sum(s[2] for s in segments)
    for i, (p, q, seg) in enumerate(segments):
        if target <= seg or i == len(segments) - 1:
            if seg == 0:
                return p, (1.0, 0.0)
            t = min(target / seg, 1.0)
            return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t), ((q[0] - p[0]) / seg, (q[1] - p[1]) / seg)
        target -= seg
    raise AssertionError("unreachable")


#: the gap between a connector's label and the centre of the line it names (pt): the label's
#: rectangle sits this far from the segment's centre line, on its normal
LABEL_OFFSET_PT = 1.5
#: the least clear space between a connector's label and its drawn line (pt), stroke width and
#: heads included: a line wider than 1 pt pushes its label out to half its width plus this
LABEL_CLEARANCE_PT = 1.0
#: how a label that would touch another part of its own connector (the other leg of an elbow, the
#: inside of an arc, a head) is moved: out along the normal and along the segment, by
#: :data:`LABEL_STEP_PT` steps up to :data:`LABEL_FINE_PT`, then by 1 pt steps up to its own width plus height
LABEL_STEP_PT = 0.25
LABEL_FINE_PT = 5.0
#: SVG's default ``stroke-miterlimit``: a joint whose miter would be longer than this many stroke
#: widths is bevelled (SVG 1.1, 11.4 "stroke-miterlimit")
SVG_MITER_LIMIT = 4.0
#: chords an arc is cut into when labels are kept clear of it (a 100 pt arc bent 30 degrees strays
#: less than 0.002 pt from its chords)
ARC_CHORDS = 128


def label_normal(direction: Point, side: str) -> Point:
    """The unit normal a connector's label is offset along, for the unit ``direction`` of travel of
    the segment it names (canvas, y down) and its ``label_side``.

    ``left`` / ``right``: of the direction of travel, as seen on the page (left of travel is
    ``(dy, -dx)`` in y-down coordinates). ``above``: the normal whose y component points up the
    page (negative y); on a vertical segment (no y component), the one pointing left. ``below``:
    the other one. So on a horizontal segment ``above`` is straight up whichever way it runs, on a
    segment rising to the right at 30 degrees it is up and to the left, 30 degrees off vertical.
    """
    ux, uy = direction
    nx, ny = uy, -ux  # left of travel on screen (y down)
    if side == "right" or side == "above" and (ny > 0 or ny == 0 and nx > 0) \
            or side == "below" and (ny < 0 or ny == 0 and nx < 0):
        nx, ny = -nx, -ny
    return nx, ny


@lru_cache(maxsize=1024)
def label_extent(block: TextBlock) -> tuple[float, float, float, float]:
    """The rectangle a connector label occupies, relative to its block's top-left (pt,
    ``(x0, y0, x1, y1)``): the typeset block (:class:`composer.text.metrics.TextBlock`, its lines'
    advance and ascent/descent) joined with the ink of every glyph outline, which may reach past
    the block (a side bearing, an italic overhang, a mathtext formula)."""
    x0, y0, x1, y1 = 0.0, 0.0, block.width_pt, block.height_pt
    for _, d in block.paths(0.0, 0.0, "center"):
        for points in path_points(d):
            for x, y in points:
                x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    return x0, y0, x1, y1


def connector_obstacles(route: Route, arrow: Arrow) -> list[tuple[tuple[Point, ...], float]]:
    """What a connector draws, as convex pieces ``(points, reach_pt)``: each segment of its line
    (an arc cut into :data:`ARC_CHORDS` chords) with half its stroke width as reach, each mitred
    joint of a polyline as its point with the miter's reach, and each head
    as the polygon :func:`_head` fills (reach 0; an open or bar head, drawn as strokes, half the
    stroke width). The line is taken along the whole route, ends included: what its gaps leave
    out lies under the heads or beside the elements it joins."""
    half = arrow.width_pt / 2
    if route.curve:
        a, c, b = route.points
        line = [a, *flatten_bezier((a, c, b), ARC_CHORDS)]
    else:
        line = list(route.points)
    pieces: list[tuple[tuple[Point, ...], float]] = [((p, q), half) for p, q in zip(line, line[1:]) if p != q]
    if not route.curve:  # a mitred joint's outer corner reaches half the width / sin(half the angle)
        for before, joint, after in zip(line, line[1:], line[2:]):
            back = math.atan2(before[1] - joint[1], before[0] - joint[0])
            on = math.atan2(after[1] - joint[1], after[0] - joint[0])
            half_angle = abs(math.remainder(back - on, math.tau)) / 2  # the legs meet at twice this
            ratio = 1 / math.sin(half_angle) if half_angle > 1e-9 else math.inf
            if ratio <= SVG_MITER_LIMIT:  # past it SVG bevels the joint, which stays within half the width
                pieces.append(((joint, joint), half * ratio))
    pts = list(route.points)
    pts[0] = _toward(pts[0], pts[1], arrow.gap_pt)
    pts[-1] = _toward(pts[-1], pts[-2], arrow.gap_pt)
    ends = []
    if arrow.head in ("end", "both"):
        ends.append((pts[-1], pts[-2]))
    if arrow.head in ("start", "both"):
        ends.append((pts[0], pts[1]))
    reach = 0.0 if arrow.head_style in ("triangle", "stealth") else half
    for tip, before in ends:
        pieces.append((_head_corners(tip, before, arrow), reach))
    return pieces


def _head_corners(tip: Point, before: Point, arrow: Arrow) -> tuple[Point, ...]:
    """The corners of the convex hull of a head :func:`_head` draws (same formulas)."""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    hl, hw = arrow.head_length_pt, arrow.head_width_pt / 2

    def p(along: float, across: float) -> Point:
        return tip[0] - ux * along - uy * across, tip[1] - uy * along + ux * across

    if arrow.head_style == "bar":
        return p(0, hw), p(0, -hw)
    return p(0, 0), p(hl, hw), p(hl, -hw)


def _segment_distance(a: Point, b: Point, c: Point, d: Point) -> float:
    """Distance (pt) between segments ``ab`` and ``cd``: 0 when they cross."""
    def cross(o: Point, p: Point, q: Point) -> float:
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if d1 * d2 < 0 and d3 * d4 < 0:
        return 0.0
    return min(_point_segment(a, c, d), _point_segment(b, c, d), _point_segment(c, a, b), _point_segment(d, a, b))


def _point_segment(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    span = dx * dx + dy * dy
    t = 0.0 if span == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / span))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _inside_polygon(p: Point, poly: tuple[Point, ...]) -> bool:
    """Is ``p`` inside (or on) the convex polygon ``poly`` (3 or more corners, either winding)?"""
    signs = set()
    for a, b in zip(poly, poly[1:] + poly[:1]):
        c = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
        if c:
            signs.add(c > 0)
    return len(signs) <= 1


def rect_distance(rect: tuple[float, float, float, float], piece: tuple[Point, ...]) -> float:
    """Distance (pt) between an axis-aligned rectangle ``(x0, y0, x1, y1)`` and a convex piece
    (a segment: 2 points, a point given twice; a polygon: 3 or more): 0 when they touch or overlap."""
    x0, y0, x1, y1 = rect
    if any(x0 <= x <= x1 and y0 <= y <= y1 for x, y in piece):
        return 0.0
    corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    if len(piece) >= 3 and _inside_polygon(corners[0], piece):
        return 0.0
    edges = list(zip(piece, piece[1:] + piece[:1])) if len(piece) >= 3 else [(piece[0], piece[1])]
    return min(_segment_distance(p, q, a, b) for p, q in edges for a, b in zip(corners, corners[1:] + corners[:1]))


def connector_label_box(route: Route, arrow: Arrow, block: TextBlock) -> Box:
    """Where a connector's label goes: beside the segment at ``label_pos`` (fraction of the
    route's length), on the side :func:`label_normal` gives for ``label_side``, never on its own
    line.

    The label's rectangle (:func:`label_extent`: its block and all its glyphs' ink) is centred on
    the segment's normal through the point at ``label_pos`` and pushed out along it until its
    nearest corner (for a horizontal or vertical segment: its facing side, centred on the point) is
    ``max(LABEL_OFFSET_PT, width / 2 + LABEL_CLEARANCE_PT)`` from the segment's centre line. On an
    arc the segment is the tangent there: on the outside of the curve (away from its centre) the
    curve bends away from the label; on the inside the label moves farther in until it clears the
    curve. Then every piece the connector draws (:func:`connector_obstacles`: its other segments,
    its heads) must be at least ``LABEL_CLEARANCE_PT`` beyond its reach from the rectangle: if one
    is not, the label moves to the nearest place that clears (least distance out along the normal
    plus along the segment, forward along it before back; steps :data:`LABEL_STEP_PT`, then 1 pt
    past :data:`LABEL_FINE_PT`): out, past a head or the inside of an arc, or along, away from
    the other leg of an elbow beside it. If nothing within its own width plus height clears, it
    stays where it was first placed (``compose check`` reports it).
    """
    (x, y), direction = point_along(route, arrow.label_pos)
    nx, ny = label_normal(direction, arrow.label_side)
    ux, uy = direction
    ex0, ey0, ex1, ey1 = label_extent(block)
    w, h = block.width_pt, block.height_pt
    offset_pt = max(LABEL_OFFSET_PT, arrow.width_pt / 2 + LABEL_CLEARANCE_PT)
    # the rectangle's corners from the block's centre; the nearest to the line sets the distance
    corners = [(cx - w / 2, cy - h / 2) for cx in (ex0, ex1) for cy in (ey0, ey1)]
    reach_pt = -min(cx * nx + cy * ny for cx, cy in corners)
    if nx == 0 or ny == 0:  # a horizontal or vertical segment: the label's facing side centred on it
        anchor = ("w" if nx > 0 else "e") if ny == 0 else ("n" if ny > 0 else "s")
        facing = {"w": -ex0, "e": ex1 - w, "n": -ey0, "s": ey1 - h}[anchor]  # ink past the block's facing side
        first = Box.placed((x + nx * (offset_pt + facing), y + ny * (offset_pt + facing)), anchor, w, h)
    else:
        distance = offset_pt + reach_pt
        first = Box.placed((x + nx * distance, y + ny * distance), "center", w, h)
    pieces = [(pts, reach + LABEL_CLEARANCE_PT, (min(p[0] for p in pts), min(p[1] for p in pts),
                                                 max(p[0] for p in pts), max(p[1] for p in pts)))
              for pts, reach in connector_obstacles(route, arrow)]

    def clear(box: Box) -> bool:
        rect = (box.x_pt + ex0, box.y_pt + ey0, box.x_pt + ex1, box.y_pt + ey1)
        for pts, needed, (px0, py0, px1, py1) in pieces:
            apart = math.hypot(max(px0 - rect[2], rect[0] - px1, 0.0), max(py0 - rect[3], rect[1] - py1, 0.0))
            if apart < needed - 1e-6 and rect_distance(rect, pts) < needed - 1e-6:
                return False
        return True

    if clear(first):
        return first
    # the nearest placement that clears: least distance out plus along, out before along, forward first
    steps = [k * LABEL_STEP_PT for k in range(int(LABEL_FINE_PT / LABEL_STEP_PT) + 1)]
    steps += [LABEL_FINE_PT + k for k in range(1, int(w + h + LABEL_FINE_PT) + 1)]  # then 1 pt steps, to its size
    tries = sorted(((out + along, along, -sign, out) for out in steps for along in steps
                    for sign in ((1,) if along == 0 else (1, -1))), key=lambda t: t[:3])
    for _, along, minus, out in tries[1:]:
        dx, dy = nx * out - ux * minus * along, ny * out - uy * minus * along
        moved = Box(first.x_pt + dx, first.y_pt + dy, w, h)
        if clear(moved):
            return moved
    return first


def label_boxes(panel: Panel, box: Box, spec: FigureSpec, label: TextBlock | None,
                title: TextBlock | None, plot: Box | None = None) -> tuple[Box | None, Box | None]:
    """Where a panel's label and title go: the label's lower-left corner at the
    panel's top-left plus ``label_offset``; the title follows on the same line,
    0.4 em after the label. With ``[figure] label_at = "plot"`` the corner is the
    top-left of ``plot``, the panel's plot area on the canvas
    (:attr:`composer.stages.geometry.Geometry.plot_areas`; its box when None)."""
    corner = plot if spec.label_at == "plot" and plot is not None else box
    x = corner.x_pt + spec.label_offset_pt[0]
    y = corner.y_pt + spec.label_offset_pt[1]
    label_box = title_box = None
    if label is not None:
        label_box = Box.placed((x, y), "sw", label.width_pt, label.height_pt)
        x += label.width_pt + 0.4 * spec.label.size_pt
    if title is not None:
        title_box = Box.placed((x, y), "sw", title.width_pt, title.height_pt)
    return label_box, title_box
