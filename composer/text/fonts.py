"""Fonts: the font composer measured with must be the font every renderer draws with.

composer measures text with matplotlib's font manager, which keeps its own
list of fonts (including the copies of DejaVu and STIX that ship inside
matplotlib). cairosvg (through cairo) and Chromium on Linux look fonts up
through fontconfig instead. When the two disagree, ``<text>`` is drawn in
another font than the one its layout was measured with: a silent swap.
Glyph outlines (``[figure] text = "paths"``) cannot be swapped; ``<text>``
(``text = "editable"``, and any text inside an imported SVG file) can, so
:func:`check_svg_fonts` compares, for every font used by a ``<text>`` of the
composed SVG:

- what matplotlib measured with: ``findfont`` without fallback;
- what cairosvg will use: fontconfig's match for the *first* family of the
  ``font-family`` list with cairo's weight and slant (cairo's toy font API,
  ``cairo-ft-font.c``: bold -> ``FC_WEIGHT_BOLD``, else ``FC_WEIGHT_MEDIUM``;
  italic -> ``FC_SLANT_ITALIC``, oblique -> ``FC_SLANT_OBLIQUE``), queried
  from the same ``libfontconfig`` cairo links. Chromium asks fontconfig too.

Two files are the same font when they are one file, or when family and
style names agree and every character used has the same advance width (the
same DejaVu release installed twice). A bold or italic that fontconfig would
synthesize (``embolden``, a slant ``matrix``) is a swap as well.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import unicodedata
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import cast

from lxml import etree

from composer.errors import ComposerWarning, ImportFeature, LayoutError
from composer.svg import css
from composer.units import PX_PER_UNIT

#: CSS generic families, in the order matplotlib's rcParams name them.
GENERIC_FAMILIES = ("serif", "sans-serif", "monospace", "cursive", "fantasy")

# fontconfig constants (fontconfig.h)
_FC_WEIGHT_MEDIUM, _FC_WEIGHT_BOLD = 100, 200
_FC_SLANT_ROMAN, _FC_SLANT_ITALIC, _FC_SLANT_OBLIQUE = 0, 100, 110
_FC_MATCH_PATTERN = 0
_FC_RESULT_MATCH = 0


def generic_family(family: str) -> str:
    """The CSS generic family a font belongs to, from matplotlib's rcParams lists
    (``font.serif``, ``font.monospace``...); ``sans-serif`` when it is in none."""
    import matplotlib

    if family in GENERIC_FAMILIES:
        return family
    for generic in ("serif", "monospace", "cursive", "fantasy"):
        if family in cast("dict[str, list[str]]", matplotlib.rcParams)[f"font.{generic}"]:
            return generic
    return "sans-serif"


def font_stack(font: str) -> str:
    """The ``font-family`` value for a style's ``font`` (one family or a comma-separated
    list): the fonts, quoted, then the generic family of the first.

    ``font_stack("DejaVu Sans") == "'DejaVu Sans', sans-serif"``. cairosvg uses
    the first name only; a browser without the font falls back to the generic
    family of the same kind instead of its default serif.
    """
    families = parse_families(font)
    quoted = [f if f in GENERIC_FAMILIES else "'" + f.replace("\\", "\\\\").replace("'", "\\'") + "'"
              for f in families]
    generic = generic_family(families[0])
    return ", ".join(quoted + ([generic] if generic not in families else []))


@dataclass(frozen=True)
class Match:
    """A font file chosen for a request.

    Attributes:
        file: the font file (absolute path, symlinks resolved).
        family: its family name as the matcher reports it.
        synthetic: ``"bold"`` / ``"italic"`` when fontconfig would fake that
            style from another face (cairo then emboldens or slants it), else "".
    """

    file: str
    family: str
    synthetic: str = ""


class _FontConfig:
    """The few libfontconfig calls cairo's toy font API makes (ctypes)."""

    def __init__(self) -> None:
        name = ctypes.util.find_library("fontconfig") or "libfontconfig.so.1"
        lib = ctypes.CDLL(name)
        vp, cp, ci = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for fn, res, args in (
            ("FcInitLoadConfigAndFonts", vp, []),
            ("FcPatternCreate", vp, []),
            ("FcPatternDestroy", None, [vp]),
            ("FcPatternAddString", ci, [vp, cp, cp]),
            ("FcPatternAddInteger", ci, [vp, cp, ci]),
            ("FcConfigSubstitute", ci, [vp, vp, ci]),
            ("FcDefaultSubstitute", None, [vp]),
            ("FcFontMatch", vp, [vp, vp, ctypes.POINTER(ci)]),
            ("FcPatternGetString", ci, [vp, cp, ci, ctypes.POINTER(cp)]),
            ("FcPatternGetBool", ci, [vp, cp, ci, ctypes.POINTER(ci)]),
            ("FcPatternGetMatrix", ci, [vp, cp, ci, ctypes.POINTER(vp)]),
            ("FcCharSetCreate", vp, []),
            ("FcCharSetAddChar", ci, [vp, ctypes.c_uint32]),
            ("FcCharSetDestroy", None, [vp]),
            ("FcPatternAddCharSet", ci, [vp, cp, vp]),
        ):
            func = getattr(lib, fn)
            func.restype, func.argtypes = res, args
        self.lib = lib
        self.config = lib.FcInitLoadConfigAndFonts()

    def match(self, family: str, bold: bool, slant: int, char: str = "") -> Match | None:
        lib = self.lib
        pattern = lib.FcPatternCreate()
        try:
            lib.FcPatternAddString(pattern, b"family", family.encode("utf-8"))
            lib.FcPatternAddInteger(pattern, b"weight", _FC_WEIGHT_BOLD if bold else _FC_WEIGHT_MEDIUM)
            lib.FcPatternAddInteger(pattern, b"slant", slant)
            if char:  # fontconfig ranks a font that covers the charset above the family asked for
                charset = lib.FcCharSetCreate()
                lib.FcCharSetAddChar(charset, ord(char))
                lib.FcPatternAddCharSet(pattern, b"charset", charset)  # the pattern keeps its own reference
                lib.FcCharSetDestroy(charset)
            lib.FcConfigSubstitute(self.config, pattern, _FC_MATCH_PATTERN)
            lib.FcDefaultSubstitute(pattern)
            result = ctypes.c_int()
            found = lib.FcFontMatch(self.config, pattern, ctypes.byref(result))
        finally:
            lib.FcPatternDestroy(pattern)
        if not found:
            return None
        try:
            file, name = ctypes.c_char_p(), ctypes.c_char_p()
            if lib.FcPatternGetString(found, b"file", 0, ctypes.byref(file)) != _FC_RESULT_MATCH or not file.value:
                return None
            lib.FcPatternGetString(found, b"family", 0, ctypes.byref(name))
            embolden, matrix = ctypes.c_int(0), ctypes.c_void_p()
            lib.FcPatternGetBool(found, b"embolden", 0, ctypes.byref(embolden))
            slanted = lib.FcPatternGetMatrix(found, b"matrix", 0, ctypes.byref(matrix)) == _FC_RESULT_MATCH
            synthetic = "bold" if embolden.value else ("italic" if slanted and slant else "")
            return Match(os.path.realpath(file.value.decode("utf-8", "replace")),
                         (name.value or b"").decode("utf-8", "replace"), synthetic)
        finally:
            lib.FcPatternDestroy(found)


