"""Build: run the pipeline for one figure, from layout file to output files.

::

    layouts/NAME.toml --load--> Figure --data/values--> filled texts
        --render--> panel SVGs (+ data anchors) --geometry--> boxes
        --import fragments + draw--> canvas --write--> NAME.svg
        --export (composer.stages.export: resvg, or cairosvg)--> NAME.pdf, NAME.png

Only :func:`build` touches the file system (reading inputs, writing outputs);
:func:`compose` is the pure middle. Outputs are written only after every stage
succeeded, each atomically, so a failed build leaves the previous outputs
byte-identical.

The user's code (panel functions, ``values()``) and the engines' exports run in
forked workers with a wall-time limit (``timeout_s``, :mod:`composer.sandbox.isolate`);
imported SVG files are sanitized as they are read (:mod:`composer.svg.sanitize`).
"""

from __future__ import annotations

import base64
import contextlib
import contextvars
import dataclasses
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Mapping

from lxml import etree

from composer.stages import draw
from composer.incremental import manifest
from composer.incremental.cache import (PanelCache, TextCache, cache_dir, group_signature, panel_key, project_imports, rc_digest,
                    renderer_digest, text_cache_path)
from composer.stages.inputs import MAX_TEXT_CHARS, field_names, fill_fields, load_data, scalar_values
from composer.errors import ComposerError, ComposerWarning, DataError, LayoutError, PanelError, ProjectError, SvgError
from composer.text.fonts import check_svg_fonts
from composer.lint.rules import Report, font_findings, lint
from composer.stages.fragment import import_fragment, place, view_box
from composer.stages.inkscape import label_elements
from composer.text.pin import pin_text_positions
from composer.stages.geometry import Box, Geometry, panel_boxes, resolve
from composer.layout.loader import load_layout
from composer.layout.model import Figure, Panel
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure, check_jobs, check_timeout, run_isolated
from composer.sandbox.parallel import RenderTask, available_cores, render_all
from composer.progress import Progress
from composer.stages.export import DEFAULT_ENGINE, check_chosen, check_dpi, check_engine, engine_for, export
from composer.svg.images import finish_rasters
from composer.stages.render import (RenderedPanel, _describe, _user_dir, accepted, align_plot_areas, call_params, draw_panel,
                     find_renderer, font_substitutions, imports_undone, load_module, panel_failure, prepare_fork,
                     rc_params, save_panel, warm_up)
from composer.svg.sanitize import MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS, load_svg
from composer.svg.io import NSMAP, parse_svg, read_limited, svg_tag, write_files_atomically, write_svg
from composer.text.metrics import TextBlock, check_font, typeset
from composer.units import fmt

#: formats ``compose`` writes by default.
FORMATS = ("svg", "pdf", "png")
#: every format it can write (``--format tiff,eps``; see :mod:`composer.stages.export`).
ALL_FORMATS = ("svg", "pdf", "png", "tiff", "eps")


@dataclass(frozen=True)
class Project:
    """A figure project: a folder with ``layouts/`` (and usually ``panels/``).

    Attributes:
        root: the project folder.
    """

    root: Path

    @classmethod
    def at(cls, root: str | Path = ".") -> "Project":
        """The project rooted at ``root``.

        Raises:
            ProjectError: ``root`` has no ``layouts/`` folder.
        """
        path = Path(root).resolve()
        if not (path / "layouts").is_dir():
            raise ProjectError(f"{path} is not a composer project: it has no layouts/ folder "
                               "(run compose inside your figure project, or pass --root DIR; from Python, root=DIR)")
        return cls(path)

    @property
    def panels_dir(self) -> Path:
        return self.root / "panels"

    def figures(self) -> list[str]:
        """Names of the figures in ``layouts/`` (``NAME.toml`` or ``NAME.py``), sorted."""
        layouts = self.root / "layouts"
        return sorted({p.stem for p in layouts.glob("*.toml")} | {p.stem for p in layouts.glob("*.py")
                                                                  if not p.name.startswith("_")})

    def layout_path(self, name: str) -> Path:
        """``layouts/NAME.toml`` or ``layouts/NAME.py``.

        Raises:
            ProjectError: neither exists (lists the figures), or both do.
        """
        found = [p for p in (self.root / "layouts" / f"{name}.toml", self.root / "layouts" / f"{name}.py")
                 if p.is_file()]
        if not found:
            raise ProjectError(f"no figure {name!r} (no layouts/{name}.toml or .py); figures are "
                               f"{', '.join(self.figures()) or '(none)'}")
        if len(found) > 1:
            raise ProjectError(f"figure {name!r} has two layouts, layouts/{name}.toml and layouts/{name}.py; "
                               "keep one")
        return found[0]

    def display(self, path: Path) -> str:
        """A path as shown in messages: relative to the project root when inside it."""
        try:
            return str(path.resolve().relative_to(self.root))
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class Inputs:
    """Everything read from disk for one figure, ready for the pure stages.

    Attributes:
        figure: the loaded layout.
        file: the layout file as shown in messages.
        data: panel name -> its data (dict of arrays); "" -> the figure's data.
        renderers: panel name -> renderer function (render panels only).
        values: text field name -> value (``values()`` of the panel modules,
            then scalar data entries, then the figure's shared params).
        documents: panel name -> file bytes, for svg and image panels.
    """

    figure: Figure
    file: str
    data: dict[str, Mapping[str, Any]]
    renderers: dict[str, Any]
    values: dict[str, Any]
    documents: dict[str, bytes]


