"""The panel-source protocol and its registry (:mod:`composer.stages.sources` lists the built-in ones).

A panel source is what draws a panel: the key of ``[panels.NAME]`` that names it
(``render = "module:function"``, ``svg = "file.svg"``, ...). Each source is one
module holding one :class:`PanelSource` subclass, registered once
(:func:`register`); the stages ask the registry (:func:`source_of`) instead of
comparing the panel's ``kind`` with names:

- the **loader** (layout layer) reads the source's :class:`~composer.layout.sources.SourceTable`
  (its keys, what its value is, which shared keys it takes, whether matplotlib draws it),
  which :func:`register` hands down to :mod:`composer.layout.sources`; the JSON Schema and the
  layout reference list the same keys;
- the **inputs** stage calls :meth:`PanelSource.read` (a file read and sanitized, a PDF page
  converted) and the **manifest** hashes :meth:`PanelSource.files` (what the drawing reads beyond
  the files the layout names);
- the **render** stage draws the panels whose table says ``matplotlib`` (in forked workers, cached);
- the **geometry** stage takes :meth:`PanelSource.plot_area` and :meth:`PanelSource.anchors`;
- the **compose** stage calls :meth:`PanelSource.draw`: the panel's group on the canvas, in pt.

A new source is its module (a subclass of :class:`PanelSource`, or of :class:`DrawnSource` when
it makes an SVG document the size of its box), its tests, its entry in the layout reference
(its keys' ``doc``), and, for a built-in one, one line in :data:`composer.stages.sources.BUILTIN`
(docs/design.md, "Extension points").
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from lxml import etree

from composer.errors import DataError, LayoutError, SvgError
from composer.kinds import Registry
from composer.kinds.outputs import PdfPage
from composer.layout import sources as tables
from composer.layout.model import Figure, Panel
from composer.layout.sources import SourceTable
from composer.stages.fragment import import_fragment
from composer.stages.geometry import Box
from composer.svg.io import parse_svg
from composer.svg.viewbox import place, view_box
from composer.units import PX_PER_UNIT

PlotArea = tuple[float, float, float, float]
#: a text of a panel's file as ``compose check`` reads it: its size (pt, in the file) and its characters
SourceText = tuple[float, str]


class Rendered(Protocol):
    """What the render stage made of a matplotlib panel (:class:`composer.stages.render.RenderedPanel`)."""

    @property
    def svg(self) -> bytes:
        """The panel's SVG document, the size of its box."""

    @property
    def anchors(self) -> dict[str, tuple[float, float]]:
        """Data anchor name -> (x_pt, y_pt) from the panel's top-left, y down."""

    @property
    def plot_area(self) -> PlotArea | None:
        """The union of its axes, (x0, y0, x1, y1) in pt from its top-left, or None."""


@dataclass(frozen=True)
class Reading:
    """What :meth:`PanelSource.read` may use.

    Attributes:
        root: the project folder (files are read from inside it only).
        panels_dir: the project's ``panels/`` folder (its Python modules).
        file: the layout file as messages name it.
        display: a path as messages show it (relative to the project when inside it).
    """

    root: Path
    panels_dir: Path
    file: str
    display: Callable[[Path], str]


@dataclass(frozen=True)
class Drawing:
    """What :meth:`PanelSource.draw` may use.

    Attributes:
        figure: the loaded layout (``figure.spec.raster_ppi``, the layout's folder).
        file: the layout file as messages name it.
        document: what :meth:`PanelSource.read` returned for this panel (None: it read nothing).
        rendered: the render stage's result for this panel (matplotlib sources only), else None.
        size_pt: the panel's box, ``(width_pt, height_pt)`` (:func:`composer.stages.geometry.panel_boxes`), for a
            source whose plot area and anchors depend on it (a Vega-Lite chart fitted to it); None: not known.
    """

    figure: Figure
    file: str
    document: bytes | None
    rendered: Rendered | None
    size_pt: tuple[float, float] | None = None


