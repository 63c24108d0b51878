"""Read a composed SVG as what it draws: texts, strokes, rasters and colours at final size.

:func:`scene` walks the SVG tree the way a renderer does, accumulating every
transform from the root (whose user unit is 1 pt, see :mod:`composer.units`)
down to each drawn element, resolving ``<use>`` references and the cascade of
presentation attributes, ``<style>`` rules (:mod:`composer.svg.css`: cssselect2,
matched in the document tree as renderers match them) and inline ``style``. What it
returns is measured in canvas pt, so a 7 pt tick label in a panel that was
scaled by 0.6 to fit its box is a 4.2 pt text here.

How sizes are read:

- matplotlib text (``svg.fonttype = "path"``): each glyph is a ``<use>`` of a
  glyph outline under ``<g transform="translate(x y) scale(s -s)">``; glyph
  outlines are in 1/100 of the font size, so the nominal font size is
  ``100 x`` the uniform scale of that group's accumulated transform.
  Mathtext sub- and superscripts are drawn at 70 % of it inside the same run
  (TeX's script style) and count as the run's nominal size.
- canvas text drawn by composer (outlines, :func:`composer.stages.draw.text_element`)
  carries its nominal size as ``data-font-size``.
- ``<text>`` elements of imported SVGs: their computed ``font-size``; their
  extent is estimated (0.6 em per character), as no font metrics are at hand.
- stroke widths: the computed ``stroke-width`` (any unit, ``em`` of the font size, a percentage
  of the viewport's diagonal: :func:`stroke_width_px`) times the least scale of the accumulated
  transform in any direction (:func:`thinnest_scale`: a stroke under ``scale(1 0.1)`` is drawn 0.1
  as wide where it runs along x; ``vector-effect: non-scaling-stroke`` is honoured), painted in any
  colour syntax the engine reads (:func:`paint`: ``rgb(0%,0%,0%)``, ``rgba()``, ``hsl()``, names,
  ``currentColor`` of the element's ``color``); a stroke of alpha 0 draws nothing and is not counted.
- rasters: the pixel size of the image in the data URI against the size it
  is drawn at.

The uniform scale of an affine map is sqrt(|det|), exact for the rotations and
uniform scales composer and matplotlib write.

Rotated text (a tick label at 45 degrees: ``translate(x y) rotate(-45)
scale(s -s)``) has an axis-aligned extent much larger than its ink, so each
:class:`TextRun` also keeps the box of its ink in the run's own frame (the
glyph run's accumulated transform) and that frame: :attr:`TextRun.corners` is
the oriented rectangle on the canvas, which the check tests for overlap with
the separating axis theorem.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from functools import cache, lru_cache

import cssselect2
from lxml import etree

from composer.svg import css
from composer.svg.geometry import BBox, flatten_bezier, map_bbox, points_bbox, union
from composer.svg.ids import SEPARATOR, original_id
from composer.svg.images import ImageUnreadable, drawn_box, inline_image, ppi
from composer.svg.io import SVG_NS, href, parse_svg
from composer.svg.transform import IDENTITY, Matrix, apply, multiply, parse_transform, scale_of, translation
from composer.svg.viewbox import view_box
from composer.units import length_px

__all__ = ["BBox", "ColourUse", "Raster", "Scene", "Stroke", "TextRun", "blend_on_white", "font_size_px", "glyph_char",
           "glyph_font", "paint", "parse_colour", "path_points", "scene", "shape_points", "stroke_width_px",
           "thinnest_scale"]

#: elements that are never drawn where they stand (only through a reference)
_NOT_DRAWN = {"defs", "clipPath", "mask", "marker", "symbol", "pattern", "linearGradient", "radialGradient",
              "filter", "metadata", "title", "desc", "style", "script", "font", "font-face"}
_SHAPES = {"path", "line", "polyline", "polygon", "rect", "circle", "ellipse"}
_INHERITED = {"stroke", "stroke-width", "stroke-opacity", "fill", "fill-opacity", "font-size", "visibility",
              "font-family", "font-weight", "font-style", "text-anchor", "color"}
_PROPS = _INHERITED | {"opacity", "display", "vector-effect", "font"}
#: matplotlib glyph ids: "<PostScript name>-<glyph index in hex>", e.g. DejaVuSans-13, DejaVuSans-Oblique-5b
_GLYPH_ID = re.compile(r"^([A-Za-z][\w]*(?:-[A-Za-z][\w]*)*)-([0-9a-f]+)$")
MAX_USE_DEPTH = 16


@dataclass
class TextRun:
    """One piece of text as drawn.

    Attributes:
        top: id of the canvas element it belongs to (``panel-rgb``, ``text-title``).
        element: id of the text itself (``rgb--text_3``, ``label-a``).
        size_pt: nominal font size at final size.
        bbox: ink extent in canvas pt (outlines: the hull of their control points).
        glyphs: matplotlib glyph ids, to recover the string; empty for canvas text.
        label: the string when known (canvas text's ``aria-label``, ``<text>`` content).
        estimated: True when the extent is a guess (``<text>`` elements).
        frame: the run's own coordinate frame -> canvas pt (for matplotlib glyphs, the
            accumulated transform of the glyph run's group, rotation included).
        local: the ink extent in ``frame`` units (None: unknown, use ``bbox``).
    """

    top: str
    element: str
    size_pt: float
    bbox: BBox
    glyphs: list[str] = field(default_factory=list)
    label: str | None = None
    estimated: bool = False
    frame: Matrix = IDENTITY
    local: BBox | None = None

    @property
    def corners(self) -> list[tuple[float, float]]:
        """The oriented rectangle around the ink, four canvas points (pt) in order around it:
        ``local`` mapped by ``frame``. For unrotated text it is ``bbox``; for rotated text it
        is the rotated rectangle, whose axis-aligned extent is larger than the ink."""
        if self.local is None or self.local[0] > self.local[2]:
            x0, y0, x1, y1 = self.bbox
            return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        x0, y0, x1, y1 = self.local
        return [apply(self.frame, x, y) for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]

    @property
    def text(self) -> str:
        """The string drawn: the label, else the glyphs mapped back to characters."""
        if self.label is not None:
            return self.label
        return "".join(glyph_char(g) for g in self.glyphs)


@dataclass(frozen=True)
class Stroke:
    """A stroked element: its canvas element, its own id (or tag) and its width at final size (pt)."""

    top: str
    element: str
    width_pt: float
    #: its outline's extent in canvas pt (stroke excluded), known inside an imported file's viewport only
    bbox: BBox | None = None


@dataclass(frozen=True)
class Raster:
    """An embedded image: its pixel size and its drawn size and extent (pt)."""

    top: str
    element: str
    width_px: int
    height_px: int
    width_pt: float
    height_pt: float
    bbox: BBox

    @property
    def ppi(self) -> float:
        """Pixels per inch at final size, the smaller of the two axes (:func:`composer.svg.images.ppi`;
        only for a raster drawn at a positive size)."""
        return ppi(self.width_px, self.height_px, self.width_pt, self.height_pt)


@dataclass(frozen=True)
class ColourUse:
    """One colour painted by an element.

    Attributes:
        colour: ``#rrggbb`` as seen on a white page (blended by its opacity).
        artist: the group that owns it (a matplotlib artist id such as
            ``rgb--line2d_3``, or the canvas element id); a group with many
            colours is a colour map, not a palette.
        text: painted as the colour of text.
        bbox: the painting shape's extent in canvas pt, known inside an imported file's viewport only
            (None: not needed, kept).
    """

    top: str
    artist: str
    colour: str
    text: bool = False
    bbox: BBox | None = None


@dataclass
class Scene:
    """Everything :func:`scene` found, in document order.

    Attributes:
        width_pt, height_pt: the canvas (root viewBox) size.
        panel_scale: panel name -> uniform scale its group is drawn at (1 for
            matplotlib panels, the fit for imported SVGs).
        notes: things the walk could not measure (unsupported CSS, external images).
    """

    width_pt: float
    height_pt: float
    texts: list[TextRun] = field(default_factory=list)
    strokes: list[Stroke] = field(default_factory=list)
    rasters: list[Raster] = field(default_factory=list)
    colours: list[ColourUse] = field(default_factory=list)
    panel_scale: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


# ─── path data ────────────────────────────────────────────────────────────

_PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}


#: points a quadratic or cubic Bezier segment is flattened to (its end included)
CURVE_STEPS = 12


def path_points(d: str) -> list[list[tuple[float, float]]]:
    """Points along a path ``d``, absolute, one list per subpath.

    Lines contribute their end points; quadratic and cubic Bezier segments
    (``Q``, ``C``) are flattened to :data:`CURVE_STEPS` points on the curve, so
    consecutive points are short chords of the drawn line (an arc connector's
    control point, far off the curve, is not ink). Smooth curves (``S``,
    ``T``) contribute their control points (their hull contains the curve)
    and elliptical arcs their end points.
    """
    tokens = _PATH_TOKEN.findall(d or "")
    subpaths: list[list[tuple[float, float]]] = []
    current: list[tuple[float, float]] = []
    x = y = sx = sy = 0.0
    i, cmd = 0, ""
    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                x, y = sx, sy
                if current:
                    subpaths.append(current)
                current = []
                continue
        if not cmd or cmd in "Zz":
            i += 1
            continue
        n = _ARGS[cmd.upper()]
        try:
            v = [float(t) for t in tokens[i:i + n]]
        except ValueError:
            break
        if len(v) < n:
            break
        i += n
        rel = cmd.islower()
        up = cmd.upper()
        if up == "H":
            x = x + v[0] if rel else v[0]
            pts = [(x, y)]
        elif up == "V":
            y = y + v[0] if rel else v[0]
            pts = [(x, y)]
        elif up == "A":
            x, y = (x + v[5], y + v[6]) if rel else (v[5], v[6])
            pts = [(x, y)]
        else:
            pts = [(x + v[k], y + v[k + 1]) if rel else (v[k], v[k + 1]) for k in range(0, n, 2)]
            if up in ("Q", "C"):
                pts = flatten_bezier([(x, y), *pts], CURVE_STEPS)
            x, y = pts[-1]
        if up == "M":
            if current:
                subpaths.append(current)
            current = []
            sx, sy = x, y
            cmd = "l" if rel else "L"  # further pairs after M are line-tos
        current.extend(pts)
    if current:
        subpaths.append(current)
    return subpaths


def shape_points(el: etree._Element, tag: str) -> list[tuple[float, float]]:
    """The outline points of a basic shape or path, in its own user units."""
    def num(name: str, default: float = 0.0) -> float:
        try:
            return float(re.sub(r"[a-z%]+$", "", el.get(name, "") or "") or default)
        except ValueError:
            return default

    if tag == "path":
        return [p for sub in path_points(el.get("d", "")) for p in sub]
    if tag == "rect":
        x, y, w, h = num("x"), num("y"), num("width"), num("height")
        return [(x, y), (x + w, y + h)]
    if tag in ("circle", "ellipse"):
        cx, cy = num("cx"), num("cy")
        rx = num("r") if tag == "circle" else num("rx")
        ry = num("r") if tag == "circle" else num("ry")
        return [(cx - rx, cy - ry), (cx + rx, cy + ry)]
    if tag == "line":
        return [(num("x1"), num("y1")), (num("x2"), num("y2"))]
    values = [float(v) for v in re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", el.get("points", ""))]
    return list(zip(values[0::2], values[1::2]))


# ─── style cascade ────────────────────────────────────────────────────────

@lru_cache(maxsize=4096)
def _weighed_declarations(text: str) -> css.Declarations:
    """:func:`_declarations` with ``" !important"`` kept (:func:`composer.svg.css.weighed_declarations`)."""
    return tuple(d for d in css.weighed_declarations(text) if d[0] in _PROPS)


@lru_cache(maxsize=4096)
def _declarations(text: str) -> css.Declarations:
    """The declarations of a ``style`` attribute or rule body that the check reads (cached: panels
    repeat the same few style strings thousands of times)."""
    return tuple(d for d in css.declarations(text) if d[0] in _PROPS)


#: the font size (user units) an ``em`` of a length falls back to where no ``font-size`` is set (CSS's ``medium``)
MEDIUM_PX = 16.0


def _opacity(value: str | None) -> float:
    """An opacity property (``0.5``, ``50%``) clamped to [0, 1]; 1 for None or an unreadable value
    (which the engine ignores as well)."""
    if value is None:
        return 1.0
    value = value.strip()
    try:
        number = float(value[:-1]) / 100 if value.endswith("%") else float(value)
    except ValueError:
        return 1.0
    return min(max(number, 0.0), 1.0)


@lru_cache(maxsize=4096)
def paint(value: str | None, current: str | None = None) -> tuple[str, float] | None:
    """A paint or colour as the engine reads it -> ``("#rrggbb", alpha)``; None when it paints nothing.

    Every syntax of CSS Color 4 that has an sRGB value, parsed by tinycss2 (``tinycss2.color4``): names
    (``red``, ``RebeccaPurple``), ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``/``rgba()``
    with numbers or percentages (``rgb(0%,0%,0%)``, as pdftocairo writes every colour of a PDF page),
    comma or space separated with ``/ alpha``, ``hsl()``/``hsla()``, ``hwb()``, ``transparent`` (alpha 0).
    ``currentColor`` (any case) is ``current``, the element's ``color`` (itself any of the above; black
    when unset, as for the engine). A paint server ``url(#id)`` with a fallback colour is that colour,
    without one None (a gradient is not one colour); so are ``none``, ``inherit`` left unresolved and
    anything unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.startswith("url("):
        fallback = value[value.find(")") + 1:].strip()
        return paint(fallback, current) if fallback else None
    if value.lower() in ("none", "", "inherit", "context-fill", "context-stroke"):
        return None
    from tinycss2 import color4

    try:
        parsed = color4.parse_color(value)
    except (ValueError, TypeError):
        return None
    if parsed is None:
        return None
    if isinstance(parsed, str):  # "currentcolor"
        return paint(current or "black") if (current or "black").strip().lower() != "currentcolor" else None
    try:
        rgb = parsed.to("srgb").coordinates
    except (NotImplementedError, ValueError):  # lab(), color(display-p3 ...): not drawn by the engine either
        return None
    channels = [min(max(float(c), 0.0), 1.0) if c == c else 0.0 for c in rgb]  # a NaN hue channel is 0
    alpha = min(max(float(parsed.alpha), 0.0), 1.0) if parsed.alpha == parsed.alpha else 1.0
    return "#" + "".join(f"{round(c * 255):02x}" for c in channels), alpha


@lru_cache(maxsize=4096)
def parse_colour(value: str | None) -> str | None:
    """A CSS colour -> ``#rrggbb`` (its alpha left out: :func:`paint` keeps it); None for ``none``,
    gradients, ``transparent`` and unknown values."""
    found = paint(value)
    return found[0] if found is not None and found[1] > 0 else None


@lru_cache(maxsize=4096)
def blend_on_white(colour: str, alpha: float) -> str:
    """``colour`` painted at ``alpha`` over white, as ``#rrggbb``."""
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(alpha * c + (1 - alpha) * 255):02x}" for c in rgb)


