"""Shape kinds: one class per ``[[shape]] kind``, owning its keys, anchors, size and drawing.

As schemdraw's elements define their own anchors and drawing, a
:class:`ShapeKind` says everything that depends on the kind: whether it is
placed like a panel (a box) or drawn through points, the keys it takes
(``radius``, ``corner``, ``side``/``depth``, ``symbol``, ``fill``, a text),
how a text it holds sets its size, how far its ink reaches past its points,
its anchors, and its drawing, as SVG data: ``(tag, attributes)``, which the
draw stage turns into elements and paints with the shape's fill and stroke.
The loader, the typeset, geometry and draw stages and the check ask the class
(:data:`SHAPES`) instead of comparing the kind's name.

A new kind is a subclass here registered in :data:`SHAPES` (its tests and its
line in the README's ``[[shape]]`` reference beside it: docs/design.md,
Extension points). This module is standard library only and knows no
figure's model: a shape is read through the attributes the model's ``Shape``
has (``depth_pt``, ``side``, ``corner_pt``), a box through ``x_pt``,
``y_pt``, ``width_pt``, ``height_pt`` and ``anchor(name)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from composer.kinds import Registry
from composer.units import fmt

Point = tuple[float, float]


class BoxLike(Protocol):
    """A box in canvas pt (:class:`composer.stages.geometry.Box`)."""

    @property
    def x_pt(self) -> float: ...

    @property
    def y_pt(self) -> float: ...

    @property
    def width_pt(self) -> float: ...

    @property
    def height_pt(self) -> float: ...

    def anchor(self, name: str) -> Point: ...


@dataclass(frozen=True)
class Drawn:
    """One SVG element of a shape's drawing, as data.

    Attributes:
        tag: the SVG element's local name (``"rect"``, ``"path"``).
        attributes: its geometry, in the order written.
        filled: painted with the shape's ``fill`` (else ``fill="none"``: a stroke).
        after: attributes written after the paint (``stroke-linejoin``).
    """

    tag: str
    attributes: tuple[tuple[str, str], ...]
    filled: bool
    after: tuple[tuple[str, str], ...] = ()


class ShapeKind:
    """A kind of ``[[shape]]``. Subclasses set the class attributes and draw.

    Attributes:
        name: the ``kind`` value (``"rect"``).
        plural: the name in messages listing kinds (``"lines"``).
        boxed: placed like a panel (``at``, ``cell``, a relation), with a box and its anchors; else
            drawn through its ``points`` (no box, no anchors).
        default_anchor: a boxed kind's own anchor placed at ``at`` when ``anchor`` is not given.
        radius: sized by ``radius`` (a circle) instead of ``size``/``width``/``height``.
        rounds: takes ``corner``.
        bulges: takes ``side`` and ``depth`` (a brace, a bracket).
        symbol: takes ``symbol`` (``+`` of a sum node).
        points: (fewest, most) ``points`` of a kind drawn through them (None: no most).
        wraps: a text it holds wraps to its width less the padding.
        text_grow: a text it holds is this much smaller than the room inside it (an ellipse around a
            w x h text is sqrt(2) w x sqrt(2) h: the text's corners on the ellipse).
        square: its fitted box is square (a circle).
    """

    name: ClassVar[str]
    plural: ClassVar[str]
    boxed: ClassVar[bool] = True
    default_anchor: ClassVar[str | None] = None
    radius: ClassVar[bool] = False
    rounds: ClassVar[bool] = False
    bulges: ClassVar[bool] = False
    symbol: ClassVar[bool] = False
    points: ClassVar[tuple[int, int | None]] = (0, 0)
    wraps: ClassVar[bool] = False
    text_grow: ClassVar[float] = 1.0
    square: ClassVar[bool] = False

    def anchor(self, box: BoxLike, name: str) -> Point:
        """The point of anchor ``name`` of a boxed shape placed in ``box`` (default: the box's compass
        anchors and ``side@fraction``; a kind whose anchors lie elsewhere overrides it)."""
        return box.anchor(name)

    def reach_pt(self, shape: Any) -> float:
        """How far (pt) its ink reaches past its points, beyond half its stroke (a brace: its depth)."""
        return 0.0

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        """Its drawing in ``box`` (a boxed kind) or through ``points`` (canvas pt), as SVG data."""
        raise NotImplementedError


class Rect(ShapeKind):
    """A box, corners rounded by ``corner``; a text in it wraps to its width."""

    name, plural, default_anchor, rounds, wraps = "rect", "rects", "nw", True, True

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        assert box is not None
        geometry = [("x", fmt(box.x_pt)), ("y", fmt(box.y_pt)), ("width", fmt(box.width_pt)),
                    ("height", fmt(box.height_pt))]
        if shape.corner_pt:
            geometry += [("rx", fmt(shape.corner_pt)), ("ry", fmt(shape.corner_pt))]
        return (Drawn("rect", tuple(geometry), filled=True),)


class Ellipse(ShapeKind):
    """An ellipse filling its box; may hold a symbol."""

    name, plural, default_anchor, symbol, text_grow = "ellipse", "ellipses", "center", True, math.sqrt(2)

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        assert box is not None
        cx, cy = box.anchor("center")
        return (Drawn("ellipse", (("cx", fmt(cx)), ("cy", fmt(cy)), ("rx", fmt(box.width_pt / 2)),
                                  ("ry", fmt(box.height_pt / 2))), filled=True),)


class Circle(Ellipse):
    """A circle of ``radius`` (a fitted one is square); may hold a symbol."""

    name, plural, radius, square = "circle", "circles", True, True

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        assert box is not None
        cx, cy = box.anchor("center")
        return (Drawn("circle", (("cx", fmt(cx)), ("cy", fmt(cy)), ("r", fmt(box.width_pt / 2))), filled=True),)


def poly_d(points: Sequence[Point]) -> str:
    """The path data of a polyline through ``points``: ``M x y L x y ...``."""
    return "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in points)


class Line(ShapeKind):
    """A polyline through 2 or more points, joins rounded."""

    name, plural, boxed, points = "line", "lines", False, (2, None)

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        return (Drawn("path", (("d", poly_d(points)),), filled=False, after=(("stroke-linejoin", "round"),)),)


def brace_d(a: Point, b: Point, depth_pt: float, side: str, *, curly: bool) -> str:
    """A curly brace (or square bracket) from ``a`` to ``b`` whose tip points
    ``depth_pt`` to the ``side`` (left or right of the direction a -> b)."""
    ux, uy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(ux, uy) or 1.0
    ux, uy = ux / length, uy / length
    nx, ny = (uy, -ux) if side == "left" else (-uy, ux)

    def at(p: Point, along: float, out: float) -> str:
        return f"{fmt(p[0] + ux * along + nx * out)} {fmt(p[1] + uy * along + ny * out)}"

    if not curly:
        return f"M{at(a, 0, 0)} L{at(a, 0, depth_pt)} L{at(b, 0, depth_pt)} L{at(b, 0, 0)}"
    h, q = depth_pt / 2, min(depth_pt, length / 4)
    m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
    return (f"M{at(a, 0, 0)} Q{at(a, 0, h)} {at(a, q, h)} L{at(m, -q, h)} Q{at(m, 0, h)} {at(m, 0, depth_pt)} "
            f"Q{at(m, 0, h)} {at(m, q, h)} L{at(b, -q, h)} Q{at(b, 0, h)} {at(b, 0, 0)}")


class Brace(ShapeKind):
    """A curly brace from one point to another, bulging ``depth`` to its ``side``."""

    name, plural, boxed, bulges, points = "brace", "braces", False, True, (2, 2)
    curly: ClassVar[bool] = True

    def reach_pt(self, shape: Any) -> float:
        return float(shape.depth_pt)

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        d = brace_d(points[0], points[1], shape.depth_pt, shape.side, curly=self.curly)
        return (Drawn("path", (("d", d),), filled=False),)


class Bracket(Brace):
    """A square bracket from one point to another, ``depth`` deep to its ``side``."""

    name, plural, curly = "bracket", "brackets", False


#: every shape kind, by its ``kind`` value, in the order the reference lists them (the first: the default)
SHAPES: Registry[ShapeKind] = Registry("shape kind")
for _kind in (Rect(), Circle(), Ellipse(), Line(), Brace(), Bracket()):
    SHAPES.add(_kind)


def listed(kinds: Sequence[ShapeKind], word: str = "and", *, plural: bool = True) -> str:
    """``kinds`` in words for a message: ``lines, braces and brackets``; ``a brace or bracket``
    (``plural=False``: names, the first with its article)."""
    names = [k.plural if plural else k.name for k in kinds]
    text = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"
    return text if plural else a(text)


def a(name: str) -> str:
    """``name`` with its indefinite article: ``a circle``, ``an ellipse``."""
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def with_(attribute: str) -> tuple[ShapeKind, ...]:
    """The registered kinds whose class attribute ``attribute`` is true (``"bulges"``: brace, bracket)."""
    return tuple(k for k in SHAPES if getattr(k, attribute))
