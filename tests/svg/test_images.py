"""One measurement of embedded rasters: decoding, drawn size and ppi, for the check and the export alike."""

from __future__ import annotations

import base64
import io

import pytest
from lxml import etree

from composer.svg.images import ImageUnreadable, drawn_box, inline_image, ppi, raster_report
from composer.svg.measure import scene
from composer.svg.transform import parse_transform


def _png(width: int, height: int) -> str:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _image(attrs: str) -> etree._Element:
    return etree.fromstring(f'<image xmlns="http://www.w3.org/2000/svg" {attrs}/>')


def test_ppi_is_the_coarser_axis():
    assert ppi(300, 150, 72, 36) == pytest.approx(300)  # 300 px over 1 in, 150 px over 0.5 in
    assert ppi(100, 100, 72, 144) == pytest.approx(50)  # 100 px over 2 in


def test_drawn_box_scales_each_axis_and_defaults_to_the_pixel_size():
    image = inline_image(_image(f'x="1" y="1" width="10" height="5" href="{_png(4, 2)}"'))
    assert (image.mime, image.width_px, image.height_px) == ("image/png", 4, 2)
    el = _image(f'x="1" y="1" width="10" height="5" href="{_png(4, 2)}"')
    assert drawn_box(el, parse_transform("scale(2 3)"), image) == (20, 15, (2, 3, 22, 18))
    bare = _image(f'href="{_png(4, 2)}"')
    assert drawn_box(bare, parse_transform("scale(2)"), image) == (8, 4, (0, 0, 8, 4))
    # 1in is 96 user units (CSS px)
    inch = _image(f'width="1in" height="0.5in" href="{_png(4, 2)}"')
    assert drawn_box(inch, parse_transform(""), image)[:2] == pytest.approx((96, 48))


@pytest.mark.parametrize("href, why", [
    ("photo.png", "is not an inline data URI"),
    ("", "is not an inline data URI"),
    ("data:image/png;base64,@@@@", "could not be decoded"),
    ("data:image/png;base64," + base64.b64encode(b"not a png").decode(), "could not be decoded"),
])
def test_unreadable_images_say_why(href, why):
    with pytest.raises(ImageUnreadable, match=why):
        inline_image(_image(f'href="{href}"'))


def test_check_and_export_measure_the_same_raster():
    """72 x 36 user units (pt on the canvas) under scale(0.5): 36 x 18 pt = 0.5 x 0.25 in, so
    100 x 50 px is 200 ppi on both axes."""
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><g id="panel-p" transform="scale(0.5)">'
           f'<image id="im" width="72" height="36" href="{_png(100, 50)}"/></g></svg>')
    (report,) = raster_report(etree.fromstring(svg))
    (raster,) = scene(svg.encode()).rasters
    assert (report.width_pt, report.height_pt) == (raster.width_pt, raster.height_pt) == (36, 18)
    assert report.ppi == raster.ppi == pytest.approx(200)
    assert report.owner == "panel-p"
