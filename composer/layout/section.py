"""A table of a layout being read: its keys converted from the key table, and the keys it has no use for refused.

:class:`Section` reads the keys of one table (:meth:`Section.get`: the converter and default from
:data:`composer.layout.keys.TABLES_BY_KIND`) and checks the rest: a key the table does not list is an
error naming the valid ones and a close misspelling (:meth:`Section.done`), a key that does nothing
in this use of the table is refused with the reason (:meth:`Section.refuse`). :class:`LayoutReader` is
the reader the loader reads a layout with: the value converters and :meth:`LayoutReader.section`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from composer.errors import LayoutError, closest, did_you_mean
from composer.layout.keys import TABLES, TABLES_BY_KIND, Key
from composer.layout.reader import Reader

#: ``Section.get(name, default=REQUIRED)``: this use of the table needs the key.
REQUIRED: Any = object()
_FROM_TABLE: Any = object()


class Section:
    """A table of a layout being read: tracks its key path and which keys were read.

    ``get(name)`` converts a key with its type's converter and falls back to
    its default, both from the table of kind ``kind`` in :data:`TABLES_BY_KIND`.
    ``done()`` refuses keys the table does not list, listing the valid ones;
    ``refuse()`` names keys of this table kind that do nothing in this use
    of it (``radius`` on a rect), so no key is accepted and ignored.
    """

    def __init__(self, raw: Any, key: str, reader: Reader, kind: str | None = None):
        if not isinstance(raw, dict):
            raise LayoutError(f"expected a table, got {raw!r}", file=reader.file, key=key or None)
        self.raw, self.key, self.file, self.reader, self.kind = raw, key, reader.file, reader, kind
        self.asked: list[str] = []
        #: keys of this table kind refused here because they would do nothing
        self.refused: list[str] = []

    def path(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def error(self, name: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=self.path(name))

    def spec(self, name: str) -> Key:
        """The :class:`Key` ``name`` of this table's kind (KeyError if the format has none: a bug)."""
        if self.kind is None:
            raise KeyError(f"{self.key!r} is read without a table kind")
        return TABLES_BY_KIND[self.kind].key(name)

    def default(self, name: str) -> Any:
        """The format's default of key ``name``, converted (a fresh copy of a table or list); None: none."""
        value = self.spec(name).value
        return copy.copy(value) if isinstance(value, (dict, list)) else value

    def get(self, name: str, convert: Callable[[Any, str], Any] | None = _FROM_TABLE,
            default: Any = _FROM_TABLE) -> Any:
        """The value of key ``name``, converted; its default when absent.

        Args:
            convert: the key's converter (default: its type's, from the format);
                an explicit one when the conversion needs other keys (a grid's
                column count); None: the value as written.
            default: the value when absent (default: the format's converted
                default, None when it has none); :data:`REQUIRED`: the key is
                required here. A computed default (an arrow's head length from
                its width) is passed by the reader.

        Raises:
            LayoutError: the key is required and missing (naming a close misspelling
                among the given keys), or its value does not convert.
        """
        self.asked.append(name)
        if name not in self.raw:
            if default is _FROM_TABLE:
                default = REQUIRED if self.spec(name).required else self.default(name)
            if default is REQUIRED:
                raise LayoutError(f"required key is missing{self.misspelt([name])}", file=self.file,
                                  key=self.path(name))
            return default
        if convert is _FROM_TABLE:
            convert = self.spec(name).converter(self.reader)
        value = self.raw[name]
        return convert(value, self.path(name)) if convert else value

    def misspelt(self, names: Iterable[str]) -> str:
        """`` (is 'hieght' a misspelling of 'height'?)`` when a key nobody asked for is close to one of
        ``names``, else ``""``: a typo then explains a missing key."""
        names = list(names)
        known = set().union(*(table.key_names() for table in TABLES))  # a real key is not a typo
        for given in self.raw:
            if given in self.asked or given in names or given in known:
                continue
            close = closest(given, names)
            if close is not None:
                return f" (is {given!r} a misspelling of {close!r}?)"
        return ""

    def refuse(self, names: Iterable[str], why: str) -> None:
        """Raise LayoutError if any of ``names`` is given: ``why`` says what the element takes instead."""
        for name in names:
            self.refused.append(name)
            if name in self.raw:
                raise self.error(name, f"{name!r} does nothing here: {why}")

    def done(self) -> dict[str, Any]:
        """Refuse the keys nobody asked for; return the format's keys the reader did not ask for by name.

        A key given that the table lists and the reader neither read nor
        refused is read here (converted) and returned by name: a key added to
        the format reaches the reader without a line of its own. The drift
        test (``tests/layout/test_schema.py``) checks that every key the
        repository's format lists is read or refused by name.

        Raises:
            LayoutError: a key the table does not list (with a close valid key, and every valid key).
        """
        rest: dict[str, Any] = {}
        if self.kind is not None:
            for key in TABLES_BY_KIND[self.kind].keys:
                if key.name in self.raw and key.name not in self.asked and key.name not in self.refused:
                    rest[key.name] = self.get(key.name)
        unknown = sorted(set(self.raw) - set(self.asked))
        if unknown:
            valid = list(self.asked)  # read here, in reading order; then the format's others that are not refused
            if self.kind is not None:
                valid += [k.name for k in TABLES_BY_KIND[self.kind].keys if k.name not in valid + self.refused]
            hint = did_you_mean(unknown[0], valid + self.refused)  # a refused key too: its own error says why
            raise self.error(unknown[0], f"unknown key {unknown[0]!r}{hint}; valid keys are {', '.join(valid)}")
        return rest



class LayoutReader(Reader):
    """The value converters (:class:`composer.layout.reader.Reader`) with the tables of the key table."""

    def section(self, raw: Any, key: str, kind: str | None) -> Section:
        """``raw`` read as a table of kind ``kind`` (a :data:`TABLES_BY_KIND` kind) at key path ``key``."""
        return Section(raw, key, self, kind)
