"""A renderer that returns a Plotly figure (composer/stages/results/plotly.py), through a real build: kaleido
and Debian's Chromium draw it at its box with the figure's 7 pt font, its plot area lines up with a
matplotlib panel's in an ``[[align]]`` row, a shape reaches its data anchor, and ``compose check`` reads its
text sizes.

Every expected number is worked out by hand from the layout: the boxes are 40 mm x 40 mm (113.386 pt,
151.18 px at 0.75 pt per px); the matplotlib panel's axes span 20..80 % of its height, 8..32 mm from the top;
the Plotly figure's own margins (10 px top and bottom, automargin off) are wider apart, so the row takes the matplotlib
edges (the innermost); its x stays its own: 40 px (30 pt) in from the left, 10 px (7.5 pt) from the
right. One module-scoped build (``e2e``: it starts a Chromium).
"""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from lxml import etree

from composer.pipeline import build, check
from conftest import SVG_NS, cumulative_transform

pytest.importorskip("plotly", reason="plotly comes with the test extra")

MM = 72 / 25.4
PX = 0.75  # pt per CSS px

PANELS = '''
import plotly.graph_objects as go


def mpl(fig, data):
    ax = fig.add_axes((0.2, 0.2, 0.6, 0.6))
    ax.plot([0, 1], [0, 1])


def chart(fig, data):
    f = go.Figure(go.Scatter(x=[0, 5, 10], y=[0, 50, 100], mode="lines", name="s"))
    f.update_layout(margin=dict(l=40, r=10, t=10, b=10), showlegend=False, title="Plotly")
    f.update_xaxes(range=[0, 10], title="x", automargin=False)
    f.update_yaxes(range=[0, 100], automargin=False)
    return f, {"mid": (5, 50), "low": (2.5, 25)}
'''

