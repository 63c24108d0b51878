"""``compose NAME --panels``: every panel alone at its box size, in each format, deterministic.

Sizes are checked against the boxes as the layout writes them (mm -> pt by 72/25.4); pixel probes
against what each panel draws where (a red square in the middle of the render panel, the hand-written
PDF's red rectangle in the pdf panel).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from pdf_samples import PAGE_1, hand_pdf
from PIL import Image

from composer.cli.main import main
from composer.stages import pdf as pdf_stage

MM = 72 / 25.4
BOXES_MM = {"plot": (40.0, 30.0), "scan": (50.0, 25.0)}
DPI = 150

RENDERER = '''
from matplotlib.patches import Rectangle


def square(fig, data):
    fig.add_artist(Rectangle((0.25, 0.25), 0.5, 0.5, transform=fig.transFigure, color="red"))
'''


def make_project(root: Path, *, pdf: bool = True) -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "demo.py").write_text(RENDERER)
    layout = ('[figure]\nwidth = "100mm"\nheight = "40mm"\nbackground = "white"\n\n'
              '[panels.plot]\nrender = "demo:square"\nat = ["5mm", "5mm"]\nsize = ["40mm", "30mm"]\nlabel = "a"\n'
              'empty = false\n')
    if pdf:
        (root / "scan.pdf").write_bytes(hand_pdf([PAGE_1]))
        layout += '\n[panels.scan]\npdf = "../scan.pdf"\nat = ["48mm", "5mm"]\nsize = ["50mm", "25mm"]\nlabel = "b"\n'
    (root / "layouts" / "fig.toml").write_text(layout)
    return root


def compose(root: Path, *args: str) -> int:
    return main(["fig", "--root", str(root), "--dpi", str(DPI), "--panels", *args])


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    if pdf_stage.missing():
        pytest.skip(pdf_stage.missing() or "")
    root = make_project(tmp_path_factory.mktemp("alone"))
    assert compose(root) == 0
    return root


@pytest.mark.parametrize("panel", sorted(BOXES_MM))
def test_each_output_is_the_size_of_the_panels_box(built, panel):
    import pypdfium2 as pdfium

    w_mm, h_mm = BOXES_MM[panel]
    folder = built / "build" / "fig"
    svg = etree.parse(str(folder / f"{panel}.svg")).getroot()
    assert float(svg.get("width").removesuffix("pt")) == pytest.approx(w_mm * MM, abs=1e-3)
    assert float(svg.get("height").removesuffix("pt")) == pytest.approx(h_mm * MM, abs=1e-3)
    page = pdfium.PdfDocument(str(folder / f"{panel}.pdf"))[0]
    assert page.get_size() == pytest.approx((w_mm * MM, h_mm * MM), abs=1e-2)
    png = Image.open(folder / f"{panel}.png")
    assert png.size == (round(w_mm / 25.4 * DPI), round(h_mm / 25.4 * DPI))


def test_the_panels_content_is_there_and_its_label_is_not(built):
    folder = built / "build" / "fig"
    plot = Image.open(folder / "plot.png").convert("RGB")
    w, h = plot.size
    r, g, b = plot.getpixel((w // 2, h // 2))  # the renderer's red square: 25-75 % of the panel
    assert r > 200 and g < 50 and b < 50, (r, g, b)
    assert plot.getpixel((w // 10, h // 10)) == (255, 255, 255)
    scan = Image.open(folder / "scan.png").convert("RGB")
    # the PDF's red rectangle, x 20-100 and y 20-80 of its 200 x 100 pt page (y up): its middle is (60, 50)
    r, g, b = scan.getpixel((int(scan.size[0] * 60 / 200), int(scan.size[1] * 50 / 100)))
    assert r > 180 and g < 60 and b < 60, (r, g, b)
    for name in BOXES_MM:
        svg = etree.parse(str(folder / f"{name}.svg")).getroot()
        ids = {el.get("id") for el in svg.iter() if el.get("id")}
        assert f"panel-{name}" in ids
        assert not any(i.startswith(("label-", "title-")) for i in ids), ids
        other = next(n for n in BOXES_MM if n != name)
        assert f"panel-{other}" not in ids
    # the figure itself is still built, with its labels
    figure = (built / "build" / "fig.svg").read_bytes()
    assert b'id="label-plot"' in figure


def test_the_outputs_are_the_same_bytes_on_every_run(built, tmp_path):
    again = make_project(tmp_path / "again")
    assert compose(again, "--no-cache") == 0
    first = sorted((built / "build" / "fig").iterdir())
    second = sorted((again / "build" / "fig").iterdir())
    assert [p.name for p in first] == [p.name for p in second] == [
        "plot.pdf", "plot.png", "plot.svg", "scan.pdf", "scan.png", "scan.svg"]
    for a, b in zip(first, second):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_format_and_out_are_respected(tmp_path, capsys):
    root = make_project(tmp_path / "p", pdf=False)
    out = tmp_path / "elsewhere"
    assert main(["fig", "--root", str(root), "--panels", "--format", "svg", "--out", str(out)]) == 0
    assert sorted(p.name for p in (out / "fig").iterdir()) == ["plot.svg"]
    assert capsys.readouterr().out.splitlines()[-1] == f"each panel alone: {out / 'fig'}/PANEL.{{svg}}"
    assert not (root / "build" / "fig").exists()


def test_clean_removes_the_panels_files_and_keeps_the_users(tmp_path):
    """`compose clean NAME` deletes the panel files `--panels` wrote and the folder once empty; a file of the
    user's in that folder stays, and so does the folder then."""
    root = make_project(tmp_path / "p", pdf=False)
    assert main(["fig", "--root", str(root), "--panels", "--format", "svg,png"]) == 0
    alone = root / "build" / "fig"
    assert sorted(p.name for p in alone.iterdir()) == ["plot.png", "plot.svg"]
    assert main(["clean", "fig", "--root", str(root)]) == 0
    assert not alone.exists()

    assert main(["fig", "--root", str(root), "--panels", "--format", "svg"]) == 0
    (alone / "notes.txt").write_text("mine")
    assert main(["clean", "fig", "--root", str(root)]) == 0
    assert sorted(p.name for p in alone.iterdir()) == ["notes.txt"]


