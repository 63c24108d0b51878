"""Drawing work: how long the export engine will take to draw an SVG, estimated before it is exported.

An imported file may be small and still ask for hours of drawing (``<use>`` of ``<use>``: a "use
bomb"), or large and honest (a 100,000-point scatter). What the export engine spends its time on is
not the file's size but what it draws after every reference is expanded: each element once per
time it is drawn, and each of its vertices (a path is flattened, stroked and filled segment by
segment). The unit of *work* is one microsecond of the engine's CPU time (the resvg engine drawing the
PNG at 300 dpi and the PDF, both together, on this project's 2-core machine). :func:`element_work` is that
cost of one element:

    :data:`ELEMENT_WORK` per element, plus :data:`VERTEX_WORK` per vertex (:func:`vertices`: ``d``/``points``
    tokens / 2, a cubic curve's two control points not counted), 2 vertices for a rect or a line, 4 for a
    circle or ellipse, and :data:`TEXT_CHAR_WORK` per character of text (matplotlib's glyphs are paths and
    counted as such).

Calibration (``benchmarks/use_budget.py``, which prints the units against the seconds the engine takes for
real and hostile files; docs/design.md "Budgets"): the constants are the costliest kind of each measured
(thin stroked polylines for a vertex, ``<use>`` chains for an element, short text lines for a character), so
the estimate is within 0.95 to 3.6 times the engine's CPU time for what was measured (a matplotlib scatter's
tiny markers and small rects are over-counted most). :data:`MAX_FIGURE_WORK` is 30 s
of that estimate: a figure the engine draws in 10 s of CPU time or less (under 10 s wall on 2 cores, the
PDF and PNG drawn side by side) is never refused, and an accepted one takes at most about 30 s of CPU,
a quarter of the export timeout (120 s, ``composer.sandbox.isolate.DEFAULT_TIMEOUT_S``): the margin for
a loaded machine, where the wall time was up to 3 times the CPU time measured. The element work grows
with the PNG's dpi above 300 (linearly, as measured: 1.1 s at 300 dpi, 2.4 s at 600 for the same paths).
:data:`MAX_FILE_WORK` bounds one imported file when it is read, and two accepted files that together
pass the figure's budget are refused as a figure, naming both, before any export starts.

Filters (:func:`filter_work`) cost what the engine does per pixel of the filter region, at the build's dpi for
the PNG and at 300 dpi for the PDF (svg2pdf rasterizes a filtered element at about 4 px/pt whatever the PNG's
dpi), one work unit per :data:`NS_PER_UNIT` (1 us) of the CPU time measured per pixel (:data:`FILTER_NS`). They
are counted where the canvas is composed (the panel's size and the dpi are known there), not when a file is read.

The PNG's own pixels count :data:`CANVAS_PIXEL_NS` each (a poster-sized canvas at 600 dpi is seconds of work
before anything is drawn on it), and a rect, image, circle or ellipse the pixels it covers, :data:`FILL_PIXEL_NS`
each (:func:`_fill_work`: 2,000 full-canvas rects took 1.3 s at 300 dpi on a 100 pt canvas, and counted 26,005
units before, 1,244,353 now).

Not modelled (each a known way to take longer than estimated): the pixels a large filled *path* covers
(its extent is not read), raster images (decoding, resampling), a ``<use>`` that scales what it draws (the
pixels are taken where the shape stands), and a single path of tens of thousands of crossing segments (a
noisy 100,000-point line: 9 s of PNG for 600,014 units; the rasterizer's cost per segment grows with the
segments of the same path).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree

from composer.svg.css import StyleSheet, declarations
from composer.svg.geometry import BBox, map_bbox, points_bbox, union
from composer.svg.measure import shape_points
from composer.svg.transform import IDENTITY, Matrix, axis_scales, multiply, parse_transform, translation

#: work units (us of engine CPU time, the PNG at 300 dpi and the PDF) one imported file may expand to (with the
#: SVG images inlined into it): 25 s
MAX_FILE_WORK = 25_000_000
#: work units the whole composed canvas may expand to, what one export draws (module docstring): 30 s
MAX_FIGURE_WORK = 30_000_000
#: work of drawing one element, whatever it is: 100,000 ``<use>`` of a group of 100 uses of a rect took 0.94 s
#: (4.7 us an element, ``benchmarks/use_budget.py``)
ELEMENT_WORK = 5
#: work of one vertex of a path, polyline or polygon: thin stroked 10-vertex polylines, 3.4 to 3.9 us a vertex
VERTEX_WORK = 4
#: work of one character of ``<text>``: 2,000 lines of 15 characters took 0.74 s (25 us a character)
TEXT_CHAR_WORK = 25

_URL = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
#: vertices of the shapes without ``d``/``points``
_FIXED = {"rect": 2, "circle": 4, "ellipse": 4, "line": 2}
#: paint servers: what they draw is cheap whatever refers to them (gradients and their stops).
_PAINTS = frozenset({"linearGradient", "radialGradient", "stop"})
#: elements drawn only where something references them, never where they stand: their content counts once
#: per reference (through it), not as a child of their parent (SVG 2, 5.3 and the chapters of each)
NOT_IN_PLACE = frozenset({"defs", "symbol", "marker", "pattern", "clipPath", "mask", "filter"})


class _Uses:
    """Stands, in :func:`_canvas_work`'s walk, for an element's plain ``<use>`` children counted together."""


#: an element with this many children or more has its plain ``<use>`` children counted in one pass
_MANY_CHILDREN = 256
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_USE_TAG = "{http://www.w3.org/2000/svg}use"
#: tag -> its local name (a canvas has a few dozen tags and hundreds of thousands of elements)
_LOCAL_NAMES: dict[Any, str] = {}


def _local(el: etree._Element) -> str:
    tag = el.tag
    local = _LOCAL_NAMES.get(tag)
    if local is None:
        local = tag.rpartition("}")[2] if isinstance(tag, str) else ""
        if len(_LOCAL_NAMES) < 4096:
            _LOCAL_NAMES[tag] = local
    return local


def vertices(el: etree._Element) -> int:
    """The vertices of a shape, about: the tokens of ``d``/``points`` between spaces and commas, / 2, less two
    for each cubic curve and one for each quadratic or smooth one (``C``/``S``/``Q`` letters: their control
    points are not vertices the rasterizer walks; a curve written without its letter, implicitly repeated, keeps
    its control points counted), 0 without; numbers glued by their signs (``1-2``) or points (``.5.5``) count
    one each. Within a few percent of the segments for what editors and matplotlib
    write (a command letter is a token, ``1-2`` one), and much faster than matching numbers: it runs over every
    path of the canvas in each build."""
    text = el.get("d")
    if text:
        spaced = text.replace(",", " ")
        # a sign inside a token starts a number of its own (``12.3-45``: two; an exponent's sign aside); more
        # such signs than tokens, or more points than numbers (``.5.5``), is a path written compactly, whose
        # numbers are then counted one by one. A path written with no separator at all (``M0-0L12.3-45L...``,
        # 100,000 segments used 40 times) was one vertex, and took 22 s of CPU to draw while the budget saw 40
        # elements
        split = len(spaced.split())
        glued = spaced.count("-") + spaced.count("+") - spaced.count(" -") - spaced.count(" +") \
            - spaced.count("e-") - spaced.count("E-") - spaced.count("e+") - spaced.count("E+")
        numbers = split + glued
        if glued > split or spaced.count(".") > numbers:  # written compactly: letters glued to numbers too
            numbers = len(_NUMBER.findall(text))
        tokens = numbers // 2
        curves = 2 * (text.count("C") + text.count("c")) + text.count("S") + text.count("s") + text.count("Q") \
            + text.count("q")
        return max(tokens - curves, 1)
    text = el.get("points")
    return len(text.replace(",", " ").split()) // 2 if text else 0


def element_work(el: etree._Element) -> int:
    """The work units of drawing ``el`` once, its children and references not included (module docstring)."""
    local = _local(el)
    if local in _FIXED:
        return ELEMENT_WORK + VERTEX_WORK * _FIXED[local]
    if local in ("text", "tspan", "textPath"):
        return ELEMENT_WORK + TEXT_CHAR_WORK * len((el.text or "").strip())
    return ELEMENT_WORK + VERTEX_WORK * vertices(el)


def _references(el: etree._Element) -> list[tuple[str, int]]:
    """(target id, times) for every ``#id`` reference of ``el``: hrefs, and ``url(#id)`` in any
    attribute (a marker once per vertex, at most: start, mid and end)."""
    refs: list[tuple[str, int]] = []
    for attr, value in el.items():
        if attr.endswith("href") and (len(attr) == 4 or attr[-5] == "}"):
            if value.startswith("#"):
                refs.append((value[1:], 1))
        elif "url(" in value:
            name = attr.rpartition("}")[2]
            for match in _URL.finditer(value):
                marker = "marker" in name or (name == "style" and "marker" in value)
                refs.append((match.group(2), vertices(el) + 1 if marker else 1))
    return refs


#: a step of :func:`expand`'s walk: (element, its successors, the next one's index, its work so far)
Frame = tuple[etree._Element, Sequence[Sequence[Any]], int, int]


def expand(start: etree._Element, successors: Callable[[etree._Element], Sequence[Sequence[Any]]],
           cost: dict[int, int], *, limit: int | None = None,
           on_cycle: Callable[[list[Frame], etree._Element], None] | None = None,
           own: Callable[[etree._Element], int] = element_work) -> None:
    """Fill ``cost`` (``id(element)`` -> its expanded work) for ``start`` and all it draws: its own
    work (``own``: :func:`element_work` unless given) plus, for each ``(element, times, ...)`` of
    ``successors(el)`` (children and references), ``times`` the successor's. An iterative post-order walk
    with memoization: linear in elements plus references, and documents nest deeper than Python's recursion
    limit. The caller keeps every element's proxy alive meanwhile (lxml reuses a freed proxy's ``id()``).

    Args:
        limit: totals are capped at ``limit + 1`` (None: not capped), so a use bomb's stay small numbers.
        on_cycle: called with the walk's frames and the successor already on them (a reference cycle); it may
            raise. Without it, or when it returns, that successor counts nothing there (viewers draw a cyclic
            reference as nothing).
    """
    def capped(total: int) -> int:
        return total if limit is None else min(limit + 1, total)

    stack: list[Frame] = [(start, successors(start), 0, own(start))]
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
                following, work = successors(child), own(child)
                if all(id(s[0]) in cost for s in following):  # a leaf, or a <use> of what is counted: no frame
                    for s in following:
                        work = capped(work + s[1] * cost[id(s[0])])
                    cost[key] = work
                    stack[-1] = (el, succ, index + 1, capped(total + times * work))
                else:
                    on_path.add(key)
                    stack.append((child, following, 0, work))
            continue
        stack.pop()
        on_path.discard(id(el))
        cost[id(el)] = total
        if stack:
            parent, psucc, pindex, ptotal = stack[-1]
            stack[-1] = (parent, psucc, pindex, capped(ptotal + psucc[pindex - 1][1] * total))


def canvas_work(root: etree._Element, *, dpi: float = 300.0) -> tuple[int, dict[str, int]]:
    """The work of exporting the canvas ``root``: ``(total, {top-level element id: its work})``.

    Every element counts :func:`element_work`, each time it is drawn: where it stands, unless it is in
    :data:`NOT_IN_PLACE` (``<defs>``, ``<symbol>``, ...), and through every ``<use>``, marker and other
    reference to it, expanded (memoized: linear time in the document). An element inside a
    reference cycle counts once (viewers draw a cyclic reference as nothing). An element drawn through a
    ``<filter>`` also counts the filter's pixel work (:func:`filter_work`) at ``dpi`` for the PNG and at
    :data:`PDF_FILTER_DPI` for the PDF; the root's user unit is taken as 1 pt (composer's canvas). Above 300 dpi
    the element work grows as ``dpi`` / 300 (:func:`dpi_factor`); the PNG's pixels count too
    (:func:`canvas_pixel_work`), in the total only.
    """
    total, tops, _ = _canvas_work(root, dpi)
    return total, tops


def canvas_pixel_work(root: etree._Element, dpi: float) -> int:
    """The work of the PNG's pixels themselves, whatever is drawn on them: :data:`CANVAS_PIXEL_NS` per pixel of the
    canvas (its ``viewBox``, else ``width``/``height``, taken in pt) at ``dpi``, 0 for a canvas of no known size."""
    canvas = _canvas_pt(root)
    if canvas is None:
        return 0
    pixels = math.ceil(canvas[0] * dpi / 72.0) * math.ceil(canvas[1] * dpi / 72.0)
    return math.ceil(pixels * CANVAS_PIXEL_NS / NS_PER_UNIT)


#: elements whose size is in their attributes: what they cover is counted (:func:`_fill_work`)
_SIZED = ("rect", "image", "circle", "ellipse")
_SVG = "{http://www.w3.org/2000/svg}"


def _det(m: Matrix) -> float:
    return abs(m[0] * m[3] - m[1] * m[2])


def _fill_work(root: etree._Element, dpi: float) -> dict[int, int]:
    """``id(element)`` -> the work of the PNG pixels it covers, for each rect, image, circle and ellipse covering a
    unit's worth or more: its area (``width`` x ``height``, the circle's or ellipse's box) under the transforms and
    nested ``<svg>`` viewBoxes from the root to where it stands (a ``<use>`` that scales it is not followed), at
    ``dpi``, at most the canvas's pixels, :data:`FILL_PIXEL_NS` each. Percentages are not resolved (not counted)."""
    canvas = _canvas_pt(root)
    if canvas is None:
        return {}
    scale2 = (dpi / 72.0) ** 2
    canvas_px = canvas[0] * canvas[1] * scale2
    dets: dict[int, float] = {}

    def own_det(node: etree._Element) -> float:
        try:
            det = _det(parse_transform(node.get("transform"))) if node.get("transform") else 1.0
        except ValueError:
            det = 1.0
        if node is not root and _local(node) == "svg":  # a nested viewport: its viewBox onto its size
            box, size = _numbers(node.get("viewBox")), (_numbers(node.get("width")), _numbers(node.get("height")))
            if len(box) == 4 and box[2] > 0 and box[3] > 0 and size[0] and size[1] \
                    and "%" not in (node.get("width") or "") + (node.get("height") or ""):
                det *= size[0][0] / box[2] * size[1][0] / box[3]
        return det

    def to_root(node: etree._Element) -> float:
        chain = []
        while node is not None and id(node) not in dets:
            chain.append(node)
            node = node.getparent()
        det = dets[id(node)] if node is not None else 1.0
        for step in reversed(chain):
            det *= own_det(step) if step is not root else 1.0
            dets[id(step)] = det
        return det

    out: dict[int, int] = {}
    for el in root.iter(*(_SVG + tag for tag in _SIZED)):
        kind = _local(el)
        if kind in ("rect", "image"):
            w, h = el.get("width") or "", el.get("height") or ""
            area = _first(w) * _first(h) if "%" not in w + h else 0.0
        elif kind == "circle":
            r = el.get("r") or ""
            area = 4 * _first(r) ** 2 if "%" not in r else 0.0
        else:
            rx, ry = el.get("rx") or "", el.get("ry") or ""
            area = 4 * _first(rx) * _first(ry) if "%" not in rx + ry else 0.0
        if area <= 0 or not math.isfinite(area):
            continue
        px = min(area * to_root(el) * scale2, canvas_px)
        units = int(px * FILL_PIXEL_NS / NS_PER_UNIT)
        if units:
            out[id(el)] = units
    return out


