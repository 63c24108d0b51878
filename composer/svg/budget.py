"""Drawing work: how much an SVG costs the engine that exports it, counted before it is exported.

An imported file may be small and still ask for hours of drawing (``<use>`` of ``<use>``: a "use
bomb"), or large and honest (a 20,000-point scatter). What the export engine spends its time on is
not the file's size but what it draws after every reference is expanded: each element once per
time it is drawn, and each of its vertices (a path is flattened, stroked and filled segment by
segment). :func:`element_work` is that cost of one element, in *work units*:

    1 per element, plus its vertices: ``d``/``points`` tokens / 2 (a curve's control points
    count), 4 for a rect, circle or ellipse, 2 for a line, 10 per character of
    text (a glyph outline is a few dozen segments; matplotlib's glyphs are paths and counted as such).

Calibration (``benchmarks/use_budget.py``; docs/design.md "Budgets"): the resvg engine exporting
PDF and PNG of a 100 x 100 pt canvas at 300 dpi spends 2 to 11 microseconds per work unit on this
project's 2-core machine under a load average of 7.5 (filled rects and ``<use>`` chains about 2.5,
thin stroked 10-vertex paths 8 to 11); PNG time grows about linearly with the dpi (100 dpi 0.17 s,
300 dpi 1.1 s, 600 dpi 2.4 s for the same paths). So :data:`MAX_FIGURE_WORK` (2,000,000) is at
most about 22 s at 300 dpi and 45 s at 600 dpi, inside the export timeout (120 s,
``composer.sandbox.isolate.DEFAULT_TIMEOUT_S``); :data:`MAX_FILE_WORK` (1,500,000) bounds one
imported file when it is read, and two accepted files that together pass the figure's budget are
refused as a figure, naming both, before any export starts. (The previous budget, 250,000
elements each counted 1, let a file of 90,000 many-vertex paths through: 43 s per export.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lxml import etree

#: work units one imported file may expand to (with the SVG images inlined into it).
MAX_FILE_WORK = 1_500_000
#: work units the whole composed canvas may expand to: what one export draws.
MAX_FIGURE_WORK = 2_000_000
#: work of one character of ``<text>``.
TEXT_CHAR_WORK = 10

_URL = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
_FIXED = {"rect": 4, "circle": 4, "ellipse": 4, "line": 2}
#: paint servers: what they draw is cheap whatever refers to them (gradients and their stops).
_PAINTS = frozenset({"linearGradient", "radialGradient", "stop"})
#: elements drawn only where something references them, never where they stand: their content counts once
#: per reference (through it), not as a child of their parent (SVG 2, 5.3 and the chapters of each)
NOT_IN_PLACE = frozenset({"defs", "symbol", "marker", "pattern", "clipPath", "mask", "filter"})


def _local(el: etree._Element) -> str:
    return el.tag.rpartition("}")[2] if isinstance(el.tag, str) else ""


def vertices(el: etree._Element) -> int:
    """The vertices of a shape, about: the tokens of ``d``/``points`` between spaces and commas, / 2
    (0 without). Within a few percent of the numbers / 2 for what editors and matplotlib write (a
    command letter is a token, ``1-2`` one), and 8 times faster than matching numbers: it runs over
    every path of the canvas in each build."""
    text = el.get("d") or el.get("points") or ""
    return len(text.replace(",", " ").split()) // 2 if text else 0


def element_work(el: etree._Element) -> int:
    """The work units of drawing ``el`` once, its children and references not included (module docstring)."""
    local = _local(el)
    if local in _FIXED:
        return 1 + _FIXED[local]
    if local in ("text", "tspan", "textPath"):
        return 1 + TEXT_CHAR_WORK * len((el.text or "").strip())
    return 1 + vertices(el)


def _references(el: etree._Element) -> list[tuple[str, int]]:
    """(target id, times) for every ``#id`` reference of ``el``: hrefs, and ``url(#id)`` in any
    attribute (a marker once per vertex, at most: start, mid and end)."""
    refs: list[tuple[str, int]] = []
    for attr, value in el.attrib.items():
        name = attr.rpartition("}")[2]
        if name == "href":
            if value.startswith("#"):
                refs.append((value[1:], 1))
        elif "url(" in value:
            for match in _URL.finditer(value):
                marker = "marker" in name or (name == "style" and "marker" in value)
                refs.append((match.group(2), vertices(el) + 1 if marker else 1))
    return refs


#: a step of :func:`expand`'s walk: (element, its successors, the next one's index, its work so far)
Frame = tuple[etree._Element, Sequence[Sequence[Any]], int, int]


def expand(start: etree._Element, successors: Callable[[etree._Element], Sequence[Sequence[Any]]],
           cost: dict[int, int], *, limit: int | None = None,
           on_cycle: Callable[[list[Frame], etree._Element], None] | None = None) -> None:
    """Fill ``cost`` (``id(element)`` -> its expanded work) for ``start`` and all it draws: its own
    :func:`element_work` plus, for each ``(element, times, ...)`` of ``successors(el)`` (children and
    references), ``times`` the successor's. An iterative post-order walk with memoization: linear in elements
    plus references, and documents nest deeper than Python's recursion limit. The caller keeps every element's
    proxy alive meanwhile (lxml reuses a freed proxy's ``id()``).

    Args:
        limit: totals are capped at ``limit + 1`` (None: not capped), so a use bomb's stay small numbers.
        on_cycle: called with the walk's frames and the successor already on them (a reference cycle); it may
            raise. Without it, or when it returns, that successor counts nothing there (viewers draw a cyclic
            reference as nothing).
    """
    def capped(total: int) -> int:
        return total if limit is None else min(limit + 1, total)

    stack: list[Frame] = [(start, successors(start), 0, element_work(start))]
    on_path = {id(start)}
    while stack:
        el, succ, index, total = stack[-1]
        if index < len(succ):
            child, times = succ[index][0], succ[index][1]
            stack[-1] = (el, succ, index + 1, total)
            key = id(child)
            if key in cost:
                stack[-1] = (el, succ, index + 1, capped(total + times * cost[key]))
            elif key in on_path:
                if on_cycle is not None:
                    on_cycle(stack, child)
            else:
                on_path.add(key)
                stack.append((child, successors(child), 0, element_work(child)))
            continue
        stack.pop()
        on_path.discard(id(el))
        cost[id(el)] = total
        if stack:
            parent, psucc, pindex, ptotal = stack[-1]
            stack[-1] = (parent, psucc, pindex, capped(ptotal + psucc[pindex - 1][1] * total))


def canvas_work(root: etree._Element) -> tuple[int, dict[str, int]]:
    """The work of exporting the canvas ``root``: ``(total, {top-level element id: its work})``.

    Every element counts :func:`element_work`, each time it is drawn: where it stands, unless it is in
    :data:`NOT_IN_PLACE` (``<defs>``, ``<symbol>``, ...), and through every ``<use>``, marker and other
    reference to it, expanded (memoized: linear time in the document). An element inside a
    reference cycle counts once (viewers draw a cyclic reference as nothing).
    """
    # every element's proxy is kept alive while this runs: lxml reuses a freed proxy's id()
    elements = [el for el in root.iter() if isinstance(el.tag, str)]
    ids: dict[str, etree._Element] = {}
    for el in elements:
        ident = el.get("id")
        if ident and ident not in ids:
            ids[ident] = el
    cost: dict[int, int] = {}

    def successors(el: etree._Element) -> list[tuple[etree._Element, int]]:
        out = [(child, 1) for child in el if isinstance(child.tag, str) and _local(child) not in NOT_IN_PLACE]
        for target_id, times in _references(el):
            target = ids.get(target_id)
            if target is not None and _local(target) not in _PAINTS:
                out.append((target, times))
        return out

    expand(root, successors, cost)
    tops = {child.get("id", f"<{_local(child)}>"): cost[id(child)] for child in root
            if isinstance(child.tag, str) and id(child) in cost}  # defs and the like: counted where used
    return cost[id(root)], tops


def over_budget(root: etree._Element, names: Mapping[str, str], *, limit: int = MAX_FIGURE_WORK) -> str | None:
    """None when the canvas's work (:func:`canvas_work`) is within ``limit``, else one line naming
    the panels that cost most: ``names`` maps a top-level id (``panel-a``) to how a message names it
    (``panel 'a' (plot.svg)``). Gives the total, the limit, and each named part above 10 % of it."""
    total, tops = canvas_work(root)
    if total <= limit:
        return None
    ranked = sorted(((work, names.get(ident, ident)) for ident, work in tops.items()), reverse=True)
    heavy = [f"{who} {work:,}" for work, who in ranked if work >= total / 10] or [f"{ranked[0][1]} {ranked[0][0]:,}"]
    return (f"the canvas expands to {total:,} units of drawing work (elements and path vertices, every <use> "
            f"expanded), more than the {limit:,} one export may take: {', '.join(heavy)}; simplify or "
            "rasterize the heaviest panel (or split the figure)")
