"""A 100,000-point vector scatter built by composer (SVG, PDF and PNG at 300 dpi) against matplotlib's own savefig.

Issue #23's target: the figure builds in under 5 s on 2 cores. The figure is one panel of 86 x 66 mm in a 90 x 70 mm
canvas, drawn by ``ax.scatter`` of 100,000 points (``s=1``, no edge), kept vector (``raster = false``, so composer does
not rasterize it for its size). Each round runs, in fresh processes, one after the other:

- composer: ``compose scatter`` cold (the build folder and panel cache deleted first; the user's text cache in a
  temporary folder), SVG + PDF + PNG, every core;
- matplotlib: the same panel function on a Figure of the same size, ``savefig`` to SVG, PDF and PNG at 300 dpi (what a
  user who saves the one panel gets), in one process.

It prints each round's wall and CPU seconds (the process and its children), the medians, composer's time over
matplotlib's (the ratio is what to compare across machines: both run on the same machine in the same minutes), and
where composer's build spends its time (its stage seconds, from a build in the API run with the same options).

    .venv/bin/python benchmarks/scatter_1e5.py [--rounds 3] [--points 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

PANEL = '''
import numpy as np


def scatter(fig, data, n=1000):
    """n points in one scatter."""
    rng = np.random.default_rng(1)
    ax = fig.add_subplot()
    ax.scatter(rng.standard_normal(n), rng.standard_normal(n), s=1, linewidths=0)
    fig.subplots_adjust(left=0.15, bottom=0.15, right=0.97, top=0.97)
'''

MATPLOTLIB = '''
import sys, time
sys.path.insert(0, sys.argv[1])
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from gen import scatter
fig = plt.figure(figsize=(86 / 25.4, 66 / 25.4))
scatter(fig, None, n=int(sys.argv[2]))
for suffix in ("svg", "pdf", "png"):
    fig.savefig(f"{sys.argv[3]}/scatter.{suffix}", dpi=300)
'''

STAGES = '''
import json, sys
from composer.pipeline import build
result = build("scatter", root=sys.argv[1], cache=False)
print(json.dumps({k: round(v, 2) for k, v in result.seconds.items()}))
'''


def project(root: Path, n: int) -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "gen.py").write_text(PANEL)
    (root / "layouts" / "scatter.toml").write_text(textwrap.dedent(f'''\
        [figure]
        width = "90mm"
        height = "70mm"

        [panels.s]
        render = "gen:scatter"
        at = ["2mm", "2mm"]
        size = ["86mm", "66mm"]
        params = {{ n = {n} }}
        raster = false
        '''))
    return root


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``cmd`` in a fresh process, CPU of its children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="composer-scatter-"))
    try:
        root = project(base / "proj", args.points)
        mpl_out = base / "mpl"
        mpl_out.mkdir()
        env = {**os.environ, "COMPOSER_CACHE_DIR": str(base / "usercache"), "MPLBACKEND": "Agg"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        compose = [sys.executable, "-m", "composer.cli", "scatter", "--root", str(root)]
        mpl = [sys.executable, "-c", MATPLOTLIB, str(root / "panels"), str(args.points), str(mpl_out)]
        subprocess.run(compose + ["--format", "svg"], env=env, capture_output=True)  # bytecode, font caches
        print(f"load average {os.getloadavg()[0]:.1f}; {args.points:,} points, SVG + PDF + PNG at 300 dpi, "
              f"{os.cpu_count()} cores\n")
        print("| round | composer wall s | composer CPU s | matplotlib wall s | matplotlib CPU s | wall ratio |")
        print("|---|---|---|---|---|---|")
        rows = []
        for i in range(args.rounds):
            shutil.rmtree(root / "build", ignore_errors=True)
            ours = timed(compose, env)
            theirs = timed(mpl, env)
            rows.append((ours, theirs))
            print(f"| {i + 1} | {ours[0]:.2f} | {ours[1]:.2f} | {theirs[0]:.2f} | {theirs[1]:.2f} | "
                  f"{ours[0] / theirs[0]:.2f} |", flush=True)
        wall = statistics.median(r[0][0] for r in rows)
        mpl_wall = statistics.median(r[1][0] for r in rows)
        print(f"\nmedian: composer {wall:.2f} s wall ({statistics.median(r[0][1] for r in rows):.2f} s CPU), "
              f"matplotlib savefig {mpl_wall:.2f} s wall: {wall / mpl_wall:.2f} x; target under 5 s: "
              f"{'met' if wall < 5 else 'NOT met'}")
        sizes = {p.suffix: p.stat().st_size for p in (root / "build").glob("scatter.*")}
        print("outputs: " + ", ".join(f"{k[1:]} {v / 1e6:.1f} MB" for k, v in sorted(sizes.items())))
        shutil.rmtree(root / "build", ignore_errors=True)
        stages = subprocess.run([sys.executable, "-c", STAGES, str(root)], env=env, capture_output=True, text=True)
        if stages.returncode == 0:
            print(f"composer's stages (s, one build): {json.loads(stages.stdout.strip().splitlines()[-1])}")
        print(f"load average {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
