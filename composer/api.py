"""Python API: figures in scripts and notebooks, with the same model as layout files.

A :class:`Figure` holds a layout *document*: the dict a ``layouts/NAME.toml``
file parses to. The constructors (:class:`Panel`, :class:`Text`,
:class:`Shape`, :class:`Connector`, :class:`Grid`, :class:`Align`,
:class:`Legend`, :class:`Colorbar`) take the
layout keys as keyword arguments and add tables to that document; building
runs it through the same validator as a file
(:func:`composer.layout.loader.load_document`) and the same pipeline, so a figure
written in code and the same figure written as a layout file give
byte-identical SVG.

::

    import composer
    from composer.api import Figure, Panel, Text, Connector

    fig = Figure(width="120mm", height="50mm", data="../data/results.json", root=".")
    fig.add(Panel("loss", render="results:loss_curve", at=["5mm", "8mm"], size=["50mm", "38mm"], label="a"),
            Panel("acc", render=my_function, right_of="loss", gap="8mm", size=["50mm", "38mm"], label="b"),
            Connector("loss.e", "acc.w"))
    fig            # a notebook shows it (``_repr_svg_`` / ``_repr_png_``)
    fig.build()    # build/figure.svg, .pdf, .png

    vkv = composer.load("volume_kv", root=".")   # a layout file as a Figure

Keys that are Python keywords take a trailing underscore (``class_``,
``from_``); the panels a :class:`Legend` collects from (``from``) or a
:class:`Colorbar` is for (``for``) are its positional arguments, as an
:class:`Align`'s are; tuples become TOML arrays. Paths in the document (``data``,
``svg``, ``style``) are relative to the project's ``layouts/`` folder, as in a
layout file. A renderer may be given as a function: it is used directly
(no ``panels/`` module needed), e.g. one defined in the notebook.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from composer.errors import LayoutError, ProjectError, did_you_mean
from composer.layout.loader import load_document, read_document
from composer.layout.model import NAME
from composer.layout.model import Figure as LayoutModel
from composer.layout.schema import TABLES_BY_KIND
from composer.lint.rules import Report
from composer.pipeline import (
    FORMATS,
    BuildOptions,
    BuildResult,
    build_figure,
    check_outputs,
    missing_font_report,
)
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, check_jobs, check_timeout
from composer.sandbox.parallel import available_cores
from composer.stages.export import check_chosen
from composer.stages.inputs import Inputs, Project, read_figure_inputs


def _plain(value: Any) -> Any:
    """Tuples -> lists (TOML arrays), recursively; other values unchanged."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _table(kind: str, what: str, keys: dict[str, Any], *, also: tuple[str, ...] = ()) -> dict[str, Any]:
    """Keyword arguments -> a layout table; ``class_`` -> ``class``; None values left out.

    ``also``: the caller's own keyword arguments beside the table's keys (``Figure``'s ``colors``...),
    suggested and listed when a key is unknown.

    Raises:
        TypeError: a key the layout format does not have for this table (lists the valid keys).
    """
    valid = TABLES_BY_KIND[kind].key_names()
    table = {}
    for name, value in keys.items():
        key = name[:-1] if name.endswith("_") and name[:-1] in valid else name
        if key not in valid:
            choices = sorted({*valid, *also})
            raise TypeError(f"{what}: unknown key {name!r}{did_you_mean(name, choices)}; "
                            f"valid keys are {', '.join(choices)}")
        if value is not None:
            table[key] = _plain(value)
    return table


class Element:
    """A table to add to a :class:`Figure`: ``table`` is the dict written in a layout file."""

    kind: ClassVar[str]
    table: dict[str, Any]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.table!r})"


class Panel(Element):
    """``[panels.NAME]``: a matplotlib renderer, an SVG file or an image.

    Args:
        name: the panel's name (ids and references derive from it).
        render: ``"module:function"`` in ``panels/module.py``, or the function itself.
        **keys: any ``[panels.NAME]`` key: ``at``, ``size``, ``cell``, ``right_of``,
            ``label``, ``title``, ``params``, ``data``, ``svg``, ``image``...
    """

    kind = "panel"

    def __init__(self, name: str, render: str | Callable[..., Any] | None = None, **keys: Any):
        self.name = name
        self.function = render if callable(render) else None
        if self.function is not None:
            function_name = getattr(self.function, "__name__", "")
            if not function_name.isidentifier():
                raise LayoutError(f"Panel {name!r}: render={function_name or render!r} is not a named function; "
                                  f"define it with def (a lambda or a partial has no name to report it by)")
            module = str(getattr(self.function, "__module__", "") or "notebook").rsplit(".", 1)[-1]
            render = f"{module}:{function_name}"
        self.table = _table(self.kind, f"Panel {name!r}", {"render": render, **keys})


