"""benchmarks/oracle.py, the fidelity oracle: its files and their producers, its metric, its verdicts on
composer's real outputs against oracles made by hand, and (e2e) one run with Chromium and its table."""

from __future__ import annotations

import importlib.util
import io
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]


def _load():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location("oracle", ROOT / "benchmarks" / "oracle.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["oracle"] = module  # its dataclasses and its workers' jobs are found by the module's name
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


oracle = _load()

#: 60 x 40 CSS px with a red 20 x 20 px square at (10, 10): crisp edges at every power-of-two scale
SQUARE_SVG = (b'<svg xmlns="http://www.w3.org/2000/svg" width="60" height="40">'
              b'<rect x="10" y="10" width="20" height="20" fill="#ff0000"/></svg>')


def _png(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, format="png")
    return out.getvalue()


def test_producer_and_category_come_from_the_index_else_from_the_folder_and_kind(tmp_path):
    (tmp_path / "inkscape" / "sub").mkdir(parents=True)
    (tmp_path / "inkscape" / "sources.csv").write_text(
        "file,category,source,licence\nsub/a.svg,icon,https://example.org/a.svg,CC0-1.0\n")
    (tmp_path / "inkscape" / "sub" / "a.svg").write_bytes(SQUARE_SVG)
    (tmp_path / "inkscape" / "b.svg").write_bytes(SQUARE_SVG)  # not in the index
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "c.JPG").write_bytes(b"")
    (tmp_path / "loose" / "notes.txt").write_text("not a figure")
    entries = oracle.collect([tmp_path], [])
    assert [(e.shown, e.producer, e.category, e.kind) for e in entries] == [
        ("inkscape/b.svg", "inkscape", "svg", "svg"),
        ("inkscape/sub/a.svg", "inkscape", "icon", "svg"),
        ("loose/c.JPG", "loose", "jpeg", "jpeg")]
    assert [e.shown for e in oracle.collect([tmp_path], ["inkscape/sub/*"])] == ["inkscape/sub/a.svg"]
    assert [e.shown for e in oracle.collect([tmp_path / "inkscape"], [])] == ["inkscape/b.svg", "inkscape/sub/a.svg"]


def test_plan_compares_a_drawing_at_a_power_of_two_and_an_image_at_its_own_pixels(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "s.svg").write_bytes(SQUARE_SVG)
    Image.new("RGB", (300, 200)).save(tmp_path / "d" / "p.png", dpi=(150, 150))
    Image.new("RGB", (30, 20)).save(tmp_path / "d" / "q.jpg")  # states no resolution: 96 px/in
    plans = {e.shown: oracle.plan(e) for e in oracle.collect([tmp_path], [])}
    # 60 CSS px wide: 120 px at 192 dpi, 240 at 384, 480 at 768 (>= 400)
    assert plans["d/s.svg"] == oracle.Plan(45.0, 30.0, 768.0, 8.0)
    assert plans["d/p.png"].dpi == pytest.approx(150, abs=0.02) and plans["d/p.png"].scale == 1.0  # pHYs: px/m
    assert plans["d/p.png"].width_pt == pytest.approx(300 * 72 / 150, rel=1e-3)
    assert plans["d/q.jpg"] == oracle.Plan(22.5, 15.0, 96.0, 1.0)
    assert plans["d/s.svg"].margin_px == 96 and plans["d/s.svg"].pixels == (672, 512)



