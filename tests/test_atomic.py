"""Atomic outputs: builds killed at random moments, concurrent builds, failing writes.

Every output must at every moment be absent (if it was absent), byte-identical
to the previous good output, or byte-identical to a complete new good output.
After a SIGKILL the only other files allowed in build/ are the killed build's
temporary ``.demo.*.tmp`` files, and the next build removes them.

The builds killed and the concurrent builds are processes of their own, each the CLI's entry point in a
child forked from this one (:class:`ForkedBuild`): what is killed is a whole build's process group, as with
a fresh ``compose`` process, without the start-up of a fresh interpreter and its imports, which were two
thirds of a fresh process's CPU time and had half the kill moments land before the build began.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import pytest

from composer.errors import ComposerError, ProjectError
from composer.pipeline import build
from composer.svg.io import temp_names, write_files_atomically
from conftest import DEMO, _descendants, run_compose

OUTPUTS = ("demo.svg", "demo.pdf", "demo.png")
TRIALS = 20
SEED = 20240607


def variant(root: Path, which: str) -> None:
    """Two layouts whose outputs differ in every format: title and text colour."""
    text = (DEMO / "layouts" / "demo.toml").read_text()
    if which == "B":
        text = text.replace('title = "Quadratic"', 'title = "Parabola"').replace('"#334155"', '"#b91c1c"')
    (root / "layouts" / "demo.toml").write_text(text)


def command(root: Path) -> list[str]:
    """The build's arguments: ``compose demo --root ROOT --dpi 60``."""
    return ["demo", "--root", str(root), "--dpi", "60"]


class ForkedBuild:
    """``compose ARGV`` (the CLI's entry point, :func:`composer.cli.main.main`) in a child forked from this
    process, in a session of its own (its panel and export workers in its process group, so that
    ``os.killpg(pid, SIGKILL)`` ends the whole build, as a fresh ``compose`` started with
    ``start_new_session`` is ended), its output to ``log`` (default /dev/null); what the ``subprocess.Popen``
    it stands for gives here: ``pid``, ``returncode`` (None until it was reaped) and :meth:`wait`. The child
    leaves by ``os._exit`` with the CLI's exit status (70 if anything else was raised), running none of this
    process's exit handlers."""

    def __init__(self, argv: list[str], log: Path | None = None):
        ready_r, ready_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            status = 70
            try:
                os.close(ready_r)
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) if log is not None else null
                os.dup2(null, 0)
                os.dup2(out, 1)
                os.dup2(out, 2)
                sys.stdout = sys.stderr = open(1, "w", buffering=1, closefd=False)  # not pytest's capture
                os.write(ready_w, b"1")
                os.close(ready_w)
                from composer.cli.main import main

                status = main(argv)
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001  (reported by the exit status; its output goes nowhere)
                status = 70
            finally:
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
                os._exit(status if isinstance(status, int) else 1)
        os.close(ready_w)
        os.read(ready_r, 1)  # the child is in its own session now: killpg(pid) reaches it and its workers
        os.close(ready_r)
        self.pid: int = pid
        self.returncode: int | None = None

    def wait(self, timeout: float) -> int:
        """Reap the build (at most ``timeout`` s); its exit status (-N: ended by signal N).

        Raises:
            TimeoutError: it still runs after ``timeout`` s.
        """
        deadline = time.monotonic() + timeout
        while self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
            elif time.monotonic() > deadline:
                raise TimeoutError(f"compose (pid {self.pid}) still runs after {timeout:g} s")
            else:
                time.sleep(0.005)
        return self.returncode


def outputs(out: Path) -> dict[str, bytes | None]:
    return {name: (out / name).read_bytes() if (out / name).exists() else None for name in OUTPUTS}


#: composer's own bookkeeping in build/: the build manifest and the caches (see composer.incremental.manifest,
#: composer.incremental.cache), written atomically like the outputs.
BOOKKEEPING = (".demo.manifest.json", ".cache")