def _painted(style: dict[str, str], prop: str, default: str | None, alpha: float) -> str | None:
    """The colour ``prop`` (``fill``, ``stroke``) paints as it looks on white (``#rrggbb``: its own alpha,
    ``PROP-opacity`` and the group opacity ``alpha``), or None when it paints nothing: no paint, a
    gradient, or an alpha of 0 (``transparent``, ``stroke-opacity: 0``, ``rgba(0,0,0,0)``)."""
    found = paint(style.get(prop, default), style.get("color"))
    if found is None:
        return None
    colour, own = found
    total = own * _opacity(style.get(f"{prop}-opacity")) * alpha
    return blend_on_white(colour, total) if total > 0 else None


#: CSS absolute-size keywords (CSS Fonts 4, 2.5: the scaling factors of ``medium``)
_FONT_KEYWORDS = {"xx-small": 3 / 5, "x-small": 3 / 4, "small": 8 / 9, "medium": 1.0, "large": 6 / 5,
                  "x-large": 3 / 2, "xx-large": 2.0, "xxx-large": 3.0}
#: the ratio of ``larger``/``smaller`` (CSS Fonts 4 leaves it to the user agent; usvg and browsers take 1.2)
RELATIVE_SIZE_RATIO = 1.2
_LENGTH = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-zA-Z%]*)\s*")


