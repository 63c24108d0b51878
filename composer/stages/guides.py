"""Guides: canvas elements matplotlib draws from what panels report (collected legends, shared colorbars).

A *guide* is drawn once for several matplotlib panels (``[[legend]] from = ["a", "b"]``, ``[[colorbar]]
for = ["a", "b"]``), from facts
only the panels' renderers know. The panels are drawn in forked workers
(:func:`composer.pipeline.render_panels`), so a guide lives in four steps:

1. **collect** (in the panel's worker, :func:`composer.stages.render.save_panel`, after the renderer
   ran and the plot areas were aligned, before the SVG is saved): for each guide kind whose guides
   list the panel (:func:`kinds_of`), ``kind.collect(fig)`` returns the panel's *records*: plain,
   picklable, JSON-able values (for a legend, one :class:`LegendEntry` per entry, styles as numbers
   and ``#rrggbbaa`` strings, never matplotlib objects; for a colorbar, one
   :class:`composer.stages.colormaps.ColorMapping` per colour mapping), and ``kind.strip(fig)`` removes
   what the guide replaces (the panel's own legends; a colorbar removes nothing). :func:`collect` does both.
2. **keep**: the records travel with the panel (:attr:`composer.stages.render.RenderedPanel.guides`,
   kind -> tuple of records) and into the panel cache (``kind.to_json`` / ``kind.from_json``,
   :mod:`composer.incremental.cache`); a panel's cache key says which kinds it was collected for
   (its SVG differs without its legend).
3. **draw** (in the composing process, :func:`draw_guides`, memoised): ``kind.draw(guide,
   records by panel, spec, file, room)`` merges the records of the guide's panels (raising
   :class:`LayoutError` on a conflict, naming both panels) and draws the guide with matplotlib on a
   figure of its natural size (a legend) or of the ``room`` its placement gives (a colorbar: its
   cell's size or its ``size``, :func:`composer.stages.geometry.guide_rooms`), in the figure's
   rcParams (:func:`composer.stages.draft.rc_params`:
   font, font size, ``[rcparams]`` and the style file's), saved as SVG with text as outlines (or
   ``<text>`` under ``[figure] text = "editable"``): a :class:`Drawn`.
4. **place and merge**: the geometry stage places the drawing's box like a panel's
   (:func:`composer.stages.geometry.resolve`, ``guide_sizes``: at, a relation, or centred in a cell;
   known only after rendering, so no panel or grid may be placed relative to a guide), and
   :func:`composer.stages.compose.compose` imports its SVG like a panel's, as
   ``<g id="KIND-NAME">`` (``legend-0`` without a name), its ids prefixed with that id.

Adding a guide kind (as ``[[colorbar]] for = [...]`` was added after ``[[legend]]``):

- the model: a frozen dataclass like :class:`composer.layout.model.Legend` with a class attribute
  ``kind = "NAME"``, a class attribute ``panels_key`` (the layout key listing its panels, for
  messages: ``"from"``, ``"for"``) and the fields ``panels`` (the panels it is drawn from), ``place``
  (:class:`composer.layout.model.Placement`), ``name``, ``key``; its table in
  :mod:`composer.layout.keys`, read in :mod:`composer.layout.loader` (``_check_guides`` checks the
  panel names of every guide); add the tuple to :attr:`composer.layout.model.Figure.guides` (after
  the legends and colorbars: the order is the drawing order and the ``Geometry.guides`` order); a
  kind drawn at the size of its box gives the model a ``size_pt`` (:func:`composer.stages.geometry.guide_rooms`);
- here: the records dataclass, ``collect``/``strip``/``to_json``/``from_json``/``draw``/``note``
  functions and one :class:`GuideKind` in :data:`KINDS` under the same name as the model's ``kind``.
  Nothing else changes: render, cache, geometry and compose handle every kind through :data:`KINDS` and
  ``Figure.guides``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from composer.errors import LayoutError
from composer.layout.model import Colorbar, Figure, FigureSpec, Legend

if TYPE_CHECKING:
    from composer.stages.colormaps import ColorMapping
    from composer.stages.geometry import Room


class Rendered(Protocol):
    """What :func:`draw_guides` reads of a rendered panel (:class:`composer.stages.render.RenderedPanel`)."""

    @property
    def guides(self) -> Mapping[str, tuple[Any, ...]]:
        """Guide kind -> the records the panel reported for it."""


@dataclass(frozen=True)
class Drawn:
    """A guide drawn by matplotlib: its SVG (viewBox ``0 0 width_pt height_pt``, 1 unit = 1 pt) and size."""

    svg: bytes
    width_pt: float
    height_pt: float


@dataclass(frozen=True)
class GuideKind:
    """One kind of guide (see the module docstring for the four steps).

    Attributes:
        name: the kind, as the model's ``kind`` (``"legend"``): the key of ``RenderedPanel.guides``.
        collect: ``collect(fig) -> tuple of records`` of a drawn panel (in its worker).
        strip: ``strip(fig)``: remove from the panel what the guide replaces, before it is saved.
        to_json: a record -> a JSON value (the panel cache); from_json: its inverse.
        draw: ``draw(guide, records, spec, file, room) -> Drawn``; ``records``: panel name -> its records,
            for the guide's panels in its order; ``room``: the box its placement gives (its cell's, or its
            ``size``: :class:`composer.stages.geometry.Room`), None when it gives none; raises
            :class:`LayoutError` (conflicts, nothing to draw).
        note: ``note(panel_name) -> str``: the warning for a listed panel that reported no records
            ("" for none).
    """

    name: str
    collect: Callable[[Any], tuple[Any, ...]]
    strip: Callable[[Any], None]
    to_json: Callable[[Any], Any]
    from_json: Callable[[Any], Any]
    draw: Callable[[Any, Mapping[str, tuple[Any, ...]], FigureSpec, str, Room | None], Drawn]
    note: Callable[[str], str]


# ─── legends: the records ────────────────────────────────────────────────────


@dataclass(frozen=True)
class LegendEntry:
    """One legend entry of a panel, as plain values: what its legend handle looks like.

    ``kind`` is the artist matplotlib's legend handler drew for it (``Legend.legend_handles``):
    ``"line"`` (a ``Line2D``: lines, markers, ``LineCollection`` s such as ``vlines``), ``"patch"``
    (a ``Rectangle``: bars, ``fill_between``, patches) or ``"scatter"`` (a ``PathCollection``);
    or the container matplotlib's legend draws as several artists: ``"errorbar"`` (an
    ``ErrorbarContainer``, drawn by ``HandlerErrorbar``) or ``"stem"`` (a ``StemContainer``,
    ``HandlerStem``), whose artists are ``parts``: (role, entry) pairs, each entry a ``"line"``
    without a label, in this order: an errorbar's ``"line"`` (its data line and markers; absent
    for ``fmt="none"``), ``"bars"`` (its first error-bar collection: colour, width, dashes; absent
    without errors) and ``"caps"`` (its first cap line; absent without caps), and ``errors``, the
    directions it has bars in (``"x"``, ``"y"``, ``"xy"`` or ``""``); a stem's ``"markers"`` (its
    marker line), ``"stems"`` (its stem collection) and ``"baseline"`` (a hidden marker line or
    baseline is absent).
    Colours are ``#rrggbbaa`` (:func:`matplotlib.colors.to_hex` with alpha; a patch's or collection's with its
    ``alpha`` folded in, and None where it draws none though it has an alpha; a colour-mapped scatter's the
    colours its values map to), widths and marker
    sizes in pt, a scatter marker's ``size`` in pt² (matplotlib's ``s``) and its ``path`` as
    (vertices, codes) of the marker's unit path; ``dashes`` is a dashed line's or outline's
    (offset, on-off sequence) in pt before matplotlib scales it by the line width
    (:func:`composer.mpl.internals.dash_pattern`). Fields that do not apply to a kind are None.
    """

    label: str
    kind: str
    color: str | None = None
    linestyle: str | None = None
    linewidth: float | None = None
    marker: str | None = None
    markersize: float | None = None
    markerfacecolor: str | None = None
    markeredgecolor: str | None = None
    markeredgewidth: float | None = None
    fillstyle: str | None = None
    facecolor: str | None = None
    edgecolor: str | None = None
    hatch: str | None = None
    alpha: float | None = None
    size: float | None = None
    path: tuple[tuple[tuple[float, float], ...], tuple[int, ...]] | None = None
    dashes: tuple[float, tuple[float, ...]] | None = None
    errors: str | None = None
    parts: tuple[tuple[str, LegendEntry], ...] | None = None

    def style(self) -> dict[str, Any]:
        """Every field but the label: two entries of one label must agree on all of them."""
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "label"}


def _hex(color: Any) -> str | None:
    """``#rrggbbaa`` of a matplotlib colour; None for ``"none"`` or an empty colour array."""
    from matplotlib.colors import to_hex, to_rgba

    try:
        if hasattr(color, "__len__") and not isinstance(color, str) and len(color) == 0:
            return None
        if hasattr(color, "ndim") and color.ndim == 2:  # a collection's colours: the first
            color = color[0]
        if isinstance(color, str) and color.lower() == "none":
            return None
        return to_hex(to_rgba(color), keep_alpha=True)
    except (ValueError, TypeError):
        return None


