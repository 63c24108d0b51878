"""The typed figure model: what a layout file means, with every length in pt.

Built by :func:`composer.layout.loader.load_layout`; all dataclasses are frozen so a
loaded figure can be hashed, cached and shared between stages. Coordinates are
canvas points measured from the canvas's top-left corner, x to the right and
y downwards (the SVG convention).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from composer.layout.keys import default
from composer.layout.values import Position, Track  # noqa: F401 - values of the model, made by the reader

# the format's names and choices live with the format (composer.layout.vocabulary); here for the stages
from composer.layout.vocabulary import (  # noqa: F401
    ALIGNS,
    COMPASS,
    ENGINES,
    HEAD_STYLES,
    HEADS,
    NAME,
    RELATIONS,
    ROUTES,
    SHAPE_KINDS,
    SIDES,
    STYLES,
    SYMBOLS,
    TEXT_MODES,
    WEIGHTS,
)
from composer.units import layout_unit

#: the canvas height (pt) of a ``height = "auto"`` figure while its content is placed: 5 m, taller than
#: any figure, so nothing reaches past it (the compose stage then fits the height to the content)
AUTO_HEIGHT_PT = 5000 * 72 / 25.4


@dataclass(frozen=True)
class Placement:
    """Where an element goes: its ``anchor`` at a point, or filling a grid cell.

    Relative placements (``right_of``, ``below``...) are compiled by the
    loader into ``at`` + ``anchor``: ``right_of = "a"`` with gap g and
    ``align = "top"`` is ``at = a.ne + (g, 0)``, ``anchor = "nw"``.

    A ``[[text]]`` may instead sit ``beside`` panels: centred on the union of
    their plot areas (known after rendering), ``gap_pt`` outside it on
    ``side``, by its own anchor on that side (``e`` for ``left``...).

    Attributes:
        at: the point where ``anchor`` of the element's box sits, or None.
        anchor: compass anchor of the element's own box.
        cell: ``(grid, area)`` of a mosaic grid, or None.
        beside: panel names (a text beside their plot areas), or ().
        side: ``left``, ``right``, ``above``, ``below``: the side of ``beside``.
        gap_pt: distance from the plot areas' edge (``beside``); offset_pt: added after.
        gap_auto: a ``beside`` text without ``gap``: its gap is worked out from the panels' texts on that side
            (:meth:`composer.stages.geometry._Resolver.beside`: clear of their tick labels).
        key: the layout key path, for errors.
    """

    at: Position | None = None
    anchor: str = default("panel", "anchor")
    cell: tuple[str, str] | None = None
    key: str = ""
    beside: tuple[str, ...] = ()
    side: str = default("text", "side")
    gap_pt: float = 0.0
    offset_pt: tuple[float, float] = (0.0, 0.0)
    gap_auto: bool = False


@dataclass(frozen=True)
class TextStyle:
    """Font settings of one piece of canvas text. Sizes in pt; colour as ``#rrggbb``;
    ``mathtext`` is matplotlib's ``mathtext.fontset`` for ``$...$`` (from ``[rcparams]``);
    ``editable`` is True under ``[figure] text = "editable"``: the text is drawn
    as ``<text>`` (its mathtext still as outlines) instead of glyph outlines;
    ``math`` is ``"mathtext"`` (matplotlib's, the default) or ``"latex"``: the whole text is LaTeX,
    typeset by TeX (:mod:`composer.text.latex`)."""

    font: str
    size_pt: float
    weight: str = default("style", "weight")
    style: str = default("style", "style")
    color: str = default("style", "color")
    opacity: float = default("style", "opacity")
    mathtext: str = "dejavusans"
    editable: bool = False
    math: str = "mathtext"


@dataclass(frozen=True)
class Grid:
    """A mosaic grid (matplotlib's ``subplot_mosaic``, R patchwork's ``design``).

    Attributes:
        name: ``""`` for the figure's ``[grid]``, else the ``[grids.NAME]`` name.
        mosaic: rows of area letters, ``"."`` for an empty cell.
        columns, rows: one :class:`Track` per column / row.
        gutter_pt: (between columns, between rows).
        place: where the grid's box goes (the figure grid: the canvas inside
            its margin); size_pt: its size, or None to take it from ``place``.
    """

    name: str
    mosaic: tuple[str, ...]
    columns: tuple[Track, ...]
    rows: tuple[Track, ...]
    gutter_pt: tuple[float, float]
    place: Placement
    size_pt: tuple[float, float] | None
    key: str = ""


@dataclass(frozen=True)
class CheckLimits:
    """The limits ``compose check`` measures the final figure against.

    Set by composer's defaults, then a journal ``preset`` (see
    :mod:`composer.layout.presets`, which cites each journal's number), then the
    layout's own ``[check]`` table, later ones winning.

    Attributes:
        min_font_pt: smallest nominal font size of any text at final size (pt).
            Default 5 pt, the smallest minimum among the journals in
            :mod:`composer.layout.presets` (Nature: "Minimum text size: 5pt").
        min_line_pt: thinnest stroke at final size (pt). Default 0.25 pt
            (0.09 mm), a little under the 0.1 mm some author guidelines name
            as the thinnest line that prints ("All lines should be at least
            0.1 mm (0.3 pt) wide", CCS Chemistry artwork and illustration
            guidelines); raise it with ``[check] min_line_width``.
        min_ppi: pixels per inch, at final size, of every embedded raster.
            Default 300 (Nature: "All photographic images must be supplied at a
            minimum of 300 dpi").
        cvd_min_distance: CAM02-UCS distance below which two palette colours
            count as indistinguishable (see :mod:`composer.lint.rules`).
        allow_overlap: pairs of element names whose overlap is intended
            (an inset panel inside another, a label placed on a shape).
        ignore: (panel name, rule names) pairs: findings of those rules about that panel are
            not reported (``[check] ignore``).
        max_height_pt: tallest canvas the journal prints, or None.
        source: where the limits came from, for the report (``"nature preset"``).
        min_width_pt: narrowest canvas the journal takes, or None (PLOS: 2.63 in).
        max_font_pt: largest nominal font size at final size (pt), or None (PLOS: 12 pt).
        fonts: the font families the journal takes for text, or None (any; see
            :meth:`composer.layout.presets.Preset.takes_font`).
        formats: the output formats the journal takes as figure files, or None (any).
        tiff_compression: the compression a TIFF output must have (``"lzw"``), or None.
        tiff_alpha: whether a TIFF output may carry an alpha channel.
        min_output_dpi, max_output_dpi: pixels per inch of a raster output (PNG, TIFF) at final size,
            its pixel width over the canvas width, or None.
        max_file_mb: largest output file, in MB of 10^6 bytes, or None (``[check] max_file_mb``, else the
            preset's: PLOS 10, Cell 20).
        journal: the preset's journal as people name it (``"PLOS"``), for messages, or ``""``.
        refuses_type3: the preset's journal rejects Type 3 fonts in the PDF (IEEE, ICML: rule ``pdf-fonts``).
    """

    min_font_pt: float = default("check", "min_font_size")
    min_line_pt: float = default("check", "min_line_width")
    min_ppi: float = default("check", "min_ppi")
    cvd_min_distance: float = default("check", "cvd_min_distance")
    allow_overlap: tuple[tuple[str, str], ...] = ()
    ignore: tuple[tuple[str, tuple[str, ...]], ...] = ()
    max_height_pt: float | None = None
    source: str = "composer defaults"
    min_width_pt: float | None = None
    max_font_pt: float | None = None
    fonts: tuple[str, ...] | None = None
    formats: tuple[str, ...] | None = None
    tiff_compression: str | None = None
    tiff_alpha: bool = True
    min_output_dpi: float | None = None
    max_output_dpi: float | None = None
    max_file_mb: float | None = None
    journal: str = ""
    refuses_type3: bool = False

    def takes_font(self, family: str) -> bool:
        """Whether text in ``family`` is allowed: always when no fonts are listed, else a family that is one
        of :attr:`fonts` or starts with one and a space (``"Times"`` takes ``"Times New Roman"``)."""
        if self.fonts is None:
            return True
        name = family.strip().strip("'\"").casefold()
        return any(name == f.casefold() or name.startswith(f.casefold() + " ") for f in self.fonts)


@dataclass(frozen=True)
class FigureSpec:
    """The ``[figure]`` table, with the style tables it uses.

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
            corner relative to the panel's top-left corner (+y down): its box's,
            or with ``label_at == "plot"`` its plot area's (the union of its
            axes as rendered; see :attr:`composer.stages.render.RenderedPanel.plot_area`).
        labels: ``[figure] labels``, the automatic label style (``"a"``, ``"(i)"``...)
            or None; the loader has already written each panel's label
            (:attr:`Panel.label`), so the stages never count letters.
        label_order: ``[figure] label_order`` as written, or () (declaration order).
        height_auto: ``height = "auto"``: until the compose stage fits it
            (:func:`composer.stages.compose.fit_height`), ``height_pt`` is
            :data:`AUTO_HEIGHT_PT` and ``height_text`` ``"auto"``; then the content's
            bottom plus ``margin_pt`` (``[figure] margin``, else the ``[grid]``
            margin's bottom, else 0), written in the unit of ``width``.
        raster_ppi: pixels per inch, at final size, of images that matplotlib
            embeds in panels (``imshow``, ``rasterized=True`` artists).
        colors: the named palette (``[colors]``), name -> ``#rrggbb``.
        rcparams: extra matplotlib rcParams for every panel (``[rcparams]``).
        preset: the journal preset named by ``preset = "nature"`` (see
            :mod:`composer.layout.presets`), or None.
        check: the limits ``compose check`` applies.
        text: ``"selectable"`` (every glyph an outline in the SVG and PNG, real text in the PDF:
            :mod:`composer.text.realtext`), ``"paths"`` (every glyph an outline everywhere: the same in every
            renderer) or ``"editable"`` (``<text>`` with a font stack, for
            Inkscape and Illustrator; mathtext stays outlines); see
            :mod:`composer.text.fonts` and :mod:`composer.mpl.savesvg`.
        engine: the export engine, ``"resvg"`` or ``"cairosvg"``
            (:mod:`composer.stages.export`); ``compose --engine`` overrides it.
        math: how canvas text is typeset by default: ``"mathtext"`` or ``"latex"``
            (:class:`TextStyle`'s ``math``).
        alt: the figure's alt text as written (a template: ``{fields}`` are filled by
            :func:`composer.stages.describe.alt_text`), or None.
        provenance: write the build's provenance into the outputs (``[figure] provenance``;
            :mod:`composer.incremental.provenance`).
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
    raster_ppi: float = default("figure", "raster_ppi")
    colors: dict[str, str] = field(default_factory=dict)
    rcparams: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    check: CheckLimits = field(default_factory=CheckLimits)
    text: str = default("figure", "text")
    engine: str = default("figure", "engine")
    math: str = default("figure", "math")
    labels: str | None = None
    label_order: tuple[str, ...] = ()
    label_at: str = default("figure", "label_at")
    height_auto: bool = False
    margin_pt: float | None = None
    alt: str | None = None
    provenance: bool = default("figure", "provenance")

    @property
    def unit(self) -> str:
        """The unit messages give derived lengths in (overlaps, gaps, computed sizes): the unit
        ``width`` is written in (``"180mm"`` -> ``"mm"``; see :func:`composer.units.layout_unit`)."""
        return layout_unit(self.width_text)


@dataclass(frozen=True)
class Panel:
    """One ``[panels.NAME]`` table.

    Attributes:
        name: the table name; element ids derive from it.
        kind: the name of its panel source (:mod:`composer.layout.sources`; ``"render"``, a matplotlib
            function, ``"svg"``, ``"image"``, ``"pdf"``...): the key that gave ``source``.
        source: that key's value, converted (``"module:function"`` for render panels, a file's path).
        options: the keys only its source takes, converted (``{"page": 1}`` for a pdf panel).
        place: where the panel goes; size_pt: (width, height) of the box, or
            None when a grid cell gives it.
        label, title: panel label (``"a"``) and the title drawn after it.
        alt: the panel's alt text as written (a template), or None.
        params: keyword arguments for the renderer.
        data: a panel-specific data file overriding the figure's, or None.
        overlap: True when the panel may overlap others (an inset).
        raster: render panels only: True rasterizes the panel's data artists
            at ``raster_ppi`` inside the vector figure, False never does,
            None (default) does when the panel's SVG is heavy (see
            :mod:`composer.mpl.savesvg`).
        empty: render panels only: True when the renderer may draw nothing.
        aspect: width / height locked (``[panels.NAME] aspect``), or None; ``aspect = "auto"`` sets
            ``aspect_auto`` and leaves it None until the inputs stage reads the file's own aspect
            (:func:`composer.stages.inputs.file_aspects`: its box is then the picture drawn); aspect_of: ``"box"``
            (the box has it: :func:`composer.stages.geometry.aspect_box`) or ``"plot"`` (its plot area);
            aspect_align: where the box sits in its cell (``top``/``bottom``, ``left``/``right``,
            ``center``), on the axis with room.
    """

    name: str
    kind: str
    source: str | Path
    place: Placement
    size_pt: tuple[float, float] | None
    label: str | None = None
    title: str | None = None
    params: dict[str, Any] = field(default_factory=lambda: dict(default("panel", "params")))
    data: Path | None = None
    overlap: bool = default("panel", "overlap")
    raster: bool | None = None
    empty: bool = default("panel", "empty")
    key: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    aspect: float | None = None
    aspect_of: str = default("panel", "aspect_of")
    aspect_align: str = "center"
    aspect_auto: bool = False
    alt: str | None = None


@dataclass(frozen=True)
class Text:
    """One ``[[text]]`` entry: a block of one or more lines (``\\n``).

    ``text`` may hold ``{name:format}`` fields (filled from ``values()`` and
    scalar data), ``$...$`` mathtext and ``<b>``, ``<i>``, ``<color=NAME>``
    spans. ``place.anchor`` names the point of the block that sits at
    ``place.at``. With ``width_pt`` the text is wrapped to that width.
    ``rotate_deg`` turns it counter-clockwise on the page (matplotlib's
    ``rotation``; 90 reads bottom to top); its box (placed, checked) is then
    the axis-aligned box of the turned block (:func:`composer.stages.geometry.turned_size`).
    """

    text: str
    place: Placement
    style: TextStyle
    align: str | None = None
    name: str | None = None
    width_pt: float | None = None
    key: str = ""
    rotate_deg: float = default("text", "rotate")


@dataclass(frozen=True)
class Shape:
    """One ``[[shape]]`` entry.

    Kinds: ``rect`` (optionally rounded), ``circle`` and ``ellipse`` nodes
    (optionally with a ``symbol`` such as ``+`` inside), ``line`` (a polyline
    through ``points``), ``brace`` and ``bracket`` (from ``points[0]`` to
    ``points[1]``, bulging to ``side``). Boxed kinds with text and no size
    fit the text plus ``padding_pt``; with a width only, the text wraps.
    """

    kind: str
    place: Placement | None
    size_pt: tuple[float | None, float | None]
    name: str | None = None
    corner_pt: float = default("shape", "corner")
    fill: str | None = default("shape", "fill")
    stroke: str | None = default("shape", "stroke")
    stroke_width_pt: float = default("shape", "stroke_width")
    dash: bool = default("shape", "dash")
    opacity: float = default("shape", "opacity")
    text: str | None = None
    text_style: TextStyle | None = None
    padding_pt: float = default("shape", "padding")
    symbol: str | None = None
    points: tuple[Position, ...] = ()
    side: str = default("shape", "side")
    depth_pt: float = default("shape", "depth")
    key: str = ""


@dataclass(frozen=True)
class Arrow:
    """One ``[[arrow]]`` entry: a connector between two points.

    ``route`` is ``straight``, ``-|`` (horizontal then vertical), ``|-`` or
    ``arc`` (bent by ``bend_deg``); ``via`` adds waypoints, each hop routed
    the same way. gap_pt is left free at both ends so the head does not
    touch its target. A ``label`` sits beside the route at ``label_pos``
    (fraction of its length) on ``label_side``: ``above``/``below`` the
    route, or ``left``/``right`` of its direction of travel.
    """

    start: Position
    end: Position
    route: str = default("arrow", "route")
    via: tuple[Position, ...] = default("arrow", "via")
    bend_deg: float = default("arrow", "bend")
    color: str = default("arrow", "color")
    width_pt: float = default("arrow", "width")
    head: str = default("arrow", "head")
    head_style: str = default("arrow", "head_style")
    head_length_pt: float = default("arrow", "head_length")
    head_width_pt: float = default("arrow", "head_width")
    gap_pt: float = default("arrow", "gap")
    dash: bool = default("arrow", "dash")
    label: str | None = None
    label_pos: float = default("arrow", "label_pos")
    label_side: str = default("arrow", "label_side")
    label_style: TextStyle | None = None
    key: str = ""


@dataclass(frozen=True)
class Align:
    """``[[align]]``: panels whose plot areas (axes) line up, like patchwork.

    ``axis = "y"`` aligns the tops and bottoms of the plot areas (a row of
    panels), ``"x"`` the left and right edges (a column), ``"both"`` both.
    """

    panels: tuple[str, ...]
    axis: str
    key: str = ""


@dataclass(frozen=True)
class Legend:
    """``[[legend]]``: one legend collected from several matplotlib panels (a *guide*: drawn by
    :mod:`composer.stages.guides` from what the panels report after rendering).

    Attributes:
        panels: the panels of ``from``, in order; their own legends are not drawn.
        place: where it goes (``at``, ``cell`` or a relation), like a text; in a cell, centred.
        ncols: columns of entries. title: drawn above the entries, or None. frame: matplotlib's frame.
        name: lets annotations refer to it, or None. key: ``legend[i]``, for messages.
    """

    #: the guide kind (:data:`composer.stages.guides.KINDS`); ``[[legend]]`` in a layout.
    kind = "legend"
    #: the layout key that lists :attr:`panels` (for messages: ``legend[0].from[1]``).
    panels_key = "from"
    panels: tuple[str, ...]
    place: Placement
    ncols: int = default("legend", "ncols")
    title: str | None = None
    frame: bool = default("legend", "frame")
    name: str | None = None
    key: str = ""


@dataclass(frozen=True)
class Colorbar:
    """``[[colorbar]]``: one colorbar for several matplotlib panels of one colour mapping (a *guide*,
    drawn by :mod:`composer.stages.guides` from the mappings the panels report after rendering).

    Attributes:
        panels: the panels of ``for``, in order (their mappings must be the same).
        place: where its box goes (a cell, ``at`` or a relation), like a panel's.
        size_pt: (width, height) of its box, pt, unless a cell gives it (None then).
        orientation: ``"vertical"`` or ``"horizontal"``. label: beside the tick labels, or None.
        ticks: tick values in data units (() for none), or None: matplotlib's locator.
        name: lets annotations refer to it, or None. key: ``colorbar[i]``, for messages.
    """

    #: the guide kind (:data:`composer.stages.guides.KINDS`); ``[[colorbar]]`` in a layout.
    kind = "colorbar"
    #: the layout key listing its panels (messages name ``colorbar[i].for``)
    panels_key = "for"
    panels: tuple[str, ...]
    place: Placement
    size_pt: tuple[float, float] | None = None
    orientation: str = default("colorbar", "orientation")
    label: str | None = None
    ticks: tuple[float, ...] | None = None
    name: str | None = None
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
    grids: tuple[Grid, ...] = ()
    aligns: tuple[Align, ...] = ()
    #: every file the layout names (style, data, svg, image), absolute; the
    #: build manifest hashes them (composer.incremental.manifest).
    files: tuple[Path, ...] = ()
    #: ``[[legend]]`` entries, in layout order.
    legends: tuple[Legend, ...] = ()
    #: ``[[colorbar]]`` entries, in layout order.
    colorbars: tuple[Colorbar, ...] = ()

    @property
    def guides(self) -> tuple[Legend | Colorbar, ...]:
        """Every guide (an element drawn from what panels report: :mod:`composer.stages.guides`), in
        the order they are drawn: legends, then colorbars."""
        return (*self.legends, *self.colorbars)

    def element_names(self) -> list[str]:
        """Names an arrow or text may refer to, in declaration order."""
        names = [p.name for p in self.panels]
        names += [s.name for s in self.shapes if s.name]
        names += [t.name for t in self.texts if t.name]
        names += [g.name for g in self.guides if g.name]
        return names
