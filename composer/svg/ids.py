"""Prefixed ids: how the ids of one document are kept apart from another's in a merged tree.

An id ``figure_1`` of a document merged under the prefix ``rgb`` becomes
``rgb--figure_1``. Prefixes contain no ``-``, and ids that were not merged
(``panel-rgb``) contain no ``--`` after a prefix, so a prefixed id is told
apart from any other and its original is what follows the last separator.
"""

from __future__ import annotations

#: separator between the prefix and the original id.
SEPARATOR = "--"


def prefixed(prefix: str, original: str) -> str:
    """``prefixed("rgb", "figure_1") == "rgb--figure_1"``."""
    return f"{prefix}{SEPARATOR}{original}"


def original_id(element_id: str) -> str:
    """The id before prefixing: what follows the last separator (the id itself without one);
    ``original_id("rgb--DejaVuSans-30") == "DejaVuSans-30"``."""
    return element_id.rsplit(SEPARATOR, 1)[-1]
