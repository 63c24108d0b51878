"""plotnine and seaborn panels (:mod:`composer.stages.results.plotnine`, :mod:`composer.stages.results.seaborn`):
a renderer returns a ``ggplot`` or a seaborn grid, drawn at its box with the figure's font and size, its plot
area aligned with a matplotlib panel's, its data anchor on the data point.

One build for the module: three panels side by side in one ``[[align]]`` row, [figure] font DejaVu Serif
at 7 pt. Expected values are worked out from the layout and the plots' fixed limits (0..10 on both axes,
no expansion), not from composer: a point (x, y) of the data is ``x0 + x / 10 * width`` across the axes'
background as drawn, ``y1 - y / 10 * height`` down.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree

from composer.errors import PanelError
from composer.layout.loader import load_layout
from composer.pipeline import build
from composer.stages.results import SeabornGrid, Target
from composer.stages.results.plotnine import PlotnineResult
from composer.svg.measure import scene
from conftest import SVG_NS, cumulative_transform

PANELS = '''
import pandas as pd
import seaborn as sns
from plotnine import aes, geom_point, ggplot, labs, scale_x_continuous, scale_y_continuous, theme, element_rect

DF = pd.DataFrame({"x": [1.0, 4.0, 8.0], "y": [2.0, 6.0, 3.0], "g": ["one", "two", "one"]})


def mpl(fig, data):
    ax = fig.subplots()
    ax.set_facecolor("#fafafa")
    ax.plot(DF.x, DF.y, "o")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    ax.set_xlabel("mpl x label")


def gg(fig, data):
    plot = (ggplot(DF, aes("x", "y")) + geom_point(color="#d62728")
            + scale_x_continuous(limits=(0, 10), expand=(0, 0)) + scale_y_continuous(limits=(0, 10), expand=(0, 0))
            + labs(x="gg x label", y="gg y label") + theme(panel_background=element_rect(fill="#ebebeb")))
    return plot, {"peak": (4.0, 6.0)}


def sb(fig, data):
    grid = sns.relplot(data=DF, x="x", y="y", hue="g")
    grid.set(xlim=(0, 10), ylim=(0, 10), xlabel="sb x label")
    grid.ax.set_facecolor("#f0f0f0")
    return grid, {"peak": (4.0, 6.0)}
'''

LAYOUT = """
[figure]
width = "150mm"
height = "45mm"
font = "DejaVu Serif"
font_size = "7pt"
background = "white"
[panels.m]
render = "p:mpl"
at = ["0mm", "0mm"]
size = ["45mm", "45mm"]
[panels.g]
render = "p:gg"
at = ["50mm", "0mm"]
size = ["45mm", "45mm"]
[panels.s]
render = "p:sb"
at = ["100mm", "0mm"]
size = ["50mm", "45mm"]
[[align]]
panels = ["m", "g", "s"]
axis = "y"
[[shape]]
kind = "circle"
at = "g.peak"
radius = "0.3mm"
fill = "#0000ff"
stroke = "none"
[[shape]]
kind = "circle"
at = "s.peak"
radius = "0.3mm"
fill = "#00ff00"
stroke = "none"
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("plots")
    (root / "layouts").mkdir()
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS)
    (root / "layouts" / "fig.toml").write_text(textwrap.dedent(LAYOUT))
    return root


@pytest.fixture(scope="module")
def svg(project) -> bytes:
    return build("fig", root=project, formats=("svg",), cache=False).outputs["svg"].read_bytes()


def _filled_box(svg: bytes, top: str, fill: str) -> tuple[float, float, float, float]:
    """Canvas (x0, y0, x1, y1) pt of the largest path filled ``fill`` in the group ``top``: an axes' background,
    which matplotlib writes as ``M x y L ... z`` in its panel's pt."""
    root = etree.fromstring(svg)
    group = root.find(f"svg:g[@id='{top}']", SVG_NS)
    boxes = []
    for path in group.iter("{http://www.w3.org/2000/svg}path"):
        if f"fill: {fill}" not in (path.get("style") or ""):
            continue
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path.get("d"))]
        m = cumulative_transform(path)
        points = [(m @ [x, y, 1])[:2] for x, y in zip(numbers[::2], numbers[1::2])]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    assert boxes, f"no path filled {fill} in {top}"
    return max(boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))