def dpi_factor(dpi: float) -> float:
    """How much more the element work of a canvas costs at ``dpi`` than at 300 (the calibration's): 1 at or below
    300 dpi (what does not grow with the pixels, parsing and the PDF, dominates there), ``dpi`` / 300 above (the
    PNG of thin stroked paths: 1.1 s at 300 dpi, 2.4 s at 600, ``benchmarks/use_budget.py``)."""
    return max(1.0, dpi / 300.0)


def _canvas_work(root: etree._Element, dpi: float, stop_at: int | None = None,
                 ) -> tuple[int, dict[str, int], dict[str, tuple[int, FilterCost]]]:
    """:func:`canvas_work` and, per top-level id drawing filters, ``(their work, the costliest one)``. With
    ``stop_at``, the filters are not costed, or not all, once the total is past it (it is then over budget)."""
    # every element's proxy is kept alive while this runs: lxml reuses a freed proxy's id()
    elements = list(root.iter(etree.Element))
    ids: dict[str, etree._Element] = {}
    for el in [root, *root.iterfind(".//*[@id]")]:  # document order: the first of an id is the one referenced
        ident = el.get("id")
        if ident and ident not in ids:
            ids[ident] = el
    cost: dict[int, int] = {}

    def successors(el: etree._Element) -> list[tuple[etree._Element, int, str]]:
        """(successor, times, how: ``child``, ``use`` for a ``<use>``'s target, ``ref`` for another reference)"""
        out = [(child, 1, "child") for child in el if _local(child) not in NOT_IN_PLACE and isinstance(child.tag, str)]
        if not el.attrib:
            return out
        for target_id, times in _references(el):
            target = ids.get(target_id)
            if target is not None and _local(target) not in _PAINTS:
                out.append((target, times, "use" if _local(el) == "use" and times == 1 else "ref"))
        return out

    uses_own = _Uses()  # stands for the plain <use> children of an element, counted together (below)
    cost[id(uses_own)] = ELEMENT_WORK  # a <use>'s own work: no vertices

    def work_successors(el: etree._Element) -> list[tuple[Any, int, str]]:
        """:func:`successors`, with the plain ``<use>`` children of an element of many children (a scatter's
        100,000 markers) counted by target, in one pass instead of one step of the walk each: a ``<use>`` with no
        child, no ``d``/``points``, one href and no ``url()`` in any attribute draws its target plus its own work."""
        if el is root or len(el) < _MANY_CHILDREN:
            return successors(el)
        out: list[tuple[Any, int, str]] = []
        targets: dict[str, int] = {}
        plain = 0
        for child in el:
            if child.tag == _USE_TAG and not len(child):
                xlink, href = child.get(_XLINK_HREF), child.get("href")
                if (xlink is None) != (href is None) and child.get("d") is None and child.get("points") is None \
                        and "url(" not in " ".join(child.values()):
                    link = xlink or href or ""
                    targets[link] = targets.get(link, 0) + 1
                    plain += 1
                    continue
            if _local(child) not in NOT_IN_PLACE and isinstance(child.tag, str):
                out.append((child, 1, "child"))
        if plain:
            out.append((uses_own, plain, "uses"))
        for link, count in targets.items():
            target = ids.get(link[1:]) if link.startswith("#") else None
            if target is not None and _local(target) not in _PAINTS:
                out.append((target, count, "use"))
        for target_id, times in _references(el) if el.attrib else ():
            target = ids.get(target_id)
            if target is not None and _local(target) not in _PAINTS:
                out.append((target, times, "ref"))
        return out

    # the work below is scaled by dpi_factor; the pixels a shape covers are counted at ``dpi`` already, so they
    # enter divided by it (scaled twice, a 100 mm canvas at 7600 dpi counted 25 times its pixels' work)
    factor = dpi_factor(dpi)
    fill = {key: math.ceil(work / factor) for key, work in _fill_work(root, dpi).items()}
    expand(root, work_successors, cost,
           own=(lambda el: element_work(el) + fill.get(id(el), 0)) if fill else element_work)

    def top_id(child: etree._Element) -> str:
        return child.get("id", f"<{_local(child)}>")

    tops = {top_id(child): math.ceil(cost[id(child)] * factor) for child in root
            if isinstance(child.tag, str) and id(child) in cost}  # defs and the like: counted where used
    total = math.ceil(cost[id(root)] * factor) + canvas_pixel_work(root, dpi)
    filtered = _filtered(root, elements, ids)
    heavy: dict[str, tuple[int, FilterCost]] = {}
    if not filtered or (stop_at is not None and total > stop_at):
        return total, tops, heavy
    reach: dict[int, int] = {}  # 1: draws a filtered element (itself or through its successors), else 0
    expand(root, successors, reach, limit=0, own=lambda el: 1 if id(el) in filtered else 0)
    canvas_pt = _canvas_pt(root)
    boxes: dict[int, BBox | None] = {}

    def own_map(el: etree._Element) -> Matrix:
        try:
            return parse_transform(el.get("transform"))
        except ValueError:
            return IDENTITY

    # every drawing of a filtered element, with the map from its user space to the canvas's: the walk follows
    # children, <use> targets (moved by the use's x and y) and other references (markers, masks, patterns: taken
    # where the referring element stands), only towards filtered elements; at most one step per element drawn,
    # which the element work above has counted (each element drawn is 1 unit or more)
    stack = [(child, own_map(child), 1, top_id(child)) for child in root
             if isinstance(child.tag, str) and _local(child) not in NOT_IN_PLACE and reach.get(id(child))]
    steps = 0
    while stack and steps <= total:
        el, m, times, top = stack.pop()
        steps += 1
        if id(el) in filtered:
            if id(el) not in boxes:
                boxes[id(el)] = content_box(el, ids)
            costs = [filter_work(f, boxes[id(el)], m, dpi=dpi, canvas_pt=canvas_pt) for f in filtered[id(el)]]
            drawn = FilterCost(times * sum(c.units for c in costs), max(costs, key=lambda c: c.units).what)
            work, worst = heavy.get(top, (0, drawn))
            heavy[top] = (work + drawn.units, drawn if drawn.units > worst.units else worst)
            tops[top] = tops.get(top, 0) + drawn.units
            total += drawn.units
            if stop_at is not None and total > stop_at:
                break
        for target, more, how in successors(el):
            if not reach.get(id(target)):
                continue
            step = translation(_first(el.get("x")), _first(el.get("y"))) if how == "use" else IDENTITY
            stack.append((target, multiply(multiply(m, step), own_map(target)), times * more, top))
    return total, tops, heavy