def _num(value: Any) -> float | None:
    """A float rounded to 1e-6 (so a style compares equal across panels), or None."""
    try:
        return None if value is None else round(float(value), 6)
    except (TypeError, ValueError):
        return None


def _first(values: Any) -> Any:
    """The first of a collection's per-item values (or the value itself)."""
    try:
        return values[0] if len(values) else None
    except TypeError:
        return values


def _entry(label: str, handle: Any) -> LegendEntry:
    """The :class:`LegendEntry` of one artist matplotlib's legend drew (a ``Legend.legend_handles`` item).

    Raises:
        TypeError: an artist of another kind (the caller names the panel).
    """
    from matplotlib.collections import LineCollection, PathCollection, PolyCollection
    from matplotlib.container import ErrorbarContainer, StemContainer
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(handle, ErrorbarContainer):
        return _errorbar_entry(label, handle)
    if isinstance(handle, StemContainer):
        return _stem_entry(label, handle)
    alpha = _num(handle.get_alpha())
    if isinstance(handle, PathCollection) and handle.get_array() is not None:
        handle.update_scalarmappable()  # a colour-mapped scatter: the colours its values map to, as drawn

    def folded(color: Any) -> str | None:
        # a patch's or collection's colours have its alpha folded in (Patch.get_facecolor, Collection's), so a
        # colour transparent though the artist has an alpha was "none" (no edge; fill=False): recorded as none,
        # since redrawn with that alpha (which replaces a colour's own) it would show
        found = _hex(color)
        return None if found is not None and found.endswith("00") and alpha else found

    if isinstance(handle, Line2D):
        marker = handle.get_marker()
        shown = None if marker in (None, "None", "none", "", " ") else str(marker)
        return LegendEntry(label, "line", color=_hex(handle.get_color()), linestyle=_linestyle(handle),
                           linewidth=_num(handle.get_linewidth()), marker=shown,
                           markersize=_num(handle.get_markersize()) if shown else None,
                           markerfacecolor=_hex(handle.get_markerfacecolor()) if shown else None,
                           markeredgecolor=_hex(handle.get_markeredgecolor()) if shown else None,
                           markeredgewidth=_num(handle.get_markeredgewidth()) if shown else None,
                           fillstyle=str(handle.get_fillstyle()) if shown else None, alpha=alpha,
                           dashes=_dashes(handle))
    if isinstance(handle, Patch):
        return LegendEntry(label, "patch", facecolor=folded(handle.get_facecolor()),
                           edgecolor=folded(handle.get_edgecolor()), linewidth=_num(handle.get_linewidth()),
                           linestyle=_linestyle(handle), hatch=handle.get_hatch() or None, alpha=alpha,
                           dashes=_dashes(handle))
    if isinstance(handle, LineCollection):
        return LegendEntry(label, "line", color=folded(handle.get_color()), linestyle="-",
                           linewidth=_num(_first(handle.get_linewidth())), alpha=alpha)
    if isinstance(handle, PathCollection):
        path: Any = handle.get_paths()[0]  # vertices (N, 2), codes (N,) or None
        codes = tuple(int(c) for c in path.codes) if path.codes is not None else ()
        return LegendEntry(label, "scatter", facecolor=folded(handle.get_facecolor()),
                           edgecolor=folded(handle.get_edgecolor()), linewidth=_num(_first(handle.get_linewidth())),
                           size=_num(_first(handle.get_sizes())),
                           path=(tuple((_num(x) or 0.0, _num(y) or 0.0) for x, y in path.vertices), codes),
                           alpha=alpha)
    if isinstance(handle, PolyCollection):
        return LegendEntry(label, "patch", facecolor=folded(handle.get_facecolor()),
                           edgecolor=folded(handle.get_edgecolor()), linewidth=_num(_first(handle.get_linewidth())),
                           linestyle="solid", hatch=handle.get_hatch() or None, alpha=alpha)
    raise TypeError(f"{type(handle).__name__}")


