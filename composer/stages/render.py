"""Render stage: run a panel function on a matplotlib Figure of its final size.

A renderer is a plain function ``f(fig, data, **params)`` in
``panels/<module>.py``. composer makes ``Figure(figsize=box / 72 pt per in)``,
so the panel is drawn at the physical size it has in the final figure: a 7 pt
tick label is 7 pt on paper, and the panel is never scaled afterwards.

rcParams while rendering (see docs/design.md, "Traps of merging SVG"):

- ``svg.fonttype = "path"``: glyphs as outlines, mathtext included, so every
  renderer shows the same glyphs (``"none"`` under ``[figure] text =
  "editable"``, mathtext still outlines: see :mod:`composer.mpl.savesvg`);
- ``svg.hashsalt`` fixed and ``metadata={"Date": None}``: byte-identical SVG;
- ``figure.dpi = 72``: one display unit = 1 pt, the SVG user unit;
- ``font.family``/``font.size`` from the layout's ``[figure]``.

A renderer may return ``{name: (ax, x, y)}`` (or ``(ax, x, y, z)`` for 3D axes)
in data coordinates: these *data anchors* are transformed after drawing into
panel points, so connectors can end exactly on a data point.

:func:`composer.pipeline.render_panels` runs renderers in forked workers with a
timeout (:mod:`composer.sandbox.isolate`); :func:`panel_failure` words what went wrong
there. A renderer that raises, hangs, crashes the interpreter or returns
garbage becomes one :class:`PanelError` naming the panel, the function and the
line of panel code, and nothing it changed in matplotlib's state or in its
data reaches the other panels.
"""

from __future__ import annotations

import difflib
import hashlib
import importlib.machinery
import importlib.util
import inspect
import io
import logging
import math
import os
import sys
import traceback
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from composer.errors import LayoutError, PanelError
from composer.layout.model import FigureSpec, Panel
from composer.mpl.internals import (
    family_not_found,
    forget_font_lookups,
    mathtext_missing_char,
    pyplot_on,
    text_missing_char,
    weight_not_found,
)
from composer.mpl.savesvg import save_svg, svg_fonttype
from composer.sandbox.isolate import Frame, WorkerFailure, where
from composer.stages.guides import collect as collect_guides
from composer.text.metrics import font_families
from composer.units import say_pair

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType


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


def load_module(panels_dir: Path, module: str, *, file: str, key: str) -> ModuleType:
    """Import ``panels_dir/module.py`` as ``composer_panels.<module>``; its own imports find the other
    modules of ``panels_dir`` first (as with ``panels_dir`` first on ``sys.path``, which is left alone).

    The project's modules are compiled from their source, never read from or written to
    ``__pycache__`` (:class:`_SourceOnly`): a ``.pyc`` Python trusts for an edited file of the same
    mtime second and size cannot be stale, and no file is written into the user's ``panels/``. They
    stay in ``sys.modules`` for the build, so forked workers and pickled results find them;
    :func:`imports_undone` takes them out again when the build ends.

    Raises:
        LayoutError: no such module file (lists the modules that exist).
        PanelError: importing it raised (names the module and the error).
    """
    path = panels_dir / f"{module}.py"
    if not path.is_file():
        existing = sorted(p.stem for p in panels_dir.glob("*.py")) if panels_dir.is_dir() else []
        raise LayoutError(f"panel module {module!r} not found at {path}; modules are "
                          f"{', '.join(existing) or '(none)'}", file=file, key=key)
    name = f"composer_panels.{module}"
    forget_changed_modules(panels_dir)
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path, loader=_SourceOnly(name, str(path)))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    finder = _ProjectFinder(panels_dir)
    at = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, finder)  # after the built-in and frozen modules, before sys.path
    try:
        spec.loader.exec_module(mod)
    except Exception as exc:  # the user's module; report it in one line
        raise PanelError(f"importing panels/{module}.py raised {_describe(exc, panels_dir)}",
                         file=file, key=key) from None
    finally:
        sys.meta_path.remove(finder)
    sys.modules[name] = mod
    _remember_sources(panels_dir)
    return mod


class _SourceOnly(importlib.machinery.SourceFileLoader):
    """Loads a project module from its source alone: no ``__pycache__`` read or written."""

    def get_code(self, fullname: str) -> Any:
        return self.source_to_code(self.get_data(self.path), self.path)


class _ProjectFinder:
    """A ``sys.meta_path`` finder, for the import of a panel module only: modules (and packages) of
    ``panels_dir``, loaded by :class:`_SourceOnly`."""

    def __init__(self, panels_dir: Path) -> None:
        self.dirs = {str(panels_dir), str(panels_dir.resolve())}
        self.root = str(panels_dir)

    def _inside(self, path: str) -> bool:
        return any(path == d or path.startswith(os.path.join(d, "")) for d in self.dirs)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        places = [self.root] if path is None else [p for p in path if isinstance(p, str) and self._inside(p)]
        for place in places:
            spec = importlib.machinery.FileFinder(place, (_SourceOnly, [".py"])).find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


@contextmanager
def imports_undone() -> Iterator[None]:
    """Leave ``sys.modules`` as it was for the project's modules: those :func:`load_module` imported
    inside the block (``composer_panels.*`` and what they imported from ``panels/``) are taken out at
    its end, and any that :func:`forget_changed_modules` took out are put back. What else was imported
    (numpy, matplotlib's backends, a panel's own ``import scipy``) stays, as after any import.

    For a build in the user's process (``composer.build``): the next build imports the project's
    modules again (a few ms; their source is compiled, no ``.pyc``).
    """
    before = dict(sys.modules)
    try:
        yield
    finally:
        for name, mod in list(sys.modules.items()):
            if before.get(name) is not mod and isinstance(getattr(mod, "__loader__", None), _SourceOnly):
                del sys.modules[name]
                _IMPORTED.pop(getattr(mod, "__file__", None) or "", None)
        for name, mod in before.items():
            if name not in sys.modules and isinstance(getattr(mod, "__loader__", None), _SourceOnly):
                sys.modules[name] = mod


#: source file -> sha256 of its bytes when composer (or a panel module) imported it (None: unreadable).
_IMPORTED: dict[str, str | None] = {}


def _project_modules(panels_dir: Path) -> dict[str, str]:
    """Module name -> file of the ``sys.modules`` entries whose file lies in ``panels_dir`` (panel
    modules and their project imports)."""
    prefixes = tuple({os.path.join(str(panels_dir), ""), os.path.join(str(panels_dir.resolve()), "")})
    found = {}
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None)
        if isinstance(file, str) and file.startswith(prefixes):
            found[name] = file
    return found


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _remember_sources(panels_dir: Path) -> None:
    for file in _project_modules(panels_dir).values():
        _IMPORTED.setdefault(file, _digest(file))


