"""Drawing a panel: run its renderer on a matplotlib Figure of its final size (a :class:`Draft`, not yet saved).

A renderer is a plain function ``f(fig, data, **params)`` in ``panels/<module>.py``
(:mod:`composer.stages.usercode`). composer makes ``Figure(figsize=box / 72 pt per in)``, so the
panel is drawn at the physical size it has in the final figure: a 7 pt tick label is 7 pt on
paper, and the panel is never scaled afterwards.

rcParams while drawing (:func:`rc_params`; see docs/design.md, "Traps of merging SVG"):

- ``svg.fonttype = "path"``: glyphs as outlines, mathtext included, so every
  renderer shows the same glyphs (``"none"`` under ``[figure] text =
  "editable"``, mathtext still outlines: see :mod:`composer.mpl.savesvg`);
- ``svg.hashsalt`` fixed and ``metadata={"Date": None}``: byte-identical SVG;
- ``figure.dpi = 72``: one display unit = 1 pt, the SVG user unit;
- ``font.family``/``font.size`` from the layout's ``[figure]``.

A renderer may also return an object of another plotting library (a plotnine ``ggplot``, a seaborn
``FacetGrid``, ...; :mod:`composer.stages.results`): its result kind draws it at the panel's size, as a
matplotlib Figure (the draft's ``fig``) or as an SVG document (the draft's ``svg``).

A draft is then sized to an aspect (:mod:`composer.stages.aspect`), aligned with others
(:mod:`composer.stages.align`) and saved (:mod:`composer.stages.render`).
"""

from __future__ import annotations

import dataclasses
import io
import traceback
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from composer.errors import PanelError, frames_of
from composer.layout.model import FigureSpec, Panel
from composer.mpl.fontlog import missing_glyphs
from composer.mpl.internals import pyplot_on
from composer.mpl.savesvg import svg_fonttype
from composer.sandbox.isolate import Frame, where
from composer.stages.results import InFigure, PlotAreaPt, SvgDrawing, Target, checked, kind_of
from composer.stages.usercode import call_params, describe, user_dir
from composer.text.metrics import font_families
from composer.units import say_pair

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType


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


