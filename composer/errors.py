"""Errors composer raises.

Every error a user can cause is a :class:`ComposerError` whose ``str()`` is one
line: ``file: key.path: problem (valid choices)``. The CLI prints that line and
exits 1; library callers catch the class.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


class ComposerError(Exception):
    """A problem the user can fix: bad layout, missing data, failing panel.

    Args:
        message: what is wrong, naming the bad value and the valid choices.
        file: the file the problem is in (layout, data, panel module), if any.
        key: the key path inside that file, e.g. ``panels.rgb.size[0]``.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None):
        self.message = message
        self.file = file
        self.key = key
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.key) if p]
        one_line = " ".join(self.message.split())
        return ": ".join([*parts, one_line])


class LayoutError(ComposerError):
    """The layout file is malformed: unknown key, bad unit, bad reference."""


class DataError(ComposerError):
    """A data file, data key or text field value is missing or unreadable."""


class PanelError(ComposerError):
    """A panel renderer is missing, raised, or returned something unusable."""


class ProjectError(ComposerError):
    """The project root has no ``layouts/`` or the figure name is unknown."""


class SvgError(ComposerError):
    """An SVG file could not be parsed or imported safely."""


class ComposerWarning(UserWarning):
    """Something the output shows differently from what was asked, that the
    build can still go on with (a font swapped inside an imported SVG file, a
    raster below the target ppi). ``str()`` is one line; the CLI prints it as
    ``compose: warning: ...``."""


def closest(word: str, choices: Iterable[str], aliases: Mapping[str, str] | None = None) -> str | None:
    """The choice a mistyped ``word`` most likely meant, for a "did you mean" hint; None when none is close.

    In order: a choice equal to ``word`` but for case (``cella`` -> ``cellA``, though ``cellB`` is as
    close letter for letter), the choice ``aliases`` gives for ``word`` (``east`` -> ``e``), else
    :func:`difflib.get_close_matches` with its usual cutoff 0.6.
    """
    options = list(choices)
    same = [c for c in options if c.lower() == word.lower() and c != word]
    if same:
        return same[0]
    alias = (aliases or {}).get(word.lower())
    if alias is not None and alias in options:
        return alias
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: str, choices: Iterable[str], aliases: Mapping[str, str] | None = None) -> str:
    """``"; did you mean 'b'?"`` for the :func:`closest` choice, else ``""``."""
    close = closest(word, choices, aliases)
    return f"; did you mean {close!r}?" if close is not None else ""
