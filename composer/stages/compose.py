"""Compose stage: rendered panels and the resolved geometry -> the canvas SVG (pure).

:func:`figure_geometry` resolves every box and route (with the rendered
panels' data anchors); :func:`compose` imports each panel (a rendered
matplotlib SVG, an imported SVG file, a PNG/JPEG image) into its box and
draws shapes, connectors, texts, panel labels and titles on one canvas.
Nothing here reads or writes a file: the inputs come from
:mod:`composer.stages.inputs`, the panels from the render stage
(:func:`composer.pipeline.render_panels` or the panel cache).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from lxml import etree

from composer.errors import SvgError
from composer.layout.model import Figure, Panel
from composer.mpl.internals import quiet_family_lookups
from composer.stages import draw, guides
from composer.stages.describe import alt_text, describe
from composer.stages.fragment import import_fragment
from composer.stages.geometry import (
    Box,
    Geometry,
    content_bottom_pt,
    guide_rooms,
    imported_svgs,
    panel_boxes,
    resolve,
)
from composer.stages.inkscape import label_elements
from composer.stages.inputs import Inputs
from composer.stages.render import RenderedPanel, rendered_size
from composer.stages.sources import Drawing, source_of
from composer.stages.typeset import Typeset, fill_text, typeset_figure, typeset_text
from composer.svg.budget import over_budget
from composer.svg.geometry import BBox
from composer.svg.images import finish_rasters
from composer.svg.io import NSMAP, parse_svg, svg_tag, write_svg
from composer.svg.viewbox import place, view_box
from composer.text import realtext
from composer.text.fonts import check_missing_glyphs, check_svg_fonts
from composer.text.pin import outline_unrendered_fonts, pin_text_positions
from composer.units import PT_PER_UNIT, fmt, to_pt


def figure_geometry(inputs: Inputs, rendered: Mapping[str, RenderedPanel],
                    typeset: Typeset | None = None) -> Geometry:
    """Every box and route of the figure, with the data anchors and plot areas the panels' sources report (pure)."""
    typeset = typeset or typeset_figure(inputs)
    drawn = guide_drawings(inputs, rendered, typeset)
    panels = inputs.figure.panels
    drawings = _drawings(inputs, rendered, typeset)  # what each source reports from
    anchors = {p.name: source_of(p).anchors(p, drawings[p.name]) for p in panels}
    return resolve(inputs.figure, typeset.text_sizes, typeset.shape_sizes,
                   {name: found for name, found in anchors.items() if found is not None}, file=inputs.file,
                   plot_areas=_plot_areas(inputs, drawings), panel_sizes=_panel_sizes(inputs, rendered),
                   imported=imported_svgs(inputs.figure, inputs.documents), guide_sizes=guides.guide_sizes(drawn),
                   text_boxes=_beside_texts(inputs, rendered))


def _beside_texts(inputs: Inputs, rendered: Mapping[str, RenderedPanel]) -> dict[str, tuple[tuple[str, BBox], ...]]:
    """The texts as drawn of every rendered panel a ``beside`` text stands beside (:func:`panel_texts`), for
    its gap (:func:`composer.stages.geometry.resolve`'s ``text_boxes``)."""
    names = {name for text in inputs.figure.texts for name in text.place.beside}
    return {name: panel_texts(rendered[name].svg) for name in sorted(names) if name in rendered}


#: the groups matplotlib's SVG writes for artists that draw no text (``<g id="PathCollection_1">``...): left
#: out before a panel's texts are measured (:func:`panel_texts`), since walking a 1e5-point scatter's markers
#: took 5.8 s and its texts alone 0.3 s
_TEXTLESS = re.compile(r"^(?:\w+--)?(?:PathCollection|LineCollection|PolyCollection|QuadMesh|"
                       r"FillBetweenPolyCollection|line2d|patch|image)_\d+$")  # in a canvas: NAME--patch_1


