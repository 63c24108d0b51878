"""matplotlib's font messages, collected while it draws: fonts it substituted, characters it has no glyph for.

:func:`font_substitutions` gathers the ``findfont`` warnings (a family or a weight not found) that
composer reports once each, as warnings; :func:`missing_glyphs` the characters drawn without a glyph
(empty boxes), which are an error of the panel or guide that draws them. The messages are recognised
by :mod:`composer.mpl.internals`.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from composer.mpl.internals import (
    family_not_found,
    forget_font_lookups,
    mathtext_missing_char,
    text_missing_char,
    weight_not_found,
)


class _FontLog(logging.Handler):
    """Collects matplotlib's font substitution warnings: a family not found, a weight not found.

    ``echo``: also hand each record to :data:`logging.lastResort`, as logging
    would have done had this handler not been there (no other handler).
    """

    def __init__(self, echo: bool) -> None:
        super().__init__(logging.WARNING)
        self.found: dict[str, str] = {}
        self.echo = echo

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        family = family_not_found(message)
        weight = weight_not_found(message)
        if family:
            self.found[family] = f"font {family!r} is not installed; matplotlib drew the text in its fallback font"
        elif weight:
            asked, font, used = weight
            self.found[f"{font} {asked}"] = (f"font {font!r} has no weight {asked}; "
                                             f"matplotlib drew weight {used} instead")
        known = family or weight  # composer reports these itself, once, as a ComposerWarning
        if (self.echo and not known and logging.lastResort is not None
                and record.levelno >= logging.lastResort.level):
            logging.lastResort.handle(record)


def _unhandled(logger: logging.Logger) -> bool:
    """True when no handler would see ``logger``'s records (logging then uses ``lastResort``)."""
    current: logging.Logger | None = logger
    while current is not None:
        if current.handlers:
            return False
        if not current.propagate:
            break
        current = current.parent
    return True


@contextmanager
def font_substitutions() -> Iterator[dict[str, str]]:
    """While matplotlib draws inside this block, collect the fonts it substituted.

    Yields a dict, filled as it happens: font (and weight) asked for -> what
    matplotlib did instead. matplotlib caches font lookups and warns only on a
    font's first lookup in a process, so the cache is emptied first (through
    ``FontManager._findfont_cached``, private to matplotlib:
    :func:`composer.mpl.internals.forget_font_lookups`; should it go away,
    a long-lived process sees each substitution the first time only). Panel
    workers are forked, so emptying it there leaves the parent's cache alone.
    matplotlib's other log lines are shown as they would have been without it;
    the substitutions it logs (``findfont: Font family ... not found``, once
    per lookup) are not: composer reports each once, as a warning.
    """
    forget_font_lookups()
    logger = logging.getLogger("matplotlib.font_manager")
    handler = _FontLog(echo=_unhandled(logger))
    logger.addHandler(handler)
    try:
        yield handler.found
    finally:
        logger.removeHandler(handler)


class _GlyphLog(logging.Handler):
    def __init__(self, missing: list[str]):
        super().__init__(logging.WARNING)
        self.missing = missing

    def emit(self, record: logging.LogRecord) -> None:
        char = mathtext_missing_char(record.getMessage())
        if char is not None:
            self.missing.append(char)


class missing_glyphs:
    """Collect characters matplotlib drew without a glyph (its warning and mathtext's log): ``with
    missing_glyphs() as missing:``, the list of characters filled when the block ends. Other warnings are
    shown as they would have been."""

    def __enter__(self) -> list[str]:
        self.missing: list[str] = []
        self._warnings = warnings.catch_warnings(record=True)
        self._caught = self._warnings.__enter__()
        warnings.simplefilter("always")
        self._handler = _GlyphLog(self.missing)
        self._logger = logging.getLogger("matplotlib.mathtext")
        self._logger.addHandler(self._handler)
        return self.missing

    def __exit__(self, *exc: Any) -> None:
        self._logger.removeHandler(self._handler)
        self._warnings.__exit__(*exc)
        for w in self._caught:
            char = text_missing_char(str(w.message))
            if char is not None:
                self.missing.append(char)
            else:  # through the filters in force, as if never caught: a ResourceWarning stays ignored
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def glyph_list(chars: list[str]) -> str:
    """Characters as a message shows them: ``'中' (U+4E2D)``, each once, sorted, at most 8 then ``...``."""
    unique = sorted(set(chars))
    return ", ".join(f"{c!r} (U+{ord(c):04X})" for c in unique[:8]) + (" ..." if len(unique) > 8 else "")
