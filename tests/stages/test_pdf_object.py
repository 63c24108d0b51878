"""A pdf panel in the PDF and the PNG is the page itself, as a PDF viewer draws it (issue #23, item 3).

The PDF output draws a pdf panel whose fonts are all embedded from its own page, kept as a PDF object
(Typst embeds the page), so its text stays text (``pdftotext`` reads it; pdfium finds its text objects)
and its vectors are the file's own; the PNG draws the page with Typst's PDF renderer; the SVG draws the
converted page (pdftocairo), its text as outlines.
The page is made here by matplotlib's PDF backend with TrueType text (``pdf.fonttype = 42``): 200 x 100 pt,
a blue square and "Panel text" at 20 pt. It is placed in a box of 100 x 50 pt at (20, 10) pt: scale 0.5.

Expected pixels come from pdfium's rendering of the page alone: at 72 dpi (1 px a pt) it is the panel at
2 px a pt times the scale 0.5, which composer's PDF rendered at 144 dpi must show at (40, 20) px. A red
square drawn over the panel by the layout stays over it (the stacking order of the canvas).
"""

from __future__ import annotations

import io
import subprocess

import numpy as np
import pytest
from pdf_samples import PAGE_1, hand_pdf
from PIL import Image

from composer.pipeline import build
from composer.stages import pdf as pdf_stage
from conftest import layout_project

pytestmark = pytest.mark.skipif(pdf_stage.missing() is not None, reason=pdf_stage.missing() or "")

DPI = 144  # 2 px a pt
BOX = (20, 10, 100, 50)  # pt: the page's 2:1 aspect, scale 0.5


def page_pdf() -> bytes:
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    fig = Figure(figsize=(200 / 72, 100 / 72))
    fig.patches.append(Rectangle((0.05, 0.1), 0.3, 0.6, transform=fig.transFigure, color="#1f4fbf"))
    fig.text(0.45, 0.4, "Panel text", fontsize=20, family="DejaVu Sans")
    out = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42}):
        fig.savefig(out, format="pdf", metadata={"CreationDate": None})
    return out.getvalue()


def project(tmp_path, pdf: bytes):
    x, y, w, h = BOX
    root = layout_project(tmp_path, f'''
[panels.p]
pdf = "../figs/page.pdf"
at = ["{x}pt", "{y}pt"]
size = ["{w}pt", "{h}pt"]

[[shape]]
kind = "rect"
at = ["20pt", "10pt"]
size = ["10pt", "10pt"]
fill = "#ff0000"
stroke = "none"
''', head='width = "140pt"\nheight = "70pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "page.pdf").write_bytes(pdf)
    return root


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    pdf = page_pdf()
    root = project(tmp_path_factory.mktemp("pdfobject"), pdf)
    build("fig", root=root, formats=("svg", "pdf", "png"), dpi=DPI, jobs=1)
    return root, pdf


def pdfium_image(data: bytes, dpi: float, mode: str = "L") -> np.ndarray:
    import pypdfium2 as pdfium

    page = pdfium.PdfDocument(data)[0]
    return np.asarray(page.render(scale=dpi / 72).to_pil().convert(mode), dtype=float)


def pdfium_gray(data: bytes, dpi: float) -> np.ndarray:
    return pdfium_image(data, dpi)


def panel_of(image: np.ndarray) -> np.ndarray:
    x, y, w, h = (round(v * DPI / 72) for v in BOX)
    return image[y:y + h, x:x + w]


def test_the_pdf_keeps_the_page_s_text_as_text_at_its_size(built):
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    root, _ = built
    out = (root / "build" / "fig.pdf").read_bytes()
    text = subprocess.run(["pdftotext", "-", "-"], input=out, capture_output=True, check=True).stdout.decode()
    assert "Panel text" in text
    sizes = []
    for obj in pdfium.PdfDocument(out)[0].get_objects(max_depth=16):
        if obj.type == raw.FPDF_PAGEOBJ_TEXT:
            size = ctypes.c_float()
            raw.FPDFTextObj_GetFontSize(obj.raw, size)
            sizes.append(size.value)
    assert sizes  # its text objects are there (inside the embedded page's form)
    # the converted SVG has no text: its glyphs are outlines
    assert b"<text" not in (root / "build" / "fig.svg").read_bytes()


def test_pdfium_draws_the_panel_in_composer_s_pdf_as_it_draws_the_page_alone(built):
    root, pdf = built
    composed = panel_of(pdfium_gray((root / "build" / "fig.pdf").read_bytes(), DPI))
    alone = pdfium_gray(pdf, 72)  # the page at 1 px a pt: the panel's 0.5 x 2 px a pt
    h, w = min(composed.shape[0], alone.shape[0]), min(composed.shape[1], alone.shape[1])
    right = (slice(20, h), slice(30, w))  # away from the red square over the corner
    assert np.abs(composed[right] - alone[:h, :w][right]).mean() < 1.0


def test_the_png_draws_the_page_as_pdfium_does_and_both_keep_the_shape_over_the_panel(built):
    root, pdf = built
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("RGB"), dtype=float)
    rendered = pdfium_image((root / "build" / "fig.pdf").read_bytes(), DPI, "RGB")
    alone = pdfium_gray(pdf, 72)
    gray = png.mean(axis=2)
    composed = panel_of(gray)
    h, w = min(composed.shape[0], alone.shape[0]), min(composed.shape[1], alone.shape[1])
    right = (slice(20, h), slice(30, w))
    assert np.abs(composed[right] - alone[:h, :w][right]).mean() < 6.0  # text anti-aliasing of two renderers
    # the blue square: page x 10..70, y 10..70 pt from the bottom -> canvas (25..55, 25..55) pt at scale 0.5
    for image in (png, rendered):
        r, g, b = image[round(45 * DPI / 72), round(45 * DPI / 72)]
        assert b > 150 and r < 80, (r, g, b)
        # the red square over the panel's corner: canvas (20..30, 10..20) pt, drawn after the panel
        r, g, b = image[round(15 * DPI / 72), round(25 * DPI / 72)]
        assert r > 200 and g < 60 and b < 60, (r, g, b)


