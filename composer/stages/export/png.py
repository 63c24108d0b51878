"""PNG metadata and TIFF: what submission systems read from a raster, made from the engine's pixels.

A PNG carries its resolution in the ``pHYs`` chunk (pixels per metre, unit
byte 1) and its colour space in ``sRGB`` (PNG 1.2 / ISO 15948, sections
11.3.5.3 and 11.3.3.5). Neither resvg nor cairosvg writes them, so a 300 dpi
export opened in an editor or a journal's upload check reads as 72 dpi of an
unknown colour space. :func:`with_metadata` inserts both after ``IHDR``
(removing any the engine wrote), leaving the image data untouched, so the
pixels are exactly the engine's.
"""

from __future__ import annotations

import io
import struct
import zlib

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: chunks :func:`with_metadata` writes itself, and the others that would contradict them
_REPLACED = {b"pHYs", b"sRGB", b"gAMA", b"cHRM", b"iCCP"}
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


def with_metadata(png: bytes, *, dpi: float) -> bytes:
    """The PNG with ``pHYs`` = ``dpi`` (as pixels per metre, rounded) and ``sRGB`` (perceptual).

    300 dpi is stored as round(300 / 0.0254) = 11811 pixels per metre, which
    reads back as 299.9994 dpi: PNG has no other way to say it.

    Raises:
        ValueError: ``png`` is not a PNG.
    """
    ppm = round(dpi / _M_PER_IN)
    out = [_SIGNATURE]
    for kind, data in chunks(png):
        if kind in _REPLACED:
            continue
        out.append(_chunk(kind, data))
        if kind == b"IHDR":
            out.append(_chunk(b"sRGB", bytes([_PERCEPTUAL])))
            out.append(_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
    return b"".join(out)


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
