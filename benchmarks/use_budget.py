"""The drawing-work budget against the engine's time: the units a file counts vs the seconds resvg takes to draw it.

The budget (:mod:`composer.svg.budget`) estimates, before any export, how long the resvg engine will take to draw a
canvas: one work unit is one microsecond of CPU time of the PNG at 300 dpi and the PDF together, on this project's
2-core machine. This script measures that time on a range of files and prints, for each, the units
(:func:`composer.svg.budget.canvas_work`), the CPU seconds of the PNG at 300 dpi and of the PDF
(:func:`composer.stages.export.resvg_engine.convert` in this process, other bytes on each run so Typst's
memoization draws it again, best of ``--runs``), and the estimate over the measure: where the constants come from
(docs/design.md "Budgets"), and the margin the limit keeps.

CPU time, not wall time: the machine is shared, and its load makes the wall time 1 to 3 times the CPU time while the
CPU time moves by tens of percent (the load average is printed before and after).

Cases (``--only`` picks some):

- ``elements``: synthetic canvases of 100 x 100 pt: symbols of small rects, stroked or filled 10-vertex polylines
  and ``<use>`` chains instantiated many times, matplotlib-style scatters (a circle marker per point, small, stroked
  and large), lines of text, single long noisy lines, full-canvas rects;
- ``filters``: one 100 x 100 pt rect drawn through a filter of one kind (``FILTER_CASES``), and a radius-3 dilation on
  a 200 px drawing placed as a 150 pt panel (the issue's "ordinary morphology");
- ``real``: the gallery's composed figures (``build/*.svg``, made by ``compose build --all``; skipped when absent),
  a matplotlib savefig SVG of a 100,000-point scatter (the issue's), and the SVG files of ``benchmarks/corpus/``
  (their root user unit taken as the budget takes a canvas's, 1 pt);
- ``hostile``: the refused inputs of the tests (use, pattern and marker bombs, huge filters), counted but not
  exported (their estimate is far past the budget; exporting them is what the budget prevents).

    .venv/bin/python benchmarks/use_budget.py [--runs 1] [--only elements,filters,real,hostile]

The summary line gives the smallest and largest estimate/measure ratio over the exported cases of 0.5 s or more
(below, fixed costs the model leaves out, font loading and the like, dominate): the limit
(:data:`composer.svg.budget.MAX_FIGURE_WORK`, 30 s) refuses nothing that takes under 30 s / the largest ratio, and
accepts nothing estimated over 30 s (a quarter of the 120 s export timeout).
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

from composer.stages.export import canvas_size_pt
from composer.stages.export.resvg_engine import convert
from composer.svg.budget import MAX_FIGURE_WORK, canvas_work

ROOT = Path(__file__).resolve().parent.parent
HEAD = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100pt" '
        'height="100pt" viewBox="0 0 100 100">')
#: matplotlib's circle marker ('o', s=1): a move, 8 cubic curves, a close
MARKER = ("M 0 0.5 C 0.132602 0.5 0.25979 0.447317 0.353553 0.353553 C 0.447317 0.25979 0.5 0.132602 0.5 0 "
          "C 0.5 -0.132602 0.447317 -0.25979 0.353553 -0.353553 C 0.25979 -0.447317 0.132602 -0.5 0 -0.5 "
          "C -0.132602 -0.5 -0.25979 -0.447317 -0.353553 -0.353553 C -0.447317 -0.25979 -0.5 -0.132602 -0.5 0 "
          "C -0.5 0.132602 -0.447317 0.25979 -0.353553 0.353553 C -0.25979 0.447317 -0.132602 0.5 0 0.5 z")


def rects(n: int, k: int) -> str:
    shapes = "".join(f'<rect x="{i % 10}" y="{i // 10 % 10}" width="0.8" height="0.8" fill="#36c"/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#s" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs><g id="s">{shapes}</g></defs>{uses}</svg>'


def paths(n: int, k: int, paint: str = 'fill="none" stroke="#c33" stroke-width="0.3"') -> str:
    d = "M0 0 " + " ".join(f"L{j} {(j * 3) % 7}" for j in range(1, 10))
    shapes = "".join(f'<path d="{d}" transform="translate({i % 10} {i // 10 % 10})" {paint}/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#s" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs><g id="s">{shapes}</g></defs>{uses}</svg>'


def chain(n: int, k: int) -> str:
    """A use of a group of ``k`` uses of one rect, ``n`` times."""
    leaf = '<rect id="r" width="0.8" height="0.8" fill="#393"/>'
    mid = "".join(f'<use xlink:href="#r" x="{i % 10}" y="{i // 10 % 10}"/>' for i in range(k))
    uses = "".join(f'<use xlink:href="#m" x="{(i * 7) % 90}" y="{(i * 13) % 90}"/>' for i in range(n))
    return f'{HEAD}<defs>{leaf}<g id="m">{mid}</g></defs>{uses}</svg>'


def scatter(n: int, scale: float = 1.0, style: str = "fill: #1f77b4") -> str:
    uses = "".join(f'<use xlink:href="#m" x="{(i * 7.31) % 100:.3f}" y="{(i * 13.7) % 100:.3f}" style="{style}"/>'
                   for i in range(n))
    return f'{HEAD}<defs><path id="m" d="{MARKER}" transform="scale({scale})"/></defs>{uses}</svg>'


def noisy_line(n: int, amplitude: float) -> str:
    rng = random.Random(1)
    d = "M 0 50 " + " ".join(f"L {i * 100 / n:.4f} {50 + rng.gauss(0, amplitude):.4f}" for i in range(n))
    return f'{HEAD}<path d="{d}" fill="none" stroke="#000" stroke-width="0.5"/></svg>'


def texts(n: int) -> str:
    lines = "".join(f'<text x="{i % 90}" y="{i % 97}" font-family="DejaVu Sans" font-size="3">Hello world {i}</text>'
                    for i in range(n))
    return f"{HEAD}{lines}</svg>"


def full_rects(n: int) -> str:
    return HEAD + "".join(f'<rect width="100" height="100" fill="#{i % 256:02x}3366" fill-opacity="0.5"/>'
                          for i in range(n)) + "</svg>"


def element_cases() -> Iterator[tuple[str, str]]:
    yield "small rects: 1000 uses x 100", rects(1000, 100)
    yield "stroked 10-vertex paths: 300 uses x 100", paths(300, 100)
    yield "filled 10-vertex paths: 300 uses x 100", paths(300, 100, 'fill="#c33"')
    yield "use chain: 1000 x 100 uses of a rect", chain(1000, 100)
    yield "scatter 30,000 points (r 0.5 pt)", scatter(30_000)
    yield "scatter 30,000 points, stroked", scatter(30_000, style="fill: #1f77b4; stroke: #000; stroke-width: 0.2")
    yield "scatter 3,000 points (r 10 pt)", scatter(3_000, 20)
    yield "2,000 lines of text (15 characters)", texts(2_000)
    yield "noisy line, 10,000 vertices", noisy_line(10_000, 10)
    yield "noisy line, 100,000 vertices (not modelled)", noisy_line(100_000, 10)
    yield "2,000 full-canvas rects", full_rects(2_000)
    for side in (1000, 2000):
        yield (f"a blank {side} x {side} pt canvas",
               f'<svg xmlns="http://www.w3.org/2000/svg" width="{side}pt" height="{side}pt" '
               f'viewBox="0 0 {side} {side}"><rect width="10" height="10"/></svg>')


#: (name, filter primitives) of the filter cases: each costs a few seconds at most at 300 dpi
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


def filter_cases() -> Iterator[tuple[str, str]]:
    for name, primitives in FILTER_CASES:
        yield name, filtered(primitives)
    # a 200 px drawing (viewBox 0 0 200 200) in a 150 pt panel, as compose places it: 1 unit = 0.75 pt
    for radius in (3, 8):
        yield (f"dilate radius {radius} on a 200 px drawing (150 pt panel)",
               '<svg xmlns="http://www.w3.org/2000/svg" width="150pt" height="150pt" viewBox="0 0 150 150">'
               f'<g transform="scale(0.75)"><filter id="f"><feMorphology operator="dilate" radius="{radius}"/>'
               '</filter><rect width="200" height="200" fill="#36c" filter="url(#f)"/></g></svg>')


def matplotlib_scatter(n: int) -> str:
    """matplotlib's own SVG of an ``n``-point scatter (benchmarks/scatter_1e5.py's figure)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rng = np.random.default_rng(1)
    fig = plt.figure(figsize=(86 / 25.4, 66 / 25.4))
    ax = fig.add_subplot()
    ax.scatter(rng.standard_normal(n), rng.standard_normal(n), s=1, linewidths=0)
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    return out.getvalue()


