"""Import stage: turn a panel's own SVG document into one group of the canvas.

Every naive SVG merger breaks here (see docs/design.md): matplotlib writes the same
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
   uniform scale (1 for matplotlib panels, which are rendered at box size),
   aligned as the file's own ``preserveAspectRatio`` says (``none``
   stretches); a file without a viewBox has one of its width and height in
   CSS px, the user unit of such a file (SVG 1.1, 7.2);
4. keeps what the root ``<svg>`` itself says for its content: inherited
   presentation attributes (``fill``, ``font-family``, ``stroke-width``...)
   and its ``style`` move onto the group, so files from Inkscape, Illustrator
   or draw.io that set a default font or fill on the root look the same.
"""

from __future__ import annotations

import re

import tinycss2
from lxml import etree

from composer.errors import SvgError
from composer.svg.css import qualified_rules, selector_texts
from composer.svg.ids import SEPARATOR, document_order, prefixed
from composer.svg.io import XLINK_NS, svg_tag
from composer.svg.measure import is_glyph_definition
from composer.svg.viewbox import ViewBox, view_box
from composer.units import fmt

_URL_REF = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
_HREFS = ("href", f"{{{XLINK_NS}}}href")
__all__ = ["ROOT_PRESENTATION", "SEPARATOR", "ViewBox", "import_fragment", "place", "scope_css", "view_box"]


#: presentation attributes of the root ``<svg>`` that its content inherits (SVG 1.1, appendix N),
#: plus ``opacity``, which applies to the root's content as a whole.
ROOT_PRESENTATION = (
    "clip-rule", "color", "color-interpolation", "color-interpolation-filters", "color-rendering", "cursor",
    "direction", "dominant-baseline", "fill", "fill-opacity", "fill-rule", "font", "font-family", "font-size",
    "font-size-adjust", "font-stretch", "font-style", "font-variant", "font-weight", "image-rendering",
    "letter-spacing", "marker", "marker-end", "marker-mid", "marker-start", "opacity", "paint-order",
    "shape-rendering", "stroke", "stroke-dasharray", "stroke-dashoffset", "stroke-linecap", "stroke-linejoin",
    "stroke-miterlimit", "stroke-opacity", "stroke-width", "text-anchor", "text-rendering", "visibility",
    "word-spacing", "writing-mode",
)


def import_fragment(root: etree._Element, *, name: str, group_id: str, source: str,
                    renumber: bool = False) -> etree._Element:
    """Rewrite a parsed SVG document into a ``<g id=group_id>`` (not yet placed).

    Args:
        root: the document's ``<svg>`` element (consumed: it becomes the group).
        name: the panel name used as id prefix (``rgb`` -> ``rgb--figure_1``).
        group_id: the id of the returned group (``panel-rgb``), used to scope CSS.
        source: file name for error messages.
        renumber: give the ids their document order (:func:`composer.svg.ids.document_order`;
            for files made elsewhere, whose ids may be random) instead of keeping their names.

    Returns:
        The group, holding the document's content with ids prefixed, every
        reference rewritten and CSS scoped. A reference to an id the document
        does not define is removed (it would dangle in the canvas), and so is
        a ``<use>`` left without one. An id the document repeats is kept on
        its first element only (where a browser resolves references to it).
    """
    for meta in list(root.iter(svg_tag("metadata"), svg_tag("title"))):
        if meta.getparent() is root:
            root.remove(meta)
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    mapping = (document_order(root, name, keep=is_glyph_definition) if renumber
               else {old: prefixed(name, old) for old in ids})

    def ref(match: re.Match[str]) -> str:
        new = mapping.get(match.group(2))
        return f"url(#{new})" if new else "none"

    seen: set[str] = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr, value in el.attrib.items():
            if attr == "id":
                if value in seen:  # a repeated id: references go to the first, as in a browser
                    del el.attrib[attr]
                    continue
                seen.add(value)
                el.set(attr, mapping[value])
            elif attr in _HREFS and value.startswith("#"):
                if value[1:] in mapping:
                    el.set(attr, "#" + mapping[value[1:]])
                else:
                    del el.attrib[attr]
            elif "url(" in value:
                el.set(attr, _URL_REF.sub(ref, value))
        if el.tag == svg_tag("style") and el.text:
            el.text = scope_css(el.text, scope=f"#{group_id}", mapping=mapping)
    for use in list(root.iter(svg_tag("use"))):
        if not any((use.get(attr) or "").startswith("#") for attr in _HREFS):
            # nothing to draw; and cairosvg takes a <use> without href for the whole document, recursing forever
            use.getparent().remove(use)
    # the root itself becomes the group: moving its children into a new element would make lxml
    # reconcile the namespace of every xlink:href one node at a time (6.5 s for a 1e5-point scatter)
    kept = [(attr, root.get(attr, "")) for attr in ROOT_PRESENTATION if root.get(attr) is not None]
    if root.get("style"):
        kept.append(("style", root.get("style", "")))
    root.attrib.clear()
    root.text = None
    root.tag = svg_tag("g")
    root.set("id", group_id)
    for attr, value in kept:
        root.set(attr, value)
    return root