def over_budget(root: etree._Element, names: Mapping[str, str], *, limit: int = MAX_FIGURE_WORK,
                dpi: float = 300.0) -> str | None:
    """None when the canvas's work (:func:`canvas_work` at ``dpi``) is within ``limit``, else one line naming
    the panels that cost most: ``names`` maps a top-level id (``panel-a``) to how a message names it
    (``panel 'a' (plot.svg)``). Gives the total, the limit, and each named part above 10 % of it (with what
    its filters cost and the costliest of them, when they are a tenth of its work or more)."""
    total, tops, heavy = _canvas_work(root, dpi, stop_at=limit)
    if total <= limit:
        return None
    ranked = sorted(((work, ident) for ident, work in tops.items()), reverse=True)
    shown = [(work, ident) for work, ident in ranked if work >= total / 10] or ranked[:1]
    parts = []
    for work, ident in shown:
        part = f"{names.get(ident, ident)} {work:,}"
        if ident in heavy and heavy[ident][0] >= work / 10:
            part += f" (filters {heavy[ident][0]:,}: {heavy[ident][1].what})"
        parts.append(part)
    pixels = f", and filter pixels at {dpi:g} dpi" if heavy else ""
    return (f"the canvas expands to {total:,} units of drawing work (about {total / 1e6:,.0f} s of the export "
            f"engine: elements, path vertices and text, every <use> expanded{pixels}), more than the {limit:,} "
            f"({limit / 1e6:g} s) one export may take: "
            f"{', '.join(parts)}; simplify or rasterize the heaviest panel (or split the figure)")


