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
    .venv/bin/python benchmarks/use_budget.py --filters [--runs 1]

``--filters`` measures the filter costs instead (:data:`composer.svg.budget.FILTER_NS`): one 100 x 100 pt rect
drawn through a filter of one kind, on the same canvas, the PNG at 150 and 300 dpi and the PDF timed apart; it
prints the units :func:`composer.svg.budget.canvas_work` gives at 300 dpi (PNG and PDF together) against the seconds
of the PNG at 300 dpi plus the PDF, and microseconds per unit (the budget holds when that stays near or below
10, :data:`composer.svg.budget.NS_PER_UNIT`).
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


#: (name, filter primitives) of ``--filters``: each costs a few seconds at most at 300 dpi
FILTER_CASES = (
    ("offset 0 (the filter alone)", '<feOffset dx="0"/>'),
    ("20 chained feOffset", '<feOffset dx="1"/>' * 20),
    ("20 chained feFlood", '<feFlood flood-color="red"/>' * 20),
    ("blur 1", '<feGaussianBlur stdDeviation="1"/>'),
    ("blur 20", '<feGaussianBlur stdDeviation="20"/>'),
    ("5 chained blur 5", '<feGaussianBlur stdDeviation="5"/>' * 5),
    ("drop shadow", '<feDropShadow dx="2" dy="2" stdDeviation="2"/>'),
    ("colour matrix x 5", '<feColorMatrix type="saturate" values="0.3"/>' * 5),
    ("diffuse lighting x 5",
     '<feDiffuseLighting><feDistantLight azimuth="45" elevation="30"/></feDiffuseLighting>' * 5),
    ("morphology radius 1", '<feMorphology radius="1"/>'),
    ("morphology radius 3", '<feMorphology radius="3"/>'),
    ("morphology radius 5", '<feMorphology radius="5"/>'),
    ("convolve order 9", '<feConvolveMatrix order="9" kernelMatrix="' + " ".join(["1"] * 81) + '"/>'),
    ("convolve order 21", '<feConvolveMatrix order="21" kernelMatrix="' + " ".join(["1"] * 441) + '"/>'),
    ("turbulence 4 octaves", '<feTurbulence baseFrequency="0.05" numOctaves="4"/>'),
    ("turbulence 16 octaves", '<feTurbulence baseFrequency="0.05" numOctaves="16"/>'),
)


def filtered(primitives: str) -> str:
    rect = '<rect width="100" height="100" fill="#36c" filter="url(#f)"/>'
    return f'{HEAD}<filter id="f">{primitives}</filter>{rect}</svg>'


def filters(runs: int) -> None:
    """The ``--filters`` table (module docstring)."""
    def best(svg: str, kind: str, dpi: float) -> float:
        times = []
        for run in range(runs):  # other bytes each time: Typst memoizes an image it has drawn
            fresh = svg.replace("<svg ", f'<svg data-run="{run} {kind} {dpi:g}" ', 1)
            start = time.perf_counter()
            convert(fresh.encode(), (kind,), dpi=dpi, size_pt=(100.0, 100.0))
            times.append(time.perf_counter() - start)
        return min(times)

    print(f"{'filter':30} {'units':>9} {'png150 s':>8} {'png300 s':>8} {'pdf s':>7} {'us/unit':>7}")
    for name, primitives in FILTER_CASES:
        svg = filtered(primitives)
        units = canvas_work(etree.fromstring(svg.encode()), dpi=300.0)[0]
        png150, png300, pdf = best(svg, "png", 150.0), best(svg, "png", 300.0), best(svg, "pdf", 300.0)
        print(f"{name:30} {units:9d} {png150:8.2f} {png300:8.2f} {pdf:7.2f} {(png300 + pdf) / units * 1e6:7.2f}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--max", type=int, default=400_000, help="largest expanded element count")
    parser.add_argument("--filters", action="store_true", help="measure filter primitives instead")
    args = parser.parse_args()
    if args.filters:
        print(f"load average {os.getloadavg()[0]:.1f}")
        filters(args.runs)
        print(f"load average {os.getloadavg()[0]:.1f}")
        return
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
