"""The viewBox of an SVG document: the rectangle of user space its content is drawn in."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lxml import etree

from composer.errors import SvgError
from composer.svg.css import declarations
from composer.svg.io import SVG_NS as _SVG_NS
from composer.units import CSS_PT_PER_UNIT, PX_PER_UNIT


@dataclass(frozen=True)
class ViewBox:
    """An SVG viewBox: origin and size in the document's user units."""

    x: float
    y: float
    width: float
    height: float


def view_box(root: etree._Element, *, source: str) -> ViewBox:
    """The root's viewBox, or ``0 0 width height`` in CSS px (the user unit of an
    SVG without a viewBox) when it has none.

    Raises:
        SvgError: no usable viewBox and no absolute width/height.
    """
    text = root.get("viewBox")
    if text:
        try:
            x, y, w, h = (float(v) for v in re.split(r"[\s,]+", text.strip()))
        except ValueError:
            raise SvgError(f"viewBox {text!r} is not four numbers", file=source) from None
        if not all(math.isfinite(v) for v in (x, y, w, h)):
            raise SvgError(f"viewBox {text!r} is not four finite numbers", file=source)
        if w <= 0 or h <= 0:
            raise SvgError(f"viewBox {text!r} has no area", file=source)
        return ViewBox(x, y, w, h)
    sizes = []
    for attr in ("width", "height"):
        value = root.get(attr, "")
        match = re.fullmatch(r"\s*([0-9.]+)\s*(pt|in|mm|cm|px|)\s*", value)
        if not match or match.group(1).count(".") > 1 or not 0 < float(match.group(1)) < math.inf:
            raise SvgError(f"no viewBox and {attr}={value!r} is not an absolute length", file=source)
        sizes.append(float(match.group(1)) * PX_PER_UNIT[match.group(2)])
    return ViewBox(0.0, 0.0, sizes[0], sizes[1])


@dataclass(frozen=True)
class CanvasSize:
    """The size an SVG document is drawn at (:func:`canvas_size`): ``width_pt``, ``height_pt`` and its
    ``view_box`` (None when it has no usable one)."""

    width_pt: float
    height_pt: float
    view_box: ViewBox | None


_ROOT_TAG = re.compile(rb"<svg\b[^>]*>", re.S)
_ATTR = r"""(?<![\w:-]){}\s*=\s*(["'])(.*?)\1"""
#: CSS absolute lengths in pt (CSS Values 3, section 5.2: 1 in = 96 px = 72 pt); a bare number is px.
_PT_PER = {"": CSS_PT_PER_UNIT["px"], **CSS_PT_PER_UNIT}
#: the largest side a canvas may have (pt; :data:`composer.units.MAX_LENGTH_PT`: 35 m)
MAX_CANVAS_PT = 100_000


def canvas_size(svg: bytes, *, source: str = "canvas") -> CanvasSize:
    """The size at which an SVG document is exported and shown: its root's ``width`` and ``height``.

    Read from the root's start tag alone (``svg`` may be only the start of the document), so a large
    file is not parsed. A bare number or px is a CSS px (1/96 in), ``mm``, ``cm``, ``in``, ``pt``,
    ``pc`` and ``q`` are CSS's absolute units (:data:`composer.units.CSS_PT_PER_UNIT`, any case); a root
    without width or height (or with a percentage) takes its viewBox's size in px, as SVG 2, 8.2 (the
    initial viewport) does for a standalone file.

    Raises:
        SvgError: no root ``<svg>``, no size from either, or a side not above 0 and at most
            :data:`MAX_CANVAS_PT`.
    """
    root = _ROOT_TAG.search(svg)
    if root is None:
        raise SvgError("no <svg> root element", file=source)
    tag = root.group(0).decode("utf-8", "replace")

    def attr(name: str) -> str | None:
        m = re.search(_ATTR.format(name), tag, re.S)
        return m.group(2).strip() if m else None

    box = (attr("viewBox") or "").replace(",", " ").split()
    size = []
    for i, name in enumerate(("width", "height")):
        value = attr(name)
        m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)\s*([a-zA-Z]*)", value or "")
        if m and m.group(2).lower() in _PT_PER:
            size.append(float(m.group(1)) * _PT_PER[m.group(2).lower()])
        elif len(box) == 4 and re.fullmatch(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?", box[2 + i]):
            size.append(float(box[2 + i]) * 0.75)
        else:
            raise SvgError(f"the root <svg> has no usable {name} (a length) and no usable viewBox", file=source)
    if not all(0 < v <= MAX_CANVAS_PT for v in size):
        raise SvgError(f"the canvas is {size[0]:g} x {size[1]:g} pt; each side must be above 0 and at most "
                       f"{MAX_CANVAS_PT:,} pt", file=source)
    return CanvasSize(size[0], size[1], parse_view_box(attr("viewBox")))


def parse_view_box(text: str | None) -> ViewBox | None:
    """A ``viewBox`` attribute's four numbers (``"0 0 20 10"``, commas allowed), or None when it is
    missing, not four finite numbers or has no area (SVG 2, 8.6: then as if not given)."""
    try:
        x, y, w, h = (float(v) for v in re.split(r"[\s,]+", (text or "").strip()))
    except ValueError:
        return None
    if not all(math.isfinite(v) for v in (x, y, w, h)) or w <= 0 or h <= 0:
        return None
    return ViewBox(x, y, w, h)


#: a percentage, as a length list holds it (``50%``, ``-1.5e1%``)
_PERCENT = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)%")
#: which side of the viewport each length attribute's percentage is of (SVG 2, 8.9 "Units": x-ish
#: lengths of the width, y-ish of the height, others of the normalized diagonal sqrt((w^2 + h^2) / 2))
_AXIS = {
    **dict.fromkeys(("x", "x1", "x2", "cx", "width", "rx", "dx"), "width"),
    **dict.fromkeys(("y", "y1", "y2", "cy", "height", "ry", "dy"), "height"),
    **dict.fromkeys(("r", "stroke-width", "stroke-dasharray", "stroke-dashoffset"), "diagonal"),
}
#: the elements whose geometry attributes among :data:`_AXIS` take percentages of the viewport
_GEOMETRY = {
    "rect": ("x", "y", "width", "height", "rx", "ry"), "circle": ("cx", "cy", "r"),
    "ellipse": ("cx", "cy", "rx", "ry"), "line": ("x1", "y1", "x2", "y2"),
    "image": ("x", "y", "width", "height"), "use": ("x", "y", "width", "height"),
    "svg": ("x", "y", "width", "height"), "foreignObject": ("x", "y", "width", "height"),
    "text": ("x", "y", "dx", "dy"), "tspan": ("x", "y", "dx", "dy"),
}
_STROKE_LENGTHS = ("stroke-width", "stroke-dasharray", "stroke-dashoffset")
#: definitions inside a symbol whose content is drawn in another viewport (a marker's, a pattern's
#: tile) or in the user space of the element that references it: their percentages are left alone
_OTHER_VIEWPORT = frozenset({"symbol", "marker", "pattern", "clipPath", "mask", "filter", "linearGradient",
                             "radialGradient", "style", "script"})


