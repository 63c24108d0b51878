"""README promises about what the canvas draws, checked on rendered pixels and on glyph metrics read
from the font files themselves (matplotlib's FT2Font, unscaled font units), never from composer:

- ``[figure] background``: ``"#ffffff"`` by default, ``"none"`` for a transparent canvas;
- panel labels: ``label_size`` = ``font_size`` + 1 pt, ``label_weight`` bold, ``label_offset`` the
  label's lower-left corner from the panel's top-left (default ``["0pt", "-2pt"]``);
- ``[[text]] justify`` (default: from the anchor's side);
- ``[[arrow]] label_side`` / ``label_pos``, ``head``;
- ``[[shape]] corner`` and ``dash``;
- ``[rcparams] "mathtext.fontset"`` also sets canvas mathtext.

Canvases are a few cm wide, PNGs at 254 dpi (10 px per mm), so pixel probes are in tenths of a mm.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from composer.pipeline import build
from conftest import drawing, read_png
from conftest import layout_project as project

MM = 72 / 25.4  # pt per mm
PX = 10  # px per mm at 254 dpi



def png_of(root: Path) -> np.ndarray:
    return read_png(build("fig", root=root, formats=("png",), dpi=254, cache=False).outputs["png"])


def svg_of(root: Path) -> bytes:
    """The figure's SVG without its provenance record (which names each build's own layout bytes)."""
    return drawing(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())


def ink(png: np.ndarray, colour: tuple[int, int, int] | None = None) -> np.ndarray:
    """Mask of dark pixels, or of pixels within 60 of ``colour`` in every channel."""
    rgb = png[..., :3].astype(int)
    if colour is None:
        return rgb.min(axis=2) < 128
    return (np.abs(rgb - np.array(colour)) < 60).all(axis=2)


def extent(mask: np.ndarray) -> tuple[int, int, int, int]:
    """(top row, bottom row, left column, right column) of a non-empty mask."""
    rows, cols = np.where(mask.any(axis=1))[0], np.where(mask.any(axis=0))[0]
    assert len(rows), "nothing drawn"
    return int(rows.min()), int(rows.max()), int(cols.min()), int(cols.max())


# ---------------------------------------------------------------- background

SQUARE = """
[[shape]]
at = ["10mm", "10mm"]
size = ["5mm", "5mm"]
fill = "#ff0000"
stroke = "none"
"""


def test_background_is_white_by_default(tmp_path):
    png = png_of(project(tmp_path, SQUARE))
    assert tuple(png[5, 5]) == (255, 255, 255, 255)
    assert tuple(png[125, 125]) == (255, 0, 0, 255)  # the square's centre, 12.5 mm


def test_background_none_is_transparent(tmp_path):
    png = png_of(project(tmp_path, SQUARE, head='width = "40mm"\nheight = "30mm"\nbackground = "none"\n'))
    assert png[5, 5, 3] == 0 and png[295, 395, 3] == 0  # corners: fully transparent
    assert tuple(png[125, 125]) == (255, 0, 0, 255)


# ---------------------------------------------------------------- panel labels


def dejavu(weight: str):
    """DejaVu Sans (the default font) of a weight, as matplotlib ships it."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    return FT2Font(font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans", weight=weight),
                                         fallback_to_default=False))


def glyph_box_em(font, char: str) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax) of a glyph in em, y up from the baseline, from the unscaled outline."""
    try:
        from matplotlib.ft2font import LoadFlags
        flags = LoadFlags.NO_SCALE
    except ImportError:  # matplotlib < 3.10
        flags = 1
    xmin, ymin, xmax, ymax = font.load_char(ord(char), flags=flags).bbox
    em = font.units_per_EM
    return xmin / em, ymin / em, xmax / em, ymax / em


LABELLED = """
[panels.p]
svg = "../box.svg"
at = ["10mm", "15mm"]
size = ["10mm", "5mm"]
label = "I"
"""


def labelled(tmp_path: Path, figure_keys: str = "") -> Path:
    root = project(tmp_path, LABELLED, head='width = "40mm"\nheight = "30mm"\n' + figure_keys)
    (root / "box.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5">'
                                  '<rect width="10" height="5" fill="#dddddd"/></svg>')
    return root


def label_path_box(svg: bytes) -> tuple[float, float, float, float]:
    """(xmin, ymin, xmax, ymax) in pt of the label's outline (the path named ``label-p``)."""
    el = etree.fromstring(svg).find(".//{http://www.w3.org/2000/svg}path[@id='label-p']")
    assert el is not None and el.get("transform") is None
    xy = np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", el.get("d"))]).reshape(-1, 2)
    return xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max()


