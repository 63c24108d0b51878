"""composer.sandbox.audit: which files the user's code opened, recorded with Python's audit hooks.

Every test records inside a forked worker (``run_isolated``), as composer does, so this test
process keeps no recording hook of its own doing anything (the hook is installed in the child).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import zoneinfo

import numpy as np

from composer.sandbox.audit import collecting, recording, run_recorded
from composer.sandbox.isolate import run_isolated


def sha(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def opened_in_worker(func):
    """Run ``func()`` recorded in a forked worker; returns (what it returned, read, written)."""
    def work():
        with recording() as log:
            value = func()
        return value, log.read, log.written

    return run_isolated(work, timeout_s=60)


def test_reads_are_recorded_with_their_digest_and_writes_apart(tmp_path):
    data = tmp_path / "x.json"
    data.write_text("[1, 2, 3]")
    table = tmp_path / "t.npy"
    np.save(table, np.arange(4))
    out = tmp_path / "out.csv"
    scratch = tmp_path / "scratch.txt"

    def user_code():
        with open(data) as fh:
            total = sum(json.load(fh))
        total += int(np.load(table).sum())
        fd = os.open(str(data), os.O_RDONLY)  # os.open: flags, no mode
        os.close(fd)
        with open(out, "w") as fh:
            fh.write("a,b\n")
        scratch.write_text("tmp")  # written, then read back: not an input
        scratch.read_text()
        try:
            open(tmp_path / "missing.json")
        except FileNotFoundError:
            pass
        import colorsys  # noqa: F401 - an import opens a .py/.pyc of the standard library: not recorded
        return total

    total, read, written = opened_in_worker(user_code)
    assert total == 6 + 6
    assert read == {str(data): sha(data), str(table): sha(table), str(tmp_path / "missing.json"): None}
    assert written == tuple(sorted((str(out), str(scratch))))


def test_matplotlib_and_pythons_own_files_are_not_recorded(tmp_path):
    def draw():
        from matplotlib.figure import Figure

        fig = Figure(figsize=(1, 1))
        ax = fig.add_subplot()
        ax.set_title("a title in a font file")
        ax.plot([0, 1], [0, 1])
        fig.savefig(os.devnull, format="svg")  # a write to /dev: not recorded either
        import email.mime.text  # noqa: F401 - imports open files of the standard library
        zones = [f"{folder}/Etc/UTC" for folder in zoneinfo.TZPATH if os.path.isfile(f"{folder}/Etc/UTC")]
        for zone in zones:  # as pandas reads what UTC is: the system's time zone database
            open(zone, "rb").close()
        return len(zones)

    zones, read, written = opened_in_worker(draw)
    assert read == {} and written == ()
    assert zones or not os.environ.get("CI"), "no time zone database to open (Debian's tzdata)"


def test_a_relative_path_is_made_absolute_and_a_symlink_is_kept_as_opened(tmp_path, monkeypatch):
    """A symlink is recorded as the path the code opened (with the digest of what it leads to): when it
    is pointed at another file, the recorded path's digest changes and the panel is stale (recorded by
    its target, a retargeted link went unseen: "up to date" with a stale figure)."""
    from composer.sandbox.audit import file_digest

    (tmp_path / "data").mkdir()
    real = tmp_path / "data" / "real.txt"
    real.write_text("x")
    (tmp_path / "link.txt").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    _, read, _ = opened_in_worker(lambda: (open("link.txt").read(), open("data/real.txt").read()))
    assert read == {str(tmp_path / "link.txt"): sha(real), str(real): sha(real)}
    other = tmp_path / "data" / "other.txt"
    other.write_text("y")
    (tmp_path / "link.txt").unlink()
    (tmp_path / "link.txt").symlink_to(other)
    assert file_digest(str(tmp_path / "link.txt")) == sha(other) != read[str(tmp_path / "link.txt")]


def test_outside_a_recording_nothing_is_kept(tmp_path):
    data = tmp_path / "x.txt"
    data.write_text("x")

    def work():
        open(data).read()  # before the block
        with recording() as log:
            pass
        open(data).read()  # after it
        return log.read

    assert run_isolated(work, timeout_s=60) == {}


def test_run_recorded_hands_the_files_to_the_collector(tmp_path):
    data = tmp_path / "x.txt"
    data.write_text("hello")
    with collecting() as found:
        assert run_recorded(lambda: open(data).read(), timeout_s=60, who="values()") == "hello"
    assert [(who, log.read) for who, log in found] == [("values()", {str(data): sha(data)})]


def test_a_module_of_ones_own_imported_counts_as_its_source_read(tmp_path, monkeypatch):
    """Outside Python's and the installed packages' folders, an import reads the module's source, or
    the ``__pycache__`` .pyc standing for it (the second import, in a fresh worker): both record the .py."""
    lib = tmp_path / "mylib"
    lib.mkdir()
    (lib / "mystyle.py").write_text("COLOR = '#123456'\n")
    monkeypatch.syspath_prepend(str(lib))

    def use():
        import mystyle

        return mystyle.COLOR

    first = opened_in_worker(use)
    import importlib.util
    import py_compile

    py_compile.compile(str(lib / "mystyle.py"), cfile=importlib.util.cache_from_source(str(lib / "mystyle.py")))
    seen = []

    def spy(event, args):  # this test process's own hook: which file the second import opens
        if event == "open" and str(args[0]).endswith(".pyc") and "mystyle" in str(args[0]):
            seen.append(args[0])

    def use_and_tell():
        sys.addaudithook(spy)
        return use(), seen

    (color, pycs), read, _ = opened_in_worker(use_and_tell)
    assert pycs, "the second import did not read the .pyc"
    second = (color, read, ())
    for color, read, _ in (first, second):
        assert color == "#123456" and read == {str(lib / "mystyle.py"): sha(lib / "mystyle.py")}


def test_the_digest_is_of_the_file_as_it_was_first_opened(tmp_path):
    """A file changed (by another process) after the code read it: the recorded digest is the one read,
    so the next build sees the change."""
    import subprocess

    data = tmp_path / "x.txt"
    data.write_text("old")
    before = sha(data)

    def read_then_changed():
        text = data.read_text()
        subprocess.run(["sh", "-c", f"printf new > '{data}'"], check=True)
        return text

    text, read, _ = opened_in_worker(read_then_changed)
    assert text == "old" and data.read_text() == "new"
    assert read == {str(data): before}