def resolve_symbol_percentages(root: etree._Element) -> int:
    """Rewrite the percentage lengths inside every ``<symbol>`` with a usable ``viewBox`` as user units
    of that viewBox, in place; returns how many values were rewritten.

    A ``<symbol>`` drawn by a ``<use>`` establishes a viewport of its own (SVG 2, 5.6 and 8.2), and a
    percentage inside it is of that viewport's size, which with a ``viewBox`` is the viewBox's width
    and height in the symbol's user units (SVG 2, 8.9: percentages of x-ish lengths are of the width,
    y-ish of the height, others of the normalized diagonal sqrt((w^2 + h^2) / 2)), whatever size the
    ``<use>`` gives it. The export engine (typst's usvg) resolves them against the viewport around the
    ``<use>`` instead; rewritten here they draw the same in every renderer.

    Rewritten: the geometry attributes of shapes, images, ``<use>``, nested ``<svg>`` and text
    (``x``/``y``/``dx``/``dy`` lists included), and ``stroke-width``, ``stroke-dasharray`` and
    ``stroke-dashoffset`` as attributes or ``style`` declarations (on the symbol itself too: its
    content inherits them). Left alone: the content of a nested ``<svg>`` (a viewport of its own),
    of markers, patterns, clip paths, masks, filters and gradients (other viewports, or the
    referencing element's user space), font sizes (percentages of the parent's font size), CSS
    rules of ``<style>`` elements, and symbols without a viewBox (their viewport is the ``<use>``'s,
    which may differ for each use).
    """
    count = 0
    for symbol in root.iter(f"{{{_SVG_NS}}}symbol"):
        vb = parse_view_box(symbol.get("viewBox"))
        if vb is None:
            continue
        sides = {"width": vb.width, "height": vb.height, "diagonal": math.hypot(vb.width, vb.height) / math.sqrt(2)}
        count += _resolve_strokes(symbol, sides)
        stack = list(symbol)
        while stack:
            el = stack.pop()
            if not isinstance(el.tag, str) or not el.tag.startswith(f"{{{_SVG_NS}}}"):
                continue
            local = el.tag.rpartition("}")[2]
            if local in _OTHER_VIEWPORT:
                continue
            for attr in _GEOMETRY.get(local, ()):
                value = el.get(attr)
                if value is not None and "%" in value:
                    el.set(attr, _resolved(value, sides[_AXIS[attr]]))
                    count += 1
            count += _resolve_strokes(el, sides)
            if local != "svg":  # a nested <svg>'s content is in its own viewport
                stack.extend(el)
    return count


def _resolve_strokes(el: etree._Element, sides: dict[str, float]) -> int:
    """Resolve the percentages of ``el``'s stroke lengths (attributes and ``style``); how many."""
    count = 0
    for attr in _STROKE_LENGTHS:
        value = el.get(attr)
        if value is not None and "%" in value:
            el.set(attr, _resolved(value, sides["diagonal"]))
            count += 1
    style = el.get("style")
    if style and "%" in style and any(prop in style for prop in _STROKE_LENGTHS):
        decls = declarations(style)
        if any(prop in _STROKE_LENGTHS and "%" in value for prop, value in decls):
            el.set("style", "; ".join(f"{prop}: {_resolved(value, sides['diagonal'])}"
                                      if prop in _STROKE_LENGTHS else f"{prop}: {value}" for prop, value in decls))
            count += 1
    return count


def _resolved(value: str, side: float) -> str:
    """``value`` with each percentage replaced by that share of ``side`` (``"50% 10"`` of 20 -> ``"10 10"``)."""
    def number(match: re.Match[str]) -> str:
        text = f"{float(match.group(1)) * side / 100:.9g}"
        return "0" if text == "-0" else text

    return _PERCENT.sub(number, value)
