"""A Plotly figure drawn as an SVG document exactly a panel's box, through kaleido and a Chromium.

:func:`plotly_svg` is the converter behind Plotly panels (a renderer that returns a
``plotly.graph_objects.Figure``, :mod:`composer.stages.results.plotly`); it knows no layout file:
a figure, a box in pt, the figure's fonts in, an :class:`PlotlyDrawing` out.

What it does, in order:

1. **A copy at the box's size.** Plotly's ``layout.width``/``height`` are CSS px (1 px = 0.75 pt, CSS
   Values 3, 5.2): the box ``width_pt`` x ``height_pt`` is drawn ``width_pt / 0.75`` x ``height_pt / 0.75``
   px at scale 1, and the SVG's viewBox is then written in pt (its drawing in a ``scale(0.75)`` group), so
   one user unit is one pt as in a matplotlib panel and a 9.333 px tick label is 7 pt.
2. **The figure's fonts** (:func:`apply_fonts`): ``layout.font`` is set to ``[figure] font`` and
   ``font_size``, and so is every font plotly.js would otherwise size on its own (the title is 1.4 x
   ``layout.font.size`` there, axis titles 1.2 x) where the figure does not set it: the title, each
   cartesian axis's title and tick labels, the legend and its title, the annotations, every colorbar.
   A size the figure sets itself wins, as a matplotlib ``fontsize=`` does (``compose check`` then reads it).
3. **Deterministic ids.** plotly.js names its clip paths after a random ``uid`` of the layout and each
   trace: the traces get ``uid``s of their index and the layout's random one is replaced by the
   ``ids`` prefix given (the panel's name), so the same figure gives the same bytes.
4. **Drawn by kaleido** (v1, which drives a Chrome through choreographer: :func:`session`), offline:
   plotly.js from the plotly package, MathJax off. The browser is Debian's Chromium (``/usr/bin/chromium``,
   or ``BROWSER_PATH``, or the first ``chromium``/``chromium-browser``/``google-chrome`` on ``PATH``);
   kaleido's own Chrome download is never used. One Chromium serves every figure drawn inside one
   :func:`session` block; in a forked render worker it serves the worker's every Plotly panel and
   ``[[align]]`` redraw and ends with the worker's function (:func:`session`).
5. **The plot area** is read back from the SVG plotly.js drew (after ``automargin``): the union of the
   subplots' clip rectangles (``<clipPath class="plotclip">`` at the ``translate`` of the subplot's
   ``<g>`` in ``.overplot``), in pt. With ``plot_area_pt`` given (``[[align]]``), the margins are set so
   the subplots' domains span exactly that box (automargin and margin autoexpand off).
6. **Data anchors** ``{name: (x, y)}`` in the data units of the first subplot (axes ``x`` and ``y``) go
   through the axis ranges plotly.js chose: a first ``json`` export of the same figure gives its full
   layout (``layout.xaxis.range``), which are then set on the figure so the SVG is drawn with them;
   linear and log axes (a log axis's range is in decades, plotly's convention).

The text stays ``<text>`` (plotly.js writes ``<text>`` with a CSS ``font-size`` in px), which ``compose
check`` measures through the ``scale(0.75)``. plotly.js writes a title's size rounded to 0.01 px (7 pt,
9.3333 px, as 9.33 px: 6.9975 pt); each size is written back as the px of the nearest 0.01 pt.

Fork safety: kaleido runs on an event loop of its own in the calling thread and its Chromium is a child
of the calling process, used by that process only (a process forked while a session was open starts its
own), so a render worker forked by :mod:`composer.sandbox.isolate` starts its own and ends it before the
worker's left-over processes are looked for: none is left running.
"""

from __future__ import annotations

import asyncio
import copy
import math
import os
import re
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from composer.sandbox.audit import not_recorded
from composer.sandbox.isolate import at_worker_end
from composer.units import fmt

#: pt per CSS px (CSS Values 3, 5.2: 1 px = 1/96 in, 1 pt = 1/72 in)
PT_PER_PX = 0.75

