"""Text metrics and outlines for canvas text, from matplotlib's font machinery.

Canvas text is typeset with the same fonts and mathtext engine as the panels
(``matplotlib.textpath``), so composer knows the extent of every text it
draws, and writes each glyph as a vector outline: every renderer (cairosvg,
browsers, PDF viewers) shows the same glyphs, mathtext included.

Rich text inside one line: ``<b>bold</b>``, ``<i>italic</i>`` and
``<color=NAME>...</color>`` spans (NAME a palette name or any colour), and
``$...$`` mathtext for sub- and superscripts and symbols. Tags inside
``$...$`` are left to mathtext.

Fonts: a style's ``font`` is one family or a comma-separated list
(``"DejaVu Sans, WenQuanYi Micro Hei"``, as CSS ``font-family``); each
character is drawn from the first font of the list that has a glyph for it
(matplotlib's font fallback). A character that no font of the list has is an
error naming the characters and the fonts, never an empty "tofu" box; text in
``$...$`` uses the mathtext fonts, and a character they lack is refused too.

Block model (all pt, y down): each line has a width, an ascent above its
baseline and a descent below it; consecutive lines are separated by
``LINE_GAP`` x (ascent + descent), so a plain block at 7 pt has a baseline
step of 1.2 x 7 pt, matplotlib's default ``linespacing``. With a wrap width,
words (and whole ``$...$`` formulas) move to the next line greedily.

Editable text (``TextStyle.editable``, ``[figure] text = "editable"``): each
line also keeps its :class:`Run` s -- plain text with the x of every character
(matplotlib's own layout, kerning included, ligatures off), and each
``$...$`` formula as its outline -- so :mod:`composer.stages.draw` can write
``<text>`` whose glyphs sit exactly where composer measured them, in every
renderer (cairosvg places each character by its own advance and knows no
kerning, browsers kern and may form ligatures; explicit per-character x makes
both agree with matplotlib).
"""

from __future__ import annotations

import logging
import re
import warnings
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from composer.errors import LayoutError
from composer.layout.model import TextStyle
from composer.mpl.internals import fallback_font_paths, forget_parsed_math, glyph_layout, mathtext_missing_char
from composer.text.realtext import Glyph

#: space between the descent of one line and the ascent of the next, x line height.
LINE_GAP = 0.2
#: minimum ascent / descent of a line as a fraction of the font size, so that
#: lines without tall letters or descenders still align (DejaVu Sans: ascender
#: 0.76 em, descender 0.24 em, from its hhea table).
MIN_ASCENT, MIN_DESCENT = 0.76, 0.24

_TAG = re.compile(r"<(/?)(b|i|color)(?:=([^<>]+))?>")
_MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$")


@dataclass(frozen=True)
class Run:
    """A piece of one line in one style, for editable output (pt, from the line's baseline-left origin).

    Attributes:
        text: the characters (plain text; ``\\$`` already unescaped), or
            the ``$...$`` formula.
        style: its style.
        x_pt: where the run starts.
        char_x_pt: the x of every character of ``text`` (absolute, from the
            line origin), or ``()`` when the font's clusters do not map one
            to one to characters (combining marks): then only ``x_pt`` is exact.
        math_d: for a formula, its outline (SVG ``d``, y down, already at
            ``x_pt``); None for plain text.
    """

    text: str
    style: TextStyle
    x_pt: float
    char_x_pt: tuple[float, ...] = ()
    math_d: str | None = None


@dataclass(frozen=True)
class Line:
    """One typeset line: outline pieces ``(colour, d)`` relative to its baseline-left origin (y down);
    ``runs`` for editable text (empty for outline-only text); ``glyphs`` for outline-only text: every
    glyph the pieces outline, where they outline it (:class:`composer.text.realtext.Glyph`, same origin),
    from which the PDF writes the line as text (:mod:`composer.text.realtext`)."""

    pieces: tuple[tuple[str, str], ...]
    width_pt: float
    ascent_pt: float
    descent_pt: float
    runs: tuple[Run, ...] = ()
    glyphs: tuple[Glyph, ...] = ()


