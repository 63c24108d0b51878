"""Pictures' colours into sRGB, as a browser shows them: ICC profiles, CMYK, PNG ``gAMA``/``cHRM``.

Every export engine but one reads a picture's pixels as sRGB: resvg (the default PNG) ignores an
embedded ICC profile, ``gAMA`` and ``cHRM``, and decodes Adobe's inverted CMYK JPEG wrongly, while
svg2pdf passes a JPEG's bytes and a PNG's ICC profile into the PDF (``/DCTDecode /DeviceCMYK``,
``/ICCBased``), so the PDF viewer colour-manages them. The same file then came out in two colours
(measured: a ProPhoto RGB grey 128 was 128 in the PNG, 146 in pdfium's render of the PDF and in
Chromium; a CMYK JPEG pink in the PNG, blue in the PDF). :func:`to_srgb` converts the pixels once,
with LittleCMS (Pillow's :mod:`PIL.ImageCms`), before any engine sees them, so every output shows
the colours a browser shows, and a PNG export's ``sRGB`` chunk is true.

What counts, in the order a browser asks (measured on Chromium 156, headless, ``--force-color-profile=srgb``):

- CMYK (JPEG, with or without Adobe's APP14 marker, which Pillow and Chromium both read as inverted
  CMYK; YCCK is decoded to CMYK): with an embedded CMYK profile, through it (perceptual intent, the
  intent pdfium's LittleCMS uses too); without one, ``R = 255 (1 - C)(1 - K)`` per channel
  (Pillow's ``convert("RGB")``), the formula Blink's JPEG decoder applies;
- a PNG's ``sRGB`` chunk: the pixels are sRGB, whatever else the file says;
- an embedded ICC profile (PNG ``iCCP``, JPEG APP2, TIFF, WebP) of the image's colour space: through
  it, unless it maps every colour to within 1 of itself (an sRGB profile under another name: the
  file's bytes are kept). A profile that LittleCMS cannot read, or of another colour space, is
  ignored, as browsers ignore it;
- a PNG's ``gAMA`` with ``cHRM``: a profile built from both (:func:`rgb_profile`);
- ``gAMA`` alone: sRGB's primaries with that gamma, except a gamma within 5 % of 1/2.2 (Chromium
  draws 0.432 to 0.477 as sRGB and applies 0.4315 and 0.4775: measured with ramps); ``cHRM`` alone is
  ignored (as Chromium ignores it).

The alpha channel is kept as it is; 16-bit pictures are converted from their high byte, as Pillow
and Chromium both read them at 8 bits.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from PIL import Image, ImageCms

#: gamma of a PNG ``gAMA`` that browsers take for sRGB (1/2.2), and how far off it may be, relative
#: (Chromium 156: 0.432..0.477 drawn as sRGB, 0.4315 and 0.4775 applied; 5 % of 1/2.2 is 0.0227).
SRGB_GAMMA = 1 / 2.2
SRGB_GAMMA_TOLERANCE = 0.05
#: largest change (of 255) a profile may make to any colour and still count as sRGB (its bytes are kept).
SAME_AS_SRGB = 1
#: D50, the ICC profile connection space's white (ICC.1:2010, 7.2.16), as XYZ.
D50_XYZ = (0.9642, 1.0, 0.8249)
#: sRGB's primaries and white, CIE xy (IEC 61966-2-1): red, green, blue, D65.
SRGB_PRIMARIES_XY = ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06))
D65_XY = (0.3127, 0.3290)
#: the Bradford cone-response matrix (Lam 1985; ICC.1:2010 Annex E), for adapting primaries to D50.
_BRADFORD = np.array([[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]])


@dataclass(frozen=True)
class Converted:
    """A picture's pixels in sRGB (mode ``RGB`` or ``RGBA``) and what they were converted from, in a few
    words (``ICC profile 'ProPhoto RGB'``, ``CMYK without a profile``, ``PNG gAMA 1``)."""

    image: Image.Image
    source: str


def to_srgb(img: Image.Image) -> Converted | None:
    """The pixels of the decoded picture ``img`` in sRGB, or None when they already are (see the module
    docstring for what counts) or LittleCMS cannot apply the file's profile (it is ignored, as a
    browser ignores a profile it cannot use). ``img``'s ``info`` is read (``icc_profile``, ``srgb``,
    ``gamma``, ``chromaticity``: Pillow's names for the file's colour data); ``img`` is not changed."""
    from PIL import ImageCms

    try:
        return _to_srgb(img)
    except (ImageCms.PyCMSError, OSError, ValueError):
        return None


def _to_srgb(img: Image.Image) -> Converted | None:
    from PIL import ImageCms

    info = img.info
    if img.mode == "CMYK":
        profile = _profile(info.get("icc_profile"), "CMYK")
        if profile is None:
            return Converted(_plain(img.convert("RGB")), "CMYK without a profile")
        converted = ImageCms.profileToProfile(img, profile, _srgb(), outputMode="RGB",
                                              renderingIntent=ImageCms.Intent.PERCEPTUAL)
        assert converted is not None
        return Converted(_plain(converted), f"CMYK, ICC profile {_name(profile)!r}")
    if "srgb" in info:
        return None
    colour, alpha = _split(img)
    space = "GRAY" if colour.mode == "L" else "RGB"
    profile = _profile(info.get("icc_profile"), space)
    if profile is not None:
        if _same_as_srgb(bytes(info["icc_profile"]), space):
            return None
        source = f"ICC profile {_name(profile)!r}"
    elif "icc_profile" not in info and isinstance(info.get("gamma"), float) and info["gamma"] > 0:
        gamma = info["gamma"]
        chromaticity = info.get("chromaticity")
        if chromaticity is not None and len(chromaticity) == 8:
            white, primaries = chromaticity[:2], (chromaticity[2:4], chromaticity[4:6], chromaticity[6:8])
            source = f"PNG gAMA {gamma:g} and cHRM"
        elif abs(gamma - SRGB_GAMMA) <= SRGB_GAMMA_TOLERANCE * SRGB_GAMMA:
            return None
        else:
            white, primaries = D65_XY, SRGB_PRIMARIES_XY
            source = f"PNG gAMA {gamma:g}"
        try:
            data = rgb_profile(white, primaries, 1 / gamma, name=source)
        except ValueError:  # degenerate chromaticities (a zero y, collinear primaries): ignored, as browsers do
            return None
        profile = ImageCms.ImageCmsProfile(io.BytesIO(data))
        if colour.mode == "L":
            colour = colour.convert("RGB")
    else:
        return None
    converted = ImageCms.profileToProfile(colour, profile, _srgb(), outputMode="RGB",
                                          renderingIntent=ImageCms.Intent.PERCEPTUAL)
    assert converted is not None
    if alpha is not None:
        converted.putalpha(alpha)
    return Converted(_plain(converted), source)


def _plain(img: Image.Image) -> Image.Image:
    """``img`` with no colour data: LittleCMS tags its output with an sRGB profile stamped with today's
    date, which a PNG written from it would carry (and the same input would give other bytes tomorrow)."""
    img.info = {}
    return img


def _split(img: Image.Image) -> tuple[Image.Image, Image.Image | None]:
    """``img`` as 8-bit ``L`` or ``RGB`` pixels and its alpha channel (None without one): palettes
    expanded (with their transparency), 16-bit grey reduced to its high byte."""
    from PIL import Image as PILImage

    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        values = np.asarray(img).astype(np.uint32)
        grey = PILImage.fromarray((np.clip(values, 0, 65535) >> 8).astype(np.uint8), "L")
        if "transparency" in img.info and isinstance(img.info["transparency"], int):
            alpha = PILImage.fromarray(np.where(values == img.info["transparency"], 0, 255).astype(np.uint8), "L")
            return grey, alpha
        return grey, None
    if img.mode in ("P", "PA"):
        img = img.convert("RGBA" if img.mode == "PA" or "transparency" in img.info else "RGB")
    elif img.mode in ("L", "RGB") and "transparency" in img.info:
        img = img.convert("LA" if img.mode == "L" else "RGBA")
    elif img.mode == "1":
        img = img.convert("L")
    elif img.mode not in ("L", "LA", "RGB", "RGBA"):
        img = img.convert("RGBA")
    if img.mode in ("LA", "RGBA"):
        return img.convert(img.mode[:-1]), img.getchannel("A")
    return img, None


def _profile(data: object, space: str) -> ImageCms.ImageCmsProfile | None:
    """The embedded profile ``data`` if LittleCMS reads it and it is of colour space ``space``."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        return None
    return _read_profile(bytes(data), space)


