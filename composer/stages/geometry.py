"""Geometry stage: resolve every element of a figure into a box in canvas pt.

Box model (documented before the code, as matplotlib's ``_layoutgrid`` does):

- A :class:`Box` is the rectangle an element occupies, top-left (x_pt, y_pt),
  y down, with compass anchors at fractions of it
  (:data:`composer.layout.model.COMPASS`) and points along a side (``e@0.25``: a
  quarter of the way down the east side; n/s sides run left to right, e/w
  sides top to bottom).
- An element is placed in one of two ways: one of its anchors sits at a
  position (``at``; relative placements such as ``right_of`` compile to this),
  or it fills a cell area of a mosaic grid (``cell``).
- A position is an absolute point or an anchor of another element (or of
  ``canvas``, the whole canvas), plus an offset. Positions resolve on demand, so elements may be declared in any
  order; a cycle of references is an error naming its elements.
- A grid's box is the canvas inside the figure margin (``[grid]``) or placed
  like any element (``[grids.NAME]``, nesting). Its columns are fixed lengths
  or ratios of what the fixed columns and gutters leave; rows likewise. An
  area's box spans its cells and the gutters between them.
- Data anchors published by renderers (panel pt) move onto the canvas with
  their panel's box, so ``fmap.pixel`` is a canvas point like ``fmap.e``.
- An element of an imported SVG panel (``schem#sensor``) has as box its bounding
  box in the file's user units (:func:`composer.svg.elements.element_boxes`:
  transforms applied, stroke excluded), mapped onto the canvas exactly as the
  panel's content is drawn (:func:`composer.svg.viewbox.place`: the viewBox
  scaled into the panel's box as ``preserveAspectRatio`` says, ``slice`` drawn
  as ``meet``); known once the file is read, so, like a data anchor, only
  annotations may refer to it.
- Panels may not overlap one another unless one is marked ``overlap = true``.
- A text turned by ``rotate`` occupies the axis-aligned box of its turned block
  (:func:`turned_size`): that box is placed, referred to and checked.
- A text ``beside`` panels is centred on the union of their plot areas (each
  panel's axes as rendered, or its box), ``gap`` outside that union on its
  ``side``, touching it with its own facing side (``e`` for ``left``); it is
  known only after rendering, so no panel or grid may be placed relative to it.
- A guide (``[[legend]]``, :mod:`composer.stages.guides`) is drawn at its natural size from what its
  panels report, so like a ``beside`` text it is known only after rendering (``guide_sizes``) and
  no panel or grid may be placed relative to it. Placed by ``at`` or a relation it is a box of that
  size; in a cell it is centred in the cell, which must hold it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lxml import etree

from composer.errors import LayoutError, SvgError, did_you_mean
from composer.kinds.shapes import SHAPES
from composer.layout import sources
from composer.layout.model import COMPASS, Align, Figure, Grid, Placement, Position
from composer.layout.vocabulary import COMPASS_WORDS
from composer.svg.elements import element_boxes
from composer.svg.geometry import BBox, overlap
from composer.svg.io import parse_svg
from composer.svg.viewbox import ViewBox, view_box
from composer.svg.viewbox import place as place_view_box
from composer.units import amount, say, say_pair

Point = tuple[float, float]


@dataclass(frozen=True)
class Box:
    """An axis-aligned rectangle in canvas pt (top-left corner, y down)."""

    x_pt: float
    y_pt: float
    width_pt: float
    height_pt: float

    def anchor(self, name: str) -> Point:
        """The canvas point of a compass anchor (``n``, ``se``, ``center``) or ``side@fraction``."""
        if "@" in name:
            side, _, fraction = name.partition("@")
            f = float(fraction)
            return {"n": (self.x_pt + f * self.width_pt, self.y_pt),
                    "s": (self.x_pt + f * self.width_pt, self.y_pt + self.height_pt),
                    "w": (self.x_pt, self.y_pt + f * self.height_pt),
                    "e": (self.x_pt + self.width_pt, self.y_pt + f * self.height_pt)}[side]
        fx, fy = COMPASS[name]
        return self.x_pt + fx * self.width_pt, self.y_pt + fy * self.height_pt

    @classmethod
    def placed(cls, point: Point, anchor: str, width_pt: float, height_pt: float) -> Box:
        """The box of the given size whose compass ``anchor`` sits at ``point``."""
        fx, fy = COMPASS[anchor]
        return cls(point[0] - fx * width_pt, point[1] - fy * height_pt, width_pt, height_pt)

    @classmethod
    def spanning(cls, boxes: list[Box]) -> Box:
        """The smallest box holding every one of ``boxes`` (at least one)."""
        x0, y0 = min(b.x_pt for b in boxes), min(b.y_pt for b in boxes)
        x1 = max(b.x_pt + b.width_pt for b in boxes)
        y1 = max(b.y_pt + b.height_pt for b in boxes)
        return cls(x0, y0, x1 - x0, y1 - y0)

    def overlap_pt(self, other: Box) -> tuple[float, float]:
        """Width and height of the intersection with ``other`` (0 when apart)."""
        w, h = overlap((self.x_pt, self.y_pt, self.x_pt + self.width_pt, self.y_pt + self.height_pt),
                       (other.x_pt, other.y_pt, other.x_pt + other.width_pt, other.y_pt + other.height_pt))
        return max(w, 0.0), max(h, 0.0)


@dataclass(frozen=True)
class Route:
    """A connector's path: a polyline through ``points``, or with ``curve`` a
    quadratic Bezier ``points[0]``, control ``points[1]``, ``points[2]``."""

    points: tuple[Point, ...]
    curve: bool = False


@dataclass(frozen=True)
class Geometry:
    """Every resolved box and connector route of a figure.

    Attributes:
        panels: panel name -> box.
        texts: one box per ``[[text]]``, in declaration order.
        shapes: one box per boxed ``[[shape]]`` (None for lines and braces).
        shape_points: the resolved points of each ``[[shape]]`` (lines, braces).
        arrows: one route per ``[[arrow]]``.
        grids: grid name -> box; cells: (grid, area) -> box.
        data_anchors: (panel, name) -> canvas point.
        plot_areas: panel name -> its plot area on the canvas: the union of its
            axes as rendered (:attr:`composer.stages.render.RenderedPanel.plot_area`),
            or its box for an SVG or image panel, one with no axes, or before rendering.
    """

    panels: dict[str, Box]
    texts: tuple[Box, ...]
    shapes: tuple[Box | None, ...]
    shape_points: tuple[tuple[Point, ...], ...]
    arrows: tuple[Route, ...]
    grids: dict[str, Box]
    cells: dict[tuple[str, str], Box]
    data_anchors: dict[tuple[str, str], Point]
    plot_areas: dict[str, Box] = field(default_factory=dict)
    #: one box per guide (``Figure.guides`` order), None for a guide not drawn yet
    guides: tuple[Box | None, ...] = ()


@dataclass(frozen=True)
class ImportedSvg:
    """What anchors on an svg panel's elements need of its file.

    Attributes:
        view_box: the document's viewBox (user units).
        aspect: its root ``preserveAspectRatio`` (None: ``xMidYMid meet``).
        boxes: element id -> (x0, y0, x1, y1) in user units
            (:func:`composer.svg.elements.element_boxes`).
        shown: the file as the layout names it, for messages.
        unmeasured: id -> tag of the file's other id'd elements (texts, ``<use>``, defs), for messages.
    """

    view_box: ViewBox
    aspect: str | None
    boxes: Mapping[str, BBox]
    shown: str
    unmeasured: Mapping[str, str] = field(default_factory=dict)


#: ids listed in full in an unknown-id error before "... and N more"
MAX_IDS_SHOWN = 12


def imported_svgs(figure: Figure, documents: Mapping[str, bytes], *, every: bool = False) -> dict[str, ImportedSvg]:
    """The :class:`ImportedSvg` of every svg panel a ``"panel#id"`` point refers to (others are not read).

    Args:
        figure: the loaded layout.
        documents: panel name -> the svg panel's file bytes (sanitized, as composed).
        every: of every svg panel instead (the ids a file offers, for ``--debug``).

    Raises:
        SvgError: a referred file that cannot be parsed, has no usable viewBox, or a broken ``transform``.
    """
    refs = [a.start for a in figure.arrows] + [a.end for a in figure.arrows]
    refs += [v for a in figure.arrows for v in a.via] + [p for s in figure.shapes for p in s.points]
    places = [p.place for p in figure.panels] + [t.place for t in figure.texts]
    places += [s.place for s in figure.shapes if s.place] + [g.place for g in figure.grids]
    places += [g.place for g in figure.guides]
    refs += [p.at for p in places if p.at is not None]
    wanted = {pos.ref[0].partition("#")[0] for pos in refs if pos.ref is not None and "#" in pos.ref[0]}
    found = {}
    for panel in figure.panels:
        if (every or panel.name in wanted) and sources.table(panel.kind).element_ids and panel.name in documents:
            shown = os.path.relpath(panel.source, figure.path.parent)  # as compose names it
            root = parse_svg(documents[panel.name], source=shown)
            try:
                boxes = element_boxes(root)
            except ValueError as exc:
                raise SvgError(f"a transform cannot be read: {exc}", file=shown) from None
            unmeasured = {el.get("id"): etree.QName(el).localname for el in root.iter()
                          if isinstance(el.tag, str) and el.get("id") and el.get("id") not in boxes}
            found[panel.name] = ImportedSvg(view_box(root, source=shown), root.get("preserveAspectRatio"),
                                            boxes, shown, unmeasured)
    return found


def element_canvas_box(svg: ImportedSvg, panel_box: Box, ident: str) -> Box:
    """The canvas box (pt) of the element ``ident`` of an imported file (a key of ``svg.boxes``) drawn in
    ``panel_box``, where :func:`composer.svg.viewbox.place` draws the file's viewBox (``contain``, the
    file's ``preserveAspectRatio``)."""
    vb = svg.view_box
    x_pt, y_pt, w_pt, h_pt = place_view_box(etree.Element("g"), vb, x_pt=panel_box.x_pt, y_pt=panel_box.y_pt,
                                            width_pt=panel_box.width_pt, height_pt=panel_box.height_pt,
                                            fit="contain", aspect=svg.aspect)
    sx, sy = w_pt / vb.width, h_pt / vb.height
    x0, y0, x1, y1 = svg.boxes[ident]
    return Box(x_pt + (x0 - vb.x) * sx, y_pt + (y0 - vb.y) * sy, (x1 - x0) * sx, (y1 - y0) * sy)


