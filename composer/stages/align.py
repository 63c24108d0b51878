"""``[[align]]``: line up the plot areas of drawn panels on the canvas, as R patchwork does.

:func:`align_plot_areas` moves the axes of the drafts (:class:`composer.stages.draft.Draft`) of one
group before they are saved, so their plot areas share edges.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from composer.errors import LayoutError
from composer.stages.draft import Draft

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
    (:func:`_follow`), and so do the texts a result kind's library placed itself (``Draft.follow``:
    plotnine's axis titles). A panel a result kind drew as SVG (``Draft.svg``, :mod:`composer.stages.results`)
    takes part with the plot area its kind reported and is drawn again by its kind with the new one
    (``Draft.redraw``).

    Args:
        drafts: panel name -> drawn, unsaved figure (every panel of ``align``).
        boxes: panel name -> :class:`composer.stages.geometry.Box` on the canvas, pt.
        align: the :class:`composer.layout.model.Align`.
        file: the layout, for errors.

    Raises:
        LayoutError: a plot area would keep less than :data:`MIN_ALIGNED_SHARE`
            of its width or height (panels that overlap only in part, or one
            spanning rows others do not): the layout asks for the impossible; or a panel drawn as SVG
            has no plot area or a kind that cannot move it (:attr:`composer.stages.results.ResultKind.aligns`).
    """
    from composer.mpl.internals import is_colorbar
    from composer.stages.geometry import alignment_groups

    areas: dict[str, tuple[list[Any], list[Any], tuple[float, float, float, float], Any]] = {}
    bars: dict[str, list[tuple[Any, Any]]] = {}
    where = f"{align.key}.panels" if align.key else None
    for name in align.panels:
        fig, box = drafts[name].fig, boxes[name]
        drawn = drafts[name].svg
        if drawn is not None:  # a result kind's SVG (composer.stages.results): its kind redraws it aligned
            if drawn.plot_area is None or drafts[name].redraw is None:
                why = "has no plot area" if drawn.plot_area is None else "cannot be drawn with its plot area moved"
                raise LayoutError(f"panel {name!r} is drawn as SVG by another library and {why}, so it cannot "
                                  "be aligned; remove it from the group", file=file, key=where)
            w, h = drafts[name].size_pt
            ax0, ay0, ax1, ay1 = drawn.plot_area
            bars[name] = []
            areas[name] = ([], [], (ax0 / w, 1 - ay1 / h, ax1 / w, 1 - ay0 / h), box)
            continue
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
        if drafts[name].svg is not None:
            w, h = drafts[name].size_pt
            redraw = drafts[name].redraw
            assert redraw is not None
            drafts[name].svg = redraw((nx0 * w, (1 - ny1) * h, nx1 * w, (1 - ny0) * h))
            continue
        fx = (nx1 - nx0) / (x1 - x0) if x1 > x0 else 1.0
        fy = (ny1 - ny0) / (y1 - y0) if y1 > y0 else 1.0
        for ax, p in zip(axes, pos):
            ax.set_position([nx0 + (p.x0 - x0) * fx, ny0 + (p.y0 - y0) * fy, p.width * fx, p.height * fy])
        for text in drafts[name].follow:  # a library's axis titles, placed in figure fractions
            tx, ty = text.get_position()
            text.set_position((_follow(tx, 0.0, (x0, x1), (nx0, nx1))[0], _follow(ty, 0.0, (y0, y1), (ny0, ny1))[0]))
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