# ─── filters ──────────────────────────────────────────────────────────────
#
# The engine's work on a filter is per pixel of its region, not per element (resvg, crates/resvg/src/filter:
# every primitive reads and writes a pixmap the size of the filter region; feMorphology visits
# min(2 ceil(rx), width) x min(2 ceil(ry), height) pixels for each pixel, feConvolveMatrix orderX x orderY,
# feTurbulence numOctaves noise lookups, unclamped; feGaussianBlur is a box blur (an IIR one below 2 px) whose
# cost does not grow with stdDeviation). The region is clipped to 2 canvases around the canvas on every side
# (resvg's render: a filtered layer is fitted to its ``max_bbox``, 5 x 5 canvases). The PDF (svg2pdf) draws a
# filtered element as an image drawn by resvg at about 4 px/pt, its region not clipped to the canvas.

#: the resolution svg2pdf draws a filtered element at, for the PDF (measured, ``benchmarks/use_budget.py``:
#: feMorphology and feTurbulence take the same time in the PDF as in a PNG at 290 to 300 dpi, whatever the PNG's dpi)
PDF_FILTER_DPI = 300.0
#: nanoseconds of export per work unit: a unit of filter work is as long as a unit of drawing (1 us of CPU time)
NS_PER_UNIT = 1_000
#: nanoseconds of CPU per pixel of the PNG a filled rect, image, circle or ellipse covers (:func:`_fill_work`): 2,000
#: half-transparent rects (or circles) covering a 100 x 100 pt canvas took 1.1 to 1.3 s at 300 dpi (3.2 ns a pixel)
FILL_PIXEL_NS = 3.5
#: nanoseconds of CPU per pixel of the PNG, whatever it shows (the pixmap filled, composited and encoded): a blank
#: 1000 x 1000 pt canvas at 300 dpi (17.4 million pixels) took 0.39 s, a 2000 x 2000 pt one 1.62 s (22 and 23 ns)
CANVAS_PIXEL_NS = 25
#: the PDF's filter region is not clipped to the canvas as the PNG's is: svg2pdf rasterizes the filtered layer's
#: whole box (measured: a blur on a region 10 canvases wide takes 10 s in the PDF, 0.2 s in the PNG; the time
#: stops growing past about 15 canvases); it is clipped at this many canvases around the canvas, more than that
PDF_FILTER_AROUND = 10
#: nanoseconds of CPU time per pixel of the filter region (``benchmarks/use_budget.py --filters``, docs/design.md;
#: each the costliest of its cases, rounded up): every primitive (its input copied, its result pixmap), and what
#: each kind adds
FILTER_NS: dict[str, float] = {
    "base": 12,            # any primitive; the filter's source layer and its drawing on the canvas too (20 feOffset)
    "blur": 150,           # feGaussianBlur, feDropShadow: three box blurs each way, or the IIR blur (blur 20: 136)
    "pixel": 30,           # a per-pixel colour function: feColorMatrix, feComponentTransfer, lighting, displacement
    "morphology": 1.0,     # feMorphology, per pixel of its window, plus ...
    "morphology_side": 0.15625,  # ... this per pixel of the window's longer side, per window pixel (memory: 1.8 ns
                           # at 10 x 10, 3.1 at 20 x 20, 4.8 at 26 x 26, 6.9 at 42 x 42 measured; 5/32, exact)
    "convolve": 5,         # feConvolveMatrix, per kernel entry (order 9: 4.4)
    "turbulence": 100,     # feTurbulence, per octave (4 octaves: 90)
}
_PIXEL_KINDS = frozenset({"feColorMatrix", "feComponentTransfer", "feDiffuseLighting", "feSpecularLighting",
                          "feDisplacementMap"})
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: containers whose content is not drawn where it stands, for a box (composer.svg.elements' list)
_NO_BOX = frozenset({"defs", "clipPath", "mask", "symbol", "marker", "pattern", "linearGradient", "radialGradient",
                     "filter", "metadata", "title", "desc", "style", "script", "text"})


@dataclass(frozen=True)
class FilterCost:
    """The work of drawing one element through its filter: ``units`` (work units, PNG and PDF together) and
    ``what`` (the filter and its costliest primitive, for a message: ``<filter id='f'> feMorphology radius
    200 x 200 on 500 x 500 px``)."""

    units: int
    what: str


def _numbers(value: str | None) -> list[float]:
    return [float(v) for v in _NUMBER.findall(value or "")]


def _first(value: str | None) -> float:
    numbers = _numbers(value)
    return numbers[0] if numbers else 0.0


def _fraction(value: str | None, default: float) -> float:
    """An objectBoundingBox coordinate: ``0.1`` or ``10%`` -> 0.1."""
    if value is None or not value.strip():
        return default
    numbers = _numbers(value)
    if not numbers:
        return default
    return numbers[0] / 100 if value.strip().endswith("%") else numbers[0]


_PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
#: a command whose numbers are not all (x, y) pairs of absolute points: relative ones, H, V, A (``e`` is an exponent)
_NOT_PAIRS = re.compile(r"[abcdfghlmnqstvyHVA]")
_PATH_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7}


