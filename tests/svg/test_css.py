"""The one CSS reader: declarations, the rules of <style>, which rules apply where and in what order.

Expected styles follow CSS Selectors 4 and CSS Cascade 4 by hand: a descendant rule applies only
inside its ancestor; the more specific selector wins whatever the order; at equal specificity the
later rule wins.
"""

from __future__ import annotations

import cssselect2
import tinycss2
from lxml import etree

from composer.svg.css import StyleSheet, declarations, qualified_rules, selector_texts

NS = "{http://www.w3.org/2000/svg}"


def _doc(style: str, body: str) -> etree._Element:
    return etree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg"><style>{style}</style>{body}</svg>')


def _styles(style: str, body: str) -> dict[str, dict[str, str]]:
    """Element id -> what the rules set on it."""
    root = _doc(style, body)
    return {el.get("id"): decls for el, decls in StyleSheet(root).by_element(root).items()}


def test_declarations_in_order_names_lower_cased_comments_and_junk_skipped():
    assert declarations("fill: red; Stroke-Width: 2") == (("fill", "red"), ("stroke-width", "2"))
    assert declarations("/* c */ fill:#fff ;; opacity : 0.5 ; bad") == (("fill", "#fff"), ("opacity", "0.5"))
    assert declarations("fill: red; fill: blue") == (("fill", "red"), ("fill", "blue"))  # both, the later wins
    assert declarations("") == ()


def test_qualified_rules_leave_at_rules_out():
    rules = list(qualified_rules("@media print { a { fill: red } } @import 'x.css'; b { fill: blue }"))
    assert [tinycss2.serialize(r.prelude).strip() for r in rules] == ["b"]


def test_selector_lists_split_only_at_top_level_commas():
    (rule,) = qualified_rules('a, b:not(c, d) , [title="x,y"] {fill: red}')
    assert selector_texts(rule) == ["a", "b:not(c, d)", '[title="x,y"]']


def test_a_descendant_rule_applies_only_inside_its_ancestor():
    styles = _styles("g.inner path {fill: red}",
                     '<g class="inner"><g><path id="deep"/></g></g><path id="outside"/><g><path id="other"/></g>')
    assert styles == {"deep": {"fill": "red"}}


def test_child_combinator_needs_the_direct_parent():
    styles = _styles("g > path {fill: red}", '<g><path id="child"/><a><path id="grandchild"/></a></g>')
    assert styles == {"child": {"fill": "red"}}


def test_more_specific_selector_wins_whatever_the_order():
    # written from most to least specific, so document order alone would pick green
    styles = _styles("#x {fill: blue} .c {fill: red; stroke: red} path {fill: green; stroke: green; opacity: 1}",
                     '<path id="x" class="c"/>')
    assert styles == {"x": {"fill": "blue", "stroke": "red", "opacity": "1"}}


def test_equal_specificity_later_rule_wins_across_style_elements():
    root = etree.fromstring('<svg xmlns="http://www.w3.org/2000/svg"><style>.a {fill: red} .b {fill: green}</style>'
                            '<path id="p" class="b a"/><style>.a {fill: blue}</style></svg>')
    (style,) = StyleSheet(root).by_element(root).values()
    assert style == {"fill": "blue"}


def test_matched_lists_rules_lowest_precedence_first():
    root = _doc("#p {fill: blue} * {fill: red} path {fill: green}", '<path id="p"/>')
    sheet = StyleSheet(root)
    path = next(w for w in cssselect2.ElementWrapper.from_xml_root(root).iter_subtree() if w.local_name == "path")
    assert sheet.matched(path) == [(("fill", "red"),), (("fill", "green"),), (("fill", "blue"),)]


def test_read_keeps_only_what_the_caller_wants():
    def fill_only(body: str):
        return tuple(d for d in declarations(body) if d[0] == "fill")

    root = _doc("path {stroke: red} g {fill: red; stroke: blue}", '<g id="g"><path id="p"/></g>')
    sheet = StyleSheet(root, fill_only)
    assert {el.get("id"): s for el, s in sheet.by_element(root).items()} == {"g": {"fill": "red"}}
    assert not StyleSheet(_doc("path {stroke: red}", "<path/>"), fill_only)  # no rule left: nothing applies


def test_unreadable_selectors_and_pseudo_elements_are_noted_not_applied():
    root = _doc("path:no-such-class {fill: red} text::before {fill: red} #ok {fill: blue}",
                '<path id="ok"/><text id="t">x</text>')
    sheet = StyleSheet(root)
    assert {el.get("id"): s for el, s in sheet.by_element(root).items()} == {"ok": {"fill": "blue"}}
    assert len(sheet.notes) == 2
    assert "path:no-such-class" in sheet.notes[0] and "text::before" in sheet.notes[1]


def test_no_style_element_no_rules():
    root = etree.fromstring('<svg xmlns="http://www.w3.org/2000/svg"><path/></svg>')
    assert not StyleSheet(root) and StyleSheet(root).by_element(root) == {}