def without_textless(root: etree._Element, depth: int) -> etree._Element:
    """A copy of an SVG tree without matplotlib's text-less artist groups (:data:`_TEXTLESS`) among its
    groups down to ``depth`` levels (4 for a panel's SVG: figure, axes, their artists; 5 in a canvas, under
    ``panel-NAME``), for measuring its texts alone (:func:`composer.svg.measure.scene`)."""
    import copy

    group = svg_tag("g")

    def kept(el: etree._Element, level: int) -> etree._Element:
        out = etree.Element(el.tag, attrib=dict(el.attrib), nsmap=el.nsmap)
        out.text = el.text
        for child in el:
            if child.tag == group and level < depth:
                if not _TEXTLESS.match(child.get("id") or ""):
                    out.append(kept(child, level + 1))
            elif isinstance(child.tag, str):
                out.append(copy.deepcopy(child))
        return out

    return kept(root, 0)


@lru_cache(maxsize=64)
def panel_texts(svg: bytes) -> tuple[tuple[str, BBox], ...]:
    """Every text of a rendered panel's SVG as drawn: (its string, its ink box (x0, y0, x1, y1) in panel pt),
    measured as ``compose check`` measures the canvas (:func:`composer.svg.measure.scene`: a rotated tick
    label's upright box), on a copy without matplotlib's text-less artist groups down to the axes' children
    (:data:`_TEXTLESS`). Memoised on the bytes (geometry is resolved several times in a build)."""
    from composer.svg.measure import scene

    texts = write_svg(without_textless(parse_svg(svg, source="panel"), 4))  # figure, axes, their artists
    return tuple((run.text, run.bbox) for run in scene(texts).texts)


