"""seaborn's figure-level grids returned by a renderer, resized to the panel's box.

seaborn's figure-level functions make a figure of their own: ``relplot``, ``displot``, ``catplot`` and
``lmplot`` return a ``FacetGrid``, ``pairplot`` a ``PairGrid``, ``jointplot`` a ``JointGrid``. A
renderer returns the grid (``return sns.relplot(data=df, x="x", y="y")``), or ``(grid, {name: (x, y)})``.
:class:`SeabornGrid` takes the grid's figure as the panel's:

- fonts: the renderer ran inside the figure's rcParams (``font.family``, ``font.size`` from ``[figure]``),
  so seaborn's texts are the figure's font at the figure's size (matplotlib's relative sizes: tick
  labels ``medium``); a ``sns.set_theme(...)`` or ``plotting_context`` the renderer calls wins, as it
  would in matplotlib;
- size: the figure is set to the box (72 dpi) and laid out again as seaborn lays out its grids
  (``Grid.tight_layout``, within the rectangle that keeps an outside legend's room, recomputed for the
  new width as ``FacetGrid.add_legend`` computes it; a ``JointGrid`` keeps the spacing between its joint and
  marginal axes).

Data anchors: ``(x, y)`` in the data units of the grid's main axes (a ``FacetGrid``'s first facet, a
``JointGrid``'s joint axes, a ``PairGrid``'s top-left axes), or ``(ax, x, y)`` of any axes of the grid.
"""

from __future__ import annotations

from typing import Any

from composer.stages.results.base import InFigure, ResultKind, Target, is_instance

#: the room seaborn leaves right of an outside legend, a share of the figure's width
#: (``FacetGrid.add_legend``: 0.04 with margin titles, else 0.01)
LEGEND_MARGIN = {True: 0.04, False: 0.01}


class SeabornGrid(ResultKind):
    """A seaborn ``FacetGrid``, ``PairGrid`` or ``JointGrid`` (see the module docstring)."""

    name = "seaborn"
    what = "seaborn grid"

    def owns(self, obj: Any) -> bool:
        """A seaborn figure-level grid (by its class, without importing seaborn)."""
        return is_instance(obj, "seaborn", "FacetGrid", "PairGrid", "JointGrid")

    def draw(self, obj: Any, target: Target) -> InFigure:
        """The grid's figure at the box's size, laid out again (module docstring).

        Raises:
            PanelError: an anchor is not ``(x, y)`` or ``(ax, x, y)`` with axes of the grid.
        """
        from matplotlib.axes import Axes

        fig = obj.figure
        width_pt, height_pt = target.size_pt
        fig.set_dpi(72.0)
        fig.set_size_inches(width_pt / 72.0, height_pt / 72.0)
        if is_instance(obj, "seaborn", "JointGrid"):
            spacing = fig.subplotpars.wspace, fig.subplotpars.hspace
            fig.tight_layout()
            fig.subplots_adjust(wspace=spacing[0], hspace=spacing[1])
            main = obj.ax_joint
        else:
            # seaborn's own record of an outside legend (FacetGrid.add_legend, seaborn 0.11 to 0.13); a seaborn
            # without it is laid out as tight_layout leaves it
            legend = getattr(obj, "_legend", None)
            rect = getattr(obj, "_tight_layout_rect", None)
            if (legend is not None and getattr(obj, "_legend_out", False) and legend.figure is fig
                    and isinstance(rect, list) and len(rect) == 4):
                fig.draw_without_rendering()  # the legend's size at the new dpi, as seaborn measures it
                legend_in = legend.get_window_extent().width / fig.dpi
                margin = LEGEND_MARGIN[bool(getattr(obj, "_margin_titles", False))]
                rect[2] = 1 - (margin + legend_in / (width_pt / 72.0))
                fig.subplots_adjust(right=rect[2])
            obj.tight_layout()
            main = obj.axes.flat[0]
        anchors: dict[str, Any] = {}
        for name, spec in target.anchors.items():
            if isinstance(spec, tuple) and len(spec) == 2:
                anchors[name] = (main, *spec)
            elif isinstance(spec, tuple) and len(spec) == 3 and isinstance(spec[0], Axes):
                anchors[name] = spec
            else:
                raise target.error(f"anchor {name!r}: {spec!r} is not (x, y) or (ax, x, y); a seaborn renderer "
                                   "returns (grid, {name: (x, y)}) in the data units of the grid's main axes")
        return InFigure(fig=fig, anchors=anchors or None)