class PanelSource(ABC):
    """One kind of panel source. Subclasses set :attr:`table` and implement :meth:`draw`.

    Attributes:
        table: the source's keys and flags as the layout format knows them (its name is
            ``table.name``, the key that chooses it).
        imported: its SVG comes from a file the user made (an SVG, a PDF page, an image): its text
            is kept as written (not pinned or outlined, :mod:`composer.text.pin`), its fonts are
            checked as the file's (:func:`composer.text.fonts.check_svg_fonts`), and messages name
            the file. False for what composer draws itself (matplotlib's panels).
    """

    table: ClassVar[SourceTable]
    imported: ClassVar[bool] = False

    @property
    def name(self) -> str:
        """The source's name: the key that chooses it (``"pdf"``)."""
        return self.table.name

    def read(self, panel: Panel, reading: Reading) -> bytes | None:
        """What the inputs stage reads for ``panel`` (kept as ``Inputs.documents[panel.name]`` and given to
        :meth:`draw` as ``Drawing.document``), or None (the default: nothing to read).

        Raises:
            LayoutError, SvgError, DataError: one line naming the layout file and key.
        """
        return None

    def files(self, panel: Panel, reading: Reading) -> tuple[Path, ...]:
        """Files the panel's drawing reads besides those its keys name (the loader records those:
        ``Figure.files``), hashed into the build manifest before they are read, so a change rebuilds
        (:func:`composer.pipeline.build`); default: none."""
        return ()

    @abstractmethod
    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """The panel on the canvas: a group with id ``panel-NAME`` drawn inside ``box`` (canvas pt,
        y down), its content fitted as the source says.

        Raises:
            SvgError, DataError: one line naming the layout file and key.
        """

    def texts(self, panel: Panel) -> tuple[SourceText, ...] | None:
        """What ``compose check`` cannot read of the panel's text from its SVG, read from its file:
        ``(size_pt, text)`` of each text, sizes in the file's own units before the panel is fitted (a PDF
        page's text, drawn as outlines of no size once converted); None (the default): the SVG says it."""
        return None

    def pdf_page(self, panel: Panel, document: bytes | None) -> PdfPage | None:
        """The page of a PDF file a PDF output may draw as it is in place of the panel's drawing (its fonts,
        text and vectors kept; :class:`composer.kinds.outputs.PdfPage`), given what :meth:`read` returned;
        None (the default): every output draws the panel's SVG."""
        return None

    def file_aspect(self, panel: Panel, document: bytes) -> float | None:
        """The width / height of the picture the panel's file draws (``aspect = "auto"``), given what
        :meth:`read` returned; None (the default): the source has no aspect of its own (it draws at its box).

        Raises:
            SvgError, DataError: the document cannot be read (naming the file).
        """
        return None

    def plot_area(self, panel: Panel, drawing: Drawing) -> PlotArea | None:
        """The panel's plot area, ``(x0, y0, x1, y1)`` in pt from its box's top-left (y down), for
        ``label_at = "plot"`` and texts ``beside`` it; None (the default): its whole box."""
        return None

    def anchors(self, panel: Panel, drawing: Drawing) -> Mapping[str, tuple[float, float]] | None:
        """The panel's data anchors, name -> ``(x_pt, y_pt)`` from its box's top-left (y down), that
        ``"panel.name"`` points reach; None (the default): compass anchors only."""
        return None


class DrawnSource(PanelSource):
    """A source that makes an SVG document the size of its box: implement :meth:`svg`; :meth:`draw`
    imports it at the box, scale 1 (as a matplotlib panel is)."""

    @abstractmethod
    def svg(self, panel: Panel, width_pt: float, height_pt: float, drawing: Drawing) -> bytes:
        """The panel as an SVG document ``width_pt`` x ``height_pt`` (its viewBox ``0 0 width_pt height_pt``:
        one user unit is one pt)."""

    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """:meth:`svg` at ``box``'s size, its ids prefixed with the panel's name, placed at ``box``."""
        return placed(self.svg(panel, box.width_pt, box.height_pt, drawing), panel, box, source=f"panel {panel.name}",
                      fit="exact", renumber=True)


def placed(svg: bytes, panel: Panel, box: Box, *, source: str, fit: str, renumber: bool,
           before: Callable[[etree._Element], Any] | None = None) -> etree._Element:
    """An SVG document made the group ``panel-NAME`` (:func:`composer.stages.fragment.import_fragment`) and
    placed in ``box`` (:func:`composer.svg.viewbox.place`: ``"exact"`` scales its viewBox onto the
    box, ``"contain"`` fits it keeping its aspect as its ``preserveAspectRatio`` says).

    ``before``: called with the parsed document before its ids change (to find elements by what the
    file calls them); its result is not kept.

    Raises:
        SvgError: the document cannot be parsed or has no usable viewBox (naming ``source``).
    """
    doc = parse_svg(svg, source=source)
    vb = view_box(doc, source=source)
    aspect = doc.get("preserveAspectRatio")
    if before is not None:
        before(doc)
    group = import_fragment(doc, name=panel.name, group_id=f"panel-{panel.name}", source=source,
                            renumber=renumber, viewport=fit == "contain",
                            size_px=(box.width_pt * PX_PER_UNIT["pt"], box.height_pt * PX_PER_UNIT["pt"]))
    place(group, vb, x_pt=box.x_pt, y_pt=box.y_pt, width_pt=box.width_pt, height_pt=box.height_pt, fit=fit,
          aspect=aspect)
    return group