@lru_cache(maxsize=4096)
def font_size_px(value: str | None, parent_px: float = MEDIUM_PX) -> float:
    """A ``font-size`` in user units (CSS px): absolute lengths (``7pt``, ``3mm``, ``12``), ``em``,
    ``ex`` (half an em) and percentages of the parent's size ``parent_px``, ``rem`` of
    :data:`MEDIUM_PX`, the keywords (``small``...: CSS Fonts 4) and ``larger``/``smaller``; an unreadable
    or negative value is the parent's size (the engine ignores it too)."""
    if value is None:
        return parent_px
    text = value.strip().lower()
    if text in _FONT_KEYWORDS:
        return MEDIUM_PX * _FONT_KEYWORDS[text]
    if text in ("larger", "smaller"):
        return parent_px * RELATIVE_SIZE_RATIO if text == "larger" else parent_px / RELATIVE_SIZE_RATIO
    size = _relative_length(text, parent_px, parent_px)
    return size if size is not None and size >= 0 else parent_px


@lru_cache(maxsize=1024)
def _font_shorthand(value: str) -> dict[str, str]:
    """The longhands a ``font`` shorthand sets (CSS Fonts 4, 2.8: ``[style] [variant] [weight] [stretch]
    size[/line-height] family``): ``font-size``, ``font-family``, ``font-style``, ``font-weight``; {} when it
    names no size (a system font such as ``caption``, or not a font), as the engine then ignores it."""
    words = value.replace("/", " / ").split()
    for i, word in enumerate(words):
        lower = word.lower()
        if lower in _FONT_KEYWORDS or lower in ("larger", "smaller") or (
                _LENGTH.fullmatch(lower) and not lower.replace(".", "", 1).isdigit()):
            out = {"font-size": word}
            rest = words[i + 1:]
            if rest[:1] == ["/"]:
                rest = rest[2:]
            if rest:
                out["font-family"] = " ".join(rest)
            for before in words[:i]:
                b = before.lower()
                if b in ("italic", "oblique"):
                    out["font-style"] = b
                elif b in ("bold", "bolder", "lighter") or b.isdigit():
                    out["font-weight"] = b
            return out
    return {}


