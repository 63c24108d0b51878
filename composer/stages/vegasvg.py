"""A Vega-Lite spec drawn as SVG by vl-convert at a panel's box, in the figure's font and size.

Two ways in, one converter (:func:`draw_vegalite`):

- the ``vegalite`` panel source, ``vegalite = "charts/x.vl.json"``: a Vega-Lite spec file
  (:class:`composer.stages.sources.vegalite.VegaLiteSource`), with the data anchors it offers in its own
  key ``anchors`` (``anchors = {peak = [5, 3.2]}``, data units of its ``x`` and ``y``);
- a renderer returning an Altair chart (``alt.Chart``, ``alt.LayerChart``, or ``(chart, {name: (x, y)})``),
  the Altair result kind of the render source, which hands ``chart.to_dict()`` to the same converter.

vl-convert (a wheel: Deno and the Vega JavaScript inside, no browser) compiles the spec to Vega and draws
it as SVG. The converter makes the drawing the box, exactly:

- **size**: the spec's ``width``/``height`` are the box in CSS px (Vega's unit: 1 px = 0.75 pt, CSS
  Values 3, 5.2) with ``autosize = {type = "fit", contains = "padding"}``, so the whole SVG, axes and
  legends included, is the box (Vega-Lite's "fit" sizes single and layered views only: a concatenated,
  faceted or repeated chart is refused); its root is rewritten to ``viewBox = 0 0 width_pt height_pt``,
  Vega's drawing inside ``scale(0.75)``;
- **fonts**: the Vega config (:func:`vega_config`) sets ``font`` to the figure's first family and every
  text size (axis, legend, header, title labels and titles, text marks) to the figure's size, in px; the
  spec's own ``config`` wins where it says otherwise (as ``[rcparams]`` and a renderer do for
  matplotlib). vl-convert lays text out with the very font file composer measures with
  (:func:`composer.text.fonts.matplotlib_font`; its folder registered with vl-convert), and writes it as
  ``<text>``, which ``compose check`` reads (7 pt text is ``font-size = 9.33px`` under the 0.75 scale);
- **plot area**: the view rectangle as Vega laid it out, read from vl-convert's scenegraph (the root
  group item: its origin, position, width and height), never computed from the spec;
- **data anchors**: each ``(x, y)`` in data units goes through the chart's own ``x`` and ``y`` scales:
  an invisible symbol per anchor, encoded ``{scale = "x", value = x, band = 0.5}`` (a band scale's
  centre), is added to the compiled Vega spec inside a clipped empty group (so it does not move the
  layout), and its position read from the scenegraph; the SVG is drawn without them.

vl-convert is allowed no URL at all (``allowed_base_urls = []``): a spec file's data is inlined by its
source, from inside the project only.

**Never in the building process**: vl-convert's JavaScript runtime runs threads of its own, and a process
forked after it started cannot use it (its threads are not in the child: a conversion there waits
forever; measured with vl-convert 1.9). composer forks render workers from the building process, in a
build and in ``compose watch``/``serve`` between builds, so :func:`draw_vegalite` runs the conversion
in process only in a worker (:func:`composer.sandbox.isolate.in_worker`: an Altair panel's render
worker), and anywhere else (the building process, ``compose serve``'s builder) in a forked worker of its
own (:func:`composer.sandbox.isolate.run_isolated`; about 1 s to start the runtime).

Dependencies: the extra ``figure-composer[vega]`` (``vl-convert-python``, ``altair``); without it a
panel that needs it is refused in one line naming what to install (:func:`_vl_convert`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

from lxml import etree

from composer.errors import DataError
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure, in_worker, run_isolated
from composer.svg.io import parse_svg, svg_tag, write_svg
from composer.text.metrics import font_families
from composer.units import PT_PER_UNIT, fmt

#: pt per CSS px, Vega's unit (CSS Values 3, 5.2: 96 px = 72 pt)
PT_PER_PX = PT_PER_UNIT["px"]

#: what to install when vl-convert is missing
INSTALL = "pip install 'figure-composer[vega]' (vl-convert-python and altair)"

#: Vega-Lite's composite views, which ``autosize = "fit"`` cannot size to a box
COMPOSITE = ("hconcat", "vconcat", "concat", "facet", "repeat")

_ANCHOR_GROUP = "composer-anchors"

#: a plot area, ``(x0, y0, x1, y1)`` in pt from the box's top-left, y down
PlotArea = tuple[float, float, float, float]


@dataclass(frozen=True)
class VegaDrawing:
    """A Vega-Lite chart drawn at a box.

    Attributes:
        svg: an SVG document ``width_pt`` x ``height_pt`` (``viewBox = 0 0 width_pt height_pt``: one user
            unit is one pt), Vega's drawing scaled by 0.75 inside, text as ``<text>``.
        plot_area: the chart's view, ``(x0, y0, x1, y1)`` in pt from the box's top-left, y down.
        anchors: data anchor name -> ``(x_pt, y_pt)`` from the box's top-left, y down.
    """

    svg: bytes
    plot_area: PlotArea
    anchors: dict[str, tuple[float, float]]


def _vl_convert() -> Any:
    """The ``vl_convert`` module.

    Raises:
        DataError: it is not installed (one line naming :data:`INSTALL`).
    """
    try:
        import vl_convert
    except ImportError:
        raise DataError(f"Vega-Lite and Altair panels need vl-convert: {INSTALL}") from None
    return vl_convert


@cache
def _register_font_folder(folder: str) -> None:
    """Let vl-convert lay text out with the font files in ``folder`` (once per process)."""
    _vl_convert().register_font_directory(folder)


def vega_config(font: str, font_size_pt: float) -> dict[str, Any]:
    """The Vega-Lite ``config`` giving a chart the figure's font: ``font`` (its first family) and every
    text size (``font_size_pt``, written in px, Vega's unit) of axes, legends, headers, titles and text
    marks. The chart is drawn transparent (``background`` none), as matplotlib panels are."""
    size_px = font_size_pt / PT_PER_PX
    labels = {"labelFontSize": size_px, "titleFontSize": size_px}
    return {
        "font": font_families(font)[0],
        "background": None,
        "axis": labels,
        "legend": labels,
        "header": labels,
        "title": {"fontSize": size_px, "subtitleFontSize": size_px},
        "text": {"fontSize": size_px},
        "mark": {"fontSize": size_px},
    }


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``over`` written over it, nested tables merged key by key."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


def boxed_spec(spec: Mapping[str, Any], width_pt: float, height_pt: float, *, font: str, font_size_pt: float,
               plot_area_pt: PlotArea | None = None) -> dict[str, Any]:
    """``spec`` sized to the box and given the figure's font (:func:`vega_config`, the spec's own ``config``
    over it). Its ``width``/``height`` become the box in px with ``autosize`` fit (padding contained), so
    Vega fits axes and legends in; or, given ``plot_area_pt`` (``(x0, y0, x1, y1)`` pt from the box's
    top-left: where ``[[align]]`` puts the view), the view's size with the rest of the box as its
    ``padding`` and no autosize, so the view is drawn exactly there.

    Raises:
        DataError: the spec is not a Vega-Lite view that can be fitted (a composite view, or not a table).
    """
    if not isinstance(spec, Mapping):
        raise DataError(f"a Vega-Lite spec is a JSON object, not {type(spec).__name__}")
    composite = [key for key in COMPOSITE if key in spec]
    if composite:
        raise DataError(f"a Vega-Lite {composite[0]} chart cannot be fitted to the panel's box (Vega-Lite's "
                        "autosize \"fit\" sizes single and layered views only); draw each view as its own panel")
    if "mark" not in spec and "layer" not in spec:
        raise DataError("a Vega-Lite spec has a \"mark\" or a \"layer\"; this one has neither")
    out = dict(spec)
    out["config"] = _merged(vega_config(font, font_size_pt), spec.get("config") or {})
    out.pop("$schema", None)  # the bundled Vega-Lite compiles it; no schema is fetched
    if plot_area_pt is None:
        out["width"] = width_pt / PT_PER_PX
        out["height"] = height_pt / PT_PER_PX
        out["autosize"] = {"type": "fit", "contains": "padding"}
        return out
    x0, y0, x1, y1 = plot_area_pt
    out["width"] = (x1 - x0) / PT_PER_PX
    out["height"] = (y1 - y0) / PT_PER_PX
    out["padding"] = {"left": x0 / PT_PER_PX, "top": y0 / PT_PER_PX, "right": (width_pt - x1) / PT_PER_PX,
                      "bottom": (height_pt - y1) / PT_PER_PX}
    out["autosize"] = {"type": "none", "contains": "content"}
    return out


def _anchor_marks(anchors: Mapping[str, tuple[Any, Any]], scale_types: Mapping[str, str]) -> dict[str, Any]:
    """A clipped, empty group at the view's origin holding one invisible symbol per anchor, placed by the
    chart's ``x`` and ``y`` scales (a band scale's band centre; a string on a time scale read as a date by
    Vega's ``toDate``, as Vega-Lite reads its data): clipped to no size, it adds nothing to the bounds Vega
    fits the chart by."""
    def channel(scale: str, value: Any) -> dict[str, Any]:
        if isinstance(value, str) and scale_types.get(scale) in ("time", "utc"):
            return {"scale": scale, "signal": f"toDate({json.dumps(value)})", "band": 0.5}
        return {"scale": scale, "value": value, "band": 0.5}

    zero = {"value": 0}
    return {"type": "group", "name": _ANCHOR_GROUP, "clip": True,
            "encode": {"update": {"x": zero, "y": zero, "width": zero, "height": zero}},
            "marks": [{"type": "symbol", "name": f"{_ANCHOR_GROUP}-{i}",
                       "encode": {"update": {"x": channel("x", x), "y": channel("y", y), "size": zero}}}
                      for i, (x, y) in enumerate(anchors.values())]}


def _convert(what: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)`` (pass ``allowed_base_urls=[]`` where data is read: no URL is fetched),
    vl-convert's failure said in one line: its JavaScript error, without the stack and the "conversion
    failed:" line above it.

    Raises:
        DataError: vl-convert refused the spec (its first line, naming ``what``).
    """
    try:
        return call(*args, **kwargs)
    except (ValueError, RuntimeError) as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip() and not line.strip().startswith("at ")]
        said = next((line for line in lines if not line.endswith("failed:")), lines[0] if lines else "failed")
        if "url not allowed" in said:
            said += ("; composer fetches nothing: give the data inline (values, a DataFrame), or in a spec file a "
                     "path inside the project")
        raise DataError(f"vl-convert cannot draw {what}: {said}") from None