def test_clean_removes_the_panels_files_of_imported_panels_too(tmp_path):
    """The files `--panels` wrote for a panel that is not rendered (here a pdf panel, `scan`; an svg or
    image panel alike) are composer's too: `compose clean NAME` deletes them and then the folder."""
    root = make_project(tmp_path / "p")
    assert main(["fig", "--root", str(root), "--panels", "--format", "svg"]) == 0
    alone = root / "build" / "fig"
    assert sorted(p.name for p in alone.iterdir()) == ["plot.svg", "scan.svg"]
    assert main(["clean", "fig", "--root", str(root)]) == 0
    assert not alone.exists()


# ─── a panel alone is the panel as the figure shows it (issue #26) ───────────

TIGHT_RENDERER = '''
from matplotlib.ticker import FormatStrFormatter


def tight(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.85, 0.85])
    ax.plot([0, 1], [0.9, 1.0])
    ax.set_yticks([0.9, 0.95, 1.0])
    ax.yaxis.set_major_formatter(FormatStrFormatter("%.3f"))
'''
#: the panel's box, (x, y, width, height) in mm: its axes start 2.5 mm in, and "0.950" at 7 pt is wider
TIGHT_BOX_MM = (15.0, 5.0, 25.0, 30.0)
TIGHT_DPI = 288


@pytest.fixture(scope="module")
def tight_built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tight")
    (root / "layouts").mkdir()
    (root / "panels").mkdir()
    (root / "panels" / "demo.py").write_text(TIGHT_RENDERER)
    x, y, w, h = TIGHT_BOX_MM
    (root / "layouts" / "fig.toml").write_text(
        '[figure]\nwidth = "60mm"\nheight = "40mm"\nbackground = "white"\nfont = "DejaVu Sans"\nfont_size = "7pt"\n'
        f'[panels.tight]\nrender = "demo:tight"\nat = ["{x}mm", "{y}mm"]\nsize = ["{w}mm", "{h}mm"]\n')
    assert main(["fig", "--root", str(root), "--dpi", str(TIGHT_DPI), "--panels", "--format", "svg,png"]) == 0
    return root


def _tick_label_overhang_pt() -> float:
    """How far (pt) the y tick label "0.950" reaches left of the panel's box, by matplotlib alone: its window
    extent on a figure of the box's size in DejaVu Sans 7 pt (it encloses the ink, side bearing included)."""
    import io

    import matplotlib
    from matplotlib.backends.backend_svg import RendererSVG
    from matplotlib.figure import Figure
    from matplotlib.ticker import FormatStrFormatter

    w, h = TIGHT_BOX_MM[2] * MM, TIGHT_BOX_MM[3] * MM
    with matplotlib.rc_context({"font.family": "DejaVu Sans", "font.size": 7}):
        fig = Figure(figsize=(w / 72, h / 72), dpi=72)
        ax = fig.add_axes([0.1, 0.1, 0.85, 0.85])
        ax.plot([0, 1], [0.9, 1.0])
        ax.set_yticks([0.9, 0.95, 1.0])
        ax.yaxis.set_major_formatter(FormatStrFormatter("%.3f"))
        renderer = RendererSVG(w / 72, h / 72, io.StringIO())
        fig.draw(renderer)
        return -min(t.get_window_extent(renderer).x0 for t in ax.get_yticklabels() if t.get_text())


def test_a_panel_alone_holds_what_it_draws_past_its_box(tight_built):
    """The y tick labels reach past the panel's box (matplotlib: several pt; "0.950" would read ".950" cut at
    the box): the panel alone is its box grown left by that much (to its ink, within the window's side bearing,
    1 pt), its group the figure's own, byte for byte."""
    overhang = _tick_label_overhang_pt()
    assert overhang > 3.0  # the layout does what this test is about
    alone = etree.parse(str(tight_built / "build" / "fig" / "tight.svg")).getroot()
    width = float(alone.get("viewBox").split()[2])
    assert overhang - 1.0 <= width - TIGHT_BOX_MM[2] * MM <= overhang
    figure = etree.parse(str(tight_built / "build" / "fig.svg")).getroot()
    group = figure.find("{http://www.w3.org/2000/svg}g[@id='panel-tight']")
    moved = alone.find("{http://www.w3.org/2000/svg}g/{http://www.w3.org/2000/svg}g[@id='panel-tight']")
    assert moved is not None and etree.tostring(moved) == etree.tostring(group)


def test_a_panel_alone_shows_all_the_ink_the_figure_shows(tight_built):
    """The panel is the figure's only element, so the ink of the panel alone (the sum of 255 - grey over its
    PNG) is the ink of the whole figure's PNG at the same dpi, to 3 % (anti-aliasing of small text at another
    sub-pixel offset: 1.1 % measured); cut at its box, it would lack the 22 % of the figure's ink left of the box
    (the tick labels' leading "0.9")."""
    def ink(path: Path) -> float:
        return float((255 - np.asarray(Image.open(path).convert("L"), dtype=float)).sum())

    alone, figure = ink(tight_built / "build" / "fig" / "tight.png"), ink(tight_built / "build" / "fig.png")
    assert alone == pytest.approx(figure, rel=0.03)
