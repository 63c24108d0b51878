"""Pictures colour-managed into sRGB in every output (issue #23, item 3: ICC profiles, CMYK, PNG gAMA/cHRM).

Every picture is made here: flat patches of one colour, with ICC profiles built in this file from
published colorants (:func:`rgb_profile`: a matrix/TRC profile, the form of ProPhoto, Adobe RGB and
Display P3). The expected sRGB value of each patch is worked out by hand from the same published
numbers: decode the file's values with its curve, map them to XYZ (D50) with its matrix, back to
linear sRGB with sRGB's D50 matrix (Lindbloom's, Bradford-adapted), and encode with sRGB's curve
(IEC 61966-2-1). A ProPhoto RGB grey 128 is (128/255)^1.8 = 0.2896 linear, which sRGB encodes as
146, not 128. A CMYK JPEG without a profile is ``255 (1 - C)(1 - K)`` per channel (Blink's formula).

One figure holds every case (one build): an imported SVG whose pictures are ``data:`` URIs (row 1)
and image panels read from files (row 2), each patch drawn 16 x 16 pt, exported at 72 dpi (1 px =
1 pt); the PNG, pdfium's render of the PDF, and the picture inlined in the SVG (what Chromium shows
of it, since it carries no colour data any more) are each read at the patch's centre.
"""

from __future__ import annotations

import base64
import io
import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageCms

from composer.pipeline import build
from conftest import layout_project, pdf_pixels

S = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
PITCH_PT, PATCH_PT = 20, 16

# ------------------------------------------------------------------ colour data, from published numbers

#: sRGB's RGB -> XYZ (D50) matrix (B. Lindbloom, "RGB/XYZ matrices", Bradford-adapted), and its inverse
SRGB_D50 = np.array([[0.4360747, 0.3850649, 0.1430804], [0.2225045, 0.7168786, 0.0606169],
                     [0.0139322, 0.0971045, 0.7141733]])
#: ProPhoto RGB (ROMM, ISO 22028-2: native D50, gamma 1.8), Adobe RGB (1998) (gamma 563/256), Display P3 (sRGB curve)
PROPHOTO_D50 = np.array([[0.7976749, 0.1351917, 0.0313534], [0.2880402, 0.7118741, 0.0000857],
                         [0.0, 0.0, 0.8252100]])
ADOBE_D50 = np.array([[0.6097559, 0.2052401, 0.1492240], [0.3111242, 0.6256560, 0.0632197],
                      [0.0194811, 0.0608902, 0.7448387]])
P3_D50 = np.array([[0.515102, 0.291965, 0.157153], [0.241182, 0.692236, 0.066582],
                   [-0.001049, 0.041882, 0.784378]])


def srgb_decode(v):
    v = np.asarray(v, float)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def srgb_encode(lin):
    lin = np.clip(np.asarray(lin, float), 0, 1)
    return np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)


def expected(rgb, matrix, decode) -> tuple[int, ...]:
    """The sRGB value (0..255) of ``rgb`` in a space of D50 ``matrix`` and transfer ``decode``."""
    lin = matrix @ decode(np.asarray(rgb, float) / 255)
    return tuple(int(v) for v in np.round(srgb_encode(np.linalg.solve(SRGB_D50, lin)) * 255))


def _s15(v: float) -> bytes:
    return struct.pack(">i", round(v * 65536))