def draw_vegalite(spec: Mapping[str, Any], width_pt: float, height_pt: float, *, font: str, font_size_pt: float,
                  anchors: Mapping[str, tuple[Any, Any]] | None = None, plot_area_pt: PlotArea | None = None,
                  what: str = "the chart") -> VegaDrawing:
    """A Vega-Lite ``spec`` drawn by vl-convert at a box of ``width_pt`` x ``height_pt`` in the figure's
    ``font`` and ``font_size_pt`` (see the module docstring), with its plot area and the data anchors
    ``anchors`` (name -> ``(x, y)`` in the data units of the chart's ``x`` and ``y`` scales); its view at
    ``plot_area_pt`` when given (:func:`boxed_spec`: an ``[[align]]``'s place for it).

    Raises:
        DataError: vl-convert is missing (naming what to install), the spec cannot be fitted or drawn, an
            anchor's value is outside its scale's domain (a category the chart does not have), or the
            chart has no ``x``/``y`` scale at its top level for anchors (naming ``what``).
    """
    call = partial(_draw, spec, width_pt, height_pt, font=font, font_size_pt=font_size_pt, anchors=anchors,
                   plot_area_pt=plot_area_pt, what=what)
    if in_worker():
        return call()  # a worker forks no worker that would need vl-convert after this
    try:
        return run_isolated(call, timeout_s=DEFAULT_TIMEOUT_S)  # never start vl-convert's threads here
    except WorkerFailure as exc:
        raise DataError(f"vl-convert drawing {what} {exc.worded('', None).strip()}") from None


