"""stderr of a failed ``compose``, read as its lines without the traceback of the user's code that
follows the error line of a failure in panel code (:mod:`composer.cli.tracebacks`)."""

from __future__ import annotations

import re

#: the first line of a traceback block, as composer.cli.tracebacks writes it
_HEAD = re.compile(r"^  (traceback of your code \(most recent call last; -v shows all \d+ frames\):"
                   r"|traceback \(most recent call last\):"
                   r"|\(no frame of your code; -v shows the traceback's \d+ frames\))$")


def without_frames(err: str) -> list[str]:
    """The lines of ``err`` with every traceback block (its head line and its frame lines, indented by
    four spaces or more) left out; a block only counts right after a ``compose: error:`` line."""
    kept: list[str] = []
    lines = err.splitlines()
    i = 0
    while i < len(lines):
        kept.append(lines[i])
        i += 1
        if kept[-1].startswith("compose: error: ") and i < len(lines) and _HEAD.match(lines[i]):
            i += 1
            while i < len(lines) and lines[i].startswith("    "):
                i += 1
    return kept


def frames_block(err: str) -> list[str]:
    """The traceback block below the first error line of ``err`` (head line included); [] if none."""
    lines = err.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("compose: error: ")), None)
    if first is None or first + 1 >= len(lines) or not _HEAD.match(lines[first + 1]):
        return []
    block = [lines[first + 1]]
    for line in lines[first + 2:]:
        if not line.startswith("    "):
            break
        block.append(line)
    return block
