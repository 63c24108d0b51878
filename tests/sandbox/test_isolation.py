"""Crash isolation: a panel function that raises, hangs, crashes or returns garbage.

Each case points panel ``b`` of a copy of the demo project at a hostile
renderer in ``panels/hostile.py`` and builds through the CLI in process:
exit 1, one line naming the panel, the function and (where there is one) the
line of panel code, within a bounded time, and build/ untouched (the previous
outputs and any other file in it, such as another tool's cache).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from composer.cli.main import main
from composer.pipeline import render_panels
from composer.stages.inputs import Project, read_inputs
from conftest import DEMO, snapshot
from errlines import without_frames

HOSTILE = '''\
import os
import re
import signal
import sys
import time

import matplotlib
import numpy as np

CALLS = []


def sleeps(fig, data):
    fig.add_subplot()
    time.sleep(600)


def sleeps_noting_pid(fig, data):
    with open(os.environ["COMPOSER_TEST_PID_FILE"], "w") as fh:
        fh.write(str(os.getpid()))
    time.sleep(600)


def spins(fig, data):
    while True:
        pass


def regex_in_c(fig, data):
    # catastrophic backtracking: hangs inside C code holding the GIL
    return re.match(r"(a+)+$", "a" * 64 + "b")


def exits(fig, data):
    sys.exit(3)


def hard_exit(fig, data):
    os._exit(7)


def segfault(fig, data):
    os.kill(os.getpid(), signal.SIGSEGV)


def interrupts(fig, data):
    raise KeyboardInterrupt


def key_not_str(fig, data):
    ax = fig.add_subplot()
    return {1: (ax, 0, 0), "a": (ax, 0, 0)}


def nan_anchor(fig, data):
    ax = fig.add_subplot()
    return {"p": (ax, float("nan"), 0.0)}


def log_anchor(fig, data):
    ax = fig.add_subplot()
    ax.set_xscale("log")
    return {"p": (ax, -5.0, 0.5)}  # a log axis has no -5: matplotlib maps it far off the panel


def inf_anchor(fig, data):
    ax = fig.add_subplot()
    ax.set_xlim(0, 1e-5)
    return {"p": (ax, 1e306, 0.5)}  # finite data, but 1e311 axis widths away: overflows to inf


def other_figure(fig, data):
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    return {"p": (ax, 0, 0)}


def huge_garbage(fig, data):
    ax = fig.add_subplot()
    return {"p": (ax, "x" * 100000, 0)}


def generator(fig, data):
    ax = fig.add_subplot()
    return (x for x in [ax])


def bad_name(fig, data):
    ax = fig.add_subplot()
    return {"no spaces": (ax, 0, 0)}


def cjk(fig, data):
    fig.text(0.1, 0.5, "\\u4e2d\\u6587 ok")


def polluter(fig, data, **params):
    """Changes global matplotlib state, a module global and the shared data."""
    matplotlib.rcParams["lines.linewidth"] = 12
    matplotlib.rcParams["font.size"] = 30
    CALLS.append(1)
    data["y"][:] = 0
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])


def line_after(fig, data, **params):
    """Draws with the defaults and the data: a leak from polluter would show."""
    ax = fig.add_subplot()
    ax.plot(data["y"][:5])
    ax.set_title(f"calls={len(CALLS)}")


def values_hang(data):
    time.sleep(600)


def values(data):
    return {"total": 1.0}
'''

OUTPUTS = ("demo.svg", "demo.pdf", "demo.png")


def at(function: str, code: str) -> str:
    """`` (at hostile.py:N in function: code)`` for the line of HOSTILE holding ``code``."""
    lines = HOSTILE.splitlines()
    start = lines.index(f"def {function}(fig, data):")
    number = next(i for i in range(start, len(lines)) if lines[i].strip() == code) + 1
    return f"(at hostile.py:{number} in {function}: {code})"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The demo project with panels/hostile.py, built once, plus an unrelated file in build/."""
    root = tmp_path_factory.mktemp("isolation") / "demo"
    shutil.copytree(DEMO, root)
    (root / "panels" / "hostile.py").write_text(HOSTILE, encoding="utf-8")
    assert main(["demo", "--root", str(root), "--dpi", "50"]) == 0
    cache = root / "build" / ".cache"
    cache.mkdir(exist_ok=True)  # composer keeps its own caches there too
    (cache / "panel-a.entry").write_bytes(b"another tool's cache entry")
    (root / "build" / "notes.txt").write_text("mine")
    return root