@lru_cache(maxsize=16)
def _read_profile(data: bytes, space: str) -> ImageCms.ImageCmsProfile | None:
    from PIL import ImageCms

    try:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(data))
    except (OSError, ImageCms.PyCMSError, ValueError, TypeError):
        return None
    return profile if profile.profile.xcolor_space.strip() == space else None


def _name(profile: ImageCms.ImageCmsProfile) -> str:
    return " ".join((profile.profile.profile_description or "unnamed").split())


@lru_cache(maxsize=1)
def _srgb() -> ImageCms.ImageCmsProfile:
    from PIL import ImageCms

    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


@lru_cache(maxsize=16)
def _same_as_srgb(data: bytes, space: str) -> bool:
    """Whether the profile ``data`` maps every colour of a 17-step grid (grey: every level) to within
    :data:`SAME_AS_SRGB` of itself in sRGB."""
    from PIL import Image, ImageCms

    profile = _read_profile(data, space)
    assert profile is not None
    if space == "GRAY":
        probe = Image.fromarray(np.arange(256, dtype=np.uint8).reshape(16, 16), "L")
        expected = np.repeat(np.asarray(probe)[..., None], 3, axis=2)
    else:
        steps = np.linspace(0, 255, 17).round().astype(np.uint8)
        grid = np.stack(np.meshgrid(steps, steps, steps, indexing="ij"), axis=-1).reshape(17 * 17, 17, 3)
        probe = Image.fromarray(grid, "RGB")
        expected = grid
    out = ImageCms.profileToProfile(probe, profile, _srgb(), outputMode="RGB",
                                    renderingIntent=ImageCms.Intent.PERCEPTUAL)
    assert out is not None
    return int(np.abs(np.asarray(out).astype(int) - expected.astype(int)).max()) <= SAME_AS_SRGB


