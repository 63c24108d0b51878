"""Export stage: the composed SVG -> PDF, PNG, TIFF and EPS, through one of two engines.

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
crashed PDF does not wait for the PNG). The resvg engine never runs in the process that
forks the workers (its font check runs in the worker too): a Rust thread pool
started there would be missing, its locks perhaps held, in every worker
forked after it. The one file it reads, the SVG, is written here into a
folder this process removes, so a worker killed at its timeout leaves nothing
behind. Every PNG gets ``pHYs`` (= dpi) and ``sRGB``
(:mod:`composer.stages.export.png`); TIFF is the PNG's pixels.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

from composer.errors import ComposerError, SvgError
from composer.layout.model import ENGINES  # the engines, default first (``--engine``, ``[figure] engine``)
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure
from composer.stages.export import png as _png
from composer.svg.viewbox import canvas_size

DEFAULT_ENGINE = "resvg"
#: formats the export stage writes (the SVG itself is the compose stage's).
EXPORT_KINDS = ("pdf", "png", "tiff", "eps")
#: the largest PNG (pixels) an export makes: 1e9 pixels is 4 GB of RGBA, a 1 m x 1 m poster at 800 dpi.
MAX_PIXELS = 1_000_000_000
#: the largest dpi (``compose --dpi``): 10 times a journal's line-art resolution (1200 dpi), past any print need.
MAX_DPI = 12000.0

_INSTALL = {
    "resvg": "pip install typst",
    "cairosvg": "pip install cairosvg, and the cairo library (Debian: apt-get install libcairo2; "
                "macOS: brew install cairo)",
}


def engine_for(kind: str, engine: str) -> str:
    """The engine that writes ``kind`` when ``engine`` is chosen (EPS: always cairosvg)."""
    return "cairosvg" if kind == "eps" else engine


def missing(engine: str) -> str | None:
    """None when ``engine`` can run on this machine, else why not (one line)."""
    if engine == "resvg":
        from composer.stages.export.resvg_engine import available
    else:
        from composer.stages.export.cairosvg_engine import available
    return available()


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

    Args:
        file, key: where the engine was chosen (``layouts/fig.toml``,
            ``figure.engine``), named by the error; None for the command line.

    Raises:
        ComposerError: one line naming the engine or option, the valid
            choices, and how to install what is missing.
    """
    if engine not in ENGINES:
        raise ComposerError(f"unknown engine {engine!r}; valid engines are {', '.join(ENGINES)}", file=file,
                            key=key)
    kinds = tuple(kinds)
    for needed in dict.fromkeys(engine_for(k, engine) for k in kinds if k in EXPORT_KINDS):
        why = missing(needed)
        if why is not None:
            what = "EPS is written by the cairosvg engine" if needed != engine else f"engine {needed!r}"
            raise ComposerError(f"{what}, which cannot run here ({why}); install it: {_INSTALL[needed]}",
                                file=file if needed == engine else None, key=key if needed == engine else None)
    if pdf_standard is not None:
        from composer.stages.export.resvg_engine import PDF_STANDARDS

        if pdf_standard not in PDF_STANDARDS:
            raise ComposerError(f"unknown pdf standard {pdf_standard!r}; valid standards are "
                                f"{', '.join(PDF_STANDARDS)}")
        if engine != "resvg":
            raise ComposerError(f"pdf standard {pdf_standard!r} needs the resvg engine; the {engine} engine "
                                "writes plain PDF", file=file, key=key)


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
           timeout_s: float | None = DEFAULT_TIMEOUT_S, jobs: int = 1) -> dict[str, bytes]:
    """Export the composed SVG to each of ``kinds``, each engine's work in forked workers.

    Args:
        svg: the canvas, as the compose stage wrote it.
        kinds: any of :data:`EXPORT_KINDS`.
        engine: one of :data:`ENGINES`.
        dpi: PNG and TIFF pixels per inch; the PNG is round(width_in * dpi)
            px wide and states ``dpi`` in its ``pHYs`` chunk.
        title: the PDF's Title (the figure's name).
        pdf_standard: a PDF/A or PDF version (resvg engine only).
        source: the layout file, named by errors.
        timeout_s: wall-time limit of each worker, seconds (None: none).
        jobs: workers that may run side by side: with 1, the resvg engine
            draws PDF, PNG and TIFF in one worker from one parse; with more,
            the PDF in one and PNG/TIFF in another (the same usvg, so they
            agree); EPS and each of cairosvg's exports get a worker each.

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
    unknown = [k for k in kinds if k not in EXPORT_KINDS]
    if unknown:
        raise ComposerError(f"unknown export format {unknown[0]!r}; valid formats are {', '.join(EXPORT_KINDS)}")
    check_dpi(dpi)
    check_timeout(timeout_s)
    kinds = tuple(k for k in EXPORT_KINDS if k in set(kinds))
    check_engine(engine, kinds, pdf_standard)
    if not kinds:
        return {}
    size_pt = canvas_size_pt(svg, source=source)
    if {"png", "tiff"} & set(kinds):
        width_px, height_px = (round(v / 72 * dpi) for v in size_pt)
        if width_px * height_px > MAX_PIXELS:
            raise SvgError(f"a PNG of {width_px} x {height_px} px ({size_pt[0] / 72 * 25.4:.0f} x "
                           f"{size_pt[1] / 72 * 25.4:.0f} mm at {dpi:g} dpi) is more than the limit of "
                           f"{MAX_PIXELS:,} pixels; use a lower --dpi", file=source)
    calls: dict[str, Callable[[], dict[str, bytes]]] = {}  # label -> the engine call, run in a worker
    own = [k for k in kinds if engine_for(k, engine) == engine]
    folder = None
    if engine == "resvg" and own:
        # the SVG is written once, here, into a folder of its own that this process removes: a worker
        # killed at its timeout cannot clean up after itself
        folder = tempfile.mkdtemp(prefix="composer-export-")
        Path(folder, "canvas.svg").write_bytes(svg)
    if engine == "resvg":
        # one worker draws all from one parse; with two cores or more the PDF gets a worker of its own,
        # since usvg's parse is about 0.01 s of volume_kv's 0.17 s and drawing both at once halves the wait
        parts = ([own] if jobs < 2 or "pdf" not in own or len(own) < 2 else
                 [["pdf"], [k for k in own if k != "pdf"]]) if own else []
        for part in parts:
            calls[" and ".join(k.upper() for k in part)] = partial(
                _resvg, svg, part, dpi, size_pt, title, pdf_standard, source, folder)
    else:
        for kind in own:
            calls[kind.upper()] = partial(_cairosvg, svg, kind, dpi, source, title)
    if "eps" in kinds and engine != "cairosvg":
        calls["EPS"] = partial(_cairosvg, svg, "eps", dpi, source)
    made: dict[str, bytes] = {}
    try:
        for result in run_workers(calls, jobs=jobs, timeout_s=timeout_s).values():
            made.update(result)
    except WorkerFailure as failure:  # a drawing that hangs or crashes the engine is one error line
        raise SvgError(f"exporting the {failure.call} failed: {failure.detail}", file=source) from None
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return {k: made[k] for k in kinds}


#: the background rect the compose stage paints unless ``background = "none"`` (:func:`composer.stages.draw.background`)
_BACKGROUND = re.compile(rb"""<rect\b[^>]*\bid=["']background["']""")


def _finish(made: dict[str, bytes], kinds: Iterable[str], dpi: float, svg: bytes) -> dict[str, bytes]:
    """PNG metadata and the TIFF from the engine's PNG (in the worker: the pixels do not travel twice).
    The TIFF is RGB when the canvas has a background (cairo leaves the last, partly covered column of a
    canvas that is not a whole number of pixels translucent) or every pixel is opaque."""
    kinds = tuple(kinds)
    if "png" in made:
        made["png"] = _png.with_metadata(made["png"], dpi=dpi)
        if "tiff" in kinds:
            made["tiff"] = _png.to_tiff(made["png"], dpi=dpi, opaque=bool(_BACKGROUND.search(svg[:4096])))
        if "png" not in kinds:
            del made["png"]
    return made


def _resvg(svg: bytes, kinds: list[str], dpi: float, size_pt: tuple[float, float], title: str,
           pdf_standard: str | None, source: str, folder: str | None) -> dict[str, bytes]:
    from composer.stages.export import resvg_engine

    native = [k for k in ("pdf", "png") if k in kinds or (k == "png" and "tiff" in kinds)]
    made = resvg_engine.convert(svg, native, dpi=dpi, size_pt=size_pt, title=title, pdf_standard=pdf_standard,
                                source=source, folder=folder)
    return _finish(made, kinds, dpi, svg)


def _cairosvg(svg: bytes, kind: str, dpi: float, source: str, title: str = "") -> dict[str, bytes]:
    from composer.stages.export import cairosvg_engine

    if kind in ("png", "tiff"):
        return _finish({"png": cairosvg_engine.to_png(svg, dpi=dpi, source=source)}, [kind], dpi, svg)
    if kind == "pdf":
        return {"pdf": cairosvg_engine.to_pdf(svg, title=title, source=source)}
    return {kind: cairosvg_engine.to_eps(svg, source=source)}
