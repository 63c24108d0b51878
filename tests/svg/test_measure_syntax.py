"""``compose check`` measures strokes in every syntax the engine reads (issue #23, item 5).

pdftocairo writes every colour of a converted PDF page as ``rgb(0%,0%,0%)``, which the check used to
skip: a 0.17 pt line from an R ``pdf()`` file passed with 0 errors. Each case below is a stroke the
engine draws (resvg reads each of these syntaxes); the expected width is worked out by hand from the
syntax and the transform, the expected colour from the CSS definitions (CSS Color 4: ``hsl(120, 100%,
25%)`` is rgb(0, 127.5, 0); ``rgba(255, 0, 0, 0.5)`` on white is (255, 127.5, 127.5)).
"""

from __future__ import annotations

import math

import pytest

from composer.svg.measure import paint, scene, stroke_width_px, thinnest_scale


def strokes(body: str, *, style: str = "", view: str = "0 0 100 100") -> list[tuple[str, float]]:
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view}"><style>{style}</style>'
           f'<g id="panel-p">{body}</g></svg>').encode()
    found = scene(svg)
    return [(s.element, s.width_pt) for s in found.strokes]


@pytest.mark.parametrize("stroke", [
    "rgb(0%,0%,0%)", "rgb(0%, 50%, 100%)", "rgba(0,0,0,0.5)", "rgb(0 0 0 / 40%)", "hsl(120, 100%, 25%)",
    "hsla(120,100%,25%,0.3)", "RebeccaPurple", "NAVY", "#123", "#1234", "#11223344", "currentColor",
    "currentcolor", "url(#missing) rgb(10%,20%,30%)",
])
@pytest.mark.parametrize("where", ["attribute", "style", "css"])
def test_a_stroke_in_every_colour_syntax_is_measured(stroke, where):
    own = {"attribute": f'stroke="{stroke}" stroke-width="0.17"',
           "style": f'style="stroke:{stroke};stroke-width:0.17"', "css": 'class="k"'}[where]
    css = f".k {{ stroke: {stroke}; stroke-width: 0.17 }}" if where == "css" else ""
    found = strokes(f'<g color="#00f"><path id="l" d="M0 0 L10 10" fill="none" {own}/></g>', style=css)
    assert found == [("l", pytest.approx(0.17))]


@pytest.mark.parametrize("stroke", ["none", "transparent", "rgba(0,0,0,0)", "hsl(0 0% 0% / 0)", "url(#gone)"])
def test_a_stroke_that_paints_nothing_is_not_a_line(stroke):
    assert strokes(f'<path d="M0 0 L10 10" fill="none" stroke="{stroke}" stroke-width="0.1"/>') == []


def test_currentcolor_is_the_colour_of_the_element_and_transparent_colour_draws_nothing():
    # currentColor with color transparent paints nothing; the element's own color wins over its group's
    assert strokes('<g color="red"><path d="M0 0 L9 9" stroke="currentColor" color="transparent"/></g>') == []
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="panel-p" color="hsl(120,100%,25%)">'
           b'<path d="M0 0 L9 9" fill="none" stroke="currentColor" stroke-opacity="50%"/></g></svg>')
    (use,) = scene(svg).colours
    # rgb(0, 127.5, 0) is stored in 8 bits as (0, 128, 0), as the engine stores it; at alpha 0.5 on
    # white: (127.5, 191.5, 127.5) -> (128, 192, 128)
    assert use.colour == "#80c080"


@pytest.mark.parametrize("width, expected", [
    ("0.17", 0.17), ("0.17pt", 0.17 * 96 / 72), ("0.06mm", 0.06 / 25.4 * 96), ("0.01in", 0.96),
    ("0.005cm", 0.05 / 25.4 * 96), ("0.2px", 0.2), ("0.02em", 0.02 * 12), ("0.04ex", 0.04 * 6),
    ("0.01rem", 0.16), ("1%", 0.01 * 100),  # the viewport 100 x 100: its normalized diagonal is 100
])
def test_stroke_widths_in_every_unit(width, expected):
    found = strokes(f'<path d="M0 0 L9 9" stroke="black" stroke-width="{width}" font-size="12"/>')
    assert found[0][1] == pytest.approx(expected)


@pytest.mark.parametrize("transform, expected", [
    ("scale(0.5)", 0.5), ("rotate(30) scale(0.25)", 0.25), ("scale(1 0.1)", 0.1), ("scale(-2 0.5)", 0.5),
    ("matrix(0 0.3 -0.3 0 5 5)", 0.3), ("skewX(45)", math.sqrt((3 - math.sqrt(5)) / 2)),
])
def test_stroke_widths_under_every_transform_are_their_thinnest(transform, expected):
    # skewX(45) is [[1, 1], [0, 1]]: singular values sqrt((3 +- sqrt 5) / 2), the smaller 0.618
    found = strokes(f'<g transform="{transform}"><path d="M0 0 L9 9" stroke="#000" stroke-width="1"/></g>')
    assert found[0][1] == pytest.approx(expected)


def test_paint_and_its_helpers():
    assert paint("rgb(0%,0%,0%)") == ("#000000", 1.0)
    assert paint("rgba(255,0,0,0.5)") == ("#ff0000", 0.5)
    assert paint("currentColor", "rgb(100%, 0%, 0%)") == ("#ff0000", 1.0)
    assert paint("lab(50 0 0)") is None  # not a colour the engine draws either
    assert stroke_width_px("-1") == 1.0 and stroke_width_px(None) == 1.0
    assert thinnest_scale((2.0, 0.0, 0.0, 3.0, 0.0, 0.0)) == pytest.approx(2.0)


@pytest.mark.parametrize("rule, inline, expected", [
    ("stroke-width: 0.1 !important", "stroke-width: 2", 0.1),  # an important rule beats the element's style
    ("stroke-width: 0.1", "stroke-width: 2", 2.0),  # a normal one does not
    ("stroke-width: 0.1 !important", "stroke-width: 2 !important", 2.0),  # the style's own important wins
])
def test_important_declarations_cascade_as_the_engine_applies_them(rule, inline, expected):
    found = strokes(f'<path class="k" d="M0 0 L9 9" stroke="black" style="{inline}"/>', style=f".k {{ {rule} }}")
    assert found[0][1] == pytest.approx(expected)


@pytest.mark.parametrize("own, expected", [
    ('font-size="7.5pt"', 10.0), ('font-size="0.5em"', 5.0), ('font-size="50%"', 5.0), ('font-size="1ex"', 5.0),
    ('font-size="small"', 16 * 8 / 9), ('font-size="larger"', 12.0), ('font-size="smaller"', 10 / 1.2),
    ('style="font: italic bold 3px/1.2 DejaVu Sans"', 3.0), ('style="font: 2mm serif"', 2 / 25.4 * 96),
    ('font-size="inherit"', 10.0), ('font-size="0.25rem"', 4.0),
])
def test_text_sizes_in_every_syntax(own, expected):
    # the parent's size is 10 px: em, ex (half an em here), % and larger/smaller are of it (CSS Fonts 4)
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><g id="panel-p" font-size="10">'
           f'<text x="5" y="50" {own}>small</text></g></svg>').encode()
    (run,) = scene(svg).texts
    assert run.size_pt == pytest.approx(expected)