@lru_cache(maxsize=1)
def _fontconfig() -> _FontConfig | None:
    try:
        return _FontConfig()
    except (OSError, AttributeError):
        return None


@cache
def fontconfig_font(family: str, weight: str = "normal", style: str = "normal") -> Match | None:
    """The font cairosvg draws ``font-family: family`` with (fontconfig's match), or
    None when libfontconfig cannot be loaded (then nothing can be checked)."""
    fc = _fontconfig()
    if fc is None:
        return None
    slant = {"italic": _FC_SLANT_ITALIC, "oblique": _FC_SLANT_OBLIQUE}.get(style, _FC_SLANT_ROMAN)
    return fc.match(family, weight == "bold", slant)


#: the fonts Chromium on Linux draws the generic families with (its default font settings:
#: ``IDS_SERIF_FONT_FAMILY`` ... in ``locale_settings_linux.grd``; the standard font, for text naming no
#: family or only families it cannot draw, is the serif one), each then looked up as :func:`browser_font` does
CHROMIUM_GENERIC_FONTS = {"serif": "Times New Roman", "sans-serif": "Arial", "monospace": "Monospace",
                          "cursive": "Comic Sans MS", "fantasy": "Impact"}
CHROMIUM_STANDARD_FONT = "Times New Roman"
#: the family names for which Chromium takes fontconfig's match whatever it is (casefolded; Skia's
#: ``IsFallbackFontAllowed``): fontconfig's generic names, not CSS's (``sans-serif`` is CSS's, and Chromium
#: maps it to its own default font, :data:`CHROMIUM_GENERIC_FONTS`).
FONTCONFIG_GENERIC_NAMES = frozenset({"sans", "serif", "monospace"})


