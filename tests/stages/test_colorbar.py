"""``[[colorbar]]`` (issue #13 item 3) and ``[[align]]`` with panels that draw their own colorbar,
checked on built outputs.

Expectations are worked out independently of composer: positions from the fractions the renderers
pass to ``fig.add_axes`` times the cell sizes written in the layout, colours from matplotlib's own
colormaps evaluated at the values asked, pixels read from the PNG export at a known dpi.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from composer.errors import ComposerWarning, LayoutError
from composer.pipeline import build, check
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

def narrow(fig, data):
    bare(fig.add_axes([0.1, 0.1, 0.5, 0.8]))

def with_shown_bar(fig, data):
    from matplotlib.cm import ScalarMappable
    bare(fig.add_axes([0.1, 0.1, 0.6, 0.8]))
    fig.colorbar(ScalarMappable(cmap="viridis"), cax=fig.add_axes([0.75, 0.1, 0.05, 0.8]), ticks=[])
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


def test_a_panels_own_colorbar_moves_with_the_edge_it_is_beside(tmp_path):
    """The top panel's axes end at 0.7 of 100 mm, its colorbar at 0.75..0.8; the bottom's axes end at 0.1 + 0.5:
    aligned, the top axes end at 60 mm too, and its colorbar keeps its 5 mm gap and 5 mm width: 65..70 mm."""
    body = ALIGN.format(top="with_shown_bar").replace('render = "p:without"', 'render = "p:narrow"')
    root = layout_project(tmp_path, body, head='width = "100mm"\nheight = "65mm"\n')
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(ALIGN_PANELS)
    png = read_png(build("fig", root=root, formats=("png",), dpi=720, cache=False).outputs["png"])
    px_per_mm = 720 / 25.4
    rows = slice(int(10 * px_per_mm), int(20 * px_per_mm))
    _, top_right = red_columns(png, rows)
    _, bottom_right = red_columns(png, slice(int(45 * px_per_mm), int(55 * px_per_mm)))
    assert abs(top_right - bottom_right) <= 1 and (top_right + 1) / px_per_mm == pytest.approx(60, abs=0.2 / MM)
    band = png[rows, :, :3].astype(int)
    bar = np.nonzero(((band.max(axis=2) - band.min(axis=2)) > 40).any(axis=0)
                     & ~((band[..., 0] > 200) & (band[..., 1] < 128)).any(axis=0))[0]
    h = 0.4 * 10  # the outline's inner half hides 0.4 pt of colour at each edge (10 px per pt)
    assert (bar[0] - h) / px_per_mm == pytest.approx(65, abs=0.2 / MM)
    assert (bar[-1] + 1 + h) / px_per_mm == pytest.approx(70, abs=0.2 / MM)


# ─── [[colorbar]] ────────────────────────────────────────────────────────────

HEAT_PANELS = '''
import numpy as np
from matplotlib.colors import LogNorm

def heat(fig, data, vmin=0.0, vmax=1.0, cmap="viridis", log=False, alpha=None):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    values = np.linspace(vmin if not log else np.log10(vmin), vmax if not log else np.log10(vmax), 12)
    values = values.reshape(3, 4) if not log else 10 ** values.reshape(3, 4)
    norm = LogNorm(vmin, vmax) if log else None
    ax.imshow(values, cmap=cmap, norm=norm, vmin=None if log else vmin, vmax=None if log else vmax, alpha=alpha)

def contours(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    x, y = np.meshgrid(np.linspace(0, 1, 20), np.linspace(0, 1, 20))
    ax.contourf(x, y, x * y, levels=[0.0, 0.25, 0.5, 1.0], cmap="magma")

def lines(fig, data):
    fig.add_axes([0.1, 0.1, 0.8, 0.8]).plot([0, 1], [0, 1])

def rgb(fig, data):
    fig.add_axes([0.1, 0.1, 0.8, 0.8]).imshow(np.zeros((2, 2, 3)))

def all_nan(fig, data):
    fig.add_axes([0.1, 0.1, 0.8, 0.8]).imshow(np.full((2, 2), np.nan))

def empty_scatter(fig, data):
    fig.add_axes([0.1, 0.1, 0.8, 0.8]).scatter([], [], c=[])
'''

#: a 100 x 60 mm canvas: heatmaps a (top) and b (bottom) 80 mm wide, the colorbar's cell K the last 20 mm
GRID = """
[grid]
mosaic = "AK\\nBK"
columns = ["80mm", "20mm"]
{panels}
[[colorbar]]
for = ["a", "b"]
cell = "K"
{keys}
"""
HEADS = 'width = "100mm"\nheight = "60mm"\nfont_size = "7pt"\n'
DPI = 720  # 10 px per pt
PX_PER_PT = DPI / 72


def heat_project(tmp_path, keys: str = "", a: str = "", b: str = "", mosaic: str | None = None,
                 head: str = HEADS, extra: str = ""):
    panels = f"""
