"""volume_kv made with FigWorks 0.9 (PyPI ``figworks``): SVG, PDF and PNG at 300 dpi.

A FigWorks script as its README writes one: a ``Figure`` of the page size,
a ``panel`` per box, each panel function drawing into a Matplotlib figure of
its box's size placed with ``Panel.add``; the canvas text with
``Figure.text``, panel labels with ``Figure.label``, shapes with
``Figure.rect`` / ``Figure.circle``, arrows with ``Figure.arrow``; saved as
``.svg``, ``.pdf`` and ``.png`` (``dpi=300``; FigWorks exports through
CairoSVG). Same panel functions, data and boxes as composer
(:mod:`common`); text and shapes at approximate places.

Run with the rivals' venv: ``python figworks_volume_kv.py ROOT OUT`` (prints its own wall time).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

START = time.perf_counter()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
from figworks import Figure  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import Figure as VolumeKv  # noqa: E402

PX = 96 / 72  # FigWorks' unit is the CSS px


def main(root: Path, out: Path) -> None:
    vk = VolumeKv(root)
    fig = Figure(width=vk.spec["width"], height=vk.spec["height"], background="white")
    family = vk.spec.get("font", "DejaVu Sans")
    size = vk.spec.get("font_size", "7pt")
    for name, panel, func, kwargs, (x, y, w, h) in vk.panels():
        box = fig.panel(name, x=f"{x}pt", y=f"{y}pt", w=f"{w}pt", h=f"{h}pt")
        mpl = MplFigure(figsize=(w / 72, h / 72))
        func(mpl, vk.data, **kwargs)
        box.add(mpl, id=f"{name}-plot")
        if "label" in panel:
            fig.label(panel["label"], box.nw, font_family=family)
        if "title" in panel:
            fig.text(panel["title"], f"{x}pt", f"{y - 3}pt", font_family=family, font_size=size)
    for i, text in enumerate(vk.layout.get("text", [])):
        px, py = vk.point(text["at"], text.get("offset", ("0mm", "0mm")))
        fig.text(vk.fill(text["text"]), f"{px}pt", f"{py}pt", id=f"text-{i}", font_family=family,
                 font_size=text.get("size", size), fill=text.get("color", "#000000"),
                 font_weight=text.get("weight", "normal"), text_anchor="middle")
    for shape in vk.layout.get("shape", []):
        px, py = vk.point(shape["at"], shape.get("offset", ("0mm", "0mm")))
        style = dict(fill=shape.get("fill", "none"), stroke=shape.get("stroke", "#000000"),
                     stroke_width=shape.get("stroke_width", "0.6pt"))
        if shape["kind"] == "circle":
            fig.circle(cx=px * PX, cy=py * PX, r=shape.get("radius", "3mm"), **style)
        else:
            w_mm, h_mm = shape.get("size", ("20mm", "10mm"))
            fig.rect(x=px * PX, y=py * PX, width=w_mm, height=h_mm, rx=shape.get("corner", 0), **style)
        if "text" in shape:
            fig.text(vk.fill(shape["text"]), f"{px}pt", f"{py}pt", font_family=family,
                     font_size=shape.get("text_size", size), text_anchor="middle")
    for i, arrow in enumerate(vk.layout.get("arrow", [])):
        fig.arrow(f"arrow-{i}", vk.point(arrow["from"]), vk.point(arrow["to"]),
                  stroke=arrow.get("color", "#000000"), stroke_width=arrow.get("width", "0.8pt"))
    out.mkdir(parents=True, exist_ok=True)
    for kind in ("svg", "pdf", "png"):
        fig.save(out / f"volume_kv.{kind}", dpi=300)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{time.perf_counter() - START:.3f}")
