"""CSS of SVG documents: declarations, the rules of ``<style>`` elements, and which rules apply where.

One reader for every place that needs a stylesheet: tinycss2 parses
(CSS Syntax 3), cssselect2 matches selectors (Selectors 4) against the
document tree, as cairosvg does. :class:`StyleSheet` holds the rules of
every ``<style>`` of a document with the declarations a caller asked for;
:meth:`StyleSheet.matched` gives the declarations that apply to an element
in cascade order (CSS Cascade 4, 6.4: specificity, then order of
appearance), so that ``dict.update`` over them leaves the winner of each
property. The full cascade of a property is then: presentation attribute
< ``<style>`` rules < ``style`` attribute (SVG 2, 6.8), which callers
assemble, since each reads its own properties.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache

import cssselect2
import tinycss2
from lxml import etree

from composer.svg.io import SVG_NS

Declarations = tuple[tuple[str, str], ...]  # (lower-case property name, value as written), in order


@lru_cache(maxsize=4096)
def declarations(text: str) -> Declarations:
    """Every declaration of a ``style`` attribute or rule body, ``(name, value)`` in order of
    appearance, names lower-cased, values serialized and stripped (``!important`` dropped: tinycss2
    gives it as a flag). Cached: matplotlib repeats a few style strings on thousands of elements.

    ``declarations("fill: red; Stroke-Width: 2")`` is ``(("fill", "red"), ("stroke-width", "2"))``.
    """
    out = []
    for decl in tinycss2.parse_declaration_list(text, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append((decl.lower_name, tinycss2.serialize(decl.value).strip()))
    return tuple(out)


def qualified_rules(css: str) -> Iterator[tinycss2.ast.QualifiedRule]:
    """The style rules of a stylesheet in order, at-rules (``@media``, ``@import``...) left out."""
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            yield rule


def selector_texts(rule: tinycss2.ast.QualifiedRule) -> list[str]:
    """The selectors of a rule's comma-separated list, each serialized and stripped. Commas inside
    functions and strings (``:not(a, b)``, ``[title="a,b"]``) do not separate selectors."""
    parts: list[list[tinycss2.ast.Node]] = [[]]
    for token in rule.prelude:
        if token.type == "literal" and token.value == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return [tinycss2.serialize(part).strip() for part in parts]


class StyleSheet:
    """The rules of every ``<style>`` element of a document, in document order.

    Args:
        root: the document's root element.
        read: a rule body's text -> the declarations the caller wants from it
            (a rule without any is left out; for instance only the properties
            it measures). Called once per rule; cache it if rules repeat.

    Attributes:
        notes: one line per rule whose selector list cssselect2 cannot read
            (such a rule is dropped whole, as CSS says, Selectors 4, 3.1) or
            that selects pseudo-elements only (they style no element).
    """

    def __init__(self, root: etree._Element, read: Callable[[str], Declarations] = declarations):
        self.notes: list[str] = []
        self._matcher = cssselect2.Matcher()
        self._count = 0
        for style in root.iter(f"{{{SVG_NS}}}style"):
            for rule in qualified_rules(style.text or ""):
                decls = read(tinycss2.serialize(rule.content))
                if not decls:
                    continue
                try:
                    selectors = cssselect2.compile_selector_list(rule.prelude)
                except cssselect2.SelectorError:
                    self.notes.append(f"CSS selector {tinycss2.serialize(rule.prelude).strip()!r} is not "
                                      "understood; its rules were not applied")
                    continue
                for selector in selectors:
                    if selector.pseudo_element is not None:
                        self.notes.append(f"CSS selector {tinycss2.serialize(rule.prelude).strip()!r} styles a "
                                          "pseudo-element; its rules were not applied")
                        continue
                    self._matcher.add_selector(selector, decls)
                    self._count += 1

    def __bool__(self) -> bool:
        """True when at least one rule can apply to an element."""
        return self._count > 0

    def matched(self, element: cssselect2.ElementWrapper) -> list[Declarations]:
        """The declarations of every rule that applies to ``element``, lowest precedence first
        (specificity, then order in the document)."""
        return [payload for _, _, _, payload in self._matcher.match(element)]

    def by_element(self, root: etree._Element) -> dict[etree._Element, dict[str, str]]:
        """Every element under ``root`` (itself included) that a rule applies to -> the winning
        declaration of each property the rules set, matched in the document tree as it stands."""
        out: dict[etree._Element, dict[str, str]] = {}
        if not self:
            return out
        for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
            found = self.matched(wrapper)
            if found:
                style: dict[str, str] = {}
                for decls in found:
                    style.update(decls)
                out[wrapper.etree_element] = style
        return out
