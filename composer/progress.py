"""Progress display: what a build is doing, for builds that take a while.

:class:`Progress` is the interface :func:`composer.pipeline.build` reports to;
it shows nothing, so library calls and tests stay quiet.
:func:`for_terminal` gives a `rich <https://rich.readthedocs.io>`_ display
on stderr when stderr is a terminal (and the quiet one otherwise). The
display appears only once a build has run for ``delay_s`` (1 s), so quick
builds print nothing but their result line, and it is transient: it is
erased when the build ends.

No thread is used (rich's auto refresh is off): the build refreshes the
display at each event and while it waits for worker processes. A build
forks worker processes, and forking while another thread holds a lock (the
console's, say) can deadlock the child.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import Any


class Progress:
    """Receives a build's progress; this base class shows nothing."""

    def stage(self, text: str) -> None:
        """A new stage began, e.g. ``"exporting pdf, png"``."""

    def panels(self, pending: Sequence[str], done: int, total: int) -> None:
        """Panel rendering: names still rendering or queued, and done/total counts."""

    def tick(self) -> None:
        """Called about ten times a second while the build waits for workers."""

    def close(self) -> None:
        """The build ended (successfully or not); erase any display."""


class TerminalProgress(Progress):
    """A transient rich status line on a terminal, shown after ``delay_s`` seconds.

    Args:
        delay_s: how long a build runs before the display appears.
        file: the terminal stream (default stderr).
    """

    def __init__(self, *, delay_s: float = 1.0, file: Any = None):
        self._started = time.perf_counter()
        self._delay_s = delay_s
        self._file = file if file is not None else sys.stderr
        self._text = "starting"
        self._done = 0
        self._total: int | None = None
        self._display: Any = None
        self._task: Any = None

    def stage(self, text: str) -> None:
        self._text = text  # the panel counts stay: the bar shows rendering done
        self._update()

    def panels(self, pending: Sequence[str], done: int, total: int) -> None:
        shown = ", ".join(pending[:4]) + (f" and {len(pending) - 4} more" if len(pending) > 4 else "")
        self._text = f"rendering {shown}" if pending else "rendering"
        self._done, self._total = done, total
        self._update()

    def tick(self) -> None:
        self._update()

    def close(self) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None

    def _update(self) -> None:
        if self._display is None:
            if time.perf_counter() - self._started < self._delay_s:
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._display = RichProgress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                                         MofNCompleteColumn(), TimeElapsedColumn(),
                                         console=Console(file=self._file), transient=True, auto_refresh=False)
            self._task = self._display.add_task(self._text, total=self._total)
            self._display.start()
        self._display.update(self._task, description=self._text, completed=self._done, total=self._total)
        self._display.refresh()


def for_terminal(file: Any = None, *, delay_s: float = 1.0) -> Progress:
    """A :class:`TerminalProgress` when ``file`` (default stderr) is a terminal, else a quiet :class:`Progress`."""
    file = file if file is not None else sys.stderr
    isatty = getattr(file, "isatty", None)
    return TerminalProgress(delay_s=delay_s, file=file) if isatty and isatty() else Progress()
