"""Geometry stage: resolve every element of a figure into a box in canvas pt.

Box model: a :class:`Box` is the rectangle an element occupies, top-left
(x_pt, y_pt), y down, with anchors at compass fractions of it
(:data:`composer.model.COMPASS`). An element is placed by putting one of its
anchors (``anchor``; a panel always uses ``nw``) at a position; a position is
an absolute point or an anchor of another element, plus an offset. Positions
are resolved on demand, so elements may be declared in any order; a cycle of
references is an error naming its elements.

Data anchors published by renderers (panel pt) are moved onto the canvas by
their panel's box, so ``fmap.pixel`` is a canvas point like ``fmap.e``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .errors import LayoutError
from .model import COMPASS, Figure, Position


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in canvas pt (top-left corner, y down)."""

    x_pt: float
    y_pt: float
    width_pt: float
    height_pt: float

    def anchor(self, name: str) -> tuple[float, float]:
        """The canvas point of a compass anchor (``n``, ``se``, ``center``...)."""
        fx, fy = COMPASS[name]
        return self.x_pt + fx * self.width_pt, self.y_pt + fy * self.height_pt

    @classmethod
    def placed(cls, point: tuple[float, float], anchor: str, width_pt: float, height_pt: float) -> "Box":
        """The box of the given size whose ``anchor`` sits at ``point``."""
        fx, fy = COMPASS[anchor]
        return cls(point[0] - fx * width_pt, point[1] - fy * height_pt, width_pt, height_pt)


@dataclass(frozen=True)
class Geometry:
    """Every resolved box and connector route of a figure.

    Attributes:
        panels: panel name -> box.
        texts: one box per ``[[text]]``, in declaration order.
        shapes: one box per ``[[shape]]``.
        arrows: one route per ``[[arrow]]``: its points, start to end (pt).
        data_anchors: (panel, name) -> canvas point.
    """

    panels: dict[str, Box]
    texts: tuple[Box, ...]
    shapes: tuple[Box, ...]
    arrows: tuple[tuple[tuple[float, float], ...], ...]
    data_anchors: dict[tuple[str, str], tuple[float, float]]


def resolve(figure: Figure, text_sizes: list[tuple[float, float]],
            data_anchors: Mapping[str, Mapping[str, tuple[float, float]]], *, file: str) -> Geometry:
    """Place every element.

    Args:
        figure: the loaded layout.
        text_sizes: (width_pt, height_pt) of each ``[[text]]`` block, typeset.
        data_anchors: panel name -> {anchor name: (x_pt, y_pt) in panel coordinates}.
        file: the layout file, for errors.

    Raises:
        LayoutError: a reference to a data anchor the renderer did not publish
            (lists those it did), or a cycle of references.
    """
    sizes: dict[str, tuple[str, tuple[float, float], str, Position]] = {}
    for panel in figure.panels:
        sizes[panel.name] = ("panel", panel.size_pt, "nw", panel.at)
    for i, shape in enumerate(figure.shapes):
        sizes[shape.name or f"#shape{i}"] = ("shape", shape.size_pt, shape.anchor, shape.at)
    for i, text in enumerate(figure.texts):
        sizes[text.name or f"#text{i}"] = ("text", text_sizes[i], text.anchor, text.at)

    boxes: dict[str, Box] = {}
    resolving: list[str] = []

    def box(name: str) -> Box:
        if name in boxes:
            return boxes[name]
        if name in resolving:
            cycle = resolving[resolving.index(name):] + [name]
            raise LayoutError(f"placement refers to itself: {' -> '.join(cycle)}", file=file,
                              key=sizes[name][3].key)
        resolving.append(name)
        _, size, anchor, at = sizes[name]
        boxes[name] = Box.placed(point(at), anchor, *size)
        resolving.pop()
        return boxes[name]

    canvas_anchors = {(panel, name): pt for panel, found in data_anchors.items() for name, pt in found.items()}

    def point(pos: Position) -> tuple[float, float]:
        if pos.ref is None:
            return pos.x_pt + pos.dx_pt, pos.y_pt + pos.dy_pt
        element, anchor = pos.ref
        target = box(element)
        if anchor in COMPASS:
            x, y = target.anchor(anchor)
        elif (element, anchor) in canvas_anchors:
            lx, ly = canvas_anchors[(element, anchor)]
            x, y = target.x_pt + lx, target.y_pt + ly
        else:
            published = sorted(data_anchors.get(element, {}))
            raise LayoutError(f"{element + '.' + anchor!r} is not an anchor of {element!r}; valid anchors are "
                              f"{', '.join([*COMPASS, *published])}", file=file, key=pos.key)
        return x + pos.dx_pt, y + pos.dy_pt

    for name in sizes:
        box(name)
    arrows = tuple(route(point(a.start), point(a.end), a.route) for a in figure.arrows)
    placed = {(p, n): (boxes[p].x_pt + x, boxes[p].y_pt + y) for (p, n), (x, y) in canvas_anchors.items()}
    return Geometry(
        panels={p.name: boxes[p.name] for p in figure.panels},
        texts=tuple(boxes[t.name or f"#text{i}"] for i, t in enumerate(figure.texts)),
        shapes=tuple(boxes[s.name or f"#shape{i}"] for i, s in enumerate(figure.shapes)),
        arrows=arrows,
        data_anchors=placed,
    )


def route(start: tuple[float, float], end: tuple[float, float], kind: str) -> tuple[tuple[float, float], ...]:
    """The points of a connector route (schemdraw's ``Wire`` shapes).

    ``straight``: start, end. ``-|``: horizontal from start, then vertical to
    end. ``|-``: vertical first, then horizontal. Every segment of an elbow is
    axis-parallel; a degenerate elbow (start and end aligned) collapses to a
    straight segment.
    """
    if kind == "straight" or start[0] == end[0] or start[1] == end[1]:
        return start, end
    corner = (end[0], start[1]) if kind == "-|" else (start[0], end[1])
    return start, corner, end
