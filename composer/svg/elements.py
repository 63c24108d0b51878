"""Boxes of an SVG document's elements by id, in the document's user units.

:func:`element_boxes` gives every element with an ``id`` that draws
geometry (a basic shape, a path, an image, or a group holding any of these)
its axis-aligned bounding box in the user units of the root ``<svg>``
(its viewBox's coordinates), y down:

- every ``transform`` from the element (its own included) up to, but not
  including, the root is applied: the root's own ``transform`` is not part of
  the user space its viewBox describes. A CSS ``transform`` in an element's
  ``style`` (or from a ``<style>`` rule) overrides its attribute, read as the
  import writes it
  (:func:`composer.svg.transform.css_transform_to_svg`); one that has no SVG
  equivalent is dropped at import, and so here;
- a nested ``<svg>`` is a viewport: its content is mapped by its ``x``/``y``
  and its ``viewBox`` into its ``width`` x ``height`` (default 100 %) by its
  ``preserveAspectRatio`` (SVG 2, 8.2 and 8.5). Its clip is not applied:
  content outside it still counts;
- coordinates and lengths are resolved as a viewer resolves them: absolute
  units at 96 px per inch (CSS Values 4, 6.2; px is the user unit), and
  percentages against the nearest viewport's viewBox (or its size when it has
  none): ``x``/``width`` against its width, ``y``/``height`` against its
  height, ``r`` against the normalized diagonal sqrt((w^2 + h^2) / 2) (SVG 2,
  8.9); other units (``em``) are taken as their number;
- the box is the geometric one (SVG 2 ``getBBox()``, "fill box"): the stroke
  is **excluded**, as are markers and filters;
- the box is the exact extent of the transformed geometry: a path's Beziers
  and elliptical arcs by their extrema (svgelements, ``Path.bbox``), an
  ellipse or circle by its extent under the transform, a rect or image by its
  four transformed corners;
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

import math
import re

import svgelements
from lxml import etree

from composer.svg.css import StyleSheet, declarations
from composer.svg.geometry import BBox, points_bbox, union
from composer.svg.io import SVG_NS, XLINK_NS
from composer.svg.measure import path_points, shape_points
from composer.svg.transform import IDENTITY, Matrix, apply, css_transform_to_svg, multiply, parse_transform, translation
from composer.units import PX_PER_UNIT

#: containers whose content is not drawn where it stands
_NOT_DRAWN = frozenset({"defs", "clipPath", "mask", "symbol", "marker", "pattern", "linearGradient",
                        "radialGradient", "filter", "metadata", "title", "desc", "style", "script"})
_SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path", "image"})
#: a length attribute: a number and its unit (SVG 2, 4.6)
_LENGTH = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]*)\s*")
#: a viewport's size (width, height) in the user units of what it holds
Viewport = tuple[float, float]


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


def _length(el: etree._Element, name: str, axis: str, viewport: Viewport, default: float = 0.0) -> float:
    """Attribute ``name`` of ``el`` in user units: absolute units at 96 px/in, a percentage of the
    viewport's width (``axis`` "x"), height ("y") or normalized diagonal ("xy"; SVG 2, 8.9);
    ``default`` when missing or unreadable."""
    match = _LENGTH.fullmatch(el.get(name) or "")
    if not match:
        return default
    value, unit = float(match.group(1)), match.group(2).lower()
    if unit == "%":
        width, height = viewport
        whole = width if axis == "x" else height if axis == "y" else math.sqrt((width**2 + height**2) / 2)
        return value * whole / 100.0
    return value * PX_PER_UNIT.get(unit, 1.0)


def _transform_declarations(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((name, value) for name, value in declarations(text) if name == "transform")


def rule_transforms(root: etree._Element) -> dict[etree._Element, str]:
    """Element -> the CSS ``transform`` the document's ``<style>`` rules give it (the winning one, as
    :meth:`composer.svg.css.StyleSheet.by_element` matches them); empty when no rule sets one."""
    if not any("transform" in (style.text or "") for style in root.iter(f"{{{SVG_NS}}}style")):
        return {}
    sheet = StyleSheet(root, _transform_declarations)
    return {el: found["transform"] for el, found in sheet.by_element(root).items() if "transform" in found}


def own_transform(el: etree._Element, ruled: dict[etree._Element, str] | None = None) -> str | None:
    """The transform ``el`` is drawn with, as ``transform`` attribute text: its CSS ``transform`` (its
    ``style``'s, else the one ``<style>`` rules give it, ``ruled``: :func:`rule_transforms`) when SVG can
    express it (it overrides the attribute; CSS Transforms 1, SVG 2 7.5), else its ``transform``
    attribute (a CSS transform that cannot be expressed is dropped at import:
    :func:`composer.svg.transform.css_transform_to_svg`)."""
    value = None
    style = el.get("style")
    if style and "transform" in style:
        value = dict(declarations(style)).get("transform")
    if value is None and ruled:
        value = ruled.get(el)
    if value is not None:
        try:
            return css_transform_to_svg(value)
        except ValueError:
            pass
    return el.get("transform")


def _ellipse_box(m: Matrix, cx: float, cy: float, rx: float, ry: float) -> BBox:
    """The exact box of the ellipse (cx, cy, rx, ry) mapped by ``m``: the image of
    (cx + rx cos t, cy + ry sin t) has x half-extent sqrt((a rx)^2 + (c ry)^2) and y half-extent
    sqrt((b rx)^2 + (d ry)^2) about the image of the centre."""
    a, b, c, d, _, _ = m
    x, y = apply(m, cx, cy)
    hx, hy = math.hypot(a * rx, c * ry), math.hypot(b * rx, d * ry)
    return (x - hx, y - hy, x + hx, y + hy)


def _path_box(d: str, m: Matrix) -> BBox | None:
    """The exact box of path data ``d`` mapped by ``m`` (svgelements: the extrema of its Beziers and
    arcs); None for a path that draws nothing. Data svgelements cannot read falls back to
    :func:`composer.svg.measure.path_points`."""
    try:
        path = svgelements.Path(d) * svgelements.Matrix(*m)
        found = path.bbox(transformed=True)
    except (ValueError, IndexError, TypeError, ZeroDivisionError):
        points = [apply(m, x, y) for sub in path_points(d) for x, y in sub]
        return points_bbox(points) if points else None
    if found is None:
        return None
    x0, y0, x1, y1 = (float(v) for v in found)
    return (x0, y0, x1, y1)


def _shape_box(el: etree._Element, tag: str, m: Matrix, viewport: Viewport) -> BBox | None:
    """The geometric box of a basic shape, path or image drawn under ``m`` (see the module docstring)."""
    if tag in ("rect", "image"):
        x, y = _length(el, "x", "x", viewport), _length(el, "y", "y", viewport)
        w, h = _length(el, "width", "x", viewport), _length(el, "height", "y", viewport)
        return points_bbox([apply(m, px, py) for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))])
    if tag in ("circle", "ellipse"):
        cx, cy = _length(el, "cx", "x", viewport), _length(el, "cy", "y", viewport)
        if tag == "circle":
            rx = ry = _length(el, "r", "xy", viewport)
        else:
            rx, ry = _length(el, "rx", "x", viewport), _length(el, "ry", "y", viewport)
        return _ellipse_box(m, cx, cy, rx, ry)
    if tag == "line":
        ends = [(_length(el, f"x{i}", "x", viewport), _length(el, f"y{i}", "y", viewport)) for i in (1, 2)]
        return points_bbox([apply(m, x, y) for x, y in ends])
    if tag == "path":
        return _path_box(el.get("d") or "", m)
    points = shape_points(el, tag)
    return points_bbox([apply(m, x, y) for x, y in points]) if points else None


def _fit_matrix(box_text: str | None, aspect: str | None, width: float, height: float) -> Matrix | None:
    """The map from a viewBox ``box_text`` into a ``width`` x ``height`` viewport at (0, 0) by
    ``preserveAspectRatio`` ``aspect`` (SVG 2, 8.2; default ``xMidYMid meet``); None without a usable
    viewBox."""
    try:
        vx, vy, vw, vh = (float(v) for v in re.split(r"[\s,]+", (box_text or "").strip()))
    except ValueError:
        return None
    if vw <= 0 or vh <= 0:
        return None
    sx, sy = width / vw, height / vh
    ratio = (aspect or "xMidYMid meet").split()
    if ratio and ratio[0] == "defer":  # SVG 1.1: only for <image>; ignored elsewhere
        ratio = ratio[1:] or ["xMidYMid"]
    if ratio[0] != "none":
        sx = sy = (max if ratio[1:] == ["slice"] else min)(sx, sy)
        align = ratio[0]
        fx = {"xMin": 0.0, "xMid": 0.5, "xMax": 1.0}.get(align[:4], 0.5)
        fy = {"YMin": 0.0, "YMid": 0.5, "YMax": 1.0}.get(align[4:], 0.5)
    else:
        fx = fy = 0.0
    tx, ty = fx * (width - vw * sx), fy * (height - vh * sy)
    return (sx, 0.0, 0.0, sy, tx - vx * sx, ty - vy * sy)


def _symbol_matrix(symbol: etree._Element, use: etree._Element) -> Matrix:
    """The map from a ``<symbol>``'s viewBox into the viewport of the ``<use>`` drawing it (SVG 2, 5.6:
    ``preserveAspectRatio``, default ``xMidYMid meet``); identity without a usable viewBox. A use's
    ``width``/``height`` missing, or not plain numbers, is the viewBox's own size."""
    try:
        _, _, vw, vh = (float(v) for v in re.split(r"[\s,]+", (symbol.get("viewBox") or "").strip()))
    except ValueError:
        return IDENTITY
    width, height = (_number(use, k) or size for k, size in (("width", vw), ("height", vh)))
    return _fit_matrix(symbol.get("viewBox"), symbol.get("preserveAspectRatio"), width, height) or IDENTITY


