"""Import stage: turn a panel's own SVG document into one group of the canvas.

Every naive SVG merger breaks here (see docs/design.md): matplotlib writes the same
ids in every file (``figure_1``, ``patch_1``, glyph ids ``DejaVuSans-30``,
clip ids from a fixed ``svg.hashsalt``) and a ``<style>`` whose rules apply to
the whole document. :func:`import_fragment` runs the passes of :data:`PASSES` in
order (each one job, one function), and so

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
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import tinycss2
from lxml import etree

from composer.errors import ImportFeature, SvgError
from composer.svg.conditions import conditions_pass
from composer.svg.css import declarations, inline_style_sheets, qualified_rules, selector_texts, weighed_declarations
from composer.svg.elements import rule_transforms
from composer.svg.ids import SEPARATOR, document_order, prefixed
from composer.svg.io import XLINK_NS, remove_keeping_tail, svg_tag
from composer.svg.measure import is_glyph_definition
from composer.svg.transform import css_transform_to_svg, cumulative, scale_of
from composer.svg.viewbox import BACKGROUND, ViewBox, user_number, view_box, zero_size
from composer.units import PX_PER_UNIT, length_px

_URL_REF = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
_HREFS = ("href", f"{{{XLINK_NS}}}href")
_USE = svg_tag("use")
#: ``url(#id)`` and the fallback paint after it (``url(#g) green``, SVG 2, 13.2: used when #g is missing)
_URL_FALLBACK = re.compile(_URL_REF.pattern + r"(\s+(?!url\()(?:[A-Za-z-]+\([^)]*\)|[^\s;,)]+))?")
#: a first compound selector holding ``:root`` (``:root``, ``svg:root``, ``:root.k``), before a combinator
_ROOT_COMPOUND = re.compile(r"([^\s>+~:]*):root(?![\w-])([^\s>+~]*)")
__all__ = ["ROOT_PRESENTATION", "SEPARATOR", "ViewBox", "import_fragment", "scope_css", "view_box"]


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


@dataclass
class Import:
    """One document being imported: what the passes of :data:`PASSES` read and write.

    Attributes:
        root: the document's ``<svg>`` element, rewritten in place.
        name, group_id, source, renumber, viewport, size_px: the arguments of :func:`import_fragment`.
        mapping: old id -> new id (:func:`name_ids`).
        empty_uses: the ``<use>`` elements :func:`rewrite_references` left without a ``#id`` to draw, in
            document order, for :func:`remove_empty_uses` (one walk of the tree for both); None before.
        group: the result (:func:`make_group`); None before.
    """

    root: etree._Element
    name: str
    group_id: str
    source: str
    renumber: bool = False
    viewport: bool = False
    size_px: tuple[float, float] | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    empty_uses: list[etree._Element] | None = None
    group: etree._Element | None = None


@dataclass(frozen=True)
class Pass:
    """One pass of the import: ``run`` rewrites an :class:`Import`; ``foreign`` passes run only for files
    made elsewhere (``viewport=True``), never for composer's own rendered panels."""

    name: str
    run: Callable[[Import], None]
    foreign: bool = False


def drop_metadata(job: Import) -> None:
    """Remove the root's ``<metadata>`` and ``<title>`` children: they describe the file, not the panel
    (a tooltip of its title would show over the whole panel)."""
    for meta in list(job.root.iter(svg_tag("metadata"), svg_tag("title"))):
        if meta.getparent() is job.root:
            job.root.remove(meta)


def apply_conditional_css(job: Import) -> None:
    """``@media``, ``@supports`` and ``@layer`` blocks of the file's style sheets replaced by their rules
    where a screen browser showing the panel at its size applies them, removed elsewhere
    (:func:`composer.svg.cssconditions.flatten_document`); then, as at reading, rules the engine's
    matcher cannot read are applied to the elements (:func:`composer.svg.css.inline_style_sheets`)."""
    from composer.svg.cssconditions import flatten_document

    width_px, height_px = job.size_px or _own_size_px(job.root, job.source)
    if flatten_document(job.root, width_px=width_px, height_px=height_px):
        inline_style_sheets(job.root)


def resolve_custom_properties(job: Import) -> None:
    """``var()`` replaced by the value it computes to on each element
    (:func:`composer.svg.cssconditions.resolve_custom_properties`): the engines read no custom property,
    and drew ``fill: var(--main)`` black; then ``light-dark(L, D)`` as ``L``
    (:func:`composer.svg.cssconditions.resolve_light_dark`), which they drew black too."""
    from composer.svg.cssconditions import resolve_custom_properties as resolve
    from composer.svg.cssconditions import resolve_light_dark

    resolve(job.root)
    resolve_light_dark(job.root)  # after var(), whose values may hold it


def resolve_css_colors(job: Import) -> None:
    """CSS Color 4 colours (``oklch()``, ``lab()``, ``rgb(255 0 0 / 50%)``...) the engines drew black, in the
    sRGB a browser draws them in (:func:`composer.svg.csscolor.resolve_css_colors`)."""
    from composer.svg.csscolor import resolve_css_colors as resolve

    resolve(job.root)


def _own_size_px(root: etree._Element, source: str) -> tuple[float, float]:
    """The file's own viewport in CSS px: its width and height, else its viewBox's (300 x 150 for neither)."""
    width, height = length_px(root.get("width"), default=0.0), length_px(root.get("height"), default=0.0)
    if width > 0 and height > 0:
        return width, height
    try:
        vb = view_box(root, source=source)
    except SvgError:
        return 300.0, 150.0
    return vb.width, vb.height


def inline_used_style_rules(job: Import) -> None:
    """:func:`inline_used_styles`: before scoping, what a ``<use>`` draws is matched as in the file alone."""
    inline_used_styles(job.root)


def report_sanitized(job: Import) -> None:
    """What the sanitizer noted of the file (:func:`composer.svg.sanitize.noted`: ``<foreignObject>`` HTML not
    drawn, web fonts not loaded), warned once each as a record of this panel the check reports
    (:class:`~composer.errors.ImportFeature`), and taken off the root."""
    from composer.svg.sanitize import noted

    for feature, detail, message in noted(job.root, source=job.source):
        warnings.warn(ImportFeature(message, panel=job.name, file=job.source, feature=feature, detail=detail),
                      stacklevel=3)


