"""Text-only HTML inside an SVG ``<foreignObject>``, laid out as a browser lays it out and written as SVG ``<text>``.

draw.io writes every label as XHTML in a ``<foreignObject>`` (a flex ``<div>`` centring an inline-block
``<div>`` that holds the text, its font size, family and colour in inline ``style``), mermaid writes
``<div style="display: table-cell; text-align: center"><span><p>Start</p></span></div>`` styled by
its ``<style>`` sheet. The export engines draw no HTML, so composer draws that text itself: what a
browser's CSS layout would put there, for text, line breaks and inline styling (not tables, lists,
images, forms or floats: :func:`composer.svg.sanitize.is_text_only` says which hold only what this
module lays out).

The layout (CSS 2.1, 9-10, and CSS Flexbox 1, 8-9, for the parts these producers use):

- Lines: text is split into words at collapsible white space (``white-space: normal``/``nowrap``;
  ``pre*`` keeps spaces and newlines), blocks and ``<br>`` end a line; a line wraps before the word
  that would pass the wrap width, the narrowest ``width``/``max-width`` of the blocks around the
  text (and the ``<foreignObject>``'s own width, when absolute), unless ``white-space`` forbids it.
  Words are measured with the font fontconfig gives for the family (what a browser here draws).
- Each line is as tall as the largest ``line-height`` of its runs (``normal``: the font's ascent +
  descent + line gap); the baseline sits half the leading below the line's top plus the font's ascent.
- Position: the offsets (``margin``, ``padding`` in px) of the blocks down to the text are added to
  the ``<foreignObject>``'s ``x``/``y``; a flex container places the block as ``justify-content`` and
  ``align-items`` say (``center``, ``flex-start``/``start``, ``flex-end``/``end``) in its content box
  (its ``width``/``height``); otherwise the block starts at the offsets. Lines are aligned by the
  block's ``text-align`` within the block's width (the wrap width, or the widest line for a
  shrink-to-fit block: ``inline-block``, ``table-cell``, a flex item), written with ``text-anchor``
  so that an engine drawing a slightly different font keeps the alignment.

Styles come from a caller's ``style_of(element)``: the computed declarations of each element (the
file's style sheets and ``style`` attributes, :func:`composer.stages.fragment.draw_foreign_objects`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from lxml import etree

from composer.svg.io import SVG_NS
from composer.svg.sanitize import HTML_TEXT_ELEMENTS, XHTML_NS, is_text_only
from composer.text.fonts import fontconfig_font, matplotlib_font, parse_families

#: the elements that are blocks by default (HTML's user-agent style sheet)
_BLOCKS = frozenset({"blockquote", "body", "center", "div", "h1", "h2", "h3", "h4", "h5", "h6", "html", "p", "pre"})
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


@dataclass
class _Line:
    runs: list[tuple[str, Font]] = field(default_factory=list)
    width_px: float = 0.0
    height_px: float = 0.0


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
    """The advance width of ``text`` in px in that font (kerning on), measured with FreeType."""
    from matplotlib.ft2font import LoadFlags

    face = _face(font.family, font.weight, font.style)
    if face is None or not text:
        return 0.55 * font.size_px * len(text)
    face.set_size(font.size_px, 72)  # 1 pt per px: sizes in px
    face.set_text(text, 0.0, flags=LoadFlags.NO_HINTING)
    return float(face.get_width_height()[0]) / 64.0


def font_extent(font: Font) -> tuple[float, float, float]:
    """(ascent, descent, line gap) of the font in px (hhea; the descent positive)."""
    face = _face(font.family, font.weight, font.style)
    if face is None or not face.units_per_EM:
        return 0.9 * font.size_px, 0.2 * font.size_px, 0.0
    unit = font.size_px / face.units_per_EM
    return face.ascender * unit, -face.descender * unit, max(0.0, (face.height - face.ascender + face.descender) * unit)


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
    background: str = ""  # not inherited in CSS, but painted behind the text of everything inside

    def font(self) -> Font:
        return Font(self.family, self.size_px, self.weight, self.style, self.color, self.decoration,
                    self.background)

    def line_height_px(self) -> float:
        kind, value = self.line_height
        if kind == "factor":
            return value * self.size_px
        if kind == "px":
            return value
        ascent, descent, gap = font_extent(self.font())
        return ascent + descent + gap


def _inherit(parent: _Computed, el: etree._Element, decl: dict[str, str]) -> _Computed:
    name = local(el)
    out = _Computed(**parent.__dict__)
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


@dataclass
class _Block:
    """A block on the way from the ``<foreignObject>`` down to the text: its offset, its size limits, and
    how it places what it holds."""

    dx_px: float = 0.0
    dy_px: float = 0.0
    width_px: float | None = None  # the content width, explicit
    height_px: float | None = None
    max_width_px: float | None = None
    flex: bool = False
    justify: str = "start"
    align: str = "stretch"
    shrink: bool = False  # inline-block, table-cell, a flex item: as wide as its widest line


#: the user-agent style sheet's vertical margins (em) of blocks (HTML, 15.3.3 and 15.3.6)
_UA_MARGIN = {"p": 1.0, "pre": 1.0, "blockquote": 1.0, "h1": 0.67, "h2": 0.83, "h3": 1.0, "h4": 1.33, "h5": 1.67,
              "h6": 2.33}


def _box(el: etree._Element, decl: dict[str, str], font_px: float, in_flex: bool) -> _Block:
    def px(name: str) -> float:
        value = decl.get(name)
        kind, _, side = name.partition("-")
        if value is None and kind in ("margin", "padding"):  # the shorthand: 1 to 4 values, top first
            values = (decl.get(kind) or "").split()
            if 1 <= len(values) <= 4:
                pick = {1: (0, 0, 0, 0), 2: (0, 1, 0, 1), 3: (0, 1, 2, 1), 4: (0, 1, 2, 3)}[len(values)]
                value = values[pick[("top", "right", "bottom", "left").index(side)]]
        if value is None and name == "margin-top":
            return _UA_MARGIN.get(local(el), 0.0) * font_px
        return _length(value, font_px=font_px) or 0.0

    display = (decl.get("display") or ("block" if local(el) in _BLOCKS else "inline")).strip().lower()
    block = _Block(dx_px=px("margin-left") + px("padding-left") + px("border-left-width"),
                   dy_px=px("margin-top") + px("padding-top") + px("border-top-width"))
    if (decl.get("box-sizing") or "").strip() == "border-box":
        pass  # widths below are of the content box; draw.io's border-box blocks have no padding
    block.width_px = _length(decl.get("width"), font_px=font_px)
    block.height_px = _length(decl.get("height"), font_px=font_px)
    block.max_width_px = _length(decl.get("max-width"), font_px=font_px)
    block.flex = display in ("flex", "inline-flex")
    block.shrink = display in ("inline-block", "table-cell", "table", "inline-flex", "inline") or in_flex
    for key, attr in (("justify-content", "justify"), ("align-items", "align")):
        words = [w for w in (decl.get(key) or "").lower().split() if w not in ("unsafe", "safe")]
        if words:
            setattr(block, attr, {"flex-start": "start", "flex-end": "end", "left": "start",
                                  "right": "end"}.get(words[0], words[0]))
    return block


def layout_foreign_object(fo: etree._Element, style_of: Callable[[etree._Element], dict[str, str]],
                          inherited: dict[str, str], taken_ids: set[str]) -> etree._Element | None:
    """A ``<g>`` of SVG ``<text>`` drawing what a browser draws for a text-only ``<foreignObject>``
    (:func:`composer.svg.sanitize.is_text_only`; see the module docstring), or None when it holds no visible text.

    Args:
        fo: the ``<foreignObject>`` (its ``x``, ``y``, ``width``, ``height`` and ``transform`` are read).
        style_of: an element -> its declarations (cascade applied: rules, then its ``style``).
        inherited: the inherited properties at the ``<foreignObject>`` (``font-size``, ``font-family``,
            ``color``...), as its SVG ancestors give them.
        taken_ids: the document's ids; the id of the ``<clipPath>`` that cuts the text at the
            ``<foreignObject>``'s viewport (unless ``overflow: visible``) is not one of them, and is added.
    """
    root_state = _inherit(_Computed(), fo, {**inherited, **style_of(fo)})
    fo_x = _user(fo.get("x")) or 0.0
    fo_y = _user(fo.get("y")) or 0.0
    fo_w = _user(fo.get("width"))
    lines: list[_Line] = [_Line()]
    chain: list[_Block] = []  # the blocks down to the deepest one holding text
    text_state: list[_Computed] = [root_state]
    found: list[bool] = []
    pending_space = [False]

    def add_text(text: str, state: _Computed) -> None:
        if not text:
            return
        pre = state.white_space in ("pre", "pre-wrap", "break-spaces", "pre-line")
        if pre:
            parts = text.split("\n")
            for i, part in enumerate(parts):
                if i:
                    lines.append(_Line())
                if part:
                    lines[-1].runs.append((part, state.font()))
            return
        for i, word in enumerate(re.split(r"[ \t\r\n\f]+", text)):
            if i:
                pending_space[0] = True
            if not word:
                continue
            if pending_space[0] and lines[-1].runs:
                lines[-1].runs.append((" ", state.font()))
            pending_space[0] = False
            lines[-1].runs.append((word, state.font()))

    def new_line() -> None:
        if lines[-1].runs:
            lines.append(_Line())
        pending_space[0] = False

    def walk(el: etree._Element, state: _Computed, depth_chain: list[_Block], in_flex: bool) -> None:
        decl = style_of(el)
        if (decl.get("display") or "").strip().lower() == "none" or (decl.get("visibility") or "") == "hidden":
            return
        here = _inherit(state, el, decl)
        name = local(el)
        if name == "br":
            lines[-1].height_px = max(lines[-1].height_px, here.line_height_px())
            lines.append(_Line())
            pending_space[0] = False
            return
        box = _box(el, decl, here.size_px, in_flex)
        is_block = (decl.get("display") or ("block" if name in _BLOCKS else "inline")).strip().lower() != "inline"
        blocks = depth_chain + [box] if is_block else depth_chain
        if is_block:
            new_line()
        add_text(el.text or "", here)
        note(el.text or "", blocks, here)
        for child in el:
            if isinstance(child.tag, str):
                walk(child, here, blocks, box.flex)
            add_text(child.tail or "", here)
            note(child.tail or "", blocks, here)
        if is_block:
            new_line()

    def note(text: str, blocks: list[_Block], here: _Computed) -> None:
        """The blocks around the first, most deeply nested text: they place and wrap the lines."""
        if text.strip() and (not found or len(blocks) > len(chain)):
            chain[:] = blocks
            text_state[0] = here
            found.append(True)

    if fo.text and fo.text.strip():
        add_text(fo.text, root_state)
    for child in fo:
        if isinstance(child.tag, str):
            walk(child, root_state, [], False)
    lines = [line for line in lines if line.runs or line.height_px]
    while lines and not lines[-1].runs:
        lines.pop()
    if not any(line.runs for line in lines):
        return None

    # the wrap width: the narrowest explicit width or max-width of the blocks around the text
    limits = [w for b in chain for w in (b.width_px, b.max_width_px) if w is not None]
    if fo_w is not None:
        limits.append(fo_w)
    wrap = min(limits) if limits else None
    state = text_state[0]
    if state.white_space not in ("nowrap", "pre") and wrap is not None:
        lines = [part for line in lines for part in _wrapped(line, wrap)]
    for line in lines:
        line.runs = _trimmed(line.runs) if state.white_space not in ("pre", "pre-wrap", "break-spaces") else line.runs
        line.width_px = sum(text_width_px(text, font) for text, font in line.runs)
        line.height_px = max([line.height_px] + [state.line_height_px()]
                             + [_Computed(family=f.family, size_px=f.size_px, weight=f.weight, style=f.style,
                                          line_height=state.line_height).line_height_px() for _, f in line.runs])
    block_h = sum(line.height_px for line in lines)
    widest = max(line.width_px for line in lines)

    # where the block lands: offsets down the chain; a flex container places its item
    x, y = fo_x, fo_y
    left, width = x, wrap if wrap is not None else widest
    for i, block in enumerate(chain):
        x, y = x + block.dx_px, y + block.dy_px
        if block.flex and i + 1 < len(chain):
            box_w = block.width_px if block.width_px is not None else (wrap if wrap is not None else widest)
            box_h = block.height_px if block.height_px is not None else block_h
            item_w = min(widest, box_w)
            fx = {"center": 0.5, "end": 1.0}.get(block.justify, 0.0)
            fy = {"center": 0.5, "end": 1.0}.get(block.align, 0.0)
            left, width = x + (box_w - item_w) * fx, item_w
            top = y + (box_h - block_h) * fy
            break
        if block.width_px is not None:
            width = block.width_px
        elif block.shrink:  # shrink-to-fit (CSS 2.1, 10.3.5): the widest line, within the room it has
            width = min(widest, width)
        left = x
    else:
        top = y
    group = _write(fo, lines, state, left, top, width)
    overflow = (style_of(fo).get("overflow") or fo.get("overflow") or "hidden").strip().lower()
    if overflow not in ("visible", "auto") and fo_w is not None and _user(fo.get("height")) is not None:
        _clip(group, fo_x, fo_y, fo_w, _user(fo.get("height")) or 0.0, taken_ids)
    return group


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


def _wrapped(line: _Line, wrap_px: float) -> list[_Line]:
    """``line`` broken before each word that would pass ``wrap_px`` (a word longer than the width stays
    whole on its own line, as ``overflow-wrap: normal`` leaves it)."""
    out = [_Line(height_px=line.height_px)]
    width = 0.0
    for text, font in line.runs:
        w = text_width_px(text, font)
        if text == " ":
            out[-1].runs.append((text, font))
            width += w
            continue
        if width + w > wrap_px + 0.01 and any(t.strip() for t, _ in out[-1].runs):
            out.append(_Line())
            width = 0.0
        out[-1].runs.append((text, font))
        width += w
    return out


def _trimmed(runs: list[tuple[str, Font]]) -> list[tuple[str, Font]]:
    while runs and runs[0][0] == " ":
        runs = runs[1:]
    while runs and runs[-1][0] == " ":
        runs = runs[:-1]
    return runs


def _write(fo: etree._Element, lines: list[_Line], state: _Computed, left: float, top: float,
           width: float) -> etree._Element:
    group = fo.makeelement(f"{{{SVG_NS}}}g", {})
    if fo.get("transform"):
        group.set("transform", fo.get("transform", ""))
    align = state.text_align
    anchor, fx = {"center": ("middle", 0.5), "right": ("end", 1.0), "end": ("end", 1.0)}.get(align, ("start", 0.0))
    y = top
    for line in lines:
        if not line.runs:
            y += line.height_px
            continue
        first = line.runs[0][1]
        biggest = max((f for _, f in line.runs), key=lambda f: f.size_px)
        ascent, descent, _ = font_extent(biggest)
        baseline = y + (line.height_px - (ascent + descent)) / 2 + ascent
        x = left + width * fx
        start = x - line.width_px * fx
        for run_text, font in line.runs:  # backgrounds behind the runs: the run's extent x the line box
            run_w = text_width_px(run_text, font)
            if font.background:
                etree.SubElement(group, f"{{{SVG_NS}}}rect", {
                    "x": _num(start), "y": _num(y), "width": _num(run_w), "height": _num(line.height_px),
                    "fill": font.background})
            start += run_w
        # HTML text is painted with its colour, never stroked (CSS ``stroke`` does not apply to it): no stroke
        # is inherited from the SVG around the foreignObject (mermaid's ``.hot>*{stroke:#333!important}``)
        text = etree.SubElement(group, f"{{{SVG_NS}}}text", {"x": _num(x), "y": _num(baseline), "text-anchor": anchor,
                                                              "stroke": "none"})
        text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
        _font_attributes(text, first)
        merged: list[tuple[str, Font]] = []
        for run_text, font in line.runs:
            if merged and merged[-1][1] == font:
                merged[-1] = (merged[-1][0] + run_text, font)
            else:
                merged.append((run_text, font))
        if len(merged) == 1:
            text.text = merged[0][0]
        else:
            for run_text, font in merged:
                span = etree.SubElement(text, f"{{{SVG_NS}}}tspan")
                _font_attributes(span, font, against=first)
                span.text = run_text
        y += line.height_px
    return group


def _font_attributes(el: etree._Element, font: Font, against: Font | None = None) -> None:
    for attr, value, base in (("font-family", font.family, against.family if against else None),
                              ("font-size", _num(font.size_px), _num(against.size_px) if against else None),
                              ("font-weight", font.weight, against.weight if against else "normal"),
                              ("font-style", font.style, against.style if against else "normal"),
                              ("fill", font.color, against.color if against else None),
                              ("text-decoration", font.decoration, against.decoration if against else "")):
        if value and value != base:
            el.set(attr, value)


def _num(value: float) -> str:
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