def _box_size(el: etree._Element) -> Viewport | None:
    """The (width, height) of a viewBox attribute, None without a usable one."""
    try:
        _, _, w, h = (float(v) for v in re.split(r"[\s,]+", (el.get("viewBox") or "").strip()))
    except ValueError:
        return None
    return (w, h) if w > 0 and h > 0 else None


def _nested_viewport(el: etree._Element, outer: Viewport) -> tuple[Matrix, Viewport] | None:
    """A nested ``<svg>``'s map from its content's user units to its parent's (its ``x``/``y``, then
    its viewBox fitted into its ``width`` x ``height``, SVG 2 8.2) and the viewport its content's
    percentages refer to; None when it draws nothing (a zero width or height, SVG 2 8.5)."""
    x, y = _length(el, "x", "x", outer), _length(el, "y", "y", outer)
    width, height = _length(el, "width", "x", outer, outer[0]), _length(el, "height", "y", outer, outer[1])
    if width <= 0 or height <= 0:
        return None
    fit = _fit_matrix(el.get("viewBox"), el.get("preserveAspectRatio"), width, height)
    inner = _box_size(el) if fit is not None else None
    return multiply(translation(x, y), fit or IDENTITY), inner or (width, height)


def _root_viewport(root: etree._Element) -> Viewport:
    """The viewport the root's percentages refer to: its viewBox's size, else its width and height
    (100 x 100 when neither says)."""
    size = _box_size(root)
    if size is not None:
        return size
    width, height = _length(root, "width", "x", (0.0, 0.0)), _length(root, "height", "y", (0.0, 0.0))
    return (width if width > 0 else 100.0, height if height > 0 else 100.0)


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

    def walk(el: etree._Element, m: Matrix, record: bool, viewport: Viewport) -> BBox | None:
        tag = _local(el.tag)
        if tag is None or tag in _NOT_DRAWN:
            return None
        own = multiply(m, parse_transform(own_transform(el, ruled))) if el is not root else m
        found: BBox | None = None
        if tag in _SHAPES:
            found = _shape_box(el, tag, own, viewport)
        elif tag in ("g", "a", "switch", "svg"):
            inner, inner_viewport = own, viewport
            if tag == "svg" and el is not root:
                nested = _nested_viewport(el, viewport)
                if nested is None:
                    return None
                inner, inner_viewport = multiply(own, nested[0]), nested[1]
            held = [b for child in el for b in [walk(child, inner, record, inner_viewport)] if b is not None]
            found = union(held) if held else None
        elif tag == "use":
            found = used(el, own, viewport)
        ident = el.get("id")
        if record and ident and found is not None and ident not in boxes:
            boxes[ident] = found
        return found

    def used(el: etree._Element, m: Matrix, viewport: Viewport) -> BBox | None:
        href = el.get("href") or el.get(f"{{{XLINK_NS}}}href") or ""
        target = by_id.get(href[1:]) if href.startswith("#") else None
        if target is None or id(target) in expanding:  # nothing, or a cycle: drawn as nothing
            return None
        expanding.add(id(target))
        try:
            moved = multiply(m, translation(_length(el, "x", "x", viewport), _length(el, "y", "y", viewport)))
            if _local(target.tag) != "symbol":
                return walk(target, moved, False, viewport)
            inner = multiply(moved, _symbol_matrix(target, el))
            size = _box_size(target) or viewport
            held = [b for child in target for b in [walk(child, inner, False, size)] if b is not None]
            return union(held) if held else None
        finally:
            expanding.discard(id(target))

    by_id: dict[str, etree._Element] = {}
    for el in root.iter():
        if isinstance(el.tag, str) and el.get("id") and el.get("id") not in by_id:
            by_id[el.get("id")] = el
    expanding: set[int] = set()
    ruled = rule_transforms(root)
    walk(root, IDENTITY, True, _root_viewport(root))
    return dict(sorted(boxes.items()))