def outline_embedded_text(job: Import) -> None:
    """Text in a font the file embeds (``@font-face`` with a ``data:`` URL) drawn as the browser draws it, as
    the face's outlines (:func:`composer.text.embedded.outline_embedded_text`); a text whose layout that does
    not model is left to the installed stand-in, said in one warning
    (:class:`~composer.errors.ImportFeature`)."""
    from composer.svg.fontfaces import taken_faces
    from composer.text.embedded import outline_embedded_text as outline

    faces = taken_faces(job.root)
    if not faces:
        return
    _, left = outline(job.root, faces)
    if left:
        more = f" and {len(left) - _NAMED_IN_WARNING} more" if len(left) > _NAMED_IN_WARNING else ""
        detail = "; ".join(left[:_NAMED_IN_WARNING]) + more
        feature = "text in an embedded font laid out in a way composer does not draw"
        warnings.warn(ImportFeature(
            f"{job.source}: {feature}: {detail}; it is drawn in the installed font fontconfig gives for the family "
            "instead; convert the file's text to paths to draw it in its own", panel=job.name, file=job.source,
            feature=feature, detail=detail), stacklevel=3)


def draw_foreign_objects(job: Import) -> None:
    """:func:`_draw_foreign_objects`: the text of each ``<foreignObject>`` as SVG ``<text>``; the CSS its HTML
    uses that the layout does not apply, warned once per file (:class:`~composer.errors.ImportFeature`)."""
    unsupported = _draw_foreign_objects(job.root)
    if unsupported:
        detail = ", ".join(sorted(unsupported))
        warnings.warn(ImportFeature(
            f"{job.source}: <foreignObject> HTML uses CSS composer does not lay out ({detail}): drawn without it, "
            "where a browser applies it", panel=job.name, file=job.source,
            feature="CSS of <foreignObject> HTML not laid out", detail=detail), stacklevel=3)


def resolve_css_transforms(job: Import) -> None:
    """:func:`_resolve_css_transforms`, with the ids as the file names them (for its warning)."""
    _resolve_css_transforms(job.root, source=job.source, panel=job.name)


def resolve_switches(job: Import) -> None:
    """:func:`_resolve_switches`: conditional processing as a browser does it (every ``<switch>`` keeps
    only the child a browser draws; an element whose conditions fail is removed)."""
    _resolve_switches(job.root)


def resolve_font_sizes(job: Import) -> None:
    """:func:`_resolve_font_sizes`: text sized by a keyword, ``larger``/``smaller`` or the default, in px."""
    _resolve_font_sizes(job.root)


def name_ids(job: Import) -> None:
    """The new name of every id: the panel's name as prefix (``rgb--figure_1``,
    :func:`composer.svg.ids.prefixed`), or with ``renumber`` the document order
    (:func:`composer.svg.ids.document_order`; glyph definitions keep theirs)."""
    root, name = job.root, job.name
    if job.renumber:
        job.mapping = document_order(root, name, keep=is_glyph_definition)
    else:
        job.mapping = {old: prefixed(name, old) for old in {el.get("id") for el in root.iter() if el.get("id")}}


def rewrite_references(job: Import) -> None:
    """Give every id its new name (:func:`name_ids`) and rewrite every reference to it: ``href`` and
    ``xlink:href`` ``#id``, ``url(#id)`` in any attribute including ``style`` (a paint's fallback colour
    after it is used when the id is not defined: SVG 2, 13.2). A reference to an id the document does
    not define is removed; an id the document repeats is kept on its first element only (where a
    browser resolves references to it); with both ``href`` and ``xlink:href``, ``href`` wins (SVG 2,
    16.1.2; the engine's usvg would take ``xlink:href``)."""
    mapping = job.mapping

    def ref(match: re.Match[str]) -> str:  # a paint's fallback colour is used when its url() names nothing
        new, fallback = mapping.get(match.group(2)), match.group(3) or ""
        return f"url(#{new}){fallback}" if new else (fallback.strip() or "none")

    seen: set[str] = set()
    empty: list[etree._Element] = []  # the <use>s left without a #id (what remove_empty_uses removes)
    for el in job.root.iter(etree.Element):
        kept = 0  # the href attributes left naming an id: 1 href, 2 xlink:href
        for attr, value in el.items():
            if attr == "id":
                if value in seen:  # a repeated id: references go to the first, as in a browser
                    del el.attrib[attr]
                    continue
                seen.add(value)
                el.set(attr, mapping[value])
            elif attr in _HREFS and value.startswith("#"):
                if value[1:] in mapping:
                    el.set(attr, "#" + mapping[value[1:]])
                    kept |= 1 if attr == "href" else 2
                else:
                    del el.attrib[attr]
            elif "url(" in value:
                el.set(attr, _URL_FALLBACK.sub(ref, value))
        if el.get("href") is not None and el.get(_HREFS[1]) is not None:
            del el.attrib[_HREFS[1]]
            kept &= 1
        if not kept and el.tag == _USE:
            empty.append(el)
    job.empty_uses = empty


#: what a gradient or pattern takes from the paint server its ``href`` names when it lacks it (SVG 1.1,
#: 13.2.2-13.2.3 and 13.3; SVG 2, 14.3-14.4): a gradient of the other kind lends only what both kinds have
_LINKED_ATTRIBUTES = {
    "linearGradient": ("gradientUnits", "gradientTransform", "spreadMethod", "x1", "y1", "x2", "y2"),
    "radialGradient": ("gradientUnits", "gradientTransform", "spreadMethod", "cx", "cy", "r", "fx", "fy", "fr"),
    "pattern": ("patternUnits", "patternContentUnits", "patternTransform", "x", "y", "width", "height",
                "viewBox", "preserveAspectRatio"),
}
_GRADIENT_ATTRIBUTES = ("gradientUnits", "gradientTransform", "spreadMethod")


def resolve_paint_server_links(job: Import) -> None:
    """Write out what a gradient or pattern inherits through its ``href`` (:data:`_LINKED_ATTRIBUTES`, down
    the whole chain of links, as Chromium collects them) onto it, where it does not say it itself.

    The engine's usvg inherits the other attributes but not ``gradientTransform`` nor ``patternTransform``:
    Illustrator's gradients share their stops and transform through an ``xlink:href`` that carries only
    ``cx``/``cy``/``r``, and usvg drew each such gradient untransformed (bioicons' cells_side_view: the
    highlight of seven of its nine cells missing). The ``href`` stays: stops and pattern content still come
    through it. A link to anything but a gradient or pattern, or back into the chain, ends the walk."""
    servers = {svg_tag(tag): tag for tag in _LINKED_ATTRIBUTES}
    linking = [el for el in job.root.iter(*servers) if el.get(_HREFS[0]) or el.get(_HREFS[1])]
    if not linking:
        return
    by_id = {el.get("id"): el for el in job.root.iter(*servers) if el.get("id")}
    for el in linking:
        kind = servers[el.tag]
        inherited: dict[str, str] = {}
        seen, at = {el}, el
        while True:
            href = at.get(_HREFS[0]) or at.get(_HREFS[1]) or ""
            target = by_id.get(href[1:]) if href.startswith("#") else None
            if target is None or target in seen:
                break
            other = servers[target.tag]
            if (other == "pattern") != (kind == "pattern"):
                break
            for attr in _LINKED_ATTRIBUTES[kind] if other == kind else _GRADIENT_ATTRIBUTES:
                value = target.get(attr)
                if value is not None and el.get(attr) is None:
                    inherited.setdefault(attr, value)
            seen.add(target)
            at = target
        for attr, value in inherited.items():
            el.set(attr, value)


