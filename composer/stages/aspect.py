"""``aspect_of = "plot"``: draw a panel as large as its box allows with its plot area at the aspect asked.

:func:`draw_locked` draws the panel (:func:`composer.stages.draft.draw_panel`) again at a shorter
side until its plot area's width / height is the panel's ``aspect`` (a secant solver, a few draws).
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Mapping
from typing import Any

from composer.errors import PanelError
from composer.layout.model import FigureSpec, Panel
from composer.mpl.fontlog import missing_glyphs
from composer.stages.draft import Draft, draw_panel, rc_context, rc_params
from composer.units import say_pair

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
        if draft.svg is None:
            # positions after layout engines and apply_aspect, as the SVG renderer's text metrics place them
            # (another renderer's differ: a constrained layout moves by points), with the panel's rcParams
            with rc_context(rc_params(spec, panel.name)), missing_glyphs():  # save_panel reports those
                draft.fig.savefig(io.BytesIO(), format="svg", metadata={"Date": None})
        area = draft.plot_area()  # a result kind's SVG says its own (composer.stages.results)
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
