"""Imported text laid out and drawn as a browser draws the file alone (issue #23, imported text and fonts).

Each input is written here; the canvas is exported at 72 dpi and the file's user unit is one pt, so one
user unit is one pixel of the PNG and of pdfium's render of the PDF. The expected ink boxes come from
the font files themselves (fontTools: advance widths and glyph bounds, in font units over unitsPerEm),
from CSS's rules for font sizes (medium = 16 px, x-large = 24 px, larger = 1.2 times the parent, CSS
Fonts 4, 2.5, as Chromium computes them) and from fontconfig's own answers (``fc-match``), never from
composer's code.

- ``font-size: larger``, a keyword under a sized parent, and text with no size at all were drawn at
  usvg's sizes (12 px root, keywords as steps of 1.2 from the parent) while composer pinned every
  character at the browser's: cramped or spread letters.
- ``writing-mode="tb"`` text was pinned one x per character, and drawn as a diagonal staircase.
- A character no font of the file has came out as raw ``UserWarning: Glyph ... missing from font(s)``
  lines, and the engine drew it (and then the whole line) with matplotlib's Last Resort placeholders.
- A file naming Arial is drawn in fontconfig's substitute for it, with one warning.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from conformance_helpers import HEAD, compose, on_white

pytestmark = pytest.mark.skipif(shutil.which("fc-match") is None, reason="needs fontconfig's fc-match")

DEJAVU = "DejaVu Sans"
NOWHERE = "\U0010FFFD"  # plane 16 private use: a character no installed font has a glyph for

SIZES = (f'<svg {HEAD} width="300" height="130" viewBox="0 0 300 130">'
         f'<g font-family="{DEJAVU}" font-size="40">'
         '<text x="10" y="50" style="font-size: larger">HHHH</text>'  # 48 px (usvg: 48 too, but pinned at 40)
         '<text x="10" y="110" font-size="x-large">HH</text>'  # 24 px (usvg: 57.6)
         '</g>'
         f'<text x="150" y="110" font-family="{DEJAVU}">HH</text>'  # 16 px, the browser's medium (usvg: 12)
         f'<text x="260" y="10" font-family="{DEJAVU}" font-size="20" writing-mode="tb">HHHH</text>'
         '</svg>')

GLYPHS = (f'<svg {HEAD} width="300" height="100" viewBox="0 0 300 100">'
          f'<text x="10" y="40" font-family="Arial" font-size="30">HH{NOWHERE}HH</text>'
          '<text x="10" y="85" style="font-family: Arial; font-size: 30px">H \U0001F600</text>'
          '<text x="120" y="85" font-family="Nonesuch Grotesk" font-size="30">HHHHHH</text>'
          '</svg>')

#: Hebrew mem (wide, ink down to the baseline) then yod (narrow, ink near the top only), in logical order
SCRIPTS = (f'<svg {HEAD} width="300" height="70" viewBox="0 0 300 70">'
           f'<text x="10" y="50" font-family="{DEJAVU}" font-size="40">\u05de\u05d9</text>'
           '</svg>')


#: fontconfig's generic name, as Inkscape 0.4x wrote every text's family: Chromium draws fontconfig's match
GENERIC = (f'<svg {HEAD} width="300" height="60" viewBox="0 0 300 60">'
           '<text x="10" y="45" style="font-family:Sans;font-size:40px">HHHH</text>'
           '</svg>')


def fc(pattern: str, what: str) -> str:
    """fontconfig's answer for ``pattern`` (``%{family[0]}``, ``%{file}``)."""
    return subprocess.run(["fc-match", "-f", what, pattern], capture_output=True, text=True,
                          check=True).stdout.strip()


class Face:
    """A font file's metrics in px at a size, read with fontTools."""

    def __init__(self, file: str):
        from fontTools.ttLib import TTFont

        self.font = TTFont(file, fontNumber=0, lazy=True)
        self.upm = self.font["head"].unitsPerEm
        self.cmap = self.font.getBestCmap()
        self.glyphs = self.font.getGlyphSet()

    def name(self, ch: str) -> str:
        return self.cmap.get(ord(ch), ".notdef")

    def advance(self, ch: str, size: float) -> float:
        return self.font["hmtx"][self.name(ch)][0] * size / self.upm

    def bounds(self, ch: str, size: float) -> tuple[float, float, float, float]:
        """(x min, y min, x max, y max) of the glyph's outline, y up from the baseline, in px."""
        from fontTools.pens.boundsPen import BoundsPen

        pen = BoundsPen(self.glyphs)
        self.glyphs[self.name(ch)].draw(pen)
        assert pen.bounds is not None, ch
        return tuple(v * size / self.upm for v in pen.bounds)  # type: ignore[return-value]