class Text(Element):
    """``[[text]]``: canvas text. ``text`` may hold ``{fields}``, ``$math$`` and ``<b>`` spans."""

    kind = "text"

    def __init__(self, text: str, **keys: Any):
        self.table = _table(self.kind, "Text", {"text": text, **keys})


class Shape(Element):
    """``[[shape]]``: ``rect`` (default), ``circle``, ``ellipse``, ``line``, ``brace``, ``bracket``."""

    kind = "shape"

    def __init__(self, kind: str | None = None, **keys: Any):
        self.table = _table(self.kind, "Shape", {"kind": kind, **keys})


class Connector(Element):
    """``[[arrow]]``: a connector from one point to another (``"rgb.e"``, ``["10mm", "5mm"]``)."""

    kind = "arrow"

    def __init__(self, from_: Any, to: Any, **keys: Any):
        self.table = _table(self.kind, "Connector", {"from": from_, "to": to, **keys})


Arrow = Connector


class Grid(Element):
    """``[grid]`` (no name: the figure's grid) or ``[grids.NAME]`` (placed like an element)."""

    kind = "grid"

    def __init__(self, mosaic: str, name: str | None = None, **keys: Any):
        self.name = name
        kind = "grid" if name is None else "grids"
        self.table = _table(kind, "Grid" if name is None else f"Grid {name!r}", {"mosaic": mosaic, **keys})


class Align(Element):
    """``[[align]]``: line up the plot areas of these panels (``axis`` ``y``, ``x`` or ``both``)."""

    kind = "align"

    def __init__(self, *panels: str, axis: str | None = None):
        self.table = _table(self.kind, "Align", {"panels": list(panels), "axis": axis})


def _guide_panels(what: str, key: str, panels: tuple[Any, ...], keys: dict[str, Any]) -> dict[str, Any]:
    """``*panels`` (positional names) -> the table's ``key`` (``from``/``for``); ``KEY_`` given as well is refused.

    Raises:
        TypeError: the panel list given both ways.
    """
    if panels and keys.get(f"{key}_") is not None:
        raise TypeError(f"{what}: the panels are given twice, as positional names and as {key}_=")
    return {key: list(panels) if panels else keys.pop(f"{key}_", None), **keys}


class Legend(Element):
    """``[[legend]]``: one legend collecting the entries of these matplotlib panels' legends.

    Args:
        *panels: the panels' names, in the order their entries are shown (the table's ``from``).
        **keys: any other ``[[legend]]`` key: ``at``, ``cell``, ``right_of``..., ``offset``,
            ``anchor``, ``name``, ``ncols``, ``title``, ``frame``.

    Raises:
        TypeError: an unknown key, or the panels given both as names and as ``from_=``.
    """

    kind = "legend"

    def __init__(self, *panels: str, **keys: Any):
        self.table = _table(self.kind, "Legend", _guide_panels("Legend", "from", panels, keys))


class Colorbar(Element):
    """``[[colorbar]]``: one colorbar for these matplotlib panels, which map values to colours alike.

    Args:
        *panels: the panels' names (the table's ``for``, a Python keyword).
        **keys: any other ``[[colorbar]]`` key: ``cell``, or ``at``/a relation (with ``size``, or sized from its
            panels), ``offset``, ``anchor``, ``name``, ``orientation``, ``label``, ``ticks`` (data units).

    Raises:
        TypeError: an unknown key, or the panels given both as names and as ``for_=``.
    """

    kind = "colorbar"

    def __init__(self, *panels: str, **keys: Any):
        self.table = _table(self.kind, "Colorbar", _guide_panels("Colorbar", "for", panels, keys))


