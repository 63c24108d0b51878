"""The measurements behind the choice of PDF-to-SVG converter (docs/design.md, "PDF panels").

Makes three test pages (hand-written PDF operators, cairo via cairosvg, matplotlib), converts each
with every converter installed (pdftocairo, pdf2svg, PyMuPDF), renders the SVG through composer's
import (sanitize, ids prefixed, fitted in a box of the page's size) and resvg export at 150 dpi, and
compares with pdfium's rendering of the original page: mean absolute grey difference (/255).

    python benchmarks/pdf_converters.py [--pymupdf-python PATH]   # PyMuPDF (AGPL) in a separate venv
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from lxml import etree
from PIL import Image

from composer.stages.export import export
from composer.stages.fragment import import_fragment
from composer.svg.io import NSMAP, parse_svg, svg_tag
from composer.svg.sanitize import sanitize
from composer.svg.viewbox import place, view_box

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pdf_samples import PAGE_1, hand_pdf  # noqa: E402

DPI = 150


def pages(folder: Path) -> list[Path]:
    import cairosvg
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    (folder / "hand.pdf").write_bytes(hand_pdf([PAGE_1]))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200pt" height="120pt" viewBox="0 0 200 120">'
           '<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#fc0"/>'
           '<stop offset="1" stop-color="#06c"/></linearGradient></defs>'
           '<rect x="10" y="10" width="80" height="50" fill="url(#g)"/>'
           '<circle cx="140" cy="40" r="30" fill="none" stroke="#393" stroke-width="3" stroke-dasharray="6 3"/>'
           '<text x="10" y="100" font-family="DejaVu Sans" font-size="16">Schematic ÅΩ 123</text>'
           '<path d="M10 110 C 60 80, 120 130, 190 105" fill="none" stroke="black"/></svg>')
    (folder / "cairo.pdf").write_bytes(cairosvg.svg2pdf(bytestring=svg.encode()))
    fig, ax = plt.subplots(figsize=(3.2, 2.4))
    x = np.linspace(0, 6, 200)
    ax.plot(x, np.sin(x), label="sin")
    ax.scatter(x[::10], np.cos(x[::10]), c=x[::10], cmap="viridis")
    ax.legend()
    ax.set_title("matplotlib")
    fig.savefig(folder / "mpl.pdf", metadata={"CreationDate": None})
    return [folder / "hand.pdf", folder / "cairo.pdf", folder / "mpl.pdf"]


def converters(pymupdf_python: str | None) -> dict:
    found = {}
    if shutil.which("pdftocairo"):
        found["pdftocairo"] = lambda pdf: subprocess.run(["pdftocairo", "-svg", "-f", "1", "-l", "1", str(pdf), "-"],
                                                         capture_output=True, check=True).stdout
    if shutil.which("pdf2svg"):
        def pdf2svg(pdf: Path) -> bytes:
            with tempfile.TemporaryDirectory() as tmp:
                subprocess.run(["pdf2svg", str(pdf), f"{tmp}/o.svg", "1"], check=True)
                return Path(tmp, "o.svg").read_bytes()
        found["pdf2svg"] = pdf2svg
    if pymupdf_python:  # timed including the interpreter's start; in process it is 3-6 ms a page
        found["pymupdf"] = lambda pdf: subprocess.run(
            [pymupdf_python, "-c", "import sys, pymupdf; sys.stdout.write(pymupdf.open(sys.argv[1])[0]"
                                   ".get_svg_image(text_as_path=True))", str(pdf)],
            capture_output=True, check=True).stdout
    return found


def render(svg: bytes, width_pt: float, height_pt: float, folder: Path) -> np.ndarray:
    root = parse_svg(svg, source="converted")
    sanitize(root, source="converted", base_dir=folder, project_root=folder)
    vb = view_box(root, source="converted")
    aspect = root.get("preserveAspectRatio")
    group = import_fragment(root, name="p", group_id="panel-p", source="converted")
    place(group, vb, x_pt=0, y_pt=0, width_pt=width_pt, height_pt=height_pt, fit="contain", aspect=aspect)
    canvas = etree.Element(svg_tag("svg"), nsmap=NSMAP, width=f"{width_pt}pt", height=f"{height_pt}pt",
                           viewBox=f"0 0 {width_pt} {height_pt}")
    etree.SubElement(canvas, svg_tag("rect"), width="100%", height="100%", fill="white")
    canvas.append(group)
    png = export(etree.tostring(canvas), ["png"], dpi=DPI)["png"]
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)


def main() -> None:
    import pypdfium2 as pdfium

    parser = argparse.ArgumentParser()
    parser.add_argument("--pymupdf-python", default=None, help="a Python with PyMuPDF installed (AGPL: kept apart)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for pdf in pages(folder):
            page = pdfium.PdfDocument(str(pdf))[0]
            width_pt, height_pt = page.get_size()
            reference = np.asarray(page.render(scale=DPI / 72).to_pil().convert("L"), dtype=float)
            for name, convert in converters(args.pymupdf_python).items():
                started = time.perf_counter()
                svg = convert(pdf)
                ms = (time.perf_counter() - started) * 1000
                image = render(svg, width_pt, height_pt, folder)
                h, w = min(image.shape[0], reference.shape[0]), min(image.shape[1], reference.shape[1])
                diff = np.abs(image[:h, :w] - reference[:h, :w]).mean()
                print(f"{pdf.stem:6} {name:11} {ms:7.0f} ms  mean|d| {diff:5.2f}/255  "
                      f"<text> {svg.count(b'<text')}  <image> {svg.count(b'<image')}")


if __name__ == "__main__":
    main()
