"""Text-only HTML inside an SVG ``<foreignObject>``, laid out as Chromium lays it out and written as SVG
``<text>``, ``<rect>`` (backgrounds) and ``<image>`` (``<img>``).

draw.io writes every label as XHTML in a ``<foreignObject>`` (a flex ``<div>`` centring an inline-block
``<div>`` that holds the text, its font size, family and colour in inline ``style``), mermaid writes
``<div style="display: table-cell; text-align: center"><span><p>Start</p></span></div>`` styled by
its ``<style>`` sheet. The export engines draw no HTML, so composer draws it itself: what a browser's
CSS layout puts there, for the elements :func:`composer.svg.sanitize.is_text_only` admits (text, line
breaks, inline styling, blocks, lists, pictures; not HTML tables, forms or floats, which stay one warning).

Each element makes a box (CSS Display 3: ``display`` or the user-agent default; ``none`` makes none), laid
out by the rules these producers' markup needs:

- Block flow (CSS 2.1, 9.4.1, 10.3.3, 10.6.3): block boxes stacked, as wide as their containing block
  less their margins, unless ``width`` (px, em, % of the containing block; ``box-sizing``) or
  ``max-width``/``min-width`` say otherwise; adjoining vertical margins collapse (between siblings and
  through an empty block); inline content in anonymous blocks; a block inside an inline splits it.
- Inline formatting (CSS 2.1, 9.4.2 and 10.8; CSS Text 3, 4-5): words broken at spaces as ``white-space``
  allows (greedy, around atomic boxes too, and where Chromium's UAX #14 breaker breaks a word: after a
  hyphen between letters or digits, between a closing and an opening bracket), spaces collapsed and
  removed at a line's ends; each line box
  as tall as its inline boxes' line heights around their baselines, with Blink's rounding: a font's ascent
  and descent each rounded to whole px, the half-leading floored above (``line-height: normal``: their sum
  plus the rounded line gap); lines placed by ``text-align`` (written with ``text-anchor`` so an engine
  drawing a slightly different font keeps the alignment), start-aligned when they overflow.
- Atomic inlines (``inline-block``, ``<img>``): laid out inside as blocks, shrink-to-fit (CSS 2.1,
  10.3.9: between their min- and max-content widths), on the line by ``vertical-align`` (baseline, top,
  bottom, middle, text-top, text-bottom, sub, super, a length).
- Flex (CSS Flexbox 1, 9, one line): items sized from their content, shrunk by ``flex-shrink`` (not below
  their min-content) and grown by ``flex-grow``, placed by ``justify-content`` and ``align-items`` /
  ``align-self``, overflowing both ways when centred (``unsafe``, and Chromium's default).
- Tables (CSS 2.1, 17; ``display: table``/``table-row``/``table-cell``, anonymous tables around lone
  cells): columns as wide as their widest cell, the table's room shared in proportion, rows as tall as
  their tallest cell, a table's ``height`` shared among them, each cell's content placed by its
  ``vertical-align``.
- Lists (``<ul>``, ``<ol>``, ``<li>``: the user-agent style sheet's margins and 40 px padding): an outside
  marker on each item's first line, a number "1. " or a disc, circle or square drawn as Blink draws them.
- Text is measured by the advances of the face Chromium draws it with (:func:`text_width_px`): the first
  family of the list it takes (:func:`composer.text.fonts.browser_font`), a fallback face for a character
  the face lacks, the ``.notdef`` glyph when none has it.

What is drawn carries its properties in its ``style``, over the file's SVG rules (mermaid's ``.edgeLabel
rect { opacity: 0.5 }`` is for its own rects, not a label's background). Styles come from a caller's
``style_of(element)``: the computed declarations of each element (the file's style sheets and ``style``
attributes, :func:`composer.stages.fragment.draw_foreign_objects`).
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Union

from lxml import etree

from composer.svg.io import SVG_NS
from composer.svg.sanitize import HTML_TEXT_ELEMENTS, XHTML_NS, is_text_only
from composer.text.fonts import fontconfig_font, matplotlib_font, parse_families

#: the elements that are blocks by default (HTML's user-agent style sheet)
_BLOCKS = frozenset({"blockquote", "body", "center", "div", "h1", "h2", "h3", "h4", "h5", "h6", "html", "p", "pre",
                     "ul", "ol"})
#: the list-style-type symbols, drawn as shapes (:func:`_marker`); decimal is "1. "
_MARKERS = frozenset({"disc", "circle", "square"})
#: the user-agent style sheet's font sizes (em) and weights of headings and of a few inline elements
_UA_SIZE = {"h1": 2.0, "h2": 1.5, "h3": 1.17, "h4": 1.0, "h5": 0.83, "h6": 0.67, "small": 0.83, "big": 1.2,
            "sub": 0.83, "sup": 0.83}
_UA_BOLD = frozenset({"b", "strong", "h1", "h2", "h3", "h4", "h5", "h6"})
_UA_ITALIC = frozenset({"i", "em", "cite", "dfn", "var"})
_UA_MONO = frozenset({"code", "kbd", "pre", "samp", "tt"})
#: CSS absolute font-size keywords in px (CSS Fonts 4, 2.5, medium = 16 px)
_SIZE_KEYWORDS = {"xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0, "large": 18.0,
                  "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0}
#: <font size="1".."7"> in px (HTML's legacy font sizes)
_FONT_SIZES = {1: 10.0, 2: 13.0, 3: 16.0, 4: 18.0, 5: 24.0, 6: 32.0, 7: 48.0}
_PX = {"px": 1.0, "pt": 96 / 72, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}
_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-zA-Z%]*)\s*$")


__all__ = ["HTML_TEXT_ELEMENTS", "XHTML_NS", "Font", "font_extent", "is_text_only", "layout_foreign_object",
           "text_width_px"]


def local(el: etree._Element) -> str:
    """An element's local name, "" for a comment or processing instruction."""
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


@dataclass(frozen=True)
class Font:
    """The font of a run of text: as the file names it (``family``, CSS ``weight``, ``style``), its size in
    px, its colour, its decoration."""

    family: str
    size_px: float
    weight: str
    style: str
    color: str
    decoration: str = ""
    background: str = ""


@cache
def browser_stack(value: str) -> str:
    """A CSS ``font-family`` list from the family Chromium here draws: the first one it takes
    (:func:`composer.text.fonts.browser_font`: installed, or bound strongly to a metric-compatible face,
    ``arial`` -> Liberation Sans, ``Helvetica`` -> Nimbus Sans), or a generic family; the list as written
    when it takes none (``"trebuchet ms", verdana, arial, sans-serif`` -> ``arial, sans-serif``). So the
    text is measured in the font it is drawn in, once the import names it
    (:func:`composer.stages.fragment.name_missing_families`)."""
    from composer.text.fonts import GENERIC_FAMILIES, browser_font

    parts = [part.strip() for part in re.split(r",(?=(?:[^\"']|\"[^\"]*\"|'[^']*')*$)", value) if part.strip()]
    for i, part in enumerate(parts):
        name = part.strip("'\"").strip()
        if name.casefold() in GENERIC_FAMILIES or browser_font(name) is not None:
            return ", ".join(parts[i:])
    return value


@cache
def _face(family: str, weight: str, style: str):
    """matplotlib's FT2Font of the face Chromium here draws a CSS family list with (its first family it takes,
    a generic family's default, else the standard font: :mod:`composer.text.fonts`), or None."""
    from matplotlib import font_manager

    from composer.text.fonts import CHROMIUM_STANDARD_FONT, GENERIC_FAMILIES, browser_font, generic_font

    bold = "bold" if weight in ("bold", "bolder") or (weight.isdigit() and int(weight) >= 600) else "normal"
    italic = "italic" if style in ("italic", "oblique") else "normal"
    match = None
    for name in (*(parse_families(family) or ()), CHROMIUM_STANDARD_FONT):
        if name.casefold() in GENERIC_FAMILIES:
            name = generic_font(name.casefold()) or name
        match = browser_font(name, bold, italic)
        if match is not None:
            break
    if match is None:
        match = fontconfig_font(family, bold, italic) or matplotlib_font(("DejaVu Sans",))
    if match is None:
        return None
    return font_manager.get_font(match.file)


