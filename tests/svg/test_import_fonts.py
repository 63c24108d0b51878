"""Imported text in a font the renderers lack but matplotlib ships is drawn from that font (issue #14, item 5).

A matplotlib script saving with ``svg.fonttype = "none"`` and the Computer Modern math fonts writes
λ as ``¸`` in ``cmmi10`` and ∑ as ``X`` in ``cmex10`` (those fonts' own encodings). The reference
is matplotlib itself: the same figure drawn by Agg to PNG, at the composed PNG's scale, must ink
the same pixels (the glyph's outline), and not what a fallback font would draw.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from composer.pipeline import build
from composer.text.fonts import fontconfig_font
from conftest import layout_project

pytestmark = pytest.mark.skipif(
    (fontconfig_font("cmex10") or fontconfig_font("serif")) is None
    or (fontconfig_font("cmex10") and fontconfig_font("cmex10").family.casefold() == "cmex10"),
    reason="needs fontconfig without matplotlib's cmex10 (the case this tests)")

TEX = r"$\lambda\sum x$"


def figure(fontset: str):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1.5, 0.75))
    with matplotlib.rc_context({"mathtext.fontset": fontset}):
        fig.text(0.1, 0.3, TEX, size=24)
    return fig


def saved(fontset: str, fmt: str, dpi: float = 72) -> bytes:
    import matplotlib

    out = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "mathtext.fontset": fontset, "svg.hashsalt": "t"}):
        figure(fontset).savefig(out, format=fmt, dpi=dpi, facecolor="white")
    return out.getvalue()


def ink(png: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        rgb = np.asarray(img.convert("RGBA")).astype(float)
    grey = (rgb[..., :3].mean(axis=2) * rgb[..., 3] / 255) + 255 * (1 - rgb[..., 3] / 255)
    return grey < 128


def composed(tmp_path, svg: bytes, formats=("svg", "png")):
    root = layout_project(tmp_path, '''
[panels.m]
svg = "../assets/math.svg"
at = ["0pt", "0pt"]
size = ["108pt", "54pt"]
''', head='width = "108pt"\nheight = "54pt"\n')
    (root / "assets").mkdir()
    (root / "assets" / "math.svg").write_bytes(svg)
    result = build("fig", root=root, formats=formats, dpi=144, cache=False)
    return root / "build", result


def grown(mask: np.ndarray) -> np.ndarray:
    """``mask`` grown by one pixel each way (Agg snaps text to whole pixels, the engine does not)."""
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= out[:, :-1].copy()
    out[:, :-1] |= out[:, 1:].copy()
    return out


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """The smaller of: the share of ``a``'s ink within a pixel of ``b``'s, and the other way round."""
    return float(min((a & grown(b)).sum() / a.sum(), (b & grown(a)).sum() / b.sum()))


@pytest.mark.parametrize("fontset", ["cm", "stix"])
def test_math_text_in_matplotlibs_fonts_is_drawn_with_their_outlines(tmp_path, fontset):
    svg = saved(fontset, "svg")
    assert b"<text" in svg and (b"cmex10" in svg or b"STIX" in svg)  # the input names the shipped fonts
    out, result = composed(tmp_path, svg)
    canvas = (out / "fig.svg").read_bytes()
    assert b"<text" not in canvas and b"<tspan" not in canvas  # outlines now: every viewer draws the same
    assert not [w for w in result.warnings if "not installed" in w]
    reference = ink(saved(fontset, "png", dpi=144))  # matplotlib's own drawing of the same glyphs
    drawn = ink((out / "fig.png").read_bytes())
    assert reference.shape == drawn.shape
    assert reference.sum() > 200
    assert overlap(reference, drawn) > 0.97, overlap(reference, drawn)


def test_the_outline_is_the_glyph_not_the_fallback_character(tmp_path):
    """The same ``¸`` and ``X`` drawn in DejaVu Sans (what fontconfig gives for ``cmmi10``/``cmex10``)
    overlap the λ and ∑ hardly at all: the comparison above can tell them apart."""
    svg = saved("cm", "svg")
    swapped = svg.replace(b"cmmi10", b"DejaVu Sans").replace(b"cmex10", b"DejaVu Sans")
    out, _ = composed(tmp_path, swapped, formats=("png",))
    reference = ink(saved("cm", "png", dpi=144))
    assert overlap(reference, ink((out / "fig.png").read_bytes())) < 0.7


def test_text_in_a_font_the_renderers_have_stays_text(tmp_path):
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="144" height="72" viewBox="0 0 144 72">'
           b'<text x="72" y="40" style="font-family: DejaVu Sans; font-size: 20px" text-anchor="middle">Ab</text>'
           b'</svg>')
    out, _ = composed(tmp_path, svg, formats=("svg",))
    assert b">Ab</text>" in (out / "fig.svg").read_bytes()


STIX = "STIXGeneral"


def stix_advance(chars: str, size: float) -> float:
    """The advance of ``chars`` in matplotlib's STIXGeneral, from the font's own ``hmtx`` table (fontTools;
    no kerning: the runs below are each one character, or pairs STIX does not kern)."""
    import os

    import matplotlib
    from fontTools.ttLib import TTFont

    font = TTFont(os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "STIXGeneral.ttf"))
    cmap = font.getBestCmap()
    return sum(font["hmtx"][cmap[ord(ch)]][0] for ch in chars) / font["head"].unitsPerEm * size


def matplotlib_drawing(size_pt: tuple[float, float], runs: list[tuple[str, float, float, str]]) -> np.ndarray:
    """Ink of ``runs`` (text, x, baseline y in pt from the top, colour) in STIXGeneral 24 px drawn by
    matplotlib's Agg at 144 dpi, each at its origin: the reference drawing."""
    import os

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    prop = FontProperties(fname=os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "STIXGeneral.ttf"), size=24)
    fig = Figure(figsize=(size_pt[0] / 72, size_pt[1] / 72))
    for text, x, y, colour in runs:
        fig.text(x / size_pt[0], 1 - y / size_pt[1], text, fontproperties=prop, color=colour, va="baseline")
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=144, facecolor="white")
    return ink(out.getvalue())


