"""Images in imported SVG files and image panels, as viewers display them (issue #14, item 8).

Every picture is made here with Pillow, a few pixels large, so each expected colour is worked out by
hand: a 2 x 1 picture (left pixel red, right pixel blue) drawn into a 20 x 10 pt box puts red at
x 0..10 pt and blue at x 10..20 pt. The PNG is exported at 72 dpi (1 px = 1 pt) and the PDF rendered
by pdfium at the same scale.
"""

from __future__ import annotations

import base64
import gzip
import io
import warnings

import numpy as np
import pytest
from PIL import Image

from composer.errors import ComposerWarning
from composer.pipeline import build
from conftest import layout_project, pdf_pixels

RED, BLUE, GREEN, WHITE = (255, 0, 0), (0, 0, 255), (0, 128, 0), (255, 255, 255)
S = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def two_pixels(fmt: str = "PNG", orientation: int | None = None, scale: int = 1) -> bytes:
    """A 2 x 1 picture (each pixel ``scale`` x ``scale``), stored left red, right blue;
    ``orientation``: its EXIF Orientation tag."""
    img = Image.new("RGB", (2, 1), BLUE)
    img.putpixel((0, 0), RED)
    img = img.resize((2 * scale, scale), Image.Resampling.NEAREST)
    out = io.BytesIO()
    params = {}
    if orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = orientation
        params["exif"] = exif.tobytes()
    if fmt == "JPEG":
        # JPEG smears a 2-pixel picture; a 16 x 8 one of two 8 x 8 blocks keeps its colours
        img = img.resize((16, 8), Image.Resampling.NEAREST)
        params["quality"] = 100
    if fmt == "WEBP":
        params["lossless"] = True
    img.save(out, format=fmt, **params)
    return out.getvalue()


