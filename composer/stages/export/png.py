"""PNG metadata and TIFF: what submission systems read from a raster, made from the engine's pixels.

A PNG carries its resolution in the ``pHYs`` chunk (pixels per metre, unit
byte 1) and its colour space in ``sRGB`` (PNG 1.2 / ISO 15948, sections
11.3.5.3 and 11.3.3.5). Neither resvg nor cairosvg writes them, so a 300 dpi
export opened in an editor or a journal's upload check reads as 72 dpi of an
unknown colour space. :func:`with_metadata` inserts both after ``IHDR``
(removing any the engine wrote), leaving the image data untouched, so the
pixels are exactly the engine's.

Texts (the figure's alt text as ``Description``, one of PNG's predefined keywords, section 11.3.4.2;
composer's provenance as ``composer-provenance``) are ``iTXt`` chunks (section 11.3.4.5: UTF-8, a
keyword of Latin-1), written here with the other chunks rather than through Pillow's ``PngInfo``,
which would encode the image data again (other bytes, and time at 300 dpi); Pillow reads them back
(``Image.open(...).text``).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Mapping

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: chunks :func:`with_metadata` writes itself, and the others that would contradict them
_REPLACED = {b"pHYs", b"sRGB", b"gAMA", b"cHRM", b"iCCP"}
#: texts longer than this (bytes of UTF-8) are stored zlib-compressed (the iTXt compression flag)
_COMPRESS_OVER = 1024
#: inches per metre (1 in = 0.0254 m exactly)
_M_PER_IN = 0.0254
#: sRGB rendering intent 0, "perceptual" (PNG 1.2, 11.3.3.5)
_PERCEPTUAL = 0


def chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The ``(type, data)`` chunks of a PNG, in file order.

    Raises:
        ValueError: not a PNG, or a chunk runs past the end of the bytes.
    """
    if not png.startswith(_SIGNATURE):
        raise ValueError("not a PNG")
    out, pos = [], len(_SIGNATURE)
    while pos < len(png):
        if pos + 8 > len(png):
            raise ValueError("truncated PNG chunk header")
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        if pos + 12 + length > len(png):
            raise ValueError(f"truncated PNG chunk {kind!r}")
        out.append((kind, png[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return out


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def with_metadata(png: bytes, *, dpi: float, texts: Mapping[str, str] | None = None) -> bytes:
    """The PNG with ``pHYs`` = ``dpi`` (as pixels per metre, rounded) and ``sRGB`` (perceptual), and an
    ``iTXt`` chunk per entry of ``texts`` (keyword -> text; empty texts are left out), after them.

    300 dpi is stored as round(300 / 0.0254) = 11811 pixels per metre, which
    reads back as 299.9994 dpi: PNG has no other way to say it.

    Raises:
        ValueError: ``png`` is not a PNG, or a keyword is not 1 to 79 printable Latin-1 characters.
    """
    ppm = round(dpi / _M_PER_IN)
    written = [_itxt(keyword, text) for keyword, text in (texts or {}).items() if text]
    out = [_SIGNATURE]
    for kind, data in chunks(png):
        if kind in _REPLACED or (kind == b"iTXt" and data.split(b"\0", 1)[0].decode("latin-1") in (texts or {})):
            continue
        out.append(_chunk(kind, data))
        if kind == b"IHDR":
            out.append(_chunk(b"sRGB", bytes([_PERCEPTUAL])))
            out.append(_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
            out += written
    return b"".join(out)


def _itxt(keyword: str, text: str) -> bytes:
    """One ``iTXt`` chunk: ``keyword`` NUL, compression flag and method, empty language tag and translated
    keyword, then ``text`` as UTF-8 (zlib-compressed, at level 9, when longer than :data:`_COMPRESS_OVER`)."""
    name = keyword.encode("latin-1", "strict") if all(32 <= ord(c) <= 126 or 161 <= ord(c) <= 255
                                                      for c in keyword) else b""
    if not 1 <= len(name) <= 79 or name != name.strip() or b"  " in name:
        raise ValueError(f"{keyword!r} is not a PNG text keyword (1 to 79 printable Latin-1 characters)")
    data = text.encode("utf-8")
    compressed = len(data) > _COMPRESS_OVER
    body = zlib.compress(data, 9) if compressed else data
    return _chunk(b"iTXt", name + b"\0" + bytes([int(compressed), 0]) + b"\0\0" + body)


def texts_of(png: bytes) -> dict[str, str]:
    """keyword -> text of every ``iTXt`` chunk of a PNG (decompressed), in file order.

    Raises:
        ValueError: not a PNG, or a chunk is cut short.
    """
    found: dict[str, str] = {}
    for kind, data in chunks(png):
        if kind != b"iTXt":
            continue
        keyword, _, rest = data.partition(b"\0")
        if len(rest) < 2:
            continue
        flag, body = rest[0], rest[2:]
        _, _, body = body.partition(b"\0")  # the language tag
        _, _, body = body.partition(b"\0")  # the translated keyword
        try:
            found[keyword.decode("latin-1")] = (zlib.decompress(body) if flag else body).decode("utf-8")
        except (zlib.error, UnicodeDecodeError):
            continue
    return found


def dpi_of(png: bytes) -> float | None:
    """The resolution a PNG's ``pHYs`` states, in dpi (None without one, or not in metres)."""
    for kind, data in chunks(png):
        if kind == b"pHYs" and len(data) == 9:
            x, _, unit = struct.unpack(">IIB", data)
            return x * _M_PER_IN if unit == 1 else None
    return None


def to_tiff(png: bytes, *, dpi: float, opaque: bool = False) -> bytes:
    """The PNG's pixels as an LZW-compressed TIFF with resolution tags = ``dpi``.

    RGB when ``opaque`` (the canvas paints a background) or every pixel is
    opaque: partly transparent pixels are then composited over white; RGBA
    otherwise.
    """
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        img.load()
        pixels: Image.Image = img
        if img.mode == "RGBA" and (opaque or img.getchannel("A").getextrema() == (255, 255)):
            white = Image.new("RGBA", img.size, (255, 255, 255, 255))
            pixels = Image.alpha_composite(white, img).convert("RGB")
        out = io.BytesIO()
        pixels.save(out, format="TIFF", compression="tiff_lzw", dpi=(dpi, dpi))
    return out.getvalue()
