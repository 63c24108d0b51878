"""README "Panel functions" promises: the ``fig`` a renderer gets is a matplotlib Figure of the panel's
box, with the figure's font and font size in rcParams, and it may not be resized; a 3D data anchor
``(ax, x, y, z)`` lands on that data point; ``[figure] params`` and ``values(data)`` fill text fields."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
from lxml import etree

from composer.pipeline import build
from conftest import read_png

PANELS = '''
import matplotlib


def probe(fig, data):
    """Fails the build unless fig is what the README says: 30 x 20 mm, 9 pt DejaVu Sans."""
    import matplotlib.figure
    assert isinstance(fig, matplotlib.figure.Figure), type(fig)
    w, h = fig.get_size_inches()
    assert abs(w - 30 / 25.4) < 1e-9 and abs(h - 20 / 25.4) < 1e-9, (w, h)
    assert matplotlib.rcParams["font.size"] == 9.0, matplotlib.rcParams["font.size"]
    assert "DejaVu Sans" in matplotlib.rcParams["font.family"] + matplotlib.rcParams["font.sans-serif"][:1]
    fig.add_axes([0, 0, 1, 1]).plot([0, 1], [0, 1])


def cube(fig, data):
    """A red dot drawn by matplotlib at the 3D point (0.2, 0.7, 0.4); the anchor names the same point."""
    ax = fig.add_axes([0, 0, 1, 1], projection="3d")
    ax.set_xlim(0, 1); ax.set_ylim(0, 1); ax.set_zlim(0, 1)
    ax.set_axis_off()
    ax.scatter([0.2], [0.7], [0.4], s=60, color="#ff0000", depthshade=False)
    return {"dot": (ax, 0.2, 0.7, 0.4)}
'''

VALUES = '''
def blank(fig, data):
    pass


def values(data):
    return {"doubled": 2 * data["n"]}
'''


def project(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS)
    (root / "panels" / "v.py").write_text(VALUES)
    (root / "layouts" / "fig.toml").write_text(textwrap.dedent(body))
    return root


def test_the_renderers_figure_has_the_panels_size_font_and_font_size(tmp_path):
    root = project(tmp_path, """
    [figure]
    width = "40mm"
    height = "30mm"
    font_size = "9pt"
    [panels.a]
    render = "p:probe"
    at = ["5mm", "5mm"]
    size = ["30mm", "20mm"]
    """)
    build("fig", root=root, formats=("svg",), cache=False)  # the renderer's asserts would fail the build


def test_a_3d_data_anchor_lands_on_the_data_point(tmp_path):
    """A blue 0.4 mm dot on the canvas at ``p.dot`` sits at the centre of the red dot matplotlib drew at
    that 3D point (PNG at 254 dpi: 10 px per mm; within 0.2 mm)."""
    root = project(tmp_path, """
    [figure]
    width = "50mm"
    height = "50mm"
    [panels.p]
    render = "p:cube"
    at = ["5mm", "5mm"]
    size = ["40mm", "40mm"]
    [[shape]]
    kind = "circle"
    at = "p.dot"
    radius = "0.4mm"
    fill = "#0000ff"
    stroke = "none"
    """)
    png = read_png(build("fig", root=root, formats=("png",), dpi=254, cache=False).outputs["png"])[..., :3].astype(int)
    red = (png[..., 0] > 200) & (png[..., 1] < 80) & (png[..., 2] < 80)
    blue = (png[..., 2] > 200) & (png[..., 0] < 80) & (png[..., 1] < 80)
    assert red.sum() > 20 and blue.sum() > 20
    ry, rx = np.argwhere(red | blue).mean(axis=0)  # the dot, with the blue centre painted over it
    by, bx = np.argwhere(blue).mean(axis=0)
    assert abs(by - ry) <= 2 and abs(bx - rx) <= 2, ((by, bx), (ry, rx))


def test_figure_params_and_values_fill_canvas_text_fields(tmp_path):
    """``[figure] params`` entries, the data file's scalars and ``values(data)`` (of a module a panel uses) fill ``{name:format}`` fields; the canvas
    text's outline carries the filled text as its aria-label."""
    root = project(tmp_path, """
    [figure]
    width = "40mm"
    height = "20mm"
    data = "../data/d.json"
    params = { k = 0.5 }
    [panels.b]
    render = "v:blank"
    at = ["1mm", "1mm"]
    size = ["3mm", "3mm"]
    empty = true
    [[text]]
    text = "n = {n}, k = {k:.2f}, 2n = {doubled:d}"
    at = ["20mm", "10mm"]
    """)
    (root / "data").mkdir()
    (root / "data" / "d.json").write_text('{"n": 21}')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    labels = [el.get("aria-label") for el in svg.iter() if el.get("aria-label")]
    assert "n = 21, k = 0.50, 2n = 42" in labels, labels
