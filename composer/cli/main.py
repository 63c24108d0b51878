"""The ``compose`` command: a thin shell over the library.

One command word per action, then its figure NAME (``compose COMMAND --help``: its options):
``compose build NAME...`` builds ``layouts/NAME.toml`` of the project in the current directory (or
``--root DIR``) into ``build/`` (``--all``: every figure; ``--check``: then check each for print;
``--debug``: also the layout overlay; ``--deps``: the files it depends on); ``compose check NAME`` only
checks (it writes nothing); ``compose watch NAME`` rebuilds on every change; ``compose serve NAME`` is
the live preview; ``compose list``, ``compose new NAME``, ``compose schema``, ``compose clean``;
``compose diff NAME [REV]`` compares the figure with its state at a git revision (:mod:`composer.diff`).
``compose NAME...`` (a first argument that is no command word) is short for ``compose build NAME...``;
a figure named like a command (``list``) is built with ``compose build list``. The old spellings
(``compose all``, ``compose --all``, ``compose NAME --watch``, ``compose NAME --serve``) work for one
more release, after one line saying what to type instead.

Every :class:`ComposerError` becomes one line on stderr and exit status 1; no traceback. Every
:class:`ComposerWarning` (a font swapped in an imported SVG, a raster below the target ppi) becomes one
line ``compose: warning: ...`` on stderr, and the build goes on.

When nothing changed since the last build, ``compose NAME`` answers from the
build manifest alone (:mod:`composer.incremental.manifest`): it imports neither the
pipeline nor matplotlib, lxml or an export engine, so it takes a few hundredths of a
second. The warnings of the build that made the outputs are kept in the
manifest and printed again.

What a panel's code prints (stdout, stderr, Python warnings) is shown after composer's own line
(the summary, or the error), each line prefixed with the panel's name (``  fmap: hello``), panels in
layout order; ``--verbose`` shows the lines as they are printed instead. Ctrl-C prints one line
(``compose: interrupted; outputs left as they were``) and exits with status 130.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from composer.errors import ComposerError, ComposerWarning
from composer.kinds import outputs
from composer.sandbox.isolate import check_jobs, check_timeout
from composer.version import __version__


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as every other error of composer: one line on stderr, exit status 1."""

    def error(self, message: str) -> NoReturn:
        self.exit(1, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", default=".", help="project folder holding layouts/ and panels/ (default: .)")


def _jobs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="worker processes for rendering panels and exporting (default: all cores)")


def _outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default=None, help="output folder (default: ROOT/build)")
    parser.add_argument("--format", default=",".join(outputs.DEFAULT_FORMATS),
                        help="comma-separated output formats: "
                             + ", ".join(f"{f.name} ({f.doc})" for f in outputs.FORMATS)
                             + f" (default: {','.join(outputs.DEFAULT_FORMATS)})")
    parser.add_argument("--dpi", type=float, default=300.0,
                        help="PNG and TIFF resolution (and the PPTX's fallback PNG's) in dots per inch (default: 300)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a panel function or an export that runs longer than this (default: 120)")
    parser.add_argument("--engine", default=None, choices=outputs.engine_names(),
                        help="the engine that draws PDF and PNG (default: the layout's [figure] engine, else "
                             f"{outputs.DEFAULT_ENGINE}): "
                             + "; ".join(f"{e.name}: {e.doc}" for e in outputs.ENGINES))
    parser.add_argument("--pdf-standard", default=None, metavar="STANDARD",
                        help="write the PDF to a standard: a-2b, a-3b, a-4 (PDF/A), 1.7, 2.0... (resvg engine)")


def _timeout(args: argparse.Namespace) -> float:
    from composer.sandbox.isolate import DEFAULT_TIMEOUT_S

    return DEFAULT_TIMEOUT_S if args.timeout is None else args.timeout


def _figure_name(args: argparse.Namespace) -> None:
    """Accept the layout's path for NAME, as tab completion gives it: ``layouts/fig.toml`` -> ``fig``,
    ``layouts/sub/x.toml`` -> ``sub/x`` (and, without ``--root``, the project is the folder holding
    that ``layouts/``)."""
    name = getattr(args, "name", None)
    if not name or not name.endswith((".toml", ".py")):
        return
    path = Path(name)
    for candidate in ([path] if path.is_absolute() else [path, Path(args.root) / path]):
        if not candidate.is_file():
            continue
        real = candidate.resolve()
        layouts = next((folder for folder in real.parents if folder.name == "layouts"), None)
        if layouts is not None:  # layouts/fig.toml -> fig; layouts/sub/x.toml -> sub/x
            if args.root == "." and candidate is path:
                args.root = str(layouts.parent)
            args.name = real.relative_to(layouts).with_suffix("").as_posix()
            return


