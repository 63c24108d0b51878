"""Result kinds: what a ``render`` function may return besides None or data anchors, one module each.

The protocol and the registry are in :mod:`composer.stages.results.base` (:class:`ResultKind`,
:data:`RESULTS`, :class:`Target`, :class:`InFigure`, :class:`SvgDrawing`); the render stage asks
:func:`kind_of` what a renderer returned (:func:`composer.stages.draft.draw_panel`). Importing this
package registers the built-in kinds (:data:`BUILTIN`), none of which imports its library until it draws:

- :mod:`~composer.stages.results.plotnine`: a plotnine ``ggplot``, drawn as a matplotlib figure;
- :mod:`~composer.stages.results.plotly`: a Plotly ``Figure``, drawn as SVG through kaleido and Chromium;
- :mod:`~composer.stages.results.seaborn`: seaborn's figure-level grids (``FacetGrid``, ``JointGrid``,
  ``PairGrid``: what ``relplot``, ``displot``, ``catplot``, ``lmplot``, ``jointplot``, ``pairplot`` return);
- :mod:`~composer.stages.results.altair`: an Altair chart, drawn as SVG by vl-convert (:mod:`composer.stages.vegasvg`).

A plug-in or a test adds its own with ``RESULTS.add(MyKind())`` (``with RESULTS.registered(MyKind()):``
for a block); docs/design.md ("Extension points") says what a new kind touches.
"""

from __future__ import annotations

from composer.stages.results.altair import AltairResult
from composer.stages.results.base import (
    RESULTS,
    InFigure,
    PlotAreaPt,
    ResultKind,
    SvgDrawing,
    Target,
    checked,
    is_instance,
    kind_of,
)
from composer.stages.results.plotly import PlotlyFigure
from composer.stages.results.plotnine import PlotnineResult
from composer.stages.results.seaborn import SeabornGrid

__all__ = ["BUILTIN", "RESULTS", "InFigure", "PlotAreaPt", "ResultKind", "SvgDrawing", "Target", "checked",
           "is_instance", "kind_of"]

#: the built-in kinds, registered when this package is imported; a new built-in kind is one line here
BUILTIN: tuple[ResultKind, ...] = (PlotnineResult(), SeabornGrid(), PlotlyFigure(), AltairResult())

for _kind in BUILTIN:
    RESULTS.add(_kind)