def _relative_length(text: str, em_px: float, percent_of_px: float) -> float | None:
    """A length in user units: absolute units (:data:`composer.units.PX_PER_UNIT`), ``em``/``ex`` of
    ``em_px``, ``rem`` of :data:`MEDIUM_PX`, ``%`` of ``percent_of_px``; None when unreadable."""
    m = _LENGTH.fullmatch(text)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2).lower()
    if unit == "%":
        return number / 100 * percent_of_px
    if unit in ("em", "ex", "rem"):
        return number * {"em": em_px, "ex": em_px / 2, "rem": MEDIUM_PX}[unit]
    from composer.units import PX_PER_UNIT

    return number * PX_PER_UNIT[unit] if unit in PX_PER_UNIT else None


@lru_cache(maxsize=4096)
def stroke_width_px(value: str | None, font_px: float = MEDIUM_PX, viewport: tuple[float, float] = (0.0, 0.0)
                    ) -> float:
    """A ``stroke-width`` in user units: every absolute unit, ``em``/``ex`` of the element's font size
    ``font_px``, a percentage of the normalized diagonal of ``viewport`` (its width and height in user
    units: sqrt((w² + h²) / 2), SVG 1.1, 7.10); 1 when unset, unreadable or negative (the initial
    value, as the engine takes it)."""
    if value is None:
        return 1.0
    diagonal = math.sqrt((viewport[0] ** 2 + viewport[1] ** 2) / 2)
    width = _relative_length(value.strip(), font_px, diagonal)
    return width if width is not None and width >= 0 else 1.0


