"""SVG transforms as 2x3 affine maps: parse a ``transform`` attribute, compose, apply to points.

A map is the tuple ``(a, b, c, d, e, f)`` of SVG 1.1, 7.4 ("the matrix
``[a c e; b d f; 0 0 1]``"): a point ``(x, y)`` goes to
``(a x + c y + e, b x + d y + f)``. Lengths are in whatever user units the
document uses; nothing here knows about figures.
"""

from __future__ import annotations

import math
import re

from lxml import etree

Matrix = tuple[float, float, float, float, float, float]  # a b c d e f: x' = a x + c y + e, y' = b x + d y + f
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

#: one transform function and its argument list, ``rotate(45 10 10)``
_FUNCTION = re.compile(r"([A-Za-z]+)\s*\(([^)]*)\)")
_ARG_SEPARATOR = re.compile(r"[\s,]+")


def multiply(m: Matrix, n: Matrix) -> Matrix:
    """``m`` after ``n``: the map that applies ``n`` first, then ``m`` (the matrix product ``m n``)."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def translation(x: float, y: float) -> Matrix:
    """The map ``translate(x y)``."""
    return (1.0, 0.0, 0.0, 1.0, x, y)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    """The point (x, y) mapped by ``m``."""
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def scale_of(m: Matrix) -> float:
    """Uniform scale of ``m``: sqrt(|det|), exact for rotations and uniform scales (and their products)."""
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def axis_scales(m: Matrix) -> tuple[float, float]:
    """How much ``m`` stretches the x and y axes: the lengths of the images of (1, 0) and (0, 1)."""
    return math.hypot(m[0], m[1]), math.hypot(m[2], m[3])


def _function(kind: str, v: list[float]) -> Matrix | None:
    """One transform function (SVG 1.1, 7.6) -> map; None for an unknown one or a wrong argument count."""
    if kind == "matrix" and len(v) == 6:
        return (v[0], v[1], v[2], v[3], v[4], v[5])
    if kind == "translate" and v:
        return translation(v[0], v[1] if len(v) > 1 else 0.0)
    if kind == "scale" and v:
        return (v[0], 0.0, 0.0, v[1] if len(v) > 1 else v[0], 0.0, 0.0)
    if kind == "rotate" and v:
        r = math.radians(v[0])
        t = (math.cos(r), math.sin(r), -math.sin(r), math.cos(r), 0.0, 0.0)
        if len(v) == 3:  # rotate(a cx cy) = translate(cx cy) rotate(a) translate(-cx -cy)
            t = multiply(multiply(translation(v[1], v[2]), t), translation(-v[1], -v[2]))
        return t
    if kind == "skewX" and v:
        return (1.0, 0.0, math.tan(math.radians(v[0])), 1.0, 0.0, 0.0)
    if kind == "skewY" and v:
        return (1.0, math.tan(math.radians(v[0])), 0.0, 1.0, 0.0, 0.0)
    return None


def parse_transform(text: str | None) -> Matrix:
    """An SVG ``transform`` attribute -> its map.

    The functions ``matrix``, ``translate``, ``scale``, ``rotate`` (with or
    without a centre), ``skewX`` and ``skewY`` compose left to right as
    written (SVG 1.1, 7.5: ``translate(10) scale(2)`` scales first, then
    translates). Angles are in degrees. Unknown functions and functions with
    the wrong number of arguments are skipped. None or "" is the identity.

    Raises:
        ValueError: an argument is not a number (``translate(1px)``).
    """
    m = IDENTITY
    if not text:
        return m
    for kind, args in _FUNCTION.findall(text):
        t = _function(kind, [float(a) for a in _ARG_SEPARATOR.split(args.strip()) if a])
        if t is not None:
            m = multiply(m, t)
    return m


def cumulative(el: etree._Element) -> Matrix:
    """The map from ``el``'s own user units to the document root's: every ``transform`` from the
    root down to ``el`` (its own included), composed.

    Raises:
        ValueError: as :func:`parse_transform`.
    """
    chain = []
    node: etree._Element | None = el
    while node is not None:
        chain.append(node.get("transform"))
        node = node.getparent()
    m = IDENTITY
    for text in reversed(chain):
        if text:
            m = multiply(m, parse_transform(text))
    return m