def rc_context(rc: dict[str, Any]) -> AbstractContextManager[None]:
    """``matplotlib.rc_context(rc)`` for :func:`rc_params`' dict: its keys are rcParams names (composer's
    own, and the layout's ``[rcparams]``, which the layout loader checked against matplotlib's)."""
    import matplotlib

    return matplotlib.rc_context(cast("dict[RcKeyType, Any]", rc))


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
        with rc_context(rc):
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
    """A panel drawn but not yet saved: its Figure and what the renderer returned.

    Attributes:
        fig: the matplotlib Figure to save (the renderer's ``fig``, or the one a result kind drew).
        result: the data anchors in matplotlib's form (``{name: (ax, x, y)}``) or None, or what the
            renderer returned when it is garbage (:func:`composer.stages.render.save_panel` says so).
        svg: the panel's SVG when a result kind drew it as one (:class:`composer.stages.results.SvgDrawing`);
            ``fig`` is then the empty Figure and ``result`` None.
        redraw: for an ``svg`` draft whose kind can put its plot area where it is told
            (:attr:`composer.stages.results.ResultKind.aligns`): the kind's drawing again with its plot area
            at ``(x0, y0, x1, y1)`` pt (``[[align]]``); None otherwise.
        follow: texts of ``fig`` that ``[[align]]`` moves with the plot area's edges
            (:attr:`composer.stages.results.InFigure.follow`); empty for a matplotlib renderer's figure.
    """

    panel: Panel
    fig: Any
    result: Any
    size_pt: tuple[float, float]
    missing: list[str] = field(default_factory=list)  # characters drawn without a glyph
    svg: SvgDrawing | None = None
    redraw: Callable[[PlotAreaPt], SvgDrawing] | None = None
    follow: tuple[Any, ...] = ()

    def plot_area(self) -> PlotAreaPt | None:
        """The plot area drawn: ``svg``'s, or the figure's (:func:`plot_area`, as matplotlib last drew it)."""
        return self.svg.plot_area if self.svg is not None else plot_area(self.fig, self.size_pt)


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

    An object of another library it returns (``obj`` or ``(obj, anchors)``) is drawn by its result kind
    (:func:`composer.stages.results.kind_of`), in the same rcParams and pyplot state (:func:`_draw_result`).

    Raises:
        PanelError: the function raised (panel, function, error and the
            innermost line of panel code), resized the figure, or drew nothing
            on it (see :func:`_check_drawn`); its result kind could not draw what it returned.
    """
    from matplotlib.figure import Figure

    key = f"{panel.key}.{panel.kind}"  # the key that names its renderer
    width_pt, height_pt = size_pt
    params = call_params(func, panel, spec, file=file)
    with rc_context(rc_params(spec, panel.name)), missing_glyphs() as missing:
        fig = Figure(figsize=(width_pt / 72.0, height_pt / 72.0), dpi=72.0)
        with pyplot_on(fig) as made:  # pyplot draws on fig (plt.gca(), plt.plot()); see _check_drawn
            try:
                result = func(fig, data, **params)
            except Exception as exc:  # the user's code; report it in one line
                raise PanelError(f"panel {panel.name!r}: {panel.source} raised {describe(exc, user_dir(func))}",
                                 file=file, key=key, frames=frames_of(exc)) from None
            found = kind_of(result)
            if found is not None:
                target = Target(fig=fig, panel=panel, spec=spec, size_pt=size_pt, file=file, anchors=found[2])
                draft = _draw_result(found[0], found[1], target, func)
    if found is not None:
        _check_size(draft, found[0].what, spec, file=file)
        draft.missing = missing
        return draft
    w_in, h_in = fig.get_size_inches()
    if abs(w_in * 72 - width_pt) > 1e-6 or abs(h_in * 72 - height_pt) > 1e-6:
        raise PanelError(f"panel {panel.name!r}: {panel.source} changed the figure size to "
                         f"{say_pair(w_in * 72, h_in * 72, spec.unit)}; a panel is drawn at its box size "
                         f"({say_pair(width_pt, height_pt, spec.unit)})",
                         file=file, key=key)
    _check_drawn(fig, made, result, func, panel, file=file, key=key)
    return Draft(panel=panel, fig=fig, result=result, size_pt=size_pt, missing=missing)


def _draw_result(kind: Any, obj: Any, target: Target, func: Callable[..., Any]) -> Draft:
    """The draft of an object a result kind owns (:meth:`composer.stages.results.ResultKind.draw`): its
    Figure checked to be the box's size, or its SVG checked (:func:`composer.stages.results.checked`).

    Raises:
        PanelError: the kind raised one (the library is missing...), or the library raised while drawing
            (naming it and the innermost line of panel code), or the drawing is not the box's size, or the
            renderer also drew on the panel's own figure, which the kind's drawing replaces.
    """
    panel, size_pt = target.panel, target.size_pt
    try:
        drawn = kind.draw(obj, target)
    except PanelError:
        raise
    except Exception as exc:  # the library drawing what the user's code made
        raise target.error(f"drawing the {kind.what} {panel.source} returned raised "
                           f"{describe(exc, user_dir(func))}") from None
    own = drawn.fig if isinstance(drawn, InFigure) else None
    if own is not target.fig and not drew_nothing(target.fig):
        raise target.error(f"{panel.source} drew on the panel's fig and returned a {kind.what}, which is drawn "
                           "as the panel instead; draw with one of them")
    if isinstance(drawn, SvgDrawing):
        redraw = None
        if kind.aligns:
            def redraw(area: PlotAreaPt) -> SvgDrawing:
                with rc_context(rc_params(target.spec, panel.name)):
                    return checked(kind.draw(obj, dataclasses.replace(target, plot_area_pt=area)), kind, target)
        return Draft(panel=panel, fig=target.fig, result=None, size_pt=size_pt, svg=checked(drawn, kind, target),
                     redraw=redraw)
    assert isinstance(drawn, InFigure), f"result kind {kind.name!r} drew {type(drawn).__name__}"
    return Draft(panel=panel, fig=drawn.fig, result=drawn.anchors, size_pt=size_pt, follow=drawn.follow)


def _check_size(draft: Draft, what: str, spec: FigureSpec, *, file: str) -> None:
    """A result kind's Figure, once pyplot let go of it (its dpi is then what matplotlib keeps as the
    figure's own), must be the box's size at 72 dpi.

    Raises:
        PanelError: another size or dpi, naming both.
    """
    if draft.svg is not None:
        return
    size_pt, fig = draft.size_pt, draft.fig
    w_in, h_in = fig.get_size_inches()
    if abs(w_in * 72 - size_pt[0]) > 1e-6 or abs(h_in * 72 - size_pt[1]) > 1e-6 or fig.dpi != 72:
        drawn = say_pair(w_in * 72, h_in * 72, spec.unit)
        raise PanelError(f"panel {draft.panel.name!r}: the {what} was drawn {drawn} "
                         f"at {fig.dpi:g} dpi, not its box's {say_pair(*size_pt, spec.unit)} at 72 dpi (a "
                         "figure.dpi in [rcparams]?)", file=file, key=f"{draft.panel.key}.{draft.panel.kind}")


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
        at = where(frames, user_dir(func))
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
