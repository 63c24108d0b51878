"""Pin ``<text>`` to matplotlib's layout: one x per character, the same in every renderer.

An SVG ``<text>`` names a start (or, with ``text-anchor``, a middle or end)
and leaves the rest to the renderer. Renderers lay the same string out
differently: cairosvg places each character by its own advance, rounded to
whole device pixels in a PNG and not in a PDF, and knows no kerning;
browsers kern. A word drifts by a pixel or two between the PNG, the PDF and
the browser, and a right-aligned tick label no longer ends where matplotlib
measured it.

:func:`pin_text_positions` rewrites every simple text run of the canvas
(the ``<text>`` that matplotlib writes under ``svg.fonttype = "none"``, and
``<text>``/``<tspan>`` lines of imported SVG files) with an explicit x for
every character, from matplotlib's layout in the font matplotlib finds for
it (:func:`composer.text.metrics.char_x`: kerning on, ligatures off), the start
moved by the anchor and the anchor set to ``start``. Whitespace is settled
first (``xml:space="preserve"`` is written with the characters every
renderer will then show): text that matplotlib laid out keeps its spaces
(``"  z=25"``); imported text is collapsed as SVG 1.1 (10.15) says its own
viewer did.

Left alone (drawn as before): text with child elements, several x (or a
``<tspan>`` with none: it continues the run before it),
``dx``/``dy``/``rotate``/``textLength``, letter or word spacing, a
``<textPath>``, an anchor that continues into a following run, and fonts
matplotlib does not have.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lxml import etree

from composer.text.fonts import css_style, css_weight, matplotlib_font, parse_families, text_elements
from composer.units import fmt

_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")
_NOT_PINNED = ("dx", "dy", "rotate", "textLength", "lengthAdjust")


def pin_text_positions(root: etree._Element, *, scope: Callable[[etree._Element], str | None]) -> int:
    """Pin the text runs of the canvas ``root`` in place (see module docstring).

    Args:
        scope: for an element, ``"laid-out"`` when matplotlib laid its text out
            (spaces kept), ``"imported"`` for text from an SVG file (spaces
            collapsed as SVG 1.1), None to leave it alone.

    Returns:
        How many runs were pinned.
    """
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    from composer.text.metrics import char_x

    count = 0
    for el, props in text_elements(root):
        kind = scope(el)
        if kind is None or len(el) or not (el.text or "").strip():
            continue
        if etree.QName(el).localname == "textPath" or any(el.get(a) is not None for a in _NOT_PINNED):
            continue
        x = el.get("x")
        if x is None and etree.QName(el).localname == "text":
            x = "0"  # a <text> starts at x = 0 (matplotlib's rotated text: transform="translate() rotate()")
        if x is None or not _NUMBER.fullmatch(x):
            continue
        if props.get("letter-spacing", "normal") not in ("normal", "0", "0px") or \
                props.get("word-spacing", "normal") not in ("normal", "0", "0px"):
            continue
        anchor = props.get("text-anchor", "start")
        if anchor not in ("start", "middle", "end"):
            continue
        if anchor != "start" and _continues(el):
            continue
        text = el.text or ""
        if kind != "laid-out" and props.get("xml:space") != "preserve":
            text = _collapse(text)
        families = parse_families(props.get("font-family", "sans-serif"))
        weight, style = css_weight(props.get("font-weight", "")), css_style(props.get("font-style", ""))
        if matplotlib_font(families, weight, style) is None:
            continue
        prop = FontProperties(family=list(families), size=props["font-size"], weight=weight, style=style)  # type: ignore[arg-type]  # one of STYLES
        xs = char_x(text, prop)
        if not xs:
            continue
        width = float(text_to_path.get_text_width_height_descent(text, prop, ismath=False)[0])
        x0 = float(x) - {"middle": width / 2, "end": width}.get(anchor, 0.0)
        el.set("x", " ".join(fmt(x0 + dx) for dx in xs))
        el.text = text
        el.set(_XML_SPACE, "preserve")
        style_attr = re.sub(r"(^|;)\s*text-anchor\s*:[^;]*", r"\1", el.get("style", "")).strip("; ")
        el.set("style", (style_attr + "; " if style_attr else "") + "text-anchor: start")
        count += 1
    return count


def _continues(el: etree._Element) -> bool:
    """True when the text chunk starting at ``el`` goes on after it (tail text, or a following
    run without its own x), so its anchor would align more than ``el``."""
    if (el.tail or "").strip():
        return True
    sibling = el.getnext()
    while sibling is not None:
        if not isinstance(sibling.tag, str):
            sibling = sibling.getnext()
            continue
        return sibling.get("x") is None
    return False


def _collapse(text: str) -> str:
    """SVG 1.1 ``xml:space="default"``: drop newlines, tabs to spaces, trim, squeeze spaces."""
    text = re.sub(r"[\n\r]", "", text).replace("\t", " ").strip(" ")
    return re.sub(r" +", " ", text)
