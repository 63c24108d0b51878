"""Rasters in the composed canvas: every embedded image at or above the target ppi, cells kept sharp.

A raster's ppi at final size is its pixel count over its size on the canvas
(the ``<image>`` box times every transform above it), in pixels per inch.
:func:`finish_rasters` runs on the composed tree before it is written:

- an image of data cells -- matplotlib's ``interpolation="none"``, which it
  writes at the data's own resolution with CSS ``image-rendering:
  pixelated`` (any image so styled counts) -- is enlarged by an integer
  factor, each pixel repeated, until it reaches ``[figure] raster_ppi``. The values stay exactly the data's; what
  changes is that no viewer can smear the cells any more: a PDF viewer that
  smooths images (and some ignore the PDF's ``/Interpolate false``) blends
  only across one device pixel at cell edges, not across a whole cell;
- any other image below the target (a photo in an image panel or an
  imported SVG) is reported (:class:`ComposerWarning`, and ``compose check``'s
  ``raster-ppi``), never resampled: composer does not invent pixels, and a
  photo enlarged by repetition would only hide that it is too coarse. (Image
  panels shown larger than their pixels are drawn nearest-neighbour.)

:func:`raster_report` lists every image with its ppi, for tests and for
``compose`` users who want to check a figure against a journal's minimum.
"""

from __future__ import annotations

import base64
import io
import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
from lxml import etree

from composer.errors import ComposerWarning
from composer.svg.css import declarations
from composer.svg.geometry import BBox, map_bbox
from composer.svg.ids import original_id
from composer.svg.io import XLINK_NS, href, svg_tag
from composer.svg.srgb import to_srgb
from composer.svg.transform import IDENTITY, Matrix, axis_scales, multiply, parse_transform, translation
from composer.units import CSS_PT_PER_UNIT, length_px

#: largest image (pixels) the enlargement may produce; above it the image is left as it is and reported.
MAX_UPSAMPLED_PIXELS = 40_000_000
#: ppi within this factor of the target count as meeting it (rounding of sizes to 1/1000 pt).
PPI_TOLERANCE = 0.999

_HREFS = ("href", f"{{{XLINK_NS}}}href")
_DATA = re.compile(r"^data:(image/[\w.+-]+);base64,(.*)$", re.DOTALL)
#: the formats :func:`raster_report` and :func:`finish_rasters` handle (those every export engine draws)
_RASTER_MIMES = ("image/png", "image/jpeg")


class ImageUnreadable(ValueError):
    """An ``<image>`` whose picture cannot be measured; the message says why, in a few words."""


class ImageTooLarge(ImageUnreadable):
    """A picture of more pixels than allowed (a decompression bomb): refused, not skipped."""


@dataclass(frozen=True)
class InlineImage:
    """The picture of an ``<image>`` with a base64 ``data:`` URI: its MIME type, bytes and pixel size."""

    mime: str
    data: bytes
    width_px: int
    height_px: int


def inline_image(el: etree._Element) -> InlineImage:
    """Decode the picture of an ``<image>`` element (its ``href``, else ``xlink:href``).

    Raises:
        ImageUnreadable: "is not an inline data URI" (a file or web address, or no
            reference), or "could not be decoded" (bad base64, or data PIL cannot open).
    """
    from PIL import Image

    m = _DATA.match(href(el).strip())
    if not m:
        raise ImageUnreadable("is not an inline data URI")
    try:
        data = base64.b64decode(re.sub(r"\s+", "", m.group(2)), validate=True)
        with Image.open(io.BytesIO(data)) as img:
            width_px, height_px = img.size
    except Exception:  # noqa: BLE001 - binascii, PIL and its plugins raise many kinds for broken data
        raise ImageUnreadable("could not be decoded") from None
    return InlineImage(m.group(1), data, width_px, height_px)


def drawn_box(el: etree._Element, m: Matrix, image: InlineImage) -> tuple[float, float, BBox]:
    """Where an ``<image>`` is drawn under the map ``m`` (its user units -> the canvas's):
    ``(width, height, extent)`` in canvas units. ``width``/``height`` are the ``<image>``'s
    own, each scaled by how much ``m`` stretches its axis. ``auto`` sizing (SVG 2, 5.9 and 16.1.2:
    a missing or ``auto`` width or height): one of them missing is the other times the picture's
    aspect ratio; both missing are its pixel count in user units (CSS px)."""
    def given(name: str) -> float | None:
        value = length_px((el.get(name) or "").strip(), math.nan)  # "", "auto" and percentages: NaN
        return None if math.isnan(value) else value

    given_w, given_h = given("width"), given("height")
    aspect = image.width_px / image.height_px if image.height_px else 1.0
    if given_w is None and given_h is None:
        w, h = float(image.width_px), float(image.height_px)
    elif given_w is None:
        h = given_h or 0.0
        w = h * aspect
    elif given_h is None:
        w = given_w
        h = w / aspect
    else:
        w, h = given_w, given_h
    x, y = length_px(el.get("x")), length_px(el.get("y"))
    sx, sy = axis_scales(m)
    return w * sx, h * sy, map_bbox(m, (x, y, x + w, y + h))


