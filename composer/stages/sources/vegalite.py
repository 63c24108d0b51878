"""The ``vegalite`` panel source: a Vega-Lite spec file (JSON), drawn by vl-convert at the panel's box.

``vegalite = "charts/x.vl.json"`` (relative to the layout file) names the spec; its own key ``anchors``
(``anchors = {peak = [5, 3.2]}``, in the data units of the chart's ``x`` and ``y``) the data anchors it
offers to ``"panel.name"`` points. The drawing is :func:`composer.stages.vegasvg.draw_vegalite`'s: the
spec fitted to the box in the figure's font and size, its plot area and anchors read from vl-convert's
scenegraph. Its text is ``<text>``, kept as written (an imported file's: ``compose check`` reads its sizes).

Data the spec names by ``url`` is read by the inputs stage from inside the project only (paths relative
to the project folder; a URL or a path outside it is refused), hashed into the manifest
(:meth:`VegaLiteSource.files`) and inlined as ``values`` (``format.type`` from the suffix when the spec
gives none); vl-convert itself fetches nothing.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from composer.errors import DataError, LayoutError
from composer.layout.keys import Key, ValueType
from composer.layout.model import Panel
from composer.layout.reader import Reader
from composer.layout.sources import SourceTable, file_type
from composer.stages.sources.base import Drawing, DrawnSource, PlotArea, Reading, read_project_file
from composer.stages.vegasvg import VegaDrawing, draw_vegalite
from composer.svg.io import read_limited

#: the largest spec file read (bytes), and the largest data file it may name
MAX_SPEC_BYTES = 16 * 1024 * 1024

#: Vega-Lite data formats by file suffix (``format.type``)
DATA_FORMATS = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".topojson": "topojson"}

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def data_anchors(reader: Reader, value: Any, key: str) -> dict[str, tuple[Any, Any]]:
    """``anchors``: a table of name -> ``[x, y]``, each a number or a string (a category, a date), in the data
    units of the chart's ``x`` and ``y``.

    Raises:
        LayoutError: not a table, a name that is not an identifier, or a value that is not a pair.
    """
    if not isinstance(value, dict):
        raise reader.err(key, f"{value!r} is not a table of name = [x, y] (data units of the chart's x and y)")
    out: dict[str, tuple[Any, Any]] = {}
    for name, pair in value.items():
        if not _IDENT.match(name):
            raise reader.err(f"{key}.{name}", f"{name!r} is not an anchor name (a word of letters, digits and _)")
        ok = isinstance(pair, list) and len(pair) == 2 and all(
            isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in pair)
        if not ok:
            raise reader.err(f"{key}.{name}", f"{pair!r} is not [x, y]: two numbers or strings in the data units "
                                              "of the chart's x and y")
        out[name] = (pair[0], pair[1])
    return out


def _data_urls(node: Any) -> Iterator[dict[str, Any]]:
    """Every data table of a spec that names a ``url`` (at any depth: layers, lookups)."""
    if isinstance(node, dict):
        data = node.get("data")
        if isinstance(data, dict) and isinstance(data.get("url"), str):
            yield data
        for value in node.values():
            yield from _data_urls(value)
    elif isinstance(node, list):
        for value in node:
            yield from _data_urls(value)


class VegaLiteSource(DrawnSource):
    """A Vega-Lite spec file's panel (see the module docstring)."""

    table = SourceTable(
        key=Key("vegalite", "vegalite_file", "a Vega-Lite spec (JSON), drawn by vl-convert at the box in the "
                                             "figure's font and size, with its plot area; needs "
                                             "`figure-composer[vega]`"),
        keys=(Key("anchors", "vega_anchors", "vegalite panels: data anchors, name = `[x, y]` in the data units "
                                             "of the chart's x and y (`\"panel.name\"` points reach them)",
                  default={}),),
        note="a vegalite panel draws its spec file",
        types=(file_type("vegalite_file", (".json",), r"(?i)\.json$", "a Vega-Lite spec (JSON)"),
               ValueType("vega_anchors", "table of name = [x, y]", data_anchors,
                         {"type": "object", "additionalProperties": {
                             "type": "array", "minItems": 2, "maxItems": 2,
                             "items": {"type": ["number", "string"]}}})))
    imported = True

    def _spec_files(self, panel: Panel, reading: Reading) -> tuple[dict[str, Any], list[tuple[dict[str, Any], Path]]]:
        """The spec and each of its data tables naming a url with the project file it names."""
        text = read_project_file(panel, reading, lambda path, display, _: read_limited(
            path, limit=MAX_SPEC_BYTES, source=display))
        key = f"{panel.key}.{panel.kind}"
        try:
            spec = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(f"{reading.display(Path(panel.source))} is not JSON: {exc}", file=reading.file,
                            key=key) from None
        if not isinstance(spec, dict):
            raise DataError(f"{reading.display(Path(panel.source))} is not a Vega-Lite spec (a JSON object)",
                            file=reading.file, key=key)
        found = []
        for data in _data_urls(spec):
            url = data["url"]
            path = (reading.root / url).resolve()
            if "://" in url or url.startswith("//") or not path.is_relative_to(reading.root.resolve()):
                raise LayoutError(f"the spec's data url {url!r} is outside the project {reading.root}; composer "
                                  "reads data from inside the project only (a path relative to it)",
                                  file=reading.file, key=key)
            if not path.is_file():
                raise DataError(f"the spec's data file {url!r} does not exist (paths are relative to the project "
                                f"{reading.root})", file=reading.file, key=key)
            found.append((data, path))
        return spec, found

    def files(self, panel: Panel, reading: Reading) -> tuple[Path, ...]:
        """The data files the spec names by ``url`` (relative to the project)."""
        return tuple(path for _, path in self._spec_files(panel, reading)[1])

    def read(self, panel: Panel, reading: Reading) -> bytes:
        """The spec with its data files inlined (as ``values``, ``format.type`` from the suffix), as JSON.

        Raises:
            LayoutError: the spec or a data file is outside the project. DataError: the spec is not JSON, a data
                file is missing.
        """
        spec, found = self._spec_files(panel, reading)
        for data, path in found:
            text = read_limited(path, limit=MAX_SPEC_BYTES, source=reading.display(path)).decode("utf-8")
            fmt_ = dict(data.get("format") or {})
            fmt_.setdefault("type", DATA_FORMATS.get(path.suffix.lower(), "csv"))
            data.pop("url")
            data["values"] = text
            data["format"] = fmt_
        return json.dumps(spec, sort_keys=True).encode("utf-8")

    def _drawn(self, panel: Panel, drawing: Drawing) -> VegaDrawing:
        """The chart drawn at the panel's box (once per spec, box and font)."""
        assert drawing.document is not None and drawing.size_pt is not None
        spec = drawing.document.decode("utf-8")
        anchors = tuple((panel.options.get("anchors") or {}).items())
        spec_ = drawing.figure.spec
        try:
            return _draw_cached(spec, *drawing.size_pt, spec_.font, spec_.font_size_pt, anchors,
                                f"panel {panel.name}'s spec")
        except DataError as exc:
            raise DataError(exc.message, file=drawing.file, key=f"{panel.key}.{panel.kind}") from None

    def svg(self, panel: Panel, width_pt: float, height_pt: float, drawing: Drawing) -> bytes:
        """The chart at ``width_pt`` x ``height_pt`` (:func:`draw_vegalite`)."""
        return self._drawn(panel, dataclasses.replace(drawing, size_pt=(width_pt, height_pt))).svg

    def plot_area(self, panel: Panel, drawing: Drawing) -> PlotArea | None:
        """The chart's view as Vega laid it out (:attr:`VegaDrawing.plot_area`)."""
        return self._drawn(panel, drawing).plot_area if drawing.size_pt is not None else None

    def anchors(self, panel: Panel, drawing: Drawing) -> Mapping[str, tuple[float, float]] | None:
        """The ``anchors`` key's points through the chart's scales (:attr:`VegaDrawing.anchors`)."""
        return self._drawn(panel, drawing).anchors if drawing.size_pt is not None else None


@lru_cache(maxsize=32)
def _draw_cached(spec: str, width_pt: float, height_pt: float, font: str, font_size_pt: float,
                 anchors: tuple[tuple[str, tuple[Any, Any]], ...], what: str) -> VegaDrawing:
    """:func:`draw_vegalite` of a spec as JSON text, remembered: geometry and compose ask for one drawing."""
    return draw_vegalite(json.loads(spec), width_pt, height_pt, font=font, font_size_pt=font_size_pt,
                         anchors=dict(anchors), what=what)
