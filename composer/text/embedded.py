"""Text in a font the file itself embeds, drawn as a browser draws it.

A ``@font-face`` rule whose ``src`` is a ``data:`` URL (``url(data:font/woff2;base64,...)``: Excalidraw's
exports embed their hand-drawn fonts so, as do Canva's and many web tools') hands a browser the font
file itself; composer's engines load no web font, and drew such text in an installed stand-in. So the
import keeps what those rules embed (:func:`composer.svg.fontfaces.faces_of_rule`, called by the
sanitizer), and :func:`outline_embedded_text` draws each ``<text>`` the browser would draw in one of
those faces as that face's glyph outlines: shaped by HarfBuzz (uharfbuzz: kerning, ligatures and the
other default features, as Chromium shapes with HarfBuzz too), each glyph's outline read by fontTools,
placed at the text's position and anchor. The path keeps the text's paint (``fill``, ``stroke``...), so
it looks as the browser's text looks, in every output.

Face selection follows CSS Fonts 4, 5.2, in short: the first family of the ``font-family`` list that the
file embeds or the machine has decides; among the faces of an embedded family, the one of the text's
style (``italic``/``oblique`` else ``normal``) and the nearest weight. A text whose run this does not
model (several positions, ``dx``/``dy``/``rotate``, ``textLength``, letter or word spacing, a child
element, a ``<textPath>``, vertical writing, a baseline other than the alphabetic one, a character the
face lacks) is left as text, drawn in the installed stand-in, and said in the file's one warning.
"""

from __future__ import annotations

import io
import re

from lxml import etree

from composer.svg.fontfaces import WEIGHTS, Face, quiet_fonttools

_SVG = "http://www.w3.org/2000/svg"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")
#: attributes of a ``<text>`` that position or shape its glyphs: not kept on the ``<g>`` that replaces it
_TEXT_ONLY = frozenset({"x", "y", "dx", "dy", "rotate", "textLength", "lengthAdjust", "text-anchor",
                        "font-family", "font-size", "font-weight", "font-style", "font-variant", "font-stretch",
                        "font", "letter-spacing", "word-spacing", "dominant-baseline", "alignment-baseline",
                        "writing-mode", "direction", "unicode-bidi", "text-rendering", _XML_SPACE})


def outline_embedded_text(root: etree._Element, faces: list[Face]) -> tuple[int, list[str]]:
    """Draw every ``<text>`` a browser draws in an embedded face as that face's outlines (module
    docstring). Returns (texts drawn so, a description of each text left as text though its font is
    embedded: ``"'Label' (textLength)"``)."""
    from composer.svg.css import inline_style_sheets
    from composer.text.fonts import browser_font, css_style, parse_families, text_elements

    by_family: dict[str, list[Face]] = {}
    for one in faces:
        by_family.setdefault(one.family, []).append(one)
    if not by_family:
        return 0, []
    inline_style_sheets(root, always=True)  # rules naming `text` keep applying once the text is a <g>
    drawn, left = 0, []
    shapers: dict[Face, _Shaper] = {}
    for el, props in text_elements(root):
        if etree.QName(el).localname != "text":
            continue
        face: Face | None = None
        for family in parse_families(props.get("font-family", "sans-serif")):
            key = family.casefold()
            if key in by_family:
                face = _nearest(by_family[key], _weight(props.get("font-weight", "")),
                                css_style(props.get("font-style", "")))
                break
            if key in ("serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui") \
                    or browser_font(family) is not None:
                break
        if face is None:
            continue
        text = _characters(el)
        why = _not_modelled(el, props)
        if why is None and text.strip():
            if face not in shapers:
                shapers[face] = _Shaper(face)
            x, y = (float(el.get(a, "0") or 0) for a in ("x", "y"))
            d = shapers[face].outline(text, float(props.get("font-size", 16.0)),
                                      str(props.get("text-anchor", "start")).strip().lower(), x, y)
            if d is None:
                why = "a character its font lacks"
            else:
                _replace(el, d)
                drawn += 1
                continue
        elif why is None:  # only white space: nothing drawn by the browser either
            _replace(el, "")
            drawn += 1
            continue
        shown = " ".join(text.split())
        left.append(f"{(shown[:30] + '...') if len(shown) > 30 else shown!r} ({why})")
    return drawn, left


def _weight(value: str) -> int:
    value = value.strip().lower()
    if value in WEIGHTS:
        return WEIGHTS[value]
    return int(float(value)) if _NUMBER.match(value) and 1 <= float(value) <= 1000 else 400


def _nearest(faces: list[Face], weight: int, style: str) -> Face:
    """CSS Fonts 4, 5.2 in short: the faces of the text's style (else normal), then the nearest weight."""
    same = [f for f in faces if f.style == style] or [f for f in faces if f.style == "normal"] or faces
    return min(same, key=lambda f: (abs(f.weight - weight), f.weight < weight))


