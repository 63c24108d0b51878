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
