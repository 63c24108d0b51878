"""Result kinds are an extension point: a kind registered in the test (:data:`composer.stages.results.RESULTS`)
draws what a renderer returns as an SVG document the size of the box, with its plot area and data anchors,
through a real build (:mod:`composer.stages.results`).

The toy kind draws a ``Swatch`` (a class of the panel module) as a rectangle filling its plot area, which
it puts 10 % in from each side of the box, or where ``[[align]]`` tells it; its anchors ``(u, v)`` are
fractions of the plot area from its bottom-left. Every expected point below is worked out by hand from
the layout's boxes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree

from composer.errors import LayoutError, PanelError
from composer.pipeline import build
from composer.stages.results import RESULTS, ResultKind, SvgDrawing, Target, is_instance, kind_of
from conftest import SVG_NS, cumulative_transform

MM = 72 / 25.4

PANELS = '''
class Swatch:
    def __init__(self, colour, size_off=0.0):
        self.colour, self.size_off = colour, size_off


def swatch(fig, data):
    return Swatch("#d62728"), {"mid": (0.5, 0.5), "top_right": (1.0, 1.0)}


def wrong_size(fig, data):
    return Swatch("#d62728", size_off=3.0)


def line(fig, data):
    ax = fig.add_axes([0.25, 0.2, 0.7, 0.6])
    ax.plot([0, 1], [0, 1], color="#1f77b4")
'''


class ToyKind(ResultKind):
    """A ``Swatch`` as an SVG rectangle filling its plot area (module docstring)."""

    name = "toy"
    what = "toy swatch"
    aligns = True

    def owns(self, obj: Any) -> bool:
        return type(obj).__name__ == "Swatch"

    def draw(self, obj: Any, target: Target) -> SvgDrawing:
        w, h = target.size_pt
        x0, y0, x1, y1 = target.plot_area_pt or (0.1 * w, 0.1 * h, 0.9 * w, 0.9 * h)
        anchors = {name: (x0 + u * (x1 - x0), y1 - v * (y1 - y0)) for name, (u, v) in target.anchors.items()}
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w + obj.size_off} {h}">'
               f'<rect x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" fill="{obj.colour}"/></svg>')
        return SvgDrawing(svg=svg.encode(), plot_area=(x0, y0, x1, y1), anchors=anchors)


class FixedToy(ToyKind):
    """The same, but it cannot move its plot area."""

    name = "fixed-toy"
    aligns = False


@pytest.fixture
def toy() -> Iterator[None]:
    with RESULTS.registered(ToyKind()):
        yield


def project(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS)
    (root / "layouts" / "fig.toml").write_text(textwrap.dedent(body))
    return root


FIGURE = """
[figure]
width = "80mm"
height = "40mm"
background = "white"
[panels.t]
render = "p:swatch"
at = ["40mm", "5mm"]
size = ["30mm", "30mm"]
[[shape]]
kind = "circle"
at = "t.mid"
radius = "0.5mm"
fill = "#0000ff"
stroke = "none"
[[shape]]
kind = "circle"
at = "t.top_right"
radius = "0.5mm"
fill = "#00ff00"
stroke = "none"
"""


def _circle(svg: etree._Element, fill: str) -> np.ndarray:
    circle = next(c for c in svg.iter("{http://www.w3.org/2000/svg}circle") if c.get("fill") == fill)
    return (cumulative_transform(circle) @ [float(circle.get("cx")), float(circle.get("cy")), 1])[:2]


def _rect(svg: etree._Element, fill: str) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) canvas pt of the one ``<rect>`` filled ``fill``."""
    rect = next(r for r in svg.iter("{http://www.w3.org/2000/svg}rect") if r.get("fill") == fill)
    m = cumulative_transform(rect)
    x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
    (ax, ay), (bx, by) = (m @ [x, y, 1])[:2], (m @ [x + w, y + h, 1])[:2]
    return ax, ay, bx, by


