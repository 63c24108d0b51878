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
  ``<text>`` (no font metrics here) and ``<use>`` are not measured, and a
  group counts only what it holds of the above.

Nothing here knows about figures: mapping these boxes onto a canvas is the
caller's business.
"""

from __future__ import annotations

import re

from lxml import etree

from composer.svg.geometry import BBox, points_bbox, union
from composer.svg.io import SVG_NS
from composer.svg.measure import shape_points
from composer.svg.transform import IDENTITY, Matrix, apply, multiply, parse_transform

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

    def walk(el: etree._Element, m: Matrix) -> BBox | None:
        tag = _local(el.tag)
        if tag is None or tag in _NOT_DRAWN:
            return None
        own = multiply(m, parse_transform(el.get("transform"))) if el is not root else m
        found: BBox | None = None
        if tag in _SHAPES:
            found = points_bbox([apply(own, x, y) for x, y in _outline(el, tag)])
        elif tag in ("g", "a", "switch", "svg"):
            held = [b for child in el for b in [walk(child, own)] if b is not None]
            found = union(held) if held else None
        ident = el.get("id")
        if ident and found is not None and ident not in boxes:
            boxes[ident] = found
        return found

    walk(root, IDENTITY)
    return dict(sorted(boxes.items()))