@dataclass(frozen=True)
class TextBlock:
    """A typeset block of lines with its size; the box's top-left is (0, 0)."""

    lines: tuple[Line, ...]
    width_pt: float
    height_pt: float

    def paths(self, x_pt: float, y_pt: float, align: str) -> list[tuple[str, str]]:
        """The block as ``(colour, d)`` outlines, one per colour in order of
        first use, with its box's top-left at (x_pt, y_pt).

        ``align`` (left, center, right) places each line inside the block width.
        Kept for the process (a rebuild in ``--watch`` places the same texts again).
        """
        return list(_placed_paths(self, x_pt, y_pt, align))

    def path_d(self, x_pt: float, y_pt: float, align: str) -> str:
        """All outlines as one ``d`` (whatever their colours)."""
        return " ".join(d for _, d in self.paths(x_pt, y_pt, align))

    def placed_glyphs(self, x_pt: float, y_pt: float, align: str) -> list[Glyph]:
        """Every glyph of the outlines :meth:`paths` draws, on the canvas (``align`` as there)."""
        return [replace(g, x_pt=x0 + g.x_pt, y_pt=baseline + g.y_pt)
                for line, x0, baseline in self.placed_lines(x_pt, y_pt, align) for g in line.glyphs]

    def placed_lines(self, x_pt: float, y_pt: float, align: str) -> list[tuple[Line, float, float]]:
        """Each line with the canvas point of its baseline-left origin ``(line, x_pt, baseline_pt)``,
        the block's top-left at (x_pt, y_pt), ``align`` as in :meth:`paths`."""
        out = []
        top = y_pt
        for line in self.lines:
            shift = {"left": 0.0, "center": (self.width_pt - line.width_pt) / 2,
                     "right": self.width_pt - line.width_pt}[align]
            baseline = top + line.ascent_pt
            out.append((line, x_pt + shift, baseline))
            top = baseline + line.descent_pt + _gap(line)
        return out


@lru_cache(maxsize=1024)
def _placed_paths(block: TextBlock, x_pt: float, y_pt: float, align: str) -> tuple[tuple[str, str], ...]:
    """:meth:`TextBlock.paths`, computed."""
    by_color: dict[str, list[str]] = {}
    top = y_pt
    for line in block.lines:
        shift = {"left": 0.0, "center": (block.width_pt - line.width_pt) / 2,
                 "right": block.width_pt - line.width_pt}[align]
        baseline = top + line.ascent_pt
        for color, d in line.pieces:
            by_color.setdefault(color, []).append(_translate_d(d, x_pt + shift, baseline))
        top = baseline + line.descent_pt + _gap(line)
    return tuple((color, " ".join(ds)) for color, ds in by_color.items())


def is_math(text: str) -> bool:
    """True when ``text`` holds ``$...$`` mathtext (an even number of unescaped ``$``)."""
    count = text.count("$") - text.count(r"\$")
    return count > 0 and count % 2 == 0


def font_families(font: str) -> list[str]:
    """``"DejaVu Sans, WenQuanYi Micro Hei"`` -> ``["DejaVu Sans", "WenQuanYi Micro Hei"]``."""
    return [name.strip().strip("'\"") for name in font.split(",") if name.strip().strip("'\"")]


def check_font(font: str, *, file: str | None = None, key: str | None = None) -> str:
    """Return the file of the installed font ``font`` (the first of a list); refuse a silent substitution.

    Raises:
        LayoutError: a family of the list is not installed; lists what is installed.
    """
    families = font_families(font)
    if not families:
        raise LayoutError(f"{font!r} names no font", file=file, key=key)
    return [_find_font(family, file, key) for family in families][0]


