"""Parallel stages: render panels, and export PDF and PNG, on several cores.

Every task runs in a forked worker (:mod:`composer.sandbox.isolate`): it
inherits the imported matplotlib, the loaded panel modules and the data, and
nothing but the result is pickled. Every worker is forked by this process's
main thread while no other thread runs: no thread is started here at all
(Python 3.12+ warns that a fork from a multi-threaded process may deadlock,
and a worker forked while another thread held a lock, tempfile's first-use
lock say, waited forever). The main thread forks up to ``jobs`` workers and
waits for all of them at once (``select`` on their pipes), forking the next
task's worker as one ends.

A render task is the pipeline's own callable, which calls
:func:`composer.sandbox.isolate.run_isolated` with the panel's timeout and
words its failures (the panel, its function, the line). With ``jobs > 1``
the task is called in a *task process* forked by the main thread
(:func:`composer.sandbox.isolate.start` with ``task=True``), in which that
``run_isolated`` runs the work at once, with a worker's watchdog: one fork
per task, as with one thread per task before. A task process that dies
(a panel that crashed, or hung past its timeout) is worded by calling the
task again in this process with its ``run_isolated`` raising that failure
(:func:`composer.sandbox.isolate.replay`).

docs/design.md measured the alternatives on this kind of machine: fork
takes 0.57x the serial time for the six volume_kv panels with BLAS pinned
to one thread per worker; spawn is 1.6x *slower* than serial, since every
worker imports matplotlib again. Where fork does not exist (Windows)
everything runs serially.

BLAS: rendering limits BLAS/OpenMP pools to one thread (threadpoolctl), in
workers and in a serial build alike: two workers each running a
multi-threaded SVD on two cores nearly triple its time (docs/design.md), and a
thread count that differs between serial and parallel builds could change
the order of floating-point sums, and so the bytes of a panel.

What a panel's code prints (stdout, stderr, Python warnings) is captured by its worker or task
process, labelled with the task's name (:func:`composer.sandbox.isolate.capturing`), and handed
over once all tasks ended, in layout order (``output``, ``Progress.output``); ``Progress.line``
sees each line as it is read.

Output is byte-identical to a serial build: a panel is a pure function of
its inputs (its own rcParams via ``rc_context``, a fixed ``svg.hashsalt``),
results are collected by panel name, and when several panels fail the error
of the first one in layout order is raised, as a serial build would.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar, cast

from composer.errors import ComposerError, ComposerWarning, Frame
from composer.progress import Progress
from composer.sandbox.isolate import (
    Worker,
    WorkerFailure,
    capturing,
    finish,
    kill_workers,
    replay,
    run_isolated,
    start,
    wait_any,
)

T = TypeVar("T")


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
        name: as shown in progress, e.g. ``"rgb"`` or ``"a+b"``; also the label its output is
            captured under: ``run`` passes it to :func:`composer.sandbox.isolate.run_isolated`.
        run: returns the result (panel name -> :class:`composer.stages.render.RenderedPanel`) or
            raises ComposerError; called in a worker or in this process.
    """

    name: str
    run: Callable[[], Mapping[str, Any]]


def _one_blas_thread() -> Any:
    """Limit BLAS/OpenMP pools to one thread (a context manager; a no-op without threadpoolctl).

    Set in this process, so every worker forked while it holds inherits it. Importing threadpoolctl
    sets ``KMP_DUPLICATE_LIB_OK`` in ``os.environ``; the environment is put back as it was (a build in
    the user's process leaves it alone)."""
    environ = dict(os.environ)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    finally:
        for name in set(os.environ) - set(environ):
            del os.environ[name]
    return threadpool_limits(limits=1)


def _run(task: RenderTask) -> tuple[str, object, float]:
    """``(status, value, seconds)`` of one task: its result, or a ComposerError carried as data."""
    started = time.perf_counter()
    try:
        value: object = task.run()
        status = "ok"
    except ComposerError as exc:  # user-fixable: carried back as data, raised by the parent
        value, status = (type(exc), exc.message, exc.file, exc.key, exc.frames), "error"
    return status, value, time.perf_counter() - started