def _errorbar_entry(label: str, container: Any) -> LegendEntry:
    """The ``"errorbar"`` entry of an ``ErrorbarContainer``: what ``HandlerErrorbar`` copies from it (its data line,
    its first error-bar collection and first cap line, its directions)."""
    data_line, caplines, barlinecols = container.lines
    parts = [("line", _entry("", data_line))] if data_line is not None else []
    parts += [("bars", _collection_line(barlinecols[0]))] if barlinecols else []
    parts += [("caps", _entry("", caplines[0]))] if caplines else []
    errors = "x" * bool(container.has_xerr) + "y" * bool(container.has_yerr)
    return LegendEntry(label, "errorbar", errors=errors, parts=tuple(parts))


def _stem_entry(label: str, container: Any) -> LegendEntry:
    """The ``"stem"`` entry of a ``StemContainer``: its marker line and baseline (when shown: ``HandlerStem`` copies
    their visibility) and its stem collection (whose colour and dashes ``HandlerStem`` copies, shown or not)."""
    markerline, stemlines, baseline = container
    parts = [("markers", _entry("", markerline))] if markerline.get_visible() else []
    parts += [("stems", _collection_line(stemlines))]
    parts += [("baseline", _entry("", baseline))] if baseline.get_visible() else []
    return LegendEntry(label, "stem", parts=tuple(parts))


def _collection_line(collection: Any) -> LegendEntry:
    """A ``LineCollection`` (error bars, stems) as a ``"line"`` entry without a label: its first segment's colour,
    width and dashes (offset, on-off sequence in pt before scaling by the width:
    :func:`composer.mpl.internals.collection_dashes`; the legend handlers copy the first)."""
    from composer.mpl.internals import collection_dashes

    pattern = collection_dashes(collection)
    dashes = (_num(pattern[0]) or 0.0, tuple(_num(v) or 0.0 for v in pattern[1])) if pattern else None
    return LegendEntry("", "line", color=_hex(collection.get_color()), linestyle="--" if dashes else "solid",
                       linewidth=_num(_first(collection.get_linewidth())), alpha=_num(collection.get_alpha()),
                       dashes=dashes)


def _linestyle(artist: Any) -> str:
    """An artist's line style by name; a style matplotlib keeps as an (offset, dashes) tuple (a legend handle
    made from a collection: ``fill_between``, ``stackplot``, ``violinplot``) is ``"solid"`` when it has no
    dashes and ``"--"`` otherwise (the pattern itself is :func:`_dashes`)."""
    style = artist.get_linestyle()
    if isinstance(style, str):
        return style
    dashes = style[1] if isinstance(style, tuple) and len(style) == 2 else None
    return "--" if dashes else "solid"


def _dashes(artist: Any) -> tuple[float, tuple[float, ...]] | None:
    """A line's or patch's dash pattern (:func:`composer.mpl.internals.dash_pattern`), rounded like every number."""
    from composer.mpl.internals import dash_pattern

    pattern = dash_pattern(artist)
    if pattern is None:
        return None
    return _num(pattern[0]) or 0.0, tuple(_num(v) or 0.0 for v in pattern[1])


def _legends(fig: Any) -> list[Any]:
    """The legends drawn on ``fig``: each axes' (in ``fig.axes`` order), then the figure's own (and subfigures')."""
    found = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    found += list(fig.legends)
    for sub in getattr(fig, "subfigs", ()):
        found += list(sub.legends)
    return found


def collect_legend(fig: Any) -> tuple[LegendEntry, ...]:
    """A drawn panel's legend entries, in the order its legends show them.

    When the panel drew legends (``ax.legend()``, ``fig.legend()``), their entries (what the
    researcher chose to show, proxy artists included); otherwise the labelled artists of its axes
    (``Axes.get_legend_handles_labels``, in axes order), as ``ax.legend()`` would show them. Either
    way each entry's style is read from the artist matplotlib's legend handler makes for it, but an
    errorbar's or a stem's entry (several artists) from its container (:func:`_container_of`).

    Raises:
        TypeError: an entry drawn by an artist of a kind :class:`LegendEntry` does not describe.
    """
    from matplotlib.container import ErrorbarContainer, StemContainer
    from matplotlib.legend import Legend as MplLegend

    pairs: list[tuple[str, Any]] = []
    drawn = _legends(fig)
    if drawn:
        containers = [c for ax in fig.axes for c in ax.containers if isinstance(c, (ErrorbarContainer, StemContainer))]
        for legend in drawn:
            # an artist no handler draws has a None handle and no text (matplotlib warned): skip it
            shown = [h for h in legend.legend_handles if h is not None]
            for text, handle in zip(legend.get_texts(), shown):
                label = text.get_text()
                candidates = sorted(containers, key=lambda c: c.get_label() != label)  # its label's first
                found = _container_of(legend, handle, candidates)
                pairs.append((label, found if found is not None else handle))
    else:
        for ax in fig.axes:
            handles, labels = ax.get_legend_handles_labels()
            if handles:
                made = MplLegend(ax, handles, labels)  # never drawn: its handler artists carry the styles
                kept = [(orig, h) for orig, h in zip(handles, made.legend_handles) if h is not None]
                pairs += [(t.get_text(), orig if isinstance(orig, (ErrorbarContainer, StemContainer)) else h)
                          for t, (orig, h) in zip(made.get_texts(), kept)]
    return tuple(_entry(label, handle) for label, handle in pairs)


def _container_of(legend: Any, handle: Any, candidates: Sequence[Any]) -> Any:
    """The first of ``candidates`` (the panel's errorbar and stem containers, those of the entry's label first)
    that a drawn legend's entry whose handle is ``handle`` was drawn from, or None (a plain artist or a proxy).

    A drawn legend keeps only the first artist its handler made for an entry (``legend_handles``), not the
    artist it was made from; the entry's handle box (the ``DrawingArea`` holding ``handle``) holds them all.
    The entry was drawn from a container when the handler matplotlib picks for it makes artists of the same
    types and styles (:func:`_entry` of each, which leaves out positions), in the same order."""
    from matplotlib.transforms import IdentityTransform

    if not candidates:
        return None
    boxes = [box for box in _handle_boxes(legend) if any(a is handle for a in box.get_children())]
    if not boxes or len(boxes[0].get_children()) < 2:  # a plain artist's handler draws one
        return None
    drawn = _looks(boxes[0].get_children())
    for container in candidates:
        handler = legend.get_legend_handler(legend.get_legend_handler_map(), container)
        if handler is not None and _looks(handler.create_artists(
                legend, container, 0.0, 0.0, 20.0, 10.0, 10.0, IdentityTransform())) == drawn:
            return container
    return None