class Figure:
    """A figure: a layout document, its project folder, and renderer functions given in code.

    Args:
        width, height: canvas size (``"180mm"``).
        name: the figure's name: output files are ``NAME.svg`` etc.
        root: the project folder (``layouts/``, ``panels/``, ``data/``).
        colors, styles, rcparams: the ``[colors]``, ``[styles]``, ``[rcparams]`` tables.
        **figure: any other ``[figure]`` key (``font``, ``font_size``, ``data``, ``params``...).

    Raises:
        TypeError: a key the ``[figure]`` table does not have.
    """

    #: resolution of the PNG a notebook shows (``_repr_png_``).
    png_dpi: float = 150.0

    def __init__(self, width: str, height: str, *, name: str = "figure", root: str | Path = ".",
                 colors: dict[str, str] | None = None, styles: dict[str, dict[str, Any]] | None = None,
                 rcparams: dict[str, Any] | None = None, **figure: Any):
        document: dict[str, Any] = {"figure": _table("figure", "Figure", {"width": width, "height": height,
                                                                          **figure},
                                                     also=("name", "root", "colors", "styles", "rcparams"))}
        for key, value in (("colors", colors), ("styles", styles), ("rcparams", rcparams)):
            if value is not None:
                document[key] = _plain(value)
        self._init(document, name=name, root=root, path=None)

    def _init(self, document: dict[str, Any], *, name: str, root: str | Path, path: Path | None) -> None:
        if not isinstance(name, str) or not NAME.match(name):
            raise LayoutError(f"{name!r} is not a valid figure name: letters, digits and _ (it names the "
                              "files build/NAME.svg...)", key="name")
        self.document = document
        self.name = name
        self.root = Path(root)
        self._path = path
        self.functions: dict[str, Callable[..., Any]] = {}

    @classmethod
    def from_document(cls, document: dict[str, Any], *, name: str = "figure", root: str | Path = ".") -> Figure:
        """A figure from a layout document (a parsed TOML file's dict); it is copied."""
        fig = cls.__new__(cls)
        fig._init(copy.deepcopy(document), name=name, root=root, path=None)
        return fig

    @property
    def path(self) -> Path:
        """The layout file this figure is, or would be, ``ROOT/layouts/NAME.toml``."""
        return self._path or (Path(self.root).resolve() / "layouts" / f"{self.name}.toml")

    def add(self, *elements: Element) -> Figure:
        """Add panels, texts, shapes, connectors, grids, alignments, legends and colorbars, in order.

        Returns the figure.

        Raises:
            LayoutError: a panel or grid name that is already used, or something
                that is not an element.
        """
        doc = self.document
        for element in elements:
            if not isinstance(element, Element):
                raise LayoutError(f"{element!r} is not a Panel, Text, Shape, Connector, Grid, Align, Legend "
                                  "or Colorbar")
            table = copy.deepcopy(element.table)
            if isinstance(element, Panel):
                panels = doc.setdefault("panels", {})
                if element.name in panels:
                    raise LayoutError(f"a panel named {element.name!r} is already in the figure")
                panels[element.name] = table
                if element.function is not None:
                    given = self.functions.get(table["render"])
                    if given is not None and given is not element.function:
                        raise LayoutError(f"Panel {element.name!r}: another function named {table['render']!r} "
                                          f"already draws a panel of this figure; give each function its own name")
                    self.functions[table["render"]] = element.function
            elif isinstance(element, Grid) and element.name is None:
                if "grid" in doc:
                    raise LayoutError("the figure already has a [grid]; name the others: Grid(..., name='g')")
                doc["grid"] = table
            elif isinstance(element, Grid):
                grids = doc.setdefault("grids", {})
                if element.name in grids:
                    raise LayoutError(f"a grid named {element.name!r} is already in the figure")
                grids[element.name] = table
            else:
                doc.setdefault(element.kind, []).append(table)
        return self

    # ─── the pipeline ─────────────────────────────────────────────────────

    def _display(self) -> str:
        if self._path is not None:
            try:
                return str(self._path.resolve().relative_to(Path(self.root).resolve()))
            except ValueError:
                return str(self._path)
        return f"figure {self.name!r} (built in code)"

    @property
    def layout(self) -> LayoutModel:
        """The validated model (:class:`composer.layout.model.Figure`, lengths in pt).

        Raises:
            LayoutError: as a layout file with the same content would.
        """
        return load_document(copy.deepcopy(self.document), self.path, name=self.name, display=self._display())

    def inputs(self) -> Inputs:
        """Everything the pipeline reads for this figure (layout validated, data and panels loaded).

        Raises:
            ComposerError: as :func:`composer.stages.inputs.read_figure_inputs`.
        """
        project = Project.at(self.root)
        return read_figure_inputs(project, self.layout, self._display(), functions=self.functions)

    def _made(self, options: BuildOptions, out: str | Path | None = None) -> tuple[BuildResult, dict[str, bytes]]:
        """Run the pipeline on this figure (:func:`composer.pipeline.build_figure`)."""
        return build_figure(Project.at(self.root), self.layout, self._display(), options, out=out,
                            functions=self.functions)

    def _in_memory(self, kind: str, dpi: float = 300.0) -> bytes:
        """One output's bytes, made as :meth:`build` makes it, written nowhere (the panel cache is used)."""
        return self._made(BuildOptions(formats=(kind,), dpi=dpi, jobs=available_cores(), write=False))[1][kind]

    def svg(self) -> bytes:
        """The composed canvas SVG, byte-identical to what ``compose`` writes for the same layout.

        Made by the pipeline :meth:`build` runs, each call anew (a panel, its
        data or its style file may have changed since), writing nothing but
        panel cache entries.

        Raises:
            ComposerError: any problem a layout file with the same content would have.
        """
        return self._in_memory("svg")

    def png(self, *, dpi: float = 300.0) -> bytes:
        """The figure as PNG bytes at ``dpi`` (round(width_in * dpi) px wide), as :meth:`build` makes it.

        Raises:
            ComposerError: a dpi outside 1 to 12000, or any layout problem.
        """
        check_outputs(("png",), dpi)
        return self._in_memory("png", dpi)

    def pdf(self) -> bytes:
        """The figure as PDF bytes (creation date pinned: same input, same bytes), titled with its name."""
        return self._in_memory("pdf")

    def check(self, *, jobs: int | None = None, timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Report:
        """The print check of this figure (``compose check``), writing nothing.

        Panels come from the panel cache when a build stored them (the cache is
        read, not filled), else they are rendered in forked workers stopped
        after ``timeout_s`` seconds (None: no limit), ``jobs`` at a time
        (default: every core). A layout font that is not installed stops the
        check after the font rule, as :func:`composer.pipeline.check` does.

        Raises:
            ComposerError: the figure cannot be validated, rendered or composed.
        """
        check_timeout(timeout_s)
        check_jobs(jobs)
        missing = missing_font_report(self.layout)
        if missing is not None:
            return missing
        options = BuildOptions(formats=(), check=True, timeout_s=timeout_s, jobs=jobs or available_cores(),
                               store=False, write=False)
        return self._made(options)[0].report

    def build(self, *, out: str | Path | None = None, formats: tuple[str, ...] = FORMATS,
              dpi: float = 300.0, engine: str | None = None, pdf_standard: str | None = None,
              cache: bool = True, jobs: int | None = None,
              timeout_s: float | None = DEFAULT_TIMEOUT_S) -> BuildResult:
        """Write ``NAME.svg``/``.pdf``/``.png`` to ``out`` (default ``ROOT/build``), the same bytes
        ``compose NAME`` writes for the same document (``engine``: ``resvg`` or ``cairosvg``, default
        the layout's; ``pdf_standard``: as ``compose --pdf-standard``).

        The same pipeline as :func:`composer.pipeline.build`: panels come from
        the panel cache when their inputs are unchanged (a panel whose renderer
        is a function given in code is drawn every time), the others are
        rendered in parallel; ``cache=False`` reads and fills no cache. The
        figure lives in memory (it may differ from its layout file), so it has
        no build manifest: it is built every time, and the manifest of
        ``layouts/NAME.*`` is left alone. An output whose bytes did not change
        is not written again (``written`` lists the formats written). ``jobs``
        workers render and export side by side (default: every core), each
        panel stopped after ``timeout_s`` seconds (None: no limit).

        Raises:
            ComposerError: a bad format, dpi, engine or PDF standard (before any
                work), or any problem a layout file with the same content would have.
        """
        check_outputs(formats, dpi)
        check_chosen(engine, pdf_standard)
        check_timeout(timeout_s)
        check_jobs(jobs)
        options = BuildOptions(formats=tuple(formats), dpi=dpi, engine=engine, pdf_standard=pdf_standard,
                               jobs=jobs or available_cores(), cache=cache, store=cache, timeout_s=timeout_s)
        return self._made(options, out)[0]

    def _repr_svg_(self) -> str:
        """Jupyter's inline display (vector)."""
        return self.svg().decode("utf-8")

    def _repr_png_(self) -> bytes:
        """Jupyter's inline display (raster, ``png_dpi``)."""
        return self.png(dpi=self.png_dpi)

    def __repr__(self) -> str:
        fig = self.document.get("figure", {})
        return (f"<composer Figure {self.name!r} {fig.get('width')} x {fig.get('height')}, "
                f"{len(self.document.get('panels', {}))} panels>")


def load(name: str | Path, *, root: str | Path = ".") -> Figure:
    """The figure ``layouts/NAME.toml`` (or ``.py``) of the project at ``root``, as a :class:`Figure`.

    ``name`` is the figure's name, or the path of its layout file (``"layouts/fig.toml"``, a
    :class:`~pathlib.Path`; relative to the current folder), whose project is the folder above its
    ``layouts/`` (``root`` is then not used). The document is read as the file has it (a Python layout's
    ``layout()`` is run); change it or ``add`` elements, then display or build it.

    Raises:
        ProjectError: no such figure, or a file that is not ``layouts/NAME.toml`` or ``.py`` of a project.
        LayoutError: an unreadable layout file.
    """
    if isinstance(name, Path) or Path(name).suffix in (".toml", ".py"):
        file = Path(name)
        if file.suffix not in (".toml", ".py") or file.parent.name != "layouts" or not file.is_file():
            raise ProjectError(f"{str(file)!r} is not a layout file of a project (layouts/NAME.toml or "
                               f"layouts/NAME.py); give a figure's name, or the path of its layout file")
        name, root = file.stem, file.resolve().parent.parent
    project = Project.at(root)
    path = project.layout_path(name)
    fig = Figure.__new__(Figure)
    fig._init(read_document(path, display=project.display(path)), name=name, root=project.root, path=path)
    return fig
