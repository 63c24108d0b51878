"""The viewBox of an SVG document: the rectangle of user space its content is drawn in, and its map onto a box.

:func:`view_box` reads a document's viewBox; :func:`place` maps one onto a box of the canvas (SVG 2, 8.2,
"the viewBox to viewport transformation"), as the geometry stage measures a panel and the compose stage
draws it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lxml import etree

from composer.errors import SvgError
from composer.svg.css import declarations
from composer.svg.io import SVG_NS as _SVG_NS
from composer.svg.io import document_text, svg_tag
from composer.units import CSS_PT_PER_UNIT, PX_PER_UNIT, fmt


@dataclass(frozen=True)
class ViewBox:
    """An SVG viewBox: origin and size in the document's user units."""

    x: float
    y: float
    width: float
    height: float


#: the size of an SVG image that says none, in CSS px: the default object size (CSS Images 3, 5.2), at
#: which a browser draws an ``<img>`` of such a file
DEFAULT_SIZE_PX = (300.0, 150.0)


def view_box(root: etree._Element, *, source: str) -> ViewBox:
    """The root's viewBox, or ``0 0 width height`` in CSS px (the user unit of an SVG without a viewBox)
    when it has none. A side without a usable length (missing, a percentage, negative, zero or not a
    length: ``auto``, SVG 2, 8.2) is the default object size's, 300 x 150 px, as a browser sizes an image of
    the file (a zero side draws nothing: :func:`composer.stages.fragment._resolve_switches`).

    Raises:
        SvgError: a viewBox that is not four finite numbers or has no area.
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
    for attr, default in zip(("width", "height"), DEFAULT_SIZE_PX):
        value = root.get(attr, "")
        match = re.fullmatch(r"\s*([0-9.]+)\s*(pt|in|mm|cm|px|)\s*", value)
        if not match or match.group(1).count(".") > 1 or not 0 < float(match.group(1)) < math.inf:
            sizes.append(default)
        else:
            sizes.append(float(match.group(1)) * PX_PER_UNIT[match.group(2)])
    return ViewBox(0.0, 0.0, sizes[0], sizes[1])


def zero_size(root: etree._Element) -> bool:
    """Whether the root's ``width`` or ``height`` is zero, which disables its rendering (SVG 2, 8.2)."""
    for attr in ("width", "height"):
        match = re.fullmatch(r"\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*([a-zA-Z%]*)\s*", root.get(attr) or "")
        if match and float(match.group(1)) == 0:
            return True
    return False


@dataclass(frozen=True)
class CanvasSize:
    """The size an SVG document is drawn at (:func:`canvas_size`): ``width_pt``, ``height_pt`` and its
    ``view_box`` (None when it has no usable one)."""

    width_pt: float
    height_pt: float
    view_box: ViewBox | None


_ROOT_TAG = re.compile(r"<svg\b[^>]*>", re.S)
#: bytes decoded first to find the root's start tag (the whole document only when it is not there)
_HEAD_BYTES = 1 << 16
_ATTR = r"""(?<![\w:-]){}\s*=\s*(["'])(.*?)\1"""
#: CSS absolute lengths in pt (CSS Values 3, section 5.2: 1 in = 96 px = 72 pt); a bare number is px.
_PT_PER = {"": CSS_PT_PER_UNIT["px"], **CSS_PT_PER_UNIT}
#: the largest side a canvas may have (pt; :data:`composer.units.MAX_LENGTH_PT`: 35 m)
MAX_CANVAS_PT = 100_000


def canvas_size(svg: bytes, *, source: str = "canvas") -> CanvasSize:
    """The size at which an SVG document is exported and shown: its root's ``width`` and ``height``.

    Read from the root's start tag alone (``svg`` may be only the start of the document), so a large
    file is not parsed; the bytes are decoded as the parser reads them (:func:`composer.svg.io.document_text`:
    a UTF-16 file's root is found as a UTF-8 one's). A bare number or px is a CSS px (1/96 in), ``mm``,
    ``cm``, ``in``, ``pt``, ``pc`` and ``q`` are CSS's absolute units (:data:`composer.units.CSS_PT_PER_UNIT`,
    any case); a root without width or height (or with a percentage) takes its viewBox's size in px, as SVG 2, 8.2 (the
    initial viewport) does for a standalone file.

    Raises:
        SvgError: no root ``<svg>``, no size from either, or a side not above 0 and at most
            :data:`MAX_CANVAS_PT`.
    """
    root = _ROOT_TAG.search(document_text(svg[:_HEAD_BYTES])) or _ROOT_TAG.search(document_text(svg))
    if root is None:
        raise SvgError("no <svg> root element", file=source)
    tag = root.group(0)

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


#: suffix of the id of the rect that paints the root's ``background-color``
BACKGROUND = "-background"


