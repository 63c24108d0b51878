"""Boxes of an SVG document's elements by id, in the document's user units.

:func:`element_boxes` gives every element with an ``id`` that draws
geometry (a basic shape, a path, an image, or a group holding any of these)
its axis-aligned bounding box in the user units of the root ``<svg>``
(its viewBox's coordinates), y down:

- every ``transform`` from the element (its own included) up to, but not
  including, the root is applied: the root's own ``transform`` is not part of
  the user space its viewBox describes;
- the box is the geometric one (SVG 2 ``getBBox()``, "fill box"): the stroke
  is **excluded**, as are markers and filters;
- a path's curves are flattened (:func:`composer.svg.measure.path_points`:
  12 points per Bezier, arcs by their end points); a rect, image or ellipse is
  its four box corners, so an ellipse under a rotation gets a box slightly
  larger than its exact extent;
- elements inside ``<defs>``, ``<clipPath>``, ``<mask>``, ``<symbol>``,
  ``<marker>`` or ``<pattern>`` are not drawn in place and get no box;
  ``<text>`` (no font metrics here) is not measured, and a group counts
  only what it holds of the above;
- a ``<use>`` is the box of what it draws: the element it references
  (``href`` or ``xlink:href``, ``#id`` in the same document), moved by its
  ``x``/``y``; a ``<symbol>`` with a ``viewBox`` mapped into the use's
  ``width``/``height`` (default 100 %: taken as the symbol's own viewBox
  size) by its ``preserveAspectRatio`` (SVG 2, 8.2 and 5.6); the
  referenced element's own ids keep the boxes of where it stands.

Nothing here knows about figures: mapping these boxes onto a canvas is the
caller's business.
"""

from __future__ import annotations

import re

from lxml import etree

from composer.svg.geometry import BBox, points_bbox, union
from composer.svg.io import SVG_NS, XLINK_NS
from composer.svg.measure import shape_points
from composer.svg.transform import IDENTITY, Matrix, apply, multiply, parse_transform, translation

#: containers whose content is not drawn where it stands
_NOT_DRAWN = frozenset({"defs", "clipPath", "mask", "symbol", "marker", "pattern", "linearGradient",
                        "radialGradient", "filter", "metadata", "title", "desc", "style", "script"})
_SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "image"})


def _local(tag: object) -> str | None:
    """The local name of an SVG element's tag (None for comments and foreign elements)."""
    if not isinstance(tag, str):
        return None
    if tag.startswith("{"):
        ns, _, name = tag[1:].partition("}")
        return name if ns == SVG_NS else None
    return tag


def _number(el: etree._Element, name: str) -> float:
    try:
        return float(re.sub(r"[a-z%]+$", "", el.get(name, "") or "") or 0.0)
    except ValueError:
        return 0.0


def _outline(el: etree._Element, tag: str) -> list[tuple[float, float]]:
    """Points whose box is the element's geometric box in its own user units."""
    if tag in ("rect", "image"):
        x, y, w, h = _number(el, "x"), _number(el, "y"), _number(el, "width"), _number(el, "height")
        return [(x, y), (x + w, y), (x, y + h), (x + w, y + h)]
    points = shape_points(el, tag)
    if tag in ("circle", "ellipse") and len(points) == 2:
        (x0, y0), (x1, y1) = points
        return [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
    return points


def _symbol_matrix(symbol: etree._Element, use: etree._Element) -> Matrix:
    """The map from a ``<symbol>``'s viewBox into the viewport of the ``<use>`` drawing it (SVG 2, 5.6:
    ``preserveAspectRatio``, default ``xMidYMid meet``); identity without a usable viewBox. A use's
    ``width``/``height`` missing, or not plain numbers, is the viewBox's own size."""
    try:
        vx, vy, vw, vh = (float(v) for v in re.split(r"[\s,]+", (symbol.get("viewBox") or "").strip()))
    except ValueError:
        return IDENTITY
    if vw <= 0 or vh <= 0:
        return IDENTITY
    width, height = (_number(use, k) or size for k, size in (("width", vw), ("height", vh)))
    sx, sy = width / vw, height / vh
    ratio = (symbol.get("preserveAspectRatio") or "xMidYMid meet").split()
    if ratio[0] != "none":
        sx = sy = (max if ratio[1:] == ["slice"] else min)(sx, sy)
        align = ratio[0]
        fx = {"xMin": 0.0, "xMid": 0.5, "xMax": 1.0}.get(align[:4], 0.5)
        fy = {"YMin": 0.0, "YMid": 0.5, "YMax": 1.0}.get(align[4:], 0.5)
    else:
        fx = fy = 0.0
    tx, ty = fx * (width - vw * sx), fy * (height - vh * sy)
    return (sx, 0.0, 0.0, sy, tx - vx * sx, ty - vy * sy)


def element_boxes(root: etree._Element) -> dict[str, BBox]:
    """id -> ``(x0, y0, x1, y1)`` of each measurable element of the document, in root user units.

    Args:
        root: a parsed SVG document's ``<svg>`` element (not modified).

    Returns:
        One entry per id of an element that draws geometry (see the module
        docstring); the first element wins when an id repeats (as a browser
        resolves references). Ids of defs, texts and empty groups are absent.

    Raises:
        ValueError: a ``transform`` that cannot be parsed
            (:func:`composer.svg.transform.parse_transform`).
    """
    boxes: dict[str, BBox] = {}

    def walk(el: etree._Element, m: Matrix, record: bool) -> BBox | None:
        tag = _local(el.tag)
        if tag is None or tag in _NOT_DRAWN:
            return None
        own = multiply(m, parse_transform(el.get("transform"))) if el is not root else m
        found: BBox | None = None
        if tag in _SHAPES:
            found = points_bbox([apply(own, x, y) for x, y in _outline(el, tag)])
        elif tag in ("g", "a", "switch", "svg"):
            held = [b for child in el for b in [walk(child, own, record)] if b is not None]
            found = union(held) if held else None
        elif tag == "use":
            found = used(el, own)
        ident = el.get("id")
        if record and ident and found is not None and ident not in boxes:
            boxes[ident] = found
        return found

    def used(el: etree._Element, m: Matrix) -> BBox | None:
        href = el.get("href") or el.get(f"{{{XLINK_NS}}}href") or ""
        target = by_id.get(href[1:]) if href.startswith("#") else None
        if target is None or id(target) in expanding:  # nothing, or a cycle: drawn as nothing
            return None
        expanding.add(id(target))
        try:
            moved = multiply(m, translation(_number(el, "x"), _number(el, "y")))
            if _local(target.tag) != "symbol":
                return walk(target, moved, False)
            inner = multiply(moved, _symbol_matrix(target, el))
            held = [b for child in target for b in [walk(child, inner, False)] if b is not None]
            return union(held) if held else None
        finally:
            expanding.discard(id(target))

    by_id: dict[str, etree._Element] = {}
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id") and el.get("id") not in by_id:
            by_id[el.get("id")] = el
    expanding: set[int] = set()
    walk(root, IDENTITY, True)
    return dict(sorted(boxes.items()))