def composed_at(tmp_path, svg: bytes, size_pt: tuple[float, float]):
    root = layout_project(tmp_path, f'''
[panels.t]
svg = "../assets/t.svg"
at = ["0pt", "0pt"]
size = ["{size_pt[0]}pt", "{size_pt[1]}pt"]
''', head=f'width = "{size_pt[0]}pt"\nheight = "{size_pt[1]}pt"\n')
    (root / "assets").mkdir()
    (root / "assets" / "t.svg").write_bytes(svg)
    build("fig", root=root, formats=("svg", "png"), dpi=144, cache=False)
    return (root / "build" / "fig.svg").read_bytes(), (root / "build" / "fig.png").read_bytes()


def red(png: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        rgb = np.asarray(img.convert("RGB")).astype(int)
    return (rgb[..., 0] > 150) & (rgb[..., 1] < 100) & (rgb[..., 2] < 100)


def test_tspan_runs_in_a_shipped_font_are_outlined_where_svg_places_them(tmp_path):
    # SVG 1.1, 10.4-10.5: "A" at the text's (10, 40); the red tspan at x = 60 with dy -10, so baseline 30;
    # the next tspan at x 110 shifted by dx 5 (115), its baseline still 30 (a dy moves the pen for what
    # follows); the tail "d" continues from the pen, after c's advance (444/1000 x 24 px in STIX's hmtx).
    # The font is inherited from the <text>; its fill by the tspans.
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60" viewBox="0 0 160 60">'
           f'<text x="10" y="40" font-family="{STIX}" font-size="24">A<tspan x="60" dy="-10" fill="#ff0000">λ'
           f'</tspan><tspan x="110" dx="5">c</tspan>d</text></svg>').encode()
    canvas, png = composed_at(tmp_path, svg, (160, 60))
    assert b"<text" not in canvas and b"<tspan" not in canvas and b'fill="#ff0000"' in canvas
    reference = matplotlib_drawing((160, 60), [("A", 10, 40, "k"), ("λ", 60, 30, "r"), ("c", 115, 30, "k"),
                                               ("d", 115 + stix_advance("c", 24), 30, "k")])
    drawn = ink(png)
    assert drawn.shape == reference.shape and reference.sum() > 300
    assert overlap(reference, drawn) > 0.95, overlap(reference, drawn)
    reds = np.argwhere(red(png))  # the red tspan's glyph only: x 60..75 pt, above baseline 30 pt (at 2 px/pt)
    assert len(reds) > 30 and reds[:, 1].min() >= 118 and reds[:, 1].max() <= 152 and reds[:, 0].max() <= 62


