"""Output formats and export engines: two tables, read by the command, the layout, the build and the export.

In the spirit of CairoSVG's ``SURFACES`` (format name -> the class that
writes it) and matplotlib's backend registry (name -> what draws it, loaded
when used): :data:`FORMATS` holds every output ``compose --format`` takes,
:data:`ENGINES` every engine ``--engine`` and ``[figure] engine`` take.

A format is written one of three ways:

- ``svg`` (:data:`CANVAS`) is the composed canvas itself (the compose stage's bytes);
- drawn by an engine from the SVG (``pdf``, ``png``, ``eps``): its
  :attr:`OutputFormat.engines` name the engines that can, the chosen engine
  first if it can, else the first listed (EPS is cairo's alone);
- made from another format's bytes (:attr:`OutputFormat.made_from`, with
  :attr:`OutputFormat.convert`): TIFF is the PNG's pixels.

The built-in entries are declared here, standard library only (the no-op
build reads this table before anything heavy is imported); their functions
live with the export stage (:mod:`composer.stages.export`), which binds them
(:meth:`composer.kinds.Registry.bind`) when it is imported. A format or
engine from outside is one :meth:`~composer.kinds.Registry.add` with its
functions::

    from composer.kinds.outputs import FORMATS, OutputFormat
    FORMATS.add(OutputFormat("ppm", "plain PPM of the PNG's pixels", made_from="png",
                             convert=png_to_ppm, options=("dpi",)))

Everything then reads it: ``compose --format ppm``, ``Figure.build(formats=(..., "ppm"))``,
the manifest (a ``.ppm`` made from an unchanged SVG is not made again), the
cleaning of ``compose clean``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from composer.errors import ComposerError
from composer.kinds import Registry

#: the format that is the composed SVG itself (written by the compose stage, never exported)
CANVAS = "svg"
#: the options an output's bytes may depend on, as named in :attr:`OutputFormat.options`
#: (``dpi``: pixels per inch, ``compose --dpi``; ``pdf_standard``: ``compose --pdf-standard``)
OPTIONS = ("dpi", "pdf_standard")


@dataclass(frozen=True)
class PdfPage:
    """A page of a PDF file that a pdf panel shows, which a PDF output draws as it is, in place of the
    panel's converted drawing (its fonts, text and vectors kept: docs/design.md, "PDF panels").

    Attributes:
        group: the id of the panel's group on the canvas (``panel-NAME``), whose ``transform`` maps the
            converted page's viewBox onto the canvas.
        data: the PDF file's bytes.
        page: the page, 1-based.
        view_box: the converted page's viewBox, ``(x, y, width, height)`` in pt: the page's crop box.
    """

    group: str
    data: bytes
    page: int
    view_box: tuple[float, float, float, float]


@dataclass(frozen=True)
class Job:
    """What an engine's ``write`` and a format's ``convert``/``finish`` are given, besides the bytes.

    Attributes:
        svg: the composed canvas.
        size_pt: its (width, height) in pt, from its root (:func:`composer.stages.export.canvas_size_pt`).
        dpi: pixels per inch of a raster output (the PNG is round(width_pt / 72 * dpi) px wide).
        title: the PDF's Title (the figure's name).
        pdf_standard: a PDF/A or PDF version (None: plain PDF).
        source: the layout file, named by errors.
        folder: a folder of the export stage's holding the SVG as ``canvas.svg`` (None: none made).
        pdf_pages: the pdf panels a PDF output draws from their own page (:class:`PdfPage`); an engine
            that cannot draws their converted groups, as every other output does.
        pdf_svg: the canvas a PDF output draws, its outlined text written as ``<text>``
            (:mod:`composer.text.realtext`), or None (the PDF draws ``svg``).
        alt: the figure's description for readers who cannot see it (the PDF's tagged figure ``/Alt``,
            the PNG's ``Description``), ``""`` for none.
        provenance: the build's provenance record as JSON text (the PDF's XMP, the PNG's ``iTXt``), ``""``
            for none.
    """

    svg: bytes
    size_pt: tuple[float, float]
    dpi: float = 300.0
    title: str = ""
    pdf_standard: str | None = None
    source: str = "canvas"
    folder: str | None = None
    pdf_pages: tuple[PdfPage, ...] = ()
    pdf_svg: bytes | None = None
    alt: str = ""
    provenance: str = ""


#: an engine's drawing: ``write(job, kinds)`` -> kind -> bytes, for each of ``kinds`` (formats it writes)
Write = Callable[[Job, tuple[str, ...]], Mapping[str, bytes]]
#: a format's step from bytes to bytes: ``convert(data, job)``
Convert = Callable[[bytes, Job], bytes]


@dataclass(frozen=True)
class Engine:
    """One export engine.

    Attributes:
        name: as ``--engine`` and ``[figure] engine`` take it.
        doc: what it draws with, one line (``compose --help``, docs).
        install: how to install what it needs, for the message when it cannot run.
        writes: the formats it draws from the SVG itself.
        options: the options of :data:`OPTIONS` it honours beyond ``dpi`` (``pdf_standard``: resvg's alone).
        batch: it draws several formats from one parse, so they share a worker (with one job; with more,
            each drawn format gets a worker of its own); else each drawn format is a worker's.
        packages: the import names whose files change its output (recorded in the build manifest).
        available: ``available()`` -> None when it can run here, else why not (one line).
        write: its drawing (:data:`Write`); None until its module binds it.
    """

    name: str
    doc: str
    install: str
    writes: tuple[str, ...]
    options: tuple[str, ...] = ()
    batch: bool = False
    packages: tuple[str, ...] = ()
    available: Callable[[], str | None] | None = None
    write: Write | None = None


@dataclass(frozen=True)
class OutputFormat:
    """One output format.

    Attributes:
        name: as ``--format`` takes it.
        doc: what it is, one line (``compose --help``, docs).
        suffix: the file's suffix without the dot: ``NAME.SUFFIX`` (default: the name).
        options: the options of :data:`OPTIONS` its bytes depend on (the manifest records them, so a
            changed ``--dpi`` makes the PNG again and not the PDF).
        engines: the engines that draw it from the SVG, preferred first (empty: made from another
            format, or the canvas itself).
        made_from: the format whose bytes it is made from (TIFF: ``"png"``), with :attr:`convert`.
        convert: ``convert(data, job)``: the bytes of :attr:`made_from` -> this format's (a built-in's is
            bound by the export stage).
        finish: ``finish(data, job)``: applied to what an engine drew, before anything is made from it
            (PNG: its ``pHYs`` and ``sRGB`` chunks).
        needs: the import names its making needs beyond composer's own dependencies (PPTX: ``pptx``),
            looked for (not imported) before any work, with :attr:`install` saying what to install.
        install: what to install when one of :attr:`needs` is missing, for the message.
    """

    name: str
    doc: str
    suffix: str = ""
    options: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()
    made_from: str | None = None
    convert: Convert | None = None
    finish: Convert | None = None
    needs: tuple[str, ...] = ()
    install: str = ""

    def missing(self) -> str | None:
        """None when every module of :attr:`needs` can be imported here, else the one line saying what to
        install (the modules are looked for, not imported: the no-op build stays light)."""
        import importlib.util

        absent = [m for m in self.needs if importlib.util.find_spec(m) is None]
        if not absent:
            return None
        return f"--format {self.name} needs {', '.join(absent)}: {self.install or 'pip install ' + absent[0]}"

    def __post_init__(self) -> None:
        if not self.suffix:
            object.__setattr__(self, "suffix", self.name)
        unknown = set(self.options) - set(OPTIONS)
        if unknown:
            raise ValueError(f"format {self.name!r}: unknown options {sorted(unknown)}; options are {OPTIONS}")

    @property
    def raster(self) -> bool:
        """Pixels at ``dpi``: the build's pixel limit applies to it."""
        return "dpi" in self.options


