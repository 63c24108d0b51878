"""A ``[[text]]`` filling a grid cell is wrapped to the cell and set where its ``justify`` says: centred
by default, at the cell's left or right edge with ``justify = "left"`` / ``"right"`` (a caption that
starts at the left edge of a full-width cell could not be written: ``anchor`` is refused in a cell).

The canvas is 100 x 20 mm with a 10 mm margin left and right, so the cell spans x = 10..90 mm; the
text's ink is found in the PNG at 254 dpi (10 px per mm). A glyph's side bearing puts its ink a few
tenths of a millimetre inside the box: the tolerance is 0.6 mm.
"""

from __future__ import annotations

import numpy as np
import pytest

from composer.pipeline import build
from conftest import layout_project, read_png

PX_PER_MM = 10.0


def _ink_columns_mm(justify: str | None, tmp_path) -> tuple[float, float]:
    body = ('[grid]\nmosaic = "T"\nmargin = ["0mm", "10mm", "0mm", "10mm"]\n'
            '[[text]]\ntext = "short caption"\ncell = "T"\nsize = "10pt"\n'
            + (f'justify = "{justify}"\n' if justify else ""))
    root = layout_project(tmp_path, body, head='width = "100mm"\nheight = "20mm"\n')
    png = read_png(build("fig", root=root, formats=("svg", "png"), dpi=254, cache=False).outputs["png"])
    dark = np.nonzero((png[..., :3].max(axis=2) < 128).any(axis=0))[0]
    return dark.min() / PX_PER_MM, (dark.max() + 1) / PX_PER_MM


@pytest.mark.parametrize("justify", [None, "center", "left", "right"])
def test_a_cell_text_sits_where_its_justify_says(justify, tmp_path):
    left_mm, right_mm = _ink_columns_mm(justify, tmp_path)
    width_mm = right_mm - left_mm
    assert 15 < width_mm < 40, width_mm  # "short caption" at 10 pt: about 27 mm, much less than the 80 mm cell
    if justify == "left":
        assert left_mm == pytest.approx(10.0, abs=0.6)
    elif justify == "right":
        assert right_mm == pytest.approx(90.0, abs=0.6)
    else:
        assert (left_mm + right_mm) / 2 == pytest.approx(50.0, abs=0.6)
