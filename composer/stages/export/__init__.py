"""Export stage: the composed SVG -> PDF, PNG, TIFF, EPS and PPTX, through one of two engines.

======== =================================== ============================== ===========================
engine   draws with                          writes                         needs
======== =================================== ============================== ===========================
resvg    usvg + resvg (pixels) + svg2pdf     PDF, PNG (TIFF from its PNG)   the ``typst`` wheel (pip)
cairosvg cairosvg + cairo                    PDF, PNG, EPS (TIFF from PNG)  the cairosvg package and
                                                                            the cairo library
======== =================================== ============================== ===========================

``resvg`` is the default (:mod:`composer.stages.export.resvg_engine`): PDF and PNG
from usvg's model of the SVG, in a third of cairosvg's time on volume_kv and
a twentieth on a 1e4-point scatter (``benchmarks/bench.py``), and it draws what
cairosvg gets wrong (luminance masks, ``paint-order``, ``context-stroke``,
gradient ``href`` chains, negative dash arrays, hatches at any dpi).
``cairosvg`` (``--engine cairosvg`` or ``[figure] engine``) is imported only
when chosen; EPS always comes from it (PostScript is cairo's alone), so EPS
needs it installed whatever the engine.

Every export runs in a forked worker with the build's timeout
(:func:`composer.sandbox.parallel.run_workers`): a drawing that hangs or crashes the
engine is one error line, and stops the other export's worker at once (a
crashed PDF does not wait for the PNG); one that runs out of memory says so, with what to do, and
the engine's backtrace stays out of sight (:func:`failure_text`). The resvg engine never runs in the process that
forks the workers (its font check runs in the worker too): a Rust thread pool
started there would be missing, its locks perhaps held, in every worker
forked after it. The one file it reads, the SVG, is written here into a
folder this process removes, so a worker killed at its timeout leaves nothing
behind. Every PNG gets ``pHYs`` (= dpi) and ``sRGB``
(:mod:`composer.stages.export.png`); TIFF is the PNG's pixels; PPTX a slide holding the SVG with the
PNG as its fallback (:mod:`composer.stages.export.pptx`).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path

from composer.errors import ComposerError, SvgError
from composer.kinds.outputs import (
    CANVAS,
    DEFAULT_ENGINE,
    ENGINES,
    FORMATS,
    Job,
    PdfPage,
    drawn_as,
    engine_for,
    exported,
)
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure
from composer.stages.export import cairosvg_engine, pdfmeta, resvg_engine
from composer.stages.export import png as _png
from composer.stages.export import pptx as _pptx
from composer.svg.viewbox import canvas_size

__all__ = ["DEFAULT_ENGINE", "MAX_DPI", "MAX_PIXELS", "canvas_size_pt", "check_chosen", "check_dpi", "check_engine",
           "engine_for", "export", "missing"]

#: the largest PNG (pixels) an export makes: 1e9 pixels is 4 GB of RGBA, a 1 m x 1 m poster at 800 dpi.
MAX_PIXELS = 1_000_000_000
#: the largest dpi (``compose --dpi``): 10 times a journal's line-art resolution (1200 dpi), past any print need.
MAX_DPI = 12000.0

#: the background rect the compose stage paints unless ``background = "none"`` (:func:`composer.stages.draw.background`)
_BACKGROUND = re.compile(rb"""<rect\b[^>]*\bid=["']background["']""")


#: the PNG's ``iTXt`` keyword of composer's provenance record (``Description`` holds the alt text)
PNG_PROVENANCE = "composer-provenance"


def _png_finish(png: bytes, job: Job) -> bytes:
    """Every engine's PNG gets ``pHYs`` (= dpi) and ``sRGB``, and its texts: ``Description`` (the alt
    text) and :data:`PNG_PROVENANCE` (:func:`composer.stages.export.png.with_metadata`)."""
    return _png.with_metadata(png, dpi=job.dpi, texts={"Description": job.alt, PNG_PROVENANCE: job.provenance})


def _pdf_finish(pdf: bytes, job: Job) -> bytes:
    """Every engine's PDF carries the alt text as a tagged figure (the resvg engine's is tagged by Typst; a
    PDF without structure, cairo's, is tagged here: :func:`composer.stages.export.pdfmeta.tag_as_figure`) and
    the provenance record in its XMP (:func:`composer.stages.export.pdfmeta.with_provenance`)."""
    if job.alt:
        pdf = pdfmeta.tag_as_figure(pdf, job.alt)
    if job.provenance:
        pdf = pdfmeta.with_provenance(pdf, job.provenance)
    return pdf


def _tiff(png: bytes, job: Job) -> bytes:
    """The TIFF from the (finished) PNG: RGB when the canvas has a background (cairo leaves the last, partly
    covered column of a canvas that is not a whole number of pixels translucent) or every pixel is opaque."""
    return _png.to_tiff(png, dpi=job.dpi, opaque=bool(_BACKGROUND.search(job.svg[:4096])))


# the built-in entries' functions (declared in composer.kinds.outputs, below the layout format), each looked
# up when called so that a test replacing an engine module's function replaces the engine's
FORMATS.bind("png", finish=_png_finish)
FORMATS.bind("pdf", finish=_pdf_finish)
FORMATS.bind("tiff", convert=_tiff)
FORMATS.bind("pptx", convert=lambda png, job: _pptx.to_pptx(png, job))
ENGINES.bind("resvg", available=lambda: resvg_engine.available(),
             write=lambda job, kinds: resvg_engine.write(job, kinds))
ENGINES.bind("cairosvg", available=lambda: cairosvg_engine.available(),
             write=lambda job, kinds: cairosvg_engine.write(job, kinds))


def missing(engine: str) -> str | None:
    """None when ``engine`` can run on this machine, else why not (one line)."""
    available = ENGINES[engine].available
    return None if available is None else available()


def check_dpi(dpi: float) -> None:
    """Refuse a dpi that is not a number from 1 to :data:`MAX_DPI` (NaN and infinity included).

    Raises:
        ComposerError: names the bad value and the range.
    """
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not 1 <= dpi <= MAX_DPI:  # NaN fails too
        raise ComposerError(f"dpi {dpi} must be a number from 1 to {MAX_DPI:g}")


def check_chosen(engine: str | None, pdf_standard: str | None) -> None:
    """Refuse a command-line ``--engine``/``--pdf-standard`` before any work (None: the layout decides;
    the layout's own choice is checked when it is read, :func:`check_engine`).

    Raises:
        ComposerError: as :func:`check_engine`.
    """
    if engine is not None or pdf_standard is not None:
        check_engine(engine or DEFAULT_ENGINE, (), pdf_standard)


def check_engine(engine: str, kinds: Iterable[str], pdf_standard: str | None = None, *,
                 file: str | None = None, key: str | None = None) -> None:
    """Refuse, before any work, an unknown engine, a missing one, or an option it lacks.

    The engines and what each writes, needs and honours are the table
    :data:`composer.kinds.outputs.ENGINES`.

    Args:
        file, key: where the engine was chosen (``layouts/fig.toml``,
            ``figure.engine``), named by the error; None for the command line.

    Raises:
        ComposerError: one line naming the engine or option, the valid
            choices, and how to install what is missing.
    """
    if engine not in ENGINES:
        raise ComposerError(ENGINES.unknown(engine), file=file, key=key)
    needs: dict[str, str] = {}  # engine -> the first format that needs it
    for kind in kinds:
        if kind in FORMATS and kind != CANVAS:
            needs.setdefault(engine_for(kind, engine), kind)
    for needed, kind in needs.items():
        why = missing(needed)
        if why is not None:
            what = f"{kind.upper()} is written by the {needed} engine" if needed != engine else f"engine {needed!r}"
            raise ComposerError(f"{what}, which cannot run here ({why}); install it: {ENGINES[needed].install}",
                                file=file if needed == engine else None, key=key if needed == engine else None)
    if pdf_standard is not None:
        if pdf_standard not in resvg_engine.PDF_STANDARDS:
            raise ComposerError(f"unknown pdf standard {pdf_standard!r}; valid standards are "
                                f"{', '.join(resvg_engine.PDF_STANDARDS)}")
        if "pdf_standard" not in ENGINES[engine].options:
            able = [e.name for e in ENGINES if "pdf_standard" in e.options]
            raise ComposerError(f"pdf standard {pdf_standard!r} needs the {' or '.join(able)} engine; the {engine} "
                                "engine writes plain PDF", file=file, key=key)


def canvas_size_pt(svg: bytes, *, source: str = "canvas") -> tuple[float, float]:
    """The (width, height) in pt at which an SVG is exported: its root ``width``/``height``, by the one
    rule of :func:`composer.svg.viewbox.canvas_size` (which the live preview shows the figure at too).

    Raises:
        SvgError: no root ``<svg>``, or no size from either.
    """
    size = canvas_size(svg, source=source)
    return size.width_pt, size.height_pt


def export(svg: bytes, kinds: Iterable[str], *, engine: str = DEFAULT_ENGINE, dpi: float = 300.0,
           title: str = "", pdf_standard: str | None = None, source: str = "canvas",
           timeout_s: float | None = DEFAULT_TIMEOUT_S, jobs: int = 1,
           pdf_pages: Sequence[PdfPage] = (), alt: str = "", provenance: str = "",
           pdf_svg: bytes | None = None) -> dict[str, bytes]:
    """Export the composed SVG to each of ``kinds``, each engine's work in forked workers.

    Each format is written as its entry in :data:`composer.kinds.outputs.FORMATS` says: drawn by the
    engine :func:`~composer.kinds.outputs.engine_for` picks, or made from another format's bytes
    (TIFF from the PNG) in the worker that drew those.

    Args:
        svg: the canvas, as the compose stage wrote it.
        kinds: any of the registered formats but ``svg``.
        engine: one of :data:`composer.kinds.outputs.ENGINES`.
        dpi: PNG and TIFF pixels per inch; the PNG is round(width_in * dpi)
            px wide and states ``dpi`` in its ``pHYs`` chunk.
        title: the PDF's Title (the figure's name).
        pdf_standard: a PDF/A or PDF version (resvg engine only).
        source: the layout file, named by errors.
        timeout_s: wall-time limit of each worker, seconds (None: none).
        jobs: workers that may run side by side: with 1, an engine that draws
            from one parse (resvg) draws PDF, PNG and TIFF in one worker; with
            more, each format it draws in a worker of its own (PNG and TIFF
            together: the TIFF is the PNG's pixels); every format another
            engine draws (EPS, each of cairosvg's) gets a worker of its own.
        pdf_pages: pdf panels the PDF draws from their own page (:class:`composer.kinds.outputs.PdfPage`;
            the resvg engine, plain PDF: docs/design.md, "PDF panels"); every other output draws the
            panel's converted group.
        alt: the figure's description for readers who cannot see it (the PDF's tagged figure, the PNG's
            ``Description``); ``""``: none.
        provenance: the build's provenance record, JSON text (the PDF's XMP, the PNG's
            :data:`PNG_PROVENANCE`); ``""``: none.
        pdf_svg: the canvas the PDF draws instead of ``svg`` (its text as ``<text>``:
            :class:`composer.stages.compose.Composed`), by the engines that honour it (resvg; cairosvg draws
            ``svg``); None: ``svg``.

    Returns:
        kind -> bytes, for every asked kind.

    Raises:
        ComposerError: :func:`check_engine`'s refusals. SvgError: the engine
            could not draw the SVG, hung past ``timeout_s`` or crashed.
    """
    from composer.sandbox.isolate import check_timeout
    from composer.sandbox.parallel import run_workers

    if not isinstance(svg, bytes):
        raise ComposerError(f"the SVG to export must be bytes, not {type(svg).__name__}", file=source)
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)  # a generator is read once
    valid = exported()
    unknown = [k for k in kinds if k not in valid]
    if unknown:
        raise ComposerError(f"unknown export format {unknown[0]!r}; valid formats are {', '.join(valid)}")
    check_dpi(dpi)
    check_timeout(timeout_s)
    kinds = tuple(k for k in valid if k in set(kinds))
    check_engine(engine, kinds, pdf_standard)
    if pdf_standard == "ua-1" and "pdf" in kinds and not alt:
        raise ComposerError("PDF/UA-1 needs alt text for the figure: add [figure] alt = \"...\" (what the figure "
                            "shows, in a sentence), or export another pdf standard", file=source)
    if not kinds:
        return {}
    size_pt = canvas_size_pt(svg, source=source)
    if any(FORMATS[k].raster for k in kinds):
        width_px, height_px = (round(v / 72 * dpi) for v in size_pt)
        if width_px * height_px > MAX_PIXELS:
            raise SvgError(f"a PNG of {width_px} x {height_px} px ({size_pt[0] / 72 * 25.4:.0f} x "
                           f"{size_pt[1] / 72 * 25.4:.0f} mm at {dpi:g} dpi) is more than the limit of "
                           f"{MAX_PIXELS:,} pixels; use a lower --dpi", file=source)
    # the SVG is written once, here, into a folder of its own that this process removes (an engine that
    # reads a file finds it as job.folder/canvas.svg): a worker killed at its timeout cannot clean up after itself
    folder = tempfile.mkdtemp(prefix="composer-export-")
    Path(folder, "canvas.svg").write_bytes(svg)
    job = Job(svg=svg, size_pt=size_pt, dpi=dpi, title=title, pdf_standard=pdf_standard, source=source,
              folder=folder, pdf_pages=tuple(pdf_pages), alt=alt, provenance=provenance, pdf_svg=pdf_svg)
    calls: dict[str, Callable[[], dict[str, bytes]]] = {}  # label -> the engine call, run in a worker
    logs: dict[str, Path] = {}  # label -> the file the engine's stderr goes to while it draws
    for name, part in _plan(kinds, engine, jobs):
        label = " and ".join(k.upper() for k in part)
        logs[label] = Path(folder, f"stderr-{'-'.join(part)}.txt")
        calls[label] = partial(_draw, name, part, job, logs[label])
    made: dict[str, bytes] = {}
    try:
        for result in run_workers(calls, jobs=jobs, timeout_s=timeout_s).values():
            made.update(result)
    except WorkerFailure as failure:  # a drawing that hangs or crashes the engine is one error line
        log = logs.get(failure.call or "")
        said = log.read_text("utf-8", "replace") if log is not None and log.exists() else ""
        raise SvgError(failure_text(failure, said, job), file=source) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {k: made[k] for k in kinds}


