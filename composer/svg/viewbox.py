"""The viewBox of an SVG document: the rectangle of user space its content is drawn in."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from lxml import etree

from composer.errors import SvgError
from composer.units import PX_PER_UNIT


@dataclass(frozen=True)
class ViewBox:
    """An SVG viewBox: origin and size in the document's user units."""

    x: float
    y: float
    width: float
    height: float


def view_box(root: etree._Element, *, source: str) -> ViewBox:
    """The root's viewBox, or ``0 0 width height`` in CSS px (the user unit of an
    SVG without a viewBox) when it has none.

    Raises:
        SvgError: no usable viewBox and no absolute width/height.
    """
    text = root.get("viewBox")
    if text:
        try:
            x, y, w, h = (float(v) for v in re.split(r"[\s,]+", text.strip()))
        except ValueError:
            raise SvgError(f"viewBox {text!r} is not four numbers", file=source) from None
        if not all(math.isfinite(v) for v in (x, y, w, h)):
            raise SvgError(f"viewBox {text!r} is not four finite numbers", file=source)
        if w <= 0 or h <= 0:
            raise SvgError(f"viewBox {text!r} has no area", file=source)
        return ViewBox(x, y, w, h)
    sizes = []
    for attr in ("width", "height"):
        value = root.get(attr, "")
        match = re.fullmatch(r"\s*([0-9.]+)\s*(pt|in|mm|cm|px|)\s*", value)
        if not match or match.group(1).count(".") > 1 or not 0 < float(match.group(1)) < math.inf:
            raise SvgError(f"no viewBox and {attr}={value!r} is not an absolute length", file=source)
        sizes.append(float(match.group(1)) * PX_PER_UNIT[match.group(2)])
    return ViewBox(0.0, 0.0, sizes[0], sizes[1])