def path_box(d: str) -> BBox | None:
    """A box holding the path ``d`` (None for none): its end and control points, absolute (a Bezier curve lies in
    the hull of its control points), an arc's end points widened by twice its larger radius on every side (the arc
    lies on an ellipse through both, of those radii or, scaled up, half the chord: SVG 2, B.2.5). Not the tight
    box, but never smaller, and one pass over the numbers (no flattening: it runs on every path a filter covers)."""
    if not _NOT_PAIRS.search(d):  # absolute M, L, C, S, Q, T, Z only (matplotlib's): every two numbers a point
        numbers = [float(v) for v in _NUMBER.findall(d)]
        if len(numbers) >= 2 and len(numbers) % 2 == 0:
            return min(numbers[0::2]), min(numbers[1::2]), max(numbers[0::2]), max(numbers[1::2])
    xs: list[float] = []
    ys: list[float] = []
    x = y = sx = sy = 0.0
    cmd = ""
    tokens = _PATH_TOKEN.findall(d)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.isalpha():
            cmd = token
            i += 1
            if cmd in "Zz":
                x, y = sx, sy
            continue
        up = cmd.upper()
        if up not in _PATH_ARGS:
            break
        n = _PATH_ARGS[up]
        if i + n > len(tokens) or any(t.isalpha() for t in tokens[i:i + n]):
            break
        v = [float(t) for t in tokens[i:i + n]]
        i += n
        rel = cmd.islower()
        if up == "H":
            x = x + v[0] if rel else v[0]
        elif up == "V":
            y = y + v[0] if rel else v[0]
        elif up == "A":
            x0, y0 = x, y
            x, y = (x + v[5], y + v[6]) if rel else (v[5], v[6])
            grow = 2 * max(abs(v[0]), abs(v[1]), math.hypot(x - x0, y - y0) / 2)
            xs += [min(x0, x) - grow, max(x0, x) + grow]
            ys += [min(y0, y) - grow, max(y0, y) + grow]
        else:
            for k in range(0, n - 2, 2):  # control points
                xs.append(x + v[k] if rel else v[k])
                ys.append(y + v[k + 1] if rel else v[k + 1])
            x, y = (x + v[n - 2], y + v[n - 1]) if rel else (v[n - 2], v[n - 1])
        if up == "M":
            sx, sy = x, y
            cmd = "l" if rel else "L"
        xs.append(x)
        ys.append(y)
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def content_box(el: etree._Element, ids: Mapping[str, etree._Element]) -> BBox | None:
    """The geometric box of what ``el`` draws, in ``el``'s own user space (its ``transform`` not applied), or None
    (nothing measurable: text, an empty group). Shapes by their outline points
    (:func:`composer.svg.measure.shape_points`; a path by :func:`path_box`), groups by their children's boxes under
    each child's transform, a ``<use>`` by its target moved by ``x``/``y`` (a symbol as a group). Iterative in
    the depth of nesting; a reference cycle draws nothing."""
    memo: dict[int, BBox | None] = {}
    stack: list[tuple[etree._Element, bool]] = [(el, False)]
    visiting: set[int] = set()

    def parts(node: etree._Element) -> list[tuple[etree._Element, Matrix]]:
        tag = _local(node)
        if tag == "use":
            ref = next((v for k, v in node.attrib.items() if k.rpartition("}")[2] == "href"), "")
            target = ids.get(ref[1:]) if ref.startswith("#") else None
            if target is None:
                return []
            return [(target, translation(_first(node.get("x")), _first(node.get("y"))))]
        if tag in ("g", "a", "switch", "svg", "symbol"):
            return [(child, IDENTITY) for child in node if isinstance(child.tag, str) and _local(child) not in _NO_BOX]
        return []

    def own_transform(node: etree._Element) -> Matrix:
        try:
            return parse_transform(node.get("transform")) if node is not el else IDENTITY
        except ValueError:
            return IDENTITY

    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in memo:
            continue
        tag = _local(node)
        if tag in ("rect", "image", "circle", "ellipse", "line", "polyline", "polygon", "path"):
            if tag in ("rect", "image"):
                x, y, w, h = (_first(node.get(k)) for k in ("x", "y", "width", "height"))
                memo[key] = (x, y, x + w, y + h)
            elif tag == "path":
                memo[key] = path_box(node.get("d") or "")
            else:
                memo[key] = points_bbox(shape_points(node, tag))
            continue
        children = parts(node)
        if not done:
            if key in visiting:
                memo[key] = None
                continue
            visiting.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child, _ in children if id(child) not in memo and id(child) not in visiting)
            continue
        visiting.discard(key)
        boxes = [map_bbox(multiply(moved, own_transform(child)), box) for child, moved in children
                 for box in [memo.get(id(child))] if box is not None]
        memo[key] = union(boxes) if boxes else None
    return memo.get(id(el))