def thinnest_scale(m: Matrix) -> float:
    """The least a map ``m`` scales a length in any direction: its smaller singular value. A stroke
    drawn under ``m`` is that much as wide where it is thinnest (a ``scale(1 0.1)`` draws a 1 pt
    horizontal line 0.1 pt wide); for rotations and uniform scales it is :func:`scale_of`."""
    a, b, c, d = m[0], m[1], m[2], m[3]
    total = a * a + b * b + c * c + d * d
    det = a * d - b * c
    return math.sqrt(max(total - math.sqrt(max(total * total - 4 * det * det, 0.0)), 0.0) / 2)


def _viewport(el: etree._Element) -> tuple[float, float]:
    """The width and height (user units) of the viewport ``el`` is drawn in: the viewBox (else
    ``width``/``height``) of its nearest ``<svg>`` ancestor; (0, 0) when unknown."""
    for up in el.iterancestors(f"{{{SVG_NS}}}svg"):
        box = (up.get("viewBox") or "").replace(",", " ").split()
        if len(box) == 4:
            try:
                return float(box[2]), float(box[3])
            except ValueError:
                pass
        return length_px(up.get("width")), length_px(up.get("height"))
    return 0.0, 0.0


# ─── glyph names ──────────────────────────────────────────────────────────

@lru_cache(maxsize=1)
def _fonts_by_postscript_name() -> dict[str, str]:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    found: dict[str, str] = {}
    for entry in font_manager.fontManager.ttflist:
        try:
            found.setdefault(FT2Font(entry.fname).postscript_name, entry.fname)
        except (OSError, RuntimeError, ValueError):
            continue
    return found


@cache
def _glyph_chars(postscript_name: str) -> dict[int, str]:
    from matplotlib.ft2font import FT2Font

    path = _fonts_by_postscript_name().get(postscript_name)
    if path is None:
        return {}
    chars: dict[int, str] = {}
    for code, index in sorted(FT2Font(path).get_charmap().items()):
        chars.setdefault(index, chr(code))
    return chars


def glyph_char(glyph_id: str) -> str:
    """``"rgb--DejaVuSans-13"`` -> ``"0"`` (matplotlib names glyphs by font and glyph index); ``"?"`` if unknown."""
    m = _GLYPH_ID.match(original_id(glyph_id))
    if not m:
        return "?"
    return _glyph_chars(m.group(1)).get(int(m.group(2), 16), "?")


def glyph_font(glyph_id: str) -> str | None:
    """The PostScript name of the font a matplotlib glyph id comes from (``DejaVuSans-Bold``)."""
    m = _GLYPH_ID.match(original_id(glyph_id))
    return m.group(1) if m else None


# ─── the walk ─────────────────────────────────────────────────────────────