# ------------------------------------------------------------------ an ICC profile from PNG colour data

def _xyz(xy: tuple[float, float]) -> np.ndarray:
    x, y = xy
    if y <= 0:
        raise ValueError(f"chromaticity y {y} must be above 0")
    return np.array([x / y, 1.0, (1 - x - y) / y])


def colorants_d50(white_xy: tuple[float, float],
                  primaries_xy: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]) -> np.ndarray:
    """The RGB -> XYZ matrix (columns: red, green, blue; white Y = 1) of primaries and a white given in
    CIE xy, adapted to D50 with Bradford: the ``rXYZ``/``gXYZ``/``bXYZ`` tags of an ICC profile
    (ICC.1:2010, 9.2 and Annex E).

    Raises:
        ValueError: a y of 0 or less, or primaries that span no colour space (a singular matrix).
    """
    columns = np.stack([_xyz(p) for p in primaries_xy], axis=1)
    white = _xyz(white_xy)
    try:
        scale = np.linalg.solve(columns, white)
    except np.linalg.LinAlgError:
        raise ValueError("the primaries span no colour space") from None
    to_xyz = columns * scale
    cone_src, cone_dst = _BRADFORD @ white, _BRADFORD @ np.array(D50_XYZ)
    adapt = np.linalg.inv(_BRADFORD) @ np.diag(cone_dst / cone_src) @ _BRADFORD
    return adapt @ to_xyz


def rgb_profile(white_xy: tuple[float, float],
                primaries_xy: tuple[tuple[float, float], tuple[float, float], tuple[float, float]],
                gamma: float, *, name: str) -> bytes:
    """A matrix/TRC RGB display profile (ICC v2.1) of the given primaries and white (CIE xy) and the
    transfer ``V = L ** (1 / gamma)`` (``gamma`` is the decoding exponent: 2.2 for a PNG ``gAMA`` of
    0.45455), named ``name``. What a PNG's ``gAMA`` and ``cHRM`` chunks say (PNG 3rd ed., 11.3.2.2 and
    11.3.2.3), in the form LittleCMS reads.

    Raises:
        ValueError: see :func:`colorants_d50`; a gamma not above 0 or beyond 255.99 (an ICC ``curv``
            stores it in 8.8 fixed point).
    """
    if not 0 < gamma < 256:
        raise ValueError(f"gamma {gamma} is outside what an ICC curve holds")
    matrix = colorants_d50(white_xy, primaries_xy)
    trc = b"curv" + bytes(4) + struct.pack(">IH", 1, max(1, round(gamma * 256))) + bytes(2)
    text = name.encode("ascii", "replace") + b"\0"
    tags = [(b"desc", b"desc" + bytes(4) + struct.pack(">I", len(text)) + text + bytes(8) + bytes(3 + 67)),
            (b"cprt", b"text" + bytes(4) + b"made by composer from PNG colour chunks\0"),
            (b"wtpt", _xyz_tag(D50_XYZ)),
            (b"rXYZ", _xyz_tag(matrix[:, 0])), (b"gXYZ", _xyz_tag(matrix[:, 1])), (b"bXYZ", _xyz_tag(matrix[:, 2])),
            (b"rTRC", trc), (b"gTRC", trc), (b"bTRC", trc)]
    return _icc(b"mntr", b"RGB ", tags)


def _s15(value: float) -> bytes:
    return struct.pack(">i", round(float(value) * 65536))


def _xyz_tag(xyz) -> bytes:
    return b"XYZ " + bytes(4) + b"".join(_s15(v) for v in xyz)


def _icc(kind: bytes, space: bytes, tags: list[tuple[bytes, bytes]]) -> bytes:
    """An ICC v2.1 profile (ICC.1:2001-04, 6.1 header, 6.2 tag table) of ``tags``, each padded to 4 bytes."""
    table_len = 4 + 12 * len(tags)
    table, body = [struct.pack(">I", len(tags))], b""
    for sig, data in tags:
        data += bytes(-len(data) % 4)
        table.append(sig + struct.pack(">II", 128 + table_len + len(body), len(data)))
        body += data
    header = (struct.pack(">I", 128 + table_len + len(body)) + bytes(4) + struct.pack(">I", 0x02100000) + kind
              + space + b"XYZ " + bytes(12) + b"acsp" + bytes(4 + 4 + 4 + 4 + 8) + struct.pack(">I", 0)
              + b"".join(_s15(v) for v in D50_XYZ) + bytes(4 + 16 + 28))
    assert len(header) == 128
    return header + b"".join(table) + body
