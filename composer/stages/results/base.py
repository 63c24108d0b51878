"""The result-kind protocol and its registry (:mod:`composer.stages.results` lists the built-in kinds).

Result kinds: the objects of other plotting libraries a ``render`` function may return.

A renderer (``render = "module:function"``, ``function(fig, data, **params)``) returns None or data
anchors ``{name: (ax, x, y)}`` when it drew on ``fig`` with matplotlib. It may instead return an object of
another library (a plotnine ``ggplot``, a seaborn ``FacetGrid``...), alone or with data anchors in that
object's data units, ``(obj, {name: (x, y)})``. A **result kind** (:class:`ResultKind`, registered in
:data:`RESULTS`) recognizes such an object (:meth:`ResultKind.owns`, by its type's module and name,
without importing the library) and draws it for the panel at its box (:meth:`ResultKind.draw`, given a
:class:`Target`), in one of two ways:

- :class:`InFigure`: a matplotlib Figure the size of the box (the panel's own ``fig``, or one the library
  made and the kind resized), with anchors in matplotlib's form; the render stage then treats it as any
  matplotlib panel (``[[align]]``, ``aspect_of = "plot"``, guides, plot area, data anchors, saved by
  :func:`composer.mpl.savesvg.save_svg`);
- :class:`SvgDrawing`: an SVG document the size of the box (viewBox ``0 0 width_pt height_pt``), its plot
  area and its data anchors in pt from the box's top-left, y down; the render stage keeps it as the
  panel's SVG. A kind that can draw its plot area where it is told (:attr:`Target.plot_area_pt`) says
  so with :attr:`ResultKind.aligns`, and ``[[align]]`` then lines it up with the others.

The kind runs in the panel's forked worker, inside the figure's rcParams (font family and size from
``[figure]``), with pyplot showing only the panel's figure (:func:`composer.mpl.internals.pyplot_on`).
The render stage keeps its guarantees for every kind: the drawing's size is checked against the box,
the anchors' names and values checked, and the panel cached as any other.

A new kind: a :class:`ResultKind` subclass in its module, registered with ``RESULTS.add(Kind())``
(built-in ones: one line in :data:`composer.stages.results.BUILTIN`); docs/design.md
("Extension points").
"""

from __future__ import annotations

import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from composer.errors import PanelError
from composer.kinds import Registry
from composer.kinds.extras import install_hint
from composer.layout.model import FigureSpec, Panel
from composer.text.metrics import font_families

#: a plot area, ``(x0, y0, x1, y1)`` in pt from the panel's top-left, y down
PlotAreaPt = tuple[float, float, float, float]


@dataclass(frozen=True)
class Target:
    """What a result kind draws for: one panel at its box.

    Attributes:
        fig: the panel's matplotlib Figure (``size_pt``, 72 dpi), empty unless the renderer drew on it too.
        panel: the panel; ``spec``: the figure's settings (``spec.font``, ``spec.font_size_pt``).
        size_pt: (width, height) of the box in pt: the size the drawing must have.
        file: the layout file, for messages.
        anchors: the data anchors returned beside the object, ``(obj, {name: (x, y)})``, as the renderer gave
            them (in the object's data units; the kind maps them); ``{}`` when it returned the object alone.
        plot_area_pt: where the plot area must be, ``(x0, y0, x1, y1)`` pt from the top-left, y down, when an
            ``[[align]]`` group lined it up with others (:attr:`ResultKind.aligns` kinds only); None: where
            the library puts it.
    """

    fig: Any
    panel: Panel
    spec: FigureSpec
    size_pt: tuple[float, float]
    file: str
    anchors: Mapping[Any, Any] = field(default_factory=dict)
    plot_area_pt: PlotAreaPt | None = None

    @property
    def font_families(self) -> list[str]:
        """The figure's font families, first choice first (``[figure] font``, split at commas)."""
        return font_families(self.spec.font)

    @property
    def font_size_pt(self) -> float:
        """The figure's font size in pt (``[figure] font_size``)."""
        return self.spec.font_size_pt

    @property
    def key(self) -> str:
        """The layout key that names the panel's renderer (``panels.a.render``)."""
        return f"{self.panel.key}.{self.panel.kind}"

    def error(self, message: str) -> PanelError:
        """A PanelError ``panel 'NAME': message`` naming the layout file and the renderer's key."""
        return PanelError(f"panel {self.panel.name!r}: {message}", file=self.file, key=self.key)

    def missing(self, library: str) -> PanelError:
        """The one-line error for a library that is not installed: the extra that installs it
        (:func:`composer.kinds.extras.install_hint`, the one table of extras)."""
        return self.error(f"{self.panel.source} returned a {library} object, but {library} is not installed "
                          f"here{install_hint(library)}")


@dataclass(frozen=True)
class InFigure:
    """A result drawn as a matplotlib Figure of the box's size.

    Attributes:
        fig: the Figure to save (``Target.fig`` or one of the library's, ``size_pt`` at 72 dpi).
        anchors: data anchors as a matplotlib renderer returns them, ``{name: (ax, x, y)}`` with axes of
            ``fig``, or None.
        follow: texts of ``fig`` placed in figure fractions beside or along its plot area (a library's axis
            titles and plot title, which it lays out itself), moved with the plot area's edges when
            ``[[align]]`` moves its axes (as a colorbar beside it moves:
            :func:`composer.stages.align.align_plot_areas`).
    """

    fig: Any
    anchors: dict[str, Any] | None = None
    follow: tuple[Any, ...] = ()