def _looks(artists: Sequence[Any]) -> list[Any]:
    """What a legend handler's artists look like, for comparing two drawings of an entry: each one's type and
    :func:`_entry` (its type name alone when it is of a kind :func:`_entry` does not describe)."""
    looks: list[Any] = []
    for artist in artists:
        try:
            looks.append((type(artist).__name__, artist.get_visible(), _entry("", artist)))
        except TypeError:
            looks.append((type(artist).__name__, artist.get_visible()))
    return looks


def _handle_boxes(artist: Any) -> list[Any]:
    """The ``DrawingArea`` s under ``artist`` (a legend: one per entry, holding what its handler drew), depth first
    through its offset boxes."""
    from matplotlib.offsetbox import DrawingArea, OffsetBox

    found = []
    for child in artist.get_children():
        if isinstance(child, DrawingArea):
            found.append(child)
        elif isinstance(child, OffsetBox):
            found += _handle_boxes(child)
    return found


def strip_legend(fig: Any) -> None:
    """Remove every legend ``fig`` draws (axes', figure's, subfigures'), so the panel is saved without them."""
    for legend in _legends(fig):
        legend.remove()


def legend_to_json(entry: LegendEntry) -> dict[str, Any]:
    """A :class:`LegendEntry` as JSON (``path`` as nested lists)."""
    return dataclasses.asdict(entry)


def legend_from_json(raw: dict[str, Any]) -> LegendEntry:
    """:func:`legend_to_json`'s inverse.

    Raises:
        TypeError, KeyError, ValueError: not an entry's JSON (the cache then treats the entry as corrupt).
    """
    fields = dict(raw)
    path = fields.get("path")
    if path is not None:
        vertices, codes = path
        fields["path"] = (tuple((float(x), float(y)) for x, y in vertices), tuple(int(c) for c in codes))
    dashes = fields.get("dashes")
    if dashes is not None:
        offset, sequence = dashes
        fields["dashes"] = (float(offset), tuple(float(v) for v in sequence))
    parts = fields.get("parts")
    if parts is not None:
        fields["parts"] = tuple((str(role), legend_from_json(part)) for role, part in parts)
    return LegendEntry(**fields)


# ─── legends: merging and drawing ────────────────────────────────────────────


def merge_entries(legend: Legend, records: Mapping[str, tuple[LegendEntry, ...]], *,
                  file: str) -> tuple[LegendEntry, ...]:
    """The entries of ``legend``'s panels merged by label, in order of appearance (panels in ``from``
    order, each panel's entries in its order); an entry whose label came before is dropped.

    Raises:
        LayoutError: one label drawn in two styles (in two panels, or twice in one): names the label,
            both panels and what differs (key ``legend[i].from``); no panel has any entry.
    """
    merged: dict[str, tuple[str, LegendEntry]] = {}
    for panel in legend.panels:
        for entry in records.get(panel, ()):
            if entry.label not in merged:
                merged[entry.label] = (panel, entry)
                continue
            first_panel, first = merged[entry.label]
            if first.style() != entry.style():
                where = (f"twice in panel {panel!r}" if panel == first_panel
                         else f"in panels {first_panel!r} and {panel!r}")
                raise LayoutError(f"label {entry.label!r} is drawn in two styles {where}: "
                                  f"{_difference(first, entry, first_panel, panel)}; one label is one entry of the "
                                  "collected legend, so draw it alike in both or give the two different labels",
                                  file=file, key=f"{legend.key}.{legend.panels_key}")
    if not merged:
        listed = ", ".join(repr(p) for p in legend.panels)
        raise LayoutError(f"none of its panels ({listed}) has legend entries, so there is nothing to draw; label "
                          "their artists (ax.plot(..., label=\"...\")) or remove the [[legend]]",
                          file=file, key=f"{legend.key}.{legend.panels_key}")
    return tuple(entry for _, entry in merged.values())


#: what a message calls each part of an errorbar's or a stem's entry (:attr:`LegendEntry.parts`)
PART_NAMES = {"line": "its line", "bars": "its error bars", "caps": "its caps", "markers": "its markers",
              "stems": "its stems", "baseline": "its baseline"}


def _difference(a: LegendEntry, b: LegendEntry, panel_a: str, panel_b: str, *, join: str = "; ") -> str:
    """``a patch in 'x', a line in 'y'``, or each field that differs: ``facecolor #0072b2 in 'x', #d55e00 in
    'y'``, joined by ``join``; for an errorbar or a stem, each part that differs, by name (``its error bars:
    color ... and linewidth ...``)."""
    if a.kind != b.kind:
        return f"a {a.kind} in {panel_a!r}, a {b.kind} in {panel_b!r}"
    first, second = a.style(), b.style()
    said = [f"{_FIELD_NAMES.get(name, name)} {_shown(name, first[name])} in {panel_a!r}, "
            f"{_shown(name, second[name])} in {panel_b!r}"
            for name in first if name != "parts" and first[name] != second[name]]
    mine, theirs = dict(a.parts or ()), dict(b.parts or ())
    for role in dict.fromkeys([*mine, *theirs]):
        if role not in mine or role not in theirs:
            said.append(f"{PART_NAMES.get(role, role)} {'drawn' if role in mine else 'none'} in {panel_a!r}, "
                        f"{'drawn' if role in theirs else 'none'} in {panel_b!r}")
        elif mine[role] != theirs[role]:
            said.append(f"{PART_NAMES.get(role, role)}: "
                        f"{_difference(mine[role], theirs[role], panel_a, panel_b, join=' and ')}")
    return join.join(said)


#: a style field as a message names it, where its own name would not say what it is
_FIELD_NAMES = {"errors": "error bars along"}


#: style fields that are lengths in pt, and areas in pt² (a scatter marker's ``s``): messages give the unit
_PT_FIELDS = {"linewidth", "markersize", "markeredgewidth"}
_PT2_FIELDS = {"size"}


