"""``compose NAME --watch`` forks its builds' workers while no watcher thread runs (Python 3.12+ warns
at a fork from a multi-threaded process: it may deadlock)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import DEMO


def wait_for(proc: subprocess.Popen, lines: list[str], count: int, limit_s: float = 60) -> None:
    deadline = time.monotonic() + limit_s
    while sum(line.startswith("built ") for line in lines) < count and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            lines.append(line)
        elif proc.poll() is not None:
            break


@pytest.mark.e2e
def test_a_rebuild_in_watch_mode_forks_from_one_thread(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    proc = subprocess.Popen([sys.executable, "-W", "always", "-m", "composer.cli", "watch", "demo", "--root",
                             str(root), "--format", "svg"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    lines: list[str] = []
    try:
        wait_for(proc, lines, 1)
        time.sleep(0.5)  # the watcher has started
        layout = root / "layouts" / "demo.toml"
        layout.write_text(layout.read_text().replace("params = { n = 8 }", "params = { n = 9 }"))
        wait_for(proc, lines, 2)
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert sum(line.startswith("built ") for line in lines) == 2, lines
    assert "layouts/demo.toml" in lines[-1], lines  # the rebuild names the change
    assert "multi-threaded" not in err, err


@pytest.mark.parametrize("reason, shown", [
    ("layouts/fig.toml changed", "layouts/fig.toml"),
    ("data/x.json is missing or was modified", "data/x.json"),
    ("a build of build/fig.svg was interrupted", "build/fig.svg"),
    ("outputs differ", "the outputs"),
    ("composer or Python changed", "composer or Python"),
])
def test_a_change_seen_through_the_manifest_is_named_as_a_thing(reason, shown):
    """The watch line says `after X changed`: X is the thing the manifest's reason names, never the
    sentence (`after layouts/fig.toml changed changed` was printed before)."""
    from composer.cli.watch import _what_changed

    assert _what_changed(reason) == shown


def test_a_watch_called_beside_threads_of_its_own_waits_only_for_the_watchers(monkeypatch):
    """Before each rebuild the watch waits for the closed watcher's thread to end, not for the process to
    run one thread: a program calling :func:`composer.cli.watch.watch` beside threads of its own (a
    notebook's kernel, a test runner) waited the whole limit before each rebuild (2 s)."""
    import threading
    import types

    import composer.cli.watch as watch_module

    hold, go = threading.Event(), threading.Event()
    callers = threading.Thread(target=hold.wait, daemon=True)  # a thread of the calling program
    callers.start()
    before = watch_module._threads() or 1
    watcher = threading.Thread(target=go.wait, daemon=True)  # the watcher's thread, closed but not yet ended
    watcher.start()
    waits = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        assert len(waits) <= 3, "still waiting once the watcher's thread ended"
        go.set()
        watcher.join()

    monkeypatch.setattr(watch_module, "time", types.SimpleNamespace(sleep=sleep, monotonic=time.monotonic))
    # the process's native threads as Linux counts them, but only the two of this test changing: a thread an
    # earlier test of the same pytest worker left ending (an export pool, BLAS) made the count unreliable
    counted = before
    monkeypatch.setattr(watch_module, "_threads", lambda: counted + watcher.is_alive())
    try:
        watch_module._wait_for_watcher_threads(before, limit_s=60)
        assert 1 <= len(waits) <= 3 and not watcher.is_alive() and callers.is_alive()
    finally:
        hold.set()
        go.set()
        callers.join()