@cache
def browser_font(family: str, weight: str = "normal", style: str = "normal") -> Match | None:
    """The installed font Chromium on Linux draws ``family`` with, or None when it draws the next family of
    the list instead.

    Chromium asks fontconfig for the family (Skia's ``SkFontConfigInterfaceDirect::matchFamilyName``) and
    takes the match only when its family is the one asked for, or the two are in one class of Skia's table
    of metric-compatible faces (:data:`METRIC_COMPATIBLE`: Arial, Arimo and Liberation Sans...), or the name
    is fontconfig's own ``sans``, ``serif`` or ``monospace``; otherwise (Verdana or Trebuchet MS -> DejaVu
    Sans, Helvetica -> Nimbus Sans) it refuses it, and Blink tries the family's alternate name
    (:data:`ALTERNATE_FAMILIES`, ``FontCache::AlternateFamilyName``: Helvetica -> Arial -> Liberation Sans,
    Times -> Times New Roman, Courier -> Courier New), then the next family of the list. Checked with
    Chromium's own answer (DevTools' ``CSS.getPlatformFontsForNode``) on this machine.
    """
    for name in (family, *((ALTERNATE_FAMILIES[family.casefold()],) if family.casefold() in ALTERNATE_FAMILIES
                           else ())):
        match = fontconfig_font(name, weight, style)
        if match is None:
            return None if _fontconfig() is not None else match
        if _skia_accepts(name, match.family):
            return match
    return None


#: Skia's classes of metric-compatible families (``SkFontConfigInterface_direct.cpp``, ``kFontEquivMap``), the
#: Latin ones: a fontconfig match of another family of the class stands in for the one asked
METRIC_COMPATIBLE = (
    frozenset({"arial", "arimo", "liberation sans"}),
    frozenset({"times new roman", "tinos", "liberation serif"}),
    frozenset({"courier new", "cousine", "liberation mono"}),
    frozenset({"symbol", "symbol neu"}),
    frozenset({"cambria", "caladea"}),
    frozenset({"calibri", "carlito"}),
)
#: Blink's alternate names, tried when a family has no face (``FontCache::AlternateFamilyName``)
ALTERNATE_FAMILIES = {"courier": "Courier New", "courier new": "Courier", "times": "Times New Roman",
                      "times new roman": "Times", "arial": "Helvetica", "helvetica": "Arial"}


def _skia_accepts(asked: str, found: str) -> bool:
    asked, found = asked.casefold().strip(), found.casefold()
    if asked == found or asked in FONTCONFIG_GENERIC_NAMES:  # Skia's IsFallbackFontAllowed
        return True
    return any(asked in group and found in group for group in METRIC_COMPATIBLE)


@cache
def generic_font(generic: str) -> str | None:
    """The installed family Chromium draws a CSS generic family (``sans-serif``...) with here: its default
    font for it (:data:`CHROMIUM_GENERIC_FONTS`) as :func:`browser_font` finds it, else, for ``cursive`` and
    ``fantasy`` (Comic Sans MS and Impact have no face here), the standard font (Chromium draws them so on
    this machine); where none has a face, fontconfig's own match for the generic name, then matplotlib's."""
    for name in (CHROMIUM_GENERIC_FONTS.get(generic, CHROMIUM_STANDARD_FONT),
                 *((CHROMIUM_STANDARD_FONT,) if generic in ("cursive", "fantasy") else ())):
        found = browser_font(name)
        if found is not None and found.family:
            return found.family
    found = fontconfig_font(generic) or matplotlib_font((generic,))
    return found.family if found is not None and found.family else None


@cache
def fontconfig_fallback(family: str, char: str, weight: str = "normal", style: str = "normal") -> Match | None:
    """The font a browser here draws ``char`` with when ``family`` lacks it: fontconfig's match for the family
    with a charset holding ``char`` (``fc-match 'Liberation Sans:charset=4e2d'``: WenQuanYi Micro Hei), as
    Chromium on Linux asks for a fallback font; None when no installed font has a glyph for it (or
    libfontconfig cannot be loaded)."""
    from matplotlib import font_manager

    fc = _fontconfig()
    if fc is None:
        return None
    slant = {"italic": _FC_SLANT_ITALIC, "oblique": _FC_SLANT_OBLIQUE}.get(style, _FC_SLANT_ROMAN)
    found = fc.match(family, weight == "bold", slant, char)
    if found is None:
        return None
    try:
        has = bool(font_manager.get_font(found.file).get_char_index(ord(char)))
    except (OSError, RuntimeError, ValueError):
        return None
    return found if has else None


@cache
def matplotlib_font(families: tuple[str, ...], weight: str = "normal", style: str = "normal") -> Match | None:
    """The font matplotlib measures ``families`` with (first one it has), or None when it has none."""
    from matplotlib import font_manager

    prop = font_manager.FontProperties(family=list(families), weight=weight, style=style)  # type: ignore[arg-type]  # one of STYLES
    try:
        path = font_manager.findfont(prop, fallback_to_default=False)
    except ValueError:
        return None
    font = font_manager.get_font(path)
    return Match(os.path.realpath(path), font.family_name)