def scope_style_sheets(job: Import) -> None:
    """Scope every ``<style>`` to the panel's group (:func:`scope_css`: ``#panel-rgb`` before each
    selector, ids renamed as :func:`name_ids` renamed them), so its rules cannot reach outside."""
    for style in job.root.iter(svg_tag("style")):
        if style.text:
            style.text = scope_css(style.text, scope=f"#{job.group_id}", mapping=job.mapping)


def remove_empty_uses(job: Import) -> None:
    """Remove every ``<use>`` left without a ``#id`` to draw: it draws nothing, and cairosvg takes a
    ``<use>`` without ``href`` for the whole document, recursing forever."""
    if job.empty_uses is not None:  # found by rewrite_references, which has just walked every element
        for use in job.empty_uses:
            use.getparent().remove(use)
        return
    for use in list(job.root.iter(svg_tag("use"))):
        if not ((use.get(_HREFS[0]) or "").startswith("#") or (use.get(_HREFS[1]) or "").startswith("#")):
            use.getparent().remove(use)


def name_generic_font_families(job: Import) -> None:
    """:func:`name_generic_families`: the installed font a generic family stands for, named before it."""
    name_generic_families(job.root)


def name_missing_font_families(job: Import) -> None:
    """:func:`name_missing_families`: the font fontconfig draws a missing family with, named before it."""
    name_missing_families(job.root, source=job.source, panel=job.name)


def absolute_units_to_px(job: Import) -> None:
    """:func:`_absolute_units_to_px`: absolute lengths inside the file as user units (96 px per inch)."""
    _absolute_units_to_px(job.root)


def resolve_non_scaling_strokes(job: Import) -> None:
    """:func:`_resolve_non_scaling_strokes`: ``vector-effect: non-scaling-stroke`` as plain stroke widths."""
    _resolve_non_scaling_strokes(job.root, source=job.source)


def make_group(job: Import) -> None:
    """The group of the canvas. For a file made elsewhere (:attr:`Import.viewport`), ``<g id=group_id>``
    around the root kept as a viewport (:func:`_keep_viewport`): whatever the file draws outside its
    viewport is cut at its edge, as every viewer of the file alone cuts it (an off-page scrap of an
    Inkscape drawing never paints over the neighbouring panels), and what it resolves against its
    viewport resolves as alone. Composer's own rendered panels, drawn at box size inside their
    figure, make the root itself the group, keeping its inherited presentation attributes
    (:data:`ROOT_PRESENTATION`) and its ``style``. (Moving the root's children into a new element would
    make lxml reconcile the namespace of every ``xlink:href`` one node at a time: 6.5 s for a 1e5-point
    scatter.)"""
    root = job.root
    if job.viewport:
        job.group = _keep_viewport(root, job.group_id)
        return
    kept = [(attr, root.get(attr, "")) for attr in ROOT_PRESENTATION if root.get(attr) is not None]
    if root.get("style"):
        kept.append(("style", root.get("style", "")))
    root.attrib.clear()
    root.text = None
    root.tag = svg_tag("g")
    root.set("id", job.group_id)
    for attr, value in kept:
        root.set(attr, value)
    job.group = root


#: the import's passes in run order (as svgo's ``preset-default`` lists its plugins): each one job, named;
#: :func:`import_fragment` runs them, the ``foreign`` ones only for files made elsewhere
PASSES: tuple[Pass, ...] = (
    Pass("drop-metadata", drop_metadata),
    Pass("report-sanitized", report_sanitized, foreign=True),  # what reading the file left out
    Pass("apply-conditional-css", apply_conditional_css, foreign=True),  # before any rule is read
    Pass("resolve-custom-properties", resolve_custom_properties, foreign=True),  # after @media, before use
    Pass("resolve-css-colors", resolve_css_colors, foreign=True),  # after var() and light-dark(), which hold them
    Pass("inline-used-styles", inline_used_style_rules),  # before scoping
    Pass("resolve-switches", resolve_switches, foreign=True),  # before ids are named: dropped children's go
    Pass("draw-foreign-objects", draw_foreign_objects, foreign=True),  # the chosen ones; CSS not yet scoped
    Pass("resolve-css-transforms", resolve_css_transforms, foreign=True),  # ids as written, for the warning
    Pass("resolve-font-sizes", resolve_font_sizes, foreign=True),  # the file's own style sheet, unscoped
    Pass("outline-embedded-text", outline_embedded_text, foreign=True),  # sizes resolved; CSS not yet scoped
    Pass("name-ids", name_ids),
    Pass("rewrite-references", rewrite_references),
    Pass("resolve-paint-server-links", resolve_paint_server_links, foreign=True),  # after dangling links go
    Pass("scope-style-sheets", scope_style_sheets),
    Pass("remove-empty-uses", remove_empty_uses),  # after references to missing ids are removed
    Pass("name-generic-families", name_generic_font_families, foreign=True),
    Pass("name-missing-families", name_missing_font_families, foreign=True),  # after generic names are named
    Pass("absolute-units-to-px", absolute_units_to_px, foreign=True),
    Pass("resolve-non-scaling-strokes", resolve_non_scaling_strokes, foreign=True),  # after units are px
    Pass("make-group", make_group),
)


