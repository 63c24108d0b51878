"""Draw stage: canvas annotations as SVG elements (pure: geometry in, lxml out).

Text is drawn as glyph outlines (see :mod:`composer.text`), with the string in
``aria-label`` for search and screen readers. Arrowheads are filled paths, not
``<marker>`` (cairosvg paints markers black via ``context-stroke``), and each
line stops under its head so no stroke pokes through the tip.
"""

from __future__ import annotations

import math

from lxml import etree

from .geometry import Box
from .model import Arrow, FigureSpec, Panel, Shape, TextStyle
from .svgio import svg_tag
from .text import TextBlock
from .units import fmt

Point = tuple[float, float]


def background(spec: FigureSpec) -> etree._Element | None:
    """The canvas background rect, or None for ``background = "none"``."""
    if spec.background is None:
        return None
    return etree.Element(svg_tag("rect"), id="background", x="0", y="0", width=fmt(spec.width_pt),
                         height=fmt(spec.height_pt), fill=spec.background)


def text_element(block: TextBlock, box: Box, style: TextStyle, align: str, *, element_id: str,
                 label: str) -> etree._Element:
    """One text block as a filled ``<path>`` of glyph outlines inside ``box``."""
    el = etree.Element(svg_tag("path"), id=element_id)
    el.set("d", block.path_d(box.x_pt, box.y_pt, align))
    el.set("fill", style.color)
    if style.opacity != 1.0:
        el.set("fill-opacity", fmt(style.opacity))
    el.set("aria-label", label)
    return el


def default_align(anchor: str) -> str:
    """Lines of a block align with its anchor: ``e``-side anchors right, ``w``-side left."""
    if anchor.endswith("e"):
        return "right"
    if anchor.endswith("w"):
        return "left"
    return "center"


def shape_element(shape: Shape, box: Box, *, element_id: str, block: TextBlock | None,
                  label: str | None) -> etree._Element:
    """A rect or circle node, with its text centred in it."""
    group = etree.Element(svg_tag("g"), id=element_id)
    if shape.kind == "rect":
        el = etree.SubElement(group, svg_tag("rect"), x=fmt(box.x_pt), y=fmt(box.y_pt),
                              width=fmt(box.width_pt), height=fmt(box.height_pt))
        if shape.corner_pt:
            el.set("rx", fmt(shape.corner_pt))
            el.set("ry", fmt(shape.corner_pt))
    else:
        cx, cy = box.anchor("center")
        el = etree.SubElement(group, svg_tag("circle"), cx=fmt(cx), cy=fmt(cy), r=fmt(box.width_pt / 2))
    el.set("fill", shape.fill or "none")
    el.set("stroke", shape.stroke or "none")
    el.set("stroke-width", fmt(shape.stroke_width_pt))
    if shape.dash:
        el.set("stroke-dasharray", f"{fmt(3 * shape.stroke_width_pt + 1)} {fmt(2 * shape.stroke_width_pt + 1)}")
    if shape.opacity != 1.0:
        el.set("opacity", fmt(shape.opacity))
    if block is not None and shape.text_style is not None:
        inner = Box.placed(box.anchor("center"), "center", block.width_pt, block.height_pt)
        group.append(text_element(block, inner, shape.text_style, "center", element_id=f"{element_id}-text",
                                  label=label or ""))
    return group


def arrow_element(points: tuple[Point, ...], arrow: Arrow, *, element_id: str) -> etree._Element:
    """A connector along ``points`` with filled-path heads.

    The route is shortened by ``gap_pt`` at both ends; at a headed end the line
    stops 0.8 head lengths before the tip so the butt is hidden under the head.
    """
    pts = [tuple(p) for p in points]
    pts[0] = _toward(pts[0], pts[1], arrow.gap_pt)
    pts[-1] = _toward(pts[-1], pts[-2], arrow.gap_pt)
    group = etree.Element(svg_tag("g"), id=element_id)
    heads = []
    line = list(pts)
    if arrow.head in ("end", "both"):
        heads.append(_head(pts[-1], pts[-2], arrow))
        line[-1] = _toward(pts[-1], pts[-2], 0.8 * arrow.head_length_pt)
    if arrow.head in ("start", "both"):
        heads.append(_head(pts[0], pts[1], arrow))
        line[0] = _toward(pts[0], pts[1], 0.8 * arrow.head_length_pt)
    path = etree.SubElement(group, svg_tag("path"))
    path.set("d", "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in line))
    path.set("fill", "none")
    path.set("stroke", arrow.color)
    path.set("stroke-width", fmt(arrow.width_pt))
    path.set("stroke-linecap", "butt")
    path.set("stroke-linejoin", "miter")
    if arrow.dash:
        path.set("stroke-dasharray", f"{fmt(4 * arrow.width_pt)} {fmt(3 * arrow.width_pt)}")
    for d in heads:
        etree.SubElement(group, svg_tag("path"), d=d, fill=arrow.color)
    return group


def _toward(p: Point, q: Point, distance: float) -> Point:
    """``p`` moved ``distance`` toward ``q`` (never past it)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return p
    t = min(distance / length, 1.0)
    return p[0] + dx * t, p[1] + dy * t


def _head(tip: Point, before: Point, arrow: Arrow) -> str:
    """A triangular head with its tip at ``tip``, pointing away from ``before``."""
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    bx, by = tip[0] - ux * arrow.head_length_pt, tip[1] - uy * arrow.head_length_pt
    hw = arrow.head_width_pt / 2
    left = (bx - uy * hw, by + ux * hw)
    right = (bx + uy * hw, by - ux * hw)
    return f"M{fmt(tip[0])} {fmt(tip[1])} L{fmt(left[0])} {fmt(left[1])} L{fmt(right[0])} {fmt(right[1])} Z"


def label_boxes(panel: Panel, box: Box, spec: FigureSpec, label: TextBlock | None,
                title: TextBlock | None) -> tuple[Box | None, Box | None]:
    """Where a panel's label and title go: the label's lower-left corner at the
    panel's top-left plus ``label_offset``; the title follows on the same line,
    0.4 em after the label."""
    x = box.x_pt + spec.label_offset_pt[0]
    y = box.y_pt + spec.label_offset_pt[1]
    label_box = title_box = None
    if label is not None:
        label_box = Box.placed((x, y), "sw", label.width_pt, label.height_pt)
        x += label.width_pt + 0.4 * spec.label.size_pt
    if title is not None:
        title_box = Box.placed((x, y), "sw", title.width_pt, title.height_pt)
    return label_box, title_box