def text_width_px(text: str, font: Font) -> float:
    """The advance width of ``text`` in px in that font: the sum of the glyphs' unhinted advances and the
    font's ``kern`` pairs, as a browser's shaper places them (HarfBuzz in Chromium; its GPOS kerning is not
    read here: a few hundredths of a px per pair); a character the face lacks measured in the face a browser
    falls back to for it (:func:`composer.text.fonts.fontconfig_fallback`)."""
    from matplotlib.ft2font import Kerning, LoadFlags

    face = _face(font.family, font.weight, font.style)
    if not text or font.size_px <= 0:
        return 0.0
    if face is None:
        return 0.55 * font.size_px * len(text)
    width = 0.0
    previous = None
    for char in text:
        glyph = face.get_char_index(ord(char))
        if not glyph and not char.isspace():
            fallback = _fallback_advance(font, char)
            previous = None
            if fallback is not None:
                width += fallback
                continue
        face.set_size(font.size_px, 72)  # 1 pt per px: sizes in px (glyph 0: the face's .notdef, as drawn)
        width += face.load_glyph(glyph, flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536
        if previous and glyph:
            width += face.get_kerning(previous, glyph, Kerning.UNFITTED) / 64
        previous = glyph
    return width


def _fallback_advance(font: Font, char: str) -> float | None:
    """The advance in px of ``char`` in the face a browser falls back to for it, None when no face has it."""
    from matplotlib import font_manager
    from matplotlib.ft2font import LoadFlags

    from composer.text.fonts import fontconfig_fallback

    bold = "bold" if font.weight in ("bold", "bolder") or (font.weight.isdigit() and int(font.weight) >= 600) \
        else "normal"
    match = fontconfig_fallback(font.family.split(",")[0].strip("'\" "), char, bold,
                                "italic" if font.style in ("italic", "oblique") else "normal")
    if match is None:
        return None
    face = font_manager.get_font(match.file)
    face.set_size(font.size_px, 72)
    return face.load_char(ord(char), flags=LoadFlags.NO_HINTING).linearHoriAdvance / 65536


def font_extent(font: Font) -> tuple[float, float, float]:
    """(ascent, descent, line gap) of the font in px (hhea; the descent positive)."""
    face = _face(font.family, font.weight, font.style)
    if face is None or not face.units_per_EM:
        return 0.9 * font.size_px, 0.2 * font.size_px, 0.0
    unit = font.size_px / face.units_per_EM
    return face.ascender * unit, -face.descender * unit, max(0.0, (face.height - face.ascender + face.descender) * unit)


def _round(value: float) -> float:
    return float(math.floor(value + 0.5))


def line_metrics(font: Font) -> tuple[float, float, float]:
    """(ascent, descent, normal line height) in whole px, as Blink rounds a font's metrics (``SimpleFontData``:
    ascent and descent each rounded, ``line-height: normal`` their sum plus the rounded line gap): the text's
    box on its line and the baseline in it."""
    ascent, descent, gap = font_extent(font)
    return _round(ascent), _round(descent), _round(ascent) + _round(descent) + _round(gap)


def _length(value: str | None, *, font_px: float, percent_of: float | None = None) -> float | None:
    """A CSS length in px (``em`` of ``font_px``, ``%`` of ``percent_of``); None for auto or not one."""
    m = _NUMBER.match(value or "")
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2).lower()
    if unit in _PX:
        return number * _PX[unit]
    if unit == "" and number == 0:
        return 0.0
    if unit in ("em",):
        return number * font_px
    if unit == "rem":
        return number * 16.0
    if unit == "%" and percent_of is not None:
        return number * percent_of / 100
    return None


def _colour(value: str) -> str:
    """A CSS value that is one opaque or translucent colour (``#e8e8e8``, ``rgb(...)``, a name), as written;
    "" for anything else (``transparent``, an image, a shorthand with more in it)."""
    import tinycss2

    tokens = [t for t in tinycss2.parse_component_value_list(value) if t.type not in ("whitespace", "comment")]
    if len(tokens) != 1:
        return ""
    token = tokens[0]
    if token.type == "hash" or (token.type == "function" and token.lower_name in ("rgb", "rgba", "hsl", "hsla")):
        return value.strip()
    if token.type == "ident" and token.lower_value not in ("transparent", "none", "initial", "inherit", "unset",
                                                            "currentcolor"):
        return value.strip()
    return ""


def _user(value: str | None) -> float | None:
    """An SVG length attribute in user units (a bare number, or px and the absolute units); None for a
    percentage, auto or nothing."""
    m = _NUMBER.match(value or "")
    if not m:
        return None
    if m.group(2) == "":
        return float(m.group(1))
    return _length(value, font_px=16.0)


def _font_size(value: str | None, parent_px: float) -> float:
    if not value:
        return parent_px
    value = value.strip().lower()
    if value in _SIZE_KEYWORDS:
        return _SIZE_KEYWORDS[value]
    if value == "larger":
        return parent_px * 1.2
    if value == "smaller":
        return parent_px / 1.2
    found = _length(value, font_px=parent_px, percent_of=parent_px)
    return found if found is not None and found >= 0 else parent_px


@dataclass
class _Computed:
    """The inherited properties at an element (CSS's computed values, in px where lengths)."""

    family: str = "serif"
    size_px: float = 16.0
    weight: str = "normal"
    style: str = "normal"
    color: str = "black"
    line_height: tuple[str, float] = ("normal", 0.0)  # ("normal", 0) | ("factor", f) | ("px", v)
    text_align: str = "start"
    white_space: str = "normal"
    decoration: str = ""
    background: str = ""  # an inline element's: painted behind its text and that of everything inside
    visible: bool = True  # visibility (inherited): hidden boxes take their room and draw nothing
    list_style: str = "disc"  # list-style-type (inherited)

    def font(self) -> Font:
        return Font(self.family, self.size_px, self.weight, self.style, self.color, self.decoration,
                    self.background)

    def line_height_px(self) -> float:
        kind, value = self.line_height
        if kind == "factor":
            return value * self.size_px
        if kind == "px":
            return value
        return line_metrics(self.font())[2]


def _inherit(parent: _Computed, el: etree._Element, decl: dict[str, str]) -> _Computed:
    name = local(el)
    out = _Computed(**parent.__dict__)
    decl = {k: v for k, v in decl.items() if v.strip().lower() not in ("inherit", "unset")}  # the parent's
    if el.get("align") and name in ("p", "div", "h1", "h2", "h3", "h4", "h5", "h6"):  # a presentational hint
        out.text_align = {"middle": "center"}.get(el.get("align", "").strip().lower(),
                                                  el.get("align", "").strip().lower())
    if name == "font":  # <font face color size>: presentational hints, below any CSS
        if el.get("face"):
            out.family = browser_stack(el.get("face", ""))
        if el.get("color"):
            out.color = el.get("color", "")
        if (el.get("size") or "").strip().isdigit():
            out.size_px = _FONT_SIZES.get(max(1, min(7, int(el.get("size", "3").strip()))), 16.0)
    if name in _UA_SIZE:
        out.size_px = parent.size_px * _UA_SIZE[name]
    if name in _UA_BOLD:
        out.weight = "bold"
    if name in _UA_ITALIC:
        out.style = "italic"
    if name in _UA_MONO:
        out.family = "monospace"
    if name == "u":
        out.decoration = "underline"
    if name in ("s", "strike"):
        out.decoration = "line-through"
    if name == "pre":
        out.white_space = "pre"
    if name == "center":
        out.text_align = "center"
    if name in ("ul", "ol"):  # the user-agent style sheet: nested lists of bullets go disc, circle, square
        nested = sum(1 for a in el.iterancestors() if local(a) in ("ul", "ol"))
        out.list_style = "decimal" if name == "ol" else ("disc", "circle", "square")[min(nested, 2)]
    for word in (decl.get("list-style-type") or decl.get("list-style") or "").lower().split():
        if word in _MARKERS or word in ("decimal", "none"):
            out.list_style = word
    if "font-size" in decl:
        out.size_px = _font_size(decl["font-size"], parent.size_px)
    if decl.get("font-family"):
        out.family = browser_stack(decl["font-family"])
    if decl.get("font-weight"):
        out.weight = decl["font-weight"].strip().lower()
    if decl.get("font-style"):
        out.style = decl["font-style"].strip().lower()
    if decl.get("color"):
        out.color = decl["color"].strip()
    if decl.get("text-align"):
        out.text_align = decl["text-align"].strip().lower()
    if decl.get("white-space"):
        out.white_space = decl["white-space"].strip().lower()
    if decl.get("text-decoration") or decl.get("text-decoration-line"):
        line = (decl.get("text-decoration-line") or decl.get("text-decoration") or "").lower()
        out.decoration = next((d for d in ("underline", "line-through", "overline") if d in line), "")
    background = _colour(decl.get("background-color") or decl.get("background") or "")
    if background:
        out.background = background
    if decl.get("line-height"):
        value = decl["line-height"].strip().lower()
        m = _NUMBER.match(value)
        if value == "normal":
            out.line_height = ("normal", 0.0)
        elif m and m.group(2) == "":
            out.line_height = ("factor", float(m.group(1)))
        else:
            px = _length(value, font_px=out.size_px, percent_of=out.size_px)
            if px is not None:
                out.line_height = ("px", px)
    return out


# ---- the box tree (CSS Display 3: which boxes the elements make) ---------------------------------------------

#: display values of boxes laid out as blocks among blocks; the rest are inline-level
_BLOCK_LEVEL = frozenset({"block", "flex", "table", "list-item", "flow-root", "grid", "table-cell", "table-row",
                          "table-row-group", "-webkit-box"})