def import_fragment(root: etree._Element, *, name: str, group_id: str, source: str,
                    renumber: bool = False, viewport: bool = False,
                    size_px: tuple[float, float] | None = None) -> etree._Element:
    """Rewrite a parsed SVG document into a ``<g id=group_id>`` (not yet placed), by the passes of
    :data:`PASSES` in order.

    Args:
        root: the document's ``<svg>`` element (consumed: it becomes the group, or the
            viewport inside it).
        name: the panel name used as id prefix (``rgb`` -> ``rgb--figure_1``).
        group_id: the id of the returned group (``panel-rgb``), used to scope CSS.
        source: file name for error messages.
        renumber: give the ids their document order (:func:`composer.svg.ids.document_order`;
            for files made elsewhere, whose ids may be random) instead of keeping their names.
        viewport: a file made elsewhere: run the ``foreign`` passes too, and keep the root as a nested
            ``<svg>`` inside the group (see :func:`_keep_viewport`), which cuts the drawing at the file's
            viewport as a viewer does. Otherwise (composer's own rendered panels, drawn at box size)
            the root itself becomes the group, keeping its inherited presentation attributes.
        size_px: the panel's box in CSS px (width, height), the viewport ``@media`` queries are
            evaluated against; None: the file's own size.

    Returns:
        The group, holding the document's content with ids prefixed, every
        reference rewritten and CSS scoped. A reference to an id the document
        does not define is removed (it would dangle in the canvas), and so is
        a ``<use>`` left without one. An id the document repeats is kept on
        its first element only (where a browser resolves references to it).
    """
    job = Import(root, name=name, group_id=group_id, source=source, renumber=renumber, viewport=viewport,
                 size_px=size_px)
    for step in PASSES:
        if viewport or not step.foreign:
            step.run(job)
    assert job.group is not None  # make_group, the last pass, always sets it
    return job.group


def inline_used_styles(root: etree._Element) -> None:
    """Write the style rules that apply to what a ``<use>`` draws into those elements' ``style``.

    A browser draws a ``<use>`` as a copy in a shadow tree, and matches the document's selectors
    there, inside the copy (SVG 2, 5.6.2; Chromium and Firefox do): once :func:`scope_css` has
    prefixed ``.box`` with the panel's ``#panel-x``, the rule no longer reaches the copy, whose
    ancestors are in the shadow tree only, though resvg and cairosvg, which match on the file's
    own tree, still draw it. So, matched on the file as written (cssselect2, as
    :class:`composer.svg.css.StyleSheet`), each element a ``<use>`` draws (its target and what
    is inside it) gets the cascade of its rules and its own ``style``
    (:func:`composer.svg.css.cascade`) as its ``style``. Only those elements are matched (a
    matplotlib file's glyph and marker definitions, not its thousands of ``<use>``).
    """
    from composer.svg.css import StyleSheet, cascade

    if root.find(f".//{svg_tag('style')}") is None:
        return
    by_id = {el.get("id"): el for el in [root, *root.iterfind(".//*[@id]")] if el.get("id")}
    refs: set[str] = set()  # what the <use>s name (a scatter's 100,000 markers: one name, no generator per use)
    for use in root.iter(_USE):
        href = use.get(_HREFS[0])
        if not (href and href.startswith("#")):
            href = use.get(_HREFS[1])
            if not (href and href.startswith("#")):
                continue
        refs.add(href)
    targets = {by_id[ref[1:]] for ref in refs if ref[1:] in by_id}  # what they draw
    if not targets:
        return
    sheet = StyleSheet(root, read=weighed_declarations)
    if not sheet:
        return
    import cssselect2

    top = cssselect2.ElementWrapper.from_xml_root(root)
    done: set[etree._Element] = set()  # a target inside another target is one subtree
    for target in sorted(targets, key=lambda t: sum(1 for _ in t.iterancestors())):
        if target in done or any(a in done for a in target.iterancestors()):
            continue
        wrapper = top
        for step in [*reversed(list(target.iterancestors())), target][1:]:  # down from the root to the target
            wrapper = next(c for c in wrapper.iter_children() if c.etree_element is step)
        for inside in wrapper.iter_subtree():
            el = inside.etree_element
            done.add(el)
            won = cascade(sheet.matched(inside), el.get("style") or "")
            if any(by_rule for _, by_rule in won.values()):
                el.set("style", "; ".join(f"{name}: {value}" for name, (value, _) in won.items()))


def name_generic_families(root: etree._Element) -> None:
    """Put the installed font a generic family stands for before it, in a file with ``<text>``.

    Chromium draws ``font-family: sans-serif`` (Inkscape's default) in its default font for it, Arial,
    as fontconfig binds it to an installed face (Liberation Sans), and text without any family in its
    standard font (Times New Roman: Liberation Serif; CSS Fonts 4, 5.1: the user agent's choice;
    :func:`composer.text.fonts.generic_font`, fontconfig's own generic match where those have no
    face); the engine's usvg maps the generic names to Arial, Times New Roman and Courier New and,
    where those are not installed, draws nothing, without a word. So each generic name in a
    ``font-family`` (attribute, ``style``, ``<style>`` rule) becomes ``'Liberation Sans', sans-serif``
    (the installed font, then the generic name, which a browser without that font still resolves),
    and the root of a file that names no family for its text gets the one ``serif`` stands for.
    """
    if root.find(f".//{svg_tag('text')}") is None:
        return
    from composer.text.fonts import GENERIC_FAMILIES, generic_font

    named: dict[str, str] = {}
    for generic in GENERIC_FAMILIES:
        found = generic_font(generic)
        if found:
            named[generic] = found

    def stack(value: str) -> str:
        out = []
        for part in value.split(","):
            family = part.strip().strip("'\"").strip()
            if family.lower() in named and family.lower() == part.strip().lower():  # unquoted: the generic
                out.append("'" + named[family.lower()].replace("'", "\\'") + "'")
            out.append(part.strip())
        return ", ".join(out)

    _restack_font_families(root, stack)
    if (root.get("font-family") is None and "font-family" not in (root.get("style") or "").lower()
            and "font" not in (root.get("style") or "").lower() and "serif" in named):
        root.set("font-family", stack("serif"))


def _restack_font_families(root: etree._Element, stack: Callable[[str], str]) -> None:
    """Rewrite every ``font-family`` list of the document (attribute, ``style``, ``<style>`` rule) by ``stack``."""
    def restyled(body: str) -> str:  # a style attribute or rule body, its font-family stacks rewritten
        out = []
        for name, value in weighed_declarations(body):
            if name == "font-family":  # weighed_declarations writes an important one's value "X !important"
                families, important = value.removesuffix(" !important"), value.endswith(" !important")
                value = stack(families) + (" !important" if important else "")
            out.append(f"{name}: {value}")
        return "; ".join(out)

    def sheet(css: str) -> str:
        out = []
        for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
            if rule.type == "qualified-rule" and "font-family" in tinycss2.serialize(rule.content).lower():
                body = restyled(tinycss2.serialize(rule.content))
                out.append(f"{tinycss2.serialize(rule.prelude).strip()} {{{body}}}")
            else:
                out.append(tinycss2.serialize([rule]))
        return "\n".join(out)

    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get("font-family"):
            el.set("font-family", stack(el.get("font-family", "")))
        if "font-family" in (el.get("style") or "").lower():
            el.set("style", restyled(el.get("style", "")))
        if el.tag == svg_tag("style") and el.text and "font-family" in el.text.lower():
            el.text = sheet(el.text)


