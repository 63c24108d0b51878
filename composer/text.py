"""Text metrics and outlines for canvas text, from matplotlib's font machinery.

Canvas text is typeset with the same fonts and mathtext engine as the panels
(``matplotlib.textpath.TextToPath``), so composer knows the extent of every
text it draws, and writes each glyph as a vector outline: every renderer
(cairosvg, browsers, PDF viewers) shows the same glyphs, mathtext included.

Block model (all pt, y down): each line has a width, an ascent above its
baseline and a descent below it; lines are stacked with a gap of
``LINE_GAP`` x font size, so a plain two-line block at 7 pt has a baseline
step of about 1.2 x 7 pt, as matplotlib's default ``linespacing`` of 1.2.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .errors import LayoutError
from .model import TextStyle
from .units import fmt

#: extra space between the descent of one line and the ascent of the next, x size.
LINE_GAP = 0.2
#: minimum ascent / descent of a line as a fraction of the font size, so that
#: lines without tall letters or descenders still align (DejaVu Sans: cap height
#: 0.73 em, ascender 0.76 em, descender 0.24 em).
MIN_ASCENT, MIN_DESCENT = 0.76, 0.24


@dataclass(frozen=True)
class Line:
    """One typeset line: outline ``d`` relative to its baseline-left origin (y down)."""

    d: str
    width_pt: float
    ascent_pt: float
    descent_pt: float


@dataclass(frozen=True)
class TextBlock:
    """A typeset block of lines with its size; the box's top-left is (0, 0)."""

    lines: tuple[Line, ...]
    width_pt: float
    height_pt: float

    def path_d(self, x_pt: float, y_pt: float, align: str) -> str:
        """The whole block as one SVG path ``d``, its box's top-left at (x_pt, y_pt).

        ``align`` (left, center, right) places each line inside the block width.
        """
        parts, top = [], y_pt
        for line in self.lines:
            shift = {"left": 0.0, "center": (self.width_pt - line.width_pt) / 2,
                     "right": self.width_pt - line.width_pt}[align]
            baseline = top + line.ascent_pt
            if line.d:
                parts.append(_translate_d(line.d, x_pt + shift, baseline))
            top = baseline + line.descent_pt + _gap(line)
        return " ".join(parts)


def is_math(text: str) -> bool:
    """True when ``text`` holds ``$...$`` mathtext (an even number of unescaped ``$``)."""
    count = text.count("$") - text.count(r"\$")
    return count > 0 and count % 2 == 0


def check_font(font: str, *, file: str | None = None, key: str | None = None) -> str:
    """Return the file of the installed font ``font``; refuse a silent substitution.

    Raises:
        LayoutError: no installed font has that family name; lists what is installed.
    """
    return _find_font(font, file, key)


@lru_cache(maxsize=None)
def _find_font(font: str, file: str | None, key: str | None) -> str:
    from matplotlib import font_manager

    try:
        return font_manager.findfont(font_manager.FontProperties(family=font), fallback_to_default=False)
    except ValueError:
        names = sorted({f.name for f in font_manager.fontManager.ttflist})
        raise LayoutError(f"font {font!r} is not installed; installed fonts are {', '.join(names)}",
                          file=file, key=key) from None


@lru_cache(maxsize=4096)
def typeset(text: str, style: TextStyle) -> TextBlock:
    """Typeset ``text`` (lines split on ``\\n``; ``$...$`` as mathtext) in ``style``.

    Returns a :class:`TextBlock` whose sizes are in pt at ``style.size_pt``.
    Raises ValueError for malformed mathtext (the caller names file and key).
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath, text_to_path

    prop = FontProperties(family=style.font, size=style.size_pt, weight=style.weight, style=style.style)
    lines = []
    for raw in text.split("\n"):
        size = style.size_pt
        if raw.strip() == "":
            lines.append(Line("", 0.0, MIN_ASCENT * size, MIN_DESCENT * size))
            continue
        math = is_math(raw)
        width, height, descent = text_to_path.get_text_width_height_descent(raw, prop, ismath=math)
        path = TextPath((0, 0), raw, prop=prop)
        lines.append(Line(_path_d(path), width,
                          max(height - descent, MIN_ASCENT * size), max(descent, MIN_DESCENT * size)))
    width = max(line.width_pt for line in lines)
    height = sum(line.ascent_pt + line.descent_pt for line in lines)
    height += sum(_gap(line) for line in lines[:-1])
    return TextBlock(tuple(lines), width, height)


def _gap(line: Line) -> float:
    return LINE_GAP * (line.ascent_pt + line.descent_pt)


def _path_d(path) -> str:
    """A matplotlib Path (pt, y up, baseline at 0) -> SVG ``d`` (y down)."""
    from matplotlib.path import Path as MplPath

    out = []
    for verts, code in path.iter_segments(simplify=False, curves=True):
        pts = " ".join(f"{fmt(verts[i])} {fmt(-verts[i + 1])}" for i in range(0, len(verts), 2))
        if code == MplPath.MOVETO:
            out.append("M" + pts)
        elif code == MplPath.LINETO:
            out.append("L" + pts)
        elif code == MplPath.CURVE3:
            out.append("Q" + pts)
        elif code == MplPath.CURVE4:
            out.append("C" + pts)
        elif code == MplPath.CLOSEPOLY:
            out.append("Z")
    return "".join(out)


def _translate_d(d: str, dx: float, dy: float) -> str:
    """Shift every absolute coordinate pair of a ``d`` made by :func:`_path_d`."""
    import re

    def shift(match: "re.Match[str]") -> str:
        return f"{fmt(float(match.group(1)) + dx)} {fmt(float(match.group(2)) + dy)}"

    return re.sub(r"(-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?)", shift, d)