[panels.a]
render = "p:heat"
cell = "A"
{a}
[panels.b]
render = "p:heat"
cell = "B"
{b}
{extra}"""
    body = GRID.format(panels=panels, keys=keys)
    if mosaic is not None:
        body = body.replace('mosaic = "AK\\nBK"\ncolumns = ["80mm", "20mm"]', mosaic)
    root = layout_project(tmp_path, body, head=head)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(HEAT_PANELS)
    return root


def png_of(root) -> np.ndarray:
    return read_png(build("fig", root=root, formats=("png",), dpi=DPI, cache=False).outputs["png"])[..., :3]


def coloured(png: np.ndarray, chroma: int = 40) -> np.ndarray:
    """Pixels that are neither grey nor white nor black: the colour map's (viridis, magma are never grey)."""
    return (png.max(axis=2) - png.min(axis=2)) > chroma  # uint8: the max is never below the min (no wrap-around)


#: half the colorbar's outline (matplotlib's default axes.linewidth, 0.8 pt, centred on the bar's edge) hides
#: this much of the colours at each edge, px
HALF_OUTLINE_PX = 0.4 * PX_PER_PT


def bar_extent(png: np.ndarray, x0_pt: float = 0.0, y0_pt: float = 0.0,
               chroma: int = 40) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) in px (edges, not pixel centres) of the colorbar's axes right of x0_pt and
    below y0_pt (its cell): the coloured pixels' extent widened by the outline's inner half."""
    mask = coloured(png, chroma)
    mask[:, : int(x0_pt * PX_PER_PT)] = False
    mask[: int(y0_pt * PX_PER_PT)] = False
    rows, cols = np.nonzero(mask.any(axis=1))[0], np.nonzero(mask.any(axis=0))[0]
    h = HALF_OUTLINE_PX
    return cols[0] - h, rows[0] - h, cols[-1] + 1 + h, rows[-1] + 1 + h


def expected_rgb(cmap: str, fraction: float) -> np.ndarray:
    from matplotlib import colormaps

    return np.array(colormaps[cmap](fraction)[:3]) * 255


def test_the_colorbar_maps_values_to_the_panels_colours(tmp_path):
    """A vertical bar for two viridis maps on 0..1: along its length, the pixel at the fraction f of the
    way up has viridis(f), as the panels' own pixels of value f do (matplotlib's colormap evaluated
    independently). Sampled in the bar's middle column, away from its outline."""
    png = png_of(heat_project(tmp_path))
    left, top, right, bottom = bar_extent(png, 80 * MM)
    column = int((left + right) / 2)
    for f in (0.05, 0.25, 0.5, 0.75, 0.95):
        row = int(bottom - f * (bottom - top))
        assert np.abs(png[row, column].astype(float) - expected_rgb("viridis", f)).max() <= 6, f


