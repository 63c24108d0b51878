"""The hand-written baseline: how volume_kv was built before composer.

Like the seed script (``volume_kv_method.py``): every panel is drawn with
pyplot, saved to PNG at 200 dpi with ``bbox_inches="tight"``, base64-encoded
into a hand-written SVG canvas (text as ``<text>``), and the SVG is rasterized
to a 300 dpi PNG with cairosvg (and, with ``--pdf``, converted to PDF too).
It reuses composer's panel functions and the panel boxes composer's layout
engine found (``ROOT/boxes.json``: name -> [x, y, width, height] in pt,
written by bench.py outside the timing), so both builds draw the same
content at the same places, as a hand-written script with typed coordinates
would; composer itself is not imported.

Run: ``python benchmarks/handwritten.py ROOT OUT [--pdf]`` (times itself).
"""

from __future__ import annotations

import base64
import io
import json
import sys
import time
import tomllib
from pathlib import Path

START = time.perf_counter()

import importlib.util  # noqa: E402
import inspect  # noqa: E402

import cairosvg  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

MM_PT = 72 / 25.4


def mm(value: str) -> float:
    """``"36mm"`` -> pt (the volume_kv layout writes every length in mm)."""
    return float(value.removesuffix("mm")) * MM_PT


def main(root: Path, out: Path, pdf: bool) -> None:
    layout = tomllib.loads((root / "layouts" / "volume_kv.toml").read_text())
    fig_spec = layout["figure"]
    data = dict(np.load(root / "data" / "volume_kv.npz", allow_pickle=False))
    spec = importlib.util.spec_from_file_location("panels_volume_kv", root / "panels" / "volume_kv.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    width_pt, height_pt = mm(fig_spec["width"]), mm(fig_spec["height"])
    boxes = json.loads((root / "boxes.json").read_text())
    images = []
    for name, panel in layout["panels"].items():
        if "render" not in panel:
            continue
        func = getattr(module, panel["render"].split(":")[1])
        px, py, w_pt, h_pt = boxes[name]
        fig = plt.figure(figsize=(w_pt / 72, h_pt / 72), dpi=200)
        shared = {k: v for k, v in fig_spec.get("params", {}).items() if k in inspect.signature(func).parameters}
        func(fig, data, **shared, **panel.get("params", {}))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=200, bbox_inches="tight")
        plt.close(fig)
        b64 = base64.b64encode(buf.getvalue()).decode()
        images.append(f'<image x="{px:.2f}" y="{py:.2f}" width="{w_pt:.2f}" height="{h_pt:.2f}" '
                      f'href="data:image/png;base64,{b64}"/>')
    texts = []
    for i, text in enumerate(layout.get("text", [])):
        for j, line in enumerate(text["text"].split("\n")):
            safe = line.replace("&", "&amp;").replace("<", "&lt;")
            texts.append(f'<text x="{90 * MM_PT:.2f}" y="{(8 + 4 * i + 2.5 * j) * MM_PT % height_pt:.2f}" '
                         f'font-family="DejaVu Sans" font-size="6" text-anchor="middle">{safe}</text>')
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{fig_spec["width"]}" height="{fig_spec["height"]}" '
           f'viewBox="0 0 {width_pt:.2f} {height_pt:.2f}"><rect width="100%" height="100%" fill="white"/>'
           + "".join(images) + "".join(texts) + "</svg>").encode()
    out.mkdir(parents=True, exist_ok=True)
    (out / "volume_kv.svg").write_bytes(svg)
    (out / "volume_kv.png").write_bytes(cairosvg.svg2png(bytestring=svg, dpi=300))
    if pdf:
        (out / "volume_kv.pdf").write_bytes(cairosvg.svg2pdf(bytestring=svg))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), "--pdf" in sys.argv)
    print(f"{time.perf_counter() - START:.3f}")
