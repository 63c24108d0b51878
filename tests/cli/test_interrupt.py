"""Ctrl-C during a build: one line, exit status 130, no traceback, no worker left behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

from conftest import DEMO

HANG = '''
import os, pathlib, time
def hang(fig, data):
    pathlib.Path(os.environ["HANG_MARK"]).write_text(str(os.getpid()))
    time.sleep(120)
'''


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone for our purpose: it runs nothing
        return open(f"/proc/{pid}/stat").read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    (root / "panels" / "hang.py").write_text(HANG)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('render = "demo:heat"', 'render = "hang:hang"'))
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
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(worker), "the panel's worker outlived compose"
    assert not (root / "build" / "demo.svg").exists()  # nothing half-written