def svg_aspect(document: bytes, *, source: str) -> float:
    """The width / height of an SVG document's viewBox (:func:`composer.svg.viewbox.view_box`): the aspect
    ``placed(..., fit="contain")`` draws it at.

    Raises:
        SvgError: the document cannot be parsed or has no usable viewBox (naming ``source``).
    """
    vb = view_box(parse_svg(document, source=source), source=source)
    return vb.width / vb.height


def read_project_file(panel: Panel, reading: Reading, read: Callable[[Path, str, str], bytes]) -> bytes:
    """``read(path, display, shown)`` of the file a file source's panel names: ``display`` as messages show
    the file, ``shown`` as the layout wrote it; an SvgError then names the layout key and the file as
    written (``'../assets/logo.svg' is not usable: ...``).

    Raises:
        LayoutError: the file is outside the project (naming ``panels.NAME.<source>``).
        SvgError: naming ``panels.NAME.<source>``. DataError: as ``read`` raises it.
    """
    path = Path(panel.source)
    if not path.resolve().is_relative_to(reading.root):
        raise LayoutError(f"{path} is outside the project {reading.root}; composer imports files from inside "
                          "the project only", file=reading.file, key=f"{panel.key}.{panel.kind}")
    display = reading.display(path)
    layout_dir = Path(reading.file).parent if os.path.isabs(reading.file) else (reading.root / reading.file).parent
    shown = os.path.relpath(panel.source, layout_dir)
    try:
        return read(path, display, shown)
    except SvgError as exc:
        detail = exc.message if exc.file == display else str(exc)  # name a nested image file
        raise SvgError(f"{shown!r} is not usable: {detail}", file=reading.file,
                       key=f"{panel.key}.{panel.kind}") from None


@contextmanager
def naming_the_file(panel: Panel, figure: Figure, file: str) -> Iterator[None]:
    """An SvgError or DataError raised while an imported file is drawn names the layout key and the path as
    written there (``'../assets/logo.svg' is not usable: ...``), not only the absolute file."""
    try:
        yield
    except (SvgError, DataError) as exc:
        shown = os.path.relpath(panel.source, figure.path.parent)
        raise type(exc)(f"{shown!r} is not usable: {exc.message}", file=file,
                        key=f"{panel.key}.{panel.kind}") from None


#: the registered sources, by name, in registration order (:class:`composer.kinds.Registry`)
SOURCES: Registry[PanelSource] = Registry("panel source")


def register(source: PanelSource) -> None:
    """Make ``source`` a panel source: its table goes to the layout format
    (:func:`composer.layout.sources.register`), the source to the stages.

    Raises:
        ValueError: a source of that name is registered, or its table clashes with the format.
    """
    tables.register(source.table)
    SOURCES.add(source)


def unregister(name: str) -> None:
    """Remove the source ``name`` from the stages and from the layout format.

    Raises:
        KeyError: no source of that name is registered.
    """
    SOURCES.remove(name)
    tables.unregister(name)


@contextmanager
def registered(*added: PanelSource) -> Iterator[tuple[PanelSource, ...]]:
    """Register ``added`` for the time of a ``with`` block, then unregister them (even on an error)."""
    done: list[PanelSource] = []
    try:
        for source in added:
            register(source)
            done.append(source)
        yield tuple(done)
    finally:
        for source in reversed(done):
            unregister(source.name)


def source_of(panel: Panel) -> PanelSource:
    """The registered source that draws ``panel`` (by its ``kind``).

    Raises:
        KeyError: the panel's source is not registered (a panel loaded while it was).
    """
    return SOURCES[panel.kind]


def sources() -> tuple[PanelSource, ...]:
    """Every registered source, in registration order."""
    return tuple(SOURCES)