LAYOUT = """
[figure]
width = "80mm"
height = "40mm"
font = "DejaVu Sans"
font_size = "7pt"
background = "white"
[panels.m]
render = "p:mpl"
at = ["0mm", "0mm"]
size = ["40mm", "40mm"]
[panels.pl]
render = "p:chart"
at = ["40mm", "0mm"]
size = ["40mm", "40mm"]
[[align]]
panels = ["m", "pl"]
axis = "y"
[[shape]]
kind = "circle"
at = "pl.low"
radius = "0.3mm"
fill = "#00ff00"
stroke = "none"
[check]
min_font_size = "7.5pt"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("plotly") / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS)
    (root / "layouts" / "fig.toml").write_text(textwrap.dedent(LAYOUT))
    result = build("fig", root=root, formats=("svg",), cache=True)
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    report = check("fig", root=root)  # from the panel cache: no second Chromium
    return svg, report


def _panel(svg):
    return svg.find("svg:g[@id='panel-pl']", SVG_NS)


def _plot_rect(svg) -> tuple[float, float, float, float]:
    """The Plotly panel's plot area on the canvas: its subplot's clip rectangle at its translate, under
    every transform above it."""
    panel = _panel(svg)
    clip = next(c for c in panel.iter("{http://www.w3.org/2000/svg}clipPath") if c.get("class") == "plotclip")
    rect = clip.find("svg:rect", SVG_NS)
    g = next(g for g in panel.iter("{http://www.w3.org/2000/svg}g")
             if (g.get("clip-path") or "").endswith(f"#{clip.get('id')})"))
    m = cumulative_transform(g)
    w, h = float(rect.get("width")), float(rect.get("height"))
    (ax, ay), (bx, by) = (m @ [0, 0, 1])[:2], (m @ [w, h, 1])[:2]
    return ax, ay, bx, by


@pytest.mark.e2e
def test_the_plotly_panel_is_aligned_with_the_matplotlib_one_by_plot_area(built):
    svg, _ = built
    x0, y0, x1, y1 = _plot_rect(svg)
    # y: the matplotlib axes' 8..32 mm (placed by the axis domains, which plotly.js does not round)
    assert (y0, y1) == pytest.approx((8 * MM, 32 * MM), abs=1e-3)
    # x: its own margins, 40 px from the left of its 40 mm box, 10 px from the right
    assert (x0, x1) == pytest.approx((40 * MM + 40 * PX, 80 * MM - 10 * PX), abs=0.5 * PX)


@pytest.mark.e2e
def test_every_plotly_text_is_7_pt(built):
    svg, _ = built
    sizes = {}
    for text in _panel(svg).iter("{http://www.w3.org/2000/svg}text"):
        size_px = float(re.search(r"font-size:\s*([\d.]+)px", text.get("style", "")).group(1))
        m = cumulative_transform(text)
        scale = (abs(m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0])) ** 0.5
        sizes["".join(text.itertext())] = size_px * scale
    assert {"Plotly", "x", "0", "10", "100"} <= set(sizes)
    assert all(round(s, 4) == 7.0 for s in sizes.values()), sizes


@pytest.mark.e2e
def test_a_shape_reaches_the_data_anchor_through_the_axis_ranges(built):
    svg, _ = built
    x0, y0, x1, y1 = _plot_rect(svg)
    circle = next(c for c in svg.iter("{http://www.w3.org/2000/svg}circle") if c.get("fill") == "#00ff00")
    cx, cy = (cumulative_transform(circle) @ [float(circle.get("cx")), float(circle.get("cy")), 1])[:2]
    # x range [0, 10]: 2.5 a quarter in; y range [0, 100]: 25 a quarter up from the bottom
    assert (cx, cy) == pytest.approx((x0 + 0.25 * (x1 - x0), y1 - 0.25 * (y1 - y0)), abs=1e-3)


@pytest.mark.e2e
def test_compose_check_reads_the_plotly_texts_sizes(built):
    _, report = built
    small = [f for f in report.findings if f.rule == "font-size" and "pl" in f.element]
    assert small, [f.element for f in report.findings]
    assert all(f.measured == pytest.approx(7.0, abs=0.01) for f in small), [(f.element, f.measured) for f in small]


def test_the_kind_owns_plotly_figures_only():
    import plotly.graph_objects as go

    from composer.stages.results import kind_of

    fig = go.Figure()
    assert kind_of(fig)[0].name == "plotly"
    assert kind_of((fig, {"a": (1, 2)}))[1:] == (fig, {"a": (1, 2)})
    assert kind_of({"a": (None, 1, 2)}) is None and kind_of(fig.to_dict()) is None


def test_without_plotly_the_panel_is_one_line_naming_what_to_install(tmp_path, monkeypatch):
    from composer.errors import PanelError
    from composer.stages import plotlysvg
    from composer.stages.results import plotly as kind

    def missing():
        raise plotlysvg.PlotlyUnavailable(plotlysvg.MISSING_PACKAGES)

    monkeypatch.setattr(kind, "require", missing)
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS)
    (root / "layouts" / "fig.toml").write_text('[figure]\nwidth = "40mm"\nheight = "40mm"\n'
                                               '[panels.pl]\nrender = "p:chart"\nat = ["0mm", "0mm"]\n'
                                               'size = ["40mm", "40mm"]\n')
    with pytest.raises(PanelError) as err:
        build("fig", root=root, formats=("svg",), cache=False, jobs=1)
    message = str(err.value)
    assert "pip install 'figure-composer[plotly]'" in message and "\n" not in message
    assert "panels.pl.render" in message


@pytest.mark.e2e
def test_kaleidos_temporary_files_are_no_inputs_of_the_figure(built):
    # kaleido's page and Chromium's profile live in temporary folders, different every build: recorded as
    # files the panel code opened, they made the provenance (and so the bytes) differ from build to build
    svg, _ = built
    record = "".join(svg.find("svg:metadata", SVG_NS).itertext())
    roles = sorted({entry["role"] for entry in json.loads(record)["inputs"]})
    assert roles == ["layout", "panel module"], record[:300]
