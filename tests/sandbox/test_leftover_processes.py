"""Processes a panel starts end with it: whatever is still running when its renderer returns (or
fails) is killed, detached ones too (``setsid``, a double fork), and the build warns once per panel."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from conftest import DEMO, process_alive, run_compose

# panel a leaves a plain child; panel b one in a session of its own and one a shell forked and left
# (the shell exits: the sleep is an orphan). Each writes the pids it left into PIDS_DIR/<panel>.
LEAVES = '''
import os, pathlib, subprocess
import numpy as np

def _note(name, pids):
    pathlib.Path(os.environ["PIDS_DIR"], name).write_text(" ".join(map(str, pids)))

def line(fig, data, n=10):
    kid = subprocess.Popen(["sleep", "100"])
    _note("a", [kid.pid])
    ax = fig.add_subplot(); ax.plot(np.arange(n))
    return {"peak": (ax, n - 1, float(n - 1))}

def heat(fig, data):
    alone = subprocess.Popen(["sleep", "101"], start_new_session=True)
    out = subprocess.run(["sh", "-c", "sleep 102 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True)
    _note("b", [alone.pid, int(out.stdout)])
    fig.add_subplot().plot([0, 1])
    if os.environ.get("FAIL"):
        raise RuntimeError("after starting them")

def values(data):
    return {"total": float(np.sum(data["y"]))}
'''


def _gone(pids):
    deadline = time.monotonic() + 10  # SIGKILL is delivered at once; reaping may lag a moment
    while any(process_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if process_alive(p)]


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("fail", [False, True], ids=["returns", "raises"])
def test_processes_a_panel_left_are_stopped_and_named(tmp_path, jobs, fail):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    (root / "panels" / "demo.py").write_text(LEAVES)
    pids_dir = tmp_path / "pids"
    pids_dir.mkdir()
    env = {"PIDS_DIR": str(pids_dir), **({"FAIL": "1"} if fail else {})}
    done = run_compose(["demo", "--root", root, "--format", "svg", "-j", jobs], env=env)
    left = [int(p) for name in ("a", "b") for p in (pids_dir / name).read_text().split()]
    assert len(left) == 3
    assert _gone(left) == []
    warned = [line for line in done.stderr.splitlines() if "left" in line and "running" in line]
    assert warned == ["compose: warning: panel 'a' left a process running (sleep 100); it was stopped",
                      "compose: warning: panel 'b' left processes running (sleep 101, sleep 102); they were stopped"]
    assert done.returncode == (1 if fail else 0), done.stderr
    if fail:
        assert "after starting them" in done.stderr


def test_a_stopped_worker_takes_what_it_started_with_it():
    """A worker killed from outside its code (Ctrl-C, past its deadline) is killed with every
    descendant, a detached one too: it is a subreaper, so they stay below it."""
    import tempfile

    from composer.sandbox.isolate import start, wait_any

    with tempfile.TemporaryDirectory() as folder:
        mark = os.path.join(folder, "pid")

        def hang():
            kid = subprocess.Popen(["sleep", "103"], start_new_session=True)
            with open(mark + ".tmp", "w") as fh:
                fh.write(str(kid.pid))
            os.replace(mark + ".tmp", mark)
            time.sleep(60)

        worker = start(hang, timeout_s=None)
        deadline = time.monotonic() + 30
        while not os.path.exists(mark) and time.monotonic() < deadline:
            wait_any([worker], 0.05)
        with open(mark) as fh:
            kid = int(fh.read())
        assert process_alive(kid)
        worker.stop()
        worker.stacks.close()
        assert _gone([kid]) == []


def test_what_a_worker_keeps_running_ends_itself_before_leftovers_are_stopped():
    """composer.sandbox.isolate.at_worker_end: a program the worker's code keeps for its next calls (a
    browser) is ended by its own callback when the function returns, so nothing is left to kill and warn
    about; outside a worker nothing is registered (the caller ends it itself)."""
    import warnings

    from composer.sandbox.isolate import at_worker_end, run_isolated

    assert at_worker_end(lambda: None) is False

    def keep():
        kid = subprocess.Popen(["sleep", "104"])
        ended = []

        def end():
            kid.terminate()
            kid.wait()
            ended.append(kid.returncode)

        assert at_worker_end(end)
        return kid.pid

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kid = run_isolated(keep, timeout_s=30, label="p")
    assert _gone([kid]) == []
    assert not [w for w in caught if "sleep" in str(w.message)], [str(w.message) for w in caught]
