"""An edit validated before it is written: the loader on the new text, then the moved boxes checked.

Two steps, both in the process that answers the page (no build, no fork, no panel rendered):

1. :func:`load_text`: the new text read by the loader exactly as a build reads the file
   (:func:`composer.layout.loader.load_document` with the layout's own path, so relative paths
   resolve as they do on disk); its error is the loader's one line, with the line of the key in the
   *new* text (:func:`composer.layout.positions.locate`'s rule).
2. :func:`check_place`: the boxes the edit moves (the element, and every element placed from it, at
   any depth: a text at ``"rgb.s"`` moves with panel ``rgb``) shifted by the edit, from the boxes of
   the last build (``elements.json``, the geometry as composed), then measured as ``compose check``
   measures them (:mod:`composer.lint.rules`, same tolerances): ``outside-canvas`` (a box past the
   canvas edge by more than :data:`composer.lint.rules.EDGE_TOLERANCE_PT`) and ``overlap`` (a panel's
   box over another panel's by more than 0.01 pt, unless one has ``overlap = true`` or the pair is in
   ``[check] allow_overlap``), and a text's box newly across the border of a rect, circle or ellipse
   shape's (``overlap``: "text crosses the border of a shape"; the text's box, a little larger than its
   ink, within :data:`composer.lint.rules.OVERLAP_TOLERANCE_PT`). Only what the edit makes worse is
   refused: a box already past the edge may move back, not farther out. ``[check] ignore`` of a panel is
   respected.

What the check measures on the drawn SVG (text ink on text, fonts, line widths) is not measured
before writing; the build that follows the write checks it, and the page shows its findings.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from composer.edit.targets import Target, anchor_fractions
from composer.errors import ComposerError, LayoutError
from composer.layout.loader import load_document
from composer.layout.model import Figure, Placement
from composer.layout.positions import key_positions, position
from composer.lint.rules import EDGE_TOLERANCE_PT, OVERLAP_TOLERANCE_PT
from composer.units import PT_PER_UNIT, say

#: a panel box over another by more than this (pt) is an overlap (the check's own threshold)
PANEL_OVERLAP_PT = 0.01

Box = tuple[float, float, float, float]  # x, y, width, height (pt)


def load_text(text: str, path: Path, *, name: str, display: str) -> Figure:
    """``text`` loaded as the layout file ``path`` would be.

    Raises:
        LayoutError: not TOML, or what the loader refuses; one line naming ``display``, the line of the key
            in ``text``, the key path, the bad value and the valid choices.
    """
    import composer.stages  # noqa: F401 - registers the panel sources the loader reads

    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"not valid TOML: {exc}", file=display) from None
    try:
        return load_document(raw, path, name=name, display=display)
    except ComposerError as exc:
        if exc.file == display and exc.key and exc.line is None:
            found = position(key_positions(text), exc.key)
            if found is not None:
                exc.line, exc.column = found
                exc.args = (str(exc),)
        raise


def _refs(figure: Figure) -> dict[str, set[str]]:
    """Element name -> the names of the elements placed from it (directly)."""
    out: dict[str, set[str]] = {}
    placed: list[tuple[str, Placement | None]] = [(p.name, p.place) for p in figure.panels]
    placed += [(t.name or f"text[{i}]", t.place) for i, t in enumerate(figure.texts)]
    placed += [(s.name or f"shape[{i}]", s.place) for i, s in enumerate(figure.shapes)]
    placed += [(g.name or g.key, g.place) for g in figure.guides]
    for name, place in placed:
        if place is None:
            continue
        if place.at is not None and place.at.ref is not None:
            out.setdefault(place.at.ref[0], set()).add(name)
        for panel in place.beside:
            out.setdefault(panel, set()).add(name)
    return out


def moved_boxes(figure: Figure, target: Target, boxes: Mapping[str, Box], dx_pt: float, dy_pt: float,
                dw_pt: float, dh_pt: float) -> dict[str, Box]:
    """The boxes an edit moves, by the check's key (``a``, ``text[3]``), shifted: the target's by the
    edit itself (top-left by dx, dy; size by dw, dh), each element placed from it by the move of the
    point it is placed at (its anchor on the target's box: a move shifts every one alike; a resize
    shifts a point at the box's right edge by dw, at its centre by dw / 2), and so on down."""
    if target.check_key not in boxes:
        return {}
    x, y, w, h = boxes[target.check_key]
    out = {target.check_key: (x + dx_pt, y + dy_pt, w + dw_pt, h + dh_pt)}
    refs = _refs(figure)
    places = {p.name: p.place for p in figure.panels}
    places.update({t.name or f"text[{i}]": t.place for i, t in enumerate(figure.texts)})
    places.update({s.name or f"shape[{i}]": s.place for i, s in enumerate(figure.shapes) if s.place is not None})
    places.update({g.name or g.key: g.place for g in figure.guides})
    shifts = {target.check_key: (dx_pt, dy_pt, dw_pt, dh_pt)}
    queue = [target.check_key]
    while queue:
        here = queue.pop()
        sx, sy, sw, sh = shifts[here]
        for child in sorted(refs.get(here, set())):
            if child in shifts or child not in boxes:
                continue
            place = places.get(child)
            anchor = place.at.ref[1] if place is not None and place.at is not None and place.at.ref else "center"
            fx, fy = _fractions(anchor)
            move = (sx + fx * sw, sy + fy * sh, 0.0, 0.0)
            shifts[child] = move
            cx, cy, cw, ch = boxes[child]
            out[child] = (cx + move[0], cy + move[1], cw, ch)
            queue.append(child)
    return out


def _fractions(anchor: str) -> tuple[float, float]:
    """Where a reference point ``anchor`` is on its element's box, as fractions from the top-left: a compass
    point, or a point along a side (``e@0.25``: the east side, a quarter of the way down); a data anchor
    (``pixel``) as the centre (it moves with a move; a resize draws the panel again)."""
    side, at, fraction = anchor.partition("@")
    if at and side in ("n", "s", "e", "w"):
        try:
            f = float(fraction)
        except ValueError:
            f = 0.5
        return (f, 0.0 if side == "n" else 1.0) if side in ("n", "s") else (1.0 if side == "e" else 0.0, f)
    return anchor_fractions(anchor)


def _past_edge(box: Box, width_pt: float, height_pt: float) -> float:
    x, y, w, h = box
    return max(-x, -y, x + w - width_pt, y + h - height_pt, 0.0)


def _overlap(a: Box, b: Box) -> float:
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    return min(w, h) if w > 0 and h > 0 else 0.0


def check_place(figure: Figure, target: Target, boxes: Mapping[str, Box], moved: Mapping[str, Box],
                *, file: str) -> str | None:
    """The check's error an edit would make, as one line, or None.

    Args:
        figure: the layout as the edit leaves it (:func:`load_text`): canvas size, ``overlap``,
            ``[check] allow_overlap`` and ``ignore``.
        target: the element edited. boxes: every element's box before the edit, by its check key.
        moved: the boxes the edit moves, as they would be (:func:`moved_boxes`).
        file: the layout, as messages name it.
    """
    unit = figure.spec.unit if figure.spec.unit in PT_PER_UNIT else "pt"
    width_pt, height_pt = figure.spec.width_pt, figure.spec.height_pt
    ignored = {panel: set(rules) for panel, rules in figure.spec.check.ignore}
    allowed = {frozenset(pair) for pair in figure.spec.check.allow_overlap}
    for key, box in moved.items():
        if "outside-canvas" in ignored.get(key, set()):
            continue
        beyond = _past_edge(box, width_pt, height_pt)
        if beyond > EDGE_TOLERANCE_PT and beyond > _past_edge(boxes[key], width_pt, height_pt) + EDGE_TOLERANCE_PT:
            return (f"{file}: {target.key}: this edit puts {key} {say(beyond, unit)} past the edge of the canvas "
                    f"(compose check: outside-canvas); nothing was written")
    panels = {p.name: p for p in figure.panels}
    for key, box in moved.items():
        if key not in panels or panels[key].overlap or "overlap" in ignored.get(key, set()):
            continue
        for other, p in panels.items():
            if other in moved or other not in boxes or p.overlap or frozenset((key, other)) in allowed:
                continue
            depth = _overlap(box, boxes[other])
            if depth > PANEL_OVERLAP_PT and depth > _overlap(boxes[key], boxes[other]) + PANEL_OVERLAP_PT:
                return (f"{file}: {target.key}: this edit puts panel {key} over panel {other} by "
                        f"{say(depth, unit)} (compose check: overlap; overlap = true makes an inset, or list the "
                        f"pair in [check] allow_overlap); nothing was written")
    shapes = {s.name or f"shape[{i}]": s for i, s in enumerate(figure.shapes)
              if s.kind not in ("line", "brace", "bracket")}  # a line has no inside to cross into
    texts = {t.name or f"text[{i}]" for i, t in enumerate(figure.texts)}
    tol = OVERLAP_TOLERANCE_PT
    for key, box in moved.items():
        if key not in texts:
            continue
        for shape in shapes:
            if shape in moved or shape not in boxes or frozenset((key, shape)) in allowed:
                continue
            if _crosses(box, boxes[shape], tol) and not _crosses(boxes[key], boxes[shape], tol):
                return (f"{file}: {target.key}: this edit puts text {key} across the border of shape {shape} "
                        "(compose check: overlap; put it inside or outside, or list the pair in [check] "
                        "allow_overlap); nothing was written")
    return None


def _crosses(text: Box, shape: Box, tol: float) -> bool:
    """A text's box meets a shape's by more than ``tol`` both ways without lying inside it (the check's "text
    crosses the border of a shape", measured here on the text's box, not its ink)."""
    w = min(text[0] + text[2], shape[0] + shape[2]) - max(text[0], shape[0])
    h = min(text[1] + text[3], shape[1] + shape[3]) - max(text[1], shape[1])
    inside = (text[0] >= shape[0] - tol and text[1] >= shape[1] - tol and text[0] + text[2] <= shape[0] + shape[2] + tol
              and text[1] + text[3] <= shape[1] + shape[3] + tol)
    return w > tol and h > tol and not inside


def boxes_of(elements: Sequence[Mapping[str, object]]) -> dict[str, Box]:
    """Check key -> box of each element of ``elements.json`` that has both."""
    out: dict[str, Box] = {}
    for e in elements:
        key, box = e.get("check_key"), e.get("box_pt")
        if isinstance(key, str) and key and isinstance(box, list) and len(box) == 4:
            out[key] = (float(box[0]), float(box[1]), float(box[2]), float(box[3]))
    return out