def test_ticks_sit_at_the_values_asked(tmp_path):
    """ticks = [0.2, 0.5, 0.9] on 0..1: tick marks (matplotlib's 3.5 pt, right of the bar) at 0.2, 0.5 and
    0.9 of the bar's length from its bottom, to 1 px (0.1 pt); nowhere else."""
    png = png_of(heat_project(tmp_path, keys="ticks = [0.2, 0.5, 0.9]"))
    left, top, right, bottom = bar_extent(png, 80 * MM)
    probe = int(right + 2.0 * PX_PER_PT)  # 2 pt right of the bar: on the tick marks, clear of the outline
    first = int(top)
    dark = np.nonzero(png[first:int(bottom) + 1, probe].max(axis=1) < 100)[0] + first
    runs = np.split(dark, np.nonzero(np.diff(dark) > 1)[0] + 1)
    found = sorted((run[0] + run[-1] + 1) / 2 for run in runs if len(run))  # a run's middle, as an edge position
    expected = sorted(bottom - f * (bottom - top) for f in (0.2, 0.5, 0.9))
    assert len(found) == 3, found
    assert found == pytest.approx(expected, abs=1.5)


def test_a_log_norm_is_drawn_as_the_panels_draw_it(tmp_path):
    """LogNorm(0.01, 1) maps 0.1 to the middle: the bar's middle pixel is viridis(0.5)."""
    keys = 'ticks = [0.01, 0.1, 1]\nlabel = "error"'
    log = "params = { log = true, vmin = 0.01, vmax = 1.0 }"
    png = png_of(heat_project(tmp_path, keys=keys, a=log, b=log))
    left, top, right, bottom = bar_extent(png, 80 * MM)
    row = int((top + bottom) / 2)
    assert np.abs(png[row, int((left + right) / 2)].astype(float) - expected_rgb("viridis", 0.5)).max() <= 6


def test_the_bar_runs_along_its_panels_plot_areas(tmp_path):
    """Without ticks nothing reaches past the bar's ends, so it runs along the plot areas of a and b, not its
    whole cell K (0 to 60 mm): each renderer's axes is [0.1, 0.1, 0.8, 0.8] of its 30 mm tall cell, so the
    plot areas span 3 mm (a's top) to 57 mm (b's bottom), to 0.1 pt; it is 1/20 as thick as that 54 mm
    (matplotlib's default colorbar aspect, ``aspect=20``), at the cell's left edge (80 mm)."""
    png = png_of(heat_project(tmp_path, keys="ticks = []"))
    left, top, right, bottom = bar_extent(png, 80 * MM)
    assert top / PX_PER_PT == pytest.approx(3 * MM, abs=0.1)
    assert bottom / PX_PER_PT == pytest.approx(57 * MM, abs=0.1)
    assert left / PX_PER_PT == pytest.approx(80 * MM, abs=0.1)
    assert (right - left) / PX_PER_PT == pytest.approx(54 * MM / 20, abs=0.2)  # two edges, 1 px each


def test_an_explicit_size_still_wins(tmp_path):
    """Placed at (80 mm, 10 mm) with size 20 x 40 mm instead of a cell: the bar spans that box (10 to 50 mm),
    not the plot areas (3 to 57 mm), and is 40 / 20 = 2 mm thick."""
    root = heat_project(tmp_path, keys='ticks = []')
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('cell = "K"', 'at = ["80mm", "10mm"]\nsize = ["20mm", "40mm"]'))
    png = png_of(root)
    left, top, right, bottom = bar_extent(png, 80 * MM)
    assert top / PX_PER_PT == pytest.approx(10 * MM, abs=0.1)
    assert bottom / PX_PER_PT == pytest.approx(50 * MM, abs=0.1)
    assert (right - left) / PX_PER_PT == pytest.approx(40 * MM / 20, abs=0.2)


def test_a_horizontal_bar_runs_left_to_right_along_its_panels(tmp_path):
    """orientation = "horizontal" in a cell under the maps (the row K: 45 to 60 mm of 100 mm; A and B 50 mm
    wide, their axes 0.1 to 0.9 of it): the bar runs along their plot areas, 5 mm to 95 mm, at the cell's top,
    90 / 20 = 4.5 mm thick, and goes from viridis(0) on the left to viridis(1) on the right."""
    mosaic = 'mosaic = "AB\\nKK"\nrows = ["45mm", "15mm"]'
    png = png_of(heat_project(tmp_path, keys='orientation = "horizontal"\nticks = []', mosaic=mosaic))
    left, top, right, bottom = bar_extent(png, 0.0, 45 * MM)
    assert top / PX_PER_PT == pytest.approx(45 * MM, abs=0.1)
    assert left / PX_PER_PT == pytest.approx(5 * MM, abs=0.15)  # 1.5 px: an end inside the canvas is anti-aliased
    assert right / PX_PER_PT == pytest.approx(95 * MM, abs=0.15)
    assert (bottom - top) / PX_PER_PT == pytest.approx(90 * MM / 20, abs=0.2)  # two edges, 1 px each
    middle = int((top + bottom) / 2)
    for f in (0.1, 0.9):
        col = int(left + f * (right - left))
        assert np.abs(png[middle, col].astype(float) - expected_rgb("viridis", f)).max() <= 6, f


