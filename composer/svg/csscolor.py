"""CSS Color 4 colours the export engines cannot read, written in sRGB as a browser draws them.

Chromium draws ``lab()``, ``lch()``, ``oklab()``, ``oklch()``, ``color(srgb ...)`` and the other
``color()`` spaces of XYZ, ``hwb()``, and ``rgb()``/``hsl()`` in the space-separated syntax
(``rgb(255 0 0 / 50%)``); resvg reads only ``hwb()`` and space-separated ``hsl()`` of these, and
cairosvg none: both drew such a fill black. :func:`resolve_css_colors` replaces each by the sRGB colour
it names, ``#rrggbb`` (``rgba(r, g, b, a)`` when not opaque), clipped to the sRGB gamut per channel
(as Chromium draws an out-of-gamut colour on an sRGB display).

Parsing is tinycss2's (:func:`tinycss2.color4.parse_color`, CSS Color 4); Lab and LCh are converted
from their D50 white to XYZ by tinycss2, adapted to D65 by the Bradford matrix of CSS Color 4 (section
18, ``D50_to_D65``), and XYZ (D65) to sRGB by colorspacious (``XYZ1`` -> ``sRGB1``). Legacy syntaxes
(``rgb(0%, 0%, 0%)``, ``#hex``, names) are left as written: every engine reads them, and files that use
only them keep their bytes.

Not converted: ``color-mix()`` and relative colours (``rgb(from ...)``), which tinycss2 does not parse,
and the ``color()`` spaces with their own primaries (``display-p3``, ``a98-rgb``, ``prophoto-rgb``,
``rec2020``); they stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import tinycss2
import tinycss2.color4
from lxml import etree

from composer.svg.io import SVG_NS

__all__ = ["resolve_css_colors", "srgb_of"]

#: the colour functions some engine cannot read in some syntax (a quick test before parsing)
_FUNCTIONS = re.compile(r"(?<![\w-])(?:lab|lch|oklab|oklch|color|hwb|rgba?|hsla?)\(", re.IGNORECASE)
#: spaces converted to sRGB through XYZ (D65); Lab/LCh and xyz-d50 through XYZ (D50) first
_VIA_D65 = {"oklab", "oklch", "xyz-d65", "xyz"}
_VIA_D50 = {"lab", "lch", "xyz-d50"}
#: CSS Color 4, section 18 (sample code, ``D50_to_D65``): Bradford chromatic adaptation, D50 -> D65
_D50_TO_D65 = ((0.955473421488075, -0.02309845494876471, 0.06325924320057072),
               (-0.0283697093338637, 1.0099953980813041, 0.021041441191917323),
               (0.012314014864481998, -0.020507649298898964, 1.330365926242124))


def srgb_of(value: str | tinycss2.ast.Node) -> tuple[tuple[float, float, float], float] | None:
    """The ``((r, g, b), alpha)`` in sRGB, each 0..1 (not clipped), of a CSS colour, or None when it is
    not one that is converted here (a keyword, ``currentcolor``, an unparsable value, a space with its
    own primaries)."""
    color = tinycss2.color4.parse_color(value)
    if color is None or isinstance(color, str):
        return None
    space = color.space
    coordinates = tuple(c or 0.0 for c in color.coordinates)
    if space in ("srgb", "hsl", "hwb"):
        rgb = color.to("srgb").coordinates if space != "srgb" else coordinates
        return (float(rgb[0] or 0), float(rgb[1] or 0), float(rgb[2] or 0)), float(color.alpha)
    if space == "srgb-linear":
        from colorspacious import cspace_convert

        rgb = cspace_convert(coordinates, "sRGB1-linear", "sRGB1")
        return (float(rgb[0]), float(rgb[1]), float(rgb[2])), float(color.alpha)
    if space in _VIA_D50:
        x, y, z = coordinates if space == "xyz-d50" else color.to("xyz-d50").coordinates
        xyz = tuple(row[0] * x + row[1] * y + row[2] * z for row in _D50_TO_D65)
    elif space in _VIA_D65:
        xyz = coordinates if space.startswith("xyz") else tuple(color.to("xyz-d65").coordinates)
    else:
        return None
    from colorspacious import cspace_convert

    rgb = cspace_convert(xyz, "XYZ1", "sRGB1")
    return (float(rgb[0]), float(rgb[1]), float(rgb[2])), float(color.alpha)


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


def _converted(tokens: Iterable[tinycss2.ast.Node]) -> str:
    out: list[str] = []
    for token in tokens:
        if token.type == "function":
            written = _written(token) if _FUNCTIONS.match(token.name + "(") else None
            out.append(written if written is not None else f"{token.name}({_converted(token.arguments)})")
        elif token.type in ("() block", "[] block", "{} block"):
            pair = {"() block": "()", "[] block": "[]", "{} block": "{}"}[token.type]
            out.append(pair[0] + _converted(token.content) + pair[1])
        else:
            out.append(token.serialize())
    return "".join(out)


def resolve_css_colors(root: etree._Element) -> int:
    """Replace each CSS Color 4 colour the engines cannot read (see the module docstring) by the sRGB
    colour it names, in every attribute (presentation attributes and ``style``) and ``<style>`` sheet.
    Returns how many values changed."""
    count = 0
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr, value in el.attrib.items():
            if not attr.endswith("href") and _FUNCTIONS.search(value):
                new = _converted(tinycss2.parse_component_value_list(value))
                if new != value:
                    el.set(attr, new)
                    count += 1
        if el.tag == f"{{{SVG_NS}}}style" and el.text and _FUNCTIONS.search(el.text):
            new = _converted(tinycss2.parse_component_value_list(el.text))
            if new != el.text:
                el.text = new
                count += 1
    return count
