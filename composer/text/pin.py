"""Pin ``<text>`` to matplotlib's layout: one x per character, the same in every renderer.

An SVG ``<text>`` names a start (or, with ``text-anchor``, a middle or end)
and leaves the rest to the renderer. Renderers lay the same string out
differently: cairosvg places each character by its own advance, rounded to
whole device pixels in a PNG and not in a PDF, and knows no kerning;
browsers kern. A word drifts by a pixel or two between the PNG, the PDF and
the browser, and a right-aligned tick label no longer ends where matplotlib
measured it.

:func:`pin_text_positions` rewrites every simple text run of the canvas
(the ``<text>`` that matplotlib writes under ``svg.fonttype = "none"``, and
``<text>``/``<tspan>`` lines of imported SVG files) with an explicit x for
every character, from matplotlib's layout in the font matplotlib finds for
it (:func:`composer.text.metrics.char_x`: kerning on, ligatures off), the start
moved by the anchor and the anchor set to ``start``. Whitespace is settled
first (``xml:space="preserve"`` is written with the characters every
renderer will then show): text that matplotlib laid out keeps its spaces
(``"  z=25"``); imported text is collapsed as SVG 1.1 (10.15) says its own
viewer did.

Left alone (drawn as before): text with child elements, several x (or a
``<tspan>`` with none: it continues the run before it),
``dx``/``dy``/``rotate``/``textLength``, letter or word spacing, a
``<textPath>``, an anchor that continues into a following run, and fonts
matplotlib does not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from composer.text.fonts import css_style, css_weight, matplotlib_font, parse_families, text_elements
from composer.units import fmt

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_SVG = "http://www.w3.org/2000/svg"
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")
_NOT_PINNED = ("dx", "dy", "rotate", "textLength", "lengthAdjust")



def _plain_anchor(props: dict[str, str]) -> str | None:
    """The ``text-anchor`` of a run drawn glyph after glyph with no extra spacing (``letter-spacing`` and
    ``word-spacing`` normal or 0), ``start``/``middle``/``end``; None for any other run (left as it is)."""
    if props.get("letter-spacing", "normal") not in ("normal", "0", "0px") or \
            props.get("word-spacing", "normal") not in ("normal", "0", "0px"):
        return None
    anchor = props.get("text-anchor", "start")
    return anchor if anchor in ("start", "middle", "end") else None

def pin_text_positions(root: etree._Element, *, scope: Callable[[etree._Element], str | None]) -> int:
    """Pin the text runs of the canvas ``root`` in place (see module docstring).

    Args:
        scope: for an element, ``"laid-out"`` when matplotlib laid its text out
            (spaces kept), ``"imported"`` for text from an SVG file (spaces
            collapsed as SVG 1.1), None to leave it alone.

    Returns:
        How many runs were pinned.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    from composer.text.metrics import char_x

    count = 0
    for el, props in text_elements(root):
        kind = scope(el)
        if kind is None or len(el) or not (el.text or "").strip():
            continue
        if etree.QName(el).localname == "textPath" or any(el.get(a) is not None for a in _NOT_PINNED):
            continue
        x = el.get("x")
        if x is None and etree.QName(el).localname == "text":
            x = "0"  # a <text> starts at x = 0 (matplotlib's rotated text: transform="translate() rotate()")
        if x is None or not _NUMBER.fullmatch(x):
            continue
        anchor = _plain_anchor(props)
        if anchor is None:
            continue
        if anchor != "start" and _continues(el):
            continue
        text = el.text or ""
        if kind != "laid-out" and props.get("xml:space") != "preserve":
            text = _collapse(text)
        families = parse_families(props.get("font-family", "sans-serif"))
        weight, style = css_weight(props.get("font-weight", "")), css_style(props.get("font-style", ""))
        if matplotlib_font(families, weight, style) is None:
            continue
        prop = FontProperties(family=list(families), size=props["font-size"], weight=weight, style=style)  # type: ignore[arg-type]  # one of STYLES
        xs = char_x(text, prop)
        if not xs:
            continue
        width = float(text_to_path.get_text_width_height_descent(text, prop, ismath=False)[0])
        x0 = float(x) - {"middle": width / 2, "end": width}.get(anchor, 0.0)
        el.set("x", " ".join(fmt(x0 + dx) for dx in xs))
        el.text = text
        el.set(_XML_SPACE, "preserve")
        style_attr = re.sub(r"(^|;)\s*text-anchor\s*:[^;]*", r"\1", el.get("style", "")).strip("; ")
        el.set("style", (style_attr + "; " if style_attr else "") + "text-anchor: start")
        count += 1
    return count


def _continues(el: etree._Element) -> bool:
    """True when the text chunk starting at ``el`` goes on after it (tail text, or a following
    run without its own x), so its anchor would align more than ``el``."""
    if (el.tail or "").strip():
        return True
    sibling = el.getnext()
    while sibling is not None:
        if not isinstance(sibling.tag, str):
            sibling = sibling.getnext()
            continue
        return sibling.get("x") is None
    return False


def _collapse(text: str) -> str:
    """SVG 1.1 ``xml:space="default"``: drop newlines, tabs to spaces, trim, squeeze spaces."""
    text = re.sub(r"[\n\r]", "", text).replace("\t", " ").strip(" ")
    return re.sub(r" +", " ", text)


#: attributes of a ``<text>``/``<tspan>`` that only mean something for text (not kept on its outline).
_TEXT_ONLY = ("x", "y", "dx", "dy", "rotate", "textLength", "lengthAdjust", "text-anchor", "font", "font-family",
              "font-size", "font-style", "font-weight", "font-variant", "font-stretch", "letter-spacing",
              "word-spacing", _XML_SPACE)