def _circle(svg: bytes, fill: str) -> np.ndarray:
    root = etree.fromstring(svg)
    circle = next(c for c in root.iter("{http://www.w3.org/2000/svg}circle") if c.get("fill") == fill)
    return (cumulative_transform(circle) @ [float(circle.get("cx")), float(circle.get("cy")), 1])[:2]


def _sizes(svg: bytes, top: str) -> dict[str, float]:
    """text -> its size in pt, of every text run of the panel ``top`` (as ``compose check`` reads them)."""
    return {run.text: round(run.size_pt, 3) for run in scene(svg).texts if run.top == top}


def test_plotnine_texts_are_the_figures_font_at_its_size_as_base_size(svg):
    """The theme's base size is the figure's 7 pt: axis titles at the base, tick labels at 0.8 of it
    (ggplot2's theme_grey, plotnine's theme_gray: ``axis_text`` is ``base_size * 0.8``): 5.6 pt."""
    sizes = _sizes(svg, "panel-g")
    assert sizes["gg x label"] == 7.0 and sizes["gg y label"] == 7.0
    ticks = {text: size for text, size in sizes.items() if re.fullmatch(r"[\d.]+", text)}
    assert len(ticks) >= 5 and set(ticks.values()) == {5.6}  # 0.0 to 10.0 by 2.5, on both axes
    assert set(sizes) - set(ticks) == {"gg x label", "gg y label"}


def test_seaborn_texts_are_the_figures_font_at_its_size(svg):
    sizes = _sizes(svg, "panel-s")
    assert {"sb x label", "y", "g", "one", "two"} <= set(sizes)  # the axis titles and the outside legend
    assert set(sizes.values()) == {7.0}


def test_seaborns_outside_legend_keeps_its_room_in_the_box(svg):
    """The legend seaborn puts right of the grid (and made room for at seaborn's own 5 in size) is still
    inside the panel's box, 100..150 mm, once the figure is resized to it, and clear of the axes."""
    mm = 72 / 25.4
    runs = {run.text: run.bbox for run in scene(svg).texts if run.top == "panel-s"}
    axes = _filled_box(svg, "panel-s", "#f0f0f0")
    for entry in ("g", "one", "two"):
        x0, _, x1, _ = runs[entry]
        assert axes[2] < x0 and x1 <= 150 * mm + 0.01, (entry, runs[entry], axes)


@pytest.mark.parametrize("top", ["panel-g", "panel-s"])
def test_the_panels_text_is_in_the_figures_font_family(svg, top):
    """matplotlib names each glyph outline after its font's PostScript name (``DejaVuSerif-31``); the panel
    sets no font, so every glyph comes from [figure] font = "DejaVu Serif"."""
    root = etree.fromstring(svg)
    group = root.find(f"svg:g[@id='{top}']", SVG_NS)
    used = {u.get("{http://www.w3.org/1999/xlink}href") for u in group.iter("{http://www.w3.org/2000/svg}use")}
    defs = {p.get("id") for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("id")}
    glyphs = {ref[1:] for ref in used if ref and ref[1:] in defs and re.search(r"DejaVu", ref)}
    assert glyphs and all(re.search(r"DejaVuSerif-[0-9a-f]+$", g) for g in glyphs), sorted(glyphs)[:5]


def test_the_three_plot_areas_are_aligned(svg):
    """``[[align]] axis = "y"``: the matplotlib axes, plotnine's panel and seaborn's axes share top and bottom
    (their backgrounds as drawn, within 0.01 pt), so each reported plot area is its axes' box."""
    m = _filled_box(svg, "panel-m", "#fafafa")
    g = _filled_box(svg, "panel-g", "#ebebeb")
    s = _filled_box(svg, "panel-s", "#f0f0f0")
    assert (g[1], g[3]) == pytest.approx((m[1], m[3]), abs=0.01)
    assert (s[1], s[3]) == pytest.approx((m[1], m[3]), abs=0.01)
    assert 50 < m[3] - m[1] < 45 * 72 / 25.4  # a real plot area, inside the box


