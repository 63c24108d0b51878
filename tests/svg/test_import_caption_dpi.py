"""An svglite figure's caption is drawn whole at every output resolution (issue #23).

Reported: the caption of an R svglite/ggplot2 figure lost the lower half of its line in the PNG at
``--dpi 150`` only (whole at 72, 100, 200, 300 and 600 dpi, and in the SVG and PDF). The input here is
written as svglite writes a figure (pt-sized root, a clip rect of the whole plot, the caption's baseline
2.5 pt above the bottom edge, ``textLength`` with ``spacingAndGlyphs``), placed at the bottom of the
canvas, the line that a rounding of the canvas' or the clip's height in pixels would cut. The expected
ink box of the caption comes from the font file (fontTools: glyph bounds over unitsPerEm) and the dpi,
never from composer's output.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from conformance_helpers import png_pixels

from composer.pipeline import build
from conftest import pdf_pixels

pytestmark = pytest.mark.skipif(shutil.which("fc-match") is None, reason="needs fontconfig's fc-match")

WIDTH_PT, HEIGHT_PT = 120.0, 31.0
BASELINE_PT, SIZE_PX = HEIGHT_PT - 2.5, 8.8  # svglite: font-size in px of its pt user unit
CAPTION = "Source: gapminder (gjpq)"  # descenders: p, q, j, g
SVGLITE = (
    "<?xml version='1.0' encoding='UTF-8' ?>\n"
    "<svg xmlns='http://www.w3.org/2000/svg' xmlns:xlink='http://www.w3.org/1999/xlink' "
    f"width='{WIDTH_PT:.2f}pt' height='{HEIGHT_PT:.2f}pt' viewBox='0 0 {WIDTH_PT:.2f} {HEIGHT_PT:.2f}'>\n"
    "<g class='svglite'><defs><style type='text/css'><![CDATA[\n"
    "  .svglite text { white-space: pre; }\n]]></style></defs>\n"
    "<rect width='100%' height='100%' style='stroke: none; fill: #FFFFFF;'/>\n"
    f"<defs><clipPath id='cpMC4w'><rect x='0.00' y='0.00' width='{WIDTH_PT:.2f}' height='{HEIGHT_PT:.2f}' />"
    "</clipPath></defs>\n<g clip-path='url(#cpMC4w)'>\n"
    f"<text x='4.00' y='{BASELINE_PT:.2f}' style='font-size: {SIZE_PX:.2f}px; font-family: \"Liberation Sans\";'>"
    f"{CAPTION}</text>\n</g></g></svg>\n")
DPIS = (72, 100, 150, 200)


def expected_rows(dpi: float) -> tuple[float, float]:
    """(top, bottom) in px of the caption's ink: baseline minus the highest glyph top, plus the deepest
    descender, from Liberation Sans' own outlines."""
    from fontTools.pens.boundsPen import BoundsPen
    from fontTools.ttLib import TTFont

    file = subprocess.run(["fc-match", "-f", "%{file}", "Liberation Sans"], capture_output=True, text=True,
                          check=True).stdout.strip()
    font = TTFont(file, lazy=True)
    glyphs, cmap, upm = font.getGlyphSet(), font.getBestCmap(), font["head"].unitsPerEm
    tops, bottoms = [], []
    for ch in set(CAPTION) - {" "}:
        pen = BoundsPen(glyphs)
        glyphs[cmap[ord(ch)]].draw(pen)
        tops.append(pen.bounds[3])
        bottoms.append(pen.bounds[1])
    scale = SIZE_PX / upm * dpi / 72.0  # the file's user unit is one pt, its px are user units
    return BASELINE_PT * dpi / 72.0 - max(tops) * scale, BASELINE_PT * dpi / 72.0 - min(bottoms) * scale


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("caption")
    (root / "layouts").mkdir()
    (root / "art").mkdir()
    (root / "art" / "plot.svg").write_text(SVGLITE, encoding="utf-8")
    (root / "layouts" / "fig.toml").write_text(
        f'[figure]\nwidth = "{WIDTH_PT}pt"\nheight = "{HEIGHT_PT}pt"\n'
        f'[panels.plot]\nsvg = "../art/plot.svg"\nat = ["0pt", "0pt"]\nsize = ["{WIDTH_PT}pt", "{HEIGHT_PT}pt"]\n',
        encoding="utf-8")
    out = {}
    for dpi in DPIS:
        result = build("fig", root=root, out=root / f"out{dpi}", formats=("png", "pdf"), dpi=dpi, cache=False)
        out[dpi] = (png_pixels(result.outputs["png"].read_bytes())[..., :3],
                    pdf_pixels(result.outputs["pdf"].read_bytes(), dpi))
    return out


@pytest.mark.parametrize("dpi", DPIS)
@pytest.mark.parametrize("output", ["png", "pdf"])
def test_the_caption_at_the_bottom_edge_is_drawn_whole_at_every_dpi(outputs, dpi, output):
    rgb = outputs[dpi][0 if output == "png" else 1]
    if output == "png":
        assert rgb.shape[0] == round(HEIGHT_PT * dpi / 72.0), rgb.shape  # the canvas' own height in px
    dark = np.nonzero((rgb.min(axis=2) < 128).any(axis=1))[0]
    top, bottom = expected_rows(dpi)
    assert abs(dark.min() - top) <= 1.5 and abs(dark.max() + 1 - bottom) <= 1.5, \
        (output, dpi, int(dark.min()), int(dark.max()) + 1, round(top, 1), round(bottom, 1))
    below = rgb[int(BASELINE_PT * dpi / 72.0) + 1:int(np.ceil(bottom))]  # the rows under the baseline's
    assert (below.min(axis=2) < 128).sum() >= 4, (output, dpi)  # the descenders' ink
