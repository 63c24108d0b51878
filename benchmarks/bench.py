"""composer's speed, measured in one run on this machine; prints markdown tables.

    python benchmarks/bench.py            # about 10 minutes on 2 cores
    python benchmarks/bench.py --quick    # one run each, no 96-panel or large scatter cases
    python benchmarks/bench.py --cold     # only the cold build side by side, and composer's own share

Side by side (first, and all of ``--cold``): composer's cold build of
volume_kv, the hand-written baseline, FigWorks 0.9 (PyPI ``figworks``) and
figquilt 0.3 (PyPI ``figquilt``) making the same figure from the same panel
functions, data and panel boxes (``benchmarks/rivals/``), timed round-robin
in one run (one run of each, then the next round; medians of wall and CPU
time, children included) and given as ratios. The rivals need Python 3.12 or
later: they are installed with pip into a venv of their own
(``--rivals-venv``, default ``build/rivals-venv``, made with ``--rivals-python``
or the first Python 3.12+ found); one that cannot be installed is reported
and left out. composer's user text cache (``$COMPOSER_CACHE_DIR``) points to
a temporary folder: "cold" deletes ``build/`` and keeps it (as matplotlib
keeps its font cache), "first build" empties it too. composer's modules are
compiled to bytecode first, as pip does when it installs a wheel
(``PYTHONDONTWRITEBYTECODE`` is unset for every run).

composer's own share: cold builds of volume_kv profiled with cProfile in one
process (panels, ``values()`` and exports run in it instead of in forked
workers), each function's time counted for the package its file is in, a
standard-library or built-in function's for its callers' (``attribute``).

Every time is the wall time of a fresh process (what a user waits for), the
median of several runs, and is also given as a ratio: to the hand-written
baseline (``benchmarks/handwritten.py``: each panel to PNG at 200 dpi with
``bbox_inches="tight"``, base64 into an SVG, rasterized with cairosvg) and
to ``python -c "import matplotlib.pyplot"``. Ratios measured in one run are
what to compare across machines; absolute seconds depend on the machine and
on what else runs on it (the load average is printed before and after).

Measured (volume_kv from this repository, copied to a temporary project):

- the export stage alone, each engine (resvg, the default, and cairosvg)
  exporting volume_kv's composed SVG to PDF + PNG at 300 dpi in one process,
  through the same forked workers a build uses;
- cold build (SVG + PDF + PNG at 300 dpi; panel cache and outputs deleted
  first) with all cores and with ``-j 1``, and with ``--engine cairosvg``;
- no-op rebuild (nothing changed);
- one-panel edit: the source of one renderer (``f_map``) changes, so that one
  panel renders again; with all outputs, and SVG only; in a fresh process and
  inside ``compose --watch`` (both engines);
- cold build of generated figures of 6, 24 and 96 panels;
- a scatter panel of 1e3 .. 1e6 points, vector (``raster = false``, so it is
  never rasterized for its size) and ``rasterized=True``, with each engine:
  SVG size and build time (cases predicted to take over a minute are skipped
  and listed as such);
- where the time of a cold build goes (stage times, and composer's own
  functions from a profile).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
COMPOSE = [PY, "-m", "composer.cli"]
#: a case predicted to take longer than this (seconds) is skipped.
LIMIT_S = 60.0


#: CPU seconds (user + system) of the last command run by :func:`run`, its children included.
LAST_CPU = [0.0]


def run(cmd: list[str], **kwargs) -> float:
    """Wall time of one command (its CPU time goes to ``LAST_CPU``); raises when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    LAST_CPU[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
    return elapsed


def timed_rounds(cases: dict, runs: int, after: Callable[[str], None] | None = None
                 ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU seconds of every case, ``runs`` interleaved rounds (each case's ``setup`` first, then its
    command; ``after(key)`` once a case has run): {case: [seconds per round]} twice."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for key, (cmd, setup) in cases.items():
            if setup is not None:
                setup()
            times[key].append(run(cmd))
            cpu[key].append(LAST_CPU[0])
            if after is not None:
                after(key)
    return times, cpu


def median_of(runs: int, cmd: list[str], before=None) -> tuple[float, float]:
    """Medians of wall and CPU time of ``runs`` runs of ``cmd`` (``before()`` untimed before each)."""
    times, cpu = [], []
    for _ in range(runs):
        if before is not None:
            before()
        times.append(run(cmd))
        cpu.append(LAST_CPU[0])
    return statistics.median(times), statistics.median(cpu)


def copy_project(dest: Path) -> Path:
    """The repository's figure project (layouts, panels, data, styles) without build outputs."""
    for folder in ("layouts", "panels", "data", "styles", "assets"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def write_boxes(root: Path, name: str = "volume_kv") -> None:
    """The panel boxes composer's layout engine finds, for the hand-written baseline (ROOT/boxes.json)."""
    from composer.stages.geometry import panel_boxes
    from composer.stages.inputs import Project, read_inputs
    from composer.stages.typeset import typeset_figure

    inputs = read_inputs(Project.at(root), name)
    typeset = typeset_figure(inputs)
    boxes = panel_boxes(inputs.figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    (root / "boxes.json").write_text(json.dumps({n: [b.x_pt, b.y_pt, b.width_pt, b.height_pt]
                                                 for n, b in boxes.items()}))


def clean(root: Path) -> None:
    shutil.rmtree(root / "build", ignore_errors=True)


def reset_panels(root: Path) -> None:
    """The repository's panels/volume_kv.py again: each edit series starts from the literal it edits."""
    shutil.copyfile(REPO / "panels" / "volume_kv.py", root / "panels" / "volume_kv.py")


def fmt_s(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds < 10 else f"{seconds:.1f} s"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def loadavg() -> str:
    try:
        return " / ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


# ─── volume_kv ───────────────────────────────────────────────────────────────

def renderer_editor(path: Path, function: str, literal: str = "ms=5.0"):
    """A function ``edit(n)`` that rewrites ``path`` with a visible change to ``function`` only.

    The first ``literal`` (a keyword with a number, e.g. the marker size
    ``ms=5.0``) inside the function's body gets a new value for each ``n``,
    so the panel draws differently and the SVG, PDF and PNG must be made
    again. Without that literal a no-op statement is inserted instead (the
    panel renders again but its bytes, and so the exports, stay the same).
    """
    original = path.read_text()
    match = re.search(rf"\ndef {function}\(.*?\):[^\n]*\n(\s+)", original, re.S)
    if match is None:
        raise RuntimeError(f"no def {function} in {path}")
    end = original.find("\ndef ", match.end())
    body = slice(match.start(1), end if end != -1 else len(original))
    key, _, number = literal.partition("=")
    at = original.find(literal, body.start, body.stop)

    def edit(n: int) -> None:
        if at != -1:
            value = f"{key}={float(number) + 0.01 * n:.2f}"  # a value never drawn before: no cache hit
            path.write_text(original[:at] + value + original[at + len(literal):])
        else:
            path.write_text(original[:body.start] + f"{match.group(1)}_bench_edit = {n}\n" + original[body.start:])
    return edit


def volume_kv(root: Path, runs: int) -> dict:
    """Medians of the volume_kv measurements, taken round-robin (one run of each, then the next
    round) so that a change in the machine's load affects all of them alike."""
    name = COMPOSE + ["volume_kv", "--root", str(root)]
    write_boxes(root)
    hand = [PY, str(REPO / "benchmarks" / "handwritten.py"), str(root), str(root / "handwritten")]
    counter = iter(range(1, 100_000))
    editor = renderer_editor(root / "panels" / "volume_kv.py", "f_map")
    manifest = root / "build" / ".volume_kv.manifest.json"
    render_times: list[float] = []

    def built(*extra: str):
        def setup() -> None:
            run(name + list(extra))  # untimed: a no-op when already up to date
        return setup

    def edited(*extra: str):
        def setup() -> None:
            run(name + list(extra))
            editor(next(counter))
        return setup

    cases = {
        "python": ([PY, "-c", "pass"], None),
        "pyplot": ([PY, "-c", "import matplotlib.pyplot"], None),
        "baseline": (hand, None),
        "baseline_pdf": (hand + ["--pdf"], None),
        "cold": (name, lambda: clean(root)),
        "cold_j1": (name + ["-j", "1"], lambda: clean(root)),
        "cold_cairo": (name + ["--engine", "cairosvg"], lambda: clean(root)),
        "noop": (name, built()),
        "edit": (name, edited()),
        "edit_svg": (name + ["--format", "svg"], edited("--format", "svg")),
    }

    def fmap_seconds(key: str) -> None:
        if key == "edit":
            render_times.append(json.loads(manifest.read_text())["panels"]["fmap"]["seconds"])

    times, cpu = timed_rounds(cases, runs, fmap_seconds)
    reset_panels(root)
    out = {k: statistics.median(v) for k, v in times.items()}
    out["cpu"] = {k: statistics.median(v) for k, v in cpu.items()}
    out["edit_render"] = statistics.median(render_times)
    out["watch_edit"], out["watch_render"] = watch_edit(root, runs, "svg,pdf,png", 100)
    out["watch_edit_svg"], out["watch_render_svg"] = watch_edit(root, runs, "svg", 200)
    out["watch_edit_cairo"], out["watch_render_cairo"] = watch_edit(root, runs, "svg,pdf,png", 300, "cairosvg")
    out["export"] = export_stage(root, runs)
    return out


EXPORT = r'''
import json, statistics, sys, time
from composer.stages.export import export
svg = open(sys.argv[1], "rb").read()
runs = int(sys.argv[2])
out = {}
for engine in ("resvg", "cairosvg"):
    export(svg, ["pdf", "png"], engine=engine, dpi=300, jobs=2)  # warm: imports, fonts
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        export(svg, ["pdf", "png"], engine=engine, dpi=300, jobs=2)
        times.append(time.perf_counter() - t)
    out[engine] = statistics.median(times)
print(json.dumps(out))
'''


def export_stage(root: Path, runs: int) -> dict:
    """Median seconds of the export stage (PDF + PNG at 300 dpi, forked workers, 2 jobs) per engine, on
    volume_kv's composed SVG, both engines in one process."""
    clean(root)
    run(COMPOSE + ["volume_kv", "--root", str(root), "--format", "svg"])
    proc = subprocess.run([PY, "-c", EXPORT, str(root / "build" / "volume_kv.svg"), str(max(runs, 3))],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


WATCH = r'''
import json, queue, sys, threading, time
sys.path.insert(0, sys.argv[2])
from bench import renderer_editor
from composer.cli.watch import watch

root, runs, formats, first = sys.argv[1], int(sys.argv[3]), tuple(sys.argv[4].split(",")), int(sys.argv[5])
engine = sys.argv[6]
events = queue.Queue()
stop = threading.Event()
thread = threading.Thread(target=watch, args=("volume_kv",), daemon=True,
                          kwargs=dict(root=root, formats=formats, on_build=events.put, stop_event=stop,
                                      debounce_ms=50, engine=engine))
thread.start()
events.get(timeout=600)  # the first build
edit = renderer_editor(__import__("pathlib").Path(root) / "panels" / "volume_kv.py", "f_map")
times, renders = [], []
for n in range(runs + 1):
    time.sleep(0.3)  # let the watcher settle between edits (not part of the measured time)
    edit(first + n)
    event = events.get(timeout=600)
    while event.error is None and event.result.up_to_date:  # a late event for an edit already built
        event = events.get(timeout=600)
    assert event.error is None and event.result.rendered == ("fmap",), (event.changed, event.error, event.result)
    if n:  # the first rebuild after start-up imports the SVG backend etc.; not counted
        times.append(event.seconds)
        renders.append(sum(event.result.render_seconds.values()))
        assert set(event.result.written) == set(formats), (formats, event.result.written)  # a real edit
stop.set()
print(json.dumps({"times": times, "renders": renders}))
'''


def watch_edit(root: Path, runs: int, formats: str, first: int, engine: str = "resvg") -> tuple[float, float]:
    """Median rebuild time and median f_map render time of one-panel edits inside ``compose --watch``."""
    clean(root)
    reset_panels(root)
    run(COMPOSE + ["volume_kv", "--root", str(root), "--format", formats, "--engine", engine])
    proc = subprocess.run([PY, "-c", WATCH, str(root), str(REPO / "benchmarks"), str(runs), formats, str(first),
                           engine],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return statistics.median(data["times"]), statistics.median(data["renders"])


# ─── generated figures ───────────────────────────────────────────────────────

PANELS_PY = '''
import numpy as np


def line(fig, data, seed=0):
    """A typical small panel: two lines, ticks, labels, a legend."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 10, 50)
    ax = fig.add_subplot()
    ax.plot(x, np.sin(x + seed) + 0.1 * rng.standard_normal(50), label="data")
    ax.plot(x, np.sin(x + seed), label="model")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("signal")
    ax.legend(fontsize=5, frameon=False)
    fig.subplots_adjust(left=0.2, bottom=0.22, right=0.97, top=0.95)


def scatter(fig, data, n=1000, rasterized=False):
    """n points in one scatter."""
    rng = np.random.default_rng(1)
    ax = fig.add_subplot()
    ax.scatter(rng.standard_normal(n), rng.standard_normal(n), s=1, linewidths=0, rasterized=rasterized)
    fig.subplots_adjust(left=0.15, bottom=0.15, right=0.97, top=0.97)
'''


def grid_project(root: Path, n: int) -> Path:
    """A figure of ``n`` line panels, 6 per row, 40 x 30 mm each."""
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "gen.py").write_text(PANELS_PY)
    rows = (n + 5) // 6
    parts = [f'[figure]\nwidth = "{6 * 42 + 4}mm"\nheight = "{rows * 33 + 4}mm"\nfont_size = "7pt"\n']
    for i in range(n):
        r, c = divmod(i, 6)
        parts.append(f'[panels.p{i}]\nrender = "gen:line"\nat = ["{4 + 42 * c}mm", "{6 + 33 * r}mm"]\n'
                     f'size = ["40mm", "30mm"]\nlabel = "{i + 1}"\nparams = {{ seed = {i} }}\n')
    (root / "layouts" / "grid.toml").write_text("\n".join(parts))
    return root


def scaling(base: Path, runs: int, counts: list[int]) -> list[tuple[int, tuple[float, float]]]:
    results = []
    for n in counts:
        root = grid_project(base / f"grid{n}", n)
        k = runs if n < 96 else max(1, min(runs, 3))
        results.append((n, median_of(k, COMPOSE + ["grid", "--root", str(root)], before=lambda r=root: clean(r))))
    return results


def scatter_project(root: Path, n: int, rasterized: bool, engine: str) -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "gen.py").write_text(PANELS_PY)
    (root / "layouts" / "scatter.toml").write_text(textwrap.dedent(f'''\
        [figure]
        width = "90mm"
        height = "70mm"
        engine = "{engine}"

        [panels.s]
        render = "gen:scatter"
        at = ["2mm", "2mm"]
        size = ["86mm", "66mm"]
        params = {{ n = {n}, rasterized = {str(rasterized).lower()} }}
        {"" if rasterized else "raster = false"}
        '''))
    return root


def scatter(base: Path, runs: int, sizes: list[int]) -> list[list[str]]:
    rows = []
    for engine, rasterized in (("resvg", False), ("cairosvg", False), ("resvg", True), ("cairosvg", True)):
        last: tuple[int, float] | None = None
        for n in sizes:
            kind = ("rasterized" if rasterized else "vector") + f", {engine}"
            if last is not None and last[1] * n / last[0] > LIMIT_S:
                predicted = last[1] * n / last[0]
                rows.append([f"{n:.0e}", kind, "-", "-", f"skipped: predicted {predicted:.0f} s > {LIMIT_S:.0f} s"])
                continue
            root = scatter_project(base / f"scatter-{'r' if rasterized else 'v'}-{engine}-{n}", n, rasterized, engine)
            cmd = COMPOSE + ["scatter", "--root", str(root)]
            try:
                k = runs if n <= 10_000 else 1
                svg_t = median_of(k, cmd + ["--format", "svg"], before=lambda r=root: clean(r))[0]
                svg_size = (root / "build" / "scatter.svg").stat().st_size
                full_t = median_of(k, cmd, before=lambda r=root: clean(r))[0]
            except RuntimeError as exc:
                reason = str(exc).strip().splitlines()[-1][:120]
                rows.append([f"{n:.0e}", kind, "-", "-", f"failed: {reason}"])
                last = (n, float("inf"))
                continue
            rows.append([f"{n:.0e}", kind, f"{svg_size / 1e6:.2f} MB", fmt_s(svg_t), fmt_s(full_t)])
            last = (n, full_t)
    return rows


# ─── profile ─────────────────────────────────────────────────────────────────

PROFILE = r'''
import cProfile, json, pstats, sys, time, io
t0 = time.perf_counter()
import matplotlib.figure, matplotlib.backends.backend_svg, typst  # noqa: the libraries, timed apart
t1 = time.perf_counter()
from composer.pipeline import build
t2 = time.perf_counter()
prof = cProfile.Profile()
jobs = int(sys.argv[2])
if jobs == 1:
    prof.enable()
result = build("volume_kv", root=sys.argv[1], jobs=jobs)  # build/ deleted before: cold
prof.disable()
t3 = time.perf_counter()
top = []
if jobs == 1:
    stats = pstats.Stats(prof)
    for (file, line, func), (cc, nc, tt, ct, callers) in stats.stats.items():
        waiting = ("isolate.py", "parallel.py")  # wait for forked workers: their work is not in this profile
        if ("/composer/" in file and func not in ("build", "_run", "_build", "<module>", "_render", "_export_outputs",
                                                  "_export", "_render_unit")
                and not file.endswith(waiting)):
            top.append((ct, f"{file.split('/composer/')[-1]}:{func}"))
    top.sort(reverse=True)
print(json.dumps({"libraries": t1 - t0, "composer_import": t2 - t1, "build": t3 - t2,
                  "stages": result.seconds, "top": top[:10]}))
'''


def profile(root: Path, jobs: int) -> dict:
    clean(root)
    proc = subprocess.run([PY, "-c", PROFILE, str(root), str(jobs)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ─── side by side: the hand-written baseline, FigWorks, figquilt ──────────────

#: the rivals measured on volume_kv, as pip installs them (benchmarks/rivals/ holds one script each).
RIVALS = {"figworks": "figworks==0.9.*", "figquilt": "figquilt==0.3.*"}
RIVALS_DIR = REPO / "benchmarks" / "rivals"


def _python_at_least_312(candidates: list[str]) -> str | None:
    """The first of ``candidates`` (names or paths) that runs and is Python 3.12 or later."""
    for candidate in candidates:
        exe = shutil.which(candidate) or (candidate if Path(candidate).is_file() else None)
        if exe is None:
            continue
        try:
            proc = subprocess.run([exe, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                                  capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0 and proc.stdout.strip() == "True":
            return exe
    return None


def rivals_venv(venv: Path, python: str | None) -> tuple[Path | None, dict[str, str]]:
    """The Python of a venv (Python 3.12 or later) holding the rivals, made at ``venv`` when missing.

    FigWorks and figquilt need Python 3.12 or later and composer supports 3.11, so they get a
    venv of their own (installed with pip, each package on its own so that one failing leaves the
    other). ``python``: the interpreter to make it with (default: the first of python3.14 ..
    python3.12 on PATH or under ~/.pyenv/versions).

    Returns:
        ``(venv python or None, {rival: why it is not measured})``.
    """
    missing: dict[str, str] = {}
    exe = venv / "bin" / "python"
    if not exe.is_file():
        candidates = [python] if python else (
            ["python3.14", "python3.13", "python3.12"]
            + sorted((str(p) for p in Path.home().glob(".pyenv/versions/3.1[2-9]*/bin/python3")), reverse=True))
        base = _python_at_least_312(candidates)
        if base is None:
            return None, {r: "no Python 3.12 or later found (give one with --rivals-python)" for r in RIVALS}
        made = subprocess.run([base, "-m", "venv", str(venv)], capture_output=True, text=True)
        if made.returncode != 0:
            return None, {r: f"cannot make a venv: {made.stderr.strip()[-200:]}" for r in RIVALS}
    for rival, requirement in RIVALS.items():
        if subprocess.run([str(exe), "-c", f"import {rival}"], capture_output=True).returncode == 0:
            continue
        got = subprocess.run([str(exe), "-m", "pip", "install", "-q", requirement], capture_output=True, text=True)
        if got.returncode != 0:
            last = [line for line in got.stderr.splitlines() if line.startswith("ERROR")] or got.stderr.splitlines()
            missing[rival] = f"pip install {requirement} failed: {(last or ['?'])[-1][:200]}"
    return exe, missing


def rival_versions(exe: Path) -> dict[str, str]:
    """rival -> installed version, and ``python`` -> the venv's Python version."""
    code = ("import json, sys; from importlib.metadata import version; "
            f"print(json.dumps({{r: version(r) for r in {sorted(RIVALS)!r}}}), sys.version.split()[0])")
    proc = subprocess.run([str(exe), "-c", code], capture_output=True, text=True)
    if proc.returncode != 0:
        return {}
    versions, _, py = proc.stdout.strip().rpartition(" ")
    return {**json.loads(versions), "python": py}


def side_by_side(root: Path, runs: int, rivals: Path | None, missing: dict[str, str], user_cache: Path) -> dict:
    """Wall and CPU medians of composer's cold build, the hand-written baseline and the rivals on volume_kv,
    all in one round-robin (one run of each, then the next round), so that a change of the machine's
    load touches all alike.

    composer's "cold build" deletes ``build/`` before each run; the user's text cache
    (``$COMPOSER_CACHE_DIR``, here ``user_cache``) stays, as matplotlib's font cache stays: it is
    filled by an untimed first build. "first build" empties it too (composer's first build on a
    machine, or after a composer or matplotlib upgrade).
    """
    write_boxes(root)
    compose = COMPOSE + ["volume_kv", "--root", str(root)]
    hand = [PY, str(REPO / "benchmarks" / "handwritten.py"), str(root), str(root / "handwritten")]
    out = root / "rivals-out"

    def first_build() -> None:
        clean(root)
        shutil.rmtree(user_cache, ignore_errors=True)

    cases: dict[str, tuple[list[str], Callable[[], object] | None]] = {
        "baseline": (hand, None),
        "baseline_pdf": (hand + ["--pdf"], None),
        "cold": (compose, lambda: clean(root)),
        "first": (compose, first_build),
    }
    if rivals is not None:
        for rival in RIVALS:
            if rival not in missing:
                cases[rival] = ([str(rivals), str(RIVALS_DIR / f"{rival}_volume_kv.py"), str(root), str(out / rival)],
                                lambda r=rival: shutil.rmtree(out / r, ignore_errors=True))
    clean(root)
    run(compose)  # untimed: fills the user's text cache (and warms the disk cache)
    for key, (cmd, _) in cases.items():
        if key not in ("cold", "first"):
            run(cmd)  # untimed: each once, so that no timed run is the first to read its files from disk
    times, cpu = timed_rounds(cases, runs)
    clean(root)
    run(compose)  # the user's cache full again for what follows
    return {"wall": {k: statistics.median(v) for k, v in times.items()},
            "cpu": {k: statistics.median(v) for k, v in cpu.items()}, "runs": runs}


# ─── composer's own share of a cold build ──────────────────────────────────────

SHARE = r"""
import cProfile, sys
root, out = sys.argv[1], sys.argv[2]
prof = cProfile.Profile()
prof.enable()
import composer.sandbox.isolate as isolate, composer.sandbox.parallel as parallel
isolate.CAN_FORK = False          # panels, values() and exports run in this process: all of it profiled
parallel.can_fork = lambda: False
from composer.pipeline import build
build("volume_kv", root=root, jobs=1)
prof.disable()
prof.dump_stats(out)
"""

#: where a profiled function's time goes, by the package its file is in (site-packages/NAME/ or a C
#: function's module): the libraries composer uses, the figure's own code (panels/), composer.
_PACKAGES = {"matplotlib": "matplotlib", "mpl_toolkits": "matplotlib", "numpy": "numpy", "lxml": "lxml",
             "typst": "typst (usvg, resvg, svg2pdf)", "PIL": "pillow", "fontTools": "fonttools",
             "pyparsing": "matplotlib", "kiwisolver": "matplotlib", "cycler": "matplotlib",
             "dateutil": "matplotlib", "tinycss2": "tinycss2, cssselect2", "cssselect2": "tinycss2, cssselect2",
             "svgelements": "svgelements", "cairosvg": "cairosvg", "cairocffi": "cairosvg",
             "colorspacious": "colorspacious", "threadpoolctl": "threadpoolctl", "rich": "rich"}
_WAITING = ("select.select", "posix.waitpid", "time.sleep", "'poll' of 'select.poll'", "'acquire' of '_thread.lock'")
_IMPORTS = ("builtins.exec", "builtins.compile", "marshal.loads", "_imp.", "builtins.__build_class__")


def _bucket(file: str, name: str) -> str | None:
    """The package a profiled function belongs to; None: the standard library or a built-in, whose time
    goes to whoever called it."""
    if file.startswith(("<frozen importlib", "<frozen zipimport")):
        return "Python's import system"
    if file == "~":
        if any(w in name for w in _WAITING):
            return "waiting"
        if any(i in name for i in _IMPORTS):
            return "Python's import system"
        match = re.search(r"of '(\w+)\.", name) or re.search(r"built-in method (\w+)\.", name)
        return _PACKAGES.get(match.group(1)) if match else None
    if "site-packages/" in file:
        top = file.split("site-packages/")[1].split("/")[0].removesuffix(".py")
        return _PACKAGES.get(top, f"other ({top})")
    if "/composer/" in file:
        return "composer"
    if "/panels/" in file:
        return "the figure's own code (panels/)"
    return None


def attribute(stats) -> tuple[dict[str, float], list[tuple[float, str]]]:
    """Profile time (s) by package (:func:`_bucket`), and composer's functions by their own time.

    A standard-library or built-in function's time is split among its callers in proportion to the
    time each spent in it (``pstats`` callers), through further standard-library callers, so that
    ``re.sub`` called by composer counts as composer's and ``json.loads`` called by matplotlib as
    matplotlib's. Time spent waiting (``select``) is left out.
    """
    import collections

    table = stats.stats
    memo: dict[tuple, dict] = {}

    def owners(func: tuple) -> dict:
        if func in memo:
            return memo[func]
        bucket = _bucket(func[0], func[2])
        if bucket is not None:
            memo[func] = {(bucket, func if bucket == "composer" else None): 1.0}
            return memo[func]
        memo[func] = {}  # a cycle through the standard library: no owner from there
        share: collections.Counter = collections.Counter()
        weight = 0.0
        for caller, timing in table[func][4].items():
            if caller not in table:
                continue
            for owner, part in owners(caller).items():
                share[owner] += (timing[2] + 1e-9) * part
            weight += timing[2] + 1e-9
        memo[func] = ({o: v / weight for o, v in share.items()} if share
                      else {("Python (no caller)", None): 1.0})
        return memo[func]

    buckets: collections.Counter = collections.Counter()
    functions: collections.Counter = collections.Counter()
    for func, (_, _, tt, _, _) in table.items():
        for (bucket, owner), part in owners(func).items():
            buckets[bucket] += tt * part
            if owner is not None:
                functions[f"{owner[0].split('/composer/')[-1]}:{owner[2]}"] += tt * part
    buckets.pop("waiting", None)
    return dict(buckets), sorted(((t, f) for f, t in functions.items()), reverse=True)


def composer_share(root: Path, runs: int) -> dict:
    """Where a cold build of volume_kv spends its time, by package: the run with the median share of
    ``runs`` profiled cold builds (``build/`` deleted, the user's text cache kept), each in a fresh
    process that runs the panels, ``values()`` and the exports itself instead of in forked workers,
    so that all of it is profiled. cProfile lengthens every function call, so shares are what to
    read, not seconds."""
    import pstats

    results = []
    for i in range(runs):
        clean(root)
        out = root / f"share-{i}.prof"
        run([PY, "-c", SHARE, str(root), str(out)])
        buckets, functions = attribute(pstats.Stats(str(out)))
        total = sum(buckets.values())
        results.append((buckets.get("composer", 0.0) / total, total, buckets, functions))
        out.unlink()
    results.sort(key=lambda r: r[0])
    share, total, buckets, functions = results[len(results) // 2]
    return {"share": share, "total": total, "buckets": buckets, "functions": functions[:12],
            "shares": [r[0] for r in results]}


# ─── report ──────────────────────────────────────────────────────────────────

def report_stages(root: Path, jobs_list: tuple[int, ...]) -> float:
    """Print where a cold build of volume_kv goes, by stage (one run per ``-j``); returns the first run's
    composition overhead (all but library imports, rendering and export) as a share of its time."""
    print("### Where a cold build of volume_kv goes, by stage\n")
    shares = []
    for jobs in jobs_list:
        p = profile(root, jobs)
        st = p["stages"]
        total = p["libraries"] + p["composer_import"] + p["build"]
        render, export = st.get("render", 0.0), st.get("export", 0.0)
        own = total - p["libraries"] - render - export
        shares.append(own / total)
        rows = [["import matplotlib + typst", fmt_s(p["libraries"])],
                ["import composer (lxml, numpy, ...)", fmt_s(p["composer_import"])]]
        rows += [[f"stage `{k}`", fmt_s(v_)] for k, v_ in st.items()]
        rows.append(["**composition overhead** (all but library imports, rendering, export)",
                     f"{fmt_s(own)} = {own / total:.0%} of {fmt_s(total)}"])
        print(f"`-j {jobs}`" + (" (profiled: stage times include cProfile's overhead)" if jobs == 1 else ""))
        print()
        print(table(["part", "seconds"], rows))
        if p["top"]:
            print("\ncomposer's own functions in the build process by cumulative time (`-j 1`, cProfile; "
                  "panels and exports run in forked workers, outside this profile):\n")
            print(table(["function", "cumulative"], [[f"`{f}`", fmt_s(t)] for t, f in p["top"]]))
        print()
    return shares[0]


def report_side_by_side(sb: dict, rivals: dict[str, str], missing: dict[str, str]) -> list[tuple]:
    """Print the side-by-side table; returns its targets ``(name, measured, at most, unit)``."""
    wall, cpu = sb["wall"], sb["cpu"]
    labels = {"cold": "composer cold build (`build/` deleted; user's text cache kept)",
              "first": "composer first build (user's text cache empty too)",
              "baseline": "hand-written baseline (SVG + PNG)",
              "baseline_pdf": "hand-written baseline (SVG + PNG + PDF)",
              "figworks": f"FigWorks {rivals.get('figworks', '')} (SVG + PDF + PNG; "
                          f"Python {rivals.get('python', '?')})",
              "figquilt": f"figquilt {rivals.get('figquilt', '')} (PDF + SVG + PNG, panels and labels only)"}
    rows = [[labels[k], fmt_s(wall[k]), fmt_s(cpu[k]), f"{wall['cold'] / wall[k]:.2f}",
             f"{cpu['cold'] / cpu[k]:.2f}"] for k in wall]
    print(f"### Cold build of volume_kv side by side (SVG + PDF + PNG at 300 dpi unless noted; medians of "
          f"{sb['runs']} interleaved rounds)\n")
    print(table(["", "median wall", "median CPU", "composer cold / this (wall)", "composer cold / this (CPU)"], rows))
    for rival, why in missing.items():
        print(f"\n{rival}: not measured: {why}")
    targets = [("cold build / hand-written baseline (wall)", wall["cold"] / wall["baseline"], 0.8, "x"),
               ("cold build / hand-written baseline (CPU)", cpu["cold"] / cpu["baseline"], 0.8, "x")]
    if "figworks" in wall:
        targets += [("cold build / FigWorks (wall)", wall["cold"] / wall["figworks"], 0.85, "x"),
                    ("cold build / FigWorks (CPU)", cpu["cold"] / cpu["figworks"], 0.85, "x")]
    print()
    return targets


def report_share(sh: dict) -> list[tuple]:
    """Print where a cold build's time goes, by package; returns its target."""
    print("### composer's own share of a cold build of volume_kv (profiled, all in one process)\n")
    total = sh["total"]
    rows = [[name, f"{t / total:.1%}"] for name, t in sorted(sh["buckets"].items(), key=lambda kv: -kv[1])
            if t / total >= 0.001]
    print(table(["where the time goes", "share"], rows))
    print(f"\ncomposer's share in each run: {', '.join(f'{x:.1%}' for x in sh['shares'])} (the median run is shown)."
          " Standard-library and built-in calls count for their caller's package.\n")
    print(table(["composer's functions, by own time (with the standard-library calls they make)", "share"],
                [[f"`{f}`", f"{t / total:.1%}"] for t, f in sh["functions"]]))
    print()
    return [("composer's own code, share of a cold build", 100 * sh["share"], 15, " %")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (median; default 5)")
    parser.add_argument("--quick", action="store_true", help="one run each; no 96-panel or >1e4 scatter cases")
    parser.add_argument("--cold", action="store_true",
                        help="only the cold build side by side with the rivals, and composer's own share of it")
    parser.add_argument("--rivals-venv", type=Path, default=REPO / "build" / "rivals-venv",
                        help="the venv holding FigWorks and figquilt (made when missing; default build/rivals-venv)")
    parser.add_argument("--rivals-python", help="the Python (3.12 or later) to make that venv with")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    from importlib.metadata import version

    import matplotlib

    rivals_exe, missing = rivals_venv(args.rivals_venv, args.rivals_python)
    rivals = rival_versions(rivals_exe) if rivals_exe is not None else {}
    print(f"composer benchmark: {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
          f"Python {platform.python_version()}, matplotlib {matplotlib.__version__}, typst {version('typst')}, "
          f"cairosvg {version('cairosvg')}; rivals: "
          + (", ".join(f"{k} {v}" for k, v in rivals.items()) or "none") + "; "
          f"medians of {runs} run(s); load average before: {loadavg()}\n")
    # as pip installs a wheel: composer's modules compiled to bytecode once, used by every run (with
    # PYTHONDONTWRITEBYTECODE set, an editable install compiles its sources in every process: 0.2 s)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([PY, "-m", "compileall", "-q", str(REPO / "composer"), str(REPO / "benchmarks")],
                   capture_output=True)
    base = Path(tempfile.mkdtemp(prefix="composer-bench-"))
    user_cache = base / "user-cache"
    os.environ["COMPOSER_CACHE_DIR"] = str(user_cache)  # never the real one; every composer run inherits it
    try:
        root = copy_project(base / "project")
        targets = report_side_by_side(side_by_side(root, runs, rivals_exe, missing, user_cache), rivals, missing)
        targets += report_share(composer_share(root, max(1, min(runs, 3))))
        if args.cold:
            overhead = report_stages(root, (os.cpu_count() or 1,))
            targets.append(("composition overhead by stage (all but library imports, rendering, export)",
                            100 * overhead, 15, " %"))
            print("### Against the targets\n")
            print(table(["target", "measured", "at most", "met"],
                        [[t, f"{m:.2f}{u}", f"{lim:g}{u}", "yes" if m <= lim else "**no**"]
                         for t, m, lim, u in targets]))
            print(f"\nload average after: {loadavg()}")
            return
        v = volume_kv(root, runs)
        b = v["baseline"]
        cpu = v["cpu"]

        def row(label: str, key: str) -> list[str]:
            return [label, fmt_s(v[key]), f"{v[key] / b:.3f}" if v[key] < 0.1 * b else f"{v[key] / b:.2f}",
                    f"{v[key] / v['pyplot']:.3f}" if v[key] < 0.1 * b else f"{v[key] / v['pyplot']:.2f}",
                    fmt_s(cpu[key]) if key in cpu else "-"]
        rows = [
            row("`python -c pass`", "python"),
            row('`python -c "import matplotlib.pyplot"`', "pyplot"),
            row("hand-written baseline (SVG + PNG)", "baseline"),
            row("hand-written baseline (SVG + PNG + PDF)", "baseline_pdf"),
            row("composer cold build, all cores", "cold"),
            row("composer cold build, `-j 1`", "cold_j1"),
            row("composer cold build, `--engine cairosvg`", "cold_cairo"),
            row("composer no-op rebuild", "noop"),
            row("composer one-panel edit (f_map source), SVG + PDF + PNG", "edit"),
            row("composer one-panel edit, SVG only", "edit_svg"),
        ]
        rows += [row("`compose --watch`: one-panel edit, SVG + PDF + PNG", "watch_edit"),
                 row("`compose --watch`: one-panel edit, SVG only", "watch_edit_svg"),
                 row("`compose --watch --engine cairosvg`: one-panel edit, SVG + PDF + PNG", "watch_edit_cairo")]
        print("### volume_kv (SVG + PDF + PNG at 300 dpi unless noted)\n")
        print(table(["", "median wall", "/ baseline", "/ import pyplot", "median CPU"], rows))
        print(f"\nOne-panel edit = f_map's own render time plus: {v['edit'] - v['edit_render']:.2f} s (fresh process), "
              f"{v['edit_svg'] - v['edit_render']:.2f} s (fresh process, SVG only), "
              f"{v['watch_edit'] - v['watch_render']:.2f} s (watch), "
              f"{v['watch_edit_svg'] - v['watch_render_svg']:.2f} s (watch, SVG only); "
              f"f_map's render time: {v['edit_render']:.3f} s in a fresh process, {v['watch_render']:.3f} s in watch")
        ex = v["export"]
        print("\n### Export stage: volume_kv's composed SVG to PDF + PNG at 300 dpi, both engines in one process\n")
        print(table(["engine", "median wall", "/ cairosvg"],
                    [[e, fmt_s(ex[e]), f"{ex[e] / ex['cairosvg']:.2f}"] for e in ("resvg", "cairosvg")]))
        targets += [
            ("export stage, resvg / cairosvg", ex["resvg"] / ex["cairosvg"], 0.25, "x"),
            ("`--watch` one-panel edit, all formats, beyond the render", v["watch_edit"] - v["watch_render"], 0.3,
             " s"),
        ]

        counts = [6, 24] if args.quick else [6, 24, 96]
        sc = scaling(base, runs, counts)
        print("\n### Cold build (SVG + PDF + PNG at 300 dpi) of generated figures, 6 line panels per row\n")
        first = sc[0][1][0] / sc[0][0]
        print(table(["panels", "median wall", "per panel", "per panel / 6-panel figure's", "median CPU",
                     "CPU per panel"],
                    [[str(n), fmt_s(t), fmt_s(t / n), f"{t / n / first:.2f}", fmt_s(c), fmt_s(c / n)]
                     for n, (t, c) in sc]))

        sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
        print("\n### One scatter panel (90 x 70 mm figure)\n")
        scatter_rows = scatter(base, max(1, min(runs, 3)), sizes)
        print(table(["points", "kind", "SVG size", "build (SVG only)", "build (SVG + PDF + PNG)"], scatter_rows))
        big = [r for r in scatter_rows if r[0] == "1e+05" and r[1] == "vector, resvg"]
        if big and big[0][4].endswith(" s"):
            targets.append(("1e5-point vector scatter, SVG + PDF + PNG", float(big[0][4].split()[0]), 5.0, " s"))

        report_stages(root, (os.cpu_count() or 1, 1))
        print("### Against the targets\n")
        print(table(["target", "measured", "at most", "met"],
                    [[t, f"{m:.2f}{u}", f"{lim:g}{u}", "yes" if m <= lim else "**no**"] for t, m, lim, u in targets]))
        print(f"\nload average after: {loadavg()}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