def data_uri(mime: str, data: bytes) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def compose_svg(tmp_path, svg: str, files: dict[str, bytes] | None = None, size_pt=(100, 100)):
    """Build a canvas of ``size_pt`` holding ``svg`` as its one panel; (PNG pixels, PDF pixels, warnings)."""
    w, h = size_pt
    root = layout_project(tmp_path, f'''
[panels.p]
svg = "../assets/a.svg"
at = ["0pt", "0pt"]
size = ["{w}pt", "{h}pt"]
''', head=f'width = "{w}pt"\nheight = "{h}pt"\nraster_ppi = 1\n')
    (root / "assets").mkdir()
    (root / "assets" / "a.svg").write_text(svg, encoding="utf-8")
    for name, data in (files or {}).items():
        (root / "assets" / name).write_bytes(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build("fig", root=root, formats=("png", "pdf"), dpi=72, cache=False)
    return pixels(root / "build" / "fig.png"), pdf_pixels(root / "build" / "fig.pdf"), caught


def pixels(path) -> np.ndarray:
    with Image.open(path) as img:
        rgba = np.asarray(img.convert("RGBA")).astype(float)
    rgb = rgba[..., :3] * rgba[..., 3:] / 255 + 255 * (1 - rgba[..., 3:] / 255)
    return rgb.round().astype(int)


def near(actual, expected, tol=40) -> bool:
    return bool(np.all(np.abs(np.asarray(actual) - np.asarray(expected)) <= tol))


def panel(body: str) -> str:
    return f'<svg {S} width="100" height="100" viewBox="0 0 100 100"><rect width="100" height="100" ' \
           f'fill="white"/>{body}</svg>'


@pytest.mark.parametrize("kind", ["gif", "webp", "jpg_mime", "untyped", "svgz"])
def test_images_of_every_kind_a_viewer_shows_are_drawn(tmp_path, kind):
    """GIF and WebP (decoded to PNG), JPEG declared ``image/jpg`` or without a type (the bytes
    tell), and a gzip-compressed SVG file: each fills x 0..20, y 0..10 pt, red then blue."""
    files = {}
    if kind == "gif":
        files["pic.gif"] = two_pixels("GIF")
        href = "pic.gif"
    elif kind == "webp":
        href = data_uri("image/webp", two_pixels("WEBP"))
    elif kind == "jpg_mime":
        href = data_uri("image/jpg", two_pixels("JPEG"))
    elif kind == "untyped":
        href = "data:;base64," + base64.b64encode(two_pixels("JPEG")).decode("ascii")
    else:
        inner = (f'<svg {S} width="2" height="1" viewBox="0 0 2 1"><rect width="1" height="1" fill="#f00"/>'
                 '<rect x="1" width="1" height="1" fill="#00f"/></svg>')
        files["pic.svgz"] = gzip.compress(inner.encode(), mtime=0)
        href = "pic.svgz"
    png, pdf, caught = compose_svg(tmp_path, panel(f'<image width="20" height="10" preserveAspectRatio="none" '
                                                   f'xlink:href="{href}"/>'), files)
    for px in (png, pdf):
        assert near(px[5, 4], RED), px[5, 4]
        assert near(px[5, 15], BLUE), px[5, 15]
        assert near(px[5, 25], WHITE), px[5, 25]
        assert near(px[15, 5], WHITE), px[15, 5]


def test_a_missing_image_is_skipped_with_one_warning_and_the_rest_drawn(tmp_path):
    png, pdf, caught = compose_svg(tmp_path, panel('<image id="photo" width="50" height="50" xlink:href="gone.png"/>'
                                                   '<rect x="60" y="60" width="20" height="20" fill="#008000"/>'))
    mine = [str(w.message) for w in caught if issubclass(w.category, ComposerWarning) and "gone.png" in str(w.message)]
    assert len(mine) == 1, mine
    assert "a.svg" in mine[0] and "'photo'" in mine[0] and "skipped" in mine[0]
    for px in (png, pdf):
        assert near(px[70, 70], GREEN), px[70, 70]
        assert near(px[25, 25], WHITE), px[25, 25]


def test_an_unreadable_image_is_skipped_with_a_warning(tmp_path):
    png, _, caught = compose_svg(tmp_path, panel('<image width="50" height="50" xlink:href="bad.png"/>'
                                                 '<rect x="60" y="60" width="20" height="20" fill="#008000"/>'),
                                 {"bad.png": b"\x89PNG\r\n\x1a\n not really"})
    assert any("bad.png" in str(w.message) and "skipped" in str(w.message) for w in caught)
    assert near(png[70, 70], GREEN)


def test_image_without_width_or_height_takes_its_intrinsic_size_and_ratio(tmp_path):
    """SVG 2, 16.1.2 (``auto``), with a 20 x 10 px picture: no size at all is its pixel count in
    user units (one user unit is 1 pt here, the 100-unit viewBox on 100 pt), drawn at x 50..70,
    y 20..30; height 30 alone gives width 60 (the 2:1 ratio; not the 20 px), at x 0..60, y 60..90."""
    pic = data_uri("image/png", two_pixels(scale=10))
    png, pdf, _ = compose_svg(tmp_path, panel(f'<image x="0" y="60" height="30" xlink:href="{pic}"/>'
                                              f'<image x="50" y="20" xlink:href="{pic}"/>'))
    for px in (png, pdf):
        assert near(px[75, 10], RED) and near(px[75, 50], BLUE), (px[75, 10], px[75, 50])
        assert near(px[75, 65], WHITE), px[75, 65]  # not wider than 60
        assert near(px[95, 10], WHITE), px[95, 10]  # not taller than 30
        assert near(px[25, 55], RED) and near(px[25, 65], BLUE), (px[25, 55], px[25, 65])
        assert near(px[25, 75], WHITE) and near(px[35, 55], WHITE)


def test_image_inside_clip_path_is_not_painted(tmp_path):
    """An ``<image>`` is no clipping shape (SVG 1.1, 14.3.5): only the rect clips, the picture
    neither paints nor widens the clip region."""
    pic = data_uri("image/png", two_pixels())
    png, pdf, _ = compose_svg(tmp_path, panel(
        f'<clipPath id="c"><image x="0" y="50" width="100" height="50" xlink:href="{pic}"/>'
        '<rect x="0" y="0" width="30" height="30"/></clipPath>'
        '<rect width="100" height="100" fill="#008000" clip-path="url(#c)"/>'))
    for px in (png, pdf):
        assert near(px[15, 15], GREEN)
        assert near(px[75, 25], WHITE) and near(px[75, 75], WHITE)


def image_panel(tmp_path, data: bytes, box=("20pt", "40pt")) -> tuple[np.ndarray, np.ndarray, bytes]:
    root = layout_project(tmp_path, f'''
[panels.p]
image = "../assets/photo.jpg"
at = ["0pt", "0pt"]
size = ["{box[0]}", "{box[1]}"]
''', head=f'width = "{box[0]}"\nheight = "{box[1]}"\nraster_ppi = 1\n')
    (root / "assets").mkdir()
    (root / "assets" / "photo.jpg").write_bytes(data)
    build("fig", root=root, formats=("svg", "png", "pdf"), dpi=72, cache=False)
    out = root / "build"
    return pixels(out / "fig.png"), pdf_pixels(out / "fig.pdf"), (out / "fig.svg").read_bytes()


@pytest.mark.parametrize("orientation, top, bottom", [
    (6, RED, BLUE),  # "rotate 90 CW to display": the stored left column becomes the top row
    (8, BLUE, RED),  # "rotate 90 CCW": the stored right column goes on top
])
def test_exif_rotated_photo_is_placed_upright(tmp_path, orientation, top, bottom):
    """A JPEG stored 16 x 8 (left half red) with EXIF orientation 6 or 8 displays 8 x 16: fitted into a
    20 x 40 pt box it fills it (a stored-size fit would leave it 20 x 10 pt, squashed), one colour
    per half."""
    png, pdf, svg = image_panel(tmp_path, two_pixels("JPEG", orientation))
    for px in (png, pdf):
        assert near(px[8, 10], top), px[8, 10]
        assert near(px[32, 10], bottom), px[32, 10]
        assert near(px[2, 10], top) and near(px[38, 10], bottom)
    assert b'width="20"' in svg and b'height="40"' in svg


def test_an_xmp_orientation_is_not_applied(tmp_path):
    """XMP's ``tiff:Orientation`` (a PNG's iTXt ``XML:com.adobe.xmp``) is not EXIF: browsers show the picture
    as stored (Chromium 156, on the corpus' ``png/xmp_tags_orientation.png``), where Pillow's ``getexif``
    reads it and turned it 180 degrees. Stored red | blue, 40 x 20 pt: red stays left in the PNG and the PDF."""
    from PIL import PngImagePlugin

    xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           '<rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/" tiff:Orientation="3"/></rdf:RDF></x:xmpmeta>')
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", xmp)
    out = io.BytesIO()
    Image.open(io.BytesIO(two_pixels(scale=4))).save(out, format="PNG", pnginfo=info)
    with Image.open(io.BytesIO(out.getvalue())) as img:
        assert img.getexif().get(0x0112) == 3  # what Pillow alone would apply
    png, pdf, _ = image_panel(tmp_path, out.getvalue(), box=("40pt", "20pt"))
    for px in (png, pdf):
        assert near(px[10, 8], RED) and near(px[10, 32], BLUE), (px[10, 8], px[10, 32])