def _shown(name: str, value: Any) -> str:
    """A style value as a message shows it: ``1.5 pt``, ``#0072b2`` (``#0072b280`` when not opaque), ``none``,
    ``on-off 5 2``."""
    if value is None:
        return "none"
    if isinstance(value, float):
        unit = " pt" if name in _PT_FIELDS else " pt\N{SUPERSCRIPT TWO}" if name in _PT2_FIELDS else ""
        return f"{value:g}{unit}"
    if name == "path":
        return "its own marker shape"
    if name == "dashes":
        offset, sequence = value
        return "on-off " + " ".join(f"{v:g}" for v in sequence) + (f" from {offset:g}" if offset else "")
    if name == "errors":
        return {"": "none", "x": "x", "y": "y", "xy": "x and y"}.get(value, str(value))
    if isinstance(value, str) and re.fullmatch(r"#[0-9a-fA-F]{6}[fF]{2}", value):
        return value[:7]  # opaque: #rrggbb
    return str(value)


def _artist(entry: LegendEntry) -> Any:
    """A stand-alone artist that matplotlib's legend handlers draw as ``entry`` looks."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle
    from matplotlib.path import Path

    none = "none"
    if entry.kind in ("errorbar", "stem"):
        return _container(entry)
    if entry.kind == "line":
        style: dict[str, Any] = {"color": entry.color or none, "linestyle": entry.dashes or entry.linestyle or "-",
                                 "linewidth": entry.linewidth, "alpha": entry.alpha}
        if entry.marker is not None:
            style.update(marker=entry.marker, markersize=entry.markersize,
                         markerfacecolor=entry.markerfacecolor or none,
                         markeredgecolor=entry.markeredgecolor or none, markeredgewidth=entry.markeredgewidth,
                         fillstyle=entry.fillstyle)
        return Line2D([], [], **style)
    if entry.kind == "patch":
        return Rectangle((0, 0), 1, 1, facecolor=entry.facecolor or none, edgecolor=entry.edgecolor or none,
                         linewidth=entry.linewidth, linestyle=entry.dashes or entry.linestyle or "solid",
                         hatch=entry.hatch,
                         alpha=entry.alpha)
    assert entry.kind == "scatter" and entry.path is not None
    # a marker-only line, not a PathCollection: matplotlib's scatter handler places a collection that
    # belongs to no axes at offsets of its own, so each marker landed away from its row. A scatter's
    # path is its MarkerStyle's, normalised to half a unit as Line2D normalises a path marker, and its
    # size is an area in pt² (markersize = sqrt(s), matplotlib's own rule for scatter vs plot markers)
    vertices, codes = entry.path
    return Line2D([], [], linestyle="none", marker=Path(vertices, codes or None),
                  markersize=math.sqrt(entry.size or 0.0), markerfacecolor=entry.facecolor or none,
                  markeredgecolor=entry.edgecolor or none, markeredgewidth=entry.linewidth or 0.0,
                  alpha=entry.alpha)


def _container(entry: LegendEntry) -> Any:
    """An ``ErrorbarContainer`` or a ``StemContainer`` of stand-alone artists (:func:`_artist`, and a
    ``LineCollection`` for error bars and stems) that matplotlib's own ``HandlerErrorbar`` or ``HandlerStem``
    draws as ``entry`` looks; a stem's hidden marker line or baseline is a hidden line."""
    from matplotlib.collections import LineCollection
    from matplotlib.container import ErrorbarContainer, StemContainer
    from matplotlib.lines import Line2D

    parts = dict(entry.parts or ())

    def collection(part: LegendEntry) -> Any:
        return LineCollection([], colors=[part.color or "none"], linewidths=[part.linewidth or 0.0],
                              linestyles=[part.dashes or part.linestyle or "solid"], alpha=part.alpha)

    def line(role: str) -> Any:
        if role in parts:
            return _artist(parts[role])
        hidden = Line2D([], [])
        hidden.set_visible(False)
        return hidden

    if entry.kind == "errorbar":
        errors = entry.errors or ""
        drawn = (_artist(parts["line"]) if "line" in parts else None,  # None: fmt="none", as Axes.errorbar makes it
                 (_artist(parts["caps"]),) if "caps" in parts else (),
                 (collection(parts["bars"]),) if "bars" in parts else ())
        return ErrorbarContainer(drawn, has_xerr="x" in errors, has_yerr="y" in errors)  # type: ignore[arg-type]
    return StemContainer((line("markers"), collection(parts["stems"]), line("baseline")))


def draw_legend(legend: Legend, records: Mapping[str, tuple[LegendEntry, ...]], spec: FigureSpec,
                file: str) -> Drawn:
    """Merge (:func:`merge_entries`) and draw a collected legend with matplotlib at its natural size.

    Method: ``Figure.legend`` with the merged entries (:func:`_artist`), ``ncols``, ``title`` and
    ``frameon = frame``, in the figure's rcParams (``legend.*`` included); its box is measured with
    matplotlib's SVG renderer (the one that saves it, so the text metrics agree), the figure is
    resized to that box plus the frame's line width (half of it on each side, so the frame's stroke
    stays inside), and the legend's top-left corner is put there. The texts keep matplotlib's ids
    (``text_N``, in entry order, the title first), as a panel's do, so ``compose check`` reads them alike.

    Raises:
        LayoutError: what :func:`merge_entries` raises.
    """
    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.figure import Figure as MplFigure

    from composer.mpl.internals import math_as_paths
    from composer.stages.draft import rc_params

    entries = merge_entries(legend, records, file=file)
    rc = rc_params(spec, f"{legend.kind}:{legend.key}")
    with matplotlib.rc_context(rc):  # type: ignore[arg-type]  # rcParams names: composer's and the checked [rcparams]
        fig = MplFigure(figsize=(1.0, 1.0), dpi=72.0)
        drawn = fig.legend([_artist(e) for e in entries], [e.label for e in entries], loc="upper left",
                           bbox_to_anchor=(0.0, 1.0), borderaxespad=0.0, ncols=legend.ncols, title=legend.title,
                           frameon=legend.frame)
        box = drawn.get_window_extent(RendererSVG(72, 72, io.StringIO()))
        edge_pt = float(drawn.get_frame().get_linewidth()) if legend.frame else 0.0
        width_pt, height_pt = box.width + edge_pt, box.height + edge_pt
        fig.set_size_inches(width_pt / 72.0, height_pt / 72.0)
        drawn.set_bbox_to_anchor((edge_pt / 2 / width_pt, 1 - edge_pt / 2 / height_pt), transform=fig.transFigure)
        buf = io.BytesIO()
        with math_as_paths(fig) if spec.text == "editable" else nullcontext():
            fig.savefig(buf, format="svg", metadata={"Date": None}, dpi=spec.raster_ppi)
    return Drawn(buf.getvalue(), width_pt, height_pt)