def test_plotnines_axis_title_moves_with_the_aligned_plot_area(svg):
    """plotnine places its axis titles itself (figure texts); aligned, its plot area's bottom moved up by
    more than 10 pt (to the matplotlib panel's), and the x title came along: below its tick labels, its
    top within two font sizes (14 pt) of the plot area's bottom, as plotnine lays it out unaligned."""
    bottom = _filled_box(svg, "panel-g", "#ebebeb")[3]
    runs = [run for run in scene(svg).texts if run.top == "panel-g"]
    title = next(run for run in runs if run.text == "gg x label")
    ticks = [run for run in runs if run.text == "5.0" and run.bbox[1] > bottom]  # the x axis's tick label
    assert ticks and title.bbox[1] > max(t.bbox[3] for t in ticks)
    assert title.bbox[1] - bottom < 14.0


@pytest.mark.parametrize(("top", "fill", "dot"), [("panel-g", "#ebebeb", "#0000ff"), ("panel-s", "#f0f0f0", "#00ff00")])
def test_the_data_anchor_is_on_the_data_point(svg, top, fill, dot):
    """(4, 6) on axes spanning 0..10 both ways: 40 % across the background, 60 % up."""
    x0, y0, x1, y1 = _filled_box(svg, top, fill)
    assert _circle(svg, dot) == pytest.approx((x0 + 0.4 * (x1 - x0), y1 - 0.6 * (y1 - y0)), abs=0.01)


@pytest.fixture
def target(project) -> Iterator[Target]:
    from matplotlib.figure import Figure

    figure = load_layout(project / "layouts" / "fig.toml")
    panel = next(p for p in figure.panels if p.name == "g")
    yield Target(fig=Figure(), panel=panel, spec=figure.spec, size_pt=(200.0, 160.0), file="layouts/fig.toml",
                 anchors={"peak": (4.0, 6.0)})


def test_a_missing_plotnine_is_one_line_naming_what_to_install(target, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "plotnine", None)  # import plotnine raises ImportError
    with pytest.raises(PanelError) as caught:
        PlotnineResult().draw(object(), target)
    message = str(caught.value)
    assert "\n" not in message and "plotnine is not installed" in message
    assert "pip install 'figure-composer[plots]'" in message and "panels.g.render" in message


def test_a_joint_grid_is_resized_to_the_box_with_its_axes_inside(target):
    """``sns.jointplot`` makes a 6 x 6 in figure; drawn for a 200 x 160 pt box it is 200 x 160 pt at 72 dpi,
    every axes inside the figure and the joint axes the largest."""
    import matplotlib
    import pandas as pd
    import seaborn as sns

    from composer.mpl.internals import pyplot_on

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [3.0, 1.0, 2.0]})
    with matplotlib.rc_context({"font.size": 7, "figure.dpi": 72}), pyplot_on(target.fig):  # as a panel's worker
        grid: Any = sns.jointplot(data=df, x="x", y="y")
        drawn = SeabornGrid().draw(grid, target)
    w, h = drawn.fig.get_size_inches()
    assert (w * 72, h * 72, drawn.fig.dpi) == pytest.approx((200.0, 160.0, 72.0))
    boxes = {ax: ax.get_position() for ax in drawn.fig.axes}
    assert all(0 <= b.x0 < b.x1 <= 1 and 0 <= b.y0 < b.y1 <= 1 for b in boxes.values())
    assert max(boxes, key=lambda ax: boxes[ax].width * boxes[ax].height) is grid.ax_joint
    assert drawn.anchors is not None and drawn.anchors["peak"] == (grid.ax_joint, 4.0, 6.0)


DOCS = Path(__file__).parents[2] / "docs" / "howto"


@pytest.mark.parametrize(("page", "name"), [("plotnine", "growth"), ("seaborn", "tips")])
def test_the_howtos_example_is_print_clean(page, name, tmp_path):
    """docs/howto/plotnine.md and seaborn.md: the page's panel module and layout, as written, pass
    ``compose check`` with nothing found (every text at least 5 pt, nothing outside the canvas or on text)."""
    from composer.pipeline import check

    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"^```(python|toml)\n(.*?)^```$", text, flags=re.M | re.S))
    (tmp_path / "layouts").mkdir()
    (tmp_path / "panels").mkdir()
    (tmp_path / "panels" / f"{name}.py").write_text(blocks["python"])
    (tmp_path / "layouts" / f"{name}.toml").write_text(blocks["toml"])
    assert f'render = "{name}:{name}"' in blocks["toml"] and f"{name}.py" in text
    report = check(name, root=tmp_path)
    assert report.findings == (), report.table()