def same_font(a: str, b: str, chars: Iterable[str]) -> bool:
    """True when font files ``a`` (measured) and ``b`` (rendered) draw ``chars`` alike:
    ``b`` has a glyph for every character (a renderer's ``<text>`` takes one font,
    no per-glyph fallback), and the files are one, or have the same family and
    style names with equal advance widths for every character (two installs of
    one release)."""
    from matplotlib import font_manager
    from matplotlib.ft2font import LoadFlags

    fa, fb = font_manager.get_font(a), font_manager.get_font(b)
    if any(not fb.get_char_index(ord(ch)) for ch in set(chars) - {" ", "\n", "\t"}):
        return False
    if a == b:
        return True
    if (fa.family_name, fa.style_name) != (fb.family_name, fb.style_name):
        return False
    for font in (fa, fb):
        font.set_size(100, 72)
    for ch in sorted(set(chars) - {" ", "\n", "\t"}):
        ia, ib = fa.get_char_index(ord(ch)), fb.get_char_index(ord(ch))
        if (ia == 0) != (ib == 0):
            return False
        if ia and fa.load_char(ord(ch), LoadFlags.NO_HINTING).linearHoriAdvance != \
                fb.load_char(ord(ch), LoadFlags.NO_HINTING).linearHoriAdvance:
            return False
    return True


@dataclass(frozen=True)
class TextFont:
    """One font as used by ``<text>`` in an SVG: family list, cairosvg weight and style, and its characters."""

    families: tuple[str, ...]
    weight: str
    style: str
    chars: frozenset[str]
    owner: str


#: CSS ``font-size`` keywords in px, as Chromium computes them for its default 16 px (CSS Fonts 4, 2.5:
#: medium = the user agent's default, 16 px in every browser; Blink's ``FontSizeFunctions`` table for 16 px).
_SIZE_KEYWORDS = {"xx-small": 9.0, "x-small": 10.0, "small": 13.0, "medium": 16.0, "large": 18.0,
                  "x-large": 24.0, "xx-large": 32.0, "xxx-large": 48.0, "initial": 16.0}
#: the font size (px) of an SVG document's root when nothing sets one: a browser's ``medium``.
ROOT_FONT_SIZE_PX = 16.0
#: ``larger``/``smaller``: the parent's size times / divided by 1.2 (Blink's ``FontDescription::LargerSize``,
#: CSS Fonts 4, 2.5: "a ratio of around 1.2")
_RELATIVE_KEYWORD_RATIO = 1.2


def text_elements(root: etree._Element):
    """Yield ``(element, props)`` for every ``<text>``, ``<tspan>`` and ``<textPath>``.

    ``props`` holds the element's resolved (inherited) ``font-family``,
    ``font-weight``, ``font-style``, ``text-anchor``, ``letter-spacing``,
    ``word-spacing`` and ``xml:space`` as strings, and ``font-size`` as a
    float in user units. Declarations come from presentation attributes,
    ``<style>`` rules (matched with cssselect2, as cairosvg does) and
    ``style``, in that order of precedence, plus the ``font`` shorthand.
    """
    import cssselect2

    texts = list(root.iter("{*}text", "{*}tspan", "{*}textPath"))  # any namespace, as local-name() (lxml's
    # own walk: one that finds no such name in the document's names stops at once)
    if not texts:
        return []  # text drawn as outlines only: nothing to resolve
    # a text's properties come from it and its ancestors only: the walk enters no other subtree (a scatter's
    # 100,000 markers beside its tick labels are passed over, not resolved)
    on_the_way: set[etree._Element] = set()
    for el in texts:
        for up in (el, *el.iterancestors()):
            if up in on_the_way:
                break
            on_the_way.add(up)
    sheet = css.StyleSheet(root, _declarations)
    out = []

    def walk(wrapper, inherited: dict) -> None:
        el = wrapper.etree_element
        props = dict(inherited)
        declared = _declared(el, wrapper, sheet)
        for name, value in list(declared.items()):  # CSS-wide keywords: every one of these is inherited
            keyword = value.strip().lower()
            if keyword in ("inherit", "unset"):
                del declared[name]  # the parent's, as if not set
            elif keyword == "initial" and name != "font-size":
                del declared[name]
                props.pop(name, None)  # the property's default
        if "font-size" in declared:
            props["font-size"] = _font_size(declared.pop("font-size"), inherited["font-size"],
                                            inherited.get("font-family", ""))
        props.update(declared)
        space = el.get("{http://www.w3.org/XML/1998/namespace}space")
        if space:
            props["xml:space"] = space
        if etree.QName(el).localname in ("text", "tspan", "textPath"):
            out.append((el, props))
        for child in wrapper.iter_children():
            if child.etree_element in on_the_way:
                walk(child, props)

    walk(cssselect2.ElementWrapper.from_xml_root(root), {"font-size": ROOT_FONT_SIZE_PX})
    return out


