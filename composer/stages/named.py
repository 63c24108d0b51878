"""The figure's elements by the names the check, the overlay and the preview use, with their boxes.

One list, made from the layout and its resolved geometry (never read back from a drawing): the
debug overlay draws it (:func:`composer.stages.overlay.element_boxes`), the check names the
elements of its findings from it (:class:`composer.lint.rules.Finding`), and the live preview
highlights a finding's elements with its boxes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from composer.layout.model import Figure
from composer.stages.geometry import Box, Geometry

#: the kinds of element, in the order :func:`figure_elements` lists them
KINDS = ("panel", "text", "shape", "guide", "label", "title", "arrow")


@dataclass(frozen=True)
class Element:
    """One element of a figure.

    Attributes:
        name: as the check and the overlay show it: ``panel rgb``, ``text title``, ``text[2]``,
            ``shape node``, ``shape[0]``, ``legend key`` (a guide with a name), ``legend[0]`` (one
            without: its layout key), ``a.label``, ``a.title``, ``arrow[1]``.
        key: as ``[check] allow_overlap`` and ``ignore`` name it: ``rgb``, ``title``, ``text[2]``,
            ``node``, ``shape[0]``, ``key``, ``legend[0]``, ``a.label``, ``a.title``, ``arrow[1]``.
        kind: one of :data:`KINDS` (``""`` for a canvas id no layout element owns).
        box: where it is on the canvas (pt, top-left origin, y down): a panel's, text's, guide's,
            label's or title's box; a line's or brace's points' bounding box; a connector's route's
            bounding box (its points, curve controls included). None when it has none (a label
            whose box was not given, a shape without points).
    """

    name: str
    key: str
    kind: str
    box: Box | None = None

    def as_dict(self) -> dict[str, Any]:
        """``{"name", "key", "kind", "box_pt": [x, y, width, height] or None}``, lengths in pt to 0.001."""
        box = self.box
        return {"name": self.name, "key": self.key, "kind": self.kind,
                "box_pt": None if box is None else [round(v, 3) for v in (box.x_pt, box.y_pt, box.width_pt,
                                                                         box.height_pt)]}


def figure_elements(figure: Figure, geometry: Geometry,
                    label_boxes: Mapping[str, tuple[Box | None, Box | None]] | None = None) -> list[Element]:
    """Every element of ``figure`` with its box from ``geometry``: panels, texts, shapes, guides, panel
    labels and titles, connectors, in that order (each kind in layout order).

    Args:
        figure, geometry: the layout and its resolved boxes.
        label_boxes: panel name -> (label box, title box) as drawn
            (:func:`composer.stages.compose.panel_label_boxes`); None: labels and titles are listed
            without a box.
    """
    out = [Element(f"panel {p.name}", p.name, "panel", geometry.panels[p.name]) for p in figure.panels]
    out += [Element(f"text {t.name}" if t.name else f"text[{i}]", t.name or f"text[{i}]", "text", geometry.texts[i])
            for i, t in enumerate(figure.texts)]
    out += [Element(f"shape {s.name}" if s.name else f"shape[{i}]", s.name or f"shape[{i}]", "shape",
                    _shape_box(geometry, i)) for i, s in enumerate(figure.shapes)]
    out += [Element(f"{g.kind} {g.name}" if g.name else g.key, g.name or g.key, "guide",
                    geometry.guides[i] if i < len(geometry.guides) else None) for i, g in enumerate(figure.guides)]
    for p in figure.panels:
        label, title = (label_boxes or {}).get(p.name, (None, None))
        if p.label:
            out.append(Element(f"{p.name}.label", f"{p.name}.label", "label", label))
        if p.title:
            out.append(Element(f"{p.name}.title", f"{p.name}.title", "title", title))
    out += [Element(f"arrow[{i}]", f"arrow[{i}]", "arrow", _points_box(route.points))
            for i, route in enumerate(geometry.arrows)]
    return out


def _points_box(points: tuple[tuple[float, float], ...] | list[tuple[float, float]]) -> Box | None:
    if not points:
        return None
    x0, y0 = min(p[0] for p in points), min(p[1] for p in points)
    return Box(x0, y0, max(p[0] for p in points) - x0, max(p[1] for p in points) - y0)


def _shape_box(geometry: Geometry, i: int) -> Box | None:
    """A shape's box; for a line or brace, the box around its points."""
    box = geometry.shapes[i]
    return box if box is not None else _points_box(geometry.shape_points[i])
