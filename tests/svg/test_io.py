"""Atomic output files: their mode follows the process's umask, read without changing it."""

from __future__ import annotations

import os
import stat
import threading

from composer.svg.io import write_files_atomically


def test_outputs_get_the_umask_mode_and_the_umask_is_never_changed(tmp_path):
    """0o666 & ~umask, as open() would give; a thread watching the umask meanwhile never sees it move
    (os.umask can only be read by setting it: composer reads /proc/self/status instead)."""
    seen: set[int] = set()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            with open("/proc/self/status") as status:
                seen.update(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))

    old = os.umask(0o027)
    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for i in range(20):
            write_files_atomically({tmp_path / f"f{i}.svg": b"<svg/>"})
    finally:
        stop.set()
        watcher.join()
        os.umask(old)
    assert seen == {0o027}
    assert {stat.S_IMODE((tmp_path / f"f{i}.svg").stat().st_mode) for i in range(20)} == {0o640}
