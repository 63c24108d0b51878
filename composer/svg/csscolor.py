"""CSS colours the export engines cannot read, written in sRGB as a browser draws them.

Chromium draws ``lab()``, ``lch()``, ``oklab()``, ``oklch()``, ``color()`` in each space of CSS Color 4
(``srgb``, ``srgb-linear``, ``display-p3``, ``a98-rgb``, ``prophoto-rgb``, ``rec2020``, ``xyz``,
``xyz-d50``, ``xyz-d65``), ``hwb()``, ``rgb()``/``hsl()`` in the space-separated syntax
(``rgb(255 0 0 / 50%)``) and CSS Color 5's ``color-mix()``; resvg reads only ``hwb()`` and
space-separated ``hsl()`` of these, and cairosvg none: both drew such a fill black.
:func:`resolve_css_colors` replaces each by the sRGB colour it names, ``#rrggbb`` (``rgba(r, g, b, a)``
when not opaque), clipped to the sRGB gamut per channel (as Chromium draws an out-of-gamut colour on an
sRGB display).

The conversions are coloraide's (``Color(...).convert("srgb")``: CSS Color 4's own matrices and
transfer functions, section 18, with the Bradford adaptation between D50 and D65), and so is the
mixing of ``color-mix()`` (premultiplied alpha and the hue interpolation CSS Color 4, 12.4, names), once
its percentages are normalized as CSS Color 5, 3.1 says. Legacy syntaxes (``rgb(0%, 0%, 0%)``,
``#hex``, names) are left as written: every engine reads them, and files that use only them keep their
bytes.

Not converted: relative colours (``rgb(from ...)``) and ``color-mix()`` of colours that are not all
literal (``currentcolor``, ``var()``); they stay as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import tinycss2
import tinycss2.ast
from lxml import etree

from composer.svg.csstokens import rewrite_tree

if TYPE_CHECKING:
    from coloraide import Color

__all__ = ["resolve_css_colors", "srgb_of"]

#: the colour functions some engine cannot read in some syntax (a quick test before parsing)
_FUNCTIONS = re.compile(r"(?<![\w-])(?:lab|lch|oklab|oklch|color|color-mix|hwb|rgba?|hsla?)\(", re.IGNORECASE)
#: the hue interpolation methods of CSS Color 4, 12.4 (``in oklch longer hue``), as coloraide names them
_HUE_METHODS = frozenset({"shorter", "longer", "increasing", "decreasing"})
#: the spaces ``color-mix()`` may mix in (CSS Color 5, 3.1: rectangular and polar), as coloraide names them
_MIX_SPACES = {"srgb": "srgb", "srgb-linear": "srgb-linear", "display-p3": "display-p3", "a98-rgb": "a98-rgb",
               "prophoto-rgb": "prophoto-rgb", "rec2020": "rec2020", "lab": "lab", "oklab": "oklab",
               "xyz": "xyz-d65", "xyz-d65": "xyz-d65", "xyz-d50": "xyz-d50", "hsl": "hsl", "hwb": "hwb",
               "lch": "lch", "oklch": "oklch"}


def _color(value: str | tinycss2.ast.Node) -> Color | None:
    """coloraide's colour for a CSS colour (``color-mix()`` included), or None for anything else
    (a keyword such as ``currentcolor``, ``var()``, a relative colour, an unparsable value)."""
    if not isinstance(value, str) and value.type == "function" and value.lower_name == "color-mix":
        return _mixed(value)
    from coloraide import Color

    text = value if isinstance(value, str) else value.serialize()
    try:
        return Color(text.strip())
    except ValueError:
        return None


def _mixed(token: tinycss2.ast.FunctionBlock) -> Color | None:
    """``color-mix(in SPACE [METHOD hue], C1 [P1], C2 [P2])`` (CSS Color 5, 3.1): both percentages
    normalized to sum 100 % (an omitted one is 100 % minus the other; both omitted, 50 % each; both 0 %,
    invalid), the mix premultiplied in SPACE, its alpha multiplied by the sum when that is below 100 %."""
    parts: list[list[tinycss2.ast.Node]] = [[]]
    for t in token.arguments:
        if t.type == "literal" and t.value == ",":
            parts.append([])
        elif t.type not in ("whitespace", "comment"):
            parts[-1].append(t)
    if len(parts) != 3:
        return None
    words = [t.lower_value for t in parts[0] if t.type == "ident"]
    if len(words) != len(parts[0]) or not words or words[0] != "in" or len(words) not in (2, 4):
        return None
    space = _MIX_SPACES.get(words[1])
    hue = "shorter"
    if len(words) == 4:
        if words[3] != "hue" or words[2] not in _HUE_METHODS:
            return None
        hue = words[2]
    if space is None:
        return None
    colors: list[Color] = []
    shares: list[float | None] = []
    for part in parts[1:]:
        found = [t for t in part if t.type != "percentage"]
        pct = [t.value for t in part if t.type == "percentage"]
        if len(found) != 1 or len(pct) > 1 or (pct and not 0 <= pct[0] <= 100):
            return None
        color = _color(found[0])
        if color is None:
            return None
        colors.append(color)
        shares.append(pct[0] if pct else None)
    first, second = shares
    p1 = first if first is not None else (100.0 - second if second is not None else 50.0)
    p2 = second if second is not None else 100.0 - p1
    total = p1 + p2
    if total <= 0:
        return None
    mixed = colors[0].mix(colors[1], p2 / total, space=space, premultiplied=True, hue=hue)
    if total < 100:
        mixed.set("alpha", mixed.alpha(nans=False) * total / 100)
    return mixed


def srgb_of(value: str | tinycss2.ast.Node) -> tuple[tuple[float, float, float], float] | None:
    """The ``((r, g, b), alpha)`` in sRGB, each 0..1 (not clipped), of a CSS colour, or None when it is
    not one that is converted here (a keyword, ``currentcolor``, an unparsable value, a relative colour)."""
    color = _color(value)
    if color is None:
        return None
    r, g, b = color.convert("srgb").coords(nans=False)
    return (float(r), float(g), float(b)), float(color.alpha(nans=False))


def _written(token: tinycss2.ast.FunctionBlock) -> str | None:
    """The sRGB colour ``token`` names, as every engine reads it; None to keep it as written."""
    name = token.lower_name
    if name in ("rgb", "rgba", "hsl", "hsla") and any(t.type == "literal" and t.value == "," for t in token.arguments) \
            and not (name.startswith("hsl") and _hue_out_of_turn(token)):
        return None  # the legacy syntax: read by every engine (but usvg, a hue below 0 or from 360 on)
    found = srgb_of(token)
    if found is None:
        return None
    (r, g, b), alpha = found
    channels = [round(min(max(c, 0.0), 1.0) * 255) for c in (r, g, b)]
    alpha = min(max(alpha, 0.0), 1.0)
    if alpha >= 1.0:
        return "#" + "".join(f"{c:02x}" for c in channels)
    return f"rgba({channels[0]}, {channels[1]}, {channels[2]}, {float(f'{alpha:.4f}'):g})"


def _hue_out_of_turn(token: tinycss2.ast.FunctionBlock) -> bool:
    """Whether an ``hsl()``'s hue is a number below 0 or from 360 on (mermaid writes ``hsl(-120, 100%, 50%)``:
    blue to Chromium, which takes the hue modulo 360; usvg draws no colour for it)."""
    first = next((t for t in token.arguments if t.type not in ("whitespace", "comment")), None)
    return first is not None and first.type == "number" and not 0 <= first.value < 360


def _rewrite(token: tinycss2.ast.FunctionBlock) -> str | None:
    return _written(token) if _FUNCTIONS.match(token.name + "(") else None


def resolve_css_colors(root: etree._Element) -> int:
    """Replace each CSS Color 4 colour the engines cannot read (see the module docstring) by the sRGB
    colour it names, in every attribute (presentation attributes and ``style``) and ``<style>`` sheet.
    Returns how many values changed."""
    return rewrite_tree(root, _FUNCTIONS, _rewrite)