class _Walker:
    def __init__(self, root: etree._Element, result: Scene):
        self.root, self.out = root, result
        self.ids = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
        sheet = css.StyleSheet(root, _weighed_declarations)
        result.notes.extend(f"{note} by the check" for note in sheet.notes)
        #: the declarations of the <style> rules that apply to each element, lowest precedence first
        #: (matched in the document tree, as renderers do: content drawn through a <use> is styled where
        #: it is defined), ``!important`` kept for the cascade with the element's ``style``
        self.rule_styles: dict[etree._Element, list[css.Declarations]] = {}
        if sheet:
            for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
                found = sheet.matched(wrapper)
                if found:
                    self.rule_styles[wrapper.etree_element] = found
        self.glyph_boxes: dict[str, BBox | None] = {}
        self.runs: dict[etree._Element, TextRun] = {}  # keyed by the element: keeps lxml's proxy alive
        self.cuts = 0  # how many nested viewports (imported files) the walk is inside

    def walk(self, el: etree._Element, m: Matrix, inherited: dict[str, str], alpha: float, top: str,
             depth: int = 0, artist: str = "", via_use: bool = False) -> None:
        """Visit ``el`` drawn under map ``m`` with inherited style and opacity.

        ``artist`` is the nearest panel-prefixed id above (a matplotlib artist
        such as ``rgb--line2d_3``); content reached through ``<use>`` keeps the
        artist of the ``<use>``, not the id of the shared definition.
        """
        if not isinstance(el.tag, str):
            return
        tag = etree.QName(el).localname
        own = self._own_style(el)
        if own.get("display", "").strip() == "none":
            return
        if "font" in own:  # the shorthand sets the longhands it names (CSS Fonts 4, 2.8); later ones win
            own = {**_font_shorthand(own["font"]), **{k: v for k, v in own.items() if k != "font"}}
        style = {**inherited, **{k: v for k, v in own.items() if k in _INHERITED and v.strip().lower() != "inherit"}}
        if "font-size" in own:  # computed here, so an em or a percentage is of the parent's size
            style["font-size"] = repr(font_size_px(own["font-size"], font_size_px(inherited.get("font-size"))))
        alpha *= _opacity(own.get("opacity"))
        before = m
        m = multiply(m, parse_transform(el.get("transform")))
        el_id = el.get("id")
        if el_id and SEPARATOR in el_id and not via_use:
            artist = el_id
        if tag == "use":
            self._use(el, before, m, style, alpha, top, depth, artist or top)
            return
        # composer's own canvas text, known by its data-font-size: an aria-label alone is any element's
        # accessible name (a panel's alt text, a Vega-Lite mark), whose content is drawn and measured
        if el.get("data-font-size") is not None and el.get("aria-label") is not None and tag in ("path", "g"):
            self._canvas_text(el, m, style, alpha, top)
            return
        if tag in _SHAPES:
            self._shape(el, tag, m, style, own, alpha, top, artist or top)
        elif tag == "image":
            self._image(el, m, top)
        elif tag in ("text", "tspan"):
            self._text(el, m, style, top)
        cut = self._viewport_box(el, m) if tag == "svg" and el is not self.root else None
        out = self.out
        counts = len(out.texts), len(out.rasters), len(out.strokes), len(out.colours)
        self.cuts += cut is not None
        for child in el:
            if isinstance(child.tag, str) and etree.QName(child).localname in _NOT_DRAWN:
                continue
            self.walk(child, m, style, alpha, top, depth, artist, via_use)
        if cut is not None:  # a nested viewport cuts what lies outside it: what lies wholly outside is not drawn
            self.cuts -= 1
            t, r, s, c = counts
            out.texts[t:] = [x for x in out.texts[t:] if _meets_box(x.bbox, cut)]
            out.rasters[r:] = [x for x in out.rasters[r:] if _meets_box(x.bbox, cut)]
            out.strokes[s:] = [x for x in out.strokes[s:] if x.bbox is None or _meets_box(x.bbox, cut)]
            out.colours[c:] = [x for x in out.colours[c:] if x.bbox is None or _meets_box(x.bbox, cut)]

    def _viewport_box(self, el: etree._Element, m: Matrix) -> BBox | None:
        """The canvas box a nested ``<svg>`` cuts its content at: its ``x``, ``y``, ``width``, ``height``
        (user units of its parent; an imported file's viewport, :func:`composer.svg.viewbox.place`, whose own
        map is the identity) mapped by ``m``; None when a length is not a plain number or the viewport is
        left uncut (``overflow: visible``)."""
        if (el.get("overflow") or self._own_style(el).get("overflow", "")).strip() in ("visible", "auto"):
            return None
        try:
            x, y = float(el.get("x", "0")), float(el.get("y", "0"))
            width, height = float(el.get("width", "")), float(el.get("height", ""))
        except ValueError:
            return None
        return points_bbox([apply(m, px, py) for px in (x, x + width) for py in (y, y + height)])

    def _own_style(self, el: etree._Element) -> dict[str, str]:
        """Presentation attributes, then matching ``<style>`` rules, then inline ``style``, then the rules'
        ``!important`` declarations, then the ``style``'s (CSS Cascade 4, 6.4: :func:`composer.svg.css.cascade`)."""
        style = {name: el.get(name) for name in _PROPS if el.get(name) is not None}
        rules = self.rule_styles.get(el)
        inline = el.get("style")
        if rules:
            style.update((k, v) for k, (v, _) in css.cascade(rules, inline or "").items() if k in _PROPS)
        elif inline:
            style.update(_declarations(inline))
        return style

    def _use(self, el, parent_m, m, style, alpha, top, depth, artist) -> None:
        ref = href(el)
        target = self.ids.get(ref[1:]) if ref.startswith("#") else None
        if target is None or depth >= MAX_USE_DEPTH:
            return
        is_glyph = (_GLYPH_ID.match(original_id(ref[1:])) is not None and el.get("x") is None
                    and el.get("y") is None and (parent_m[0] * parent_m[3] - parent_m[1] * parent_m[2]) < 0)
        if is_glyph:
            self._glyph(el, ref[1:], target, m, parent_m, top, style, alpha)
            return
        shift = translation(length_px(el.get("x")), length_px(el.get("y")))
        self.walk(target, multiply(m, shift), style, alpha, top, depth + 1, artist, True)

    def _glyph(self, el, glyph_id, target, m, parent_m, top, style, alpha) -> None:
        if glyph_id not in self.glyph_boxes:
            pts = [p for sub in path_points(target.get("d", "")) for p in sub]
            box = points_bbox(pts)
            self.glyph_boxes[glyph_id] = map_bbox(parse_transform(target.get("transform")), box) if box else None
        box = self.glyph_boxes[glyph_id]
        parent = el.getparent()
        run = self.runs.get(parent)
        if run is None:
            owner = parent
            while owner is not None and not re.search(r"(^|--)text_\d+$", owner.get("id") or ""):
                owner = owner.getparent()
            element = owner.get("id") if owner is not None else (parent.get("id") or "text")
            run = TextRun(top=top, element=element, size_pt=100.0 * scale_of(parent_m), bbox=(math.inf, math.inf,
                          -math.inf, -math.inf), frame=parent_m)
            self.runs[parent] = run
            self.out.texts.append(run)
        run.glyphs.append(glyph_id)
        if box is not None:
            run.bbox = union((run.bbox, map_bbox(m, box)))
            # the glyph in the run's frame: its <use> transform only (a translate along the baseline)
            in_run = map_bbox(parse_transform(el.get("transform")), box)
            run.local = in_run if run.local is None else union((run.local, in_run))
        fill = _painted(style, "fill", "black", alpha)
        if fill:
            self.out.colours.append(ColourUse(top, run.element, fill, text=True))

    def _canvas_text(self, el, m, style, alpha, top) -> None:
        """Text drawn by composer: outline ``<path>``s (one, or a ``<g>`` of one per colour span)
        with the string in ``aria-label`` and the nominal size in ``data-font-size``."""
        pts: list[tuple[float, float]] = []
        own: list[tuple[float, float]] = []  # in el's frame
        paths = [el] if etree.QName(el).localname == "path" else list(el.iter(f"{{{SVG_NS}}}path"))
        for path in paths:
            pm = IDENTITY if path is el else parse_transform(path.get("transform"))
            local = [apply(pm, *p) for sub in path_points(path.get("d", "")) for p in sub]
            own += local
            pts += [apply(m, *p) for p in local]
            own_paint = {k: v for k in ("fill", "fill-opacity") if (v := path.get(k)) is not None}
            fill = _painted({**style, **own_paint}, "fill", "black", alpha)
            if fill:
                self.out.colours.append(ColourUse(top, el.get("id") or top, fill, text=True))
        try:
            size = float(el.get("data-font-size", "nan")) * scale_of(m)
        except ValueError:
            size = math.nan
        self.out.texts.append(TextRun(top=top, element=el.get("id") or top, size_pt=size,
                                      bbox=points_bbox(pts) or (math.inf, math.inf, -math.inf, -math.inf),
                                      label=el.get("aria-label"), frame=m, local=points_bbox(own)))

    def _shape(self, el, tag, m, style, own, alpha, top, artist) -> None:
        # inside a nested viewport, where the box tells whether the shape is drawn at all (self.cuts)
        box = points_bbox([apply(m, *p) for p in shape_points(el, tag)]) if self.cuts else None
        fill = _painted(style, "fill", "black", alpha)
        if fill:
            self.out.colours.append(ColourUse(top, artist or top, fill, bbox=box))
        stroke = _painted(style, "stroke", None, alpha)
        given = style.get("stroke-width")
        width = stroke_width_px(given, font_size_px(style.get("font-size")),
                                _viewport(el) if given is not None and "%" in given else (0.0, 0.0))
        if stroke and width > 0:
            scale = 1.0 if own.get("vector-effect", "").strip() == "non-scaling-stroke" else thinnest_scale(m)
            self.out.strokes.append(Stroke(top, el.get("id") or artist or tag, width * scale, bbox=box))
            self.out.colours.append(ColourUse(top, artist or top, stroke, bbox=box))

    def _image(self, el, m, top) -> None:
        try:
            image = inline_image(el)
        except ImageUnreadable as why:
            self.out.notes.append(f"image {el.get('id') or ''} in {top} {why}; not measured")
            return
        width_pt, height_pt, box = drawn_box(el, m, image)
        self.out.rasters.append(Raster(top, el.get("id") or "image", image.width_px, image.height_px,
                                       width_pt, height_pt, box))

    def _text(self, el, m, style, top) -> None:
        content = (el.text or "").strip()
        if not content:
            return
        size_user = font_size_px(style.get("font-size"))
        x = length_px((el.get("x") or "0").split()[0] if el.get("x") else None)
        y = length_px((el.get("y") or "0").split()[0] if el.get("y") else None)
        if el.get("x") is None and el.getparent() is not None:
            x = length_px((el.getparent().get("x") or "0").split()[0])
        if el.get("y") is None and el.getparent() is not None:
            y = length_px((el.getparent().get("y") or "0").split()[0])
        # the anchor and font as the cascade gives them (attribute < <style> rules < style, inherited)
        anchor = (style.get("text-anchor") or "start").strip()
        extent = text_extent(content, style.get("font-family", "sans-serif"), style.get("font-weight", "normal"),
                             style.get("font-style", "normal"), size_user)
        width, ascent, descent = extent or (0.6 * size_user * len(content), 0.8 * size_user, 0.2 * size_user)
        x0 = x - width / 2 if anchor == "middle" else x - width if anchor == "end" else x
        local = (x0, y - ascent, x0 + width, y + descent)
        self.out.texts.append(TextRun(top=top, element=el.get("id") or "text", size_pt=size_user * scale_of(m),
                                      bbox=map_bbox(m, local), label=content, estimated=extent is None, frame=m,
                                      local=local))
        fill = _painted(style, "fill", "black", 1.0)
        if fill:
            self.out.colours.append(ColourUse(top, el.get("id") or top, fill, text=True))