def _canvas_pt(root: etree._Element) -> tuple[float, float] | None:
    numbers = _numbers(root.get("viewBox"))
    if len(numbers) == 4 and numbers[2] > 0 and numbers[3] > 0:
        return numbers[2], numbers[3]
    width, height = _numbers(root.get("width"))[:1], _numbers(root.get("height"))[:1]
    return (width[0], height[0]) if width and height and width[0] > 0 and height[0] > 0 else None


def filter_region_px(filter_el: etree._Element, box: BBox | None, m: Matrix, *, dpi: float,
                     canvas_pt: tuple[float, float] | None, around: int = 2) -> tuple[int, int]:
    """(width, height) in pixels of the region a filter draws on, at ``dpi``, clipped as resvg clips it.

    Args:
        filter_el: the ``<filter>``.
        box: the filtered element's box in its user space (:func:`content_box`); None: not measurable, the
            region is then the whole canvas (1.2 times it with ``userSpaceOnUse`` percentages).
        m: the map from that user space to the canvas's, in pt (the root's user unit).
        canvas_pt: the canvas's (width, height) in pt; the region is clipped to ``around`` canvases around it
            on every side (2: resvg's ``max_bbox`` for the PNG); None: not clipped.

    The region is the filter's ``x``/``y``/``width``/``height`` (SVG Filter Effects 1, 6.1): with
    ``filterUnits="objectBoundingBox"`` (the default) fractions of ``box`` (default -10 %, -10 %, 120 %,
    120 %), with ``userSpaceOnUse`` user units; a percentage there is of the viewport, taken as the canvas.
    A width or height of 0 or less disables the element (0 x 0).
    """
    px_per_pt = dpi / 72.0
    user_space = filter_el.get("filterUnits") == "userSpaceOnUse"
    keys = ("x", "y", "width", "height")
    values = [filter_el.get(k) for k in keys]
    if user_space and all(v is not None and not v.strip().endswith("%") and _numbers(v) for v in values):
        x, y, w, h = (_numbers(v)[0] for v in values if v is not None)
        region: BBox | None = map_bbox(m, (x, y, x + w, y + h)) if w > 0 and h > 0 else None
        if region is None:
            return 0, 0
    elif not user_space and box is not None:
        bw, bh = box[2] - box[0], box[3] - box[1]
        fx, fy = _fraction(values[0], -0.1), _fraction(values[1], -0.1)
        fw, fh = _fraction(values[2], 1.2), _fraction(values[3], 1.2)
        if fw <= 0 or fh <= 0:
            return 0, 0
        x0, y0 = box[0] + fx * bw, box[1] + fy * bh
        region = map_bbox(m, (x0, y0, x0 + fw * bw, y0 + fh * bh))
    elif canvas_pt is not None:
        grow = 0.1 if user_space else 0.0
        region = (-grow * canvas_pt[0], -grow * canvas_pt[1], (1 + grow) * canvas_pt[0], (1 + grow) * canvas_pt[1])
    else:
        return 0, 0
    x0, y0, x1, y1 = (v * px_per_pt for v in region)
    if canvas_pt is not None:
        cw, ch = canvas_pt[0] * px_per_pt, canvas_pt[1] * px_per_pt
        x0, x1 = max(x0, -around * cw), min(x1, (around + 1) * cw)
        y0, y1 = max(y0, -around * ch), min(y1, (around + 1) * ch)
    if not (math.isfinite(x0) and math.isfinite(x1) and math.isfinite(y0) and math.isfinite(y1)):
        return 0, 0
    return max(0, math.ceil(x1) - math.floor(x0)), max(0, math.ceil(y1) - math.floor(y0))