def name_missing_families(root: etree._Element, *, source: str, panel: str = "") -> None:
    """Draw each family a file's text names that is not installed as Chromium here draws it, in a file with
    ``<text>``, with one warning per file naming each family and what is drawn for it (an
    :class:`~composer.errors.ImportFeature` of ``panel``).

    draw.io writes its labels in ``Helvetica``, Illustrator in ``ArialMT``, R in ``Arial``: fonts a Linux machine
    rarely has. Chromium asks fontconfig, and draws its match when it is the family asked for or a metric-compatible
    face of Skia's table (Arial: Liberation Sans), retrying with Blink's alternate name (Helvetica: Arial, so
    Liberation Sans); otherwise (Verdana, Trebuchet MS, ArialMT: fontconfig's answer is DejaVu Sans) it goes on with
    the next family of the list, and with none left, its standard font (Times New Roman, so Liberation Serif)
    (:func:`composer.text.fonts.browser_font`). The engine's usvg, given a name it lacks, would draw another font.
    So, from the first family of each ``font-family`` list: a family fontconfig or matplotlib (whose fonts the
    engine has too) has stays; a missing one with a metric-compatible face is replaced by it (``'Liberation
    Sans'``); a missing one without is dropped, and the next is looked at; a list left empty becomes the standard
    font (``'Liberation Serif', serif``). fontconfig's generic names (``Sans``, Inkscape 0.4x's default;
    ``Serif``, ``Monospace``) are not missing fonts: Chromium draws fontconfig's match for them (DejaVu Sans), and
    so does every output, without a warning. Every output then draws what Chromium here draws, and the warning
    keeps the file's own names.
    """
    if root.find(f".//{svg_tag('text')}") is None:
        return
    from matplotlib import font_manager

    from composer.text.fonts import (
        FONTCONFIG_GENERIC_NAMES,
        GENERIC_FAMILIES,
        browser_font,
        fontconfig_font,
        generic_font,
    )

    shipped = {font.name.casefold() for font in font_manager.fontManager.ttflist}  # no findfont: it logs
    swaps: dict[str, str | None] = {}  # missing family (casefolded) -> the face drawn for it, "" installed,
    spelt: dict[str, str] = {}  # None: no face stands in (dropped); casefolded -> as the file first writes it
    standard: list[str] = []  # the standard font, when some list was left with no family

    def quoted(family: str) -> str:
        return "'" + family.replace("'", "\\'") + "'"

    def stack(value: str) -> str:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        out = list(parts)
        while out:
            first = out[0].strip("'\"").strip()
            key = first.casefold()
            if not first or key in GENERIC_FAMILIES:
                break
            if key in FONTCONFIG_GENERIC_NAMES:  # Sans, Serif, Monospace: fontconfig's match, whatever it is
                drawn = browser_font(first)
                if drawn is not None and drawn.family:
                    out[0] = quoted(drawn.family)
                break
            if key not in swaps:
                spelt[key] = first
                match = fontconfig_font(first)
                if key in shipped or match is None or match.family.casefold() == key:
                    swaps[key] = ""  # installed (or, without fontconfig, nothing can be told)
                else:
                    drawn = browser_font(first)
                    swaps[key] = drawn.family if drawn is not None and drawn.family else None
            swap = swaps[key]
            if swap == "":
                break
            if swap is None:
                out.pop(0)  # Chromium goes on with the next family
                continue
            # in its place: the file's name kept after it would only make matplotlib (laying the text out) warn
            out[0] = quoted(swap)
            break
        if out == parts:
            return value
        if not out:
            family = generic_font("serif")
            if family is None:
                return value
            standard[:] = [family]
            out = [quoted(family), "serif"]
        return ", ".join(out)

    _restack_font_families(root, stack)
    said = [f"{spelt[k]!r} as {v!r}" for k, v in sorted(swaps.items()) if v]
    dropped = [repr(spelt[k]) for k, v in sorted(swaps.items()) if v is None]
    if dropped:
        said.append(f"{', '.join(dropped)} not at all (no metric-compatible face here: the next font of the "
                    "list is drawn" + (f", else the standard font {standard[0]!r}" if standard else "") + ")")
    if said:
        detail = f"drawn as Chromium here draws them: {'; '.join(said)}"
        warnings.warn(ImportFeature(
            f"{source}: fonts not installed, {detail}; install the fonts, or convert the file's text to paths, to "
            "draw the file's own", panel=panel, file=source, feature="fonts not installed", detail=detail),
            stacklevel=2)


#: attributes of the root ``<svg>`` that :func:`~composer.svg.viewbox.place` sets anew on the kept viewport
#: (the root's own ``x``/``y`` mean nothing on a root, SVG 2, 8.2; ``overflow``: a file alone is always cut to
#: its viewport).
_VIEWPORT_ATTRIBUTES = ("x", "y", "width", "height", "viewBox", "overflow")
#: properties of the root that apply to its drawing as a whole (moved onto a group around it)
_ROOT_EFFECTS = ("opacity", "clip-path", "mask", "filter")
#: an absolute length (CSS Values 4, 6.2), and a value that is a list of lengths (``1mm``, ``2 1mm,3pt``)
_ABSOLUTE = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(in|cm|mm|pt|pc|px)(?![\w%])")
_LENGTHS = re.compile(r"\s*(?:[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:[a-zA-Z]+|%)?\s*,?\s*)+")
#: the attributes and properties whose values are lengths (SVG 2 and CSS): only these are rewritten; a unit
#: elsewhere (``offset="5mm"``, ``stroke-miterlimit="4mm"``) is invalid, and left for the engine to ignore
_LENGTH_PROPERTIES = frozenset({
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "width", "height",
    "dx", "dy", "refX", "refY", "markerWidth", "markerHeight", "stroke-width", "stroke-dasharray",
    "stroke-dashoffset", "font-size", "letter-spacing", "word-spacing", "textLength", "startOffset",
})
#: conditional processing attributes (SVG 2, 5.8.2)
_CONDITIONS = ("systemLanguage", "requiredExtensions", "requiredFeatures")
#: the children a ``<switch>`` chooses among (SVG 2, 5.8.5: its direct children that are rendering
#: elements, containers that draw, or ``foreignObject``)
_SWITCH_CHOICES = frozenset(svg_tag(name) for name in (
    "a", "circle", "ellipse", "foreignObject", "g", "image", "line", "path", "polygon", "polyline", "rect",
    "svg", "switch", "text", "use"))