def ppi(width_px: float, height_px: float, width_pt: float, height_pt: float) -> float:
    """Pixels per inch of a picture drawn ``width_pt`` x ``height_pt`` (both above 0): the
    smaller of the two axes (72 pt = 1 in)."""
    inch = CSS_PT_PER_UNIT["in"]
    return min(width_px / (width_pt / inch), height_px / (height_pt / inch))


@dataclass(frozen=True)
class RasterInfo:
    """One embedded raster image of the canvas.

    Attributes:
        element_id: the ``<image>``'s id ("" without one).
        owner: the id of the top-level canvas element holding it (``panel-rgb``).
        width_px, height_px: its pixels.
        width_pt, height_pt: its size on the canvas.
        ppi: pixels per inch at final size, the smaller of the two axes.
        nearest: True when it is drawn with nearest-neighbour (``image-rendering``
            ``optimizeSpeed``, ``pixelated`` or ``crisp-edges``).
        cells: True when its pixels are data cells (CSS ``image-rendering``
            ``pixelated`` or ``crisp-edges`` in its ``style``, as matplotlib
            writes for ``interpolation="none"``): those are enlarged.
    """

    element_id: str
    owner: str
    width_px: int
    height_px: int
    width_pt: float
    height_pt: float
    ppi: float
    nearest: bool
    cells: bool = False


def raster_report(root: etree._Element) -> list[RasterInfo]:
    """Every drawn ``<image>`` with a PNG or JPEG ``data:`` URI in the canvas ``root``, in document order
    (one under ``display: none`` is not drawn)."""
    return [info for _, info, _ in _images(root)]


def finish_rasters(root: etree._Element, target_ppi: float) -> list[str]:
    """Enlarge nearest-neighbour images below ``target_ppi`` in place (see module
    docstring); warn about other images below it.

    Returns:
        The warning messages (also issued as :class:`ComposerWarning`).
    """
    below: dict[tuple, list[str]] = {}  # what a warning says -> the ids of the images it is said of
    for el, info, image in _images(root):
        if info.ppi >= target_ppi * PPI_TOLERANCE:
            continue
        factor = math.ceil(target_ppi / info.ppi - 1e-9)
        too_big = info.width_px * info.height_px * factor * factor > MAX_UPSAMPLED_PIXELS
        if info.cells and not too_big:
            _set_href(el, "image/png", _repeat_pixels(image.data, factor))
            continue
        why = (f"enlarging its cells {factor}x would exceed {MAX_UPSAMPLED_PIXELS} pixels" if info.cells else
               "composer does not invent pixels; give the image more pixels (or, for data cells, draw it with "
               "interpolation=\"none\")")
        key = (_owner_words(info.owner), info.width_px, info.height_px, f"{info.width_pt / 72 * 25.4:.1f}",
               f"{info.height_pt / 72 * 25.4:.1f}", f"{info.ppi:.0f}", why)
        below.setdefault(key, []).append(_own_id(info.element_id))
    issued = []
    for (owner, width_px, height_px, width_mm, height_mm, ppi_text, why), ids in below.items():
        named = [i for i in ids if i]
        what = (f"{len(ids)} images of" if len(ids) > 1 else f"image {named[0]} has" if named else "image has")
        msg = (f"{owner}: {what} {width_px}x{height_px} px over {width_mm}x{height_mm} mm = {ppi_text} ppi, "
               f"below raster_ppi {target_ppi:g}; {why}")
        warnings.warn(ComposerWarning(" ".join(msg.split())), stacklevel=2)
        issued.append(msg)
    return issued


def _owner_words(owner: str) -> str:
    """A top-level element's id in the layout's words: ``panel-tikz`` is ``panel tikz`` (the name the
    layout gave it); no id is the canvas."""
    if not owner:
        return "canvas"
    return "panel " + owner[len("panel-"):] if owner.startswith("panel-") else owner