def _draw(spec: Mapping[str, Any], width_pt: float, height_pt: float, *, font: str, font_size_pt: float,
          anchors: Mapping[str, tuple[Any, Any]] | None, plot_area_pt: PlotArea | None, what: str) -> VegaDrawing:
    """:func:`draw_vegalite` in this process."""
    from composer.text.fonts import matplotlib_font

    vlc = _vl_convert()
    found = matplotlib_font(tuple(font_families(font)))
    if found is not None:
        _register_font_folder(str(Path(found.file).parent))
    fitted = boxed_spec(spec, width_pt, height_pt, font=font, font_size_pt=font_size_pt, plot_area_pt=plot_area_pt)
    vega = _convert(what, vlc.vegalite_to_vega, fitted)
    anchors = dict(anchors or {})
    scales = {s.get("name"): s.get("type", "linear") for s in vega.get("scales", ())}
    if anchors:
        if not {"x", "y"} <= set(scales):
            raise DataError(f"{what} has no x and y scales at its top level for its data anchors "
                            f"({', '.join(anchors)}): anchors reach single and layered views with x and y encoded")
    traced = copy.deepcopy(vega)
    traced.setdefault("marks", []).append(_anchor_marks(anchors, scales))
    scene = _convert(what, vlc.vega_to_scenegraph, traced, allowed_base_urls=[])
    svg = _convert(what, vlc.vega_to_svg, vega, allowed_base_urls=[])
    plot_area, positions = _read_scene(scene, list(anchors), what)
    if abs(scene["width"] * PT_PER_PX - width_pt) > 0.01 or abs(scene["height"] * PT_PER_PX - height_pt) > 0.01:
        raise DataError(f"vl-convert drew {what} {fmt(scene['width'] * PT_PER_PX)} x "
                        f"{fmt(scene['height'] * PT_PER_PX)} pt, not its box's {fmt(width_pt)} x {fmt(height_pt)} pt")
    return VegaDrawing(svg=_in_pt(svg, width_pt, height_pt, what), plot_area=plot_area, anchors=positions)


