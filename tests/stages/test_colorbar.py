"""``[[colorbar]]`` (issue #13 item 3) and ``[[align]]`` with panels that draw their own colorbar,
checked on built outputs.

Expectations are worked out independently of composer: positions from the fractions the renderers
pass to ``fig.add_axes`` times the cell sizes written in the layout, colours from matplotlib's own
colormaps evaluated at the values asked, pixels read from the PNG export at a known dpi.
"""

from __future__ import annotations

import numpy as np
import pytest

from composer.pipeline import build
from conftest import layout_project, read_png

MM = 72 / 25.4

ALIGN_PANELS = '''
import numpy as np

def bare(ax):
    ax.set_facecolor("#ff0000")
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xticks([]); ax.set_yticks([])

def with_bar(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.6, 0.8])
    bare(ax)
    image = ax.imshow(np.zeros((2, 2)), extent=(0, 1, 0, 1), aspect="auto", alpha=0)
    fig.colorbar(image, cax=fig.add_axes([0.75, 0.1, 0.05, 0.8]))

def with_own_bar(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.85, 0.8])
    bare(ax)
    image = ax.imshow(np.zeros((2, 2)), extent=(0, 1, 0, 1), aspect="auto", alpha=0)
    fig.colorbar(image, ax=ax)  # matplotlib takes its room from ax

def without(fig, data):
    bare(fig.add_axes([0.1, 0.1, 0.85, 0.8]))
'''

ALIGN = """
[grid]
mosaic = "A\\nB"
gutter = "5mm"
[panels.top]
render = "p:{top}"
cell = "A"
[panels.bottom]
render = "p:without"
cell = "B"
[[align]]
panels = ["top", "bottom"]
axis = "x"
"""


def red_columns(png: np.ndarray, rows: slice) -> tuple[int, int]:
    """First and last pixel column where the rows ``rows`` hold the red plot-area face (half-covered
    edge pixels count: the edge is where the red share crosses one half)."""
    band = png[rows, :, :3].astype(int)
    red = (band[..., 0] > 200) & (band[..., 1] < 128) & (band[..., 2] < 128)
    cols = np.nonzero(red.any(axis=0))[0]
    return int(cols[0]), int(cols[-1])


@pytest.mark.parametrize("top", ["with_bar", "with_own_bar"])
def test_align_leaves_a_panels_own_colorbar_out_of_its_plot_area(tmp_path, top):
    """Two panels 100 x 30 mm stacked, aligned on x; the top one draws its own colorbar beside its axes.
    The plot areas' right edges meet: with cax, the top axes end at 0.1 + 0.6 = 0.7 of 100 mm, so
    the bottom one (0.95) is drawn to 70 mm; with fig.colorbar(ax=) matplotlib's own room (its
    make_axes: the parent keeps 1 - fraction 0.15 - pad 0.05 of its width), at 0.1 + 0.85 * 0.8.
    Before the fix the colorbar counted as plot area and the edges ended apart (issue #13: 34 pt).
    Measured at 720 dpi: 10 px per pt, so one pixel is 0.1 pt."""
    root = layout_project(tmp_path, ALIGN.format(top=top), head='width = "100mm"\nheight = "65mm"\n')
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(ALIGN_PANELS)
    png = read_png(build("fig", root=root, formats=("png",), dpi=720, cache=False).outputs["png"])
    px_per_mm = 720 / 25.4
    top_rows = slice(int(10 * px_per_mm), int(20 * px_per_mm))  # inside 0.1 .. 0.9 of 0..30 mm
    bottom_rows = slice(int(45 * px_per_mm), int(55 * px_per_mm))  # 35..65 mm
    top_left, top_right = red_columns(png, top_rows)
    bottom_left, bottom_right = red_columns(png, bottom_rows)
    assert abs(top_right - bottom_right) <= 1, (top_right, bottom_right)  # 0.1 pt
    assert abs(top_left - bottom_left) <= 1
    # with_bar: 0.1 + 0.6; with_own_bar: matplotlib shrinks the parent to 1 - 0.15 - 0.05 of its 0.85
    expected_mm = 70.0 if top == "with_bar" else 100 * (0.1 + 0.85 * 0.8)
    assert (top_right + 1) / px_per_mm == pytest.approx(expected_mm, abs=0.2 / MM)