#: every output format, in the order outputs are listed and written
FORMATS: Registry[OutputFormat] = Registry("format")
#: every export engine, the default first
ENGINES: Registry[Engine] = Registry("engine")
#: the engine used when neither ``--engine`` nor ``[figure] engine`` names one
DEFAULT_ENGINE = "resvg"
#: the formats ``compose`` writes when ``--format`` is not given
DEFAULT_FORMATS = ("svg", "pdf", "png")

ENGINES.add(Engine(
    "resvg", "usvg + resvg + svg2pdf from one parse, nothing to install",
    install="pip install typst", writes=("pdf", "png"), options=("pdf_standard",), batch=True,
    packages=("typst",)))
ENGINES.add(Engine(
    "cairosvg", "cairosvg + cairo, needs the cairosvg package and the cairo library",
    install="pip install cairosvg, and the cairo library (Debian: apt-get install libcairo2; "
            "macOS: brew install cairo)",
    writes=("pdf", "png", "eps"), packages=("cairosvg",)))

FORMATS.add(OutputFormat("svg", "the composed canvas, editable"))
FORMATS.add(OutputFormat("pdf", "vector", options=("pdf_standard",), engines=("resvg", "cairosvg")))
FORMATS.add(OutputFormat("png", "pixels at --dpi", options=("dpi",), engines=("resvg", "cairosvg")))
# PNG's finish and TIFF's convert: bound by composer.stages.export (PIL and the PNG chunks live there)
FORMATS.add(OutputFormat("tiff", "LZW, the PNG's pixels", options=("dpi",), made_from="png"))
FORMATS.add(OutputFormat("eps", "always by the cairosvg engine",
                         engines=("cairosvg",)))
