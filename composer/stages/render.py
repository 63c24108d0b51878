"""Render stage: draw a panel function at its final size and save it as SVG with its data anchors.

:func:`render_panel` draws a panel (:mod:`composer.stages.draft`, or to an aspect:
:mod:`composer.stages.aspect`) and :func:`save_panel` saves the draft (after any alignment,
:mod:`composer.stages.align`) as a :class:`RenderedPanel`: its SVG, its data anchors
(:mod:`composer.stages.anchors`), its plot area and the records of the guides that list it
(:mod:`composer.stages.guides`).

:func:`composer.pipeline.render_panels` runs renderers in forked workers with a
timeout (:mod:`composer.sandbox.isolate`); :meth:`composer.sandbox.isolate.WorkerFailure.worded` words what
went wrong there. A renderer that raises, hangs, crashes the interpreter or returns
garbage becomes one :class:`PanelError` naming the panel, the function and the
line of panel code, and nothing it changed in matplotlib's state or in its
data reaches the other panels.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from composer.errors import PanelError
from composer.layout.model import FigureSpec, Panel
from composer.mpl.fontlog import glyph_list, missing_glyphs
from composer.mpl.savesvg import save_svg
from composer.stages.anchors import data_anchors
from composer.stages.aspect import draw_locked
from composer.stages.draft import Draft, draw_panel, plot_area, rc_context, rc_params
from composer.stages.guides import collect as collect_guides


@dataclass(frozen=True)
class RenderedPanel:
    """A rendered panel: its SVG document and its data anchors.

    Attributes:
        svg: the panel's SVG bytes, viewBox ``0 0 width_pt height_pt``.
        anchors: data anchor name -> (x_pt, y_pt) from the panel's top-left, y down.
        notes: warnings to report in the parent process (the panel is drawn in a
            worker): fonts it asks for that are not installed.
        substituted: font (and weight) the panel asked for -> what matplotlib
            drew instead, seen while it was drawn and saved
            (:func:`font_substitutions`; ``compose check``'s
            ``font-substituted`` rule). Filled by
            :func:`composer.pipeline.render_panels` and cached with the panel;
            empty from :func:`render_panel`, which does not watch.
        opened: files the renderer opened for reading (absolute path -> sha256, None: missing) and
            wrote: files it wrote, recorded in its worker (:mod:`composer.sandbox.audit`) by
            :func:`composer.pipeline.render_panels`; the cache keeps ``opened`` with the panel.
        plot_area: (x0, y0, x1, y1) in pt from the panel's top-left, y down: the union
            of its visible axes as drawn (after aspect locking), colorbars left out
            (:func:`plot_area`); None when it has no such axes. ``[figure] label_at =
            "plot"`` places labels by it.
        guides: guide kind -> the records the panel reported for it (:mod:`composer.stages.guides`:
            its legend entries, as plain values), collected in its worker for the kinds whose guides
            list it, and cached with it; empty for other panels.
    """

    svg: bytes
    anchors: dict[str, tuple[float, float]]
    notes: tuple[str, ...] = ()
    substituted: dict[str, str] = field(default_factory=dict)
    opened: dict[str, str | None] = field(default_factory=dict)
    wrote: tuple[str, ...] = ()
    plot_area: tuple[float, float, float, float] | None = None
    guides: dict[str, tuple[Any, ...]] = field(default_factory=dict)


def save_panel(draft: Draft, spec: FigureSpec, *, file: str, guides: Collection[str] = ()) -> RenderedPanel:
    """Save a drawn panel as SVG (:func:`composer.mpl.savesvg.save_svg`: text mode,
    rasters at ``spec.raster_ppi``) and transform its data anchors into panel pt. A draft a result kind
    drew as SVG (``draft.svg``, :mod:`composer.stages.results`) is kept as it is, with its plot area and anchors.

    ``guides``: the guide kinds whose guides list this panel (:func:`composer.stages.guides.kinds_of`);
    their records are collected first and what they replace (its own legends) is removed before the
    SVG is saved (:func:`composer.stages.guides.collect`).

    Raises:
        PanelError: drawing raised, the renderer returned something other
            than None or a dict of data anchors (names must be words, points
            finite, axes of this figure), or it drew characters its fonts have
            no glyph for (matplotlib would draw empty boxes).
    """
    panel = draft.panel
    key = f"{panel.key}.{panel.kind}"  # the key that names its renderer
    if draft.svg is not None:  # a result kind drew it as SVG (composer.stages.results.SvgDrawing)
        if guides:
            raise PanelError(f"panel {panel.name!r}: {panel.source} is drawn as SVG by another library, so a "
                             f"[[{'/'.join(sorted(guides))}]] cannot collect its entries; remove it from the guide's "
                             "panels", file=file, key=key)
        if draft.missing:
            raise PanelError(f"panel {panel.name!r}: {panel.source} draws {glyph_list(draft.missing)}, which font "
                             f"{spec.font!r} has no glyph for", file=file, key=key)
        return RenderedPanel(svg=draft.svg.svg, anchors=dict(draft.svg.anchors), notes=draft.svg.notes,
                             plot_area=draft.svg.plot_area)
    records: dict[str, tuple[Any, ...]] = {}
    collected_notes: tuple[str, ...] = ()
    with rc_context(rc_params(spec, panel.name)):
        if guides:
            try:
                records, collected_notes = collect_guides(draft.fig, guides, panel=panel.name)
            except TypeError as exc:
                raise PanelError(f"panel {panel.name!r}: {panel.source} draws a legend entry with a {exc}, which a "
                                 "collected [[legend]] cannot show; label lines, markers, patches (bars) or "
                                 "scatter points", file=file, key=key) from None
        with missing_glyphs() as missing:
            try:
                svg, notes = save_svg(draft.fig, spec, panel, file=file)
            except PanelError:
                raise
            except Exception as exc:
                raise PanelError(f"panel {panel.name!r}: drawing what {panel.source} made raised "
                                 f"{type(exc).__name__}: {' '.join(str(exc).split())}", file=file, key=key) from None
        missing += draft.missing
        if missing:
            raise PanelError(f"panel {panel.name!r}: {panel.source} draws {glyph_list(missing)}, which font "
                             f"{spec.font!r} has no glyph for (they would show as empty boxes); name a font that "
                             "has them after the first in [figure] font, e.g. font = \"DejaVu Sans, WenQuanYi "
                             "Micro Hei\"", file=file, key=key)
        anchors = data_anchors(draft.fig, draft.result, panel, draft.size_pt[1], file=file, key=key)
    return RenderedPanel(svg=svg, anchors=anchors, notes=notes + collected_notes,
                         plot_area=plot_area(draft.fig, draft.size_pt), guides=records)


def rendered_size(svg: bytes) -> tuple[float, float]:
    """(width, height) pt of a rendered panel's SVG: its root ``viewBox`` (``0 0 w h``, 1 unit = 1 pt as
    matplotlib writes it at 72 dpi)."""
    import re

    found = re.search(rb'<svg[^>]*?viewBox="\s*[-\d.eE+]+[\s,]+[-\d.eE+]+[\s,]+([\d.eE+]+)[\s,]+([\d.eE+]+)', svg)
    if found is None:
        raise ValueError("a rendered panel's SVG has no viewBox")
    return float(found.group(1)), float(found.group(2))


def render_panel(func: Callable[..., Any], panel: Panel, spec: FigureSpec, data: Mapping[str, Any], *,
                 file: str, size_pt: tuple[float, float] | None = None) -> RenderedPanel:
    """Draw and save one panel at its final size (``size_pt``, default the panel's own size).

    Raises:
        PanelError: see :func:`draw_panel` and :func:`save_panel`.
    """
    size = size_pt or panel.size_pt
    assert size is not None
    draw = draw_locked if panel.aspect is not None and panel.aspect_of == "plot" else draw_panel
    return save_panel(draw(func, panel, spec, data, size_pt=size, file=file), spec, file=file)
