"""``[[text]] rotate`` and ``beside``/``side`` (issue #13 item 4), measured on built SVGs.

The text's ink is its glyph outlines' points (pt) mapped through the SVG transform above them, the
rotation applied here by hand from SVG's definition (``rotate(a cx cy)``: clockwise by ``a`` on the
y-down page about (cx, cy)). Expected positions come from the panels' axes as the renderer placed
them (``fig.add_axes([0.25, 0.2, 0.5, 0.6])`` on a known box), and the text's own ink offsets from
an unturned copy placed by its centre at a known point.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from lxml import etree

from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.pipeline import build
from conftest import layout_project

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"

PANELS_PY = '''
def axes(fig, data):
    fig.add_axes([0.25, 0.2, 0.5, 0.6]).plot([0, 1], [0, 1])
'''

# two columns of two 40 x 30 mm panels at (10mm, 5mm): a b / c d; an SVG panel e below them
PANELS = """
[grid]
mosaic = "ab\\ncd"
margin = ["5mm", "10mm", "25mm", "10mm"]
[panels.a]
render = "p:axes"
cell = "a"
[panels.b]
render = "p:axes"
cell = "b"
[panels.c]
render = "p:axes"
cell = "c"
[panels.d]
render = "p:axes"
cell = "d"
[panels.e]
svg = "../box.svg"
at = ["30mm", "70mm"]
size = ["20mm", "10mm"]
"""


def project(tmp_path, body: str):
    root = layout_project(tmp_path, PANELS + body, head='width = "100mm"\nheight = "90mm"\n')
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS_PY)
    (root / "box.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5">'
                                  '<rect width="10" height="5" fill="#dddddd"/></svg>')
    return root


def built(root) -> etree._Element:
    return etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())


def _rotate(points: np.ndarray, transform: str | None) -> np.ndarray:
    if not transform:
        return points
    a, cx, cy = (float(v) for v in re.fullmatch(r"rotate\(([-\d.e]+) ([-\d.e]+) ([-\d.e]+)\)", transform).groups())
    t = math.radians(a)  # SVG: x' = cx + (x - cx) cos - (y - cy) sin, y' = cy + (x - cx) sin + (y - cy) cos
    x, y = points[:, 0] - cx, points[:, 1] - cy
    return np.column_stack([cx + x * math.cos(t) - y * math.sin(t), cy + x * math.sin(t) + y * math.cos(t)])


def ink(svg: etree._Element, element_id: str) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax) pt of the outline points of element ``element_id`` through its transforms."""
    top = svg.find(f".//*[@id='{element_id}']")
    assert top is not None, element_id
    pts = []
    for path in top.iter(f"{SVG}path"):
        xy = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path.get("d"))]).reshape(-1, 2)
        el = path
        while el is not None and el is not top.getparent():
            xy = _rotate(xy, el.get("transform"))
            el = el.getparent()
        pts.append(xy)
    xy = np.vstack(pts)
    return xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max()


def reference(tmp_path, text: str = "Density") -> tuple[tuple[float, float, float, float], float, float]:
    """The unturned text's ink relative to its block's centre (left, top, right, bottom), half the block's
    width and half its height: the text placed by its centre at (50mm, 80mm), by its top (``n``) at
    (50mm, 85mm) and by its left (``w``) at (5mm, 80mm)."""
    svg = built(project(tmp_path / "ref", f'''
[[text]]
name = "mid"
text = "{text}"
at = ["50mm", "80mm"]
[[text]]
name = "top"
text = "{text}"
at = ["50mm", "85mm"]
anchor = "n"
[[text]]
name = "left"
text = "{text}"
at = ["5mm", "80mm"]
anchor = "w"
'''))
    x0, y0, x1, y1 = ink(svg, "text-mid")
    offsets = (x0 - 50 * MM, y0 - 80 * MM, x1 - 50 * MM, y1 - 80 * MM)
    half_height = (ink(svg, "text-top")[1] - 85 * MM) - offsets[1]
    half_width = (ink(svg, "text-left")[0] - 5 * MM) - offsets[0]
    return offsets, half_width, half_height


def test_a_turned_shared_y_title_sits_left_of_the_columns_plot_areas(tmp_path):
    """rotate = 90 beside a and c, gap 2 mm: a's and c's plot areas span x from 10 + 0.25 * 40 = 20 mm and y
    from 5 + 0.2 * 30 = 11 mm down to 35 + 0.8 * 30 = 59 mm (centre 35 mm). Turned counter-clockwise, the
    block's right edge (its top before turning, half its height from its centre) is 2 mm left of 20 mm;
    a point (dx, dy) from the centre goes to (dy, -dx): it reads bottom to top."""
    (left, t, r, b), _, half_h = reference(tmp_path)
    svg = built(project(tmp_path, '''
[[text]]
name = "ytitle"
text = "Density"
rotate = 90
beside = ["a", "c"]
side = "left"
gap = "2mm"
'''))
    cx, cy = 18 * MM - half_h, 35 * MM
    x0, y0, x1, y1 = ink(svg, "text-ytitle")
    assert (x0, x1) == pytest.approx((cx + t, cx + b), abs=0.02)
    assert (y0, y1) == pytest.approx((cy - r, cy - left), abs=0.02)
    assert x1 - x0 < y1 - y0  # tall and narrow: turned