def _characters(el: etree._Element) -> str:
    """The text's characters after white space is settled: as written under ``white-space: pre`` (and
    ``pre-wrap``, ``break-spaces``) or ``xml:space="preserve"`` (newlines and tabs as spaces), else
    SVG 1.1's default (10.15): newlines removed, tabs as spaces, runs of spaces as one, trimmed."""
    text = el.text or ""
    preserve = False
    for node in (el, *el.iterancestors()):
        style = (node.get("style") or "").lower().replace(" ", "")
        if "white-space:" in style:
            preserve = style.split("white-space:", 1)[1].split(";")[0] in ("pre", "pre-wrap", "break-spaces")
            break
        if node.get(_XML_SPACE):
            preserve = node.get(_XML_SPACE) == "preserve"
            break
    if preserve:
        return text.replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    return re.sub(" +", " ", text.replace("\r\n", "").replace("\n", "").replace("\t", " ")).strip()


def _not_modelled(el: etree._Element, props: dict) -> str | None:
    """Why a text's layout is not one this module draws, or None when it is."""
    if len(el):
        return "child elements"
    for attr in ("dx", "dy", "rotate", "textLength"):
        if el.get(attr) is not None:
            return attr
    for attr in ("x", "y"):
        if el.get(attr) is not None and _NUMBER.match(el.get(attr, "")) is None:
            return f"several {attr} or a unit"
    for prop in ("letter-spacing", "word-spacing"):
        value = str(props.get(prop, "normal")).strip().lower()
        if value not in ("normal", "0", "0px", ""):
            return prop
    style = " ".join(filter(None, [el.get("style"), el.get("dominant-baseline"), el.get("writing-mode"),
                                   el.get("direction")])).lower()
    for needle, why in (("vertical", "vertical writing"), ("tb", "vertical writing"), ("rtl", "right to left"),
                        ("middle", "a baseline"), ("central", "a baseline"), ("hanging", "a baseline"),
                        ("text-top", "a baseline"), ("text-bottom", "a baseline"),
                        ("mathematical", "a baseline"), ("ideographic", "a baseline")):
        if re.search(rf"(?<![\w-]){needle}(?![\w-])", style):
            return why
    return None


class _Shaper:
    """One face, ready to shape runs (uharfbuzz) and draw their glyphs (fontTools)."""

    def __init__(self, face: Face):
        import uharfbuzz as hb
        from fontTools.ttLib import TTFont

        self.font = hb.Font(hb.Face(face.data))
        with quiet_fonttools():
            self.tt = TTFont(io.BytesIO(face.data), lazy=True)
        self.upem = self.tt["head"].unitsPerEm
        self.glyphs = self.tt.getGlyphSet()
        self.order = self.tt.getGlyphOrder()

    def outline(self, text: str, size: float, anchor: str, x0: float, y0: float) -> str | None:
        """The SVG path data of ``text`` (user units) set at ``size`` (user units) from ``(x0, y0)`` (the
        baseline) by ``anchor`` (``start``, ``middle``, ``end``); None when the face lacks a character
        (the browser would draw it from another font)."""
        import uharfbuzz as hb
        from fontTools.pens.svgPathPen import SVGPathPen
        from fontTools.pens.transformPen import TransformPen

        buf = hb.Buffer()
        buf.add_str(text)
        buf.guess_segment_properties()
        hb.shape(self.font, buf, {})
        if any(info.codepoint == 0 for info in buf.glyph_infos):
            return None
        scale = size / self.upem
        width = sum(pos.x_advance for pos in buf.glyph_positions)
        shift = {"middle": width / 2, "end": width}.get(anchor, 0)
        pen = SVGPathPen(self.glyphs, ntos=lambda v: f"{v:.3f}".rstrip("0").rstrip("."))
        advance = 0
        for info, pos in zip(buf.glyph_infos, buf.glyph_positions):
            x = x0 + (advance + pos.x_offset - shift) * scale
            y = y0 - pos.y_offset * scale
            self.glyphs[self.order[info.codepoint]].draw(TransformPen(pen, (scale, 0, 0, -scale, x, y)))
            advance += pos.x_advance
        return pen.getCommands()


def _replace(el: etree._Element, d: str) -> None:
    """The ``<text>`` becomes a ``<g>`` keeping its paint, id, class, style and transform, holding its
    outlines as one ``<path>``."""
    el.tag = f"{{{_SVG}}}g"
    for attr in list(el.attrib):
        if attr in _TEXT_ONLY:
            del el.attrib[attr]
    el.text = None
    if d:
        etree.SubElement(el, f"{{{_SVG}}}path", d=d)