def test_a_turned_pdf_page_is_planned_and_drawn_at_the_size_it_is_shown(tmp_path):
    # a 100 x 50 pt media box with /Rotate 90 is shown 50 x 100 pt (a viewer's page, turned clockwise); a red
    # mark over its media box's lower left corner (x 0..20, y 0..10 pt, y up) is shown at the top left, over
    # x 0..10, y 0..20 pt (y down)
    import pikepdf

    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(100, 50))
    page.Contents = pdf.make_stream(b"1 0 0 rg 0 0 20 10 re f")
    page.Rotate = 90
    (tmp_path / "d").mkdir()
    pdf.save(tmp_path / "d" / "turned.pdf")
    (entry,) = oracle.collect([tmp_path], [])
    p = oracle.plan(entry)
    assert (p.width_pt, p.height_pt) == pytest.approx((50, 100))
    drawn = oracle.render_pdfium((tmp_path / "d" / "turned.pdf").read_bytes(), p.dpi)
    px = p.dpi / 72
    assert drawn.shape[:2] == (math.ceil(100 * px), math.ceil(50 * px))  # whole pixels of the bitmap
    assert tuple(drawn[round(15 * px), round(5 * px)]) == (255, 0, 0, 255)  # the mark, shown at the top left
    assert drawn[round(5 * px), round(40 * px), 3] == 0  # nothing at the top right (the mark unturned)

def test_the_metric_forgives_an_edge_a_pixel_away_and_counts_a_moved_shape():
    a = np.zeros((40, 40, 4), np.uint8)
    a[10:30, 10:30] = 255
    edge = a.copy()
    edge[10:30, 30] = (128, 128, 128, 128)  # antialiased: the edge half a pixel further
    assert oracle.differing(a, edge, edge_px=0).sum() == 20  # the strict rule counts the column
    assert oracle.differing(a, edge).sum() == 0
    moved = np.zeros_like(a)
    moved[10:30, 15:35] = 255
    # both ways round: the 5 columns each side that one has and the other lacks, 20 rows each, less the
    # corner pixels whose window in the other image reaches both colours (2 per strip)
    assert 200 - 4 <= oracle.differing(a, moved).sum() <= 200


@pytest.fixture(scope="module")
def square(tmp_path_factory):
    """The square SVG as an entry, its plan, and composer's build of it (one build for the module)."""
    folder = tmp_path_factory.mktemp("oracle") / "hand"
    folder.mkdir()
    (folder / "square.svg").write_bytes(SQUARE_SVG)
    entry = oracle.collect([folder], [])[0]
    plan = oracle.plan(entry)
    png, pdf, pdf_path = oracle.build_outputs(entry, plan, folder.parent / "project", "resvg")
    return entry, plan, oracle.Built(png, pdf, pdf_path, 0.0), folder.parent