def _legend_note(panel: str) -> str:
    return (f"panel {panel!r} is listed in a [[legend]]'s from but has no legend entries (it draws no legend and "
            "labels no artist), so it adds nothing to the legend; label its artists (label=\"...\") or take it out "
            "of from")


# ─── colorbars: merging and drawing ──────────────────────────────────────────

#: ``[[colorbar]]``: the bar's length per unit of thickness when the box leaves room: matplotlib's
#: default ``Figure.colorbar(aspect=20)``.
COLORBAR_ASPECT = 20.0
#: the thinnest bar drawn (pt); a box that leaves less beside its tick labels and label is an error
MIN_BAR_PT = 2.0
#: fitting the bar to its box: at most this many draws (tick labels change with the bar's length)
FIT_ROUNDS = 6


def collect_colorbar(fig: Any) -> tuple[ColorMapping, ...]:
    """A drawn panel's colour mappings (:func:`composer.stages.colormaps.color_mappings`)."""
    from composer.stages.colormaps import color_mappings

    return color_mappings(fig)


def _keep(fig: Any) -> None:
    """A shared colorbar removes nothing from its panels: a colorbar a panel draws itself stays."""


def merge_mappings(colorbar: Colorbar, records: Mapping[str, tuple[ColorMapping, ...]], *,
                   file: str) -> tuple[ColorMapping, str]:
    """The one colour mapping of ``colorbar``'s panels, and the ends the shared bar extends (``"neither"``,
    ``"min"``, ``"max"``, ``"both"``: every end some panel's own colorbar or contour set extends).

    Raises:
        LayoutError (key ``colorbar[i].for``): a mapping differs from the first panel's (names both
            panels, what differs and both values: colormap, norm, a norm parameter, contour levels or alpha);
            a norm composer cannot redraw; no panel maps colour.
    """
    from composer.stages.colormaps import NORMS

    first: tuple[str, ColorMapping] | None = None
    lower = upper = False
    below: tuple[float, ...] = ()
    above: tuple[float, ...] = ()
    for panel in colorbar.panels:
        for mapping in records.get(panel, ()):
            below, above = below or mapping.below, above or mapping.above
            if not mapping.known:
                raise LayoutError(f"panel {panel!r} maps colour with norm {mapping.norm}, which a [[colorbar]] "
                                  f"cannot redraw; use one of {', '.join(NORMS)}", file=file,
                                  key=f"{colorbar.key}.{colorbar.panels_key}")
            if first is None:
                first = (panel, mapping)
            else:
                found = first[1].differs(mapping)
                if found is not None:
                    what, mine, theirs = found
                    if what == "alpha":  # the bar is drawn with one alpha: the panels' (ColorMapping.alpha)
                        who = (f"panel {panel!r} draws its colours with two alphas, {mine} and {theirs}"
                               if panel == first[0] else f"panel {panel!r} draws its colours with alpha {theirs}, "
                               f"panel {first[0]!r} with alpha {mine}")
                        raise LayoutError(f"{who}; a shared colorbar is drawn with its panels' one alpha: give them "
                                          "the same alpha, or give each its own [[colorbar]]", file=file,
                                          key=f"{colorbar.key}.{colorbar.panels_key}")
                    who = (f"panel {panel!r} maps colour two ways: {what} {mine} and {theirs}" if panel == first[0]
                           else f"panel {panel!r} maps colour by {what} {theirs}, panel {first[0]!r} by {mine}")
                    raise LayoutError(f"{who}; one colorbar is for panels of one colour mapping (colormap, norm, "
                                      "limits): draw them with the same cmap, norm, vmin and vmax, or give each "
                                      "its own [[colorbar]]", file=file, key=f"{colorbar.key}.{colorbar.panels_key}")
            lower |= mapping.extend in ("min", "both")
            upper |= mapping.extend in ("max", "both")
    if first is None:
        listed = ", ".join(repr(p) for p in colorbar.panels)
        raise LayoutError(f"none of its panels ({listed}) maps values to colours (imshow, pcolormesh, contourf, "
                          "scatter with c=...), so there is no colour scale to show; remove the [[colorbar]]",
                          file=file, key=f"{colorbar.key}.{colorbar.panels_key}")
    extend = {(False, False): "neither", (True, False): "min", (False, True): "max", (True, True): "both"}
    return dataclasses.replace(first[1], below=below, above=above), extend[(lower, upper)]


def scalar_mappable(mapping: ColorMapping) -> Any:
    """A ``matplotlib.cm.ScalarMappable`` mapping values to colours as ``mapping`` records: a
    ``ListedColormap`` of its lookup table and under/over/bad colours, its norm rebuilt from its class and
    parameters."""
    from matplotlib import colors as mcolors
    from matplotlib.cm import ScalarMappable

    cmap = mcolors.ListedColormap(list(mapping.colors), name=mapping.cmap).with_extremes(
        under=mapping.under, over=mapping.over, bad=mapping.bad)
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in mapping.params}
    norm = getattr(mcolors, mapping.norm)(**params)
    return ScalarMappable(norm=norm, cmap=cmap)