def scope_css(css: str, *, scope: str, mapping: dict[str, str]) -> str:
    """Prefix every selector of a stylesheet with ``scope`` and rename ``#id``s.

    ``*{stroke-linecap: butt}`` becomes ``#panel-rgb *{stroke-linecap: butt}``.
    At-rules (``@import``, ``@font-face``, ``@media``) are dropped: they cannot
    be scoped to a group, and ``@import`` would fetch a file.
    """
    out = []
    for rule in qualified_rules(css):
        scoped = []
        for sel in selector_texts(rule):
            sel = re.sub(r"#([A-Za-z_][\w-]*)", lambda m: "#" + mapping.get(m.group(1), m.group(1)), sel)
            scoped.append(f"{scope} {sel}")
        body = _URL_REF.sub(lambda m: f"url(#{mapping.get(m.group(2), m.group(2))})",
                            tinycss2.serialize(rule.content))
        out.append(f"{', '.join(scoped)} {{{body.strip()}}}")
    return "\n".join(out)


def place(group: etree._Element, vb: ViewBox, *, x_pt: float, y_pt: float, width_pt: float, height_pt: float,
          fit: str, aspect: str | None = None) -> tuple[float, float, float, float]:
    """Map ``vb`` onto the box by setting the group's transform.

    Args:
        fit: ``"exact"`` requires the viewBox to have the box's size (scale 1,
            used for matplotlib panels: never scale a rendered panel);
            ``"contain"`` scales uniformly to fit, aligned by ``aspect``.
        aspect: the file's ``preserveAspectRatio`` (default ``xMidYMid meet``):
            its ``xMin``/``xMid``/``xMax``, ``YMin``/``YMid``/``YMax`` place the
            content in the box; ``none`` stretches it to the box; ``slice`` is
            drawn as ``meet`` (composer never crops a panel).

    Returns:
        The placed content's (x, y, width, height) in canvas pt.
    """
    sx = sy = 1.0
    fx = fy = 0.5
    if fit == "exact":
        if abs(vb.width - width_pt) > 1e-3 or abs(vb.height - height_pt) > 1e-3:
            raise SvgError(f"panel SVG is {vb.width:.3f}x{vb.height:.3f} pt, box is {width_pt:.3f}x{height_pt:.3f} pt")
    else:
        align = (aspect or "xMidYMid").split()[0] if (aspect or "").strip() else "xMidYMid"
        if align == "none":
            sx, sy = width_pt / vb.width, height_pt / vb.height
        else:
            sx = sy = min(width_pt / vb.width, height_pt / vb.height)
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
    return x + vb.x * sx, y + vb.y * sy, w, h