#: inline-level boxes laid out inside as blocks: atomic inlines, each one piece of its line
_ATOMIC = frozenset({"inline-block", "inline-flex", "inline-table", "inline-grid"})
#: text-align -> the fraction of a line's free room left of it
_ALIGN = {"center": 0.5, "-webkit-center": 0.5, "right": 1.0, "end": 1.0, "-webkit-right": 1.0}
#: the user-agent style sheet's vertical margins (em) of blocks (HTML, 15.3.3 and 15.3.6)
_UA_MARGIN = {"p": 1.0, "pre": 1.0, "blockquote": 1.0, "ul": 1.0, "ol": 1.0, "h1": 0.67, "h2": 0.83, "h3": 1.0,
              "h4": 1.33, "h5": 1.67, "h6": 2.33}
_BORDER_WIDTHS = {"thin": 1.0, "medium": 3.0, "thick": 5.0}
_BORDER_STYLES = frozenset({"solid", "dashed", "dotted", "double", "groove", "ridge", "inset", "outset"})
_INFINITE = 1e7

Kid = Union["_Node", tuple[str, "_Computed"], None]  # a box, text with the properties it is drawn with, a <br>


@dataclass(eq=False)
class _Node:
    """An element's box (or an anonymous one, ``el`` None): its inherited properties, its own declarations,
    its display, what it holds."""

    el: etree._Element | None
    state: _Computed
    decl: dict[str, str]
    display: str
    kids: list[Kid] = field(default_factory=list)
    picture: tuple[str, float | None, float | None] | None = None  # an <img>: its src, width and height attributes
    laid: dict[tuple, object] = field(default_factory=dict)  # its sizes and layouts, each worked out once

    def length(self, name: str, percent_of: float | None) -> float | None:
        return _length(self.decl.get(name), font_px=self.state.size_px, percent_of=percent_of)

    @property
    def block_level(self) -> bool:
        return self.display in _BLOCK_LEVEL


def _display(el: etree._Element, decl: dict[str, str]) -> str:
    value = " ".join((decl.get("display") or "").strip().lower().split())
    if value in ("", "initial", "revert", "unset", "inherit"):
        value = "list-item" if local(el) == "li" else "block" if local(el) in _BLOCKS else "inline"
    return {"inline block": "inline-block", "inline flow-root": "inline-block", "inline flex": "inline-flex",
            "block flex": "flex", "block flow": "block", "-webkit-inline-box": "inline-block",
            "contents": "inline", "inline flow": "inline"}.get(value, value)


def _tree(el: etree._Element, parent: _Computed, style_of: Callable[[etree._Element], dict[str, str]]) -> _Node | None:
    decl = style_of(el)
    display = _display(el, decl)
    if display == "none":
        return None
    state = _inherit(parent, el, decl)
    visibility = (decl.get("visibility") or "").strip().lower()
    if visibility in ("hidden", "collapse", "visible"):
        state.visible = visibility == "visible"
    if display != "inline":
        state.background = ""  # a block paints its own box, not a band behind each of its lines
    node = _Node(el, state, decl, display)
    if local(el) == "img":  # a replaced element: an atomic box of its own size, no content
        href = el.get("src") or ""
        node.picture = (href, _user(el.get("width")), _user(el.get("height")))
        return node
    if el.text:
        node.kids.append((el.text, state))
    for child in el:
        if isinstance(child.tag, str):
            if local(child) == "br":
                node.kids.append(None)
            else:
                sub = _tree(child, state, style_of)
                if sub is not None:
                    node.kids.append(sub)
        if child.tail:
            node.kids.append((child.tail, state))
    return node


def _edges(node: _Node, kind: str, percent_of: float | None) -> tuple[float, float, float, float]:
    """(top, right, bottom, left) of ``margin`` or ``padding`` in px (``auto`` as 0; % of the containing
    block's width, for all four sides, as CSS takes it); the user-agent margins of ``<p>`` and headings where
    none is written."""
    values = (node.decl.get(kind) or "").split()
    pick = {1: (0, 0, 0, 0), 2: (0, 1, 0, 1), 3: (0, 1, 2, 1), 4: (0, 1, 2, 3)}.get(len(values))
    out = []
    for i, side in enumerate(("top", "right", "bottom", "left")):
        value = node.decl.get(f"{kind}-{side}")
        if value is None and pick is not None:
            value = values[pick[i]]
        if value is None and kind == "margin" and node.el is not None and side in ("top", "bottom"):
            nested = local(node.el) in ("ul", "ol") and any(local(a) in ("ul", "ol", "li")
                                                               for a in node.el.iterancestors())
            out.append(0.0 if nested else _UA_MARGIN.get(local(node.el), 0.0) * node.state.size_px)
            continue
        if value is None and kind == "padding" and node.el is not None and side == "left" \
                and local(node.el) in ("ul", "ol"):
            out.append(40.0)  # the user-agent style sheet's padding-inline-start of lists
            continue
        out.append(_length(value, font_px=node.state.size_px, percent_of=percent_of) or 0.0)
    return out[0], out[1], out[2], out[3]


def _borders(node: _Node) -> tuple[float, float, float, float]:
    """(top, right, bottom, left) border widths in px, a side's width only where its style draws one (CSS
    Backgrounds 3, 4.3: ``border-style: none``, the initial value, makes the width 0)."""
    out = []
    for side in ("top", "right", "bottom", "left"):
        width, style = "medium", "none"
        for name in ("border", f"border-{side}"):
            for token in (node.decl.get(name) or "").lower().split():
                if token in _BORDER_STYLES or token in ("none", "hidden"):
                    style = token
                elif token in _BORDER_WIDTHS or _NUMBER.match(token):
                    width = token
        styles = (node.decl.get("border-style") or "").lower().split()
        if styles:
            style = styles[{1: (0, 0, 0, 0), 2: (0, 1, 0, 1), 3: (0, 1, 2, 1)}.get(len(styles), (0, 1, 2, 3))[
                ("top", "right", "bottom", "left").index(side)]]
        style = (node.decl.get(f"border-{side}-style") or style).strip().lower()
        width = (node.decl.get(f"border-{side}-width") or width).strip().lower()
        out.append(0.0 if style not in _BORDER_STYLES
                   else _BORDER_WIDTHS.get(width) or _length(width, font_px=node.state.size_px) or 0.0)
    return out[0], out[1], out[2], out[3]


# ---- what is drawn: boxes' backgrounds and lines of text, in px from a box's top left -----------------------

@dataclass
class _Text:
    """One piece of a line: ``runs`` drawn from ``x`` (``anchor`` start) or around it (middle, end), on the
    baseline ``y``."""

    x: float
    y: float
    runs: list[tuple[str, Font]]
    anchor: str = "start"


@dataclass
class _Rect:
    x: float
    y: float
    width: float
    height: float
    fill: str


@dataclass
class _Image:
    """A picture (an ``<img>``) drawn into its box, stretched as ``object-fit: fill`` draws it."""

    x: float
    y: float
    width: float
    height: float
    href: str


@dataclass
class _Mark:
    """A list marker's symbol in its ``size`` px square at (``x``, ``y``): ``disc`` (a filled circle),
    ``circle`` (its 1 px outline), ``square``."""

    x: float
    y: float
    size: float
    kind: str
    color: str


@dataclass
class _Frag:
    """A laid-out box: its border box's size, what it draws (from the border box's top left), and the
    baselines of its first and last line boxes (None: it has none)."""

    width: float
    height: float
    items: list[_Text | _Rect | _Image | _Mark] = field(default_factory=list)
    first_baseline: float | None = None
    last_baseline: float | None = None


def _moved(items: list[_Text | _Rect | _Image | _Mark], dx: float, dy: float) -> list[_Text | _Rect | _Image | _Mark]:
    out: list[_Text | _Rect | _Image | _Mark] = []
    for item in items:
        if isinstance(item, _Text):
            out.append(_Text(item.x + dx, item.y + dy, item.runs, item.anchor))
        elif isinstance(item, _Mark):
            out.append(_Mark(item.x + dx, item.y + dy, item.size, item.kind, item.color))
        elif isinstance(item, _Image):
            out.append(_Image(item.x + dx, item.y + dy, item.width, item.height, item.href))
        else:
            out.append(_Rect(item.x + dx, item.y + dy, item.width, item.height, item.fill))
    return out


# ---- inline formatting (CSS 2.1, 9.4.2 and 10.8; CSS Text 3, 4 and 5) --------------------------------------

@dataclass
class _Piece:
    """What a line is made of: a word (``text``), a collapsible or kept space, a forced break, an atomic box."""

    kind: str  # "word" | "space" | "break" | "atomic"
    text: str = ""
    state: _Computed | None = None
    node: _Node | None = None
    soft: bool = False  # a break opportunity before this word though no space precedes it (UAX #14)
    frag: _Frag | None = None
    margins: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    def width(self) -> float:
        if self.kind == "atomic" and self.frag is not None:
            return self.frag.width + self.margins[1] + self.margins[3]
        if self.kind in ("word", "space") and self.state is not None:
            return text_width_px(self.text, self.state.font())
        return 0.0


