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

    def line(self, panel: str, text: str) -> None:
        """A line a panel's code printed (stdout, stderr or a warning; no newline), as it is read.

        ``panel``: the panel's name (``"a+b"`` for aligned panels drawn together).
        """

    def output(self, panel: str, text: str) -> None:
        """All a panel's code printed in this build (lines ending in newlines, at most 64 KiB, then
        ``... (N more bytes)``), once rendering ended, panels in layout order (see :meth:`line`)."""

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

    def line(self, panel: str, text: str) -> None:
        if self._display is not None:
            self._display.console.print(f"  {panel}: {text}", markup=False, highlight=False, soft_wrap=True)

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


class PanelOutput(Progress):
    """Forwards every event to ``inner`` and keeps each panel's printed output for after the build's line.

    Args:
        inner: the display (:func:`for_terminal`).
        live: write each line at once to ``file`` (``compose --verbose``), prefixed ``  PANEL: ``,
            instead of keeping it for :meth:`show`.
        file: where lines go (default stderr).
    """

    def __init__(self, inner: Progress, *, live: bool = False, file: Any = None) -> None:
        self.inner, self.live, self._file = inner, live, file
        self.kept: list[tuple[str, str]] = []

    def stage(self, text: str) -> None:
        self.inner.stage(text)

    def panels(self, pending: Sequence[str], done: int, total: int) -> None:
        self.inner.panels(pending, done, total)

    def tick(self) -> None:
        self.inner.tick()

    def close(self) -> None:
        self.inner.close()

    def line(self, panel: str, text: str) -> None:
        if self.live:
            if isinstance(self.inner, TerminalProgress) and self.inner._display is not None:
                self.inner.line(panel, text)  # above the status line
            else:
                print(f"  {panel}: {text}", file=self._out(), flush=True)

    def output(self, panel: str, text: str) -> None:
        if not self.live:
            self.kept.append((panel, text))

    def show(self) -> None:
        """Write the kept output, each line ``  PANEL: line``, panels in layout order, then forget it."""
        out = self._out()
        for panel, text in self.kept:
            for line in text.splitlines():
                print(f"  {panel}: {line}", file=out)
        out.flush()
        self.kept = []

    def _out(self) -> Any:
        return self._file if self._file is not None else sys.stderr


def prefixed(output: dict[str, str]) -> list[str]:
    """``BuildResult.output`` as shown: ``  PANEL: line`` for every line, panels in the dict's order."""
    return [f"  {panel}: {line}" for panel, text in output.items() for line in text.splitlines()]


def for_terminal(file: Any = None, *, delay_s: float = 1.0) -> Progress:
    """A :class:`TerminalProgress` when ``file`` (default stderr) is a terminal, else a quiet :class:`Progress`."""
    file = file if file is not None else sys.stderr
    isatty = getattr(file, "isatty", None)
    return TerminalProgress(delay_s=delay_s, file=file) if isatty and isatty() else Progress()