#: the elements whose conditional processing attributes decide whether they draw (SVG 2, 5.8.1: graphics
#: elements, containers that draw, text content children); on ``defs``, ``clipPath``, a gradient... a
#: browser and resvg ignore them
_CONDITIONAL = _SWITCH_CHOICES | frozenset(svg_tag(name) for name in ("tspan", "textPath"))


def _resolve_switches(root: etree._Element) -> None:
    """Apply conditional processing as a browser does (SVG 2, 5.8), so both engines and the check see
    what a browser shows, whatever the engine's own idea of the language or the features.

    Every ``<switch>`` keeps only its first direct child whose conditions pass (:func:`conditions_pass`),
    the others removed; only the children a switch can choose take part (SVG 2, 5.8.5: rendering and
    container elements, ``foreignObject``): an unknown element, a ``title`` or a ``desc`` before the first
    of them is not chosen, and stays (it draws nothing). Outside a switch, a rendering element, container
    or text content child whose conditions fail is removed (the text after a ``<tspan>`` kept); a root
    whose conditions fail draws nothing. Then every conditional attribute is removed: the engines' usvg
    and cairosvg treat ``requiredFeatures="...#Extensibility"`` as failing (and so drew the "Text is not
    SVG - cannot display" notice that ends every draw.io export, which a browser never shows), and would
    evaluate ``systemLanguage`` against their own settings.
    """
    if not conditions_pass(root) or zero_size(root):  # a zero width or height disables the root's rendering
        for child in list(root):
            if child.tag != svg_tag("style"):
                root.remove(child)
    for switch in reversed(list(root.iter(svg_tag("switch")))):  # nested switches first
        children = [child for child in switch if child.tag in _SWITCH_CHOICES]
        chosen = next((child for child in children if conditions_pass(child)), None)
        for child in children:
            if child is not chosen:
                remove_keeping_tail(child)
    for el in list(root.iter(*_CONDITIONAL)):
        if el.getparent() is not None and not conditions_pass(el):
            remove_keeping_tail(el)
    for el in root.iter():
        if isinstance(el.tag, str):
            for attr in _CONDITIONS:
                el.attrib.pop(attr, None)


#: properties a ``<foreignObject>``'s HTML inherits from its SVG ancestors (CSS inherited properties)
_HTML_INHERITED = ("font-family", "font-size", "font-style", "font-weight", "color", "line-height", "text-align",
                   "white-space")


def _draw_foreign_objects(root: etree._Element) -> set[str]:
    """Replace each ``<foreignObject>`` (the sanitizer keeps only those holding text alone) by the SVG
    ``<text>`` a browser's layout of its HTML gives (:func:`composer.text.html.layout_foreign_object`):
    draw.io's and mermaid's labels, which the engines would not draw. Styles are the file's cascade
    (:mod:`composer.svg.css`: its ``<style>`` rules, then each element's ``style``), properties inherited
    from the SVG ancestors (``font-size: 16px`` on mermaid's root) included."""
    objects = list(root.iter(svg_tag("foreignObject")))
    if not objects:
        return set()
    import cssselect2

    from composer.svg.css import StyleSheet, cascade
    from composer.text.html import layout_foreign_object

    unsupported: set[str] = set()
    sheet = StyleSheet(root, read=weighed_declarations)
    wrappers = {w.etree_element: w for w in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree()}
    taken = {el.get("id") for el in root.iter() if isinstance(el.tag, str) and el.get("id")}

    def style_of(el: etree._Element) -> dict[str, str]:
        wrapper = wrappers.get(el)
        rules = sheet.matched(wrapper) if sheet and wrapper is not None else []
        return {prop: value for prop, (value, _) in cascade(rules, el.get("style") or "").items()}

    for fo in objects:
        inherited: dict[str, str] = {}
        for ancestor in reversed(list(fo.iterancestors())):  # the root first
            own = style_of(ancestor)
            for prop in _HTML_INHERITED:
                value = own.get(prop, ancestor.get(prop))
                if value is not None and value.strip() != "inherit":
                    inherited[prop] = value
        if fo.getparent() is None:
            continue
        group = layout_foreign_object(fo, style_of, inherited, taken, unsupported)
        if group is None:
            remove_keeping_tail(fo)
            continue
        group.tail = fo.tail
        fo.getparent().replace(fo, group)
    return unsupported


def _resolve_font_sizes(root: etree._Element) -> None:
    """Write the font size a browser computes on every text element whose size the engine would compute
    otherwise (:func:`composer.text.fonts.font_sizes_to_resolve`: the root's default is 16 px in a browser,
    12 px in usvg; ``x-large`` 24 px, not 1.44 times the parent; ``larger`` 1.2 times the parent's
    computed size), as the last declaration of its ``style`` (which wins over attributes and rules). The
    characters composer pins (:mod:`composer.text.pin`) are then laid out at the size drawn."""
    from composer.text.fonts import font_sizes_to_resolve
    from composer.units import fmt

    for el, size_px in font_sizes_to_resolve(root):
        kept = [f"{name}: {value}" for name, value in weighed_declarations(el.get("style") or "")
                if name != "font-size"]
        el.set("style", "; ".join([*kept, f"font-size: {fmt(size_px)}px"]))


