"""Plane geometry of drawings: axis-aligned boxes and Bezier curves.

A box is ``(x0, y0, x1, y1)`` with ``x0 <= x1`` and ``y0 <= y1`` for a
non-empty one, in any one length unit (composer's canvas: pt, y down).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from composer.svg.transform import Matrix, apply

Point = tuple[float, float]
BBox = tuple[float, float, float, float]  # x0 y0 x1 y1


def points_bbox(points: Sequence[Point]) -> BBox | None:
    """The smallest box holding ``points``, or None for none."""
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def map_bbox(m: Matrix, box: BBox) -> BBox:
    """The axis-aligned extent of ``box`` after the affine map ``m`` (the box of its four corners)."""
    pts = [apply(m, x, y) for x in (box[0], box[2]) for y in (box[1], box[3])]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)


def union(boxes: Sequence[BBox]) -> BBox:
    """The smallest box holding every box of a non-empty list.

    Raises:
        ValueError: ``boxes`` is empty.
    """
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def overlap(a: BBox, b: BBox) -> tuple[float, float]:
    """Width and height of the intersection of two boxes; negative along an axis where they are
    apart (by that gap), zero where they touch."""
    return min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1])


def bezier_point(nodes: Sequence[Point], t: float) -> Point:
    """The point at parameter ``t`` (0 to 1) of the Bezier curve with control polygon ``nodes``
    (start, control points, end: 3 nodes for a quadratic, 4 for a cubic), by de Casteljau's
    algorithm (repeated linear interpolation of the control polygon; Farin, "Curves and Surfaces
    for CAGD", ch. 3).

    Raises:
        IndexError: ``nodes`` is empty.
    """
    level = list(nodes)
    while len(level) > 1:
        level = [((1 - t) * p[0] + t * q[0], (1 - t) * p[1] + t * q[1]) for p, q in pairwise(level)]
    return level[0]


def flatten_bezier(nodes: Sequence[Point], steps: int) -> list[Point]:
    """``steps`` points along a Bezier curve at t = 1/steps, 2/steps, ..., 1 (the start left out,
    the end included): its chords from the start approximate the curve.

    Quadratics and cubics (what SVG paths draw) take :func:`bezier_point`'s de Casteljau steps written
    out, the same operations in the same order (so the same floats), at a third of its time: the check
    flattens every glyph outline of a figure's text (:mod:`composer.svg.measure`).
    """
    ts = [k / steps for k in range(1, steps + 1)]
    if len(nodes) == 4:
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = nodes
        out = []
        for t in ts:
            s = 1 - t
            ax, ay, bx, by, cx, cy = s * x0 + t * x1, s * y0 + t * y1, s * x1 + t * x2, s * y1 + t * y2, \
                s * x2 + t * x3, s * y2 + t * y3
            dx, dy, ex, ey = s * ax + t * bx, s * ay + t * by, s * bx + t * cx, s * by + t * cy
            out.append((s * dx + t * ex, s * dy + t * ey))
        return out
    if len(nodes) == 3:
        (x0, y0), (x1, y1), (x2, y2) = nodes
        out = []
        for t in ts:
            s = 1 - t
            ax, ay, bx, by = s * x0 + t * x1, s * y0 + t * y1, s * x1 + t * x2, s * y1 + t * y2
            out.append((s * ax + t * bx, s * ay + t * by))
        return out
    return [bezier_point(nodes, t) for t in ts]
