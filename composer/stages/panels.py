"""Each panel alone at its final size (``compose NAME --panels``): for slides and supplementary files.

:func:`panel_alone` cuts one panel out of the composed canvas: the panel's
group exactly as the canvas holds it (the same fragment, so the same fonts,
styles, rasters and glyph outlines as in the figure), on a canvas of the
panel's box size, with the figure's background. The panel label and title
are not included: they belong to the figure's lettering, and a slide or a
supplementary file names the panel in its own words (docs/design.md,
"Panels alone"). Arrows, shapes and canvas text that only overlap the panel
are not part of it either.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

from lxml import etree

from composer.errors import SvgError
from composer.layout.model import Panel
from composer.stages.geometry import Box
from composer.svg.io import parse_svg, svg_tag, write_svg
from composer.units import fmt

#: canvas elements that draw nothing themselves and that a panel's content may refer to
_SHARED = ("defs", "style")


def panel_alone(canvas: bytes, panel: Panel, box: Box, *, source: str = "canvas") -> bytes:
    """The SVG document of one panel alone, ``box`` sized.

    Args:
        canvas: the composed figure (:func:`composer.stages.compose.compose`).
        panel: the panel; its group is ``<g id="panel-NAME">``.
        box: the panel's box on the canvas, pt.

    Returns:
        An SVG whose ``width``/``height`` are the box's in pt and whose
        viewBox is ``0 0 width height``: the panel's group moved by
        ``(-x, -y)``; the canvas's background rect, cut to the box; the
        canvas's top-level ``<defs>`` and ``<style>`` (the panel may use them).

    Raises:
        SvgError: the canvas has no group for the panel.
    """
    root = parse_svg(canvas, source=source)
    group = next((el for el in root if el.get("id") == f"panel-{panel.name}"), None)
    if group is None:
        raise SvgError(f"the canvas has no group panel-{panel.name}", file=source)
    out = etree.Element(svg_tag("svg"), nsmap=root.nsmap)
    out.set("width", f"{fmt(box.width_pt)}pt")
    out.set("height", f"{fmt(box.height_pt)}pt")
    out.set("viewBox", f"0 0 {fmt(box.width_pt)} {fmt(box.height_pt)}")
    out.set("version", root.get("version", "1.1"))
    for el in root:
        if not isinstance(el.tag, str):
            continue
        if el.get("id") == "background":
            out.append(etree.Element(svg_tag("rect"), id="background", x="0", y="0", width=fmt(box.width_pt),
                                     height=fmt(box.height_pt), fill=el.get("fill", "none")))
        elif etree.QName(el).localname in _SHARED:
            out.append(copy.deepcopy(el))
    moved = etree.SubElement(out, svg_tag("g"), transform=f"translate({fmt(-box.x_pt)} {fmt(-box.y_pt)})")
    moved.append(copy.deepcopy(group))
    return write_svg(out)


def panel_documents(canvas: bytes, panels: list[Panel], boxes: Mapping[str, Box], *,
                    source: str = "canvas") -> dict[str, bytes]:
    """Panel name -> :func:`panel_alone`, for every panel, in layout order."""
    return {p.name: panel_alone(canvas, p, boxes[p.name], source=source) for p in panels}


def panel_pdf_document(doc: bytes) -> bytes:
    """A render panel's document of :func:`panel_documents` as its PDF draws it: matplotlib's outlined text
    written as ``<text>`` (:func:`composer.text.realtext.pdf_document`; a panel alone holds no canvas text;
    an imported file's panel keeps its outlines: the caller does not ask)."""
    from composer.text.realtext import pdf_document

    return write_svg(pdf_document(parse_svg(doc, source="panel")))