def ink_box(rgb: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) in px of the pixels darker than mid grey inside the region, edges exclusive."""
    dark = rgb[y0:y1, x0:x1].min(axis=2) < 128
    ys, xs = np.nonzero(dark)
    assert len(xs), (x0, y0, x1, y1)
    return x0 + int(xs.min()), y0 + int(ys.min()), x0 + int(xs.max()) + 1, y0 + int(ys.max()) + 1


def expected_run(face: Face, text: str, x: float, baseline: float, size: float) -> tuple[float, ...]:
    """The ink box of ``text`` set from ``x`` glyph after glyph by advance (no kerning between these pairs)."""
    left = x + face.bounds(text[0], size)[0]
    pen = x + sum(face.advance(ch, size) for ch in text[:-1])
    right = pen + face.bounds(text[-1], size)[2]
    top = baseline - max(face.bounds(ch, size)[3] for ch in text)
    bottom = baseline - min(face.bounds(ch, size)[1] for ch in text)
    return left, top, right, bottom


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    png, pdf, messages, svg = compose(tmp_path_factory.mktemp("text"), (300, 360),
                                      {"sizes": (SIZES, (0, 0), (300, 130)), "glyphs": (GLYPHS, (0, 130), (300, 100)),
                                       "scripts": (SCRIPTS, (0, 230), (300, 70)),
                                       "generic": (GENERIC, (0, 300), (300, 60))})
    return {"png": on_white(png), "pdf": pdf}, messages


@pytest.fixture(scope="module")
def dejavu() -> Face:
    return Face(fc(DEJAVU, "%{file}"))


def close(actual, expected, tol: float = 1.5) -> bool:
    return all(abs(a - e) <= tol for a, e in zip(actual, expected))


@pytest.mark.parametrize("output", ["png", "pdf"])
@pytest.mark.parametrize(("region", "text", "x", "baseline", "size"), [
    ((0, 0, 250, 65), "HHHH", 10, 50, 48.0),  # larger: 1.2 x 40
    ((0, 65, 140, 130), "HH", 10, 110, 24.0),  # x-large: 24 px whatever the parent
    ((140, 65, 250, 130), "HH", 150, 110, 16.0),  # no size anywhere: medium, 16 px
])
def test_relative_and_keyword_font_sizes_are_drawn_at_the_size_a_browser_computes(built, dejavu, output, region,
                                                                                   text, x, baseline, size):
    images, _ = built
    box = ink_box(images[output], *region)
    want = expected_run(dejavu, text, x, baseline, size)
    assert close(box, want), (output, box, [round(v, 1) for v in want])


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_vertical_writing_mode_stacks_the_glyphs_in_one_column(built, dejavu, output):
    """``writing-mode="tb"``: four H's one below the other (Chromium turns Latin glyphs sideways in vertical
    text, so each H takes its advance downwards and its cap height across), in one column at x = 260; pinned
    one x per character they made a staircase as wide as it was tall."""
    images, _ = built
    left, top, right, bottom = ink_box(images[output], 250, 0, 300, 130)
    cap = dejavu.bounds("H", 20)[3]
    advance = dejavu.advance("H", 20)
    assert right - left <= cap + 3, (left, right, cap)  # one glyph wide (14.6 px), not four advances (60 px)
    assert abs((bottom - top) - (3 * advance + dejavu.bounds("H", 20)[2] - dejavu.bounds("H", 20)[0])) <= 3, \
        (top, bottom, advance)
    assert left - 3 <= 260 <= right + 3, (left, right)


def test_a_missing_font_and_missing_glyphs_are_said_once_per_file_in_composers_voice(built):
    _, messages = built
    substitute = fc("Arial", "%{family[0]}")
    assert not [m for m in messages if "missing from font" in m], messages  # no raw matplotlib UserWarning
    fonts = [m for m in messages if "'Arial'" in m]
    assert len(fonts) == 1 and "glyphs.svg" in fonts[0] and repr(substitute) in fonts[0], messages
    glyphs = [m for m in messages if "U+" in m]
    assert len(glyphs) == 1 and "glyphs.svg" in glyphs[0], messages
    said = glyphs[0]
    assert f"font {substitute!r}" in said and "U+10FFFD" in said and "empty box" in said, said
    emoji_font = fc(f"{substitute}:charset=1f600", "%{family[0]}")
    if Face(fc(f"{substitute}:charset=1f600", "%{file}")).cmap.get(0x1F600):
        assert f"U+1F600 \U0001F600 drawn from {emoji_font!r}" in said, said
    assert not [m for m in messages if "sizes.svg" in m], messages  # DejaVu Sans has every character there


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_text_in_arial_is_drawn_in_fontconfigs_substitute_and_a_missing_glyph_as_its_box(built, output):
    """The line is drawn in the substitute (``fc-match Arial``: Liberation Sans with fonts-liberation), the
    character no font has as the substitute's own .notdef box at its advance, as a browser draws it; the
    line is not drawn in placeholder glyphs."""
    images, _ = built
    face = Face(fc("Arial", "%{file}"))
    want = expected_run(face, "HH" + NOWHERE + "HH", 10, 130 + 40, 30.0)
    box = ink_box(images[output], 0, 130, 300, 130 + 50)
    assert close(box[::2], want[::2]) and close(box[1:], want[1:], 2.0), (box, [round(v, 1) for v in want])
    h_left, h_top, h_right, h_bottom = expected_run(face, "H", 10, 130 + 40, 30.0)
    first = ink_box(images[output], 0, 130, int(h_right) + 2, 130 + 50)
    assert close(first, (h_left, h_top, h_right, h_bottom)), first  # an H of the substitute, not a placeholder


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_an_emoji_the_font_lacks_is_drawn_from_fontconfigs_fallback(built, output):
    images, _ = built
    substitute = fc("Arial", "%{family[0]}")
    fallback = Face(fc(f"{substitute}:charset=1f600", "%{file}"))
    if not fallback.cmap.get(0x1F600):
        pytest.skip("no installed font has U+1F600")  # then the warning says it is a box (checked above)
    x = 10 + Face(fc("Arial", "%{file}")).advance("H", 30) + Face(fc("Arial", "%{file}")).advance(" ", 30)
    x0, y0, x1, y1 = fallback.bounds("\U0001F600", 30.0)
    left, top, right, bottom = ink_box(images[output], int(x) - 2, 180, 110, 230)
    assert close((left, right), (x + x0, x + x1), 2.5), (left, right, x + x0, x + x1)
    assert close((top, bottom), (215 - y1, 215 - y0), 2.5), (top, bottom, 215 - y1, 215 - y0)


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_right_to_left_text_is_drawn_right_to_left(built, dejavu, output):
    """Hebrew is drawn right to left (the Unicode bidi algorithm, in every browser): the first character
    (mem) on the right, yod on the left. Pinned one x per character in logical order it came out left to
    right, mem first. Yod has no ink near the baseline; mem has."""
    images, _ = built
    rgb = images[output]
    yod, mem = dejavu.advance("\u05d9", 40), dejavu.advance("\u05de", 40)
    near_baseline = slice(230 + 50 - 6, 230 + 50)  # the bottom 6 px above the baseline

    def ink(x0: float, x1: float) -> int:
        return int((rgb[near_baseline, int(x0) + 1:int(x1) - 1].min(axis=2) < 128).sum())

    assert ink(10, 10 + yod) == 0, ink(10, 10 + yod)  # yod, on the left: nothing at the baseline
    assert ink(10 + yod, 10 + yod + mem) > 20, ink(10 + yod, 10 + yod + mem)  # mem's foot, on the right


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_a_family_with_no_metric_compatible_face_is_drawn_in_the_standard_font_as_chromium_draws_it(built, output):
    """A family nothing stands in for (fontconfig's answer for it is only its weak default, DejaVu Sans) is
    skipped by Chromium, which draws the next family of the list, and with none left its standard font,
    Times New Roman: fontconfig's metric twin of it, Liberation Serif with fonts-liberation (measured on
    this machine: 'Verdana' and an unknown name come out in Liberation Serif, 'Verdana, sans-serif' in
    Liberation Sans). composer drew fontconfig's weak DejaVu Sans."""
    images, messages = built
    face = Face(fc("Times New Roman", "%{file}"))
    want = expected_run(face, "HHHHHH", 120, 130 + 85, 30.0)
    box = ink_box(images[output], 110, 130 + 55, 300, 130 + 100)
    assert close(box, want), (box, [round(v, 1) for v in want])
    said = [m for m in messages if "'Nonesuch Grotesk'" in m]
    assert len(said) == 1 and "glyphs.svg" in said[0], messages


@pytest.mark.parametrize("output", ["png", "pdf"])
def test_fontconfigs_generic_name_sans_is_drawn_in_fontconfigs_match_without_a_warning(built, output):
    """``font-family:Sans`` is no font that is missing: Chromium takes fontconfig's match for ``Sans``,
    ``Serif`` and ``Monospace`` whatever it is (Skia's ``IsFallbackFontAllowed``), DejaVu Sans here, where
    for an unknown name it refuses the weak match and draws its standard font, a serif. The engine was
    handed ``Sans`` and drew its default serif (Wikimedia's Speech_bubbles.svg, 2.6 % of its pixels)."""
    images, messages = built
    face = Face(fc("Sans", "%{file}"))
    want = expected_run(face, "HHHH", 10, 300 + 45, 40.0)
    box = ink_box(images[output], 0, 300, 300, 360)
    assert close(box, want), (box, [round(v, 1) for v in want])
    assert not [m for m in messages if "generic.svg" in m], messages