#: what Rust's allocation-failure handler prints before it aborts the process (``std::alloc::rust_oom``)
_RUST_OOM = re.compile(r"memory allocation of (\d+) bytes failed")


def failure_text(failure: WorkerFailure, stderr: str, job: Job) -> str:
    """The one line an export worker's failure is told in (the caller adds the figure's file).

    An engine that runs out of memory aborts the worker (resvg and svg2pdf are Rust: a failed allocation
    prints ``memory allocation of N bytes failed`` and a backtrace, then SIGABRT); Python's ``MemoryError``
    and the kernel's out-of-memory kill (SIGKILL) end it too. Each is said as what ran out, how much
    the engine asked for when it is known, and what to do (a lower ``--dpi`` for a raster, fewer
    formats at once); the engine's backtrace is never shown. Anything else: ``exporting the PNG
    failed: <the worker's detail>``.

    Args:
        stderr: what the engine wrote on its stderr while it drew (``""``: nothing).
    """
    what = failure.call or "figure"
    m = _RUST_OOM.search(stderr)
    memory_error = failure.kind == "raised" and failure.detail.startswith("MemoryError")
    killed = failure.kind == "crashed" and "SIGKILL" in failure.detail
    if not (m or memory_error or killed):
        return f"exporting the {what} failed: {failure.detail}"
    raster = [k for k in what.lower().split(" and ") if k in FORMATS and FORMATS[k].raster]
    if raster:
        width_px, height_px = (round(v / 72 * job.dpi) for v in job.size_pt)
        size = f"a {width_px:,} x {height_px:,} px {raster[0].upper()} at {job.dpi:g} dpi"
        advice = "export it at a lower --dpi (the pixels grow with its square)"
    else:
        size = f"the {what}"
        advice = "draw less of it as pixels (filters, masks, blends are rasterized) or close other programs"
    needed = f" of {int(m.group(1)) / 1e9:.2g} GB" if m else ""
    if killed:
        return (f"exporting the {what} was killed by the system (SIGKILL), most likely for running out of "
                f"memory drawing {size}; {advice}, or close other programs")
    return f"exporting the {what} ran out of memory: the engine's allocation{needed} for {size} failed; {advice}"