def test_a_page_whose_font_is_not_embedded_is_drawn_converted_and_pdf_a_too(tmp_path):
    # R's pdf() names Helvetica without embedding it: the PDF draws fontconfig's match as outlines,
    # as the PNG does, rather than leave the font to each reader's viewer
    root = project(tmp_path / "hand", hand_pdf([PAGE_1]))
    build("fig", root=root, formats=("pdf",), dpi=DPI, jobs=1)
    out = (root / "build" / "fig.pdf").read_bytes()
    assert subprocess.run(["pdftotext", "-", "-"], input=out, capture_output=True, check=True).stdout.strip() == b""
    # PDF/A embeds no PDF (Typst): the converted page, and no error
    root = project(tmp_path / "pdfa", page_pdf())
    build("fig", root=root, formats=("pdf",), dpi=DPI, jobs=1, pdf_standard="a-2b")
    out = (root / "build" / "fig.pdf").read_bytes()
    assert b"Panel text" not in subprocess.run(["pdftotext", "-", "-"], input=out, capture_output=True,
                                               check=True).stdout


def test_the_pdf_and_png_with_the_page_are_deterministic(built, tmp_path):
    root, pdf = built
    again = project(tmp_path, pdf)
    build("fig", root=again, formats=("pdf", "png"), dpi=DPI, jobs=1)
    for name in ("fig.pdf", "fig.png"):
        assert (again / "build" / name).read_bytes() == (root / "build" / name).read_bytes()


def images_pdf() -> bytes:
    """200 x 100 pt: a 2 x 1 px grey image (black, white) without /Interpolate over x 0..100 pt, and a 3 x 1
    px one (black, white, black) with /Interpolate true over x 100..200 pt, both 100 pt tall."""
    import pikepdf

    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(200, 100))

    def image(samples: bytes, **extra) -> pikepdf.Stream:
        return pikepdf.Stream(pdf, samples, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image,
                              Width=len(samples), Height=1, ColorSpace=pikepdf.Name.DeviceGray, BitsPerComponent=8,
                              **extra)

    page.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(
        Im0=image(b"\x00\xff"), Im1=image(b"\x00\xff\x00", Interpolate=True)))
    page.Contents = pdf.make_stream(b"q 100 0 0 100 0 0 cm /Im0 Do Q q 100 0 0 100 100 0 cm /Im1 Do Q")
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


