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
import binascii
import io
import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
from lxml import etree

from composer.errors import ComposerWarning
from composer.svg.io import XLINK_NS, svg_tag

#: largest image (pixels) the enlargement may produce; above it the image is left as it is and reported.
MAX_UPSAMPLED_PIXELS = 40_000_000
#: ppi within this factor of the target count as meeting it (rounding of sizes to 1/1000 pt).
PPI_TOLERANCE = 0.999

_HREFS = ("href", f"{{{XLINK_NS}}}href")
_DATA = re.compile(r"^data:(image/(?:png|jpeg));base64,(.*)$", re.S)
_TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")


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
    """Every ``<image>`` with a PNG or JPEG ``data:`` URI in the canvas ``root``, in document order."""
    return [info for _, info, _ in _images(root)]


def finish_rasters(root: etree._Element, target_ppi: float) -> list[str]:
    """Enlarge nearest-neighbour images below ``target_ppi`` in place (see module
    docstring); warn about other images below it.

    Returns:
        The warning messages (also issued as :class:`ComposerWarning`).
    """
    issued = []
    for el, info, (mime, data) in _images(root):
        if info.ppi >= target_ppi * PPI_TOLERANCE:
            continue
        factor = math.ceil(target_ppi / info.ppi - 1e-9)
        too_big = info.width_px * info.height_px * factor * factor > MAX_UPSAMPLED_PIXELS
        if info.cells and not too_big:
            _set_href(el, "image/png", _repeat_pixels(data, factor))
            continue
        why = (f"enlarging its cells {factor}x would exceed {MAX_UPSAMPLED_PIXELS} pixels" if info.cells else
               "composer does not invent pixels; give the image more pixels (or, for data cells, draw it with "
               "interpolation=\"none\")")
        msg = (f"{info.owner or 'canvas'}: image {info.element_id or ''} has {info.width_px}x{info.height_px} px "
               f"over {info.width_pt / 72 * 25.4:.1f}x{info.height_pt / 72 * 25.4:.1f} mm = {info.ppi:.0f} ppi, "
               f"below raster_ppi {target_ppi:g}; {why}")
        warnings.warn(ComposerWarning(" ".join(msg.split())), stacklevel=2)
        issued.append(msg)
    return issued


def _images(root: etree._Element):
    from PIL import Image

    for el in root.iter(svg_tag("image")):
        href = next((el.get(a) for a in _HREFS if el.get(a)), "")
        m = _DATA.match(href.strip())
        if not m:
            continue
        try:
            data = base64.b64decode(re.sub(r"\s+", "", m.group(2)), validate=True)
            with Image.open(io.BytesIO(data)) as img:
                width_px, height_px = img.size
        except (binascii.Error, ValueError, OSError):
            continue
        matrix = _cumulative(el)
        w, h = _length(el.get("width")), _length(el.get("height"))
        if w is None or h is None:  # an <image> without a size takes the image's pixel size (SVG 2)
            w, h = float(width_px), float(height_px)
        sx = math.hypot(matrix[0][0], matrix[1][0])
        sy = math.hypot(matrix[0][1], matrix[1][1])
        width_pt, height_pt = w * sx, h * sy
        if width_pt <= 0 or height_pt <= 0:
            continue
        ppi = min(width_px / (width_pt / 72.0), height_px / (height_pt / 72.0))
        owner = el
        while owner.getparent() is not None and owner.getparent().getparent() is not None:
            owner = owner.getparent()
        info = RasterInfo(el.get("id", ""), owner.get("id", ""), width_px, height_px, width_pt, height_pt, ppi,
                          _nearest(el), _cells(el))
        yield el, info, (m.group(1), data)


def _nearest(el: etree._Element) -> bool:
    values = [el.get("image-rendering", "")]
    values += re.findall(r"image-rendering\s*:\s*([\w-]+)", el.get("style", ""))
    return any(v in ("optimizeSpeed", "pixelated", "crisp-edges") for v in values)


def _cells(el: etree._Element) -> bool:
    return bool(re.search(r"image-rendering\s*:\s*(pixelated|crisp-edges)", el.get("style", "")))


def _repeat_pixels(data: bytes, factor: int) -> bytes:
    """The image with every pixel repeated ``factor`` x ``factor`` times, as PNG (exact: no new values)."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        img.load()
        mode = img.mode
        if mode not in ("1", "L", "LA", "RGB", "RGBA", "P", "I", "I;16", "F"):
            img = img.convert("RGBA")
        if img.mode == "P":
            big = Image.fromarray(np.repeat(np.repeat(np.asarray(img), factor, 0), factor, 1), "P")
            big.putpalette(img.getpalette())
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


def _length(value: str | None) -> float | None:
    if value is None:
        return None
    m = re.fullmatch(r"\s*([-+]?[0-9.]+(?:e[-+]?\d+)?)\s*(px|pt)?\s*", value)
    return float(m.group(1)) if m else None


def _cumulative(el: etree._Element) -> list[list[float]]:
    """The 2x3 affine matrix (a c e / b d f) of every transform from the root down to ``el``."""
    chain = []
    node = el
    while node is not None:
        chain.append(node.get("transform", ""))
        node = node.getparent()
    m = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    for text in reversed(chain):
        for kind, args in _TRANSFORM.findall(text or ""):
            m = _mul(m, _transform(kind, [float(v) for v in re.split(r"[\s,]+", args.strip()) if v]))
    return m


def _transform(kind: str, v: list[float]) -> list[list[float]]:
    if kind == "matrix" and len(v) == 6:
        return [[v[0], v[2], v[4]], [v[1], v[3], v[5]]]
    if kind == "translate" and v:
        return [[1, 0, v[0]], [0, 1, v[1] if len(v) > 1 else 0.0]]
    if kind == "scale" and v:
        return [[v[0], 0, 0], [0, v[1] if len(v) > 1 else v[0], 0]]
    if kind == "rotate" and v:
        a = math.radians(v[0])
        cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
        r = [[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0]]
        return _mul(_mul([[1, 0, cx], [0, 1, cy]], r), [[1, 0, -cx], [0, 1, -cy]])
    if kind == "skewX" and v:
        return [[1, math.tan(math.radians(v[0])), 0], [0, 1, 0]]
    if kind == "skewY" and v:
        return [[1, 0, 0], [math.tan(math.radians(v[0])), 1, 0]]
    return [[1, 0, 0], [0, 1, 0]]


def _mul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    return [[a[0][0] * b[0][0] + a[0][1] * b[1][0], a[0][0] * b[0][1] + a[0][1] * b[1][1],
             a[0][0] * b[0][2] + a[0][1] * b[1][2] + a[0][2]],
            [a[1][0] * b[0][0] + a[1][1] * b[1][0], a[1][0] * b[0][1] + a[1][1] * b[1][1],
             a[1][0] * b[0][2] + a[1][1] * b[1][2] + a[1][2]]]