@cache
def _find_font(font: str, file: str | None, key: str | None) -> str:
    from matplotlib import font_manager

    for attempt in range(2):
        try:
            return font_manager.findfont(font_manager.FontProperties(family=font), fallback_to_default=False)
        except ValueError:
            if attempt == 0 and not _add_new_system_fonts():
                break
    names = sorted({f.name for f in font_manager.fontManager.ttflist})
    same = [n for n in METRIC_COMPATIBLE.get(font.casefold(), ()) if n in names]
    hint = (f"; {' and '.join(same)} {'has' if len(same) == 1 else 'have'} the same metrics (font = "
            f"\"{same[0]}\" sets identical line breaks)" if same else "")
    raise LayoutError(f"font {font!r} is not installed{hint}; installed fonts are {', '.join(names)}",
                      file=file, key=key)


#: proprietary families journals ask for -> free families drawn to the same metrics (every glyph the same
#: advance width), so text set in them breaks and fits exactly as it would in the original. Sources: the
#: Liberation fonts' README ("metric-compatible with Arial, Times New Roman, Courier New"), Google's Croscore
#: fonts (Arimo, Tinos, Cousine), URW's base-35 fonts for Ghostscript (Nimbus Sans = Helvetica,
#: Nimbus Roman = Times, TeX Gyre Heros / Termes are their TeX editions).
METRIC_COMPATIBLE: dict[str, tuple[str, ...]] = {
    "arial": ("Liberation Sans", "Arimo", "Nimbus Sans", "TeX Gyre Heros"),
    "helvetica": ("Nimbus Sans", "TeX Gyre Heros", "Liberation Sans", "Arimo"),
    "times new roman": ("Liberation Serif", "Tinos", "Nimbus Roman", "TeX Gyre Termes"),
    "times": ("Nimbus Roman", "TeX Gyre Termes", "Liberation Serif", "Tinos"),
    "courier new": ("Liberation Mono", "Cousine", "Nimbus Mono PS"),
    "courier": ("Nimbus Mono PS", "Liberation Mono", "Cousine"),
}


_scanned = False


def _add_new_system_fonts() -> bool:
    """Add fonts installed after matplotlib cached its font list (once per process); True if any were added.

    matplotlib reads its font list from a cache file and does not notice a font
    installed later (e.g. ``apt-get install fonts-wqy-microhei``).
    """
    global _scanned
    if _scanned:
        return False
    _scanned = True
    from matplotlib import font_manager

    known = {f.fname for f in font_manager.fontManager.ttflist}
    added = False
    for path in font_manager.findSystemFonts():
        if path not in known and path.lower().endswith((".ttf", ".otf", ".ttc")):
            try:
                font_manager.fontManager.addfont(path)
                added = True
            except Exception:  # noqa: BLE001 - an unreadable font file is skipped, as matplotlib does
                continue
    return added


class MissingGlyphs(ValueError):
    """Characters of a text that no font of its style has a glyph for.

    Attributes:
        chars: the characters, sorted, without repeats.
        font: the style's font (family or list).
    """

    def __init__(self, chars: list[str], font: str, *, math: bool = False):
        self.chars, self.font = sorted(set(chars)), font
        shown = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in self.chars[:8]) + (" ..." if len(self.chars) > 8 else "")
        if math:
            message = (f"the mathtext fonts have no glyph for {shown} inside $...$; they would show as empty "
                       "boxes. Write these characters outside the $...$")
        else:
            message = (f"font {font!r} has no glyph for {shown}; they would show as empty boxes. Name a font that "
                       "has them after the first, e.g. font = \"DejaVu Sans, WenQuanYi Micro Hei\" for Chinese, "
                       "Japanese and Korean")
        super().__init__(message)


def missing_glyphs(text: str, prop) -> list[str]:
    """The characters of plain (non-math) ``text`` that no font of ``prop``'s family list has."""
    from matplotlib import font_manager

    fonts = [font_manager.get_font(path) for path in fallback_font_paths(prop)]
    missing = []
    for char in set(text) - {" "}:  # control characters (a tab, NUL) have no glyph either: refused too
        if not any(font.get_char_index(ord(char)) for font in fonts):
            missing.append(char)
    return missing


