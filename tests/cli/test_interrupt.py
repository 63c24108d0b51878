"""Ctrl-C during a build: one line, exit status 130, no traceback, outputs byte-identical, no process left."""

from __future__ import annotations

import os
import signal
import time

import pytest

from conftest import ForkedCompose, demo_drawn_by, process_alive, run_compose, snapshot

GOOD = '''
def slow(fig, data):
    fig.add_subplot().plot([0, 1], [1, 0])
'''

# draws nothing until stopped: first a child process that would outlive it (`sleep 100`, in the
# panel's process group) and one that detaches (`setsid`), then the pids in HANG_MARK, then it sleeps
HANG = '''
import os, pathlib, subprocess, time
def slow(fig, data):
    kids = [subprocess.Popen(["sleep", "100"]), subprocess.Popen(["sleep", "100"], start_new_session=True)]
    pids = [os.getpid()] + [k.pid for k in kids]
    pathlib.Path(os.environ["HANG_MARK"] + ".tmp").write_text(" ".join(map(str, pids)))
    os.replace(os.environ["HANG_MARK"] + ".tmp", os.environ["HANG_MARK"])
    time.sleep(120)
'''

INTERRUPTED = "compose: interrupted; outputs left as they were"
STOPPED_WATCHING = "compose: stopped watching; outputs left as the last build wrote them"


def _good_build(tmp_path):
    """The demo project with panel b drawn by ``slow:slow``, built once (good outputs); then ``slow``
    hangs (an edit of its module: the next build must draw it again)."""
    root = demo_drawn_by(tmp_path, "slow:slow", GOOD)
    done = run_compose(["demo", "--root", root, "--format", "svg,png", "--dpi", "100"])
    assert done.returncode == 0, done.stderr
    (root / "panels" / "slow.py").write_text(HANG)
    return root


def _interrupt(root, tmp_path, command, *, group):
    """Run ``compose COMMAND`` (a process forked from this one, a session of its own, as a shell's job), wait until the hanging panel
    started, send SIGINT to compose (or to its whole process group, as a terminal does on Ctrl-C).
    Returns (exit status, stdout, stderr, pids of the panel's process and its two children)."""
    mark = tmp_path / "hang.pids"
    env = {**os.environ, "HANG_MARK": str(mark)}
    proc = ForkedCompose([*command, "--root", str(root)], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not mark.exists() and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert mark.exists(), f"the hanging panel never started: {proc.communicate(timeout=30)}"
        pids = [int(p) for p in mark.read_text().split()]
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err, pids


def _gone(pids):
    deadline = time.monotonic() + 10
    while any(process_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if process_alive(p)]


@pytest.mark.e2e
@pytest.mark.parametrize("group", [False, True], ids=["to-compose", "to-its-group"])
@pytest.mark.parametrize("command, line", [
    (["demo", "--format", "svg,png", "--dpi", "100", "-j", "2"], INTERRUPTED),
    (["demo", "--format", "svg,png", "--dpi", "100", "-j", "1"], INTERRUPTED),
    (["build", "--all", "--format", "svg,png", "--dpi", "100"], INTERRUPTED),
    (["check", "demo"], INTERRUPTED),
    (["watch", "demo", "--format", "svg,png", "--dpi", "100"], STOPPED_WATCHING),
], ids=["build-j2", "build-j1", "all", "check", "watch"])
def test_ctrl_c_is_one_line_exit_130_and_leaves_outputs_and_no_process(tmp_path, command, line, group):
    root = _good_build(tmp_path)
    before = snapshot(root)
    assert any(name.endswith("demo.png") for name in before)
    status, out, err, pids = _interrupt(root, tmp_path, command, group=group)
    assert status == 130, err
    assert err.splitlines() == [line]  # no traceback, no other line
    assert "Traceback" not in out
    assert snapshot(root) == before  # every output, the manifest and the cache: bytes and mtimes
    assert not list((root / "build").rglob("*.tmp"))
    assert _gone(pids) == [], "a process of the panel outlived compose"


def test_ctrl_c_while_the_outputs_are_written_writes_them_whole_first(tmp_path):
    """A Ctrl-C in the write phase is held back until every output, the manifest and the cache entries
    are written (never some outputs new and some old), then stops compose with a line saying so."""
    from composer.sandbox.isolate import WRITTEN_FIRST, deferred_interrupt

    wrote = []
    with pytest.raises(KeyboardInterrupt) as caught, deferred_interrupt():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)  # the handler runs at the next bytecode: here, not after the block
        wrote.append("everything")
    assert wrote == ["everything"]
    assert caught.value.args == (WRITTEN_FIRST,)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Ctrl-C acts at once again
