"""Prefixed ids: how the ids of one document are kept apart from another's in a merged tree.

An id ``figure_1`` of a document merged under the prefix ``rgb`` becomes
``rgb--figure_1``. Prefixes contain no ``-``, and ids that were not merged
(``panel-rgb``) contain no ``--`` after a prefix, so a prefixed id is told
apart from any other and its original is what follows the last separator.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

#: separator between the prefix and the original id.
SEPARATOR = "--"


def prefixed(prefix: str, original: str) -> str:
    """``prefixed("rgb", "figure_1") == "rgb--figure_1"``."""
    return f"{prefix}{SEPARATOR}{original}"


def original_id(element_id: str) -> str:
    """The id before prefixing: what follows the last separator (the id itself without one);
    ``original_id("rgb--DejaVuSans-30") == "DejaVuSans-30"``."""
    return element_id.rsplit(SEPARATOR, 1)[-1]


def document_order(root: etree._Element, prefix: str, *, keep: Callable[[etree._Element], bool] = lambda _: False,
                   ) -> dict[str, str]:
    """New ids for an imported document: its ``n``-th id in document order (1-based) becomes
    ``prefix--n``; the id of an element for which ``keep`` is true stays itself, prefixed.

    Equal drawings then give equal bytes whatever names their producer gave (matplotlib's clip,
    marker and hatch ids are hashes salted with a random uuid unless ``svg.hashsalt`` is set;
    plotly's and mermaid's carry random numbers or the time). ``keep`` is for ids that carry
    meaning derived from the content itself (matplotlib's glyph ids ``DejaVuSans-30``: font and
    glyph index). Like svgo's ``cleanupIds``, numbering follows the tree; unlike it, every id is
    renamed, used or not. An id repeated in the document maps to its first occurrence's number.

    Returns:
        old id -> new id, for every distinct id of ``root`` (its own included).
    """
    mapping: dict[str, str] = {}
    n = 0
    for el in root.iter():
        ident = el.get("id") if isinstance(el.tag, str) else None
        if not ident or ident in mapping:
            continue
        if keep(el):
            mapping[ident] = prefixed(prefix, ident)
        else:
            n += 1
            mapping[ident] = prefixed(prefix, str(n))
    return mapping