def _meets_box(a: BBox, b: BBox) -> bool:
    """Whether box ``a`` shares any point with box ``b`` (an empty or unknown ``a``, inf..-inf, does: kept)."""
    if a[0] > a[2] or a[1] > a[3]:
        return True
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


def scene(svg: bytes) -> Scene:
    """Measure a composed canvas (see the module docstring).

    Args:
        svg: the SVG document's bytes, root viewBox in pt.

    Returns:
        A :class:`Scene`; every length in canvas pt.

    Raises:
        SvgError: not a parseable SVG (see :func:`composer.svg.io.parse_svg`), or without a usable
            viewBox or size (:func:`composer.svg.viewbox.view_box`).
    """
    root = parse_svg(svg, source="composed figure")
    vb = view_box(root, source="composed figure")
    result = Scene(width_pt=vb.width, height_pt=vb.height)
    walker = _Walker(root, result)
    base = translation(-vb.x, -vb.y)
    for child in root:
        if not isinstance(child.tag, str) or etree.QName(child).localname in _NOT_DRAWN:
            continue
        top = child.get("id") or etree.QName(child).localname
        if top.startswith("panel-"):
            result.panel_scale[top[len("panel-"):]] = scale_of(parse_transform(child.get("transform")))
        walker.walk(child, base, {}, 1.0, top)
    return result