def test_the_bar_has_the_alpha_of_its_panels(tmp_path):
    """Two viridis maps drawn with alpha 0.4 on a white canvas: the bar's pixel at the fraction f of its length
    is viridis(f) at 40 % over white, 0.4 * c + 0.6 * 255 (source-over compositing), as the maps' own pixels
    are; an opaque bar (viridis(f) itself) would differ by up to 0.6 * 255."""
    alpha = "params = { alpha = 0.4 }"
    png = png_of(heat_project(tmp_path, a=alpha, b=alpha))
    left, top, right, bottom = bar_extent(png, 80 * MM, chroma=12)  # viridis(0) at 40 %: (180, 153, 187)
    column = int((left + right) / 2)
    for f in (0.1, 0.5, 0.9):
        row = int(bottom - f * (bottom - top))
        expected = 0.4 * expected_rgb("viridis", f) + 0.6 * 255
        assert np.abs(png[row, column].astype(float) - expected).max() <= 6, f


def test_panels_of_different_alphas_are_refused_naming_both(tmp_path, capsys):
    """a drawn with alpha 0.4, b opaque: one line naming both panels and both alphas, exit 1, nothing written."""
    from composer.cli.main import main

    root = heat_project(tmp_path, a="params = { alpha = 0.4 }")
    assert main(["--root", str(root), "fig"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "colorbar[0].for" in err
    assert "panel 'a'" in err and "alpha 0.4" in err and "panel 'b'" in err and "alpha 1" in err
    assert not (root / "build" / "fig.svg").exists()


def test_panels_of_different_limits_are_refused_naming_both(tmp_path):
    """b draws 0..2 and a 0..1: one line naming the file, the key, both panels and both values; nothing written."""
    root = heat_project(tmp_path, b="params = { vmax = 2.0 }")
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "layouts/fig.toml" in message and "colorbar[0].for" in message
    assert "panel 'b'" in message and "panel 'a'" in message and "vmax 2" in message and "by 1" in message
    assert "\n" not in message
    assert not (root / "build" / "fig.svg").exists()


def test_panels_of_different_colormaps_are_refused_by_name(tmp_path):
    root = heat_project(tmp_path, b='params = { cmap = "magma" }')
    with pytest.raises(LayoutError, match=r"panel 'b' maps colour by colormap magma, panel 'a' by viridis"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_the_mismatch_exits_1_with_one_line_and_leaves_outputs_alone(tmp_path, capsys):
    """Through the command: a good build, then b's limits changed: exit 1, one line, build/ byte-identical."""
    from composer.cli.main import main
    from conftest import snapshot

    root = heat_project(tmp_path)
    assert main(["fig", "--root", str(root)]) == 0
    before = snapshot(root)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"\ncell = "B"',
                                                 'render = "p:heat"\ncell = "B"\nparams = { vmin = 0.5 }'))
    capsys.readouterr()
    assert main(["fig", "--root", str(root)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "colorbar[0].for" in err and "vmin 0.5" in err and "by 0" in err
    assert snapshot(root) == before


def test_an_unknown_panel_in_for_is_named_with_the_closest(tmp_path):
    root = heat_project(tmp_path)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('for = ["a", "b"]', 'for = ["a", "bb"]'))
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "colorbar[0].for[1]" in message and "'bb'" in message and "'b'" in message


def test_a_listed_panel_with_no_colour_mapping_is_reported(tmp_path):
    """A line plot listed in for: a warning naming it (the bar is the other panels' scale); when no
    listed panel maps colour, an error."""
    extra = '[panels.c]\nrender = "p:lines"\nat = ["0mm", "0mm"]\nsize = ["10mm", "10mm"]\noverlap = true\n'
    root = heat_project(tmp_path, extra=extra)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('for = ["a", "b"]', 'for = ["a", "c"]'))
    with pytest.warns(ComposerWarning, match=r"panel 'c' is listed in a \[\[colorbar\]\]'s for but maps no values"):
        build("fig", root=root, formats=("svg",), cache=False)
    layout.write_text(layout.read_text().replace('for = ["a", "c"]', 'for = ["c"]'))
    with pytest.raises(LayoutError, match=r"none of its panels \('c'\) maps values to colours"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_a_filled_contour_set_gives_the_bar_its_levels(tmp_path):
    """contourf with levels 0, 0.25, 0.5, 1: the bar is three bands of magma at the levels' midpoints'
    norm (matplotlib's contour colorbar), each as long as its share of 0..1."""
    root = heat_project(tmp_path, keys="ticks = []")
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"', 'render = "p:contours"'))
    png = png_of(root)
    left, top, right, bottom = bar_extent(png, 80 * MM)
    column = int((left + right) / 2)
    length = bottom - top
    for lo, hi in ((0.0, 0.25), (0.25, 0.5), (0.5, 1.0)):
        mid = (lo + hi) / 2
        row = int(bottom - mid * length)
        # matplotlib colours a contour band by its level midpoint, normalised over the levels' range
        assert np.abs(png[row, column].astype(float) - expected_rgb("magma", mid)).max() <= 6, (lo, hi)


def test_a_panels_own_extend_extends_the_shared_bar(tmp_path):
    """A panel whose own colorbar has extend = "max": the shared bar ends in a triangle at the top (its tip
    on the bar's middle line, the corners beside it white), and a plain bar at the bottom."""
    root = heat_project(tmp_path, keys="ticks = []")
    (root / "panels" / "p.py").write_text(HEAT_PANELS + '''
def extended(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.6, 0.8])
    image = ax.imshow(np.linspace(0, 1, 12).reshape(3, 4), vmin=0.0, vmax=1.0)
    fig.colorbar(image, cax=fig.add_axes([0.75, 0.1, 0.05, 0.8]), extend="max")
''')
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"\ncell = "B"', 'render = "p:extended"\ncell = "B"'))
    png = png_of(root)
    mask = coloured(png)
    mask[:, : int(80 * MM * PX_PER_PT)] = False
    rows = np.nonzero(mask.any(axis=1))[0]
    top, bottom = rows[0], rows[-1]
    width_top = np.count_nonzero(mask[top + 3])
    width_bottom = np.count_nonzero(mask[bottom - 3])
    assert width_top < width_bottom / 4  # near the tip of the triangle, a few pixels wide
    assert np.count_nonzero(mask[(top + bottom) // 2]) == pytest.approx(width_bottom, abs=2)


def test_a_norm_composer_cannot_redraw_is_named(tmp_path):
    """SymLogNorm keeps its linscale and base in private attributes: refused in one line listing the norms."""
    root = heat_project(tmp_path)
    (root / "panels" / "p.py").write_text(HEAT_PANELS + '''
def symlog(fig, data):
    from matplotlib.colors import SymLogNorm
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.imshow(np.linspace(-1, 1, 12).reshape(3, 4), norm=SymLogNorm(0.1))
''')
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"\ncell = "A"', 'render = "p:symlog"\ncell = "A"'))
    with pytest.raises(LayoutError, match=r"panel 'a' maps colour with norm SymLogNorm, which a \[\[colorbar\]\] "
                                          r"cannot redraw; use one of Normalize, LogNorm"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_editable_text_keeps_the_bar_and_writes_its_labels_as_text(tmp_path):
    """[figure] text = "editable": the colorbar's tick labels and label are <text> in the figure's font."""
    from lxml import etree

    root = heat_project(tmp_path, keys='ticks = [0, 0.5, 1]\nlabel = "value"', head=HEADS + 'text = "editable"\n')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    group = svg.find(".//{http://www.w3.org/2000/svg}g[@id='colorbar-0']")
    assert group is not None
    texts = ["".join(t.itertext()).strip() for t in group.iter("{http://www.w3.org/2000/svg}text")]
    assert {"0", "0.5", "1", "value"} <= set(texts), texts


def test_a_cached_rebuild_draws_the_same_colorbar(tmp_path):
    """The panels' mappings are kept in the panel cache: a second build (every panel from the cache) is
    byte-identical."""
    root = heat_project(tmp_path, keys='label = "value"')
    first = build("fig", root=root, formats=("svg",)).outputs["svg"].read_bytes()
    (root / "build" / "fig.svg").unlink()
    again = build("fig", root=root, formats=("svg",))
    assert again.outputs["svg"].read_bytes() == first


def test_an_unnamed_guides_id_follows_its_layout_key(tmp_path):
    """With a legend written before it, the first [[colorbar]] (colorbar[0] in every message) is the group
    colorbar-0 on the canvas, as the legend is legend-0; a named one is colorbar-NAME."""
    extra = '''
[panels.c]
render = "p:lines"
at = ["0mm", "0mm"]
size = ["10mm", "10mm"]
overlap = true
'''
    root = heat_project(tmp_path, extra=extra)
    layout = root / "layouts" / "fig.toml"
    text = layout.read_text().replace("[[colorbar]]", '[[legend]]\nfrom = ["c"]\nat = ["0mm", "0mm"]\n\n[[colorbar]]')
    layout.write_text(text)
    (root / "panels" / "p.py").write_text(HEAT_PANELS.replace(
        "fig.add_axes([0.1, 0.1, 0.8, 0.8]).plot([0, 1], [0, 1])",
        'fig.add_axes([0.1, 0.1, 0.8, 0.8]).plot([0, 1], [0, 1], label="line")'))
    svg = build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes()
    assert b'id="legend-0"' in svg and b'id="colorbar-0"' in svg and b'id="colorbar-1"' not in svg
    layout.write_text(text.replace('[[colorbar]]', '[[colorbar]]\nname = "scale"'))
    svg = build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes()
    assert b'id="colorbar-scale"' in svg


@pytest.mark.parametrize("renderer", ["rgb", "all_nan", "empty_scatter"])
def test_a_panel_that_maps_no_values_gives_no_scale(tmp_path, renderer):
    """An RGB image shows its pixels (no colormap), an all-NaN image and an empty scatter map nothing: none has a
    colour scale (a bar 0 to 1 or -0.1 to 0.1 was drawn, a scale made up)."""
    root = heat_project(tmp_path, a=f'render = "p:{renderer}"', b=f'render = "p:{renderer}"')
    (root / "layouts" / "fig.toml").write_text((root / "layouts" / "fig.toml").read_text().replace(
        'render = "p:heat"\ncell = "A"\nrender', 'cell = "A"\nrender').replace(
        'render = "p:heat"\ncell = "B"\nrender', 'cell = "B"\nrender'))
    with pytest.raises(LayoutError, match=r"colorbar\[0\]\.for: none of its panels \('a', 'b'\) maps values"):
        build("fig", root=root, formats=("svg",), cache=False)


@pytest.mark.parametrize("ticks, shown", [("[-5.0, 0.5, 100.0]", "-5, 100 are"), ("[0.5, 1e308]", "1e+308 is")])
def test_ticks_outside_the_scale_are_refused(tmp_path, ticks, shown):
    root = heat_project(tmp_path, keys=f"ticks = {ticks}")
    with pytest.raises(LayoutError, match=rf"colorbar\[0\]\.ticks: {re.escape(shown)} outside the colour scale, 0 to 1"):
        build("fig", root=root, formats=("svg",), cache=False)


@pytest.mark.parametrize("name, display", [("", "colorbar[0]"), ('name = "scale"', "colorbar scale")])
def test_check_names_a_colorbars_texts_by_the_colorbar(tmp_path, name, display):
    """Tick labels of 4 pt (below the 5 pt minimum) on the colorbar: one font-size finding naming the colorbar
    by its layout key or name (they were named by inner ids, colorbar-0--text_3), which allow_overlap takes."""
    root = heat_project(tmp_path, keys=f"ticks = [0.2, 0.5, 0.9]\n{name}\n[rcparams]\n\"ytick.labelsize\" = 4.0")
    small = [f.element for f in check("fig", root=root).findings if f.rule == "font-size"]
    assert f"{display}: 3 texts ('0.2', '0.5', '0.9')" in small, small
    assert not [e for e in small if "--" in e], small
    layout = root / "layouts" / "fig.toml"
    key = "scale" if name else "colorbar[0]"
    layout.write_text(layout.read_text() + f'\n[check]\nallow_overlap = [["{key}", "a"]]\n')
    again = check("fig", root=root).findings  # the name is an element allow_overlap knows (an unknown one raises)
    assert [f.element for f in again if f.rule == "font-size"] == small


def test_a_typo_in_a_colorbar_in_a_cell_lists_only_keys_it_can_take(tmp_path):
    """In a cell, a colorbar takes for, name, orientation, label, ticks (and cell): the other placements, anchor,
    offset, gap, align and size are each an error there, so a typo's valid keys leave them out."""
    with pytest.raises(LayoutError) as info:
        build("fig", root=heat_project(tmp_path, keys='lable = "error"'), formats=("svg",), cache=False)
    assert str(info.value).endswith("colorbar[0].lable: unknown key 'lable'; did you mean 'label'?; valid keys are "
                                    "for, name, cell, orientation, label, ticks"), str(info.value)


# ─── contour sets: extensions as matplotlib's own colorbar of the set draws them; iso-lines are no scale ────────

EXTENDED_PANELS = '''
import numpy as np

def cf(fig, data, extend="both"):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    x, y = np.meshgrid(np.linspace(-1, 1, 20), np.linspace(-1, 1, 20))
    ax.contourf(x, y, x * y, levels=[-0.8, -0.4, 0, 0.4, 0.8], extend=extend)

def heat_iso(fig, data, width=1.0):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    x, y = np.meshgrid(np.linspace(-1, 1, 30), np.linspace(-1, 1, 30))
    z = np.exp(-(x**2 + y**2) / width)
    ax.imshow(z, vmin=0, vmax=1, extent=(-1, 1, -1, 1), origin="lower")
    ax.contour(x, y, z, levels=[0.25, 0.5, 0.75], colors="k", linewidths=0.5)
'''


def colour_runs(column: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """The colours down a pixel column and how many px each runs (runs of >= 4 px of colour-mapped pixels, a
    neighbour within 8 of the run's first pixel joining it)."""
    runs: list[tuple[np.ndarray, int]] = []
    start = None
    for px in column.astype(int):
        if (px.max() - px.min()) <= 40:  # not a colour of the map: the outline, the background, a tick
            start = None
            continue
        if start is not None and np.abs(px - runs[-1][0]).max() <= 8:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((px, 1))
            start = px
    return [r for r in runs if r[1] >= 4]


def own_colorbar_runs(extend: str) -> list[tuple[np.ndarray, int]]:
    """:func:`colour_runs` down the middle of matplotlib's own ``fig.colorbar(cs)`` of the panels' contour set,
    drawn alone with Agg at 720 dpi."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.0, 3.0), dpi=DPI, facecolor="white")
    ax = fig.add_axes((0.0, 0.0, 0.01, 0.01))
    x, y = np.meshgrid(np.linspace(-1, 1, 20), np.linspace(-1, 1, 20))
    cs = ax.contourf(x, y, x * y, levels=[-0.8, -0.4, 0, 0.4, 0.8], extend=extend)
    ax.set_visible(False)
    cax = fig.add_axes((0.2, 0.1, 0.2, 0.8))
    fig.colorbar(cs, cax=cax)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    px = np.asarray(canvas.buffer_rgba())[..., :3]
    return colour_runs(px[:, int(0.3 * px.shape[1])])


def extended_project(tmp_path, extend: str, keys: str = "ticks = []"):
    root = heat_project(tmp_path, keys=keys, a=f'params = {{ extend = "{extend}" }}',
                        b=f'params = {{ extend = "{extend}" }}')
    (root / "panels" / "p.py").write_text(EXTENDED_PANELS)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"', 'render = "p:cf"'))
    return root


@pytest.mark.parametrize("extend", ["both", "max"])
def test_an_extended_contour_sets_bar_is_the_one_matplotlib_draws_for_it(tmp_path, extend):
    """contourf(levels=[-0.8, -0.4, 0, 0.4, 0.8], extend=...): matplotlib's own colorbar of the set shows four
    bands of equal length, -0.8 to 0.8, and the under/over colours (viridis' ends, the panels' corners) in the
    triangles; the shared bar drew only -0.4 to 0.4, the outer bands in the triangles. The colours top to
    bottom are the reference's, the four bands' lengths in its proportions, and ticks at the levels."""
    png = png_of(extended_project(tmp_path, extend))
    left, top, right, bottom = bar_extent(png, 80 * MM)
    mine = colour_runs(png[:, int((left + right) / 2)])
    own = own_colorbar_runs(extend)
    assert len(mine) == len(own) == (6 if extend == "both" else 5), (mine, own)
    for (colour, _), (reference, _) in zip(mine, own):
        assert np.abs(colour - reference).max() <= 6, (mine, own)
    assert np.abs(mine[0][0] - expected_rgb("viridis", 1.0)).max() <= 6  # the over colour: viridis' last
    bands, reference = [n for _, n in mine[1:5]], [n for _, n in own[1:5]]  # as long as each other, as own's are
    assert [b / bands[0] for b in bands] == pytest.approx([r / reference[0] for r in reference], abs=0.01)


def test_an_extended_contour_sets_bar_takes_ticks_within_its_levels(tmp_path):
    """ticks = [-0.6, 0, 0.6] are inside the panels' scale, -0.8 to 0.8: drawn, where they were refused as
    outside -0.4 to 0.4; without ticks the bar's are at the levels, as matplotlib's own colorbar of the set."""
    from composer.svg.measure import scene

    def texts(keys: str) -> list[str]:
        root = extended_project(tmp_path / keys[:5], "both", keys=keys)
        svg = build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes()
        return [run.text for run in scene(svg).texts if run.top == "colorbar-0"]

    assert texts("ticks = [-0.6, 0, 0.6]") == ["\u22120.6", "0", "0.6"]
    assert texts("label = ''") == ["\u22120.8", "\u22120.4", "0.0", "0.4", "0.8"]


def test_iso_lines_in_a_fixed_colour_are_not_a_second_mapping(tmp_path):
    """A viridis heat map with black contour lines (``contour(..., colors="k")``) on it: one colour mapping, the heat
    map's: the bar is drawn, viridis from 0 at the bottom to 1 at the top (it was refused: 'maps colour two ways')."""
    root = heat_project(tmp_path, keys="ticks = []", b="params = { width = 0.5 }")
    (root / "panels" / "p.py").write_text(EXTENDED_PANELS)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:heat"', 'render = "p:heat_iso"'))
    png = png_of(root)
    left, top, right, bottom = bar_extent(png, 80 * MM)
    column = int((left + right) / 2)
    for fraction in (0.1, 0.5, 0.9):
        row = int(bottom - fraction * (bottom - top))
        assert np.abs(png[row, column].astype(float) - expected_rgb("viridis", fraction)).max() <= 8, fraction


def test_a_colorbar_placed_without_a_size_is_sized_from_its_panels(tmp_path):
    """at = (82 mm, 0 mm) and no size: the bar is as long as its panels' plot areas span (3 to 57 mm: 54 mm, as
    in a cell), 54 / 20 mm thick (matplotlib's aspect=20), its top one font size (7 pt) under the point its box
    is placed at (room for the end tick label), its left edge at 82 mm."""
    root = heat_project(tmp_path, keys="ticks = []")
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('cell = "K"', 'at = ["82mm", "0mm"]'))
    left, top, right, bottom = bar_extent(png_of(root), 80 * MM)
    assert (bottom - top) / PX_PER_PT == pytest.approx(54 * MM, abs=0.2)
    assert top / PX_PER_PT == pytest.approx(7.0, abs=0.15)
    assert left / PX_PER_PT == pytest.approx(82 * MM, abs=0.15)
    assert (right - left) / PX_PER_PT == pytest.approx(54 * MM / 20, abs=0.2)