def svg_text_fonts(root: etree._Element, owner_of=lambda el: "") -> list[TextFont]:
    """Every distinct font of every ``<text>``/``<tspan>`` holding characters, with those characters.

    Properties as :func:`text_elements` resolves them; weight is ``bold``
    from 550 up, as in cairosvg; style is normal, italic or oblique.
    ``owner_of(element)`` names who made the text (kept per font, for messages).
    """
    found: dict[tuple, set[str]] = {}
    owners: dict[tuple, str] = {}
    for el, props in text_elements(root):
        chars = (el.text or "") + "".join((c.tail or "") for c in el)
        if not chars.strip():
            continue
        key = (parse_families(props.get("font-family", "sans-serif")), css_weight(props.get("font-weight", "")),
               css_style(props.get("font-style", "")))
        found.setdefault(key, set()).update(chars)
        owners.setdefault(key, owner_of(el))
    return [TextFont(k[0], k[1], k[2], frozenset(v), owners[k]) for k, v in found.items()]


_SIZE_VALUE = re.compile(r"([-+]?[0-9]*\.?[0-9]+(?:e[-+]?\d+)?)\s*(px|pt|pc|in|mm|cm|q|em|rem|ex|ch|%|)",
                         re.IGNORECASE)


def _font_size(value: str, parent: float, family: str = "") -> float:
    """A ``font-size`` value computed as CSS (and Chromium) computes it, in px (user units) for a parent of
    ``parent`` px: keywords absolute (:data:`_SIZE_KEYWORDS`), ``larger``/``smaller`` the parent's times or
    divided by 1.2, ``em``/``%`` of the parent, ``ex`` and ``ch`` of the parent's font (``family``, the
    face Chromium draws it with: its x-height, its "0"'s advance, :func:`font_units`; half an em where no
    face is found, the fallback CSS Values 4, 6.1.1 allows), ``rem`` of the root's 16 px; an invalid or
    negative value is ignored (the parent's, inherited)."""
    value = value.strip().lower().removesuffix("!important").strip()
    if value in _SIZE_KEYWORDS:
        return _SIZE_KEYWORDS[value]
    if value == "larger":
        return parent * _RELATIVE_KEYWORD_RATIO
    if value == "smaller":
        return parent / _RELATIVE_KEYWORD_RATIO
    m = _SIZE_VALUE.fullmatch(value)
    if not m or float(m.group(1)) < 0:
        return parent
    number, unit = float(m.group(1)), m.group(2)
    if unit == "em":
        return number * parent
    if unit in ("ex", "ch"):
        return number * parent * font_units(family)[0 if unit == "ex" else 1]
    if unit == "%":
        return number * parent / 100
    if unit == "rem":
        return number * ROOT_FONT_SIZE_PX
    if unit == "q":
        return number * PX_PER_UNIT["mm"] / 4
    return number * PX_PER_UNIT[unit]


def font_sizes_to_resolve(root: etree._Element) -> list[tuple[etree._Element, float]]:
    """The text elements whose font size the engine would take otherwise than a browser, each with the
    size (px, user units) the browser computes (:func:`_font_size`).

    A size that comes from an absolute length (``12px``, ``9pt``) on the element or an ancestor, through
    ``em`` and ``%`` only, is computed alike everywhere. Any other is not: the engine's usvg takes a
    document's root as 12 px where a browser takes 16 (``medium``), and its keywords as steps of 1.2 from
    the parent (``x-large`` 1.44 times the parent, 24 px in a browser; ``usvg::Options::font_size``,
    ``convert_named_font_size``), and ``ex`` and ``ch`` as half an em. So every ``<text>``, ``<tspan>`` and
    ``<textPath>`` whose size rests on the root's default, a keyword, ``larger``/``smaller``, ``rem``, ``ex`` or
    ``ch`` is listed, outside ``<defs>`` and ``<symbol>`` (there the ``<use>`` decides what they inherit).
    Declarations are read as :func:`text_elements` reads them (attributes < ``<style>`` rules < ``style``).
    """
    import cssselect2

    if next(root.iter("{*}text", "{*}tspan", "{*}textPath"), None) is None:
        return []
    sheet = css.StyleSheet(root, _declarations)
    out: list[tuple[etree._Element, float]] = []

    def walk(wrapper, size: float, absolute: bool, family: str) -> None:
        el = wrapper.etree_element
        local = etree.QName(el).localname
        if local in ("defs", "symbol"):
            return
        own = _declared(el, wrapper, sheet)
        declared = own.get("font-size")
        if declared is not None:
            value = declared.strip().lower().removesuffix("!important").strip()
            m = _SIZE_VALUE.fullmatch(value)
            if value in _SIZE_KEYWORDS or value in ("larger", "smaller") or m and m.group(2).lower() in ("rem", "ex",
                                                                                                     "ch"):
                absolute = False  # usvg takes ex and ch as half an em, a browser from the font
            elif m and float(m.group(1)) >= 0 and m.group(2).lower() not in ("em", "ex", "ch", "%"):
                absolute = True  # a length: the same in every renderer (em and % keep the parent's state)
            size = _font_size(declared, size, family)  # ex and ch: of the parent's font
        family = own.get("font-family", family).strip() if own.get("font-family", "").strip() not in ("", "inherit") \
            else family
        if local in ("text", "tspan", "textPath") and not absolute:
            out.append((el, size))
            absolute = True  # written on the element: its children inherit it everywhere
        for child in wrapper.iter_children():
            walk(child, size, absolute, family)

    walk(cssselect2.ElementWrapper.from_xml_root(root), ROOT_FONT_SIZE_PX, False, "")
    return out