@dataclass(frozen=True)
class SvgDrawing:
    """A result drawn as an SVG document the size of the box.

    Attributes:
        svg: the document, viewBox ``0 0 width_pt height_pt`` (one user unit is one pt).
        plot_area: its plot area, ``(x0, y0, x1, y1)`` pt from the top-left, y down; None: none.
        anchors: data anchor name -> ``(x_pt, y_pt)`` from the top-left, y down.
        notes: warnings to report in the parent process (a font the library substituted).
    """

    svg: bytes
    plot_area: PlotAreaPt | None = None
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


class ResultKind(ABC):
    """One kind of object a renderer may return (see the module docstring).

    Attributes:
        name: the kind's name (``"plotnine"``), unique in :data:`RESULTS`.
        what: what messages call the objects (``"plotnine ggplot"``).
        aligns: :meth:`draw` honours :attr:`Target.plot_area_pt` (an :class:`SvgDrawing` kind that
            ``[[align]]`` may line up; an :class:`InFigure` result is aligned as a matplotlib panel).
    """

    name: ClassVar[str]
    what: ClassVar[str]
    aligns: ClassVar[bool] = False

    @abstractmethod
    def owns(self, obj: Any) -> bool:
        """True when ``obj`` is this kind's (decide by the type's module and name, see :func:`is_instance`:
        never import the library to ask)."""

    @abstractmethod
    def draw(self, obj: Any, target: Target) -> InFigure | SvgDrawing:
        """Draw ``obj`` for ``target``'s panel at ``target.size_pt`` with the figure's font family and size.

        Raises:
            PanelError: ``target.error(...)``: the library is missing (``target.missing(...)``), the object
                cannot be drawn at that size, an anchor names nothing.
        """


#: the registered result kinds, by name, in the order they are asked
RESULTS: Registry[ResultKind] = Registry("result kind")


def is_instance(obj: Any, module: str, *names: str) -> bool:
    """True when ``obj``'s class, or a class it derives from, is named one of ``names`` and defined in
    ``module`` or a module under it (``is_instance(p, "plotnine", "ggplot")``), without importing ``module``."""
    for cls in type(obj).__mro__:
        where = getattr(cls, "__module__", "") or ""
        if cls.__name__ in names and (where == module or where.startswith(module + ".")):
            return True
    return False


def kind_of(result: Any) -> tuple[ResultKind, Any, Mapping[Any, Any]] | None:
    """The kind of what a renderer returned, the object and the anchors given beside it, or None (a
    matplotlib result: None or anchors, checked by :func:`composer.stages.anchors.data_anchors`).

    ``obj`` and ``(obj, {name: (x, y)})`` are a kind's when a registered kind owns ``obj``.
    """
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], Mapping):
        for kind in RESULTS:
            if kind.owns(result[0]):
                return kind, result[0], result[1]
    if result is None or isinstance(result, (dict, tuple, list, str, bytes, int, float)):
        return None
    for kind in RESULTS:
        if kind.owns(result):
            return kind, result, {}
    return None


_VIEWBOX = re.compile(rb'<svg[^>]*?viewBox="\s*[-\d.eE+]+[\s,]+[-\d.eE+]+[\s,]+([\d.eE+]+)[\s,]+([\d.eE+]+)')

#: an SVG result's viewBox may differ from its box by this much, pt (a library rounding to 0.01)
SIZE_TOLERANCE_PT = 0.01


def checked(drawing: SvgDrawing, kind: ResultKind, target: Target) -> SvgDrawing:
    """An :class:`SvgDrawing` as the render stage keeps it, after checking that it is the box's size, its
    anchors are words with finite points and its plot area is finite and ordered.

    Raises:
        PanelError: naming the panel, the kind and what is wrong.
    """
    found = _VIEWBOX.search(drawing.svg[:4096])
    width_pt, height_pt = target.size_pt
    if found is None:
        raise target.error(f"drawing the {kind.what} {target.panel.source} returned made an SVG with no viewBox")
    got = float(found.group(1)), float(found.group(2))
    if abs(got[0] - width_pt) > SIZE_TOLERANCE_PT or abs(got[1] - height_pt) > SIZE_TOLERANCE_PT:
        raise target.error(f"the {kind.what} was drawn {got[0]:g} x {got[1]:g} pt, not its box's "
                           f"{width_pt:g} x {height_pt:g} pt")
    for name, point in drawing.anchors.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise target.error(f"anchor name {name!r} is not a word of letters, digits and _")
        if not (len(point) == 2 and all(math.isfinite(v) for v in point)):
            raise target.error(f"anchor {name!r} is not a finite point on the panel ({point!r})")
    area = drawing.plot_area
    if area is not None and not (all(math.isfinite(v) for v in area) and area[0] <= area[2] and area[1] <= area[3]):
        raise target.error(f"the {kind.what}'s plot area {area!r} is not a box (x0 <= x1, y0 <= y1, finite)")
    return SvgDrawing(svg=drawing.svg, plot_area=drawing.plot_area, anchors=dict(sorted(drawing.anchors.items())),
                      notes=drawing.notes)
