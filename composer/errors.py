"""Errors composer raises.

Every error a user can cause is a :class:`ComposerError` whose ``str()`` is one
line: ``file: key.path: problem (valid choices)``, or, when the key is written in a
TOML file, ``file:LINE:COLUMN: key.path: problem`` (:mod:`composer.layout.positions`). The CLI prints that line and
exits 1; library callers catch the class. An error in the user's own code (a
renderer, ``values()``, a Python layout) also carries the traceback's
:class:`Frame` s, which the CLI shows below the line (the user's frames; ``-v``:
all of them).
"""

from __future__ import annotations

import difflib
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import FrameType


@dataclass(frozen=True)
class Frame:
    """One frame of a traceback, as plain data (it is pickled from a worker to the parent).

    Attributes:
        file: the source file as Python names it (``co_filename``: a path, or ``<frozen ...>``).
        line: the line number, from 1 (0: unknown).
        name: the function's name (``<module>`` for a module's own code).
        code: the source line, stripped, read where the code ran (``""`` when unreadable).
    """

    file: str
    line: int
    name: str
    code: str = ""


def frames_of(exc: BaseException) -> tuple[Frame, ...]:
    """Every frame of the call stack ``exc`` unwound, outermost first: the frames above the one that
    caught it (the caller's, up to the process's start) and those of its traceback, down to where it
    was raised; each with its source line, read now (in a worker: the code that ran). A
    :class:`SyntaxError` ends with the line that does not parse."""
    tb = exc.__traceback__
    if tb is None:
        return ()
    above: FrameType | None = tb.tb_frame.f_back
    summaries = [*(traceback.extract_stack(above) if above is not None else []), *traceback.extract_tb(tb)]
    frames = [Frame(f.filename, f.lineno or 0, f.name, (f.line or "").strip()) for f in summaries]
    if isinstance(exc, SyntaxError) and exc.filename:  # the line that does not parse, as Python shows it
        frames.append(Frame(exc.filename, exc.lineno or 0, "<module>", (exc.text or "").strip()))
    return tuple(frames)


#: control characters an exception's message may hold, shown as escapes (``\\x1b``): an escape sequence
#: in a message would act on the user's terminal (clear it, set its title, colour what follows)
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F]}


def exception_text(exc: BaseException) -> str:
    """One line naming an exception the user's code raised: ``ZeroDivisionError: division by zero``.

    The message's white space is collapsed to single spaces and its control characters are escaped
    (``\\x1b``); an empty one is ``(no message)``; ``SystemExit`` is ``SystemExit: called
    sys.exit(CODE)``. An exception whose ``str()`` (or a ``SystemExit`` whose code's ``repr()``) itself
    raises is named with ``<str() failed: ERROR>``, as Python's own traceback does, and not
    replaced by the exception ``str()`` raised."""
    name = type(exc).__name__
    try:
        if isinstance(exc, SystemExit):
            return f"{name}: called sys.exit({exc.code!r})".translate(_CONTROLS)
        message = " ".join(str(exc).split()).translate(_CONTROLS) or "(no message)"
    except Exception as failed:  # noqa: BLE001  (the user's __str__ / __repr__)
        message = f"<str() failed: {type(failed).__name__}>"
    return f"{name}: {message}"


class ComposerError(Exception):
    """A problem the user can fix: bad layout, missing data, failing panel.

    Args:
        message: what is wrong, naming the bad value and the valid choices.
        file: the file the problem is in (layout, data, panel module), if any.
        key: the key path inside that file, e.g. ``panels.rgb.size[0]``.
        frames: when the user's code failed, the traceback (:func:`frames_of`), outermost first;
            ``str()`` does not show them (the message names the innermost frame of the user's code).
        line, column: where ``key`` is written in ``file`` (from 1), when known: ``str()`` shows
            ``file:line:column``.
    """

    def __init__(self, message: str, *, file: str | None = None, key: str | None = None,
                 frames: tuple[Frame, ...] = (), line: int | None = None, column: int | None = None):
        self.message = message
        self.file = file
        self.key = key
        self.frames = tuple(frames)
        self.line = line
        self.column = column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = self.file
        if where and self.line is not None:
            where += f":{self.line}" + (f":{self.column}" if self.column is not None else "")
        parts = [p for p in (where, self.key) if p]
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


class ImportFeature(ComposerWarning):
    """A feature of an imported file that composer draws differently from a browser, or cannot draw: a
    :class:`ComposerWarning` that is also a record, made where the import meets the feature
    (:mod:`composer.stages.fragment`'s passes) and read by ``compose check``, which reports each once
    per file (rule ``import-feature``) without reading words back.

    Attributes:
        panel: the panel whose file it is (its name; ``""`` when the import is not a panel's).
        file: the file as messages name it.
        feature: what composer draws differently, in a few words that are the same for every file
            (``"a CSS transform SVG cannot express"``, ``"fonts not installed"``).
        detail: what was done about it in this file (the elements, the fonts).
    ``str()`` is the one-line warning the build prints: ``FILE: FEATURE ...: DETAIL``.
    """

    def __init__(self, message: str, *, panel: str, file: str, feature: str, detail: str = ""):
        super().__init__(message)
        self.panel, self.file, self.feature, self.detail = panel, file, feature, detail


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
