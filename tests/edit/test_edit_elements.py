"""Where a connector's waypoints are on its route as drawn (:func:`composer.edit.elements._stops`): routes
written out by hand as :func:`composer.stages.geometry.route` draws them, hop by hop."""

from __future__ import annotations

from composer.edit.elements import _stops


def test_straight_hops_put_each_waypoint_at_the_next_point():
    assert _stops(((0, 0), (5, 5), (9, 1)), 2, "straight") == [0, 1, 2]


def test_an_elbow_hop_adds_its_corner_before_the_waypoint():
    # -|: (0,0) -> corner (10,0) -> waypoint (10,10); then (10,10) -> (20,10) is aligned: straight
    assert _stops(((0, 0), (10, 0), (10, 10), (20, 10)), 2, "-|") == [0, 2, 3]
    # |-: (0,0) -> corner (0,10) -> waypoint (10,10); then (10,10) -> corner (10,30) -> end (30,30)
    assert _stops(((0, 0), (0, 10), (10, 10), (10, 30), (30, 30)), 2, "|-") == [0, 2, 4]


def test_an_aligned_first_hop_collapses_and_the_waypoint_is_its_end():
    # -|: (0,0) -> (10,0) aligned (straight), then (10,0) -> (10,10) aligned (straight): the waypoint is (10,0)
    # though (10,0) is also where an elbow from (0,0) to (10,10) would turn
    assert _stops(((0, 0), (10, 0), (10, 10)), 2, "-|") == [0, 1, 2]
