"""The kinds of things that grow, declared once: one registry per kind, read by every layer.

A kind of thing composer knows several of (an output format, an export
engine, a check rule...) is an entry in one :class:`Registry` instead of a
string compared across the package. The registries sit low in the package
(standard library only, below the layout format), so the loader, the stages,
the check and the command all read the same table, and imports keep pointing
down (``tests/test_layers.py``):

- :mod:`composer.kinds.outputs`: output formats and export engines (``--format``,
  ``--engine``, ``[figure] engine``, the export stage's dispatch);
- :mod:`composer.kinds.rules`: the print check's rules, their levels and
  documentation (``[check] ignore``, ``compose check``);
- :mod:`composer.kinds.shapes`: the ``[[shape]]`` kinds, classes that own their keys,
  anchors and drawing (the loader, the typeset, geometry, draw and overlay stages, the check).
- :mod:`composer.kinds.extras`: the optional extras whose libraries a panel module imports (plotnine,
  seaborn, Altair, Plotly), so a missing one is named with what to install (the user-code stage).

An entry declares what the layers below its implementation need (names,
suffixes, options, documentation); the module that implements it binds its
functions (:meth:`Registry.bind`), so a registry never imports upward. An
entry added from outside (a plugin, a test) gives both at once, in one
:meth:`Registry.add`. docs/design.md lists, for each kind, the files a new
one touches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, Protocol, TypeVar

from composer.errors import ComposerError, did_you_mean


class Named(Protocol):
    """An entry: anything with a ``name``."""

    @property
    def name(self) -> str: ...


E = TypeVar("E", bound=Named)


class Registry(Generic[E]):
    """The entries of one kind, by name, in the order they were added (the order lists and messages show).

    Args:
        what: the kind's name in messages, singular (``"format"``).
        plural: its plural (default ``what + "s"``).

    A registry is module state: an entry added is seen by every later reader
    in the process and in the workers it forks (the export workers draw with
    the engines registered before they started).
    """

    def __init__(self, what: str, plural: str | None = None) -> None:
        self.what = what
        self.plural = plural or f"{what}s"
        self._entries: dict[str, E] = {}
        #: bumped on every change: a reader that caches a derived table compares it
        self.version = 0

    def add(self, entry: E) -> E:
        """Register ``entry``; return it.

        Raises:
            ValueError: an entry of that name is registered already (a bug of
                the caller: two modules claim one name).
        """
        if entry.name in self._entries:
            raise ValueError(f"{self.what} {entry.name!r} is registered already")
        self._entries[entry.name] = entry
        self.version += 1
        return entry

    def remove(self, name: str) -> E:
        """Unregister the entry ``name`` and return it (KeyError: none is registered)."""
        entry = self._entries.pop(name)
        self.version += 1
        return entry

    def bind(self, name: str, **implementation: Callable[..., Any]) -> E:
        """Attach the functions of a declared entry (its fields of those names), from the module that
        implements it: the declaration stays low, the code lives where it belongs.

        Raises:
            KeyError: no entry ``name``. TypeError: a field it does not have.
        """
        entry = dataclasses.replace(self._entries[name], **implementation)  # type: ignore[type-var]
        self._entries[name] = entry
        self.version += 1
        return entry

    @contextmanager
    def registered(self, *entries: E) -> Iterator[tuple[E, ...]]:
        """Register ``entries`` for the time of a ``with`` block, then remove them (even on an error)."""
        added: list[E] = []
        try:
            for entry in entries:
                added.append(self.add(entry))
            yield tuple(added)
        finally:
            for entry in reversed(added):
                self.remove(entry.name)

    def names(self) -> tuple[str, ...]:
        """Every registered name, in registration order."""
        return tuple(self._entries)

    def __getitem__(self, name: str) -> E:
        return self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[E]:
        return iter(tuple(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, name: str, *, file: str | None = None, key: str | None = None) -> E:
        """The entry ``name``.

        Raises:
            ComposerError: none is registered; one line naming the bad name, the
                closest one and every valid name (``file``/``key``: where it was written).
        """
        if name in self._entries:
            return self._entries[name]
        raise ComposerError(self.unknown(name), file=file, key=key)

    def unknown(self, name: object) -> str:
        """The message for a name no entry has: ``unknown format 'x'; valid formats are a, b``."""
        hint = did_you_mean(name, self._entries) if isinstance(name, str) else ""
        return f"unknown {self.what} {name!r}{hint}; valid {self.plural} are {', '.join(self._entries)}"
