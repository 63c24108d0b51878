"""Element boxes of an SVG by id (composer.svg.elements), against boxes worked out by hand."""

from __future__ import annotations

import math

import pytest

from composer.svg.elements import element_boxes
from composer.svg.io import parse_svg


def boxes(body: str, root_attrs: str = 'viewBox="0 0 200 100"') -> dict:
    return element_boxes(parse_svg(f'<svg xmlns="http://www.w3.org/2000/svg" {root_attrs}>{body}</svg>'.encode(),
                                   source="t.svg"))


def test_transforms_of_the_element_and_its_groups_apply_but_not_the_stroke():
    found = boxes('<g id="g" transform="translate(5 5) scale(2)">'
                  '<rect id="r" x="1" y="2" width="3" height="4" stroke="#000" stroke-width="10"/>'
                  '<line id="l" x1="10" y1="0" x2="12" y2="1" transform="translate(1,0)"/></g>')
    # r: x 1..4, y 2..6, scaled by 2 then moved by 5 -> x 7..13, y 9..17
    assert found["r"] == pytest.approx((7, 9, 13, 17))
    # l: x 11..13, y 0..1 -> x 27..31, y 5..7; the group holds both
    assert found["l"] == pytest.approx((27, 5, 31, 7))
    assert found["g"] == pytest.approx((7, 5, 31, 17))


def test_a_rotated_rect_gets_the_box_of_its_turned_corners():
    found = boxes('<rect id="r" x="0" y="0" width="10" height="10" transform="rotate(45)"/>')
    half = 10 * math.sqrt(2) / 2  # the corners go to (0,0), (7.07,7.07), (-7.07,7.07), (0,14.14)
    assert found["r"] == pytest.approx((-half, 0, half, 2 * half))


def test_defs_texts_and_the_roots_transform_are_left_out():
    found = boxes('<defs><rect id="d" width="1" height="1"/></defs><text id="t">x</text>'
                  '<clipPath id="c"><rect width="1" height="1"/></clipPath>'
                  '<circle id="o" cx="10" cy="20" r="5"/><path id="p" d="M 0 0 L 10 0 L 10 5 Z"/>',
                  root_attrs='viewBox="0 0 200 100" transform="scale(3)"')
    assert sorted(found) == ["o", "p"]
    assert found["o"] == pytest.approx((5, 15, 15, 25))
    assert found["p"] == pytest.approx((0, 0, 10, 5))
