"""Debug overlay: the composed figure with its layout drawn on top (``compose NAME --debug``).

Written to ``build/NAME.debug.svg`` and ``.png`` next to, never instead of, the
real outputs, which stay byte-identical. On a faded copy of the figure it draws:

- a 5 mm grid with a ruler every 10 mm (mm from the canvas's top-left corner);
- every box: panels (blue), texts, panel labels and titles (orange), shapes
  (green), each named at its top-left corner the way ``compose check`` names it
  (``panel rgb``, ``text eq``, ``text[2]``, ``shape node``, ``a.label``);
- every connector's route (magenta) with its name at its middle;
- every element of an imported SVG whose id was written by hand (teal, ``panel#id``): what a
  ``"panel#id"`` point may name (the ids an editor numbered, ``path35``, are only counted, by the CLI);
- every anchor: the nine compass points of each box as dots with their names,
  and each data anchor a renderer published (red, ``fmap.pixel``);
- mosaic grids and their cells (violet, ``cell A``), and the gutters between
  neighbouring panels, shaded, with their width in mm.

All overlay text is typeset as outlines like the figure's own canvas text, so
the PNG shows the same as the SVG.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from lxml import etree

from composer.kinds.shapes import SHAPES
from composer.layout.model import COMPASS, Figure, TextStyle
from composer.stages import draw
from composer.stages.geometry import Box, Geometry, ImportedSvg, element_canvas_box, offered_ids
from composer.stages.named import figure_elements
from composer.svg.io import parse_svg, svg_tag, write_svg
from composer.text import realtext
from composer.text.metrics import typeset
from composer.units import PT_PER_UNIT, fmt

PANEL, TEXT, SHAPE, ARROW, GUTTER, ANCHOR, DATA, GRID, GRID_BOX, ELEMENT = (
    "#2563eb", "#ea580c", "#16a34a", "#c026d3", "#f59e0b", "#334155", "#dc2626", "#94a3b8", "#7c3aed", "#0d9488")
MM = PT_PER_UNIT["mm"]
#: opacity of the figure under the overlay
FADE = 0.45
NAME_PT, ANCHOR_PT, RULER_PT = 3.2, 1.8, 2.4


@dataclasses.dataclass(frozen=True)
class Named:
    """A box to draw: its display name, kind colour and box."""

    name: str
    color: str
    box: Box


def element_boxes(figure: Figure, geometry: Geometry, label_boxes: dict[str, tuple[Box | None, Box | None]]
                  ) -> list[Named]:
    """Every element's box with the name ``compose check`` uses for it
    (:func:`composer.stages.named.figure_elements`, connectors left out: they are drawn as routes),
    coloured by kind: panels and guides (drawn by matplotlib, like panels) :data:`PANEL`, texts,
    panel labels and titles :data:`TEXT`, shapes :data:`SHAPE`."""
    colours = {"panel": PANEL, "guide": PANEL, "text": TEXT, "label": TEXT, "title": TEXT, "shape": SHAPE}
    return [Named(e.name, colours[e.kind], e.box) for e in figure_elements(figure, geometry, label_boxes)
            if e.kind in colours and e.box is not None]


def gutters(boxes: dict[str, Box]) -> list[tuple[str, Box]]:
    """The empty strips between neighbouring boxes (panels, grid cells): ``(description, strip)``.

    Two panels are neighbours across a vertical gutter when their vertical
    extents overlap, one ends left of where the other starts, and no other
    panel enters the strip between them (likewise for horizontal gutters).
    A strip found twice (a panel filling a cell) is kept once.
    """
    found: list[tuple[str, Box]] = []
    items = sorted(boxes.items())
    for (na, a), (nb, b) in ((x, y) for x in items for y in items if x[0] != y[0]):
        top, bottom = max(a.y_pt, b.y_pt), min(a.y_pt + a.height_pt, b.y_pt + b.height_pt)
        left, right = a.x_pt + a.width_pt, b.x_pt
        if bottom > top and right > left:
            strip = Box(left, top, right - left, bottom - top)
            if not any(_meets(strip, c) for n, c in items if n not in (na, nb)):
                found.append((f"{na} | {nb}: {(right - left) / MM:.1f} mm", strip))
        left, right = max(a.x_pt, b.x_pt), min(a.x_pt + a.width_pt, b.x_pt + b.width_pt)
        top, bottom = a.y_pt + a.height_pt, b.y_pt
        if right > left and bottom > top:
            strip = Box(left, top, right - left, bottom - top)
            if not any(_meets(strip, c) for n, c in items if n not in (na, nb)):
                found.append((f"{na} / {nb}: {(bottom - top) / MM:.1f} mm", strip))
    unique: dict[tuple[float, ...], tuple[str, Box]] = {}
    for description, strip in found:
        unique.setdefault(tuple(round(v, 3) for v in (strip.x_pt, strip.y_pt, strip.width_pt, strip.height_pt)),
                          (description, strip))
    return list(unique.values())


def _meets(a: Box, b: Box) -> bool:
    return (min(a.x_pt + a.width_pt, b.x_pt + b.width_pt) > max(a.x_pt, b.x_pt)
            and min(a.y_pt + a.height_pt, b.y_pt + b.height_pt) > max(a.y_pt, b.y_pt))


class _Pen:
    """Adds overlay elements to a group, with outline text in the figure's font."""

    def __init__(self, group: etree._Element, font: str):
        self.group, self.font = group, font

    def rect(self, box: Box, color: str, *, width: float = 0.35, dash: bool = True, fill: str = "none",
             fill_opacity: float = 1.0) -> None:
        el = etree.SubElement(self.group, svg_tag("rect"), x=fmt(box.x_pt), y=fmt(box.y_pt),
                              width=fmt(box.width_pt), height=fmt(box.height_pt), fill=fill, stroke=color)
        el.set("stroke-width", fmt(width))
        if fill != "none":
            el.set("fill-opacity", fmt(fill_opacity))
        if dash:
            el.set("stroke-dasharray", "1.5 1")

    def line(self, points: Iterable[tuple[float, float]], color: str, width: float = 0.3,
             dash: str | None = None) -> None:
        el = etree.SubElement(self.group, svg_tag("path"), fill="none", stroke=color)
        el.set("d", "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in points))
        el.set("stroke-width", fmt(width))
        if dash:
            el.set("stroke-dasharray", dash)

    def dot(self, point: tuple[float, float], color: str, r: float = 0.6) -> None:
        etree.SubElement(self.group, svg_tag("circle"), cx=fmt(point[0]), cy=fmt(point[1]), r=fmt(r), fill=color)

    def text(self, label: str, point: tuple[float, float], anchor: str, color: str, size: float, *,
             bold: bool = False, backdrop: bool = True) -> None:
        """``label`` with its ``anchor`` (compass) at ``point``, on a white backdrop."""
        style = TextStyle(font=self.font, size_pt=size, weight="bold" if bold else "normal", color=color)
        block = typeset(label, style)
        box = Box.placed(point, anchor, block.width_pt, block.height_pt)
        if backdrop:
            pad = 0.15 * size
            etree.SubElement(self.group, svg_tag("rect"), x=fmt(box.x_pt - pad), y=fmt(box.y_pt - pad),
                             width=fmt(block.width_pt + 2 * pad), height=fmt(block.height_pt + 2 * pad),
                             fill="#ffffff", opacity="0.8")
        self.group.append(draw.text_element(block, box, style, "left", element_id=f"debug-{len(self.group)}",
                                            label=label))


def overlay(figure: Figure, geometry: Geometry, svg: bytes,
            label_boxes: dict[str, tuple[Box | None, Box | None]],
            imported: Mapping[str, ImportedSvg] | None = None) -> bytes:
    """The debug overlay of a composed figure (pure).

    Args:
        figure, geometry: the layout and its resolved boxes.
        svg: the composed canvas (:func:`composer.stages.compose.compose`).
        label_boxes: panel name -> (label box, title box) as drawn.
        imported: svg panel name -> its file's measured elements (:func:`composer.stages.geometry.imported_svgs`
            with ``every``): each id written by hand is marked (its box, ``panel#id``), the ids an editor
            numbered (:data:`~composer.stages.geometry.GENERIC_ID`) are not.

    Returns:
        SVG bytes of the same size as the figure: the figure faded, the layout on top.
    """
    root = parse_svg(svg, source="composed figure")
    faded = etree.Element(svg_tag("g"), id="debug-figure", opacity=fmt(FADE))
    for child in list(root):
        faded.append(child)
    root.append(faded)
    layer = etree.SubElement(root, svg_tag("g"), id="debug-overlay")
    pen = _Pen(layer, figure.spec.font)
    width, height = figure.spec.width_pt, figure.spec.height_pt

    # grid and rulers
    for i in range(0, int(width / (5 * MM)) + 1):
        x = i * 5 * MM
        pen.line([(x, 0), (x, height)], GRID, 0.25 if i % 2 == 0 else 0.12)
        if i % 2 == 0 and i:
            pen.text(f"{i * 5}", (x, 0.5), "n", GRID, RULER_PT, backdrop=False)
    for j in range(0, int(height / (5 * MM)) + 1):
        y = j * 5 * MM
        pen.line([(0, y), (width, y)], GRID, 0.25 if j % 2 == 0 else 0.12)
        if j % 2 == 0 and j:
            pen.text(f"{j * 5}", (0.5, y), "w", GRID, RULER_PT, backdrop=False)
    pen.text("mm", (0.5, 0.5), "nw", GRID, RULER_PT, backdrop=False)

    # mosaic grids and their cells, then the gutters between panels
    for grid_name, box in sorted(geometry.grids.items()):
        pen.rect(box, GRID_BOX, width=0.5, dash=False)
        pen.text(f"grid {grid_name or '[grid]'}", (box.x_pt + box.width_pt, box.y_pt), "se", GRID_BOX, NAME_PT - 0.4)
    for (grid_name, area), box in sorted(geometry.cells.items()):
        pen.rect(box, GRID_BOX, width=0.3)
        pen.text(f"cell {grid_name + '.' if grid_name else ''}{area}", (box.x_pt + box.width_pt - 0.4,
                 box.y_pt + box.height_pt - 0.4), "se", GRID_BOX, ANCHOR_PT + 0.4)
    spaced = dict(geometry.panels)
    spaced.update({f"cell {g + '.' if g else ''}{area}": box for (g, area), box in geometry.cells.items()
                   if box not in geometry.panels.values()})
    for description, strip in gutters(spaced):
        pen.rect(strip, GUTTER, width=0.0, dash=False, fill=GUTTER, fill_opacity=0.25)
        pen.text(description, strip.anchor("center"), "center", "#92400e", ANCHOR_PT + 0.4)

    # boxes and their anchors
    named = element_boxes(figure, geometry, label_boxes)
    for item in named:
        pen.rect(item.box, item.color)
    # a shape's anchors are its kind's (composer.kinds.shapes): a line or a brace has none
    kind_of = {f"shape {s.name}" if s.name else f"shape[{i}]": SHAPES[s.kind] for i, s in enumerate(figure.shapes)}
    for item in named:
        kind = kind_of.get(item.name)
        if kind is not None and not kind.boxed:
            continue
        for anchor in COMPASS:
            point = kind.anchor(item.box, anchor) if kind is not None else item.box.anchor(anchor)
            pen.dot(point, ANCHOR, 0.45)
            fx, fy = COMPASS[anchor]
            inward = {0.0: "w", 0.5: "", 1.0: "e"}[fx]
            inward = {0.0: "n", 0.5: "", 1.0: "s"}[fy] + inward or "s"
            pen.text(anchor, point, inward, ANCHOR, ANCHOR_PT, backdrop=False)
    for (panel, name), point in sorted(geometry.data_anchors.items()):
        pen.dot(point, DATA, 0.8)
        pen.text(f"{panel}.{name}", (point[0] + 1.2, point[1] - 1.2), "sw", DATA, NAME_PT - 0.4, bold=True)

    # the elements of imported files that "panel#id" points may name
    for panel, svg_file in sorted((imported or {}).items()):
        if panel not in geometry.panels:
            continue
        for ident in offered_ids(svg_file)[0]:
            box = element_canvas_box(svg_file, geometry.panels[panel], ident)
            pen.rect(box, ELEMENT, width=0.25)
            pen.text(f"{panel}#{ident}", (box.x_pt + 0.3, box.y_pt + box.height_pt - 0.3), "sw", ELEMENT, ANCHOR_PT)

    # connectors
    for i, route in enumerate(geometry.arrows):
        points = route.points
        pen.line(points, ARROW, 0.5, dash="2 1")
        pen.dot(points[0], ARROW, 0.7)
        pen.dot(points[-1], ARROW, 0.7)
        mid = len(points) // 2
        a, b = points[mid - 1], points[mid]
        pen.text(f"arrow[{i}]", ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), "s", ARROW, NAME_PT)

    # names last, on top of everything; panel labels and titles are small boxes side by side,
    # so their names go above them: the label's from its left end, the title's from its right end
    for item in named:
        if item.name.endswith(".label"):
            pen.text(item.name, (item.box.x_pt, item.box.y_pt - 0.3), "sw", item.color, NAME_PT, bold=True)
        elif item.name.endswith(".title"):
            pen.text(item.name, (item.box.x_pt + item.box.width_pt, item.box.y_pt - 0.3), "se", item.color, NAME_PT,
                     bold=True)
        else:
            pen.text(item.name, (item.box.x_pt + 0.4, item.box.y_pt + 0.4), "nw", item.color, NAME_PT, bold=True)
    realtext.strip_notes(root)
    return write_svg(root)


def offered_ids_listing(imported: Mapping[str, ImportedSvg]) -> str:
    """What ``build/NAME.debug.txt`` says: for each svg panel, the ids of its drawn elements a
    ``"panel#id"`` point may name, those written by hand in full, the numbered ones an editor gave
    (:data:`~composer.stages.geometry.GENERIC_ID`) counted with their first few::

        panel scheme (art/scheme.svg): 3 ids: pump, valve, tank
          and 81 numbered by an editor: path35, g50, rect12, ...
    """
    lines = []
    for panel, svg in sorted(imported.items()):
        named, generic = offered_ids(svg)
        lines.append(f"panel {panel} ({svg.shown}): {len(named)} id{'s' * (len(named) != 1)}"
                     + (f": {', '.join(named)}" if named else ""))
        if generic:
            lines.append(f"  and {len(generic)} numbered by an editor: {', '.join(generic[:5])}"
                         + (", ..." if len(generic) > 5 else ""))
    return "\n".join(lines) + ("\n" if lines else "no svg panel\n")
