"""Shape kinds are classes (composer/kinds/shapes.py) that own their keys, anchors and drawing: a kind
registered there alone is loaded, placed, drawn and referred to by its own anchors.

The toy kind is registered for a ``with`` block; the drawing and the anchor are checked against
coordinates worked out by hand from the layout (lengths in pt: the canvas's user unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from lxml import etree

import composer
from composer.errors import LayoutError
from composer.kinds.shapes import SHAPES, BoxLike, Drawn, Point, ShapeKind
from composer.layout.loader import load_layout
from composer.units import fmt

SVG = "{http://www.w3.org/2000/svg}"


class Diamond(ShapeKind):
    """A rhombus through the midpoints of its box's sides; its corner anchors on its edges."""

    name, plural, default_anchor = "diamond", "diamonds", "nw"

    def vertices(self, box: BoxLike) -> list[Point]:
        return [box.anchor("n"), box.anchor("e"), box.anchor("s"), box.anchor("w")]

    def anchor(self, box: BoxLike, name: str) -> Point:
        if name in ("ne", "se", "sw", "nw"):  # the middle of the edge between the two sides named
            (ax, ay), (bx, by) = box.anchor(name[0]), box.anchor(name[1])
            return (ax + bx) / 2, (ay + by) / 2
        return box.anchor(name)

    def draw(self, shape: Any, box: BoxLike | None, points: Sequence[Point]) -> tuple[Drawn, ...]:
        assert box is not None
        d = "M" + " L".join(f"{fmt(x)} {fmt(y)}" for x, y in self.vertices(box)) + " Z"
        return (Drawn("path", (("d", d),), filled=True),)


LAYOUT = """[figure]
width = "100pt"
height = "50pt"

[[shape]]
kind = "diamond"
name = "d"
at = ["10pt", "10pt"]
size = ["40pt", "20pt"]
fill = "#00ff00"
stroke = "none"

[[shape]]
kind = "line"
points = [["60pt", "40pt"], ["90pt", "40pt"]]

[[arrow]]
from = ["0pt", "0pt"]
to = "d.ne"
head = "none"
gap = "0pt"
"""


def test_a_shape_kind_added_as_a_class_is_loaded_drawn_and_anchored(tmp_path):
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "fig.toml").write_text(LAYOUT, encoding="utf-8")
    with SHAPES.registered(Diamond()):
        built = composer.build("fig", root=tmp_path, formats=("svg",), debug=True)
        root = etree.fromstring(built.outputs["svg"].read_bytes())
        # its box: 10..50 pt across, 10..30 pt down; its vertices the middles of the sides
        path = root.find(f"{SVG}g[@id='shape-d']/{SVG}path")
        assert path is not None and path.get("d") == "M30 10 L50 20 L30 30 L10 20 Z"
        assert path.get("fill") == "#00ff00" and path.get("stroke") == "none"
        # d.ne is the middle of the edge from n (30, 10) to e (50, 20): (40, 15), not the box's corner (50, 10)
        arrow = root.find(f"{SVG}g[@id='arrow-0']/{SVG}path")
        assert arrow is not None and arrow.get("d") == "M0 0 L40 15"
        # the debug overlay marks the class's anchors: a dot at (40, 15), none at the box's corner (50, 10);
        # a line has none (nothing may be placed at one), so no dot at the middle of its points, (75, 40)
        overlay = etree.fromstring(built.outputs["debug-svg"].read_bytes()).find(f"{SVG}g[@id='debug-overlay']")
        dots = {(c.get("cx"), c.get("cy")) for c in overlay.iter(f"{SVG}circle")}
        assert ("40", "15") in dots and ("50", "10") not in dots and ("30", "10") in dots
        assert ("75", "40") not in dots
        # a key the class does not take is refused, naming the kinds that take it
        (tmp_path / "layouts" / "fig.toml").write_text(LAYOUT.replace('stroke = "none"', 'corner = "2pt"'))
        with pytest.raises(LayoutError, match=r"shape\[0\]\.corner: 'corner' does nothing here: corner rounds a rect$"):
            load_layout(tmp_path / "layouts" / "fig.toml")
    with pytest.raises(LayoutError, match=r"'diamond' is not a valid value; supported values are 'rect', 'circle', "
                                          r"'ellipse', 'line', 'brace', 'bracket'"):
        load_layout(tmp_path / "layouts" / "fig.toml")


@pytest.mark.parametrize("written, meant", [("rectangle", "rect"), ("elipse", "ellipse"), ("brackett", "bracket")])
def test_a_misspelt_shape_kind_names_the_closest_registered_one(tmp_path, written, meant):
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "fig.toml").write_text(LAYOUT.replace('"diamond"', f'"{written}"'))
    with pytest.raises(LayoutError, match=rf"shape\[0\]\.kind: '{written}' is not a valid value; did you mean "
                                          rf"'{meant}'\?; supported values are 'rect', 'circle', 'ellipse', "):
        load_layout(tmp_path / "layouts" / "fig.toml")