def _pieces(kids: list[Kid], block_state: _Computed) -> list[_Piece]:
    """The inline content of a block, flattened: words, spaces (collapsed as ``white-space`` says), breaks
    and atomic boxes (laid out later, at the line's width)."""
    out: list[_Piece] = []

    def add(kid: Kid, state: _Computed) -> None:
        if kid is None:
            out.append(_Piece("break", state=state))
        elif isinstance(kid, tuple):
            text, here = kid
            keep = here.white_space in ("pre", "pre-wrap", "break-spaces")
            lines = text.split("\n") if here.white_space in ("pre", "pre-wrap", "break-spaces", "pre-line") else \
                [text.replace("\n", " ")]
            for i, line in enumerate(lines):
                if i:
                    out.append(_Piece("break", state=here))
                for part in re.split(r"([ \t\r\f]+)", line.replace("\t", " ") if keep else line):
                    if not part:
                        continue
                    if part.strip(" \t\r\f") == "":
                        if keep:
                            out.append(_Piece("space", text=part, state=here))
                        elif not out or out[-1].kind != "space" or out[-1].text != " ":
                            out.append(_Piece("space", text=" ", state=here))
                    else:
                        for i, word in enumerate(_SOFT_BREAK.split(part)):
                            if word:
                                out.append(_Piece("word", text=word, state=here, soft=i > 0))
        elif kid.display in _ATOMIC or kid.block_level or kid.picture is not None:
            out.append(_Piece("atomic", node=kid, state=kid.state))
        else:
            for sub in kid.kids:
                add(sub, kid.state)

    for kid in kids:
        add(kid, block_state)
    return out


#: where a word may break with no space, as Chromium's line breaker (ICU's UAX #14 rules) breaks it: after a
#: hyphen between letters or digits (``b^2-4ac``: LB21 forbids a break before it, none after), and between a
#: closing and an opening bracket (``1)}{\left``: CL/CP before OP); a word is never broken elsewhere
_SOFT_BREAK = re.compile(r"(?<=[^\W_][-\u2010])(?=[^\W_])|(?<=[)\]}])(?=[(\[{])")


def _breakable(before: _Piece) -> bool:
    state = before.state
    return state is None or state.white_space not in ("nowrap", "pre")


def _inline_sizes(kids: list[Kid], state: _Computed) -> tuple[float, float]:
    """(min-content, max-content) widths of inline content in px: its widest line when broken at every
    opportunity, and when broken only where it must be (CSS Sizing 3, 5.1)."""
    return (max((_line_width(line) for line in _break(_pieces(kids, state), 0.0)), default=0.0),
            max((_line_width(line) for line in _break(_pieces(kids, state), _INFINITE)), default=0.0))


def _line_width(line: _LineBox) -> float:
    return sum(p.width() for p in line.pieces)


@dataclass
class _LineBox:
    pieces: list[_Piece] = field(default_factory=list)
    forced: bool = False


def _lay_lines(kids: list[Kid], state: _Computed, width: float, height_room: float | None) -> _Frag:
    """Inline content broken into lines of ``width`` px and stacked (the lines' height as Blink computes it:
    each inline box's line height around its rounded ascent and descent, the half-leading floored)."""
    pieces = _pieces(kids, state)
    lines = _break(pieces, width, height_room)
    frag = _Frag(width=width, height=0.0)
    align = _ALIGN.get(state.text_align, 0.0)
    top = 0.0
    strut_ascent, strut_descent, _ = line_metrics(state.font())
    strut_lh = state.line_height_px()
    for line in lines:
        if not line.forced and not any(p.kind in ("word", "atomic") for p in line.pieces):
            continue  # a line of nothing but collapsed spaces is no line (CSS 2.1, 9.4.2)
        above, below = _half_leaded(strut_ascent, strut_descent, strut_lh)
        rises: dict[int, float] = {}  # an atomic box's margin top above the baseline
        edges: list[tuple[_Piece, str, float]] = []  # boxes aligned with the line box's top or bottom
        for piece in line.pieces:
            if piece.kind == "word" and piece.state is not None:
                ascent, descent, _ = line_metrics(piece.state.font())
                a, b = _half_leaded(ascent, descent, piece.state.line_height_px())
                above, below = max(above, a), max(below, b)
            elif piece.kind == "atomic" and piece.frag is not None and piece.node is not None:
                outer = piece.margins[0] + piece.frag.height + piece.margins[2]
                how = (piece.node.decl.get("vertical-align") or "baseline").strip().lower()
                if how in ("top", "bottom"):
                    edges.append((piece, how, outer))
                    continue
                a = _rise(piece, how, state, strut_ascent, strut_descent, outer)
                rises[id(piece)] = a
                above, below = max(above, a), max(below, outer - a)
        for _, how, outer in edges:  # CSS 2.1, 10.8: the line box grows to hold them
            if outer > above + below:
                if how == "top":
                    below = outer - above
                else:
                    above = outer - below
        for piece, how, outer in edges:
            rises[id(piece)] = above if how == "top" else outer - below
        baseline = top + above
        line_w = _line_width(line)
        x = (width - line_w) * align if line_w < width else 0.0
        texts: list[_Text] = []
        runs: list[tuple[str, Font]] = []
        start = x
        only_text = all(p.kind != "atomic" for p in line.pieces)
        for piece in line.pieces:
            w = piece.width()
            if piece.kind in ("word", "space") and piece.state is not None:
                font = piece.state.font()
                if piece.state.background:
                    ascent, descent, _ = line_metrics(font)
                    frag.items.append(_Rect(x, baseline - ascent, w, ascent + descent, piece.state.background))
                if piece.state.visible:
                    if not runs:
                        start = x
                    runs.append((piece.text, font))
                elif runs:
                    texts.append(_Text(start, baseline, runs))
                    runs = []
            elif piece.kind == "atomic" and piece.frag is not None:
                if runs:
                    texts.append(_Text(start, baseline, runs))
                    runs = []
                a = rises.get(id(piece), 0.0)
                frag.items.extend(_moved(piece.frag.items, x + piece.margins[3], baseline - a + piece.margins[0]))
            x += w
        if runs:
            texts.append(_Text(start, baseline, runs))
        if only_text and len(texts) == 1 and align:  # anchored, so a font of another width keeps the alignment
            anchor = "middle" if align == 0.5 else "end"
            texts[0] = _Text((width - line_w) * align + line_w * align if line_w < width else line_w * align,
                             baseline, texts[0].runs, anchor)
        frag.items.extend(texts)
        if frag.first_baseline is None:
            frag.first_baseline = baseline
        frag.last_baseline = baseline
        top = baseline + below
    frag.height = top
    return frag


def _break(pieces: list[_Piece], width: float, height_room: float | None = None) -> list[_LineBox]:
    """``pieces`` broken into lines of ``width`` px (greedy, at spaces that allow it and around atomic
    boxes; spaces at a line's start removed and at its end dropped, CSS Text 3, 4.1.2), atomic boxes laid out
    at that width."""
    for piece in pieces:
        if piece.kind == "atomic" and piece.node is not None:
            piece.margins = _edges(piece.node, "margin", width)
            piece.frag = _lay_box(piece.node, width, height_room, shrink=True)
    lines = [_LineBox()]
    used = 0.0
    for piece in pieces:
        line = lines[-1]
        if piece.kind == "break":
            _drop_end_spaces(line)
            line.pieces.append(piece)
            line.forced = True
            lines.append(_LineBox())
            used = 0.0
            continue
        if piece.kind == "space":
            if not any(p.kind != "space" for p in line.pieces) and piece.state is not None \
                    and piece.state.white_space not in ("pre", "pre-wrap", "break-spaces"):
                continue  # spaces at a line's start are removed
            line.pieces.append(piece)
            used += piece.width()
            continue
        w = piece.width()
        content = [p for p in line.pieces if p.kind not in ("space", "break")]
        room_breaks = bool(content) and (piece.kind == "atomic" or content[-1].kind == "atomic"
                                         or (line.pieces[-1].kind == "space" and _breakable(line.pieces[-1]))
                                         or (piece.soft and line.pieces[-1].kind == "word"))
        if room_breaks and used + w > width + 0.01 and _breakable(piece):
            _drop_end_spaces(line)
            lines.append(_LineBox())
            line = lines[-1]
            used = 0.0
        line.pieces.append(piece)
        used += w
    for line in lines:
        _drop_end_spaces(line)
    return lines


def _drop_end_spaces(line: _LineBox) -> None:
    """Spaces at a line's end are removed (collapsible ones, CSS Text 3, 4.1.2) or hang (``pre-wrap``'s: no
    room taken); ``pre``'s and ``break-spaces``' stay, taking room."""
    while line.pieces and line.pieces[-1].kind == "space" and line.pieces[-1].state is not None \
            and line.pieces[-1].state.white_space not in ("pre", "break-spaces"):
        line.pieces.pop()


