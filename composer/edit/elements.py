"""``elements.json``: what the preview's page knows of each element of the figure it shows.

Made by the builder after each successful build (:meth:`composer.cli.serve.Builder._check`) from
the build's own records (:attr:`composer.pipeline.BuildResult.elements`, ``.geometry``,
``.connector_labels``: the boxes as composed, never read back from the drawing), so it matches the
SVG the page shows (``token``: that SVG's token). Lengths are canvas pt, y down, origin at the
canvas's top-left. The document (:func:`elements_document`)::

    {"token": SVG_TOKEN, "digest": SHA256_OF_LAYOUT_TEXT,
     "layout": {"file": "layouts/fig.toml", "path": ABS, "writable": true, "why": null},
     "canvas_pt": [w, h],
     "elements": [{"id", "kind", "name", "key_path", "line", "box_pt": [x, y, w, h], "movable",
                   "resizable", "editor_url", "check_key", "how", "anchor", "unit" (what a move writes lengths
                   in there), "route_pt" (a label's connector)}],
     "snap": {"x_pt": [{"at", "what"}], "y_pt": [...]}}

``layout.writable`` is false, with ``why`` (one line), for a Python layout, a link to a file outside
the project, or a file (or its folder, where an edit renames its new text over it) this process may not
write (:func:`composer.edit.history.why_not_writable`).

``snap`` lists the left, centre and right (top, middle, bottom) of every element's box, each panel's
plot area (x0, x1, y0, y1: "panel a plot area left"...), the canvas's edges and centre, and the
edges of every grid track (column and row), rounded to 0.001 pt, sorted, one entry per place and
name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from composer.edit.targets import Target, raw_table, targets
from composer.edit.writeback import unit_written
from composer.layout.model import Figure
from composer.layout.positions import key_positions

#: the kinds an element of ``elements.json`` has
KINDS = ("panel", "text", "shape", "legend", "colorbar", "label", "waypoint")


def editor_url(path: Path, line: int | None) -> str:
    """The link that opens ``path`` at ``line`` in the user's editor: ``vscode://file/ABS:LINE``."""
    return f"vscode://file{path}" + (f":{line}" if line else "")


def _r(v: float) -> float:
    return round(float(v), 3)


def elements_document(result: Any, *, path: Path, display: str, text: str | None, raw: Mapping[str, Any],
                      token: str | None, digest: str, writable: bool, why: str | None) -> dict[str, Any]:
    """``elements.json`` for a build (module docstring).

    Args:
        result: the :class:`composer.pipeline.BuildResult` of a build with ``BuildOptions.elements``.
        path: the layout file (absolute). display: as messages name it (``layouts/fig.toml``).
        text: the layout's TOML text (lines), or None for a Python layout. raw: its document as
            written (tomllib's dict, or what ``layout()`` returned).
        token: the token of the SVG it describes (:func:`composer.cli.serve._token`). digest: of ``text``
            (:func:`composer.edit.history.digest`). writable, why: whether the page may write it back.
    """
    figure: Figure = result.figure
    geometry = result.geometry
    positions = key_positions(text) if text is not None else {}
    boxes = {e.name: e.box for e in result.elements}
    found = targets(figure, raw)
    items = []
    for target in found.values():
        box = _box_of(target, boxes, result, geometry)
        key_path = f"{target.key}.label" if target.kind == "label" else target.key
        line = positions.get(key_path, positions.get(target.key, (None, None)))[0]
        item: dict[str, Any] = {
            "id": target.id, "kind": target.kind, "name": target.name, "key_path": key_path, "line": line,
            "box_pt": None if box is None else [_r(v) for v in box],
            "movable": target.movable and box is not None,  # a Python layout's too: the page shows the values
            "resizable": target.resizable and box is not None,
            "editor_url": editor_url(path, line), "check_key": target.check_key, "how": target.how,
            "anchor": target.anchor,
            "unit": unit_written(raw_table(raw, target.key), target.how, figure.spec.unit),
        }
        if target.kind == "label":
            item["route_pt"] = [[_r(x), _r(y)] for x, y in geometry.arrows[target.index].points]
        items.append(item)
    return {"token": token, "digest": digest,
            "layout": {"file": display, "path": str(path), "writable": writable, "why": why},
            "canvas_pt": [_r(figure.spec.width_pt), _r(figure.spec.height_pt)],
            "elements": items, "snap": snap_lines(figure, geometry, items)}


def _box_of(target: Target, boxes: Mapping[str, Any], result: Any, geometry: Any) -> tuple[float, ...] | None:
    if target.kind == "label":
        box = result.connector_labels.get(target.index)
    elif target.kind == "waypoint":
        box = None
        point = _waypoint_point(geometry, result.figure, target)
        if point is not None:
            return (point[0] - 2.0, point[1] - 2.0, 4.0, 4.0)  # a 4 pt handle centred on it
    else:
        box = boxes.get(target.element)
    return None if box is None else (box.x_pt, box.y_pt, box.width_pt, box.height_pt)