def _drawn_by_hand(plan, shift_px: int = 0) -> np.ndarray:
    """The oracle's canvas drawn with Pillow from the geometry: the square 10 CSS px in from the margin,
    20 CSS px a side, in pixels of the plan (8 per CSS px), optionally moved right."""
    per_css = plan.dpi / 96
    x0 = plan.margin_px + round(10 * per_css) + shift_px
    y0 = plan.margin_px + round(10 * per_css)
    side = round(20 * per_css)
    image = Image.new("RGBA", plan.pixels, (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((x0, y0, x0 + side - 1, y0 + side - 1), fill=(255, 0, 0, 255))
    return oracle.premultiplied(_png(image))


def test_composer_draws_the_square_as_the_geometry_says_in_the_png_and_the_pdf(square):
    entry, plan, built, tmp = square
    outcome = oracle.assess(entry, plan, built, {"chromium": _drawn_by_hand(plan)}, None, tmp)
    assert outcome.verdict == "pass", outcome.why
    assert [(c.output, c.share) for c in outcome.comparisons] == [("png", 0.0), ("pdf", 0.0)]


def test_a_wrong_oracle_is_reported_with_the_share_of_pixels_that_differ_and_a_diff_image(square, tmp_path):
    entry, plan, built, tmp = square
    outcome = oracle.assess(entry, plan, built, {"chromium": _drawn_by_hand(plan, shift_px=40)}, tmp_path, tmp)
    assert outcome.verdict == "differs"
    # the square moved 40 px of 160: 40 columns each side, 160 rows, less at most 2 corner pixels a strip
    w, h = plan.whole_px
    for c in outcome.comparisons:
        assert (2 * 40 * 160 - 4) / (w * h) <= c.share <= 2 * 40 * 160 / (w * h)
    with Image.open(tmp_path / "hand" / "square.svg.png.diff.png") as diff:
        assert diff.size == (3 * w + 8, h)  # ours | oracle | diff
        assert diff.convert("RGB").getpixel((2 * (w + 4) + plan.margin_px + 85, h // 2)) == (220, 0, 0)


@pytest.mark.e2e
def test_a_run_with_chromium_passes_what_composer_draws_right_and_counts_it(tmp_path):
    pytest.importorskip("playwright.sync_api")
    if not Path(oracle.CHROMIUM).exists():
        pytest.skip(f"{oracle.CHROMIUM} is not installed (.ci/run installs it)")
    (tmp_path / "hand").mkdir()
    (tmp_path / "hand" / "sources.csv").write_text("file,category,source,licence\nsquare.svg,icon,test,CC0-1.0\n")
    (tmp_path / "hand" / "square.svg").write_bytes(SQUARE_SVG)
    picture = Image.new("RGB", (40, 30), (240, 240, 240))
    ImageDraw.Draw(picture).rectangle((5, 5, 24, 19), fill=(30, 60, 200))
    picture.save(tmp_path / "hand" / "blue.png")
    report = oracle.run(oracle.collect([tmp_path], []), jobs=1)
    assert [(o.entry.shown, o.verdict) for o in report.outcomes] == [("hand/blue.png", "pass"),
                                                                      ("hand/square.svg", "pass")], \
        [o.why for o in report.outcomes]
    assert report.rate == 1.0
    assert oracle.table(report, "category")[2:] == ["| icon | 1 | 1 (100.0%) | 0 | 0 | 0 | 0 | 0 |",
                                                    "| png | 1 | 1 (100.0%) | 0 | 0 | 0 | 0 | 0 |",
                                                    "| **all** | 2 | 2 (100.0%) | 0 | 0 | 0 | 0 | 0 |"]


@pytest.mark.e2e
def test_chromium_draws_a_file_of_a_fractional_size_at_that_size_and_keeps_css_px_strokes(tmp_path):
    """The oracle's Chromium draws a 10.5 x 6.25 CSS px file 84 x 50 device px at 8 px a CSS px (an emulated
    device scale factor snapped the ``<img>`` to 11 x 6 CSS px first, stretching it onto 88 x 48), and a
    ``non-scaling-stroke`` of 2 stays 2 CSS px (16 device px) as the device scale factor keeps it."""
    pytest.importorskip("playwright.sync_api")
    if not Path(oracle.CHROMIUM).exists():
        pytest.skip(f"{oracle.CHROMIUM} is not installed (.ci/run installs it)")
    (tmp_path / "box.svg").write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10.5 6.25">'
                                       b'<rect width="10.5" height="6.25" fill="#ff0000"/></svg>')
    (tmp_path / "line.svg").write_bytes(
        b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" viewBox="0 0 20 20">'
        b'<line x1="0" y1="10" x2="20" y2="10" stroke="#0000ff" stroke-width="2"'
        b' vector-effect="non-scaling-stroke"/></svg>')
    with oracle.Browser() as browser:
        box = oracle.premultiplied(browser.draw(tmp_path / "box.svg", (10.5, 6.25), 8.0, 2.0))
        line = oracle.premultiplied(browser.draw(tmp_path / "line.svg", (10.0, 10.0), 8.0, 0.0))
    # the page: (10.5 + 2 x 2) x 8 = 116 by (6.25 + 4) x 8 = 82 px; the rect from 2 x 8 = 16 to 16 + 84 = 100
    # across and from 16 to 16 + 6.25 x 8 = 66 down
    assert box.shape == (82, 116, 4)
    inked = box[..., 3] > 127
    assert np.flatnonzero(inked[40]).tolist() == list(range(16, 100))
    assert np.flatnonzero(inked[:, 58]).tolist() == list(range(16, 66))
    # the line at y = 10 user units = 5 CSS px = 40 px, 2 CSS px = 16 px wide: rows 32 to 47
    assert np.flatnonzero(line[:, 40, 3] > 127).tolist() == list(range(32, 48))


def test_pdfium_blends_translucent_rectangles_over_each_other_on_a_transparent_page():
    """Two 40 x 40 pt rectangles of fill opacity 0.5 overlapping by 20 x 20, and two such triangles: where two
    overlap the alpha is 1 - (1 - 0.5)^2 = 0.75 (191 of 255), where one is 0.5 (127 or 128), rectangles
    and triangles alike (pdfium, told to write RGBA, painted the second rectangle over the first unblended)."""
    import pikepdf

    pdf = pikepdf.new()
    page = pdf.add_blank_page(page_size=(100, 100))
    page.Resources = pikepdf.Dictionary(ExtGState=pikepdf.Dictionary(
        g0=pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, ca=0.5)))
    page.Contents = pdf.make_stream(b"/g0 gs 0 0 1 rg 10 10 40 40 re f 30 30 40 40 re f "
                                    b"5 60 m 40 75 l 20 95 l h f 15 60 m 50 70 l 30 95 l h f")
    out = io.BytesIO()
    pdf.save(out)
    drawn = oracle.render_pdfium(out.getvalue(), 72.0)  # 1 pt = 1 px; PDF y up, the image's y down
    assert drawn.shape == (100, 100, 4)
    assert drawn[100 - 40, 40, 3] == 191 and drawn[100 - 20, 20, 3] in (127, 128)  # both rectangles, one
    assert drawn[100 - 75, 25, 3] == 191 and drawn[100 - 65, 10, 3] in (127, 128)  # both triangles, one
    assert tuple(drawn[100 - 40, 40, :3]) == (0, 0, 191)  # blue, premultiplied


@pytest.mark.e2e
def test_a_pdf_drawn_otherwise_by_pdf_viewers_alone_is_judged_against_chromiums_own_pdf(tmp_path):
    """Three lines 0.25 CSS px wide (0.5 device px at 192 dpi): composer's PNG agrees with Chromium's screen,
    but pdfium and poppler draw a stroke thinner than a pixel a pixel wide and opaque, in composer's PDF as in
    any PDF of the file. Judged against Chromium's own PDF of the file, drawn by pdfium, composer's PDF
    passes, with a note. A PDF with the lines 3 CSS px lower (Chromium's PDF of that file) does not."""
    pytest.importorskip("playwright.sync_api")
    if not Path(oracle.CHROMIUM).exists():
        pytest.skip(f"{oracle.CHROMIUM} is not installed (.ci/run installs it)")

    def lines(dy: float) -> bytes:
        return ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40" viewBox="0 0 400 40">'
                + "".join(f'<path d="M10 {y + dy} H390" stroke="#000000" stroke-width="0.25"/>' for y in (8, 20, 32))
                + "</svg>").encode()

    (tmp_path / "hair").mkdir()
    (tmp_path / "hair" / "lines.svg").write_bytes(lines(0))
    (tmp_path / "moved.svg").write_bytes(lines(3))
    report = oracle.run(oracle.collect([tmp_path / "hair"], []), jobs=1)
    [outcome] = report.outcomes
    assert outcome.verdict == "pass" and "Chromium's own PDF" in outcome.note, (outcome.why, outcome.note)
    png, pdf = outcome.comparisons
    assert png.oracle == "chromium" and png.ok and pdf.oracle == "chromium's pdf" and pdf.ok
    p = oracle.plan(outcome.entry)
    assert (p.dpi, p.scale) == (192.0, 2.0)
    with oracle.Browser() as browser:
        wrong = browser.print_pdf(tmp_path / "moved.svg", p.css_px, p.scale)
        judged = oracle.printed_check(oracle.Outcome(outcome.entry, "differs", outcome.comparisons, why="PDF",
                                                     pdf=wrong), p, browser, None)
    assert judged.verdict == "differs" and judged.pdf == b""
