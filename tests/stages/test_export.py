"""The export engines: what resvg (the default) draws right where cairosvg does not, on PNG pixels and
PDF renders; PNG metadata; PDF metadata and standards; engine choice and its errors.

Every expected colour below is worked out from the SVG by hand (a white luminance mask shows the
content, black hides it, grey 50 % shows half of it: SVG 1.1, 14.4), not from the engine.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

from composer.errors import ComposerError, SvgError
from composer.stages.export import canvas_size_pt, check_engine, export
from composer.stages.export import png as png_meta
from conftest import DEMO, pdf_pixels, run_compose

S = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def pixels(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGBA")).astype(int)


def both(svg: str, dpi: float = 72.0, engine: str = "resvg") -> tuple[np.ndarray, np.ndarray]:
    """(PNG pixels on white, pdfium's pixels of the PDF), both at ``dpi``."""
    made = export(svg.encode(), ["png", "pdf"], engine=engine, dpi=dpi)
    png = pixels(made["png"])
    alpha = png[..., 3:4] / 255.0
    on_white = (png[..., :3] * alpha + 255 * (1 - alpha)).round().astype(int)
    return on_white, pdf_pixels(made["pdf"], dpi)


def close(actual, expected, tol=6) -> bool:
    return bool(np.all(np.abs(np.asarray(actual)[:3] - np.asarray(expected)) <= tol))


MASK = f'''<svg {S} width="300pt" height="100pt" viewBox="0 0 300 100">
<defs><mask id="m" maskUnits="userSpaceOnUse" x="0" y="0" width="300" height="100">
<rect width="100" height="100" fill="white"/><rect x="100" width="100" height="100" fill="black"/>
<rect x="200" width="100" height="100" fill="#808080"/></mask></defs>
<rect width="300" height="100" fill="#ffffff"/>
<rect width="300" height="100" fill="#0000ff" mask="url(#m)"/></svg>'''


@pytest.mark.parametrize("where", ["png", "pdf"])
def test_luminance_mask_white_shows_black_hides_grey_half(where):
    png, pdf = both(MASK)
    px = png if where == "png" else pdf
    assert close(px[50, 50], (0, 0, 255)), px[50, 50]          # white: the blue shows
    assert close(px[50, 150], (255, 255, 255)), px[50, 150]    # black: hidden, the white behind
    # #808080 has luminance 128/255 (linearRGB off: SVG 1.1 uses sRGB values): half blue over white
    half = 255 - round(255 * 128 / 255)
    assert close(px[50, 250], (half, half, 255), tol=8), px[50, 250]


PAINT_ORDER = f'''<svg {S} width="200pt" height="100pt" viewBox="0 0 200 100">
<rect width="200" height="100" fill="white"/>
<rect x="20" y="20" width="60" height="60" fill="#0000ff" stroke="#ff0000" stroke-width="20"/>
<rect x="120" y="20" width="60" height="60" fill="#0000ff" stroke="#ff0000" stroke-width="20"
      style="paint-order: stroke"/></svg>'''


@pytest.mark.parametrize("where", ["png", "pdf"])
def test_paint_order_stroke_draws_the_fill_over_the_stroke(where):
    """5 pt inside each square's edge lies under the inner half of its 20 pt stroke: red when the stroke is
    painted last (the default), blue when ``paint-order: stroke`` paints it first (SVG 2, 13.5)."""
    png, pdf = both(PAINT_ORDER)
    px = png if where == "png" else pdf
    assert close(px[50, 25], (255, 0, 0)), px[50, 25]
    assert close(px[50, 125], (0, 0, 255)), px[50, 125]
    assert close(px[50, 115], (255, 0, 0)), px[50, 115]  # outside the fill: the stroke's outer half


CONTEXT_STROKE = f'''<svg {S} width="100pt" height="40pt" viewBox="0 0 100 40">
<defs><marker id="head" markerWidth="12" markerHeight="12" refX="0" refY="6" markerUnits="userSpaceOnUse"
 orient="auto"><path d="M0,0 L12,6 L0,12 z" fill="context-stroke"/></marker></defs>
<rect width="100" height="40" fill="white"/>
<line x1="10" y1="20" x2="70" y2="20" stroke="#008000" stroke-width="2" marker-end="url(#head)"/></svg>'''


@pytest.mark.parametrize("where", ["png", "pdf"])
def test_context_stroke_marker_takes_its_lines_colour(where):
    png, pdf = both(CONTEXT_STROKE, dpi=144)
    px = png if where == "png" else pdf
    # the head's triangle spans x 70..82 pt; at x = 74 pt it covers y 16..24 pt (2/3 of its 12 pt); the
    # 2 pt line covers y 19..21 only, so y = 17 pt (px 34 at 144 dpi) is the head alone
    assert close(px[40, 148], (0, 128, 0)), px[40, 148]
    assert close(px[34, 148], (0, 128, 0)), px[34, 148]
    assert close(px[30, 148], (255, 255, 255)), px[30, 148]  # y = 15 pt: above the head


GRADIENT_CHAIN = f'''<svg {S} width="300pt" height="100pt" viewBox="0 0 300 100">
<defs><linearGradient id="stops"><stop offset="0" stop-color="#ff0000"/><stop offset="1" stop-color="#0000ff"/>
</linearGradient>
<linearGradient id="a" xlink:href="#stops" x1="0" x2="1"/><linearGradient id="b" xlink:href="#stops" x1="0" x2="1"/>
<linearGradient id="c" xlink:href="#a"/></defs>
<rect x="0" width="100" height="100" fill="url(#a)"/><rect x="100" width="100" height="100" fill="url(#b)"/>
<rect x="200" width="100" height="100" fill="url(#c)"/></svg>'''


@pytest.mark.parametrize("where", ["png", "pdf"])
def test_gradient_href_chains_fill_every_shape(where):
    """Inkscape's pattern: stops in one gradient, each shape's gradient takes them by ``xlink:href`` (SVG 1.1,
    13.2.2), ``c`` through two links. Each square runs red (left edge) to blue (right edge)."""
    png, pdf = both(GRADIENT_CHAIN)
    px = png if where == "png" else pdf
    for left in (0, 100, 200):
        assert close(px[50, left + 2], (250, 0, 5), tol=12), (left, px[50, left + 2])
        assert close(px[50, left + 97], (5, 0, 250), tol=12), (left, px[50, left + 97])
        assert close(px[50, left + 50], (128, 0, 128), tol=12), (left, px[50, left + 50])


NEGATIVE_DASH = f'''<svg {S} width="100pt" height="20pt" viewBox="0 0 100 20">
<rect width="100" height="20" fill="white"/>
<line x1="0" y1="10" x2="100" y2="10" stroke="#000000" stroke-width="6" stroke-dasharray="5 -3"/></svg>'''


@pytest.mark.parametrize("where", ["png", "pdf"])
def test_negative_dash_array_is_ignored_and_the_line_drawn_solid(where):
    """SVG 1.1, 11.4: a negative value in ``stroke-dasharray`` is an error that makes the stroke solid."""
    png, pdf = both(NEGATIVE_DASH)
    px = png if where == "png" else pdf
    row = px[10, 1:99]
    assert np.all(row <= 10), row.max()


def hatch_svg() -> bytes:
    """A matplotlib rectangle hatched with vertical lines ``|``, saved as SVG (matplotlib's pattern)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    fig = Figure(figsize=(1, 1))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    ax.add_patch(Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch="|", linewidth=0))
    buf = io.BytesIO()
    with matplotlib.rc_context({"hatch.linewidth": 1.0, "svg.hashsalt": "t"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


@pytest.mark.parametrize("dpi", [300, 600])
@pytest.mark.parametrize("where", ["png", "pdf"])
def test_matplotlib_hatches_are_crisp_at_300_and_600_dpi(dpi, where):
    """A 1 pt hatch line is 1/72 in: 4.17 px at 300 dpi, 8.33 px at 600. Drawn as vectors at the export
    dpi, each edge is one antialiased pixel; a pattern drawn at low resolution and scaled up (cairosvg
    #311) smears each edge over several. Counted along a row: pixels neither white nor black."""
    svg = hatch_svg().decode()
    made = export(svg.encode(), ["png", "pdf"], dpi=dpi)
    px = pixels(made["png"]) if where == "png" else pdf_pixels(made["pdf"], dpi)
    row = px[px.shape[0] // 2, :, 0]
    dark = row < 128
    edges = int(np.count_nonzero(dark[1:] != dark[:-1]))
    grey = int(np.count_nonzero((row > 40) & (row < 215)))
    assert edges >= 2 * 5, edges  # matplotlib draws several hatch lines across one inch
    assert grey <= edges * 1.5, (grey, edges)  # at most one grey pixel per edge, some rounding allowed
    width_px = np.count_nonzero(dark) / (edges / 2)
    assert abs(width_px - dpi / 72) <= 1.5, width_px


def test_png_states_its_dpi_and_srgb():
    made = export(MASK.encode(), ["png"], dpi=600)
    kinds = [k for k, _ in png_meta.chunks(made["png"])]
    assert kinds[0] == b"IHDR" and b"sRGB" in kinds and b"pHYs" in kinds
    phys = dict(png_meta.chunks(made["png"]))[b"pHYs"]
    x, y, unit = struct.unpack(">IIB", phys)
    assert (x, y, unit) == (23622, 23622, 1)  # 600 / 0.0254 = 23622.05 pixels per metre
    from PIL import Image

    with Image.open(io.BytesIO(made["png"])) as img:
        assert img.size == (round(300 / 72 * 600), round(100 / 72 * 600))  # 2500 x 833
        assert abs(img.info["dpi"][0] - 600) < 0.01


def test_tiff_has_the_pngs_pixels_and_dpi():
    from PIL import Image

    made = export(MASK.encode(), ["png", "tiff"], dpi=150)
    with Image.open(io.BytesIO(made["tiff"])) as tiff:
        assert tiff.info["compression"] == "tiff_lzw"
        assert tiff.info["dpi"] == (150, 150)
        assert tiff.mode == "RGB"  # an opaque canvas
        assert np.array_equal(np.asarray(tiff), pixels(made["png"])[..., :3].astype(np.uint8))


def test_pdf_has_title_creator_and_pinned_dates():
    pdf = export(MASK.encode(), ["pdf"], title="volume_kv")["pdf"]
    assert b"/Title(volume_kv)" in pdf.replace(b" ", b"")
    assert re.search(rb"/Creator\s*\(", pdf)
    assert b"D:20000101000000Z" in pdf


def test_pdf_a_on_request():
    pdf = export(MASK.encode(), ["pdf"], title="x", pdf_standard="a-2b")["pdf"]
    assert b"pdfaid:part" in pdf and re.search(rb"pdfaid:part[^0-9]*2", pdf)
    assert b"pdfaid:part" not in export(MASK.encode(), ["pdf"], title="x")["pdf"]


def test_canvas_size_follows_css_units():
    assert canvas_size_pt(b'<svg width="180mm" height="1in">') == pytest.approx((180 / 25.4 * 72, 72))
    assert canvas_size_pt(b'<svg width="96" height="48px">') == pytest.approx((72, 36))  # CSS px
    assert canvas_size_pt(b'<svg viewBox="0 0 200 100">') == pytest.approx((150, 75))
    with pytest.raises(SvgError):
        canvas_size_pt(b'<svg width="50%">')


def test_px_canvas_is_exported_at_its_css_size():
    """480 x 240 CSS px = 5 x 2.5 in: 1500 x 750 px at 300 dpi (not 480 px taken as device pixels)."""
    svg = f'<svg {S} width="480" height="240" viewBox="0 0 480 240"><rect width="480" height="240"/></svg>'
    assert pixels(export(svg.encode(), ["png"], dpi=300)["png"]).shape[:2] == (750, 1500)


def test_unknown_engine_and_standard_are_one_line_errors():
    with pytest.raises(ComposerError, match=r"unknown engine 'skia'; valid engines are resvg, cairosvg"):
        check_engine("skia", ["png"])
    with pytest.raises(ComposerError, match=r"unknown pdf standard 'a-9'; valid standards are .*a-2b"):
        check_engine("resvg", ["pdf"], "a-9")
    with pytest.raises(ComposerError, match=r"needs the resvg engine"):
        check_engine("cairosvg", ["pdf"], "a-2b")


def test_missing_cairosvg_is_one_line_with_the_fix(tmp_path, monkeypatch):
    """A machine without cairosvg (or libcairo) builds with the default engine, and --engine cairosvg or an
    EPS says what to install, exit 1, nothing written."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # `import cairosvg` raises ImportError
    monkeypatch.setitem(sys.modules, "cairocffi", None)

    def run(*args):
        return run_compose(["demo", "--root", root, "--dpi", "50", *args])

    ok = run()
    assert ok.returncode == 0, ok.stderr
    assert (root / "build" / "demo.png").exists()
    before = {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()}
    for args in (["--engine", "cairosvg", "--no-cache"], ["--format", "eps"]):
        bad = run(*args)
        assert bad.returncode == 1
        lines = bad.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install cairosvg" in lines[0], bad.stderr
        assert "Traceback" not in bad.stderr
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace("[figure]\n", '[figure]\nengine = "cairosvg"\n', 1))
    bad = run()
    assert bad.returncode == 1 and bad.stderr.startswith("compose: error: layouts/demo.toml:2:1: figure.engine: engine "
                                                         "'cairosvg', which cannot run here"), bad.stderr
    assert {p.name: p.read_bytes() for p in (root / "build").iterdir() if p.is_file()} == before


def test_layout_engine_key_chooses_the_engine_and_the_cli_overrides_it(tmp_path):
    from composer.pipeline import build

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace("[figure]\n", '[figure]\nengine = "cairosvg"\n', 1))
    first = build("demo", root=root, formats=("svg", "pdf"))
    assert re.search(rb"/Producer \(cairo", first.outputs["pdf"].read_bytes())  # cairo's Producer
    second = build("demo", root=root, formats=("svg", "pdf"), engine="resvg")
    assert second.written == ("pdf",)  # same SVG, another engine: the PDF is made again
    assert b"Typst" in second.outputs["pdf"].read_bytes()
    layout.write_text(layout.read_text().replace('engine = "cairosvg"', 'engine = "skia"'))
    with pytest.raises(ComposerError, match=r"figure\.engine.*'skia'.*resvg.*cairosvg"):
        build("demo", root=root)


def test_text_in_a_font_the_engine_lacks_is_an_error_naming_it():
    svg = f'<svg {S} width="100pt" height="20pt"><text x="1" y="15" font-family="Nosuch Sans">Hi</text></svg>'
    with pytest.raises(SvgError, match=r"font 'Nosuch Sans' is not installed for the resvg engine"):
        export(svg.encode(), ["png"])
    fallback = f'<svg {S} width="100pt" height="20pt"><text x="1" y="15" font-family="DejaVu Sans">Hi</text></svg>'
    assert export(fallback.encode(), ["png"])["png"]


def test_both_engines_draw_the_flagship_alike(flagship_build, tmp_path):
    """volume_kv through cairosvg and through resvg (the default): PNGs of the same size, and the same
    figure by the cross-renderer metric (tests/crossrender.py), for the PNGs and for pdfium's renders of
    the PDFs; the cairosvg PDF is cairo's, the default one svg2pdf's."""
    import crossrender as cr
    from composer.pipeline import build
    from conftest import REPO

    cairo = build("volume_kv", root=REPO, out=tmp_path, dpi=cr.DPI, engine="cairosvg")
    assert cairo.outputs["svg"].read_bytes() == flagship_build["svg"].read_bytes()  # one SVG, two engines
    assert re.search(rb"/Producer \(cairo", cairo.outputs["pdf"].read_bytes())
    assert b"Typst" in flagship_build["pdf"].read_bytes()
    assert b"/Title (volume_kv)" in cairo.outputs["pdf"].read_bytes()  # both engines title the PDF
    svg = flagship_build["svg"].read_bytes()
    resvg_png = cr.render_composer(svg, engine="resvg")
    cairo_png = cr.flatten(pixels(cairo.outputs["png"].read_bytes()).astype(np.uint8))
    assert resvg_png.shape == cairo_png.shape == (round(100 / 25.4 * cr.DPI), round(180 / 25.4 * cr.DPI), 3)
    assert cr.difference(cr.prepare(resvg_png), cr.prepare(cairo_png)).ok()
    pdfs = [cr.render_pdfium(p) for p in (flagship_build["pdf"].read_bytes(), cairo.outputs["pdf"].read_bytes())]
    assert cr.difference(cr.prepare(pdfs[0]), cr.prepare(pdfs[1])).ok()


def test_watch_builds_write_the_svg_before_pdf_and_png(tmp_path, monkeypatch):
    """``svg_first`` (every ``--watch`` build): the new SVG is on disk while PDF and PNG are still being
    made. Shown by an export that fails: the SVG is already the new one, PDF and PNG the old ones; a
    plain build in the same state changes nothing."""
    from composer.pipeline import build
    from composer.stages.export import resvg_engine

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    first = build("demo", root=root, dpi=40)
    old = {k: p.read_bytes() for k, p in first.outputs.items()}
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace("[figure]\n", '[figure]\nbackground = "#fafafa"\n', 1))

    def failing(svg, kinds, **kw):
        raise SvgError("engine failed on purpose", file="layouts/demo.toml")

    monkeypatch.setattr(resvg_engine, "convert", failing)
    with pytest.raises(SvgError, match="on purpose"):
        build("demo", root=root, dpi=40)
    assert {k: p.read_bytes() for k, p in first.outputs.items()} == old  # atomic: nothing written
    with pytest.raises(SvgError, match="on purpose"):
        build("demo", root=root, dpi=40, svg_first=True)
    assert b"#fafafa" in first.outputs["svg"].read_bytes() and first.outputs["svg"].read_bytes() != old["svg"]
    assert first.outputs["pdf"].read_bytes() == old["pdf"] and first.outputs["png"].read_bytes() == old["png"]
    monkeypatch.undo()
    done = build("demo", root=root, dpi=40, svg_first=True)
    assert done.written == ("pdf", "png")  # the SVG was already the new one
    layout.write_text(layout.read_text().replace("#fafafa", "#f0f0f0"))
    assert build("demo", root=root, dpi=40, svg_first=True).written == ("svg", "pdf", "png")


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_tiff_of_a_canvas_with_a_background_is_rgb(demo_build, engine):
    """The demo canvas (120 mm, not a whole number of pixels at 100 dpi: 472.44 px) paints a white
    background: its TIFF is RGB with either engine, the partly covered last column composited on white."""
    from PIL import Image

    _, outputs = demo_build
    tiff = export(outputs["svg"].read_bytes(), ["tiff"], engine=engine, dpi=100)["tiff"]
    with Image.open(io.BytesIO(tiff)) as img:
        assert img.mode == "RGB" and img.size == (round(120 / 25.4 * 100), round(70 / 25.4 * 100))
        assert img.getpixel((0, 0)) == (255, 255, 255)


def test_export_refuses_bad_arguments_in_one_line():
    svg = MASK.encode()
    for kinds, dpi, match in ((["jpg"], 300, r"unknown export format 'jpg'; valid formats are pdf, png, tiff, eps, pptx"),
                              (["png"], 0, r"dpi 0 must be a number from 1 to 12000"),
                              (["png"], float("inf"), r"dpi inf must be"),
                              (["png"], float("nan"), r"dpi nan must be")):
        with pytest.raises(ComposerError, match=match):
            export(svg, kinds, dpi=dpi)
    assert set(export(svg, "png", dpi=10)) == {"png"}  # one format as a string
    assert set(export(svg, (k for k in ("pdf", "png")), dpi=10)) == {"pdf", "png"}  # or any iterable
    with pytest.raises(ComposerError, match=r"must be bytes, not str"):
        export(MASK, ["png"])
    with pytest.raises(SvgError, match=r"no usable width \(a length\) and no usable viewBox"):
        export(b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="a b c d"/>', ["png"])
    big = b'<svg xmlns="http://www.w3.org/2000/svg" width="1000mm" height="1000mm"/>'
    with pytest.raises(SvgError, match=r"a PNG of 47244 x 47244 px .* more than the limit of 1,000,000,000 pixels"):
        export(big, ["png"], dpi=1200)
    assert export(big, ["pdf"])["pdf"].startswith(b"%PDF")  # a PDF has no pixels to count


def test_eps_alone_runs_no_resvg_worker(monkeypatch):
    from composer.stages.export import resvg_engine

    def never(*args, **kwargs):
        raise AssertionError("the resvg engine ran for an EPS")

    monkeypatch.setattr(resvg_engine, "convert", never)
    assert export(MASK.encode(), ["eps"])["eps"].startswith(b"%!PS")


def test_dropping_the_pdf_standard_makes_the_pdf_again(tmp_path):
    from composer.pipeline import build

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    archival = build("demo", root=root, formats=("svg", "pdf"), pdf_standard="a-2b")
    assert b"pdfaid:part" in archival.outputs["pdf"].read_bytes()
    plain = build("demo", root=root, formats=("svg", "pdf"))
    assert not plain.up_to_date and plain.written == ("pdf",) and plain.rendered == ()
    assert b"pdfaid:part" not in plain.outputs["pdf"].read_bytes()
    assert build("demo", root=root, formats=("svg", "pdf")).up_to_date


@pytest.mark.e2e
def test_fresh_processes_exporting_side_by_side_never_hang(tmp_path):
    """A figure without matplotlib panels (an imported SVG and a text): its first use of ``tempfile`` is in
    the two export threads, each forking a worker. Forking while the other thread held tempfile's
    first-use lock left a worker waiting forever (5 of 12 fresh builds hung). Six fresh builds, each must
    finish well inside its 20 s timeout."""
    (tmp_path / "layouts").mkdir()
    shutil.copytree(DEMO / "assets", tmp_path / "assets")
    (tmp_path / "layouts" / "t.toml").write_text(
        '[figure]\nwidth = "60mm"\nheight = "30mm"\n'
        '[panels.logo]\nsvg = "../assets/logo.svg"\nat = ["2mm", "2mm"]\nsize = ["20mm", "20mm"]\n'
        '[[text]]\ntext = "no matplotlib panel"\nat = ["30mm", "10mm"]\n')
    for i in range(6):
        proc = subprocess.run([sys.executable, "-m", "composer.cli", "t", "--root", str(tmp_path), "--out",
                               str(tmp_path / f"out{i}"), "-j", "2", "--timeout", "20", "--dpi", "50"],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
    first = (tmp_path / "out0" / "t.pdf").read_bytes()
    assert all((tmp_path / f"out{i}" / "t.pdf").read_bytes() == first for i in range(6))


@pytest.mark.parametrize("bad", [["--pdf-standard", "zz"], ["--format", "xyz"], ["--dpi", "0"],
                                 ["--engine", "cairosvg", "--pdf-standard", "a-2b"]])
def test_watch_refuses_a_bad_option_at_once(bad, tmp_path):
    """No edit of the project can fix an option: ``compose watch`` exits 1 with one line instead of watching."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    proc = run_compose(["watch", "demo", "--root", root, *bad])
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("compose: error: "), proc.stderr
    assert "watching" not in proc.stdout  # refused before it says it watches


def test_compose_all_refuses_a_bad_pdf_standard_once(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    proc = run_compose(["build", "--all", "--root", root, "--pdf-standard", "zz"])
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == ["compose: error: unknown pdf standard 'zz'; valid standards are "
                                                "1.4, 1.5, 1.6, 1.7, 2.0, a-1b, a-2b, a-2u, a-3b, a-3u, a-4, ua-1"]


@pytest.mark.parametrize("dpi", [150, 600])
def test_compose_dpi_is_the_pngs_phys(tmp_path, dpi):
    """``compose NAME --dpi N``: the PNG states N dpi (pHYs, pixels per metre = round(N / 0.0254)) and
    is round(width_in * N) px wide; the TIFF's resolution tags say N too."""
    from PIL import Image

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    proc = run_compose(["demo", "--root", root, "--dpi", str(dpi), "--format", "png,tiff"])
    assert proc.returncode == 0, proc.stderr
    png = (root / "build" / "demo.png").read_bytes()
    x, y, unit = struct.unpack(">IIB", dict(png_meta.chunks(png))[b"pHYs"])
    assert (x, y, unit) == (round(dpi / 0.0254), round(dpi / 0.0254), 1)
    with Image.open(io.BytesIO(png)) as img:
        assert img.size == (round(120 / 25.4 * dpi), round(70 / 25.4 * dpi))
    with Image.open(root / "build" / "demo.tiff") as tiff:
        assert tiff.info["dpi"] == (dpi, dpi)


def test_a_killed_export_leaves_no_temporary_folder(tmp_path, monkeypatch):
    """The resvg engine's folder is made and removed by the exporting process, so an export killed at its
    timeout leaves nothing in the temporary directory."""
    import tempfile
    import time

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    import typst

    monkeypatch.setattr(typst, "Compiler", lambda *a, **kw: time.sleep(30))  # hangs inside the real convert
    with pytest.raises(SvgError, match=r"still running after 1 s"):
        export(MASK.encode(), ["pdf", "png"], timeout_s=1, jobs=2)
    assert list(tmp_path.iterdir()) == []


def _limit_memory(limit_bytes: int):
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return limit


@pytest.mark.e2e
def test_an_export_that_runs_out_of_memory_says_so_in_one_line(tmp_path):
    """A 100 x 100 mm canvas at 7600 dpi is 29,921 x 29,921 px: resvg's pixmap alone is 3.58 GB, past a
    3 GB address-space limit (``RLIMIT_AS``, so no memory is really used). resvg aborts (SIGABRT) after
    printing ``memory allocation of N bytes failed`` and, with ``RUST_BACKTRACE=1``, its 45-frame
    backtrace; compose says one line instead: what ran out, the figure, what to do; exit 1, and
    nothing is written."""
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "t.toml").write_text(
        '[figure]\nwidth = "100mm"\nheight = "100mm"\n'
        '[[shape]]\nkind = "rect"\nat = ["10mm", "10mm"]\nsize = ["50mm", "30mm"]\nfill = "#2a9d8f"\n')
    proc = subprocess.run([sys.executable, "-m", "composer.cli", "t", "--root", str(tmp_path), "--dpi", "7600",
                           "--format", "svg,png"], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "RUST_BACKTRACE": "1"}, preexec_fn=_limit_memory(3 * 1024 ** 3))
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr[-3000:]
    assert lines[0].startswith("compose: error: layouts/t.toml: exporting the PNG ran out of memory: "), lines
    assert "29,921 x 29,921 px PNG at 7600 dpi" in lines[0] and "lower --dpi" in lines[0], lines
    assert f"{29921 * 29921 * 4 / 1e9:.2g} GB" in lines[0], lines  # what the engine asked for: 3.6 GB
    assert "backtrace" not in proc.stderr and "SIGABRT" not in proc.stderr
    assert not (tmp_path / "build").exists() or not list((tmp_path / "build").glob("t.*"))


def test_out_of_memory_failures_are_worded_and_others_kept():
    """Python's MemoryError and the kernel's SIGKILL are said as running out of memory (a PDF's advice
    is not about dpi); an ordinary crash keeps the worker's own detail."""
    from composer.kinds.outputs import Job
    from composer.sandbox.isolate import WorkerFailure
    from composer.stages.export import failure_text

    job = Job(svg=b"", size_pt=(72.0, 36.0), dpi=300.0, title="", pdf_standard=None, source="f", folder="")

    def failed(kind: str, detail: str, call: str) -> WorkerFailure:
        failure = WorkerFailure(kind, detail)
        failure.call = call
        return failure

    text = failure_text(failed("raised", "MemoryError: ", "PNG"), "", job)
    assert text.startswith("exporting the PNG ran out of memory") and "300 x 150 px PNG at 300 dpi" in text
    text = failure_text(failed("crashed", "the worker process was killed by signal SIGKILL (out of memory?)",
                               "PDF"), "", job)
    assert "killed by the system (SIGKILL), most likely for running out of memory" in text and "dpi" not in text
    text = failure_text(failed("crashed", "the worker process was killed by signal SIGSEGV", "PDF and PNG"), "", job)
    assert text == "exporting the PDF and PNG failed: the worker process was killed by signal SIGSEGV"
