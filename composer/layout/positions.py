"""Where each key of a TOML layout is written: key path -> (line, column), for error messages.

:mod:`tomllib` gives values without positions (and tomlkit, which keeps the text, gives none either),
so this module scans the text once more, after tomllib has accepted it, and maps the key paths the
loader names in its errors to the place they are written:

- ``[panels.a]`` and ``[[arrow]]`` headers (``arrow[0]``, ``arrow[1]``... counted as TOML counts
  them, nested ``[[a.b]]`` under the last ``[[a]]``), dotted keys (``a.b = 1``), quoted keys
  (``"font.size" = 7`` is the component ``font.size``);
- inline tables (``params = { n = 8 }``: ``params.n``) and arrays (``size = ["1mm", "2mm"]``:
  ``size[0]``, ``size[1]``), nested in each other, written on several lines or not;
- strings of every kind (basic, literal, multi-line), so that a ``#``, ``=`` or ``[`` inside one is
  not taken for TOML.

A path names the key's first character (for an array element, the element's); lines and columns
count from 1, columns in characters. :func:`locate` adds them to a :class:`ComposerError`.
"""

from __future__ import annotations

import bisect
import tomllib
from pathlib import Path

from composer.errors import ComposerError

_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_SCALAR_END = frozenset(",]}\n#")