def test_images_without_interpolate_keep_square_pixels_in_the_png_and_the_pdf(tmp_path):
    root = layout_project(tmp_path, '''
[panels.p]
pdf = "../figs/page.pdf"
at = ["0pt", "0pt"]
size = ["200pt", "100pt"]
''', head='width = "200pt"\nheight = "100pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "page.pdf").write_bytes(images_pdf())
    build("fig", root=root, formats=("svg", "pdf", "png"), dpi=72, jobs=1)
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("L"), dtype=float)
    rendered = pdfium_gray((root / "build" / "fig.pdf").read_bytes(), 72)
    for image in (png, rendered):
        row = image[50]
        # crisp: pixel 0 (black) covers x 0..50 pt, pixel 1 (white) 50..100; smoothed, x = 45 would be ~100
        assert row[45] < 30 and row[55] > 225, (row[45], row[55])
        # smoothed (/Interpolate true): between the centres of pixels 0 (x 116.7) and 1 (x 150), not 255
        assert 60 < row[140] < 235, row[140]


def test_the_panel_alone_keeps_the_page_too(tmp_path):
    # compose NAME --panels: the panel cut out of the canvas is wrapped in a group that moves it to the origin
    pdf = page_pdf()
    root = project(tmp_path, pdf)
    build("fig", root=root, formats=("pdf",), dpi=DPI, jobs=1, panels=True)
    alone_pdf = (root / "build" / "fig" / "p.pdf").read_bytes()
    text = subprocess.run(["pdftotext", "-", "-"], input=alone_pdf, capture_output=True, check=True).stdout.decode()
    assert "Panel text" in text
    composed, alone = pdfium_gray(alone_pdf, DPI), pdfium_gray(pdf, 72)  # both 200 x 100 px
    h, w = min(composed.shape[0], alone.shape[0]), min(composed.shape[1], alone.shape[1])
    assert np.abs(composed[:h, :w] - alone[:h, :w]).mean() < 1.0


def test_a_new_composer_or_a_new_page_exports_again_though_the_svg_is_the_same(tmp_path, monkeypatch):
    import composer.pipeline as pipeline
    from composer.incremental import manifest

    root = project(tmp_path, page_pdf())
    calls: list[tuple[str, ...]] = []
    real = pipeline.export

    def counted(svg, kinds, **kw):
        calls.append(tuple(kinds))
        return real(svg, kinds, **kw)

    monkeypatch.setattr(pipeline, "export", counted)
    build("fig", root=root, formats=("svg", "pdf"), dpi=DPI, jobs=1)
    build("fig", root=root, formats=("svg", "pdf"), dpi=DPI, jobs=1)
    assert len(calls) == 1  # the same SVG, engine, options, composer and pages: not exported again
    fingerprint = manifest.composer_fingerprint()
    monkeypatch.setattr(manifest, "composer_fingerprint", lambda: fingerprint + "-new")
    build("fig", root=root, formats=("svg", "pdf"), dpi=DPI, jobs=1)
    assert len(calls) == 2  # a new composer may draw the same SVG otherwise (a pdf panel's page kept, now)


def turned_pdf(rotate: int, *, embedded: bool) -> bytes:
    """A 100 x 50 pt page (its media box) shown turned ``rotate`` degrees clockwise (``/Rotate``): a red mark
    over x 0..20, y 0..10 pt (PDF, y up: the media box's lower left corner) and a word of text in the middle,
    in an embedded TrueType font (matplotlib, ``pdf.fonttype = 42``: the page is kept as a PDF object) or in
    Helvetica named only (written by hand: the page is drawn converted, pdftocairo's SVG, in every output)."""
    import pikepdf

    if embedded:
        import matplotlib
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle

        fig = Figure(figsize=(100 / 72, 50 / 72))
        fig.patches.append(Rectangle((0, 0), 0.2, 0.2, transform=fig.transFigure, color="#ff0000", lw=0))
        fig.text(0.45, 0.45, "Kept", fontsize=6, family="DejaVu Sans")
        first = io.BytesIO()
        with matplotlib.rc_context({"pdf.fonttype": 42}):
            fig.savefig(first, format="pdf", metadata={"CreationDate": None})
        pdf = pikepdf.open(io.BytesIO(first.getvalue()))
    else:
        pdf = pikepdf.new()
        page = pdf.add_blank_page(page_size=(100, 50))
        page.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)))
        page.Contents = pdf.make_stream(b"1 0 0 rg 0 0 20 10 re f BT /F1 6 Tf 0 g 45 22 Td (Conv) Tj ET")
    pdf.pages[0].Rotate = rotate
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    return out.getvalue()


