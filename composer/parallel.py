"""Parallel stages: render panels, and export PDF and PNG, on several cores.

Worker processes are *forked* (``multiprocessing.get_context("fork")``):
they inherit the imported matplotlib, the loaded panel modules and the data,
so a task is only an index into a list the parent set up before forking, and
nothing but the results is pickled. DESIGN.md measured the alternatives on
this kind of machine: fork takes 0.57x the serial time for the six
volume_kv panels with BLAS pinned to one thread per worker; spawn is 1.6x
*slower* than serial, since every worker imports matplotlib again. Where
fork does not exist (Windows) everything runs serially.

BLAS: rendering limits BLAS/OpenMP pools to one thread (threadpoolctl), in
workers and in a serial build alike: two workers each running a
multi-threaded SVD on two cores nearly triple its time (DESIGN.md), and a
thread count that differs between serial and parallel builds could change
the order of floating-point sums, and so the bytes of a panel.

Output is byte-identical to a serial build: a panel is a pure function of
its inputs (its own rcParams via ``rc_context``, a fixed ``svg.hashsalt``),
results are collected by panel name, and when several panels fail the error
of the first one in layout order is raised, as a serial build would.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from .errors import ComposerError
from .progress import Progress
from .render import RenderedPanel


def available_cores() -> int:
    """Cores this process may run on (``sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """True where worker processes can be forked (Linux, macOS)."""
    return "fork" in multiprocessing.get_all_start_methods()


@dataclass(frozen=True)
class RenderTask:
    """One unit of rendering (a panel, or a group of aligned panels).

    Attributes:
        name: as shown in progress, e.g. ``"rgb"`` or ``"a+b"``.
        run: returns the result (panel name -> :class:`RenderedPanel`) or
            raises ComposerError; called in a worker or in this process.
    """

    name: str
    run: Callable[[], Mapping[str, RenderedPanel]]


#: the tasks of the current parallel run, inherited by forked workers.
_TASKS: Sequence[RenderTask] = ()


def _one_blas_thread() -> Any:
    """Limit BLAS/OpenMP pools to one thread (a context manager; a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def _init_worker() -> None:
    _one_blas_thread()  # for the life of the worker


def _run(index: int) -> tuple[int, str, object, float]:
    started = time.perf_counter()
    try:
        value: object = _TASKS[index].run()
        status = "ok"
    except ComposerError as exc:  # user-fixable: carried back as data, raised by the parent
        value, status = (type(exc), exc.message, exc.file, exc.key), "error"
    return index, status, value, time.perf_counter() - started


def render_all(tasks: Sequence[RenderTask], *, jobs: int, progress: Progress | None = None,
               overlap: Callable[[], None] | None = None, prepare: Callable[[], None] | None = None,
               rank: Callable[[RenderTask], int] | None = None,
               ) -> tuple[dict[str, tuple[Mapping[str, RenderedPanel], float]], ComposerError | None]:
    """Run every task, in ``jobs`` forked workers when that helps, else in this process.

    Args:
        tasks: in submission order (put the slowest first: longest-processing-
            time-first keeps both cores busy to the end).
        jobs: worker processes at most; 1 renders serially in this process.
        progress: told which panels are pending and how many are done.
        overlap: work for this process while the workers render (called once,
            only in the parallel case).
        prepare: called once before any task runs (when there are tasks):
            state it sets up is inherited by every worker forked after it.
        rank: orders the failures (the layout order of a task's panels, say,
            when ``tasks`` are sorted slowest first); default ``tasks`` order.

    Returns:
        ``(results, error)``: task name -> (its result, render seconds) for
        every task that succeeded, and the error of the failed task with the
        lowest rank (None when all succeeded): the same error whatever
        ``jobs`` and whichever task failed first in time. Every task runs even when
        one fails, so the successes can be cached.
    """
    global _TASKS
    progress = progress or Progress()
    outcomes: dict[int, tuple[str, object, float]] = {}
    pending = [t.name for t in tasks]
    progress.panels(pending, 0, len(tasks))
    workers = min(jobs, len(tasks))
    if prepare is not None and tasks:
        prepare()
    if workers <= 1 or not can_fork():
        _TASKS = tasks
        try:
            with _one_blas_thread():
                for i in range(len(tasks)):
                    _, status, value, seconds = _run(i)
                    outcomes[i] = (status, value, seconds)
                    pending.remove(tasks[i].name)
                    progress.panels(pending, len(outcomes), len(tasks))
        finally:
            _TASKS = ()
    else:
        _TASKS = tasks
        try:
            pool = multiprocessing.get_context("fork").Pool(workers, initializer=_init_worker)
        finally:
            _TASKS = ()
        try:
            results = pool.imap_unordered(_run, range(len(tasks)), chunksize=1)
            if overlap is not None:
                overlap()
            while len(outcomes) < len(tasks):
                try:
                    i, status, value, seconds = results.next(timeout=0.1)
                except multiprocessing.TimeoutError:
                    progress.tick()
                    continue
                outcomes[i] = (status, value, seconds)
                pending.remove(tasks[i].name)
                progress.panels(pending, len(outcomes), len(tasks))
            pool.close()
        finally:
            pool.terminate()
            pool.join()
    done: dict[str, tuple[Mapping[str, RenderedPanel], float]] = {}
    error: ComposerError | None = None
    order = sorted(range(len(tasks)), key=lambda i: (rank(tasks[i]) if rank else i, i))
    for i in order:
        task = tasks[i]
        status, value, seconds = outcomes[i]
        if status == "ok":
            done[task.name] = (value, seconds)  # type: ignore[assignment]
        elif error is None:
            cls, message, file, key = value  # type: ignore[misc]
            error = cls(message, file=file, key=key)
    return done, error


def run_concurrently(calls: Mapping[str, Callable[[], bytes]], *, jobs: int) -> dict[str, bytes]:
    """Run independent calls (the exports: PDF and PNG), side by side when ``jobs > 1``.

    With two or more calls and fork available, every call but the last runs
    in a forked worker (inheriting everything, so nothing but the result is
    pickled) while this process runs the last one.

    Returns:
        name -> result, for every call.

    Raises:
        ComposerError: of the first failing call, in ``calls`` order (as
            running them one after the other would).
    """
    global _TASKS
    names = list(calls)
    if len(names) < 2 or jobs < 2 or not can_fork():
        return {name: calls[name]() for name in names}
    tasks = [RenderTask(name, calls[name]) for name in names]
    _TASKS = tasks
    try:
        pool = multiprocessing.get_context("fork").Pool(min(jobs, len(names)) - 1)
    finally:
        _TASKS = ()
    try:
        pending = [pool.apply_async(_run, (i,)) for i in range(len(names) - 1)]
        _TASKS = tasks
        try:
            last = _run(len(names) - 1)
        finally:
            _TASKS = ()
        outcomes = [p.get() for p in pending] + [last]
        pool.close()
    finally:
        pool.terminate()
        pool.join()
    out: dict[str, bytes] = {}
    for index, status, value, _ in sorted(outcomes, key=lambda o: o[0]):
        if status != "ok":
            cls, message, file, key = value  # type: ignore[misc]
            raise cls(message, file=file, key=key)
        out[names[index]] = value  # type: ignore[assignment]
    return out
