"""The ``image`` panel source: a PNG or JPEG, inlined and fitted in the box keeping its aspect.

The file's bytes are read by the inputs stage (at most
:data:`composer.svg.sanitize.MAX_IMAGE_BYTES`); composing draws it as an
``<image>`` with a data URI, centred in the box at the largest size keeping its
aspect, as viewers display it (EXIF orientation applied:
:func:`composer.svg.images.displayed_raster`). Upsampled pictures keep square,
sharp pixels (``image-rendering``).
"""

from __future__ import annotations

import base64

from lxml import etree

from composer.errors import DataError
from composer.layout.keys import Key
from composer.layout.model import Panel
from composer.layout.sources import SourceTable, file_type
from composer.stages.geometry import Box
from composer.stages.sources.base import Drawing, PanelSource, Reading, naming_the_file, read_project_file
from composer.svg.images import Displayed, ImageTooLarge, ImageUnreadable, displayed_raster
from composer.svg.io import NSMAP, read_limited, svg_tag
from composer.svg.sanitize import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS
from composer.units import fmt


class ImageSource(PanelSource):
    """A PNG or JPEG panel (see the module docstring)."""

    table = SourceTable(key=Key("image", "image_file", "a PNG or JPEG, fitted keeping its aspect and inlined"),
                        article="an", note="an image panel is embedded as it is",
                        types=(file_type("image_file", (".png", ".jpg", ".jpeg"), r"(?i)\.(?:png|jpe?g)$",
                                         "a PNG or JPEG file"),))
    imported = True

    def read(self, panel: Panel, reading: Reading) -> bytes:
        """The file's bytes.

        Raises:
            LayoutError: the file is outside the project. SvgError: it is over the size limit.
        """
        return read_project_file(panel, reading,
                                 lambda path, display, _: read_limited(path, limit=MAX_IMAGE_BYTES, source=display))

    def file_aspect(self, panel: Panel, document: bytes) -> float:
        """The width / height of the picture as viewers display it (EXIF orientation applied).

        Raises:
            DataError: not a PNG or JPEG (or truncated), or over :data:`MAX_IMAGE_PIXELS` pixels.
        """
        picture = _picture(panel, document)
        return picture.width_px / picture.height_px

    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """The picture centred in ``box`` at the largest size keeping its aspect.

        Raises:
            DataError: not a PNG or JPEG (or truncated), or over :data:`MAX_IMAGE_PIXELS` pixels.
        """
        assert drawing.document is not None
        with naming_the_file(panel, drawing.figure, drawing.file):
            return _image_group(panel, box, drawing.document, f"panel-{panel.name}",
                                drawing.figure.spec.raster_ppi)


def _picture(panel: Panel, data: bytes) -> Displayed:
    """The panel's picture as displayed (:func:`composer.svg.images.displayed_raster`).

    Raises:
        DataError: not a PNG or JPEG (or truncated), or over :data:`MAX_IMAGE_PIXELS` pixels.
    """
    try:
        return displayed_raster(data, max_pixels=MAX_IMAGE_PIXELS)
    except ImageTooLarge as exc:
        raise DataError(f"image {exc}", file=str(panel.source)) from None
    except ImageUnreadable:
        raise DataError("cannot read image: not a PNG or JPEG file (or it is truncated)",
                        file=str(panel.source)) from None


def _image_group(panel: Panel, box: Box, data: bytes, group_id: str, inputs_ppi: float) -> etree._Element:
    """A PNG/JPEG panel, inlined as a data URI and fitted in its box keeping aspect."""
    picture = _picture(panel, data)
    width_px, height_px, mime, data = picture.width_px, picture.height_px, picture.mime, picture.data
    scale = min(box.width_pt / width_px, box.height_pt / height_px)
    w, h = width_px * scale, height_px * scale
    group = etree.Element(svg_tag("g"), id=group_id)
    image = etree.SubElement(group, svg_tag("image"))
    image.set("x", fmt(box.x_pt + (box.width_pt - w) / 2))
    image.set("y", fmt(box.y_pt + (box.height_pt - h) / 2))
    image.set("width", fmt(w))
    image.set("height", fmt(h))
    image.set("preserveAspectRatio", "none")
    if width_px / (w / 72.0) < inputs_ppi:
        # upsampled: keep pixels square and sharp (nearest) instead of smearing them
        image.set("image-rendering", "optimizeSpeed")
    image.set(f"{{{NSMAP['xlink']}}}href", f"data:{mime};base64," + base64.b64encode(data).decode("ascii"))
    return group
