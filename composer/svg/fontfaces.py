"""The faces a file embeds in ``@font-face`` rules (``src: url(data:font/woff2;base64,...)``), read for the import.

The sanitizer reads every ``<style>`` of a file; a ``@font-face`` rule whose ``src`` is a font in a ``data:``
URL hands its faces (:func:`faces_of_rule`: the font decoded by fontTools, WOFF and WOFF2 decompressed) to the
import, as elements of a private namespace at the end of the root (:func:`face_element`), which the import
takes out (:func:`taken_faces`) and draws its text in (:mod:`composer.text.embedded`).
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import re
import struct
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import tinycss2
from lxml import etree

#: the most bytes of embedded fonts one file may hand the import (decoded, and WOFF's and WOFF2's tables and
#: metadata as they decompress); past it, the rest are not used
MAX_EMBEDDED_FONT_BYTES = 32 * 1024 * 1024
#: the element in which the sanitizer leaves an embedded face for the import (a private namespace: no SVG)
FACE_TAG = "{urn:figure-composer:embedded-font}face"
_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")
WEIGHTS = {"normal": 400, "bold": 700, "lighter": 300, "bolder": 700}


@dataclass(frozen=True)
class Face:
    """One face a file embeds: its ``@font-face`` family (casefolded), weight (1-1000), style (``normal``,
    ``italic``, ``oblique``) and the font file as sfnt bytes (TrueType or OpenType; WOFF and WOFF2 are
    decompressed)."""

    family: str
    weight: int
    style: str
    data: bytes


def faces_of_rule(rule: tinycss2.ast.AtRule, limit_bytes: int = MAX_EMBEDDED_FONT_BYTES) -> tuple[list[Face], str]:
    """The faces one ``@font-face`` rule embeds (one per weight it names: ``font-weight: 300 700`` is a
    range, taken at its ends; a weight outside CSS's 1 to 1000 is invalid, and the face is ``normal``'s 400),
    and its family as written. No face when its ``src`` holds no ``data:`` font that fontTools reads (a web
    address: composer reads no URL), or one that is, or decompresses to, more than ``limit_bytes`` (what is
    left of :data:`MAX_EMBEDDED_FONT_BYTES` for the file: a WOFF2 of 250 KB can declare and hold 400 MB of
    tables)."""
    family, weight, style, data = "", "400", "normal", None
    for decl in tinycss2.parse_declaration_list(rule.content or [], skip_comments=True, skip_whitespace=True):
        if decl.type != "declaration":
            continue
        value = tinycss2.serialize(decl.value).strip()
        if decl.lower_name == "font-family":
            family = value.strip("'\"").strip()
        elif decl.lower_name == "font-weight":
            weight = value
        elif decl.lower_name == "font-style":
            style = value.split()[0].lower() if value else "normal"
        elif decl.lower_name == "src" and data is None:
            for token in decl.value:
                url = token.value if token.type == "url" else (
                    token.arguments[0].value if token.type == "function" and token.lower_name == "url"
                    and token.arguments and token.arguments[0].type == "string" else None)
                if url and url.strip().lower().startswith("data:"):
                    data = _sfnt(url.strip(), limit_bytes)
                    if data is not None:
                        break
    if not family or data is None:
        return [], family
    weights = [WEIGHTS.get(w.lower(), int(float(w)) if _NUMBER.match(w) and 1 <= float(w) <= 1000 else 400)
               for w in weight.split()[:2]]
    return [Face(family.casefold(), w, style if style in ("italic", "oblique") else "normal", data)
            for w in dict.fromkeys(weights)], family


def _sfnt(url: str, limit_bytes: int) -> bytes | None:
    """The font a ``data:`` URL holds, as sfnt bytes; None when it is not a font fontTools reads, or when
    it or what it decompresses to is more than ``limit_bytes`` (:func:`_unpacks_within`)."""
    from fontTools.ttLib import TTFont, TTLibError

    header, comma, payload = url[5:].partition(",")
    if not comma:
        return None
    try:
        raw = base64.b64decode(payload, validate=False) if header.lower().endswith(";base64") \
            else unquote_to_bytes(payload)
    except (binascii.Error, ValueError):
        return None
    if len(raw) > limit_bytes:
        return None
    try:
        if not _unpacks_within(raw, limit_bytes):
            return None
        with quiet_fonttools():
            font = TTFont(io.BytesIO(raw), lazy=False, recalcBBoxes=False, recalcTimestamp=False)
            font.ensureDecompiled()  # a damaged table fails here, not in the shaper
        if font.flavor is None:
            return raw
        font.flavor = None  # WOFF, WOFF2 (brotli): written out as the sfnt a shaper reads
        out = io.BytesIO()
        font.save(out)
        return out.getvalue() if out.tell() <= limit_bytes else None
    except (TTLibError, AssertionError, KeyError, ValueError, struct.error, ImportError, EOFError):
        return None  # not a font, a damaged one, or WOFF2 without brotli


def _unpacks_within(raw: bytes, limit_bytes: int) -> bool:
    """Whether a WOFF's or WOFF2's tables and metadata decompress to at most ``limit_bytes`` in all, found
    by decompressing each stream with its output bounded (zlib's ``max_length``, brotli's
    ``output_buffer_limit``) before fontTools decompresses them whole (it checks the sizes the header
    declares only afterwards: a decompression bomb would fill the memory first). Layouts: W3C WOFF 1.0,
    section 3-4 (44-byte header, 20-byte table entries); WOFF 2.0, sections 3-4 (48-byte header, entries
    of variable length read by fontTools' own ``WOFF2DirectoryEntry``). An sfnt (TrueType, OpenType) is
    true: it is its own size. Raises ``struct.error``, ``TTLibError`` on a truncated header."""
    if raw[:4] == b"wOFF":
        (_, _, _, tables, _, _, _, _, meta_at, meta_length, meta_size, _, _) = struct.unpack(
            ">4s4sLHHLHHLLLLL", raw[:44])
        entries = [struct.unpack(">4sLLLL", raw[44 + 20 * i:64 + 20 * i]) for i in range(tables)]
        total = sum(size for _, _, _, size, _ in entries) + meta_size
        if total > limit_bytes:
            return False
        streams = [(raw[at:at + length], size) for _, at, length, size, _ in entries if length < size]
        return all(_inflates_within(data, size) for data, size in
                   streams + ([(raw[meta_at:meta_at + meta_length], meta_size)] if meta_length else []))
    if raw[:4] == b"wOF2":
        from fontTools.ttLib.woff2 import WOFF2DirectoryEntry

        (_, flavor, _, tables, _, _, packed, _, _, meta_at, meta_length, meta_size, _, _) = struct.unpack(
            ">4s4sLHHLLHHLLLLL", raw[:48])
        if flavor == b"ttcf":
            return False  # a collection: fontTools' WOFF2 reader reads no collection directory
        rest, size = raw[48:], 0
        for _ in range(tables):
            entry = WOFF2DirectoryEntry()
            rest = entry.fromString(rest)
            size += entry.length
        if size + meta_size > limit_bytes:
            return False
        start = len(raw) - len(rest)
        return _unbrotli_within(raw[start:start + packed], size) and (
            not meta_length or _unbrotli_within(raw[meta_at:meta_at + meta_length], meta_size))
    return True


def _inflates_within(data: bytes, size: int) -> bool:
    try:
        return len(zlib.decompressobj().decompress(data, size + 1)) <= size
    except zlib.error:
        return False


def _unbrotli_within(data: bytes, size: int) -> bool:
    import brotli  # type: ignore[import-untyped]

    try:
        return len(brotli.Decompressor().process(data, output_buffer_limit=size + 1)) <= size
    except brotli.error:
        return False


@contextmanager
def quiet_fonttools():
    """fontTools logs what it finds odd in a font (an old ``head`` date): the file's business, not the
    user's; its errors still raise."""
    log = logging.getLogger("fontTools")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def face_element(face: Face) -> etree._Element:
    """The element in which the sanitizer hands a face to the import (:data:`FACE_TAG`)."""
    el = etree.Element(FACE_TAG, family=face.family, weight=str(face.weight), style=face.style)
    el.text = base64.b64encode(face.data).decode("ascii")
    return el


def taken_faces(root: etree._Element) -> list[Face]:
    """The faces the sanitizer left in the document (the root's last children), taken out of it."""
    faces = []
    while len(root) and root[-1].tag == FACE_TAG:
        el = root[-1]
        faces.append(Face(el.get("family", ""), int(el.get("weight", "400")), el.get("style", "normal"),
                          base64.b64decode(el.text or "")))
        root.remove(el)
    return faces[::-1]
