"""Issue #23 item 3, gaps found on the real-file corpus: each input is written here, checked on PNG pixels
and on pdfium's render of the PDF (72 dpi, 1 pt = 1 px), against values worked out by hand.

One build (the module's fixture) composes every case as a panel of one canvas:

    u  a UTF-16 SVG                          at (0, 0),   30 x 15
    r  a picture linked by https:            at (40, 0),  20 x 10
    h  an Ultra HDR JPEG in an <image>        at (90, 0),  40 x 20
    f  text in matplotlib's font list         at (0, 20),  80 x 40
    c  CSS Color 4 colours, 8 strips of 5 px  at (90, 30), 40 x 10
"""

from __future__ import annotations

import io
import logging

import pytest
from conformance_helpers import HEAD, compose, near
from PIL import Image

from composer.stages.export import canvas_size_pt

UTF16 = (f'<?xml version="1.0" encoding="UTF-16"?>\n<svg {HEAD} width="40" height="20" viewBox="0 0 4 2">'
         '<rect width="2" height="2" fill="#ff0000"/><rect x="2" width="2" height="2" fill="#0000ff"/></svg>')
URL = "https://example.org/logo.png"
REMOTE = (f'<svg {HEAD} width="20" height="10"><rect width="10" height="10" fill="#00ff00"/>'
          f'<image x="10" width="10" height="10" href="{URL}"/><image x="10" width="5" height="5" '
          f'xlink:href="{URL}"/></svg>')
MPL_FONTS = ("'DejaVu Sans', 'Bitstream Vera Sans', 'Computer Modern Sans Serif', 'Lucida Grande', 'Verdana', "
             "'Geneva', 'Lucid', 'Arial', 'Helvetica', 'Avant Garde', sans-serif")
FONTS = (f'<svg {HEAD} width="80" height="40"><text x="2" y="16" style="font: 14px {MPL_FONTS}">Mm</text>'
         '<text x="2" y="36" style="font-family: Verdana, sans-serif; font-size: 14px">Ww</text></svg>')
#: each strip's colour, and the sRGB it is, worked out by hand from CSS Color 4's definitions: the oklch,
#: oklab, lab and lch values are CSS's own coordinates of #ff0000 (its section 9/10 examples: red is
#: lab(54.29 80.8 69.89), oklch(0.628 0.2577 29.23)); L* = 50 is the grey 119 (CIE: Y = ((50 + 16) / 116)^3
#: = 0.1842, sRGB-encoded 0.4663 * 255); rgb(0 0 255 / 50%) over the white of the PDF page is 128, 128, 255
#: (in the transparent PNG: alpha 128)
COLOURS = (("oklch(0.628 0.2577 29.23)", (255, 0, 0)), ("oklab(0.628 0.2249 0.1258)", (255, 0, 0)),
           ("lab(54.29 80.8 69.89)", (255, 0, 0)), ("lch(54.29 106.84 40.85)", (255, 0, 0)),
           ("lab(50 0 0)", (119, 119, 119)), ("color(srgb 0 0.5 1)", (0, 128, 255)), ("hwb(120 0% 0%)", (0, 255, 0)),
           ("rgb(0 0 255 / 50%)", (128, 128, 255)))
CSS4 = (f'<svg {HEAD} width="40" height="10"><style>.s7 {{ fill: {COLOURS[7][0]} }}</style>'
        + "".join(f'<rect x="{5 * i}" width="5" height="10" style="fill: {c}"/>' for i, (c, _) in enumerate(COLOURS[:6]))
        + f'<rect x="30" width="5" height="10" fill="{COLOURS[6][0]}"/><rect class="s7" x="35" width="5" height="10"/>'
        + "</svg>")
PHOTO = f'<svg {HEAD} width="40" height="20"><image width="40" height="20" href="photo.jpg"/></svg>'