def test_a_shared_x_title_sits_under_the_rows_plot_areas(tmp_path):
    """beside c and d, side below, gap 3 mm: c's and d's plot areas span x from 20 mm to 50 + 0.75 * 40 = 80 mm
    (centre 50 mm) and end at 59 mm; the block's top is at 62 mm."""
    (left, t, r, b), _, half_h = reference(tmp_path)
    svg = built(project(tmp_path, '''
[[text]]
name = "xtitle"
text = "Density"
beside = ["c", "d"]
side = "below"
gap = "3mm"
'''))
    cx, cy = 50 * MM, 62 * MM + half_h
    assert ink(svg, "text-xtitle") == pytest.approx((cx + left, cy + t, cx + r, cy + b), abs=0.02)


@pytest.mark.parametrize("side, centre", [
    # e: an SVG panel, its box (30, 70)-(50, 80) mm. right: the turned block's left edge 1 mm right of
    # 50 mm (its width along x is the block's height); above: its bottom 1 mm above 70 mm (its height
    # along y is the block's width)
    ("right", lambda hw, hh: (51 * MM + hh, 75 * MM)),
    ("above", lambda hw, hh: (40 * MM, 69 * MM - hw)),
])
def test_beside_a_panel_without_axes_uses_its_box(tmp_path, side, centre):
    """Turned by -90 (clockwise: reads top to bottom) beside the SVG panel e, whose plot area is its box:
    a point (dx, dy) from the centre goes to (-dy, dx)."""
    (left, t, r, b), half_w, half_h = reference(tmp_path)
    svg = built(project(tmp_path, f'''
[[text]]
name = "t"
text = "Density"
rotate = -90
beside = ["e"]
side = "{side}"
gap = "1mm"
'''))
    cx, cy = centre(half_w, half_h)
    assert ink(svg, "text-t") == pytest.approx((cx - b, cy + left, cx - t, cy + r), abs=0.02)


def test_a_turned_text_at_a_point_turns_about_its_box(tmp_path):
    """rotate = 30 at (50mm, 80mm) by its centre: every ink point is the unturned one turned 30 degrees
    counter-clockwise about (50mm, 80mm), so the ink's box is the turned points' box."""
    (left, t, r, b), _, _ = reference(tmp_path)
    svg = built(project(tmp_path, '''
[[text]]
name = "t"
text = "Density"
rotate = 30
at = ["50mm", "80mm"]
'''))
    ref = built(project(tmp_path / "flat", '''
[[text]]
name = "t"
text = "Density"
at = ["50mm", "80mm"]
'''))
    path = ref.find(".//*[@id='text-t']")
    xy = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path.get("d"))]).reshape(-1, 2)
    a = math.radians(30)  # counter-clockwise on the page: y up is -y
    dx, dy = xy[:, 0] - 50 * MM, xy[:, 1] - 80 * MM
    turned = np.column_stack([50 * MM + dx * math.cos(a) + dy * math.sin(a),
                              80 * MM - dx * math.sin(a) + dy * math.cos(a)])
    expected = (turned[:, 0].min(), turned[:, 1].min(), turned[:, 0].max(), turned[:, 1].max())
    assert ink(svg, "text-t") == pytest.approx(expected, abs=0.02)
    assert ink(ref, "text-t") == pytest.approx((50 * MM + left, 80 * MM + t, 50 * MM + r, 80 * MM + b), abs=0.02)


@pytest.mark.parametrize("body, message", [
    ('beside = ["zz"]\n', "text[0].beside[0]: 'zz' is not a panel"),
    ('beside = ["a"]\nat = ["1mm", "1mm"]\n', "over-constrained: beside and at both place it"),
    ('beside = ["a"]\nanchor = "e"\n', "'anchor' does nothing here: beside sets the anchor itself"),
    ('at = ["1mm", "1mm"]\nside = "left"\n', "'side' does nothing here: side goes with beside"),
    ('beside = ["a"]\nside = "top"\n', "'top' is not a valid value; supported values are 'left', 'right', 'above'"),
    ('at = ["1mm", "1mm"]\nrotate = 400\n', "400 is not an angle in degrees from -360 to 360"),
    ('cell = "a"\nrotate = 90\n', "text[0].rotate: a text filling a cell is wrapped"),
])
def test_turned_and_beside_mistakes_are_one_line(tmp_path, body, message):
    root = project(tmp_path, '[[text]]\ntext = "T"\n' + body)
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml")
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_panel_placed_by_a_beside_text_is_refused(tmp_path):
    root = project(tmp_path, '[[text]]\nname = "t"\ntext = "T"\nbeside = ["a"]\n'
                             '[panels.f]\nsvg = "../box.svg"\nright_of = "t"\nsize = ["5mm", "5mm"]\n')
    with pytest.raises(LayoutError, match="sits beside plot areas, known only after rendering"):
        build("fig", root=root, formats=("svg",), cache=False)


