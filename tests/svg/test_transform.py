"""SVG transforms as affine maps: every function, their order, and the map from an element to the root.

Expected points are worked out by hand from SVG 1.1, 7.4-7.6 (y points down).
"""

from __future__ import annotations

import math

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