def test_ppi_report_measures_auto_sizes_and_skips_clip_path_images():
    """The ppi check sees the size drawn: a 20 x 10 px picture with height 30 alone is 60 x 30 user
    units (24 ppi at 1 unit = 1 pt: 20 px over 60/72 in); one inside a ``<clipPath>`` is not painted."""
    from composer.svg.images import raster_report
    from composer.svg.io import parse_svg

    pic = data_uri("image/png", two_pixels(scale=10))
    root = parse_svg(panel(f'<image id="a" height="30" xlink:href="{pic}"/><clipPath id="c"><image id="b" '
                           f'width="5" height="5" xlink:href="{pic}"/></clipPath>').encode(), source="t.svg")
    (info,) = raster_report(root)
    assert info.element_id == "a"
    assert (info.width_pt, info.height_pt) == pytest.approx((60, 30))
    assert info.ppi == pytest.approx(24)


def test_an_image_path_with_a_fragment_or_query_draws_the_file(tmp_path):
    """``p.png#frag`` and ``p.png?v=2`` name the file p.png, as a viewer reads a file URL: drawn (red left half,
    blue right half of each 100 x 50 image), each with one warning that the rest is ignored."""
    png, pdf, caught = compose_svg(tmp_path, panel('<image width="100" height="50" xlink:href="p.png#frag"/>'
                                                   '<image y="50" width="100" height="50" xlink:href="p.png?v=2"/>'),
                                   {"p.png": two_pixels()})
    for px in (png, pdf):
        assert near(px[25, 25], RED) and near(px[25, 75], BLUE), (px[25, 25], px[25, 75])
        assert near(px[75, 25], RED) and near(px[75, 75], BLUE), (px[75, 25], px[75, 75])
    said = [str(w.message) for w in caught if issubclass(w.category, ComposerWarning)]
    assert sum("'p.png' is drawn, its #frag ignored" in m for m in said) == 1, said
    assert sum("'p.png' is drawn, its ?v=2 ignored" in m for m in said) == 1, said
