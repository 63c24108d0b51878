"""The ``vegalite`` panel source (:mod:`composer.stages.sources.vegalite`): a spec file's panel in a figure, with
its CSV read from the project, its plot area under the label and a text at its data anchor; the how-to's
example (docs/howto/vega-lite.md), a spec file beside the same chart made with Altair.

Expected places are worked out from the layout: the panel's box is at 5 mm, 5 mm (14.17 pt), 50 x 30 mm;
its view is read off the SVG's own view background (``<path class="background">`` of the root frame);
the anchor ``peak = [5, 3]`` is x = 5 of the nice domain [0, 10] and y = 3, the top of [0, 3].
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from lxml import etree

from composer.errors import DataError, LayoutError
from composer.pipeline import build, check
from composer.svg.measure import scene
from conftest import cumulative_transform

pytest.importorskip("vl_convert")

SVG = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4


def _view_background(root: etree._Element) -> tuple[float, float, float, float]:
    """The chart's view in canvas pt: the root frame's ``<path class="background">``, ``M0.5,0.5hWvH``, is W x H px
    from its group's origin (drawn half a px in, for a crisp stroke), under every transform down to it."""
    frame = root.find(f".//{SVG}g[@class='mark-group role-frame root']")
    path = frame.find(f"./{SVG}g/{SVG}path[@class='background']")
    w, h = (float(v) for v in re.match(r"M0\.5,0\.5h([\d.]+)v([\d.]+)", path.get("d")).groups())
    m = cumulative_transform(path)
    x, y, s = m[0, 2], m[1, 2], m[0, 0]
    return x, y, x + w * s, y + h * s


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


def test_without_vl_convert_a_spec_panel_is_one_line_naming_what_to_install(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # `import vl_convert` raises ImportError (the worker too)
    root = _spec_project(tmp_path / "proj", spec=SPEC.replace('"line"', '"point"'))  # not a drawing cached here
    with pytest.raises(DataError, match=r"panels\.v\.vegalite: Vega-Lite and Altair panels need vl-convert: "
                                        r"pip install 'figure-composer\[vega\]'") as info:
        build("fig", root=root, formats=("svg",))
    assert "\n" not in str(info.value)


def test_the_howtos_example_is_print_clean_and_draws_the_spec_as_altair_does(tmp_path) -> None:
    """docs/howto/vega-lite.md: its CSV, spec, panel module and layout, as written, pass ``compose check`` with
    nothing found; the spec file's panel and the Altair chart of the same encoding (cells of one size) have
    their views at one place in their boxes, their anchors at one place in their views."""
    text = (Path(__file__).parents[3] / "docs" / "howto" / "vega-lite.md").read_text(encoding="utf-8")
    blocks = dict(re.findall(r"^```(text|json|python|toml)\n(.*?)^```$", text, flags=re.M | re.S))
    for folder in ("layouts", "panels", "charts", "data"):
        (tmp_path / folder).mkdir()
    (tmp_path / "data" / "rates.csv").write_text(blocks["text"])
    (tmp_path / "charts" / "rates.vl.json").write_text(blocks["json"])
    (tmp_path / "panels" / "rates.py").write_text(blocks["python"])
    (tmp_path / "layouts" / "rates.toml").write_text(blocks["toml"])
    result = build("rates", root=tmp_path, formats=("svg",), check=True)
    assert result.report is not None and result.report.findings == (), result.report.table()
    root = etree.fromstring((tmp_path / "build" / "rates.svg").read_bytes())
    views = {}
    for name in ("spec", "chart"):
        panel = root.find(f".//{SVG}g[@id='panel-{name}']")
        x, y = cumulative_transform(panel)[:2, 2]
        x0, y0, x1, y1 = _view_background(panel)
        views[name] = (x0 - x, y0 - y, x1 - x, y1 - y)
    assert views["spec"] == pytest.approx(views["chart"], abs=1e-6)