def rgb_profile(name: str, matrix: np.ndarray, curve: bytes) -> bytes:
    """A matrix/TRC ICC v2 display profile (ICC.1:2001-04): header, tag table, desc/wtpt/XYZ/TRC tags."""
    xyz = [b"XYZ " + bytes(4) + b"".join(_s15(v) for v in col) for col in matrix.T]
    text = name.encode() + b"\0"
    tags = [(b"desc", b"desc" + bytes(4) + struct.pack(">I", len(text)) + text + bytes(78)),
            (b"wtpt", b"XYZ " + bytes(4) + _s15(0.9642) + _s15(1.0) + _s15(0.8249)),
            (b"rXYZ", xyz[0]), (b"gXYZ", xyz[1]), (b"bXYZ", xyz[2]),
            (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
    table, body, start = [struct.pack(">I", len(tags))], b"", 128 + 4 + 12 * len(tags)
    for sig, data in tags:
        data += bytes(-len(data) % 4)
        table.append(sig + struct.pack(">II", start + len(body), len(data)))
        body += data
    header = (struct.pack(">I", start + len(body)) + bytes(4) + struct.pack(">I", 0x02100000) + b"mntrRGB XYZ "
              + bytes(12) + b"acsp" + bytes(24) + bytes(4) + _s15(0.9642) + _s15(1.0) + _s15(0.8249) + bytes(48))
    return header + b"".join(table) + body


def gamma_curve(g: float) -> bytes:
    return b"curv" + bytes(4) + struct.pack(">IH", 1, round(g * 256)) + bytes(2)


SRGB_CURVE = (b"para" + bytes(4) + struct.pack(">H", 3) + bytes(2) + _s15(2.4) + _s15(1 / 1.055)
              + _s15(0.055 / 1.055) + _s15(1 / 12.92) + _s15(0.04045))  # ICC parametric type 3, sRGB's curve
PROPHOTO = rgb_profile("ProPhoto RGB", PROPHOTO_D50, gamma_curve(1.8))
ADOBE = rgb_profile("Adobe RGB (1998)", ADOBE_D50, gamma_curve(563 / 256))
P3 = rgb_profile("Display P3", P3_D50, SRGB_CURVE)


def png_file(arr: np.ndarray, colour_type: int, bits: int = 8, chunks=()) -> bytes:
    """A PNG written by hand (PNG 3rd ed., 5 and 11): ``arr`` (H, W, C) samples, extra ``(type, data)``
    chunks before IDAT (Pillow writes neither 16-bit RGB nor gAMA/cHRM)."""
    h = arr.shape[0]
    rows = b"".join(b"\0" + arr[y].astype(">u2" if bits == 16 else "u1").tobytes() for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = chunk(b"IHDR", struct.pack(">IIBBBBB", arr.shape[1], h, bits, colour_type, 0, 0, 0))
    return (b"\x89PNG\r\n\x1a\n" + head + b"".join(chunk(k, d) for k, d in chunks) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def gama(g: float) -> tuple[bytes, bytes]:
    return b"gAMA", struct.pack(">I", round(g * 100000))


def iccp(profile: bytes) -> tuple[bytes, bytes]:
    return b"iCCP", b"test\0\0" + zlib.compress(profile)


def saved(img: Image.Image, fmt: str, **params) -> bytes:
    out = io.BytesIO()
    img.save(out, format=fmt, **params)
    return out.getvalue()


def flat(colour, mode="RGB", size=8) -> Image.Image:
    return Image.new(mode, (size, size), colour)


def without_app14(jpeg: bytes) -> bytes:
    """The JPEG without its Adobe APP14 segment (FF EE, length): a CMYK JPEG as non-Adobe tools write it."""
    at = jpeg.index(b"\xff\xee")
    return jpeg[:at] + jpeg[at + 2 + struct.unpack(">H", jpeg[at + 2:at + 4])[0]:]


BROWN = (150, 100, 60)
CMYK = (128, 51, 0, 26)  # C 0.502, M 0.2, Y 0, K 0.102
CMYK_RGB = tuple(round(255 * (1 - c / 255) * (1 - CMYK[3] / 255)) for c in CMYK[:3])  # (114, 183, 229)
ADOBE_CHRM = struct.pack(">8I", 31270, 32900, 64000, 33000, 21000, 71000, 15000, 6000)  # D65 white, Adobe primaries
GREY_LIN1 = int(np.round(srgb_encode(128 / 255) * 255))  # 128 stored linearly (gAMA 1.0) -> 188


def half_over_white(value: int) -> int:
    return round(value * 128 / 255 + 255 * 127 / 255)


#: the imported SVG's pictures: name -> (MIME, bytes, expected sRGB on white)
DATA_URI_CASES = {
    "prophoto_grey": ("image/png", saved(flat((128,) * 3), "PNG", icc_profile=PROPHOTO), (146,) * 3),
    "prophoto_brown": ("image/png", saved(flat(BROWN), "PNG", icc_profile=PROPHOTO),
                       expected(BROWN, PROPHOTO_D50, lambda v: v ** 1.8)),
    "adobe_brown": ("image/png", saved(flat(BROWN), "PNG", icc_profile=ADOBE),
                    expected(BROWN, ADOBE_D50, lambda v: v ** (563 / 256))),
    "p3_brown_jpeg": ("image/jpeg", saved(flat(BROWN), "JPEG", quality=100, icc_profile=P3),
                      expected(BROWN, P3_D50, srgb_decode)),
    "cmyk_adobe": ("image/jpeg", saved(flat(CMYK, "CMYK"), "JPEG", quality=100), CMYK_RGB),
    "gama1": ("image/png", png_file(np.full((8, 8, 3), 128), 2, chunks=[gama(1.0)]), (GREY_LIN1,) * 3),
    "gama_chrm": ("image/png", png_file(np.full((8, 8, 3), BROWN), 2, chunks=[gama(1 / 2.2), (b"cHRM", ADOBE_CHRM)]),
                  expected(BROWN, ADOBE_D50, lambda v: v ** 2.2)),
    "gama_srgbish": ("image/png", png_file(np.full((8, 8, 3), 128), 2, chunks=[gama(0.45455)]), (128,) * 3),
    "grey_alpha_gama1": ("image/png", png_file(np.full((8, 8, 2), (128, 128)), 4, chunks=[gama(1.0)]),
                         (half_over_white(GREY_LIN1),) * 3),
    "rgb16_prophoto": ("image/png", png_file(np.full((8, 8, 3), 128 * 257), 2, 16, chunks=[iccp(PROPHOTO)]),
                       (146,) * 3),
    "grey16_gama1": ("image/png", png_file(np.full((8, 8, 1), 128 * 257), 0, 16, chunks=[gama(1.0)]),
                     (GREY_LIN1,) * 3),
    "chrm_only": ("image/png", png_file(np.full((8, 8, 3), BROWN), 2, chunks=[(b"cHRM", ADOBE_CHRM)]), BROWN),
}


def palette_png() -> bytes:
    """8 x 8, palette (index 0 transparent black, 1 opaque grey 128), the left half transparent, gAMA 1.0."""
    img = Image.new("P", (8, 8), 1)
    img.putpalette([0, 0, 0, 128, 128, 128])
    img.paste(0, (0, 0, 4, 8))
    plain = saved(img, "PNG", transparency=bytes([0, 255]))
    kind, data = gama(1.0)
    chunk = struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return plain[:33] + chunk + plain[33:]  # after the signature (8 bytes) and IHDR (25), before PLTE


#: a CMYK press profile (Artifex's SWOP profile, shipped by Debian's libgs-common with ghostscript, which CI
#: installs): a CMYK JPEG that embeds it is shown through it by Chromium and pdfium, not by the formula
SWOP = Path("/usr/share/color/icc/ghostscript/default_cmyk.icc")


def through_swop(cmyk: tuple[int, ...]) -> tuple[int, ...]:
    """``cmyk`` through the SWOP profile into sRGB, perceptual intent (the A2B0 table, as pdfium's LittleCMS
    and Chromium's skcms take it), by LittleCMS directly: (114, 161, 204), where the formula without a
    profile gives (114, 183, 229)."""
    converted = ImageCms.profileToProfile(flat(cmyk, "CMYK", 1), ImageCms.ImageCmsProfile(str(SWOP)),
                                          ImageCms.createProfile("sRGB"), outputMode="RGB",
                                          renderingIntent=ImageCms.Intent.PERCEPTUAL)
    return tuple(converted.getpixel((0, 0)))


#: image panels read from files: name -> (file name, bytes, expected sRGB)
FILE_CASES = {
    "cmyk_swop": ("c.jpg", saved(flat(CMYK, "CMYK", 16), "JPEG", quality=100, icc_profile=SWOP.read_bytes()),
                  through_swop(CMYK)),
    "prophoto_jpeg": ("a.jpg", saved(flat((128,) * 3, size=16), "JPEG", quality=100, icc_profile=PROPHOTO),
                      (146,) * 3),
    "cmyk_no_app14": ("b.jpg", without_app14(saved(flat(CMYK, "CMYK", 16), "JPEG", quality=100)), CMYK_RGB),
}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """(PNG pixels, PDF pixels, SVG bytes) of the one figure holding every case."""
    tmp = tmp_path_factory.mktemp("srgb")
    cases = dict(DATA_URI_CASES, palette_gama1=("image/png", palette_png(), None))
    images = "".join(
        f'<image x="{i * PITCH_PT + 2}" y="2" width="{PATCH_PT}" height="{PATCH_PT}" preserveAspectRatio="none" '
        f'xlink:href="data:{mime};base64,{base64.b64encode(data).decode()}"/>'
        for i, (mime, data, _) in enumerate(cases.values()))
    width = PITCH_PT * len(cases)
    panels = "".join(f'''
[panels.{name}]
image = "../assets/{file}"
at = ["{i * PITCH_PT + 2}pt", "{PITCH_PT + 2}pt"]
size = ["{PATCH_PT}pt", "{PATCH_PT}pt"]
''' for i, (name, (file, _, _)) in enumerate(FILE_CASES.items()))
    root = layout_project(tmp, f'''
[panels.imported]
svg = "../assets/a.svg"
at = ["0pt", "0pt"]
size = ["{width}pt", "{PITCH_PT}pt"]
''' + panels, head=f'width = "{width}pt"\nheight = "{2 * PITCH_PT}pt"\nraster_ppi = 1\n')
    (root / "assets").mkdir()
    (root / "assets" / "a.svg").write_text(f'<svg {S} width="{width}" height="{PITCH_PT}" '
                                           f'viewBox="0 0 {width} {PITCH_PT}">{images}</svg>', encoding="utf-8")
    for file, data, _ in FILE_CASES.values():
        (root / "assets" / file).write_bytes(data)
    build("fig", root=root, formats=("svg", "png", "pdf"), dpi=72, cache=False)
    out = root / "build"
    with Image.open(out / "fig.png") as img:
        rgba = np.asarray(img.convert("RGBA")).astype(float)
    png = (rgba[..., :3] * rgba[..., 3:] / 255 + 255 * (1 - rgba[..., 3:] / 255)).round().astype(int)
    return png, pdf_pixels(out / "fig.pdf"), (out / "fig.svg").read_bytes(), out / "fig.png"


def centre(i: int, row: int) -> tuple[int, int]:
    return row * PITCH_PT + 2 + PATCH_PT // 2, i * PITCH_PT + 2 + PATCH_PT // 2


@pytest.mark.parametrize("name", list(DATA_URI_CASES))
def test_pictures_in_an_imported_svg_come_out_in_srgb(outputs, name):
    """Each data-URI picture's patch, in the PNG and in pdfium's render of the PDF, is the sRGB value
    worked out by hand (within 2 of 255: JPEG and LittleCMS's rounding)."""
    png, pdf, _, _ = outputs
    i = list(DATA_URI_CASES).index(name)
    y, x = centre(i, 0)
    want = DATA_URI_CASES[name][2]
    for px in (png, pdf):
        assert np.abs(px[y, x] - np.array(want)).max() <= 2, (name, px[y, x].tolist(), want)


@pytest.mark.parametrize("name", list(FILE_CASES))
def test_image_panels_come_out_in_srgb(outputs, name):
    """A ProPhoto JPEG panel, a CMYK JPEG without Adobe's APP14 marker (read as inverted CMYK, as Blink
    and Pillow read every CMYK JPEG), and a CMYK JPEG embedding a SWOP press profile (through it): the
    sRGB value worked out by hand (or by LittleCMS alone, for the profile's tables) in the PNG and the PDF."""
    png, pdf, _, _ = outputs
    y, x = centre(list(FILE_CASES).index(name), 1)
    want = FILE_CASES[name][2]
    for px in (png, pdf):
        assert np.abs(px[y, x] - np.array(want)).max() <= 2, (name, px[y, x].tolist(), want)


def test_a_palette_with_transparency_keeps_it_through_the_conversion(outputs):
    """Palette PNG, left half transparent, right half grey 128 stored linearly (gAMA 1.0): white, then 188."""
    png, pdf, _, _ = outputs
    i = len(DATA_URI_CASES)
    y, x0 = i * 0 + 10, i * PITCH_PT + 2
    for px in (png, pdf):
        assert np.abs(px[y, x0 + 3] - 255).max() <= 2, px[y, x0 + 3]
        assert np.abs(px[y, x0 + 12] - GREY_LIN1).max() <= 2, px[y, x0 + 12]


def test_the_svg_inlines_srgb_pixels_and_the_png_claims_srgb(outputs):
    """The composed SVG's pictures (document order: the imported SVG's, then the panels') carry no colour
    data a browser would apply a second time (no ICC profile, gAMA or cHRM: it shows their values as
    sRGB), and their values are the sRGB ones; the pictures already sRGB-like (gAMA 0.45455; cHRM alone) are inlined
    byte for byte; the PNG export says ``sRGB`` and nothing else about colour."""
    _, _, svg, png_path = outputs
    uris = re.findall(rb'href="data:image/[a-z]+;base64,([^"]+)"', svg)
    cases = list(DATA_URI_CASES.items()) + [("palette_gama1", None)] + list(FILE_CASES.items())
    assert len(uris) == len(cases)
    for (name, case), b64 in zip(cases, uris, strict=True):
        data = base64.b64decode(b64)
        if name in ("gama_srgbish", "chrm_only"):  # sRGB as it is (cHRM without gAMA: Chromium ignores it)
            assert data == case[1]
            continue
        with Image.open(io.BytesIO(data)) as img:
            assert not {"icc_profile", "gamma", "chromaticity"} & set(img.info), (name, img.info.keys())
            if case is None:
                continue
            rgba = np.asarray(img.convert("RGBA"))[img.height // 2, img.width // 2].astype(float)
        shown = rgba[:3] * rgba[3] / 255 + 255 * (1 - rgba[3] / 255)
        assert np.abs(shown - np.array(case[2])).max() <= 2.5, (name, shown.tolist(), case[2])
    kinds = [k for k, _ in _chunks(png_path.read_bytes())]
    assert b"sRGB" in kinds and not {b"iCCP", b"gAMA", b"cHRM"} & set(kinds)


def _chunks(png: bytes):
    pos = 8
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        yield kind, png[pos + 8:pos + 8 + length]
        pos += 12 + length


def test_an_srgb_profile_keeps_the_file_as_it_is():
    """A JPEG carrying an sRGB profile (LittleCMS's own) is sRGB already: its bytes are inlined unchanged."""
    from composer.svg.images import displayed_raster

    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    data = saved(flat(BROWN), "JPEG", quality=90, icc_profile=srgb)
    shown = displayed_raster(data, max_pixels=10_000)
    assert shown.data == data and shown.mime == "image/jpeg" and shown.changed == ""


def test_a_converted_picture_says_what_it_was():
    from composer.svg.images import displayed_raster

    shown = displayed_raster(DATA_URI_CASES["prophoto_grey"][1], max_pixels=10_000)
    assert shown.mime == "image/png" and "ProPhoto RGB" in shown.changed
    with Image.open(io.BytesIO(shown.data)) as img:
        assert img.getpixel((0, 0))[:3] == (146, 146, 146)


def test_a_profile_littlecms_cannot_read_is_ignored_as_browsers_ignore_it():
    """A PNG whose iCCP holds no ICC profile (a broken writer's): drawn as its values, the file kept."""
    from composer.svg.images import displayed_raster

    data = png_file(np.full((4, 4, 3), BROWN), 2, chunks=[iccp(b"not an ICC profile" * 8)])
    shown = displayed_raster(data, max_pixels=10_000)
    assert shown.data == data and shown.changed == ""
