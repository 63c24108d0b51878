"""A move or a resize written into the layout's TOML text as a person would have written it.

What is written (the element's table is :attr:`composer.edit.targets.Target.key`):

- placed by coordinates (``at = ["12mm", "3mm"]``): the ``at`` values;
- placed by an anchor (``at = "rgb.s"``), a relation (``right_of``...) or ``beside``: its ``offset``,
  added on the line after the placing key when absent (``offset = ["0mm", "1.5mm"]``);
- a resize: the ``size`` values, and the place moved so that the box's top-left lands where the edit
  says (the page sends the top-left's move in ``dx``/``dy``; an element anchored at ``center`` moves
  its anchor by half the change of size);
- a waypoint ``["x", "y"]``: its values; ``"b.n"``: written as ``{ at = "b.n", offset = [...] }``; a line,
  brace or bracket placed by its ``points``: each point so;
- a connector's label: ``label_pos`` (the fraction of the route's length nearest the label's new
  centre, to 0.01) and ``label_side`` when it crossed its line.

Each length keeps the unit it is written in; a new ``offset`` takes the unit of the element's
``size`` when it has one, else of ``[figure] width``. Values are rounded to :data:`STEP` of their
unit: 0.1 mm, 0.01 cm, 0.01 in, 0.1 pt, 0.1 px (the finest step a person types, and never coarser
than the page's finest nudge, 0.1 mm, except in inches), and written without trailing zeros
(``"2mm"``, ``"-0.9mm"``). A component whose value does not change is not touched.

The edit is of the exact characters of the changed values (their spans found by
:mod:`composer.layout.positions`, the scanner the loader's messages use for lines): comments, key
order, quoting, spacing and every other byte of the file stay as they were. A value's own quotes
are kept (a basic or literal string's, or a multi-line one's three).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from composer.edit.targets import Target, anchor_fractions, raw_table
from composer.errors import ComposerError
from composer.layout.model import Figure
from composer.layout.positions import key_positions, value_end
from composer.units import MAX_LENGTH_PT, PT_PER_UNIT, say, to_pt, unit_of

#: the step each unit's values are rounded to (in that unit)
STEP: dict[str, float] = {"mm": 0.1, "cm": 0.01, "in": 0.01, "pt": 0.1, "px": 0.1}
#: the step of ``label_pos`` (a fraction of the route's length)
LABEL_POS_STEP = 0.01


class Refused(ComposerError):
    """An edit that cannot be written (the element is placed by a cell, has no size, the change
    rounds to nothing...); the message says why, in one line."""


@dataclass(frozen=True)
class Change:
    """What an edit changed: ``key`` (``text[3].offset``), its ``line`` in the new text (from 1), and
    the value as written ``before`` and ``after`` (``'["0mm", "2mm"]'``; ``before`` is "" for a key
    the edit added); ``all``: every key the edit wrote, this one first, each as its own Change (a resize
    writes ``size`` and ``at``, a label's move ``label_pos`` and ``label_side``)."""

    key: str
    line: int
    before: str
    after: str
    all: tuple[Change, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"key_path": self.key, "line": self.line, "before": self.before, "after": self.after}


def written_length(length_pt: float, unit: str, *, key: str | None = None) -> str:
    """``length_pt`` in ``unit``, rounded to :data:`STEP`, as a person writes it: ``"1.5mm"``, ``"-2mm"``, ``"0mm"``.

    Raises:
        Refused: ``length_pt`` is not finite or larger than the loader accepts
            (:data:`composer.units.MAX_LENGTH_PT`); the message says it to 6 significant digits, and names
            ``key`` (the value's key path) when given.
    """
    step = STEP.get(unit, 0.1)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    if not (math.isfinite(length_pt) and abs(length_pt) <= MAX_LENGTH_PT):
        raise Refused(f"the edit makes a length of {length_pt / PT_PER_UNIT[unit]:.6g} {unit}; lengths are at "
                      f"most {say(MAX_LENGTH_PT, unit)}", key=key)
    number = round(length_pt / PT_PER_UNIT[unit] / step) * step
    text = f"{number:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        text = "0"
    return f"{text}{unit}"


class _Text:
    """The layout's text with its keys' offsets, and edits collected to apply at once."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [n + 1 for n, c in enumerate(text) if c == "\n"]
        self.positions = key_positions(text)
        self.edits: list[tuple[int, int, str]] = []  # (start, end, new text)

    def offset(self, key: str) -> int | None:
        found = self.positions.get(key)
        return None if found is None else self.starts[found[0] - 1] + found[1] - 1

    def value_span(self, key: str) -> tuple[int, int]:
        """The characters of ``key``'s value: an array element's own (``size[0]``), else what follows ``=``."""
        at = self.offset(key)
        if at is None:
            raise Refused(f"{key} is not written in the layout")
        if not key.endswith("]") or self.text[at] not in "\"'[{-+0123456789":
            at = self.text.index("=", at) + 1
            while self.text[at] in " \t":
                at += 1
        elif key.endswith("]") and self.text[at].isalpha():  # a [[table]] header: not an array element
            raise Refused(f"{key} is not a value")
        end = value_end(self.text, at)
        while end > at and self.text[end - 1] in " \t\r\n":
            end -= 1
        return at, end

    def value(self, key: str) -> str:
        start, end = self.value_span(key)
        return self.text[start:end]

    def replace(self, key: str, new: str) -> None:
        start, end = self.value_span(key)
        self.edits.append((start, end, new))

    def insert_after(self, key: str, line: str) -> None:
        """Add ``line`` (a ``key = value``) on the line after the one where ``key``'s value ends, with
        ``key``'s indentation.

        Raises:
            Refused: ``key`` is not the first thing on its line (an inline table, a dotted key).
        """
        at = self.offset(key)
        if at is None:
            raise Refused(f"{key} is not written in the layout")
        start = self.starts[self.positions[key][0] - 1]
        indent = self.text[start:at]
        if indent.strip():
            raise Refused(f"{key} is written inside an inline table or as a dotted key; add the key by hand: {line}")
        _, end = self.value_span(key)
        newline = self.text.find("\n", end)
        eol = "\r\n" if newline > 0 and self.text[newline - 1] == "\r" else "\n"  # the file's own line ends
        if newline < 0:
            self.edits.append((len(self.text), len(self.text), f"{eol}{indent}{line}{eol}"))
        else:
            self.edits.append((newline + 1, newline + 1, f"{indent}{line}{eol}"))

    def result(self) -> str:
        out = self.text
        # from the end back, so offsets hold; two insertions at one place keep the order they were made in
        for _, (start, end, new) in sorted(enumerate(self.edits), key=lambda e: (e[1][0], e[0]), reverse=True):
            out = out[:start] + new + out[end:]
        return out


def _string(written: str) -> tuple[str, str]:
    """A TOML string as written -> (its quotes: a basic or literal string's quote character, or a
    multi-line string's three), its value)."""
    value = tomllib.loads(f"k = {written}")["k"]
    if not isinstance(value, str):
        raise Refused(f"{written} is not a length")
    return (written[:3] if written[:3] in ('"' * 3, "'" * 3) else written[0]), value


def _shift_length(doc: _Text, key: str, delta_pt: float, *, positive: bool = False) -> bool:
    """Add ``delta_pt`` to the length at ``key`` (an array element), in its own unit and quotes; False
    when the rounded value is what is written (nothing changed)."""
    written = doc.value(key)
    quote, value = _string(written)
    unit = unit_of(value)
    old_pt = to_pt(value, key=key, allow_negative=True)
    found = doc.positions.get(key)
    try:
        new = written_length(old_pt + delta_pt, unit, key=key)
    except Refused as exc:
        exc.line, exc.column = found if found is not None else (None, None)
        raise
    new_pt = float(new.removesuffix(unit)) * PT_PER_UNIT[unit]  # the loader says whether it is too large
    if positive and new_pt <= 0:
        raise Refused(f"{key} = {written} would become {new}; a size must stay above zero")
    if math.isclose(new_pt, old_pt, abs_tol=1e-9):
        return False
    doc.replace(key, f"{quote}{new}{quote}")
    return True


def _pair(values: Sequence[str], quote: str) -> str:
    return "[" + ", ".join(f"{quote}{v}{quote}" for v in values) + "]"


def _quote_of(doc: _Text, key: str) -> str:
    try:
        written = doc.value(key)
    except Refused:
        return '"'
    return written[0] if written[:1] in ("'", '"') else '"'


def _move(doc: _Text, raw: Mapping[str, Any], figure: Figure, target: Target, dx_pt: float, dy_pt: float) -> str:
    """Write a move of the element's place by (``dx_pt``, ``dy_pt``); returns the key written ("" for none)."""
    key, table = target.key, raw_table(raw, target.key)
    if dx_pt == 0 and dy_pt == 0:
        return ""
    if target.how == "at":
        changed = [_shift_length(doc, f"{key}.at[{i}]", d) for i, d in enumerate((dx_pt, dy_pt)) if d]
        return f"{key}.at" if any(changed) else ""
    if target.how == "points":
        points = table.get("points") if isinstance(table, Mapping) else None
        written = [_point(doc, raw, figure, f"{key}.points[{i}]", dx_pt, dy_pt) for i in range(len(points or []))]
        return f"{key}.points" if any(written) else ""
    if target.how != "offset":
        raise Refused(_not_movable(target))
    offset = table.get("offset") if isinstance(table, Mapping) else None
    if isinstance(offset, list) and len(offset) == 2 and all(isinstance(v, str) for v in offset):
        changed = [_shift_length(doc, f"{key}.offset[{i}]", d) for i, d in enumerate((dx_pt, dy_pt)) if d]
        return f"{key}.offset" if any(changed) else ""
    if offset is not None:
        raise Refused(f"{key}.offset is not written as [\"x\", \"y\"]; change it by hand")
    size = table.get("size") if isinstance(table, Mapping) else None
    unit = unit_of(size[0]) if isinstance(size, list) and size and isinstance(size[0], str) else figure.spec.unit
    unit = unit if unit in PT_PER_UNIT else "mm"
    values = [written_length(dx_pt, unit), written_length(dy_pt, unit)]
    if all(to_pt(v, allow_negative=True) == 0 for v in values):
        return ""
    placing = next(k for k in ("at", "right_of", "left_of", "above", "below", "beside") if k in table)
    doc.insert_after(f"{key}.{placing}", f"offset = {_pair(values, _quote_of(doc, f'{key}.{placing}'))}")
    return f"{key}.offset"


def _not_movable(target: Target) -> str:
    if target.how == "cell":
        return (f"{target.key} is placed by a grid cell ({target.key}.cell), which gives its whole box; move it to "
                "another cell, or place it with at or a relation")
    return f"{target.key} has no at, relation or offset a move could change; move it by hand"


def _resize(doc: _Text, target: Target, dw_pt: float, dh_pt: float) -> bool:
    if not target.resizable:
        if target.how == "cell":
            raise Refused(_not_movable(target))
        raise Refused(f"{target.key} has no size = [width, height] to change"
                      + (" (a text's size is its font's)" if target.kind == "text" else ""))
    changed = [_shift_length(doc, f"{target.key}.size[{i}]", d, positive=True)
               for i, d in enumerate((dw_pt, dh_pt)) if d]
    return any(changed)


def _waypoint(doc: _Text, raw: Mapping[str, Any], figure: Figure, target: Target, dx_pt: float,
              dy_pt: float) -> str:
    return _point(doc, raw, figure, target.key, dx_pt, dy_pt)


def _point(doc: _Text, raw: Mapping[str, Any], figure: Figure, key: str, dx_pt: float, dy_pt: float) -> str:
    """Move the point written at ``key`` (``["x", "y"]``, ``"b.n"`` or ``{ at, offset }``); the key written."""
    value = raw_table(raw, key)
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        changed = [_shift_length(doc, f"{key}[{i}]", d) for i, d in enumerate((dx_pt, dy_pt)) if d]
        return key if any(changed) else ""
    unit = figure.spec.unit if figure.spec.unit in PT_PER_UNIT else "mm"
    if isinstance(value, str):
        values = [written_length(dx_pt, unit), written_length(dy_pt, unit)]
        if all(to_pt(v, allow_negative=True) == 0 for v in values):
            return ""
        quote = _quote_of(doc, key)
        doc.replace(key, f"{{ at = {doc.value(key)}, offset = {_pair(values, quote)} }}")
        return key
    if isinstance(value, Mapping) and isinstance(value.get("offset"), list) and len(value["offset"]) == 2:
        changed = [_shift_length(doc, f"{key}.offset[{i}]", d) for i, d in enumerate((dx_pt, dy_pt)) if d]
        return f"{key}.offset" if any(changed) else ""
    raise Refused(f"{key} is not written as [\"x\", \"y\"], \"element.anchor\" or {{ at, offset }}; move it by hand")


def nearest_on_route(points: Sequence[tuple[float, float]], p: tuple[float, float]
                     ) -> tuple[float, tuple[float, float], tuple[float, float]]:
    """The point of the polyline ``points`` (pt) nearest ``p``: (its fraction of the length, the point,
    the unit direction of travel there)."""
    segments = [(a, b, math.hypot(b[0] - a[0], b[1] - a[1])) for a, b in zip(points, points[1:])]
    segments = [s for s in segments if s[2] > 0]
    if not segments:
        return 0.5, points[0], (1.0, 0.0)
    total = sum(s[2] for s in segments)
    best: tuple[float, float, tuple[float, float], tuple[float, float]] | None = None
    along = 0.0
    for a, b, length in segments:
        ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
        t = min(max((p[0] - a[0]) * ux + (p[1] - a[1]) * uy, 0.0), length)
        foot = (a[0] + ux * t, a[1] + uy * t)
        distance = math.hypot(p[0] - foot[0], p[1] - foot[1])
        if best is None or distance < best[0] - 1e-9:
            best = (distance, (along + t) / total, foot, (ux, uy))
        along += length
    assert best is not None
    return best[1], best[2], best[3]


def _label(doc: _Text, raw: Mapping[str, Any], target: Target, dx_pt: float, dy_pt: float,
           box_pt: Sequence[float] | None, route_pt: Sequence[Sequence[float]] | None) -> list[str]:
    """A connector's label moved: the ``label_pos`` and ``label_side`` nearest its new centre."""
    if box_pt is None or not route_pt or len(route_pt) < 2:
        raise Refused(f"{target.key}'s label has no drawn box or route to move from")
    table = raw_table(raw, target.key)
    centre = (box_pt[0] + box_pt[2] / 2 + dx_pt, box_pt[1] + box_pt[3] / 2 + dy_pt)
    fraction, foot, (ux, uy) = nearest_on_route([(float(x), float(y)) for x, y in route_pt], centre)
    fraction = round(round(fraction / LABEL_POS_STEP) * LABEL_POS_STEP, 2)
    vx, vy = centre[0] - foot[0], centre[1] - foot[1]
    left = (uy, -ux)  # left of travel on the page (y down): composer.stages.draw.label_normal
    side_now = table.get("label_side", "above") if isinstance(table, Mapping) else "above"
    if side_now in ("left", "right"):
        side = "left" if vx * left[0] + vy * left[1] >= 0 else "right"
    else:
        up = left if (left[1] < 0 or left[1] == 0 and left[0] < 0) else (-left[0], -left[1])
        side = "above" if vx * up[0] + vy * up[1] >= 0 else "below"
    written: list[str] = []
    pos_text = f"{fraction:.2f}".rstrip("0")
    pos_text = pos_text + "0" if pos_text.endswith(".") else pos_text
    if "label_pos" in table:
        if not math.isclose(float(table["label_pos"]), fraction, abs_tol=1e-9):
            doc.replace(f"{target.key}.label_pos", pos_text)
            written.append(f"{target.key}.label_pos")
    elif not math.isclose(fraction, 0.5, abs_tol=1e-9):
        doc.insert_after(f"{target.key}.label", f"label_pos = {pos_text}")
        written.append(f"{target.key}.label_pos")
    if side != side_now:
        if "label_side" in table:
            quote = _quote_of(doc, f"{target.key}.label_side")
            doc.replace(f"{target.key}.label_side", f"{quote}{side}{quote}")
        else:
            doc.insert_after(f"{target.key}.label", f'label_side = "{side}"')
        written.append(f"{target.key}.label_side")
    return written


def unit_written(table: Any, how: str, figure_unit: str) -> str:
    """The unit a move of an element placed ``how`` writes in its raw ``table``: the unit of its ``at``
    (coordinates) or ``offset`` values, else of its ``size``, else ``figure_unit`` (``[figure] width``'s)."""
    keys = ("at",) if how == "at" else ("offset", "size") if how == "offset" else ("size",)
    for key in keys:
        value = table.get(key) if isinstance(table, Mapping) else None
        if isinstance(value, list) and value and isinstance(value[0], str):
            unit = unit_of(value[0])
            if unit in PT_PER_UNIT:
                return unit
    return figure_unit if figure_unit in PT_PER_UNIT else "mm"


def plan(text: str, figure: Figure, target: Target, *, dx_pt: float = 0.0, dy_pt: float = 0.0,
         dw_pt: float = 0.0, dh_pt: float = 0.0, box_pt: Sequence[float] | None = None,
         route_pt: Sequence[Sequence[float]] | None = None) -> tuple[str, Change]:
    """The layout's new text after moving (and resizing) ``target``.

    Args:
        text: the layout file's text (TOML, as on disk). figure: it loaded (anchors, the width's unit).
        target: the element (:func:`composer.edit.targets.targets` of ``figure``).
        dx_pt, dy_pt: the move of the box's top-left (canvas pt, y down). dw_pt, dh_pt: the change of its
            width and height (a resize; 0 for a move).
        box_pt: the element's box as drawn ``[x, y, w, h]`` (a connector's label: where it is now).
        route_pt: a connector's route as drawn, ``[[x, y], ...]`` (for its label).

    Returns:
        ``(new_text, change)``: the text with only the changed values' characters different, and the
        first key it changed (``change.all``: every key it changed).

    Raises:
        Refused: nothing a move could write (a cell, no size, an inline table), a size that would
            reach zero, a change that rounds to no change at :data:`STEP`, a move not finite or larger
            than :data:`composer.units.MAX_LENGTH_PT`, or a length it writes past that limit.
    """
    raw = tomllib.loads(text)
    doc = _Text(text)
    if not all(math.isfinite(v) for v in (dx_pt, dy_pt, dw_pt, dh_pt)):
        raise Refused("the move is not a finite number of points")
    if not all(abs(v) <= MAX_LENGTH_PT for v in (dx_pt, dy_pt, dw_pt, dh_pt)):  # no length could hold it
        largest = max((dx_pt, dy_pt, dw_pt, dh_pt), key=abs)
        raise Refused(f"the edit moves by {largest:.6g} pt; lengths are at most {say(MAX_LENGTH_PT)}")
    if target.kind == "waypoint":
        keys = [_waypoint(doc, raw, figure, target, dx_pt, dy_pt)]
    elif target.kind == "label":
        keys = _label(doc, raw, target, dx_pt, dy_pt, box_pt, route_pt)
    else:
        sized = ""
        if dw_pt or dh_pt:
            fx, fy = anchor_fractions(target.anchor)
            sized = f"{target.key}.size" if _resize(doc, target, dw_pt, dh_pt) else ""
            dx_pt, dy_pt = dx_pt + fx * dw_pt, dy_pt + fy * dh_pt
        keys = [sized, _move(doc, raw, figure, target, dx_pt, dy_pt)]
    keys = [k for k in keys if k]
    if not keys or not doc.edits:
        steps = ", ".join(f"{v:g} {u}" for u, v in STEP.items())
        raise Refused(f"the edit of {target.key} rounds to no change (lengths are written to {steps})")
    new_text = doc.result()
    after = _Text(new_text)
    changes = tuple(Change(key, after.positions.get(key, (1, 1))[0], doc.value(key) if key in doc.positions else "",
                           after.value(key)) for key in keys)
    first = changes[0]
    return new_text, Change(first.key, first.line, first.before, first.after, changes)