def parse_markup(line: str, style: TextStyle, colors: tuple[tuple[str, str], ...] = ()) -> list[tuple[str, TextStyle]]:
    """Split one line into runs of ``(text, style)`` at ``<b>``, ``<i>``, ``<color=...>`` tags.

    Raises:
        ValueError: a closing tag without its opening tag, an unclosed tag, or
            an unknown colour (the caller adds file and key).
    """
    palette = dict(colors)
    runs: list[tuple[str, TextStyle]] = []
    stack: list[tuple[str, TextStyle]] = []
    current = style
    pos = 0
    protected = [m.span() for m in _MATH.finditer(line)]
    for match in _TAG.finditer(line):
        if any(a <= match.start() < b for a, b in protected):
            continue
        if match.start() > pos:
            runs.append((line[pos:match.start()], current))
        pos = match.end()
        closing, tag, value = match.groups()
        if closing:
            if not stack or stack[-1][0] != tag:
                raise ValueError(f"</{tag}> closes no <{tag}>")
            current = stack.pop()[1]
            continue
        stack.append((tag, current))
        if tag == "b":
            current = replace(current, weight="bold")
        elif tag == "i":
            current = replace(current, style="italic")
        else:
            current = replace(current, color=_color(value or "", palette))
    if stack:
        raise ValueError(f"<{stack[-1][0]}> is not closed")
    if pos < len(line):
        runs.append((line[pos:], current))
    return [(text, st) for text, st in runs if text]


def _color(value: str, palette: dict[str, str]) -> str:
    if value in palette:
        return palette[value]
    from matplotlib.colors import to_hex

    try:
        return to_hex(value)
    except ValueError:
        known = f"; palette: {', '.join(palette)}" if palette else ""
        raise ValueError(f"<color={value}>: {value!r} is not a colour{known}") from None


@lru_cache(maxsize=4096)
def typeset(text: str, style: TextStyle, colors: tuple[tuple[str, str], ...] = (),
            width_pt: float | None = None) -> TextBlock:
    """Typeset ``text`` in ``style``: lines split on ``\\n``, rich-text spans,
    ``$...$`` mathtext, and with ``width_pt`` greedy word wrapping.

    Args:
        colors: the figure palette as ``(name, #rrggbb)`` pairs, for ``<color=NAME>``.
        width_pt: wrap lines to this width; a single word or formula wider
            than it stays on its own line.

    A style with ``math = "latex"`` is typeset by TeX instead (:func:`latex_block`).

    Returns a :class:`TextBlock` whose sizes are in pt.
    Raises ValueError for malformed mathtext or markup (or LaTeX), and
    :class:`MissingGlyphs` (a ValueError) for characters no font of the style
    has; the caller names file and key.
    """
    import matplotlib

    if style.math == "latex":
        return latex_block(text, style)
    lines = []
    with matplotlib.rc_context({"mathtext.fontset": style.mathtext}):
        for raw in text.split("\n"):
            runs = parse_markup(raw, style, colors)
            for wrapped in (_wrap(runs, width_pt) if width_pt else [runs]):
                lines.append(_line(wrapped, style))
    width = max(line.width_pt for line in lines)
    height = sum(line.ascent_pt + line.descent_pt for line in lines)
    height += sum(_gap(line) for line in lines[:-1])
    return TextBlock(tuple(lines), width, height)


