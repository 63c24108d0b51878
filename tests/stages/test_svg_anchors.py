"""Arrows to elements inside an imported SVG panel (``to = "schem#sensor.w"``), issue #13 item 7.

The expected points are worked out by hand from the SVG specification's viewBox mapping (SVG 1.1,
7.8): the file's viewBox is 0 0 200 100 and ``sensor`` is the rect x 120..160, y 30..50 moved by
translate(10, 5), so x 130..170, y 35..55 in user units. The panel's box is 100 x 100 pt at
(20, 30) pt, not 2:1, so the alignment matters:

- ``xMidYMid meet`` (default): scale min(100/200, 100/100) = 0.5, content 100 x 50 pt centred
  vertically at y = 30 + (100 - 50) / 2 = 55: the rect is x 85..105, y 72.5..82.5 pt;
- ``none``: scale 0.5 across, 1 down: x 85..105, y 65..85 pt;
- ``xMaxYMax slice`` (covers the box, cropped at its edges as a viewer crops the file): scale
  max(0.5, 1) = 1, content 200 x 100 pt at x = 20 + (100 - 200) = -80, y = 30: x 50..90, y 65..85 pt;
- ``xMaxYMax meet``: content at y = 30 + 50 = 80: x 85..105, y 97.5..107.5 pt.
"""

from __future__ import annotations

import re

import pytest
from lxml import etree
from PIL import Image

from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.pipeline import build
from conftest import layout_project

SVG_NS = "{http://www.w3.org/2000/svg}"

PANEL = """
[panels.schem]
svg = "../schem.svg"
at = ["20pt", "30pt"]
size = ["100pt", "100pt"]
[panels.plain]
svg = "../plain.svg"
at = ["150pt", "10pt"]
size = ["40pt", "20pt"]
"""


def project(tmp_path, body: str, aspect: str | None = None):
    root = layout_project(tmp_path, PANEL + body, head='width = "200pt"\nheight = "200pt"\n')
    par = f' preserveAspectRatio="{aspect}"' if aspect else ""
    (root / "schem.svg").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"{par}>'
        '<rect width="200" height="100" fill="#eeeeee"/>'
        '<rect id="sensor" x="120" y="30" width="40" height="20" transform="translate(10,5)" '
        'stroke="#000000" stroke-width="6"/>'
        '<circle id="pump" cx="40" cy="50" r="10"/><defs><rect id="unused" width="1" height="1"/></defs></svg>')
    (root / "plain.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2">'
                                    '<rect width="4" height="2"/></svg>')
    return root


def arrow_ends(root) -> list[tuple[float, float]]:
    """The last point of each arrow's line in the built SVG (pt)."""
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    ends = []
    while (group := svg.find(f".//*[@id='arrow-{len(ends)}']")) is not None:
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", group.find(f"{SVG_NS}path").get("d"))]
        ends.append((numbers[-2], numbers[-1]))
    return ends


def arrows(*targets: str) -> str:
    return "".join(f'[[arrow]]\nfrom = ["5pt", "190pt"]\nto = "{t}"\nhead = "none"\ngap = "0pt"\n' for t in targets)


@pytest.mark.parametrize("aspect, left_pt, top_pt, width_pt, height_pt", [
    (None, 85.0, 72.5, 20.0, 10.0),
    ("xMidYMid meet", 85.0, 72.5, 20.0, 10.0),
    ("none", 85.0, 65.0, 20.0, 20.0),
    ("xMaxYMax slice", 50.0, 65.0, 40.0, 20.0),
    ("xMaxYMax meet", 85.0, 97.5, 20.0, 10.0),
])
def test_an_arrow_ends_on_the_svg_elements_edge(tmp_path, aspect, left_pt, top_pt, width_pt, height_pt):
    root = project(tmp_path, arrows("schem#sensor.w", "schem#sensor.e", "schem#sensor.ne", "schem#sensor",
                                    "schem#sensor.e@0.25", "schem#sensor.s@0.75"), aspect)
    x0, x1, y0, h = left_pt, left_pt + width_pt, top_pt, height_pt  # the stroke (6 user units) is not in the box
    expected = [(x0, y0 + h / 2), (x1, y0 + h / 2), (x1, y0), ((x0 + x1) / 2, y0 + h / 2),
                (x1, y0 + h / 4), (x0 + 0.75 * (x1 - x0), y0 + h)]
    ends = arrow_ends(root)
    assert len(ends) == len(expected)
    for got, want in zip(ends, expected):
        assert got == pytest.approx(want, abs=0.1)


def test_a_via_point_uses_svg_elements(tmp_path):
    # the pump circle: centre (40, 50), r 10 user units -> canvas x 35..45, y 75..85 (meet, scale 0.5)
    root = project(tmp_path, '[[arrow]]\nfrom = ["5pt", "190pt"]\nvia = ["schem#pump.s"]\nto = "schem#pump.n"\n'
                             'route = "straight"\nhead = "none"\ngap = "0pt"\n')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    d = svg.find(".//*[@id='arrow-0']").find(f"{SVG_NS}path").get("d")
    points = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    assert points[2:4] == pytest.approx([40.0, 85.0], abs=0.1)
    assert points[-2:] == pytest.approx([40.0, 75.0], abs=0.1)


