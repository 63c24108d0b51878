"""composer/text/html.py on its own: how much work a deeply nested label costs, and what is too deep."""

from __future__ import annotations

from lxml import etree

from composer.text import html


def label(levels: int) -> etree._Element:
    """A ``<foreignObject>`` of ``levels`` inline-blocks, each holding the next and a word."""
    inner = "x"
    for _ in range(levels):
        inner = f'<div style="display: inline-block">{inner} y</div>'
    return etree.fromstring('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject width="100" height="100">'
                            f'<div xmlns="http://www.w3.org/1999/xhtml">{inner}</div></foreignObject></svg>')[0]


def style_of(el: etree._Element) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (p.split(":", 1) for p in (el.get("style") or "").split(";") if ":" in p)}


def test_nested_shrink_to_fit_boxes_are_laid_out_a_bounded_number_of_times(monkeypatch):
    """Each inline-block's width needs its content's min- and max-content widths, each a layout of what it
    holds: without keeping them, 12 levels took 3^12 layouts (10 levels: 20 s). Each box is laid out once per
    width it is given (0 and unbounded for its sizes, its used width): at most 4 per level here."""
    calls = []
    inner = html._lay_box_in
    monkeypatch.setattr(html, "_lay_box_in", lambda *a: calls.append(a[0]) or inner(*a))
    group = html.layout_foreign_object(label(12), style_of, {}, set())
    texts = [t.text for t in group.iter("{http://www.w3.org/2000/svg}text")] if group is not None else []
    assert texts == ["x y"] + ["y"] * 11, texts  # each level's word after the box it holds
    assert len(calls) <= 4 * 13, len(calls)


def test_html_deeper_than_the_limit_is_not_drawn_and_said():
    unsupported: set[str] = set()
    assert html.layout_foreign_object(label(html.MAX_HTML_DEPTH), style_of, {}, set(), unsupported) is None
    assert unsupported == {f"HTML nested deeper than {html.MAX_HTML_DEPTH} elements (not drawn)"}
    unsupported.clear()
    assert html.layout_foreign_object(label(html.MAX_HTML_DEPTH - 1), style_of, {}, set(), unsupported) is not None
    assert not unsupported