@lru_cache(maxsize=1024)
def latex_block(text: str, style: TextStyle) -> TextBlock:
    """``text`` as LaTeX, typeset by TeX (:func:`composer.text.latex.typeset_lines`): one line per ``\\n``,
    whatever the wrap width (LaTeX text does not wrap: a text filling a cell, typeset again at the cell's
    width, is taken from here);
    each the style's colour (its outline is one piece), its ascent and descent at least a plain line's
    (:data:`MIN_ASCENT`, :data:`MIN_DESCENT`), lines ``LINE_GAP`` apart as plain text's. Editable text
    keeps each line as one outlined run (its LaTeX source as the run's text). No ``glyphs``: the PDF has
    the outlines, and the text itself in the element's ``aria-label``.

    Raises:
        composer.text.latex.LatexMissing, composer.text.latex.LatexError (ValueErrors).
    """
    from composer.text.latex import typeset_lines

    size = style.size_pt
    lines = []
    for source, typeset_line in zip(text.split("\n"), typeset_lines(text, style), strict=True):
        pieces = ((style.color, typeset_line.d),) if typeset_line.d else ()
        runs = (Run(source, style, 0.0, (), typeset_line.d),) if style.editable and typeset_line.d else ()
        lines.append(Line(pieces, typeset_line.width_pt, max(typeset_line.ascent_pt, MIN_ASCENT * size),
                          max(typeset_line.descent_pt, MIN_DESCENT * size), runs))
    width = max(line.width_pt for line in lines)
    height = sum(line.ascent_pt + line.descent_pt for line in lines) + sum(_gap(line) for line in lines[:-1])
    return TextBlock(tuple(lines), width, height)


def _line(runs: list[tuple[str, TextStyle]], style: TextStyle) -> Line:
    from matplotlib.textpath import TextPath, text_to_path

    if style.editable:
        return _editable_line(runs, style)
    size = style.size_pt
    pieces, x = [], 0.0
    glyphs: list[Glyph] = []
    ascent, descent = MIN_ASCENT * size, MIN_DESCENT * size
    for text, st in runs:
        prop = _prop(st)
        math = is_math(text)
        missing = missing_glyphs((_MATH.sub("", text) if math else text).replace("\\$", "$"), prop)
        if missing:
            raise MissingGlyphs(missing, st.font)
        if math and not text.isascii():
            _forget_parsed_math()  # mathtext logs a missing glyph only when it first parses a text
        with _MathGlyphs() as math_missing:
            width, height, desc = text_to_path.get_text_width_height_descent(text, prop, ismath=math)
            d = ""
            if text.strip():
                try:
                    d = _path_d(TextPath((0, 0), text, prop=prop), x)
                except AttributeError:  # matplotlib fails on text whose glyphs have no outline (U+00A0, U+200B)
                    d = ""
        if math_missing:
            raise MissingGlyphs(math_missing, st.font, math=True)
        if d:
            pieces.append((st.color, d))
            glyphs += _glyphs(text, prop, math, x, st)
        x += float(width)
        ascent = max(ascent, float(height - desc), MIN_ASCENT * st.size_pt)
        descent = max(descent, float(desc), MIN_DESCENT * st.size_pt)
    return Line(tuple(pieces), x, ascent, descent, glyphs=tuple(glyphs))


def _glyphs(text: str, prop, math: bool, x_pt: float, style: TextStyle) -> list[Glyph]:
    """The glyphs ``TextPath((0, 0), text, prop)`` outlines, moved by ``x_pt`` (as :func:`_path_d` moves the
    outline), in pt from the line's baseline-left origin, y down: matplotlib's layout of them
    (:func:`composer.mpl.internals.glyph_layout`, 100 units to the font size, y up)."""
    scale = style.size_pt / 100.0
    shown = text if math else text.replace("\\$", "$")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a missing glyph was refused or reported above
        laid = glyph_layout(shown, prop, math)
    return [Glyph(file, index, char, x_pt + gx * scale, -gy * scale, style.size_pt * k, style.color, style.opacity)
            for file, index, char, gx, gy, k in laid]


