"""Layout-reference keys whose documented effect no other test checks, on rendered pixels (PNG at
254 dpi: 10 px per mm) with positions worked out by hand from the key's README meaning:

- ``[grid] margin`` as ``[top, right, bottom, left]`` and a single ``gutter`` for both directions;
- ``[[shape]] opacity``, ``[[text]] opacity``; ``symbol`` inside a circle; ``width`` alone (the text
  wraps to it and the height follows);
- ``[[arrow]] bend``: positive bends to the left of travel;
- text fields whose value is infinite are an error (NaN and None: tests/cli/test_errors.py).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from composer.cli.main import main
from composer.pipeline import build
from conftest import drawing, read_png
from conftest import layout_project as project


def png_of(root: Path) -> np.ndarray:
    return read_png(build("fig", root=root, formats=("png",), dpi=254, cache=False).outputs["png"])[..., :3].astype(int)


def red_extent(png: np.ndarray) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) pixel rows/columns of pure-ish red."""
    mask = (png[..., 0] > 200) & (png[..., 1] < 60) & (png[..., 2] < 60)
    rows, cols = np.where(mask.any(axis=1))[0], np.where(mask.any(axis=0))[0]
    return int(rows.min()), int(rows.max()), int(cols.min()), int(cols.max())


RED = 'fill = "#ff0000"\nstroke = "none"\n'


def test_grid_margin_is_top_right_bottom_left(tmp_path):
    """margin ["1mm", "2mm", "3mm", "4mm"] on a 40 x 30 mm canvas: area A spans x 4..38 mm, y 1..27 mm,
    i.e. pixel columns 40..379 and rows 10..269."""
    root = project(tmp_path, f"""
    [grid]
    mosaic = "A"
    margin = ["1mm", "2mm", "3mm", "4mm"]
    [[shape]]
    cell = "A"
    {RED}""")
    assert red_extent(png_of(root)) == (10, 269, 40, 379)


def test_a_single_gutter_spaces_columns_and_rows(tmp_path):
    """gutter "4mm", margin 0, a 2 x 2 mosaic on 40 x 30 mm: columns 18 mm wide, rows 13 mm tall;
    area D (bottom right) spans x 22..40 mm, y 17..30 mm."""
    root = project(tmp_path, f"""
    [grid]
    mosaic = "AB\\nCD"
    gutter = "4mm"
    [[shape]]
    cell = "D"
    {RED}""")
    assert red_extent(png_of(root)) == (170, 299, 220, 399)


def test_shape_opacity_blends_with_the_canvas(tmp_path):
    """A red rect at opacity 0.5 over the white canvas: (255, 127.5, 127.5), to a rounding step."""
    root = project(tmp_path, '[[shape]]\nat = ["10mm", "10mm"]\nsize = ["20mm", "10mm"]\nopacity = 0.5\n' + RED)
    r, g, b = png_of(root)[150, 200]
    assert r == 255 and abs(g - 127.5) <= 2 and abs(b - 127.5) <= 2


