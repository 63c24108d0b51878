"""Crash isolation: run a piece of the user's code in a forked worker process with a timeout.

A panel function is the user's code: it may raise, hang, call ``sys.exit``,
crash the interpreter, change matplotlib's global rcParams or mutate the data
it was given. :func:`run_isolated` runs it in a child made by ``os.fork`` so

- a hang ends after ``timeout_s`` seconds of wall time, with the traceback of
  where it hung (``faulthandler.dump_traceback_later`` in the child writes the
  stack of every thread, then exits; the parent also kills the child with
  SIGKILL ``KILL_GRACE_S`` later, should even that fail);
- a crash (segfault, ``os._exit``, out-of-memory kill) is reported by exit
  status or signal instead of taking composer down;
- nothing the function changes (rcParams, module globals, the data arrays)
  leaks into the next panel or into the canvas;
- the function's result comes back pickled through a pipe.

``fork``, not ``spawn``: the child shares the parent's already-imported
matplotlib, panel modules and data, so it starts in milliseconds (spawn
re-imports matplotlib, about 0.5 s per worker; see docs/design.md "Performance
facts"). Where ``os.fork`` does not exist (Windows) the function runs in
process, without a timeout.

If the parent is killed while a child runs, the child still ends by itself at
its timeout (its watchdog is its own), so no worker outlives a build by more
than the timeout.
"""

from __future__ import annotations

import faulthandler
import gc
import os
import pickle
import re
import select
import signal
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from composer.errors import ComposerError

#: default wall-time limit of one panel function, in seconds. Generous for any
#: single figure panel (the six volume_kv panels take 0.55 s together); a panel
#: that needs longer should load precomputed data. ``compose --timeout``.
DEFAULT_TIMEOUT_S = 120.0
#: the longest --timeout, seconds: a day (the clock the worker's deadline uses overflows near infinity)
MAX_TIMEOUT_S = 86400.0


def check_timeout(timeout_s: float | None) -> None:
    """Refuse a timeout that is not a number of seconds above 0 and at most :data:`MAX_TIMEOUT_S` (None: none).

    Raises:
        ComposerError: names the bad value and the range.
    """
    if timeout_s is not None and not 0 < timeout_s <= MAX_TIMEOUT_S:
        raise ComposerError(f"timeout {timeout_s} must be a number of seconds above 0 and at most "
                            f"{MAX_TIMEOUT_S:g} (a day)")


def check_jobs(jobs: int | None) -> None:
    """Refuse fewer than one worker (None: every core).

    Raises:
        ComposerError: names the bad value.
    """
    if jobs is not None and jobs < 1:
        raise ComposerError(f"jobs {jobs} must be at least 1")
#: seconds after the timeout at which the parent SIGKILLs a child whose own
#: watchdog did not end it.
KILL_GRACE_S = 5.0
#: can this platform fork?
CAN_FORK = hasattr(os, "fork")

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<name>\S+)')


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback: file, line number, function name."""

    file: str
    line: int
    name: str


class WorkerFailure(Exception):
    """The isolated function did not return a value.

    Attributes:
        kind: ``"timeout"`` (ran past the limit), ``"crashed"`` (the worker
            died: signal or exit status), or ``"raised"`` (an exception that is
            not a :class:`ComposerError`, including ``SystemExit``).
        detail: one line: ``ZeroDivisionError: division by zero``,
            ``no result after 2 s``, ``killed by signal SIGSEGV``.
        frames: the traceback, innermost frame last (may be empty).
    """

    def __init__(self, kind: str, detail: str, frames: tuple[Frame, ...] = ()):
        self.kind, self.detail, self.frames = kind, detail, frames
        super().__init__(f"{kind}: {detail}")

    def where(self, user_dir: Path | None) -> str:
        """`` (at demo.py:12 in hang)``: the innermost frame inside ``user_dir``, or ``""``."""
        return where(self.frames, user_dir)


def where(frames: tuple[Frame, ...] | list[Frame], user_dir: Path | None) -> str:
    """`` (at demo.py:12 in f: x = 1 / 0)`` for the innermost frame inside ``user_dir``.

    ``frames`` are innermost last. The source line is added when readable, so
    the message shows the statement that failed or hung. ``""`` when no frame
    is inside ``user_dir`` (or it is None).
    """
    if user_dir is None:
        return ""
    root = user_dir.resolve()
    for frame in reversed(frames):
        path = Path(frame.file)
        try:
            inside = path.resolve().is_relative_to(root)
        except (OSError, ValueError):
            inside = False
        if inside:
            import linecache

            code = linecache.getline(str(path), frame.line).strip()
            return f" (at {path.name}:{frame.line} in {frame.name}{': ' + code if code else ''})"
    return ""


def run_isolated(func: Callable[[], Any], *, timeout_s: float | None) -> Any:
    """Call ``func()`` in a forked worker and return its (picklable) result.

    Args:
        func: takes no arguments (bind them with a closure); its result must
            pickle.
        timeout_s: wall-time limit in seconds, or None for none. ``None`` on a
            platform without fork runs ``func`` in process.

    Returns:
        What ``func`` returned.

    Raises:
        ComposerError: ``func`` raised one; it is re-raised as the same class
            with the same message, file and key.
        WorkerFailure: ``func`` raised anything else, ran past ``timeout_s``,
            or the worker died.
    """
    if not CAN_FORK:
        try:
            return func()
        except ComposerError:
            raise
        except BaseException as exc:  # noqa: BLE001 - reported, not swallowed
            raise WorkerFailure("raised", _one_line(exc), _frames_of(exc)) from None
    return _fork_and_wait(func, timeout_s)


#: held from making a worker's pipe until the parent closed its write end: a worker forked by another
#: thread (:mod:`composer.sandbox.parallel`) in between would hold that end open, and the read would not end.
_FORK_LOCK = threading.Lock()
#: workers forked by this process and not yet reaped.
_RUNNING: set[int] = set()


def kill_workers() -> None:
    """SIGKILL every worker of this process still running (a parallel stage interrupted by Ctrl-C)."""
    for pid in list(_RUNNING):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _fork_and_wait(func: Callable[[], Any], timeout_s: float | None) -> Any:
    global _FORK_LOCK
    with _FORK_LOCK:
        # made under the lock: another thread forking while this one is inside tempfile would hand its
        # worker tempfile's first-use lock held, and the worker's own tempfile call would wait forever
        stacks = tempfile.TemporaryFile()
        read_fd, write_fd = os.pipe()
        for stream in (sys.stdout, sys.stderr):  # or the child would print the parent's buffered text again
            try:
                stream.flush()
            except (AttributeError, ValueError, OSError):
                pass
        pid = -1
        parent = os.getpid()
        gc.freeze()  # the worker's collector then leaves the parent's objects (and their pages) alone
        try:
            pid = os.fork()
        finally:
            if pid != 0:
                gc.unfreeze()
        if pid == 0:  # the worker: never returns
            _FORK_LOCK = threading.Lock()  # this copy is held; the worker may fork workers of its own
            _RUNNING.clear()
            os.close(read_fd)
            _die_with(parent)
            _child(func, write_fd, stacks, timeout_s)
        os.close(write_fd)
        _RUNNING.add(pid)
    child = pid
    started = time.monotonic()
    chunks: list[bytes] = []
    status: int | None = None
    try:
        deadline = None if timeout_s is None else started + timeout_s + KILL_GRACE_S
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([read_fd], [], [], wait)
            if not ready:  # the watchdog did not end it: kill it ourselves
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
        pid = 0
    finally:
        os.close(read_fd)
        if pid:  # interrupted (e.g. Ctrl-C): do not leave the worker behind
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        _RUNNING.discard(child)
    elapsed = time.monotonic() - started
    try:
        payload = b"".join(chunks)
        if payload:
            return _unpack(payload)
        stacks.seek(0)
        dumped = stacks.read().decode("utf-8", "replace")
    finally:
        stacks.close()
    if timeout_s is not None and (dumped.startswith("Timeout") or elapsed >= timeout_s):
        frames = _dumped_frames(dumped)
        raise WorkerFailure("timeout", f"still running after {timeout_s:g} s (the timeout)", frames)
    raise WorkerFailure("crashed", _status_text(status), _dumped_frames(dumped))


def _die_with(parent: int) -> None:
    """In a worker: ask Linux to SIGKILL it when composer dies (``prctl(PR_SET_PDEATHSIG)``), so a
    composer killed with SIGKILL leaves no worker drawing on for up to ``--timeout``. Elsewhere a no-op."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # composer died before the request took effect
        os._exit(70)


