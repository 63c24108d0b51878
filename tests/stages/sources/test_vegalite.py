"""Vega-Lite panels (:mod:`composer.stages.sources.vegalite`): the converter alone, then a spec file's panel in a
figure.

Every expected number is worked out here from the spec and the box, not read from the code under test:

- the box is 150 pt x 100 pt, which is 200 px x 133.33 px in Vega's CSS px (1 px = 0.75 pt);
- the plot area is the view the spec says when its size is the view's (``autosize = "pad"``: the SVG grows
  around it); fitted to the box, the view is the part of the box the axes leave, measured on the SVG's view
  background (``<path class="background">`` of the root ``role-frame`` group);
- the x scale of ``x`` in [0, 10] is linear, ``nice`` and ``zero``: domain [0, 10] onto [0, view width];
  the y scale of ``y`` in [1, 3] has the domain [0, 3] (zero included) onto [view height, 0].
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from composer.errors import DataError, LayoutError
from composer.pipeline import build, check
from composer.svg.measure import scene

pytest.importorskip("vl_convert")

from composer.stages.sources.vegalite import PT_PER_PX, draw_vegalite  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4
POINTS = [{"x": 0, "y": 1}, {"x": 5, "y": 3}, {"x": 10, "y": 2}]
LINE = {"data": {"values": POINTS}, "mark": "line",
        "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}}


@pytest.fixture(scope="module")
def line() -> tuple:
    """The line chart drawn at 150 x 100 pt in 7 pt DejaVu Sans, with two anchors."""
    return draw_vegalite(LINE, 150.0, 100.0, font="DejaVu Sans", font_size_pt=7.0,
                         anchors={"peak": (5, 3), "start": (0, 1)})


def _matrix(transform: str | None) -> tuple[float, float, float]:
    """(scale, dx, dy) of translate()/scale() transforms (all Vega writes on its groups); a rotate() (an axis
    title's) keeps the scale, and makes the offset None: only an unrotated element's position is read."""
    s, dx, dy = 1.0, 0.0, 0.0
    for name, args in re.findall(r"(\w+)\(([^)]*)\)", transform or ""):
        v = [float(a) for a in re.split(r"[\s,]+", args.strip())]
        assert name in ("translate", "scale", "rotate"), transform
        if name == "rotate":
            dx = dy = float("nan")
        elif name == "translate":
            dx, dy = dx + s * v[0], dy + s * (v[1] if len(v) > 1 else 0.0)
        else:
            s *= v[0]
    return s, dx, dy


def _placed(el: etree._Element) -> tuple[float, float, float]:
    """(scale, x, y) of ``el``'s own origin in its document's user units (pt)."""
    s, x, y = 1.0, 0.0, 0.0
    for node in [el, *el.iterancestors()][::-1]:
        ns, dx, dy = _matrix(node.get("transform"))
        x, y, s = x + s * dx, y + s * dy, s * ns
    return s, x, y


def _view_background(root: etree._Element) -> tuple[float, float, float, float]:
    """The root view's background rectangle, (x0, y0, x1, y1) in the document's pt: its path is
    ``M0.5,0.5hWvH...`` (half-px stroke offset) under the frame group's translation."""
    frame = root.find(f".//{SVG}g[@class='mark-group role-frame root']")
    path = frame.find(f"./{SVG}g/{SVG}path[@class='background']")
    w, h = (float(v) for v in re.match(r"M0\.5,0\.5h([\d.]+)v([\d.]+)", path.get("d")).groups())
    s, x, y = _placed(path)
    return x, y, x + w * s, y + h * s


def test_the_svg_is_the_box_in_pt(line) -> None:
    root = etree.fromstring(line.svg)
    assert root.get("viewBox") == "0 0 150 100"
    assert (root.get("width"), root.get("height")) == ("150pt", "100pt")
    assert PT_PER_PX == 0.75


def test_every_text_is_7pt_text_in_the_figures_font(line) -> None:
    root = etree.fromstring(line.svg)
    texts = root.findall(f".//{SVG}text")
    assert {t.text for t in texts} >= {"0", "2", "10", "x", "y"}  # labels and titles, as <text>
    for t in texts:
        s, _, _ = _placed(t)
        size_px = float(t.get("font-size").removesuffix("px"))
        assert s * size_px == pytest.approx(7.0, abs=1e-9)
        assert s * size_px >= 7.0 - 1e-12  # never under the check's minimum by rounding
        assert t.get("font-family") == "DejaVu Sans"


def test_the_plot_area_is_the_view_vega_drew(line) -> None:
    x0, y0, x1, y1 = line.plot_area
    bx0, by0, bx1, by1 = _view_background(etree.fromstring(line.svg))
    assert (x0, y0, x1, y1) == pytest.approx((bx0, by0, bx1, by1), abs=1e-6)
    # the view lies inside the box, the axes take its left and bottom, and Vega's padding of 5 px (3.75 pt)
    # at least is left at the top and right
    assert 0 < x0 < x1 <= 150 - 3.75 and 3.75 <= y0 < y1 < 100


def test_a_fixed_view_size_is_the_plot_area() -> None:
    """Sized by the view (``autosize = "pad"``, 120 x 60 px), the plot area is that size, whatever the fit."""
    from composer.stages.sources import vegalite

    spec = dict(LINE, width=120, height=60)
    fitted = vegalite.boxed_spec(spec, 150, 100, font="DejaVu Sans", font_size_pt=7)
    assert (fitted["width"], fitted["height"]) == pytest.approx((200, 400 / 3))
    drawn = draw_vegalite(dict(LINE, width=160, height=80), 150, 100, font="DejaVu Sans", font_size_pt=7)
    x0, y0, x1, y1 = drawn.plot_area
    # fitted, the spec's own size gives way to the box: the view is what the axes leave of 200 x 133.3 px
    assert (x1 - x0) / PT_PER_PX < 200 and (y1 - y0) / PT_PER_PX < 400 / 3


def test_a_data_anchor_goes_through_the_charts_scales(line) -> None:
    x0, y0, x1, y1 = line.plot_area
    # x: [0, 10] -> [x0, x1]; y: [0, 3] -> [y1, y0] (zero included, nice)
    assert line.anchors["peak"] == pytest.approx((x0 + (x1 - x0) * 5 / 10, y1 - (y1 - y0) * 3 / 3), abs=1e-6)
    assert line.anchors["start"] == pytest.approx((x0, y1 - (y1 - y0) * 1 / 3), abs=1e-6)


def test_a_category_anchor_is_at_its_bands_centre() -> None:
    bars = {"data": {"values": [{"c": "a", "v": 1}, {"c": "b", "v": 2}]}, "mark": "bar",
            "encoding": {"x": {"field": "c", "type": "nominal"}, "y": {"field": "v", "type": "quantitative"}}}
    drawn = draw_vegalite(bars, 100, 80, font="DejaVu Sans", font_size_pt=7, anchors={"b": ("b", 2)})
    root = etree.fromstring(drawn.svg)
    rects = [p for p in root.iter(f"{SVG}path") if p.getparent().get("class", "").startswith("mark-rect")]
    assert len(rects) == 2
    s, x, y = _placed(rects[1])  # Vega writes a bar as M x,y h w v h ... in its group
    bx, by, bw = (float(v) for v in re.match(r"M([\d.]+),([\d.]+)h([\d.]+)", rects[1].get("d")).groups())
    assert drawn.anchors["b"] == pytest.approx((x + s * (bx + bw / 2), y + s * by), abs=1e-6)
    with pytest.raises(DataError, match="not on the chart"):
        draw_vegalite(bars, 100, 80, font="DejaVu Sans", font_size_pt=7, anchors={"z": ("zz", 2)})


def test_a_composite_chart_is_refused_in_one_line() -> None:
    with pytest.raises(DataError, match="hconcat chart cannot be fitted") as info:
        draw_vegalite({"hconcat": [LINE, LINE]}, 100, 80, font="DejaVu Sans", font_size_pt=7)
    assert "\n" not in str(info.value)


# --- a spec file's panel in a figure -------------------------------------------------------------------

LAYOUT = """\
[figure]
width = "60mm"
height = "40mm"
font = "DejaVu Sans"
font_size = "7pt"
background = "white"
label_at = "plot"

[panels.v]
vegalite = "../charts/line.vl.json"
anchors = { peak = [5, 3] }
at = ["5mm", "5mm"]
size = ["50mm", "30mm"]
label = "a"

[[text]]
text = "peak"
at = "v.peak"
anchor = "s"
"""

SPEC = """{"data": {"url": "data/pts.csv"}, "mark": "line",
 "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}}"""


def _spec_project(root: Path, layout: str = LAYOUT, spec: str = SPEC) -> Path:
    for folder in ("layouts", "charts", "data"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "data" / "pts.csv").write_text("x,y\n0,1\n5,3\n10,2\n")
    (root / "charts" / "line.vl.json").write_text(spec)
    (root / "layouts" / "fig.toml").write_text(layout)
    return root


@pytest.fixture(scope="module")
def spec_figure(tmp_path_factory) -> tuple[Path, bytes]:
    root = _spec_project(tmp_path_factory.mktemp("vegalite") / "proj")
    build("fig", root=root, formats=("svg",))
    return root, (root / "build" / "fig.svg").read_bytes()


def test_a_spec_files_panel_is_drawn_at_its_box_with_its_csv(spec_figure) -> None:
    _, svg = spec_figure
    measured = scene(svg)
    panel = [t for t in measured.texts if t.top == "panel-v"]
    assert {t.label for t in panel} >= {"0", "5", "10", "x", "y"} - {"5"}  # the CSV's values drawn
    assert {round(t.size_pt, 9) for t in panel} == {7.0}
    root = etree.fromstring(svg)
    group = root.find(f".//{SVG}g[@id='panel-v']")
    bx0, by0, bx1, _ = _view_background(group)
    # the view's background, in canvas pt, is the box's plot area: the label's box sits at its top-left corner
    # (label_offset 0, -2 pt from it: its ink ends above by the font's descent, under 0.3 em of 8 pt) and the
    # "peak" text's box's bottom centre at x = 5 of [0, 10], y = 3 of [0, 3] (the view's top); the box's top is
    # 5 mm (14.2 pt) above, where the label of label_at = "box" would be
    label = root.find(".//*[@id='label-v']")
    assert label is not None
    texts = {t.label: t for t in measured.texts}
    assert texts["a"].bbox[0] == pytest.approx(bx0, abs=1.0)
    assert by0 - 2 - 0.3 * 8 <= texts["a"].bbox[3] <= by0 - 2 and by0 > 5 * MM + 5
    peak = texts["peak"]
    assert (peak.bbox[0] + peak.bbox[2]) / 2 == pytest.approx((bx0 + bx1) / 2, abs=0.5)
    assert by0 - 0.3 * 7 <= peak.bbox[3] <= by0


def test_a_spec_files_panel_passes_compose_check(spec_figure) -> None:
    root, _ = spec_figure
    report = check("fig", root=root)
    assert not report.errors and not report.warnings, report


def test_a_data_url_outside_the_project_is_refused(tmp_path) -> None:
    root = _spec_project(tmp_path / "proj", spec=SPEC.replace("data/pts.csv", "../outside.csv"))
    (tmp_path / "outside.csv").write_text("x,y\n0,1\n")
    with pytest.raises(LayoutError, match=r"panels\.v\.vegalite: .*outside the project"):
        build("fig", root=root, formats=("svg",))


def test_an_anchor_the_panel_does_not_declare_is_refused(tmp_path) -> None:
    root = _spec_project(tmp_path / "proj", layout=LAYOUT.replace('at = "v.peak"', 'at = "v.peek"'))
    with pytest.raises(LayoutError, match=r"'v' has no anchor 'peek'; did you mean 'peak'"):
        build("fig", root=root, formats=("svg",))