def _read_scene(scene: Mapping[str, Any], names: list[str], what: str) -> tuple[PlotArea,
                                                                                 dict[str, tuple[float, float]]]:
    """The view rectangle and the anchor symbols' positions in a vl-convert scenegraph, in pt.

    The scenegraph is ``{"origin": [x, y], "scenegraph": root mark}``; the root mark's one item is the
    chart's view group (its ``x``, ``y``, ``width``, ``height`` in px from the origin), which holds the
    anchor group (:func:`_anchor_marks`) and its symbols.
    """
    ox, oy = scene["origin"]
    view = scene["scenegraph"]["items"][0]
    vx, vy = ox + view.get("x", 0), oy + view.get("y", 0)
    area = (vx * PT_PER_PX, vy * PT_PER_PX, (vx + view["width"]) * PT_PER_PX, (vy + view["height"]) * PT_PER_PX)
    group = next(m for m in view["items"] if m.get("name") == _ANCHOR_GROUP)["items"][0]
    gx, gy = vx + group.get("x", 0), vy + group.get("y", 0)
    marks = {m["name"]: m["items"] for m in group["items"]}
    positions: dict[str, tuple[float, float]] = {}
    for i, name in enumerate(names):
        items = marks.get(f"{_ANCHOR_GROUP}-{i}") or [{}]
        x, y = items[0].get("x"), items[0].get("y")
        if not all(isinstance(v, (int, float)) for v in (x, y)):
            raise DataError(f"data anchor {name!r} of {what} is not on the chart: a value outside its scale's "
                            "domain (a category it does not have?)")
        positions[name] = ((gx + x) * PT_PER_PX, (gy + y) * PT_PER_PX)
    return area, positions


def _in_pt(svg: str, width_pt: float, height_pt: float, what: str) -> bytes:
    """vl-convert's SVG (in px) as a document in pt: the root ``width_pt`` x ``height_pt`` with that viewBox,
    Vega's drawing inside a group scaled by :data:`PT_PER_PX`."""
    doc = parse_svg(svg.encode("utf-8"), source=what)
    root = etree.Element(svg_tag("svg"), nsmap=doc.nsmap)
    root.set("width", f"{fmt(width_pt)}pt")
    root.set("height", f"{fmt(height_pt)}pt")
    root.set("viewBox", f"0 0 {fmt(width_pt)} {fmt(height_pt)}")
    group = etree.SubElement(root, svg_tag("g"), transform=f"scale({fmt(PT_PER_PX)})")
    group.set("class", "vega")
    group.extend(list(doc))
    return write_svg(root)
