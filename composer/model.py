"""The typed figure model: what a layout file means, with every length in pt.

Built by :func:`composer.layout.load_layout`; all dataclasses are frozen so a
loaded figure can be hashed, cached and shared between stages. Coordinates are
canvas points measured from the canvas's top-left corner, x to the right and
y downwards (the SVG convention).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: compass anchors every element has; (fx, fy) as fractions of the box,
#: from its top-left corner, y down.
COMPASS: dict[str, tuple[float, float]] = {
    "nw": (0.0, 0.0), "n": (0.5, 0.0), "ne": (1.0, 0.0),
    "w": (0.0, 0.5), "center": (0.5, 0.5), "e": (1.0, 0.5),
    "sw": (0.0, 1.0), "s": (0.5, 1.0), "se": (1.0, 1.0),
}

ROUTES = ("straight", "-|", "|-")
HEADS = ("end", "start", "both", "none")
WEIGHTS = ("normal", "bold")
STYLES = ("normal", "italic")
ALIGNS = ("left", "center", "right")
SHAPE_KINDS = ("rect", "circle")


@dataclass(frozen=True)
class Position:
    """A point on the canvas: absolute, or an anchor of another element.

    Attributes:
        x_pt, y_pt: absolute canvas point (used when ``ref`` is None).
        ref: ``(element, anchor)`` such as ``("rgb", "e")`` or a data anchor
            ``("fmap", "pixel")``; resolved by :mod:`composer.geometry`.
        dx_pt, dy_pt: offset added after resolving, +y down.
        key: the layout key path this came from, for error messages.
    """

    x_pt: float = 0.0
    y_pt: float = 0.0
    ref: tuple[str, str] | None = None
    dx_pt: float = 0.0
    dy_pt: float = 0.0
    key: str = ""


@dataclass(frozen=True)
class TextStyle:
    """Font settings of one piece of canvas text. Sizes in pt; colour as ``#rrggbb``."""

    font: str
    size_pt: float
    weight: str = "normal"
    style: str = "normal"
    color: str = "#000000"
    opacity: float = 1.0


@dataclass(frozen=True)
class FigureSpec:
    """The ``[figure]`` table.

    Attributes:
        width_pt, height_pt: canvas size.
        width_text, height_text: the sizes as written (e.g. ``"180mm"``), kept
            for the SVG root's ``width``/``height`` so the file states the
            layout's own unit.
        font, font_size_pt: default text font, used on the canvas and, through
            rcParams, in every matplotlib panel.
        background: ``#rrggbb`` painted as a rect, or None for ``"none"``.
        data: the figure's data file (absolute path) or None.
        params: shared parameters passed to every renderer and ``values()``
            that accepts them.
        label: style of panel labels; label_offset_pt: the label's lower-left
            corner relative to the panel's top-left corner (+y down).
        raster_ppi: pixels per inch, at final size, of images that matplotlib
            embeds in panels (``imshow``, ``rasterized=True`` artists).
    """

    width_pt: float
    height_pt: float
    width_text: str
    height_text: str
    font: str
    font_size_pt: float
    background: str | None
    data: Path | None
    params: dict[str, Any]
    label: TextStyle
    label_offset_pt: tuple[float, float]
    raster_ppi: float = 300.0


@dataclass(frozen=True)
class Panel:
    """One ``[panels.NAME]`` table.

    Attributes:
        name: the table name; element ids derive from it.
        kind: ``"render"`` (a matplotlib function), ``"svg"`` or ``"image"``.
        source: ``"module:function"`` for render panels, else the file path.
        at: top-left corner; size_pt: (width, height) of the box.
        label, title: panel label (``"a"``) and the title drawn after it.
        params: keyword arguments for the renderer.
        data: a panel-specific data file overriding the figure's, or None.
    """

    name: str
    kind: str
    source: str | Path
    at: Position
    size_pt: tuple[float, float]
    label: str | None = None
    title: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    data: Path | None = None
    key: str = ""


@dataclass(frozen=True)
class Text:
    """One ``[[text]]`` entry: a block of one or more lines (``\\n``).

    ``text`` may hold ``{name:format}`` fields (filled from ``values()`` and
    scalar data) and ``$...$`` mathtext. ``anchor`` names the point of the text
    block that sits at ``at``.
    """

    text: str
    at: Position
    anchor: str
    style: TextStyle
    align: str | None = None
    name: str | None = None
    key: str = ""


@dataclass(frozen=True)
class Shape:
    """One ``[[shape]]`` entry: a rect (optionally rounded) or a circle node.

    For a rect, ``at`` is the point where ``anchor`` of the box sits and
    size_pt its size; for a circle, size_pt is (2r, 2r).
    """

    kind: str
    at: Position
    anchor: str
    size_pt: tuple[float, float]
    name: str | None = None
    corner_pt: float = 0.0
    fill: str | None = None
    stroke: str | None = "#000000"
    stroke_width_pt: float = 0.5
    dash: bool = False
    opacity: float = 1.0
    text: str | None = None
    text_style: TextStyle | None = None
    key: str = ""


@dataclass(frozen=True)
class Arrow:
    """One ``[[arrow]]`` entry: a connector between two points.

    ``route`` is ``straight``, ``-|`` (horizontal then vertical) or ``|-``;
    gap_pt is left free at both ends so the head does not touch its target.
    """

    start: Position
    end: Position
    route: str = "straight"
    color: str = "#000000"
    width_pt: float = 0.75
    head: str = "end"
    head_length_pt: float = 4.0
    head_width_pt: float = 3.2
    gap_pt: float = 1.0
    dash: bool = False
    key: str = ""


@dataclass(frozen=True)
class Figure:
    """A whole loaded layout: the spec, its elements, and where it came from."""

    name: str
    path: Path
    spec: FigureSpec
    panels: tuple[Panel, ...]
    texts: tuple[Text, ...]
    shapes: tuple[Shape, ...]
    arrows: tuple[Arrow, ...]

    def element_names(self) -> list[str]:
        """Names an arrow or text may refer to, in declaration order."""
        names = [p.name for p in self.panels]
        names += [s.name for s in self.shapes if s.name]
        names += [t.name for t in self.texts if t.name]
        return names
