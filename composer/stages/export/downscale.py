"""Photos drawn much smaller than their pixels, reduced before resvg draws the PNG (as a browser's mipmaps do).

resvg samples an image it shrinks with a bicubic filter of a few source pixels, with no prefilter:
a photo drawn at a sixth of its pixels comes out aliased, grainy where Chromium (which shrinks
through mipmaps, box-filtered halvings) and pdfium show it smooth. Measured on the corpus'
``photos/landscape_6.jpg``, 600 px drawn 100 px wide: resvg against Chromium 11.4/255 on average
(worst 24 px tile 16.2); reduced 6 x 6 first, 3.2 (4.8), as pdfium (3.2, 4.8); ``rgb-to-gbr-test.jpg``,
1000 px drawn 250: 0.76 (4.1) before, 0.19 (0.5) after.

:func:`reduced_photos` does that reduction on the SVG a PNG export draws: every PNG/JPEG ``<image>``
drawn smooth (:data:`composer.stages.export.pdfimages.NEAREST` says which are not) whose pixels are at
least twice the device pixels it covers on both axes is replaced by its box average over
``k x k`` pixels (``k`` the whole factor, Pillow's ``Image.reduce``, colours premultiplied by alpha so
transparent pixels add no colour). resvg then shrinks it by less than 2, where its filter is right.
The SVG written and the PDF keep every pixel: only the PNG's drawing changes. Data cells and other
``optimizeSpeed``/``pixelated`` pictures are left alone.
"""

from __future__ import annotations

import io
import math

from composer.stages.export.pdfimages import NEAREST, _rendering, sheet_rendering

#: the smallest whole shrink factor worth a reduction (below it resvg's bicubic filter does not alias)
MIN_FACTOR = 2


def reduced_photos(svg: bytes, *, dpi: float, size_pt: tuple[float, float]) -> bytes | None:
    """``svg`` with its strongly shrunk photos box-reduced for a PNG at ``dpi`` of a canvas of
    ``size_pt`` (see the module docstring), or None when no picture needs it."""
    if b"<image" not in svg:
        return None
    from lxml import etree

    from composer.svg.images import ImageUnreadable, _set_href, drawn_box, inline_image
    from composer.svg.io import parse_svg, svg_tag
    from composer.svg.transform import cumulative

    root = parse_svg(svg, source="canvas")
    box = (root.get("viewBox") or "").replace(",", " ").split()
    try:
        unit_pt = size_pt[0] / float(box[2]) if len(box) == 4 and float(box[2]) > 0 else 0.75  # no viewBox: px
    except ValueError:
        unit_pt = 0.75
    device_per_unit = unit_pt * dpi / 72
    changed = False
    sheet = sheet_rendering(root)
    for el in root.iter(svg_tag("image")):
        if any(up.tag == svg_tag("clipPath") for up in el.iterancestors()) or _rendering(el, sheet) in NEAREST:
            continue
        try:
            image = inline_image(el)
        except ImageUnreadable:
            continue
        if image.mime not in ("image/png", "image/jpeg"):
            continue
        width, height, _ = drawn_box(el, cumulative(el), image)
        if width <= 0 or height <= 0:
            continue
        factor = math.floor(min(image.width_px / (width * device_per_unit),
                                image.height_px / (height * device_per_unit)))
        if factor < MIN_FACTOR:
            continue
        _set_href(el, "image/png", _reduce(image.data, factor))
        changed = True
    if not changed:
        return None
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True)


def _reduce(data: bytes, factor: int) -> bytes:
    """The picture ``data`` box-averaged over ``factor`` x ``factor`` pixels, as PNG (alpha premultiplied
    while averaging)."""
    from PIL import Image

    from composer.svg.srgb import _split

    with Image.open(io.BytesIO(data)) as opened:
        opened.load()
        colour, alpha = _split(opened)  # 8-bit L or RGB (16-bit from its high byte, palettes expanded)
        img = colour.convert("RGB")
        if alpha is not None:
            img.putalpha(alpha)
            small = img.convert("RGBa").reduce(factor).convert("RGBA")
        else:
            small = img.reduce(factor)
        out = io.BytesIO()
        small.save(out, format="PNG", compress_level=6)
    return out.getvalue()