def _editable_line(runs: list[tuple[str, TextStyle]], style: TextStyle) -> Line:
    """A line for ``<text>`` output: runs split at ``$...$`` so plain text stays
    text and only formulas become outlines, each part measured on its own; plain
    text split again by the font of its list that draws each character (a
    renderer's ``<text>`` takes one font, not matplotlib's per-glyph fallback).

    Raises:
        MissingGlyphs: as :func:`_line`.
    """
    from matplotlib.textpath import TextPath, text_to_path

    size = style.size_pt
    pieces, out, x = [], [], 0.0
    ascent, descent = MIN_ASCENT * size, MIN_DESCENT * size
    for text, st in runs:
        prop = _prop(st)
        missing = missing_glyphs((_MATH.sub("", text) if is_math(text) else text).replace("\\$", "$"), prop)
        if missing:
            raise MissingGlyphs(missing, st.font)
        for part, math in _math_parts(text):
            shown = part if math else part.replace(r"\$", "$")
            if math and not part.isascii():
                _forget_parsed_math()
            with _MathGlyphs() as math_missing:
                width, height, desc = text_to_path.get_text_width_height_descent(shown, prop, ismath=math)
                d = None
                if shown.strip():
                    d = _translate_d(_path_d(TextPath((0, 0), part if math else shown.replace("$", r"\$"),
                                                      prop=prop)), x, 0.0)
            if math_missing:
                raise MissingGlyphs(math_missing, st.font, math=True)
            if d is not None:
                pieces.append((st.color, d))
                if math:
                    out.append(Run(part, st, x, (), d))
                else:
                    out += _font_runs(shown, st, x, tuple(x + c for c in _char_x(shown, prop)))
            x += float(width)
            ascent = max(ascent, float(height - desc), MIN_ASCENT * st.size_pt)
            descent = max(descent, float(desc), MIN_DESCENT * st.size_pt)
    return Line(tuple(pieces), x, ascent, descent, tuple(out))


def _font_runs(text: str, style: TextStyle, x_pt: float, char_x_pt: tuple[float, ...]) -> list[Run]:
    """Split plain text into runs of one font each: every character goes to the first
    family of ``style.font`` that has its glyph (spaces stay with the run they are in)."""
    families = font_families(style.font)
    if len(families) <= 1:
        return [Run(text, style, x_pt, char_x_pt)]
    from matplotlib import font_manager

    fonts = [font_manager.get_font(font_manager.findfont(
        font_manager.FontProperties(family=f, weight=style.weight, style=style.style)))  # type: ignore[arg-type]  # one of STYLES
        for f in families]
    owner: list[int] = []
    for ch in text:
        found = next((i for i, font in enumerate(fonts) if font.get_char_index(ord(ch))), 0)
        owner.append(owner[-1] if ch == " " and owner else found)
    runs, start = [], 0
    for i in range(1, len(text) + 1):
        if i == len(text) or owner[i] != owner[start]:
            xs = char_x_pt[start:i] if char_x_pt else ()
            first = xs[0] if xs else x_pt
            runs.append(Run(text[start:i], replace(style, font=families[owner[start]]), first, xs))
            start = i
    return runs


def _math_parts(text: str) -> list[tuple[str, bool]]:
    """``"a $x$ b"`` -> ``[("a ", False), ("$x$", True), (" b", False)]`` (only when ``text`` is math)."""
    if not is_math(text):
        return [(text, False)]
    parts, pos = [], 0
    for m in _MATH.finditer(text):
        if m.start() > pos:
            parts.append((text[pos:m.start()], False))
        parts.append((m.group(0), True))
        pos = m.end()
    if pos < len(text):
        parts.append((text[pos:], False))
    return parts


#: layout scale, as matplotlib's TextToPath: lay out at 100 pt, then scale (26.6 rounding stays < 0.001 pt).
_LAYOUT_PT = 100.0


def char_x(text: str, prop) -> tuple[float, ...]:
    """The x (pt) of every character of ``text`` set in matplotlib FontProperties
    ``prop``, from the text's origin; see :func:`_char_x`."""
    return _char_x(text, prop)


def _char_x(text: str, prop) -> tuple[float, ...]:
    """The x (pt, from the text's origin) of every character of ``text`` in
    matplotlib's layout (kerning on, ligatures off: renderers given one x per
    character draw no ligatures); ``()`` when glyphs and characters differ in number."""
    from matplotlib import font_manager
    from matplotlib.ft2font import LoadFlags

    font = font_manager.get_font(fallback_font_paths(prop))  # with fallback fonts
    font.set_size(_LAYOUT_PT, 72)
    # matplotlib's stub types features as tuple[str]; FT2Font.set_text takes a tuple of any length
    xys = font.set_text(text, 0.0, flags=LoadFlags.NO_HINTING,
                        features=("-liga", "-clig", "-dlig"))  # type: ignore[arg-type]
    if len(xys) != len(text):
        return ()
    scale = prop.get_size_in_points() / _LAYOUT_PT / 64.0
    return tuple(float(x) * scale for x, _ in xys)