def strays(out: Path) -> list[str]:
    """Files in build/ other than the outputs and composer's bookkeeping (a manifest, if any, is whole JSON)."""
    if not out.exists():
        return []
    manifest = out / ".demo.manifest.json"
    if manifest.exists():
        json.loads(manifest.read_text())
    return sorted(p.name for p in out.iterdir() if p.name not in OUTPUTS + BOOKKEEPING)


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> tuple[dict[str, dict[str, bytes]], float]:
    """The complete good outputs of variants A and B (built serially, by the CLI in process) and a build's
    duration."""
    refs, durations = {}, []
    for which in ("A", "B"):
        root = tmp_path_factory.mktemp(f"ref{which}") / "demo"
        shutil.copytree(DEMO, root)
        variant(root, which)
        started = time.monotonic()
        done = run_compose(command(root))
        assert done.returncode == 0, done.stderr
        durations.append(time.monotonic() - started)
        refs[which] = {k: v for k, v in outputs(root / "build").items() if v is not None}
        assert len(refs[which]) == 3
    assert all(refs["A"][name] != refs["B"][name] for name in OUTPUTS)  # so a mix-up would show
    return refs, min(durations)


_TICK_S = 1 / os.sysconf("SC_CLK_TCK")  # the unit of the CPU times in /proc/PID/stat
POLL_S = 0.002  # how often a trial looks at its builds' progress


def cpu_s(pid: int) -> float:
    """The CPU time (user + system, s) the build ``pid`` has used so far with its workers: every process
    below it (zombies included) with what the children it reaped used (/proc/PID/stat utime, stime,
    cutime, cstime: proc(5)). A measure of the build's progress that load does not stretch, as it does
    the wall clock."""
    total = 0
    for proc in {pid, *_descendants(pid)}:
        try:
            fields = Path(f"/proc/{proc}/stat").read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended meanwhile (and its time went to the process that reaped it)
        total += sum(int(field) for field in fields[11:15])
    return total * _TICK_S


def temp_outputs(out: Path) -> set[str]:
    """The outputs' temporary files in ``out`` (see write_files_atomically): a build is writing, or a killed
    one left them."""
    try:
        return {name for name in os.listdir(out) if name.startswith(".demo.") and name.endswith(".tmp")}
    except OSError:
        return set()


class Chain:
    """One project copy killed again and again; remembers its outputs before each trial.

    A trial's kill moment is a point of the build's own progress, not of the wall clock: when its CPU time
    reaches a share of a whole build's (:meth:`at_cpu`), or a delay after its first temporary output
    appeared (:meth:`after_writing_began`), so a busy machine, which makes every build slower, moves no
    kill from the writing to the drawing.
    """

    def __init__(self, root: Path):
        self.root, self.out = root, root / "build"
        self.previous = outputs(self.out)
        self.proc: ForkedBuild | None = None
        self.which = "A"
        self.cpu_target_s: float | None = None  # kill once the build used this much CPU
        self.write_delay_s: float | None = None  # or this long after its first temporary output appeared
        self.writing_since: float | None = None  # its first temporary output was seen
        self.written_at: float | None = None  # and then none any more (renamed into place)
        self.cpu_used_s = 0.0  # a whole build's CPU time, once it ended (os.wait4)
        self.stale: set[str] = set()  # temporary outputs there before the build began
        self.finished_at: float | None = None

    def at_cpu(self, cpu_target_s: float) -> None:
        self.cpu_target_s, self.write_delay_s = cpu_target_s, None

    def after_writing_began(self, delay_s: float) -> None:
        self.cpu_target_s, self.write_delay_s = None, delay_s

    def other_variant(self, refs: dict[str, dict[str, bytes]]) -> str:
        """The variant the chain's SVG is not now (B when it has none): a build of it has work to do, where a
        build of the variant it holds (its last build ended before writing) would be up to date at once and
        ended before any kill."""
        return "A" if self.previous["demo.svg"] == refs["B"]["demo.svg"] else "B"

    def start(self, which: str) -> None:
        self.which = which
        variant(self.root, which)
        self.writing_since = self.written_at = self.finished_at = None
        self.stale = temp_outputs(self.out)  # left by the build killed before: this build removes them
        self.proc = ForkedBuild(command(self.root))

    def running(self) -> bool:
        """The build runs; once it ended, reaped here (its CPU time in ``cpu_used_s``)."""
        if self.proc.returncode is not None:
            return False
        pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
        if pid == 0:
            return True
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        self.cpu_used_s = usage.ru_utime + usage.ru_stime
        self.finished_at = time.monotonic()
        return False

    def watch(self) -> bool:
        """One look at the build's progress: note when its writing began and ended; True when its kill
        is due."""
        if self.written_at is None:
            writing = bool(temp_outputs(self.out) - self.stale)  # not those a killed build left
            if self.writing_since is None and writing:
                self.writing_since = time.monotonic()
            elif self.writing_since is not None and not writing:
                self.written_at = time.monotonic()
        if self.cpu_target_s is not None:
            return cpu_s(self.proc.pid) >= self.cpu_target_s
        if self.write_delay_s is not None and self.writing_since is not None:
            return time.monotonic() >= self.writing_since + self.write_delay_s
        return False

    def kill(self) -> bool:
        """SIGKILL the build and its panel workers; False if it had already finished."""
        running = self.running()
        if running:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        return running

    def check(self, refs: dict[str, dict[str, bytes]], trial: int, seen: dict[str, int]) -> None:
        now = outputs(self.out)
        for name in OUTPUTS:
            if now[name] is None:
                assert self.previous[name] is None, f"trial {trial}: {name} disappeared"
                seen["absent"] += 1
            elif now[name] == self.previous[name]:
                seen["old"] += 1
            else:
                assert now[name] == refs[self.which][name], f"trial {trial}: {name} is partial or wrong"
                seen["new"] += 1
        leftovers = strays(self.out)
        # an output's temporary file is .NAME.xxxxxx.tmp, the manifest's (.demo.manifest.json) ..demo.manifest.json.*
        assert all(n.startswith((".demo.", "..demo.manifest.json.")) and n.endswith(".tmp") for n in leftovers), \
            (trial, leftovers)
        seen["temps"] += bool(leftovers)
        self.previous = now