def _primitive_ns(prim: etree._Element, scale_px: tuple[float, float], region_px: tuple[int, int],
                  ) -> tuple[float, str]:
    """Nanoseconds per region pixel of one filter primitive (:data:`FILTER_NS`) and how a message names it.
    ``scale_px``: pixels per unit of the primitive's lengths along x and y."""
    kind = _local(prim)
    base = FILTER_NS["base"]
    if kind == "feMorphology":
        radius = _numbers(prim.get("radius")) or [0.0]
        rx, ry = radius[0], radius[1] if len(radius) > 1 else radius[0]
        if rx <= 0 and ry <= 0:
            return base, kind  # the result is cleared
        rx, ry = rx if rx > 0 else 1.0, ry if ry > 0 else 1.0  # usvg: a zero radius beside a positive one is 1
        columns = min(2 * math.ceil(min(rx * scale_px[0], 1e9)), region_px[0])
        rows = min(2 * math.ceil(min(ry * scale_px[1], 1e9)), region_px[1])
        name = f"{kind} radius {rx:g} x {ry:g} (a {columns} x {rows} px window)"
        per_pixel = FILTER_NS["morphology"] + FILTER_NS["morphology_side"] * max(columns, rows)
        return base + per_pixel * columns * rows, name
    if kind == "feConvolveMatrix":
        order = [int(v) for v in _numbers(prim.get("order"))[:2] if math.isfinite(v) and v == int(v)] or [3]
        ox, oy = order[0], order[1] if len(order) > 1 else order[0]
        if ox < 1 or oy < 1 or len(_numbers(prim.get("kernelMatrix"))) != ox * oy:
            return base, kind  # usvg refuses it: transparent black
        return base + FILTER_NS["convolve"] * ox * oy, f"{kind} order {ox} x {oy}"
    if kind == "feTurbulence":
        octaves = _numbers(prim.get("numOctaves")) or [1.0]
        count = max(0, round(min(octaves[0], 1e12)))
        return base + FILTER_NS["turbulence"] * count, f"{kind} numOctaves {count:,}"
    if kind in ("feGaussianBlur", "feDropShadow"):
        return base + FILTER_NS["blur"], kind
    if kind in _PIXEL_KINDS:
        return base + FILTER_NS["pixel"], kind
    if kind == "feMerge":
        return base * max(1, sum(1 for child in prim if _local(child) == "feMergeNode")), kind
    return base, kind


