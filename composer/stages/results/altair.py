"""An Altair chart returned by a renderer, drawn as SVG at the panel's box through vl-convert.

``function(fig, data, **params)`` returns ``chart`` (an ``alt.Chart`` or ``alt.LayerChart``) or
``(chart, {name: (x, y)})``. :class:`AltairResult` hands ``chart.to_dict()`` (Altair's own Vega-Lite, its
data inlined) to :func:`composer.stages.vegasvg.draw_vegalite`, which draws it exactly the box with the
figure's font family and size on every text, reads its plot area (the view) from vl-convert's scenegraph,
and maps the anchors through the chart's ``x`` and ``y`` scales: ``(x, y)`` in data units, a category by
its name (the centre of its band), a date as Vega-Lite takes it (a timestamp in ms, or a date string the
chart's data uses). Under ``[[align]]`` it is drawn again with its view where the group puts it
(:attr:`AltairResult.aligns`).

Concatenated, faceted and repeated charts are refused (Vega-Lite cannot fit them to a box): a panel per view.
Altair is needed only to make the chart (the renderer imports it); drawing needs vl-convert: both are the
extra ``figure-composer[vega]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from composer.errors import DataError
from composer.stages.results.base import ResultKind, SvgDrawing, Target, is_instance
from composer.stages.vegasvg import INSTALL, draw_vegalite


def _anchors(given: Mapping[Any, Any], target: Target) -> dict[str, tuple[Any, Any]]:
    """The anchors returned beside the chart, each ``name: (x, y)`` of numbers or strings.

    Raises:
        PanelError: an anchor that is not a pair.
    """
    out: dict[str, tuple[Any, Any]] = {}
    for name, point in given.items():
        ok = isinstance(point, (tuple, list)) and len(point) == 2 and all(
            isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in point)
        if not ok:
            raise target.error(f"anchor {name!r} of the Altair chart is {point!r}, not (x, y) in the data units of "
                               "its x and y (numbers, or a category's name)")
        out[str(name)] = (point[0], point[1])
    return out


class AltairResult(ResultKind):
    """An Altair top-level chart (see the module docstring)."""

    name = "altair"
    what = "Altair chart"
    aligns = True

    def owns(self, obj: Any) -> bool:
        """An Altair top-level chart (``Chart``, ``LayerChart``..., all ``TopLevelMixin``), by its class."""
        return is_instance(obj, "altair", "TopLevelMixin")

    def draw(self, obj: Any, target: Target) -> SvgDrawing:
        """``obj`` drawn at the box (:func:`composer.stages.vegasvg.draw_vegalite`), its view at
        ``target.plot_area_pt`` when an ``[[align]]`` asks.

        Raises:
            PanelError: vl-convert is missing (what to install), the chart cannot be fitted (a concatenated or
                faceted one) or drawn, or an anchor is not on it.
        """
        try:
            import vl_convert  # noqa: F401
        except ImportError:
            raise target.error(f"{target.panel.source} returned an Altair chart, but vl-convert is not installed "
                               f"here; install it: {INSTALL}") from None
        anchors = _anchors(target.anchors, target)
        width_pt, height_pt = target.size_pt
        try:
            drawn = draw_vegalite(obj.to_dict(), width_pt, height_pt, font=target.spec.font,
                                  font_size_pt=target.font_size_pt, anchors=anchors,
                                  plot_area_pt=target.plot_area_pt, what=f"the Altair chart {target.panel.source} "
                                                                         "returned")
        except DataError as exc:
            raise target.error(exc.message) from None
        return SvgDrawing(svg=drawn.svg, plot_area=drawn.plot_area, anchors=drawn.anchors)
