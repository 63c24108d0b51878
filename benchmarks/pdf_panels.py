"""The measurements behind how a pdf panel is drawn in each output (docs/design.md, "PDF panels").

Each PDF page (made here: hand-written operators with a standard font the file does not embed, cairo with
an embedded subset, matplotlib with Type 3 and with TrueType text, an R ``pdf()``-like page; and every PDF
of the folders given) is composed as the one panel of a canvas of its own size, built as SVG, PDF and PNG
at 150 dpi, twice: with the PDF output drawing the page as it is (a PDF object: the default) and with it
drawing the converted SVG (pdftocairo) as the PNG does. Compared with the page alone as pdfium and as
poppler draw it:

- composer's PNG (always the converted page) against pdfium's and poppler's rendering of the page alone;
- composer's PDF, rendered by pdfium and by poppler, against the same viewer's rendering of the page alone;
- the text ``pdftotext`` reads from composer's PDF against the text it reads from the page alone;
- the PDF's size.

Pixel differences are the mean absolute grey difference over the page (/255) and the worst 24 px tile's.

    python benchmarks/pdf_panels.py [FOLDER ...]
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pdf_converters import pages  # noqa: E402
from pdf_samples import hand_pdf  # noqa: E402

DPI = 150
TILE = 24
R_LIKE = (b"q 0.5 0 0 0.5 0 0 cm 0 0 0 RG 0.34 w 40 20 m 360 180 l S Q\n"
          b"BT /F1 6 Tf 0.5 0 0 0.5 10 10 Tm (Small) Tj ET\nBT /F1 14 Tf 1 0 0 1 20 60 Tm (R pdf\\(\\) text) Tj ET")


def more_pages(folder: Path) -> list[Path]:
    """matplotlib with TrueType text (``pdf.fonttype = 42``) and an R ``pdf()``-like page."""
    import matplotlib

    matplotlib.use("agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"pdf.fonttype": 42}):
        fig, ax = plt.subplots(figsize=(3.2, 2.4))
        ax.plot([0, 1, 2], [1, 0, 2], label="line")
        ax.legend()
        ax.set_title("TrueType text")
        fig.savefig(folder / "mpl42.pdf", metadata={"CreationDate": None})
        plt.close(fig)
    (folder / "rlike.pdf").write_bytes(hand_pdf([R_LIKE]))
    return [folder / "mpl42.pdf", folder / "rlike.pdf"]


def gray(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)


def pdfium_render(pdf: Path | bytes) -> np.ndarray:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    return np.asarray(doc[0].render(scale=DPI / 72).to_pil().convert("L"), dtype=float)


def poppler_render(pdf: Path | bytes) -> np.ndarray:
    data = pdf if isinstance(pdf, bytes) else pdf.read_bytes()
    out = subprocess.run(["pdftoppm", "-r", str(DPI), "-f", "1", "-l", "1", "-gray", "-png", "-"], input=data,
                         capture_output=True, check=True).stdout
    return gray(out)


def difference(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(mean |a - b|, the worst TILE x TILE tile's mean), /255, over the common area."""
    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    d = np.abs(a[:h, :w] - b[:h, :w])
    tiles = [d[y:y + TILE, x:x + TILE].mean() for y in range(0, h, TILE) for x in range(0, w, TILE)]
    return float(d.mean()), float(max(tiles))


def text_of(pdf: Path | bytes) -> str:
    data = pdf if isinstance(pdf, bytes) else pdf.read_bytes()
    out = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True, check=True).stdout
    return " ".join(out.decode("utf-8", "replace").split())


def build_one(pdf: Path, folder: Path, *, as_pdf_object: bool) -> tuple[bytes, bytes]:
    """(PDF, PNG) of a canvas of the page's size showing it as its one panel."""
    import pypdfium2 as pdfium

    from composer.pipeline import build
    from composer.stages.sources.pdf import PdfSource

    width_pt, height_pt = pdfium.PdfDocument(str(pdf))[0].get_size()
    root = Path(tempfile.mkdtemp(prefix=f"{pdf.stem}-{'object' if as_pdf_object else 'converted'}-", dir=folder))
    (root / "layouts").mkdir()
    (root / "figs").mkdir()
    (root / "figs" / "page.pdf").write_bytes(pdf.read_bytes())
    (root / "layouts" / "fig.toml").write_text(
        f'[figure]\nwidth = "{width_pt:.4f}pt"\nheight = "{height_pt:.4f}pt"\nbackground = "white"\n\n'
        f'[panels.p]\npdf = "../figs/page.pdf"\nat = ["0pt", "0pt"]\n'
        f'size = ["{width_pt:.4f}pt", "{height_pt:.4f}pt"]\n')
    original = PdfSource.pdf_page
    if not as_pdf_object:
        PdfSource.pdf_page = lambda self, panel, document: None  # type: ignore[method-assign]
    try:
        build("fig", root=root, formats=("svg", "pdf", "png"), dpi=DPI, jobs=1)
    finally:
        PdfSource.pdf_page = original  # type: ignore[method-assign]
    return (root / "build" / "fig.pdf").read_bytes(), (root / "build" / "fig.png").read_bytes()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        made = folder / "made"
        made.mkdir()
        pdfs = pages(made) + more_pages(made)
        for given in sys.argv[1:]:
            pdfs += sorted(Path(given).rglob("*.pdf"))
        print(f"{'page':24} {'PNG~pdfium':>11} {'PNG~poppler':>11} | {'PDF as':9} {'pdfium':>11} {'poppler':>11} "
              f"{'text':>5} {'bytes':>8}")
        by_producer: dict[str, list[tuple[float, float, float, float, bool]]] = {}
        for pdf in pdfs:
            alone_pdfium, alone_poppler, alone_text = pdfium_render(pdf), poppler_render(pdf), text_of(pdf)
            for as_object in (True, False):
                try:
                    out_pdf, out_png = build_one(pdf, folder, as_pdf_object=as_object)
                except Exception as exc:  # a file composer refuses: say so, go on
                    print(f"{pdf.name[:24]:24} refused: {str(exc).splitlines()[0][:90]}")
                    break
                png = gray(out_png)
                cells = [difference(png, alone_pdfium), difference(png, alone_poppler)] if as_object else []
                first = " ".join(f"{m:5.2f}/{t:5.1f}" for m, t in cells) if cells else " " * 23
                viewers = [difference(pdfium_render(out_pdf), alone_pdfium),
                           difference(poppler_render(out_pdf), alone_poppler)]
                same_text = text_of(out_pdf) == alone_text
                kind = "object" if as_object else "converted"
                if as_object:
                    by_producer.setdefault(pdf.parent.name, []).append(
                        (cells[0][0], cells[1][0], viewers[0][0], viewers[1][0], same_text))
                print(f"{pdf.name[:24]:24} {first} | {kind:9} "
                      + " ".join(f"{m:5.2f}/{t:5.1f}" for m, t in viewers)
                      + f" {'same' if same_text else 'lost':>5} {len(out_pdf):8d}")
        print("\nmeans per folder (composer's defaults): PNG ~ pdfium, ~ poppler | PDF in pdfium, in poppler | "
              "text kept")
        for producer, rows in sorted(by_producer.items()):
            means = [sum(r[i] for r in rows) / len(rows) for i in range(4)]
            kept = sum(r[4] for r in rows)
            print(f"{producer:24} {len(rows):3} files  {means[0]:5.2f} {means[1]:5.2f} | {means[2]:5.2f} "
                  f"{means[3]:5.2f} | {kept}/{len(rows)}")


if __name__ == "__main__":
    main()
