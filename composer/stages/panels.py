"""Each panel alone at its final size (``compose NAME --panels``): for slides and supplementary files.

:func:`panel_alone` cuts one panel out of the composed canvas: the panel's
group exactly as the canvas holds it (the same fragment, so the same fonts,
styles, rasters and glyph outlines as in the figure), on a canvas of the
panel's box size, grown to hold what the panel draws past its box
(:func:`drawn_extents`: a tick label a narrow cell pushes past its edge is on
the canvas, so it is in the panel alone too: cut at the box, ``0.950`` read
``.950``), with the figure's background. The panel label and title
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


def drawn_extents(canvas: bytes, panels: list[Panel], boxes: Mapping[str, Box]) -> dict[str, Box]:
    """Panel name -> the part of the canvas the panel draws on: its box, grown to the ink of its texts as
    ``compose check`` measures them (:func:`composer.svg.measure.scene`; the ``outside-panel`` rule reports
    such text), since a renderer's tick labels may reach past the box and show on the canvas (their ink cut
    at the canvas, as the figure is). An imported file is cut at its viewport, so its extent is its box."""
    from composer.stages.compose import without_textless
    from composer.svg.measure import scene

    drawn = scene(write_svg(without_textless(parse_svg(canvas, source="canvas"), 5)))  # texts alone: fast
    inks: dict[str, list[Box]] = {p.name: [boxes[p.name]] for p in panels}
    for run in drawn.texts:
        name = run.top.removeprefix("panel-")
        if not run.top.startswith("panel-") or name not in inks:
            continue
        x0, y0 = max(run.bbox[0], 0.0), max(run.bbox[1], 0.0)  # cut at the canvas, as the figure is
        x1, y1 = min(run.bbox[2], drawn.width_pt), min(run.bbox[3], drawn.height_pt)
        if x1 > x0 and y1 > y0:
            inks[name].append(Box(x0, y0, x1 - x0, y1 - y0))
    extents = {name: Box.spanning(found) for name, found in inks.items()}
    return extents


def panel_alone(canvas: bytes, panel: Panel, box: Box, *, source: str = "canvas") -> bytes:
    """The SVG document of one panel alone, ``box`` sized.

    Args:
        canvas: the composed figure (:func:`composer.stages.compose.compose`).
        panel: the panel; its group is ``<g id="panel-NAME">``.
        box: the part of the canvas the document shows, pt: the panel's box, or its :func:`drawn_extents`.

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
    """Panel name -> :func:`panel_alone` at its :func:`drawn_extents` (the panel as the figure shows it),
    for every panel, in layout order."""
    extents = drawn_extents(canvas, panels, boxes)
    return {p.name: panel_alone(canvas, p, extents[p.name], source=source) for p in panels}


def panel_pdf_document(doc: bytes) -> bytes:
    """A render panel's document of :func:`panel_documents` as its PDF draws it: matplotlib's outlined text
    written as ``<text>`` (:func:`composer.text.realtext.pdf_document`; a panel alone holds no canvas text;
    an imported file's panel keeps its outlines: the caller does not ask)."""
    from composer.text.realtext import pdf_document

    return write_svg(pdf_document(parse_svg(doc, source="panel")))
