"""LaTeX canvas text: a figure's texts typeset one TeX run each against all in one run (composer.text.latex.prepare).

Typesets the LaTeX texts of ``layouts/latex_equations.toml`` (and ``--copies`` more of each, so the figure has
more texts) both ways, ``--runs`` times, and prints the CPU seconds of the ``latex`` and ``dvisvgm`` processes
(``RUSAGE_CHILDREN``: the machine is shared, its load makes wall time 1 to 3 times the CPU time) and the wall
seconds, best of the runs, and their ratio. Nothing is cached: every text goes to TeX each time.

    .venv/bin/python benchmarks/latex_texts.py [--runs 3] [--copies 0]

Needs latex and dvisvgm (apt-get install texlive-latex-base dvisvgm).
"""

from __future__ import annotations

import argparse
import resource
import time
import tomllib
from pathlib import Path

from composer.layout.model import TextStyle
from composer.text import latex

ROOT = Path(__file__).resolve().parent.parent


def texts(copies: int) -> list[tuple[str, TextStyle]]:
    """The gallery figure's LaTeX texts at its 7 pt (braces undoubled, as filled), ``copies`` more of each
    with a distinct suffix (another text, so no cache of any kind could answer it)."""
    layout = tomllib.loads((ROOT / "layouts" / "latex_equations.toml").read_text(encoding="utf-8"))
    sources = [t["text"] for t in layout["text"] if t.get("math", "latex") == "latex"]
    sources += [s["text"] for s in layout.get("shape", []) if "text" in s]
    sources += [a["label"] for a in layout.get("arrow", []) if "label" in a]
    sources = [s.replace("{{", "{").replace("}}", "}") for s in sources]
    style = TextStyle(font="DejaVu Sans", size_pt=7.0, math="latex")
    return [(f"{s} {k}" if k else s, style) for k in range(copies + 1) for s in sources]


def measure(run) -> tuple[float, float]:
    """(CPU seconds of the child processes, wall seconds) of ``run()``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--copies", type=int, default=0)
    args = parser.parse_args()
    latex.require_tools()
    items = texts(args.copies)

    def each() -> None:
        for text, style in items:
            latex.typeset_lines(text, style)

    def together() -> None:
        latex.prepare(items)
        for text, style in items:
            latex.typeset_lines(text, style)
        assert not latex._PREPARED, "every prepared text taken"

    results = {name: min((measure(run) for _ in range(args.runs)), key=lambda m: m[0])
               for name, run in (("one run per text", each), ("one run per figure", together))}
    print(f"{len(items)} LaTeX texts, best of {args.runs}:")
    for name, (cpu, wall) in results.items():
        print(f"  {name:20s} {cpu:6.2f} s CPU (latex + dvisvgm)  {wall:6.2f} s wall")
    (cpu_each, wall_each), (cpu_one, wall_one) = results.values()
    print(f"  ratio (per text / per figure): {cpu_each / cpu_one:.1f}x CPU, {wall_each / wall_one:.1f}x wall")


if __name__ == "__main__":
    main()