def draw_colorbar(colorbar: Colorbar, records: Mapping[str, tuple[ColorMapping, ...]], spec: FigureSpec,
                  file: str, room: Room | None) -> Drawn:
    """Merge (:func:`merge_mappings`) and draw a shared colorbar with matplotlib at its box's size ``room``
    (its cell's, or its ``size``), its bar along ``room.along_pt`` (its panels' plot areas) when given.

    Method: ``Figure.colorbar`` of the panels' mapping (:func:`scalar_mappable`; a filled contour set's
    levels as ``boundaries``/``values``, with the outer band of each end the bar extends, and ticks at the
    levels, as ``Colorbar.__init__`` draws a contour set's colorbar) in an axes placed
    in pt, with ``orientation``, ``ticks``, ``label``, the merged ``extend`` and the panels' ``alpha``
    (:attr:`composer.stages.colormaps.ColorMapping.alpha`: the bar as pale as the maps it is the scale of,
    as matplotlib's own colorbar takes its mappable's alpha), in the figure's rcParams.
    The bar is fitted to the box by measuring what it draws (``Axes.get_tightbbox`` with matplotlib's
    SVG renderer, the one that saves it): along its length it spans ``room.along_pt`` (in a cell: the span
    of its panels' plot areas, as ``Figure.colorbar(ax=axes)`` with matplotlib's default ``shrink=1.0``
    makes a bar as long as its axes), else the box, less what its end tick labels (and extend triangles)
    would reach past the box; across, it is ``length / COLORBAR_ASPECT`` thick (matplotlib's rule:
    ``colorbar.make_axes``, ``aspect=20``, the ratio of long to short side, so the thickness follows the
    bar's length, not the font size), or what the box leaves beside its tick labels and label; a vertical
    bar sits at the box's left, a horizontal one at its top. Tick labels depend on the length (the locator), so
    it is measured again until the bar stops moving (at most :data:`FIT_ROUNDS` draws).

    Raises:
        LayoutError: what :func:`merge_mappings` raises; no box (``room`` None); a tick outside the
            colour scale (at ``colorbar[i].ticks``); a box too small for the
            tick labels and label (names its size and what they take).
    """
    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.ticker import FixedLocator

    from composer.mpl.internals import math_as_paths
    from composer.stages.draft import rc_params
    from composer.units import say_pair

    mapping, extend = merge_mappings(colorbar, records, file=file)
    if room is None:
        raise LayoutError("a colorbar needs a box: a cell, or a size with at or a relation", file=file,
                          key=colorbar.key)
    width_pt, height_pt = room.width_pt, room.height_pt
    vertical = colorbar.orientation == "vertical"
    rc = rc_params(spec, f"{colorbar.kind}:{colorbar.key}")
    with matplotlib.rc_context(rc):  # type: ignore[arg-type]  # rcParams names: composer's and the checked [rcparams]
        fig = MplFigure(figsize=(width_pt / 72.0, height_pt / 72.0), dpi=72.0)
        cax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        contour: dict[str, Any] = {}
        if mapping.boundaries:  # as Colorbar draws a contour set: its bands, each extension's among them
            below = [mapping.below] if extend in ("min", "both") and mapping.below else []
            above = [mapping.above] if extend in ("max", "both") and mapping.above else []
            values = [v for _, v in below] + list(mapping.values) + [v for _, v in above]
            contour = {"boundaries": [b for b, _ in below] + list(mapping.boundaries) + [b for b, _ in above],
                       "values": [int(v) for v in values] if mapping.norm == "NoNorm" else values}  # colors=: indices
            if colorbar.ticks is None:
                contour["ticks"] = FixedLocator(list(mapping.boundaries), nbins=10)
        bar_drawn = fig.colorbar(scalar_mappable(mapping), cax=cax, orientation=colorbar.orientation,
                                 extend=extend, label=colorbar.label or "", alpha=mapping.alpha, **contour)
        if colorbar.ticks is not None:  # at the values asked, written as asked (%g), not a log axis's 2x10^-2
            low, high = sorted(cax.get_ylim() if vertical else cax.get_xlim())
            slack = 1e-9 * (high - low)
            outside = [v for v in colorbar.ticks if not low - slack <= v <= high + slack]
            if outside:
                raise LayoutError(f"{', '.join(f'{v:g}' for v in outside)} {'is' if len(outside) == 1 else 'are'} "
                                  f"outside the colour scale, {low:g} to {high:g}: give ticks within it",
                                  file=file, key=f"{colorbar.key}.ticks")
            minus = "\N{MINUS SIGN}" if matplotlib.rcParams["axes.unicode_minus"] else "-"
            bar_drawn.set_ticks(list(colorbar.ticks), labels=[f"{v:g}".replace("-", minus) for v in colorbar.ticks])
            bar_drawn.minorticks_off()
        renderer = RendererSVG(width_pt / 72.0, height_pt / 72.0, io.StringIO())
        length = width_pt if not vertical else height_pt
        bar = (0.0, 0.0, min(width_pt, length / COLORBAR_ASPECT) if vertical else width_pt,
               height_pt if vertical else min(height_pt, length / COLORBAR_ASPECT))  # x0, y0 (up), w, h in pt
        for _ in range(FIT_ROUNDS):
            cax.set_position((bar[0] / width_pt, bar[1] / height_pt, bar[2] / width_pt, bar[3] / height_pt))
            reach = cax.get_tightbbox(renderer)  # display units: pt at 72 dpi, y up
            assert reach is not None  # the colorbar's axes is visible and drawn
            left, right = bar[0] - reach.x0, reach.x1 - (bar[0] + bar[2])
            below, above = bar[1] - reach.y0, reach.y1 - (bar[1] + bar[3])
            start, end = room.along_pt or (0.0, height_pt if vertical else width_pt)  # y down (vertical) or x
            if vertical:
                top, bottom = max(start, above), min(end, height_pt - below)  # y down
                length = bottom - top
                thick = min(length / COLORBAR_ASPECT, width_pt - left - right)
                new = (left, height_pt - bottom, thick, length)
            else:
                first, last = max(start, left), min(end, width_pt - right)
                length = last - first
                thick = min(length / COLORBAR_ASPECT, height_pt - above - below)
                new = (first, height_pt - above - thick, length, thick)
            if min(thick, length) < MIN_BAR_PT:
                unit = spec.unit
                raise LayoutError(f"its box is {say_pair(width_pt, height_pt, unit)}, and its tick labels and label "
                                  f"take {say_pair(left + right, above + below, unit)} of it, leaving no room for a "
                                  "bar; give it a larger cell or size, fewer ticks or a shorter label",
                                  file=file, key=colorbar.key)
            done = max(abs(a - b) for a, b in zip(new, bar)) < 1e-3
            bar = new
            if done:
                break
        if room.natural:  # the box cut to what it draws across the bar (its tick labels and label)
            reach = cax.get_tightbbox(renderer)
            assert reach is not None
            if vertical:
                width_pt = math.ceil((reach.x1 - min(reach.x0, 0.0)) * 100) / 100
                bar = (bar[0] - min(reach.x0, 0.0), bar[1], bar[2], bar[3])
            else:
                cut = max(reach.y0, 0.0) if reach.y0 < height_pt else 0.0
                height_pt = math.ceil((height_pt - cut) * 100) / 100
                bar = (bar[0], bar[1] - cut, bar[2], bar[3])
            fig.set_size_inches(width_pt / 72.0, height_pt / 72.0)
        cax.set_position((bar[0] / width_pt, bar[1] / height_pt, bar[2] / width_pt, bar[3] / height_pt))
        buf = io.BytesIO()
        with math_as_paths(fig) if spec.text == "editable" else nullcontext():
            fig.savefig(buf, format="svg", metadata={"Date": None}, dpi=spec.raster_ppi)
    return Drawn(buf.getvalue(), width_pt, height_pt)


def _mapping_from_json(raw: Any) -> ColorMapping:
    from composer.stages.colormaps import ColorMapping

    return ColorMapping.from_json(raw)


def _colorbar_note(panel: str) -> str:
    return (f"panel {panel!r} is listed in a [[colorbar]]'s for but maps no values to colours (no imshow, "
            "pcolormesh, contourf or scatter with c=...), so the colorbar is not its scale; remove it from for")


