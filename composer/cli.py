"""The ``compose`` command: a thin shell over :func:`composer.build.build`.

``compose NAME`` builds ``layouts/NAME.toml`` of the project in the current
directory (or ``--root DIR``) into ``build/``. Every :class:`ComposerError`
becomes one line on stderr and exit status 1; no traceback.
"""

from __future__ import annotations

import argparse
import sys
import time

from . import __version__
from .errors import ComposerError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="compose",
        description="Build a multi-panel figure: layouts/NAME.toml -> build/NAME.svg, .pdf, .png.",
    )
    parser.add_argument("name", help="figure name: builds layouts/NAME.toml")
    parser.add_argument("--root", default=".", help="project folder holding layouts/ and panels/ (default: .)")
    parser.add_argument("--out", default=None, help="output folder (default: ROOT/build)")
    parser.add_argument("--format", default="svg,pdf,png",
                        help="comma-separated output formats: svg, pdf, png (default: all)")
    parser.add_argument("--dpi", type=float, default=300.0, help="PNG resolution in dots per inch (default: 300)")
    parser.add_argument("--version", action="version", version=f"composer {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit status (0 ok, 1 user error, 2 usage error)."""
    args = _parser().parse_args(argv)
    from .build import build

    started = time.perf_counter()
    try:
        result = build(args.name, root=args.root, out=args.out,
                       formats=tuple(f.strip() for f in args.format.split(",") if f.strip()), dpi=args.dpi)
    except ComposerError as exc:
        print(f"compose: error: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - started
    paths = ", ".join(str(p) for p in result.outputs.values())
    print(f"built {args.name} in {elapsed:.2f} s: {paths}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
