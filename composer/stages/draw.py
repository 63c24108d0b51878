"""Draw stage: canvas annotations as SVG elements (pure: geometry in, lxml out).

Text is drawn as glyph outlines (see :mod:`composer.text.metrics`), with the string in
``aria-label`` for search and screen readers; under ``[figure] text =
"editable"`` it is ``<text>`` instead, one per line, every character at the x
composer measured, with a font stack (:func:`composer.text.fonts.font_stack`), and
only ``$...$`` formulas as outlines. Arrowheads are filled paths, not
``<marker>`` (cairosvg paints markers black via ``context-stroke``), and each
line stops under its head so no stroke pokes through the tip.
"""

from __future__ import annotations

import math

from lxml import etree

from composer.layout.model import Arrow, FigureSpec, Panel, Shape, TextStyle
from composer.stages.geometry import Box, Route
from composer.svg.geometry import bezier_point
from composer.svg.io import svg_tag
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
    transform above the element to get the size at print.
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
    """A rect, circle or ellipse node (text centred, optional symbol), a line, a brace or a bracket."""
    group = etree.Element(svg_tag("g"), id=element_id)
    if shape.opacity != 1.0:
        group.set("opacity", fmt(shape.opacity))
    if shape.kind == "line":
        el = etree.SubElement(group, svg_tag("path"), d=_poly(points))
        _paint(el, shape, fill=False)
        el.set("stroke-linejoin", "round")
        return group
    if shape.kind in ("brace", "bracket"):
        el = etree.SubElement(group, svg_tag("path"), d=brace_d(points[0], points[1], shape.depth_pt,
                                                                  shape.side, curly=shape.kind == "brace"))
        _paint(el, shape, fill=False)
        return group
    assert box is not None
    cx, cy = box.anchor("center")
    if shape.kind == "rect":
        el = etree.SubElement(group, svg_tag("rect"), x=fmt(box.x_pt), y=fmt(box.y_pt),
                              width=fmt(box.width_pt), height=fmt(box.height_pt))
        if shape.corner_pt:
            el.set("rx", fmt(shape.corner_pt))
            el.set("ry", fmt(shape.corner_pt))
    elif shape.kind == "circle":
        el = etree.SubElement(group, svg_tag("circle"), cx=fmt(cx), cy=fmt(cy), r=fmt(box.width_pt / 2))
    else:
        el = etree.SubElement(group, svg_tag("ellipse"), cx=fmt(cx), cy=fmt(cy), rx=fmt(box.width_pt / 2),
                              ry=fmt(box.height_pt / 2))
    _paint(el, shape)
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


def brace_d(a: Point, b: Point, depth_pt: float, side: str, *, curly: bool) -> str:
    """A curly brace (or square bracket) from ``a`` to ``b`` whose tip points
    ``depth_pt`` to the ``side`` (left or right of the direction a -> b)."""
    ux, uy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(ux, uy) or 1.0
    ux, uy = ux / length, uy / length
    nx, ny = (uy, -ux) if side == "left" else (-uy, ux)

    def at(p: Point, along: float, out: float) -> str:
        return f"{fmt(p[0] + ux * along + nx * out)} {fmt(p[1] + uy * along + ny * out)}"

    if not curly:
        return f"M{at(a, 0, 0)} L{at(a, 0, depth_pt)} L{at(b, 0, depth_pt)} L{at(b, 0, 0)}"
    h, q = depth_pt / 2, min(depth_pt, length / 4)
    m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    return (f"M{at(a, 0, 0)} Q{at(a, 0, h)} {at(a, q, h)} L{at(m, -q, h)} Q{at(m, 0, h)} {at(m, 0, depth_pt)} "
            f"Q{at(m, 0, h)} {at(m, q, h)} L{at(b, -q, h)} Q{at(b, 0, h)} {at(b, 0, 0)}")


def _poly(points) -> str:
    return "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in points)


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


def connector_label_box(route: Route, arrow: Arrow, block: TextBlock, clearance_pt: float = 1.5) -> Box:
    """Where a connector's label goes: beside the route at ``label_pos``,
    ``clearance_pt`` from the line, on ``label_side``: left or right of the
    direction of travel, or above/below it (on a vertical segment, above
    means to the left)."""
    (x, y), (ux, uy) = point_along(route, arrow.label_pos)
    nx, ny = (uy, -ux)  # left of travel on screen (y down)
    side = arrow.label_side
    if side == "right" or side == "above" and (ny > 0 or ny == 0 and nx > 0) \
            or side == "below" and (ny < 0 or ny == 0 and nx < 0):
        nx, ny = -nx, -ny  # above: toward -y (on a vertical route: toward -x); below: the other way
    if abs(nx) >= abs(ny):
        anchor = "w" if nx > 0 else "e"
    else:
        anchor = "n" if ny > 0 else "s"
    return Box.placed((x + nx * clearance_pt, y + ny * clearance_pt), anchor, block.width_pt, block.height_pt)


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