#: the margin on each side of a Plotly panel that sets none, before plotly.js grows it to fit its tick labels,
#: titles, legend and colorbars (:func:`fit_margins`); 3 pt, about matplotlib's constrained-layout padding
DEFAULT_MARGIN_PT = 3.0

#: where Debian's package puts Chromium
DEBIAN_CHROMIUM = "/usr/bin/chromium"

#: the one line naming what to install when the Python packages are missing
MISSING_PACKAGES = ("Plotly panels need plotly and kaleido: pip install 'figure-composer[plotly]' "
                    "(and a Chromium: apt-get install chromium)")
#: the one line naming what to install when no Chromium is found
MISSING_CHROMIUM = ("Plotly panels need a Chromium for kaleido, and none was found at /usr/bin/chromium, "
                    "BROWSER_PATH or on PATH: apt-get install chromium (Debian), or set BROWSER_PATH to a "
                    "Chrome or Chromium")

_AXIS = re.compile(r"^[xy]axis\d*$")
_COLORAXIS = re.compile(r"^coloraxis\d*$")


class PlotlyUnavailable(RuntimeError):
    """plotly or kaleido is not installed, or no Chromium was found; ``str()`` is one line naming what
    to install (:data:`MISSING_PACKAGES`, :data:`MISSING_CHROMIUM`)."""


@dataclass(frozen=True)
class PlotlyDrawing:
    """A Plotly figure drawn for a box.

    Attributes:
        svg: the SVG document, viewBox ``0 0 width_pt height_pt`` (one user unit is one pt), its text
            ``<text>`` elements.
        plot_area: the union of its subplots' plot areas, ``(x0, y0, x1, y1)`` pt from the top-left, y down;
            None: it has no cartesian subplot.
        anchors: data anchor name -> ``(x_pt, y_pt)`` from the top-left, y down.
    """

    svg: bytes
    plot_area: tuple[float, float, float, float] | None
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)