def _own_id(element_id: str) -> str:
    """An image's id as its file wrote it, or "" for one composer numbered (an imported file's ids
    become ``panel--N`` in document order: a number the user's file does not hold)."""
    return "" if re.search(r"--\d+$", element_id) else original_id(element_id)


def _images(root: etree._Element):
    """``(element, info, picture)`` for every PNG or JPEG ``<image>`` drawn at a positive size (not in a
    ``<clipPath>``, not under ``display: none``), measured where it is drawn: in place, and at every
    ``<use>`` that shows it or a group holding it (pdftocairo writes each image of a PDF page in
    ``<defs>``, shown by a scaled ``<use>``). An image drawn at several sizes is reported at its
    smallest ppi."""
    places: _Places | None = None  # made at the first image: a canvas without any walks its tree once here
    for el in root.iter(svg_tag("image")):
        if any(up.tag == svg_tag("clipPath") for up in el.iterancestors()):
            continue  # an image is no clipping shape (SVG 1.1, 14.3.5): never painted, its pixels do not matter
        if places is None:
            places = _Places(root)
        maps = places.maps(el)
        if not maps:
            continue  # display: none on it or above (Inkscape's hidden layers), or a definition no <use> shows
        try:
            image = inline_image(el)
        except ImageUnreadable:
            continue
        if image.mime not in _RASTER_MIMES:
            continue
        sizes = [(w, h) for w, h, _ in (drawn_box(el, m, image) for m in maps) if w > 0 and h > 0]
        if not sizes:
            continue
        width_pt, height_pt = min(sizes, key=lambda wh: ppi(image.width_px, image.height_px, *wh))
        owner = el
        while owner.getparent() is not None and owner.getparent().getparent() is not None:
            owner = owner.getparent()
        info = RasterInfo(el.get("id", ""), owner.get("id", ""), image.width_px, image.height_px, width_pt,
                          height_pt, ppi(image.width_px, image.height_px, width_pt, height_pt), _nearest(el),
                          _cells(el))
        yield el, info, image


#: elements whose content is drawn only where a ``<use>`` shows it (SVG 1.1, 5.3.1 and 5.5)
_NOT_IN_PLACE = ("defs", "symbol")
#: ``<use>`` of ``<use>`` deeper than this is not followed (a reference cycle, or a hostile file)
_MAX_USE_DEPTH = 8
#: places an element is drawn, at most (a file that shows one picture more often is measured at these)
_MAX_PLACES = 1000


class _Places:
    """Where each element of a canvas is drawn: the maps from its user units (its own ``transform``
    applied) to the canvas's, one per place: in its parent (unless the parent is a ``<defs>`` or
    ``<symbol>``), and at each ``<use>`` referencing it (the ``<use>``'s map, then its ``x``/``y``).
    An element under ``display: none``, or shown only by such a ``<use>``, has none. (A ``<symbol>``'s
    viewBox is not applied: its content is measured in the symbol's own units.)"""

    def __init__(self, root: etree._Element) -> None:
        self.ids = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
        self.uses: dict[etree._Element, list[etree._Element]] = {}
        for use in root.iter(svg_tag("use")):
            ref = href(use).strip()
            target = self.ids.get(ref[1:]) if ref.startswith("#") else None
            if target is not None:
                self.uses.setdefault(target, []).append(use)
        self.known: dict[etree._Element, list[Matrix]] = {}

    def maps(self, el: etree._Element, depth: int = 0) -> list[Matrix]:
        """The maps of every place ``el`` is drawn (see the class)."""
        if el in self.known:
            return self.known[el]
        self.known[el] = []  # a cycle through this element adds no place
        if depth > _MAX_USE_DEPTH or not _displayed_itself(el):
            return []
        own = parse_transform(el.get("transform"))
        parent = el.getparent()
        outer: list[Matrix] = []
        if parent is None:
            outer.append(IDENTITY)
        elif etree.QName(parent).localname not in _NOT_IN_PLACE:
            outer += self.maps(parent, depth)
        for use in self.uses.get(el, ()):
            shift = translation(length_px(use.get("x")), length_px(use.get("y")))
            outer += [multiply(m, shift) for m in self.maps(use, depth + 1)]
        found = [multiply(m, own) for m in outer[:_MAX_PLACES]]
        self.known[el] = found
        return found


def _displayed_itself(el: etree._Element) -> bool:
    """False when ``el`` has ``display: none`` (its attribute, or its ``style``, which wins): SVG 1.1,
    11.5, such an element and all its descendants are not rendered."""
    value = el.get("display", "")
    for name, declared in declarations(el.get("style") or ""):
        if name == "display":
            value = declared
    return value.strip().lower() != "none"