@pytest.mark.parametrize("font_size", [None, "9pt"])
def test_panel_label_is_bold_one_point_larger_and_sits_on_the_default_offset(tmp_path, font_size):
    """A bold "I" of font_size + 1 pt (7 pt by default, so 8 pt): its outline is DejaVu Sans Bold's "I"
    scaled to that size. Its box's lower-left corner (the baseline minus the font's descent) is at the
    panel's top-left + (0 pt, -2 pt): the ink's left edge is the panel's left plus the glyph's left side
    bearing, the ink's bottom (the baseline: "I" sits on it) is 2 pt + descent above the panel's top."""
    root = labelled(tmp_path, f'font_size = "{font_size}"\n' if font_size else "")
    size_pt = (float(font_size[:-2]) if font_size else 7.0) + 1.0
    x0, y0, x1, y1 = label_path_box(svg_of(root))
    bold = dejavu("bold")
    gx0, gy0, gx1, gy1 = glyph_box_em(bold, "I")
    assert y1 - y0 == pytest.approx((gy1 - gy0) * size_pt, abs=0.02)  # cap height: the size
    assert x1 - x0 == pytest.approx((gx1 - gx0) * size_pt, abs=0.02)  # stem width: bold, not regular
    regular = glyph_box_em(dejavu("normal"), "I")
    assert abs((x1 - x0) - (regular[2] - regular[0]) * size_pt) > 0.3
    left_pt, top_pt = 10 * MM, 15 * MM
    descent_em = -bold.descender / bold.units_per_EM
    assert x0 == pytest.approx(left_pt + gx0 * size_pt, abs=0.1)
    assert y1 == pytest.approx(top_pt - 2.0 - descent_em * size_pt, abs=0.1)


def test_label_offset_moves_the_label_by_exactly_the_offset(tmp_path):
    """label_offset ["5mm", "-5mm"] against ["0mm", "-2mm"]: the label's ink moves 5 mm right and 3 mm
    up, 50 px and 30 px at 254 dpi; an explicit ["0pt", "-2pt"] is the default's bytes."""
    near = extent(ink(png_of(labelled(tmp_path / "a", 'label_offset = ["0mm", "-2mm"]\n'))))
    far = extent(ink(png_of(labelled(tmp_path / "b", 'label_offset = ["5mm", "-5mm"]\n'))))
    assert (far[0] - near[0], far[1] - near[1]) == (-30, -30)
    assert (far[2] - near[2], far[3] - near[3]) == (50, 50)
    assert svg_of(labelled(tmp_path / "c", 'label_offset = ["0pt", "-2pt"]\n')) == svg_of(labelled(tmp_path / "d"))


# ---------------------------------------------------------------- text justification


def line_edges(png: np.ndarray) -> list[tuple[int, int]]:
    """(left, right) ink columns of each line of text: rows of ink separated by empty rows."""
    mask = ink(png)
    rows = mask.any(axis=1)
    lines, start = [], None
    for y, on in enumerate(list(rows) + [False]):
        if on and start is None:
            start = y
        elif not on and start is not None:
            cols = np.where(mask[start:y].any(axis=0))[0]
            lines.append((int(cols.min()), int(cols.max())))
            start = None
    return lines


TWO_LINES = """
[[text]]
text = "IIIIIIII\\nII"
at = ["20mm", "15mm"]
size = "10pt"
"""


@pytest.mark.parametrize("keys, side", [('justify = "left"', "left"), ('justify = "right"', "right"),
                                        ('justify = "center"', "center"), ('anchor = "w"', "left"),
                                        ('anchor = "e"', "right"), ("", "center")])
def test_justify_aligns_the_lines_and_defaults_to_the_anchors_side(tmp_path, keys, side):
    """Two lines of "I"s (the same glyph, so the same side bearings): the justified side's ink edges
    agree to a pixel; the other side's differ by six "I" advances (> 30 px at 10 pt)."""
    lines = line_edges(png_of(project(tmp_path, TWO_LINES + keys + "\n")))
    assert len(lines) == 2
    (l1, r1), (l2, r2) = lines
    if side == "left":
        assert abs(l1 - l2) <= 1 and r1 - r2 > 30
    elif side == "right":
        assert abs(r1 - r2) <= 1 and l2 - l1 > 30
    else:
        assert abs((l1 + r1) - (l2 + r2)) <= 2 and l2 - l1 > 15 and r1 - r2 > 15


# ---------------------------------------------------------------- arrows

ARROW = """
[[arrow]]
from = ["5mm", "15mm"]
to = ["35mm", "15mm"]
"""


@pytest.mark.parametrize("side", ["above", "below"])
def test_arrow_label_side_puts_the_label_above_or_below_the_route(tmp_path, side):
    """A horizontal arrow at y = 15 mm (row 150); its red label lies wholly above or below it."""
    png = png_of(project(tmp_path, ARROW + f'label = "X"\nlabel_color = "#ff0000"\nlabel_side = "{side}"\n'))
    top, bottom, _, _ = extent(ink(png, (255, 0, 0)))
    if side == "above":
        assert bottom < 150
    else:
        assert top > 150


