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
import warnings
from collections.abc import Callable
from functools import cache

from lxml import etree

from composer.text.fonts import css_style, css_weight, matplotlib_font, parse_families, text_elements
from composer.units import fmt

#: layout scale, as matplotlib's TextToPath: lay out at 100 pt, then scale
_LAYOUT_PT = 100.0

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_SVG = "http://www.w3.org/2000/svg"
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")
_NOT_PINNED = ("dx", "dy", "rotate", "textLength", "lengthAdjust")



#: ``writing-mode`` values that lay text out left to right (SVG 1.1's ``lr``, ``lr-tb``; CSS's
#: ``horizontal-tb``); ``tb``, ``tb-rl``, ``vertical-rl``, ``vertical-lr``... stack the glyphs downwards
_HORIZONTAL = frozenset({"lr", "lr-tb", "rl", "rl-tb", "horizontal-tb", "initial", "inherit", "unset"})


#: properties that change the glyphs or advances a renderer draws, with the values matplotlib's layout
#: (kerning on, the regular or bold face, no features) draws alike: any other value (small caps, kerning
#: off, a variable font's axes, a weight between the faces such as 650 or ``lighter``, a condensed
#: stretch, uppercase) is left to the renderers
_LAYOUT_DEFAULTS = (
    ("font-variant", "normal"), ("font-kerning", "auto", "normal"), ("kerning", "auto"),
    ("font-stretch", "normal", "100%"), ("font-feature-settings", "normal"), ("font-variation-settings", "normal"),
    ("text-transform", "none"), ("font-size-adjust", "none"),
    ("font-weight", "normal", "bold", "400", "700"),
)


def _plain_anchor(props: dict[str, str]) -> str | None:
    """The ``text-anchor`` of a run drawn glyph after glyph from left to right with no extra spacing
    (``letter-spacing`` and ``word-spacing`` normal or 0, ``writing-mode`` horizontal, ``direction``
    ``ltr``), ``start``/``middle``/``end``; None for any other run (left as it is: in vertical text an x
    per character would step every glyph sideways as well as down, a staircase)."""
    if props.get("letter-spacing", "normal") not in ("normal", "0", "0px") or \
            props.get("word-spacing", "normal") not in ("normal", "0", "0px"):
        return None
    if props.get("writing-mode", "horizontal-tb").strip().lower() not in _HORIZONTAL or \
            props.get("direction", "ltr").strip().lower() == "rtl":
        return None
    if any(props.get(name, default).strip().lower() not in (default, *also)
           for name, default, *also in _LAYOUT_DEFAULTS):
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

    from composer.text.metrics import char_x, missing_glyphs

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
        if x is None or not _NUMBER.fullmatch(x) or el.get("y") is not None and not _NUMBER.fullmatch(el.get("y", "")):
            continue  # a list of y gives characters positions of their own: each starts a text chunk
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
        found = matplotlib_font(families, weight, style)
        if found is None:
            continue
        if kind == "imported" and (weight, style) != ("normal", "normal") and is_variable(found.file):
            continue  # the engine sets a variable font's axes for the weight or slant; matplotlib draws its default
        prop = FontProperties(family=list(families), size=props["font-size"], weight=weight, style=style)  # type: ignore[arg-type]  # one of STYLES
        if kind == "imported" and needs_shaping(text):
            continue  # laid out by the renderers' shaping (bidi, joining, clusters), which one x per character breaks
        if kind == "imported" and missing_glyphs(text, prop):
            prop = _with_fallbacks(text, prop, families, weight, style)
            if prop is None:
                continue  # a character no font has: each renderer draws its font's box (fonts.check_missing_glyphs)
        with warnings.catch_warnings():  # composer's own text: the render stage reported its missing glyphs
            warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
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


@cache
def is_variable(file: str) -> bool:
    """True for a variable font (an OpenType ``fvar`` table): a renderer draws its bold or oblique by setting
    its axes (``wght``, ``slnt``), with other advances than the default instance matplotlib lays out."""
    from fontTools.ttLib import TTFont, TTLibError  # matplotlib's dependency

    try:
        with TTFont(file, fontNumber=0, lazy=True) as font:
            return "fvar" in font
    except (OSError, TTLibError):
        return False