# ─── the kinds ───────────────────────────────────────────────────────────────

#: every guide kind, by name (the model's ``kind``, the layout's array name).
KINDS: dict[str, GuideKind] = {
    "legend": GuideKind("legend", collect_legend, strip_legend, legend_to_json, legend_from_json,
                        lambda legend, records, spec, file, room: draw_legend(legend, records, spec, file),
                        _legend_note),
    "colorbar": GuideKind("colorbar", collect_colorbar, _keep, lambda mapping: mapping.to_json(),
                          _mapping_from_json, draw_colorbar, _colorbar_note),
}


def kinds_of(figure: Figure, panel: str) -> tuple[str, ...]:
    """The guide kinds some guide of ``figure`` collects from ``panel`` (sorted; () for most panels)."""
    return tuple(sorted({g.kind for g in figure.guides if panel in g.panels}))


def collect(fig: Any, kinds: Collection[str], *, panel: str) -> tuple[dict[str, tuple[Any, ...]], tuple[str, ...]]:
    """In a panel's worker: collect the records of each of ``kinds`` from the drawn ``fig``, then strip what
    those guides replace.

    Returns:
        ``(records, notes)``: kind -> records; one warning (``kind.note``) per kind the panel
        reported nothing for.

    Raises:
        TypeError: a record cannot be made of what the panel drew (the caller names the panel).
    """
    records: dict[str, tuple[Any, ...]] = {}
    notes: list[str] = []
    for name in sorted(kinds):
        kind = KINDS[name]
        records[name] = kind.collect(fig)
        if not records[name]:
            notes.append(kind.note(panel))
    for name in sorted(kinds):
        KINDS[name].strip(fig)
    return records, tuple(n for n in notes if n)


def guides_to_json(guides: Mapping[str, tuple[Any, ...]]) -> dict[str, list[Any]]:
    """A panel's records as JSON (kind -> list), for the panel cache."""
    return {name: [KINDS[name].to_json(r) for r in records] for name, records in sorted(guides.items())}


def guides_from_json(raw: Mapping[str, Any]) -> dict[str, tuple[Any, ...]]:
    """:func:`guides_to_json`'s inverse.

    Raises:
        KeyError, TypeError, ValueError: an unknown kind or a broken record (a corrupt cache entry).
    """
    return {str(name): tuple(KINDS[name].from_json(r) for r in records) for name, records in raw.items()}


#: drawings made in this process, by a digest of everything they are drawn from (:func:`draw_guides`)
_DRAWN: dict[str, Drawn] = {}
_DRAWN_MAX = 64


def draw_guides(figure: Figure, rendered: Mapping[str, Rendered], *, file: str,
                rooms: Sequence[Room | None] | None = None) -> tuple[Drawn | None, ...]:
    """Every guide of ``figure`` drawn from its rendered panels' records, in ``figure.guides`` order;
    ``rooms``: the box each one's placement gives (:func:`composer.stages.geometry.guide_rooms`), None: none.

    A guide some of whose panels are not in ``rendered`` (panels not drawn yet) is None. Drawings
    are memoised on a digest of the guide, its records, the figure's spec and the rcParams in force
    (the compose stage resolves the geometry several times in a build).

    Raises:
        LayoutError: what the kind's ``draw`` raises (a style conflict naming both panels).
    """
    import matplotlib

    out: list[Drawn | None] = []
    for i, guide in enumerate(figure.guides):
        room = rooms[i] if rooms is not None else None
        if not all(p in rendered for p in guide.panels):
            out.append(None)
            continue
        kind = KINDS[guide.kind]
        records = {p: rendered[p].guides.get(guide.kind, ()) for p in guide.panels}
        digest = hashlib.sha256(json.dumps(
            [repr(guide), repr(figure.spec), {p: [kind.to_json(r) for r in rs] for p, rs in records.items()},
             repr(sorted((k, repr(v)) for k, v in dict.items(matplotlib.rcParams))), file, repr(room)],
            sort_keys=True, default=repr).encode()).hexdigest()
        if digest not in _DRAWN:
            if len(_DRAWN) >= _DRAWN_MAX:
                _DRAWN.clear()
            _DRAWN[digest] = _draw(kind, guide, records, figure.spec, file, room)
        out.append(_DRAWN[digest])
    return tuple(out)


def _draw(kind: GuideKind, guide: Legend | Colorbar, records: Mapping[str, Any], spec: FigureSpec, file: str,
          room: Room | None) -> Drawn:
    """``kind.draw``, its user-made failures as one line at the guide's key: text matplotlib cannot typeset
    (bad mathtext in a label, title or tick: a ValueError) and characters the figure's fonts have no glyph for
    (matplotlib would draw empty boxes), as a panel's are.

    Raises:
        LayoutError: at ``guide.key``: either of those; and what ``kind.draw`` raises.
    """
    from composer.mpl.fontlog import glyph_list, missing_glyphs

    with missing_glyphs() as missing:
        try:
            drawn = kind.draw(guide, records, spec, file, room)
        except ValueError as exc:
            raise LayoutError(f"cannot typeset a text of it (a label, title or tick): {' '.join(str(exc).split())}",
                              file=file, key=guide.key) from None
    if missing:
        raise LayoutError(f"its texts have {glyph_list(missing)}, which font {spec.font!r} has no glyph for (they "
                          "would show as empty boxes); name a font that has them after the first in [figure] font, "
                          "e.g. font = \"DejaVu Sans, WenQuanYi Micro Hei\"", file=file, key=guide.key)
    return drawn


def guide_id(guide: Legend | Colorbar, index: int) -> str:
    """The canvas id of a guide's group: ``KIND-NAME``, or without a name ``KIND-I``, ``I`` its index among
    the guides of its kind as its layout key says (``colorbar[0]`` is ``colorbar-0`` after any legends;
    ``index``, its place among ``figure.guides``, only for a guide without such a key); hyphenated, so
    never a panel's name (the prefix of its inner ids too)."""
    if guide.name:
        return f"{guide.kind}-{guide.name}"
    found = re.search(r"\[(\d+)\]$", guide.key)
    return f"{guide.kind}-{found.group(1) if found else index}"


def guide_sizes(drawn: Sequence[Drawn | None]) -> list[tuple[float, float] | None]:
    """(width, height) pt of each drawing, for :func:`composer.stages.geometry.resolve` (None: not drawn)."""
    return [(d.width_pt, d.height_pt) if d is not None else None for d in drawn]