def viewport_of(group: etree._Element) -> etree._Element | None:
    """The nested ``<svg>`` viewport :func:`composer.stages.fragment.import_fragment` keeps in ``group``
    (``viewport=True``), or None."""
    if len(group) == 1 and group[0].tag == svg_tag("g") and group.text is None:
        group = group[0]  # the root's group effects
    if len(group) == 1 and group[0].tag == svg_tag("svg"):
        return group[0]
    return None


def _aspect(aspect: str | None) -> tuple[str, str]:
    """``preserveAspectRatio`` -> (align, ``meet``/``slice``); an invalid value is the default
    ``xMidYMid meet`` (SVG 2, 8.6: an unparsable value is as if not given); ``defer`` is ignored."""
    words = (aspect or "").split()
    if words[:1] == ["defer"]:
        words = words[1:]
    align = words[0] if words else "xMidYMid"
    mode = words[1] if len(words) > 1 else "meet"
    if len(words) > 2 or mode not in ("meet", "slice") or not (
            align == "none" or re.fullmatch(r"x(Min|Mid|Max)Y(Min|Mid|Max)", align)):
        return "xMidYMid", "meet"
    return align, mode


def user_number(value: float) -> str:
    """A number for the viewport's attributes: 9 significant digits, as the viewBox is in the file's
    own user units (which may be tiny or huge); deterministic (``repr`` of the rounded float)."""
    text = f"{value:.9g}"
    return "0" if text in ("-0", "") else text


def place(group: etree._Element, vb: ViewBox, *, x_pt: float, y_pt: float, width_pt: float, height_pt: float,
          fit: str, aspect: str | None = None) -> tuple[float, float, float, float]:
    """Map ``vb`` onto the box by setting the group's transform.

    Args:
        fit: ``"exact"`` requires the viewBox to have the box's size (scale 1,
            used for matplotlib panels: never scale a rendered panel);
            ``"contain"`` scales as the file's ``preserveAspectRatio`` says.
        aspect: the file's ``preserveAspectRatio`` (default ``xMidYMid meet``):
            its ``xMin``/``xMid``/``xMax``, ``YMin``/``YMid``/``YMax`` place the
            content in the box; ``none`` stretches it to the box; ``meet`` scales
            it to fit in the box, ``slice`` to cover it (cut at the box's edges by
            the viewport :func:`composer.stages.fragment.import_fragment` keeps, as a viewer cuts the file).

    The group's transform is the map from the viewBox to the box (SVG 2, 8.2, "the viewBox
    to viewport transformation"), so a reader of the canvas finds every element's size
    in it; a viewport the group holds (:func:`viewport_of`) is set to the box mapped
    back into the file's user units, with the file's viewBox and preserveAspectRatio,
    which makes its own map the identity: the engine draws it where the group says, and
    cuts and resolves percentages as the file alone does.

    Returns:
        The placed content's (x, y, width, height) in canvas pt (the viewBox's image; with
        ``slice`` larger than the box).
    """
    sx = sy = 1.0
    fx = fy = 0.5
    if fit == "exact":
        if abs(vb.width - width_pt) > 1e-3 or abs(vb.height - height_pt) > 1e-3:
            raise SvgError(f"panel SVG is {vb.width:.3f}x{vb.height:.3f} pt, box is {width_pt:.3f}x{height_pt:.3f} pt")
    else:
        align, mode = _aspect(aspect)
        if align == "none":
            sx, sy = width_pt / vb.width, height_pt / vb.height
        else:
            sx = sy = (max if mode == "slice" else min)(width_pt / vb.width, height_pt / vb.height)
            m = re.fullmatch(r"x(Min|Mid|Max)Y(Min|Mid|Max)", align)
            if m:
                fx, fy = ({"Min": 0.0, "Mid": 0.5, "Max": 1.0}[g] for g in m.groups())
    w, h = vb.width * sx, vb.height * sy
    x = x_pt + (width_pt - w) * fx - vb.x * sx
    y = y_pt + (height_pt - h) * fy - vb.y * sy
    transform = f"translate({fmt(x)} {fmt(y)})"
    if sx != sy:
        transform += f" scale({sx:.6g} {sy:.6g})"
    elif sx != 1.0:
        transform += f" scale({sx:.6g})"
    group.set("transform", transform)
    inner = viewport_of(group) if fit != "exact" else None
    if inner is not None:
        # the box in the group's user units: the inverse of translate(x y) scale(sx sy) as written
        tx, ty, kx, ky = float(fmt(x)), float(fmt(y)), float(f"{sx:.6g}"), float(f"{sy:.6g}")
        for attr, value in (("x", (x_pt - tx) / kx), ("y", (y_pt - ty) / ky), ("width", width_pt / kx),
                            ("height", height_pt / ky)):
            inner.set(attr, user_number(value))
        inner.set("viewBox", " ".join(user_number(v) for v in (vb.x, vb.y, vb.width, vb.height)))
        background = inner[0] if len(inner) else None
        if background is not None and background.get("id") == f"{group.get('id')}{BACKGROUND}":
            for attr in ("x", "y", "width", "height"):
                background.set(attr, inner.get(attr, "0"))
    return x + vb.x * sx, y + vb.y * sy, w, h