def test_text_and_tspans_collapse_white_space_as_one_run_of_text(tmp_path):
    # xml:space default over the whole <text>: "  A " + "  b" is "A b" (leading spaces dropped, the spaces
    # between the two runs one): b starts after A and one space, 10 + (722 + 250) / 1000 x 24 px; the
    # anchor middle of the text's one chunk centres "A b" on x = 80: its advance, A + space + b.
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60" viewBox="0 0 160 60">'
           f'<text x="10" y="40" font-family="{STIX}" font-size="24">  A <tspan fill="#ff0000">  b</tspan></text>'
           f'<text x="80" y="20" font-family="{STIX}" font-size="24" text-anchor="middle">A<tspan> b</tspan>'
           f'</text></svg>').encode()
    canvas, png = composed_at(tmp_path, svg, (160, 60))
    assert b"<text" not in canvas and b"<tspan" not in canvas
    start = 80 - stix_advance("A b", 24) / 2
    reference = matplotlib_drawing((160, 60), [("A", 10, 40, "k"), ("b", 10 + stix_advance("A ", 24), 40, "r"),
                                               ("A", start, 20, "k"), ("b", start + stix_advance("A ", 24), 20, "k")])
    drawn = ink(png)
    assert overlap(reference, drawn) > 0.95, overlap(reference, drawn)
    reds = np.argwhere(red(png))
    b_x = 10 + stix_advance("A ", 24)
    assert len(reds) > 30 and abs(reds[:, 1].min() / 2 - b_x) < 2 and reds[:, 0].min() > 40


def cm_drawing(size_pt: tuple[float, float], runs: list[tuple[str, str, float, float]]) -> np.ndarray:
    """Ink of ``runs`` (matplotlib font file name, characters, x, baseline y in pt from the top) drawn
    by matplotlib's Agg at 144 dpi in 24 px: the reference drawing of those fonts' glyphs."""
    import os

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties

    fig = Figure(figsize=(size_pt[0] / 72, size_pt[1] / 72))
    for name, text, x, y in runs:
        prop = FontProperties(fname=os.path.join(matplotlib.get_data_path(), "fonts", "ttf", name), size=24)
        fig.text(x / size_pt[0], 1 - y / size_pt[1], text, fontproperties=prop, va="baseline")
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=144, facecolor="white")
    return ink(out.getvalue())


def test_unicode_characters_in_tex_encoded_fonts_are_drawn_with_the_glyph_mathtext_uses(tmp_path):
    # A file from another tool writes λ (U+03BB) in cmmi10 and ∞ (U+221E) in cmsy10, which are not in those
    # fonts' character maps: TeX's encoding has λ at 0xB8 of cmmi10 and ∞ at 0x31 of cmsy10 (Knuth, "Computer
    # Modern Typefaces"; BaKoMa's map as matplotlib ships it), the glyphs mathtext draws for \lambda, \infty.
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60" viewBox="0 0 160 60">'
           '<text x="20" y="40" font-family="cmmi10" font-size="24">λ</text>'
           '<text x="90" y="40" font-family="cmsy10" font-size="24">∞</text></svg>').encode()
    canvas, png = composed_at(tmp_path, svg, (160, 60))
    assert b"<text" not in canvas
    reference = cm_drawing((160, 60), [("cmmi10.ttf", "\u00b8", 20, 40), ("cmsy10.ttf", "1", 90, 40)])
    drawn = ink(png)
    assert reference.sum() > 200
    assert overlap(reference, drawn) > 0.95, overlap(reference, drawn)


def test_a_character_a_shipped_font_lacks_stays_text_for_the_renderers_fallback(tmp_path):
    # 中 is in neither cmr10 nor STIXGeneral: outlined, it would be the font's empty box; left as text, the
    # renderers draw it in a fallback font. The text beside it in the same font is outlined as before.
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="160" height="60" viewBox="0 0 160 60">'
           '<text x="20" y="40" font-family="cmr10" font-size="24">中</text>'
           f'<text x="90" y="40" font-family="{STIX}" font-size="24">中</text>'
           '<text x="120" y="40" font-family="cmr10" font-size="24">A</text></svg>').encode()
    canvas, png = composed_at(tmp_path, svg, (160, 60))
    assert canvas.count("中".encode()) == 2 and canvas.count(b"<text") == 2 and b">A<" not in canvas
    drawn = ink(png)
    assert drawn[44:84, 40:90].sum() > 50 and drawn[44:84, 180:230].sum() > 50  # a glyph in each place
