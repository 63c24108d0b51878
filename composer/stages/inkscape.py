"""Inkscape-friendly canvas: a readable ``inkscape:label`` on every top-level element.

Inkscape's Objects panel lists elements by ``inkscape:label`` (falling back to
the id); Illustrator's Layers panel uses the id. Every panel and annotation
of the composed canvas is one top-level element (a ``<g>``, or a ``<path>``
for a single-colour text drawn as outlines) with a unique id
(``panel-rgb``, ``arrow-0``, ``text-title``); this adds a label saying what
it is in words: ``panel rgb (a, RGB input)``, ``arrow 0: rgb.e -> proj.w``,
``text: Volume head = ...``. Nested texts with an ``aria-label`` (arrow and
shape labels) get one too. The namespace is declared on the root
(:data:`composer.svg.io.NSMAP`); no other Inkscape or sodipodi data is written,
so the file stays plain SVG 1.1 for every other program.
"""

from __future__ import annotations

from lxml import etree

from composer.layout.model import Figure, Position
from composer.stages.guides import guide_id
from composer.svg.io import INKSCAPE_NS

LABEL = f"{{{INKSCAPE_NS}}}label"
#: longest label text (characters) before it is cut with an ellipsis.
MAX_LABEL = 60


def label_elements(root: etree._Element, figure: Figure) -> None:
    """Set ``inkscape:label`` on the canvas's top-level elements (in place); see module docstring."""
    panels = {f"panel-{p.name}": p for p in figure.panels}
    shapes = {f"shape-{s.name or i}": s for i, s in enumerate(figure.shapes)}
    arrows = {f"arrow-{i}": a for i, a in enumerate(figure.arrows)}
    guides = {guide_id(g, i): g for i, g in enumerate(figure.guides)}
    for el in root:
        if not isinstance(el.tag, str):
            continue
        ident = el.get("id", "")
        label = None
        if ident == "background":
            label = "background"
        elif ident in panels:
            p = panels[ident]
            extra = ", ".join(x for x in (p.label, p.title) if x)
            label = f"panel {p.name}" + (f" ({extra})" if extra else "")
        elif ident in shapes:
            s = shapes[ident]
            label = f"{s.kind} {s.name or ident.split('-', 1)[1]}"
            if el.get("aria-label") or s.text:
                label += f": {_text_of(el) or s.text}"
        elif ident in arrows:
            a = arrows[ident]
            label = f"arrow {ident.split('-', 1)[1]}: {_where(a.start)} -> {_where(a.end)}"
        elif ident in guides:
            label = f"{guides[ident].kind} from {', '.join(guides[ident].panels)}"
        elif ident.startswith("label-"):
            label = f"label {el.get('aria-label', '')} ({ident[len('label-'):]})"
        elif ident.startswith("title-"):
            label = f"title: {el.get('aria-label', '')} ({ident[len('title-'):]})"
        elif ident.startswith("text-"):
            label = f"text: {el.get('aria-label', '')}"
        if label is not None:
            el.set(LABEL, _cut(label))
        for inner in el.iterdescendants():
            if isinstance(inner.tag, str) and inner.get("aria-label") and inner.get(LABEL) is None:
                inner.set(LABEL, _cut(f"text: {inner.get('aria-label')}"))


def _text_of(el: etree._Element) -> str:
    for inner in el.iter():
        if isinstance(inner.tag, str) and inner.get("aria-label"):
            return inner.get("aria-label", "")
    return ""


def _where(pos: Position) -> str:
    if pos.ref is not None:
        return f"{pos.ref[0]}.{pos.ref[1]}"
    return f"({pos.x_pt:.1f} pt, {pos.y_pt:.1f} pt)"


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_LABEL else text[:MAX_LABEL - 1] + "\u2026"