def real_cases() -> Iterator[tuple[str, str]]:
    gallery = sorted((ROOT / "build").glob("*.svg"))
    for path in gallery:
        if not path.name.endswith(".debug.svg"):
            yield f"gallery {path.stem}", path.read_text(encoding="utf-8")
    yield "matplotlib scatter, 100,000 points", matplotlib_scatter(100_000)
    for path in sorted((ROOT / "benchmarks" / "corpus").rglob("*.svg")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:  # moved meanwhile
            continue
        yield f"corpus {path.relative_to(ROOT / 'benchmarks' / 'corpus')}", text


def hostile_cases() -> Iterator[tuple[str, str]]:
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT / "tests" / "svg"))
    sys.path.insert(0, str(ROOT / "tests" / "sandbox"))
    from test_hostile import REFUSED  # type: ignore[import-not-found]
    from test_import_budget import HOSTILE, hostile_svg  # type: ignore[import-not-found]

    for case in REFUSED:
        if case.id.endswith("bomb") and isinstance(case.svg, str):
            yield f"tests: {case.id}", case.svg
    for kind in HOSTILE:
        inner = hostile_svg(kind).split(">", 1)[1].rsplit("</svg>", 1)[0]
        yield (f"tests: hostile filter '{kind}' (50 pt panel)",
               '<svg xmlns="http://www.w3.org/2000/svg" width="150pt" height="50pt" viewBox="0 0 150 50">'
               f'<g transform="translate(50 0) scale(0.5)">{inner}</g></svg>')