def test_an_unknown_id_lists_the_files_ids(tmp_path):
    root = project(tmp_path, arrows("schem#sensr.w"))
    with pytest.raises(LayoutError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(err.value)
    assert "arrow[0].to" in message and "'sensr'" in message and "did you mean 'sensor'?" in message
    assert "(its ids are pump, sensor); did you mean 'sensor'?" in message and "unused" not in message and "\n" not in message


def test_an_id_wrong_only_in_case_is_suggested_as_written():
    """``cella`` for ``cellA``: difflib finds ``cellB`` as close letter for letter (and returned it, the
    larger string of a tie); the id equal but for case is the one meant."""
    from composer.errors import closest, did_you_mean

    assert closest("cella", ["cellA", "cellB"]) == "cellA" and closest("cella", ["cellB", "cellA"]) == "cellA"
    assert did_you_mean("east", ["n", "e"], {"east": "e"}) == "; did you mean 'e'?"
    assert did_you_mean("zzz", ["cellA"]) == ""


def test_hash_on_a_panel_that_is_not_svg_or_missing_is_refused(tmp_path):
    root = project(tmp_path, arrows("nothere#sensor.w"))
    with pytest.raises(LayoutError, match=r"arrow\[0\]\.to.*no panel named 'nothere'.*valid: schem, plain"):
        load_layout(root / "layouts" / "fig.toml")
    root = project(tmp_path, '[panels.pic]\nimage = "../pic.png"\nat = ["150pt", "150pt"]\nsize = ["10pt", "10pt"]\n'
                   + arrows("pic#x.w"))
    Image.new("RGB", (4, 4)).save(root / "pic.png")
    with pytest.raises(LayoutError) as err:
        load_layout(root / "layouts" / "fig.toml")
    assert "arrow[0].to" in str(err.value) and "'pic' is an image panel, not an svg one" in str(err.value)


def test_a_panel_placed_at_an_svg_element_is_refused(tmp_path):
    root = project(tmp_path, '[panels.late]\nsvg = "../plain.svg"\nat = "schem#sensor.e"\nsize = ["4pt", "2pt"]\n')
    with pytest.raises(LayoutError, match=r"known only once its file is read; panels and grids cannot be placed"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_a_line_shape_runs_between_svg_element_points(tmp_path):
    # meet: sensor x 85..105, y 72.5..82.5 pt; pump x 35..45, y 75..85 pt (see the module docstring)
    root = project(tmp_path, '[[shape]]\nkind = "line"\npoints = ["schem#pump.e", "schem#sensor.w"]\n')
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    d = svg.find(".//*[@id='shape-0']").get("d") or svg.find(".//*[@id='shape-0']//*[@d]").get("d")
    points = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    assert points == pytest.approx([45.0, 80.0, 85.0, 77.5], abs=0.1)


def test_a_long_list_of_ids_is_cut_short(tmp_path):
    root = project(tmp_path, arrows("plain#nothing"))
    (root / "plain.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 4 2">'
                                    + "".join(f'<rect id="r{i:02d}" width="1" height="1"/>' for i in range(20))
                                    + "</svg>")
    with pytest.raises(LayoutError) as err:
        build("fig", root=root, formats=("svg",), cache=False)
    # sorted, the first 12 shown: r00 ... r11, then the count of the rest
    assert "its ids are r00, r01, r02, r03, r04, r05, r06, r07, r08, r09, r10, r11 and 8 more)" in str(err.value)


def test_an_id_without_a_box_says_why(tmp_path):
    root = project(tmp_path, arrows("schem#unused.w"))
    with pytest.raises(LayoutError, match=r"arrow\[0\]\.to.*'unused' in \.\./schem\.svg is a <rect>, which has no "
                                          r"measured box \(texts, what <defs> holds and a <use> of nothing"):
        build("fig", root=root, formats=("svg",), cache=False)


def test_a_use_is_the_box_of_what_it_draws(tmp_path):
    """Worked by hand: ``parts.svg`` (viewBox 0 0 200 100) fills its 100 x 50 pt box at (20, 140) pt exactly,
    scale 0.5. ``u1`` draws the 10 x 10 rect ``dot`` at (20, 30): x 30..35, y 155..160 pt, west midpoint
    (30, 157.5). ``u2`` draws a circle of radius 5 in a symbol of viewBox 0 0 10 10 into 40 x 20 at (100, 20),
    ``xMidYMid meet``: scale 2, 20 x 20 centred 10 in, so user x 110..130, y 20..40: x 75..85, y 150..160 pt,
    east midpoint (85, 155). ``grp`` holds only a use of ``dot`` at (150, 60): x 95..100, y 170..175 pt, north
    midpoint (97.5, 170)."""
    root = project(tmp_path, '[panels.parts]\nsvg = "../parts.svg"\nat = ["20pt", "140pt"]\nsize = ["100pt", "50pt"]\n'
                   + arrows("parts#u1.w", "parts#u2.e", "parts#grp.n"))
    (root / "parts.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100">'
        '<defs><rect id="dot" width="10" height="10"/></defs>'
        '<symbol id="sym" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5"/></symbol>'
        '<use id="u1" xlink:href="#dot" x="20" y="30"/>'
        '<use id="u2" href="#sym" x="100" y="20" width="40" height="20"/>'
        '<g id="grp"><use href="#dot" x="150" y="60"/></g></svg>')
    assert arrow_ends(root) == [pytest.approx(p, abs=0.1) for p in [(30.0, 157.5), (85.0, 155.0), (97.5, 170.0)]]
