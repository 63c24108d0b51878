"""Photos smoothed in every PDF viewer: ``/Interpolate true`` on the image XObjects of smooth ``<image>``s.

svg2pdf writes no ``/Interpolate`` key, and a PDF viewer then draws an image enlarged by zooming
with whatever it does by default: pdfium (Chrome's viewer and many others) repeats each pixel, so
a photo that resvg and browsers draw smooth turns into blocks (measured on volume_kv's 504 x 504 px
photo at 1200 dpi: the worst 24 px tile of pdfium's render differed from composer's PNG by 25.8/255
once registered, 12.3/255 with the key). ``/Interpolate true`` (ISO 32000-1, 8.9.5.3) asks every
viewer to smooth the image, as an SVG renderer smooths an ``<image>`` whose ``image-rendering`` is
``auto`` or ``optimizeQuality``.

Which images: every PNG or JPEG ``<image>`` of the composed SVG (and of SVG pictures inlined in it)
whose ``image-rendering`` (an inherited property: the ``style`` declaration, a ``<style>`` rule or the
attribute, on it or an ancestor) is not ``optimizeSpeed``, ``pixelated`` or ``crisp-edges``. Those stay as they are, so
data cells (matplotlib's ``interpolation="none"``, enlarged by :mod:`composer.svg.images`) and image
panels shown beyond their pixels stay crisp. An XObject is matched to its ``<image>`` by its pixel
size; when a smooth and a crisp picture share a size, by its samples, and when those cannot be
compared, it is left crisp.

PDF/A forbids ``/Interpolate true`` (ISO 19005-1, 6.2.4; -2 and -3, 6.2.8): a PDF/A is left as the
engine wrote it. The PDF is rewritten by qpdf (:mod:`pikepdf`), with an ``/ID`` derived from its
content, so equal inputs still give equal bytes.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

#: ``image-rendering`` values drawn nearest-neighbour (SVG 1.1, 15.3 ``optimizeSpeed``; CSS Images 3, 7.5)
NEAREST = frozenset({"optimizeSpeed", "optimizespeed", "pixelated", "crisp-edges"})
_DATA = re.compile(r"^\s*data:(image/[\w.+-]+)(?:;[^,]*)?,(.*)$", re.DOTALL)
_STYLE = re.compile(r"(?:^|;)\s*image-rendering\s*:\s*([\w-]+)")
_HREFS = ("href", "{http://www.w3.org/1999/xlink}href")
#: SVG pictures inlined inside SVG pictures, followed at most this deep (the import allows 4)
_MAX_DEPTH = 8
#: the start tag of an ``<image>``, with any prefix: a document without one has no picture
_IMAGE_TAG = re.compile(rb"<(?:[\w.-]+:)?image[\s/>]")


@dataclass(frozen=True)
class Picture:
    """One raster ``<image>``: its bytes, pixel size, and whether it is drawn smooth."""

    data: bytes
    width_px: int
    height_px: int
    smooth: bool


def pictures(svg: bytes) -> list[Picture]:
    """Every PNG/JPEG ``<image>`` of ``svg`` with a ``data:`` URI, in document order, those inside
    inlined SVG pictures included (each SVG picture is a document of its own: its ``image-rendering``
    is not inherited from outside, as for any image)."""
    from composer.svg.io import parse_svg

    if _IMAGE_TAG.search(svg) is None:  # no <image> anywhere (a scatter's 9 MB of markers): nothing to parse
        return []
    return list(_pictures(parse_svg(svg, source="canvas"), 0))


def _pictures(root: etree._Element, depth: int) -> Iterator[Picture]:
    from PIL import Image

    from composer.svg.io import parse_svg

    sheet: dict[etree._Element, str] | None = None  # matched at the first picture: every element is matched
    for el in root.iter("{http://www.w3.org/2000/svg}image"):
        ref = next((el.get(a) for a in _HREFS if el.get(a) is not None), "")
        m = _DATA.match(ref or "")
        if not m:
            continue
        try:
            data = base64.b64decode(re.sub(r"\s+", "", m.group(2)), validate=True)
        except ValueError:
            continue
        if m.group(1) == "image/svg+xml":
            if depth < _MAX_DEPTH:
                try:
                    yield from _pictures(parse_svg(data, source="image"), depth + 1)
                except Exception:  # noqa: BLE001 - a picture the engine cannot draw has no XObject either
                    continue
            continue
        try:
            with Image.open(io.BytesIO(data)) as img:
                width_px, height_px = img.size
        except Exception:  # noqa: BLE001 - Pillow raises many kinds for broken data; nothing is drawn then
            continue
        if sheet is None:
            sheet = sheet_rendering(root)
        yield Picture(data, width_px, height_px, _rendering(el, sheet) not in NEAREST)


def sheet_rendering(root: etree._Element) -> dict[etree._Element, str]:
    """element -> the ``image-rendering`` the document's ``<style>`` rules give it (the cascade's winner:
    :class:`composer.svg.css.StyleSheet`); empty without a style sheet."""
    if next(root.iter("{http://www.w3.org/2000/svg}style"), None) is None:
        return {}
    from composer.svg.css import StyleSheet, declarations

    sheet = StyleSheet(root, lambda text: tuple(d for d in declarations(text) if d[0] == "image-rendering"))
    return {el: style["image-rendering"] for el, style in sheet.by_element(root).items()
            if "image-rendering" in style}


def _rendering(el: etree._Element, sheet: dict[etree._Element, str] | None = None) -> str:
    """The ``image-rendering`` that applies to ``el``: its own or the nearest ancestor's, each element's
    from its ``style``, else a ``<style>`` rule (``sheet``: :func:`sheet_rendering`), else its attribute
    (CSS's order: inline, author rules, presentation attributes); ``auto`` when none says."""
    node: etree._Element | None = el
    while node is not None:
        found = _STYLE.findall(node.get("style", ""))
        if found and found[-1] != "inherit":
            return found[-1]
        ruled = (sheet or {}).get(node, "inherit")
        if ruled != "inherit":
            return ruled
        value = (node.get("image-rendering") or "").strip()
        if value and value != "inherit":
            return value
        node = node.getparent()
    return "auto"


def interpolate_photos(pdf: bytes, svg: bytes) -> bytes:
    """``pdf`` (drawn from ``svg`` by svg2pdf) with ``/Interpolate true`` on the image XObjects of the
    smooth pictures (see the module docstring); ``pdf`` itself when there is none.

    Raises:
        pikepdf.PdfError: ``pdf`` is not a PDF qpdf reads (svg2pdf's always is).
    """
    drawn = pictures(svg)
    sizes_smooth = {(p.width_px, p.height_px) for p in drawn if p.smooth}
    if not sizes_smooth:
        return pdf
    sizes_crisp = {(p.width_px, p.height_px) for p in drawn if not p.smooth}

    import pikepdf

    doc = pikepdf.open(io.BytesIO(pdf))
    smasks = set()
    images = []
    for obj in doc.objects:
        if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Image":
            images.append(obj)
            if "/SMask" in obj:
                smasks.add(obj.SMask.objgen)
    changed = 0
    for obj in images:
        if obj.objgen in smasks:
            continue
        size = (int(obj.get("/Width", 0)), int(obj.get("/Height", 0)))
        if size not in sizes_smooth:
            continue
        if size in sizes_crisp and not _same_samples_as_smooth(obj, size, drawn):
            continue
        obj.Interpolate = True
        if "/SMask" in obj:
            obj.SMask.Interpolate = True  # the alpha edge smoothed with the colours
        changed += 1
    if not changed:
        return pdf
    out = io.BytesIO()
    doc.save(out, deterministic_id=True)
    return out.getvalue()


def _same_samples_as_smooth(obj, size: tuple[int, int], drawn: list[Picture]) -> bool:
    """Whether the XObject's samples are those of a smooth picture of ``size`` (and of no crisp one)."""
    import numpy as np
    import pikepdf
    from PIL import Image

    try:
        samples = np.asarray(pikepdf.PdfImage(obj).as_pil_image())
    except Exception:  # noqa: BLE001 - a colour space or filter pikepdf cannot decode: not comparable
        return False
    verdicts = set()
    for picture in drawn:
        if (picture.width_px, picture.height_px) != size:
            continue
        with Image.open(io.BytesIO(picture.data)) as img:
            mine = np.asarray(img.convert("L" if samples.ndim == 2 else "RGB"))
        if mine.shape == samples.shape and np.array_equal(mine, samples):
            verdicts.add(picture.smooth)
    return verdicts == {True}