# PPTX's convert: bound by composer.stages.export (python-pptx and lxml live there)
FORMATS.add(OutputFormat("pptx", "a slide of the figure's size holding its SVG (and the PNG fallback)",
                         options=("dpi",), made_from="png", needs=("pptx",),
                         install="pip install 'figure-composer[pptx]' (python-pptx)"))


def format_names() -> tuple[str, ...]:
    """Every output format's name, in order."""
    return FORMATS.names()


def engine_names() -> tuple[str, ...]:
    """Every engine's name, the default first."""
    return ENGINES.names()


def exported() -> tuple[str, ...]:
    """The formats the export stage makes: all but the canvas itself."""
    return tuple(n for n in FORMATS.names() if n != CANVAS)


def uses_dpi(formats: Iterable[str]) -> bool:
    """Whether any of ``formats`` depends on ``dpi`` (a name no format has counts as not)."""
    return any(n in FORMATS and FORMATS[n].raster for n in formats)


def drawn_as(name: str) -> str:
    """The format an engine draws for ``name``: itself, or what it is made from, followed to its end."""
    seen = [name]
    while FORMATS[seen[-1]].made_from is not None:
        source = FORMATS[seen[-1]].made_from
        assert source is not None
        if source in seen:
            raise ValueError(f"formats {' -> '.join([*seen, source])} are made from each other")
        seen.append(source)
    return seen[-1]


def engine_for(name: str, engine: str) -> str:
    """The engine that writes format ``name`` when ``engine`` is chosen: ``engine`` if it draws it (or
    what it is made from), else the first engine the format lists (EPS: cairosvg, whatever the engine).

    Raises:
        KeyError: ``name`` is not a format. ComposerError: the canvas (no engine writes it), or no engine
            draws it.
    """
    drawn = FORMATS[drawn_as(name)]
    if engine in drawn.engines and engine in ENGINES and drawn.name in ENGINES[engine].writes:
        return engine
    writers = [e for e in drawn.engines if e in ENGINES and drawn.name in ENGINES[e].writes]
    if not writers:
        raise ComposerError(f"no engine writes format {name!r}")
    return writers[0]


def check_formats(formats: Iterable[str]) -> tuple[str, ...]:
    """``formats`` as a tuple, every one a registered format.

    Raises:
        ComposerError: a string (one name, not a tuple of them), an empty list, or an unknown name:
            one line naming it and every valid format; a format whose modules are not installed
            (:meth:`OutputFormat.missing`): one line saying what to install.
    """
    if isinstance(formats, str):  # ("svg") is "svg": a string is a sequence of letters
        raise ComposerError(f"formats is a tuple of format names, e.g. ({formats!r},), not the string {formats!r}")
    formats = tuple(formats)
    if not formats:  # compose --format "" (or ","): no name at all, not an unknown one
        raise ComposerError(f"no output format given; valid formats are {', '.join(FORMATS.names())}")
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ComposerError(FORMATS.unknown(bad[0]))
    for name in formats:
        missing = FORMATS[name].missing()
        if missing is not None:
            raise ComposerError(missing)
    return formats


def files(name: str, formats: Iterable[str] | None = None) -> dict[str, str]:
    """format -> the output's file name ``NAME.SUFFIX``, for ``formats`` (default: every format), in order."""
    wanted = None if formats is None else set(formats)
    return {f.name: f"{name}.{f.suffix}" for f in FORMATS if wanted is None or f.name in wanted}


__all__ = ["CANVAS", "DEFAULT_ENGINE", "DEFAULT_FORMATS", "ENGINES", "FORMATS", "OPTIONS", "Engine", "Job",
           "OutputFormat", "check_formats", "drawn_as", "engine_for", "engine_names", "exported", "files",
           "format_names", "uses_dpi"]
