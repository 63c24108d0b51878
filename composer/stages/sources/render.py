"""The ``render`` panel source: a matplotlib function drawn at the panel's final size.

``render = "module:function"`` names ``function(fig, data, **params)`` in
``panels/module.py``. Unlike a file source, the panel is drawn by the render
stage (:func:`composer.pipeline.render_panels`: forked workers, the panel
cache, ``[[align]]`` groups), so its table says ``matplotlib``: guides draw
from it, ``[[align]]`` aligns it, ``aspect_of = "plot"`` locks its axes, and once
drawn it reports its plot area and data anchors. The renderer is loaded by the
inputs stage (:func:`composer.stages.inputs.read_figure_inputs`, with the
module's ``values()``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lxml import etree

from composer.layout.keys import Key, ValueType
from composer.layout.model import Panel
from composer.layout.reader import Reader
from composer.layout.sources import SHARED_KEYS, SourceTable
from composer.stages.geometry import Box
from composer.stages.sources.base import Drawing, PanelSource, PlotArea, Reading, placed

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_RENDERER = re.compile(rf"^{_IDENT}:{_IDENT}$")


def renderer(reader: Reader, value: Any, key: str) -> str:
    """``render``: ``"module:function"``, a function in ``panels/module.py``.

    Raises:
        LayoutError: not a string of that form, naming the key.
    """
    source = reader.string(value, key)
    if not _RENDERER.match(source):
        raise reader.err(key, f"{source!r} is not \"module:function\" (a function in panels/module.py)")
    return source


class RenderSource(PanelSource):
    """A matplotlib function's panel (see the module docstring)."""

    table = SourceTable(
        key=Key("render", "renderer", "`\"module:function\"`: `function(fig, data, **params)` in "
                                      "`panels/module.py`"),
        takes=frozenset(SHARED_KEYS), matplotlib=True,
        types=(ValueType("renderer", "`\"module:function\"`", renderer, {
            "type": "string", "pattern": rf"^{_IDENT}:{_IDENT}$",
            "description": "\"module:function\": a function in panels/module.py"}),))

    def files(self, panel: Panel, reading: Reading) -> tuple[Path, ...]:
        """The panel's module, ``panels/module.py`` (when it exists: a renderer given in code has none);
        the project modules it imports join the manifest with the renderer's digest
        (:func:`composer.incremental.cache.renderer_digest`)."""
        module = str(panel.source).split(":")[0]
        path = reading.panels_dir / f"{module}.py"
        return (path,) if path.is_file() else ()

    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """The SVG the render stage made, the size of ``box``, placed at it (scale 1, its ids kept)."""
        assert drawing.rendered is not None, f"panel {panel.name!r} was not rendered"
        return placed(drawing.rendered.svg, panel, box, source=f"panel {panel.name}", fit="exact", renumber=False)

    def plot_area(self, panel: Panel, drawing: Drawing) -> PlotArea | None:
        """The union of its axes as matplotlib last drew them (:attr:`RenderedPanel.plot_area`)."""
        return drawing.rendered.plot_area if drawing.rendered is not None else None

    def anchors(self, panel: Panel, drawing: Drawing) -> Mapping[str, tuple[float, float]] | None:
        """The data anchors its renderer returned (:attr:`RenderedPanel.anchors`)."""
        return drawing.rendered.anchors if drawing.rendered is not None else None