def test_an_svg_result_is_the_panel_with_its_plot_area_and_data_anchors(toy, tmp_path):
    """The box is 40..70 mm x 5..35 mm; the toy's plot area 10 % in: 43..67 mm x 8..32 mm. ``mid`` is its
    centre (55 mm, 20 mm), ``top_right`` its top-right corner (67 mm, 8 mm)."""
    root = project(tmp_path, FIGURE)
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    assert svg.find("svg:g[@id='panel-t']", SVG_NS) is not None
    assert _rect(svg, "#d62728") == pytest.approx((43 * MM, 8 * MM, 67 * MM, 32 * MM), abs=1e-3)
    assert _circle(svg, "#0000ff") == pytest.approx((55 * MM, 20 * MM), abs=1e-3)
    assert _circle(svg, "#00ff00") == pytest.approx((67 * MM, 8 * MM), abs=1e-3)


ALIGNED = """
[figure]
width = "80mm"
height = "40mm"
background = "white"
[panels.m]
render = "p:line"
at = ["0mm", "0mm"]
size = ["40mm", "40mm"]
[panels.t]
render = "p:swatch"
at = ["40mm", "0mm"]
size = ["40mm", "40mm"]
[[align]]
panels = ["m", "t"]
axis = "y"
"""


def test_an_aligned_svg_result_is_drawn_again_with_the_plot_area_of_its_row(toy, tmp_path):
    """The matplotlib panel's axes span 20..80 % of its height from the bottom: 8..32 mm from the top of
    the 40 mm box; the toy's (10..90 %: 4..36 mm) is the larger, so both take the inner edges, 8..32 mm
    (as patchwork aligns: the innermost edge of the row). The toy keeps its own x (4..36 mm of its box)."""
    root = project(tmp_path, ALIGNED)
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    x0, y0, x1, y1 = _rect(svg, "#d62728")
    assert (y0, y1) == pytest.approx((8 * MM, 32 * MM), abs=1e-3)
    assert (x0, x1) == pytest.approx((44 * MM, 76 * MM), abs=1e-3)


def test_a_kind_that_cannot_move_its_plot_area_is_refused_in_an_align_in_one_line(tmp_path):
    root = project(tmp_path, ALIGNED)
    with RESULTS.registered(FixedToy()), pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "\n" not in message and "'t'" in message and "cannot be drawn with its plot area moved" in message
    assert "align" in message and "fig.toml" in message


def test_an_svg_result_not_of_the_boxs_size_is_refused_naming_both_sizes(toy, tmp_path):
    """The box is 30 mm = 85.04 pt square; the toy made its document 3 pt wider."""
    root = project(tmp_path, FIGURE.replace('"p:swatch"', '"p:wrong_size"').split("[[shape]]")[0])
    with pytest.raises(PanelError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "\n" not in message and "panel 't'" in message and "panels.t.render" in message
    assert f"{30 * MM + 3:g} x {30 * MM:g} pt" in message and f"{30 * MM:g} x {30 * MM:g} pt" in message


def test_an_object_no_kind_owns_is_still_garbage_named_by_its_type(tmp_path):
    """Without the toy kind, a Swatch is what it was before result kinds: not None, not anchors."""
    root = project(tmp_path, FIGURE.replace('"p:swatch"', '"p:wrong_size"').split("[[shape]]")[0])
    with pytest.raises(PanelError, match=r"returned Swatch; a renderer returns None or \{name: \(ax, x, y\)\}") as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    # the choices name every kind of object a renderer may return instead
    for what in ("a plotnine ggplot", "a seaborn grid", "an Altair chart", "a Plotly figure"):
        assert what in str(caught.value), what
    assert "(object, {name: (x, y)})" in str(caught.value)


def test_kinds_know_their_objects_by_module_and_class_name():
    """``is_instance`` reads the class and its bases' module and name; a matplotlib result (None, anchors)
    belongs to no kind; ``(obj, anchors)`` gives the anchors."""
    fake = type("ggplot", (), {"__module__": "plotnine.ggplot"})
    sub = type("MyPlot", (fake,), {"__module__": "mine"})
    other = type("ggplot", (), {"__module__": "plotnine_fork"})
    assert is_instance(fake(), "plotnine", "ggplot") and is_instance(sub(), "plotnine", "ggplot")
    assert not is_instance(other(), "plotnine", "ggplot")
    assert kind_of(None) is None and kind_of({}) is None and kind_of({"a": (1, 2, 3)}) is None
    found = kind_of((fake(), {"p": (1.0, 2.0)}))
    assert found is not None and found[0].name == "plotnine" and found[2] == {"p": (1.0, 2.0)}
