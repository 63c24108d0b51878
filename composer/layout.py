"""Load stage: ``layouts/NAME.toml`` -> :class:`composer.model.Figure`.

Every key is checked here, up front, so later stages never meet a bad value:
unknown keys, bad units, negative sizes, unknown enum values, duplicate or
unknown element names. Errors name the file, the key path, the bad value and
the valid choices, in the style of matplotlib's ``_api.check_in_list``.
References to anchors are checked by name here; data anchors published by a
renderer can only be checked after rendering (:mod:`composer.geometry`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any, Callable

from .errors import LayoutError
from .model import (ALIGNS, COMPASS, HEADS, ROUTES, SHAPE_KINDS, STYLES, WEIGHTS, Arrow, Figure,
                    FigureSpec, Panel, Position, Shape, Text, TextStyle)
from .units import to_pt

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_RENDER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*)$")
_MISSING = object()


class _Table:
    """A TOML table being read: tracks its key path and which keys were read.

    ``done()`` refuses keys nobody asked for, listing the valid ones.
    """

    def __init__(self, raw: Any, key: str, file: str):
        if not isinstance(raw, dict):
            raise LayoutError(f"expected a table, got {raw!r}", file=file, key=key or None)
        self.raw, self.key, self.file = raw, key, file
        self.asked: list[str] = []

    def path(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def error(self, name: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=self.path(name))

    def get(self, name: str, convert: Callable[[Any, str], Any] | None = None, default: Any = _MISSING) -> Any:
        self.asked.append(name)
        if name not in self.raw:
            if default is _MISSING:
                raise LayoutError("required key is missing", file=self.file, key=self.path(name))
            return default
        value = self.raw[name]
        return convert(value, self.path(name)) if convert else value

    def done(self) -> None:
        unknown = sorted(set(self.raw) - set(self.asked))
        if unknown:
            raise self.error(unknown[0], f"unknown key {unknown[0]!r}; valid keys are {', '.join(self.asked)}")


class _Reader:
    """Converters bound to one layout file (for error messages and paths)."""

    def __init__(self, path: Path, display: str):
        self.path, self.file = path, display

    def err(self, key: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=key)

    def length(self, value: Any, key: str) -> float:
        return to_pt(value, file=self.file, key=key)

    def offset(self, value: Any, key: str) -> float:
        return to_pt(value, file=self.file, key=key, allow_negative=True)

    def pair(self, value: Any, key: str, *, signed: bool = False) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self.err(key, f"{value!r} is not a pair; write [\"x\", \"y\"] with units, e.g. [\"4mm\", \"12mm\"]")
        conv = self.offset if signed else self.length
        return conv(value[0], f"{key}[0]"), conv(value[1], f"{key}[1]")

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.err(key, f"{value!r} is not a string")
        return value

    def name(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not _NAME.match(value):
            raise self.err(key, f"{value!r} is not a valid name; use letters, digits and _, not starting with a digit")
        return value

    def choice(self, choices: tuple[str, ...]) -> Callable[[Any, str], str]:
        def convert(value: Any, key: str) -> str:
            if value not in choices:
                raise self.err(key, f"{value!r} is not a valid value; supported values are "
                                    + ", ".join(repr(c) for c in choices))
            return value
        return convert

    def positive_number(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise self.err(key, f"{value!r} is not a positive number")
        return float(value)

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.err(key, f"{value!r} is not true or false")
        return value

    def fraction(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise self.err(key, f"{value!r} is not a number from 0 to 1")
        return float(value)

    def color(self, value: Any, key: str) -> str | None:
        """A colour matplotlib understands -> ``#rrggbb`` (or None for "none")."""
        if value == "none":
            return None
        from matplotlib.colors import to_hex, to_rgba
        try:
            rgba = to_rgba(value)
        except (ValueError, TypeError):
            raise self.err(key, f"{value!r} is not a colour; use a name (\"black\"), \"#rrggbb\" or \"none\"") from None
        if rgba[3] != 1.0:
            raise self.err(key, f"{value!r} has transparency; give the colour opaque and use an opacity key")
        return to_hex(rgba)

    def file_path(self, value: Any, key: str, suffixes: tuple[str, ...]) -> Path:
        """A path relative to the layout file; must exist and have a known suffix."""
        text = self.string(value, key)
        path = (self.path.parent / text).resolve()
        if path.suffix.lower() not in suffixes:
            raise self.err(key, f"{text!r} has an unsupported type; supported: {', '.join(suffixes)}")
        if not path.is_file():
            raise self.err(key, f"{text!r} not found (looked for {path})")
        return path

    def params(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.err(key, f"{value!r} is not a table; write {{ name = value }}")
        return dict(value)

    def position(self, value: Any, key: str, offset: tuple[float, float]) -> Position:
        """``["x", "y"]`` or ``"element.anchor"`` (anchor checked after render)."""
        dx, dy = offset
        if isinstance(value, str):
            element, dot, anchor = value.partition(".")
            if not dot or not _NAME.match(element) or not anchor:
                raise self.err(key, f"{value!r} is not a point; write [\"x\", \"y\"] or \"element.anchor\" "
                                    f"with anchor one of {', '.join(COMPASS)} or a data anchor")
            return Position(ref=(element, anchor), dx_pt=dx, dy_pt=dy, key=key)
        x, y = self.pair(value, key, signed=True)
        return Position(x_pt=x, y_pt=y, dx_pt=dx, dy_pt=dy, key=key)


def load_layout(path: Path, *, name: str | None = None, display: str | None = None) -> Figure:
    """Read and validate one layout file.

    Args:
        path: the ``.toml`` layout file.
        name: the figure's name (default: the file stem).
        display: how to name the file in errors (default: ``path``).

    Returns:
        A :class:`Figure` with every length in pt and every element reference
        checked against the declared names (compass anchors checked; data
        anchors checked after rendering).

    Raises:
        LayoutError: unreadable TOML, unknown key, bad value; the message names
            the file and key path.
    """
    path = Path(path)
    r = _Reader(path, display or str(path))
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"not valid TOML: {exc}", file=r.file) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"cannot read: {exc}", file=r.file) from None
    top = _Table(raw, "", r.file)
    spec = _figure_spec(r, top.get("figure", None, None))
    panels_raw = top.get("panels", None, {})
    panels = tuple(_panel(r, n, v, spec) for n, v in _Table(panels_raw, "panels", r.file).raw.items())
    texts = tuple(_text(r, t, f"text[{i}]", spec) for i, t in enumerate(_array(r, top.get("text", None, []), "text")))
    shapes = tuple(_shape(r, s, f"shape[{i}]", spec)
                   for i, s in enumerate(_array(r, top.get("shape", None, []), "shape")))
    arrows = tuple(_arrow(r, a, f"arrow[{i}]") for i, a in enumerate(_array(r, top.get("arrow", None, []), "arrow")))
    top.done()
    figure = Figure(name=name or path.stem, path=path, spec=spec, panels=panels, texts=texts,
                    shapes=shapes, arrows=arrows)
    _check_names(r, figure)
    return figure


