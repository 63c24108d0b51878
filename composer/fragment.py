"""Import stage: turn a panel's own SVG document into one group of the canvas.

Every naive SVG merger breaks here (see DESIGN.md): matplotlib writes the same
ids in every file (``figure_1``, ``patch_1``, glyph ids ``DejaVuSans-30``,
clip ids from a fixed ``svg.hashsalt``) and a ``<style>`` whose rules apply to
the whole document. :func:`import_fragment`

1. prefixes every id with the panel name (``rgb--figure_1``) and rewrites every
   reference to it: ``href``/``xlink:href`` ``#id``, ``url(#id)`` in any
   attribute including ``style``, and ``#id``/``url(#id)`` inside ``<style>``
   (the same reference sites svgo's ``prefixIds`` plugin covers);
2. scopes CSS: every selector of a panel's ``<style>`` is prefixed with the
   panel group's id (``#panel-rgb *``), so its rules cannot reach outside;
3. maps the document's viewBox onto the panel's box with a translate and one
   uniform scale (1 for matplotlib panels, which are rendered at box size).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import tinycss2
from lxml import etree

from .errors import SvgError
from .svgio import XLINK_NS, svg_tag
from .units import PT_PER_UNIT, fmt

_URL_REF = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
_HREFS = ("href", f"{{{XLINK_NS}}}href")
#: separator between panel name and original id; names cannot contain "-",
#: and canvas ids are "kind-name", so prefixed ids never collide with them.
SEPARATOR = "--"


@dataclass(frozen=True)
class ViewBox:
    """An SVG viewBox: origin and size in the document's user units."""

    x: float
    y: float
    width: float
    height: float


def view_box(root: etree._Element, *, source: str) -> ViewBox:
    """The root's viewBox, or ``0 0 width height`` (in pt) when it has none.

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
        sizes.append(float(match.group(1)) * PT_PER_UNIT[match.group(2) or "px"])
    return ViewBox(0.0, 0.0, sizes[0], sizes[1])


def import_fragment(root: etree._Element, *, name: str, group_id: str, source: str) -> etree._Element:
    """Rewrite a parsed SVG document into a ``<g id=group_id>`` (not yet placed).

    Args:
        root: the document's ``<svg>`` element (consumed: children are moved).
        name: the panel name used as id prefix (``rgb`` -> ``rgb--figure_1``).
        group_id: the id of the returned group (``panel-rgb``), used to scope CSS.
        source: file name for error messages.

    Returns:
        The group, holding the document's content with ids prefixed, every
        reference rewritten and CSS scoped. A reference to an id the document
        does not define is removed (it would dangle in the canvas), and so is
        a ``<use>`` left without one.
    """
    for meta in list(root.iter(svg_tag("metadata"), svg_tag("title"))):
        if meta.getparent() is root:
            root.remove(meta)
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    mapping = {old: f"{name}{SEPARATOR}{old}" for old in ids}

    def ref(match: re.Match[str]) -> str:
        new = mapping.get(match.group(2))
        return f"url(#{new})" if new else "none"

    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr, value in el.attrib.items():
            if attr == "id":
                el.set(attr, mapping[value])
            elif attr in _HREFS and value.startswith("#"):
                if value[1:] in mapping:
                    el.set(attr, "#" + mapping[value[1:]])
                else:
                    del el.attrib[attr]
            elif "url(" in value:
                el.set(attr, _URL_REF.sub(ref, value))
        if el.tag == svg_tag("image"):
            _crisp_image(el)
        if el.tag == svg_tag("style") and el.text:
            el.text = scope_css(el.text, scope=f"#{group_id}", mapping=mapping)
    for use in list(root.iter(svg_tag("use"))):
        if not any((use.get(attr) or "").startswith("#") for attr in _HREFS):
            # nothing to draw; and cairosvg takes a <use> without href for the whole document, recursing forever
            use.getparent().remove(use)
    group = etree.Element(svg_tag("g"), id=group_id)
    for child in list(root):
        group.append(child)
    return group


def _crisp_image(el: etree._Element) -> None:
    """Keep an image's pixels sharp in cairosvg as well as in browsers.

    matplotlib marks ``interpolation="none"`` images with
    ``style="image-rendering:crisp-edges;image-rendering:pixelated"``, which
    browsers honour but cairosvg ignores (it knows only SVG 1.1's
    ``optimizeSpeed``, mapped to cairo's nearest-neighbour FILTER_FAST).
    ``optimizeSpeed`` is added last, where cairosvg reads it; browsers treat it
    as ``pixelated`` (CSS Images 3, section 5.3).
    """
    style = el.get("style", "")
    if "pixelated" in style or "crisp-edges" in style:
        el.set("image-rendering", "optimizeSpeed")
        el.set("style", style.rstrip(";") + ";image-rendering:optimizeSpeed")


def scope_css(css: str, *, scope: str, mapping: dict[str, str]) -> str:
    """Prefix every selector of a stylesheet with ``scope`` and rename ``#id``s.

    ``*{stroke-linecap: butt}`` becomes ``#panel-rgb *{stroke-linecap: butt}``.
    At-rules (``@import``, ``@font-face``, ``@media``) are dropped: they cannot
    be scoped to a group, and ``@import`` would fetch a file.
    """
    out = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "qualified-rule":
            continue
        selectors = tinycss2.serialize(rule.prelude).split(",")
        scoped = []
        for sel in selectors:
            sel = re.sub(r"#([A-Za-z_][\w-]*)", lambda m: "#" + mapping.get(m.group(1), m.group(1)), sel.strip())
            scoped.append(f"{scope} {sel}")
        body = _URL_REF.sub(lambda m: f"url(#{mapping.get(m.group(2), m.group(2))})",
                            tinycss2.serialize(rule.content))
        out.append(f"{', '.join(scoped)} {{{body.strip()}}}")
    return "\n".join(out)


def place(group: etree._Element, vb: ViewBox, *, x_pt: float, y_pt: float, width_pt: float, height_pt: float,
          fit: str) -> tuple[float, float, float, float]:
    """Map ``vb`` onto the box by setting the group's transform.

    Args:
        fit: ``"exact"`` requires the viewBox to have the box's size (scale 1,
            used for matplotlib panels: never scale a rendered panel);
            ``"contain"`` scales uniformly to fit and centres (xMidYMid meet).

    Returns:
        The placed content's (x, y, width, height) in canvas pt.
    """
    if fit == "exact":
        scale = 1.0
        if abs(vb.width - width_pt) > 1e-3 or abs(vb.height - height_pt) > 1e-3:
            raise SvgError(f"panel SVG is {vb.width:.3f}x{vb.height:.3f} pt, box is {width_pt:.3f}x{height_pt:.3f} pt")
    else:
        scale = min(width_pt / vb.width, height_pt / vb.height)
    w, h = vb.width * scale, vb.height * scale
    x = x_pt + (width_pt - w) / 2 - vb.x * scale
    y = y_pt + (height_pt - h) / 2 - vb.y * scale
    transform = f"translate({fmt(x)} {fmt(y)})"
    if scale != 1.0:
        transform += f" scale({scale:.6g})"
    group.set("transform", transform)
    return x + vb.x * scale, y + vb.y * scale, w, h
