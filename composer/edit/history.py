"""Undo and redo of a figure's edits, each itself an edit of the layout file, and the guard that no
edit overwrites a change someone else made on disk.

A :class:`History` holds, per figure, the texts before and after each edit written from the page.
Undo writes the text before the last edit back, redo the text after it, each only when the file on
disk is still what the last edit (or undo, or redo) wrote: a file changed meanwhile (an editor's
save, a ``git checkout``) is never overwritten, and the page reloads it. A change made outside the
page ends the history before it: the edits before it are dropped (their texts predate it, so undoing
one would throw it away), and undo never goes back past it (refused as :class:`ChangedOnDisk`). A new
edit clears the redo stack. Files are replaced atomically (a temporary sibling, then a rename), their
mode kept; a link is written through (the file it points to is replaced, the link kept).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from composer.errors import ComposerError


class ChangedOnDisk(ComposerError):
    """The layout file is not what the page (or the last edit) saw: nothing was written."""


def digest(text: str) -> str:
    """SHA-256 (hex) of a layout file's text, encoded as UTF-8 (what ``elements.json`` and the page compare)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_text(path: Path) -> str:
    """The file's text exactly (no newline translation)."""
    with open(path, encoding="utf-8", newline="") as file:
        return file.read()


def write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` at once (a temporary sibling, then a rename), keeping its mode; a
    symbolic link's target is replaced (the link stays a link)."""
    path = Path(os.path.realpath(path))
    mode = os.stat(path).st_mode & 0o7777 if path.exists() else 0o644
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".edit")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def why_not_writable(path: Path, root: Path) -> str | None:
    """Why an edit from the page cannot replace the layout file ``path`` of the project at ``root``, in one
    line, or None when it can: :func:`write_text` writes the file a symbolic link points to (only inside
    the project, as :class:`composer.edit.session.Editor` refuses any other) and renames a new file over
    it, so this process needs write access to that file and to its folder (``os.access``, W_OK)."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(Path(os.path.realpath(root))):
        return f"{path.name} is a link to {real}, outside the project: the page writes nothing there"
    if not os.access(real, os.W_OK):
        return f"{real.name} is not writable by this process: edit its permissions, or edit it by hand"
    if not os.access(real.parent, os.W_OK | os.X_OK):
        return (f"the folder {real.parent} is not writable by this process (an edit writes a new file there and "
                "renames it over the layout): edit its permissions, or edit the layout by hand")
    return None


@dataclass
class _Stack:
    done: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # (before, after, change)
    undone: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    last: str | None = None  # the digest of what the last write left on disk
    cut: bool = False  # the history before ``done[0]`` was dropped: the file was changed outside the page

    def drop(self) -> None:
        """Forget every edit: the file was changed outside the page since the last write."""
        self.done.clear()
        self.undone.clear()
        self.cut = True


class History:
    """The edits of each figure, and the one lock that makes check-then-write atomic per figure."""

    def __init__(self) -> None:
        self.stacks: dict[str, _Stack] = {}
        self.lock = threading.Lock()

    def counts(self, name: str) -> tuple[int, int]:
        """(edits that can be undone, edits that can be redone) of figure ``name``."""
        stack = self.stacks.get(name, _Stack())
        return len(stack.done), len(stack.undone)

    def write(self, name: str, path: Path, seen: str | None, before: str, after: str,
              change: dict[str, Any]) -> str:
        """Write an edit's text ``after`` over ``before``, which must be what is on disk and hash to ``seen``
        (the digest the page saw; None: not compared). Returns the new digest.

        Raises:
            ChangedOnDisk: the file is not ``before`` (or not ``seen``).
        """
        now = read_text(path)
        if now != before or (seen is not None and digest(now) != seen):
            raise ChangedOnDisk(f"{path.name} was changed on disk since the page loaded it; it was reloaded and "
                                "nothing was written")
        stack = self.stacks.setdefault(name, _Stack())
        if stack.last is not None and digest(before) != stack.last:
            stack.drop()  # saved outside the page since the last write: undo stops at this edit
        write_text(path, after)
        stack.done.append((before, after, change))
        stack.undone.clear()
        stack.last = digest(after)
        return stack.last

    def step(self, name: str, path: Path, seen: str | None, *, back: bool) -> tuple[str, dict[str, Any]]:
        """Undo (``back``) or redo the last edit of figure ``name``; returns (the new digest, the change).

        Raises:
            ChangedOnDisk: the file is not what the last edit, undo or redo wrote (the history is dropped),
                or not ``seen``; an undo past a change made outside the page.
            ComposerError: nothing to undo (redo).
        """
        stack = self.stacks.setdefault(name, _Stack())
        source, target = (stack.done, stack.undone) if back else (stack.undone, stack.done)
        word = "undo" if back else "redo"
        now = digest(read_text(path))
        if stack.last is not None and now != stack.last:
            stack.drop()
            raise ChangedOnDisk(f"{path.name} was changed on disk after the last edit from the page; it was "
                                f"reloaded, {word} wrote nothing, and the edits before that change can no longer "
                                "be undone")
        if not source and back and stack.cut:
            raise ChangedOnDisk(f"{path.name} was changed outside the page before this point; undo does not go "
                                "back past that change, and wrote nothing")
        if not source:
            raise ComposerError(f"nothing to {word}")
        if seen is not None and now != seen:
            raise ChangedOnDisk(f"{path.name} was changed on disk after the last edit from the page; it was "
                                f"reloaded, and {'undo' if back else 'redo'} wrote nothing")
        before, after, change = source[-1]
        write_text(path, before if back else after)
        target.append(source.pop())
        stack.last = digest(before if back else after)
        return stack.last, change
