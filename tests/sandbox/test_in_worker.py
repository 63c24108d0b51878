"""``in_worker()`` (:mod:`composer.sandbox.isolate`): True only in a process that :func:`start` forked to run a
function, which is where a library whose threads a forked child cannot use may start (vl-convert:
:mod:`composer.stages.vegasvg`); never in the process that forks the workers, nor in one forked otherwise (as
``compose serve`` forks its builder)."""

from __future__ import annotations

import os

from composer.sandbox import isolate
from composer.sandbox.isolate import in_worker, run_isolated


def test_in_worker_is_true_only_in_a_process_start_forked() -> None:
    assert not in_worker()
    assert run_isolated(in_worker, timeout_s=30) is True
    pid = isolate.fork()  # as compose serve forks its builder: not a worker
    if pid == 0:
        os._exit(0 if not in_worker() else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