def render_all(tasks: Sequence[RenderTask], *, jobs: int, progress: Progress | None = None,
               overlap: Callable[[], None] | None = None, prepare: Callable[[], None] | None = None,
               rank: Callable[[RenderTask], int] | None = None, output: dict[str, str] | None = None,
               ) -> tuple[dict[str, tuple[Mapping[str, Any], float]], ComposerError | None]:
    """Run every task, in ``jobs`` forked task processes when that helps, else in this process.

    Args:
        tasks: in submission order (put the slowest first: longest-processing-
            time-first keeps both cores busy to the end).
        jobs: worker processes at most; 1 renders serially in this process.
        progress: told which panels are pending and how many are done.
        overlap: work for this process while the workers render (called once, after the first
            workers are forked, only in the parallel case).
        prepare: called once before any task runs (when there are tasks):
            state it sets up is inherited by every worker forked after it.
        rank: orders the failures (the layout order of a task's panels, say,
            when ``tasks`` are sorted slowest first); default ``tasks`` order.
        output: filled with task name -> what its code printed (stdout, stderr, warnings; see
            :func:`composer.sandbox.isolate.capturing`), failed tasks' too, in ``rank`` order, once every
            task ended (also when one failed); each is also passed to ``progress.output``. Tasks
            that printed nothing have no entry. The warnings about processes a task's code left
            running are issued then too, in the same order.

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
    # no task (panels all cached, or none drawn by code): nothing runs under the limit, so its cost (threadpoolctl
    # reads every loaded library, going in and again coming out) is not paid
    with _one_blas_thread() if tasks else contextlib.nullcontext(), capturing(live=progress.line) as printed:
        if workers <= 1 or not can_fork():
            for i, task in enumerate(tasks):
                outcomes[i] = _run(task)
                pending.remove(task.name)
                progress.panels(pending, len(outcomes), len(tasks))
        else:
            queue = list(enumerate(tasks))
            running: dict[Worker, int] = {}
            try:
                while queue or running:
                    while queue and len(running) < workers:
                        i, task = queue.pop(0)
                        running[start(partial(_run, task), timeout_s=None, task=True, label=task.name)] = i
                    if overlap is not None:  # once, while the first workers render
                        overlap()
                        overlap = None
                    finished = wait_any(list(running), 0.1)
                    if not finished:
                        progress.tick()
                    for worker in finished:
                        i = running.pop(worker)
                        outcomes[i] = _task_outcome(tasks[i], worker)
                        pending.remove(tasks[i].name)
                        progress.panels(pending, len(outcomes), len(tasks))
            except BaseException:  # interrupted (Ctrl-C): end the workers now, start no other
                for worker in running:
                    worker.stop()
                kill_workers()
                raise
    done: dict[str, tuple[Mapping[str, Any], float]] = {}
    error: ComposerError | None = None
    order = sorted(range(len(tasks)), key=lambda i: (rank(tasks[i]) if rank else i, i))
    for i in order:
        if tasks[i].name in printed.left:  # in layout order, whichever ended first
            warnings.warn(ComposerWarning(printed.left[tasks[i].name]), stacklevel=2)
        text = printed.output.get(tasks[i].name)
        if text:
            if output is not None:
                output[tasks[i].name] = text
            progress.output(tasks[i].name, text)
    for i in order:
        task = tasks[i]
        status, value, seconds = outcomes[i]
        if status == "ok":
            done[task.name] = (cast("Mapping[str, Any]", value), seconds)  # a task's result (_run)
        elif error is None:  # the error as _run carries it
            cls, message, file, key, frames = cast(
                "tuple[type[ComposerError], str, str | None, str | None, tuple[Frame, ...]]", value)
            error = cls(message, file=file, key=key, frames=frames)
    return done, error


def _task_outcome(task: RenderTask, worker: Worker) -> tuple[str, object, float]:
    """What :func:`_run` returned in a task process. One that died (a panel that crashed or hung: the
    task's :func:`composer.sandbox.isolate.run_isolated` ran in it) is worded by the task itself
    (:func:`composer.sandbox.isolate.replay`); one that died outside it (killed from outside) becomes a
    ComposerError naming the task."""
    try:
        return finish(worker)
    except WorkerFailure as failure:
        try:
            return replay(failure, partial(_run, task))
        except WorkerFailure as again:
            return "error", (ComposerError, f"rendering {task.name} failed: {again.detail}", None, None, ()), 0.0


def run_workers(calls: Mapping[str, Callable[[], T]], *, jobs: int, timeout_s: float | None
                ) -> dict[str, T]:
    """Run independent calls (the exports: PDF and PNG), each in a forked worker with ``timeout_s``,
    ``jobs`` at a time, all forked by this thread; the first that fails stops the others at once.

    Returns:
        name -> result, for every call.

    Raises:
        ComposerError: one a call raised (re-raised as itself, :func:`composer.sandbox.isolate.run_isolated`).
        WorkerFailure: a call that raised anything else, ran past ``timeout_s`` or crashed; its
            ``call`` attribute names it. The other workers are killed before it is raised: a crashed
            PDF does not wait for the PNG.
            When several fail, the one that failed first is raised (the first in ``calls`` order
            among those seen ending together).
    """
    names = list(calls)
    if not can_fork():
        return {name: run_isolated(calls[name], timeout_s=timeout_s) for name in names}
    queue = list(names)
    running: dict[Worker, str] = {}
    out: dict[str, T] = {}
    try:
        while queue or running:
            while queue and len(running) < max(1, jobs):
                name = queue.pop(0)
                running[start(calls[name], timeout_s=timeout_s)] = name
            for worker in wait_any(list(running), None):
                name = running.pop(worker)
                try:
                    out[name] = finish(worker)
                except WorkerFailure as failure:
                    failure.call = name
                    raise
    finally:  # a failure, or Ctrl-C: end the other workers now
        for worker in running:
            worker.stop()
            worker.stacks.close()
    return {name: out[name] for name in names}
