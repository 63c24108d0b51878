"""Boxes and Bezier curves, with values worked out by hand."""

from __future__ import annotations

import pytest

from composer.svg.geometry import bezier_point, flatten_bezier, map_bbox, overlap, points_bbox, union
from composer.svg.transform import parse_transform


def test_bezier_points():
    # quadratic (0,0) (1,2) (2,0) at t = 1/2: 1/4 P0 + 1/2 P1 + 1/4 P2 = (1, 1)
    assert bezier_point([(0, 0), (1, 2), (2, 0)], 0.5) == pytest.approx((1, 1))
    # cubic (0,0) (0,1) (1,1) (1,0) at t = 1/2: (3/8 + 1/8, 3/8 + 3/8) = (0.5, 0.75)
    assert bezier_point([(0, 0), (0, 1), (1, 1), (1, 0)], 0.5) == pytest.approx((0.5, 0.75))
    # at t = 1/4 the quadratic is 9/16 P0 + 6/16 P1 + 1/16 P2 = (0.5, 0.75)
    assert bezier_point([(0, 0), (1, 2), (2, 0)], 0.25) == pytest.approx((0.5, 0.75))
    assert bezier_point([(3, 4), (9, 9), (5, 6)], 0) == (3, 4)
    assert bezier_point([(3, 4), (9, 9), (5, 6)], 1) == (5, 6)
    assert bezier_point([(2, 2), (4, 4)], 0.25) == (2.5, 2.5)  # two nodes: a line


def test_flatten_leaves_the_start_out_and_ends_at_the_end():
    pts = flatten_bezier([(0, 0), (1, 2), (2, 0)], 4)
    assert len(pts) == 4 and pts[-1] == (2, 0)
    assert pts[1] == pytest.approx((1, 1))


def test_boxes():
    assert overlap((0, 0, 2, 2), (1, 1, 3, 4)) == (1, 1)
    assert overlap((0, 0, 1, 1), (3, 0, 4, 1)) == (-2, 1)  # 2 apart in x, overlapping 1 in y
    assert overlap((0, 0, 1, 1), (1, 0, 2, 1)) == (0, 1)   # touching
    assert union([(0, 0, 1, 1), (2, -1, 3, 0.5)]) == (0, -1, 3, 1)
    assert points_bbox([(1, 5), (-2, 3), (4, 4)]) == (-2, 3, 4, 5)
    assert points_bbox([]) is None


def test_map_bbox_is_the_extent_of_the_mapped_corners():
    assert map_bbox(parse_transform("translate(10 0) scale(2)"), (0, 0, 1, 1)) == (10, 0, 12, 2)
    # rotate(45): the unit square's corners go to (0,0), (.707,.707), (-.707,.707), (0,1.414)
    x0, y0, x1, y1 = map_bbox(parse_transform("rotate(45)"), (0, 0, 1, 1))
    assert (x0, y0, x1, y1) == pytest.approx((-2 ** -0.5, 0, 2 ** -0.5, 2 ** 0.5))