def _waypoint_point(geometry: Any, figure: Figure, target: Target) -> tuple[float, float] | None:
    """Where waypoint ``via[j]`` of arrow ``i`` is, read from its route as drawn: the route passes through
    each waypoint, every hop routed alike (:func:`composer.stages.geometry.route`: a straight hop adds its end,
    an elbow ``-|`` or ``|-`` its corner and its end, an elbow between aligned points collapses to straight).
    None for an arc (it bends from start to end; its waypoints are not on it) or a route not read so."""
    route = geometry.arrows[target.index]
    arrow = figure.arrows[target.index]
    if route.curve:
        return None
    stops = _stops(route.points, len(arrow.via) + 1, arrow.route)
    return None if stops is None else route.points[stops[target.via + 1]]


def _stops(points: tuple[tuple[float, float], ...], hops: int, kind: str) -> list[int] | None:
    """The indexes in ``points`` of the start, each waypoint and the end of a route of ``hops`` hops."""
    def aligned(a: tuple[float, float], b: tuple[float, float]) -> bool:
        return a[0] == b[0] or a[1] == b[1]

    def elbow(i: int) -> bool:
        if kind not in ("-|", "|-") or i + 2 >= len(points) or aligned(points[i], points[i + 2]):
            return False
        a, c, b = points[i], points[i + 1], points[i + 2]
        return c == ((b[0], a[1]) if kind == "-|" else (a[0], b[1]))

    def walk(i: int, left: int) -> list[int] | None:
        if left == 0:
            return [i] if i == len(points) - 1 else None
        for step in ((2, 1) if elbow(i) else (1,)):
            rest = walk(i + step, left - 1) if i + step < len(points) else None
            if rest is not None:
                return [i, *rest]
        return None

    return walk(0, hops)


def snap_lines(figure: Figure, geometry: Any, items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The lines a drag snaps to (module docstring): ``{"x_pt": [{"at", "what"}], "y_pt": [...]}``."""
    xs: set[tuple[float, str]] = set()
    ys: set[tuple[float, str]] = set()
    w, h = figure.spec.width_pt, figure.spec.height_pt
    xs |= {(0.0, "canvas left"), (_r(w / 2), "canvas centre"), (_r(w), "canvas right")}
    ys |= {(0.0, "canvas top"), (_r(h / 2), "canvas middle"), (_r(h), "canvas bottom")}
    for item in items:
        box = item["box_pt"]
        if box is None or item["kind"] == "waypoint":
            continue
        x, y, bw, bh = box
        what = item["id"]
        xs |= {(_r(x), f"{what} left"), (_r(x + bw / 2), f"{what} centre"), (_r(x + bw), f"{what} right")}
        ys |= {(_r(y), f"{what} top"), (_r(y + bh / 2), f"{what} middle"), (_r(y + bh), f"{what} bottom")}
    for name, area in geometry.plot_areas.items():
        xs |= {(_r(area.x_pt), f"panel {name} plot area left"),
               (_r(area.x_pt + area.width_pt), f"panel {name} plot area right")}
        ys |= {(_r(area.y_pt), f"panel {name} plot area top"),
               (_r(area.y_pt + area.height_pt), f"panel {name} plot area bottom")}
    for grid in figure.grids:
        outer = geometry.grids.get(grid.name)
        if outer is None:
            continue
        label = f"grid {grid.name}" if grid.name else "grid"
        for tracks, gutter, start, total, axis, out in (
                (grid.columns, grid.gutter_pt[0], outer.x_pt, outer.width_pt, "column", xs),
                (grid.rows, grid.gutter_pt[1], outer.y_pt, outer.height_pt, "row", ys)):
            for n, (a, b) in enumerate(_tracks(tracks, gutter, total), start=1):
                out |= {(_r(start + a), f"{label} {axis} {n} start"), (_r(start + b), f"{label} {axis} {n} end")}
    return {"x_pt": [{"at": at, "what": what} for at, what in sorted(xs)],
            "y_pt": [{"at": at, "what": what} for at, what in sorted(ys)]}


def _tracks(tracks: Any, gutter_pt: float, total_pt: float) -> list[tuple[float, float]]:
    """Start and end (pt, from the grid's edge) of each track: fixed lengths kept, ratios sharing what
    is left (CSS grid ``fr``), as :mod:`composer.stages.geometry` places cells."""
    fixed = sum(t.length_pt for t in tracks if t.length_pt is not None) + gutter_pt * (len(tracks) - 1)
    shares = sum(t.ratio for t in tracks if t.ratio is not None)
    free = max(total_pt - fixed, 0.0)
    out, pos = [], 0.0
    for t in tracks:
        size = t.length_pt if t.length_pt is not None else (free * (t.ratio or 0.0) / shares if shares else 0.0)
        out.append((pos, pos + size))
        pos += size + gutter_pt
    return out