# ─── a beside text without gap: clear of the tick labels (issue #26) ─────────

TICKS_PY = '''
def ticks(fig, data):
    ax = fig.add_axes([0.3, 0.3, 0.6, 0.6])
    ax.plot([0, 1000], [0, 1000])
    ax.set_xlabel("x label")
'''
TICKS = """
[grid]
mosaic = "a"
margin = ["5mm", "5mm", "10mm", "15mm"]
[panels.a]
render = "p:ticks"
cell = "a"
[[text]]
name = "ytitle"
text = "Density"
rotate = 90
beside = ["a"]
side = "left"
[[text]]
name = "xtitle"
text = "Time"
beside = ["a"]
side = "below"
"""
TICKS_HEAD = 'width = "80mm"\nheight = "60mm"\nfont = "DejaVu Sans"\nfont_size = "7pt"\n'
#: the panel's cell: (x, y, width, height) in mm, from the canvas and the margin above
TICKS_CELL = (15, 5, 60, 45)


def ticks_project(tmp_path, body: str = TICKS):
    root = layout_project(tmp_path, body, head=TICKS_HEAD)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(TICKS_PY)
    return root


def matplotlib_text_extents() -> tuple[float, float]:
    """Worked out with matplotlib alone, on a figure of the cell's size in DejaVu Sans 7 pt: the left edge of
    the leftmost y tick label and the bottom edge of the lowest text below the axes (the x label under its tick
    labels), in pt from the cell's top-left (y down): text window extents, which enclose the ink (a glyph's side
    bearing, under 1 pt, lies between them)."""
    import io

    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.figure import Figure

    w, h = TICKS_CELL[2] * MM, TICKS_CELL[3] * MM
    with matplotlib.rc_context({"font.family": "DejaVu Sans", "font.size": 7}):
        fig = Figure(figsize=(w / 72, h / 72), dpi=72)
        ax = fig.add_axes([0.3, 0.3, 0.6, 0.6])
        ax.plot([0, 1000], [0, 1000])
        ax.set_xlabel("x label")
        renderer = RendererSVG(w / 72, h / 72, io.StringIO())
        fig.draw(renderer)
        low, high = sorted(ax.get_ylim())  # labels of ticks outside the view (-250, 1250) are not drawn
        left = min(t.get_window_extent(renderer).x0 for t in ax.get_yticklabels()
                   if t.get_text() and low <= t.get_position()[1] <= high)
        bottom = ax.xaxis.label.get_window_extent(renderer).y0
    return left, h - bottom


@pytest.fixture(scope="module")
def ticks_svg(tmp_path_factory):
    return built(ticks_project(tmp_path_factory.mktemp("ticks")))


def test_a_beside_title_without_gap_clears_the_tick_labels(ticks_svg):
    """No gap: the y title's ink ends matplotlib's axes.labelpad (4 pt) left of the leftmost y tick label as
    matplotlib measures that label, less its side bearing (1 pt) or plus its block's own padding (1.5 pt); the x
    title's ink starts 4 pt (as closely) under the x label. Without the gap worked
    out (0 pt from the plot area) both would sit on the tick labels, 13 mm and 11 mm away."""
    left, bottom = matplotlib_text_extents()
    x0_mm, y0_mm = TICKS_CELL[:2]
    _, _, right_ink, _ = ink(ticks_svg, "text-ytitle")
    assert 4.0 - 1.0 <= (x0_mm * MM + left) - right_ink <= 4.0 + 1.5
    _, top_ink, _, _ = ink(ticks_svg, "text-xtitle")
    assert 4.0 - 2.0 <= top_ink - (y0_mm * MM + bottom) <= 4.0 + 1.5  # the window holds the font's descent


def test_a_beside_gap_that_puts_the_title_on_the_tick_labels_is_an_error(tmp_path, capsys):
    """gap = 1mm left of the plot area lies over the y tick labels: ``compose`` exits 1 with one line at
    text[0].gap naming the panel and giving the gap that clears them; nothing written."""
    from composer.cli.main import main

    root = ticks_project(tmp_path, TICKS.replace('side = "left"\n', 'side = "left"\ngap = "1mm"\n'))
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 1
    message = capsys.readouterr().err.strip()
    assert "\n" not in message and "text[0].gap" in message and "gap = 1.0 mm puts it over text" in message
    assert "panel 'a'" in message and "leave gap out" in message
    assert not (root / "build" / "fig.svg").exists()