def is_glyph_definition(el: etree._Element) -> bool:
    """Whether ``el`` is a glyph outline as matplotlib (``svg.fonttype = "path"``) defines one: a
    ``<path>`` whose id names a font and a glyph index (``DejaVuSans-30``, ``STIXGeneral-Italic-3bb``).
    Such an id is derived from the content, and :func:`glyph_char` reads the character from it."""
    return (isinstance(el.tag, str) and etree.QName(el).localname == "path"
            and _GLYPH_ID.match(el.get("id") or "") is not None)


@lru_cache(maxsize=4096)
def text_extent(text: str, family: str, weight: str, style: str, size: float) -> tuple[float, float, float] | None:
    """``(width, ascent, descent)`` of ``text`` laid out by matplotlib in the font a ``<text>`` names
    (its ``font-family`` list: the first family matplotlib has; ``font-weight``, ``font-style``),
    at ``size`` user units, in user units; None when matplotlib has none of the families (the
    caller then estimates: 0.6 em a character). Width, height above the baseline and descent as
    matplotlib's ``text_to_path`` lays the string out (kerning on), as composer measures its own text."""
    from matplotlib import font_manager
    from matplotlib.textpath import text_to_path

    families = [f.strip().strip("'\"") for f in family.split(",") if f.strip().strip("'\"")] or ["sans-serif"]
    bold = weight.strip() in ("bold", "bolder") or (weight.strip().isdigit() and int(weight) >= 550)
    slant = style.strip() if style.strip() in ("italic", "oblique") else "normal"
    prop = font_manager.FontProperties(family=families, weight="bold" if bold else "normal",
                                       style=slant, size=size)  # type: ignore[arg-type]  # one of STYLES
    try:
        font_manager.findfont(prop, fallback_to_default=False)
    except ValueError:
        return None
    shown = text.replace("$", r"\$")  # plain text, not mathtext
    with warnings.catch_warnings():  # a character the font lacks is said once per file, in composer's voice
        # (composer.text.fonts.check_missing_glyphs), not as matplotlib's UserWarning pointing here
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        width, height, descent = text_to_path.get_text_width_height_descent(shown, prop, ismath=False)
    return float(width), float(height - descent), float(descent)
