"""An image shown through a ``<use>`` is measured where the ``<use>`` draws it (found on a real XeTeX/TikZ
PDF panel: pdftocairo writes each image of a PDF page in ``<defs>``, shown by a scaled ``<use>``).

The build warned "46x25 px over 9.8x5.3 mm = 119 ppi" while ``compose check`` measured the same image
"printed 4.7 x 2.6 mm, 249 ppi": the build measured the definition in ``<defs>`` (where nothing is
drawn) instead of the ``<use>`` (scaled 0.48). The drawing is written here: a 10 x 10 px red PNG
defined 100 x 100 units in ``<defs>``, shown by ``<use transform="translate(10 10) scale(0.25)">``
(25 x 25 units at (10, 10)), and a second picture defined but never shown. viewBox 0 0 100 50 on a
100 x 50 pt panel: 1 unit = 1 pt.

Expected, from the geometry: the picture is printed 25 pt = 8.8 mm wide, 10 px / (25/72 in) = 28.8 ppi,
in the build's warning and in the check; the unused picture is not reported; in the PNG and in pdfium's
render of the PDF (72 dpi: 1 px = 1 pt) red at (22, 22), white at (60, 40), where the definition would
lie unscaled.
"""

from __future__ import annotations

import base64
import io
import warnings

import numpy as np
import pytest
from PIL import Image

from composer.errors import ComposerWarning
from composer.pipeline import build, check
from conftest import layout_project

DPI = 72


def png_uri(colour: tuple[int, int, int]) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (10, 10), colour).save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


DRAWING = f'''<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="100pt" height="50pt" viewBox="0 0 100 50">
  <defs>
    <image id="shown" width="100" height="100" xlink:href="{png_uri((255, 0, 0))}"/>
    <image id="unused" width="100" height="100" xlink:href="{png_uri((0, 255, 0))}"/>
  </defs>
  <use xlink:href="#shown" transform="translate(10 10) scale(0.25)"/>
</svg>'''


@pytest.fixture(scope="module")
def used(tmp_path_factory):
    root = layout_project(tmp_path_factory.mktemp("use"), '''
[panels.p]
svg = "../figs/use.svg"
at = ["0pt", "0pt"]
size = ["100pt", "50pt"]
''', head='width = "100pt"\nheight = "50pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "use.svg").write_text(DRAWING)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build("fig", root=root, formats=("pdf", "png"), dpi=DPI, jobs=1)
    return root, [str(w.message) for w in caught if issubclass(w.category, ComposerWarning)]


def test_the_build_and_the_check_measure_the_image_where_the_use_draws_it(used):
    root, messages = used
    rasters = [m for m in messages if "below raster_ppi" in m]
    assert len(rasters) == 1, rasters  # the unused definition is not reported
    assert "10x10 px over 8.8x8.8 mm = 29 ppi" in rasters[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComposerWarning)  # the build's warning, read above
        found = [f for f in check("fig", root=root, jobs=1).errors if f.rule == "raster-ppi"]
    assert [f.measured for f in found] == [pytest.approx(28.8, abs=0.05)]


def test_the_image_is_drawn_where_the_use_puts_it_in_the_png_and_the_pdf(used):
    import pypdfium2 as pdfium

    root, _ = used
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("RGB"), dtype=float)
    page = pdfium.PdfDocument(str(root / "build" / "fig.pdf"))[0]
    rendered = np.asarray(page.render(scale=DPI / 72).to_pil().convert("RGB"), dtype=float)
    for rgb in (png, rendered):
        assert rgb.shape[:2] == (50, 100)
        assert rgb[22, 22] == pytest.approx([255, 0, 0], abs=2)
        assert rgb[40, 60] == pytest.approx([255, 255, 255], abs=2)


def test_a_raster_warning_names_the_panel_as_the_layout_does_once_for_equal_images():
    """Four equal pictures of one panel (a TikZ PDF's four 46 x 25 px images, numbered ``tikz--66`` ...
    by composer) were four warnings, each naming ``panel-tikz`` and an id the file does not hold: one
    warning now, in the layout's words. 10 px over 72 units (1 in = 25.4 mm) is 10 ppi."""
    from lxml import etree

    from composer.svg.images import finish_rasters

    uri = png_uri((255, 0, 0))
    images = "".join(f'<image id="p--{i}" y="{80 * i}" width="72" height="72" xlink:href="{uri}"/>'
                     for i in range(1, 5))
    root = etree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
                            f'<g id="panel-p">{images}</g></svg>')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        issued = finish_rasters(root, 300)
    assert len(issued) == 1 and len(caught) == 1
    assert str(caught[0].message).startswith("panel p: 4 images of 10x10 px over 25.4x25.4 mm = 10 ppi, "
                                             "below raster_ppi 300;")