@pytest.fixture(scope="module")
def turned(tmp_path_factory):
    """Two turned pages, each the panel of a box of its shown size (50 x 100 pt) at 1 px a pt: ``a`` turned
    90 degrees with its font embedded (kept as the page), ``b`` turned 270 degrees with Helvetica named only
    (converted)."""
    root = layout_project(tmp_path_factory.mktemp("turned"), '''
[panels.a]
pdf = "../figs/a.pdf"
at = ["5pt", "5pt"]
size = ["50pt", "100pt"]

[panels.b]
pdf = "../figs/b.pdf"
at = ["65pt", "5pt"]
size = ["50pt", "100pt"]
''', head='width = "120pt"\nheight = "110pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "a.pdf").write_bytes(turned_pdf(90, embedded=True))
    (root / "figs" / "b.pdf").write_bytes(turned_pdf(270, embedded=False))
    build("fig", root=root, formats=("svg", "pdf", "png"), dpi=72, jobs=1)
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("RGB"), dtype=float)
    pdf = (root / "build" / "fig.pdf").read_bytes()
    return root, png, pdfium_image(pdf, 72, "RGB"), pdf


def test_a_turned_page_is_drawn_turned_as_every_pdf_viewer_shows_it(turned):
    # /Rotate turns the page clockwise as shown (ISO 32000-1, 7.7.3.3, Table 30): the media box's point (x, y)
    # (y up) of a W x H page is shown, y down, at (y, x) turned 90 degrees and at (H - y, W - x) turned 270.
    # So the mark (x 0..20, y 0..10 of a 100 x 50 page) is shown over x 0..10, y 0..20 of a's 50 x 100 box
    # (its top left corner) and over x 40..50, y 80..100 of b's (its bottom right corner).
    root, png, rendered, pdf = turned
    marks = {"a": (5 + 5, 5 + 10), "b": (65 + 45, 5 + 90)}
    corners = {"a": [(5 + 45, 5 + 10), (5 + 5, 5 + 90), (5 + 45, 5 + 90)],
               "b": [(65 + 5, 5 + 10), (65 + 45, 5 + 10), (65 + 5, 5 + 90)]}
    assert png.shape[:2] == rendered.shape[:2] == (110, 120)
    for image, name in ((png, "PNG"), (rendered, "PDF")):
        for panel, (x, y) in marks.items():
            r, g, b = image[y, x]
            assert r > 200 and g < 60 and b < 60, (name, panel, (r, g, b))
            for cx, cy in corners[panel]:
                assert image[cy, cx].min() > 200, (name, panel, (cx, cy), image[cy, cx])
    # a is the page itself in the PDF (its text is text), b the converted page (its text outlines)
    text = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
    assert "Kept" in text and "Conv" not in text


def test_the_png_draws_the_page_on_the_pixels_its_place_covers_not_half_a_pixel_off(tmp_path):
    # a 100 x 20 pt page with a black line 0.5 pt wide along y = 10 pt (PDF, y up), placed at (3.3, 2.7) pt
    # at 2 px a pt: the line's centre is at 2.7 + (20 - 10) = 12.7 pt, 25.4 px down, so it covers rows 24.9 to
    # 25.9: a tenth of row 24, nine tenths of row 25, nothing of rows 23 and 26. (Typst drew the page's texture
    # from its own corner, nearest-neighbour, 0.4 px away: half of row 24, half of row 25.)
    import pikepdf

    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(100, 20))
    page.Contents = pdf.make_stream(b"0 G 0.5 w 10 10 m 90 10 l S")
    out = io.BytesIO()
    pdf.save(out, deterministic_id=True)
    root = layout_project(tmp_path, '''
[panels.p]
pdf = "../figs/page.pdf"
at = ["3.3pt", "2.7pt"]
size = ["100pt", "20pt"]
''', head='width = "110pt"\nheight = "30pt"\nbackground = "white"\n')
    (root / "figs").mkdir()
    (root / "figs" / "page.pdf").write_bytes(out.getvalue())
    build("fig", root=root, formats=("pdf", "png"), dpi=DPI, jobs=1)
    png = np.asarray(Image.open(root / "build" / "fig.png").convert("L"), dtype=float)
    rendered = pdfium_gray((root / "build" / "fig.pdf").read_bytes(), DPI)
    expected = {23: 255.0, 24: 255 * 0.9, 25: 255 * 0.1, 26: 255.0}  # white less the line's share of the row
    for image, name in ((png, "PNG"), (rendered, "PDF")):
        column = image[20:30, 100]  # x = 50 pt, the middle of the line
        for row, grey in expected.items():
            assert abs(image[row, 100] - grey) < 26, (name, row, column)