def run_side_by_side(chains: list[Chain], seen: dict[str, int] | None = None) -> None:
    """Watch the chains' builds until each ended or was killed at its moment (``seen["finished"]`` counts
    the builds that ended before their moment)."""
    live = list(chains)
    while live:
        for chain in list(live):
            if not chain.running():
                live.remove(chain)
                if seen is not None:
                    seen["finished"] += 1
            elif chain.watch():
                if not chain.kill() and seen is not None:  # it ended meanwhile
                    seen["finished"] += 1
                live.remove(chain)
        time.sleep(POLL_S)


@pytest.mark.e2e
def test_killing_a_build_at_random_moments_never_leaves_a_partial_output(references, tmp_path):
    """20 trials in two chains of 10 (two builds at a time, one per core, to halve the wall time).

    Each kill lands at a seeded random point of the build's own progress (see :class:`Chain`): for half
    the trials anywhere in its work (a share of a whole build's CPU time, uniform over 0 to 1), for a
    quarter in its last fifth and a little past it (0.8 to 1.1: rasterizing and writing), for a quarter
    while it writes (a delay after its first temporary output appeared, uniform over 0 to 1.5 times the
    writing's measured length), where a partial output could appear.
    """
    refs, _ = references
    chains = []
    for i in range(2):
        root = tmp_path / f"chain{i}" / "demo"
        shutil.copytree(DEMO, root)
        chains.append(Chain(root))
    # calibrate: two builds side by side, as in the trials: a whole build's CPU time, and how long it
    # writes (from its first temporary output seen to none seen any more); measured on a second build, of
    # the other variant, as the trials' builds are (the panels from the cache, every output new: about half
    # the CPU time of the first, which renders them)
    for which in ("B", "A"):
        for chain in chains:
            chain.at_cpu(math.inf)
            chain.start(which)
        run_side_by_side(chains)
        assert all(chain.proc.returncode == 0 for chain in chains)
    build_cpu_s = min(chain.cpu_used_s for chain in chains)
    writing_s = max([POLL_S] + [chain.written_at - chain.writing_since for chain in chains
                                if chain.writing_since is not None and chain.written_at is not None])
    assert build_cpu_s > 0.1, build_cpu_s
    shutil.rmtree(chains[1].out)  # chain 0 starts from good outputs, chain 1 from none
    for chain in chains:
        chain.previous = outputs(chain.out)
    rng = random.Random(SEED)
    seen = {"absent": 0, "old": 0, "new": 0, "temps": 0, "finished": 0}
    for step in range(TRIALS // 2):
        for i, chain in enumerate(chains):
            kind = (2 * step + i) % 4  # 0, 1: anywhere; 2: late; 3: while writing
            if kind == 3:
                chain.after_writing_began(rng.uniform(0, 1.5) * writing_s)
            else:
                chain.at_cpu(rng.uniform(0.8, 1.1) * build_cpu_s if kind == 2 else rng.uniform(0, 1) * build_cpu_s)
            chain.start(chain.other_variant(refs))
        run_side_by_side(chains, seen)
        for i, chain in enumerate(chains):
            chain.check(refs, 2 * step + i, seen)
    # a complete build afterwards: right outputs, and the killed builds' temporary files are gone
    for chain in chains:
        variant(chain.root, "A")
        assert ForkedBuild(command(chain.root)).wait(timeout=120) == 0
        assert outputs(chain.out) == refs["A"]
        assert strays(chain.out) == [], strays(chain.out)
    assert seen["new"] > 0 and seen["old"] + seen["absent"] > 0, seen  # kills landed before and after writes


@pytest.mark.e2e
def test_two_concurrent_builds_both_finish_correctly(references, tmp_path):
    refs, _ = references
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    variant(root, "B")
    logs = [tmp_path / f"compose{i}.txt" for i in range(2)]
    builds = [ForkedBuild(command(root), log) for log in logs]
    assert [build.wait(timeout=120) for build in builds] == [0, 0], [log.read_text() for log in logs]
    assert outputs(root / "build") == refs["B"]
    assert strays(root / "build") == []


def test_failing_write_leaves_previous_outputs(tmp_path, monkeypatch):
    """A write that fails half-way (disk full on the second file) renames nothing and removes its temps."""
    out = tmp_path / "build"
    out.mkdir()
    old = {out / n: f"old {n}".encode() for n in OUTPUTS}
    for path, data in old.items():
        path.write_bytes(data)
    (out / "notes.txt").write_text("not composer's")
    real_fdopen, opened = os.fdopen, []

    def fdopen(fd, mode="r", *args, **kwargs):
        fh = real_fdopen(fd, mode, *args, **kwargs)
        opened.append(fh)
        if len(opened) == 2:
            def full(data):
                raise OSError(errno.ENOSPC, "No space left on device")
            fh.write = full
        return fh

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(ProjectError, match="cannot write the outputs in .*: No space left on device"):
        write_files_atomically({path: b"new " * 1000 for path in old})
    assert {p: p.read_bytes() for p in old} == old
    assert sorted(p.name for p in out.iterdir()) == sorted([*OUTPUTS, "notes.txt"])


def test_next_build_removes_stale_temps_only(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    out = root / "build"
    out.mkdir()
    stale = [out / ".demo.svg.k1l2m3.tmp", out / ".demo.png.zz9.tmp"]
    manifest_temp = out / "..demo.manifest.json.q1w2e3.tmp"  # the manifest's, from a build killed while writing
    keep = [out / ".other.svg.abc.tmp", out / "notes.txt", out / ".demo.svg.backup"]
    for path in stale + keep + [manifest_temp]:
        path.write_bytes(b"x")
    assert temp_names(out, ["demo.svg", "demo.png"]) == sorted(stale)
    stale.append(manifest_temp)
    build("demo", root=root, formats=("svg", "png"), dpi=30)
    assert not any(p.exists() for p in stale)
    assert all(p.read_bytes() == b"x" for p in keep)


def test_failed_build_touches_nothing(tmp_path):
    """A build that fails (here: a panel raises) exits with an error and leaves build/ byte-identical."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    build("demo", root=root, dpi=30)
    (root / "build" / ".demo.svg.dead.tmp").write_bytes(b"from a killed build")
    def everything() -> dict[str, tuple[bytes, int]]:  # the caches in build/.cache included
        return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
                for p in (root / "build").rglob("*") if p.is_file()}

    before = everything()
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('"demo:heat"', '"demo:broken"'))
    with pytest.raises(ComposerError, match="ZeroDivisionError"):
        build("demo", root=root, dpi=30)
    assert everything() == before