def browser_path() -> str:
    """The Chromium kaleido drives: ``BROWSER_PATH`` when set (choreographer's own variable), else Debian's
    ``/usr/bin/chromium``, else the first ``chromium``, ``chromium-browser``, ``google-chrome`` on ``PATH``.

    Raises:
        PlotlyUnavailable: none of them exists, or ``BROWSER_PATH`` names no program (:data:`MISSING_CHROMIUM`).
    """
    named = os.environ.get("BROWSER_PATH")
    found: list[str | None] = [named] if named else [
        DEBIAN_CHROMIUM, *(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome"))]
    for path in found:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise PlotlyUnavailable(MISSING_CHROMIUM)


def require() -> None:
    """Check plotly and kaleido import.

    Raises:
        PlotlyUnavailable: one of them is missing (:data:`MISSING_PACKAGES`).
    """
    try:
        import kaleido  # noqa: F401
        import plotly.graph_objects  # noqa: F401
    except ImportError:
        raise PlotlyUnavailable(MISSING_PACKAGES) from None


class _Session:
    """One running kaleido (one Chromium) and the event loop it runs on; see :func:`session`."""

    def __init__(self) -> None:
        import kaleido

        self.pid = os.getpid()
        self.loop = asyncio.new_event_loop()
        with not_recorded():  # kaleido's page and Chromium's profile, in temporary folders: no inputs
            self.kaleido = kaleido.Kaleido(path=browser_path(), mathjax=False, n=1)
            self.loop.run_until_complete(self.kaleido.open())
            self.loop.run_until_complete(self._scripts_ready())

    async def _scripts_ready(self, tries: int = 3) -> None:
        """Make sure kaleido's tab calls into its page's script.

        kaleido 1.x takes the JavaScript context a tab calls into from the first
        ``Runtime.executionContextCreated`` after it navigates; ``Runtime.enable``, sent after the
        navigation, also reports the context that already exists, so at times (under load) the tab holds
        the blank page's context, where ``kaleido_scopes`` is not defined, and every drawing fails with
        "ReferenceError: kaleido_scopes is not defined". The tab is asked for the script, and reloaded
        (kaleido's own ``reload``: Runtime is enabled by then, so the next context is the page's) until it
        answers. Uses kaleido's tab internals (``tabs_ready``, ``_current_js_id``), checked here.

        Raises:
            RuntimeError: the script is still not there after ``tries`` reloads.
        """
        from kaleido._kaleido_tab import _devtools_utils

        tab = await self.kaleido.tabs_ready.get()
        try:
            for _ in range(tries):
                answer = await _devtools_utils.exec_js_fn(tab.tab, tab._current_js_id,
                                                          "function() { return typeof kaleido_scopes; }")
                if answer.get("result", {}).get("result", {}).get("value") == "object":
                    return
                await tab.reload()
            raise RuntimeError(f"kaleido's page has no kaleido_scopes after {tries} reloads")
        finally:
            await self.kaleido.tabs_ready.put(tab)

    def calc(self, fig: Any, fmt_: str, width_px: float, height_px: float) -> bytes:
        """``fig`` exported as ``fmt_`` (``"svg"``, ``"json"``) at ``width_px`` x ``height_px``, scale 1."""
        opts = {"format": fmt_, "width": width_px, "height": height_px, "scale": 1}
        with not_recorded():
            result: bytes = self.loop.run_until_complete(self.kaleido.calc_fig(fig, opts=opts))
        return result

    def close(self) -> None:
        """End the Chromium and the loop (its temporary folders removed, not recorded as the panel's)."""
        try:
            with not_recorded():
                self.loop.run_until_complete(self.kaleido.close())
        finally:
            self.loop.close()


_current: list[_Session] = []
#: the session kept open for the rest of this forked worker (:func:`composer.sandbox.isolate.at_worker_end`)
_kept: list[_Session] = []


@contextmanager
def session() -> Iterator[None]:
    """One Chromium for every :func:`plotly_svg` inside the block (kaleido's start costs about a second,
    each figure then about 0.2 s). Blocks nest (the inner one reuses the outer's browser). In a forked
    worker (a render unit) the browser then stays open for the worker's next Plotly panels and its
    ``[[align]]`` redraw, and is ended when the worker's function ends
    (:func:`composer.sandbox.isolate.at_worker_end`); elsewhere, and after an error, it ends with the block.
    A session is used only by the process that opened it (a worker forked while one was open starts its own).

    Raises:
        PlotlyUnavailable: plotly, kaleido or a Chromium is missing.
    """
    require()
    me = os.getpid()
    if _current and _current[-1].pid == me:
        yield
        return
    kept = next((k for k in _kept if k.pid == me), None)
    opened = kept or _Session()
    _current.append(opened)
    try:
        yield
    except BaseException:
        if opened in _kept:
            _kept.remove(opened)
        opened.close()
        raise
    finally:
        _current.remove(opened)
    if kept is None:
        if at_worker_end(lambda: _end_kept(opened)):
            _kept.append(opened)
        else:
            opened.close()


def _end_kept(opened: _Session) -> None:
    """The end of a forked worker: close the session it kept."""
    if opened in _kept:
        _kept.remove(opened)
        opened.close()


def css_families(families: list[str]) -> str:
    """``["DejaVu Sans", "serif"]`` -> ``'"DejaVu Sans", serif'``: a CSS ``font-family`` list (a name with
    anything but letters, digits and hyphens is quoted; generic families are not)."""
    generic = {"serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui"}
    return ", ".join(f if f in generic or re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", f) else f'"{f}"'
                     for f in families)


def apply_fonts(fig: Any, family: str, size_px: float) -> None:
    """Give ``fig`` (a ``plotly.graph_objects.Figure``, changed in place) the font ``family`` (CSS) at
    ``size_px``: ``layout.font``, and every font plotly.js would size on its own where ``fig`` leaves it
    unset (see the module docstring, step 2)."""
    layout = fig.layout
    layout.font.family = family
    layout.font.size = size_px
    fonts = [layout.title.font, layout.legend.font, layout.legend.title.font]
    names = {"xaxis", "yaxis"} | {k for k in layout if _AXIS.match(k)}
    for trace in fig.data:
        for letter in ("x", "y"):
            ref = getattr(trace, f"{letter}axis", None) if letter in trace else None
            if isinstance(ref, str):
                names.add(f"{letter}axis{ref[1:]}")
    for name in sorted(names):
        axis = layout[name]
        fonts += [axis.title.font, axis.tickfont]
    fonts += [a.font for a in layout.annotations]
    bars = [layout[k].colorbar for k in layout if _COLORAXIS.match(k)]
    for trace in fig.data:  # only the colorbars plotly.js draws: a font given to a hidden one would show it
        if "colorbar" in trace and trace.showscale is not False:  # a heatmap's, a contour's: shown unless turned off
            bars.append(trace.colorbar)
        if "marker" in trace and "colorbar" in trace.marker and _marker_scale_shown(trace.marker):
            bars.append(trace.marker.colorbar)
    for bar in bars:
        fonts += [bar.title.font, bar.tickfont]
    for font in fonts:
        if font.size is None:
            font.size = size_px
        if font.family is None:
            font.family = family


def _marker_scale_shown(marker: Any) -> bool:
    """Whether plotly.js draws a marker's colorbar: ``showscale`` set true, or the colorbar given
    properties of its own (plotly.js then draws it); its default is no colorbar (``showscale`` false), and
    the name ``colorbar`` is a valid property of every marker, whether it is drawn or not."""
    return marker.showscale is True or (marker.showscale is None and bool(marker.to_plotly_json().get("colorbar")))


def _numbered_traces(fig: Any) -> None:
    """Each trace without a ``uid`` gets its index as one (plotly.js would draw a random one into its
    class names)."""
    for i, trace in enumerate(fig.data):
        if trace.uid is None:
            trace.uid = f"t{i}"


def fit_margins(fig: Any, margin_px: float) -> None:
    """Margins a panel's size can afford where ``fig`` sets none: ``margin_px`` on each side (plotly.js's own
    are 80 px left, right and bottom and 100 px at the top, more than a 40 mm panel has for its plot), grown
    by plotly.js to fit what stands outside the plot area (``automargin`` on every cartesian axis and on a
    title with text, ``margin.autoexpand`` for legends and colorbars)."""
    margin = fig.layout.margin
    for side in ("l", "r", "t", "b"):
        if margin[side] is None:
            margin[side] = margin_px
    for name in {"xaxis", "yaxis"} | {k for k in fig.layout if _AXIS.match(k)}:
        if fig.layout[name].automargin is None:
            fig.layout[name].automargin = True
    if fig.layout.title.text and fig.layout.title.automargin is None:
        fig.layout.title.automargin = True
        if fig.layout.title.yref is None:
            fig.layout.title.yref = "container"


def _domains(fig: Any, letter: str) -> tuple[float, float]:
    """The union of the ``letter`` (``"x"``, ``"y"``) axes' domains, as fractions of the plot region."""
    spans = [tuple(fig.layout[k].domain or (0.0, 1.0)) for k in fig.layout if _AXIS.match(k) and k[0] == letter]
    spans = spans or [(0.0, 1.0)]
    return min(s[0] for s in spans), max(s[1] for s in spans)


def place_plot_area(fig: Any, area_px: tuple[float, float, float, float], size_px: tuple[float, float]) -> None:
    """Place the union of ``fig``'s subplots at ``area_px`` = ``(x0, y0, x1, y1)`` px from the top-left (y
    down) of a ``size_px`` figure; automargin and margin autoexpand off, so plotly.js keeps it.

    plotly.js rounds margins and the figure's size to whole px, but not axis domains: the margins are the
    whole px just outside ``area_px`` (so what is placed in paper coordinates, a legend, an annotation,
    stays where it was within a px), and every axis's domain is mapped, linearly from the union of the
    domains, onto the fraction of the rounded plot region that ``area_px`` spans (plotly.js's offset of an
    axis is ``margin + domain x (round(size) - margins)``)."""
    width_px, height_px = round(size_px[0]), round(size_px[1])
    x0, y0, x1, y1 = area_px
    left, top = max(0, math.floor(x0)), max(0, math.floor(y0))
    right, bottom = max(0, math.floor(width_px - x1)), max(0, math.floor(height_px - y1))
    region_w, region_h = width_px - left - right, height_px - top - bottom
    fig.layout.margin.update(l=left, r=right, t=top, b=bottom, pad=0, autoexpand=False)
    targets = {"x": ((x0 - left) / region_w, (x1 - left) / region_w),
               "y": ((region_h - (y1 - top)) / region_h, (region_h - (y0 - top)) / region_h)}  # y from the bottom
    for letter, (lo, hi) in targets.items():
        d0, d1 = _domains(fig, letter)
        lo, hi = max(0.0, lo), min(1.0, hi)
        for name in {f"{letter}axis"} | {k for k in fig.layout if _AXIS.match(k) and k[0] == letter}:
            axis = fig.layout[name]
            a, b = tuple(axis.domain or (0.0, 1.0))
            axis.domain = [lo + (a - d0) / (d1 - d0) * (hi - lo), lo + (b - d0) / (d1 - d0) * (hi - lo)]
            axis.automargin = False


def _full_ranges(full: Mapping[str, Any]) -> dict[str, tuple[str, tuple[float, float]]]:
    """Axis name -> (type, range) from a full figure's JSON layout (kaleido's ``json`` export)."""
    layout = full.get("layout", {})
    return {name: (str(axis.get("type", "linear")), (float(axis["range"][0]), float(axis["range"][1])))
            for name, axis in layout.items()
            if _AXIS.match(name) and isinstance(axis, dict) and isinstance(axis.get("range"), list)
            and len(axis["range"]) == 2 and all(isinstance(v, int | float) for v in axis["range"])}


def axis_fraction(value: float, kind: str, span: tuple[float, float], what: str) -> float:
    """Where ``value`` (data units) falls along an axis of type ``kind`` whose range is ``span`` (plotly's
    units: decades for ``"log"``), as a fraction from the range's start (0) to its end (1).

    Raises:
        ValueError: an axis type other than linear or log, or a value a log axis cannot show (naming
            ``what``).
    """
    if kind == "log":
        if not value > 0:
            raise ValueError(f"{what} = {value!r} is not > 0, which a log axis needs")
        value = math.log10(value)
    elif kind not in ("linear", "-"):
        raise ValueError(f"{what} is on a {kind} axis; anchors reach linear and log axes only")
    return (value - span[0]) / (span[1] - span[0])


def _svg_in_pt(root: Any, width_pt: float, height_pt: float, width_px: float, height_px: float,
               uid: str | None, ids: str, shift_pt: tuple[float, float] = (0.0, 0.0)) -> bytes:
    """plotly.js's SVG (parsed: ``root``, px, viewBox ``0 0 width_px height_px``) as a document in pt: its
    root's size and viewBox in pt, its content in a ``scale(0.75)`` group (one px is 0.75 pt), the
    rectangles nobody sees gone (:data:`_INTERACTIVE`, and those 0 wide or high), its text
    sizes as set before plotly.js rounded them (:func:`_exact_size`), and the random ``uid`` in its ids and
    their references (``url(#...)``, ``href``) replaced by ``ids``."""
    from lxml import etree

    vb = [float(v) for v in (root.get("viewBox") or "").replace(",", " ").split()]
    if len(vb) != 4 or abs(vb[2] - width_px) > 0.5 or abs(vb[3] - height_px) > 0.5:
        raise RuntimeError(f"plotly drew a {root.get('viewBox')!r} SVG, not {width_px:g} x {height_px:g} px")
    for el in list(root.iter("{*}rect")):  # what only an interactive chart uses: nothing to see
        if el.get("class") in _INTERACTIVE or el.get("width") == "0" or el.get("height") == "0":
            el.getparent().remove(el)
    for el in root.iter("{*}text", "{*}tspan"):
        style = el.get("style")
        if style and "font-size" in style:
            el.set("style", _FONT_SIZE.sub(_exact_size, style))
    if uid:
        for el in root.iter("{*}*"):
            for name, value in el.attrib.items():
                if uid in value and (name == "id" or "url(" in value or name.endswith("href")):
                    el.set(name, value.replace(uid, ids))
    moved = f"translate({fmt(shift_pt[0])} {fmt(shift_pt[1])}) " if shift_pt != (0.0, 0.0) else ""
    group = etree.Element("{http://www.w3.org/2000/svg}g", transform=f"{moved}scale({fmt(PT_PER_PX)})")
    for child in list(root):
        group.append(child)
    root.append(group)
    root.set("width", f"{fmt(width_pt)}pt")
    root.set("height", f"{fmt(height_pt)}pt")
    root.set("viewBox", f"0 0 {fmt(width_pt)} {fmt(height_pt)}")
    for name in ("style", "class"):
        root.attrib.pop(name, None)
    return bytes(etree.tostring(root, encoding="utf-8"))


#: the classes of plotly.js's rectangles that only catch the mouse (a legend entry's toggle, drawn with
#: ``fill-opacity: 0``) or scroll (the legend's scroll bar, 0 x 0 when it does not scroll): removed, so
#: ``compose check`` sees no colours that are never drawn
_INTERACTIVE = frozenset({"legendtoggle", "scrollbar", "nsewdrag", "drag"})

_FONT_SIZE = re.compile(r"(font-size:\s*)([\d.]+)px")


def _exact_size(found: re.Match[str]) -> str:
    """A ``font-size`` plotly.js wrote rounded (titles to 0.01 px: 7 pt, 9.3333 px, is written 9.33 px, 6.9975
    pt) as the px of the nearest 0.01 pt, to 6 decimals (9.333333 px)."""
    size_pt = round(float(found.group(2)) * PT_PER_PX, 2)
    return f"{found.group(1)}{f'{size_pt / PT_PER_PX:.6f}'.rstrip('0').rstrip('.')}px"


def subplot_areas_px(root: Any) -> dict[str, tuple[float, float, float, float]]:
    """The plot area of each subplot (``"xy"``, ``"x2y2"``) of plotly.js's SVG (parsed: ``root``), ``(x0,
    y0, x1, y1)`` px from its top-left: the ``<g class="SUBPLOT" clip-path="url(#ID)">`` of ``.overplot`` at
    its ``translate(x, y)``, the size of clip path ``ID``'s rectangle (``class="plotclip"``)."""
    ns = {"s": "http://www.w3.org/2000/svg"}
    sizes = {}
    for clip in root.iterfind(".//s:clipPath[@class='plotclip']", ns):
        rect = clip.find("s:rect", ns)
        if rect is not None:
            sizes[clip.get("id")] = (float(rect.get("width", 0)), float(rect.get("height", 0)))
    areas = {}
    for g in root.iterfind(".//s:g[@class='overplot']/s:g[@clip-path]", ns):
        ref = re.fullmatch(r"url\(['\"]?#([^'\")]+)['\"]?\)", g.get("clip-path", ""))
        moved = re.fullmatch(r"translate\(\s*([-\d.eE+]+)[\s,]+([-\d.eE+]+)\s*\)", g.get("transform", "").strip())
        if ref is None or moved is None or ref.group(1) not in sizes:
            continue
        x, y = float(moved.group(1)), float(moved.group(2))
        w, h = sizes[ref.group(1)]
        areas[g.get("class", "")] = (x, y, x + w, y + h)
    return areas


def union(boxes: Any) -> tuple[float, float, float, float] | None:
    """The box around ``(x0, y0, x1, y1)`` boxes; None for none."""
    boxes = list(boxes)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def plotly_svg(figure: Any, *, width_pt: float, height_pt: float, families: list[str], font_size_pt: float,
               ids: str, anchors: Mapping[str, tuple[float, float]] | None = None,
               plot_area_pt: tuple[float, float, float, float] | None = None) -> PlotlyDrawing:
    """``figure`` (a ``plotly.graph_objects.Figure``, or its dict; left unchanged) drawn ``width_pt`` x
    ``height_pt`` with the font ``families`` (first choice first) at ``font_size_pt``, in the running
    :func:`session` or one of its own (see the module docstring for each step).

    Args:
        ids: what replaces plotly.js's random layout uid in the SVG's ids (a panel's name: unique on the
            canvas, the same every build).
        anchors: name -> ``(x, y)`` in the data units of the axes ``x`` and ``y``.
        plot_area_pt: where the plot area must be, ``(x0, y0, x1, y1)`` pt from the top-left (y down);
            None: where plotly.js puts it. plotly.js draws its margins in whole px; the drawing is then
            moved by half of what that rounding left over, so each edge is within half a px (0.375 pt) of it.

    Returns:
        The SVG (viewBox in pt), its plot area and anchors in pt from the top-left, y down.

    Raises:
        PlotlyUnavailable: plotly, kaleido or Chromium is missing (one line naming what to install).
        ValueError: an anchor that is not two finite numbers, on an axis it cannot reach (its name).
        RuntimeError: kaleido failed, or drew another size.
    """
    require()
    import plotly.graph_objects as go

    fig = go.Figure(copy.deepcopy(figure.to_dict() if hasattr(figure, "to_dict") else figure))
    width_px, height_px = width_pt / PT_PER_PX, height_pt / PT_PER_PX
    fig.layout.width, fig.layout.height = width_px, height_px
    apply_fonts(fig, css_families(families), font_size_pt / PT_PER_PX)
    _numbered_traces(fig)
    if plot_area_pt is None:
        fit_margins(fig, DEFAULT_MARGIN_PT / PT_PER_PX)
    else:
        place_plot_area(fig, tuple(v / PT_PER_PX for v in plot_area_pt),  # type: ignore[arg-type]
                        (width_px, height_px))
    points = dict(anchors or {})
    for name, point in points.items():
        if not (isinstance(point, tuple | list) and len(point) == 2
                and all(isinstance(v, int | float) and math.isfinite(v) for v in point)):
            raise ValueError(f"anchor {name!r} is {point!r}, not (x, y): two finite numbers in data units")
    with session():
        drawn = _current[-1]
        ranges: dict[str, tuple[str, tuple[float, float]]] = {}
        if points:
            import json

            ranges = _full_ranges(json.loads(drawn.calc(fig, "json", width_px, height_px)))
            for name, (_, span) in ranges.items():  # drawn with the ranges the anchors go through
                fig.layout[name].range = list(span)
                fig.layout[name].autorange = False
        raw = drawn.calc(fig, "svg", width_px, height_px)
    from lxml import etree

    root = etree.fromstring(raw, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    defs = root.find("{*}defs")
    uid = (defs.get("id") or "").removeprefix("defs-") if defs is not None else None
    areas = {name: tuple(v * PT_PER_PX for v in box) for name, box in subplot_areas_px(root).items()}
    shift = (0.0, 0.0)
    drawn_area = union(areas.values())
    if plot_area_pt is not None and drawn_area is not None:  # plotly.js's whole px: the rest moved
        shift = (round((plot_area_pt[0] - drawn_area[0] + plot_area_pt[2] - drawn_area[2]) / 2, 3),
                 round((plot_area_pt[1] - drawn_area[1] + plot_area_pt[3] - drawn_area[3]) / 2, 3))
        areas = {name: (b[0] + shift[0], b[1] + shift[1], b[2] + shift[0], b[3] + shift[1])
                 for name, b in areas.items()}
    placed: dict[str, tuple[float, float]] = {}
    if points:
        if "xy" not in areas or "xaxis" not in ranges or "yaxis" not in ranges:
            raise ValueError(f"anchor {next(iter(points))!r}: the figure has no x and y axes to place it by")
        x0, y0, x1, y1 = areas["xy"]
        for name, (x, y) in sorted(points.items()):
            fx = axis_fraction(float(x), *ranges["xaxis"], f"anchor {name!r}'s x")
            fy = axis_fraction(float(y), *ranges["yaxis"], f"anchor {name!r}'s y")
            placed[name] = (x0 + fx * (x1 - x0), y1 - fy * (y1 - y0))
    svg = _svg_in_pt(root, width_pt, height_pt, width_px, height_px, uid, ids, shift)
    return PlotlyDrawing(svg=svg, plot_area=union(areas.values()), anchors=placed)