def outline_unrendered_fonts(root: etree._Element, *, scope: Callable[[etree._Element], str | None]) -> list[str]:
    """Draw as glyph outlines the imported text whose font the renderers lack but matplotlib has.

    matplotlib ships fonts fontconfig usually does not know (``mpl-data/fonts``: STIX, the
    Computer Modern ``cm*10`` math fonts, DejaVu), and files saved by matplotlib with
    ``svg.fonttype = "none"`` name them: ``font-family: cmmi10`` with ``¸`` (U+00B8), the code
    point of λ in that font's own encoding, or ``cmex10`` with ``X`` for ∑. A browser or cairosvg
    draws those characters in a fallback font (a cedilla, an X). So every simple text run of an
    imported file (``scope(el) == "imported"``; the runs :func:`pin_text_positions` takes: one x,
    no child elements, no dx/dy/rotate/textLength, not on a path) whose first family fontconfig
    would swap (:func:`composer.text.fonts.fontconfig_font`, as :func:`composer.text.fonts.check_svg_fonts`
    asks) and matplotlib has under that very name is replaced by its outline in that font file,
    laid out as composer lays out its own text (:class:`matplotlib.textpath.TextPath`: kerning on),
    at the run's x and y, moved by its ``text-anchor``. A ``<tspan>`` becomes a ``<path>`` beside its
    ``<text>`` in a ``<g>`` carrying the ``<text>``'s attributes (transform, fill, class, style), so
    it is painted as the text was; a ``<text>`` left empty is removed.

    Returns:
        One line per font outlined (``cmmi10 (regular): 2 runs``), in document order.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath, text_to_path

    from composer.text.fonts import _family_matches, fontconfig_font
    from composer.text.metrics import _path_d

    done: dict[str, int] = {}
    emptied: list[etree._Element] = []
    for el, props in text_elements(root):
        if scope(el) != "imported" or len(el) or not (el.text or "").strip():
            continue
        local = etree.QName(el).localname
        if local == "textPath" or any(el.get(a) is not None for a in _NOT_PINNED):
            continue
        if local == "tspan" and (etree.QName(el.getparent()).localname != "text" or (el.tail or "").strip()):
            continue  # a tspan in a tspan (painted from two levels up), or text after it that continues its run
        x, y = el.get("x", "0" if local == "text" else None), el.get("y", "0" if local == "text" else None)
        if x is None or y is None or not _NUMBER.fullmatch(x) or not _NUMBER.fullmatch(y):
            continue
        anchor = _plain_anchor(props)
        if anchor is None:
            continue
        families = parse_families(props.get("font-family", "sans-serif"))
        weight, style = css_weight(props.get("font-weight", "")), css_style(props.get("font-style", ""))
        rendered = fontconfig_font(families[0], weight, style)
        if rendered is None or _family_matches(families[0], rendered) and not rendered.synthetic:
            continue  # the renderers have it (or, without fontconfig, nothing can be told)
        shipped = matplotlib_font(families[:1], weight, style)
        if shipped is None or shipped.family.casefold() != families[0].casefold():
            continue  # matplotlib lacks it too: check_svg_fonts says so
        text = el.text or ""
        if props.get("xml:space") != "preserve":
            text = _collapse(text)
        prop = FontProperties(fname=shipped.file, size=props["font-size"])
        escaped = text.replace("$", r"\$")  # plain text, not mathtext
        width = float(text_to_path.get_text_width_height_descent(escaped, prop, ismath=False)[0])
        x0 = float(x) - {"middle": width / 2, "end": width}.get(anchor, 0.0)
        try:
            d = _path_d(TextPath((0, 0), escaped, prop=prop))
        except AttributeError:  # matplotlib fails on glyphs without an outline (U+00A0, U+200B)
            continue
        outline = etree.Element(f"{{{_SVG}}}path")
        for name, value in el.attrib.items():
            if name not in _TEXT_ONLY:
                outline.set(name, value)
        outline.set("d", d)
        shift = f"translate({fmt(x0)} {fmt(float(y))})"
        outline.set("transform", f"{el.get('transform')} {shift}" if el.get("transform") else shift)
        if local == "text":
            outline.tail = el.tail
            el.getparent().replace(el, outline)
        else:
            text_el = el.getparent()
            holder = text_el.getnext()
            if holder is None or holder.get("data-outlines-of") != str(id(text_el)):
                holder = etree.Element(f"{{{_SVG}}}g")
                for name, value in text_el.attrib.items():
                    if name not in _TEXT_ONLY and name != "id":
                        holder.set(name, value)
                holder.set("data-outlines-of", str(id(text_el)))
                holder.tail, text_el.tail = text_el.tail, None
                text_el.addnext(holder)
                emptied.append(text_el)
            holder.append(outline)
            text_el.remove(el)  # its tail is white space (above), dropped with it
        key = f"{families[0]} ({' '.join(w for w in (weight, style) if w != 'normal') or 'regular'})"
        done[key] = done.get(key, 0) + 1
    for text_el in emptied:
        holder = text_el.getnext()
        if holder is not None:
            holder.attrib.pop("data-outlines-of", None)
        if not len(text_el) and not (text_el.text or "").strip():
            if holder is not None:
                holder.tail = (text_el.tail or "") + (holder.tail or "")
            parent = text_el.getparent()
            if text_el.get("id") and holder is not None:
                holder.set("id", text_el.get("id", ""))
            parent.remove(text_el)
    return [f"{font}: {count} run{'s' if count > 1 else ''}" for font, count in done.items()]
