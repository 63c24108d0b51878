"""Budgets in drawing work, per imported file and per figure, checked before any export (issue #14, item 4).

Work units (composer.svg.budget): 1 per element drawn plus its vertices (``d`` numbers / 2; 4 for a
rect), every ``<use>`` expanded. The counts below are worked out by hand from that rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from composer.errors import SvgError
from composer.pipeline import build
from composer.svg.budget import MAX_FIGURE_WORK, MAX_FILE_WORK, canvas_work
from composer.svg.sanitize import sanitize
from conftest import layout_project

S = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def test_work_counts_elements_vertices_and_every_use_expanded():
    # the path has 10 numbers: 5 vertices, 6 units; the group 1 + 6; each <use> 1 + 7; a use of the
    # use 1 + 8; a rect 5; a marker-end on a 2-vertex line path (1 + 2) draws the marker's 5-unit rect
    # group (1 + 5) up to 3 times (vertices + 1)
    svg = f'''<svg {S} viewBox="0 0 10 10">
<defs><g id="g"><path d="M0 0 L1 1 L2 0 L3 1 L4 0"/></g>
<marker id="m"><rect width="1" height="1"/></marker></defs>
<g id="a"><use id="u" xlink:href="#g"/><use xlink:href="#u"/></g>
<g id="b"><rect width="1" height="1"/></g>
<g id="c"><path d="M0 0 L5 5" marker-end="url(#m)"/></g></svg>'''
    total, tops = canvas_work(etree.fromstring(svg.encode()))
    assert tops["a"] == 1 + (1 + 7) + (1 + 8)
    assert tops["b"] == 1 + 5
    assert tops["c"] == 1 + (1 + 2) + 3 * (1 + 5)
    assert total == 1 + tops["a"] + tops["b"] + tops["c"]  # <defs> counts only where it is used
    assert "<defs>" not in tops


def test_what_defs_hold_unused_costs_nothing():
    """A 1.5 KB file drawing one rect, with a 10**7-element <use> tree in <defs> that nothing references: it
    is accepted (it was refused as over budget), and the same tree used once is refused."""
    tree = '<g id="l0"><rect width="1" height="1"/></g>' + "".join(
        f'<g id="l{i}">' + f'<use xlink:href="#l{i - 1}"/>' * 10 + "</g>" for i in range(1, 8))
    hidden = f'<svg {S} width="10" height="10" viewBox="0 0 10 10"><defs>{tree}</defs><rect width="5" height="5"/></svg>'
    root = sanitize(etree.fromstring(hidden.encode()), source="hidden.svg", base_dir=Path("."), project_root=Path("."))
    assert canvas_work(root)[0] < 20
    used = hidden.replace("</defs>", '</defs><use xlink:href="#l7"/>')
    with pytest.raises(SvgError, match="expands to more than"):
        sanitize(etree.fromstring(used.encode()), source="used.svg", base_dir=Path("."), project_root=Path("."))


def heavy_svg(copies: int) -> str:
    """``copies`` uses of a group of 100 paths of 49 vertices (50 units each): 5,001 units a use plus 1."""
    d = "M0 0 " + " ".join(f"L{i} {i % 3}" for i in range(1, 49))
    group = "".join(f'<path d="{d}" fill="none" stroke="#000" stroke-width="0.1"/>' for _ in range(100))
    uses = '<use xlink:href="#g"/>' * copies
    return f'<svg {S} width="100" height="100" viewBox="0 0 100 100"><defs><g id="g">{group}</g></defs>{uses}</svg>'


def project(tmp_path, svgs: dict[str, str]):
    body = ""
    for i, name in enumerate(svgs):
        body += f'''
[panels.{name}]
svg = "../assets/{name}.svg"
at = ["{i * 50}pt", "0pt"]
size = ["50pt", "50pt"]
'''
    root = layout_project(tmp_path, body, head=f'width = "{50 * len(svgs)}pt"\nheight = "50pt"\n')
    (root / "assets").mkdir()
    for name, svg in svgs.items():
        (root / "assets" / f"{name}.svg").write_text(svg, encoding="utf-8")
    return root


def test_a_file_over_its_budget_is_one_line_naming_the_panel_and_nothing_is_exported(tmp_path):
    copies = MAX_FILE_WORK // 5_002 + 1  # just past the budget
    root = project(tmp_path, {"ok": heavy_svg(1), "bomb": heavy_svg(copies)})
    with pytest.raises(SvgError) as caught:
        build("fig", root=root, formats=("svg", "pdf", "png"), cache=False)
    message = str(caught.value)
    assert "\n" not in message
    assert "panels.bomb.svg" in message and "bomb.svg" in message and "expands to more than" in message
    assert not list((root / "build").glob("fig.*")) if (root / "build").exists() else True


def test_two_accepted_files_over_the_figure_budget_are_refused_naming_both_before_export(tmp_path):
    copies = int(MAX_FIGURE_WORK * 0.6) // 5_002  # each under the file budget, together over the figure's
    assert copies * 5_002 < MAX_FILE_WORK
    root = project(tmp_path, {"left": heavy_svg(copies), "right": heavy_svg(copies), "small": heavy_svg(1)})
    with pytest.raises(SvgError) as caught:
        build("fig", root=root, formats=("svg", "pdf", "png"), cache=False)
    message = str(caught.value)
    assert "\n" not in message
    assert "panel 'left' (../assets/left.svg)" in message and "panel 'right' (../assets/right.svg)" in message
    assert "'small'" not in message  # only the panels that matter are named
    assert f"{MAX_FIGURE_WORK:,}" in message
    assert not (root / "build").exists() or not list((root / "build").glob("fig.*"))


def test_a_matplotlib_sized_scatter_is_accepted(tmp_path):
    """20,000 uses of one circle marker (matplotlib's: 1 move, 8 cubic curves of 3 points, a close:
    26 numbers pairs ~ 13 vertices): about 20,000 x 15 = 300,000 units, well within both budgets."""
    marker = ("M0 -1 C0.27 -1 0.52 -0.89 0.71 -0.71 C0.89 -0.52 1 -0.27 1 0 C1 0.27 0.89 0.52 0.71 0.71 "
              "C0.52 0.89 0.27 1 0 1 C-0.27 1 -0.52 0.89 -0.71 0.71 C-0.89 0.52 -1 0.27 -1 0 "
              "C-1 -0.27 -0.89 -0.52 -0.71 -0.71 C-0.52 -0.89 -0.27 -1 0 -1 z")
    uses = "".join(f'<use xlink:href="#m" x="{i % 100}" y="{i // 200}"/>' for i in range(20_000))
    svg = f'<svg {S} width="100" height="100" viewBox="0 0 100 100"><defs><path id="m" d="{marker}"/></defs>{uses}</svg>'
    root = project(tmp_path, {"scatter": svg})
    build("fig", root=root, formats=("svg",), cache=False)
    assert (root / "build" / "fig.svg").exists()


def test_a_marker_set_by_a_style_sheet_counts_at_every_vertex():
    """A 2,000-vertex path whose marker (a 1,000-vertex path) comes from a `<style>` rule: drawn at every vertex,
    about 2,000 x 1,000 = 2e6 units, over the 1.5e6 of a file, as the same marker set by an attribute is (the sheet's
    marker counted once per element: the file was accepted and took 85 s to export)."""
    marker_d = "M0 0 " + " ".join(f"L{i % 10} {i % 7}" for i in range(1, 1000))
    line_d = "M0 0 " + " ".join(f"L{i % 400} {i % 300}" for i in range(1, 2000))
    body = (f'<defs><marker id="m" markerWidth="10" markerHeight="10"><path d="{marker_d}"/></marker></defs>'
            f'<path class="k" d="{line_d}"/>')
    for how in ('<style>.k { marker: url(#m); stroke: red }</style>', ""):
        svg = f'<svg {S} width="400" height="400" viewBox="0 0 400 400">{how}{body}</svg>'
        if not how:
            svg = svg.replace('class="k"', 'marker-mid="url(#m)"')
        with pytest.raises(SvgError, match="expands to more than"):
            sanitize(etree.fromstring(svg.encode()), source="m.svg", base_dir=Path("."), project_root=Path("."))