def test_arrow_label_pos_is_the_fraction_along_the_route(tmp_path):
    """label_pos 0.25 and 0.75 of a 30 mm route: the label centres are 15 mm (150 px) apart, the first
    near x = 5 + 7.5 = 12.5 mm, the default 0.5 at the middle, 20 mm (the 1 pt end gaps are equal)."""
    centres = {}
    for pos in (0.25, 0.5, 0.75):
        png = png_of(project(tmp_path / str(pos), ARROW + f'label = "X"\nlabel_color = "#ff0000"\nlabel_pos = {pos}\n'))
        _, _, left, right = extent(ink(png, (255, 0, 0)))
        centres[pos] = (left + right) / 2
    assert centres[0.75] - centres[0.25] == pytest.approx(150, abs=3)
    assert centres[0.25] == pytest.approx(125, abs=3)
    assert centres[0.5] == pytest.approx(200, abs=3)


@pytest.mark.parametrize("head, at_start, at_end", [("none", False, False), ("end", False, True),
                                                    ("start", True, False), ("both", True, True)])
def test_arrow_head_key_chooses_the_ends_with_heads(tmp_path, head, at_start, at_end):
    """Heads 4 pt long, 3.2 pt wide (the defaults for a 0.75 pt line), tips 1 pt (the default gap) in
    from each end. 1.2 mm (12 px) back from a tip the head is about 2.7 pt = 0.96 mm wide: 0.4 mm above
    and below the line's centre is ink there, while the 0.75 pt (0.26 mm) line alone leaves it white."""
    png = png_of(project(tmp_path, ARROW + f'head = "{head}"\n'))
    mask = ink(png)
    gap_px = 1 / MM * PX
    start_x, end_x = round(50 + gap_px + 12), round(350 - gap_px - 12)
    assert mask[150, 200]  # the line itself
    assert bool(mask[146, start_x] and mask[154, start_x]) == at_start
    assert bool(mask[146, end_x] and mask[154, end_x]) == at_end


# ---------------------------------------------------------------- shapes


def test_rect_corner_rounds_the_corners(tmp_path):
    """A 20 x 10 mm red rect at (10, 10) mm with corner = "3mm": the corner circle is centred 3 mm in,
    so (10.5, 10.5) mm is 2.5 x sqrt(2) = 3.5 mm from it, outside: white. corner "0pt": red there."""
    body = '[[shape]]\nat = ["10mm", "10mm"]\nsize = ["20mm", "10mm"]\nfill = "#ff0000"\nstroke = "none"\n'
    round_ = png_of(project(tmp_path / "r", body + 'corner = "3mm"\n'))
    square = png_of(project(tmp_path / "s", body))
    assert tuple(round_[105, 105, :3]) == (255, 255, 255) and tuple(square[105, 105, :3]) == (255, 0, 0)
    for png in (round_, square):  # the middle of each side is filled either way
        assert tuple(png[101, 200, :3]) == (255, 0, 0) and tuple(png[150, 101, :3]) == (255, 0, 0)


def runs(row: np.ndarray) -> int:
    """The number of separate runs of True in a 1-d mask."""
    padded = np.concatenate([[False], row, [False]])
    return int((np.diff(padded.astype(int)) == 1).sum())


def test_dash_draws_a_dashed_outline(tmp_path):
    """The top side of a 30 x 10 mm rect with a 1 pt stroke: one unbroken run of ink when solid, several
    runs when ``dash = true``."""
    body = '[[shape]]\nat = ["5mm", "10mm"]\nsize = ["30mm", "10mm"]\nstroke_width = "1pt"\n'
    solid = ink(png_of(project(tmp_path / "s", body)))
    dashed = ink(png_of(project(tmp_path / "d", body + "dash = true\n")))
    assert runs(solid[100, 60:340]) == 1
    assert runs(dashed[100, 60:340]) >= 4


# ---------------------------------------------------------------- mathtext


def test_mathtext_fontset_rcparam_also_sets_canvas_mathtext(tmp_path):
    """README: ``[rcparams]`` ``"mathtext.fontset"`` also sets canvas mathtext. The same canvas "$x$"
    typeset with "cm" (Computer Modern's italic x) and "dejavusans" differs; "dejavusans" is the
    default for DejaVu Sans, so it gives the same bytes as no rcParam."""
    body = '[[text]]\ntext = "$x$"\nat = ["20mm", "15mm"]\nsize = "20pt"\n'

    def svg(fontset: str | None, sub: str) -> bytes:
        rc = f'[rcparams]\n"mathtext.fontset" = "{fontset}"\n' if fontset else ""
        return svg_of(project(tmp_path / sub, rc + body))

    default, dejavu_, cm = svg(None, "n"), svg("dejavusans", "d"), svg("cm", "c")
    assert default == dejavu_
    assert cm != dejavu_
