"""Data anchors: the points a renderer returns in data coordinates, as panel pt.

A renderer may return ``{name: (ax, x, y)}`` (or ``(ax, x, y, z)`` for 3D axes) in data
coordinates: :func:`data_anchors` transforms them after drawing into panel points, so connectors
can end exactly on a data point.
"""

from __future__ import annotations

import math
from typing import Any

from composer.errors import PanelError
from composer.layout.model import Panel


def data_anchors(fig: Any, result: Any, panel: Panel, height_pt: float, *, file: str,
                  key: str) -> dict[str, tuple[float, float]]:
    """Transform the renderer's returned data anchors into panel pt (y down)."""
    from matplotlib.axes import Axes

    if result is None:
        return {}
    usage = "a renderer returns None or {name: (ax, x, y)} / {name: (ax, x, y, z)} data anchors"
    if not isinstance(result, dict):
        from composer.stages.results import RESULTS

        others = ", ".join(f"{'an' if kind.what[0] in 'AEIOUaeiou' else 'a'} {kind.what}" for kind in RESULTS)
        raise PanelError(f"panel {panel.name!r}: {panel.source} returned {type(result).__name__}; {usage}, "
                         f"or {others} (alone or as (object, {{name: (x, y)}}))", file=file, key=key)
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
