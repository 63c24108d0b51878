"""The ``compose`` command: a thin shell over the library.

``compose NAME`` builds ``layouts/NAME.toml`` of the project in the current
directory (or ``--root DIR``) into ``build/``; ``--check`` also lints it for
print, ``--debug`` also writes the layout overlay. Other commands are words in
place of NAME (``compose list``, ``compose check NAME``). Every :class:`ComposerError` becomes one
line on stderr and exit status 1; no traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Callable

from . import __version__
from .errors import ComposerError


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", default=".", help="project folder holding layouts/ and panels/ (default: .)")


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compose",
        description="Build a multi-panel figure: layouts/NAME.toml -> build/NAME.svg, .pdf, .png. "
                    f"Other commands: {', '.join(COMMANDS)} (compose COMMAND --help).",
    )
    parser.add_argument("name", help="figure name: builds layouts/NAME.toml")
    _common(parser)
    parser.add_argument("--out", default=None, help="output folder (default: ROOT/build)")
    parser.add_argument("--format", default="svg,pdf,png",
                        help="comma-separated output formats: svg, pdf, png (default: all)")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution in dots per inch (default: 300)")
    parser.add_argument("--check", action="store_true",
                        help="also check the figure for print (as compose check NAME); exit 1 on an error")
    parser.add_argument("--debug", action="store_true",
                        help="also write the layout overlay build/NAME.debug.svg and .png (boxes, gutters, "
                             "anchors, names); the real outputs are unchanged")
    parser.add_argument("--version", action="version", version=f"composer {__version__}")
    return parser


def _build(argv: list[str]) -> int:
    args = _build_parser().parse_args(argv)
    from .build import build

    started = time.perf_counter()
    result = build(args.name, root=args.root, out=args.out,
                   formats=tuple(f.strip() for f in args.format.split(",") if f.strip()), dpi=args.dpi,
                   debug=args.debug, check=args.check)
    elapsed = time.perf_counter() - started
    print(f"built {args.name} in {elapsed:.2f} s: {', '.join(str(p) for p in result.outputs.values())}")
    if result.report is not None:
        print(result.report.table())
        return 0 if result.report.ok else 1
    return 0


def _check(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="compose check",
        description="Check a figure for print at its final size: text and line sizes, raster ppi, overlaps, "
                    "elements off the canvas, fonts, loose connectors, colours under colour-vision deficiency. "
                    "Exit status 1 when an error-level problem is found. Writes nothing.")
    parser.add_argument("name", help="figure name: checks layouts/NAME.toml")
    _common(parser)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    from .check import check

    report = check(args.name, root=args.root)
    print(report.to_json() if args.json else report.table())
    return 0 if report.ok else 1


def _list(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="compose list", description="List the project's figures.")
    _common(parser)
    args = parser.parse_args(argv)
    from .build import Project

    for name in Project.at(args.root).figures():
        print(name)
    return 0


#: sub-commands: word -> handler(argv) returning the exit status. A first
#: argument that is not one of these is a figure name to build.
COMMANDS: dict[str, Callable[[list[str]], int]] = {
    "list": _list,
    "check": _check,
}


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 user error, 2 usage error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    handler = COMMANDS.get(argv[0], None) if argv else None
    try:
        return handler(argv[1:]) if handler else _build(argv)
    except ComposerError as exc:
        print(f"compose: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