def _nearest(el: etree._Element) -> bool:
    values = [el.get("image-rendering", "")]
    values += re.findall(r"image-rendering\s*:\s*([\w-]+)", el.get("style", ""))
    return any(v in ("optimizeSpeed", "pixelated", "crisp-edges") for v in values)


def _cells(el: etree._Element) -> bool:
    return bool(re.search(r"image-rendering\s*:\s*(pixelated|crisp-edges)", el.get("style", "")))


def _repeat_pixels(data: bytes, factor: int) -> bytes:
    """The image with every pixel repeated ``factor`` x ``factor`` times, as PNG (exact: no new values)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as opened:
        img: Image.Image = opened
        img.load()
        mode = img.mode
        if mode not in ("1", "L", "LA", "RGB", "RGBA", "P", "I", "I;16", "F"):
            img = img.convert("RGBA")
        if img.mode == "P":
            big = Image.fromarray(np.repeat(np.repeat(np.asarray(img), factor, 0), factor, 1), "P")
            big.putpalette(img.getpalette() or [])
            if "transparency" in img.info:
                big.info["transparency"] = img.info["transparency"]
        else:
            big = img.resize((img.width * factor, img.height * factor), Image.Resampling.NEAREST)
        out = io.BytesIO()
        params = {"transparency": big.info["transparency"]} if "transparency" in big.info else {}
        big.save(out, format="PNG", compress_level=9, **params)
    return out.getvalue()


def _set_href(el: etree._Element, mime: str, data: bytes) -> None:
    uri = f"data:{mime};base64," + base64.b64encode(data).decode("ascii")
    for attr in _HREFS:
        if el.get(attr) is not None:
            el.set(attr, uri)


# ------------------------------------------------------------------ pictures as viewers display them

#: EXIF tag 0x0112, Orientation (EXIF 2.32, 4.6.4 A): 1 is "as stored"; 2-8 flip and/or rotate.
EXIF_ORIENTATION = 0x0112
#: quality of a JPEG whose colours composer converted to sRGB (written again as JPEG, no chroma
#: subsampling): Pillow's scale, 95 is the highest before the file grows with no visible gain.
JPEG_QUALITY = 95
#: gzip's magic number (RFC 1952, 2.3.1): an ``.svgz`` file, or an SVG image served compressed.
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class Displayed:
    """A raster picture as viewers display it: its MIME type (PNG or JPEG), bytes and pixel size
    (after the EXIF orientation), and what was done to get there ("" when the bytes are the file's)."""

    mime: str
    data: bytes
    width_px: int
    height_px: int
    changed: str = ""


def displayed_raster(data: bytes, *, max_pixels: int) -> Displayed:
    """The picture ``data`` (any raster format Pillow reads) as PNG or JPEG, the way a viewer shows it.

    - a PNG, or a JPEG without an EXIF orientation (or with orientation 1), whose colours are sRGB
      is returned as it is;
    - one whose colours are not (an ICC profile other than sRGB, CMYK, a PNG ``gAMA``/``cHRM``) is
      converted to sRGB (:func:`composer.svg.srgb.to_srgb`, LittleCMS) and written as PNG (a JPEG as
      JPEG again, quality :data:`JPEG_QUALITY`, 4:4:4), so that every engine and viewer shows the
      colours a browser shows (resvg would draw the raw values);
    - a JPEG (or any image) with EXIF orientation 2-8 is turned upright
      (:func:`PIL.ImageOps.exif_transpose`, which drops the tag) and written as PNG: the displayed
      pixels exactly, since re-encoding JPEG would lose quality again. Browsers apply the tag
      (CSS ``image-orientation: from-image`` is the default, CSS Images 3, 5.1), and so do resvg
      and cairosvg: an engine given the stored pixels and the displayed size would stretch them;
    - any other format Pillow decodes (GIF and WebP, which not every export engine reads; BMP,
      TIFF) becomes PNG of its first frame, as a static renderer shows it.

    Raises:
        ImageUnreadable: "is not an image Pillow can read (or it is truncated)".
        ImageTooLarge: "is WxH pixels, more than the limit of N" (checked before decoding: a
            decompression bomb).
    """
    from PIL import Image, ImageOps

    try:
        with Image.open(io.BytesIO(data)) as img:
            kind = img.format or ""
            width_px, height_px = img.size
            if width_px * height_px > max_pixels:
                raise ImageTooLarge(f"is {width_px}x{height_px} pixels, more than the limit of {max_pixels}")
            img.load()  # every pixel decodes: a truncated file is refused here, not drawn half by a viewer
            orientation = exif_orientation(img)
            if orientation not in range(2, 9):
                orientation = 1  # absent, "as stored", or a value EXIF does not define
            upright = ImageOps.exif_transpose(img) if orientation != 1 else img  # keeps img.info: its colours
            converted = to_srgb(upright)
            if kind in ("PNG", "JPEG") and orientation == 1 and converted is None:
                return Displayed(f"image/{kind.lower()}", data, width_px, height_px)
            if converted is not None:
                upright = converted.image
            out = io.BytesIO()
            mime = "image/png"
            if kind == "JPEG" and converted is not None and upright.mode in ("L", "RGB"):
                # a photo whose colours were converted: JPEG again, at a quality no eye tells from the
                # converted pixels (a 12 MP phone photo: 3.6 MB in 0.05 s, mean error 0.57/255; as PNG
                # it was 13 to 16 MB and 1 to 15 s)
                upright.save(out, format="JPEG", quality=JPEG_QUALITY, subsampling=0)
                mime = "image/jpeg"
            else:
                if upright.mode not in ("1", "L", "LA", "RGB", "RGBA", "P", "I;16"):
                    upright = upright.convert("RGBA")
                upright.save(out, format="PNG", compress_level=9)
    except ImageUnreadable:
        raise
    except Image.DecompressionBombError as exc:
        raise ImageTooLarge(str(exc)) from None
    except Exception:  # noqa: BLE001 - Pillow raises many kinds for broken files
        raise ImageUnreadable("is not an image Pillow can read (or it is truncated)") from None
    done = [f"colours converted to sRGB from {converted.source}"] if converted is not None else []
    done += [f"EXIF orientation {orientation} applied"] if orientation != 1 else []
    if kind not in ("PNG", "JPEG"):
        done.append(f"{kind or 'image'} decoded to PNG")
    return Displayed(mime, out.getvalue(), upright.width, upright.height, "; ".join(done))


def exif_orientation(img) -> int:
    """The EXIF Orientation of the opened picture ``img`` (1 when it has none): from its EXIF block (JPEG
    APP1, PNG ``eXIf``, WebP) or, for a TIFF, its own tags. Not from XMP's ``tiff:Orientation``, which
    Pillow's ``getexif`` falls back on: browsers ignore it (Chromium 156 shows such a PNG as stored;
    the corpus' ``png/xmp_tags_orientation.png``), so composer does too."""
    from PIL import Image

    data = img.info.get("exif")
    if isinstance(data, (bytes, bytearray)) and data:
        exif = Image.Exif()
        try:
            exif.load(bytes(data))
        except Exception:  # noqa: BLE001 - a broken EXIF block orients nothing (viewers ignore it too)
            return 1
        value = exif.get(EXIF_ORIENTATION, 1)
    else:
        tags = getattr(img, "tag_v2", None)
        value = tags.get(EXIF_ORIENTATION, 1) if tags is not None else 1
    return value if isinstance(value, int) else 1


def gunzipped(data: bytes, *, limit: int) -> bytes:
    """``data`` decompressed if it starts with gzip's magic number (an ``.svgz``), else ``data``.

    Raises:
        ImageUnreadable: "is gzip-compressed but broken", or "decompresses to more than N bytes"
            (read in bounded steps: a gzip bomb is stopped at ``limit``, not inflated).
    """
    import gzip
    import zlib

    if not data.startswith(GZIP_MAGIC):
        return data
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            out = stream.read(limit + 1)
    except (OSError, EOFError, zlib.error):
        raise ImageUnreadable("is gzip-compressed but broken") from None
    if len(out) > limit:
        raise ImageUnreadable(f"decompresses to more than {limit} bytes")
    return out


def skip_image(el: etree._Element, attr: str, message: str) -> None:
    """Draw the ``<image>`` (or ``<feImage>``) ``el`` as nothing, as viewers do with a picture they
    cannot show: its reference ``attr`` is removed, and one :class:`ComposerWarning` says so.

    ``message`` names the file and the reference (``fig.svg: <image xlink:href> refers to 'a.gif',
    which ...``); the element's id, when it has one, and "skipped" are added.
    """
    ident = el.get("id")
    del el.attrib[attr]
    named = f" (id {ident!r})" if ident else ""
    warnings.warn(ComposerWarning(f"{message}{named}; the image is skipped, as viewers skip it"), stacklevel=3)