def _child(func: Callable[[], Any], write_fd: int, stacks, timeout_s: float | None) -> None:
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        faulthandler.enable(file=stacks)  # a segfault's stack goes to the parent, not the terminal
        if timeout_s is not None:
            faulthandler.dump_traceback_later(timeout_s, exit=True, file=stacks)
        try:
            message = ("ok", func())
        except ComposerError as exc:
            message = ("composer", type(exc).__name__, exc.message, exc.file, exc.key)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            message = ("raised", _one_line(exc), _frames_of(exc))
        try:
            data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result
            data = pickle.dumps(("raised", f"returned a value that cannot be passed back: {_one_line(exc)}", ()))
        if timeout_s is not None:
            faulthandler.cancel_dump_traceback_later()
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    except BaseException:  # noqa: BLE001 - the parent reports a crash when nothing arrives
        code = 70
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (AttributeError, ValueError, OSError):
                pass
        os._exit(code)


def _unpack(payload: bytes) -> Any:
    message = pickle.loads(payload)
    if message[0] == "ok":
        return message[1]
    if message[0] == "composer":
        from composer import errors

        _, kind, text, file, key = message
        cls = getattr(errors, kind, ComposerError)
        raise cls(text, file=file, key=key)
    _, detail, frames = message
    raise WorkerFailure("raised", detail, tuple(frames))


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit: called sys.exit({exc.code!r})"
    message = " ".join(str(exc).split()) or "(no message)"
    return f"{type(exc).__name__}: {message}"


def _frames_of(exc: BaseException) -> tuple[Frame, ...]:
    return tuple(Frame(f.filename, f.lineno or 0, f.name) for f in traceback.extract_tb(exc.__traceback__))


def _dumped_frames(text: str) -> tuple[Frame, ...]:
    """Frames of a faulthandler dump, innermost last.

    faulthandler writes each thread's stack most recent call first; the blocks
    are joined so that the first thread's innermost frame comes last (where
    :func:`where` looks first).
    """
    blocks: list[list[Frame]] = [[]]
    for line in text.splitlines():
        if line.startswith(("Thread ", "Current thread ")) and blocks[-1]:
            blocks.append([])
        match = _FRAME.match(line)
        if match:
            blocks[-1].append(Frame(match["file"], int(match["line"]), match["name"]))
    return tuple(frame for block in reversed(blocks) for frame in reversed(block))


def _status_text(status: int | None) -> str:
    if status is None:
        return "the worker ended without a result"
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        hint = " (out of memory?)" if sig == signal.SIGKILL else ""
        return f"the worker process was killed by signal {name}{hint}"
    return f"the worker process exited with status {os.WEXITSTATUS(status)} without a result"