def cpu_seconds(svg: bytes, kind: str, size_pt: tuple[float, float], runs: int) -> float:
    best = float("inf")
    for run in range(runs):  # other bytes each time: Typst memoizes an image it has drawn
        fresh = svg.replace(b"<svg", f'<svg data-run="{run} {kind} {time.time()}"'.encode(), 1)
        start = time.process_time()
        convert(fresh, (kind,), dpi=300.0, size_pt=size_pt)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default="elements,filters,real,hostile")
    args = parser.parse_args()
    chosen = set(args.only.split(","))
    print(f"load average {os.getloadavg()[0]:.1f}; one unit = 1 us of CPU (PNG at 300 dpi + PDF); "
          f"figure budget {MAX_FIGURE_WORK:,}\n")
    print(f"| {'case':58} | {'units':>11} | {'PNG s':>6} | {'PDF s':>6} | {'estimate / measure':>18} |")
    print(f"|{'-' * 60}|{'-' * 13}|{'-' * 8}|{'-' * 8}|{'-' * 20}|")
    ratios: list[tuple[float, str]] = []
    groups = {"elements": element_cases, "filters": filter_cases, "real": real_cases, "hostile": hostile_cases}
    for group, cases in groups.items():
        if group not in chosen:
            continue
        for name, text in cases():
            data = text.encode()
            try:
                root = etree.fromstring(data, etree.XMLParser(huge_tree=True, resolve_entities=False))
                units = canvas_work(root)[0]
                size = canvas_size_pt(data)
            except Exception as exc:  # noqa: BLE001 - a corpus file the budget or the sizing cannot read
                print(f"| {name[:58]:58} | {'-':>11} | {'-':>6} | {'-':>6} | {type(exc).__name__:>18} |")
                continue
            if group == "hostile" or units > 2 * MAX_FIGURE_WORK:
                refused = f"refused: {units / 1e6:.0f} s"
                print(f"| {name[:58]:58} | {units:11,} | {'-':>6} | {'-':>6} | {refused:>18} |", flush=True)
                continue
            try:
                png, pdf = (cpu_seconds(data, kind, size, args.runs) for kind in ("png", "pdf"))
            except Exception as exc:  # noqa: BLE001 - a file the engine refuses
                print(f"| {name[:58]:58} | {units:11,} | {'-':>6} | {'-':>6} | {type(exc).__name__:>18} |")
                continue
            ratio = units / 1e6 / max(png + pdf, 1e-6)
            if png + pdf >= 0.5 and "not modelled" not in name:
                ratios.append((ratio, name))
            print(f"| {name[:58]:58} | {units:11,} | {png:6.2f} | {pdf:6.2f} | {ratio:18.2f} |", flush=True)
    if ratios:
        low, high = min(ratios), max(ratios)
        limit_s = MAX_FIGURE_WORK / 1e6
        print(f"\nestimate / measure over the {len(ratios)} cases of 0.5 s or more: {low[0]:.2f} ({low[1]}) to "
              f"{high[0]:.2f} ({high[1]}): the {limit_s:g} s budget refuses none of these kinds under "
              f"{limit_s / high[0]:.1f} s of CPU and accepts up to {limit_s / low[0]:.0f} s")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