#: blocks of scripts whose characters are not drawn one glyph per character from left to right: Hebrew to
#: NKo and Arabic supplements (right to left, joined), the Indic scripts to Sinhala, Thai, Lao, Tibetan,
#: Myanmar, Hangul Jamo (composed into syllables), Khmer, Mongolian, Arabic presentation forms
_SHAPED_BLOCKS = ((0x0590, 0x08FF), (0x0900, 0x0DFF), (0x0E00, 0x0FFF), (0x1000, 0x109F), (0x1100, 0x11FF),
                  (0x1780, 0x18AF), (0xA8E0, 0xA8FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFF), (0x10800, 0x10FFF),
                  (0x1E800, 0x1EFFF))


def needs_shaping(text: str) -> bool:
    """True when ``text`` holds a character a renderer places by shaping rather than one glyph after the
    other from left to right: a right-to-left character (bidi class R or AL: drawn right to left by the
    Unicode bidi algorithm even in left-to-right text), a character of a script of
    :data:`_SHAPED_BLOCKS`, a combining mark (categories Mn, Mc, Me) or a format character (ZWJ in an
    emoji sequence, a variation selector's neighbour: category Cf). One x per character would draw such
    text in logical order, unjoined (Chromium draws ``مرحبا`` joined, right to left)."""
    import unicodedata

    for ch in text:
        code = ord(ch)
        if code < 0x0300:
            continue
        if unicodedata.bidirectional(ch) in ("R", "AL") or unicodedata.category(ch) in ("Mn", "Mc", "Me", "Cf"):
            return True
        if any(lo <= code <= hi for lo, hi in _SHAPED_BLOCKS):
            return True
        if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:  # variation selectors
            return True
    return False


def _with_fallbacks(text: str, prop, families: tuple[str, ...], weight: str, style: str):
    """``prop`` with, after its families, the fonts a browser here draws ``text``'s other characters from
    (:func:`composer.text.fonts.fontconfig_fallback` for the first family), so matplotlib's layout, which
    falls back glyph by glyph through its family list, sets each character at its fallback font's advance,
    as Chromium does; None when a character is in no installed font (then the text is left to the
    renderers, which draw the font's own box at its own advance)."""
    from matplotlib.font_manager import FontProperties

    from composer.text.fonts import fontconfig_fallback
    from composer.text.metrics import missing_glyphs

    primary = matplotlib_font(families, weight, style)
    if primary is None:
        return None
    extra: list[str] = []
    for ch in sorted(missing_glyphs(text, prop)):
        found = fontconfig_fallback(primary.family, ch, weight, style)
        if found is None or not found.family:
            return None
        if found.family not in extra and found.family not in families:
            extra.append(found.family)
    wider = FontProperties(family=[*families, *extra], size=prop.get_size_in_points(), weight=weight,
                           style=style)  # type: ignore[arg-type]  # one of STYLES
    return None if missing_glyphs(text, wider) else wider