def check_svg_fonts(root: etree._Element, *, file: str | None, imported: Mapping[str, str]) -> list[str]:
    """Refuse or report every font swap in the ``<text>`` of a composed SVG.

    Args:
        root: the composed canvas.
        file: the layout file, for error messages.
        imported: group id -> file name, for panels imported from SVG files
            (their fonts were chosen elsewhere and are reported as warnings).

    Returns:
        The warning messages issued (also sent through :mod:`warnings` as
        :class:`ComposerWarning`).

    Raises:
        LayoutError: text composer measured (canvas text and panels under
            ``text = "editable"``) would be drawn by cairosvg and browsers in
            another font than matplotlib measured it with; the message names
            both fonts and files.
    """
    def owner_of(el: etree._Element) -> str:
        for anc in el.iterancestors():
            if anc.get("id") in imported:
                return imported[anc.get("id")]
        return ""

    issued = []
    for tf in svg_text_fonts(root, owner_of):
        first = tf.families[0]
        rendered = fontconfig_font(first, tf.weight, tf.style)
        face = " ".join(w for w in (tf.weight, tf.style) if w != "normal") or "regular"
        if tf.owner:  # an imported file: nothing was measured, but the swap must be said
            if rendered is None or _family_matches(first, rendered) and not rendered.synthetic:
                continue
            got = f"{rendered.family!r} ({rendered.file})" + (f", {rendered.synthetic} faked" if rendered.synthetic
                                                              else "")
            msg = (f"{tf.owner}: font {first!r} ({face}) is not installed for the renderers; cairosvg and browsers "
                   f"draw its text with {got}; install the font, or convert the file's text to paths")
            warnings.warn(ComposerWarning(msg), stacklevel=2)
            issued.append(msg)
            continue
        for family, chars in _by_drawing_family(tf).items():
            measured = matplotlib_font((family,), tf.weight, tf.style)
            rendered = fontconfig_font(family, tf.weight, tf.style)
            if measured is None or rendered is None:
                continue  # not installed at all: text.check_font and the panel check report it
            if same_font(measured.file, rendered.file, chars) and not rendered.synthetic:
                continue
            got = f"{rendered.family!r} from {rendered.file}" + (f" with {rendered.synthetic} faked"
                                                                 if rendered.synthetic else "")
            raise LayoutError(f"text = \"editable\": font {family!r} ({face}) is measured by matplotlib from "
                              f"{measured.file}, but cairosvg and browsers (fontconfig) would draw it as {got}; "
                              "install that font file where fontconfig finds it (e.g. ~/.local/share/fonts, then "
                              "fc-cache), pick a font both have, or use text = \"paths\"", file=file,
                              key="figure.text")
    return issued