@pytest.fixture
def project(built, tmp_path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(built, root)
    return root



def use_renderer(root: Path, function: str) -> None:
    layout = root / "layouts" / "demo.toml"
    text = layout.read_text(encoding="utf-8")
    assert text.count('"demo:heat"') == 1
    layout.write_text(text.replace('"demo:heat"', f'"hostile:{function}"'), encoding="utf-8")


def fails_cleanly(root: Path, capsys, *extra: str, limit_s: float) -> str:
    before = snapshot(root)
    assert {f"build/{n}" for n in OUTPUTS} | {"build/.cache/panel-a.entry", "build/notes.txt"} <= set(before)
    capsys.readouterr()
    started = time.monotonic()
    status = main(["demo", "--root", str(root), "--dpi", "50", *extra])
    elapsed = time.monotonic() - started
    out, err = capsys.readouterr()
    assert status == 1, err
    assert elapsed < limit_s, elapsed
    assert "Traceback" not in err and out == ""
    lines = without_frames(err)  # the error line; below it, the frames of the user's code
    assert len(lines) == 1, err
    assert lines[0].startswith("compose: error: layouts/demo.toml:16:1: panels.b.render: panel 'b': "), lines[0]
    assert snapshot(root) == before, "a failed build changed build/"
    return lines[0]


@pytest.mark.parametrize("function, expect", [
    ("sleeps", ("hostile:sleeps did not finish", "after 1 s", at("sleeps", "time.sleep(600)"))),
    ("spins", ("hostile:spins did not finish", (at("spins", "while True:"), at("spins", "pass")))),
    ("regex_in_c", ("hostile:regex_in_c did not finish", at("regex_in_c", 'return re.match(r"(a+)+$", "a" * 64 + "b")'))),
])
def test_hanging_renderer_is_stopped_at_the_timeout(function, expect, project, capsys):
    use_renderer(project, function)
    line = fails_cleanly(project, capsys, "--timeout", "1", limit_s=6.0)
    for part in expect:  # a tuple: any one of them (a loop stops on either of its lines)
        assert any(p in line for p in ((part,) if isinstance(part, str) else part)), (part, line)


@pytest.mark.parametrize("function, expect", [
    ("exits", ("hostile:exits raised SystemExit: called sys.exit(3)", at("exits", "sys.exit(3)"))),
    ("hard_exit", ("hostile:hard_exit crashed", "exited with status 7")),
    ("segfault", ("hostile:segfault crashed", "signal SIGSEGV", at("segfault", "os.kill(os.getpid(), signal.SIGSEGV)"))),
    ("interrupts", ("hostile:interrupts raised KeyboardInterrupt", at("interrupts", "raise KeyboardInterrupt"))),
    ("key_not_str", ("returned anchor name 1",)),
    ("nan_anchor", ("returned anchor 'p': (<Axes", "nan")),
    ("inf_anchor", ("anchor 'p'", "not a finite point")),
    ("log_anchor", ("anchor 'p' has x = -5.0 on a log axis", "only values above 0")),
    ("other_figure", ("anchor 'p' names axes of another figure",)),
    ("huge_garbage", ("returned anchor 'p'", "...; a renderer returns")),
    ("generator", ("returned generator",)),
    ("bad_name", ("returned anchor name 'no spaces'",)),
    ("cjk", ("draws '中' (U+4E2D), '文' (U+6587)", "'DejaVu Sans'", "no glyph")),
])
def test_crashing_or_garbage_renderer_is_one_line(function, expect, project, capsys):
    use_renderer(project, function)
    line = fails_cleanly(project, capsys, limit_s=30.0)
    for part in expect:
        assert part in line, (part, line)
    assert len(line) < 600, line  # garbage is cut, not printed whole


def test_hanging_values_function_is_stopped(project, capsys):
    (project / "panels" / "demo.py").write_text(
        (project / "panels" / "demo.py").read_text() + "\n\ndef values(data):\n    import time\n    time.sleep(600)\n")
    before = snapshot(project)
    capsys.readouterr()
    started = time.monotonic()
    assert main(["demo", "--root", str(project), "--timeout", "1"]) == 1
    assert time.monotonic() - started < 6
    err = capsys.readouterr().err
    assert "values() in panels/demo.py did not finish" in err and "demo.py:" in err, err
    assert snapshot(project) == before


def test_renderers_cannot_leak_state_into_other_panels(project):
    """rcParams, module globals and the shared data changed by one panel do not reach the next."""
    layout = project / "layouts" / "demo.toml"
    text = layout.read_text().replace('"demo:line"', '"hostile:polluter"').replace('"demo:heat"', '"hostile:line_after"')
    text = text.replace('from = "a.peak"', 'from = "a.e"')
    layout.write_text(text)
    inputs = read_inputs(Project.at(project), "demo")
    y_before = inputs.data["b"]["y"].copy()
    import matplotlib

    rc_before = dict(matplotlib.rcParams)
    both = render_panels(inputs)
    assert (inputs.data["b"]["y"] == y_before).all() and y_before.any()
    assert dict(matplotlib.rcParams) == rc_before
    # panel b rendered after the polluter equals panel b rendered with nothing before it
    alone_layout = text.replace('render = "hostile:polluter"', 'render = "hostile:line_after"')
    layout.write_text(alone_layout)
    alone = render_panels(read_inputs(Project.at(project), "demo"))
    assert both["b"].svg == alone["b"].svg  # its title "calls=0" and its line from the unchanged data


def test_isolated_render_is_byte_identical_to_in_process(tmp_path):
    from composer.stages.render import render_panel

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    inputs = read_inputs(Project.at(root), "demo")
    isolated = render_panels(inputs)
    spec = inputs.figure.spec
    for panel in inputs.figure.panels:
        if panel.kind == "render":
            direct = render_panel(inputs.renderers[panel.name], panel, spec, inputs.data[panel.name], file="x")
            assert direct == isolated[panel.name]


@pytest.mark.parametrize("timeout", ["0", "-1", "nan", "inf", "1e300"])
def test_timeout_must_be_in_range(timeout, project, capsys):
    before = snapshot(project)
    capsys.readouterr()
    assert main(["demo", "--root", str(project), "--timeout", timeout]) == 1
    err = capsys.readouterr().err
    assert err == (f"compose: error: timeout {float(timeout)} must be a number of seconds above 0 and at most "
                   "86400 (a day)\n"), err
    assert snapshot(project) == before


def test_hanging_or_crashing_export_is_one_error(project, monkeypatch):
    """Exports run in a worker: an export that hangs or kills its process is an SvgError, outputs kept;
    with either engine (resvg draws PDF and PNG in one worker with -j 1, in two otherwise; cairosvg each
    in its own)."""
    import os
    import signal

    from composer.errors import SvgError
    from composer.pipeline import build
    from composer.stages.export import cairosvg_engine, resvg_engine

    before = snapshot(project)
    with monkeypatch.context() as patch:
        patch.setattr(resvg_engine, "convert", lambda svg, kinds, **kw: time.sleep(60))
        with pytest.raises(SvgError, match=r"layouts/demo.toml: exporting the PDF and PNG failed: still running "
                                           r"after 4 s"):  # the panels have 4 s too: on a loaded machine 1 s was short
            build("demo", root=project, dpi=50, timeout_s=4, cache=False, jobs=1)  # up to date: force the export
    with monkeypatch.context() as patch:
        patch.setattr(resvg_engine, "convert", lambda svg, kinds, **kw: os.kill(os.getpid(), signal.SIGSEGV))
        with pytest.raises(SvgError, match=r"exporting the PDF and PNG failed: the worker process was killed by "
                                           r"signal SIGSEGV"):
            build("demo", root=project, dpi=50, cache=False, jobs=1)
        with pytest.raises(SvgError, match=r"exporting the (PDF|PNG) failed: the worker process was killed by "
                                           r"signal SIGSEGV"):  # two workers: the first to crash is named, the
            build("demo", root=project, dpi=50, cache=False, jobs=2)  # other is stopped (which is first: a race)
    with monkeypatch.context() as patch:
        patch.setattr(cairosvg_engine, "to_pdf", lambda svg, **kw: os.kill(os.getpid(), signal.SIGSEGV))
        with pytest.raises(SvgError, match=r"exporting the PDF failed: the worker process was killed by signal "
                                           r"SIGSEGV"):
            build("demo", root=project, dpi=50, cache=False, engine="cairosvg")
    assert snapshot(project) == before


@pytest.mark.e2e
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_killed_compose_leaves_no_worker_behind(jobs, project, tmp_path):
    """SIGKILL to compose while a panel hangs: its worker dies with it, not at the --timeout 10 minutes later."""
    import os
    import signal
    import subprocess
    import sys

    use_renderer(project, "sleeps_noting_pid")
    pid_file = tmp_path / "worker.pid"
    proc = subprocess.Popen([sys.executable, "-m", "composer.cli", "demo", "--root", str(project), "-j", jobs,
                             "--no-cache", "--timeout", "600"], env={**os.environ, "COMPOSER_TEST_PID_FILE": str(pid_file)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and proc.poll() is None, "the hanging panel never started"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
    finally:
        proc.kill()
        proc.wait()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return state not in ("Z", "X")  # a zombie has ended; only its exit status waits to be collected

    deadline = time.monotonic() + 10
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    if alive(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the panel worker outlived the compose process that started it")


def test_a_crashed_export_stops_the_other_at_once(project, tmp_path, monkeypatch):
    """With two workers (PDF in one, PNG in the other), the PDF's crash ends the PNG's worker at once:
    the build does not wait for the PNG up to the timeout (600 s here; the PNG would take 60 s)."""
    import os
    import signal

    from composer.errors import SvgError
    from composer.pipeline import build
    from composer.stages.export import resvg_engine

    pid_file, finished = tmp_path / "png.pid", tmp_path / "png.finished"

    def convert(svg, kinds, **kw):
        if "pdf" in kinds:
            deadline = time.monotonic() + 30
            while not pid_file.exists() and time.monotonic() < deadline:  # the PNG's worker is drawing
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGSEGV)
        pid_file.write_text(str(os.getpid()))
        time.sleep(60)
        finished.write_text("the PNG worker ran to its end")
        return {}

    with monkeypatch.context() as patch:
        patch.setattr(resvg_engine, "convert", convert)
        with pytest.raises(SvgError, match=r"exporting the PDF failed: the worker process was killed by signal "
                                           r"SIGSEGV"):
            build("demo", root=project, dpi=50, cache=False, jobs=2, timeout_s=600)
    assert resvg_engine.convert is not convert  # the patch is undone
    assert pid_file.exists(), "the PNG's worker never started"
    assert not finished.exists()
    png_worker = int(pid_file.read_text())
    assert not Path(f"/proc/{png_worker}").exists(), "the PNG's worker outlived the failed export"


@pytest.mark.e2e
def test_workers_are_forked_while_no_other_thread_runs(project):
    """Every fork of a parallel build (-j 2: panels, then PDF and PNG side by side) happens while the
    process runs one thread: Python 3.12+ warns that a fork from a multi-threaded process may deadlock
    (and with ``-W error`` it does not even say so), and a worker forked while another thread held a
    lock (tempfile's first-use lock, logging's) waited forever.

    The build runs in a fresh interpreter, as a user's script does: pytest-xdist's worker has a thread
    of its own (execnet's), which CPython would count at every fork of a build run in it.
    """
    import json
    import subprocess
    import sys

    script = """
import json, os, sys, threading, warnings
counts = []
real_fork = os.fork
def fork():
    counts.append(threading.active_count())
    return real_fork()
os.fork = fork
warnings.simplefilter("always")
import composer
result = composer.build("demo", root=sys.argv[1], dpi=50, cache=False, jobs=2)
print(json.dumps({"counts": counts, "rendered": list(result.rendered), "outputs": sorted(result.outputs)}))
"""
    proc = subprocess.run([sys.executable, "-W", "always", "-c", script, str(project)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.splitlines()[-1])
    assert seen["rendered"] and {"pdf", "png"} <= set(seen["outputs"])
    assert len(seen["counts"]) >= len(seen["rendered"]) + 2  # a worker per panel group, PDF and PNG
    assert seen["counts"] == [1] * len(seen["counts"])
    assert "multi-threaded" not in proc.stderr, proc.stderr