def _prop(style: TextStyle):
    from matplotlib.font_manager import FontProperties

    return FontProperties(family=font_families(style.font), size=style.size_pt, weight=style.weight,
                          style=style.style)  # type: ignore[arg-type]  # one of STYLES


def _wrap(runs: list[tuple[str, TextStyle]], width_pt: float) -> list[list[tuple[str, TextStyle]]]:
    """Greedy word wrap: words (``$...$`` formulas kept whole) fill each line up to ``width_pt``."""
    from matplotlib.textpath import text_to_path

    words: list[tuple[str, TextStyle]] = []
    for text, st in runs:
        tokens = re.findall(r"(?<!\\)\$.*?(?<!\\)\$\S*|\S+", text)
        words += [(tok, st) for tok in tokens]

    def measure(line: list[tuple[str, TextStyle]]) -> float:
        total = 0.0
        for text, st in _merge(line):
            total += float(text_to_path.get_text_width_height_descent(text, _prop(st), ismath=is_math(text))[0])
        return total

    lines: list[list[tuple[str, TextStyle]]] = []
    current: list[tuple[str, TextStyle]] = []
    for word in words:
        if current and measure(current + [word]) > width_pt:
            lines.append(_merge(current))
            current = [word]
        else:
            current.append(word)
    lines.append(_merge(current))
    return lines


def _merge(words: list[tuple[str, TextStyle]]) -> list[tuple[str, TextStyle]]:
    """Join words into runs of equal style, separated by single spaces."""
    runs: list[tuple[str, TextStyle]] = []
    for i, (word, st) in enumerate(words):
        text = word if i == 0 else " " + word
        if runs and runs[-1][1] == st:
            runs[-1] = (runs[-1][0] + text, st)
        else:
            runs.append((text, st))
    return runs


def _forget_parsed_math() -> None:
    forget_parsed_math()