def forget_changed_modules(panels_dir: Path) -> bool:
    """Forget imported project modules that are stale for ``panels_dir``.

    A long-lived process (``compose --watch``, a notebook, a test session)
    would otherwise keep running the old code of an edited panel module or of
    a project module it imports, or, having built another project before,
    the other project's module of the same name (``import helpers`` finds
    the one already in ``sys.modules``). So:

    - every module imported from another project's ``panels/`` is forgotten,
      and so is a module of this project imported after composer last looked
      (by a renderer, at render time): its source was never hashed;
    - when a file of this project's imported modules changed, all of them
      are forgotten (modules hold each other's old objects). Their next
      import compiles the source (:func:`load_module`): a ``.pyc``, which
      Python trusts when its source has the same mtime second and size (an
      edit of one digit can keep both), is never read.

    Returns:
        True when modules were forgotten.
    """
    here = _project_modules(panels_dir)
    elsewhere = {name: file for name, mod in list(sys.modules.items())
                 if isinstance(file := getattr(mod, "__file__", None), str) and file in _IMPORTED and name not in here}
    changed = [file for file in here.values() if file in _IMPORTED and _digest(file) != _IMPORTED[file]]
    # a project module imported later (inside a renderer) was never hashed: it cannot be trusted either
    unknown = {name: file for name, file in here.items() if file not in _IMPORTED}
    stale = {**elsewhere, **unknown, **(here if changed else {})}
    if not stale:
        return False
    for name, file in stale.items():
        del sys.modules[name]
        _IMPORTED.pop(file, None)
    importlib.invalidate_caches()
    return True


def find_renderer(module: ModuleType, function: str, *, file: str, key: str) -> Callable[..., Any]:
    """``getattr(module, function)``.

    Raises:
        LayoutError: no such function, or ``values`` (a module's ``values()`` fills text fields; it
            draws no panel): names the closest function and lists the module's renderers (its public
            functions but ``values``).
    """
    func = getattr(module, function, None)
    source = Path(module.__file__).name if module.__file__ else module.__name__
    names = sorted(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__
                   and not n.startswith("_") and n != "values")
    if function == "values" and callable(func):
        raise LayoutError(f"values() in {source} fills text fields; it is not a panel renderer; renderers are "
                          f"{', '.join(names) or '(none)'}", file=file, key=key)
    if not callable(func):
        close = difflib.get_close_matches(function, names, n=1, cutoff=0.6)
        raise LayoutError(f"function {function!r} not found in {source}"
                          + (f"; did you mean {close[0]!r}?" if close else "")
                          + f"; functions are {', '.join(names) or '(none)'}", file=file, key=key)
    return func


