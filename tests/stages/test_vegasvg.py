"""The Vega-Lite converter (:mod:`composer.stages.vegasvg`), alone: a spec drawn at a box by vl-convert.

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

import numpy as np
import pytest
from lxml import etree

from composer.errors import DataError
from conftest import cumulative_transform

pytest.importorskip("vl_convert")

from composer.sandbox.isolate import run_isolated  # noqa: E402
from composer.stages.vegasvg import PT_PER_PX, boxed_spec, draw_vegalite  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4
POINTS = [{"x": 0, "y": 1}, {"x": 5, "y": 3}, {"x": 10, "y": 2}]
LINE = {"data": {"values": POINTS}, "mark": "line",
        "encoding": {"x": {"field": "x", "type": "quantitative"}, "y": {"field": "y", "type": "quantitative"}}}


BARS = {"data": {"values": [{"c": "a", "v": 1}, {"c": "b", "v": 2}]}, "mark": "bar",
        "encoding": {"x": {"field": "c", "type": "nominal"}, "y": {"field": "v", "type": "quantitative"}}}

#: a bar chart whose one category label is wide: the view starts where the label ends
WIDE = {"data": {"values": [{"c": "WWWWWWWWWW", "v": 1}]}, "mark": "bar",
        "encoding": {"y": {"field": "c", "type": "nominal", "title": None},
                     "x": {"field": "v", "type": "quantitative", "title": None}}}

#: what the tests draw, by name: (spec, width_pt, height_pt, keyword arguments)
DRAWN = {
    "line": (LINE, 150.0, 100.0, {"anchors": {"peak": (5, 3), "start": (0, 1)}}),
    "sized": (dict(LINE, width=160, height=80), 150.0, 100.0, {}),
    "bars": (BARS, 100.0, 80.0, {"anchors": {"b": ("b", 2)}}),
    "off_chart": (BARS, 100.0, 80.0, {"anchors": {"z": ("zz", 2)}}),
    "aligned": (LINE, 150.0, 100.0, {"plot_area_pt": (30, 10, 140, 80), "anchors": {"peak": (5, 3)}}),
    "log": ({"data": {"values": [{"x": 1, "y": 1}, {"x": 100, "y": 3}]}, "mark": "line",
             "encoding": {"x": {"field": "x", "type": "quantitative", "scale": {"type": "log"}},
                          "y": {"field": "y", "type": "quantitative"}}}, 150.0, 100.0, {"anchors": {"ten": (10, 3)}}),
    "url": (dict(LINE, data={"url": "data/pts.csv"}), 100.0, 80.0, {}),
    "stix": (WIDE, 200.0, 60.0, {"font": "STIXGeneral"}),
    "dejavu": (WIDE, 200.0, 60.0, {}),
    "dates": ({"data": {"values": [{"t": "2020-01-01", "y": 1}, {"t": "2020-01-03", "y": 3}]}, "mark": "line",
               "encoding": {"x": {"field": "t", "type": "temporal"}, "y": {"field": "y", "type": "quantitative"}}},
              150.0, 100.0, {"anchors": {"day2": ("2020-01-02", 3), "ms": (1577923200000, 3)}}),
}


def _draw_all() -> dict[str, object]:
    """Every drawing of :data:`DRAWN` (or the error it raised), in this process."""
    out: dict[str, object] = {}
    for name, (spec, w, h, kwargs) in DRAWN.items():
        kwargs = {"font": "DejaVu Sans", **kwargs}
        try:
            out[name] = draw_vegalite(spec, w, h, font_size_pt=7.0, **kwargs)
        except DataError as exc:
            out[name] = exc
    return out


@pytest.fixture(scope="module")
def drawn() -> dict:
    """:data:`DRAWN` drawn in one worker (vl-convert's runtime started once, never in the test process), after
    the line chart was drawn from the test process itself (``"here"``: the converter's own worker)."""
    spec, w, h, kwargs = DRAWN["line"]
    here = draw_vegalite(spec, w, h, font="DejaVu Sans", font_size_pt=7.0, **kwargs)
    return {"here": here, **run_isolated(_draw_all, timeout_s=60)}


@pytest.fixture(scope="module")
def line(drawn):
    """The line chart drawn at 150 x 100 pt in 7 pt DejaVu Sans, with two anchors."""
    return drawn["line"]


def _placed(el: etree._Element) -> tuple[float, float, float]:
    """(scale, x, y) of ``el``'s own origin in its document's user units (pt): every transform from the root
    down (:func:`conftest.cumulative_transform`); the scale is the square root of the determinant."""
    m = cumulative_transform(el)
    return float(np.sqrt(abs(np.linalg.det(m[:2, :2])))), float(m[0, 2]), float(m[1, 2])


def _view_background(root: etree._Element) -> tuple[float, float, float, float]:
    """The root view's rectangle, (x0, y0, x1, y1) in the document's pt: its background path ``M0.5,0.5hWvH...``
    is W x H px from the origin of its group (Vega draws it half a px in, for a crisp 1 px stroke)."""
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


def test_the_specs_own_size_gives_way_to_the_box(drawn) -> None:
    """A spec's ``width``/``height`` (160 x 80 px) are replaced by the box's, 150 x 100 pt = 200 x 133.3 px."""
    fitted = boxed_spec(dict(LINE, width=160, height=80), 150, 100, font="DejaVu Sans", font_size_pt=7)
    assert (fitted["width"], fitted["height"]) == pytest.approx((200, 400 / 3))
    sized = drawn["sized"]
    assert etree.fromstring(sized.svg).get("viewBox") == "0 0 150 100"
    x0, y0, x1, y1 = sized.plot_area
    assert 80 * PT_PER_PX < y1 - y0 < 100 and 0 < x0 < x1 <= 150  # the view fills what the axes leave of the box


def test_a_data_anchor_goes_through_the_charts_scales(line) -> None:
    x0, y0, x1, y1 = line.plot_area
    # x: [0, 10] -> [x0, x1]; y: [0, 3] -> [y1, y0] (zero included, nice)
    assert line.anchors["peak"] == pytest.approx((x0 + (x1 - x0) * 5 / 10, y1 - (y1 - y0) * 3 / 3), abs=1e-6)
    assert line.anchors["start"] == pytest.approx((x0, y1 - (y1 - y0) * 1 / 3), abs=1e-6)


def test_an_anchor_on_a_log_or_a_time_scale(drawn) -> None:
    """10 is halfway between the decades 1 and 100 on a log scale; 2 January (a date string, or its UTC
    timestamp 1,577,923,200,000 ms) halfway between the 1st and the 3rd on a time scale (the data's extent)."""
    for name, anchor in (("log", "ten"), ("dates", "day2"), ("dates", "ms")):
        x0, y0, x1, _ = drawn[name].plot_area
        assert drawn[name].anchors[anchor] == pytest.approx(((x0 + x1) / 2, y0), abs=1e-6), (name, anchor)


def test_a_category_anchor_is_at_its_bands_centre(drawn) -> None:
    bars = drawn["bars"]
    root = etree.fromstring(bars.svg)
    rects = [p for p in root.iter(f"{SVG}path") if p.getparent().get("class", "").startswith("mark-rect")]
    assert len(rects) == 2
    s, x, y = _placed(rects[1])  # Vega writes a bar as M x,y h w v h ... in its group
    bx, by, bw = (float(v) for v in re.match(r"M([\d.]+),([\d.]+)h([\d.]+)", rects[1].get("d")).groups())
    assert bars.anchors["b"] == pytest.approx((x + s * (bx + bw / 2), y + s * by), abs=1e-6)
    assert isinstance(drawn["off_chart"], DataError) and "not on the chart" in str(drawn["off_chart"])


@pytest.mark.parametrize("name, family", [("stix", "STIXGeneral"), ("dejavu", "DejaVu Sans")])
def test_text_is_laid_out_with_the_font_file_composer_measures_with(drawn, name, family) -> None:
    """vl-convert lays the labels out with the figure's font file, STIXGeneral too, which only matplotlib ships
    (fontconfig has none here; unregistered, vl-convert measured another font, about 30 % narrower). The view starts
    after Vega's 5 px padding, the label, its 2 px padding and the 5 px tick, rounded up to a whole px by Vega;
    the label's width is matplotlib's (its text layout, the same file) at 7 pt = 9.33 px."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    width_px = TextToPath().get_text_width_height_descent("WWWWWWWWWW", FontProperties(family=family, size=7 / 0.75),
                                                          ismath=False)[0]
    x0_px = drawn[name].plot_area[0] / PT_PER_PX
    assert 0 <= x0_px - (5 + width_px + 2 + 5) < 1, (x0_px, width_px)


def test_no_url_is_fetched(drawn) -> None:
    """A chart naming its data by URL (an Altair chart made from a file name) is refused in one line, fetching
    nothing: vl-convert is allowed no URL (a spec file's data is inlined by its source)."""
    refused = drawn["url"]
    assert isinstance(refused, DataError) and "\n" not in str(refused)
    assert "External data url not allowed" in str(refused) and "composer fetches nothing" in str(refused)


def test_a_composite_chart_is_refused_in_one_line() -> None:
    with pytest.raises(DataError, match="hconcat chart cannot be fitted") as info:
        boxed_spec({"hconcat": [LINE, LINE]}, 100, 80, font="DejaVu Sans", font_size_pt=7)
    assert "\n" not in str(info.value)


def test_a_plot_area_asked_for_is_where_the_view_is_drawn(drawn) -> None:
    """``[[align]]`` asks for the view at (30, 10)-(140, 80) pt of the 150 x 100 pt box: it is drawn there
    (its background path), the SVG is still the box, and the text still 7 pt."""
    aligned = drawn["aligned"]
    root = etree.fromstring(aligned.svg)
    assert root.get("viewBox") == "0 0 150 100"
    assert aligned.plot_area == pytest.approx((30, 10, 140, 80), abs=1e-9)
    bx0, by0, bx1, by1 = _view_background(root)
    assert (bx0, by0, bx1, by1) == pytest.approx((30, 10, 140, 80), abs=1e-6)
    assert aligned.anchors["peak"] == pytest.approx((30 + 110 / 2, 10), abs=1e-6)  # x 5 of [0, 10], y 3 of [0, 3]


def test_the_building_process_never_starts_vl_convert(drawn) -> None:
    """A process forked after vl-convert started cannot use it (it waits forever): called in the building
    process, the converter draws in a worker of its own, so a worker forked afterwards still draws (the
    fixture's, within its 60 s, not at a timeout), and the bytes are the same in both."""
    assert drawn["here"] == drawn["line"]