def test_text_opacity_blends_with_the_canvas(tmp_path):
    """A 40 pt black "I" (its stem about 2.8 mm wide) at opacity 0.25: the stem's middle is 75 % white,
    191 of 255; at opacity 1 it is black."""
    def stem(opacity: str) -> np.ndarray:
        root = project(tmp_path / opacity, f'[[text]]\ntext = "I"\nat = ["20mm", "15mm"]\nsize = "40pt"\n'
                                           f'opacity = {opacity}\n')
        png = png_of(root)
        dark = png.min(axis=2)
        ys, xs = np.where(dark < 250)
        return png[(ys.min() + ys.max()) // 2, (xs.min() + xs.max()) // 2]

    assert (stem("1") < 5).all()
    assert (np.abs(stem("0.25") - 191.25) <= 3).all()


def test_symbol_plus_is_drawn_inside_a_circle(tmp_path):
    """A circle of radius 5 mm centred at (20, 15) mm, fill none: its centre is white without a symbol
    and inked with ``symbol = "+"``; a point on the diagonal 2.5 mm from the centre stays white (a plus
    has only horizontal and vertical strokes)."""
    body = '[[shape]]\nkind = "circle"\nat = ["20mm", "15mm"]\nradius = "5mm"\n'
    plain = png_of(project(tmp_path / "plain", body))
    plus = png_of(project(tmp_path / "plus", body + 'symbol = "+"\n'))
    assert plain[150, 200].min() > 240
    assert plus[150, 200].max() < 128
    assert plus[150, 200 + 15].max() < 128 and plus[150 + 15, 200].max() < 128  # along the arms
    assert plus[150 - 18, 200 + 18].min() > 240  # on the diagonal


@pytest.mark.parametrize("bend, side", [(30, "left"), (-30, "right")])
def test_arc_bend_positive_bends_to_the_left_of_travel(tmp_path, bend, side):
    """An arc from (5, 15) mm to (35, 15) mm travels east, so its left is up (smaller y). At the middle
    column (20 mm) the 30 degree arc is about 15 mm x tan(15 deg) = 4 mm off the chord: ink there lies
    wholly above row 150 for +30, below it for -30, and the chord itself (row 150) is white."""
    root = project(tmp_path, f'[[arrow]]\nfrom = ["5mm", "15mm"]\nto = ["35mm", "15mm"]\nroute = "arc"\n'
                             f'bend = {bend}\n')
    column = png_of(root)[:, 200].min(axis=1)
    rows = np.where(column < 128)[0]
    assert len(rows) and column[150] > 240
    if side == "left":
        assert rows.max() < 150 and abs(rows.mean() - 110) < 10
    else:
        assert rows.min() > 150 and abs(rows.mean() - 190) < 10


def test_shape_width_alone_wraps_the_text_and_the_height_follows(tmp_path):
    """A rect with ``width = "16mm"`` and four words: its outline is 16 mm wide (160 px between the left
    and right strokes) and taller than the same rect 38 mm wide, where the words fit on fewer lines."""
    def outline(width: str) -> tuple[int, int, int, int]:
        root = project(tmp_path / width, f'[[shape]]\nat = ["1mm", "1mm"]\nwidth = "{width}"\nstroke = "#ff0000"\n'
                                         f'text = "word word word word"\n')
        return red_extent(png_of(root))

    top, bottom, left, right = outline("16mm")
    wide = outline("38mm")
    assert abs((right - left) - 160) <= 2
    assert abs((wide[3] - wide[2]) - 380) <= 2
    assert bottom - top > (wide[1] - wide[0]) + 20  # at least one more line of 7 pt text (about 2.5 mm)


def test_an_infinite_text_field_value_is_an_error(tmp_path, capsys):
    """README: text fields whose value is NaN, infinite or None are an error, never printed."""
    root = project(tmp_path, '[[text]]\ntext = "total {total:.1f}"\nat = ["20mm", "15mm"]\n',
                   head='width = "40mm"\nheight = "30mm"\ndata = "../data/d.json"\n')
    (root / "data").mkdir()
    (root / "data" / "d.json").write_text(json.dumps({"total": float("inf")}))  # json writes Infinity
    capsys.readouterr()
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "text[0]" in err and "{total}" in err, err
    assert not (root / "build" / "fig.svg").exists()


def test_via_empty_is_the_documented_default(tmp_path):
    """``via = []`` (the default the reference shows) draws the connector it draws without ``via``."""
    body = textwrap.dedent('''
        [[shape]]
        name = "p"
        kind = "rect"
        at = ["4mm", "4mm"]
        size = ["8mm", "8mm"]

        [[shape]]
        name = "q"
        kind = "rect"
        at = ["28mm", "18mm"]
        size = ["8mm", "8mm"]

        [[arrow]]
        from = "p.e"
        to = "q.w"
        route = "-|"
        ''')
    plain = project(tmp_path / "plain", body)
    assert build("fig", root=plain, formats=("svg",)).outputs
    empty = project(tmp_path / "empty", body + 'via = []\n')
    assert build("fig", root=empty, formats=("svg",)).outputs
    assert drawing((empty / "build" / "fig.svg").read_bytes()) == drawing((plain / "build" / "fig.svg").read_bytes())