def _rise(piece: _Piece, how: str, parent: _Computed, strut_ascent: float, strut_descent: float,
          outer: float) -> float:
    """How far above the baseline an atomic inline's margin box starts, for its ``vertical-align`` (CSS 2.1,
    10.8.1): its own baseline on the line's (``baseline``, or its bottom margin edge when it has no line),
    its middle half the parent's x-height above it (``middle``), its top or bottom at the parent's text's
    (``text-top``, ``text-bottom``), raised by a length or a percentage of its line height."""
    from composer.text.fonts import font_units

    assert piece.frag is not None
    base = piece.margins[0] + (piece.frag.last_baseline if piece.frag.last_baseline is not None
                               else piece.frag.height)
    if how == "middle":
        return outer / 2 + font_units(parent.family)[0] * parent.size_px / 2
    if how == "text-top":
        return strut_ascent
    if how == "text-bottom":
        return outer - strut_descent
    if how == "sub":
        return base - parent.size_px / 5 - 1  # Blink: a fifth of the parent's size and a px lower
    if how == "super":
        return base + parent.size_px / 3 + 1
    assert piece.node is not None
    shift = _length(how, font_px=piece.node.state.size_px, percent_of=piece.node.state.line_height_px())
    return base + (shift or 0.0)


def _half_leaded(ascent: float, descent: float, line_height: float) -> tuple[float, float]:
    """(above, below) the baseline of an inline box of that font and line height: Blink's half-leading,
    floored above (``CalculateLeadingSpace``), the rest below."""
    leading = line_height - (ascent + descent)
    top = math.floor(leading / 2 * 64) / 64 if False else math.floor(leading / 2)
    return ascent + top, descent + leading - top


# ---- sizes (CSS 2.1, 10.3; CSS Sizing 3, 5) -----------------------------------------------------------------

def _picture_size(node: _Node, width: float | None, height: float | None) -> tuple[float, float]:
    """A picture's used (width, height) in px from what CSS gives (None: ``auto``): the other from its
    ``width``/``height`` attributes' ratio, else those attributes (HTML's presentational hints), else 0
    (composer does not decode the picture for its natural size)."""
    assert node.picture is not None
    _, attr_w, attr_h = node.picture
    ratio = attr_w / attr_h if attr_w and attr_h else None
    if width is None and height is not None and ratio:
        width = height * ratio
    if height is None and width is not None and ratio:
        height = width / ratio
    return (width if width is not None else attr_w or 0.0), (height if height is not None else attr_h or 0.0)


def _contribution(node: _Node, percent_of: float | None) -> tuple[float, float]:
    """(min-content, max-content) outer widths of a box in px: its content's, or its ``width``, with its
    padding, borders and margins."""
    margin = _edges(node, "margin", percent_of)
    padding = _edges(node, "padding", percent_of)
    border = _borders(node)
    outside = margin[1] + margin[3] + padding[1] + padding[3] + border[1] + border[3]
    width = node.length("width", percent_of)
    if width is not None:
        if (node.decl.get("box-sizing") or "").strip() == "border-box":
            width = max(0.0, width - padding[1] - padding[3] - border[1] - border[3])
        low = high = width
    else:
        low, high = _content_sizes(node)
    limit = node.length("max-width", percent_of)
    if limit is not None:
        low, high = min(low, limit), min(high, limit)
    floor = node.length("min-width", percent_of)
    if floor is not None:
        low, high = max(low, floor), max(high, floor)
    return low + outside, high + outside


def _content_sizes(node: _Node) -> tuple[float, float]:
    """(min-content, max-content) widths of a box's content in px (a picture's: its natural width, its
    ``width`` attribute; none when its ``width`` is a percentage, which it may shrink to, CSS Sizing 3, 5.2.2),
    worked out once per box (nested shrink-to-fit boxes would otherwise lay their content out a number of
    times exponential in their depth)."""
    key = ("sizes",)
    if key not in node.laid:
        node.laid[key] = _content_sizes_of(node)
    return node.laid[key]  # type: ignore[return-value]


def _content_sizes_of(node: _Node) -> tuple[float, float]:
    if node.picture is not None:
        natural = _picture_size(node, None, None)[0]
        return (0.0 if (node.decl.get("width") or "").strip().endswith("%") else natural), natural
    if node.display in ("flex", "inline-flex"):
        items = [_contribution(item, None) for item in _flex_items(node)]
        if (node.decl.get("flex-direction") or "row").strip().startswith("column"):
            return max((a for a, _ in items), default=0.0), max((b for _, b in items), default=0.0)
        wraps = (node.decl.get("flex-wrap") or "nowrap").strip() != "nowrap"
        low = max((a for a, _ in items), default=0.0) if wraps else sum(a for a, _ in items)
        return low, sum(b for _, b in items)
    if node.display in ("table", "inline-table"):
        columns = _columns(_rows(node))
        return sum(a for a, _ in columns), sum(b for _, b in columns)
    low = high = 0.0
    for group in _groups(node):
        if isinstance(group, _Node):
            a, b = _contribution(group, None)
        else:
            a, b = _inline_sizes(group, node.state)
        low, high = max(low, a), max(high, b)
    return low, high


# ---- block formatting (CSS 2.1, 9.4.1, 10.3.3, 10.6.3) -------------------------------------------------------

def _groups(node: _Node) -> list[_Node | list[Kid]]:
    """A block container's content as block-level boxes and runs of inline content (each run an anonymous
    block, CSS 2.1, 9.2.1.1; a block inside an inline splits it, its inline parts keeping their properties);
    table cells and rows out of a table wrapped in an anonymous table (CSS 2.1, 17.2.1)."""
    out: list[_Node | list[Kid]] = []

    def add(kid: Kid, holder: _Node) -> None:
        if isinstance(kid, _Node) and kid.block_level:
            if kid.display in ("table-cell", "table-row", "table-row-group"):
                if out and isinstance(out[-1], _Node) and out[-1].el is None and out[-1].display == "table":
                    out[-1].kids.append(kid)
                else:
                    out.append(_Node(None, holder.state, {}, "table", [kid]))
                return
            out.append(kid)
            return
        if isinstance(kid, _Node) and kid.display == "inline" and _holds_block(kid):
            for sub in kid.kids:
                add(sub if not isinstance(sub, tuple) else sub, kid)
            return
        if out and isinstance(out[-1], list):
            out[-1].append(kid)
        else:
            out.append([kid])

    for kid in node.kids:
        add(kid, node)
    return [g for g in out if isinstance(g, _Node) or any(_shows(k) for k in g)]


def _holds_block(node: _Node) -> bool:
    return any(isinstance(k, _Node) and (k.block_level or (k.display == "inline" and _holds_block(k)))
               for k in node.kids)


def _shows(kid: Kid) -> bool:
    if kid is None:
        return True
    if isinstance(kid, tuple):
        return bool(kid[0].strip(" \t\r\n\f")) or kid[1].white_space in ("pre", "pre-wrap", "break-spaces")
    return True


def _lay_flow(node: _Node, width: float, height: float | None) -> _Frag:
    """A block container's content laid out in ``width`` px: block boxes stacked, adjoining vertical
    margins collapsed (CSS 2.1, 8.3.1: between siblings, and through an empty block, whose own top and
    bottom margins adjoin), inline content in lines."""
    frag = _Frag(width=width, height=0.0)
    y = 0.0
    pending: list[float] = []  # the adjoining margins not yet spent

    def mark(child: _Frag, at: float) -> None:
        for name in ("first_baseline", "last_baseline"):
            value = getattr(child, name)
            if value is not None and (name == "last_baseline" or frag.first_baseline is None):
                setattr(frag, name, at + value)

    for group in _groups(node):
        if isinstance(group, list):
            lines = _lay_lines(group, node.state, width, height)
            y += _collapsed(pending)
            pending = []
            frag.items.extend(_moved(lines.items, 0.0, y))
            mark(lines, y)
            y += lines.height
            continue
        margin = _edges(group, "margin", width)
        child = _lay_box(group, width, height, shrink=group.display in ("table", "inline-table"))
        if child.height == 0 and child.first_baseline is None and not child.items:
            pending += [margin[0], margin[2]]  # an empty block: its margins collapse through it
            continue
        y += _collapsed(pending + [margin[0]])
        x = margin[3]
        auto = [(group.decl.get(f"margin-{side}") or "").strip() == "auto"
                or (group.decl.get("margin") or "").split()[1:2] == ["auto"]
                or (group.decl.get("margin") or "").strip() == "auto" for side in ("left", "right")]
        room = width - child.width - margin[1] - margin[3]
        if room > 0 and auto[0] and auto[1]:
            x += room / 2
        elif room > 0 and auto[0]:
            x += room
        frag.items.extend(_moved(child.items, x, y))
        mark(child, y)
        y += child.height
        pending = [margin[2]]
    frag.height = y + _collapsed(pending)
    return frag


