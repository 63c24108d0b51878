"""The canvas walk behind ``compose check``: transforms, path data, the style cascade, glyphs."""

from __future__ import annotations

import pytest

from composer.svg.geometry import map_bbox
from composer.svg.measure import glyph_char, path_points, scene
from composer.svg.transform import parse_transform, scale_of

HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 100">'


def _svg(body: str) -> bytes:
    return (HEAD + body + "</svg>").encode()


def test_transforms_compose_in_document_order():
    m = parse_transform("translate(10 20) scale(2) rotate(90)")
    x0, y0, x1, y1 = map_bbox(m, (0, 0, 1, 1))
    assert (x0, y0, x1, y1) == pytest.approx((8, 20, 10, 22))
    assert scale_of(m) == pytest.approx(2)
    assert scale_of(parse_transform("matrix(0.6 0 0 -0.6 5 5)")) == pytest.approx(0.6)
    assert scale_of(parse_transform("rotate(30 50 50) scale(0.5)")) == pytest.approx(0.5)


def test_path_points_relative_and_implicit_commands():
    subpaths = path_points("m10 10 5 0 v5 h-5 z M 0 0 C 1 2 3 4 5 6 s 1 1 2 2 q 1 1 2 0 t 1 1 A 3 3 0 0 1 20 20")
    assert subpaths[0] == [(10, 10), (15, 10), (15, 15), (10, 15)]
    points = subpaths[1]
    # C and q are flattened along the curve (12 chords each): control points (1, 2), (3, 4), (8, 9) are not ink
    assert len(points) == 1 + 12 + 2 + 12 + 1 + 1
    assert points[0] == (0, 0) and points[12] == (5, 6) and points[13:15] == [(6, 7), (7, 8)]
    assert points[6] == pytest.approx((2.125, 3.0))  # the cubic at t = 0.5
    assert points[20] == pytest.approx((8.0, 8.5))  # the quadratic from (7, 8) via (8, 9) to (9, 8) at t = 0.5
    assert points[-3:] == [(9, 8), (10, 9), (20, 20)]
    assert not {(1, 2), (3, 4), (8, 9)} & set(points)


def test_stroke_width_counts_css_rules_inline_style_and_every_scale():
    svg = _svg(
        "<style>#panel-x .thin {stroke-width: 0.5} #panel-x * {stroke: #000}</style>"
        '<g id="panel-x" transform="translate(5 5) scale(0.4)">'
        '  <g transform="scale(0.5)"><path class="thin" d="M0 0 L10 0"/></g>'
        '  <path d="M0 0 L10 0" style="stroke-width: 2" stroke-width="9"/>'
        '  <path d="M0 0 L10 0" stroke-width="0.1" vector-effect="non-scaling-stroke"/>'
        '  <path d="M0 0 L10 0" stroke="none"/>'
        '  <path d="M0 0 L10 0" style="stroke: none"/>'
        "</g>")
    widths = sorted(round(s.width_pt, 6) for s in scene(svg).strokes)
    # class rule 0.5 x 0.5 x 0.4; inline 2 beats the attribute 9: 2 x 0.4; non-scaling 0.1; the CSS rule
    # "stroke: #000" beats the attribute stroke="none" (width 1 x 0.4); inline "stroke: none" beats the rule
    assert widths == [0.1, 0.1, 0.4, 0.8]


def test_the_check_reads_every_selector_a_renderer_does():
    """Child combinators and attribute selectors apply (cssselect2, as cairosvg); a selector no CSS
    engine reads is reported, not applied; the more specific rule wins whatever the order."""
    svg = _svg(
        "<style>#panel-x > g > path {stroke-width: 3} path[data-k='w'] {stroke-width: 5}"
        " #panel-x path.a {stroke-width: 7} #panel-x path {stroke: #000; stroke-width: 2}"
        " path:no-such-class {stroke-width: 99}</style>"
        '<g id="panel-x" transform="scale(0.5)">'
        '  <g><path d="M0 0 L10 0"/></g>'                         # #panel-x > g > path (1,0,2): 3
        '  <path d="M0 0 L10 0"/>'                                # #panel-x path (1,0,1): 2
        '  <g><g><path d="M0 0 L10 0" data-k="w"/></g></g>'       # #panel-x path (1,0,1) beats [data-k] (0,1,1)
        '  <path class="a" d="M0 0 L10 0"/>'                      # #panel-x path.a (1,1,1): 7
        "</g>")
    result = scene(svg)
    # specificities: "#panel-x > g > path" (1,0,2) > "#panel-x path" (1,0,1) > "path[data-k]" (0,1,1)
    assert [round(s.width_pt, 6) for s in result.strokes] == [1.5, 1.0, 1.0, 3.5]
    assert any("path:no-such-class" in note for note in result.notes)


def test_use_of_a_definition_is_measured_where_it_is_used():
    svg = _svg('<defs><path id="p--m" d="M0 0 L0 4" style="fill: none; stroke: #f00; stroke-width: 1"/></defs>'
               '<g id="panel-p" transform="scale(0.2)"><use xlink:href="#p--m" x="10" y="10"/></g>')
    result = scene(svg)
    assert [round(s.width_pt, 6) for s in result.strokes] == [0.2]
    assert {c.colour for c in result.colours} == {"#ff0000"}


def test_raster_ppi_inputs_come_from_the_data_uri():
    import base64
    import io

    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (30, 20)).save(buf, format="PNG")
    href = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    svg = _svg(f'<g id="panel-i" transform="scale(0.5)"><image xlink:href="{href}" width="144" height="96"/></g>')
    (raster,) = scene(svg).rasters
    assert (raster.width_px, raster.height_px) == (30, 20)
    assert (raster.width_pt, raster.height_pt) == pytest.approx((72, 48))  # 1 in wide: 30 ppi


def test_matplotlib_glyphs_give_font_size_extent_and_text():
    import io

    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "t"}):
        fig = Figure(figsize=(2, 1), dpi=72)
        fig.text(0.1, 0.5, "Ab 0.5", fontsize=9)
        fig.text(0.1, 0.1, r"$x_i$", fontsize=6)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    runs = scene(buf.getvalue()).texts
    assert [(r.text, round(r.size_pt, 6)) for r in runs] == [("Ab 0.5", 9.0), ("xi", 6.0)]
    x0, y0, x1, y1 = runs[0].bbox
    assert 0.6 * 9 < y1 - y0 < 1.0 * 9 and x0 == pytest.approx(14.4, abs=1.0)  # cap height of 9 pt text, at x = 0.1
    assert glyph_char("nope") == "?"


def test_canvas_text_size_comes_from_its_data_attribute_times_transforms():
    svg = _svg('<g transform="scale(0.5)"><path id="text-a" d="M0 0 L10 10" data-font-size="8" '
               'aria-label="hi" fill="#123456"/></g>')
    (run,) = scene(svg).texts
    assert run.size_pt == pytest.approx(4.0) and run.text == "hi"
    assert run.bbox == pytest.approx((0, 0, 5, 5))
    assert not scene(_svg('<path d="M0 0" aria-label="x"/>')).texts  # an aria-label alone is no canvas text (alt)