#: an id an editor or exporter numbered (Inkscape's ``path35``, ``g50``, ``layer1``; ``rect-3``): it names
#: no part of the drawing, so ``--debug`` counts such ids rather than marking each
GENERIC_ID = re.compile(
    r"(?:svg|g|path|rect|circle|ellipse|line|polyline|polygon|text|tspan|use|image|defs|clippath|mask|marker|"
    r"pattern|lineargradient|radialgradient|stop|filter|fe[a-z]+|symbol|layer|metadata|namedview|title|desc|style|"
    r"flowroot|flowregion|flowpara|switch|foreignobject|a)[-_]?\d+(?:[-_.]\d+)*", re.IGNORECASE)


def offered_ids(svg: ImportedSvg) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ids of an imported file's drawn elements that ``"panel#id"`` points may name, in document order:
    (those written by hand, the generic ones :data:`GENERIC_ID` matches)."""
    named = tuple(i for i in svg.boxes if not GENERIC_ID.fullmatch(i))
    return named, tuple(i for i in svg.boxes if GENERIC_ID.fullmatch(i))


def turned_size(width_pt: float, height_pt: float, rotate_deg: float) -> tuple[float, float]:
    """(width, height) pt of the axis-aligned box around a ``width_pt`` x ``height_pt`` box turned by
    ``rotate_deg``: ``w |cos| + h |sin|`` by ``w |sin| + h |cos|``. Multiples of 90 degrees are exact
    (90: the sides swap)."""
    if rotate_deg % 180 == 0:
        return width_pt, height_pt
    if rotate_deg % 90 == 0:
        return height_pt, width_pt
    c, s = abs(math.cos(math.radians(rotate_deg))), abs(math.sin(math.radians(rotate_deg)))
    return width_pt * c + height_pt * s, width_pt * s + height_pt * c


def content_bottom_pt(figure: Figure, geometry: Geometry) -> float:
    """The lowest point (pt from the canvas top) of the figure's ink: the bottom of every panel, text,
    guide and grid box, of every boxed shape plus half its stroke (SVG strokes are centred on the
    outline), every point of a line, brace (plus its depth) or connector route (a connector's head and
    a line's stroke stay within half its width of those points, also counted). What ``compose check``'s
    ``outside-canvas`` measures stays inside it. 0 for an empty figure."""
    bottoms = [b.y_pt + b.height_pt for b in (*geometry.panels.values(), *geometry.texts, *geometry.grids.values())]
    bottoms += [b.y_pt + b.height_pt for b in geometry.guides if b is not None]
    for shape, box in zip(figure.shapes, geometry.shapes):
        if box is not None:  # a stroke is centred on the box's outline: half of it lies outside
            bottoms.append(box.y_pt + box.height_pt + (shape.stroke_width_pt / 2 if shape.stroke else 0.0))
    for shape, points in zip(figure.shapes, geometry.shape_points):
        reach = SHAPES[shape.kind].reach_pt(shape)  # a brace's depth
        bottoms += [y + reach + shape.stroke_width_pt / 2 for _, y in points]
    for arrow, route in zip(figure.arrows, geometry.arrows):
        reach = max(arrow.width_pt, arrow.head_width_pt) / 2
        bottoms += [y + reach for _, y in route.points]
    return max(bottoms, default=0.0)


#: ``[panels.NAME] align`` of an aspect-locked panel in a cell -> (x, y) fraction of the room left
#: on each axis that goes before the box (0: flush left / top, 1: flush right / bottom).
ASPECT_ALIGN = {"center": (0.5, 0.5), "top": (0.5, 0.0), "bottom": (0.5, 1.0), "left": (0.0, 0.5),
                "right": (1.0, 0.5)}


def inside(outer: Box, width_pt: float, height_pt: float, align: str = "center", *,
           anchor: str | None = None) -> Box:
    """A ``width_pt`` x ``height_pt`` box inside ``outer`` (no larger): the room left on each axis is
    shared as ``align`` says (:data:`ASPECT_ALIGN`: ``top`` puts it flush with the top of ``outer``),
    or, given ``anchor`` (a compass anchor), the box's ``anchor`` sits at ``outer``'s (``nw``: the same
    top-left corner), as a box placed at a point keeps that point."""
    fx, fy = COMPASS[anchor] if anchor is not None else ASPECT_ALIGN[align]
    return Box(outer.x_pt + fx * (outer.width_pt - width_pt), outer.y_pt + fy * (outer.height_pt - height_pt),
               width_pt, height_pt)


def aspect_box(outer: Box, aspect: float, align: str = "center", *, anchor: str | None = None) -> Box:
    """The largest box of ``aspect`` (width / height, > 0) inside ``outer``, placed by :func:`inside`.

    It fills ``outer``'s width (when ``outer`` is taller than that aspect) or its height.
    """
    return inside(outer, min(outer.width_pt, outer.height_pt * aspect), min(outer.height_pt, outer.width_pt / aspect),
                  align, anchor=anchor)


#: ``[[text]] side`` -> (the text's own anchor facing the panels, the union's side it is placed from)
BESIDE_ANCHORS = {"left": ("e", "w"), "right": ("w", "e"), "above": ("s", "n"), "below": ("n", "s")}


class _NeedsAnchors(Exception):
    """Raised inside :func:`panel_boxes` when a panel's box depends on a data anchor."""


def resolve(figure: Figure, text_sizes: list[tuple[float, float]],
            shape_sizes: list[tuple[float, float] | None] | None,
            data_anchors: Mapping[str, Mapping[str, Point]] | None, *, file: str,
            plot_areas: Mapping[str, tuple[float, float, float, float] | None] | None = None,
            panel_sizes: Mapping[str, tuple[float, float]] | None = None,
            imported: Mapping[str, ImportedSvg] | None = None,
            guide_sizes: list[tuple[float, float] | None] | None = None,
            text_boxes: Mapping[str, tuple[tuple[str, BBox], ...]] | None = None) -> Geometry:
    """Place every element.

    Args:
        figure: the loaded layout.
        text_sizes: (width_pt, height_pt) of each ``[[text]]`` block, typeset.
        shape_sizes: (width_pt, height_pt) of each boxed shape (fitted to its
            text where the layout gave no size), None for lines and braces;
            None for all: take sizes from the layout.
        data_anchors: panel name -> {anchor name: (x_pt, y_pt) in panel
            coordinates}; None when panels are not rendered yet (then a
            reference to a data anchor raises LayoutError).
        file: the layout file, for errors.
        plot_areas: panel name -> (x0, y0, x1, y1) of its plot area in panel pt
            (y down) or None; a panel missing here has its box as plot area.
        panel_sizes: panel name -> (width_pt, height_pt) it was rendered at; used for the panels
            with ``aspect_of = "plot"`` (:func:`composer.stages.aspect.draw_locked` sized them inside
            their cell or ``size``), placed there by :func:`inside`.
        imported: svg panel name -> its :class:`ImportedSvg` (:func:`imported_svgs`), for
            ``"panel#id"`` points; None: such a point raises LayoutError.
        guide_sizes: (width_pt, height_pt) of each guide as drawn (``Figure.guides`` order;
            :func:`composer.stages.guides.draw_guides`), None for one not drawn: placing it, or
            anything relative to it, then raises LayoutError.
        text_boxes: panel name -> its texts as drawn, (the string, its ink box (x0, y0, x1, y1) in panel pt),
            for ``beside`` texts (their gap: clear of them); a panel missing here has none known.

    Raises:
        LayoutError: a reference to a data anchor the renderer did not publish
            (lists those it did), to an id the SVG file does not have (lists
            those it has), a cycle of references, grid tracks that do not fit,
            or panels overlapping.
    """
    return _Resolver(figure, text_sizes, shape_sizes, data_anchors, file, plot_areas, imported,
                     panel_sizes, guide_sizes, text_boxes).run()


def panel_boxes(figure: Figure, text_sizes: list[tuple[float, float]],
                shape_sizes: list[tuple[float, float] | None] | None, *, file: str) -> dict[str, Box]:
    """Panel boxes before rendering (for plot-area alignment).

    Raises:
        LayoutError: a panel is placed relative to a data anchor (only
            annotations may be).
    """
    resolver = _Resolver(figure, text_sizes, shape_sizes, None, file)
    boxes = {p.name: resolver.box(p.name) for p in figure.panels}
    for align in figure.aligns:
        _check_alignment(align, boxes, file)
        _check_unlocked(figure, align, file)
    return boxes


@dataclass(frozen=True)
class Room:
    """The box a guide's placement gives it before it is drawn (:func:`guide_rooms`).

    Attributes:
        width_pt, height_pt: the box (its cell's, or its ``size``).
        along_pt: for a ``[[colorbar]]`` in a cell, the stretch of the cell's length its bar runs along:
            ``(start, end)`` pt from the cell's top (a vertical bar) or left edge (a horizontal one), the span
            of its panels' plot areas on the canvas cut to the cell; None: the whole length (a ``size`` given,
            or plot areas wholly beside the cell).
        natural: a ``[[colorbar]]`` placed by ``at`` or a relation without a ``size``: drawn at its own size,
            its bar along ``along_pt`` (as long as its panels' plot areas span, :data:`NATURAL_END_ROOM` from
            each end of the box for the end tick labels), the box then cut to what it draws across
            (``width_pt``/``height_pt`` across the bar are only room to draw in).
    """

    width_pt: float
    height_pt: float
    along_pt: tuple[float, float] | None = None
    natural: bool = False


#: a colorbar sized from its panels (``Room.natural``): room left past each end of its bar for the end tick
#: labels, in font sizes (a label centred on the end reaches half a line past it)
NATURAL_END_ROOM = 1.0


#: a colorbar's stretch along its panels' plot areas shorter than this (pt) is none (:func:`guide_rooms`)
MIN_ALONG_PT = 1.0

#: a ``beside`` text without ``gap``: the space left between it and the panels' texts it stands beside (pt):
#: matplotlib's default ``axes.labelpad``, 4.0 pt, the space between an axis label and its tick labels
#: (``matplotlib/mpl-data/matplotlibrc``)
BESIDE_PAD_PT = 4.0

#: a ``beside`` text given a ``gap`` overlaps a panel's text when their boxes share more than this (pt) both ways
OVERLAP_SLACK_PT = 0.1


def guide_rooms(figure: Figure, text_sizes: list[tuple[float, float]],
                shape_sizes: list[tuple[float, float] | None] | None, *, file: str,
                plot_areas: Mapping[str, tuple[float, float, float, float] | None] | None = None,
                panel_sizes: Mapping[str, tuple[float, float]] | None = None) -> list[Room | None]:
    """The box each guide's placement gives before it is drawn (``Figure.guides`` order): its cell's, else
    its own ``size`` (a ``[[colorbar]]``), else for a colorbar room to draw at its own size, as long as its
    panels' plot areas span (``Room.natural``), else None (a legend placed at a point has its natural size). A
    colorbar is drawn at this size (:mod:`composer.stages.guides`); one in a cell runs along the span of its
    panels' plot areas (``Room.along_pt``), as matplotlib's ``Figure.colorbar(ax=axes)`` runs along its axes
    (``shrink=1``: as long as their extent).

    Args:
        plot_areas, panel_sizes: as :func:`resolve` takes them (the rendered panels' plot areas in panel pt,
            the sizes aspect-locked panels were drawn at); None: every panel's box is its plot area.

    Raises:
        LayoutError: what resolving a cell raises (its grid cannot be placed).
    """
    resolver = _Resolver(figure, text_sizes, shape_sizes, None, file, plot_areas, panel_sizes=panel_sizes)
    rooms: list[Room | None] = []
    for guide in figure.guides:
        if guide.place.cell is not None:
            cell = resolver.cell(*guide.place.cell, key=guide.place.key)
            along = None
            if guide.kind == "colorbar":
                union = Box.spanning([resolver.plot_area(p) for p in guide.panels])
                if getattr(guide, "orientation", "vertical") == "vertical":
                    start, end = union.y_pt - cell.y_pt, union.y_pt + union.height_pt - cell.y_pt
                    length = cell.height_pt
                else:
                    start, end = union.x_pt - cell.x_pt, union.x_pt + union.width_pt - cell.x_pt
                    length = cell.width_pt
                start, end = max(0.0, start), min(length, end)
                if end - start >= MIN_ALONG_PT:
                    along = (start, end)
            rooms.append(Room(cell.width_pt, cell.height_pt, along))
        elif (size := getattr(guide, "size_pt", None)) is not None:  # a colorbar's
            rooms.append(Room(*size))
        elif guide.kind == "colorbar":  # sized from its panels: as long as their plot areas span
            union = Box.spanning([resolver.plot_area(p) for p in guide.panels])
            vertical = getattr(guide, "orientation", "vertical") == "vertical"
            span = union.height_pt if vertical else union.width_pt
            end = NATURAL_END_ROOM * figure.spec.font_size_pt
            across = max(span, 20 * figure.spec.font_size_pt)  # room to draw in, cut after
            length = span + 2 * end
            rooms.append(Room(across if vertical else length, length if vertical else across, (end, end + span),
                              natural=True))
        else:
            rooms.append(None)
    return rooms


def _check_unlocked(figure: Figure, align: Align, file: str) -> None:
    """Refuse a render panel with ``aspect_of = "plot"`` in an ``[[align]]``: aligning moves its axes,
    which would undo the aspect its box was sized for.

    Raises:
        LayoutError: naming the panel's ``aspect_of`` and the fix.
    """
    for panel in figure.panels:
        if panel.name in align.panels and sources.table(panel.kind).matplotlib and panel.aspect is not None \
                and panel.aspect_of == "plot":
            raise LayoutError(f"panel {panel.name!r} locks its plot area's aspect, which [[align]] would change "
                              "by moving its axes; use aspect_of = \"box\" for aligned panels",
                              file=file, key=f"{panel.key}.aspect_of")


def alignment_groups(align: Align, boxes: Mapping[str, Box]) -> dict[str, list[tuple[str, ...]]]:
    """The panels of an ``[[align]]`` that line up together, per axis.

    ``"x"`` lines up left and right edges within a column: panels whose
    boxes overlap horizontally (transitively) form one group; ``"y"`` lines
    up tops and bottoms within a row (overlapping vertically); ``"both"``
    does both, so an L of three panels aligns its row and its column, as R
    patchwork does.

    Returns:
        ``{"x": [group, ...], "y": [...]}`` for the axes asked; each group
        is a tuple of panel names in ``align.panels`` order; a panel alone
        in its column (row) is a group of one.
    """
    groups: dict[str, list[tuple[str, ...]]] = {}
    for axis in ("x", "y") if align.axis == "both" else (align.axis,):
        def span(name: str, axis: str = axis) -> tuple[float, float]:
            box = boxes[name]
            return (box.x_pt, box.x_pt + box.width_pt) if axis == "x" else (box.y_pt, box.y_pt + box.height_pt)

        parent = {n: n for n in align.panels}

        def find(n: str, parent: dict[str, str] = parent) -> str:
            while parent[n] != n:
                n = parent[n]
            return n

        for i, a in enumerate(align.panels):
            for b in align.panels[i + 1:]:
                (a0, a1), (b0, b1) = span(a), span(b)
                if min(a1, b1) > max(a0, b0):
                    parent[find(b)] = find(a)
        members: dict[str, list[str]] = {}
        for n in align.panels:
            members.setdefault(find(n), []).append(n)
        groups[axis] = [tuple(m) for m in members.values()]
    return groups


def _check_alignment(align: Align, boxes: Mapping[str, Box], file: str) -> None:
    """Refuse an ``[[align]]`` that would leave a panel unaligned.

    With ``axis = "x"`` every panel must share a column with another panel
    of the group, with ``"y"`` a row; with ``"both"``, a column or a row.
    (Side-by-side panels aligned on x would otherwise be silently left as
    they are.)

    Raises:
        LayoutError: naming the first panel that shares no column / row.
    """
    groups = alignment_groups(align, boxes)
    alone = {axis: {g[0] for g in found if len(g) == 1} for axis, found in groups.items()}
    for name in align.panels:
        if all(name in lonely for lonely in alone.values()):
            what = {"x": "a column", "y": "a row", "both": "a row or a column"}[align.axis]
            hint = {"x": "for panels side by side use axis = \"y\"",
                    "y": "for panels stacked in a column use axis = \"x\"",
                    "both": "remove it from the group"}[align.axis]
            raise LayoutError(f"panel {name!r} shares {what} with no other panel of the group: axis = "
                              f"\"{align.axis}\" lines up the plot areas of panels in {what}; {hint}",
                              file=file, key=f"{align.key}.axis" if align.key else None)


class _Resolver:
    def __init__(self, figure: Figure, text_sizes, shape_sizes, data_anchors, file: str, plot_areas=None,
                 imported: Mapping[str, ImportedSvg] | None = None,
                 panel_sizes=None, guide_sizes: list[tuple[float, float] | None] | None = None,
                 text_boxes: Mapping[str, tuple[tuple[str, BBox], ...]] | None = None):
        self.figure, self.file = figure, file
        self.text_boxes: Mapping[str, tuple[tuple[str, BBox], ...]] = text_boxes or {}
        self.anchors = data_anchors
        self.imported = imported
        self.plot_areas: Mapping[str, tuple[float, float, float, float] | None] = plot_areas or {}
        self.items: dict[str, tuple[Placement, tuple[float, float] | None]] = {}
        for panel in figure.panels:
            self.items[panel.name] = (panel.place, panel.size_pt)
        #: a named boxed shape -> its kind's class, which owns its anchors
        self.shape_kinds = {s.name: SHAPES[s.kind] for s in figure.shapes if s.name and s.place is not None}
        for i, shape in enumerate(figure.shapes):
            if shape.place is not None:
                size = shape_sizes[i] if shape_sizes is not None else shape.size_pt
                self.items[shape.name or f"#shape{i}"] = (shape.place, size)  # type: ignore[assignment]
        for i, text in enumerate(figure.texts):
            width_pt, height_pt = text_sizes[i]
            self.items[text.name or f"#text{i}"] = (text.place, turned_size(width_pt, height_pt, text.rotate_deg))
        self.guides = {_guide_item(g, i): g for i, g in enumerate(figure.guides)}
        for i, guide in enumerate(figure.guides):
            self.items[_guide_item(guide, i)] = (guide.place, guide_sizes[i] if guide_sizes else None)
        self.grids: dict[str, Grid] = {g.name: g for g in figure.grids}
        for grid in figure.grids:
            self.items[f"grid:{grid.name}"] = (grid.place, grid.size_pt)
        self.boxes: dict[str, Box] = {"canvas": Box(0.0, 0.0, figure.spec.width_pt, figure.spec.height_pt)}
        self.resolving: list[str] = []
        self.cells: dict[tuple[str, str], Box] = {}
        self.aspects = {p.name: p for p in figure.panels if p.aspect is not None}
        self.panel_sizes: Mapping[str, tuple[float, float]] = panel_sizes or {}

    def run(self) -> Geometry:
        figure = self.figure
        for name in self.items:
            if name not in self.guides or self.items[name][1] is not None:  # a guide not drawn: not placed
                self.box(name)
        self._check_overlaps()
        arrows = tuple(self.route(a) for a in figure.arrows)
        shape_points = tuple(tuple(self.point(p) for p in s.points) for s in figure.shapes)
        placed = {}
        for panel, found in (self.anchors or {}).items():
            box = self.boxes[panel]
            for name, (x, y) in found.items():
                placed[(panel, name)] = (box.x_pt + x, box.y_pt + y)
        plots = {p.name: self.plot_area(p.name) for p in figure.panels}
        return Geometry(
            panels={p.name: self.boxes[p.name] for p in figure.panels},
            texts=tuple(self.boxes[t.name or f"#text{i}"] for i, t in enumerate(figure.texts)),
            shapes=tuple(self.boxes[s.name or f"#shape{i}"] if s.place else None
                         for i, s in enumerate(figure.shapes)),
            shape_points=shape_points,
            arrows=arrows,
            grids={g.name: self.boxes[f"grid:{g.name}"] for g in figure.grids},
            cells=dict(self.cells),
            data_anchors=placed,
            plot_areas=plots,
            guides=tuple(self.boxes[_guide_item(g, i)] if self.items[_guide_item(g, i)][1] is not None else None
                         for i, g in enumerate(figure.guides)),
        )

    def box(self, name: str) -> Box:
        if name in self.boxes:
            return self.boxes[name]
        place, size = self.items[name]
        if name in self.resolving:
            cycle = self.resolving[self.resolving.index(name):] + [name]
            shown = " -> ".join(n.removeprefix("grid:") for n in cycle)
            raise LayoutError(f"placement refers to itself: {shown}", file=self.file, key=place.key)
        self.resolving.append(name)
        if name in self.guides:
            box = self.guide(name, place, size)
        elif place.cell is not None:
            box = self.cell(*place.cell, key=place.key)
        elif place.beside:
            assert size is not None
            box = self.beside(place, size)
        else:
            assert place.at is not None and size is not None
            box = Box.placed(self.point(place.at), place.anchor, *size)
        box = self.locked(name, box)
        self.resolving.pop()
        self.boxes[name] = box
        return box

    def locked(self, name: str, box: Box) -> Box:
        """``box`` of element ``name``, or for an aspect-locked panel the box inside it: with
        ``aspect_of = "box"`` its :func:`aspect_box`; with ``"plot"``, once rendered, the size it was
        drawn at (:func:`inside`; before rendering, the whole box, which it is drawn within). In a
        cell by its ``align``, otherwise keeping its anchor's point."""
        panel = self.aspects.get(name)
        if panel is None:
            return box
        assert panel.aspect is not None
        anchor = None if panel.place.cell is not None else panel.place.anchor
        if panel.aspect_of == "box" or not sources.table(panel.kind).matplotlib:  # a file's plot area is its box
            return aspect_box(box, panel.aspect, panel.aspect_align, anchor=anchor)
        if name not in self.panel_sizes:
            return box
        return inside(box, *self.panel_sizes[name], panel.aspect_align, anchor=anchor)

    def beside(self, place: Placement, size: tuple[float, float]) -> Box:
        """The box of a text ``beside`` panels: centred on the union of their plot areas, its gap
        outside it on ``place.side``, plus ``offset_pt``. The gap is ``gap_pt``, or without ``gap``
        (``place.gap_auto``) what the panels' texts reach past the union's edge on that side
        (:meth:`reach`: tick labels, axis labels) plus :data:`BESIDE_PAD_PT`.

        Raises:
            LayoutError: the panels are not rendered yet; a ``gap`` puts the text over one of the panels'
                texts (at ``text[i].gap``, naming the panel, the text and the gap that clears them).
        """
        if self.anchors is None:
            raise LayoutError(f"{place.key.rpartition('.')[0]} sits beside plot areas, known only after "
                              "rendering; panels and grids cannot be placed relative to it", file=self.file,
                              key=place.key)
        areas = [self.plot_area(name) for name in place.beside]
        union = Box.spanning(areas)
        own, edge = BESIDE_ANCHORS[place.side]
        x, y = union.anchor(edge)
        reach = self.reach(place, union)
        gap = reach + BESIDE_PAD_PT if place.gap_auto else place.gap_pt
        dx, dy = {"left": (-gap, 0.0), "right": (gap, 0.0), "above": (0.0, -gap), "below": (0.0, gap)}[place.side]
        box = Box.placed((x + dx + place.offset_pt[0], y + dy + place.offset_pt[1]), own, *size)
        if not place.gap_auto:
            for name in place.beside:
                for text, (x0, y0, x1, y1) in self.panel_texts(name):
                    w, h = box.overlap_pt(Box(x0, y0, x1 - x0, y1 - y0))
                    if min(w, h) > OVERLAP_SLACK_PT:
                        unit = self.figure.spec.unit
                        shown = f" {text!r}" if text else ""
                        where = {"left": "left of", "right": "right of"}.get(place.side, place.side)
                        raise LayoutError(f"gap = {say(place.gap_pt, unit)} puts it over text{shown} of panel "
                                          f"{name!r} (the panels' texts reach {say(reach, unit)} {where} their "
                                          "plot areas); leave gap out to place it clear of them, or give gap = "
                                          f"\"{amount(reach + BESIDE_PAD_PT, unit)}{unit}\"",
                                          file=self.file, key=f"{place.key.rpartition('.')[0]}.gap")
        return box

    def panel_texts(self, name: str) -> list[tuple[str, BBox]]:
        """Panel ``name``'s texts as drawn, (the string, its ink box on the canvas, pt); [] when unknown."""
        box = self.box(name)
        return [(text, (x0 + box.x_pt, y0 + box.y_pt, x1 + box.x_pt, y1 + box.y_pt))
                for text, (x0, y0, x1, y1) in self.text_boxes.get(name, ())]

    def reach(self, place: Placement, union: Box) -> float:
        """How far (pt, >= 0) the texts of the panels a ``beside`` text stands beside reach past the union of
        their plot areas on its side: of each text beyond that edge and alongside the union (overlapping its
        span across: a y title's tick labels, not a title above), the farthest."""
        reach = 0.0
        u0, v0, u1, v1 = union.x_pt, union.y_pt, union.x_pt + union.width_pt, union.y_pt + union.height_pt
        for name in place.beside:
            for _, (x0, y0, x1, y1) in self.panel_texts(name):
                if place.side in ("left", "right"):
                    if min(y1, v1) - max(y0, v0) <= 0:
                        continue
                    past = u0 - x0 if place.side == "left" else x1 - u1
                else:
                    if min(x1, u1) - max(x0, u0) <= 0:
                        continue
                    past = v0 - y0 if place.side == "above" else y1 - v1
                reach = max(reach, past)
        return reach

    def guide(self, name: str, place: Placement, size: tuple[float, float] | None) -> Box:
        """The box of a guide drawn at ``size`` (pt): placed at its point, or centred in its cell.

        Raises:
            LayoutError: the guide is not drawn yet (something placed before rendering refers to it),
                or it does not fit its cell.
        """
        guide = self.guides[name]
        if size is None:  # named at the key of what refers to it (the element resolved before this one)
            referrer = self.resolving[-2] if len(self.resolving) > 1 else None
            key = self.items[referrer][0].key if referrer is not None else guide.key
            raise LayoutError(f"{guide.key} ({name!r}) is drawn from its panels' {guide.kind} entries, known only "
                              "after rendering; panels and grids cannot be placed relative to it", file=self.file,
                              key=key)
        if place.cell is None:
            assert place.at is not None
            return Box.placed(self.point(place.at), place.anchor, *size)
        cell = self.cell(*place.cell, key=place.key)
        width_pt, height_pt = size
        if width_pt > cell.width_pt + 0.01 or height_pt > cell.height_pt + 0.01:
            unit = self.figure.spec.unit
            raise LayoutError(f"the {guide.kind} is {say_pair(width_pt, height_pt, unit)} and its cell "
                              f"{'.'.join(filter(None, place.cell))!r} {say_pair(cell.width_pt, cell.height_pt, unit)}"
                              ": it does not fit; give it a larger cell, more ncols, or place it with at",
                              file=self.file, key=place.key)
        return Box.placed(cell.anchor("center"), "center", width_pt, height_pt)

    def plot_area(self, name: str) -> Box:
        """Panel ``name``'s plot area on the canvas: its axes' union as rendered, or its box."""
        box, area = self.box(name), self.plot_areas.get(name)
        if area is None:
            return box
        return Box(box.x_pt + area[0], box.y_pt + area[1], area[2] - area[0], area[3] - area[1])

    def point(self, pos: Position) -> Point:
        if pos.ref is None:
            return pos.x_pt + pos.dx_pt, pos.y_pt + pos.dy_pt
        element, anchor = pos.ref
        target = self.svg_element(pos) if "#" in element else self.box(element)
        if anchor in COMPASS or "@" in anchor:
            kind = self.shape_kinds.get(element)
            x, y = kind.anchor(target, anchor) if kind is not None else target.anchor(anchor)
        elif self.anchors is None:
            raise LayoutError(f"{pos.written()}: {anchor!r} is a data anchor, known only after rendering; "
                              "panels and grids cannot be placed at data anchors, only annotations",
                              file=self.file, key=pos.key)
        elif anchor in self.anchors.get(element, {}):
            lx, ly = self.anchors[element][anchor]
            x, y = target.x_pt + lx, target.y_pt + ly
        else:
            published = sorted(self.anchors.get(element, {}))
            raise LayoutError(f"{pos.written()}: {element!r} has no anchor {anchor!r}"
                              + did_you_mean(anchor, [*published, *COMPASS], COMPASS_WORDS)
                              + f"; valid anchors are {', '.join([*COMPASS, *published])}",
                              file=self.file, key=pos.key)
        return x + pos.dx_pt, y + pos.dy_pt

    def svg_element(self, pos: Position) -> Box:
        """The canvas box of the element ``pos.ref`` names (``"panel#id"``), drawn where its panel's
        content is drawn (:func:`composer.svg.viewbox.place`)."""
        assert pos.ref is not None
        panel, _, ident = pos.ref[0].partition("#")
        if self.imported is None or panel not in self.imported:
            raise LayoutError(f"{pos.written()}: an element of an imported SVG is known only once its file "
                              "is read; panels and grids cannot be placed at one, only annotations",
                              file=self.file, key=pos.key)
        svg = self.imported[panel]
        if ident in svg.unmeasured:
            raise LayoutError(f"{pos.written()}: {ident!r} in {svg.shown} is a <{svg.unmeasured[ident]}>, which "
                              "has no measured box (texts, what <defs> holds and a <use> of nothing are not "
                              "measured; a group is the box of the shapes it draws); give a shape, or a group of "
                              "shapes, an id", file=self.file, key=pos.key)
        if ident not in svg.boxes:
            ids = list(svg.boxes)
            shown = ", ".join(ids[:MAX_IDS_SHOWN]) + (f" and {len(ids) - MAX_IDS_SHOWN} more"
                                                       if len(ids) > MAX_IDS_SHOWN else "")
            raise LayoutError(f"{pos.written()}: {svg.shown} has no drawn element with id {ident!r} "
                              + (f"(its ids are {shown})" if ids else "(it has no drawn element with an id)")
                              + did_you_mean(ident, ids),
                              file=self.file, key=pos.key)
        return element_canvas_box(svg, self.box(panel), ident)

    def cell(self, grid_name: str, area: str, *, key: str) -> Box:
        if (grid_name, area) in self.cells:
            return self.cells[(grid_name, area)]
        grid = self.grids[grid_name]
        outer = self.box(f"grid:{grid_name}")
        xs = _tracks([t.length_pt for t in grid.columns], [t.ratio for t in grid.columns], outer.width_pt,
                     grid.gutter_pt[0], self.file, f"{grid.key}.columns", self.figure.spec.unit)
        ys = _tracks([t.length_pt for t in grid.rows], [t.ratio for t in grid.rows], outer.height_pt,
                     grid.gutter_pt[1], self.file, f"{grid.key}.rows", self.figure.spec.unit)
        for letter in {c for row in grid.mosaic for c in row} - {"."}:
            cells = [(i, j) for i, row in enumerate(grid.mosaic) for j, c in enumerate(row) if c == letter]
            i0, i1 = min(i for i, _ in cells), max(i for i, _ in cells)
            j0, j1 = min(j for _, j in cells), max(j for _, j in cells)
            x0, y0 = outer.x_pt + xs[j0][0], outer.y_pt + ys[i0][0]
            self.cells[(grid_name, letter)] = Box(x0, y0, outer.x_pt + xs[j1][1] - x0, outer.y_pt + ys[i1][1] - y0)
        return self.cells[(grid_name, area)]

    def route(self, arrow) -> Route:
        start, end = self.point(arrow.start), self.point(arrow.end)
        via = [self.point(v) for v in arrow.via]
        if arrow.route == "arc":
            found = Route(arc_points(start, end, arrow.bend_deg), curve=True)
            length_pt = math.dist(start, end)
        else:
            stops = [start, *via, end]
            points = [start]
            for a, b in zip(stops, stops[1:]):
                points += list(route(a, b, arrow.route)[1:])
            found = Route(tuple(points))
            length_pt = sum(math.dist(a, b) for a, b in zip(points, points[1:]))
        if length_pt - 2 * arrow.gap_pt < MIN_CONNECTOR_PT:
            unit = self.figure.spec.unit
            if length_pt >= MIN_CONNECTOR_PT:  # the gap (at each end) is what leaves nothing to draw
                raise LayoutError(f"gap = {say(arrow.gap_pt, unit)} at each end takes {say(2 * arrow.gap_pt, unit)}, "
                                  f"more than the connector's {say(length_pt, unit)}: nothing would be drawn; "
                                  f"use a gap below {say((length_pt - MIN_CONNECTOR_PT) / 2, unit)}", file=self.file,
                                  key=f"{arrow.key}.gap" if arrow.key else None)
            raise LayoutError(f"the connector is {say(length_pt, unit)} long: nothing would be drawn; its ends are "
                              "(nearly) the same point", file=self.file, key=arrow.key or None)
        return found

    def _check_overlaps(self) -> None:
        """Panels lie on the canvas and do not overlap (unless marked ``overlap``)."""
        panels = self.figure.panels
        spec = self.figure.spec
        for p in panels:
            box = self.boxes[p.name]
            beyond = {"left": -box.x_pt, "top": -box.y_pt, "right": box.x_pt + box.width_pt - spec.width_pt,
                      "bottom": box.y_pt + box.height_pt - spec.height_pt}
            side, by_pt = max(beyond.items(), key=lambda kv: kv[1])
            if by_pt > 0.01:
                raise LayoutError(f"panel {p.name!r} reaches {say(by_pt, spec.unit)} past the {side} edge of the "
                                  f"canvas ({spec.width_text} x {spec.height_text}); move or shrink it, or "
                                  "enlarge the figure", file=self.file, key=p.key)
        for i, a in enumerate(panels):
            for b in panels[i + 1:]:
                if a.overlap or b.overlap:
                    continue
                w, h = self.boxes[a.name].overlap_pt(self.boxes[b.name])
                if w > 0.01 and h > 0.01:
                    raise LayoutError(f"panels {a.name!r} and {b.name!r} overlap by {say_pair(w, h, spec.unit)}; "
                                      "move one, or set overlap = true on an inset", file=self.file, key=b.key)


def _guide_item(guide, index: int) -> str:
    """The resolver's item name of a guide: its name, else ``#KIND-INDEX``."""
    return guide.name or f"#{guide.kind}-{index}"


#: the shortest connector drawn (pt, after its gaps): about 0.35 mm, shorter than any head
MIN_CONNECTOR_PT = 1.0


def _tracks(lengths: list[float | None], ratios: list[float | None], total_pt: float, gutter_pt: float,
            file: str, key: str, unit: str = "pt") -> list[tuple[float, float]]:
    """Start and end (pt, from the grid's edge) of each track.

    Fixed tracks keep their length; ratio tracks share what the fixed tracks
    and gutters leave, in proportion (CSS grid ``fr`` units).

    Raises:
        LayoutError: the fixed tracks and gutters need more than ``total_pt``
            (lengths said in ``unit``, the layout's).
    """
    fixed = sum(v for v in lengths if v is not None) + gutter_pt * (len(lengths) - 1)
    shares = sum(r for r in ratios if r is not None)
    free = total_pt - fixed
    if free < -1e-6 or (shares and free <= 0):
        raise LayoutError(f"the tracks and gutters need {say(fixed, unit)} but the grid is {say(total_pt, unit)}",
                          file=file, key=key)
    out, pos = [], 0.0
    for length, ratio in zip(lengths, ratios):
        size = length if length is not None else free * (ratio or 0.0) / shares
        out.append((pos, pos + size))
        pos += size + gutter_pt
    return out


def route(start: Point, end: Point, kind: str) -> tuple[Point, ...]:
    """The points of a connector route (schemdraw's ``Wire`` shapes).

    ``straight``: start, end. ``-|``: horizontal from start, then vertical to
    end. ``|-``: vertical first, then horizontal. Every segment of an elbow is
    axis-parallel; a degenerate elbow (start and end aligned) collapses to a
    straight segment.
    """
    if kind not in ("-|", "|-") or start[0] == end[0] or start[1] == end[1]:
        return start, end
    corner = (end[0], start[1]) if kind == "-|" else (start[0], end[1])
    return start, corner, end


def arc_points(start: Point, end: Point, bend_deg: float) -> tuple[Point, Point, Point]:
    """Start, control point and end of a quadratic Bezier arc.

    The curve leaves ``start`` at ``bend_deg`` to the chord (positive bends to
    the left of the direction of travel, in the y-down canvas: counter-clockwise
    on screen), as TikZ's ``bend left``: the control point sits on the chord's
    perpendicular bisector at ``tan(bend) * chord / 2``.
    """
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    h = math.tan(math.radians(bend_deg)) / 2
    # left of travel on screen (y down) is (dy, -dx)
    return start, (mx + dy * h, my - dx * h), end