class _Scanner:
    """One pass over a TOML text that tomllib accepted; ``found`` maps key paths to offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.found: dict[str, int] = {}
        self.arrays_of_tables: dict[str, int] = {}  # resolved path -> how many [[...]] tables so far

    # ─── characters ───────────────────────────────────────────────────
    def peek(self, ahead: int = 0) -> str:
        j = self.i + ahead
        return self.text[j] if j < len(self.text) else ""

    def blank(self, *, newlines: bool) -> None:
        """Skip spaces and tabs (and newlines and comments, when ``newlines``)."""
        while self.i < len(self.text):
            c = self.text[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#" and newlines:
                end = self.text.find("\n", self.i)
                self.i = len(self.text) if end < 0 else end
            else:
                return

    def rest_of_line(self) -> None:
        """Skip to the next line (a comment or nothing is left on this one)."""
        end = self.text.find("\n", self.i)
        self.i = len(self.text) if end < 0 else end + 1

    def note(self, path: str, offset: int) -> None:
        self.found.setdefault(path, offset)

    # ─── keys ─────────────────────────────────────────────────────────
    def key(self) -> list[tuple[str, int]]:
        """A dotted key: its parts, each with the offset where it is written."""
        parts = []
        while True:
            self.blank(newlines=False)
            start = self.i
            c = self.peek()
            if c in "\"'":
                quoted = self.string()
                parts.append((tomllib.loads(f"k = {quoted}")["k"], start))  # its escapes, as TOML reads them
            else:
                while self.peek() in _BARE and self.peek():
                    self.i += 1
                parts.append((self.text[start:self.i], start))
            self.blank(newlines=False)
            if self.peek() != ".":
                return parts
            self.i += 1

    # ─── values ───────────────────────────────────────────────────────
    def string(self) -> str:
        """Skip one string (any of TOML's four kinds) and return its text as written."""
        start = self.i
        quote = self.peek()
        if self.text.startswith(quote * 3, self.i):  # multi-line: up to two more quotes close it
            self.i += 3
            while True:
                if quote == '"' and self.peek() == "\\":
                    self.i += 2
                    continue
                if self.text.startswith(quote * 3, self.i):
                    self.i += 3
                    while self.peek() == quote and self.i - start < len(self.text):
                        self.i += 1
                    return self.text[start:self.i]
                if not self.peek():
                    return self.text[start:self.i]
                self.i += 1
        self.i += 1
        while self.peek() and self.peek() != quote:
            if quote == '"' and self.peek() == "\\":
                self.i += 1
            self.i += 1
        self.i += 1
        return self.text[start:self.i]

    def value(self, path: str) -> None:
        """Skip one value, noting the paths inside it (inline tables' keys, arrays' elements)."""
        c = self.peek()
        if c in "\"'":
            self.string()
        elif c == "[":
            self.i += 1
            index = 0
            while True:
                self.blank(newlines=True)
                if self.peek() in ("]", ""):
                    self.i += 1
                    return
                self.note(f"{path}[{index}]", self.i)
                self.value(f"{path}[{index}]")
                index += 1
                self.blank(newlines=True)
                if self.peek() == ",":
                    self.i += 1
        elif c == "{":
            self.i += 1
            while True:
                self.blank(newlines=True)  # TOML 1.1 lets an inline table span lines
                if self.peek() in ("}", ""):
                    self.i += 1
                    return
                self.key_value(path)
                self.blank(newlines=True)
                if self.peek() == ",":
                    self.i += 1
        else:  # a number, a boolean, a date (which may hold a space)
            while self.peek() and self.peek() not in _SCALAR_END:
                self.i += 1

    def key_value(self, table: str) -> None:
        """``key = value`` in ``table``: the key's parts noted, then the value's insides."""
        path = table
        for part, offset in self.key():
            path = f"{path}.{part}" if path else part
            self.note(path, offset)
        self.blank(newlines=False)
        self.i += 1  # "="
        self.blank(newlines=False)
        self.value(path)

    # ─── tables ───────────────────────────────────────────────────────
    def header(self) -> str:
        """``[a.b]`` or ``[[a.b]]``: the table's resolved path (``arrow[2]``, ``a[0].b``)."""
        many = self.text.startswith("[[", self.i)
        self.i += 2 if many else 1
        parts = self.key()
        path = ""
        for n, (part, offset) in enumerate(parts):
            path = f"{path}.{part}" if path else part
            last = n == len(parts) - 1
            if last and many:
                index = self.arrays_of_tables.get(path, 0)
                self.arrays_of_tables[path] = index + 1
                self.note(path, offset)
                path = f"{path}[{index}]"
            elif path in self.arrays_of_tables:  # [a.b] or [[a.b]] under the last [[a]]
                self.note(path, offset)
                path = f"{path}[{self.arrays_of_tables[path] - 1}]"
            self.note(path, offset)
        self.i += 2 if many else 1
        return path

    def document(self) -> None:
        table = ""
        while True:
            self.blank(newlines=True)
            if not self.peek():
                return
            if self.peek() == "[":
                table = self.header()
            else:
                self.key_value(table)
            self.blank(newlines=False)
            if self.peek() in ("#", "\n"):
                self.rest_of_line()


def key_positions(text: str) -> dict[str, tuple[int, int]]:
    """Key path -> (line, column) of where it is written in ``text``, a TOML document tomllib accepts.

    Paths are written as composer's errors write them: ``panels.a.size[0]``, ``arrow[2].to``,
    ``rcparams.font.size`` (a quoted key's dots are not told apart from a dotted key's). A path is
    where it first appears (a table named in a header and again in a dotted key: the header).
    """
    scanner = _Scanner(text)
    try:
        scanner.document()
    except (IndexError, tomllib.TOMLDecodeError):  # only for text tomllib refused: keep what was found
        pass
    starts = [0] + [n + 1 for n, c in enumerate(text) if c == "\n"]
    positions = {}
    for path, offset in scanner.found.items():
        line = bisect.bisect_right(starts, offset)
        positions[path] = (line, offset - starts[line - 1] + 1)
    return positions


def value_end(text: str, start: int) -> int:
    """Where the TOML value that starts at offset ``start`` of ``text`` ends (the offset after its last
    character; a bare scalar's span may end in spaces): a string of any kind, an array or an inline table
    with everything inside, a number, boolean or date (:mod:`composer.edit` edits values in place)."""
    scanner = _Scanner(text)
    scanner.i = start
    scanner.value("")
    return scanner.i


def position(positions: dict[str, tuple[int, int]], key: str) -> tuple[int, int] | None:
    """Where ``key`` is written, else where the nearest enclosing key is (``panels.b.size[0]`` of a
    size that came from a style: ``panels.b``); None when none of them is in the file."""
    while key:
        if key in positions:
            return positions[key]
        cut = max(key.rfind("."), key.rfind("["))
        key = key[:cut] if cut > 0 else ""
    return None


def locate(exc: ComposerError, path: Path) -> None:
    """Give ``exc`` the line and column of its key in the TOML file ``path`` when ``exc`` names that
    file (its ``file``) and a key written in it, and has no line yet. Reads ``path`` again (an error
    is rare; a build pays nothing for it)."""
    if exc.line is not None or not exc.key or path.suffix != ".toml":
        return
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    found = position(key_positions(text), exc.key)
    if found is not None:
        exc.line, exc.column = found
        exc.args = (str(exc),)
