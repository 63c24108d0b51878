"""The figure's elements by the names the check, the overlay and the preview use, with their boxes.

One list, made from the layout and its resolved geometry (never read back from a drawing): the
debug overlay draws it (:func:`composer.stages.overlay.element_boxes`), the check names the
elements of its findings from it (:class:`composer.lint.rules.Finding`), and the live preview
highlights a finding's elements with its boxes. Beside it, the figure's texts by stable names
(:func:`figure_texts`: the canvas's as the composed SVG carries them, each render panel's as
matplotlib saved it), which ``compose diff`` compares between two builds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lxml import etree

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


#: the kinds of text :func:`figure_texts` lists: canvas text the layout asks for, text a panel's code drew,
#: text of a guide (``[[legend]]``, ``[[colorbar]]``) matplotlib drew from the panels' records
TEXT_KINDS = ("canvas", "panel", "guide")

_TICK = re.compile(r"^[xy]tick_\d+$")


@dataclass(frozen=True)
class NamedText:
    """One text of a composed figure, by a name that stays the same from build to build.

    Attributes:
        key: canvas text by its layout key as :class:`Element` names it (``title``, ``text[2]``,
            ``a.label``, ``a.title``, ``node.text``, ``arrow[1].label``); text a panel's code drew by
            the panel and matplotlib's id of its tick (``a: xtick_3``) or of the text itself
            (``a: text_12``, an axis label or any other text), which matplotlib numbers in drawing order;
            a guide's text by the guide's key as :class:`Element` names it and matplotlib's id
            (``legend[0]: text_2``, ``bar: xtick_1``).
        kind: one of :data:`TEXT_KINDS`.
        text: the string drawn, as written (``$...$`` mathtext included); fields filled.
    """

    key: str
    kind: str
    text: str


def figure_texts(figure: Figure, svg: bytes, panel_svgs: Mapping[str, bytes],
                 guide_svgs: Mapping[int, bytes] | None = None) -> list[NamedText]:
    """Every text of a composed figure: the canvas's (read from the composed ``svg``: the string each
    text element carries in ``aria-label``, :mod:`composer.stages.draw`), in document order, then each
    render panel's in layout order (read from the panel's own SVG as matplotlib saved it,
    ``panel_svgs``: panel name -> bytes, :attr:`composer.stages.render.RenderedPanel.svg`), then each
    guide's in layout order (``guide_svgs``: index in ``figure.guides`` -> the SVG matplotlib drew it as,
    :class:`composer.stages.guides.Drawn`).

    matplotlib writes each text as ``<g id="text_N">`` holding, before its glyphs, a comment with the
    string (glyphs as paths), or a ``<text>`` element (``svg.fonttype = "none"``); a tick label's group
    sits in its tick's ``<g id="xtick_K">``. Imported drawings (``svg``, ``pdf``, ``image`` panels) are
    left out: their text is the file's, compared as pixels.
    """
    ids = _canvas_text_keys(figure)
    root = etree.fromstring(svg, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    found = []
    for el in root.iter():
        ident = el.get("id") if isinstance(el.tag, str) else None
        if ident in ids and el.get("aria-label") is not None:
            found.append(NamedText(ids[ident], "canvas", el.get("aria-label", "")))
    for panel in figure.panels:
        data = panel_svgs.get(panel.name)
        if data is not None:
            found += [NamedText(f"{panel.name}: {key}", "panel", text) for key, text in _panel_texts(data)]
    for i, guide in enumerate(figure.guides):
        data = (guide_svgs or {}).get(i)
        if data is not None:
            found += [NamedText(f"{guide.name or guide.key}: {key}", "guide", text) for key, text in _panel_texts(data)]
    return found


def _canvas_text_keys(figure: Figure) -> dict[str, str]:
    """The element id :func:`composer.stages.compose.compose` gives each canvas text -> its key."""
    keys = {f"text-{t.name or i}": t.name or f"text[{i}]" for i, t in enumerate(figure.texts)}
    keys.update({f"shape-{s.name or i}-text": f"{s.name or f'shape[{i}]'}.text" for i, s in enumerate(figure.shapes)})
    keys.update({f"arrow-{i}-label": f"arrow[{i}].label" for i in range(len(figure.arrows))})
    for p in figure.panels:
        keys.update({f"label-{p.name}": f"{p.name}.label", f"title-{p.name}": f"{p.name}.title"})
    return keys


def _panel_texts(svg: bytes) -> list[tuple[str, str]]:
    """(key, string) of every text matplotlib drew in one panel's SVG, in document order; a key seen
    twice (a gid the panel's code gave two texts) gets ``#2``, ``#3``..."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_comments=False)
    root = etree.fromstring(svg, parser)
    out: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for group in root.iter("{http://www.w3.org/2000/svg}g"):
        ident = group.get("id", "")
        if not ident.startswith("text_"):
            continue
        comment = next((c for c in group if c.tag is etree.Comment), None)
        if comment is not None:
            text = (comment.text or "").strip()
        else:
            texts = group.findall(".//{http://www.w3.org/2000/svg}text")
            if not texts:
                continue
            text = " ".join("".join(t.itertext()) for t in texts)
        parent = group.getparent()
        tick = parent.get("id", "") if parent is not None else ""
        key = tick if _TICK.match(tick) else ident
        seen[key] = seen.get(key, 0) + 1
        out.append((key if seen[key] == 1 else f"{key}#{seen[key]}", text))
    return out
