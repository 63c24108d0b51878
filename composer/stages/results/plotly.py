"""A Plotly figure returned by a renderer, drawn as an SVG document the size of the panel's box.

``function(fig, data, **params)`` returns ``f`` (a ``plotly.graph_objects.Figure``) or
``(f, {name: (x, y)})``. :class:`PlotlyFigure` has :func:`composer.stages.plotlysvg.plotly_svg` draw it
through kaleido and Debian's Chromium (the extra ``.[plotly]``):

- at the box's size (Plotly's px are CSS px: the box's ``width_pt / 0.75`` px, scale 1), its SVG in pt;
- in the figure's font family and size (``[figure] font``, ``font_size``) on ``layout.font`` and on every
  text plotly.js would size on its own (title, axis titles and ticks, legend, annotations, colorbars)
  where the figure sets none; a size the figure sets wins (``compose check`` reads it);
- margins of 3 pt grown by plotly.js to fit the tick labels, titles, legend and colorbars, where the
  figure sets none (plotly.js's own 80-100 px would leave a small panel no plot);
- its plot area read back from the SVG (the union of its subplots), so ``label_at = "plot"``, texts
  ``beside`` it and ``[[align]]`` (which draws it again with its margins set: :attr:`aligns`) work as for a
  matplotlib panel;
- data anchors ``(x, y)`` in the data units of its first subplot (axes ``x`` and ``y``, linear or log),
  through the ranges plotly.js chose.

The panel's forked worker starts one Chromium for its Plotly drawings (about a second; an aligned panel
is drawn twice, by the same browser) and ends it when it is done; the panel is then cached like any other.
Missing plotly, kaleido or Chromium, the panel is one line naming what to install.
"""

from __future__ import annotations

from typing import Any

from composer.stages.plotlysvg import PlotlyUnavailable, plotly_svg, require
from composer.stages.results.base import ResultKind, SvgDrawing, Target, is_instance


class PlotlyFigure(ResultKind):
    """A ``plotly.graph_objects.Figure`` (see the module docstring)."""

    name = "plotly"
    what = "Plotly figure"
    aligns = True

    def owns(self, obj: Any) -> bool:
        """A Plotly ``Figure`` or ``FigureWidget`` (by its class, without importing plotly)."""
        return is_instance(obj, "plotly", "Figure", "FigureWidget", "BaseFigure")

    def draw(self, obj: Any, target: Target) -> SvgDrawing:
        """``obj`` drawn at the box with the figure's fonts, at :attr:`Target.plot_area_pt` when given.

        Raises:
            PanelError: plotly, kaleido or Chromium is missing (what to install), an anchor is not ``(x, y)``
                on a linear or log axis, or kaleido failed.
        """
        try:
            require()
        except PlotlyUnavailable as exc:
            raise target.error(f"{target.panel.source} returned a Plotly figure; {exc}") from None
        width_pt, height_pt = target.size_pt
        try:
            drawn = plotly_svg(obj, width_pt=width_pt, height_pt=height_pt, families=target.font_families,
                               font_size_pt=target.font_size_pt, ids=f"{target.panel.name}-",
                               anchors=dict(target.anchors), plot_area_pt=target.plot_area_pt)
        except PlotlyUnavailable as exc:
            raise target.error(str(exc)) from None
        except ValueError as exc:
            raise target.error(f"{target.panel.source} returned a Plotly figure with {exc}") from None
        return SvgDrawing(svg=drawn.svg, plot_area=drawn.plot_area, anchors=drawn.anchors)