def _drawings(inputs: Inputs, rendered: Mapping[str, RenderedPanel], typeset: Typeset) -> dict[str, Drawing]:
    """Panel name -> what its source reports from (:func:`_drawing`), at its box before rendering."""
    boxes = panel_boxes(inputs.figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    return {p.name: _drawing(p, inputs, rendered, boxes[p.name]) for p in inputs.figure.panels}


def _plot_areas(inputs: Inputs, drawings: Mapping[str, Drawing]) -> dict[str, tuple[float, float, float, float]]:
    """Panel name -> its plot area as its source reports it, (x0, y0, x1, y1) pt from its box's top-left
    (panels whose source reports none are left out: their box is their plot area)."""
    areas = {p.name: source_of(p).plot_area(p, drawings[p.name]) for p in inputs.figure.panels}
    return {name: area for name, area in areas.items() if area is not None}


def _panel_sizes(inputs: Inputs, rendered: Mapping[str, RenderedPanel]) -> dict[str, tuple[float, float]]:
    """The sizes the rendered ``aspect_of = "plot"`` panels were drawn at (:func:`resolve`'s ``panel_sizes``)."""
    return {p.name: rendered_size(rendered[p.name].svg) for p in inputs.figure.panels
            if p.aspect_of == "plot" and p.aspect is not None and p.name in rendered}


def guide_drawings(inputs: Inputs, rendered: Mapping[str, RenderedPanel],
                   typeset: Typeset | None = None) -> tuple[guides.Drawn | None, ...]:
    """Every guide drawn from its rendered panels (:func:`composer.stages.guides.draw_guides`, memoised), in
    the room its placement gives, a colorbar in a cell along its panels' plot areas
    (:func:`composer.stages.geometry.guide_rooms`); ``Figure.guides`` order, None for one not drawn yet.

    Raises:
        LayoutError: what drawing a guide raises (a conflict between its panels, a box too small).
    """
    typeset = typeset or typeset_figure(inputs)
    rooms = guide_rooms(inputs.figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file,
                        plot_areas=_plot_areas(inputs, _drawings(inputs, rendered, typeset)),
                        panel_sizes=_panel_sizes(inputs, rendered))
    return guides.draw_guides(inputs.figure, rendered, file=inputs.file, rooms=rooms)


def fit_height(inputs: Inputs, rendered: Mapping[str, RenderedPanel], typeset: Typeset | None = None) -> Inputs:
    """``inputs`` with a ``height = "auto"`` canvas fitted to its content (pure; other figures unchanged).

    The height is the lowest point of the content placed with the rendered panels
    (:func:`composer.stages.geometry.content_bottom_pt`: texts beside plot areas and connectors to data
    anchors included) plus the margin below it (``[figure] margin``, else the ``[grid]`` margin's
    bottom, else 0; :attr:`composer.layout.model.FigureSpec.height_auto`), written in the unit of
    ``width`` (``"96.25mm"``, as :func:`composer.units.fmt` writes the number).
    """
    spec = inputs.figure.spec
    if not spec.height_auto:
        return inputs
    geometry = figure_geometry(inputs, rendered, typeset)
    height_pt = content_bottom_pt(inputs.figure, geometry) + (spec.margin_pt or 0.0)
    unit = spec.unit
    height_text = f"{fmt(height_pt / PT_PER_UNIT[unit])}{unit}"
    height_pt = to_pt(height_text)  # the height as written: root height, viewBox and background agree
    fitted = dataclasses.replace(spec, height_pt=height_pt, height_text=height_text)
    return dataclasses.replace(inputs, figure=dataclasses.replace(inputs.figure, spec=fitted))


def clipped_key_path(figure: Figure, message: str) -> str:
    """``message`` (a :func:`composer.lint.rules.clipped_text_warnings` line, which names elements as
    ``compose check`` and ``allow_overlap`` do) with a panel's label or title, or an arrow's label, named
    by its key path as every other message of the build: ``"p.label: ..."`` -> ``"panels.p.label: ..."``,
    ``"arrow[0] label: ..."`` -> ``"arrow[0].label: ..."``; other messages unchanged."""
    for panel in figure.panels:
        for part in ("label", "title"):
            if message.startswith(f"{panel.name}.{part}: ") and panel.key:
                return f"{panel.key}.{part}{message[len(panel.name) + len(part) + 1:]}"
    for i, arrow in enumerate(figure.arrows):
        if message.startswith(f"arrow[{i}] label: ") and arrow.key:
            return f"{arrow.key}.label{message[len(f'arrow[{i}] label'):]}"
    return message


def compose(inputs: Inputs, rendered: Mapping[str, RenderedPanel], typeset: Typeset | None = None, *,
            dpi: float = 300.0, provenance: str | None = None) -> bytes:
    """The canvas SVG of :func:`compose_documents` (its ``svg``)."""
    return compose_documents(inputs, rendered, typeset, dpi=dpi, provenance=provenance).svg


class Composed(NamedTuple):
    """What the compose stage makes.

    Attributes:
        svg: the canvas (:func:`compose_documents`), the SVG output and what the PNG draws.
        pdf_svg: under ``[figure] text = "selectable"``, the same canvas with every outlined text it can
            write as text written as ``<text>`` (:func:`composer.text.realtext.pdf_document`), which the PDF
            draws; None otherwise (the PDF draws ``svg``).
    """

    svg: bytes
    pdf_svg: bytes | None = None


def compose_documents(inputs: Inputs, rendered: Mapping[str, RenderedPanel], typeset: Typeset | None = None, *,
                      dpi: float = 300.0, provenance: str | None = None) -> Composed:
    """Compose the canvas SVG from inputs and rendered panels (pure).

    Args:
        dpi: the PNG's resolution, at which filters are costed in the drawing-work budget
            (:func:`composer.svg.budget.over_budget`).
        provenance: the build's provenance record as JSON text, written into ``<metadata>``, or None
            (:func:`composer.stages.describe.describe`, which also writes the alt texts).

    Returns:
        The SVG document's bytes (``svg``; and ``pdf_svg``, see :class:`Composed`): root
        ``width``/``height`` in the layout's units, ``viewBox`` in pt (1 user unit = 1 pt), a background rect unless
        ``background = "none"``, then panels, shapes, arrows, texts and labels,
        each a group or path with a readable id.

    Raises:
        DataError: a text field without a value. LayoutError: bad mathtext,
            unknown anchor, reference cycle, overlapping panels, a font that
            cairosvg and browsers would swap (:mod:`composer.text.fonts`).
            SvgError: an unusable imported SVG, or a canvas over the drawing-work budget.

    Every top-level element gets an ``inkscape:label`` (:mod:`composer.stages.inkscape`);
    rasters are brought to ``raster_ppi`` (:mod:`composer.svg.images`).
    """
    figure, file = inputs.figure, inputs.file
    spec = figure.spec
    typeset = typeset or typeset_figure(inputs)
    colors = tuple(spec.colors.items())
    geometry = figure_geometry(inputs, rendered, typeset)

    root = etree.Element(svg_tag("svg"), nsmap=NSMAP)
    root.set("width", spec.width_text)
    root.set("height", spec.height_text)
    root.set("viewBox", f"0 0 {fmt(spec.width_pt)} {fmt(spec.height_pt)}")
    root.set("version", "1.1")
    bg = draw.background(spec)
    if bg is not None:
        root.append(bg)
    for panel in figure.panels:
        root.append(source_of(panel).draw(panel, geometry.panels[panel.name], _drawing(panel, inputs, rendered,
                                                                                  geometry.panels[panel.name])))
    guide_ids = []
    for i, (guide, drawing, box) in enumerate(zip(figure.guides, guide_drawings(inputs, rendered, typeset),
                                                  geometry.guides)):
        if drawing is not None and box is not None:  # drawn once its panels are (always, in a build)
            guide_ids.append(guides.guide_id(guide, i))
            root.append(_drawn_group(drawing.svg, guide_ids[-1], box))
    for i, (shape, (filled, block, _)) in enumerate(zip(figure.shapes, typeset.shapes)):
        box = geometry.shapes[i]
        if shape.place is not None and shape.place.cell is not None and filled and shape.text_style and box:
            block = typeset_text(filled, shape.text_style, file, f"{shape.key}.text", colors,
                                 box.width_pt - 2 * shape.padding_pt)
        root.append(draw.shape_element(shape, box, geometry.shape_points[i], element_id=f"shape-{shape.name or i}",
                                       block=block, label=filled))
    for i, (arrow, route) in enumerate(zip(figure.arrows, geometry.arrows)):
        group = draw.arrow_element(route, arrow, element_id=f"arrow-{i}")
        arrow_label = typeset.arrow_labels[i]
        if arrow_label is not None and arrow.label_style is not None:
            filled, block = arrow_label
            box = draw.connector_label_box(route, arrow, block)
            group.append(draw.text_element(block, box, arrow.label_style, "center", element_id=f"arrow-{i}-label",
                                           label=filled))
        root.append(group)
    for i, (text, (filled, block)) in enumerate(zip(figure.texts, typeset.texts)):
        box = geometry.texts[i]
        if text.place.cell is not None:  # a text filling a cell: wrapped to it, centred in it, or set to the
            # side its justify names (a left-justified caption starts at the cell's left edge)
            block = typeset_text(filled, text.style, file, f"{text.key}.text", colors, text.width_pt or box.width_pt)
            side = {"left": "w", "right": "e"}.get(text.align or "center", "center")
            box = Box.placed(box.anchor(side), side, block.width_pt, block.height_pt)
        align = text.align or draw.default_align(text.place.anchor)
        root.append(draw.turned_text_element(block, box, text.style, align, text.rotate_deg,
                                             element_id=f"text-{text.name or i}", label=filled))
    title_style = dataclasses.replace(spec.label, weight="normal")
    for panel in figure.panels:
        label = typeset_text(panel.label, spec.label, file, f"{panel.key}.label", colors) if panel.label else None
        title_text = fill_text(panel.title, inputs, file, f"{panel.key}.title") if panel.title else None
        title = typeset_text(title_text, title_style, file, f"{panel.key}.title", colors) if title_text else None
        label_box, title_box = draw.label_boxes(panel, geometry.panels[panel.name], spec, label, title,
                                                geometry.plot_areas.get(panel.name))
        if label is not None:
            assert label_box is not None  # draw.label_boxes places every label it is given
            root.append(draw.text_element(label, label_box, spec.label, "left", element_id=f"label-{panel.name}",
                                          label=panel.label or ""))
        if title is not None:
            assert title_box is not None
            root.append(draw.text_element(title, title_box, title_style, "left", element_id=f"title-{panel.name}",
                                          label=title_text or ""))
    label_elements(root, figure)
    finish_rasters(root, spec.raster_ppi)
    imported = {f"panel-{p.name}": os.path.relpath(p.source, figure.path.parent)
                for p in figure.panels if source_of(p).imported}
    kinds = {f"panel-{p.name}": "imported" if source_of(p).imported else "laid-out" for p in figure.panels}
    kinds.update({ident: "laid-out" for ident in guide_ids})  # matplotlib's, like a render panel
    with quiet_family_lookups():  # check_svg_fonts says, once per file, what matplotlib would log at each lookup
        outline_unrendered_fonts(root, scope=lambda el: _top_level_kind(el, kinds))
        check_svg_fonts(root, file=file, imported=imported)
        check_missing_glyphs(root, imported=imported)
        pin_text_positions(root, scope=lambda el: _top_level_kind(el, kinds))
    heavy = over_budget(root, {f"panel-{p.name}": f"panel {p.name!r}" + (f" ({imported[f'panel-{p.name}']})"
                                                                          if f"panel-{p.name}" in imported else "")
                               for p in figure.panels}, dpi=dpi)
    if heavy:
        raise SvgError(heavy, file=file)
    describe(root, alt_text(inputs), provenance)
    pdf_svg = (write_svg(realtext.pdf_document(root, lambda el: _top_level_kind(el, kinds) == "laid-out"))
               if spec.text == "selectable" else None)
    realtext.strip_notes(root)
    return Composed(write_svg(root), pdf_svg)


def panel_label_boxes(inputs: Inputs, geometry: Geometry) -> dict[str, tuple[Box | None, Box | None]]:
    """Panel name -> (label box, title box) as :func:`compose` draws them (None where absent)."""
    spec, file = inputs.figure.spec, inputs.file
    colors = tuple(spec.colors.items())
    title_style = dataclasses.replace(spec.label, weight="normal")
    boxes = {}
    for panel in inputs.figure.panels:
        label = typeset_text(panel.label, spec.label, file, f"{panel.key}.label", colors) if panel.label else None
        title_text = fill_text(panel.title, inputs, file, f"{panel.key}.title") if panel.title else None
        title = typeset_text(title_text, title_style, file, f"{panel.key}.title", colors) if title_text else None
        boxes[panel.name] = draw.label_boxes(panel, geometry.panels[panel.name], spec, label, title,
                                             geometry.plot_areas.get(panel.name))
    return boxes


def _top_level_kind(el: etree._Element, kinds: Mapping[str, str]) -> str | None:
    """``kinds[id]`` of the canvas's top-level element holding ``el`` (None outside panels)."""
    top = el
    while top.getparent() is not None and top.getparent().getparent() is not None:
        top = top.getparent()
    return kinds.get(top.get("id", ""))



def _drawing(panel: Panel, inputs: Inputs, rendered: Mapping[str, RenderedPanel], box: Box) -> Drawing:
    """What ``panel``'s source draws from: the document the inputs stage read, the render stage's panel, its box."""
    return Drawing(figure=inputs.figure, file=inputs.file, document=inputs.documents.get(panel.name),
                   rendered=rendered.get(panel.name), size_pt=(box.width_pt, box.height_pt))


def _drawn_group(svg: bytes, group_id: str, box: Box) -> etree._Element:
    """A guide matplotlib drew (:mod:`composer.stages.guides`), imported like a render panel into ``box``
    (its drawn size: scale 1), its ids prefixed with ``group_id``."""
    doc = parse_svg(svg, source=group_id)
    vb = view_box(doc, source=group_id)
    group = import_fragment(doc, name=group_id, group_id=group_id, source=group_id)
    place(group, vb, x_pt=box.x_pt, y_pt=box.y_pt, width_pt=box.width_pt, height_pt=box.height_pt, fit="exact")
    return group
