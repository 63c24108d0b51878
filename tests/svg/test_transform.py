"""SVG transforms as affine maps: every function, their order, and the map from an element to the root.

Expected points are worked out by hand from SVG 1.1, 7.4-7.6 (y points down).
"""

from __future__ import annotations

import math
import re

import pytest
from lxml import etree

from composer.svg.transform import (
    IDENTITY,
    apply,
    axis_scales,
    cumulative,
    multiply,
    parse_transform,
    scale_of,
    translation,
)


def _maps(text: str, point: tuple[float, float]) -> tuple[float, float]:
    return apply(parse_transform(text), *point)


@pytest.mark.parametrize("text, point, expected", [
    ("translate(10 20)", (1, 2), (11, 22)),
    ("translate(10)", (1, 2), (11, 2)),                       # ty defaults to 0
    ("translate(1,2)", (0, 0), (1, 2)),                       # commas separate too
    ("translate( 1 , 2 )", (0, 0), (1, 2)),
    ("scale(2 3)", (1, 1), (2, 3)),
    ("scale(2)", (1, 1), (2, 2)),                             # sy defaults to sx
    ("rotate(90)", (1, 0), (0, 1)),                           # +x turns to +y: clockwise on a y-down screen
    ("rotate(90)", (0, 1), (-1, 0)),
    ("rotate(180)", (2, 3), (-2, -3)),
    ("rotate(90 10 0)", (11, 0), (10, 1)),                    # about (10, 0)
    ("rotate(90 10 0)", (10, 0), (10, 0)),                    # the centre stays
    ("skewX(45)", (0, 1), (1, 1)),                            # x += tan(45) y
    ("skewY(45)", (1, 0), (1, 1)),                            # y += tan(45) x
    ("matrix(1 2 3 4 5 6)", (1, 1), (9, 12)),                 # (1 + 3 + 5, 2 + 4 + 6)
    ("translate(10 0) scale(2)", (1, 1), (12, 2)),            # rightmost first: scale, then translate
    ("scale(2) translate(10 0)", (1, 1), (22, 2)),            # translate, then scale
    ("translate(5 5) rotate(90) scale(2)", (1, 0), (5, 7)),  # (2, 0) -> (0, 2) -> (5, 7)
])
def test_each_function_and_their_order(text, point, expected):
    assert _maps(text, point) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("text", [None, "", "   ", "foo(1 2)", "matrix(1 2 3)", "translate()"])
def test_nothing_usable_is_the_identity(text):
    assert parse_transform(text) == IDENTITY


def test_unknown_functions_are_skipped_and_the_rest_kept():
    assert _maps("foo(9) translate(1 2) bar(3)", (0, 0)) == (1, 2)


def test_a_non_number_argument_raises():
    with pytest.raises(ValueError):
        parse_transform("translate(1px 2px)")


def test_multiply_applies_the_right_map_first():
    shift, double = translation(10, 0), (2.0, 0.0, 0.0, 2.0, 0.0, 0.0)
    assert apply(multiply(shift, double), 1, 1) == (12, 2)
    assert apply(multiply(double, shift), 1, 1) == (22, 2)
    assert multiply(IDENTITY, shift) == shift == multiply(shift, IDENTITY)


def test_scales():
    assert scale_of(parse_transform("rotate(30) scale(3)")) == pytest.approx(3)
    assert scale_of(parse_transform("scale(2 8)")) == pytest.approx(4)   # sqrt(|det|) = sqrt(16)
    assert scale_of(parse_transform("scale(1 -1)")) == pytest.approx(1)  # a flip keeps sizes
    assert axis_scales(parse_transform("scale(2 5)")) == pytest.approx((2, 5))
    assert axis_scales(parse_transform("rotate(90) scale(2 5)")) == pytest.approx((2, 5))
    assert axis_scales(parse_transform("rotate(45)")) == pytest.approx((1, 1))


def test_cumulative_composes_from_the_root_down_to_the_element_itself():
    root = etree.fromstring(
        '<svg xmlns="http://www.w3.org/2000/svg"><g transform="translate(10 0)"><g transform="scale(2)">'
        '<rect id="r" transform="translate(1 1)"/></g><rect id="plain"/></g></svg>')
    rect = root.find(".//{http://www.w3.org/2000/svg}rect[@id='r']")
    plain = root.find(".//{http://www.w3.org/2000/svg}rect[@id='plain']")
    # (0, 0) -> translate(1 1) -> (1, 1) -> scale(2) -> (2, 2) -> translate(10 0) -> (12, 2)
    assert apply(cumulative(rect), 0, 0) == (12, 2)
    assert apply(cumulative(plain), 0, 0) == (10, 0)
    assert cumulative(root) == IDENTITY


def test_rotation_keeps_lengths():
    m = parse_transform("rotate(37)")
    x, y = apply(m, 3, 4)
    assert math.hypot(x, y) == pytest.approx(5)


@pytest.mark.parametrize("css, svg", [
    ("translate(60px, 0px)", "translate(60 0)"),
    ("translate(1in)", "translate(96)"),
    ("translateX(10mm) translateY(-2pt)", "translate(37.7952755905512 0) translate(0 -2.66666666666667)"),
    ("rotate(0.25turn) scale(2, 50%)", "rotate(90) scale(2 0.5)"),
    ("rotate(3.14159265358979rad)", "rotate(180)"),
    ("skewX(45deg) skewY(100grad)", "skewX(45) skewY(90)"),
    ("skew(45deg)", "matrix(1 0 1 1 0 0)"),
    ("matrix(1, 2, 3, 4, 5, 6)", "matrix(1 2 3 4 5 6)"),
    ("scaleY(3)", "scale(1 3)"),
    ("none", ""),
])
def test_a_css_transform_becomes_the_attribute_that_draws_the_same(css, svg):
    """CSS Transforms 1, 13.1 against SVG 1.1, 7.6, by hand: 1in = 96 px, 10 mm = 37.795 px, 2 pt = 2.667 px,
    a quarter turn = 90 deg, 100 grad = 90 deg, pi rad = 180 deg; skew(ax) is matrix(1 0 tan(ax) 1 0 0)."""
    from composer.svg.transform import css_transform_to_svg

    got = css_transform_to_svg(css)
    assert re.sub(r"(\d\.\d{6})\d*", r"\1", got) == re.sub(r"(\d\.\d{6})\d*", r"\1", svg)


@pytest.mark.parametrize("css, reason", [
    ("translate(50%, 0)", "absolute length"), ("translate3d(1px, 2px, 3px)", "no 2D SVG"),
    ("rotateX(10deg)", "no 2D SVG"), ("translate(10, 0)", "absolute length"), ("translate(1em)", "absolute length"),
    ("rotate(10)", "an angle"), ("inherit", "no 2D SVG"), ("matrix(1, 2)", "takes 6 arguments"),
])
def test_a_css_transform_svg_cannot_say_is_refused_with_the_reason(css, reason):
    from composer.svg.transform import css_transform_to_svg

    with pytest.raises(ValueError, match=reason):
        css_transform_to_svg(css)