def _resolve_non_scaling_strokes(root: etree._Element, *, source: str) -> None:
    """Turn ``vector-effect: non-scaling-stroke`` into a plain stroke width, which the engine's usvg
    does not implement (it draws such strokes scaled).

    A non-scaling stroke is as wide in the file's own viewport (its ``width`` x ``height``, in CSS
    px) as it says, whatever the transforms (SVG 2, 13.6.2; the viewport is then scaled into the
    panel's box as the whole file is). So its width (and dash lengths) in its user units is the
    width divided by the uniform scale sqrt(|det|) of the map from its user units to that viewport:
    its transforms and its groups' (:func:`composer.svg.transform.cumulative`), then the viewBox's
    (``meet``). Exact for rotations and uniform scales; for a skew or a non-uniform scale it is the
    mean scale. The width is the element's own or inherited attribute or ``style`` (CSS rules are
    not consulted; default 1).
    """
    marked = [el for el in root.iter() if isinstance(el.tag, str) and _non_scaling(el)]
    if not marked:
        return
    try:
        vb = view_box(root, source=source)
    except SvgError:
        return
    width_px, height_px = (length_px(root.get(attr), default=0.0) for attr in ("width", "height"))
    viewbox_scale = min(width_px / vb.width, height_px / vb.height) if width_px > 0 and height_px > 0 else 1.0
    for el in marked:
        try:
            scale = scale_of(cumulative(el)) * viewbox_scale
        except ValueError:
            continue
        if scale <= 0:
            continue
        own = dict(declarations(el.get("style", ""))) if el.get("style") else {}
        width = _inherited(el, "stroke-width") or "1"
        if _LENGTHS.fullmatch(width) and "%" not in width:
            own["stroke-width"] = user_number(length_px(width, default=1.0) / scale)
        dashes = _inherited(el, "stroke-dasharray")
        if dashes and dashes.strip() != "none" and _LENGTHS.fullmatch(dashes) and "%" not in dashes:
            own["stroke-dasharray"] = " ".join(user_number(length_px(d) / scale)
                                               for d in re.split(r"[\s,]+", dashes.strip()))
        own.pop("vector-effect", None)
        el.attrib.pop("vector-effect", None)
        el.set("style", "; ".join(f"{prop}: {value}" for prop, value in own.items()))


#: elements a CSS-transform warning names in full before "and N more"
_NAMED_IN_WARNING = 3


def _resolve_css_transforms(root: etree._Element, *, source: str, panel: str = "") -> None:
    """Turn a CSS ``transform`` in an element's ``style`` (``style="transform: translate(60px, 0)"``,
    as d3 and other web tools write) into the ``transform`` attribute that draws the same
    (:func:`composer.svg.transform.css_transform_to_svg`): browsers apply the CSS property (it
    overrides the attribute) but the engine's usvg does not, so the SVG output and its PNG/PDF would
    differ. A value SVG cannot express (3D functions, percentages, relative units) is dropped,
    so every output draws the element by its attribute, with one :class:`~composer.errors.ImportFeature`
    (of ``panel``) per file naming the elements. A ``transform`` that top-level ``<style>`` rules give an element
    (:func:`composer.svg.elements.rule_transforms`) is treated the same and taken out of the rules; the
    root's own is left alone, and so are rules inside at-rules (``@media``).
    """
    dropped: list[str] = []
    ruled = rule_transforms(root)
    if ruled:  # written onto the elements below; the rules then say nothing more
        for sheet in root.iter(svg_tag("style")):
            sheet.text = _without_transforms(sheet.text or "")
    for el in root.iter():
        if not isinstance(el.tag, str) or el is root:
            continue
        style = el.get("style") or ""
        declared = declarations(style) if "transform" in style else ()
        value = dict(declared).get("transform", ruled.get(el))
        if value is None:
            continue
        try:
            written = css_transform_to_svg(value)
        except ValueError as exc:
            tag = etree.QName(el).localname
            named = f"<{tag} id={el.get('id')!r}>" if el.get("id") else f"<{tag}> on line {el.sourceline}"
            dropped.append(f"{named} (transform: {value}: {exc})")
        else:
            if written:
                el.set("transform", written)
            else:
                el.attrib.pop("transform", None)
        if "transform" in dict(declared):
            kept = [(prop, v) for prop, v in declared if prop != "transform"]
            if kept:
                el.set("style", "; ".join(f"{prop}: {v}" for prop, v in kept))
            else:
                del el.attrib["style"]
    if dropped:
        more = f" and {len(dropped) - _NAMED_IN_WARNING} more" if len(dropped) > _NAMED_IN_WARNING else ""
        detail = "; ".join(dropped[:_NAMED_IN_WARNING]) + more
        feature = "a CSS transform SVG cannot express"
        warnings.warn(ImportFeature(f"{source}: {feature} is left out (every output draws the element without it): "
                                    f"{detail}; write it as a transform attribute", panel=panel, file=source,
                                    feature=feature, detail=detail), stacklevel=3)


def _without_transforms(css: str) -> str:
    """A stylesheet with the ``transform`` declarations of its top-level rules taken out (the other
    rules, comments and at-rules as written)."""
    out = []
    for node in tinycss2.parse_stylesheet(css):
        if node.type == "qualified-rule":
            decls = tinycss2.parse_declaration_list(node.content, skip_comments=True, skip_whitespace=True)
            kept = [d for d in decls if not (d.type == "declaration" and d.lower_name == "transform")]
            if len(kept) != len(decls):
                out.append(tinycss2.serialize(node.prelude) + "{" + "; ".join(d.serialize() for d in kept) + "}")
                continue
        out.append(node.serialize())
    return "".join(out)


def _non_scaling(el: etree._Element) -> bool:
    if (el.get("vector-effect") or "").strip() == "non-scaling-stroke":
        return True
    return "non-scaling-stroke" in (el.get("style") or "") and dict(
        declarations(el.get("style", ""))).get("vector-effect") == "non-scaling-stroke"


def _inherited(el: etree._Element, prop: str) -> str | None:
    """``prop`` of ``el`` from its ``style`` or attribute, else from the nearest ancestor's."""
    node: etree._Element | None = el
    while node is not None:
        style = node.get("style")
        if style and prop in style:
            value = dict(declarations(style)).get(prop)
            if value is not None:
                return value
        if node.get(prop) is not None:
            return node.get(prop)
        node = node.getparent()
    return None


def _absolute_units_to_px(root: etree._Element) -> None:
    """Rewrite absolute lengths inside the file (``0.5in``, ``12.7mm``, ``6pt``, in attributes and
    ``style`` declarations; a list such as ``stroke-dasharray="1mm 2mm"`` too) as user units at
    96 px per inch (CSS Values 4, 6.2, the file's own scale, SVG 2, 8.3). A viewer of the file alone
    uses 96 px/in; cairosvg, composer's other engine, would convert them at the export's dpi instead,
    drawing a 0.5in rect at 300 dpi 3.1 times too large. The root's own size is left alone (it is
    the panel's box that sizes the drawing)."""
    for el in root.iter():
        if not isinstance(el.tag, str) or el is root:
            continue
        for attr, value in el.attrib.items():
            if attr == "style":
                if _ABSOLUTE.search(value):
                    el.set(attr, "; ".join(f"{prop}: {_in_px(val) if prop in _LENGTH_PROPERTIES else val}"
                                           for prop, val in declarations(value)))
            elif attr in _LENGTH_PROPERTIES and _LENGTHS.fullmatch(value) and _ABSOLUTE.search(value):
                el.set(attr, _in_px(value))


