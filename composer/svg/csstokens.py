"""Rewriting CSS functions in place: the one token walk the value passes share.

A pass that replaces some CSS function by what it stands for (``lab()`` by the sRGB colour it names,
:mod:`composer.svg.csscolor`; ``light-dark(L, D)`` by ``L``, :mod:`composer.svg.cssconditions`) walks
the component values tinycss2 parses (CSS Syntax 3, section 5.4.9) and serializes everything it does not
replace as written, nested blocks and functions included, and does so in every presentation attribute,
``style`` attribute and ``<style>`` sheet of a tree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import tinycss2
import tinycss2.ast
from lxml import etree

from composer.svg.io import SVG_NS

#: A function's replacement: its CSS text, or ``None`` to keep the function (its arguments rewritten).
Rewrite = Callable[[tinycss2.ast.FunctionBlock], "str | None"]

_BRACKETS = {"() block": "()", "[] block": "[]", "{} block": "{}"}


def rewritten(tokens: Iterable[tinycss2.ast.Node], rewrite: Rewrite) -> str:
    """``tokens`` serialized, each function replaced by ``rewrite(function)`` where that is a string;
    a function it keeps (``None``) and every block are walked into, so nested functions are rewritten
    too. ``rewrite`` may call :func:`rewritten` on the arguments it keeps."""
    out: list[str] = []
    for token in tokens:
        if token.type == "function":
            written = rewrite(token)
            out.append(written if written is not None else f"{token.name}({rewritten(token.arguments, rewrite)})")
        elif token.type in _BRACKETS:
            pair = _BRACKETS[token.type]
            out.append(pair[0] + rewritten(token.content, rewrite) + pair[1])
        else:
            out.append(token.serialize())
    return "".join(out)


def rewrite_tree(root: etree._Element, found: re.Pattern[str], rewrite: Rewrite) -> int:
    """Apply :func:`rewritten` to every attribute value (``href`` attributes excepted: a URL is no CSS)
    and every ``<style>`` sheet of ``root`` in which ``found`` finds a match (a cheap test before
    tinycss2 parses). Returns how many values changed. Each distinct value is parsed once (``rewrite``
    is a function of the value alone): a file repeats a few values over thousands of elements (a PDF's
    drawing as SVG writes ``fill="rgb(12%, 34%, 56%)"`` on every path)."""
    count = 0
    done: dict[str, str] = {}  # value -> rewritten, in this tree
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr, value in el.attrib.items():
            if not attr.endswith("href") and found.search(value):
                new = done.get(value)
                if new is None:
                    new = done[value] = rewritten(tinycss2.parse_component_value_list(value), rewrite)
                if new != value:
                    el.set(attr, new)
                    count += 1
        if el.tag == f"{{{SVG_NS}}}style" and el.text and found.search(el.text):
            new = rewritten(tinycss2.parse_component_value_list(el.text), rewrite)
            if new != el.text:
                el.text = new
                count += 1
    return count
