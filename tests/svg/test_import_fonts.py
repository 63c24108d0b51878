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