def check_missing_glyphs(root: etree._Element, *, imported: Mapping[str, str]) -> list[str]:
    """Say, once per imported file, which characters of its text the fonts it names lack, and what draws them.

    A renderer draws such a character from a fallback font: Chromium asks fontconfig for a font that has
    it (:func:`fontconfig_fallback`), and the engine takes one of the fonts it knows that has it; with none,
    the character is drawn as the font's empty box (.notdef) or not at all. The fonts a ``<text>`` names
    are its ``font-family`` list as matplotlib finds each family (after the import named installed fonts
    for missing and generic ones: :mod:`composer.stages.fragment`).

    Args:
        root: the composed canvas.
        imported: group id -> file name, for panels imported from files.

    Returns:
        The messages, each also issued as an :class:`ImportFeature` (feature ``characters its fonts lack``,
        read by ``compose check``): the file, each character as
        ``U+XXXX`` with the character, the font the file names, and the font drawn instead (or that it is
        drawn as a box, with the fix).
    """
    from matplotlib.font_manager import FontProperties

    from composer.text.metrics import missing_glyphs

    def owner_of(el: etree._Element) -> str:  # the group id of the imported panel holding el
        for anc in el.iterancestors():
            if anc.get("id") in imported:
                return anc.get("id", "")
        return ""

    by_owner: dict[str, dict[str, tuple[str, str, str, set[str]]]] = {}  # group -> font -> (family, w, s, chars)
    for tf in svg_text_fonts(root, owner_of):
        if not tf.owner:
            continue
        first = matplotlib_font(tf.families, tf.weight, tf.style)
        if first is None:
            continue  # no font of the list is one matplotlib has: its characters cannot be told here
        prop = FontProperties(family=list(tf.families), weight=tf.weight, style=tf.style)  # type: ignore[arg-type]
        lacking = {ch for ch in missing_glyphs("".join(sorted(tf.chars)), prop) if not ch.isspace()
                   and unicodedata.category(ch) not in ("Cc", "Cf")}  # controls, joiners, selectors draw nothing
        if not lacking:
            continue
        name = first.family
        entry = by_owner.setdefault(tf.owner, {}).setdefault(name, (name, tf.weight, tf.style, set()))
        entry[3].update(lacking)
    issued = []
    for group, fonts in by_owner.items():
        parts, boxes = [], False
        for name, weight, style, chars in fonts.values():
            drawn: dict[str, list[str]] = {}
            for ch in sorted(chars):
                found = fontconfig_fallback(name, ch, weight, style)
                drawn.setdefault(found.family if found is not None else "", []).append(f"U+{ord(ch):04X} {ch}")
            said = [f"{', '.join(cs)} drawn from {family!r} (fontconfig's fallback, as browsers here draw "
                    f"{'it' if len(cs) == 1 else 'them'})" for family, cs in sorted(drawn.items()) if family]
            if "" in drawn:
                boxes = True
                said.append(f"{', '.join(drawn[''])} in no installed font: drawn as "
                            f"{'an empty box' if len(drawn['']) == 1 else 'empty boxes'}")
            parts.append(f"font {name!r} has no glyph for " + "; ".join(said))
        detail = "; ".join(parts)
        msg = f"{imported[group]}: {detail}"
        if boxes:
            msg += ("; install a font that has them (e.g. fonts-noto-color-emoji for emoji), or convert the file's "
                    "text to paths where it was made")
        warnings.warn(ImportFeature(msg, panel=group.removeprefix("panel-"), file=imported[group],
                                    feature="characters its fonts lack", detail=detail), stacklevel=2)
        issued.append(msg)
    return issued


def _by_drawing_family(tf: TextFont) -> dict[str, frozenset[str]]:
    """The characters of ``tf`` by the family of its list that draws each: the first one whose font has a
    glyph for it, as matplotlib falls back glyph by glyph through ``font.family`` (3.6+) and CSS does
    through ``font-family`` (CSS Fonts 4, 5.3); a character none has stays with the first family."""
    from matplotlib import font_manager

    out: dict[str, set[str]] = {}
    fonts = [(f, matplotlib_font((f,), tf.weight, tf.style)) for f in tf.families]
    for ch in sorted(tf.chars - {" ", "\n", "\t"}):
        family = next((f for f, m in fonts if m is not None and font_manager.get_font(m.file).get_char_index(ord(ch))),
                      tf.families[0])
        out.setdefault(family, set()).add(ch)
    return {f: frozenset(c) for f, c in out.items()}


def _family_matches(asked: str, match: Match) -> bool:
    if asked in GENERIC_FAMILIES:
        return True
    return asked.casefold() == match.family.casefold()