class _MathGlyphs(logging.Handler):
    """Collect the characters mathtext logs as missing ("does not have a glyph for ... [U+xxxx]")."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.missing: list[str] = []
        self.logger = logging.getLogger("matplotlib.mathtext")

    def __enter__(self) -> list[str]:
        self.logger.addHandler(self)
        return self.missing

    def __exit__(self, *exc) -> None:
        self.logger.removeHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        char = mathtext_missing_char(record.getMessage())
        if char is not None:
            self.missing.append(char)


def _gap(line: Line) -> float:
    return LINE_GAP * (line.ascent_pt + line.descent_pt)


def _path_d(path, dx: float = 0.0) -> str:
    """A matplotlib Path (pt, y up, baseline at 0) -> SVG ``d`` (y down), shifted by ``dx``.

    Coordinates are rounded to 3 decimals first (numpy's rounding, as
    :func:`composer.units.fmt` rounds a numpy scalar) and ``dx`` is added
    after, exactly as formatting and then :func:`_translate_d` would, but
    with one vectorized rounding instead of a Python call per coordinate
    (a figure's text has some 10^5 of them). The ``d`` is one template
    (command letters and ``%s`` slots, one per coordinate) filled with every
    coordinate formatted at once (:func:`_formatted`).
    """
    import numpy as np
    from matplotlib.path import Path as MplPath

    cleaned = path.cleaned(remove_nans=True, simplify=False, curves=True)
    verts, codes = cleaned.vertices, cleaned.codes
    if len(verts) == 0:
        return ""
    codes = np.asarray(codes)
    stops = np.flatnonzero(codes == MplPath.STOP)
    if len(stops):
        verts, codes = verts[:stops[0]], codes[:stops[0]]
    # a segment of k vertices repeats its code k times (CURVE4 x 3): in a run of equal codes,
    # a segment starts every k vertices
    slots, steps = _path_slots()
    run_start = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    position = np.arange(len(codes)) - np.repeat(run_start, np.diff(np.r_[run_start, len(codes)]))
    first = position % steps[codes] == 0
    template = "".join(slots[np.where(first, codes, MplPath.STOP)].tolist())
    drawn = codes != MplPath.CLOSEPOLY
    if not drawn.any():
        return template
    xs = np.round(verts[drawn, 0], 3)
    pairs = np.empty((int(drawn.sum()), 2))
    pairs[:, 0] = xs + dx if dx else xs
    pairs[:, 1] = np.round(-verts[drawn, 1], 3)
    return template % tuple(_formatted(pairs.ravel()))


@cache
def _path_slots():
    """``(slots, steps)`` indexed by matplotlib path code: the ``d`` piece written for a vertex starting
    a segment (STOP's place holds the piece of a further vertex of a segment, ``" %s %s"``), and how
    many vertices a segment of that code has."""
    import numpy as np
    from matplotlib.path import Path as MplPath

    slots = np.full(MplPath.CLOSEPOLY + 1, "", dtype=object)
    steps = np.ones(MplPath.CLOSEPOLY + 1, dtype=np.int64)
    for code, piece in ((MplPath.STOP, " %s %s"), (MplPath.MOVETO, "M%s %s"), (MplPath.LINETO, "L%s %s"),
                        (MplPath.CURVE3, "Q%s %s"), (MplPath.CURVE4, "C%s %s"), (MplPath.CLOSEPOLY, "Z")):
        slots[code] = piece
        steps[code] = MplPath.NUM_VERTICES_FOR_CODE[code]
    return slots, steps


#: the largest float that ``"%.3f"`` writes as ``-0.000`` when negated: floats in (-this, 0] are written
#: as ``0`` (the nearest double to 0.0005 lies above it, so ``-float(0.0005)`` itself gives ``-0.001``).
_HALF_THOUSANDTH = 0.0005


def _formatted(values) -> list[str]:
    """Already-rounded coordinates (a numpy array) as :func:`composer.units.fmt` writes them
    (``f"{v:.3f}"`` without trailing zeros and point, ``-0`` as ``0``), all in one string
    formatting and four plain replacements instead of a Python call each.

    Every number is written with exactly three decimals first, so its trailing zeros are one of
    ``.000`` (a whole number: marked ``!`` first, so that its own zeros stay), ``00`` or ``0``
    before its newline; the values ``"%.3f"`` would write as ``-0.000`` are made 0 before.
    """
    import numpy as np

    if not len(values):
        return []
    values = np.where((values > -_HALF_THOUSANDTH) & (values <= 0.0), 0.0, values)
    numbers = values.tolist()
    text = ("%.3f\n" * len(numbers)) % tuple(numbers)
    text = text.replace(".000\n", "!").replace("00\n", "\n").replace("0\n", "\n").replace("!", "\n")
    return text.split("\n")[:-1]


_PAIR = re.compile(r"(-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)")


def translate_d(d: str, dx: float, dy: float) -> str:
    """Shift every absolute coordinate pair of a ``d`` made by this module by (dx, dy) pt."""
    return _translate_d(d, dx, dy)


def _translate_d(d: str, dx: float, dy: float) -> str:
    """Shift every absolute coordinate pair of a ``d`` made by :func:`_path_d`.

    Each number is parsed, shifted and written as :func:`composer.units.fmt`
    writes a float; the additions are done on one array per path.
    """
    if dx == 0.0 and dy == 0.0:
        return d
    import numpy as np

    parts = _PAIR.split(d)  # text, x, y, text, x, y, ..., text
    if len(parts) == 1:
        return d
    pairs = np.empty((len(parts) // 3, 2))
    pairs[:, 0] = np.array(parts[1::3], dtype=float) + dx
    pairs[:, 1] = np.array(parts[2::3], dtype=float) + dy
    template = "%s %s".join(text.replace("%", "%%") for text in parts[0::3])
    return template % tuple(_formatted(pairs.ravel()))