def _array(r: _Reader, value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise r.err(key, f"expected an array of tables ([[{key}]]), got {value!r}")
    return value


def _figure_spec(r: _Reader, raw: Any) -> FigureSpec:
    if raw is None:
        raise LayoutError("missing [figure] table (width and height are required)", file=r.file, key="figure")
    t = _Table(raw, "figure", r.file)
    width_text = t.get("width", r.string)
    width = r.length(width_text, "figure.width")
    height_text = t.get("height", r.string)
    height = r.length(height_text, "figure.height")
    for key, value, text in (("figure.width", width, width_text), ("figure.height", height, height_text)):
        if value <= 0:
            raise r.err(key, f"{text!r} is zero; the canvas must have a positive size")
    font = t.get("font", r.string, "DejaVu Sans")
    font_size = t.get("font_size", r.length, 7.0)
    background = t.get("background", r.color, "#ffffff")
    data = t.get("data", lambda v, k: r.file_path(v, k, (".npz", ".json", ".csv")), None)
    params = t.get("params", r.params, {})
    label_size = t.get("label_size", r.length, font_size + 1.0)
    label_weight = t.get("label_weight", r.choice(WEIGHTS), "bold")
    label_color = t.get("label_color", r.color, "#000000")
    label_offset = t.get("label_offset", lambda v, k: r.pair(v, k, signed=True), (0.0, -2.0))
    raster_ppi = t.get("raster_ppi", r.positive_number, 300.0)
    t.done()
    label = TextStyle(font=font, size_pt=label_size, weight=label_weight, color=label_color or "#000000")
    return FigureSpec(width_pt=width, height_pt=height, width_text=width_text, height_text=height_text,
                      font=font, font_size_pt=font_size, background=background, data=data, params=params,
                      label=label, label_offset_pt=label_offset, raster_ppi=raster_ppi)


def _panel(r: _Reader, name: str, raw: Any, spec: FigureSpec) -> Panel:
    key = f"panels.{name}"
    r.name(name, key)
    t = _Table(raw, key, r.file)
    sources = [k for k in ("render", "svg", "image") if k in t.raw]
    if len(sources) != 1:
        raise r.err(key, f"give exactly one of render, svg, image (got {', '.join(sources) or 'none'})")
    kind = sources[0]
    if kind == "render":
        source = t.get("render", r.string)
        if not _RENDER.match(source):
            raise r.err(f"{key}.render", f"{source!r} is not \"module:function\" (a function in panels/module.py)")
        t.asked += ["svg", "image"]
    elif kind == "svg":
        t.asked.append("render")
        source = t.get("svg", lambda v, k: r.file_path(v, k, (".svg",)))
        t.asked.append("image")
    else:
        t.asked += ["render", "svg"]
        source = t.get("image", lambda v, k: r.file_path(v, k, (".png", ".jpg", ".jpeg")))
    offset = t.get("offset", lambda v, k: r.pair(v, k, signed=True), (0.0, 0.0))
    at = t.get("at", lambda v, k: r.position(v, k, offset))
    size = t.get("size", r.pair)
    if size[0] <= 0 or size[1] <= 0:
        raise r.err(f"{key}.size", f"{t.raw['size']!r} has a zero width or height; a panel must have a positive size")
    label = t.get("label", r.string, None)
    title = t.get("title", r.string, None)
    params = t.get("params", r.params, {})
    data = t.get("data", lambda v, k: r.file_path(v, k, (".npz", ".json", ".csv")), None)
    t.done()
    return Panel(name=name, kind=kind, source=source, at=at, size_pt=size, label=label, title=title,
                 params=params, data=data, key=key)


def _text_style(r: _Reader, t: _Table, spec: FigureSpec, prefix: str = "") -> TextStyle:
    return TextStyle(
        font=t.get(f"{prefix}font", r.string, spec.font),
        size_pt=t.get(f"{prefix}size", r.length, spec.font_size_pt),
        weight=t.get(f"{prefix}weight", r.choice(WEIGHTS), "normal"),
        style=t.get(f"{prefix}style", r.choice(STYLES), "normal"),
        color=t.get(f"{prefix}color", r.color, "#000000") or "#000000",
        opacity=t.get(f"{prefix}opacity", r.fraction, 1.0),
    )


def _text(r: _Reader, raw: Any, key: str, spec: FigureSpec) -> Text:
    t = _Table(raw, key, r.file)
    text = t.get("text", r.string)
    name = t.get("name", r.name, None)
    offset = t.get("offset", lambda v, k: r.pair(v, k, signed=True), (0.0, 0.0))
    at = t.get("at", lambda v, k: r.position(v, k, offset))
    anchor = t.get("anchor", r.choice(tuple(COMPASS)), "center")
    align = t.get("align", r.choice(ALIGNS), None)
    style = _text_style(r, t, spec)
    t.done()
    return Text(text=text, at=at, anchor=anchor, style=style, align=align, name=name, key=key)


def _shape(r: _Reader, raw: Any, key: str, spec: FigureSpec) -> Shape:
    t = _Table(raw, key, r.file)
    kind = t.get("kind", r.choice(SHAPE_KINDS), "rect")
    name = t.get("name", r.name, None)
    offset = t.get("offset", lambda v, k: r.pair(v, k, signed=True), (0.0, 0.0))
    at = t.get("at", lambda v, k: r.position(v, k, offset))
    anchor = t.get("anchor", r.choice(tuple(COMPASS)), "nw" if kind == "rect" else "center")
    if kind == "rect":
        size = t.get("size", r.pair)
        t.asked.append("radius")
        corner = t.get("corner", r.length, 0.0)
    else:
        t.asked.append("size")
        radius = t.get("radius", r.length)
        size = (2 * radius, 2 * radius)
        corner = 0.0
    if size[0] <= 0 or size[1] <= 0:
        size_key = "size" if kind == "rect" else "radius"
        raise r.err(f"{key}.{size_key}", f"{t.raw[size_key]!r} has a zero size; a shape must have a positive size")
    fill = t.get("fill", r.color, None)
    stroke = t.get("stroke", r.color, "#000000")
    stroke_width = t.get("stroke_width", r.length, 0.5)
    dash = t.get("dash", r.boolean, False)
    opacity = t.get("opacity", r.fraction, 1.0)
    text = t.get("text", r.string, None)
    text_style = _text_style(r, t, spec, prefix="text_")
    t.done()
    return Shape(kind=kind, at=at, anchor=anchor, size_pt=size, name=name, corner_pt=corner, fill=fill,
                 stroke=stroke, stroke_width_pt=stroke_width, dash=dash, opacity=opacity, text=text,
                 text_style=text_style, key=key)


def _arrow(r: _Reader, raw: Any, key: str) -> Arrow:
    t = _Table(raw, key, r.file)
    start = t.get("from", lambda v, k: r.position(v, k, (0.0, 0.0)))
    end = t.get("to", lambda v, k: r.position(v, k, (0.0, 0.0)))
    width = t.get("width", r.length, 0.75)
    arrow = Arrow(
        start=start, end=end,
        route=t.get("route", r.choice(ROUTES), "straight"),
        color=t.get("color", r.color, "#000000") or "#000000",
        width_pt=width,
        head=t.get("head", r.choice(HEADS), "end"),
        head_length_pt=t.get("head_length", r.length, max(4.0, 4.5 * width)),
        head_width_pt=t.get("head_width", r.length, max(3.2, 3.6 * width)),
        gap_pt=t.get("gap", r.length, 1.0),
        dash=t.get("dash", r.boolean, False),
        key=key,
    )
    t.done()
    return arrow


def _check_names(r: _Reader, figure: Figure) -> None:
    """Names are unique; every reference names an element that exists."""
    seen: dict[str, str] = {}
    for element, key in ([(p.name, p.key) for p in figure.panels]
                         + [(s.name, f"{s.key}.name") for s in figure.shapes if s.name]
                         + [(t.name, f"{t.key}.name") for t in figure.texts if t.name]):
        if element in seen:
            raise r.err(key, f"name {element!r} is already used by {seen[element]}")
        seen[element] = key
    names = figure.element_names()
    positions = [p.at for p in figure.panels] + [t.at for t in figure.texts] + [s.at for s in figure.shapes]
    positions += [a.start for a in figure.arrows] + [a.end for a in figure.arrows]
    renderers = {p.name for p in figure.panels if p.kind == "render"}
    for pos in positions:
        if pos.ref is None:
            continue
        element, anchor = pos.ref
        if element not in names:
            raise r.err(pos.key, f"{element + '.' + anchor!r} refers to unknown element {element!r}; "
                                 f"elements are {', '.join(names) or '(none)'}")
        if anchor not in COMPASS and element not in renderers:
            raise r.err(pos.key, f"{element + '.' + anchor!r} has unknown anchor {anchor!r}; "
                                 f"valid anchors are {', '.join(COMPASS)}")