def read_inputs(project: Project, name: str, figure: Figure | None = None, *,
                timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Inputs:
    """Read the layout, data files, panel modules and imported files of a figure.

    ``figure``: the layout already loaded (by :func:`build`, which hashes the
    inputs between loading the layout and reading the rest).

    Raises:
        ProjectError, LayoutError, DataError, PanelError (see the stages).
    """
    layout_path = project.layout_path(name)
    file = project.display(layout_path)
    if figure is None:
        figure = load_layout(layout_path, name=name, display=file, timeout_s=timeout_s)
    return read_figure_inputs(project, figure, file, timeout_s=timeout_s)


def read_figure_inputs(project: Project, figure: Figure, file: str,
                       functions: Mapping[str, Any] | None = None, *,
                       timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Inputs:
    """Read what a loaded figure needs: data files, panel modules, imported files.

    Args:
        figure: a loaded layout (from a file, or built in code: :mod:`composer.api`).
        file: how to name the layout in messages.
        functions: ``"module:function"`` -> renderer, used before
            ``panels/module.py`` is looked for (renderers defined in a notebook).
        timeout_s: wall-time limit of each module's ``values()`` (run in a
            forked worker, see :mod:`composer.sandbox.isolate`), or None.

    Raises:
        LayoutError, DataError, PanelError (see the stages).
    """
    functions = functions or {}
    check_font(figure.spec.font, file=file, key="figure.font")
    loaded: dict[Path, Mapping[str, Any]] = {}

    def data_of(path: Path | None) -> Mapping[str, Any]:
        if path is None:
            return {}
        if path not in loaded:
            loaded[path] = load_data(path, display=project.display(path))
        return loaded[path]

    figure_data = data_of(figure.spec.data)
    data = {"": figure_data}
    renderers: dict[str, Any] = {}
    modules: dict[str, Any] = {}
    documents: dict[str, bytes] = {}
    for panel in figure.panels:
        data[panel.name] = data_of(panel.data) if panel.data else figure_data
        if panel.kind == "render" and str(panel.source) in functions:
            renderers[panel.name] = functions[str(panel.source)]
        elif panel.kind == "render":
            module, function = str(panel.source).split(":")
            key = f"{panel.key}.render"
            if module not in modules:
                modules[module] = load_module(project.panels_dir, module, file=file, key=key)
            renderers[panel.name] = find_renderer(modules[module], function, file=file, key=key)
        else:
            path = Path(panel.source)
            if not path.resolve().is_relative_to(project.root):
                raise LayoutError(f"{path} is outside the project {project.root}; "
                                  "composer imports files from inside the project only",
                                  file=file, key=f"{panel.key}.{panel.kind}")
            documents[panel.name] = _read_document(panel, path, project, file)
    _check_shared_params(figure, [renderers[p.name] for p in figure.panels if p.kind == "render"]
                         + [getattr(m, "values") for m in modules.values() if callable(getattr(m, "values", None))],
                         file)
    values = {**scalar_values(figure_data), **figure.spec.params}
    for module_name, module in sorted(modules.items()):
        func = getattr(module, "values", None)
        if func is None:
            continue
        values.update(_module_values(func, module_name, figure_data, figure.spec.params, project, file, timeout_s,
                                     has_data=figure.spec.data is not None))
    return Inputs(figure=figure, file=file, data=data, renderers=renderers, values=values, documents=documents)


def _read_document(panel: Panel, path: Path, project: Project, file: str) -> bytes:
    """An svg panel's file, sanitized (:mod:`composer.svg.sanitize`), or an image panel's bytes.

    Raises:
        SvgError: naming the layout key, the file as written there and what was refused.
    """
    display = project.display(path)
    try:
        if panel.kind == "svg":
            return load_svg(path, project_root=project.root, source=display)
        return read_limited(path, limit=MAX_IMAGE_BYTES, source=display)
    except SvgError as exc:
        layout_dir = Path(file).parent if os.path.isabs(file) else (project.root / file).parent
        shown = os.path.relpath(panel.source, layout_dir)
        detail = exc.message if exc.file == display else str(exc)  # name a nested image file
        raise SvgError(f"{shown!r} is not usable: {detail}", file=file, key=f"{panel.key}.{panel.kind}") from None


def _check_shared_params(figure: Figure, functions: list[Any], file: str) -> None:
    """Every ``[figure] params`` key is taken by a panel function or a ``values()`` (as a keyword, or
    through ``**kwargs``) or printed by a text field; else it is a typo or a leftover.

    Raises:
        LayoutError: at ``figure.params.KEY``, with the closest name taken.
    """
    import difflib
    import inspect

    if not figure.spec.params:
        return
    taken: set[str] = set()
    for func in functions:
        try:
            parameters = inspect.signature(func).parameters.values()
        except (TypeError, ValueError):
            return  # a callable composer cannot inspect may take anything
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            return
        taken |= {p.name for p in parameters}
    templates = ([t.text for t in figure.texts] + [s.text for s in figure.shapes if s.text]
                 + [a.label for a in figure.arrows if a.label] + [p.title for p in figure.panels if p.title])
    for template in templates:
        try:
            taken |= set(field_names(template))
        except ValueError:
            pass  # reported, with its key, when the text is filled
    for name in figure.spec.params:
        if name not in taken:
            close = difflib.get_close_matches(name, sorted(taken), n=1, cutoff=0.6)
            raise LayoutError(f"no panel function, values() or text field takes {name!r}"
                              + (f"; did you mean {close[0]!r}?" if close else "")
                              + "; a shared param must be used (or removed)", file=file, key=f"figure.params.{name}")


def _module_values(func, module_name: str, data: Mapping[str, Any], params: Mapping[str, Any], project: Project,
                   file: str, timeout_s: float | None, *, has_data: bool = True) -> dict[str, Any]:
    """``values(data, **params)`` of one panel module, run isolated like a renderer."""
    who = f"values() in panels/{module_name}.py"
    key = "figure.data" if has_data else None  # values(data) reads the figure's data file
    hint = "" if has_data else " (the figure has no data file: values(data) got an empty one; set [figure] data)"

    def call() -> dict[str, Any]:
        try:
            found = func(data, **accepted(func, params))
        except Exception as exc:  # the user's code
            raise PanelError(f"{who} raised {_describe(exc, project.panels_dir)}{hint}", file=file,
                             key=key) from None
        if not isinstance(found, dict):
            raise PanelError(f"{who} returned {type(found).__name__}, not a dict", file=file)
        return found

    prepare_fork()
    try:
        return run_isolated(call, timeout_s=timeout_s)
    except WorkerFailure as failure:
        raise PanelError(panel_failure(failure, who, project.panels_dir), file=file, key=key) from None


@dataclass(frozen=True)
class Typeset:
    """The canvas text of a figure, filled and typeset (pure, before rendering).

    Attributes:
        texts: each ``[[text]]``'s filled string and block.
        shapes: each shape's filled text and block (None without text) and its
            box size (fitted to the text where the layout gave none; None for
            lines and braces, and for shapes that fill a grid cell).
        arrow_labels: each arrow's filled label and block, or None.
    """

    texts: tuple[tuple[str, TextBlock], ...]
    shapes: tuple[tuple[str | None, TextBlock | None, tuple[float, float] | None], ...]
    arrow_labels: tuple[tuple[str, TextBlock] | None, ...]

    @property
    def text_sizes(self) -> list[tuple[float, float]]:
        return [(b.width_pt, b.height_pt) for _, b in self.texts]

    @property
    def shape_sizes(self) -> list[tuple[float, float] | None]:
        return [size for _, _, size in self.shapes]


def typeset_figure(inputs: Inputs) -> Typeset:
    """Fill every ``{field}`` and typeset every canvas text; fit shapes to their text.

    A shape with text and no size is the text plus ``padding`` on each side
    (a circle or ellipse encloses the text's box: its axes are the box's times
    sqrt 2); with only a width, the text wraps to it and the height follows.

    Raises:
        DataError: a field without a value. LayoutError: bad mathtext or markup.
    """
    figure, file = inputs.figure, inputs.file
    colors = tuple(figure.spec.colors.items())
    texts = []
    for t in figure.texts:
        filled = _fill(t.text, inputs, file, f"{t.key}.text")
        texts.append((filled, _typeset(filled, t.style, file, f"{t.key}.text", colors, t.width_pt)))
    shapes = []
    for s in figure.shapes:
        if s.place is None:
            shapes.append((None, None, None))
            continue
        width, height = s.size_pt
        filled = _fill(s.text, inputs, file, f"{s.key}.text") if s.text else None
        block = None
        if filled is not None and s.text_style is not None:
            wrap = width - 2 * s.padding_pt if width is not None and s.kind == "rect" else None
            block = _typeset(filled, s.text_style, file, f"{s.key}.text", colors, wrap)
        size = None
        if s.place.cell is None:
            if None not in (width, height):
                size = (width, height)
            elif block is not None:
                grow = 1.0 if s.kind == "rect" else math.sqrt(2)
                w = width if width is not None else block.width_pt * grow + 2 * s.padding_pt
                h = height if height is not None else block.height_pt * grow + 2 * s.padding_pt
                if s.kind == "circle":
                    w = h = max(w, h)
                size = (w, h)
        shapes.append((filled, block, size))
    labels = []
    for a in figure.arrows:
        if a.label is None or a.label_style is None:
            labels.append(None)
            continue
        filled = _fill(a.label, inputs, file, f"{a.key}.label")
        labels.append((filled, _typeset(filled, a.label_style, file, f"{a.key}.label", colors)))
    return Typeset(tuple(texts), tuple(shapes), tuple(labels))


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
        for note in rendered[p.name].notes if p.kind == "render" else ():
            warnings.warn(ComposerWarning(f"{inputs.file}: {note}"), stacklevel=2)
    return {p.name: rendered[p.name] for p in figure.panels if p.kind == "render"}


def render_units(figure: Figure) -> list[list[str]]:
    """The render panels grouped for workers: each aligned group (joined when groups share a panel)
    together, every other panel alone; in layout order."""
    names = [p.name for p in figure.panels if p.kind == "render"]
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
        drafts = {}
        for n in names:
            with font_substitutions() as found:
                drafts[n] = draw_panel(inputs.renderers[n], panels[n], figure.spec, inputs.data[n],
                                       size_pt=(boxes[n].width_pt, boxes[n].height_pt), file=file)
            substituted[n].update(found)
        for align in figure.aligns:
            if set(align.panels) & set(names):
                align_plot_areas(drafts, boxes, align, file=file)
        saved = {}
        for n in names:
            with font_substitutions() as found:
                panel = save_panel(drafts[n], figure.spec, file=file)
            substituted[n].update(found)
            saved[n] = dataclasses.replace(panel, substituted=dict(sorted(substituted[n].items())))
        return saved

    prepare_fork()
    try:
        return run_isolated(work, timeout_s=timeout_s)
    except WorkerFailure as failure:
        # the panel whose function is in the failing frames (a unit has one panel, unless aligned)
        functions = {frame.name for frame in failure.frames}
        panel = next((panels[n] for n in names if str(panels[n].source).split(":")[-1] in functions),
                     panels[names[0]])
        raise PanelError(panel_failure(failure, f"panel {panel.name!r}: {panel.source}",
                                       _user_dir(inputs.renderers[panel.name])),
                         file=file, key=f"{panel.key}.render") from None


def figure_geometry(inputs: Inputs, rendered: Mapping[str, RenderedPanel],
                    typeset: Typeset | None = None) -> Geometry:
    """Every box and route of the figure, with rendered panels' data anchors (pure)."""
    typeset = typeset or typeset_figure(inputs)
    return resolve(inputs.figure, typeset.text_sizes, typeset.shape_sizes,
                   {name: r.anchors for name, r in rendered.items()}, file=inputs.file)


def compose(inputs: Inputs, rendered: Mapping[str, RenderedPanel], typeset: Typeset | None = None) -> bytes:
    """Compose the canvas SVG from inputs and rendered panels (pure).

    Returns:
        The SVG document's bytes: root ``width``/``height`` in the layout's
        units, ``viewBox`` in pt (1 user unit = 1 pt), a background rect unless
        ``background = "none"``, then panels, shapes, arrows, texts and labels,
        each a group or path with a readable id.

    Raises:
        DataError: a text field without a value. LayoutError: bad mathtext,
            unknown anchor, reference cycle, overlapping panels, a font that
            cairosvg and browsers would swap (:mod:`composer.text.fonts`).
            SvgError: an unusable imported SVG.

    Every top-level element gets an ``inkscape:label`` (:mod:`composer.stages.inkscape`);
    rasters are brought to ``raster_ppi`` (:mod:`composer.svg.images`).
    """
    figure, file = inputs.figure, inputs.file
    spec = figure.spec
    typeset = typeset or typeset_figure(inputs)
    colors = tuple(spec.colors.items())
    geometry = figure_geometry(inputs, rendered, typeset)

    root = etree.Element(svg_tag("svg"), nsmap=NSMAP)
    root.set("width", spec.width_text)
    root.set("height", spec.height_text)
    root.set("viewBox", f"0 0 {fmt(spec.width_pt)} {fmt(spec.height_pt)}")
    root.set("version", "1.1")
    bg = draw.background(spec)
    if bg is not None:
        root.append(bg)
    for panel in figure.panels:
        try:
            root.append(_panel_group(panel, geometry.panels[panel.name], inputs, rendered))
        except (SvgError, DataError) as exc:
            if panel.kind == "render":
                raise
            # name the layout key and the path as written there, not only the absolute file
            shown = os.path.relpath(panel.source, figure.path.parent)
            raise type(exc)(f"{shown!r} is not usable: {exc.message}", file=file,
                            key=f"{panel.key}.{panel.kind}") from None
    for i, (shape, (filled, block, _)) in enumerate(zip(figure.shapes, typeset.shapes)):
        box = geometry.shapes[i]
        if shape.place is not None and shape.place.cell is not None and filled and shape.text_style and box:
            block = _typeset(filled, shape.text_style, file, f"{shape.key}.text", colors,
                             box.width_pt - 2 * shape.padding_pt)
        root.append(draw.shape_element(shape, box, geometry.shape_points[i], element_id=f"shape-{shape.name or i}",
                                       block=block, label=filled))
    for i, (arrow, route) in enumerate(zip(figure.arrows, geometry.arrows)):
        group = draw.arrow_element(route, arrow, element_id=f"arrow-{i}")
        if typeset.arrow_labels[i] is not None and arrow.label_style is not None:
            filled, block = typeset.arrow_labels[i]
            box = draw.connector_label_box(route, arrow, block)
            group.append(draw.text_element(block, box, arrow.label_style, "center", element_id=f"arrow-{i}-label",
                                           label=filled))
        root.append(group)
    for i, (text, (filled, block)) in enumerate(zip(figure.texts, typeset.texts)):
        box = geometry.texts[i]
        if text.place.cell is not None:  # a text filling a cell: wrapped to it, centred in it
            block = _typeset(filled, text.style, file, f"{text.key}.text", colors, text.width_pt or box.width_pt)
            box = Box.placed(box.anchor("center"), "center", block.width_pt, block.height_pt)
        align = text.align or draw.default_align(text.place.anchor)
        root.append(draw.text_element(block, box, text.style, align,
                                      element_id=f"text-{text.name or i}", label=filled))
    title_style = dataclasses.replace(spec.label, weight="normal")
    for panel in figure.panels:
        label = _typeset(panel.label, spec.label, file, f"{panel.key}.label", colors) if panel.label else None
        title_text = _fill(panel.title, inputs, file, f"{panel.key}.title") if panel.title else None
        title = _typeset(title_text, title_style, file, f"{panel.key}.title", colors) if title_text else None
        label_box, title_box = draw.label_boxes(panel, geometry.panels[panel.name], spec, label, title)
        if label is not None:
            root.append(draw.text_element(label, label_box, spec.label, "left", element_id=f"label-{panel.name}",
                                          label=panel.label or ""))
        if title is not None:
            root.append(draw.text_element(title, title_box, title_style, "left", element_id=f"title-{panel.name}",
                                          label=title_text or ""))
    label_elements(root, figure)
    finish_rasters(root, spec.raster_ppi)
    imported = {f"panel-{p.name}": os.path.relpath(p.source, figure.path.parent)
                for p in figure.panels if p.kind == "svg"}
    check_svg_fonts(root, file=file, imported=imported)
    kinds = {f"panel-{p.name}": "laid-out" if p.kind == "render" else "imported" for p in figure.panels}
    pin_text_positions(root, scope=lambda el: _top_level_kind(el, kinds))
    return write_svg(root)


def panel_label_boxes(inputs: Inputs, geometry: Geometry) -> dict[str, tuple[Box | None, Box | None]]:
    """Panel name -> (label box, title box) as :func:`compose` draws them (None where absent)."""
    spec, file = inputs.figure.spec, inputs.file
    colors = tuple(spec.colors.items())
    title_style = dataclasses.replace(spec.label, weight="normal")
    boxes = {}
    for panel in inputs.figure.panels:
        label = _typeset(panel.label, spec.label, file, f"{panel.key}.label", colors) if panel.label else None
        title_text = _fill(panel.title, inputs, file, f"{panel.key}.title") if panel.title else None
        title = _typeset(title_text, title_style, file, f"{panel.key}.title", colors) if title_text else None
        boxes[panel.name] = draw.label_boxes(panel, geometry.panels[panel.name], spec, label, title)
    return boxes


def _top_level_kind(el: etree._Element, kinds: Mapping[str, str]) -> str | None:
    """``kinds[id]`` of the canvas's top-level element holding ``el`` (None outside panels)."""
    top = el
    while top.getparent() is not None and top.getparent().getparent() is not None:
        top = top.getparent()
    return kinds.get(top.get("id", ""))


def _fill(template: str, inputs: Inputs, file: str, key: str) -> str:
    """Fill a text's ``{fields}``; negative numbers get matplotlib's minus sign (U+2212) unless the
    layout's rcParams turn ``axes.unicode_minus`` off, so text and tick labels agree."""
    minus = "\u2212" if inputs.figure.spec.rcparams.get("axes.unicode_minus", True) else "-"
    return fill_fields(template, inputs.values, file=file, key=key, minus=minus)


#: the typeset-text cache of the build in progress (:class:`composer.incremental.cache.TextCache`), if any.
_TEXT_CACHE: contextvars.ContextVar[TextCache | None] = contextvars.ContextVar("composer_text_cache", default=None)


def _typeset(text: str, style, file: str, key: str, colors: tuple[tuple[str, str], ...] = (),
             width_pt: float | None = None) -> TextBlock:
    check_font(style.font, file=file, key=key)
    if len(text) > MAX_TEXT_CHARS:
        raise LayoutError(f"text of {len(text)} characters is longer than the limit of {MAX_TEXT_CHARS}",
                          file=file, key=key)
    store = _TEXT_CACHE.get()
    try:
        if store is not None:
            return store.typeset(text, style, colors, width_pt)
        return typeset(text, style, colors, width_pt)
    except ValueError as exc:
        raise LayoutError(f"cannot typeset {text!r}: {' '.join(str(exc).split())}", file=file, key=key) from None


def _panel_group(panel: Panel, box, inputs: Inputs, rendered: Mapping[str, RenderedPanel]) -> etree._Element:
    group_id = f"panel-{panel.name}"
    if panel.kind == "image":
        return _image_group(panel, box, inputs.documents[panel.name], group_id, inputs.figure.spec.raster_ppi)
    if panel.kind == "render":
        source, svg, fit = f"panel {panel.name}", rendered[panel.name].svg, "exact"
    else:
        source, svg, fit = str(panel.source), inputs.documents[panel.name], "contain"
    doc = parse_svg(svg, source=source)
    vb = view_box(doc, source=source)
    aspect = doc.get("preserveAspectRatio")
    group = import_fragment(doc, name=panel.name, group_id=group_id, source=source)
    place(group, vb, x_pt=box.x_pt, y_pt=box.y_pt, width_pt=box.width_pt, height_pt=box.height_pt, fit=fit,
          aspect=aspect)
    return group


def _image_group(panel: Panel, box, data: bytes, group_id: str, inputs_ppi: float) -> etree._Element:
    """A PNG/JPEG panel, inlined as a data URI and fitted in its box keeping aspect."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            width_px, height_px = img.size
            fmt_name = img.format
            mime = {"PNG": "image/png", "JPEG": "image/jpeg"}.get(fmt_name or "")
            if mime is None:
                raise DataError(f"image format {fmt_name} is not supported; use PNG or JPEG", file=str(panel.source))
            if width_px * height_px > MAX_IMAGE_PIXELS:
                raise DataError(f"image is {width_px}x{height_px} pixels, more than the limit of "
                                f"{MAX_IMAGE_PIXELS}", file=str(panel.source))
            img.load()  # decode every pixel: a truncated or damaged file fails here, not in a viewer
    except DataError:
        raise
    except Exception as exc:  # PIL raises many kinds for broken files
        detail = "not a PNG or JPEG file" if isinstance(exc, UnidentifiedImageError) else exc
        raise DataError(f"cannot read image: {detail}", file=str(panel.source)) from None
    scale = min(box.width_pt / width_px, box.height_pt / height_px)
    w, h = width_px * scale, height_px * scale
    group = etree.Element(svg_tag("g"), id=group_id)
    image = etree.SubElement(group, svg_tag("image"))
    image.set("x", fmt(box.x_pt + (box.width_pt - w) / 2))
    image.set("y", fmt(box.y_pt + (box.height_pt - h) / 2))
    image.set("width", fmt(w))
    image.set("height", fmt(h))
    image.set("preserveAspectRatio", "none")
    if width_px / (w / 72.0) < inputs_ppi:
        # upsampled: keep pixels square and sharp (nearest) instead of smearing them
        image.set("image-rendering", "optimizeSpeed")
    image.set(f"{{{NSMAP['xlink']}}}href", f"data:{mime};base64," + base64.b64encode(data).decode("ascii"))
    return group


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

    ``outputs`` also holds ``debug-svg``/``debug-png`` for the overlay.
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


def build(name: str, *, root: str | Path = ".", out: str | Path | None = None,
          formats: tuple[str, ...] = FORMATS, dpi: float = 300.0, debug: bool = False, check: bool = False,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, jobs: int | None = None, cache: bool = True,
          progress: Progress | None = None, engine: str | None = None, pdf_standard: str | None = None,
          svg_first: bool = False) -> BuildResult:
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
    reason = (manifest.stale_reason(project.root, name, out_dir, opts) if cache and not (debug or check)
              else "--no-cache" if not cache else "--debug/--check")
    seconds = {"check": time.perf_counter() - started}
    if reason is None:
        replayed = tuple(manifest.recorded_warnings(out_dir, name))
        for message in replayed:  # what the build that made these outputs warned about
            warnings.warn(ComposerWarning(message), stacklevel=2)
        return BuildResult(outputs=manifest.recorded_outputs(out_dir, name), up_to_date=True, seconds=seconds,
                           warnings=replayed)
    progress = progress or Progress()
    token = _TEXT_CACHE.set(None)
    try:
        return _build(project, name, out_dir, tuple(formats), dpi, jobs or available_cores(), cache, progress,
                      reason, seconds, debug, check, timeout_s, engine=engine, pdf_standard=pdf_standard,
                      svg_first=svg_first)
    finally:
        _TEXT_CACHE.reset(token)
        progress.close()


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
    progress = progress or Progress()
    token = _TEXT_CACHE.set(None)
    try:
        return _build(project, name, project.root / "build", (), 300.0, jobs or available_cores(), cache, progress,
                      "check", {"check": time.perf_counter() - started}, check=True, timeout_s=timeout_s,
                      write=False)
    finally:
        _TEXT_CACHE.reset(token)
        progress.close()


def check(name: str, *, root: str | Path = ".", jobs: int | None = None,
          timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Report:
    """Compose figure ``name`` of the project at ``root`` and check it (see the module docstring).

    Writes nothing. Panels are rendered as a build renders them
    (:func:`composer.pipeline.lint_figure`): each from the panel cache when a
    build stored it, else in a forked worker stopped after ``timeout_s``
    seconds (None: no limit), ``jobs`` workers at a time (default: every
    core). A layout font that is not installed stops the check after the font
    rule (nothing can be composed); every other rule runs on the composed
    canvas.

    Raises:
        ComposerError: the figure cannot be loaded, rendered (a panel raised,
            hung or crashed: one line naming it) or composed.
    """
    project = Project.at(root)
    layout_path = project.layout_path(name)
    figure = load_layout(layout_path, name=name, display=project.display(layout_path))
    missing = font_findings(figure)
    if missing:
        return Report(figure=name, limits=figure.spec.check, findings=tuple(missing),
                      notes=("the figure cannot be composed with a missing font; the other rules did not run",))
    return lint_figure(name, root=project.root, jobs=jobs, timeout_s=timeout_s).report


@contextlib.contextmanager
def _recording(issued: list[str]):
    """Warnings raised inside the block are issued as they would have been (the caller's filters
    apply), once it ends; the message of each :class:`ComposerWarning` among them is added to ``issued``."""
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
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


@imports_undone()  # the project's modules leave sys.modules when the build ends
def _build(project: Project, name: str, out_dir: Path, formats: tuple[str, ...], dpi: float, jobs: int,
           cache: bool, progress: Progress, reason: str, seconds: dict[str, float], debug: bool = False,
           check: bool = False, timeout_s: float | None = DEFAULT_TIMEOUT_S, write: bool = True,
           engine: str | None = None, pdf_standard: str | None = None, svg_first: bool = False) -> BuildResult:
    """The build after the no-op test (see :func:`build`). ``write=False`` stops after composing (and
    checking): nothing is exported or written, the panel cache is read but not filled."""
    clock = [time.perf_counter()]

    def lap(stage: str) -> None:
        now = time.perf_counter()
        seconds[stage] = now - clock[0]
        clock[0] = now

    # 1. the layout, then a digest of every input, *before* the inputs are read:
    #    a file edited during the build then no longer matches the manifest.
    layout_path = project.layout_path(name)
    layout_digest = manifest.file_digest(layout_path)
    file = project.display(layout_path)
    figure = load_layout(layout_path, name=name, display=file, timeout_s=timeout_s)
    opts = manifest.options(formats, dpi, engine, pdf_standard)  # as the next build's no-op test sees them
    chosen_by = (None, None) if engine else (file, "figure.engine")
    engine = engine or figure.spec.engine
    if write:  # a missing engine is said before any panel is drawn
        check_engine(engine, [*formats, *(["png"] if debug else [])], pdf_standard, file=chosen_by[0],
                     key=chosen_by[1])
    sources, digests = _input_digests(project, figure)
    digests[layout_path.resolve()] = layout_digest
    # 2. read data and panel modules, typeset (from the text cache), place; one cache key per render panel
    inputs = read_inputs(project, name, figure=figure, timeout_s=timeout_s)
    text_cache = TextCache(text_cache_path(project.root, name)) if cache else None
    _TEXT_CACHE.set(text_cache)
    typeset = typeset_figure(inputs)
    boxes = panel_boxes(figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    groups = [tuple(unit) for unit in render_units(figure)]
    keys = _panel_keys(figure, inputs, boxes, groups, sources, digests)
    panel_cache = PanelCache(cache_dir(project.root))
    previous = manifest.load(out_dir, name) if cache else None
    rendered: dict[str, RenderedPanel] = {}
    if cache:
        for group in groups:
            hits = {n: panel_cache.load(keys[n]) for n in group}
            if all(hit is not None for hit in hits.values()):
                rendered.update(hits)  # type: ignore[arg-type]
    cached = tuple(p.name for p in figure.panels if p.name in rendered)
    repaired = tuple(n for n, k in keys.items() if k in panel_cache.repaired)
    # 3. render the missing groups, slowest first (as the last build measured), in parallel
    before = {n: rec.get("seconds", 0.0) for n, rec in (previous or {}).get("panels", {}).items()}
    missing = sorted((g for g in groups if g[0] not in rendered), key=lambda g: -sum(before.get(n, 0.0) for n in g))
    tasks = [RenderTask("+".join(g), partial(_render_unit, inputs, list(g), boxes, timeout_s)) for g in missing]
    position = {p.name: i for i, p in enumerate(figure.panels)}
    layout_rank = {"+".join(g): min(position[n] for n in g) for g in missing}
    lap("read")
    results, error = render_all(tasks, jobs=jobs, progress=progress, prepare=partial(_warm, figure.spec),
                                rank=lambda t: layout_rank[t.name])
    if error is not None:
        raise error
    fresh: dict[str, RenderedPanel] = {}
    for panels_of_group, _ in results.values():
        fresh.update(panels_of_group)
    rendered.update(fresh)
    issued: list[str] = []  # every ComposerWarning of this build, in order: the manifest keeps them
    for p in inputs.figure.panels:  # warnings from the render workers, cached ones included
        for note in rendered[p.name].notes if p.name in rendered else ():
            issued.append(f"{inputs.file}: {note}")
            warnings.warn(ComposerWarning(issued[-1]), stacklevel=2)
    lap("render")
    # 4. compose; write only what changed; PDF/PNG only when the SVG changed
    progress.stage("composing")
    with _recording(issued):
        svg = compose(inputs, rendered, typeset)
    report = None
    files: dict[Path, bytes] = {}
    if debug or check:
        geometry = figure_geometry(inputs, rendered, typeset)
    if check:


        # what matplotlib substituted while drawing, carried by each panel (from its worker or the cache)
        substituted = {f"panel {n}\t{font}": message for n, panel in rendered.items()
                       for font, message in panel.substituted.items()}
        report = lint(inputs.figure, geometry, svg, file=inputs.file, substituted=substituted)
    if not write:
        lap("compose")
        return BuildResult(outputs={}, report=report, reason=reason,
                           rendered=tuple(p.name for p in figure.panels if p.name in fresh), cached=cached,
                           repaired=repaired, seconds=seconds, render_seconds={g: s for g, (_, s) in results.items()},
                           warnings=tuple(issued))
    if debug:
        from composer.stages.overlay import overlay

        debug_svg = overlay(inputs.figure, geometry, svg, panel_label_boxes(inputs, geometry))
        files[out_dir / f"{name}.debug.svg"] = debug_svg
        files[out_dir / f"{name}.debug.png"] = export(debug_svg, ["png"], engine=engine, dpi=dpi,
                                                      source=inputs.file, timeout_s=timeout_s)["png"]
    lap("compose")
    svg_digest = manifest.bytes_digest(svg)
    old = (previous or {}).get("outputs", {})
    records: dict[str, dict[str, Any]] = {}
    if "svg" in formats:
        records["svg"] = {"file": f"{name}.svg", "sha256": svg_digest}
    exports = []
    for kind in ALL_FORMATS[1:]:
        if kind not in formats:
            continue
        record = {"file": f"{name}.{kind}", "svg_sha256": svg_digest, "engine": engine_for(kind, engine),
                  **({"dpi": float(dpi)} if kind in ("png", "tiff") else {}),
                  **({"pdf_standard": pdf_standard} if kind == "pdf" and pdf_standard else {})}
        prev = old.get(kind, {})
        if ({k: v for k, v in prev.items() if k != "sha256"} == record and prev.get("sha256")
                and manifest.file_digest(out_dir / record["file"]) == prev["sha256"]):
            records[kind] = {**record, "sha256": prev["sha256"]}
        else:
            exports.append(kind)
            records[kind] = record
    early = svg_first and "svg" in formats and bool(exports) and \
        manifest.file_digest(out_dir / f"{name}.svg") != svg_digest
    if early:
        write_files_atomically({**files, out_dir / f"{name}.svg": svg})  # the SVG now, PDF and PNG after
        files = {}
    if exports:
        progress.stage(f"exporting {', '.join(exports)}")
    made = export(svg, exports, engine=engine, dpi=dpi, title=name, pdf_standard=pdf_standard,
                  source=inputs.file, timeout_s=timeout_s, jobs=jobs)
    lap("export")
    if "svg" in formats:
        made["svg"] = svg
    written = ["svg"] if early else []
    for kind in ALL_FORMATS:
        if kind not in made or (early and kind == "svg"):
            continue
        records[kind]["sha256"] = manifest.bytes_digest(made[kind])
        path = out_dir / f"{name}.{kind}"
        if not cache or manifest.file_digest(path) != records[kind]["sha256"]:
            files[path] = made[kind]
            written.append(kind)
    # 5. cache entries and manifest, only when no input changed while it was read
    now = _input_digests(project, figure)[1]
    now[layout_path.resolve()] = manifest.file_digest(layout_path)
    consistent = now == digests
    manifest_file = manifest.manifest_path(out_dir, name)
    if consistent:
        group_seconds = {n: s / len(g.split("+")) for g, (_, s) in results.items() for n in g.split("+")}
        files[manifest_file] = manifest.dumps(_manifest(project, figure, opts,
                                                        digests, records, keys, group_seconds, before, issued))
    write_files_atomically(files, stale=tuple(f"{name}.{kind}" for kind in ALL_FORMATS))  # unchanged ones' too
    if not consistent and manifest_file.exists():
        manifest_file.unlink()
    if cache and consistent:  # after the outputs: a build that fails to write leaves the cache alone too
        panel_cache.touch(keys[n] for n in cached)
        panel_cache.store({keys[n]: panel for n, panel in fresh.items()})
        if text_cache is not None:
            text_cache.save()
    lap("write")
    outputs = {kind: out_dir / f"{name}.{kind}" for kind in ALL_FORMATS if kind in formats}
    if debug:
        outputs.update({"debug-svg": out_dir / f"{name}.debug.svg", "debug-png": out_dir / f"{name}.debug.png"})
    return BuildResult(
        outputs=outputs,
        report=report,
        reason=reason,
        rendered=tuple(p.name for p in figure.panels if p.name in fresh),
        cached=cached,
        repaired=repaired,
        written=tuple(written),
        seconds=seconds,
        render_seconds={g: s for g, (_, s) in results.items()},
        warnings=tuple(issued),
    )


def check_outputs(formats: tuple[str, ...], dpi: float) -> None:
    """Refuse unknown output formats and a dpi outside 1 to :data:`composer.stages.export.MAX_DPI` (before any work).

    Raises:
        ComposerError: names the bad format and the valid ones, or the bad dpi.
    """
    bad = [f for f in formats if f not in ALL_FORMATS]
    if bad or not formats:
        raise ComposerError(f"unknown format {bad[0] if bad else ''!r}; valid formats are {', '.join(ALL_FORMATS)}")
    check_dpi(dpi)




def compose_svg(inputs: Inputs) -> bytes:
    """Typeset, render and compose a figure whose inputs are read: the canvas SVG bytes.

    Raises:
        ComposerError: see :func:`typeset_figure`, :func:`render_panels`, :func:`compose`.
    """
    typeset = typeset_figure(inputs)
    return compose(inputs, render_panels(inputs, typeset), typeset)


def write_outputs(svg: bytes, name: str, out_dir: Path, formats: tuple[str, ...] = FORMATS,
                  dpi: float = 300.0, extra: dict[Path, bytes] | None = None, *, source: str = "canvas",
                  timeout_s: float | None = DEFAULT_TIMEOUT_S, engine: str = DEFAULT_ENGINE,
                  pdf_standard: str | None = None) -> BuildResult:
    """Export ``svg`` to the asked ``formats`` (:func:`composer.stages.export.export`: forked workers with the
    ``timeout_s`` limit) and write ``out_dir/NAME.*`` (and ``extra`` files) atomically: all or none.

    Raises:
        SvgError: an export failed, hung or crashed (``source`` names the figure).
        ComposerError: the engine cannot run here (:func:`composer.stages.export.check_engine`).
    """
    files: dict[Path, bytes] = dict(extra or {})
    made = export(svg, [f for f in formats if f != "svg"], engine=engine, dpi=dpi, title=name,
                  pdf_standard=pdf_standard, source=source, timeout_s=timeout_s)
    if "svg" in formats:
        made["svg"] = svg
    for kind in ALL_FORMATS:
        if kind in made:
            files[out_dir / f"{name}.{kind}"] = made[kind]
    write_files_atomically(files)
    return BuildResult(outputs={p.name[len(name) + 1:].replace(".", "-"): p for p in files})


def _warm(spec) -> None:
    """Before forking: what every panel worker needs (:func:`composer.stages.render.prepare_fork`), warmed up by
    drawing a throwaway panel (:func:`composer.stages.render.warm_up`), so no worker pays for it again."""
    prepare_fork()
    warm_up(spec)


def _input_digests(project: Project, figure: Figure) -> tuple[dict[str, tuple[str, list[Path]]], dict[Path, str | None]]:
    """Digests of every file a figure reads besides its layout.

    Returns:
        ``(sources, digests)``: ``"module:function"`` -> (renderer source
        digest, project files it covers) for render panels whose module
        exists; and absolute path -> sha256 (None when unreadable) of every
        file the layout names (style, data, svg, image: ``Figure.files``), the
        panel modules with the project modules they import, and the project
        modules a Python layout imports.
    """
    sources: dict[str, tuple[str, list[Path]]] = {}
    paths: set[Path] = {Path(p) for p in figure.files}
    if figure.path.suffix == ".py":
        paths.update(project_imports(figure.path, figure.path.parent))
        paths.update(project_imports(figure.path, project.panels_dir))
    for panel in figure.panels:
        if panel.kind == "render":
            module, function = str(panel.source).split(":")
            module_path = project.panels_dir / f"{module}.py"
            if str(panel.source) not in sources and module_path.is_file():
                sources[str(panel.source)] = renderer_digest(module_path, function, project.panels_dir)
    for _, covered in sources.values():
        paths.update(covered)
    return sources, {p.resolve(): manifest.file_digest(p) for p in sorted(paths)}


def _panel_keys(figure: Figure, inputs: Inputs, boxes: Mapping[str, Box], groups: list[tuple[str, ...]],
                sources: Mapping[str, tuple[str, list[Path]]], digests: Mapping[Path, str | None]) -> dict[str, str]:
    """Render panel name -> cache key (:func:`composer.incremental.cache.panel_key`).

    A panel in an aligned group also depends on the other members and on the
    boxes (position too) of all of them: its key covers the group's signature.
    """
    spec = figure.spec
    font_file = check_font(spec.font)
    rc_in_force = rc_digest()
    panels = {p.name: p for p in figure.panels}
    own = {}
    for group in groups:
        for name in group:
            panel = panels[name]
            func = inputs.renderers[name]
            data_path = panel.data or spec.data
            box = boxes[name]
            own[name] = panel_key(
                source=sources[str(panel.source)][0], function=str(panel.source),
                params=call_params(func, panel, spec, file=inputs.file),
                data=digests.get(Path(data_path).resolve()) if data_path is not None else None,
                size_pt=(box.width_pt, box.height_pt), rc=rc_params(spec, name), raster_ppi=spec.raster_ppi,
                font_file=font_file, rc_in_force=rc_in_force, raster=panel.raster, text_mode=spec.text)
    keys = {}
    for group in groups:
        if len(group) == 1 and not any(group[0] in a.panels for a in figure.aligns):
            keys[group[0]] = own[group[0]]
            continue
        signature = group_signature(
            [(n, own[n], (boxes[n].x_pt, boxes[n].y_pt, boxes[n].width_pt, boxes[n].height_pt)) for n in group],
            [(list(a.panels), a.axis) for a in figure.aligns if set(a.panels) & set(group)])
        for name in group:
            keys[name] = manifest.bytes_digest(f"{own[name]}:{signature}".encode())
    return keys


def _manifest(project: Project, figure: Figure, opts: Mapping[str, Any],
              digests: Mapping[Path, str | None], records: Mapping[str, Any], keys: Mapping[str, str],
              seconds: Mapping[str, float], before: Mapping[str, float], issued: list[str]) -> dict:
    """The manifest of a successful build (see :mod:`composer.incremental.manifest`); ``issued``: its warnings."""
    import sys

    import importlib.util

    packages = ("matplotlib", "numpy", "lxml", "cairosvg", "cairocffi", "PIL", "tinycss2", "cssselect2",
                "mpl_toolkits", "pyparsing", "kiwisolver")
    env_files = [getattr(sys.modules[p], "__file__", None) for p in packages if p in sys.modules]
    # the engines are imported by the export workers only: their files are found, not imported
    engines = {engine_for(kind, figure.spec.engine if "engine" not in opts else opts["engine"])
               for kind in opts["formats"] if kind != "svg"}
    for package in sorted({"resvg": "typst", "cairosvg": "cairosvg"}[e] for e in engines):
        spec = importlib.util.find_spec(package)
        env_files.append(spec.origin if spec is not None else None)
    fonts = {figure.spec.font, figure.spec.label.font}
    fonts |= {t.style.font for t in figure.texts}
    fonts |= {s.text_style.font for s in figure.shapes if s.text_style is not None}
    fonts |= {a.label_style.font for a in figure.arrows if a.label_style is not None}
    env_files += [check_font(f) for f in sorted(fonts)]
    panels = {name: {"key": key, "seconds": round(seconds.get(name, before.get(name, 0.0)), 4)}
              for name, key in keys.items()}
    return {
        "format": manifest.FORMAT,
        "figure": figure.name,
        "environment": manifest.environment(f for f in env_files if f),
        "options": dict(opts),
        "inputs": {manifest.display_path(p, project.root): d for p, d in sorted(digests.items())},
        "outputs": dict(records),
        "panels": panels,
        "warnings": list(issued),
    }
