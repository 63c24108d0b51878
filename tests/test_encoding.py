"""Non-ASCII text through SVG, PDF and PNG: Greek, math symbols, CJK, checked by their pixels.

Canvas text is drawn as glyph outlines with matplotlib's fonts; a font list
(``"DejaVu Sans, WenQuanYi Micro Hei"``) falls back per character. Each glyph
of the composed PNG, and of the PDF rendered by PDFium, is compared with the
same character drawn independently by Pillow's FreeType renderer from the font
file that has it, and with the empty box ("tofu") a font without it draws: it
must look like the character and not like the box. Without a font that has a
character, the build fails with one line naming the characters and the font.
The CJK font is Debian's fonts-wqy-microhei, installed by .ci/run.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from PIL import Image, ImageDraw, ImageFont

from composer.cli.main import main
from composer.pipeline import build
from conftest import SVG_NS, font_file, read_png

CJK_FONT = "WenQuanYi Micro Hei"
FONT_LIST = f"DejaVu Sans, {CJK_FONT}"
CHARS = ["α", "ℝ", "→", "✓", "·", "中", "テ", "한"]
CJK = {"中", "テ", "한"}
DPI = 200
SIZE_PT = 20
MM = DPI / 25.4


def _font_path(family: str) -> str | None:
    return font_file(family)


def _need_cjk_font() -> str:
    path = _font_path(CJK_FONT)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{CJK_FONT} is not installed; .ci/run installs Debian's fonts-wqy-microhei")
        pytest.skip(f"{CJK_FONT} is not installed (Debian: apt-get install fonts-wqy-microhei)")
    return path


def make_project(root: Path, font: str, texts: list[str], panel: str | None = None) -> None:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    lines = [f'[figure]\nwidth = "100mm"\nheight = "{30 if panel else 20}mm"\nfont = "{font}"\n']
    for i, text in enumerate(texts):
        lines.append(f'[[text]]\ntext = "{text}"\nat = ["{6 + 11 * i}mm", "10mm"]\nsize = "{SIZE_PT}pt"\n')
    if panel:
        (root / "panels" / "glyphs.py").write_text(
            "def one(fig, data, text):\n"
            f"    fig.text(0.5, 0.5, text, ha='center', va='center', fontsize={SIZE_PT})\n")
        lines.append(f'[panels.p]\nrender = "glyphs:one"\nat = ["0mm", "20mm"]\nsize = ["10mm", "10mm"]\n'
                     f'params = {{ text = "{panel}" }}\n')
    (root / "layouts" / "glyphs.toml").write_text("\n".join(lines), encoding="utf-8")


def ink(gray: np.ndarray) -> np.ndarray:
    """Ink mask of a glyph image cropped to its bounding box and scaled to 32 x 32."""
    mask = gray < 128
    ys, xs = np.nonzero(mask)
    assert len(ys), "no ink"
    crop = Image.fromarray((mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1] * 255).astype(np.uint8))
    return np.asarray(crop.resize((32, 32), Image.BILINEAR)) >= 128


def iou(a: np.ndarray, b: np.ndarray) -> float:
    return float((a & b).sum() / max(1, (a | b).sum()))


def reference(char: str, font_path: str) -> np.ndarray:
    """``char`` drawn by Pillow (FreeType) from ``font_path`` at the figure's size, as an ink mask."""
    size_px = round(SIZE_PT / 72 * DPI)
    font = ImageFont.truetype(font_path, size_px, index=0)
    img = Image.new("L", (3 * size_px, 3 * size_px), 255)
    ImageDraw.Draw(img).text((size_px, size_px), char, font=font, fill=0)
    return ink(np.asarray(img))


def glyph_at(image: np.ndarray, i: int, y_mm: float = 10.0) -> np.ndarray:
    """The ink mask of text ``i`` (centred at (6 + 11 i) mm, y_mm) in an RGB(A) image at DPI."""
    gray = np.asarray(Image.fromarray(image[..., :3].astype(np.uint8)).convert("L"))
    x, y, half = (6 + 11 * i) * MM, y_mm * MM, 5 * MM
    return ink(gray[round(y - half):round(y + half), round(x - half):round(x + half)])


@pytest.fixture(scope="module")
def glyphs(tmp_path_factory) -> dict:
    cjk_path = _need_cjk_font()
    root = tmp_path_factory.mktemp("glyphs") / "proj"
    make_project(root, FONT_LIST, CHARS, panel="中")
    outputs = build("glyphs", root=root, dpi=DPI).outputs
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(outputs["pdf"]))
    pdf_image = np.asarray(pdf[0].render(scale=DPI / 72).to_pil().convert("RGB"))
    pdf.close()
    return {"outputs": outputs, "png": read_png(outputs["png"]), "pdf": pdf_image, "cjk_path": cjk_path,
            "latin_path": _font_path("DejaVu Sans")}


