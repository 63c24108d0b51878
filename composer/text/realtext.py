"""Real text for the PDF: the glyph outlines of the composed canvas written back as ``<text>``.

The SVG and the PNG draw every glyph as an outline (``[figure] text = "selectable"``, the default, and
``"paths"``): the same glyphs in every viewer. A PDF is read as well as seen (selected, searched, read
aloud, checked by a journal's production system), so under ``"selectable"`` the document handed to the
PDF engine has each outlined glyph replaced by a character of a ``<text>`` at the very place, size and
font of the outline: usvg draws it from that font file and svg2pdf/krilla embeds the font as a subsetted
CID TrueType font (``/CIDFontType2``, ``/FontFile2``) with a ``ToUnicode`` map, never Type 3
(docs/design.md, "Real text in the PDF", with the measurements).

Two sources of outlined glyphs, both written into one form (:class:`Glyph`):

- matplotlib's text in render panels and guides: under ``svg.fonttype = "path"`` each text is a ``<g>``
  scaled ``scale(s -s)`` (``s`` = size / 100) holding one ``<use>`` per glyph, whose target's id is
  ``<PostScript name>-<glyph index in hex>`` (:func:`composer.svg.measure.glyph_font`) and whose
  ``transform`` is ``translate(x y)`` (``scale(k)`` for mathtext's smaller glyphs): :func:`panel_text`.
- composer's canvas text (labels, titles, ``[[text]]``, shape and arrow texts): typeset by
  :mod:`composer.text.metrics`, which lists each glyph it outlines with matplotlib's own layout
  (:func:`composer.mpl.internals.glyph_layout`); :func:`composer.stages.draw.text_element` notes them
  on the element (:data:`GLYPHS_ATTR`, never written to a file) and :func:`canvas_text` replaces it.

A glyph becomes a character only when drawing that character from that font gives back that glyph
(:func:`character_of`): the font's character map sends the character to the glyph, and the glyph's
PostScript name (when it has a standard one) names the same character, so text extraction reads what
the glyph shows. So Computer Modern's math glyphs (``mathtext.fontset = "cm"``: matplotlib's BaKoMa
fonts map TeX's own encodings, ``\\alpha`` at U+00AE), private-use code points (STIX's non-Unicode
fonts) and glyphs no character reaches stay outlines: a text holding one is left whole as outlines (its
string is still in the ``aria-label`` of canvas text). A ligature (raqm's ``fi``) is written as its
characters with the x of the first: the engine's shaping forms the same ligature.

Every character gets its own x (and y), so each glyph is placed where matplotlib placed its outline
whatever the engine's own layout would do (kerning, rounding), as :mod:`composer.text.pin` pins
editable text. The font is named by family, weight, style and stretch, read from the file matplotlib
drew with; the file's path rides along as :data:`FONT_FILE_ATTR`, so the engine puts exactly those
files before every other font (:func:`composer.stages.export.resvg_engine.convert`): a system copy of
the same family in another version (DejaVu Sans 2.37 against matplotlib's 2.35) is not taken.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from lxml import etree

from composer.svg.io import svg_tag
from composer.svg.transform import parse_transform
from composer.units import fmt

#: the attribute :func:`composer.stages.draw.text_element` notes a canvas text's glyphs in (JSON: one
#: ``[font file, glyph index, characters, x_pt, y_pt, size_pt, fill, opacity]`` per glyph, on the canvas);
#: removed from every document composer writes (:func:`strip_notes`)
GLYPHS_ATTR = "data-composer-glyphs"
#: the attribute a real ``<text>`` names its font file in, for the PDF engine (ignored by renderers)
FONT_FILE_ATTR = "data-font-file"
#: the font size every real ``<text>`` is set at, in its own frame scaled to the glyphs' size (:func:`text_elements`)
_EM = 100.0

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_GLYPH_ID = re.compile(r"^(?:.*--)?([A-Za-z][\w]*(?:-[A-Za-z][\w]*)*)-([0-9a-f]+)$")


@dataclass(frozen=True)
class Glyph:
    """One outlined glyph, in the frame of the text it belongs to (pt there; y down).

    Attributes:
        font_file: the font file matplotlib drew it from.
        index: its glyph index in that file.
        chars: the characters it shows (one; several for a ligature).
        x_pt, y_pt: the start of its baseline.
        size_pt: the font size it is drawn at.
        fill: its colour (None: inherited from the element it is in).
        opacity: its fill opacity.
    """

    font_file: str
    index: int
    chars: str
    x_pt: float
    y_pt: float
    size_pt: float
    fill: str | None = None
    opacity: float = 1.0


@dataclass(frozen=True)
class Face:
    """How a ``<text>`` names a font file: CSS family, weight (100-900), style and stretch."""

    family: str
    weight: int
    style: str
    stretch: str


@cache
def face_of(font_file: str) -> Face | None:
    """The :class:`Face` of a font file matplotlib knows (its font list's entry), or None."""
    from matplotlib import font_manager

    for entry in font_manager.fontManager.ttflist:
        if entry.fname == font_file:
            weight = entry.weight if isinstance(entry.weight, int) else font_manager.weight_dict.get(entry.weight, 400)
            return Face(entry.name, int(weight), entry.style, entry.stretch if isinstance(entry.stretch, str)
                        else "normal")
    return None


@cache
def _charmap(font_file: str) -> dict[int, int]:
    from matplotlib.ft2font import FT2Font

    return dict(FT2Font(font_file).get_charmap())


@cache
def _font(font_file: str) -> Any:
    from matplotlib.ft2font import FT2Font

    return FT2Font(font_file)


def _private(char: str) -> bool:
    code = ord(char)
    return 0xE000 <= code <= 0xF8FF or code >= 0xF0000


@cache
def character_of(font_file: str, index: int, chars: str) -> bool:
    """True when ``chars`` drawn from ``font_file`` give back glyph ``index`` and name what it shows:
    one character the character map sends to the glyph (several: each in the map, a ligature the engine's
    shaping forms again), none in a private-use area, and the glyph's PostScript name, when it is a
    standard one (the Adobe Glyph List, ``uniXXXX``), naming the same characters."""
    from fontTools import agl

    if not chars or any(_private(c) or c in "\r\n\t" for c in chars):
        return False
    cmap = _charmap(font_file)
    if len(chars) == 1 and cmap.get(ord(chars)) != index:
        return False
    if len(chars) > 1 and any(ord(c) not in cmap for c in chars):
        return False
    try:
        name = _font(font_file).get_glyph_name(index)
    except (RuntimeError, ValueError):
        name = ""
    if not name or re.fullmatch(r"(gid|glyph|index)\d+", name):
        return True  # no names in the font: its character map alone says
    return unicodedata.normalize("NFKC", agl.toUnicode(name)) == unicodedata.normalize("NFKC", chars)


@cache
def _chars_by_glyph(font_file: str) -> dict[int, str]:
    """glyph index -> the lowest code point mapped to it (a glyph reached from several characters, as
    U+00B5 and U+03BC, gets the first); a ligature by its letters: reached from its presentation form
    (U+FB01 ``fi``) by its compatibility decomposition, reached from none by its PostScript name (``f_i``,
    ``fi``: the Adobe Glyph List's rule for ligature names)."""
    from fontTools import agl

    chars: dict[int, str] = {}
    cmap = _charmap(font_file)
    for code, index in sorted(cmap.items()):
        chars.setdefault(index, chr(code))
    for index, char in chars.items():  # a ligature's presentation form (U+FB01) read as its letters, as
        letters = unicodedata.normalize("NFKC", char)  # raqm's cluster gives them for canvas text
        if 0xFB00 <= ord(char) <= 0xFB4F and len(letters) > 1 and all(ord(c) in cmap for c in letters):
            chars[index] = letters
    font = _font(font_file)
    for index in range(getattr(font, "num_glyphs", 0)):
        if index in chars:
            continue
        try:
            named = unicodedata.normalize("NFKC", agl.toUnicode(font.get_glyph_name(index)))
        except (RuntimeError, ValueError):
            continue
        if len(named) > 1:
            chars[index] = named
    return chars


@cache
def _fonts_by_postscript_name() -> dict[str, tuple[str, ...]]:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    found: dict[str, list[str]] = {}
    for entry in font_manager.fontManager.ttflist:
        try:
            found.setdefault(FT2Font(entry.fname).postscript_name, []).append(entry.fname)
        except (OSError, RuntimeError, ValueError):
            continue
    return {name: tuple(files) for name, files in found.items()}


@cache
def font_file_of(postscript_name: str) -> str | None:
    """The font file matplotlib draws a glyph id's font from: among the files with that PostScript name,
    the one its font lookup finds for the file's own family, weight and style (matplotlib's copy of
    DejaVu Sans, not a system copy in another version); None when no file has the name."""
    from matplotlib import font_manager

    files = _fonts_by_postscript_name().get(postscript_name, ())
    if len(files) <= 1:
        return files[0] if files else None
    face = face_of(files[0])
    if face is not None:
        try:
            chosen = str(font_manager.findfont(font_manager.FontProperties(
                family=face.family, weight=face.weight, style=face.style, stretch=face.stretch),  # type: ignore[arg-type]
                fallback_to_default=False))
        except ValueError:
            chosen = ""
        if chosen in files:
            return chosen
    return files[0]


def text_elements(glyphs: Sequence[Glyph]) -> list[etree._Element] | None:
    """``<text>`` elements drawing ``glyphs`` where they are, or None when one of them cannot be a
    character (:func:`character_of`), its font is unknown or its size is 0: the caller keeps the outlines.

    Consecutive glyphs of one font, size, baseline, colour and opacity make one ``<text>`` with one x per
    character; a ligature's characters after the first get no x of their own (``x`` lists one number per
    character, so a ligature starts a ``<text>`` of its own). Each ``<text>`` is set at 100 units to the em
    and scaled to its size (``transform="translate(0 baseline) scale(size / 100)"``), as matplotlib's glyph
    groups are: pdfium's text extraction reads text set at 7 pt in an unscaled frame as one character per
    line (``C\r\na\r\np...``; measured on canvas text, where the same text at 100 units scaled 0.07 reads
    ``Caption``; poppler reads both)."""
    out: list[etree._Element] = []
    run: list[Glyph] = []

    def flush() -> None:
        if not run:
            return
        first = run[0]
        face = face_of(first.font_file)
        assert face is not None
        el = etree.Element(svg_tag("text"))
        el.set(_XML_SPACE, "preserve")
        written = f"{first.size_pt / _EM:.9g}"  # fmt's 3 decimals would move a 4.55 pt superscript's glyphs
        scale = float(written)
        el.set("transform", f"translate(0 {fmt(first.y_pt)}) scale({written})")
        el.set("x", " ".join(fmt(g.x_pt / scale) for g in run))
        el.set("y", "0")
        el.set("font-family", face.family if "," not in face.family else f"'{face.family}'")
        el.set("font-size", fmt(_EM))
        if face.weight != 400:
            el.set("font-weight", str(face.weight))
        if face.style != "normal":
            el.set("font-style", face.style)
        if face.stretch not in ("normal", "100%"):
            el.set("font-stretch", face.stretch)
        if first.fill is not None:
            el.set("fill", first.fill)
        if first.opacity != 1.0:
            el.set("fill-opacity", fmt(first.opacity))
        el.set(FONT_FILE_ATTR, first.font_file)
        el.text = "".join(g.chars for g in run)
        out.append(el)
        run.clear()

    for glyph in glyphs:
        if not glyph.size_pt:  # a text at 0 pt draws nothing, and its <text> would be scaled by 0
            return None
        if face_of(glyph.font_file) is None or not character_of(glyph.font_file, glyph.index, glyph.chars):
            return None
        key = (glyph.font_file, glyph.size_pt, glyph.y_pt, glyph.fill, glyph.opacity)
        if run and (key != (run[0].font_file, run[0].size_pt, run[0].y_pt, run[0].fill, run[0].opacity)
                    or len(run[-1].chars) > 1 or len(glyph.chars) > 1):
            flush()
        run.append(glyph)
    flush()
    return out


def notes(glyphs: Iterable[Glyph]) -> str:
    """The :data:`GLYPHS_ATTR` value for a canvas text's glyphs (placed on the canvas)."""
    return json.dumps([[g.font_file, g.index, g.chars, round(g.x_pt, 4), round(g.y_pt, 4), round(g.size_pt, 4),
                        g.fill, g.opacity] for g in glyphs], ensure_ascii=False, separators=(",", ":"))


def _from_notes(raw: str) -> list[Glyph]:
    return [Glyph(str(f), int(i), str(c), float(x), float(y), float(s), fill, float(o))
            for f, i, c, x, y, s, fill, o in json.loads(raw)]


def _noted(root: etree._Element) -> list[etree._Element]:
    """The elements of ``root``'s tree (itself included) carrying a :data:`GLYPHS_ATTR` note, in document
    order (lxml's path search: a scatter's 100,000 markers are passed over in C)."""
    return ([root] if root.get(GLYPHS_ATTR) is not None else []) + list(root.iterfind(f".//*[@{GLYPHS_ATTR}]"))


def strip_notes(root: etree._Element) -> None:
    """Remove every :data:`GLYPHS_ATTR` note from ``root``'s tree (before it is written)."""
    for el in _noted(root):
        del el.attrib[GLYPHS_ATTR]


def canvas_text(root: etree._Element) -> int:
    """Replace every noted canvas text of ``root`` (:data:`GLYPHS_ATTR`) by a ``<g>`` of ``<text>`` with
    the same id, label and transform; a text with a glyph that cannot be a character keeps its outlines.
    Removes the notes. Returns how many texts were replaced."""
    count = 0
    for el in _noted(root):
        texts = text_elements(_from_notes(el.attrib.pop(GLYPHS_ATTR)))
        if texts is None or not texts:
            continue
        group = etree.Element(svg_tag("g"))
        for name in ("id", "aria-label", "transform", "data-font-size"):
            if el.get(name) is not None:
                group.set(name, el.get(name, ""))
        group.extend(texts)
        group.tail = el.tail
        parent = el.getparent()
        assert parent is not None
        parent.replace(el, group)
        count += 1
    return count


def _translation(transform: str | None) -> tuple[float, float, float] | None:
    """A ``<use>``'s ``transform`` as (x, y, scale) when it is a translation and a uniform scale; else None."""
    a, b, c, d, e, f = parse_transform(transform)
    if b != 0 or c != 0 or a != d or a <= 0:
        return None
    return e, f, a


def panel_text(root: etree._Element, drawn_here: Callable[[etree._Element], bool] | None = None) -> int:
    """Replace the glyph ``<use>`` of every matplotlib text of ``root`` (see module docstring) by
    ``<text>`` drawn in the group's frame, flipped back upright (``transform="scale(1 -1)"``, font size
    100 x the glyph's scale: the group's own ``scale(s -s)`` makes it ``s`` x 100 pt). A group with a glyph
    that cannot be a character, or a ``<use>`` that is not a plain placement, keeps its outlines;
    mathtext's rectangles (fraction bars) stay paths. Returns how many texts were replaced.

    Args:
        drawn_here: for a text's group, whether matplotlib drew it in this process (a render panel, a
            guide), so its glyph indices are those of the font file it finds here; text of an imported
            matplotlib SVG (another machine's matplotlib, another DejaVu Sans whose glyph indices may
            differ) stays outlines. None: every group."""
    groups: dict[etree._Element, list[etree._Element]] = {}
    glyph_ref: dict[str, bool] = {}  # a scatter's 100,000 markers name one id: matched once
    for use in root.iter(svg_tag("use")):
        ref = use.get(_XLINK_HREF) or use.get("href") or ""
        is_glyph = glyph_ref.get(ref)
        if is_glyph is None:
            is_glyph = glyph_ref[ref] = ref.startswith("#") and _GLYPH_ID.match(ref[1:]) is not None
        if not is_glyph:
            continue
        parent = use.getparent()
        if parent is not None:
            groups.setdefault(parent, []).append(use)
    count = 0
    for group, uses in groups.items():
        if drawn_here is not None and not drawn_here(group):
            continue
        a, b, c, d, _, _ = parse_transform(group.get("transform"))
        if abs(a * d - b * c) < 1e-12 or a * d - b * c > 0:
            continue  # a glyph group is flipped (matplotlib's scale(s -s)); anything else is not its text
        glyphs: list[Glyph] = []
        for use in uses:
            m = _GLYPH_ID.match((use.get(_XLINK_HREF) or use.get("href") or "")[1:])
            placed = _translation(use.get("transform"))
            font_file = font_file_of(m.group(1)) if m else None
            if m is None or placed is None or font_file is None or use.get("x") or use.get("y") or \
                    set(use.attrib) - {_XLINK_HREF, "href", "transform"}:
                glyphs = []
                break
            index = int(m.group(2), 16)
            chars = _chars_by_glyph(font_file).get(index, "")
            x, y, k = placed
            glyphs.append(Glyph(font_file, index, chars, x, -y, 100.0 * k))
        texts = text_elements(glyphs) if glyphs else None
        if not texts:
            continue
        holder = etree.Element(svg_tag("g"), transform="scale(1 -1)")
        holder.extend(texts)
        at = group.index(uses[0])
        for use in uses:
            group.remove(use)
        group.insert(at, holder)
        count += 1
    return count


def pdf_document(root: etree._Element, drawn_here: Callable[[etree._Element], bool] | None = None
                 ) -> etree._Element:
    """A copy of the composed canvas ``root`` with every outlined text it can write as text written as
    ``<text>`` (:func:`canvas_text`, :func:`panel_text` with ``drawn_here``): the document the PDF engine
    draws."""
    import copy

    doc = copy.deepcopy(root)
    canvas_text(doc)
    panel_text(doc, drawn_here)
    return doc


def font_files(svg: bytes) -> list[str]:
    """The font files the real text of a :func:`pdf_document` names (:data:`FONT_FILE_ATTR`), sorted."""
    return sorted({m.decode() for m in re.findall(rb'data-font-file="([^"]+)"', svg)})