def _marker(node: _Node, left: float, baseline: float) -> _Text | _Mark:
    """A list item's outside marker (CSS Lists 3, 3.1), its content box starting at ``left``, its first line's
    baseline at ``baseline``: a number "1. " ending where the content starts; a disc, circle or square drawn
    as Blink draws these symbols (``ListMarker``: a box ``(ascent * 2 / 3 + 1) / 2`` px wide, whole px, its
    marker box starting ``ascent * 2 / 3 + 8`` px before the content, the symbol 1 px into it and ``3 * (ascent
    - ascent * 2 / 3) / 2`` px below the ascent's top)."""
    font = node.state.font()
    if node.state.list_style not in _MARKERS:
        number = f"{_ordinal(node)}. "
        return _Text(left - text_width_px(number, font), baseline, [(number.rstrip(" "), font)])
    ascent = int(line_metrics(font)[0])
    offset = ascent * 2 // 3
    size = float((offset + 1) // 2)
    return _Mark(left - offset - 8 + 1, baseline - ascent + 3 * (ascent - offset) // 2, size, node.state.list_style,
                 node.state.color)


def _ordinal(node: _Node) -> int:
    """A list item's number in its ``<ol>`` (the items before it, plus the list's ``start``)."""
    if node.el is None or node.el.getparent() is None:
        return 1
    parent = node.el.getparent()
    start = parent.get("start", "1").strip() if parent is not None else "1"
    before = sum(1 for sib in node.el.itersiblings(preceding=True) if isinstance(sib.tag, str) and local(sib) == "li")
    return (int(start) if start.lstrip("-").isdigit() else 1) + before


def _collapsed(margins: list[float]) -> float:
    """Adjoining margins as one (CSS 2.1, 8.3.1): the largest positive one plus the most negative one."""
    return max([0.0, *margins]) + min([0.0, *margins])


def _lay_box(node: _Node, room: float, room_height: float | None, shrink: bool = False) -> _Frag:
    """A box laid out in a containing block ``room`` px wide (``room_height``: its definite height, or
    None): its width (``width``, else the room less its margins, or shrink-to-fit for inline-blocks, tables
    and flex items), its content (flow, flex or table), its height (``height``, else its content's); the
    fragment is its border box (laid out once per room: the callers copy its items, never change them)."""
    key = ("box", room, room_height, shrink)
    if key not in node.laid:
        node.laid[key] = _lay_box_in(node, room, room_height, shrink)
    return node.laid[key]  # type: ignore[return-value]


def _lay_box_in(node: _Node, room: float, room_height: float | None, shrink: bool) -> _Frag:
    margin = _edges(node, "margin", room)
    padding = _edges(node, "padding", room)
    border = _borders(node)
    inner_x = padding[1] + padding[3] + border[1] + border[3]
    inner_y = padding[0] + padding[2] + border[0] + border[2]
    border_box = (node.decl.get("box-sizing") or "").strip() == "border-box"
    width = node.length("width", room)
    if width is not None and border_box:
        width = max(0.0, width - inner_x)
    if width is None:
        available = max(0.0, room - margin[1] - margin[3] - inner_x)
        if shrink or node.display in _ATOMIC:
            low, high = _content_sizes(node)
            width = min(max(low, available), high)
        else:
            width = available
    limit = node.length("max-width", room)
    if limit is not None:
        width = min(width, limit - (inner_x if border_box else 0.0))
    floor = node.length("min-width", room)
    if floor is not None:
        width = max(width, floor - (inner_x if border_box else 0.0))
    height = node.length("height", room_height)
    if height is not None and border_box:
        height = max(0.0, height - inner_y)
    if node.picture is not None:
        natural_w, natural_h = _picture_size(node, node.length("width", room), node.length("height", room_height))
        if node.length("width", room) is None:
            width = natural_w
        if height is None:
            height = natural_h
        content = _Frag(width=width, height=height, items=[_Image(0.0, 0.0, width, height, node.picture[0])]
                        if node.picture[0] and width > 0 and height > 0 and node.state.visible else [])
    elif node.display in ("flex", "inline-flex"):
        content = _lay_flex(node, width, height)
    elif node.display in ("table", "inline-table"):
        content = _lay_table(node, width, height)
    else:
        content = _lay_flow(node, width, height)
    inner_height = height if height is not None else content.height
    low_h = node.length("min-height", room_height)
    if low_h is not None:
        inner_height = max(inner_height, low_h - (inner_y if border_box else 0.0))
    frag = _Frag(width=width + inner_x, height=inner_height + inner_y)
    background = _colour(node.decl.get("background-color") or node.decl.get("background") or "")
    if background and node.state.visible:
        frag.items.append(_Rect(0.0, 0.0, frag.width, frag.height, background))
    dx, dy = padding[3] + border[3], padding[0] + border[0]
    frag.items.extend(_moved(content.items, dx, dy))
    if node.display == "list-item" and node.state.list_style != "none" and content.first_baseline is not None \
            and node.state.visible:
        frag.items.append(_marker(node, dx, dy + content.first_baseline))
    if node.picture is None and (node.display not in _ATOMIC
                                 or (node.decl.get("overflow") or "visible").strip() == "visible"):
        frag.first_baseline = None if content.first_baseline is None else content.first_baseline + dy
        frag.last_baseline = None if content.last_baseline is None else content.last_baseline + dy
    return frag


# ---- flex layout (CSS Flexbox 1, 9, for one line of items) ---------------------------------------------------

def _flex_items(node: _Node) -> list[_Node]:
    """A flex container's items: each child box, blockified; each run of text an anonymous item."""
    items: list[_Node] = []
    run: list[Kid] = []

    def close() -> None:
        if any(_shows(k) for k in run):
            items.append(_Node(None, node.state, {}, "block", list(run)))
        run.clear()

    for kid in node.kids:
        if isinstance(kid, _Node):
            close()
            display = {"inline": "block", "inline-block": "block", "inline-flex": "flex",
                       "inline-table": "table"}.get(kid.display, kid.display)
            items.append(_Node(kid.el, kid.state, kid.decl, display, kid.kids))
        else:
            run.append(kid)
    close()
    return items


def _flex_factor(item: _Node, which: str) -> float:
    """``flex-grow`` or ``flex-shrink`` of a flex item (the longhand, else the ``flex`` shorthand's number)."""
    value = item.decl.get(f"flex-{which}")
    shorthand = (item.decl.get("flex") or "").strip().lower().split()
    if value is None and shorthand:
        numbers = [w for w in shorthand if (m := _NUMBER.match(w)) is not None and not m.group(2)]
        if shorthand == ["none"]:
            value = "0"
        elif shorthand == ["auto"]:
            value = "1"
        elif which == "grow" and numbers:
            value = numbers[0]
        elif which == "shrink" and len(numbers) > 1:
            value = numbers[1]
    m = _NUMBER.match(value or "")
    return float(m.group(1)) if m and not m.group(2) else (1.0 if which == "shrink" else 0.0)


def _place(keyword: str, free: float, count: int) -> tuple[float, float]:
    """(offset of the first item, extra gap between items) for ``justify-content``."""
    if keyword == "center":
        return free / 2, 0.0
    if keyword in ("end", "flex-end", "right"):
        return free, 0.0
    if free > 0 and count > 1 and keyword == "space-between":
        return 0.0, free / (count - 1)
    if free > 0 and keyword == "space-around":
        return free / count / 2, free / count
    if free > 0 and keyword == "space-evenly":
        return free / (count + 1), free / (count + 1)
    return 0.0, 0.0


def _keyword(node: _Node, name: str, default: str) -> str:
    words = [w for w in (node.decl.get(name) or "").lower().split() if w not in ("safe", "unsafe")]
    return words[0] if words else default


def _lay_flex(node: _Node, width: float, height: float | None) -> _Frag:
    """A flex container's content ``width`` px wide (``height`` px, or as tall as its tallest item): its
    items sized from their content (shrunk to fit by ``flex-shrink``, grown by ``flex-grow``), placed on the
    main axis by ``justify-content`` and across it by ``align-items``/``align-self`` (overflowing both ways
    when centred, as ``unsafe`` and Chromium's default do)."""
    items = _flex_items(node)
    column = (node.decl.get("flex-direction") or "row").strip().startswith("column")
    frag = _Frag(width=width, height=0.0)
    justify = _keyword(node, "justify-content", "flex-start")
    align_items = _keyword(node, "align-items", "stretch")
    if column:
        laid = []
        for item in items:
            margin = _edges(item, "margin", width)
            align = _keyword(item, "align-self", "auto")
            align = align_items if align == "auto" else align
            stretch = align in ("stretch", "normal") and item.length("width", width) is None
            child = _lay_box(item, width, None, shrink=not stretch)
            laid.append((item, margin, child, align))
        used = sum(m[0] + c.height + m[2] for _, m, c, _ in laid)
        inner = height if height is not None else used
        y, gap = _place(justify, inner - used, len(laid))
        for _, margin, child, align in laid:
            free = width - child.width - margin[1] - margin[3]
            x = margin[3] + {"center": free / 2, "end": free, "flex-end": free, "self-end": free}.get(align, 0.0)
            frag.items.extend(_moved(child.items, x, y + margin[0]))
            if child.first_baseline is not None and frag.first_baseline is None:
                frag.first_baseline = y + margin[0] + child.first_baseline
            y += margin[0] + child.height + margin[2] + gap
        frag.height = inner
        return frag
    bases, lows, outsides = [], [], []
    for item in items:
        low, high = _contribution(item, width)
        margin = _edges(item, "margin", width)
        padding = _edges(item, "padding", width)
        border = _borders(item)
        outside = margin[1] + margin[3] + padding[1] + padding[3] + border[1] + border[3]
        basis = item.length("flex-basis", width)
        bases.append(basis if basis is not None else high - outside)
        lows.append(low - outside)
        outsides.append(outside)
    free = width - sum(b + o for b, o in zip(bases, outsides, strict=True))
    sizes = list(bases)
    if free < 0:
        weights = [_flex_factor(item, "shrink") * base for item, base in zip(items, bases, strict=True)]
        total = sum(weights)
        if total > 0:
            sizes = [max(low, base + free * w / total) for base, low, w in zip(bases, lows, weights, strict=True)]
    elif free > 0:
        grows = [_flex_factor(item, "grow") for item in items]
        if sum(grows) > 0:
            sizes = [base + free * g / max(1.0, sum(grows)) for base, g in zip(bases, grows, strict=True)]
    placed = []
    for item, size, outside in zip(items, sizes, outsides, strict=True):
        margin = _edges(item, "margin", width)
        fixed = _Node(item.el, item.state, {**item.decl, "width": f"{size}px", "box-sizing": "content-box"},
                      item.display, item.kids)
        placed.append((item, margin, _lay_box(fixed, size + outside, height)))
    cross = height if height is not None else max((m[0] + c.height + m[2] for _, m, c in placed), default=0.0)
    used = sum(m[1] + m[3] + c.width for _, m, c in placed)
    x, gap = _place(justify, width - used, len(placed))
    for item, margin, child in placed:
        align = _keyword(item, "align-self", "auto")
        align = align_items if align == "auto" else align
        room = cross - child.height - margin[0] - margin[2]
        y = margin[0] + {"center": room / 2, "end": room, "flex-end": room, "self-end": room}.get(align, 0.0)
        frag.items.extend(_moved(child.items, x + margin[3], y))
        if child.first_baseline is not None and frag.first_baseline is None:
            frag.first_baseline = y + child.first_baseline
            frag.last_baseline = frag.first_baseline
        x += margin[1] + margin[3] + child.width + gap
    frag.height = cross
    return frag


# ---- table layout (CSS 2.1, 17: rows of cells, automatic column widths, cells' vertical-align) --------------

def _rows(node: _Node) -> list[list[_Node]]:
    rows: list[list[_Node]] = []
    loose: list[_Node] = []

    def cell(kid: Kid, holder: _Node) -> _Node:
        if isinstance(kid, _Node) and kid.display == "table-cell":
            return kid
        return _Node(None, holder.state, {}, "table-cell", [kid])

    for kid in node.kids:
        if isinstance(kid, _Node) and kid.display in ("table-row", "table-row-group"):
            if loose:
                rows.append(loose)
                loose = []
            if kid.display == "table-row":
                rows.append([cell(k, kid) for k in kid.kids if not isinstance(k, tuple) or _shows(k)])
            else:
                for row in kid.kids:
                    if isinstance(row, _Node):
                        rows.append([cell(k, row) for k in row.kids if not isinstance(k, tuple) or _shows(k)])
        elif _shows(kid):
            if isinstance(kid, _Node) and kid.display == "table-cell":
                loose.append(kid)
            elif loose and loose[-1].el is None:
                loose[-1].kids.append(kid)
            else:
                loose.append(cell(kid, node))
    if loose:
        rows.append(loose)
    return rows


def _columns(rows: list[list[_Node]]) -> list[tuple[float, float]]:
    count = max((len(r) for r in rows), default=0)
    columns = [(0.0, 0.0)] * count
    for row in rows:
        for i, cell in enumerate(row):
            low, high = _contribution(cell, None)
            columns[i] = (max(columns[i][0], low), max(columns[i][1], high))
    return columns


def _lay_table(node: _Node, width: float, height: float | None) -> _Frag:
    """A table's rows of cells in ``width`` px (columns as wide as their widest cell, the room left shared
    in proportion to those widths), rows as tall as their tallest cell, the table's ``height`` shared among
    them; each cell's content placed by its ``vertical-align`` (``middle``, ``bottom``, else at its top)."""
    rows = _rows(node)
    columns = _columns(rows)
    low = sum(a for a, _ in columns)
    high = sum(b for _, b in columns)
    if width >= high:
        widths = [b + (width - high) * (b / high if high else 1 / len(columns)) for _, b in columns]
    elif width > low and high > low:
        widths = [a + (b - a) * (width - low) / (high - low) for a, b in columns]
    else:
        widths = [a for a, _ in columns]
    laid = []
    for row in rows:
        cells = []
        for cell, column in zip(row, widths, strict=False):
            margin = _edges(cell, "margin", width)
            own = {k: v for k, v in cell.decl.items() if k not in ("background", "background-color", "height")}
            fixed = _Node(cell.el, cell.state, {**own, "width": f"{column}px", "box-sizing": "border-box"},
                          "block", cell.kids)  # its background painted below, over the row's height
            cells.append((cell, _lay_box(fixed, column, None), margin))
        laid.append(cells)
    heights = []
    for cells in laid:
        tallest = 0.0
        for cell, child, _ in cells:
            tallest = max(tallest, child.height, cell.length("height", None) or 0.0)
        heights.append(tallest)
    if height is not None and sum(heights) < height and heights:
        extra = (height - sum(heights)) / len(heights)
        heights = [h + extra for h in heights]
    frag = _Frag(width=width, height=sum(heights))
    y = 0.0
    for cells, row_h in zip(laid, heights, strict=True):
        x = 0.0
        for (cell, child, _), column in zip(cells, widths, strict=False):
            align = (cell.decl.get("vertical-align") or "baseline").strip().lower()
            room = row_h - child.height
            dy = {"middle": room / 2, "bottom": room}.get(align, 0.0)
            background = _colour(cell.decl.get("background-color") or cell.decl.get("background") or "")
            if background and cell.state.visible:
                frag.items.append(_Rect(x, y, column, row_h, background))
            frag.items.extend(_moved(child.items, x, y + dy))
            if child.first_baseline is not None and frag.first_baseline is None:
                frag.first_baseline = y + dy + child.first_baseline
            if child.last_baseline is not None:
                frag.last_baseline = y + dy + child.last_baseline
            x += column
        y += row_h
    return frag


# ---- the <foreignObject> ------------------------------------------------------------------------------------

def layout_foreign_object(fo: etree._Element, style_of: Callable[[etree._Element], dict[str, str]],
                          inherited: dict[str, str], taken_ids: set[str],
                          unsupported: set[str] | None = None) -> etree._Element | None:
    """A ``<g>`` of SVG ``<text>`` (and the ``<rect>`` of backgrounds) drawing what a browser draws for a
    text-only ``<foreignObject>`` (:func:`composer.svg.sanitize.is_text_only`; see the module docstring), or
    None when it shows no text.

    Args:
        fo: the ``<foreignObject>`` (its ``x``, ``y``, ``width``, ``height`` and ``transform`` are read; a
            percentage of its viewport's width or height, from the root ``<svg>``'s ``viewBox``).
        style_of: an element -> its declarations (cascade applied: rules, then its ``style``).
        inherited: the inherited properties at the ``<foreignObject>`` (``font-size``, ``font-family``,
            ``color``...), as its SVG ancestors give them.
        taken_ids: the document's ids; the id of the ``<clipPath>`` that cuts the text at the
            ``<foreignObject>``'s viewport (unless ``overflow: visible``) is not one of them, and is added.
        unsupported: where given, the CSS the HTML uses that this layout draws otherwise than a browser
            (:func:`unsupported_css`: ``float``, ``text-transform``, borders...) is added to it, for the caller's
            one warning per file.
    """
    own = style_of(fo)
    depth = max((sum(1 for _ in el.iterancestors()) for el in fo.iterdescendants()), default=0) \
        - sum(1 for _ in fo.iterancestors())
    if depth > MAX_HTML_DEPTH:  # each level is a few frames of the layout's recursion: drawn as nothing, said
        if unsupported is not None:
            unsupported.add(f"HTML nested deeper than {MAX_HTML_DEPTH} elements (not drawn)")
        return None
    if unsupported is not None:
        for el in fo.iterdescendants():
            if isinstance(el.tag, str):
                unsupported.update(unsupported_css(style_of(el)))
    root_state = _inherit(_Computed(), fo, {**inherited, **own})
    viewport = _viewport(fo)
    fo_x = _svg_length(fo.get("x"), viewport[0]) or 0.0
    fo_y = _svg_length(fo.get("y"), viewport[1]) or 0.0
    fo_w = _svg_length(fo.get("width"), viewport[0])
    fo_h = _svg_length(fo.get("height"), viewport[1])
    root = _Node(None, root_state, {}, "block")
    if fo.text:
        root.kids.append((fo.text, root_state))
    for child in fo:
        if isinstance(child.tag, str):
            sub = _tree(child, root_state, style_of) if local(child) != "br" else None
            if sub is not None or local(child) == "br":
                root.kids.append(sub)
        if child.tail:
            root.kids.append((child.tail, root_state))
    frag = _lay_flow(root, fo_w if fo_w is not None else _INFINITE, fo_h)
    shown = [item for item in frag.items if isinstance(item, _Image)
             or isinstance(item, _Text) and "".join(t for t, _ in item.runs).strip()]
    if not shown:
        return None
    group = fo.makeelement(f"{{{SVG_NS}}}g", {})
    if fo.get("transform"):
        group.set("transform", fo.get("transform", ""))
    for item in frag.items:
        if isinstance(item, _Mark):
            half = item.size / 2
            if item.kind == "square":
                mark = etree.SubElement(group, f"{{{SVG_NS}}}rect", {
                    "x": _num(fo_x + item.x), "y": _num(fo_y + item.y), "width": _num(item.size),
                    "height": _num(item.size)})
                _shielded(mark, [("fill", item.color), ("fill-opacity", "1")])
            else:
                mark = etree.SubElement(group, f"{{{SVG_NS}}}circle", {
                    "cx": _num(fo_x + item.x + half), "cy": _num(fo_y + item.y + half),
                    "r": _num(half if item.kind == "disc" else half - 0.5)})
                _shielded(mark, [("fill", item.color), ("fill-opacity", "1")] if item.kind == "disc"
                          else [("fill", "none")])
                if item.kind == "circle":
                    mark.set("style", mark.get("style", "").replace("stroke: none", f"stroke: {item.color}")
                             + "; stroke-width: 1")
        elif isinstance(item, _Image):
            image = etree.SubElement(group, f"{{{SVG_NS}}}image", {
                "x": _num(fo_x + item.x), "y": _num(fo_y + item.y), "width": _num(item.width),
                "height": _num(item.height), "preserveAspectRatio": "none"})
            image.set("{http://www.w3.org/1999/xlink}href", item.href)
            _shielded(image, [])
        elif isinstance(item, _Rect):
            if item.width > 0 and item.height > 0:
                rect = etree.SubElement(group, f"{{{SVG_NS}}}rect", {
                    "x": _num(fo_x + item.x), "y": _num(fo_y + item.y), "width": _num(item.width),
                    "height": _num(item.height)})
                _shielded(rect, [("fill", item.fill), ("fill-opacity", "1")])
        elif "".join(t for t, _ in item.runs).strip():
            _write_text(group, item, fo_x, fo_y)
    overflow = (own.get("overflow") or fo.get("overflow") or "hidden").strip().lower()
    if overflow not in ("visible", "auto") and fo_w is not None and fo_h is not None:
        _clip(group, fo_x, fo_y, fo_w, fo_h, taken_ids)
    return group


#: the deepest HTML inside a ``<foreignObject>`` laid out (draw.io's labels are 3 deep, mermaid's 4)
MAX_HTML_DEPTH = 64
#: CSS properties of HTML this layout does not apply (value -> whether it matters), named in the warning
_IGNORED: dict[str, Callable[[str], bool]] = {
    "float": lambda v: v not in ("none", ""),
    "position": lambda v: v in ("absolute", "fixed", "sticky"),
    "transform": lambda v: v not in ("none", ""),
    "text-transform": lambda v: v not in ("none", ""),
    "letter-spacing": lambda v: v not in ("normal", "0", "0px", ""),
    "word-spacing": lambda v: v not in ("normal", "0", "0px", ""),
    "text-indent": lambda v: bool(_length(v, font_px=16.0, percent_of=100.0)),
    "text-shadow": lambda v: v not in ("none", ""),
    "box-shadow": lambda v: v not in ("none", ""),
    "writing-mode": lambda v: v not in ("horizontal-tb", "lr", "lr-tb", ""),
    "text-overflow": lambda v: v not in ("clip", ""),
    "-webkit-line-clamp": lambda v: v not in ("none", ""),
    "font-variant": lambda v: v not in ("normal", ""),
    "direction": lambda v: v not in ("ltr", ""),
    "border-radius": lambda v: v not in ("0", "0px", ""),
}


def unsupported_css(decl: dict[str, str]) -> list[str]:
    """The CSS of an HTML element's declarations that :func:`layout_foreign_object` draws otherwise than a
    browser: the properties it does not apply (:data:`_IGNORED`, when not at their initial value), borders
    (their room is kept, their lines not drawn), ``display`` values it lays out as blocks (``grid``)."""
    out = [name for name, matters in _IGNORED.items()
           if name in decl and matters(" ".join(decl[name].strip().lower().split()))]
    if any(token in _BORDER_STYLES for name, value in decl.items()
           if name.startswith("border") and "radius" not in name and "collapse" not in name
           and "spacing" not in name for token in value.lower().replace(";", " ").split()):
        out.append("border")
    if (decl.get("display") or "").strip().lower() in ("grid", "inline-grid"):
        out.append("display: grid")
    return out


def _viewport(fo: etree._Element) -> tuple[float | None, float | None]:
    """The width and height of the nearest ``<svg>`` viewport around ``fo`` (its ``viewBox``, else its
    ``width``/``height``), in user units; None where it has none."""
    for ancestor in fo.iterancestors(f"{{{SVG_NS}}}svg"):
        box = (ancestor.get("viewBox") or "").replace(",", " ").split()
        if len(box) == 4:
            try:
                return float(box[2]), float(box[3])
            except ValueError:
                pass
        return _user(ancestor.get("width")), _user(ancestor.get("height"))
    return None, None


def _svg_length(value: str | None, percent_of: float | None) -> float | None:
    if value and value.strip().endswith("%"):
        return _length(value, font_px=16.0, percent_of=percent_of)
    return _user(value)


def _write_text(group: etree._Element, item: _Text, dx: float, dy: float) -> None:
    runs = list(item.runs)
    x = item.x
    while runs and not runs[0][0].strip():  # spaces kept at a line's ends take room but draw nothing
        x += text_width_px(runs[0][0], runs[0][1]) * {"start": 1.0, "middle": 0.5}.get(item.anchor, 0.0)
        runs.pop(0)
    while runs and not runs[-1][0].strip():
        x -= text_width_px(runs[-1][0], runs[-1][1]) * {"end": 1.0, "middle": 0.5}.get(item.anchor, 0.0)
        runs.pop()
    first = runs[0][1]
    text = etree.SubElement(group, f"{{{SVG_NS}}}text", {"x": _num(dx + x), "y": _num(dy + item.y)})
    if item.anchor != "start":
        text.set("text-anchor", item.anchor)
    text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    _font_attributes(text, first)
    merged: list[tuple[str, Font]] = []
    for run_text, font in runs:
        if merged and merged[-1][1] == font:
            merged[-1] = (merged[-1][0] + run_text, font)
        else:
            merged.append((run_text, font))
    if len(merged) == 1:
        text.text = merged[0][0]
        return
    for run_text, font in merged:
        span = etree.SubElement(text, f"{{{SVG_NS}}}tspan")
        _font_attributes(span, font, against=first)
        span.text = run_text


def _clip(group: etree._Element, x: float, y: float, width: float, height: float, taken: set[str]) -> None:
    """Cut ``group`` at the ``<foreignObject>``'s viewport, as a browser cuts its content (``overflow``
    other than ``visible``, SVG 2, 8.9): a ``<clipPath>`` inside the group, its id not in ``taken``."""
    n = 1
    while f"foreign-clip-{n}" in taken:
        n += 1
    taken.add(f"foreign-clip-{n}")
    clip = etree.Element(f"{{{SVG_NS}}}clipPath", {"id": f"foreign-clip-{n}"})
    etree.SubElement(clip, f"{{{SVG_NS}}}rect", {"x": _num(x), "y": _num(y), "width": _num(width),
                                                 "height": _num(height)})
    inner = group.makeelement(f"{{{SVG_NS}}}g", {"clip-path": f"url(#foreign-clip-{n})"})
    for child in list(group):
        inner.append(child)
    group.append(clip)
    group.append(inner)


#: what a file's style sheet could set on the elements drawn here and a browser's HTML would not take from it
#: (mermaid's ``.edgeLabel rect { opacity: 0.5 }`` is for its own rects, not a label's background): written
#: in each one's ``style``, which wins over the sheet's rules
_SHIELD = "stroke: none; opacity: 1; filter: none; transform: none; mask: none"


def _shielded(el: etree._Element, declarations: list[tuple[str, str]]) -> None:
    el.set("style", "; ".join([f"{name}: {value}" for name, value in declarations] + [_SHIELD]))


def _font_attributes(el: etree._Element, font: Font, against: Font | None = None) -> None:
    """The font of a ``<text>`` (every property) or a ``<tspan>`` (those unlike its text's, ``against``),
    in its ``style``: over any rule of the file's style sheet, as the HTML's own properties are."""
    declarations = []
    for attr, value, base in (("font-family", font.family, against.family if against else None),
                              ("font-size", _num(font.size_px) + "px",
                               _num(against.size_px) + "px" if against else None),
                              ("font-weight", font.weight, against.weight if against else None),
                              ("font-style", font.style, against.style if against else None),
                              ("fill", font.color, against.color if against else None),
                              ("text-decoration", font.decoration or "none",
                               (against.decoration or "none") if against else None)):
        if value and value != base:
            declarations.append((attr, value))
    if against is None:
        declarations += [("fill-opacity", "1"), ("letter-spacing", "normal"), ("word-spacing", "normal")]
        _shielded(el, declarations)
    elif declarations:
        el.set("style", "; ".join(f"{name}: {value}" for name, value in declarations))


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