@cache
def font_units(family: str) -> tuple[float, float]:
    """(x-height, advance of "0") in em of the face Chromium draws a CSS ``font-family`` list with (the first
    family :func:`browser_font` takes, a generic family's default, else the standard font): what ``1ex`` and
    ``1ch`` are (CSS Values 4, 6.1.1; Skia reads the x-height from the OS/2 table's ``sxHeight``, else the
    "x" glyph's height). (0.5, 0.5) where no face is found."""
    from matplotlib import font_manager
    from matplotlib.ft2font import LoadFlags

    match = None
    for name in (*parse_families(family or CHROMIUM_STANDARD_FONT), CHROMIUM_STANDARD_FONT):
        name = (generic_font(name.casefold()) or name) if name.casefold() in GENERIC_FAMILIES else name
        match = browser_font(name)
        if match is not None:
            break
    if match is None:
        return 0.5, 0.5
    try:
        face = font_manager.get_font(match.file)
    except (OSError, RuntimeError):
        return 0.5, 0.5
    upem = face.units_per_EM or 1000
    table = face.get_sfnt_table("OS/2")
    x_height = int(table["sxHeight"]) if table and "sxHeight" in table else 0
    if not x_height and face.get_char_index(ord("x")):
        x_height = face.load_char(ord("x"), flags=LoadFlags.NO_SCALE).height
    zero = face.load_char(ord("0"), flags=LoadFlags.NO_SCALE).horiAdvance if face.get_char_index(ord("0")) \
        else upem / 2
    if not x_height:
        return 0.5, zero / upem
    return x_height / upem, zero / upem


_SPLIT_FAMILIES = re.compile(r"""\s*("[^"]*"|'[^']*'|[^,]+)\s*(?:,|$)""")


def parse_families(value: str) -> tuple[str, ...]:
    names = [m.group(1).strip().strip("'\"").strip() for m in _SPLIT_FAMILIES.finditer(value)]
    return tuple(n for n in names if n) or ("sans-serif",)


def css_weight(value: str) -> str:
    """``bold`` for a CSS ``font-weight`` of 550 and more (``bold``, ``bolder``, a number from 550 to 1000), as
    cairosvg reads it; ``normal`` for any other (a number out of CSS's 1-1000 is invalid: ignored)."""
    value = value.strip()
    if value in ("bold", "bolder") or value.isdigit() and 550 <= int(value) <= 1000:
        return "bold"
    return "normal"


def css_style(value: str) -> str:
    value = value.strip()
    return value if value in ("italic", "oblique") else "normal"


_FONT_PROPS = ("font-family", "font-weight", "font-style", "font-size", "text-anchor", "letter-spacing",
               "word-spacing", "writing-mode", "direction", "font-variant", "font-kerning", "kerning",
               "font-stretch", "font-feature-settings", "font-variation-settings", "text-transform",
               "font-size-adjust")


def _parse_declarations(text: str) -> dict[str, str]:
    return dict(_declarations(text))


@lru_cache(maxsize=4096)
def _declarations(text: str) -> css.Declarations:
    """The font properties a ``style`` attribute or rule body sets, the ``font`` shorthand expanded
    (later declarations win); cached, as matplotlib repeats the same ``style`` on many elements."""
    out: dict[str, str] = {}
    for name, value in css.declarations(text):
        if name == "font":
            out.update(_font_shorthand(value))
        elif name in _FONT_PROPS:
            out[name] = value
    return tuple(out.items())


def _font_shorthand(value: str) -> dict[str, str]:
    """``font: italic bold 10px 'DejaVu Sans'`` -> style, weight and family (CSS Fonts 3, 3.7)."""
    m = re.match(r"\s*((?:[\w-]+\s+)*?)[\d.]+(?:px|pt|em|%|mm|in)?(?:/[\d.]+\w*)?\s+(.+)$", value)
    if not m:
        return {}
    # the shorthand resets what it does not say to its initial value (CSS Fonts 4, 2.8): a bold parent's
    # `font: 50px Sans` is regular, and kerned
    out = {"font-style": "normal", "font-weight": "normal", "font-variant": "normal", "font-stretch": "normal",
           "font-kerning": "auto", "font-feature-settings": "normal", "font-variation-settings": "normal",
           "font-size-adjust": "none", "font-family": m.group(2)}
    size = re.search(r"([0-9.]+(?:px|pt|em|%|mm|in)?)(?:/[\d.]+\w*)?\s+" + re.escape(m.group(2)) + "$", value)
    if size:
        out["font-size"] = size.group(1)
    for word in m.group(1).split():
        if word in ("italic", "oblique"):
            out["font-style"] = word
        elif word in ("bold", "bolder") or word.isdigit():
            out["font-weight"] = word
    return out


def _declared(el: etree._Element, wrapper, sheet: css.StyleSheet) -> dict[str, str]:
    """Font properties set on ``el`` itself: presentation attributes < ``<style>`` rules < ``style``."""
    out: dict[str, str] = {}
    for name in _FONT_PROPS:
        if el.get(name):
            out[name] = el.get(name, "")
    # no `font` attribute: a shorthand is no presentation attribute (SVG 2, 6.6: the list has none), and
    # Chromium and resvg draw `<text font="bold 64px Sans">` in the inherited font
    if sheet:
        for decls in sheet.matched(wrapper):
            out.update(decls)
    if el.get("style"):
        out.update(_parse_declarations(el.get("style", "")))
    return out