def _axes_fraction(anchor: tuple[Any, float, float]) -> tuple[float, float]:
    """Where an anchor ``(ax, x, y)`` lands, as a fraction of its axes' box (0..1 from its bottom-left)."""
    ax, x, y = anchor
    ax.figure.draw_without_rendering()
    fx, fy = ax.transAxes.inverted().transform(ax.transData.transform((x, y)))
    return float(fx), float(fy)


@pytest.mark.parametrize(("facet", "spec", "expected"), [
    # scale_x_log10 over 1..100, no expansion: x = 10 is half-way across; y 0..10: 5 is half-way up
    (False, (10.0, 5.0), (0, 0.5, 0.5)),
    # facet panel 1 (f = "q", the second), the same point in its own axes
    (True, (1, 10.0, 5.0), (1, 0.5, 0.5)),
])
def test_a_plotnine_anchor_is_given_in_data_units_of_its_panel(target, facet, spec, expected):
    import matplotlib
    from plotnine import aes, facet_wrap, geom_point, ggplot, scale_x_log10, scale_y_continuous

    from composer.mpl.internals import pyplot_on

    df = pd_frame()
    plot = (ggplot(df, aes("x", "y")) + geom_point() + scale_x_log10(limits=(1, 100), expand=(0, 0))
            + scale_y_continuous(limits=(0, 10), expand=(0, 0)))
    if facet:
        plot = plot + facet_wrap("f")
    with matplotlib.rc_context({"figure.dpi": 72}), pyplot_on(target.fig):
        drawn = PlotnineResult().draw(plot, dataclasses.replace(target, anchors={"p": spec}))
    assert drawn.anchors is not None
    index, fx, fy = expected
    assert drawn.anchors["p"][0] is drawn.fig.axes[index]
    assert _axes_fraction(drawn.anchors["p"]) == pytest.approx((fx, fy), abs=1e-6)


def test_a_plotnine_anchor_on_a_discrete_scale_is_its_category(target):
    """Categories a, b, c sit at 1, 2, 3; with no expansion the axis runs 1..3, so b is half-way."""
    import matplotlib
    from plotnine import aes, geom_point, ggplot, scale_x_discrete

    from composer.mpl.internals import pyplot_on

    plot = ggplot(pd_frame(), aes("c", "y")) + geom_point() + scale_x_discrete(expand=(0, 0))
    with matplotlib.rc_context({"figure.dpi": 72}), pyplot_on(target.fig):
        drawn = PlotnineResult().draw(plot, dataclasses.replace(target, anchors={"b": ("b", 3.0)}))
        with pytest.raises(PanelError, match=r"anchor 'z': x = 'z' is not a category of the plot's x scale \(a, b, c\)"):
            PlotnineResult().draw(plot, dataclasses.replace(target, anchors={"z": ("z", 3.0)}))
    assert drawn.anchors is not None
    assert _axes_fraction(drawn.anchors["b"])[0] == pytest.approx(0.5, abs=1e-6)


def pd_frame() -> Any:
    import pandas as pd

    return pd.DataFrame({"x": [1.0, 10.0, 100.0] * 2, "y": [1.0, 5.0, 9.0, 2.0, 6.0, 8.0],
                         "f": ["p"] * 3 + ["q"] * 3, "c": ["a", "b", "c"] * 2})


def test_a_renderer_that_draws_on_fig_and_returns_a_ggplot_is_told_to_choose(target):
    """What it drew on ``fig`` would be lost under the ggplot: an error naming both, not a silent loss."""
    from plotnine import aes, geom_point, ggplot

    from composer.stages.draft import draw_panel

    def both(fig, data):
        fig.subplots().plot([0, 1], [0, 1])
        return ggplot(pd_frame(), aes("x", "y")) + geom_point()

    with pytest.raises(PanelError, match=r"drew on the panel's fig and returned a plotnine ggplot"):
        draw_panel(both, target.panel, target.spec, {}, size_pt=(200.0, 160.0), file="layouts/fig.toml")
