"""Build: run the stages for one figure, from its layout to the output files.

::

    layouts/NAME.toml --load--> Figure --read (stages.inputs)--> Inputs
        --typeset (stages.typeset)--> text blocks --place (stages.geometry)--> boxes
        --panel cache lookup / render in workers--> panel SVGs (+ data anchors)
        --compose (stages.compose)--> canvas SVG
        --export (stages.export: resvg, or cairosvg)--> NAME.pdf, NAME.png
        --write--> OUT/NAME.*, cache entries, the manifest

One pipeline serves every caller: :func:`build` (a layout file: ``compose
NAME``, ``composer.build("NAME")``), :func:`build_figure` (a figure held in
memory: :class:`composer.api.Figure`, its ``build``, ``svg``, ``png`` and
``pdf``) and :func:`lint_figure` / :func:`check` (compose and check, write
nothing). They differ only in their :class:`BuildOptions` and in where the
figure comes from.

A figure held in memory has no layout file to hash, so it has no manifest:
it is never up to date without being built, and its build neither reads nor
writes ``OUT/.NAME.manifest.json`` (which belongs to ``layouts/NAME.*``; it
stays sound, since it records the digests of the outputs, and an API build
that changes them makes the next ``compose NAME`` rebuild). It does use the
panel cache and the text cache: a panel's cache key covers everything it is
drawn from (:mod:`composer.incremental.cache`), so a file build and an API
build of the same figure share entries, and building it twice renders
nothing the second time. A renderer given in code as a function (not as
``"module:function"`` of ``panels/``) has no source file to hash: its panel
is drawn by every build.

Outputs are written only after every stage succeeded, each atomically, so a
failed build leaves the previous outputs byte-identical. The user's code
(panel functions, ``values()``) and the engines' exports run in forked
workers with a wall-time limit (``timeout_s``, :mod:`composer.sandbox.isolate`);
imported SVG files are sanitized as they are read (:mod:`composer.svg.sanitize`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from composer.errors import ComposerError, ComposerWarning, ImportFeature, PanelError, ProjectError
from composer.incremental import manifest
from composer.incremental.cache import (
    PanelCache,
    TextCache,
    cache_dir,
    text_cache_path,
)
from composer.incremental.keys import input_digests, panel_keys
from composer.incremental.provenance import Provenance
from composer.incremental.provenance import gather as gather_provenance
from composer.incremental.record import manifest_contents
from composer.kinds import outputs
from composer.kinds.outputs import PdfPage
from composer.layout.loader import load_layout
from composer.layout.model import Figure, FigureSpec
from composer.layout.positions import locate
from composer.layout.sources import table as source_table
from composer.lint.rules import Report, clipped_text_warnings, font_findings, lint, output_findings, with_outputs
from composer.mpl.fontlog import font_substitutions
from composer.progress import Progress
from composer.sandbox.audit import Opened, collecting, recording
from composer.sandbox.isolate import (
    DEFAULT_TIMEOUT_S,
    WorkerFailure,
    capturing,
    check_jobs,
    check_timeout,
    deferred_interrupt,
    run_isolated,
)
from composer.sandbox.parallel import RenderTask, available_cores, render_all
from composer.stages.align import align_plot_areas
from composer.stages.aspect import draw_locked
from composer.stages.compose import (
    clipped_key_path,
    compose_documents,
    figure_geometry,
    fit_height,
    guide_drawings,
    panel_label_boxes,
)
from composer.stages.describe import AltText, alt_text
from composer.stages.draft import draw_panel, warm_up
from composer.stages.draw import connector_label_box
from composer.stages.export import (
    check_chosen,
    check_dpi,
    check_engine,
    export,
)
from composer.stages.geometry import Box, panel_boxes
from composer.stages.guides import kinds_of
from composer.stages.inputs import Inputs, Project, read_figure_inputs
from composer.stages.named import Element, NamedText, figure_elements, figure_texts
from composer.stages.panels import panel_documents, panel_pdf_document
from composer.stages.render import RenderedPanel, save_panel
from composer.stages.sources import source_of
from composer.stages.typeset import Typeset, text_cache, typeset_figure
from composer.stages.usercode import imports_undone, prepare_fork, user_dir
from composer.svg.io import write_files_atomically

#: formats ``compose`` writes by default; every format it can write is the table
#: :data:`composer.kinds.outputs.FORMATS` (``--format tiff,eps``).
FORMATS = outputs.DEFAULT_FORMATS


@dataclass(frozen=True)
class BuildResult:
    """What a build did.

    Attributes:
        outputs: format -> output path, for every requested format.
        up_to_date: nothing had changed since the last build (see
            :func:`composer.incremental.manifest.stale_reason`): nothing was rendered,
            composed or written.
        reason: why a build was needed (``"panels/demo.py changed"``), or "".
        rendered: panels drawn by matplotlib in this build, in layout order.
        cached: panels taken from the panel cache.
        repaired: panels whose cache entry was corrupt: deleted, drawn again.
        written: formats whose files were (re)written; an output whose bytes
            did not change is left alone, and PDF/PNG are made again only
            when the SVG bytes changed.
        seconds: wall time per stage: ``check`` (the no-op check), ``read``
            (layout, input digests, data, panel modules, typesetting, cache
            keys and lookups), ``render`` (all panel rendering, parallel),
            ``compose``, ``export`` (PDF and PNG), ``write`` (outputs, cache
            entries, manifest).
        render_seconds: render group (panel names joined by ``+``) -> its
            own render time, measured in the process that rendered it.
        report: the check report (:mod:`composer.lint.rules`) when one was asked for.
        warnings: the messages of the :class:`ComposerWarning` s the build
            issued (a panel's missing font, a raster below its ppi...), in
            order; they are kept in the manifest, and a no-op build issues
            them again (and lists them here), so an up-to-date figure is not
            mistaken for a clean one.
        output: render group (a panel's name; aligned panels drawn together: names joined by
            ``+``) -> what its code printed while it was drawn in this build: stdout, stderr
            (file-descriptor level: C code and child processes too) and Python warnings (one
            line each), in the order written, at most 64 KiB (then ``... (N more bytes)``); in
            layout order. Panels that printed nothing, and panels taken from the cache (they did
            not run), have no entry. Never printed by the library (the CLI shows it after its line).

        fitted_height: the canvas height a ``height = "auto"`` figure was built
            with, in the unit of its width (``"96.25mm"``); "" otherwise and for
            an up-to-date figure.
        elements: with ``BuildOptions.elements``, every named element of the figure with its
            box as composed (:func:`composer.stages.named.figure_elements`); else empty.
        texts: with ``BuildOptions.elements``, every text of the figure by a stable name
            (:func:`composer.stages.named.figure_texts`); else empty.
        geometry: with ``BuildOptions.elements``, the figure's resolved geometry as composed
            (:class:`composer.stages.geometry.Geometry`: boxes, plot areas, grid cells, routes, in canvas
            pt), and ``figure`` the layout it was built from (``compose serve``'s ``elements.json``:
            ``composer.edit``); else None. connector_labels: arrow index -> its label's box as drawn
            (:func:`composer.stages.draw.connector_label_box`), with ``BuildOptions.elements``.

    ``outputs`` also holds ``debug-svg``/``debug-png`` for the overlay, ``debug-txt`` for the ids SVG panels offer.
    """

    outputs: dict[str, Path]
    up_to_date: bool = False
    reason: str = ""
    rendered: tuple[str, ...] = ()
    cached: tuple[str, ...] = ()
    repaired: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    render_seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    report: Any = None
    warnings: tuple[str, ...] = ()
    output: dict[str, str] = dataclasses.field(default_factory=dict)
    fitted_height: str = ""
    elements: tuple[Element, ...] = ()
    texts: tuple[NamedText, ...] = ()
    geometry: Any = None
    figure: Any = None
    connector_labels: dict[int, Any] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class BuildOptions:
    """How one build runs (the options of :func:`build`, checked; see there for each).

    Attributes:
        formats: the outputs to make, any of :data:`composer.kinds.outputs.FORMATS` (none: compose only).
        dpi: PNG and TIFF resolution.
        engine: the export engine (None: the layout's ``[figure] engine``).
        pdf_standard: a PDF/A profile or PDF version, or None.
        debug: also make the layout overlay ``NAME.debug.svg``/``.png``.
        check: also lint the composed figure into ``BuildResult.report``.
        timeout_s: wall-time limit in seconds of each panel, ``values()`` and export; None: none.
        jobs: worker processes rendering panels and exporting side by side.
        cache: read the panel and text caches (and, when ``store``, fill them); with a
            layout file, also the manifest (no-op test, exports skipped when the SVG is unchanged).
        store: fill the caches after a successful build (only with ``cache``).
        write: write the outputs under the output folder (False: return their bytes only).
        svg_first: write the SVG before the PDF and PNG are exported (``--watch``).
        panels: also write every panel alone at its box size, ``OUT/NAME/PANEL.FORMAT`` (``--panels``).
        panel_cache: the panel cache folder to read and fill (None: the project's own,
            :func:`composer.incremental.cache.cache_dir`); ``compose diff`` builds an old revision of the
            project in a git worktree with the project's cache, so unchanged panels are not drawn again.
        elements: also list the figure's named elements with their boxes and its texts into
            :attr:`BuildResult.elements` and :attr:`BuildResult.texts` (``compose diff``).
    """

    formats: tuple[str, ...] = FORMATS
    dpi: float = 300.0
    engine: str | None = None
    pdf_standard: str | None = None
    debug: bool = False
    check: bool = False
    timeout_s: float | None = DEFAULT_TIMEOUT_S
    jobs: int = 1
    cache: bool = True
    store: bool = True
    write: bool = True
    svg_first: bool = False
    panels: bool = False
    panel_cache: Path | None = None
    elements: bool = False


@dataclass(frozen=True)
class _Source:
    """Where the figure of a build comes from.

    Attributes:
        project: its project. name: its name (output files ``NAME.*``).
        layout_path: its layout file; None for a figure held in memory (no manifest then).
        figure: the figure already loaded (a figure held in memory), or None: load ``layout_path``.
        file: how messages name it (``layouts/NAME.toml``).
        functions: renderers given in code (``"module:function"`` -> function); their panels are never cached.
    """

    project: Project
    name: str
    layout_path: Path | None
    figure: Figure | None
    file: str
    functions: Mapping[str, Callable[..., Any]] = dataclasses.field(default_factory=dict)

    @classmethod
    def layout(cls, project: Project, name: str) -> _Source:
        """The figure ``layouts/NAME.toml`` (or ``.py``) of ``project``.

        Raises:
            ProjectError: no such layout, or two (:meth:`Project.layout_path`).
        """
        path = project.layout_path(name)
        return cls(project, name, path, None, project.display(path))


@dataclass(frozen=True)
class _Built:
    """What :func:`_build` returns: the result, and the bytes of every output made (format -> bytes)."""

    result: BuildResult
    made: dict[str, bytes]


def build(name: str, *, root: str | Path = ".", out: str | Path | None = None,
          formats: tuple[str, ...] = FORMATS, dpi: float = 300.0, debug: bool = False, check: bool = False,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, jobs: int | None = None, cache: bool = True,
          progress: Progress | None = None, engine: str | None = None, pdf_standard: str | None = None,
          svg_first: bool = False, panels: bool = False) -> BuildResult:
    """Build figure ``name`` of the project at ``root`` into ``out`` (default ``root/build``).

    Incremental: when nothing changed since the last build (the manifest in
    ``out``, :mod:`composer.incremental.manifest`) it returns at once; otherwise each
    panel comes from the panel cache (:mod:`composer.incremental.cache`) unless its inputs
    changed, the missing ones are rendered in parallel
    (:mod:`composer.sandbox.parallel`), and PDF/PNG are made again only when the SVG
    bytes changed.

    Args:
        name: the figure, ``layouts/NAME.toml`` (or ``.py``).
        formats: any of ``svg``, ``pdf``, ``png``, ``tiff``, ``eps``.
        dpi: PNG and TIFF resolution; the PNG is round(width_in * dpi) px wide.
        debug: also write the layout overlay ``NAME.debug.svg`` and
            ``NAME.debug.png`` (:mod:`composer.stages.overlay`); the other outputs are
            the same bytes either way.
        check: also lint the figure (:mod:`composer.lint.rules`) into
            ``result.report``. Panels come from the panel cache or are
            rendered like any build's (isolated, ``timeout_s``, ``jobs``);
            the font substitutions matplotlib made while drawing a panel are
            kept with it, so the report is the same either way.
        timeout_s: wall-time limit in seconds of each panel function (or
            group of aligned panels), each ``values()`` and each export; None
            for no limit (:mod:`composer.sandbox.isolate`).
        jobs: worker processes rendering panels and exporting side by side
            (default: every available core; 1 = one after the other). Each
            panel and export still runs isolated in its own forked process.
        cache: False ignores the manifest and the panel cache (neither read
            nor written) and redoes every stage.
        progress: receives progress events (default: shows nothing).
        engine: the export engine, ``resvg`` or ``cairosvg``
            (:mod:`composer.stages.export`); None takes ``[figure] engine``.
        pdf_standard: a PDF/A profile or PDF version for the PDF (``"a-2b"``;
            resvg engine only).
        svg_first: write the SVG as soon as it is composed, then export PDF
            and PNG (``--watch``: an SVG viewer updates at once). A failing
            export then leaves the new SVG beside the old PDF and PNG.
        panels: also write every panel alone at its box size, in each of
            ``formats``, as ``OUT/NAME/PANEL.svg|pdf|png``
            (:mod:`composer.stages.panels`: without its label and title);
            the build is then never skipped as up to date.

    Returns:
        A :class:`BuildResult`.

    Raises:
        ComposerError: any user-fixable problem; nothing under ``out`` is
            changed then (no output, no manifest, no cache entry).
    """
    check_outputs(formats, dpi)
    check_timeout(timeout_s)
    check_jobs(jobs)
    check_chosen(engine, pdf_standard)
    started = time.perf_counter()
    project = Project.at(root)
    out_dir = Path(out) if out is not None else project.root / "build"
    opts = manifest.options(formats, dpi, engine, pdf_standard)
    reason = (manifest.stale_reason(project.root, name, out_dir, opts) if cache and not (debug or check or panels)
              else "--no-cache" if not cache else "--panels" if panels else "--debug/--check")
    seconds = {"check": time.perf_counter() - started}
    if reason is None:
        replayed = tuple(manifest.recorded_warnings(out_dir, name))
        for message in replayed:  # what the build that made these outputs warned about
            warnings.warn(ComposerWarning(message), stacklevel=2)
        return BuildResult(outputs=manifest.recorded_outputs(out_dir, name), up_to_date=True, seconds=seconds,
                           warnings=replayed)
    options = BuildOptions(formats=tuple(formats), dpi=dpi, engine=engine, pdf_standard=pdf_standard, debug=debug,
                           check=check, timeout_s=timeout_s, jobs=jobs or available_cores(), cache=cache,
                           store=cache, svg_first=svg_first, panels=panels)
    with _located(project):
        return _run(lambda: _Source.layout(project, name), out_dir, options, progress, reason, seconds).result


@contextlib.contextmanager
def _located(project: Project) -> Iterator[None]:
    """A ComposerError raised in the block that names a key of one of the project's TOML files gets
    the line and column where that key is written (:func:`composer.layout.positions.locate`)."""
    try:
        yield
    except ComposerError as exc:
        if exc.file and exc.key and exc.line is None:
            path = project.root / exc.file
            if path.is_file():
                locate(exc, path)
        raise


def build_figure(project: Project, figure: Figure, file: str, options: BuildOptions, *,
                 out: str | Path | None = None, functions: Mapping[str, Callable[..., Any]] | None = None,
                 progress: Progress | None = None) -> tuple[BuildResult, dict[str, bytes]]:
    """Build a figure held in memory (:class:`composer.api.Figure`) through the same stages as :func:`build`.

    There is no no-op test and no manifest (see the module docstring); the
    panel and text caches are used as ``options`` say. With
    ``options.write`` False nothing is written under ``out``: the outputs'
    bytes are returned only (what ``Figure.svg``/``png``/``pdf`` give).

    Args:
        project: the figure's project. figure: the loaded layout
            (:func:`composer.layout.loader.load_document`). file: how messages name the figure.
        options: checked by the caller (:func:`check_outputs`, ...).
        out: the output folder (default ``ROOT/build``).
        functions: renderers given in code, ``"module:function"`` -> function.

    Returns:
        ``(result, made)``: the :class:`BuildResult` and format -> bytes of every output made.

    Raises:
        ComposerError: any user-fixable problem; nothing under ``out`` is changed then.
    """
    started = time.perf_counter()
    out_dir = Path(out) if out is not None else project.root / "build"
    source = _Source(project, figure.name, None, figure, file, dict(functions or {}))
    built = _run(lambda: source, out_dir, options, progress, "built in code", {"check": time.perf_counter() - started})
    return built.result, built.made


def build_layout(name: str, options: BuildOptions, *, root: str | Path = ".", out: str | Path | None = None,
                 progress: Progress | None = None) -> tuple[BuildResult, dict[str, bytes]]:
    """Build figure ``name`` of the project at ``root`` as ``options`` say, with no no-op test, and
    return the bytes of its outputs too (``compose diff`` builds two revisions so, writing nothing:
    ``options.write`` False).

    Args:
        name: the figure, ``layouts/NAME.toml`` (or ``.py``).
        options: how it is built (:class:`BuildOptions`); checked here as :func:`build` checks its own.
        out: the output folder (default ``ROOT/build``): written to only with ``options.write``; its
            manifest, when there is one, lets an export be skipped (its output then missing from the bytes
            returned), so a caller that needs every output's bytes gives a folder without one.

    Returns:
        ``(result, made)``: the :class:`BuildResult` and format -> bytes of every output made.

    Raises:
        ComposerError: any user-fixable problem (a layout error names its file, line and key).
    """
    check_outputs(options.formats, options.dpi)
    check_timeout(options.timeout_s)
    check_jobs(options.jobs)
    check_chosen(options.engine, options.pdf_standard)
    started = time.perf_counter()
    project = Project.at(root)
    out_dir = Path(out) if out is not None else project.root / "build"
    with _located(project):
        built = _run(lambda: _Source.layout(project, name), out_dir, options, progress, "asked",
                     {"check": time.perf_counter() - started})
    return built.result, built.made


def lint_figure(name: str, *, root: str | Path = ".", timeout_s: float | None = DEFAULT_TIMEOUT_S,
                jobs: int | None = None, cache: bool = True, progress: Progress | None = None) -> BuildResult:
    """Render, compose and check figure ``name`` of the project at ``root``, writing nothing.

    The panels go through the same path as :func:`build` with ``check=True``:
    each from the panel cache when its entry is there (read only: nothing is
    stored), else rendered in a forked worker with the ``timeout_s`` limit,
    ``jobs`` at a time (default: every available core). No output, manifest or
    cache entry is written.

    Returns:
        A :class:`BuildResult` without outputs; ``report`` is the check
        report (:class:`composer.lint.rules.Report`), ``rendered``/``cached`` say
        where the panels came from.

    Raises:
        ComposerError: the figure cannot be loaded, rendered (a panel that
            raised, hung or crashed: one line naming it) or composed.
    """
    check_timeout(timeout_s)
    check_jobs(jobs)
    started = time.perf_counter()
    project = Project.at(root)
    options = BuildOptions(formats=(), check=True, timeout_s=timeout_s, jobs=jobs or available_cores(), cache=cache,
                           store=False, write=False)
    return _run(lambda: _Source.layout(project, name), project.root / "build", options, progress, "check",
                {"check": time.perf_counter() - started}).result


def check(name: str, *, root: str | Path = ".", jobs: int | None = None,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, progress: Progress | None = None) -> Report:
    """Compose figure ``name`` of the project at ``root`` and check it (see the module docstring).

    Writes nothing. Panels are rendered as a build renders them
    (:func:`composer.pipeline.lint_figure`): each from the panel cache when a
    build stored it, else in a forked worker stopped after ``timeout_s``
    seconds (None: no limit), ``jobs`` workers at a time (default: every
    core). A layout font that is not installed stops the check after the font
    rule (nothing can be composed); every other rule runs on the composed
    canvas.
    ``progress`` receives progress events, and what the panels drawn printed
    (:meth:`composer.progress.Progress.output`).

    Raises:
        ComposerError: the figure cannot be loaded, rendered (a panel raised,
            hung or crashed: one line naming it) or composed.
    """
    project = Project.at(root)
    layout_path = project.layout_path(name)
    with _located(project):
        figure = load_layout(layout_path, name=name, display=project.display(layout_path))
        missing = missing_font_report(figure)
        if missing is not None:
            return missing
        return lint_figure(name, root=project.root, jobs=jobs, timeout_s=timeout_s, progress=progress).report


def missing_font_report(figure: Figure) -> Report | None:
    """The check's report when a layout font is not installed (nothing can be composed: only the font
    rule ran), else None."""
    missing = font_findings(figure)
    if not missing:
        return None
    return Report(figure=figure.name, limits=figure.spec.check, findings=tuple(missing),
                  notes=("the figure cannot be composed with a missing font; the other rules did not run",))


@contextlib.contextmanager
def _recording(issued: list[str], features: list[ImportFeature] | None = None) -> Iterator[None]:
    """Warnings raised inside the block are issued as they would have been (the caller's filters
    apply), once it ends; the message of each :class:`ComposerWarning` among them is added to ``issued``,
    and each :class:`ImportFeature` (a record: the panel, file and feature) to ``features``."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as log:
            warnings.simplefilter("always")
            try:
                yield
            finally:
                caught = list(log)
    finally:
        for w in caught:
            if issubclass(w.category, ComposerWarning):
                issued.append(str(w.message))
            if features is not None and isinstance(w.message, ImportFeature):
                features.append(w.message)
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def check_outputs(formats: tuple[str, ...], dpi: float) -> None:
    """Refuse unknown output formats and a dpi outside 1 to :data:`composer.stages.export.MAX_DPI` (before any work).

    Raises:
        ComposerError: names the bad format and the valid ones, or the bad dpi.
    """
    outputs.check_formats(formats)
    check_dpi(dpi)


# ─── rendering the panels ────────────────────────────────────────────────


def render_panels(inputs: Inputs, typeset: Typeset | None = None, *,
                  timeout_s: float | None = DEFAULT_TIMEOUT_S) -> dict[str, RenderedPanel]:
    """Render every matplotlib panel at its box size, aligning plot areas per ``[[align]]``.

    Each panel runs in a forked worker with a wall-time limit of ``timeout_s``
    seconds (None: none), so nothing a renderer changes reaches another panel
    (:mod:`composer.sandbox.isolate`); panels whose plot areas are aligned share one
    worker (and one limit), since aligning needs all their figures.
    ``typeset`` (default: computed) gives the text sizes that panel placement
    may depend on.

    Returns:
        Render panel name -> :class:`RenderedPanel` (its SVG, data anchors in
        panel pt, warnings, and the fonts matplotlib substituted while drawing
        it), in layout order.

    Raises:
        PanelError: the first panel (in layout order) whose renderer raised,
            hung, crashed or returned garbage.
    """
    figure = inputs.figure
    typeset = typeset or typeset_figure(inputs)
    boxes = panel_boxes(figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    rendered: dict[str, RenderedPanel] = {}
    for unit in render_units(figure):
        rendered.update(_render_unit(inputs, unit, boxes, timeout_s))
    for p in figure.panels:
        for note in rendered[p.name].notes if p.name in rendered else ():
            warnings.warn(ComposerWarning(f"{inputs.file}: {note}"), stacklevel=2)
    return {p.name: rendered[p.name] for p in figure.panels if p.name in rendered}


def render_units(figure: Figure) -> list[list[str]]:
    """The render panels grouped for workers: each aligned group (joined when groups share a panel)
    together, every other panel alone; in layout order."""
    names = [p.name for p in figure.panels if source_table(p.kind).matplotlib]  # drawn here, by matplotlib
    group = {name: name for name in names}

    def find(name: str) -> str:
        while group[name] != name:
            name = group[name]
        return name

    for align in figure.aligns:
        members = [n for n in align.panels if n in group]
        for other in members[1:]:
            group[find(other)] = find(members[0])
    units: dict[str, list[str]] = {}
    for name in names:
        units.setdefault(find(name), []).append(name)
    return list(units.values())


def _render_unit(inputs: Inputs, names: list[str], boxes: Mapping[str, Box],
                 timeout_s: float | None) -> dict[str, RenderedPanel]:
    """Draw, align and save one render unit (a panel, or a group of aligned panels) in a forked worker.

    Every panel comes back with the fonts matplotlib substituted while drawing
    and saving it (:attr:`RenderedPanel.substituted`), so the facts the check
    needs travel with the panel, into the panel cache too.

    Raises:
        PanelError: the unit's code raised, hung past ``timeout_s`` seconds,
            crashed the worker or returned garbage (naming the panel).
    """
    figure, file = inputs.figure, inputs.file
    panels = {p.name: p for p in figure.panels}

    def work() -> dict[str, RenderedPanel]:
        substituted: dict[str, dict[str, str]] = {n: {} for n in names}
        drafts, opened = {}, {}
        for n in names:
            with font_substitutions() as found, recording() as opened[n]:  # the files the renderer opens
                draw = draw_locked if panels[n].aspect is not None and panels[n].aspect_of == "plot" else draw_panel
                drafts[n] = draw(inputs.renderers[n], panels[n], figure.spec, inputs.data[n],
                                 size_pt=(boxes[n].width_pt, boxes[n].height_pt), file=file)
            substituted[n].update(found)
        for align in figure.aligns:
            if set(align.panels) & set(names):
                align_plot_areas(drafts, boxes, align, file=file)
        saved = {}
        for n in names:
            with font_substitutions() as found:
                panel = save_panel(drafts[n], figure.spec, file=file, guides=kinds_of(figure, n))
            substituted[n].update(found)
            saved[n] = dataclasses.replace(panel, substituted=dict(sorted(substituted[n].items())),
                                           opened=opened[n].read, wrote=opened[n].written)
        return saved

    prepare_fork()
    try:
        return run_isolated(work, timeout_s=timeout_s, label="+".join(names), cwd=inputs.root)
    except WorkerFailure as failure:
        # the panel whose function is in the failing frames (a unit has one panel, unless aligned)
        functions = {frame.name for frame in failure.frames}
        panel = next((panels[n] for n in names if str(panels[n].source).split(":")[-1] in functions),
                     panels[names[0]])
        raise PanelError(failure.worded(f"panel {panel.name!r}: {panel.source}",
                                        user_dir(inputs.renderers[panel.name])),
                         file=file, key=f"{panel.key}.{panel.kind}", frames=failure.frames) from None


def _warm(spec: FigureSpec) -> None:
    """Before forking: what every panel worker needs (:func:`composer.stages.usercode.prepare_fork`), warmed up by
    drawing a throwaway panel (:func:`composer.stages.draft.warm_up`), so no worker pays for it again."""
    prepare_fork()
    warm_up(spec)


# ─── the build, step by step ─────────────────────────────────────────────


def _run(source: Callable[[], _Source], out_dir: Path, options: BuildOptions, progress: Progress | None,
         reason: str, seconds: dict[str, float]) -> _Built:
    """:func:`_build` of the figure ``source()`` finds, with a progress display closed however the build ends."""
    progress = progress or Progress()
    try:
        return _build(source(), out_dir, options, progress, reason, seconds)
    finally:
        progress.close()


class _Laps:
    """Wall time per stage: each call ends the stage that ran since the previous one, into ``seconds``."""

    def __init__(self, seconds: dict[str, float]):
        self.seconds = seconds
        self.last = time.perf_counter()

    def __call__(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = now - self.last
        self.last = now


@imports_undone()  # the project's modules leave sys.modules when the build ends
def _build(source: _Source, out_dir: Path, opts: BuildOptions, progress: Progress, reason: str,
           seconds: dict[str, float]) -> _Built:
    """The build after the no-op test (see :func:`build`): read -> cache lookup -> render -> compose ->
    export -> write outputs and manifest -> store cache entries. Without ``opts.write`` nothing is
    written under ``out_dir``; without ``opts.store`` the caches are read (``opts.cache``) but not filled.
    Entries are stored only when no input changed while the build read it."""
    lap = _Laps(seconds)
    project = source.project
    texts = TextCache(text_cache_path(project.root, source.name)) if opts.cache else None
    with text_cache(texts):
        output: dict[str, str] = {}
        read = _read_shown(source, out_dir, opts, progress, output)
        if opts.write:
            refuse_overwriting_inputs(_planned_outputs(read, out_dir, opts), read.digests, root=project.root,
                                      layout=source.layout_path)
        panel_cache = PanelCache(opts.panel_cache or cache_dir(project.root), root=project.root)
        hits = _lookup(read, panel_cache, opts)
        lap("read")
        fresh, render_seconds = _render(read, hits, opts, progress, output)
        if opts.write:  # and the files the panels' and values()' own code read, the output folder's too
            code_read = [*(p for _, o in read.opened for p in o.read), *(p for r in fresh.values() for p in r.opened),
                         *(p for r in hits.values() for p in r.opened)]
            refuse_overwriting_inputs(_planned_outputs(read, out_dir, opts), [project.root / p for p in code_read],
                                      root=project.root, layout=source.layout_path, opened=True)
        fresh = {n: _opened_by_panel(read, out_dir, n, p) for n, p in fresh.items()}
        rendered = {**hits, **fresh}
        issued = _values_warnings(read, out_dir)
        issued += _panel_warnings(read.inputs, rendered)  # every ComposerWarning of this build, in order
        lap("render")
        read = dataclasses.replace(read, inputs=fit_height(read.inputs, rendered, read.typeset))  # height = "auto"
        described = _describe(read, out_dir, rendered)
        svg, pdf_svg, report, extra = _compose(read, rendered, opts, issued, progress, described)
        lap("compose")
        figure = read.inputs.figure
        result = BuildResult(outputs={}, report=report, reason=reason,
                             rendered=tuple(p.name for p in figure.panels if p.name in fresh),
                             cached=tuple(p.name for p in figure.panels if p.name in hits),
                             repaired=tuple(n for n, k in read.keys.items() if k in panel_cache.repaired),
                             seconds=seconds, render_seconds=render_seconds, warnings=tuple(issued),
                             output=output,
                             fitted_height=figure.spec.height_text if figure.spec.height_auto else "",
                             **(_named(read, rendered, svg) if opts.elements else {}))
        made: dict[str, bytes] = {}
        records: dict[str, dict[str, Any]] = {}
        files: dict[Path, bytes] = {}
        written: list[str] = []
        if opts.formats:  # none: compose (and check) only
            made, records, files, written = _export_outputs(read, svg, extra, out_dir, opts, progress, described,
                                                            pdf_svg=pdf_svg)
            lap("export")
        if report is not None:  # the rules measured on the files: what this build made, else what one made
            report = _check_outputs(read, svg, made, out_dir, opts, report)
            result = dataclasses.replace(result, report=report)
        if opts.panels and opts.write:
            placed = figure_geometry(read.inputs, rendered, read.typeset).panels  # aspect_of = "plot": as drawn
            files.update(_panel_files(dataclasses.replace(read, boxes=placed), svg, out_dir, opts))
        if not opts.write:
            if opts.cache and opts.store and _unchanged(read):
                _store(read, panel_cache, texts, hits, fresh)
            return _Built(result, made)
        with deferred_interrupt():  # Ctrl-C: all of it or none of it
            wrote_all = _write(read, out_dir, opts, files, records, render_seconds, issued, rendered, described)
            if wrote_all and opts.cache and opts.store:
                _store(read, panel_cache, texts, hits, fresh)  # after the outputs: a failed write leaves the caches
        lap("write")
    paths = {kind: out_dir / file for kind, file in outputs.files(source.name, opts.formats).items()}
    if opts.debug:
        paths.update({"debug-svg": out_dir / f"{source.name}.debug.svg",
                      "debug-png": out_dir / f"{source.name}.debug.png",
                      "debug-txt": out_dir / f"{source.name}.debug.txt"})
    return _Built(dataclasses.replace(result, outputs=paths, written=tuple(written)), made)


def _named(read: _Read, rendered: Mapping[str, RenderedPanel], svg: bytes) -> dict[str, Any]:
    """:attr:`BuildResult.elements` and :attr:`BuildResult.texts` of a composed figure (``svg``)."""
    geometry = figure_geometry(read.inputs, rendered, read.typeset)
    figure = read.inputs.figure
    elements = figure_elements(figure, geometry, panel_label_boxes(read.inputs, geometry))
    guides = guide_drawings(read.inputs, rendered, read.typeset)  # as compose drew them (memoised)
    texts = figure_texts(figure, svg, {n: panel.svg for n, panel in rendered.items()},
                         {i: drawn.svg for i, drawn in enumerate(guides) if drawn is not None})
    labels = {i: connector_label_box(route, arrow, found[1])
              for i, (arrow, route, found) in enumerate(zip(figure.arrows, geometry.arrows, read.typeset.arrow_labels))
              if found is not None and arrow.label_style is not None}  # as compose draws them
    return {"elements": tuple(elements), "texts": tuple(texts), "geometry": geometry, "figure": figure,
            "connector_labels": labels}


def _planned_outputs(read: _Read, out_dir: Path, opts: BuildOptions) -> dict[Path, str]:
    """Every file this build may write, absolute (its folder resolved) -> what it is: the outputs of each asked
    format, the overlay (``opts.debug``), each panel alone (``opts.panels``), the manifest; and the project's cache
    folder (``ROOT/build/.cache``, which builds fill and prune and ``compose clean`` removes), as a folder."""
    name = read.source.name
    folder = Path(out_dir).resolve()
    planned = {folder / file: f"the figure's {kind.upper()}"
               for kind, file in outputs.files(name, opts.formats).items()}
    if opts.debug:
        planned.update({folder / f"{name}.debug.{suffix}": "the layout overlay" for suffix in ("svg", "png", "txt")})
    if opts.panels:
        for panel in read.inputs.figure.panels:
            planned.update({folder / name / file: f"panel {panel.name!r} alone"
                            for file in outputs.files(panel.name, opts.formats).values()})
    if read.source.layout_path is not None:
        planned[manifest.manifest_path(folder, name)] = "the build's manifest"
    # where each file lands: its folder resolved (os.replace writes through a symlinked folder, such as an out/NAME
    # linked to the data folder under --panels, but replaces a symlinked file itself, never its target)
    planned = {path.parent.resolve() / path.name: what for path, what in planned.items()}
    planned[cache_dir(read.source.project.root).parent.resolve()] = "composer's cache folder"
    return planned


def refuse_overwriting_inputs(planned: Mapping[Path, str], inputs: Iterable[Path], *, root: Path,
                              layout: Path | None, opened: bool = False) -> None:
    """Refuse a build whose outputs would land on one of its inputs, before anything is written.

    Args:
        planned: absolute output path -> what it is (:func:`_planned_outputs`); composer's cache folder is a folder,
            refused when an input lies inside it.
        inputs: the absolute paths of the figure's inputs (the layout, style and data files, panel modules, imported
            files: what the manifest records), or, with ``opened``, the files the panels' and ``values()``' own code
            read.
        root: the project, for the paths the message shows. layout: the layout file, named as such.

    Raises:
        ProjectError: one line naming the output, the input it would overwrite and what to do (exit 1 from the
            command); nothing is written (``compose NAME --out data``, where ``data/NAME.svg`` is the figure's
            imported drawing, replaced that input with the composed figure, and the next build nested the figure in
            itself).
    """
    cache = next((path for path, what in planned.items() if what == "composer's cache folder"), None)
    for source in inputs:
        path = Path(source).resolve()
        what = planned.get(path)
        shown = manifest.display_path(path, root)
        role = ("the layout" if layout is not None and path == Path(layout).resolve()
                else "a file the figure's code reads" if opened else "an input of the figure")
        if what is not None:
            raise ProjectError(f"{shown}: {what} would be written onto this file, {role}; nothing was written: "
                               "give an output folder (--out, or out= in Python) that holds none of the figure's "
                               "inputs (the default is build/ in the project)")
        if cache is not None and path.is_relative_to(cache):
            raise ProjectError(f"{shown}: this file, {role}, is inside composer's cache folder "
                               f"{manifest.display_path(cache, root)}/, which builds rewrite and prune and compose "
                               "clean removes; nothing was written: move it out of that folder")


@dataclass(frozen=True)
class _Read:
    """Step 1 of a build: the figure read, typeset and placed, before any panel is drawn.

    Attributes:
        source: where the figure comes from. inputs: what it read. typeset: its canvas text.
        engine: the export engine chosen (the options', else the layout's).
        boxes: panel name -> its box (pt). groups: the render units (:func:`render_units`).
        keys: render panel -> panel cache key (none for a renderer given in code).
        digests: absolute path -> sha256 of every input file, taken *before* the inputs were read.
        previous: the last build's manifest (layout files only, with the cache), or None.
        opened: what a Python layout and each ``values()`` opened (:func:`composer.sandbox.audit.run_recorded`):
            (who, files).
    """

    source: _Source
    inputs: Inputs
    typeset: Typeset
    engine: str
    boxes: Mapping[str, Box]
    groups: list[tuple[str, ...]]
    keys: dict[str, str]
    digests: dict[Path, str | None]
    previous: dict[str, Any] | None
    opened: list[tuple[str, Opened]] = dataclasses.field(default_factory=list)

    @property
    def last_seconds(self) -> dict[str, float]:
        """Render panel -> its render time in the last build (0 when unknown)."""
        return {n: rec.get("seconds", 0.0) for n, rec in (self.previous or {}).get("panels", {}).items()}


def _read_shown(source: _Source, out_dir: Path, opts: BuildOptions, progress: Progress,
                output: dict[str, str]) -> _Read:
    """:func:`_read`, with what a Python layout's ``layout()`` and each ``values()`` print caught like a
    panel's output: into ``output`` (their label, e.g. ``"values() in panels/fig.py"`` -> text) and
    ``progress.output``, also when one of them fails (its prints help find why); the processes they
    leave running are warned of, in the order they ran."""
    with capturing(live=progress.line) as printed:
        try:
            return _read(source, out_dir, opts)
        finally:
            for label, text in printed.output.items():
                output[label] = text
                progress.output(label, text)
            for text in printed.left.values():
                warnings.warn(ComposerWarning(text), stacklevel=2)


def _read(source: _Source, out_dir: Path, opts: BuildOptions) -> _Read:
    """Load the layout, hash every input, read the inputs, typeset, place; one cache key per render panel.

    The digests are taken between loading the layout and reading the rest: a
    file edited during the build then no longer matches the manifest.

    Raises:
        ComposerError: an unknown or missing engine (before any panel is drawn), or what the
            inputs and typeset stages raise.
    """
    project = source.project
    layout_digest = manifest.file_digest(source.layout_path) if source.layout_path is not None else None
    figure = source.figure
    with collecting() as opened:  # the files a Python layout, then each values(), opens
        if figure is None:
            assert source.layout_path is not None
            figure = load_layout(source.layout_path, name=source.name, display=source.file, timeout_s=opts.timeout_s)
    chosen_by = (None, None) if opts.engine else (source.file, "figure.engine")
    engine = opts.engine or figure.spec.engine
    kinds = [*opts.formats, *(["png"] if opts.debug else [])]
    if opts.write or any(kind != outputs.CANVAS for kind in kinds):  # a missing engine: said before any drawing
        check_engine(engine, kinds, opts.pdf_standard, file=chosen_by[0], key=chosen_by[1])
    sources, digests = input_digests(project, figure)
    if source.layout_path is not None:
        digests[source.layout_path.resolve()] = layout_digest
    # the files values() opens (in its worker), and those the panel modules' own code opens as they are
    # imported here (module-level code: DATA = json.load(open(...))); the inputs composer reads itself are
    # dropped from both later (_untracked)
    with collecting() as by_values, recording(known=digests) as on_import:
        inputs = read_figure_inputs(project, figure, source.file, source.functions, timeout_s=opts.timeout_s)
    opened += [*by_values, ("importing the panel modules", on_import)]
    on_import_read = {manifest.display_path(Path(p), project.root): d  # relative: a moved project keeps its keys
                      for p, d in _untracked_files(project.root, digests, out_dir, on_import)[0].items()}
    typeset = typeset_figure(inputs)
    boxes = panel_boxes(figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    groups = [tuple(unit) for unit in render_units(figure)]
    keys = panel_keys(figure, inputs, boxes, groups, sources, digests, in_code=set(source.functions),
                       opened=on_import_read)
    previous = manifest.load(out_dir, source.name) if opts.cache and source.layout_path is not None else None
    return _Read(source, inputs, typeset, engine, boxes, groups, keys, digests, previous, opened)


def _lookup(read: _Read, panel_cache: PanelCache, opts: BuildOptions) -> dict[str, RenderedPanel]:
    """Step 2: the render groups whose every panel is in the panel cache (none without ``opts.cache``)."""
    found: dict[str, RenderedPanel] = {}
    if not opts.cache:
        return found
    for group in read.groups:
        if not all(n in read.keys for n in group):
            continue  # a renderer given in code: drawn every time
        hits = {n: panel_cache.load(read.keys[n]) for n in group}
        if all(hit is not None for hit in hits.values()):
            found.update(hits)  # type: ignore[arg-type]
    return found


def _render(read: _Read, hits: Mapping[str, RenderedPanel], opts: BuildOptions, progress: Progress,
            output: dict[str, str]) -> tuple[dict[str, RenderedPanel], dict[str, float]]:
    """Step 3: render the groups not found, slowest first (as the last build measured), ``opts.jobs`` at a time;
    ``output`` gets what their code printed (:attr:`BuildResult.output`).

    Returns:
        ``(fresh, seconds)``: panel name -> rendered panel, and render group
        (names joined by ``+``) -> its render time.

    Raises:
        PanelError: the first failing group, in layout order (:func:`composer.sandbox.parallel.render_all`).
    """
    figure = read.inputs.figure
    before = read.last_seconds
    missing = sorted((g for g in read.groups if g[0] not in hits), key=lambda g: -sum(before.get(n, 0.0) for n in g))
    tasks = [RenderTask("+".join(g), partial(_render_unit, read.inputs, list(g), read.boxes, opts.timeout_s))
             for g in missing]
    position = {p.name: i for i, p in enumerate(figure.panels)}
    layout_rank = {"+".join(g): min(position[n] for n in g) for g in missing}
    results, error = render_all(tasks, jobs=opts.jobs, progress=progress, prepare=partial(_warm, figure.spec),
                                rank=lambda t: layout_rank[t.name], output=output)
    if error is not None:
        raise error
    fresh: dict[str, RenderedPanel] = {}
    for panels_of_group, _ in results.values():
        fresh.update(panels_of_group)
    return fresh, {g: s for g, (_, s) in results.items()}


def _panel_warnings(inputs: Inputs, rendered: Mapping[str, RenderedPanel]) -> list[str]:
    """Issue the warnings of the render workers (cached panels' too), in layout order; returns their messages."""
    issued: list[str] = []
    for p in inputs.figure.panels:
        for note in rendered[p.name].notes if p.name in rendered else ():
            issued.append(f"{inputs.file}: {note}")
            warnings.warn(ComposerWarning(issued[-1]), stacklevel=2)
    return issued


def _untracked(read: _Read, out_dir: Path, opened: Opened | RenderedPanel) -> tuple[dict[str, str | None], list[str]]:
    """:func:`_untracked_files` for the figure ``read`` read."""
    return _untracked_files(read.source.project.root, read.digests, out_dir, opened)


def _untracked_files(root: Path, digests: Mapping[Path, str | None], out_dir: Path,
                     opened: Opened | RenderedPanel) -> tuple[dict[str, str | None], list[str]]:
    """The files panel code opened that composer does not track already, and those it wrote into the project.

    Returns:
        ``(read, written)``: path -> sha256 of the files read, less the figure's own inputs
        (``digests``, :func:`~composer.incremental.keys.input_digests`) and what lies in ``ROOT/build`` or the
        output folder; and the files written inside the project, less composer's own ``.cache`` folders, shown
        relative to it.
    """
    root = root.resolve()
    builds = {(root / "build").resolve(), out_dir.resolve()}
    tracked = {str(p) for p in digests}
    files_read = opened.read if isinstance(opened, Opened) else opened.opened
    files_written = opened.written if isinstance(opened, Opened) else opened.wrote
    kept = {p: d for p, d in files_read.items()
            if p not in tracked and not any(Path(p).is_relative_to(b) for b in builds)}
    inside = [manifest.display_path(Path(p), root) for p in files_written
              if Path(p).is_relative_to(root) and not any(Path(p).is_relative_to(b / ".cache") for b in builds)]
    return kept, sorted(inside)


def _wrote_warning(who: str, files: list[str]) -> str:
    """The one warning naming the files panel code wrote into the project."""
    return (f"{who} wrote {', '.join(files)} into the project; composer does not track files panel code "
            "writes (they are no output of the figure and may be stale): draw on the fig composer passes, "
            "and write other files from a script of their own")


def _opened_by_panel(read: _Read, out_dir: Path, name: str, panel: RenderedPanel) -> RenderedPanel:
    """Panel ``name`` freshly rendered, with its opened files narrowed to the untracked ones
    (:func:`_untracked`) and one warning (in its notes, cached with it) naming the files it wrote
    into the project."""
    kept, written = _untracked(read, out_dir, panel)
    notes = panel.notes
    if written:
        source = next(p.source for p in read.inputs.figure.panels if p.name == name)
        notes = (*notes, _wrote_warning(f"panel {name!r}: {source}", written))
    return dataclasses.replace(panel, opened=kept, wrote=(), notes=notes)


def _values_warnings(read: _Read, out_dir: Path) -> list[str]:
    """Issue one warning per ``values()`` that wrote files into the project; returns their messages."""
    issued: list[str] = []
    for who, opened in read.opened:
        written = _untracked(read, out_dir, opened)[1]
        if written:
            issued.append(f"{read.inputs.file}: {_wrote_warning(who, written)}")
            warnings.warn(ComposerWarning(issued[-1]), stacklevel=2)
    return issued


def _opened_files(read: _Read, out_dir: Path, rendered: Mapping[str, RenderedPanel]) -> dict[str, str | None]:
    """Every file the panels (drawn or cached) and ``values()`` opened by themselves: path -> sha256."""
    found: dict[str, str | None] = {}
    for _, opened in read.opened:
        found.update(_untracked(read, out_dir, opened)[0])
    for panel in rendered.values():
        found.update(panel.opened)
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class _Described:
    """What the outputs say about the figure (:mod:`composer.stages.describe`): its alt texts, filled, and
    the build's provenance record (:mod:`composer.incremental.provenance`; None: ``[figure] provenance =
    false``)."""

    alt: AltText
    record: Provenance | None

    @property
    def provenance(self) -> str | None:
        """The record as the outputs hold it (JSON text), or None."""
        return self.record.to_json() if self.record is not None else None


def _describe(read: _Read, out_dir: Path, rendered: Mapping[str, RenderedPanel]) -> _Described:
    """The alt texts and, unless the layout leaves it out, the provenance of this build: the input digests
    :func:`_read` took (no file hashed again), the files panel code opened, the git state."""
    figure = read.inputs.figure
    record = None
    if figure.spec.provenance:
        record = gather_provenance(read.source.project.root, figure, read.source.layout_path, read.digests,
                                   _opened_files(read, out_dir, rendered))
    return _Described(alt_text(read.inputs), record)


def _compose(read: _Read, rendered: Mapping[str, RenderedPanel], opts: BuildOptions, issued: list[str],
             progress: Progress, described: _Described
             ) -> tuple[bytes, bytes | None, Report | None, dict[str, bytes]]:
    """Step 4: the canvas SVG, the check report (``opts.check``) and the overlay (``opts.debug``).

    Returns:
        ``(svg, pdf_svg, report, extra)``: ``pdf_svg`` the canvas the PDF draws, its text as text
        (:class:`composer.stages.compose.Composed`; None: the PDF draws ``svg``); ``extra`` holds
        ``debug.svg``/``debug.png`` (the overlay) and ``debug.txt`` (the ids each imported SVG offers
        ``"panel#id"`` points, :func:`~composer.stages.overlay.offered_ids_listing`) -> bytes with ``opts.debug``.
    """
    inputs, typeset = read.inputs, read.typeset
    progress.stage("composing")
    features: list[ImportFeature] = []  # what the import of each file draws differently, for the check
    with _recording(issued, features):
        svg, pdf_svg = compose_documents(inputs, rendered, typeset, dpi=opts.dpi,  # filters costed at the PNG's dpi
                                         provenance=described.provenance)
        for clipped in clipped_text_warnings(inputs.figure, svg):  # check reports it too, as outside-canvas
            warnings.warn(ComposerWarning(f"{inputs.file}: {clipped_key_path(inputs.figure, clipped)}"), stacklevel=2)
    report = None
    extra: dict[str, bytes] = {}
    if opts.debug or opts.check:
        geometry = figure_geometry(inputs, rendered, typeset)
        labels = panel_label_boxes(inputs, geometry)
    if opts.check:
        # what matplotlib substituted while drawing, carried by each panel (from its worker or the cache)
        substituted = {f"panel {n}\t{font}": message for n, panel in rendered.items()
                       for font, message in panel.substituted.items()}
        file_texts = {p.name: texts for p in inputs.figure.panels if (texts := source_of(p).texts(p)) is not None}
        report = lint(inputs.figure, geometry, svg, file=inputs.file, substituted=substituted,
                      elements=figure_elements(inputs.figure, geometry, labels), file_texts=file_texts,
                      features=features)
    if opts.debug and opts.write:
        from composer.stages.geometry import imported_svgs
        from composer.stages.overlay import offered_ids_listing, overlay

        offered = imported_svgs(inputs.figure, inputs.documents, every=True)
        extra["debug.svg"] = overlay(inputs.figure, geometry, svg, labels, offered)
        extra["debug.png"] = _export(extra["debug.svg"], ["png"], read, opts, title="")["png"]
        extra["debug.txt"] = offered_ids_listing(offered).encode("utf-8")
    return svg, pdf_svg, report, extra


def _export(svg: bytes, kinds: list[str], read: _Read, opts: BuildOptions, *, title: str, alt: str = "",
            provenance: str | None = None, pdf_svg: bytes | None = None) -> dict[str, bytes]:
    """The one call of the export stage (:func:`composer.stages.export.export`): ``kinds`` -> bytes; the PDF
    and PNG (and what is made from it) are given the pdf panels' own pages (:func:`_pdf_pages`), the
    figure's description (``alt``) and the provenance record; the PDF ``pdf_svg`` when there is one (real
    text: :class:`composer.stages.compose.Composed`)."""
    pages = _pdf_pages(read) if kinds else ()
    return export(svg, kinds, engine=read.engine, dpi=opts.dpi, title=title, pdf_standard=opts.pdf_standard,
                  source=read.inputs.file, timeout_s=opts.timeout_s, jobs=opts.jobs, pdf_pages=pages, alt=alt,
                  provenance=provenance or "", pdf_svg=pdf_svg)


def _pdf_pages(read: _Read) -> tuple[PdfPage, ...]:
    """The pages a PDF output draws as they are in place of their panels' converted drawings
    (:meth:`composer.stages.sources.base.PanelSource.pdf_page`): only a file whose bytes are still those
    hashed before it was read and converted (:attr:`_Read.digests`), so the PDF shows what the SVG shows."""
    import hashlib

    pages = []
    for panel in read.inputs.figure.panels:
        page = source_of(panel).pdf_page(panel, read.inputs.documents.get(panel.name))
        if page is None:
            continue
        hashed = read.digests.get(Path(panel.source).resolve())
        if hashed is not None and hashlib.sha256(page.data).hexdigest() == hashed:
            pages.append(page)
    return tuple(pages)


def _panel_files(read: _Read, svg: bytes, out_dir: Path, opts: BuildOptions) -> dict[Path, bytes]:
    """``--panels``: every panel alone at its box size (:mod:`composer.stages.panels`), in each asked format,
    as ``OUT/NAME/PANEL.FORMAT``: path -> bytes."""
    name = read.source.name
    files: dict[Path, bytes] = {}
    docs = panel_documents(svg, list(read.inputs.figure.panels), read.boxes, source=read.inputs.file)
    alts = {p.name: p.alt for p in read.inputs.figure.panels}
    filled = {n: t for n, _, t in alt_text(read.inputs).panels}
    for panel, doc in docs.items():
        drawn_here = not source_of(next(p for p in read.inputs.figure.panels if p.name == panel)).imported
        pdf_doc = panel_pdf_document(doc) if read.inputs.figure.spec.text == "selectable" and drawn_here else None
        made = _export(doc, [k for k in opts.formats if k != outputs.CANVAS], read, opts, title=f"{name} {panel}",
                       alt=filled.get(panel, "") if alts.get(panel) else "", pdf_svg=pdf_doc)
        if outputs.CANVAS in opts.formats:
            made[outputs.CANVAS] = doc
        files.update({out_dir / name / file: made[kind] for kind, file in outputs.files(panel, opts.formats).items()})
    return files


def _export_outputs(read: _Read, svg: bytes, extra: Mapping[str, bytes], out_dir: Path, opts: BuildOptions,
                    progress: Progress, described: _Described, *, pdf_svg: bytes | None = None
                    ) -> tuple[dict[str, bytes], dict[str, dict[str, Any]], dict[Path, bytes], list[str]]:
    """Step 5: export the asked formats; PDF/PNG/... only when the SVG they were made from changed.

    An export is skipped when the last build's manifest records it made from
    the same SVG bytes with the same engine, options and composer
    (:func:`composer.incremental.manifest.composer_fingerprint`: a new composer
    may export the same SVG otherwise), from the same pages of the pdf panels
    a PDF or PNG draws as they are (:func:`_pdf_pages`), and the file is
    still the one it wrote. With ``opts.svg_first`` the SVG is written before
    the exports run.

    Returns:
        ``(made, records, files, written)``: format -> bytes made; format ->
        its manifest record; path -> bytes still to write (only what
        differs from the file there, unless the cache is off); the formats
        written so far.
    """
    name = read.source.name
    files: dict[Path, bytes] = {out_dir / f"{name}.{suffix}": data for suffix, data in extra.items()}
    svg_digest = manifest.bytes_digest(svg)
    old = (read.previous or {}).get("outputs", {})
    records: dict[str, dict[str, Any]] = {}
    names = outputs.files(name, opts.formats)  # format -> NAME.SUFFIX, in the table's order
    if outputs.CANVAS in names:
        records[outputs.CANVAS] = {"file": names[outputs.CANVAS], "sha256": svg_digest}
    exports = []
    made_by = manifest.composer_fingerprint()
    pages = None  # the pdf panels' pages a PDF or PNG draws, read once if one is asked
    for kind, file in names.items():
        if kind == outputs.CANVAS:
            continue
        uses = outputs.FORMATS[kind].options  # the options its bytes depend on
        if pages is None:
            pages = [f"{p.group} {p.page} {manifest.bytes_digest(p.data)}" for p in _pdf_pages(read)]
        record = {"file": file, "svg_sha256": svg_digest, "engine": outputs.engine_for(kind, read.engine),
                  "composer": made_by, **({"pdf_pages": pages} if pages else {}),
                  **({"dpi": float(opts.dpi)} if "dpi" in uses else {}),
                  **({"pdf_standard": opts.pdf_standard} if "pdf_standard" in uses and opts.pdf_standard else {}),
                  **({"pdf_svg_sha256": manifest.bytes_digest(pdf_svg)} if kind == "pdf" and pdf_svg else {})}
        prev = old.get(kind, {})
        if ({k: v for k, v in prev.items() if k != "sha256"} == record and prev.get("sha256")
                and manifest.file_digest(out_dir / record["file"]) == prev["sha256"]):
            records[kind] = {**record, "sha256": prev["sha256"]}
        else:
            exports.append(kind)
            records[kind] = record
    early = opts.write and opts.svg_first and outputs.CANVAS in names and bool(exports) and \
        manifest.file_digest(out_dir / names[outputs.CANVAS]) != svg_digest
    if early:
        with deferred_interrupt():  # Ctrl-C: all of these or none
            write_files_atomically({**files, out_dir / names[outputs.CANVAS]: svg})  # the SVG now, PDF and PNG after
        files = {}
    if exports:
        progress.stage(f"exporting {', '.join(exports)}")
    made = _export(svg, exports, read, opts, title=name, alt=described.alt.description,
                   provenance=described.provenance, pdf_svg=pdf_svg)
    if outputs.CANVAS in names:
        made[outputs.CANVAS] = svg
    written = [outputs.CANVAS] if early else []
    for kind, file in names.items():
        if kind not in made or (early and kind == outputs.CANVAS):
            continue
        records[kind]["sha256"] = manifest.bytes_digest(made[kind])
        path = out_dir / file
        if not opts.cache or manifest.file_digest(path) != records[kind]["sha256"]:
            files[path] = made[kind]
            written.append(kind)
    return made, records, files, written


def _check_outputs(read: _Read, svg: bytes, made: Mapping[str, bytes], out_dir: Path, opts: BuildOptions,
                   report: Report) -> Report:
    """The check's report with the rules measured on output files (:func:`composer.lint.rules.output_findings`).

    A build with ``--check`` measures the outputs it asked for: the bytes it made, or the file on disk when
    the export was skipped as up to date (the manifest's record says it is this SVG's). ``compose check``
    (no formats) measures the files in ``out_dir`` that the last build's manifest records as made from this
    very SVG and that are still the bytes it wrote; it notes when the preset sets output limits and no such
    file is there.
    """
    name = read.source.name
    limits = read.inputs.figure.spec.check
    output_rules = (limits.formats, limits.max_file_mb, limits.min_output_dpi, limits.max_output_dpi,
                    limits.tiff_compression)
    if all(v is None for v in output_rules) and limits.tiff_alpha:
        return report  # nothing is asked of the files: none is read
    files: dict[str, tuple[str, bytes]] = {}
    shown = read.source.project.display
    if opts.formats:
        for kind, file in outputs.files(name, opts.formats).items():
            path = out_dir / file
            data = made.get(kind)
            if data is None and path.is_file():
                data = path.read_bytes()
            if data is not None:
                files[kind] = (shown(path), data)
    else:
        digest = manifest.bytes_digest(svg)
        for kind, record in ((read.previous or {}).get("outputs", {})).items():
            if kind not in outputs.FORMATS or record.get("svg_sha256", record.get("sha256")) != digest:
                continue
            path = out_dir / str(record.get("file", ""))
            if record.get("sha256") and manifest.file_digest(path) == record["sha256"]:
                files[kind] = (shown(path), path.read_bytes())
    size_pt = (read.inputs.figure.spec.width_pt, read.inputs.figure.spec.height_pt)
    notes: list[str] = []
    if not files:
        notes.append("the output files were not measured (none built from this canvas): compose build "
                     f"{name} --check measures them")
    return with_outputs(report, output_findings(limits, files, size_pt), notes)


def _store(read: _Read, panel_cache: PanelCache, texts: TextCache | None, hits: Mapping[str, RenderedPanel],
           fresh: Mapping[str, RenderedPanel]) -> None:
    """Step 7: keep the panels drawn (and mark those used) in the panel cache; save the text cache."""
    panel_cache.touch(read.keys[n] for n in hits)
    panel_cache.store({read.keys[n]: panel for n, panel in fresh.items() if n in read.keys})
    if texts is not None:
        texts.save()


def _unchanged(read: _Read) -> bool:
    """No input file changed while the build read it (the digests :func:`_read` took still hold)."""
    source = read.source
    now = input_digests(source.project, read.inputs.figure)[1]
    if source.layout_path is not None:
        now[source.layout_path.resolve()] = manifest.file_digest(source.layout_path)
    return now == read.digests


def _write(read: _Read, out_dir: Path, opts: BuildOptions, files: dict[Path, bytes],
           records: Mapping[str, Any], render_seconds: Mapping[str, float], issued: list[str],
           rendered: Mapping[str, RenderedPanel], described: _Described) -> bool:
    """Step 6: write the outputs, and (a layout file's) manifest, all atomically together.

    The manifest is written only when no input changed while it was read
    (else an old one is removed: the next build is not a no-op).

    Returns:
        Whether the inputs were unchanged (the caches may then be filled).
    """
    source = read.source
    consistent = _unchanged(read)
    manifest_file = manifest.manifest_path(out_dir, source.name) if source.layout_path is not None else None
    if manifest_file is not None and consistent:
        group_seconds = {n: s / len(g.split("+")) for g, s in render_seconds.items() for n in g.split("+")}
        recorded = manifest.options(opts.formats, opts.dpi, opts.engine, opts.pdf_standard)
        contents = manifest_contents(
            source.project, read.inputs.figure, recorded, read.digests, records, read.keys, group_seconds,
            read.last_seconds, issued, _opened_files(read, out_dir, rendered))
        if described.record is not None:  # the outputs name the commit: a new commit makes them stale
            contents["git"] = {"commit": described.record.commit}
        files[manifest_file] = manifest.dumps(contents)
    write_files_atomically(files, stale=tuple(outputs.files(source.name).values()))  # unchanged ones' too
    if manifest_file is not None and not consistent and manifest_file.exists():
        manifest_file.unlink()
    return consistent