@pytest.mark.parametrize("fmt", ["png", "pdf"])
@pytest.mark.parametrize("i, char", list(enumerate(CHARS)))
def test_glyph_pixels_match_the_character_not_tofu(glyphs, fmt, i, char):
    drawn = glyph_at(glyphs[fmt], i)
    own_font = glyphs["cjk_path"] if char in CJK else glyphs["latin_path"]
    expected = reference(char, own_font)
    score = iou(drawn, expected)
    assert score > 0.6, (char, fmt, score)
    if char in CJK:  # DejaVu Sans has no glyph: what it would draw is its empty box
        tofu = reference(char, glyphs["latin_path"])
        assert iou(tofu, expected) < 0.5  # the box is not the character ...
        assert score > iou(drawn, tofu) + 0.2, (char, fmt, score, iou(drawn, tofu))  # ... and we drew the character


def test_panel_text_falls_back_to_the_cjk_font(glyphs):
    """A render panel draws with the same font list: '中' in panel p (10 x 10 mm at (0, 20) mm)."""
    for fmt in ("png", "pdf"):
        gray = np.asarray(Image.fromarray(glyphs[fmt][..., :3].astype(np.uint8)).convert("L"))
        drawn = ink(gray[round(20 * MM):round(30 * MM), 0:round(10 * MM)])
        assert iou(drawn, reference("中", glyphs["cjk_path"])) > 0.6, fmt


def test_editable_text_with_a_font_list_is_checked_per_character(tmp_path):
    """``text = "editable"``, font "Liberation Sans, WenQuanYi Micro Hei" (the README's CJK recipe), a panel
    writing '中': the check asked whether Liberation Sans draws '中' and refused the figure, naming one font
    file as both the measured and the drawn one. Each character is checked against the family that draws
    it; the build succeeds and '中' is drawn in the CJK font in PNG and PDF."""
    cjk_path = _need_cjk_font()
    root = tmp_path / "proj"
    make_project(root, f"Liberation Sans, {CJK_FONT}", [], panel="中")
    layout = root / "layouts" / "glyphs.toml"
    layout.write_text(layout.read_text().replace("[figure]\n", '[figure]\ntext = "editable"\n', 1))
    outputs = build("glyphs", root=root, dpi=DPI, formats=("svg", "png", "pdf")).outputs
    assert "中" in etree.fromstring(outputs["svg"].read_bytes()).xpath("string(//*[local-name()='text'])")
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(outputs["pdf"]))
    images = {"png": read_png(outputs["png"]),
              "pdf": np.asarray(pdf[0].render(scale=DPI / 72).to_pil().convert("RGB"))}
    pdf.close()
    for fmt, image in images.items():
        gray = np.asarray(Image.fromarray(image[..., :3].astype(np.uint8)).convert("L"))
        drawn = ink(gray[round(20 * MM):round(30 * MM), 0:round(10 * MM)])
        assert iou(drawn, reference("中", cjk_path)) > 0.6, fmt


def test_svg_keeps_the_text_as_utf8_labels(glyphs):
    svg = glyphs["outputs"]["svg"].read_bytes()
    assert svg.startswith(b"<?xml version='1.0' encoding='UTF-8'?>")
    root = etree.fromstring(svg)
    labels = [el.get("aria-label") for el in root.iter() if el.get("aria-label") in CHARS]
    assert labels == CHARS
    for path in root.iterfind("svg:g/svg:path", SVG_NS):  # drawn as outlines, not as <text>
        assert len(path.get("d")) > 20
    assert root.find(".//svg:text", SVG_NS) is None


@pytest.mark.parametrize("text, expect", [
    ("中文 ok", ("text[0].text", "font 'DejaVu Sans' has no glyph for '中' (U+4E2D), '文' (U+6587)",
               f'font = \\"DejaVu Sans, {CJK_FONT}\\"'.replace("\\", ""))),
    ("$\\\\alpha 中$", ("text[0].text", "the mathtext fonts have no glyph for '中' (U+4E2D)", "outside the $...$")),
])
def test_missing_glyphs_are_one_clear_error(text, expect, tmp_path, capsys):
    root = tmp_path / "proj"
    make_project(root, "DejaVu Sans", [text])
    capsys.readouterr()
    assert main(["glyphs", "--root", str(root)]) == 1
    out, err = capsys.readouterr()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    for part in expect:
        assert part in err, (part, err)
    assert not (root / "build").exists()


def test_font_list_with_an_unknown_family_is_refused(tmp_path, capsys):
    root = tmp_path / "proj"
    make_project(root, "DejaVu Sans, Nonexistent Sans", ["a"])
    assert main(["glyphs", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "figure.font: font 'Nonexistent Sans' is not installed" in err, err
