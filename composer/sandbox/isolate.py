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

What the user's code prints: a worker started with a ``label`` (a panel's name)
has its file descriptors 1 and 2 on a pipe the parent reads (so C-level writes
and the output of processes it starts are caught too); Python warnings are
written there as one line each. The parent keeps the first :data:`OUTPUT_LIMIT`
bytes, and hands the text to the :func:`capturing` block around the build (live,
line by line, to its ``live`` callback too). Nothing of it reaches the terminal.

Processes the user's code starts end with it: every worker is a child
subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, Linux), so a process its code
started, even one that called ``setsid()`` or forked twice, stays its
descendant; when the function returns or raises, the worker SIGKILLs every
descendant still running (found through ``/proc/<pid>/task/*/children``) and the
parent warns once, naming the label and the commands (:class:`ComposerWarning`).
A worker the parent stops (Ctrl-C, past its deadline) is killed with all its
descendants. A worker that crashed, or ended itself at its timeout, cannot do
that: its process group is killed (what did not call ``setsid()``); a process
that did is reparented to init and runs on. A program the worker's code keeps running for its next calls
on purpose (the Chromium that draws a render unit's Plotly panels) is ended by the code itself first,
through :func:`at_worker_end`, and so is neither killed nor named.
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
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from composer.errors import ComposerError, ComposerWarning, exception_text, frames_of
from composer.errors import Frame as Frame  # a WorkerFailure's frames

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
#: bytes of a labelled worker's output kept (64 KiB); the rest is counted: ``... (N more bytes)``.
OUTPUT_LIMIT = 64 * 1024

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<name>\S+)')


#: control characters of panel output shown as escapes (all but tab and newline): an escape sequence a
#: panel prints (clear the screen, set the window title) would act on the user's terminal
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F] if chr(c) not in "\t\n"}


def shown_text(text: str) -> str:
    """Panel output as composer shows it: control characters other than tab and newline escaped
    (``\\x1b``), a carriage return included."""
    return text.translate(_CONTROLS)


class WorkerFailure(Exception):
    """The isolated function did not return a value.

    Attributes:
        kind: ``"timeout"`` (ran past the limit), ``"crashed"`` (the worker
            died: signal or exit status), or ``"raised"`` (an exception that is
            not a :class:`ComposerError`, including ``SystemExit``).
        detail: one line: ``ZeroDivisionError: division by zero``,
            ``no result after 2 s``, ``killed by signal SIGSEGV``.
        frames: the traceback, innermost frame last, each with its source line (may be empty).
        call: which of several calls failed (:func:`composer.sandbox.parallel.run_workers`), else None.
    """

    def __init__(self, kind: str, detail: str, frames: tuple[Frame, ...] = ()):
        self.kind, self.detail, self.frames = kind, detail, frames
        #: the name of the call that failed, when one of several (:func:`composer.sandbox.parallel.run_workers`)
        self.call: str | None = None
        #: which call of :func:`run_isolated` a task process died in (:func:`finish`), from 1
        self.call_index: int | None = None
        super().__init__(f"{kind}: {detail}")

    def where(self, user_dir: Path | None) -> str:
        """`` (at demo.py:12 in hang)``: the innermost frame inside ``user_dir``, or ``""``."""
        return where(self.frames, user_dir)

    def worded(self, who: str, user_dir: Path | None) -> str:
        """The one wording of the user's code that failed in a worker: ``who`` (``"panel 'b':
        demo:heat"``, ``"running the layout"``) raised / did not finish / crashed, the detail, and the
        innermost line of the user's code inside ``user_dir``: ``panel 'b': demo:heat raised
        ZeroDivisionError: division by zero (at demo.py:12 in heat: x = 1 / 0)``."""
        at = self.where(user_dir)
        if self.kind == "timeout":
            return f"{who} did not finish: {self.detail}{at}"
        if self.kind == "crashed":
            return f"{who} crashed: {self.detail}{at}"
        return f"{who} raised {self.detail}{at}"


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
            code = frame.code or _source_line(frame.file, frame.line)
            return f" (at {path.name}:{frame.line} in {frame.name}{': ' + code if code else ''})"
    return ""


def run_isolated(func: Callable[[], Any], *, timeout_s: float | None, label: str | None = None,
                 cwd: str | os.PathLike[str] | None = None) -> Any:
    """Call ``func()`` in a forked worker and return its (picklable) result.

    Args:
        func: takes no arguments (bind them with a closure); its result must
            pickle.
        timeout_s: wall-time limit in seconds, or None for none. ``None`` on a
            platform without fork runs ``func`` in process.
        label: a panel's name (or what ran, with a space: ``"values() in panels/fig.py"``): the worker's
            output is captured under it (see the module docstring and :func:`capturing`) and a process
            its code left running is named after it. In a task process
            (:func:`start` with ``task=True``) the task's own label holds.
        cwd: the working folder ``func`` runs in (the project's, so that panel code's relative paths
            mean the same wherever compose was started); None: the caller's.

    Returns:
        What ``func`` returned.

    Raises:
        ComposerError: ``func`` raised one; it is re-raised as the same class
            with the same message, file and key.
        WorkerFailure: ``func`` raised anything else, ran past ``timeout_s``,
            or the worker died.
    """
    if cwd is not None:
        func = partial(_in_folder, func, os.fspath(cwd))
    if not CAN_FORK:
        try:
            return func()
        except ComposerError:
            raise
        except BaseException as exc:  # noqa: BLE001 - reported, not swallowed
            raise WorkerFailure("raised", _one_line(exc), frames_of(exc)) from None
    if _TASK is not None:
        return _TASK.run_here(func, timeout_s)
    if _REPLAY is not None:
        failure = _REPLAY.next_call()
        if failure is not None:
            raise failure
    return _fork_and_wait(func, timeout_s, label)


def _in_folder(func: Callable[[], Any], folder: str) -> Any:
    """``func()`` with ``folder`` as the working folder, the previous one again after."""
    try:
        previous: str | None = os.getcwd()
    except OSError:  # the caller's folder was deleted
        previous = None
    os.chdir(folder)
    try:
        return func()
    finally:
        if previous is not None:
            try:
                os.chdir(previous)
            except OSError:
                pass


#: workers forked by this process and not yet reaped.
_RUNNING: set[int] = set()
#: held while forking: a worker forked by another thread of the caller's (two builds in two threads of
#: an API user) in between would hold the pipe's write end open, or tempfile's first-use lock held.
_FORK_LOCK = threading.Lock()


class _Task:
    """In a task process (:func:`start` with ``task=True``): :func:`run_isolated` runs its function
    right here, this process being a fresh fork already, with the same watchdog a worker has; before
    each call it notes the call's number and timeout in ``notes``, so that the parent, should this
    process die, knows which call did and after what timeout (:func:`finish`, :func:`replay`)."""

    def __init__(self, notes: Any, stacks: Any) -> None:
        self.notes, self.stacks, self.calls = notes, stacks, 0

    def run_here(self, func: Callable[[], Any], timeout_s: float | None) -> Any:
        self.calls += 1
        os.write(self.notes.fileno(), f"{self.calls} {timeout_s!r}\n".encode())
        if timeout_s is not None:
            faulthandler.dump_traceback_later(timeout_s, exit=True, file=self.stacks)
        try:
            result = func()
            pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)  # as a worker would pass it back
            return result
        except ComposerError:
            raise
        except BaseException as exc:  # noqa: BLE001 - as a worker reports it: SystemExit too
            raise WorkerFailure("raised", _one_line(exc), frames_of(exc)) from None
        finally:
            if timeout_s is not None:
                faulthandler.cancel_dump_traceback_later()
            os.write(self.notes.fileno(), b"done\n")


class _Replay:
    """In the parent, after a task process died inside its call number ``index``: calls before it run
    in workers again, that call raises ``failure`` (:func:`replay`)."""

    def __init__(self, failure: WorkerFailure, index: int) -> None:
        self.failure, self.index, self.calls = failure, index, 0

    def next_call(self) -> WorkerFailure | None:
        self.calls += 1
        return self.failure if self.calls == self.index else None


_TASK: _Task | None = None
_REPLAY: _Replay | None = None
#: this process's pid when :func:`start` forked it to run a function (a worker or a task process), else None
_WORKER_PID: int | None = None


def in_worker() -> bool:
    """True in a worker or task process (:func:`start`, :func:`run_isolated`) while it runs its function; False
    in the process that forks them, and in a process forked otherwise (``compose serve``'s builder). A library
    whose threads a forked child cannot use (vl-convert's runtime: :mod:`composer.stages.vegasvg`) may start
    only where this is True: a worker forks no workers of its own that would need it."""
    return _WORKER_PID == os.getpid()


#: what the code of this worker asked to run when its function ends (:func:`at_worker_end`)
_AT_END: list[Callable[[], object]] = []


def at_worker_end(callback: Callable[[], object]) -> bool:
    """In a forked worker: call ``callback`` once when the worker's function has returned or raised, before
    the processes it left running are stopped and named (:func:`_stop_descendants`), so a program the code
    keeps running for its next calls (a browser that draws every Plotly panel of the worker) is ended by
    the code that started it rather than killed and warned about. Callbacks run last-registered first; one
    that raises does not stop the others.

    Returns:
        True when registered; False outside a forked worker (in the calling process, or where fork does
        not exist), registering nothing: the caller then ends what it started itself.
    """
    if not in_worker():
        return False
    _AT_END.append(callback)
    return True


def _run_at_end() -> None:
    """Call what :func:`at_worker_end` registered, last first, each once."""
    while _AT_END:
        callback = _AT_END.pop()
        try:
            callback()
        except BaseException:  # noqa: BLE001, S110 - the worker's result stands; what is left is stopped next
            pass


def replay(failure: WorkerFailure, run: Callable[[], Any]) -> Any:
    """Call ``run()`` (a task whose task process died: :func:`finish` raised ``failure``) in this
    process with the call of :func:`run_isolated` the task process died in raising ``failure`` at
    once, so the task words the failure as it words any worker's (the panel, its function, the line).

    Raises:
        whatever ``run`` raises; WorkerFailure ``failure`` itself when the task process died outside
        any call of :func:`run_isolated` (or ``run`` does not reach that call again).
    """
    global _REPLAY
    if failure.call_index is None:
        raise failure
    _REPLAY = _Replay(failure, failure.call_index)
    try:
        value = run()
    finally:
        reached = _REPLAY.calls >= _REPLAY.index
        _REPLAY = None
    if not reached:
        raise failure
    return value


def kill_workers() -> None:
    """SIGKILL every worker of this process still running (a parallel stage interrupted by Ctrl-C)."""
    for pid in list(_RUNNING):
        _send(pid, signal.SIGKILL)


class Captured:
    """What :func:`capturing` collects.

    Attributes:
        output: label -> the text its worker's code wrote (see :func:`capturing`).
        left: label -> the warning (a :class:`ComposerWarning`'s message) about the processes its
            code left running; the caller issues them, in its own order (a labelled worker reaped
            outside a :func:`capturing` block warns at once).
        live: called with ``(label, line)`` for each line as it is read, or None.
    """

    def __init__(self, live: Callable[[str, str], None] | None) -> None:
        self.live = live
        self.output: dict[str, str] = {}
        self.left: dict[str, str] = {}


_CAPTURE: Captured | None = None


@contextmanager
def capturing(live: Callable[[str, str], None] | None = None) -> Iterator[Captured]:
    """Collect the output of the labelled workers this process reaps inside the block.

    Yields a :class:`Captured` whose ``output`` is filled as workers end: label -> the text its code
    wrote on stdout and stderr and the Python warnings it issued (one line each), in the order written,
    at most :data:`OUTPUT_LIMIT` bytes (then a line ``... (N more bytes)``); a worker that wrote
    nothing has no entry. ``live(label, line)`` is called with each line as the parent reads it
    (``compose --verbose``). Outside such a block a labelled worker's output is dropped (it never
    reaches the terminal).
    """
    global _CAPTURE
    previous, _CAPTURE = _CAPTURE, Captured(live)
    try:
        yield _CAPTURE
    finally:
        _CAPTURE = previous


class Worker:
    """A forked worker running one function (:func:`start`); :func:`wait_any` sees it end and
    :func:`finish` gives its result.

    Attributes:
        pid: the worker's process id (0 once reaped); also its process group's id, so that what
            the user's code forked and left running is killed with it.
        fd: the read end of the pipe its result comes through (-1 once closed).
        pidfd: a Linux pidfd of the worker (``os.pidfd_open``), readable once it exits: a process
            the user's code forked may hold the pipe open after the worker ended (-1: none).
        timeout_s: its wall-time limit, seconds (None: none).
        label: the name its output is captured under (:func:`capturing`), or None: not captured.
        out_fd: the read end of the pipe its stdout and stderr go to (-1: none, or closed).
        deadline: ``time.monotonic()`` at which this process kills it, should its own watchdog not
            have ended it (``timeout_s`` + :data:`KILL_GRACE_S`); None without a timeout.
    """

    def __init__(self, pid: int, fd: int, stacks: Any, timeout_s: float | None, notes: Any = None,
                 label: str | None = None, out_fd: int = -1) -> None:
        self.pid, self.fd, self.stacks, self.timeout_s, self.notes = pid, fd, stacks, timeout_s, notes
        self.label, self.out_fd = label, out_fd
        self._out = bytearray()  # the first OUTPUT_LIMIT bytes
        self._more = 0  # bytes past them
        self._line = b""  # the incomplete last line, for the live callback
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):  # not Linux 5.3+: the pipe's end alone says the worker ended
            self.pidfd = -1
        self.started = time.monotonic()
        self.deadline = None if timeout_s is None else self.started + timeout_s + KILL_GRACE_S
        self.chunks: list[bytes] = []
        self.status: int | None = None
        self.elapsed_s = 0.0
        self.killed = False

    @property
    def done(self) -> bool:
        """True once the worker's pipe closed (it ended, or was killed) and it was reaped."""
        return self.fd < 0

    def _read_output(self, drain: bool = False) -> None:
        """Take what the worker wrote on its stdout/stderr pipe (all that is there, without waiting, with
        ``drain``); close the pipe at its end, or after draining."""
        if self.out_fd < 0:
            return
        if drain:
            os.set_blocking(self.out_fd, False)
        while True:
            try:
                chunk = os.read(self.out_fd, 1 << 16)
            except BlockingIOError:
                chunk = None
            if chunk:
                keep = max(0, OUTPUT_LIMIT - len(self._out))
                self._out += chunk[:keep]
                self._more += len(chunk) - min(keep, len(chunk))
                self._live(chunk)
                if drain:
                    continue
                return
            break
        os.close(self.out_fd)
        self.out_fd = -1
        self._live(b"", end=True)
        if self.label is not None and _CAPTURE is not None:
            text = shown_text(self._out.decode("utf-8", "replace"))
            if self._more:
                text += ("" if text.endswith("\n") or not text else "\n") + f"... ({self._more} more bytes)\n"
            if text:
                _CAPTURE.output[self.label] = text

    def _live(self, chunk: bytes, end: bool = False) -> None:
        if _CAPTURE is None or _CAPTURE.live is None or self.label is None:
            return
        lines = (self._line + chunk).split(b"\n")
        self._line = b"" if end else lines.pop()  # the incomplete last line waits for its end
        if end and lines[-1] == b"":  # the text ended with a newline
            lines.pop()
        for line in lines:
            _CAPTURE.live(self.label, shown_text(line.decode("utf-8", "replace")))


    def _read(self) -> None:
        chunk = os.read(self.fd, 1 << 20)
        if chunk:
            self.chunks.append(chunk)
        else:
            self._reap()

    def _drain(self) -> None:
        """The worker exited: take what it wrote and reap it, without waiting for the pipe to close
        (a process the user's code forked may still hold it)."""
        os.set_blocking(self.fd, False)
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                break
            self.chunks.append(chunk)
        self._reap()

    def _reap(self) -> None:
        os.close(self.fd)
        self.fd = -1
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1
        try:  # what the user's code forked and left running, in the worker's group (it is a zombie or dead)
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        _, self.status = os.waitpid(self.pid, 0)
        self._read_output(drain=True)
        _RUNNING.discard(self.pid)
        self.pid = 0
        self.elapsed_s = time.monotonic() - self.started

    def stop(self) -> None:
        """SIGKILL the worker (if still running) and reap it; its result is then a crash."""
        if self.done:
            return
        self.killed = True
        _kill_tree(self.pid)  # the worker is a subreaper: what its code started, even detached, is below it
        self._reap()


def start(func: Callable[[], Any], *, timeout_s: float | None, task: bool = False,
          label: str | None = None) -> Worker:
    """Fork a worker that calls ``func()`` (see :func:`run_isolated`) and return at once.

    ``label``: capture the worker's output under this name and name it so in a warning about a process
    its code left running (see the module docstring).

    ``task=True`` makes it a task process: every :func:`run_isolated` that ``func`` calls then runs in
    it, not in a worker of its own (one fork per task, not two); should it die in one, :func:`finish`
    says which, and :func:`replay` words it as that call would have.

    Call it from a process that runs no other thread: Python 3.12+ warns (DeprecationWarning) that a
    fork from a multi-threaded process may deadlock, and the worker could inherit a lock another
    thread holds (tempfile's, logging's, a BLAS pool's). composer's parallel stages fork every worker
    from the main thread (:mod:`composer.sandbox.parallel`); they start no thread.

    Raises:
        OSError: the fork failed (out of processes or memory).
    """
    with _FORK_LOCK:
        return _start(func, timeout_s, task, label)


#: signals held back (blocked) while this process forks: os.fork() runs the at-fork callbacks of the
#: standard library (logging's lock release, for one), and a handler that raises (Ctrl-C's
#: KeyboardInterrupt, the preview's SIGTERM) running inside one is swallowed ("Exception ignored in:
#: <function _releaseLock>"): the Ctrl-C was lost and compose went on. Held, it arrives just after.
HELD_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})


@contextmanager
def signals_held() -> Iterator[None]:
    """Block :data:`HELD_SIGNALS` in this thread while the block runs; one that came is delivered (its
    handler runs) when the block ends. A process forked inside starts with them blocked: it must
    call :func:`release_signals` (the block's end does, in both processes)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def fork() -> int:
    """:func:`os.fork` with Ctrl-C and SIGTERM held back across it (:data:`HELD_SIGNALS`); returns
    what os.fork returns. Both processes leave with the caller's signal mask; the child with the
    default action for both (:func:`_child_signals`), and sets its own handlers if it wants them."""
    with signals_held():
        pid = os.fork()
        if pid == 0:
            _child_signals()
    return pid


def _child_signals() -> None:
    """In a child just forked, before its signals are unblocked: SIGINT and SIGTERM end it (the default
    action). With the parent's handlers, a Ctrl-C to the process group then raised KeyboardInterrupt in
    the child, which ran up the parent's stack, into compose's own code (stopping the parent's workers)."""
    for signum in HELD_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


def _start(func: Callable[[], Any], timeout_s: float | None, task: bool, label: str | None) -> Worker:
    # a Ctrl-C comes once the worker is forked and known (_RUNNING): it is then stopped with the others
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        return _fork_worker(func, timeout_s, task, label, previous)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _fork_worker(func: Callable[[], Any], timeout_s: float | None, task: bool, label: str | None,
                 mask: set[int | signal.Signals]) -> Worker:
    global _FORK_LOCK, _TASK, _CAPTURE, _WORKER_PID
    stacks = tempfile.TemporaryFile()
    notes = tempfile.TemporaryFile() if task else None
    read_fd, write_fd = os.pipe()
    out_read, out_write = os.pipe() if label is not None else (-1, -1)
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
    except BaseException:
        for fd in (read_fd, write_fd, out_read, out_write):
            if fd >= 0:
                os.close(fd)
        stacks.close()
        if notes is not None:
            notes.close()
        raise
    finally:
        if pid != 0:
            gc.unfreeze()
    if pid == 0:  # the worker: never returns
        _child_signals()
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # its signals as the caller had them
        _FORK_LOCK = threading.Lock()  # this copy is held; the worker may fork workers of its own
        _RUNNING.clear()
        _CAPTURE = None  # the parent collects; a worker's own workers' output stays in its own
        _WORKER_PID = os.getpid()
        if notes is not None:
            _TASK = _Task(notes, stacks)
        os.close(read_fd)
        if out_write >= 0:
            _capture_output(out_read, out_write)
        try:
            os.setpgid(0, 0)  # a group of its own: what the user's code forks is killed with it
        except OSError:
            pass
        _die_with(parent)
        _child(func, write_fd, stacks, timeout_s, label)
    os.close(write_fd)
    if out_write >= 0:
        os.close(out_write)
    try:
        os.setpgid(pid, pid)  # also here: whichever of the two runs first, the group exists before any wait
    except OSError:
        pass
    _RUNNING.add(pid)
    return Worker(pid, read_fd, stacks, timeout_s, notes, label, out_read)


def wait_any(workers: list[Worker], timeout_s: float | None) -> list[Worker]:
    """Wait until one of ``workers`` ends, or ``timeout_s`` seconds (None: no limit) pass.

    Reads what the workers send meanwhile; SIGKILLs a worker past its deadline (its own watchdog did
    not end it). Returns the workers that ended (reaped; :func:`finish` gives their results), in
    ``workers`` order; ``[]`` when none did in time.
    """
    until = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        live = [w for w in workers if not w.done]
        if not live:
            return []
        now = time.monotonic()
        limits = [w.deadline for w in live if w.deadline is not None] + ([until] if until is not None else [])
        wait = max(0.0, min(limits) - now) if limits else None
        ready, _, _ = select.select([w.fd for w in live] + [w.pidfd for w in live if w.pidfd >= 0]
                                    + [w.out_fd for w in live if w.out_fd >= 0], [], [], wait)
        for w in live:
            if w.out_fd >= 0 and w.out_fd in ready:
                w._read_output()
            if w.fd in ready:
                w._read()
            if not w.done and w.pidfd >= 0 and w.pidfd in ready:
                w._drain()
        now = time.monotonic()
        for w in live:
            if not w.done and w.deadline is not None and now >= w.deadline:
                w.stop()
        ended = [w for w in live if w.done]
        if ended:
            return ended
        if until is not None and now >= until:
            return []


def finish(worker: Worker) -> Any:
    """The result of an ended worker (see :func:`run_isolated`, Returns and Raises).

    A task process (:func:`start` with ``task=True``) that died inside a call of
    :func:`run_isolated` raises a WorkerFailure whose ``call_index`` numbers that call (from 1), and
    that call's timeout decides whether it is a timeout.
    """
    timeout_s, index = worker.timeout_s, None
    try:
        payload = b"".join(worker.chunks)
        if payload and not worker.killed:
            return _unpack(payload, worker.label)
        worker.stacks.seek(0)
        dumped = worker.stacks.read().decode("utf-8", "replace")
        if worker.notes is not None:
            worker.notes.seek(0)
            lines = worker.notes.read().decode().splitlines()
            if lines and lines[-1] != "done":  # it died inside that call
                number, limit = lines[-1].split(" ", 1)
                index, timeout_s = int(number), (None if limit == "None" else float(limit))
    finally:
        worker.stacks.close()
        if worker.notes is not None:
            worker.notes.close()
    if timeout_s is not None and (dumped.startswith("Timeout") or worker.elapsed_s >= timeout_s):
        failure = WorkerFailure("timeout", f"still running after {timeout_s:g} s (the timeout)", _dumped_frames(dumped))
    else:
        failure = WorkerFailure("crashed", _status_text(worker.status), _dumped_frames(dumped))
    failure.call_index = index
    raise failure


def _fork_and_wait(func: Callable[[], Any], timeout_s: float | None, label: str | None) -> Any:
    worker = start(func, timeout_s=timeout_s, label=label)
    try:
        while not worker.done:
            wait_any([worker], None)
    finally:
        worker.stop()  # interrupted (e.g. Ctrl-C): do not leave the worker behind
    return finish(worker)


def _die_with(parent: int) -> None:
    """In a worker: ask Linux to SIGKILL it when composer dies (``prctl(PR_SET_PDEATHSIG)``), so a
    composer killed with SIGKILL leaves no worker drawing on for up to ``--timeout``; and make it a
    child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``, prctl(2)), so what the user's code starts stays
    its descendant however it detaches (:func:`_stop_descendants`). Elsewhere a no-op."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        prctl(36, 1, 0, 0, 0)  # 36 = PR_SET_CHILD_SUBREAPER (linux/prctl.h)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # composer died before the request took effect
        os._exit(70)


def _capture_output(out_read: int, out_write: int) -> None:
    """In a worker: file descriptors 1 and 2 onto the output pipe (what C code and child processes write
    too), ``sys.stdout`` and ``sys.stderr`` new line-buffered streams on them, and each Python warning
    one line there (``UserWarning: text (file.py:12)``)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError, OSError):
            pass
    os.close(out_read)
    os.dup2(out_write, 1)
    os.dup2(out_write, 2)
    os.close(out_write)
    # Python's streams on those descriptors, line-buffered (for --verbose): the host may have put others
    # in their place (pytest's capture, a Jupyter kernel's), which would not reach the pipe
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115

    def show(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None,
             line: str | None = None) -> None:
        text = " ".join(str(message).split())
        try:
            sys.stderr.write(f"{category.__name__}: {text} ({Path(filename).name}:{lineno})\n")
        except (AttributeError, ValueError, OSError):
            pass

    warnings.showwarning = show


def _stop_descendants() -> list[str]:
    """In a worker: SIGKILL every descendant process still running and reap them; returns their commands
    (``sleep 100``), in the order found. Descendants are found through ``/proc/<pid>/task/*/children``
    (Linux 3.5+); elsewhere none are. Each is stopped (SIGSTOP) before its command is read, so none
    forks meanwhile; one forked before that is found in the next round. Gives up after 2 s."""
    commands: list[str] = []
    killed: set[int] = set()
    me = os.getpid()
    until = time.monotonic() + 2.0
    while time.monotonic() < until:
        _reap_children()
        alive = [pid for pid in _descendants(me) if _state(pid) not in ("Z", "X", "")]
        fresh = [pid for pid in alive if pid not in killed]
        if not alive:
            break
        for pid in fresh:
            _send(pid, signal.SIGSTOP)
        for pid in fresh:
            commands.append(_command(pid))
            killed.add(pid)
            _send(pid, signal.SIGKILL)
        if not fresh:
            time.sleep(0.001)  # killed, not dead yet
    _reap_children()
    return commands


def _send(pid: int, sig: int) -> None:
    """``os.kill(pid, sig)``, nothing when the process is gone already (or not ours)."""
    try:
        os.kill(pid, sig)
    except OSError:
        pass


def _kill_tree(root: int) -> None:
    """SIGKILL process ``root`` and every descendant of it (each stopped first, so none forks meanwhile)."""
    _send(root, signal.SIGSTOP)
    tree: list[int] = []
    for _ in range(5):  # one may have forked before it was stopped: look again
        fresh = [pid for pid in _descendants(root) if pid not in tree]
        if not fresh:
            break
        for pid in fresh:
            _send(pid, signal.SIGSTOP)
        tree += fresh
    for pid in [root, *tree]:
        _send(pid, signal.SIGKILL)


def _reap_children() -> None:
    """Reap this process's ended children (zombies), without waiting for one still running."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _descendants(pid: int) -> list[int]:
    """Every descendant of ``pid``, parents before children (from ``/proc``; [] where unreadable)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        current = todo.pop(0)
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in sorted(tasks):
            try:
                with open(f"/proc/{current}/task/{task}/children") as fh:
                    children = [int(c) for c in fh.read().split()]
            except (OSError, ValueError):
                continue
            for child in children:
                if child not in out:
                    out.append(child)
                    todo.append(child)
    return out


def _state(pid: int) -> str:
    """A process's state letter from ``/proc/<pid>/stat`` (``R``, ``S``, ``Z``...), ``""`` when gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _command(pid: int) -> str:
    """A process's command line as one would type it (``sleep 100``), shortened to 80 characters."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            words = fh.read().rstrip(b"\0").split(b"\0")
        text = " ".join(w.decode("utf-8", "replace") for w in words) or f"process {pid}"
    except OSError:
        text = f"process {pid}"
    return text if len(text) <= 80 else text[:77] + "..."


def _child(func: Callable[[], Any], write_fd: int, stacks, timeout_s: float | None, label: str | None) -> None:
    code = 0
    _AT_END.clear()  # what the parent registered is the parent's to end
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        faulthandler.enable(file=stacks)  # a segfault's stack goes to the parent, not the terminal
        if timeout_s is not None:
            faulthandler.dump_traceback_later(timeout_s, exit=True, file=stacks)
        message: tuple[object, ...]
        try:
            message = ("ok", func())
        except ComposerError as exc:
            message = ("composer", type(exc).__name__, exc.message, exc.file, exc.key, exc.frames)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            message = ("raised", _one_line(exc), frames_of(exc))
        _run_at_end()  # what the code keeps running ends itself first (at_worker_end)
        left = _stop_descendants()  # what the user's code started ends with it
        try:
            data = pickle.dumps((message, left), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001 - an unpicklable result
            data = pickle.dumps((("raised", f"returned a value that cannot be passed back: {_one_line(exc)}", ()),
                                 left))
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


def _unpack(payload: bytes, label: str | None = None) -> Any:
    message, left = pickle.loads(payload)
    if left:
        who = "a worker" if label is None else label if " " in label else f"panel {label!r}"  # or "values() in ..."
        many = len(left) > 1
        text = (f"{who} left {'processes' if many else 'a process'} running ({', '.join(left)}); "
                f"{'they were' if many else 'it was'} stopped")
        if _CAPTURE is not None and label is not None:
            _CAPTURE.left[label] = text  # the caller warns, in its order (the layout's)
        else:
            warnings.warn(ComposerWarning(text), stacklevel=3)
    if message[0] == "ok":
        return message[1]
    if message[0] == "composer":
        from composer import errors

        _, kind, text, file, key, frames = message
        cls = getattr(errors, kind, ComposerError)
        raise cls(text, file=file, key=key, frames=frames)
    _, detail, frames = message
    raise WorkerFailure("raised", detail, tuple(frames))


def _one_line(exc: BaseException) -> str:
    return exception_text(exc)


def _source_line(file: str, line: int) -> str:
    """Line ``line`` of ``file``, stripped (``""`` when unreadable)."""
    import linecache

    return linecache.getline(file, line).strip()


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
            file, number = match["file"], int(match["line"])  # its source read here: the worker is gone
            blocks[-1].append(Frame(file, number, match["name"], _source_line(file, number)))
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


#: the message of the KeyboardInterrupt :func:`deferred_interrupt` raises: Ctrl-C came while outputs were
#: written, so they were written whole first.
WRITTEN_FIRST = "Ctrl-C came while the outputs were written; they were written whole first"


@contextmanager
def deferred_interrupt() -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) back while the block runs (the write phase of a build: outputs, manifest,
    cache entries), so it can never leave some outputs new and some old; one that came is raised when
    the block ends, as ``KeyboardInterrupt(WRITTEN_FIRST)``.

    Acts only in the main thread and while SIGINT has Python's default handler (a program that set its
    own keeps it); elsewhere the block runs as is.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    came: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if came:
        raise KeyboardInterrupt(WRITTEN_FIRST)
