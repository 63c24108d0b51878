"""The model's values that one key converts to and that are more than a number or a word: a point and a
grid track (:class:`composer.layout.reader.Reader` makes them; the figure model holds them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from composer.layout.vocabulary import RELATIONS


@dataclass(frozen=True)
class Position:
    """A point on the canvas: absolute, or an anchor of another element.

    Attributes:
        x_pt, y_pt: absolute canvas point (used when ``ref`` is None).
        ref: ``(element, anchor)`` such as ``("rgb", "e")``, a point along a
            side ``("proj", "e@0.25")``, or a data anchor ``("fmap", "pixel")``;
            resolved by :mod:`composer.stages.geometry`.
        dx_pt, dy_pt: offset added after resolving, +y down.
        key: the layout key path this came from, for error messages.
        text: the point as the layout wrote it (``"cell#electrode"``), for messages; "" for a point
            composer made. Not compared: two points written differently but equal are equal.
    """

    x_pt: float = 0.0
    y_pt: float = 0.0
    ref: tuple[str, str] | None = None
    dx_pt: float = 0.0
    dy_pt: float = 0.0
    key: str = ""
    text: str = field(default="", compare=False)

    def written(self) -> str:
        """The reference as the user wrote it, for messages: ``right_of = "zz"`` (a relation names
        an element; its anchor is composer's), ``to = "c.w"``, ``via[0] = "b.n"``; ``key`` is
        the last part of :attr:`key`. An absolute point: ``at = [x, y]``."""
        name = self.key.rpartition(".")[2] or "at"
        if self.ref is None:
            return f"{name} = [x, y]"
        element, anchor = self.ref
        shown = element if name in RELATIONS else self.text or f"{element}.{anchor}"
        return f'{name} = "{shown}"'


@dataclass(frozen=True)
class Track:
    """One column or row of a grid: a fixed length in pt, or a share of what is left.

    Exactly one of ``length_pt`` and ``ratio`` is set.
    """

    length_pt: float | None = None
    ratio: float | None = None
