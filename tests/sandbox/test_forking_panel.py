"""A panel that forks a process and leaves it running: the build ends when the panel's worker ends,
and the left process is killed with the worker (it would otherwise hold the result pipe open)."""

from __future__ import annotations

import time

import pytest

from conftest import demo_drawn_by, process_alive, run_compose

FORKER = '''
import os, pathlib, time
def forker(fig, data):
    child = os.fork()
    if child == 0:
        time.sleep(600)
        os._exit(0)
    pathlib.Path(os.environ["LEFT_PID"]).write_text(str(child))
    fig.add_subplot().plot([1, 0])
'''



@pytest.mark.parametrize("jobs", [1, 2])
def test_a_process_the_panel_left_running_neither_stalls_nor_outlives_the_build(jobs, tmp_path):
    root = demo_drawn_by(tmp_path, "forker:forker", FORKER)
    left = tmp_path / "left.pid"
    # the left process sleeps 600 s: a build that waited for it to close the result pipe would hang,
    # which the harness's 120 s limit turns into a failure (a hang guard, not a speed goal)
    proc = run_compose(["demo", "--root", root, "--format", "svg", "--no-cache", "-j", str(jobs), "--timeout", "60"],
                       env={"LEFT_PID": str(left)}, timeout_s=120)
    assert proc.returncode == 0, proc.stderr
    assert "rendered" in proc.stdout and "b" in proc.stdout
    pid = int(left.read_text())
    deadline = time.monotonic() + 5
    while process_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(pid), "the process the panel forked outlived its worker"
