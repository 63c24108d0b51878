"""Parallel stages: render panels, and export PDF and PNG, on several cores.

Every task already runs in its own forked worker (:func:`composer.sandbox.isolate.run_isolated`):
it inherits the imported matplotlib, the loaded panel modules and the data,
and nothing but the result is pickled. Running ``jobs`` tasks at once is
then only a matter of ``jobs`` threads in this process, each forking its
task's worker and waiting for it (the wait releases the GIL); no process
pool sits in between (a pool cost a fork of its own per worker, and every
task was forked twice, about 0.04 s per stage). docs/design.md measured the alternatives on
this kind of machine: fork takes 0.57x the serial time for the six
volume_kv panels with BLAS pinned to one thread per worker; spawn is 1.6x
*slower* than serial, since every worker imports matplotlib again. Where
fork does not exist (Windows) everything runs serially.

BLAS: rendering limits BLAS/OpenMP pools to one thread (threadpoolctl), in
workers and in a serial build alike: two workers each running a
multi-threaded SVD on two cores nearly triple its time (docs/design.md), and a
thread count that differs between serial and parallel builds could change
the order of floating-point sums, and so the bytes of a panel.

Output is byte-identical to a serial build: a panel is a pure function of
its inputs (its own rcParams via ``rc_context``, a fixed ``svg.hashsalt``),
results are collected by panel name, and when several panels fail the error
of the first one in layout order is raised, as a serial build would.
"""

from __future__ import annotations

import contextlib
import os
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, TypeVar

T = TypeVar("T")

from composer.errors import ComposerError
from composer.sandbox.isolate import kill_workers
from composer.progress import Progress
from composer.stages.render import RenderedPanel


def available_cores() -> int:
    """Cores this process may run on (``sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    """True where worker processes can be forked (Linux, macOS)."""
    return hasattr(os, "fork")


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


def _one_blas_thread() -> Any:
    """Limit BLAS/OpenMP pools to one thread (a context manager; a no-op without threadpoolctl).

    Set in this process, so every worker forked while it holds inherits it."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1)


def _run(task: RenderTask) -> tuple[str, object, float]:
    """``(status, value, seconds)`` of one task: its result, or a ComposerError carried as data."""
    started = time.perf_counter()
    try:
        value: object = task.run()
        status = "ok"
    except ComposerError as exc:  # user-fixable: carried back as data, raised by the parent
        value, status = (type(exc), exc.message, exc.file, exc.key), "error"
    return status, value, time.perf_counter() - started


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
    progress = progress or Progress()
    outcomes: dict[int, tuple[str, object, float]] = {}
    pending = [t.name for t in tasks]
    progress.panels(pending, 0, len(tasks))
    workers = min(jobs, len(tasks))
    if prepare is not None and tasks:
        prepare()
    with _one_blas_thread():
        if workers <= 1 or not can_fork():
            for i, task in enumerate(tasks):
                outcomes[i] = _run(task)
                pending.remove(task.name)
                progress.panels(pending, len(outcomes), len(tasks))
        else:
            pool = ThreadPoolExecutor(workers, thread_name_prefix="composer-render")
            try:
                futures: dict[Future, int] = {pool.submit(_run, task): i for i, task in enumerate(tasks)}
                if overlap is not None:
                    overlap()
                running = set(futures)
                while running:
                    finished, running = wait(running, timeout=0.1, return_when=FIRST_COMPLETED)
                    if not finished:
                        progress.tick()
                    for future in sorted(finished, key=futures.__getitem__):
                        i = futures[future]
                        outcomes[i] = future.result()
                        pending.remove(tasks[i].name)
                        progress.panels(pending, len(outcomes), len(tasks))
            except BaseException:  # interrupted (Ctrl-C): end the workers now, start no other
                pool.shutdown(wait=False, cancel_futures=True)
                kill_workers()
                raise
            finally:
                pool.shutdown(wait=True)
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


def run_concurrently(calls: Mapping[str, Callable[[], T]], *, jobs: int) -> dict[str, T]:
    """Run independent calls (the exports: PDF and PNG), side by side when ``jobs > 1``.

    With two or more calls, ``jobs > 1`` and fork available, each call runs
    in a thread of its own; a call is expected to do its work in a forked
    worker (the exports do: :func:`composer.pipeline._export`), so the threads
    only wait.

    Returns:
        name -> result, for every call.

    Raises:
        ComposerError: of the first failing call, in ``calls`` order (as
            running them one after the other would).
    """
    names = list(calls)
    if len(names) < 2 or jobs < 2 or not can_fork():
        return {name: calls[name]() for name in names}
    pool = ThreadPoolExecutor(min(jobs, len(names)), thread_name_prefix="composer-export")
    try:
        futures = [pool.submit(_run, RenderTask(name, calls[name])) for name in names]  # type: ignore[arg-type]
        outcomes = [future.result() for future in futures]
    except BaseException:  # interrupted (Ctrl-C): end the workers now
        pool.shutdown(wait=False, cancel_futures=True)
        kill_workers()
        raise
    finally:
        pool.shutdown(wait=True)
    out: dict[str, T] = {}
    for name, (status, value, _) in zip(names, outcomes):
        if status != "ok":
            cls, message, file, key = value  # type: ignore[misc]
            raise cls(message, file=file, key=key)
        out[name] = value  # type: ignore[assignment]
    return out
