"""The figure's movable elements by stable ids, each with its table in the layout and how it is placed.

Ids (the preview's page names elements by them; stable from build to build while the layout keeps
its names and order):

- ``panel:NAME`` (``[panels.NAME]``), ``text:NAME`` or ``text:I`` (the I-th ``[[text]]``, from 0,
  when it has no ``name``), ``shape:NAME`` or ``shape:I``, ``legend:NAME`` or ``legend:I`` (the
  I-th ``[[legend]]``), ``colorbar:NAME`` or ``colorbar:I``;
- ``connector:I.label`` (the label of the I-th ``[[arrow]]``) and ``connector:I.waypoint.J`` (its
  ``via[J]``).

A target's ``key`` is its table as the loader's messages name it (``panels.a``, ``text[3]``,
``arrow[2].via[0]``); ``how`` says which key a move writes:

- ``at``: placed by coordinates (``at = ["12mm", "3mm"]``): the ``at`` values;
- ``offset``: placed by an anchor (``at = "rgb.s"``), a relation (``right_of``...) or ``beside``:
  its ``offset`` (added when absent);
- ``cell``: filled into a grid cell, which gives the whole box: not movable nor resizable;
- ``point``: a waypoint: the point itself when it is ``["x", "y"]``, else a point table
  ``{ at = "...", offset = [...] }``;
- ``label``: a connector's label: ``label_pos`` (where along the route) and ``label_side``;
- ``points``: a line, brace or bracket placed by its ``points``: each point moved as a waypoint is;
- ``none``: nothing a move could write.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from composer.layout.model import Colorbar, Figure, Legend, Placement
from composer.layout.vocabulary import COMPASS, COMPASS_WORDS, RELATIONS

#: the keys that place an element, in the order the loader tells them apart
PLACING = ("cell", "at", *RELATIONS, "beside")


@dataclass(frozen=True)
class Target:
    """One movable element of a figure.

    Attributes:
        id: the stable id (see the module docstring). kind: ``panel``, ``text``, ``shape``, ``legend``,
            ``colorbar``, ``label`` (a connector's label) or ``waypoint``.
        name: the element's name, else its index as text. key: its table's key path (``text[3]``).
        how: which key a move writes (module docstring). anchor: the compass point of its own box that
            sits at its place (``nw``...; ``center``), from the loaded layout.
        resizable: it has a ``size = [w, h]`` a resize changes.
        element: the name the check and the overlay give it (:class:`composer.stages.named.Element`
            ``name``: ``panel a``, ``text[3]``), or "" for a label or waypoint.
        check_key: its key in ``[check] allow_overlap`` (``a``, ``text[3]``), or "".
        overlap: a panel with ``overlap = true`` (an inset, meant to lie over another panel).
        index: for a connector's label or waypoint, the arrow's index; ``via``: the waypoint's index.
    """

    id: str
    kind: str
    name: str
    key: str
    how: str
    anchor: str = "center"
    resizable: bool = False
    element: str = ""
    check_key: str = ""
    overlap: bool = False
    index: int = -1
    via: int = -1

    @property
    def movable(self) -> bool:
        return self.how not in ("cell", "none")


def raw_table(raw: Mapping[str, Any], key: str) -> Any:
    """The value at key path ``key`` (``panels.a``, ``text[3]``, ``arrow[2].via[0]``) of a layout
    document, or None when there is none."""
    here: Any = raw
    for part in key.split("."):
        name, _, rest = part.partition("[")
        if not isinstance(here, Mapping) or name not in here:
            return None
        here = here[name]
        for index in [int(i) for i in rest.rstrip("]").split("][")] if rest else []:
            if not isinstance(here, list) or not 0 <= index < len(here):
                return None
            here = here[index]
    return here


def how_placed(table: Any) -> str:
    """Which key a move of the element in ``table`` (its raw TOML table) writes (module docstring)."""
    if not isinstance(table, Mapping):
        return "none"
    given = [k for k in PLACING if k in table]
    if not given:
        return "points" if isinstance(table.get("points"), list) and table["points"] else "none"
    if given[0] == "cell":
        return "cell"
    if given[0] == "at" and _is_pair(table["at"]):
        return "at"
    if given[0] == "at" and isinstance(table["at"], Mapping):
        return "none"  # { at = ..., offset = ... }: a point table, rare for a whole element
    return "offset"


def _is_pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def targets(figure: Figure, raw: Mapping[str, Any]) -> dict[str, Target]:
    """Every element of ``figure`` a page may select, by id, in the order
    :func:`composer.stages.named.figure_elements` lists them (panels, texts, shapes, guides), then
    each connector's label and waypoints.

    Args:
        figure: the loaded layout (anchors, names). raw: its document as written (tomllib's dict, or
            a Python layout's ``layout()``), whose tables say how each element is placed.
    """
    out: dict[str, Target] = {}

    def add(target: Target) -> None:
        out[target.id] = target

    for p in figure.panels:
        table = raw_table(raw, p.key)
        add(Target(f"panel:{p.name}", "panel", p.name, p.key, how_placed(table), _anchor(p.place),
                   resizable=_sized(table), element=f"panel {p.name}", check_key=p.name, overlap=p.overlap))
    for i, t in enumerate(figure.texts):
        label = t.name or str(i)
        add(Target(f"text:{label}", "text", label, t.key or f"text[{i}]", how_placed(raw_table(raw, f"text[{i}]")),
                   _anchor(t.place), element=f"text {t.name}" if t.name else f"text[{i}]",
                   check_key=t.name or f"text[{i}]"))
    for i, s in enumerate(figure.shapes):
        label = s.name or str(i)
        table = raw_table(raw, f"shape[{i}]")
        add(Target(f"shape:{label}", "shape", label, f"shape[{i}]", how_placed(table),
                   _anchor(s.place) if s.place is not None else "center", resizable=_sized(table),
                   element=f"shape {s.name}" if s.name else f"shape[{i}]", check_key=s.name or f"shape[{i}]"))
    guides: tuple[tuple[str, tuple[Legend | Colorbar, ...]], ...] = (("legend", figure.legends),
                                                                     ("colorbar", figure.colorbars))
    for kind, of_kind in guides:
        for i, g in enumerate(of_kind):
            label = g.name or str(i)
            table = raw_table(raw, f"{kind}[{i}]")
            add(Target(f"{kind}:{label}", kind, label, f"{kind}[{i}]", how_placed(table), _anchor(g.place),
                       resizable=kind == "colorbar" and _sized(table),
                       element=f"{kind} {g.name}" if g.name else f"{kind}[{i}]", check_key=g.name or f"{kind}[{i}]"))
    for i, a in enumerate(figure.arrows):
        if a.label:
            add(Target(f"connector:{i}.label", "label", f"{i}.label", f"arrow[{i}]", "label", "center", index=i))
        for j, _ in enumerate(a.via):
            add(Target(f"connector:{i}.waypoint.{j}", "waypoint", f"{i}.waypoint.{j}", f"arrow[{i}].via[{j}]",
                       "point", "center", index=i, via=j))
    return out


def _anchor(place: Placement) -> str:
    return place.anchor if place.cell is None and not place.beside else "center"


def _sized(table: Any) -> bool:
    return isinstance(table, Mapping) and _is_pair(table.get("size")) and how_placed(table) in ("at", "offset")


def anchor_fractions(anchor: str) -> tuple[float, float]:
    """Where compass point ``anchor`` is on a box, as fractions of its width and height from its
    top-left (``nw`` (0, 0), ``center`` (0.5, 0.5), ``se`` (1, 1))."""
    return COMPASS.get(COMPASS_WORDS.get(anchor, anchor), (0.5, 0.5))