def _in_px(value: str) -> str:
    """``value`` with each absolute length of a length list in px (``1mm 2mm`` -> ``3.7795 7.559``);
    anything that is not such a list is returned as it is."""
    if not _LENGTHS.fullmatch(value):
        return value
    return _ABSOLUTE.sub(lambda m: user_number(float(m.group(1)) * PX_PER_UNIT[m.group(2).lower()]), value)


def _keep_viewport(root: etree._Element, group_id: str) -> etree._Element:
    """``<g id=group_id><svg ...>content</svg></g>``: the root stays an ``<svg>``, a viewport of its own.

    So everything that the file resolves against its viewport resolves as in the file alone, by the
    engine itself (SVG 2, 8.2 and 8.6): percentages of lengths, of ``symbol``/``use``/nested ``svg``
    sizes, of ``userSpaceOnUse`` gradient, pattern, mask and filter regions, of ``transform-origin``;
    every ``preserveAspectRatio`` mode, ``slice`` (cropped) included; the clip at the viewport's edge.
    The root keeps its other attributes: ``transform``, ``display``, presentation attributes,
    ``style`` (but an ``overflow`` in it: a file alone is cut at its viewport, so the root's style says
    ``overflow: hidden`` when a style sheet of the file mentions overflow), ``class``
    and its (prefixed) ``id``, so that CSS rules naming the root still match it
    (:func:`scope_css`). Its group effects (``opacity``, ``clip-path``, ``mask``, ``filter``, as
    attributes or in its ``style``) move onto a ``<g>`` around it, in the same user space (the
    viewBox's): the engine's usvg applies ``opacity`` of a nested ``<svg>`` twice, and so does it
    ``transform``, which :func:`_hoist_effects` moves out of the file's own nested ``<svg>`` too.
    A ``background-color`` on the root (which resvg paints, as browsers paint the root's background)
    becomes a rect under the content, covering the viewport (sized by :func:`~composer.svg.viewbox.place`).
    :func:`~composer.svg.viewbox.place` sets the viewport's position, size and ``viewBox``. Moving the
    root into the group moves one subtree whose namespaces are declared on its top (0.06 s for 1e5 elements).
    """
    for attr in _VIEWPORT_ATTRIBUTES:
        root.attrib.pop(attr, None)
    _hoist_effects(root)
    effects = [(attr, root.attrib.pop(attr)) for attr in _ROOT_EFFECTS if root.get(attr) is not None]
    moved: list[tuple[str, str]] = []
    background = None
    if root.get("style"):
        kept = []
        for prop, value in declarations(root.get("style", "")):
            if prop in _ROOT_EFFECTS:
                moved.append((prop, value))
            elif prop == "background-color":
                background = value
            elif prop != "overflow":  # a file alone is cut at its viewport, whatever its root's overflow
                kept.append((prop, value))
        if kept:
            root.set("style", "; ".join(f"{prop}: {value}" for prop, value in kept))
        else:
            del root.attrib["style"]
    if any(style.text and "overflow" in style.text for style in root.iter(svg_tag("style"))):
        # a rule such as svg { overflow: visible } would match the kept root and uncut it: its own style wins
        root.set("style", "; ".join(filter(None, (root.get("style"), "overflow: hidden"))))
    group = etree.Element(svg_tag("g"), id=group_id)
    holder = group
    if effects or moved:
        holder = etree.SubElement(group, svg_tag("g"), dict(effects))
        if moved:
            holder.set("style", "; ".join(f"{prop}: {value}" for prop, value in moved))
    holder.append(root)
    if background and background.lower() not in ("transparent", "none", "initial"):
        rect = root.makeelement(svg_tag("rect"), {"id": f"{group_id}{BACKGROUND}",  # style: above CSS rules
                                                  "style": f"fill: {background}; stroke: none; opacity: 1"})
        root.insert(0, rect)
        rect.tail = root.text
        root.text = None
    return group


def _hoist_effects(root: etree._Element) -> None:
    """Move ``transform`` and ``opacity`` of every nested ``<svg>`` below ``root`` onto a ``<g>`` put in
    its place (the same drawing: both apply to the element as a whole, in its parent's user space,
    SVG 2, 8.5 and CSS Color 4, 3.2), which the engine's usvg draws once, where it applies them twice
    to a nested ``<svg>``. The ``<g>`` is made in the document, so the move is cheap."""
    for el in list(root.iter(svg_tag("svg"))):
        if el is root or el.getparent() is None or (el.get("transform") is None and el.get("opacity") is None):
            continue
        wrapper = root.makeelement(svg_tag("g"), {})
        for attr in ("transform", "opacity"):
            if el.get(attr) is not None:
                wrapper.set(attr, el.attrib.pop(attr))
        parent = el.getparent()
        parent.insert(parent.index(el), wrapper)
        wrapper.tail, el.tail = el.tail, None
        wrapper.append(el)


def scope_css(css: str, *, scope: str, mapping: dict[str, str]) -> str:
    """Prefix every selector of a stylesheet with ``scope`` and rename ``#id``s.

    ``*{stroke-linecap: butt}`` becomes ``#panel-rgb *{stroke-linecap: butt}``. Rules naming the
    document's root keep matching it when the root is kept as the group's nested ``<svg>``
    (``import_fragment(viewport=True)``): by type (``svg > rect``), class (``.svglite line``)
    or id (``#mermaid-1 .node``, renamed as the root's id is), since the scoped selector looks for
    them below the scope; ``:root`` in the first compound selector becomes the scope's child
    (``:root rect`` -> ``#panel-rgb > * rect``).
    At-rules (``@import``, ``@font-face``, ``@media``) are dropped: they cannot
    be scoped to a group, and ``@import`` would fetch a file.
    """
    out = []
    for rule in qualified_rules(css):
        scoped = []
        for sel in selector_texts(rule):
            sel = re.sub(r"#([A-Za-z_][\w-]*)", lambda m: "#" + mapping.get(m.group(1), m.group(1)), sel)
            root = _ROOT_COMPOUND.match(sel)
            if root:  # the document's root is the one child of the scope: `:root.k x` -> `#scope > .k x`
                scoped.append(f"{scope} > {(root.group(1) + root.group(2)) or '*'}{sel[root.end():]}")
            else:
                scoped.append(f"{scope} {sel}")
        body = _URL_REF.sub(lambda m: f"url(#{mapping.get(m.group(2), m.group(2))})",
                            tinycss2.serialize(rule.content))
        out.append(f"{', '.join(scoped)} {{{body.strip()}}}")
    return "\n".join(out)
