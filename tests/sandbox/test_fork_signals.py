"""A Ctrl-C that arrives while composer forks is not lost.

os.fork() runs the at-fork callbacks of the standard library (logging registers one) in the parent, and
Python swallows an exception raised inside one ("Exception ignored in: ..."): a Ctrl-C whose handler ran
there was lost and ``compose --serve`` went on watching (seen: 1 in 3 runs of a test stopping it right
after a rebuild). Composer holds SIGINT and SIGTERM back across each fork, so the KeyboardInterrupt is
raised in composer's own code just after. Each case runs in a fresh interpreter: an at-fork callback
cannot be removed.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e  # signals, each in a fresh interpreter

SCRIPT = """
import os, signal
from composer.sandbox import isolate

def interrupt_in_callback():
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(3):  # bytecode after the signal: Python runs its handler here, inside the callback
        pass

os.register_at_fork(after_in_parent=interrupt_in_callback)
try:
    {call}
except KeyboardInterrupt:
    print("interrupted")
else:
    print("lost")
"""


@pytest.mark.parametrize("call", [
    "isolate.run_isolated(lambda: 1, timeout_s=10)",  # a panel's worker
    "pid = isolate.fork()\n    if pid == 0: os._exit(0)\n    os.waitpid(pid, 0)",  # the preview's server, its builders
])
def test_a_ctrl_c_during_a_fork_raises_in_composer_not_in_the_fork_callbacks(call):
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(call=call)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "interrupted", (done.stdout, done.stderr)
    assert "Exception ignored" not in done.stderr, done.stderr


def test_the_signal_mask_is_the_callers_after_a_fork_in_both_processes():
    """A worker starts with the caller's mask (not SIGINT blocked for ever), and so does the caller."""
    script = """
import os, signal
from composer.sandbox import isolate
print(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
print(isolate.run_isolated(lambda: sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])), timeout_s=10))
print(sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
"""
    lines = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                           check=True).stdout.split("\n")
    assert lines[0] == lines[1] == lines[2] == "[]", lines


CHILD_SCRIPT = """
import os, signal
from composer.sandbox import isolate
parent = os.getpid()
os.register_at_fork(after_in_child=lambda: os.kill(os.getpid(), signal.SIGINT))  # held: pending in the child
try:
    {call}
    outcome = "returned"
except KeyboardInterrupt:
    outcome = "interrupted"
except isolate.WorkerFailure:
    outcome = "worker failed"
print(("parent" if os.getpid() == parent else "child") + ": " + outcome, flush=True)
"""


@pytest.mark.parametrize("call, parent_says", [
    ("isolate.run_isolated(lambda: 1, timeout_s=10)", "parent: worker failed"),
    ("pid = isolate.fork()\n    if pid == 0: os._exit(0)\n    os.waitpid(pid, 0)", "parent: returned"),
])
def test_a_ctrl_c_reaching_a_child_just_forked_ends_it_and_never_runs_the_parents_code(call, parent_says):
    """A Ctrl-C to the process group that reaches a worker before it set its own handlers ends the
    worker (the default action); with the parent's handler it raised KeyboardInterrupt in the child,
    which went on running the parent's code (seen: it stopped the parent's other workers)."""
    done = subprocess.run([sys.executable, "-c", CHILD_SCRIPT.format(call=call)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.splitlines() == [parent_says], (done.stdout, done.stderr)