def accepted(func: Callable[..., Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """The subset of ``params`` that ``func`` accepts as keywords (all with ``**kwargs``)."""
    sig = inspect.signature(func)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(params)
    return {k: v for k, v in params.items() if k in sig.parameters}


def rc_params(spec: FigureSpec, salt: str) -> dict[str, Any]:
    """The rcParams every panel is rendered with (see module docstring);
    the layout's ``[rcparams]`` come last and win."""
    return {
        "svg.fonttype": svg_fonttype(spec),
        "svg.hashsalt": f"composer:{salt}",
        "svg.image_inline": True,
        "figure.dpi": 72.0,
        "figure.facecolor": "none",
        "savefig.facecolor": "auto",
        "savefig.edgecolor": "auto",
        "font.family": font_families(spec.font),
        "font.size": spec.font_size_pt,
        **spec.rcparams,
    }


def _rc_context(rc: dict[str, Any]) -> AbstractContextManager[None]:
    """``matplotlib.rc_context(rc)`` for :func:`rc_params`' dict: its keys are rcParams names (composer's
    own, and the layout's ``[rcparams]``, which the layout loader checked against matplotlib's)."""
    import matplotlib

    return matplotlib.rc_context(cast("dict[RcKeyType, Any]", rc))


def call_params(func: Callable[..., Any], panel: Panel, spec: FigureSpec, *, file: str | None = None
                ) -> dict[str, Any]:
    """The keyword arguments a renderer is called with: the figure's shared params it
    accepts, ``colors`` (the palette) if it accepts that, then the panel's own params.

    Raises:
        PanelError: a panel param the function does not take (a misspelt
            ``binz``; names the closest one and lists those it takes), or a
            parameter without a default that nothing gives.
    """
    shared = {**spec.params, "colors": dict(spec.colors)}
    params = {**accepted(func, shared), **panel.params}
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin or C function: let the call itself complain
        return params
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        raise PanelError(f"panel {panel.name!r}: {panel.source} takes {len(positional)} positional "
                         f"argument{'s' * (len(positional) != 1)} ({', '.join(p.name for p in positional) or 'none'}); "
                         "a renderer is def NAME(fig, data, **params): the matplotlib Figure to draw on, and the "
                         "figure's data", file=file, key=f"panels.{panel.name}.render")
    takes = [p for p in list(sig.parameters.values())[2:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    names = [p.name for p in takes]
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        own = [n for n in names if n != "colors"]  # colors: the palette, which composer gives
        for name in panel.params:
            if name not in names:
                close = difflib.get_close_matches(name, own, n=1, cutoff=0.6)
                raise PanelError(f"panel {panel.name!r}: {panel.source} takes no parameter {name!r}"
                                 + (f"; did you mean {close[0]!r}?" if close else "")
                                 + f"; it takes {', '.join(own) or 'none besides fig and data'}"
                                 + ("; colors, the palette, is given by composer" if "colors" in names else ""),
                                 file=file, key=f"{panel.key}.params.{name}")
    for p in takes:
        if p.default is p.empty and p.name not in params:
            raise PanelError(f"panel {panel.name!r}: {panel.source} needs parameter {p.name!r}; give it in "
                             f"params = {{ {p.name} = ... }} or [figure.params]", file=file, key=f"{panel.key}.params")
    return params


def warm_up(spec: FigureSpec) -> None:
    """Draw and save a small throwaway panel with the figure's rcParams.

    The first panel a process draws pays for lazy imports (the SVG backend),
    font and image machinery set-up; in a freshly forked worker that costs
    about 0.25 s, in the parent (whose text machinery the canvas text
    already warmed) about 0.05 s. Done once before the workers are forked,
    every worker inherits it. Output is unaffected: each panel is drawn with
    its own rcParams and hash salt. Done once per process and rcParams.
    """
    from matplotlib.figure import Figure

    rc = rc_params(spec, "warm-up")
    done = repr(sorted(rc.items()))
    if done in _WARMED:  # this process drew with these rcParams before (a rebuild in --watch)
        return
    try:
        with _rc_context(rc):
            fig = Figure(figsize=(1.0, 1.0), dpi=72.0)
            ax = fig.add_subplot()
            ax.plot([0, 1], [0, 1], "o-")
            ax.imshow([[0.0, 1.0], [1.0, 0.0]])
            ax.set_xlabel("x $x^2_i$")
            fig.savefig(io.BytesIO(), format="svg", metadata={"Date": None})
    except Exception:  # noqa: BLE001 - only a speed-up: the panels, isolated, report what fails and where
        return
    _WARMED.add(done)


#: the rcParams :func:`warm_up` drew with in this process.
_WARMED: set[str] = set()


@dataclass
class Draft:
    """A panel drawn but not yet saved: its Figure and what the renderer returned."""

    panel: Panel
    fig: Any
    result: Any
    size_pt: tuple[float, float]
    missing: list[str] = field(default_factory=list)  # characters drawn without a glyph


def draw_panel(func: Callable[..., Any], panel: Panel, spec: FigureSpec, data: Mapping[str, Any], *,
               size_pt: tuple[float, float], file: str) -> Draft:
    """Run the renderer on a Figure of ``size_pt`` (width, height in pt).

    Params passed: the figure's shared params the function accepts, ``colors``
    (the palette, name -> ``#rrggbb``) if it accepts that, then the panel's own.

    While it runs, pyplot's current figure is the panel's, and pyplot sees no other
    (:func:`composer.mpl.internals.pyplot_on`: ``plt.gca()``, ``plt.plot()``,
    ``plt.title()`` draw on it; figures the renderer makes with pyplot are
    closed when it returns, pyplot's figure list is left as it was, and no GUI
    backend is started).

    Raises:
        PanelError: the function raised (panel, function, error and the
            innermost line of panel code), resized the figure, or drew nothing
            on it (see :func:`_check_drawn`).
    """
    from matplotlib.figure import Figure

    key = f"{panel.key}.render"
    width_pt, height_pt = size_pt
    params = call_params(func, panel, spec, file=file)
    with _rc_context(rc_params(spec, panel.name)), missing_glyphs() as missing:
        fig = Figure(figsize=(width_pt / 72.0, height_pt / 72.0), dpi=72.0)
        with pyplot_on(fig) as made:  # pyplot draws on fig (plt.gca(), plt.plot()); see _check_drawn
            try:
                result = func(fig, data, **params)
            except Exception as exc:  # the user's code; report it in one line
                raise PanelError(f"panel {panel.name!r}: {panel.source} raised {_describe(exc, _user_dir(func))}",
                                 file=file, key=key) from None
    w_in, h_in = fig.get_size_inches()
    if abs(w_in * 72 - width_pt) > 1e-6 or abs(h_in * 72 - height_pt) > 1e-6:
        raise PanelError(f"panel {panel.name!r}: {panel.source} changed the figure size to "
                         f"{say_pair(w_in * 72, h_in * 72, spec.unit)}; a panel is drawn at its box size "
                         f"({say_pair(width_pt, height_pt, spec.unit)})",
                         file=file, key=key)
    _check_drawn(fig, made, result, func, panel, file=file, key=key)
    return Draft(panel=panel, fig=fig, result=result, size_pt=size_pt, missing=missing)


def drew_nothing(fig: Any) -> bool:
    """True when a Figure has no axes and no artist besides its background patch (``fig.patch``)."""
    return all(child is fig.patch for child in fig.get_children())


def _check_drawn(fig: Any, made: list[tuple[Any, traceback.StackSummary]], result: Any,
                 func: Callable[..., Any], panel: Panel, *, file: str, key: str) -> None:
    """After a renderer's call: the panel's figure must have something on it. An empty one that
    returned something other than None or ``{}`` (and made no pyplot figure) is left to
    :func:`save_panel`, which reports garbage and the axes of another figure.

    Args:
        made: the figures pyplot made during the call, with the stack that made each
            (:func:`composer.mpl.internals.pyplot_on`).

    Raises:
        PanelError: ``fig`` is empty (:func:`drew_nothing`), or has no axes while a figure the renderer
            made of its own (``plt.subplots()``, ``plt.figure()``) has some (a ``fig.suptitle`` above a
            plot drawn elsewhere), and the renderer made one: names the line that made it and the fix;
            or ``fig`` is empty and the panel does not say ``empty = true``.
    """
    empty = drew_nothing(fig)
    plotted = [m for m in made if m[0].axes]  # figures of its own it drew axes on
    if not empty and (fig.axes or not plotted):
        return
    who = f"panel {panel.name!r}: {panel.source}"
    if made:
        frames = [Frame(f.filename, f.lineno or 0, f.name) for f in (plotted or made)[0][1]]
        at = where(frames, _user_dir(func))
        if "subplot_mosaic(" in at:
            fix = "use fig.subplot_mosaic(...), not plt.subplot_mosaic(...)"
        elif "subplots(" in at:
            fix = "use fig.subplots(), not plt.subplots()"
        else:
            fix = "draw on the fig argument (fig.subplots(), or plt.gca() without plt.figure())"
        left = "empty" if empty else "without axes (its plot went to the new figure)"
        raise PanelError(f"{who} made a new figure{at} and left the panel's figure {left}; {fix}: the panel is "
                         "the fig argument, and plt.gca() and plt.plot() draw on it", file=file, key=key)
    if not (result is None or (isinstance(result, dict) and not result)):
        return  # save_panel words what is wrong with what it returned
    if not panel.empty:
        raise PanelError(f"{who} drew nothing (its figure has no axes and no artists); draw on the fig "
                         "argument, or set empty = true on the panel if it is meant to be blank",
                         file=file, key=key)


def save_panel(draft: Draft, spec: FigureSpec, *, file: str, guides: Collection[str] = ()) -> RenderedPanel:
    """Save a drawn panel as SVG (:func:`composer.mpl.savesvg.save_svg`: text mode,
    rasters at ``spec.raster_ppi``) and transform its data anchors into panel pt.

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
    key = f"{panel.key}.render"
    records: dict[str, tuple[Any, ...]] = {}
    collected_notes: tuple[str, ...] = ()
    with _rc_context(rc_params(spec, panel.name)):
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
        anchors = _data_anchors(draft.fig, draft.result, panel, draft.size_pt[1], file=file, key=key)
    return RenderedPanel(svg=svg, anchors=anchors, notes=notes + collected_notes,
                         plot_area=plot_area(draft.fig, draft.size_pt), guides=records)


def plot_area(fig: Any, size_pt: tuple[float, float]) -> tuple[float, float, float, float] | None:
    """The plot area of a drawn (saved) Figure of ``size_pt``: (x0, y0, x1, y1) in pt from its top-left,
    y down, the union of its visible axes' positions as matplotlib last drew them
    (``Axes.get_position()``: after ``apply_aspect``, so an ``imshow`` keeps its square), leaving out
    colorbar axes (:func:`composer.mpl.internals.is_colorbar`). None: no such axes."""
    from composer.mpl.internals import is_colorbar

    boxes = [ax.get_position() for ax in fig.axes if ax.get_visible() and not is_colorbar(ax)]
    if not boxes:
        return None
    width_pt, height_pt = size_pt
    return (min(b.x0 for b in boxes) * width_pt, (1 - max(b.y1 for b in boxes)) * height_pt,
            max(b.x1 for b in boxes) * width_pt, (1 - min(b.y0 for b in boxes)) * height_pt)


#: ``[[colorbar]]``: the matplotlib norms a colour mapping is recorded (and redrawn) by, class name ->
#: (constructor keyword, how to read it off the norm); their signatures in ``matplotlib.colors``.
_NORM_PARAMS: dict[str, tuple[tuple[str, Callable[[Any], Any]], ...]] = {
    "Normalize": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "LogNorm": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "NoNorm": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "PowerNorm": (("gamma", lambda n: n.gamma), ("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax),
                  ("clip", lambda n: n.clip)),
    "AsinhNorm": (("linear_width", lambda n: n.linear_width), ("vmin", lambda n: n.vmin),
                  ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "TwoSlopeNorm": (("vcenter", lambda n: n.vcenter), ("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax)),
    "CenteredNorm": (("vcenter", lambda n: n.vcenter), ("halfrange", lambda n: n.halfrange),
                     ("clip", lambda n: n.clip)),
    # SymLogNorm is left out: its linscale and base are private (Normalize._scale)
    "BoundaryNorm": (("boundaries", lambda n: [float(b) for b in n.boundaries]), ("ncolors", lambda n: n.Ncmap),
                     ("clip", lambda n: n.clip), ("extend", lambda n: n.extend)),
}
#: the norms a shared colorbar redraws (``[[colorbar]]``: the others are an error naming these)
NORMS = tuple(_NORM_PARAMS)
#: ``extend`` values of a colorbar, and how two panels' combine (the shared bar shows both ends asked)
EXTENDS = ("neither", "min", "max", "both")


def _plain(value: Any) -> Any:
    """A norm parameter as plain data: bool, str, None as they are, integers (``ncolors``) as int, other
    numbers as float, sequences as tuples (JSON's lists read back as tuples: :meth:`ColorMapping.from_json`)."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


@dataclass(frozen=True)
class ColorMapping:
    """How one matplotlib ScalarMappable of a panel maps values to colours (for ``[[colorbar]]``).

    Recorded in the panel's worker (:func:`color_mappings`), so it is plain data: it pickles, and
    :meth:`to_json` / :meth:`from_json` keep it in the panel cache.

    Attributes:
        cmap: the colormap's name (``Colormap.name``), for messages.
        colors: its lookup table, ``Colormap.N`` entries as ``#rrggbbaa`` (two colormaps of one name
            but other colours are different mappings).
        under, over, bad: its colours below ``vmin``, above ``vmax`` and for masked values, ``#rrggbbaa``.
        norm: the ``matplotlib.colors`` norm class name (:data:`_NORM_PARAMS`; another class, e.g.
            ``FuncNorm``, is recorded by name with ``known = False`` and cannot be redrawn).
        params: the norm's constructor keywords and values, in its signature's order (limits
            ``vmin``/``vmax`` included, after autoscaling: as the panel drew them).
        known: ``norm`` is one of :data:`_NORM_PARAMS`.
        extend: the ends its own colorbar or contour set extends (:data:`EXTENDS`); not part of
            :meth:`same_as` (the shared bar extends every end any panel asks).
        boundaries, values: a filled contour set's levels (``ContourSet.levels``) and the value of each band
            between two (``ContourSet.cvalues``: their midpoints, or the colour's index when drawn with
            ``colors=``), as ``Colorbar`` draws a contour set; () otherwise.
        below, above: a filled contour set's band below its first level and above its last, when its ``extend``
            adds it: (its outer boundary, its value), as ``Colorbar`` draws them in the extension triangles
            (``ContourSet._levels``: +-1e250, 1e-250 on a log scale; ``cvalues``); () otherwise.
    """

    cmap: str
    colors: tuple[str, ...]
    under: str
    over: str
    bad: str
    norm: str
    params: tuple[tuple[str, Any], ...]
    known: bool = True
    extend: str = "neither"
    boundaries: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    below: tuple[float, ...] = ()
    above: tuple[float, ...] = ()

    def differs(self, other: ColorMapping) -> tuple[str, str, str] | None:
        """The first thing two mappings differ in, as (what, this one's value, the other's), or None when
        they map every value to the same colour: same colours (lookup table, under/over/bad), same norm
        class and parameters (numbers equal within a relative 1e-9: float noise), same contour levels."""
        if self.colors != other.colors or (self.under, self.over, self.bad) != (other.under, other.over, other.bad):
            mine, theirs = self.cmap, other.cmap
            if mine == theirs:
                mine, theirs = f"{mine} (its colours)", f"{theirs} (other colours)"
            return "colormap", mine, theirs
        if self.norm != other.norm:
            return "norm", self.norm, other.norm
        for (name, a), (_, b) in zip(self.params, other.params):
            if not _close(a, b):
                return name, _say(a), _say(b)
        if not _close(list(self.boundaries), list(other.boundaries)):
            return "contour levels", _say(list(self.boundaries)), _say(list(other.boundaries))
        return None

    def to_json(self) -> dict[str, Any]:
        """The mapping as JSON data (:meth:`from_json` reads it back equal)."""
        return {"cmap": self.cmap, "colors": list(self.colors), "under": self.under, "over": self.over,
                "bad": self.bad, "norm": self.norm, "params": [[k, v] for k, v in self.params],
                "known": self.known, "extend": self.extend, "boundaries": list(self.boundaries),
                "values": list(self.values), "below": list(self.below), "above": list(self.above)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ColorMapping:
        """The mapping :meth:`to_json` wrote. Raises KeyError, TypeError, ValueError on other data."""
        return cls(cmap=str(data["cmap"]), colors=tuple(str(c) for c in data["colors"]), under=str(data["under"]),
                   over=str(data["over"]), bad=str(data["bad"]), norm=str(data["norm"]),
                   params=tuple((str(k), tuple(v) if isinstance(v, list) else v) for k, v in data["params"]),
                   known=bool(data["known"]), extend=str(data["extend"]),
                   boundaries=tuple(float(b) for b in data["boundaries"]),
                   values=tuple(float(v) for v in data["values"]),
                   below=tuple(float(v) for v in data.get("below", ())),
                   above=tuple(float(v) for v in data.get("above", ())))


def _close(a: Any, b: Any) -> bool:
    """Equal parameters: numbers within a relative 1e-9 (and NaN to NaN), sequences item by item."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
            return a == b
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    return bool(a == b)


def _say(value: Any) -> str:
    """A parameter value for a message: numbers with 6 significant digits."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_say(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value) if isinstance(value, str) else str(value)


def _maps_values(artist: Any) -> bool:
    """A ScalarMappable whose colours come from values through its colormap: it holds an array of at least
    one finite, unmasked value, and is not an image of RGB(A) pixels (``imshow`` of an (M, N, 3|4) array
    shows the pixels as they are: no colormap, no norm)."""
    import numpy as np

    values = artist.get_array()
    if values is None:
        return False
    data = np.ma.masked_invalid(np.ma.asarray(values, dtype=float)) if np.size(values) else np.ma.asarray([])
    if data.ndim == 3:
        return False
    return bool(data.count())


def _fixed_colours(contour_set: Any) -> bool:
    """A contour set that maps no values to colours: iso-lines drawn in the colours given (``contour(...,
    colors="k")``: the colours name lines, they are no scale), or any contour set whose levels are all drawn in
    one colour. A filled one given several ``colors`` keeps them as its bands' scale (``fig.colorbar`` draws it)."""
    import numpy as np

    if contour_set.colors is not None and not contour_set.filled:
        return True
    drawn = np.asarray(contour_set.to_rgba(np.asarray(contour_set.cvalues)))  # with colors=: indices (NoNorm)
    return len(drawn) > 0 and bool((drawn == drawn[0]).all())


def color_mappings(fig: Any) -> tuple[ColorMapping, ...]:
    """The colour mappings of a drawn Figure's plots, one per distinct mapping, in drawing order: every
    ScalarMappable that maps values to colours (:func:`_maps_values`: images, meshes, scatters and
    contour sets coloured by at least one finite value; not an RGB(A) image, an all-NaN or fully masked
    array, an empty scatter) in its visible non-colorbar axes (:func:`composer.mpl.internals.is_colorbar`),
    and the figure's own images (``fig.figimage``). The colours of a colorbar's own axes are left out.

    ``extend``: the panel's own colorbar's for that mappable, else a contour set's, else a
    ``BoundaryNorm``'s, else ``"neither"``. Collected for ``[[colorbar]]`` by
    :func:`composer.stages.guides.collect_colorbar` in the panel's worker.
    """
    import numpy as np
    from matplotlib import colors as mcolors
    from matplotlib.cm import ScalarMappable
    from matplotlib.contour import ContourSet

    from composer.mpl.internals import contour_levels, is_colorbar

    def hexa(rgba: Any) -> str:
        return str(mcolors.to_hex(rgba, keep_alpha=True))

    found: list[ColorMapping] = []
    artists: list[Any] = list(fig.images)
    for ax in fig.axes:
        if ax.get_visible() and not is_colorbar(ax):
            artists += [a for a in ax.get_children() if isinstance(a, ScalarMappable)]
    for artist in artists:
        if not isinstance(artist, ScalarMappable) or not cast(Any, artist).get_visible() or not _maps_values(artist):
            continue
        if isinstance(artist, ContourSet) and _fixed_colours(artist):
            continue
        cmap, norm = artist.get_cmap(), artist.norm
        name = type(norm).__name__
        known = name in _NORM_PARAMS and type(norm) is getattr(mcolors, name, None)
        params = tuple((key, _plain(read(norm))) for key, read in _NORM_PARAMS[name]) if known else \
            (("vmin", _plain(norm.vmin)), ("vmax", _plain(norm.vmax)))
        own = getattr(artist, "colorbar", None)
        if own is not None:
            extend = str(own.extend)
        elif isinstance(artist, ContourSet):
            extend = str(artist.extend)
        else:
            extend = str(getattr(norm, "extend", "neither"))
        filled = artist if isinstance(artist, ContourSet) and artist.filled else None
        levels = list(filled.levels) if filled is not None else []
        values: list[float] = []
        below: tuple[float, ...] = ()
        above: tuple[float, ...] = ()
        if filled is not None:
            bounds, cvalues = contour_levels(filled), [float(v) for v in cast(Any, filled).cvalues]
            low, high = int(filled.extend in ("min", "both")), int(filled.extend in ("max", "both"))
            values = cvalues[low:len(cvalues) - high]
            below = (bounds[0], cvalues[0]) if low else ()
            above = (bounds[-1], cvalues[-1]) if high else ()
        mapping = ColorMapping(
            cmap=str(cmap.name), colors=tuple(hexa(c) for c in cmap(np.arange(cmap.N))),
            under=hexa(cmap.get_under()), over=hexa(cmap.get_over()), bad=hexa(cmap.get_bad()),
            norm=name, params=params, known=known, extend=extend if extend in EXTENDS else "neither",
            boundaries=tuple(float(b) for b in levels), values=tuple(values), below=below, above=above)
        if not any(m.differs(mapping) is None and m.extend == mapping.extend for m in found):
            found.append(mapping)
    return tuple(found)


#: ``aspect_of = "plot"``: a plot area's width / height within this share of the aspect asked is done
#: (the issue's test: 0.5 %); each render aims tighter (:data:`ASPECT_AIM`) so one more rarely is needed.
ASPECT_TOLERANCE = 0.005
ASPECT_AIM = 0.0005
#: ``aspect_of = "plot"``: the most renders of one panel (the first at its cell's size).
ASPECT_RENDERS = 4


def draw_locked(func: Callable[..., Any], panel: Panel, spec: FigureSpec, data: Mapping[str, Any], *,
                size_pt: tuple[float, float], file: str) -> Draft:
    """Draw a panel with ``aspect_of = "plot"``: the largest panel within ``size_pt`` (its cell's or
    ``size``'s width, height in pt) whose plot area (:func:`plot_area`) has width / height
    ``panel.aspect``.

    Method: draw at ``size_pt`` and measure the plot area. The side that is too long for the aspect
    is the one to shorten (the other keeps the whole cell: the largest such panel). Its length ``S``
    is then solved for ``p(S) = q * aspect`` (x shortened; ``p(S) = q / aspect`` for y), ``p`` the
    plot area's length on that side and ``q`` on the other, by the secant method (Press et al., *Numerical
    Recipes*, 3rd ed., section 9.2), the first step taking the decorations' margins as constant in
    pt; margins that are fractions of the figure (matplotlib's default ``subplotpars``) or constant
    pt (a layout engine) are both nearly linear in ``S``, so two or three draws reach
    :data:`ASPECT_AIM` (at most :data:`ASPECT_RENDERS`). The last draft's ``size_pt`` is the
    panel's size (:func:`composer.stages.geometry.inside` places it in its cell).

    Raises:
        PanelError: what :func:`draw_panel` raises; the panel draws no axes (nothing to lock); the
            decorations leave no room for a plot area; or the plot area does not follow its box
            (matplotlib keeps its own aspect: ``imshow``, ``set_aspect``), so the aspect stays off by
            more than :data:`ASPECT_TOLERANCE` (names the aspect drawn; the fix: ``aspect_of = "box"``).
    """
    assert panel.aspect is not None
    aspect = panel.aspect
    key = f"{panel.key}.aspect"

    def drawn_at(size: tuple[float, float]) -> tuple[Draft, float, float, float]:
        draft = draw_panel(func, panel, spec, data, size_pt=size, file=file)
        # positions after layout engines and apply_aspect, as the SVG renderer's text metrics place them
        # (another renderer's differ: a constrained layout moves by points), with the panel's rcParams
        with _rc_context(rc_params(spec, panel.name)), missing_glyphs():  # save_panel reports those
            draft.fig.savefig(io.BytesIO(), format="svg", metadata={"Date": None})
        area = plot_area(draft.fig, size)
        if area is None:
            raise PanelError(f"panel {panel.name!r}: {panel.source} draws no axes, so its plot area has no aspect "
                             "to lock; use aspect_of = \"box\"", file=file, key=key)
        plot_w, plot_h = area[2] - area[0], area[3] - area[1]
        return draft, plot_w, plot_h, (plot_w / plot_h if plot_h > 0 else math.inf)

    def short_by(plot_w: float, plot_h: float) -> float:
        """pt the free side's plot length is over the length the other side asks for."""
        return plot_w - plot_h * aspect if free == 0 else plot_h - plot_w / aspect

    draft, plot_w, plot_h, drawn = drawn_at(size_pt)
    free = 0 if drawn > aspect else 1  # the axis to shorten: x when too wide
    lengths, over = [size_pt[free]], [short_by(plot_w, plot_h)]
    step = -over[0]  # the first guess: margins constant in pt
    for _ in range(ASPECT_RENDERS - 1):
        if abs(drawn / aspect - 1) <= ASPECT_AIM:
            return draft
        if len(lengths) > 1 and over[-1] != over[-2]:  # secant through the last two draws
            step = -over[-1] * (lengths[-1] - lengths[-2]) / (over[-1] - over[-2])
        length = min(lengths[-1] + step, size_pt[free])
        if length <= 0:
            raise PanelError(f"panel {panel.name!r}: its ticks, labels and titles leave no plot area of aspect "
                             f"{aspect:g} in its {say_pair(*size_pt, spec.unit)}; give it a larger cell",
                             file=file, key=key)
        size = (length, size_pt[1]) if free == 0 else (size_pt[0], length)
        before = drawn
        draft, plot_w, plot_h, drawn = drawn_at(size)
        if abs(drawn / aspect - 1) > ASPECT_TOLERANCE and abs(drawn / aspect - 1) >= abs(before / aspect - 1):
            break  # a shorter side did not bring the aspect nearer: the axes keep their own
        lengths.append(length)
        over.append(short_by(plot_w, plot_h))
    if abs(drawn / aspect - 1) <= ASPECT_TOLERANCE:
        return draft
    raise PanelError(f"panel {panel.name!r}: its plot area stays {drawn:.3g} wide per unit of height whatever its "
                     f"box (the axes keep their own aspect: imshow, set_aspect), not aspect = {aspect:g}; use "
                     "aspect_of = \"box\" or drop the axes' own aspect", file=file, key=key)


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


#: the least share of its width or height a plot area may keep when aligned (less is an error)
MIN_ALIGNED_SHARE = 0.5
#: box edges closer than this (pt) are one grid line for alignment
EDGE_TOLERANCE_PT = 0.5


def _same_edge(edges: Mapping[str, float]) -> list[list[str]]:
    """Panel names clustered by box edge (pt): edges within :data:`EDGE_TOLERANCE_PT` are one line."""
    clusters: list[list[str]] = []
    last = None
    for name, edge in sorted(edges.items(), key=lambda kv: kv[1]):
        if last is None or edge - last > EDGE_TOLERANCE_PT:
            clusters.append([])
        clusters[-1].append(name)
        last = edge
    return clusters


def align_plot_areas(drafts: Mapping[str, Draft], boxes: Mapping[str, Any], align: Any, *,
                     file: str | None = None) -> None:
    """Line up the plot areas (axes) of an ``[[align]]``'s panels on the canvas, as R patchwork does.

    For each panel the union of its axes' positions, colorbars left out
    (:func:`composer.mpl.internals.is_colorbar`), is its plot area; its
    margins (what the renderer left for tick labels and titles) are minimums.
    Within each row of the group (:func:`composer.stages.geometry.alignment_groups`),
    ``axis = "y"`` gives the panels whose boxes start on one line (same top)
    the lowest of their plot-area tops, and those whose boxes end on one line
    the highest of their bottoms (canvas coordinates), like patchwork's grid
    lines: a panel spanning two rows shares its top with the first row and its
    bottom with the second. Boxes that share no edge at all (centred, of
    unequal height) are aligned as one row. Within each column, ``"x"`` does
    the same for left and right edges; ``"both"`` both. The
    axes inside each panel are mapped linearly from the old plot area to the
    new one; a colorbar beside the plot area moves with the edge it is beside
    (:func:`_follow`).

    Args:
        drafts: panel name -> drawn, unsaved figure (every panel of ``align``).
        boxes: panel name -> :class:`composer.stages.geometry.Box` on the canvas, pt.
        align: the :class:`composer.layout.model.Align`.
        file: the layout, for errors.

    Raises:
        LayoutError: a plot area would keep less than :data:`MIN_ALIGNED_SHARE`
            of its width or height (panels that overlap only in part, or one
            spanning rows others do not): the layout asks for the impossible.
    """
    from composer.mpl.internals import is_colorbar
    from composer.stages.geometry import alignment_groups

    areas, bars = {}, {}
    for name in align.panels:
        fig, box = drafts[name].fig, boxes[name]
        bars[name] = [(ax, ax.get_position(original=True)) for ax in fig.axes if ax.get_visible() and is_colorbar(ax)]
        axes = [ax for ax in fig.axes if ax.get_visible() and not is_colorbar(ax)]
        if not axes:
            raise LayoutError(f"panel {name!r} draws no axes, so it has no plot area to align; remove it "
                              "from the group", file=file, key=f"{align.key}.panels" if align.key else None)
        pos = [ax.get_position(original=True) for ax in axes]
        x0, y0 = min(p.x0 for p in pos), min(p.y0 for p in pos)
        x1, y1 = max(p.x1 for p in pos), max(p.y1 for p in pos)
        areas[name] = (axes, pos, (x0, y0, x1, y1), box)

    def canvas(name: str) -> tuple[float, float, float, float]:
        (x0, y0, x1, y1), box = areas[name][2], areas[name][3]
        return (box.x_pt + x0 * box.width_pt, box.y_pt + (1 - y1) * box.height_pt,
                box.x_pt + x1 * box.width_pt, box.y_pt + (1 - y0) * box.height_pt)

    new = {name: list(area[2]) for name, area in areas.items()}  # x0, y0, x1, y1 in figure fractions
    for axis, groups in alignment_groups(align, boxes).items():
        for group in groups:
            members = [n for n in group if n in areas]
            if len(members) < 2:
                continue
            # near edge (left / top) and far edge (right / bottom) of each member's box, pt
            near = {n: boxes[n].x_pt if axis == "x" else boxes[n].y_pt for n in members}
            far = {n: near[n] + (boxes[n].width_pt if axis == "x" else boxes[n].height_pt) for n in members}
            near_sets, far_sets = _same_edge(near), _same_edge(far)
            if all(len(c) == 1 for c in near_sets + far_sets):  # boxes share no edge (centred, unequal): one row
                near_sets = far_sets = [members]
            for cluster in near_sets:  # plot areas start at the innermost start of boxes that start together
                if len(cluster) > 1:
                    edge = max(canvas(n)[0 if axis == "x" else 1] for n in cluster)
                    for n in cluster:
                        box = boxes[n]
                        if axis == "x":
                            new[n][0] = (edge - box.x_pt) / box.width_pt
                        else:
                            new[n][3] = 1 - (edge - box.y_pt) / box.height_pt
            for cluster in far_sets:
                if len(cluster) > 1:
                    edge = min(canvas(n)[2 if axis == "x" else 3] for n in cluster)
                    for n in cluster:
                        box = boxes[n]
                        if axis == "x":
                            new[n][2] = (edge - box.x_pt) / box.width_pt
                        else:
                            new[n][1] = 1 - (edge - box.y_pt) / box.height_pt
    for name, (axes, pos, (x0, y0, x1, y1), _box) in areas.items():
        nx0, ny0, nx1, ny1 = new[name]
        for side, old_len, new_len in (("width", x1 - x0, nx1 - nx0), ("height", y1 - y0, ny1 - ny0)):
            if old_len > 0 and new_len < MIN_ALIGNED_SHARE * old_len:
                raise LayoutError(f"aligning would leave panel {name!r} {max(new_len, 0) / old_len:.0%} of its "
                                  f"plot area's {side}: its box lines up with no other panel's on that axis; "
                                  "align panels of one row (or column) of the same height (width)",
                                  file=file, key=f"{align.key}.panels" if align.key else None)
        fx = (nx1 - nx0) / (x1 - x0) if x1 > x0 else 1.0
        fy = (ny1 - ny0) / (y1 - y0) if y1 > y0 else 1.0
        for ax, p in zip(axes, pos):
            ax.set_position([nx0 + (p.x0 - x0) * fx, ny0 + (p.y0 - y0) * fy, p.width * fx, p.height * fy])
        for ax, p in bars[name]:  # beside the plot area: keeps its gap to the edge it is beside
            bx0, bw = _follow(p.x0, p.width, (x0, x1), (nx0, nx1))
            by0, bh = _follow(p.y0, p.height, (y0, y1), (ny0, ny1))
            ax.set_position([bx0, by0, bw, bh])


def _follow(start: float, length: float, old: tuple[float, float], new: tuple[float, float]) -> tuple[float, float]:
    """A colorbar's (start, length) on one axis (figure fractions) when its panel's plot area goes from
    ``old`` (start, end) to ``new``: past the end (or before the start) it moves with that edge, its
    length kept; alongside the plot area it is mapped linearly like the plot's axes (a vertical bar
    keeps the plot's height)."""
    (a0, a1), (b0, b1) = old, new
    if start >= a1 - 1e-9:
        return start + (b1 - a1), length
    if start + length <= a0 + 1e-9:
        return start + (b0 - a0), length
    f = (b1 - b0) / (a1 - a0) if a1 > a0 else 1.0
    return b0 + (start - a0) * f, length * f


def _data_anchors(fig: Any, result: Any, panel: Panel, height_pt: float, *, file: str,
                  key: str) -> dict[str, tuple[float, float]]:
    """Transform the renderer's returned data anchors into panel pt (y down)."""
    from matplotlib.axes import Axes

    if result is None:
        return {}
    usage = "a renderer returns None or {name: (ax, x, y)} / {name: (ax, x, y, z)} data anchors"
    if not isinstance(result, dict):
        raise PanelError(f"panel {panel.name!r}: {panel.source} returned {type(result).__name__}; {usage}",
                         file=file, key=key)
    anchors = {}
    for name in result:
        if not isinstance(name, str) or not name.isidentifier():
            raise PanelError(f"panel {panel.name!r}: {panel.source} returned anchor name {_short(name)}; "
                             f"an anchor name is a word of letters, digits and _; {usage}", file=file, key=key)
    for name, spec in sorted(result.items()):
        ok = (isinstance(spec, tuple) and len(spec) in (3, 4)
              and isinstance(spec[0], Axes) and all(_is_number(v) for v in spec[1:]))
        if not ok:
            raise PanelError(f"panel {panel.name!r}: {panel.source} returned anchor {name!r}: {_short(spec)}; "
                             f"{usage}", file=file, key=key)
        if _root_figure(spec[0]) is not fig:
            raise PanelError(f"panel {panel.name!r}: anchor {name!r} names axes of another figure; use axes "
                             "of the fig composer passed in", file=file, key=key)
        ax, *coords = spec
        if len(coords) == 3:
            if not hasattr(ax, "get_proj"):
                raise PanelError(f"panel {panel.name!r}: anchor {name!r} has x, y, z but its axes are not 3D",
                                 file=file, key=key)
            from mpl_toolkits.mplot3d import proj3d

            xs, ys, _ = proj3d.proj_transform(*(float(c) for c in coords), ax.get_proj())
            coords = [xs, ys]
        else:
            for axis, value in zip("xy", coords):
                scale_name = getattr(ax, f"get_{axis}scale")()
                if (scale_name == "log" and value <= 0) or (scale_name == "logit" and not 0 < value < 1):
                    domain = "above 0" if scale_name == "log" else "between 0 and 1"
                    raise PanelError(f"panel {panel.name!r}: anchor {name!r} has {axis} = {value} on a "
                                     f"{scale_name} axis, which shows only values {domain}", file=file, key=key)
        disp_x, disp_y = ax.transData.transform((float(coords[0]), float(coords[1])))
        scale = 72.0 / fig.dpi
        point = (float(disp_x) * scale, height_pt - float(disp_y) * scale)
        if not all(math.isfinite(v) for v in point):
            raise PanelError(f"panel {panel.name!r}: anchor {name!r} at {_short(tuple(spec[1:]))} is not a finite "
                             f"point on the panel (it maps to {point}); give finite data coordinates",
                             file=file, key=key)
        anchors[name] = point
    return anchors


def _short(value: Any, limit: int = 80) -> str:
    """``repr`` cut to ``limit`` characters (a renderer may return something huge)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ is still garbage to report
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def panel_failure(failure: WorkerFailure, who: str, user_dir: Path | None) -> str:
    """The message for panel code that failed in its worker (see :class:`WorkerFailure`):
    ``who`` (``"panel 'b': demo:heat"``) did not finish / crashed / raised, and where."""
    at = failure.where(user_dir)
    if failure.kind == "timeout":
        return f"{who} did not finish: {failure.detail}{at}"
    if failure.kind == "crashed":
        return f"{who} crashed: {failure.detail}{at}"
    return f"{who} raised {failure.detail}{at}"


def prepare_fork() -> None:
    """Import in this process what every worker needs, so a forked worker need not.

    Imports matplotlib's Figure and SVG backend and loads the default font, once
    (a worker's imports are lost when it exits).
    """
    import matplotlib.backends.backend_agg  # noqa: F401 - pyplot's backend in a renderer (internals.pyplot_on)
    import matplotlib.backends.backend_svg  # noqa: F401 - savefig(format="svg") imports it lazily
    import matplotlib.figure  # noqa: F401
    import matplotlib.pyplot  # noqa: F401 - a renderer may draw with pyplot
    from matplotlib import font_manager

    font_manager.get_font(font_manager.findfont(font_manager.FontProperties()))


class _FontLog(logging.Handler):
    """Collects matplotlib's font substitution warnings: a family not found, a weight not found.

    ``echo``: also hand each record to :data:`logging.lastResort`, as logging
    would have done had this handler not been there (no other handler).
    """

    def __init__(self, echo: bool) -> None:
        super().__init__(logging.WARNING)
        self.found: dict[str, str] = {}
        self.echo = echo

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        family = family_not_found(message)
        weight = weight_not_found(message)
        if family:
            self.found[family] = f"font {family!r} is not installed; matplotlib drew the text in its fallback font"
        elif weight:
            asked, font, used = weight
            self.found[f"{font} {asked}"] = (f"font {font!r} has no weight {asked}; "
                                             f"matplotlib drew weight {used} instead")
        known = family or weight  # composer reports these itself, once, as a ComposerWarning
        if (self.echo and not known and logging.lastResort is not None
                and record.levelno >= logging.lastResort.level):
            logging.lastResort.handle(record)


def _unhandled(logger: logging.Logger) -> bool:
    """True when no handler would see ``logger``'s records (logging then uses ``lastResort``)."""
    current: logging.Logger | None = logger
    while current is not None:
        if current.handlers:
            return False
        if not current.propagate:
            break
        current = current.parent
    return True


@contextmanager
def font_substitutions() -> Iterator[dict[str, str]]:
    """While matplotlib draws inside this block, collect the fonts it substituted.

    Yields a dict, filled as it happens: font (and weight) asked for -> what
    matplotlib did instead. matplotlib caches font lookups and warns only on a
    font's first lookup in a process, so the cache is emptied first (through
    ``FontManager._findfont_cached``, private to matplotlib:
    :func:`composer.mpl.internals.forget_font_lookups`; should it go away,
    a long-lived process sees each substitution the first time only). Panel
    workers are forked, so emptying it there leaves the parent's cache alone.
    matplotlib's other log lines are shown as they would have been without it;
    the substitutions it logs (``findfont: Font family ... not found``, once
    per lookup) are not: composer reports each once, as a warning.
    """
    forget_font_lookups()
    logger = logging.getLogger("matplotlib.font_manager")
    handler = _FontLog(echo=_unhandled(logger))
    logger.addHandler(handler)
    try:
        yield handler.found
    finally:
        logger.removeHandler(handler)


class _GlyphLog(logging.Handler):
    def __init__(self, missing: list[str]):
        super().__init__(logging.WARNING)
        self.missing = missing

    def emit(self, record: logging.LogRecord) -> None:
        char = mathtext_missing_char(record.getMessage())
        if char is not None:
            self.missing.append(char)


class missing_glyphs:
    """Collect characters matplotlib drew without a glyph (its warning and mathtext's log): ``with
    missing_glyphs() as missing:``, the list of characters filled when the block ends. Other warnings are
    shown as they would have been."""

    def __enter__(self) -> list[str]:
        self.missing: list[str] = []
        self._warnings = warnings.catch_warnings(record=True)
        self._caught = self._warnings.__enter__()
        warnings.simplefilter("always")
        self._handler = _GlyphLog(self.missing)
        self._logger = logging.getLogger("matplotlib.mathtext")
        self._logger.addHandler(self._handler)
        return self.missing

    def __exit__(self, *exc: Any) -> None:
        self._logger.removeHandler(self._handler)
        self._warnings.__exit__(*exc)
        for w in self._caught:
            char = text_missing_char(str(w.message))
            if char is not None:
                self.missing.append(char)
            else:  # through the filters in force, as if never caught: a ResourceWarning stays ignored
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def glyph_list(chars: list[str]) -> str:
    """Characters as a message shows them: ``'中' (U+4E2D)``, each once, sorted, at most 8 then ``...``."""
    unique = sorted(set(chars))
    return ", ".join(f"{c!r} (U+{ord(c):04X})" for c in unique[:8]) + (" ..." if len(unique) > 8 else "")


def _user_dir(func: Callable[..., Any]) -> Path | None:
    """The folder of the renderer's source file (None for a callable without one)."""
    try:
        return Path(inspect.getfile(func)).parent
    except TypeError:
        try:
            return Path(inspect.getfile(type(func))).parent
        except TypeError:
            return None


def _is_number(value: Any) -> bool:
    """A finite real number (not a bool or a string that happens to parse)."""
    if isinstance(value, (bool, str, bytes)):
        return False
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def _root_figure(ax: Any) -> Any:
    """The Figure an axes is drawn in, through any subfigures."""
    return ax.get_figure(root=True)


def _describe(exc: BaseException, user_dir: Path | None) -> str:
    """``ZeroDivisionError: division by zero (at volume_kv.py:12 in rgb: x = 1 / 0)``.

    Names the innermost traceback frame inside ``user_dir`` (the panels
    folder): the line of the user's own code that failed.
    """
    frames = [Frame(f.filename, f.lineno or 0, f.name) for f in traceback.extract_tb(exc.__traceback__)]
    message = " ".join(str(exc).split()) or "(no message)"
    from composer.stages.inputs import MissingKey

    name = "KeyError" if isinstance(exc, MissingKey) else type(exc).__name__
    return f"{name}: {message}{where(frames, user_dir)}"