def filter_work(filter_el: etree._Element, box: BBox | None, m: Matrix, *, dpi: float,
                canvas_pt: tuple[float, float] | None) -> FilterCost:
    """The work of drawing an element once through ``filter_el``, for the PNG at ``dpi`` and the PDF at
    :data:`PDF_FILTER_DPI`, its region clipped at :data:`PDF_FILTER_AROUND` canvases (arguments as
    :func:`filter_region_px`).

    Each primitive costs :data:`FILTER_NS` nanoseconds per pixel of the filter region (every primitive works on
    the whole region in resvg, its subregion clipping only the result), the filter itself one ``base`` more;
    lengths (``radius``) are scaled to pixels by ``m`` (and by ``box`` with
    ``primitiveUnits="objectBoundingBox"``). Work units are nanoseconds / :data:`NS_PER_UNIT`, rounded up.
    """
    prims = [p for p in filter_el if isinstance(p.tag, str) and _local(p).startswith("fe")]
    sx, sy = axis_scales(m)
    if filter_el.get("primitiveUnits") == "objectBoundingBox" and box is not None:
        sx, sy = sx * (box[2] - box[0]), sy * (box[3] - box[1])
    total_ns = 0.0
    worst = (0.0, "")
    for at_dpi, around in ((dpi, 2), (PDF_FILTER_DPI, PDF_FILTER_AROUND)):
        region = filter_region_px(filter_el, box, m, dpi=at_dpi, canvas_pt=canvas_pt, around=around)
        pixels = region[0] * region[1]
        if pixels == 0:
            continue
        scale_px = (sx * at_dpi / 72.0, sy * at_dpi / 72.0)
        total_ns += FILTER_NS["base"] * pixels
        for prim in prims:
            ns, name = _primitive_ns(prim, scale_px, region)
            total_ns += ns * pixels
            if at_dpi == dpi and ns * pixels > worst[0]:
                worst = (ns * pixels, f"{name} on {region[0]:,} x {region[1]:,} px")
    ident = filter_el.get("id")
    shown = f"<filter id={ident!r}>" if ident else "<filter>"
    return FilterCost(math.ceil(total_ns / NS_PER_UNIT), f"{shown} {worst[1]}".strip())


def _filtered(root: etree._Element, elements: Sequence[etree._Element], ids: Mapping[str, etree._Element],
              ) -> dict[int, list[etree._Element]]:
    """``id(element)`` -> the ``<filter>`` elements it is drawn through (a list applies each), for each element
    drawn through one: its ``filter`` from its inline style, else from a ``<style>`` rule (matched by
    :class:`composer.svg.css.StyleSheet`, only when a sheet names a filter), else its attribute. Empty, and
    quick, for a canvas without filters."""
    if next(root.iter("{http://www.w3.org/2000/svg}filter", "filter"), None) is None:
        return {}  # no <filter> to be drawn through
    sheets = [el for el in elements if _local(el) == "style" and "filter" in (el.text or "")]
    by_css: dict[etree._Element, dict[str, str]] = {}
    if sheets:
        def only_filter(text: str) -> tuple[tuple[str, str], ...]:
            return tuple(d for d in declarations(text) if d[0] == "filter")

        by_css = StyleSheet(root, read=only_filter).by_element(root)
    out: dict[int, list[etree._Element]] = {}
    for el in elements:
        value = el.get("filter")
        if el in by_css and "filter" in by_css[el]:
            value = by_css[el]["filter"]
        style = el.get("style")
        if style and "filter" in style:
            value = dict(declarations(style)).get("filter", value)
        if not value or "url(" not in value:
            continue
        chain = [ids.get(match.group(2)) for match in _URL.finditer(value)]
        found_filters = [f for f in chain if f is not None and _local(f) == "filter"]
        if found_filters:
            out[id(el)] = found_filters
    return out
