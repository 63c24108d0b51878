"""SVG transforms as 2x3 affine maps: parse a ``transform`` attribute, compose, apply to points.

A map is the tuple ``(a, b, c, d, e, f)`` of SVG 1.1, 7.4 ("the matrix
``[a c e; b d f; 0 0 1]``"): a point ``(x, y)`` goes to
``(a x + c y + e, b x + d y + f)``. Lengths are in whatever user units the
document uses; nothing here knows about figures.
"""

from __future__ import annotations

import math
import re

import tinycss2
from lxml import etree

from composer.units import PX_PER_UNIT

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


#: CSS angle units in degrees (CSS Values 4, 7.1)
_DEG_PER_ANGLE_UNIT = {"deg": 1.0, "grad": 0.9, "rad": 180.0 / math.pi, "turn": 360.0}
#: the 2D CSS transform functions (CSS Transforms 1, 13.1) -> (argument kind, fewest, most arguments)
_CSS_FUNCTIONS = {"matrix": ("number", 6, 6), "translate": ("length", 1, 2), "translatex": ("length", 1, 1),
                  "translatey": ("length", 1, 1), "scale": ("number", 1, 2), "scalex": ("number", 1, 1),
                  "scaley": ("number", 1, 1), "rotate": ("angle", 1, 1), "skew": ("angle", 1, 2),
                  "skewx": ("angle", 1, 1), "skewy": ("angle", 1, 1)}


def _css_argument(token: tinycss2.ast.Node, kind: str) -> float:
    """One argument of a CSS transform function in px (lengths, :data:`composer.units.PX_PER_UNIT`), degrees
    (angles) or as a number.

    Raises:
        ValueError: a percentage, a relative or unknown unit, or anything but a number.
    """
    ttype = getattr(token, "type", "")
    if ttype == "number" and (kind == "number" or token.value == 0):
        return float(token.value)
    if ttype == "percentage" and kind == "number":  # scale(50%) is scale(0.5) (CSS Transforms 2)
        return float(token.value) / 100.0
    if ttype == "dimension":
        table = PX_PER_UNIT if kind == "length" else _DEG_PER_ANGLE_UNIT if kind == "angle" else {}
        if token.lower_unit in table:
            return float(token.value) * table[token.lower_unit]
    raise ValueError(f"{getattr(token, 'serialize', lambda: str(token))()!r} is not "
                     + {"length": "an absolute length (px, mm, ...)", "angle": "an angle (deg, rad, grad, turn)",
                        "number": "a number"}[kind])


def css_transform_to_svg(value: str) -> str:
    """A CSS ``transform`` property value (as in ``style="transform: ..."``) -> the ``transform``
    attribute that draws the same, in SVG 1.1 syntax (units resolved: lengths in px, the user
    unit; angles in degrees).

    CSS's 2D functions (CSS Transforms 1, 13.1) map one to one onto SVG's: ``translate``,
    ``translateX``/``Y``, ``scale``, ``scaleX``/``Y``, ``rotate``, ``skewX``/``Y``, ``matrix``;
    ``skew(ax, ay)`` is ``matrix(1 tan(ay) tan(ax) 1 0 0)``. ``none`` (and ``initial``,
    ``unset``) is "" (no transform: the property overrides the attribute). Both apply about the same
    origin (``transform-origin``, initially ``0 0`` for SVG elements, CSS Transforms 1, 6), so the
    result is exact.

    Raises:
        ValueError: what has no SVG 1.1 equivalent, with the reason: a 3D function
            (``translate3d``, ``rotateX``, ``perspective``...), a percentage (relative to the
            element's box) or relative unit (``em``), ``inherit``, anything unparseable.
    """
    tokens = [t for t in tinycss2.parse_component_value_list(value, skip_comments=True)
              if t.type != "whitespace"]
    if len(tokens) == 1 and tokens[0].type == "ident" and tokens[0].lower_value in ("none", "initial", "unset"):
        return ""
    out = []
    for token in tokens:
        if token.type != "function" or token.lower_name not in _CSS_FUNCTIONS:
            name = token.lower_name + "()" if token.type == "function" else tinycss2.serialize([token])
            raise ValueError(f"{name} has no 2D SVG equivalent")
        kind, fewest, most = _CSS_FUNCTIONS[token.lower_name]
        args = [a for a in token.arguments if a.type not in ("whitespace", "comment")
                and not (a.type == "literal" and a.value == ",")]
        if not fewest <= len(args) <= most:
            raise ValueError(f"{token.lower_name}() takes {fewest}" + (f" to {most}" if most > fewest else "")
                             + f" arguments, not {len(args)}")
        v = [_css_argument(a, kind) for a in args]
        name = token.lower_name
        if name == "skew":
            ax, ay = math.radians(v[0]), math.radians(v[1] if len(v) > 1 else 0.0)
            v, name = [1.0, math.tan(ay), math.tan(ax), 1.0, 0.0, 0.0], "matrix"
        elif name in ("translatex", "translatey", "scalex", "scaley"):
            one = 0.0 if name.startswith("translate") else 1.0
            v = [v[0], one] if name.endswith("x") else [one, v[0]]
            name = name[:-1]
        elif name in ("skewx", "skewy"):
            name = "skew" + name[-1].upper()
        out.append(f"{name}({' '.join(f'{x:.15g}' for x in v)})")
    if not out:
        raise ValueError(f"{value!r} is not a transform")
    return " ".join(out)
