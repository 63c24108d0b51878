"""Ctrl-C during a build: one line, exit status 130, no traceback, no worker left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from conftest import demo_drawn_by, process_alive

HANG = '''
import os, pathlib, time
def hang(fig, data):
    pathlib.Path(os.environ["HANG_MARK"]).write_text(str(os.getpid()))
    time.sleep(120)
'''



def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    root = demo_drawn_by(tmp_path, "hang:hang", HANG)
    mark = tmp_path / "worker.pid"
    env = {**os.environ, "HANG_MARK": str(mark)}
    proc = subprocess.Popen([sys.executable, "-m", "composer.cli", "demo", "--root", str(root), "-j", "2",
                             "--no-cache"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not mark.exists() and time.monotonic() < deadline:  # the panel's worker is drawing
        time.sleep(0.05)
    assert mark.exists(), "the hanging panel never started"
    worker = int(mark.read_text())
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.splitlines() == ["compose: interrupted"]
    deadline = time.monotonic() + 10
    while process_alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not process_alive(worker), "the panel's worker outlived compose"
    assert not (root / "build" / "demo.svg").exists()  # nothing half-written