@contextmanager
def _stderr_into(path: Path) -> Iterator[None]:
    """File descriptor 2 (what the engine's native code writes) goes to ``path`` while the block runs,
    then is restored, and what was written is passed on to the real stderr. Should the worker die
    inside the block (an engine's abort), the text stays in ``path`` for the parent to read, and never
    reaches the terminal: no backtrace of the engine's internals for the user."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    saved = os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    try:
        yield
    finally:
        try:
            sys.stderr.flush()
        except (AttributeError, ValueError, OSError):
            pass
        os.dup2(saved, 2)
        os.close(saved)
        said = path.read_bytes()
        path.unlink()
        if said:
            os.write(2, said)


def _plan(kinds: tuple[str, ...], engine: str, jobs: int) -> list[tuple[str, tuple[str, ...]]]:
    """The workers of one export: (engine, the formats it makes) each, in format order.

    A format is drawn by :func:`~composer.kinds.outputs.engine_for`'s engine, together with the formats made
    from it. An engine that draws from one parse (``batch``) takes all its formats in one worker when
    ``jobs`` is 1; with two cores or more each drawn format gets a worker of its own, since usvg's parse is
    about 0.01 s of volume_kv's 0.17 s and drawing both at once halves the wait.
    """
    by_engine: dict[str, dict[str, list[str]]] = {}  # engine -> drawn format -> the asked formats from it
    for kind in kinds:
        by_engine.setdefault(engine_for(kind, engine), {}).setdefault(drawn_as(kind), []).append(kind)
    plan: list[tuple[str, tuple[str, ...]]] = []
    for name, drawn in by_engine.items():
        if ENGINES[name].batch and (jobs < 2 or len(drawn) < 2):
            plan.append((name, tuple(k for group in drawn.values() for k in group)))
        else:
            plan += [(name, tuple(group)) for group in drawn.values()]
    return plan


def _draw(engine: str, kinds: tuple[str, ...], job: Job, log: Path | None = None) -> dict[str, bytes]:
    """One worker's export: ``engine`` draws what ``kinds`` need (its stderr into ``log`` meanwhile, for
    :func:`failure_text` should it abort), each drawn format is finished (PNG: ``pHYs``, ``sRGB``), then
    the formats made from others are made (TIFF from the finished PNG, here: the pixels do not travel
    twice)."""
    entry = ENGINES[engine]
    if entry.write is None:
        raise ComposerError(f"the {engine} engine has no drawing (its module did not bind one)")
    drawn = tuple(dict.fromkeys(drawn_as(k) for k in kinds))
    write = entry.write
    if log is None:
        made = dict(write(job, drawn))
    else:
        with _stderr_into(log):
            made = dict(write(job, drawn))
    for name in drawn:
        finish = FORMATS[name].finish
        if finish is not None:
            made[name] = finish(made[name], job)

    def make(name: str) -> bytes:
        if name not in made:
            fmt = FORMATS[name]
            assert fmt.made_from is not None
            if fmt.convert is None:
                raise ComposerError(f"format {name!r} has no convert (its module did not bind one)")
            made[name] = fmt.convert(make(fmt.made_from), job)
        return made[name]

    return {k: make(k) for k in kinds}
