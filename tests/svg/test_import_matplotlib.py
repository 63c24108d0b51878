"""SVG files saved by matplotlib in other scripts get the rendered panels' seam fix (issue #14, item 7).

A 3D surface of one flat colour (black, no shading, no edges) drawn as vector polygons shows the
background through a hairline between every two cells, in resvg's PNG and in pdfium's render of the
PDF (each cell antialiased alone). Rasterized without antialiasing, as composer does for its own
panels (composer.mpl.savesvg.fix_seams), the inside of the surface is black everywhere.
"""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from composer.pipeline import build
from conftest import layout_project

SURFACE = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
fig = plt.figure(figsize=(2, 2))
ax = fig.add_axes([0, 0, 1, 1], projection="3d")
x, y = np.meshgrid(np.linspace(-1, 1, 15), np.linspace(-1, 1, 15))
ax.plot_surface(x, y, 0 * x, color="black", shade=False, linewidth=0)
ax.set_axis_off()
fig.savefig(sys.argv[1], format="svg")
"""


def compose(tmp_path, svg: bytes):
    root = layout_project(tmp_path, '''
[panels.s]
svg = "../assets/surface.svg"
at = ["0pt", "0pt"]
size = ["144pt", "144pt"]
''', head='width = "144pt"\nheight = "144pt"\n')
    (root / "assets").mkdir()
    (root / "assets" / "surface.svg").write_bytes(svg)
    build("fig", root=root, formats=("svg", "png", "pdf"), dpi=300, cache=False)
    return root / "build"


def grey(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as img:
        return np.asarray(img.convert("L")).astype(int)


def pdf_grey(pdf: bytes) -> np.ndarray:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return np.asarray(doc[0].render(scale=300 / 72).to_pil().convert("L")).astype(int)
    finally:
        doc.close()


@pytest.fixture(scope="module")
def surface_svg(tmp_path_factory) -> bytes:
    path = tmp_path_factory.mktemp("mpl") / "surface.svg"
    subprocess.run([sys.executable, "-c", SURFACE, str(path)], check=True, capture_output=True)
    return path.read_bytes()


def test_a_matplotlib_surface_file_has_no_seams_in_png_or_pdf(tmp_path, surface_svg):
    assert b"Poly3DCollection_1" in surface_svg and b"<image" not in surface_svg  # vector polygons
    out = compose(tmp_path, surface_svg)
    # the flat square surface, seen from matplotlib's default 3D view, covers the canvas's middle:
    # 100 x 100 px around the centre (300 dpi: 600 x 600 px) lie inside it
    for px in (grey((out / "fig.png").read_bytes()), pdf_grey((out / "fig.pdf").read_bytes())):
        middle = px[250:350, 250:350]
        assert middle.max() <= 40, (middle.max(), int((middle > 40).sum()))
    svg = (out / "fig.svg").read_bytes()
    assert svg.count(b"<image") == 1  # the surface, now one picture


def test_the_same_drawing_not_made_by_matplotlib_stays_vector(tmp_path, surface_svg):
    """Without matplotlib's preamble (its default style rule), a group named like a mesh is not touched."""
    other = surface_svg.replace(b"stroke-linejoin: round", b"stroke-linejoin: miter")
    svg = (compose(tmp_path, other) / "fig.svg").read_bytes()
    assert b"<image" not in svg