def _ultra_hdr_jpeg() -> bytes:
    """An Ultra HDR JPEG as a phone writes one: an SDR base image (a flat (200, 30, 30) red, 40 x 20), an MPF
    index (APP2) and a gain map (flat grey, 20 x 10) after it, and the ``hdrgm`` XMP (APP1) that marks the
    file (Google's Ultra HDR format 1.0). Made with Pillow's MPO writer, the XMP spliced in after SOI: the
    MPF offsets are relative to its own header, which moves with the base image."""
    out = io.BytesIO()
    Image.new("RGB", (40, 20), (200, 30, 30)).save(out, "MPO", save_all=True, quality=95,
                                                   append_images=[Image.new("RGB", (20, 10), (128, 128, 128))])
    xmp = (b'http://ns.adobe.com/xap/1.0/\x00<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf='
           b'"http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:hdrgm='
           b'"http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0"/></rdf:RDF></x:xmpmeta>')
    data = out.getvalue()
    return data[:2] + b"\xff\xe1" + (len(xmp) + 2).to_bytes(2, "big") + xmp + data[2:]


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(PNG RGBA, pdfium's RGB of the PDF, the build's warnings, matplotlib's font-manager log lines)."""
    tmp = tmp_path_factory.mktemp("gaps")
    (tmp / "proj" / "art").mkdir(parents=True)
    (tmp / "proj" / "art" / "photo.jpg").write_bytes(_ultra_hdr_jpeg())
    log = logging.getLogger("matplotlib.font_manager")
    records = _Records()
    log.addHandler(records)
    try:
        png, pdf, caught, _ = compose(tmp, (140, 60), {
            "u": (UTF16.encode("utf-16"), (0, 0), (30, 15)), "r": (REMOTE, (40, 0), (20, 10)),
            "h": (PHOTO, (90, 0), (40, 20)), "f": (FONTS, (0, 20), (80, 40)),
            "c": (CSS4, (90, 30), (40, 10))})
    finally:
        log.removeHandler(records)
    return png, pdf, caught, records.messages


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_is_sized_as_it_is_parsed(codec):
    """A UTF-16 SVG (Wikimedia's Speech_bubbles.svg; with its byte-order mark or only its declaration)
    has the size of its root, as the parser that draws it reads it: 40 x 20 CSS px = 30 x 15 pt (the
    oracle composes every file on a canvas of that size; it was "no <svg> root element")."""
    assert canvas_size_pt(UTF16.encode(codec), source="a.svg") == pytest.approx((30.0, 15.0))


def test_a_utf16_file_is_drawn(built):
    """Panel u: its left half red, its right half blue in the PNG and in the PDF."""
    png, pdf, _, _ = built
    for x, colour in ((7, (255, 0, 0)), (22, (0, 0, 255))):
        assert near(png[7, x], (*colour, 255)) and near(pdf[7, x], colour), (x, png[7, x], pdf[7, x])


def test_a_picture_by_web_address_is_left_out_and_the_rest_drawn(built):
    """draw.io's connect-shapes.svg links a picture by https: (refused before, the whole file). A browser
    showing an SVG as an image loads no external resource and draws the rest: panel r's green rect at
    its left, nothing (transparent) where the picture would be at its right; one warning names the
    address."""
    png, pdf, caught, _ = built
    assert near(png[5, 45], (0, 255, 0, 255)) and near(pdf[5, 45], (0, 255, 0))
    assert png[5, 55, 3] == 0 and near(pdf[5, 55], (255, 255, 255))
    said = [w for w in caught if URL in w]
    assert len(said) == 1 and "2 images" in said[0] and "download it into the project" in said[0], caught


def test_a_font_list_speaks_once_in_composers_voice_never_in_matplotlibs_log(built):
    """matplotlib's SVG names ten families (``'DejaVu Sans', 'Bitstream Vera Sans', ... 'Verdana', ...,
    sans-serif``); measuring its text logged ``findfont: Font family 'Verdana' not found.`` for each absent
    one at every lookup (1,540 lines in one corpus run). None is logged now; a list whose first family is
    missing gets the one warning of the file. Panel f's text is drawn: dark ink in the box of each word
    (PNG and PDF), none beside it."""
    png, pdf, caught, logged = built
    assert [m for m in logged if "findfont" in m] == []
    verdana = [w for w in caught if "Verdana" in w]
    assert len(verdana) == 1 and "fonts not installed" in verdana[0], caught
    for top, bottom in ((24, 37), (44, 57)):  # each line's glyphs, 14 px high at its baseline
        assert png[top:bottom, 2:24, 3].max() > 200 and pdf[top:bottom, 2:24].min() < 60
        assert png[top:bottom, 50:80, 3].max() == 0 and pdf[top:bottom, 50:80].min() > 250


def test_an_ultra_hdr_jpeg_is_drawn_as_its_base_image(built):
    """A whole Ultra HDR JPEG is drawn as its SDR base image (as the corpus' photos/ultrahdr-iso21496.jpg
    and apple-gainmap.jpg are; Pillow's truncated test file, with no pixels to draw, is refused), as
    Chromium draws it: panel h red (200, 30, 30) over the whole picture, never the gain map's grey, in the
    PNG and in the PDF."""
    data = _ultra_hdr_jpeg()
    with Image.open(io.BytesIO(data)) as img:  # the file is what it claims: a JPEG with a second image
        assert img.format == "JPEG" and img.size == (40, 20) and data.count(b"\xff\xd8\xff") >= 2
    png, pdf, _, _ = built
    for y, x in ((2, 92), (10, 110), (17, 127)):
        assert near(png[y, x], (200, 30, 30, 255)) and near(pdf[y, x], (200, 30, 30)), (y, x, png[y, x], pdf[y, x])


def test_css_color_4_colours_are_drawn_in_the_srgb_they_name(built):
    """Panel c: each strip (a style attribute, a presentation attribute, a style sheet rule) in its colour
    in the PNG and in the PDF; the engines drew all but hwb() black."""
    png, pdf, _, _ = built
    for i, (css, rgb) in enumerate(COLOURS):
        x = 92 + 5 * i
        want_png = (*rgb, 255) if i < 7 else (0, 0, 255, 128)
        assert near(png[35, x], want_png, tol=3) and near(pdf[35, x], rgb, tol=3), (css, png[35, x], pdf[35, x])
