"""Panel sources: what draws a panel, one module each, found through one registry.

The protocol and the registry are in :mod:`composer.stages.sources.base`
(:class:`PanelSource`, :func:`register`, :func:`unregister`, :func:`source_of`);
the layout side of each source (its keys) in :mod:`composer.layout.sources`.
Importing this package registers the built-in sources, in the order the
layout reference lists their keys (:data:`BUILTIN`):

- :mod:`~composer.stages.sources.render`: ``render = "module:function"``, a matplotlib function;
- :mod:`~composer.stages.sources.svg`: ``svg = "file.svg"``;
- :mod:`~composer.stages.sources.image`: ``image = "file.png"`` (or JPEG);
- :mod:`~composer.stages.sources.pdf`: ``pdf = "file.pdf"`` with ``page``;
- :mod:`~composer.stages.sources.vegalite`: ``vegalite = "chart.vl.json"``, a Vega-Lite spec drawn by vl-convert.

A test or a plug-in adds its own with ``register(MySource())`` (and removes it
with ``unregister("name")``; ``with registered(MySource()):`` for a block);
docs/design.md ("Extension points") lists what a new source touches.
"""

from __future__ import annotations

from composer.stages.sources.base import (
    Drawing,
    DrawnSource,
    PanelSource,
    PlotArea,
    Reading,
    Rendered,
    placed,
    register,
    registered,
    source_of,
    sources,
    unregister,
)
from composer.stages.sources.image import ImageSource
from composer.stages.sources.pdf import PdfSource
from composer.stages.sources.render import RenderSource
from composer.stages.sources.svg import SvgSource
from composer.stages.sources.vegalite import VegaLiteSource

__all__ = ["BUILTIN", "Drawing", "DrawnSource", "PanelSource", "PlotArea", "Reading", "Rendered", "placed",
           "register", "registered", "source_of", "sources", "unregister"]

#: the built-in sources, registered when this package is imported; a new built-in source is one line here
BUILTIN: tuple[PanelSource, ...] = (RenderSource(), SvgSource(), ImageSource(), PdfSource(), VegaLiteSource())

for _source in BUILTIN:
    register(_source)