def _one_or_all(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.all and args.name is not None:
        parser.error(f"give a figure NAME or --all, not both ({args.name!r} and --all)")
    if not args.all and args.name is None:
        parser.error("give a figure NAME or --all")


def _formats(text: str) -> tuple[str, ...]:
    return tuple(f.strip() for f in text.split(",") if f.strip())


def _verbose(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show what panel code prints (stdout, stderr, warnings) as it happens (without "
                             "it, it is shown after the build's line), and every frame of a traceback (without "
                             "it, those of your code)")


def _build_parser(prog: str = "compose build") -> argparse.ArgumentParser:
    """The parser of ``compose build`` (and of its short form ``compose NAME``). The old flags
    ``--watch``, ``--serve`` and ``--port`` are still read, hidden from ``--help``: see :data:`OLD_FLAGS`."""
    parser = _Parser(
        prog=prog,
        description="Build figures: layouts/NAME.toml -> build/NAME.svg, .pdf, .png (compose NAME... is short "
                    "for compose build NAME...).")
    parser.add_argument("names", nargs="*", metavar="NAME", help="figure name: builds layouts/NAME.toml")
    parser.add_argument("--all", action="store_true", help="build every figure of the project")
    _common(parser)
    _outputs(parser)
    parser.add_argument("--check", action="store_true",
                        help="build, then check the figure for print (compose check NAME checks without "
                             "building); exit 1 on an error")
    parser.add_argument("--debug", action="store_true",
                        help="also write the layout overlay build/NAME.debug.svg and .png (boxes, gutters, "
                             "anchors, names, the ids of imported SVGs) and build/NAME.debug.txt (those ids); "
                             "the real outputs are unchanged")
    _jobs(parser)
    parser.add_argument("--panels", action="store_true",
                        help="also write every panel alone at its final size (with what it draws past its box), "
                             "without its label, as "
                             "OUT/NAME/PANEL.svg|pdf|png (in each --format)")
    parser.add_argument("--no-cache", action="store_true",
                        help="ignore the panel cache and the last build: render and export everything")
    _verbose(parser)
    parser.add_argument("--deps", nargs="?", const="lines", default=None, choices=("lines", "make"),
                        metavar="make",
                        help="print the files the figure depends on, one per line (--deps=make: as a Makefile "
                             "rule whose targets are the outputs); builds it first, quietly, when not up to date")
    # the old spellings, kept for one release (hidden): compose NAME --watch, --serve [--port N]
    parser.add_argument("--watch", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)
    # as before the commands: compose NAME --version, compose --root DIR --version (hidden: compose --version)
    parser.add_argument("--version", action="version", version=_version(), help=argparse.SUPPRESS)
    return parser


def _names(args: argparse.Namespace) -> list[str]:
    """The figure names of ``compose build``, each one as :func:`_figure_name` reads it (a layout's path
    is its name)."""
    names = []
    for name in args.names:
        one = argparse.Namespace(name=name, root=args.root)
        _figure_name(one)
        args.root = one.root
        names.append(one.name)
    return names


def _build(argv: list[str], *, prog: str = "compose build") -> int:
    """``compose build NAME... | --all`` and its short form ``compose NAME...`` (``prog`` ``"compose"``).
    An old spelling (``compose NAME --serve``, ``--watch``, ``compose --all``, ``compose all``: ``prog``
    ``"compose all"``) gets one line saying what to type instead, then runs as before."""
    parser = _build_parser(prog)
    args = parser.parse_args(argv)
    args.all = args.all or prog == "compose all"
    names = _names(args)
    args.name = names[0] if len(names) == 1 else None
    if len(names) > 1:
        if args.all:
            parser.error(f"give figure NAMEs or --all, not both ({', '.join(map(repr, names))} and --all)")
        wanted = next((flag for flag, on in (("--watch", args.watch), ("--serve", args.serve),
                                             ("--deps", args.deps is not None), ("--panels", args.panels)) if on),
                      None)
        if wanted is not None:
            parser.error(f"{wanted} takes one figure; give one NAME (given: {', '.join(names)})")
    else:
        _one_or_all(parser, args)
    check_jobs(args.jobs)
    check_timeout(args.timeout)
    if args.panels and (args.all or args.watch or args.serve or args.deps is not None):
        parser.error("--panels writes the panels of one figure; give its name, without --all, --watch, --serve "
                     "or --deps")
    if args.port is not None and not args.serve:
        parser.error("--port is the port of the live preview: compose serve NAME --port N")
    if args.all and not args.serve:
        if args.check:
            parser.error("--check builds and checks one figure; for every figure: compose build --all, then "
                         "compose check --all")
        if args.debug:
            parser.error("--debug writes the layout overlay of one figure: compose build NAME --debug for each "
                         "(compose build --all builds every figure without it)")
        if args.watch:
            parser.error("--watch rebuilds one figure; to rebuild every figure on change, use compose serve --all")
        if args.deps:
            parser.error("--deps lists one figure's dependencies; give its NAME (compose build NAME --deps)")
    formats = _formats(args.format)
    if args.deps is not None and (args.watch or args.check or args.debug):
        parser.error("--deps prints what a figure depends on; give it without --watch, --check and --debug")
    if args.watch or args.serve or (args.all and prog != "compose build"):
        _old_spelling(prog, argv, args)  # then it runs as it did
    if args.serve:
        return _serve(args)
    if args.all:
        return _build_every(args)
    if args.deps is not None:
        return _deps(args, formats)
    if args.watch:
        return _watch(args, formats)
    status = 0
    for name in names:
        args.name = name
        status = max(status, _build_one(args, formats))
    return status


def _build_one(args: argparse.Namespace, formats: tuple[str, ...]) -> int:
    """Build the figure ``args.name``: its summary line (and report, with ``--check``) on stdout, or
    its error line on stderr; then what its panels printed. Returns the exit status."""
    started = time.perf_counter()
    if (not args.no_cache and not args.check and not args.debug and not args.panels and formats
            and set(formats) <= set(outputs.format_names()) and args.dpi > 0):
        # the no-op path: standard library only, no layout parsing (see composer.incremental.manifest)
        from composer.incremental.manifest import fresh_outputs, options, recorded_warnings

        fresh = fresh_outputs(args.root, args.name, args.out,
                              options(formats, args.dpi, args.engine, args.pdf_standard))
        if fresh is not None:
            out_dir = Path(args.out) if args.out is not None else Path(args.root).resolve() / "build"
            for message in recorded_warnings(out_dir, args.name):  # as the build that made the outputs did
                warnings.warn(ComposerWarning(message), stacklevel=1)
            print(f"{args.name} is up to date ({time.perf_counter() - started:.2f} s): {_paths(fresh.values())}")
            return 0
    from composer.pipeline import build
    from composer.progress import PanelOutput, for_terminal

    progress = PanelOutput(for_terminal(), live=args.verbose)
    try:
        result = build(args.name, root=args.root, out=args.out, formats=formats, dpi=args.dpi, jobs=args.jobs,
                       cache=not args.no_cache, progress=progress, debug=args.debug, check=args.check,
                       timeout_s=_timeout(args), engine=args.engine, pdf_standard=args.pdf_standard,
                       panels=args.panels)
    except ComposerError as exc:  # the error's line (and the user's frames) first, then what the panels printed
        _error(exc, verbose=args.verbose)
        progress.show()
        return 1
    print(_summary(args.name, result, time.perf_counter() - started), flush=True)
    if args.panels and result.outputs:
        first = next(iter(result.outputs.values()))  # OUT/NAME.svg: the panels are in OUT/NAME/
        print(f"each panel alone: {_paths([first.with_suffix('')])}{os.sep}PANEL.{{{','.join(formats)}}}", flush=True)
    if result.report is not None:
        print(result.report.table(), flush=True)
    progress.show()
    return 0 if result.report is None or result.report.ok else 1


def _deps(args: argparse.Namespace, formats: tuple[str, ...]) -> int:
    """``compose NAME --deps``: the figure's dependencies from the manifest of an up-to-date build (built
    first, without progress or warnings, when it is not): the layout, style files, panel modules and the
    project modules they import, data files, imported SVG and image files, and the files panel code
    opened. One per line, relative to the project when inside it, else absolute, sorted; ``--deps=make``:
    one Makefile rule, the outputs of ``--format``/``--out`` as its targets."""
    from composer.incremental.manifest import dependencies, display_path, fresh_outputs, options
    from composer.stages.inputs import Project

    project = Project.at(args.root)
    project.layout_path(args.name)
    out_dir = Path(args.out) if args.out is not None else project.root / "build"
    opts = options(formats, args.dpi, args.engine, args.pdf_standard)
    if args.no_cache or fresh_outputs(project.root, args.name, args.out, opts) is None:
        from composer.pipeline import build

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ComposerWarning)  # a build shows them; the list is for a tool
            build(args.name, root=project.root, out=args.out, formats=formats, dpi=args.dpi, jobs=args.jobs,
                  cache=not args.no_cache, timeout_s=_timeout(args), engine=args.engine,
                  pdf_standard=args.pdf_standard)
    found = dependencies(out_dir, args.name)
    if not found:
        raise ComposerError(f"{args.name}: an input changed while it was built, so no manifest was written; "
                            "run compose --deps again")
    broken = next((path for path in found if "\n" in path or "\r" in path), None)
    if broken is not None:  # one path per line, and make has no way to write one
        raise ComposerError(f"{args.name}: it depends on a file whose name holds a line break ({broken!r}); "
                            "--deps writes one path per line: rename the file")
    if args.deps == "lines":
        print("\n".join(found))
        return 0
    targets = [display_path(out_dir / f"{args.name}.{fmt}", project.root) for fmt in formats]
    print(f"{' '.join(map(_make_escaped, targets))}: {' '.join(map(_make_escaped, found))}")
    for path in found:  # as gcc -MP: a dependency deleted or renamed is a reason to rebuild, not an error
        print(f"{_make_escaped(path)}:")
    return 0


def _make_escaped(path: str) -> str:
    """A path as GNU make reads it in a rule: spaces, ``#`` and ``:`` behind a backslash, ``$`` doubled."""
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ").replace(":", "\\:")


def _paths(paths) -> str:
    """Output paths as shown: relative to the current directory when below it."""
    import os

    shown = []
    here = os.getcwd()
    for path in paths:
        rel = os.path.relpath(path)
        shown.append(str(os.path.abspath(path)) if rel.startswith("..") or here == os.sep else rel)
    return ", ".join(shown)


def _summary(name: str, result, seconds: float) -> str:
    """One line: what a build did and where its outputs are."""
    if result.up_to_date:
        return f"{name} is up to date ({seconds:.2f} s): {_paths(result.outputs.values())}"
    parts = []
    if result.rendered:
        parts.append(f"rendered {', '.join(result.rendered)}")
    if result.cached:
        parts.append(f"{len(result.cached)} panel{'s' * (len(result.cached) != 1)} from cache")
    if result.repaired:
        parts.append(f"corrupt cache entr{'ies' if len(result.repaired) > 1 else 'y'} replaced: "
                     f"{', '.join(result.repaired)}")
    if result.fitted_height:
        parts.append(f"height {result.fitted_height}")
    parts.append(f"wrote {', '.join(result.written)}" if result.written else "outputs unchanged")
    return f"built {name} in {seconds:.2f} s ({'; '.join(parts)}): {_paths(result.outputs.values())}"


def _watch(args: argparse.Namespace, formats: tuple[str, ...]) -> int:
    from composer.cli.watch import watch
    from composer.progress import PanelOutput, for_terminal, prefixed

    failed = [False]
    shown: list[PanelOutput] = []  # the display of the build running now: what its panels printed

    def progress() -> PanelOutput:
        shown[:] = [PanelOutput(for_terminal(), live=args.verbose)]
        return shown[0]

    def report(event) -> None:
        if event.error is not None:
            _error(event.error, verbose=args.verbose)
            for display in shown:  # then what the panels printed, as a plain build shows it
                display.show()
            failed[0] = True
            return
        cause = f" after {', '.join(event.changed)} changed" if event.changed else ""
        if event.result.up_to_date and event.changed and not failed[0]:
            return  # touched, not changed
        failed[0] = False
        print(_summary(args.name, event.result, event.seconds) + cause, flush=True)
        if not args.verbose:
            _show(prefixed(event.result.output))

    from composer.cli.watch import check_options

    check_options(formats, args.dpi, args.jobs, _timeout(args), args.engine, args.pdf_standard)
    print(f"watching {args.name} (Ctrl-C stops)", flush=True)
    try:
        watch(args.name, root=args.root, out=args.out, formats=formats, dpi=args.dpi, jobs=args.jobs,
              timeout_s=_timeout(args), on_build=report, engine=args.engine, pdf_standard=args.pdf_standard,
              progress=progress)
    except KeyboardInterrupt:  # Ctrl-C: the way to stop watching; a build it stopped wrote nothing
        print("compose: stopped watching; outputs left as the last build wrote them", file=sys.stderr, flush=True)
        return 130
    return 0


def _error(exc: ComposerError, *, verbose: bool = False) -> None:
    """An error as the command shows it, on stderr: its one line, then, for an error in the user's code,
    the traceback of the user's code (``verbose``: every frame; :mod:`composer.cli.tracebacks`)."""
    from composer.cli.tracebacks import traceback_lines

    lines = [f"compose: error: {exc}", *traceback_lines(getattr(exc, "frames", ()), verbose=verbose)]
    print("\n".join(lines), file=sys.stderr, flush=True)


def _show(lines: list[str]) -> None:
    """Write what panel code printed (``  PANEL: line``) on stderr."""
    for line in lines:
        print(line, file=sys.stderr)
    sys.stderr.flush()

def _serving(parser: argparse.ArgumentParser) -> None:
    """The option of the live preview: ``--port``."""
    parser.add_argument("--port", type=int, default=None, metavar="N",
                        help="the port of the preview on 127.0.0.1 (default: a free port)")


def _serve(args: argparse.Namespace) -> int:
    """``compose serve NAME``, ``compose serve --all`` (and the old ``compose NAME --serve``): the live preview
    (:mod:`composer.cli.serve`); Ctrl-C ends it as it ends a build (one line, exit status 130)."""
    from composer.cli.serve import Options, serve
    from composer.progress import PanelOutput, for_terminal, prefixed
    from composer.stages.inputs import Project

    names = Project.at(args.root).figures() if args.all else [args.name]
    if not names:
        raise ComposerError(f"{Path(args.root) / 'layouts'}: no figure to serve (no layout file)")
    failed: dict[str, bool] = {}
    shown: list[PanelOutput] = []  # the display of the build running now (one builder per process)

    def progress() -> PanelOutput:
        shown[:] = [PanelOutput(for_terminal())]
        return shown[0]

    def report(name: str, event) -> None:  # the lines of compose watch
        if event.error is not None:
            _error(event.error, verbose=args.verbose)
            for display in shown:  # then what the panels printed, as a plain build shows it
                display.show()
            failed[name] = True
            return
        if event.result.up_to_date and event.changed and not failed.get(name):
            return  # touched, not changed
        failed[name] = False
        cause = f" after {', '.join(event.changed)} changed" if event.changed else ""
        print(_summary(name, event.result, event.seconds) + cause, flush=True)
        _show(prefixed(event.result.output))

    what = (f"{len(names)} figure{'s' * (len(names) != 1)}") if args.all else args.name
    formats = _formats(args.format)
    formats = formats if outputs.CANVAS in formats else (outputs.CANVAS, *formats)  # the page shows the SVG
    options = Options(formats=formats, dpi=args.dpi, jobs=args.jobs, timeout_s=_timeout(args),
                      engine=args.engine, pdf_standard=args.pdf_standard)
    try:
        return serve(names, root=args.root, out=args.out, options=options, port=args.port or 0,
                     single=not args.all, toggles={"debug": args.debug, "check": args.check}, report=report,
                     summary=_summary, progress=progress, editor=getattr(args, "editor", None),
                     started=lambda url: print(f"serving {what} at {url}", flush=True))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the way to stop the preview, as for --watch
        print("compose: stopped serving; outputs left as the last build wrote them", file=sys.stderr, flush=True)
        return 130


def _serve_parser() -> argparse.ArgumentParser:
    """The parser of ``compose serve``."""
    parser = _Parser(
        prog="compose serve",
        description="Build a figure, then show it in the browser at a local address (127.0.0.1 only, printed) "
                    "and rebuild it whenever one of its inputs changes; the page swaps in each new figure in place, "
                    "shows a failed build's error above the last good figure, and can show the layout overlay and "
                    "the check's findings. Ctrl-C stops.")
    parser.add_argument("name", nargs="?", help="figure name: serves layouts/NAME.toml")
    parser.add_argument("--all", action="store_true", help="serve every figure of the project, with an index page")
    _common(parser)
    _outputs(parser)
    _serving(parser)
    _jobs(parser)
    parser.add_argument("--debug", action="store_true", help="show the layout overlay when the page opens")
    parser.add_argument("--check", action="store_true", help="show the check's findings when the page opens")
    parser.add_argument("--editor", metavar="COMMAND", default=None,
                        help="the command that opens the layout at an element's line when it is clicked in the page, "
                             "{path} and {line} filled in (e.g. \"code -g {path}:{line}\"); default: none, the page "
                             "follows a vscode:// link")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show every frame of the traceback of an error in panel code")
    return parser


def _serve_command(argv: list[str]) -> int:
    parser = _serve_parser()
    args = parser.parse_args(argv)
    _figure_name(args)
    _one_or_all(parser, args)
    check_jobs(args.jobs)
    check_timeout(args.timeout)
    return _serve(args)


def _clean(argv: list[str]) -> int:
    parser = _Parser(
        prog="compose clean",
        description="Delete what composer wrote: a figure's outputs, its build manifest and its cache "
                    "entries (panels, typeset text); without NAME, those of every figure and the whole cache "
                    "(build/.cache). The next build is then a cold build.")
    parser.add_argument("name", nargs="?", default=None, help="only this figure (default: every figure)")
    _common(parser)
    parser.add_argument("--out", default=None, help="output folder (default: ROOT/build)")
    args = parser.parse_args(argv)
    _figure_name(args)
    from composer.incremental.cache import clean
    from composer.stages.inputs import Project

    project = Project.at(args.root)
    if args.name is not None:
        project.layout_path(args.name)
    names = [args.name] if args.name is not None else project.figures()
    removed = clean(project.root, names, out_dir=args.out, whole_cache=args.name is None)
    print(f"removed {_paths(removed)}" if removed else "nothing to remove")
    return 0


def _provenance(argv: list[str]) -> int:
    parser = _Parser(
        prog="compose provenance",
        description="Print where a figure's SVG, PDF or PNG comes from: the composer that made it, the git "
                    "commit and whether its inputs were as committed, every input with its sha256; and name "
                    "each input that differs in the project now (changed, missing). Exit status 1 when the file "
                    "cannot be read or holds no provenance.")
    parser.add_argument("file", help="a figure's output: build/NAME.svg, .pdf or .png")
    _common(parser)
    parser.add_argument("--json", action="store_true", help="the record and its differences as JSON")
    args = parser.parse_args(argv)
    from composer.incremental.provenance import compare, read

    comparison = compare(read(args.file), args.root, file=args.file)
    print(comparison.to_json() if args.json else comparison.table())
    return 0


def _check(argv: list[str]) -> int:
    parser = _Parser(
        prog="compose check",
        description="Check a figure for print at its final size: text and line sizes, raster ppi, overlaps, "
                    "elements off the canvas, fonts, loose connectors, colours under colour-vision deficiency. "
                    "Exit status 1 when an error-level problem is found. Panels come from the panel cache "
                    "when a build put them there, else are rendered as a build renders them. Writes nothing.")
    parser.add_argument("name", nargs="?", help="figure name: checks layouts/NAME.toml")
    parser.add_argument("--all", action="store_true",
                        help="check every figure of the project (for a paper's CI); exit 1 if any has an error")
    _common(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="worker processes for rendering panels (default: all cores)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a panel function that runs longer than this (default: 120)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="show what panel code prints as it happens, and every frame of a traceback")
    args = parser.parse_args(argv)
    from composer.pipeline import check
    from composer.progress import Progress

    _one_or_all(parser, args)
    check_jobs(args.jobs)
    check_timeout(args.timeout)
    if args.all:
        return _check_every(args)
    _figure_name(args)
    from composer.progress import PanelOutput

    progress = PanelOutput(Progress(), live=args.verbose)
    try:
        report = check(args.name, root=args.root, jobs=args.jobs, timeout_s=_timeout(args), progress=progress)
    except ComposerError as exc:
        _error(exc, verbose=args.verbose)
        progress.show()
        return 1
    print(report.to_json() if args.json else report.table(), flush=True)
    progress.show()  # on stderr: --json stays JSON
    return 0 if report.ok else 1


def _check_every(args: argparse.Namespace) -> int:
    """``compose check --all``: every figure's report (a figure that cannot be checked is one error line),
    then a summary line; exit 1 when any figure has an error or could not be checked."""
    import json

    from composer.pipeline import check
    from composer.stages.inputs import Project

    names = Project.at(args.root).figures()
    failed, reports, errors = [], {}, {}
    for name in names:
        try:
            report = check(name, root=args.root, jobs=args.jobs, timeout_s=_timeout(args))
        except ComposerError as exc:
            _error(exc, verbose=args.verbose)
            failed.append(name)
            errors[name] = str(exc)
            continue
        reports[name] = report
        if not report.ok:
            failed.append(name)
        if not args.json:
            print(report.table())
    if args.json:
        found = {n: json.loads(r.to_json()) for n, r in reports.items()}
        found.update({n: {"ok": False, "error": message} for n, message in errors.items()})
        print(json.dumps(found, indent=1, sort_keys=True))
    else:
        print(f"checked {len(names)} figures: " + (f"{len(failed)} failed: {', '.join(failed)}" if failed
                                                     else "no errors"))
    return 1 if failed else 0


def _build_every(args: argparse.Namespace) -> int:
    from composer.cli.catalog import build_all
    from composer.progress import prefixed

    def report(name, result, seconds):
        if isinstance(result, ComposerError):
            _error(result, verbose=args.verbose)
        else:
            print(_summary(name, result, seconds), flush=True)
            _show(prefixed(result.output))

    results = build_all(args.root, out=args.out, formats=_formats(args.format), dpi=args.dpi, progress=report,
                        timeout_s=_timeout(args), engine=args.engine, pdf_standard=args.pdf_standard)
    failed = [name for name, r in results.items() if isinstance(r, ComposerError)]
    current = [name for name, r in results.items() if not isinstance(r, ComposerError) and r.up_to_date]
    built = len(results) - len(failed) - len(current)
    print(f"{built} of {len(results)} figures built" + (f", {len(current)} up to date" if current else "")
          + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def _diff(argv: list[str]) -> int:
    """``compose diff NAME [REV]``: the figure at a git revision against the figure now
    (:func:`composer.diff.diff_figure`); its report on stdout; exit 1 with ``--fail-on-change`` when
    it changed."""
    parser = _Parser(
        prog="compose diff",
        description="Build a figure as it was at a git revision (default HEAD) and as it is now (the working "
                    "tree), list the texts and numbers that changed and the elements that moved or changed size, "
                    "and write build/NAME.diff.png: the figure now, faded, with the pixels that changed in "
                    "vermillion (ink removed) and blue (ink added). Both builds share the panel cache; nothing "
                    "else is written. Exit 0, or 1 with --fail-on-change when the figure changed (a paper's CI).")
    parser.add_argument("name", help="figure name: layouts/NAME.toml")
    parser.add_argument("rev", nargs="?", default="HEAD", help="the git revision to compare with (default: HEAD)")
    _common(parser)
    parser.add_argument("--out", default=None, help="folder of NAME.diff.png (default: ROOT/build)")
    parser.add_argument("--dpi", type=float, default=None,
                        help="resolution of the pixel comparison and the diff image (default: 150)")
    parser.add_argument("--fail-on-change", action="store_true", help="exit 1 when the figure changed")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    _jobs(parser)
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop a panel function or an export that runs longer than this (default: 120)")
    args = parser.parse_args(argv)
    _figure_name(args)
    check_jobs(args.jobs)
    check_timeout(args.timeout)
    import json

    from composer.diff import DEFAULT_DPI, diff_figure
    from composer.progress import for_terminal

    found = diff_figure(args.name, args.rev, root=args.root, out=args.out,
                        dpi=DEFAULT_DPI if args.dpi is None else args.dpi, jobs=args.jobs, timeout_s=_timeout(args),
                        progress=for_terminal)
    if args.json:
        print(json.dumps(found.as_dict(), indent=1, sort_keys=True))
    else:
        lines = found.lines()
        if found.image is not None:  # the image's path as every command shows its outputs
            lines = [line.replace(f": {found.image}", f": {_paths([found.image])}") for line in lines]
        print("\n".join(lines), flush=True)
    return 1 if args.fail_on_change and found.changed else 0


def _watch_parser() -> argparse.ArgumentParser:
    """The parser of ``compose watch``."""
    parser = _Parser(
        prog="compose watch",
        description="Build a figure, then rebuild it whenever the layout, a panel module or a file it reads "
                    "changes, printing what each build did; a failing build prints its error and watching goes "
                    "on. Ctrl-C stops.")
    parser.add_argument("name", nargs="?", help="figure name: watches layouts/NAME.toml")
    parser.add_argument("--all", action="store_true", help=argparse.SUPPRESS)  # to say what does that
    _common(parser)
    _outputs(parser)
    _jobs(parser)
    _verbose(parser)
    return parser


def _watch_command(argv: list[str]) -> int:
    parser = _watch_parser()
    args = parser.parse_args(argv)
    if args.all:
        parser.error("compose watch rebuilds one figure; to rebuild every figure on change, use compose serve --all")
    if args.name is None:
        parser.error("give a figure NAME")
    _figure_name(args)
    check_jobs(args.jobs)
    check_timeout(args.timeout)
    return _watch(args, _formats(args.format))


def _list(argv: list[str]) -> int:
    parser = _Parser(prog="compose list", description="List the project's figures and their "
                                     "panels (exit 1 if a layout does not load).")
    _common(parser)
    parser.add_argument("--names", action="store_true", help="figure names only, one per line")
    args = parser.parse_args(argv)
    from composer.cli.catalog import figures

    entries = figures(args.root)
    for entry in entries:
        if args.names:
            print(entry.name)
            continue
        if entry.error:
            print(f"{entry.name}  ({entry.layout})\n  error: {entry.error}")
            continue
        print(f"{entry.name}  ({entry.layout}, {entry.size}, {len(entry.panels)} panels)")
        width = max((len(p.name) for p in entry.panels), default=0)
        for p in entry.panels:
            print(f"  {p.name:<{width}}  {'' if p.matplotlib else p.kind + ' '}{p.source}")
    return 1 if any(e.error for e in entries) else 0


def _new(argv: list[str]) -> int:
    parser = _Parser(prog="compose new", description="Write a starter figure that builds at "
                                     "once: layouts/NAME.toml, panels/NAME.py, data/NAME.csv. Never overwrites.")
    parser.add_argument("name", help="the new figure's name")
    parser.add_argument("--root", default=".", help="project folder (default: .; created if missing)")
    args = parser.parse_args(argv)
    from composer.layout.starter import new_figure

    for path in new_figure(args.root, args.name):
        print(f"wrote {path}")
    print(f"build it: compose build {args.name}" + (f" --root {args.root}" if args.root != "." else ""))
    return 0


def _schema(argv: list[str]) -> int:
    parser = _Parser(prog="compose schema", description="Print the JSON Schema of layout "
                                     "files (for editors: compose schema > layout.schema.json).")
    parser.add_argument("--markdown", action="store_true", help="print the layout reference as markdown instead")
    args = parser.parse_args(argv)
    import composer.stages  # noqa: F401  (the panel sources register their keys with the format on import)
    from composer.layout.schema import markdown_reference, schema_text

    sys.stdout.write(markdown_reference() if args.markdown else schema_text())
    return 0


def _short(argv: list[str]) -> int:
    """``compose NAME...``: short for ``compose build NAME...``."""
    return _build(argv, prog="compose")


def _all(argv: list[str]) -> int:
    """The old ``compose all``: ``compose build --all``."""
    return _build(argv, prog="compose all")


#: the old flags of ``compose NAME`` (kept one release) -> the command word that replaces them.
OLD_FLAGS = {"--all": "build", "--watch": "watch", "--serve": "serve"}


def _is_flag(token: str, flag: str) -> bool:
    """Whether argparse reads ``token`` as ``flag`` (itself or an abbreviation of it: ``--ser``)."""
    return len(token) > 2 and token.startswith("--") and flag.startswith(token)


def _old_spelling(prog: str, argv: list[str], args: argparse.Namespace) -> None:
    """One line on stderr for a command typed in an old spelling, giving the new one: ``compose all
    --root p`` -> ``compose build --all --root p``, ``compose fig --serve --port 8000`` -> ``compose serve
    fig --port 8000``, ``compose --all`` -> ``compose build --all``. The command then runs as before."""
    import shlex

    rest = [token for token in argv if not any(_is_flag(token, flag) for flag in OLD_FLAGS)]
    word = "serve" if args.serve else "watch" if args.watch else "build"
    if word != "build":  # options the old spelling took and ignored (--watch --check): not in the new command
        _, ignored = (_serve_parser() if word == "serve" else _watch_parser()).parse_known_args(rest)
        for token in ignored:
            rest.remove(token)
    new = ["compose", word, *(["--all"] if args.all else []), *rest]
    typed = [*prog.split(), *argv]
    print(f"compose: warning: {shlex.join(typed)!r} is an old spelling, kept for this release; "
          f"type: {shlex.join(new)}", file=sys.stderr, flush=True)


#: sub-commands: word -> handler(argv) returning the exit status. A first argument that is not one of
#: these is a figure name to build (``compose NAME``, short for ``compose build NAME``); a figure named
#: like a command is built with ``compose build NAME``.
COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "build": _build,
    "check": _check,
    "watch": _watch_command,
    "serve": _serve_command,
    "list": _list,
    "new": _new,
    "schema": _schema,
    "clean": _clean,
    "diff": _diff,
    "provenance": _provenance,
}

#: old command words (kept one release): each still works and says what to type instead.
OLD_COMMANDS: dict[str, Callable[[list[str]], int]] = {"all": _all}

#: one line per command for ``compose --help``.
SUMMARY = (
    ("build NAME... | --all", "build figures (compose NAME... for short); --check: then check them"),
    ("check NAME | --all", "check a figure for print without building it; exit 1 on an error"),
    ("watch NAME", "build, then rebuild on every change of an input (Ctrl-C stops)"),
    ("serve NAME | --all", "build, then show it in the browser and rebuild it on every change"),
    ("list", "the project's figures, their layout files, sizes and panels"),
    ("new NAME", "write a starter figure that builds at once"),
    ("schema", "print the JSON Schema of layout files (--markdown: the layout reference)"),
    ("clean [NAME]", "delete a figure's (or every figure's) outputs, manifest and cache entries"),
    ("diff NAME [REV]", "what changed since a git revision (default HEAD): texts, moves, build/NAME.diff.png"),
    ("provenance FILE", "where a figure's SVG/PDF/PNG comes from, and which of its inputs changed since"),
)


def _top(argv: list[str]) -> int:
    """``compose --help`` (the commands) and ``compose --version``."""
    width = max(len(usage) for usage, _ in SUMMARY)
    parser = _Parser(
        prog="compose", usage="compose COMMAND [options]   (compose COMMAND --help: its options)\n"
                              "       compose NAME... [options]   (short for compose build NAME...)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Build multi-panel figures: layouts/NAME.toml -> build/NAME.svg, .pdf, .png.\n\ncommands:\n"
                    + "\n".join(f"  {usage:<{width}}  {what}" for usage, what in SUMMARY)
                    + "\n\nA figure named like a command is built with compose build NAME.")
    parser.add_argument("--version", action="version", version=_version())
    parser.parse_args(argv)
    return 0


def _version() -> str:
    """``compose --version``: the distribution (pyproject ``[project]`` name) and version, then where it is."""
    return f"figure-composer {__version__} ({Path(__file__).resolve().parents[1]})"


class _MatplotlibLog(logging.Handler):
    """matplotlib's font lookup log lines (logger ``matplotlib.font_manager``: ``findfont: Font family
    ['X'] not found. Falling back to DejaVu Sans.``), which would reach the terminal raw (through
    :data:`logging.lastResort`). Other matplotlib loggers are left alone (composer turns mathtext's
    missing glyphs into an error of its own).

    In the compose process (canvas text, the warm-up before forking) each distinct one becomes a
    ``compose: warning: matplotlib: ...`` line, once per font (a family's lines and its generic
    family's say the same). In a panel's worker (a fork of it) a line goes to the worker's stderr: the
    panel's output; except the font substitutions composer reports itself for a panel
    (:func:`composer.mpl.fontlog.font_substitutions`).
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.pid = os.getpid()
        self.seen: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        import re

        from composer.mpl.internals import family_not_found, weight_not_found

        message = record.getMessage()
        if os.getpid() != self.pid:  # in a worker
            if not (family_not_found(message) or weight_not_found(message)):
                sys.stderr.write(message + "\n")
            return
        generic = re.search(r"Generic family '([^']+)' not found", message)
        key = family_not_found(message) or (generic.group(1) if generic else message)
        if key not in self.seen:
            self.seen.add(key)
            warnings.warn(ComposerWarning(f"matplotlib: {' '.join(message.split())}"), stacklevel=1)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 error). A usage error (an unknown option, a value
    that is not a number) exits with status 1 too, after one line on stderr."""
    argv = list(sys.argv[1:] if argv is None else argv)
    handler = COMMANDS.get(argv[0], OLD_COMMANDS.get(argv[0])) if argv else None
    if argv[:1] in (["-h"], ["--help"], ["--version"]):
        handler, argv = _top, ["", *argv]
    with warnings.catch_warnings():
        warnings.simplefilter("always", ComposerWarning)
        shown = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if issubclass(category, ComposerWarning):
                print(f"compose: warning: {message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        matplotlib_log = _MatplotlibLog()
        logging.getLogger("matplotlib.font_manager").addHandler(matplotlib_log)
        try:
            return handler(argv[1:]) if handler else _short(argv)
        except ComposerError as exc:
            _error(exc, verbose=any(arg in ("-v", "--verbose") for arg in argv))
            return 1
        except BrokenPipeError:  # compose check NAME | head: the reader left; say nothing more
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        except KeyboardInterrupt as exc:  # Ctrl-C: workers stopped; outputs are written whole or not at all
            _interrupted(exc)
            return 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
        finally:
            logging.getLogger("matplotlib.font_manager").removeHandler(matplotlib_log)


def _interrupted(exc: KeyboardInterrupt) -> None:
    """The one line of a Ctrl-C; a second Ctrl-C while it is written changes nothing."""
    from composer.sandbox.isolate import WRITTEN_FIRST

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    text = WRITTEN_FIRST if exc.args == (WRITTEN_FIRST,) else "outputs left as they were"
    try:
        print(f"compose: interrupted; {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