def _continues(el: etree._Element) -> bool:
    """True when the text chunk starting at ``el`` goes on after it (tail text, or a following
    run without its own x), so its anchor would align more than ``el``."""
    if (el.tail or "").strip():
        return True
    if el.tail and el.getnext() is not None and etree.QName(el).localname == "tspan":
        return True  # white space between two runs of a <text> is a space of this chunk (collapsed, not dropped)
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
    it is painted as the text was; a ``<text>`` left empty is removed. A ``<text>`` whose runs are not
    each placed alone (text beside its tspans, a tspan without x or y, ``dx``/``dy``, nested tspans)
    is laid out as a whole, as SVG places its characters, and replaced by the outlines of all its
    runs (:func:`_outline_text_tree`). Characters are drawn by the glyphs matplotlib draws for them
    (:func:`drawable_text`: the Computer Modern fonts' TeX encoding as mathtext uses it); a run with a
    character the font lacks (a CJK character in cmr10) stays text, for the renderers' font fallback.

    Returns:
        One line per font outlined (``cmmi10 (regular): 2 runs``), in document order.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath, text_to_path

    from composer.text.fonts import _family_matches, fontconfig_font
    from composer.text.metrics import _path_d

    done: dict[str, int] = {}
    emptied: list[etree._Element] = []
    found = text_elements(root)
    props_of = {el: props for el, props in found}
    outlined: set[etree._Element] = set()
    for el, _ in found:
        if (etree.QName(el).localname == "text" and len(el) and scope(el) == "imported"
                and not _absolute_runs(el)):
            fonts = _outline_text_tree(el, props_of)
            if fonts:
                outlined.add(el)
                for key in fonts:
                    done[key] = done.get(key, 0) + 1
    for el, props in found:
        if scope(el) != "imported" or len(el) or not (el.text or "").strip():
            continue
        local = etree.QName(el).localname
        if local == "textPath" or any(el.get(a) is not None for a in _NOT_PINNED):
            continue
        if local == "tspan" and (etree.QName(el.getparent()).localname != "text" or (el.tail or "").strip()
                                 or _continued(el)):
            continue  # a tspan in a tspan (painted from two levels up), or text after it that continues its run
        if any(a in outlined for a in el.iterancestors()):
            continue
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
        glyphs = drawable_text(text, shipped.file)
        if glyphs is None:
            continue  # a character the font cannot draw as the file means it: left to the renderers
        prop = FontProperties(fname=shipped.file, size=props["font-size"])
        escaped = glyphs.replace("$", r"\$")  # plain text, not mathtext
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


def _continued(el: etree._Element) -> bool:
    """True when the element after ``el`` is a run placed from where ``el`` ends (no x or no y of its own)."""
    sibling = el.getnext()
    while sibling is not None and not isinstance(sibling.tag, str):
        sibling = sibling.getnext()
    return sibling is not None and (sibling.get("x") is None or sibling.get("y") is None)


def _absolute_runs(text_el: etree._Element) -> bool:
    """True for a ``<text>`` as matplotlib writes it: only ``<tspan>`` children, each a leaf with one x and
    one y, and white space between them (each run stands alone, and is outlined alone)."""
    if (text_el.text or "").strip():
        return False
    for child in text_el:
        if (not isinstance(child.tag, str) or etree.QName(child).localname != "tspan" or len(child)
                or (child.tail or "").strip()):
            return False
        if not _NUMBER.fullmatch(child.get("x", "")) or not _NUMBER.fullmatch(child.get("y", "")):
            return False
    return True


#: a number of an x/y/dx/dy list, in user units (px allowed)
_LIST_ITEM = re.compile(r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)(?:px)?")
#: properties that move or hide glyphs in ways the tree layout below does not follow
_NOT_FOLLOWED = ("baseline-shift", "dominant-baseline", "alignment-baseline", "display", "writing-mode",
                 "glyph-orientation", "font-variant", "font-feature-settings", "font-kerning")
#: children of text content that draw nothing (skipped; their tails count)
_SILENT = frozenset({"title", "desc", "metadata"})


def _numbers(value: str | None) -> list[float] | None:
    """An x/y/dx/dy list as numbers (``"1 2.5px,3"`` -> ``[1, 2.5, 3]``); ``[]`` for None; None when
    any item is not a plain number or px (a percentage, an em: left to the renderer)."""
    if value is None:
        return []
    out = []
    for item in re.split(r"[\s,]+", value.strip()):
        match = _LIST_ITEM.fullmatch(item)
        if match is None:
            return None
        out.append(float(match.group(1)))
    return out


def _outline_text_tree(text_el: etree._Element, props_of: dict[etree._Element, dict]) -> list[str]:
    """Replace a ``<text>`` with ``<tspan>`` children by its glyph outlines when one of its runs is in a
    font the renderers lack and matplotlib ships (see :func:`outline_unrendered_fonts`); returns the fonts
    outlined (``cmr10 (regular)``, one entry per run), ``[]`` when the text is left as it is.

    Layout (SVG 1.1, 10.4-10.5, and SVG 2, 11.8 "text layout"): the characters of the text and of its
    tspans, in document order, white space collapsed over the whole text (``xml:space="default"``:
    newlines dropped, tabs as spaces, leading and trailing spaces removed, runs of spaces as one) or
    kept (``preserve``, newlines and tabs as spaces), are set one after the other from the pen: an
    element's ``x``/``y`` list sets the absolute position of its characters in order (an inner
    element's list wins over its ancestors'), ``dx``/``dy`` shift them; each absolute position starts a
    text chunk, moved as a whole by the ``text-anchor`` of its first character (its width: the pen's
    advance over it). The characters of one element between two position changes are one run, laid
    out by matplotlib in its font (kerning on, as composer's own text; the advance: the last
    character's origin plus its advance width), in the file that matplotlib finds for the run's
    ``font-family`` (the shipped file for a family fontconfig lacks). The outline keeps the tree: a
    ``<g>`` with the ``<text>``'s attributes (its id, transform, paint, class, style) and, inside it, a
    ``<g>`` per tspan with its own attributes, holding ``<path>`` runs.

    Left as text: a child other than ``<tspan>`` (``<textPath>``, ``<a>``), ``rotate``, ``textLength``,
    letter or word spacing, baseline shifts, ``display``, a position not in user units, an anchor other
    than start/middle/end, mixed ``xml:space``, a run in a font matplotlib lacks, or no run in a font
    that needs outlining.
    """
    from matplotlib.font_manager import FontProperties, get_font
    from matplotlib.ft2font import LoadFlags
    from matplotlib.textpath import TextPath

    from composer.text.fonts import _family_matches, fontconfig_font
    from composer.text.metrics import _path_d

    # 1. the characters, each with the chain of elements holding it (outermost first)
    chars: list[tuple[str, tuple[etree._Element, ...]]] = []
    elements: list[etree._Element] = []

    def walk(el: etree._Element, chain: tuple[etree._Element, ...]) -> bool:
        chain = (*chain, el)
        elements.append(el)
        chars.extend((ch, chain) for ch in el.text or "")
        for child in el:
            if not isinstance(child.tag, str):
                return False
            local = etree.QName(child).localname
            if local == "tspan":
                if not walk(child, chain):
                    return False
            elif local not in _SILENT:
                return False
            chars.extend((ch, chain) for ch in child.tail or "")
        return True

    if not walk(text_el, ()):
        return []
    spaces = set()
    for el in elements:
        if any(el.get(a) is not None for a in (*_NOT_PINNED[2:], *_NOT_FOLLOWED)) or \
                any(prop in (el.get("style") or "") for prop in _NOT_FOLLOWED):
            return []
        if el not in props_of or _plain_anchor(props_of[el]) is None:
            return []
        spaces.add(props_of[el].get("xml:space") == "preserve")
    if len(spaces) > 1:
        return []
    # 2. white space (SVG 1.1, 10.15)
    chars = [(" " if ch in "\t\n\r" else ch, chain) for ch, chain in chars
             if spaces == {True} or ch not in "\n\r"]
    if spaces != {True}:
        collapsed: list[tuple[str, tuple[etree._Element, ...]]] = []
        for ch, chain in chars:
            if ch == " " and (not collapsed or collapsed[-1][0] == " "):
                continue
            collapsed.append((ch, chain))
        if collapsed and collapsed[-1][0] == " ":
            collapsed.pop()
        chars = collapsed
    if not "".join(ch for ch, _ in chars).strip():
        return []
    # 3. fonts, per element holding characters (first: most texts need no outlines)
    files: dict[etree._Element, tuple[str, float]] = {}
    fonts: dict[etree._Element, str] = {}
    for _, chain in chars:
        el = chain[-1]
        if el in files:
            continue
        props = props_of[el]
        families = parse_families(props.get("font-family", "sans-serif"))
        weight, style = css_weight(props.get("font-weight", "")), css_style(props.get("font-style", ""))
        rendered = fontconfig_font(families[0], weight, style)
        shipped = matplotlib_font(families[:1], weight, style)
        if (rendered is not None and not (_family_matches(families[0], rendered) and not rendered.synthetic)
                and shipped is not None and shipped.family.casefold() == families[0].casefold()):
            files[el] = (shipped.file, props["font-size"])
            fonts[el] = f"{families[0]} ({' '.join(w for w in (weight, style) if w != 'normal') or 'regular'})"
        else:
            found = matplotlib_font(families, weight, style)
            if found is None:
                return []
            files[el] = (found.file, props["font-size"])
    if not fonts:
        return []
    # 4. positions: each element's lists over its characters, outer elements first
    n = len(chars)
    absolute: dict[str, list[float | None]] = {"x": [None] * n, "y": [None] * n}
    relative: dict[str, list[float | None]] = {"dx": [None] * n, "dy": [None] * n}
    held_by: dict[etree._Element, list[int]] = {}
    for i, (_, chain) in enumerate(chars):
        for el in chain:
            held_by.setdefault(el, []).append(i)
    for el in elements:
        held = held_by.get(el, [])
        for attr, target in (("x", absolute["x"]), ("y", absolute["y"]), ("dx", relative["dx"]),
                             ("dy", relative["dy"])):
            values = _numbers(el.get(attr))
            if values is None:
                return []
            for i, value in zip(held, values):
                target[i] = value
    # 5. runs: one element's characters between position changes
    runs: list[tuple[int, int]] = []
    for i, (_, chain) in enumerate(chars):
        moved = absolute["x"][i] is not None or absolute["y"][i] is not None or relative["dx"][i] or relative["dy"][i]
        if not runs or moved or chain[-1] is not chars[i - 1][1][-1]:
            runs.append((i, i + 1))
        else:
            runs[-1] = (runs[-1][0], i + 1)
    # 6. layout: the pen, chunk by chunk
    placed: list[tuple[int, int, float, float, str]] = []  # (start, end, x, y, d)
    chunks: list[tuple[int, float, float]] = []  # (first placed run, start x, end x)
    pen_x = pen_y = 0.0
    for start, end in runs:
        if absolute["x"][start] is not None or absolute["y"][start] is not None or not chunks:
            pen_x = _or(absolute["x"][start], pen_x)
            pen_y = _or(absolute["y"][start], pen_y)
            chunks.append((len(placed), pen_x, pen_x))
        pen_x += relative["dx"][start] or 0.0
        pen_y += relative["dy"][start] or 0.0
        file, size = files[chars[start][1][-1]]
        glyphs = drawable_text("".join(ch for ch, _ in chars[start:end]), file)
        if glyphs is None:
            return []
        text = glyphs
        font = get_font(file)
        font.set_size(_LAYOUT_PT, 72)
        xys = font.set_text(text, 0.0, flags=LoadFlags.NO_HINTING, features=("-liga", "-clig", "-dlig"))  # type: ignore[arg-type]
        last = font.load_char(ord(text[-1]), flags=LoadFlags.NO_HINTING)
        advance = (float(xys[-1][0]) / 64.0 + last.linearHoriAdvance / 65536.0) * size / _LAYOUT_PT if len(xys) else 0.0
        d = ""
        if text.strip():
            try:
                d = _path_d(TextPath((0, 0), text.replace("$", r"\$"), prop=FontProperties(fname=file, size=size)))
            except AttributeError:  # matplotlib fails on glyphs without an outline (U+00A0, U+200B)
                return []
        placed.append((start, end, pen_x, pen_y, d))
        pen_x += advance
        chunks[-1] = (chunks[-1][0], chunks[-1][1], pen_x)
    # 7. anchors, then the outlines in the text's tree
    shifts = [0.0] * len(placed)
    for k, (first, x0, x1) in enumerate(chunks):
        upto = chunks[k + 1][0] if k + 1 < len(chunks) else len(placed)
        anchor = _plain_anchor(props_of[chars[placed[first][0]][1][-1]])
        shift = {"middle": (x1 - x0) / 2, "end": x1 - x0}.get(anchor or "start", 0.0)
        for j in range(first, upto):
            shifts[j] = shift
    top = etree.Element(f"{{{_SVG}}}g")
    for name, value in text_el.attrib.items():
        if name not in _TEXT_ONLY:
            top.set(name, value)
    groups: dict[etree._Element, etree._Element] = {text_el: top}

    def group(el: etree._Element) -> etree._Element:  # made at its first run: groups and runs in document order
        if el not in groups:
            attrs = {k: v for k, v in el.attrib.items() if k not in _TEXT_ONLY and k != "transform"}
            parent = group(el.getparent())
            groups[el] = etree.SubElement(parent, f"{{{_SVG}}}g", attrs) if attrs else parent
        return groups[el]

    for (start, _, x, y, d), shift in zip(placed, shifts):
        if d:
            etree.SubElement(group(chars[start][1][-1]), f"{{{_SVG}}}path",
                             {"d": d, "transform": f"translate({fmt(x - shift)} {fmt(y)})"})
    top.tail = text_el.tail
    text_el.getparent().replace(text_el, top)
    return [fonts[chars[start][1][-1]] for start, _, _, _, d in placed if d and chars[start][1][-1] in fonts]


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


@cache
def _tex_encoding(file: str) -> tuple[frozenset[int], dict[int, int]] | None:
    """For one of matplotlib's Computer Modern fonts (the BaKoMa ``cm*10.ttf`` of ``mpl-data/fonts/ttf``,
    whose character map is TeX's encoding of that font, not Unicode): (the code points matplotlib's
    mathtext writes in it, a Unicode code point -> the code point of its glyph in it); None for any
    other font file.

    What mathtext writes (``matplotlib._mathtext_data.latex_to_bakoma``: a TeX symbol -> (font, code);
    a single character typed in a formula is looked up in the font's character map as it is, which for
    cmex10 mathtext never does): a file saved by matplotlib with ``svg.fonttype = "none"`` holds these
    codes (``¸`` for λ in cmmi10), and they are drawn by the font's own map. A Unicode character
    (``λ`` in cmmi10, from another tool) is mapped through its TeX name
    (``matplotlib._mathtext_data.tex2uni``) to the code mathtext uses for that name in this font."""
    import os

    import matplotlib
    from matplotlib import _mathtext_data
    from matplotlib.font_manager import get_font

    folder = os.path.realpath(os.path.join(matplotlib.get_data_path(), "fonts", "ttf"))
    name = os.path.basename(file)
    if os.path.dirname(os.path.realpath(file)) != folder or not re.fullmatch(r"cm[a-z]+10\.ttf", name):
        return None
    font = name[:-4]
    charmap = get_font(file).get_charmap()
    written = {code for family, code in _mathtext_data.latex_to_bakoma.values() if family == font}
    if font != "cmex10":
        written |= {code for code in range(0x20, 0x7F) if code in charmap}
    unicode: dict[int, int] = {}
    for tex, point in sorted(_mathtext_data.tex2uni.items()):
        found = _mathtext_data.latex_to_bakoma.get("\\" + tex) or _mathtext_data.latex_to_bakoma.get(tex)
        if found is not None and found[0] == font and found[1] in charmap and point not in unicode:
            unicode[point] = found[1]
    return frozenset(written & set(charmap)), unicode


def drawable_text(text: str, file: str) -> str | None:
    """``text`` as the characters whose glyphs in the font ``file`` draw it, or None when some character
    has none there (left as text then, for the renderers' own font fallback: a CJK character in
    cmr10 or STIX would be drawn as the font's empty box).

    A Unicode font draws each character by its character map. matplotlib's Computer Modern fonts are
    TeX-encoded (:func:`_tex_encoding`): a code point mathtext writes in the font is kept (its glyph
    is what matplotlib drew), another is mapped to its glyph's code as mathtext maps its TeX symbol
    (``λ`` -> ``¸`` in cmmi10, ``∞`` -> ``1`` in cmsy10), and one with no such symbol in this font has
    no glyph. Spaces are kept (their advance)."""
    from matplotlib.font_manager import get_font

    tex = _tex_encoding(file)
    if tex is None:
        font = get_font(file)
        return text if all(ch.isspace() or font.get_char_index(ord(ch)) for ch in text) else None
    written, unicode = tex
    out = []
    for ch in text:
        if ch == " " or ord(ch) in written:
            out.append(ch)
        elif ord(ch) in unicode:
            out.append(chr(unicode[ord(ch)]))
        else:
            return None
    return "".join(out)
