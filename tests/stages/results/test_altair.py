"""The Altair result kind (:mod:`composer.stages.results.altair`): a renderer returns an ``alt.Chart`` with data
anchors, built in a figure beside a matplotlib panel and aligned with it by ``[[align]]``.

Worked out from the layout: both panels are 40 x 30 mm in one row, so ``[[align]]`` lines up the tops and
bottoms of their plot areas, each at the larger inset the two need: the top at the matplotlib axes' 6 mm
(``fig.add_axes([0.25, 0.2, 0.7, 0.6])``: 0.2 of 30 mm; Vega's own is its 5 px padding), the bottom at the
Altair chart's (its axis labels and title), to which the matplotlib axes are moved: the view's bottom is
the axes' background's, read from the matplotlib panel's SVG. The anchor ``top = (10, 3)`` is the view's
top right (x 10 of the nice domain [0, 10], y 3 the top of [0, 3]).
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest
from lxml import etree

from composer.errors import PanelError
from composer.pipeline import build
from composer.svg.measure import scene
from conftest import cumulative_transform

pytest.importorskip("altair")
pytest.importorskip("vl_convert")

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"

PANELS = '''
import altair as alt

POINTS = [{"x": 0, "y": 1}, {"x": 5, "y": 3}, {"x": 10, "y": 2}]


def chart(fig, data):
    line = alt.Chart(alt.Data(values=POINTS)).mark_line().encode(x="x:Q", y="y:Q")
    return line, {"top": (10, 3)}


def line(fig, data):
    ax = fig.add_axes([0.25, 0.2, 0.7, 0.6])
    ax.plot([0, 10], [1, 2])


def concat(fig, data):
    one = alt.Chart(alt.Data(values=POINTS)).mark_line().encode(x="x:Q", y="y:Q")
    return one | one
'''

LAYOUT = """\
[figure]
width = "90mm"
height = "40mm"
font = "DejaVu Sans"
font_size = "7pt"

[panels.m]
render = "plots:line"
at = ["5mm", "5mm"]
size = ["40mm", "30mm"]

[panels.a]
render = "plots:chart"
at = ["47mm", "5mm"]
size = ["40mm", "30mm"]

[[align]]
panels = ["m", "a"]

[[text]]
text = "end"
at = "a.top"
anchor = "sw"
"""


def _project(root: Path, layout: str = LAYOUT) -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "plots.py").write_text(textwrap.dedent(PANELS))
    (root / "layouts" / "fig.toml").write_text(layout)
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> bytes:
    root = _project(tmp_path_factory.mktemp("altair") / "proj")
    build("fig", root=root, formats=("svg",))
    return (root / "build" / "fig.svg").read_bytes()


def _view(root: etree._Element) -> tuple[float, float, float, float]:
    """The Altair view in canvas pt: the root frame's background path ``M0.5,0.5hWvH`` is W x H px from its
    group's origin, under every transform down to it."""
    panel = root.find(f".//{SVG}g[@id='panel-a']")
    frame = panel.find(f".//{SVG}g[@class='mark-group role-frame root']")
    path = frame.find(f"./{SVG}g/{SVG}path[@class='background']")
    w, h = (float(v) for v in re.match(r"M0\.5,0\.5h([\d.]+)v([\d.]+)", path.get("d")).groups())
    m = cumulative_transform(path)
    return m[0, 2], m[1, 2], m[0, 2] + w * m[0, 0], m[1, 2] + h * m[1, 1]


def test_an_altair_chart_is_7pt_text(built) -> None:
    texts = [t for t in scene(built).texts if t.top == "panel-a"]
    assert {t.label for t in texts} >= {"0", "10", "x", "y"}
    assert {round(t.size_pt, 9) for t in texts} == {7.0}


def _axes(root: etree._Element) -> tuple[float, float]:
    """Top and bottom, canvas pt, of the matplotlib axes' background (``patch_2``: ``M x0 y1 L x1 y1 L x1 y0 ...``)."""
    patch = root.find(f".//{SVG}g[@id='m--patch_2']/{SVG}path")
    ys = [float(v) for v in re.findall(r"[-\d.]+", patch.get("d"))[1::2]]
    m = cumulative_transform(patch)
    return m[1, 2] + min(ys) * m[1, 1], m[1, 2] + max(ys) * m[1, 1]


def test_its_view_is_aligned_with_the_matplotlib_axes(built) -> None:
    root = etree.fromstring(built)
    _, y0, _, y1 = _view(root)
    top, bottom = _axes(root)
    assert y0 == pytest.approx((5 + 30 * 0.2) * MM, abs=0.01) and top == pytest.approx(y0, abs=0.01)
    assert y1 == pytest.approx(bottom, abs=0.01) and bottom < (5 + 30 * 0.8) * MM - 1  # moved up for the chart


def test_its_anchor_is_the_views_top_right(built) -> None:
    x0, y0, x1, y1 = _view(etree.fromstring(built))
    end = next(t for t in scene(built).texts if t.label == "end")
    assert end.bbox[0] == pytest.approx(x1, abs=0.8)  # ink starts a side bearing right of the anchor
    assert y0 - 0.3 * 7 <= end.bbox[3] <= y0


def test_a_concatenated_chart_is_refused_naming_the_panel(tmp_path) -> None:
    root = _project(tmp_path / "proj", LAYOUT.replace('"plots:chart"', '"plots:concat"').replace('at = "a.top"',
                                                                                                 'at = "a.n"'))
    with pytest.raises(PanelError, match=r"panel 'a': .*hconcat chart cannot be fitted"):
        build("fig", root=root, formats=("svg",))


def test_without_vl_convert_an_altair_panel_is_one_line_naming_what_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # `import vl_convert` raises ImportError (the worker too)
    root = _project(tmp_path / "proj", LAYOUT.replace('at = "a.top"', 'at = "a.n"'))
    with pytest.raises(PanelError, match=r"panel 'a': plots:chart returned an Altair chart, but vl-convert is not "
                                         r"installed here; install it: pip install 'figure-composer\[vega\]'") as info:
        build("fig", root=root, formats=("svg",))
    assert "\n" not in str(info.value)
