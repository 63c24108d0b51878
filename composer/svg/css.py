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

from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

import cssselect2
import tinycss2
from lxml import etree

from composer.svg.io import SVG_NS

Declarations = tuple[tuple[str, str], ...]  # (lower-case property name, value as written), in order


@lru_cache(maxsize=4096)
def declarations(text: str) -> Declarations:
    """Every declaration of a ``style`` attribute or rule body, ``(name, value)`` in order of
    appearance, names lower-cased, values serialized and stripped (an ``!important`` is dropped:
    :func:`weighed_declarations` keeps it). Cached: matplotlib repeats a few style strings on thousands of elements.

    ``declarations("fill: red; Stroke-Width: 2")`` is ``(("fill", "red"), ("stroke-width", "2"))``.
    """
    out = []
    for decl in tinycss2.parse_declaration_list(text, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            out.append((_name(decl), tinycss2.serialize(decl.value).strip()))
    return tuple(out)


def _name(decl: tinycss2.ast.Declaration) -> str:
    """A declaration's property name: lower-cased, but a custom property's (``--Main``) as written, since
    custom property names are case-sensitive (CSS Variables 1, 2)."""
    return decl.name if decl.name.startswith("--") else decl.lower_name


@lru_cache(maxsize=4096)
def weighed_declarations(text: str) -> Declarations:
    """As :func:`declarations`, with ``" !important"`` kept at the end of the value of each important
    declaration (``"fill: red !important"`` -> ``(("fill", "red !important"),)``)."""
    out = []
    for decl in tinycss2.parse_declaration_list(text, skip_comments=True, skip_whitespace=True):
        if decl.type == "declaration":
            value = tinycss2.serialize(decl.value).strip()
            out.append((_name(decl), f"{value} !important" if decl.important else value))
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


#: pseudo-classes the export engine's CSS matcher (usvg's simplecss) knows; ``:root`` is rewritten to the
#: panel's root when a style sheet is scoped (:func:`composer.stages.fragment.scope_css`)
_ENGINE_PSEUDO_CLASSES = frozenset({"first-child", "root"})
#: attribute selector operators the engine knows (presence, ``=``, ``~=``, ``|=``)
_ENGINE_ATTRIBUTE_OPERATORS = frozenset({"=", "~=", "|="})


def engine_matches(prelude: list[tinycss2.ast.Node]) -> bool:
    """Whether the export engine's own CSS matcher reads every selector of a rule's prelude as
    Selectors 4 does: type, universal, class, id and attribute selectors (presence, ``=``, ``~=``,
    ``|=``), the descendant, child (``>``) and next-sibling (``+``) combinators, ``:first-child`` and
    ``:root``. Anything else (``:not()``, ``:is()``, ``:nth-child()``, ``:last-child``, ``~``,
    ``[a^=b]``, ``[a$=b]``, ``[a*=b]``, a namespace ``|``) the engine ignores, the rule with it
    (measured on typst's resvg: such a rule styles nothing)."""
    for i, token in enumerate(prelude):
        if token.type == "literal" and token.value in ("~", "|"):
            return False
        if token.type == "[] block":
            for inner in token.content:
                if inner.type == "literal" and (inner.value in ("^=", "$=", "*=", "|")
                                                or inner.value.endswith("=") and inner.value not in
                                                _ENGINE_ATTRIBUTE_OPERATORS):
                    return False
        if token.type == "literal" and token.value == ":":
            after = prelude[i + 1] if i + 1 < len(prelude) else None
            before = prelude[i - 1] if i else None
            if before is not None and before.type == "literal" and before.value == ":":
                continue  # the name of a pseudo-element (::before): it styles nothing anywhere
            if after is not None and after.type == "literal" and after.value == ":":
                continue
            if after is None or after.type != "ident" or after.lower_value not in _ENGINE_PSEUDO_CLASSES:
                return False
    return True


def _important(value: str) -> tuple[str, bool]:
    """``"red !important"`` -> ``("red", True)``; ``"red"`` -> ``("red", False)``."""
    head, bang, tail = value.rpartition("!")
    if bang and tail.strip().lower() == "important":
        return head.strip(), True
    return value, False


def cascade(rules: Iterable[Declarations], style: str) -> dict[str, tuple[str, bool]]:
    """The winning value of each property an element's rules and its own ``style`` attribute set, and
    whether a rule gave it: property -> ``(value, by_rule)``, ``!important`` dropped from the value.

    ``rules``: the :func:`weighed_declarations` of the rules matching the element, lowest precedence
    first (:meth:`StyleSheet.matched` of a sheet read with them). The order is CSS Cascade 4, 6.4: rules
    by specificity, then order; the element's own ``style`` over rules; ``!important`` rule declarations
    over its normal ``style``, and its own ``!important`` ones over everything (presentation attributes
    lose to all of these). Properties come in the order they were first set.
    """
    ranks: list[dict[str, tuple[str, bool]]] = [{}, {}, {}, {}]  # rules, style, rules !important, style !important
    for decls in rules:
        for prop, value in decls:
            text, important = _important(value)
            ranks[2 if important else 0][prop] = (text, True)
    for prop, value in weighed_declarations(style):
        text, important = _important(value)
        ranks[3 if important else 1][prop] = (text, False)
    winners: dict[str, tuple[str, bool]] = {}
    for rank in ranks:
        winners.update(rank)
    return winners


def inline_style_sheets(root: etree._Element, *, always: bool = False) -> int:
    """When a ``<style>`` of the document has a rule the export engine cannot match
    (:func:`engine_matches`), or ``always``, apply every rule of every ``<style>`` to the elements it
    selects and remove those rules; returns how many elements got a new ``style`` (0: nothing done).

    The rules are matched by cssselect2 against the document as it stands alone (its root is
    ``:root``, ``svg:not(.x)`` names it as in a browser), before any id or class changes. Each
    matched element's ``style`` becomes the cascade's winner of every property (CSS Cascade 4, 6.4):
    rules by specificity, then order; the element's own ``style`` over rules; ``!important`` rule
    declarations over its normal ``style`` and its ``!important`` ones over everything; presentation
    attributes lose to all of these, as before. A browser's drawing of the file is unchanged (a
    ``style`` attribute holds what the rules gave), and every renderer now draws it so. Rules in
    at-rules are not applied: conditional blocks (``@media``, ``@supports``, ``@layer``) stay in their
    ``<style>``, to be applied where the panel's size is known
    (:func:`composer.svg.cssconditions.flatten_conditional_rules`); a ``<style>`` left with nothing is
    removed. Rules that cssselect2 cannot read are dropped (CSS drops an invalid selector list whole).
    """
    styles = list(root.iter(f"{{{SVG_NS}}}style"))
    if not always and all(engine_matches(rule.prelude) for style in styles
                          for rule in qualified_rules(style.text or "")):
        return 0
    sheet = StyleSheet(root, weighed_declarations)
    count = 0
    for wrapper in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree():
        found = sheet.matched(wrapper) if sheet else []
        if not found:
            continue
        el = wrapper.etree_element
        winners = cascade(found, el.get("style") or "")
        el.set("style", "; ".join(f"{prop}: {value}" for prop, (value, _) in winners.items()))
        count += 1
    for style in styles:
        parent = style.getparent()
        if parent is None:
            continue
        kept = [node.serialize() for node in tinycss2.parse_stylesheet(style.text or "", skip_comments=True,
                                                                         skip_whitespace=True)
                if node.type == "at-rule" and node.lower_at_keyword in _KEPT_AT_RULES and node.content is not None]
        if kept:
            style.text = "\n".join(kept)
            continue
        previous = style.getprevious()
        if style.tail:  # keep the text around it where it was (inside a <text>, it is drawn)
            if previous is not None:
                previous.tail = (previous.tail or "") + style.tail
            else:
                parent.text = (parent.text or "") + style.tail
        parent.remove(style)
    return count


#: conditional group rules kept by :func:`inline_style_sheets`, applied later at the panel's size
_KEPT_AT_RULES = frozenset({"media", "supports", "layer"})
