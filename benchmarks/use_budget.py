"""Export time of the resvg engine against the expanded element count of an imported SVG.

The import budget (:data:`composer.svg.sanitize.MAX_EXPANDED_ELEMENTS`, per file, and the
figure's) is counted in expanded elements: every element once, and each ``<use>`` again for all
it instantiates. This script measures what one such element costs the engine that draws the
PDF and PNG, so the budget can be set from time, not guessed (docs/design.md, "Budgets").

Each case is a 100 x 100 pt canvas holding one symbol of K shapes instantiated N times by
``<use>`` (N x K expanded elements), in shapes of three kinds: small rects, stroked 10-vertex
paths, and ``<use>`` chains (a use of a group of uses). The canvas is exported to PDF and PNG at
300 dpi with :func:`composer.stages.export.resvg_engine.convert`, in this process, best of
``--runs`` runs; it prints one row per case: expanded elements, work units
(:func:`composer.svg.budget.canvas_work`), seconds, microseconds per unit, and the load average
before and after (the machine's other work slows the export as much as the drawing does).

    .venv/bin/python benchmarks/use_budget.py [--runs 2] [--max 400000]
"""

from __future__ import annotations

import argparse
import os
import time

from lxml import etree

from composer.stages.export.resvg_engine import convert
from composer.svg.budget import canvas_work

HEAD = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100pt" '
        'height="100pt" viewBox="0 0 100 100">')


def rects(n: int, k: int) -> str:
    shapes = "".join(f'<rect x="{i % 10}" y="{i // 10 % 10}" width="0.8" height="0.8" fill="#36c"/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#s" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs><g id="s">{shapes}</g></defs>{uses}</svg>'


def paths(n: int, k: int) -> str:
    d = "M0 0 " + " ".join(f"L{j} {(j * 3) % 7}" for j in range(1, 10))
    shapes = "".join(f'<path d="{d}" transform="translate({i % 10} {i // 10 % 10})" fill="none" '
                     f'stroke="#c33" stroke-width="0.3"/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#s" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs><g id="s">{shapes}</g></defs>{uses}</svg>'


def chain(n: int, k: int) -> str:
    """A use of a group of ``k`` uses of one rect, ``n`` times: n * (k + 1) + ... expanded elements."""
    leaf = '<rect id="r" width="0.8" height="0.8" fill="#393"/>'
    mid = "".join(f'<use xlink:href="#r" x="{i % 10}" y="{i // 10 % 10}"/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#m" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs>{leaf}<g id="m">{mid}</g></defs>{uses}</svg>'


def timed(svg: str, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        convert(svg.encode(), ("pdf", "png"), dpi=300, size_pt=(100.0, 100.0))
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--max", type=int, default=400_000, help="largest expanded element count")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'kind':6} {'uses':>6} {'per use':>7} {'expanded':>9} {'units':>9} {'s':>7} {'us/unit':>7}")
    for kind, make in (("rects", rects), ("paths", paths), ("chain", chain)):
        for n, k in ((100, 100), (300, 100), (1000, 100), (300, 300), (1000, 200), (2000, 200)):
            expanded = n * (k + 1) + k + 1 if kind != "chain" else n * (2 * k + 1) + 2 * k + 2
            if expanded > args.max:
                continue
            svg = make(n, k)
            units = canvas_work(etree.fromstring(svg.encode()))[0]
            seconds = timed(svg, args.runs)
            print(f"{kind:6} {n:6d} {k:7d} {expanded:9d} {units:9d} {seconds:7.2f} {seconds / units * 1e6:7.2f}",
                  flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
