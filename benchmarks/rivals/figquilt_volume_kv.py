"""volume_kv made with figquilt 0.3 (PyPI ``figquilt``): PDF, SVG and PNG.

figquilt composes files: the panels are drawn first, each by its panel
function into a Matplotlib figure of its box's size saved as PDF, then a
figquilt layout (YAML: page size in mm, each panel's file, place, size and
label) is composed into ``volume_kv.pdf``, ``.svg`` and ``.png`` (figquilt's
``compose_figure``, in this one process: one start-up, not three). figquilt
draws panels and labels only: it has no canvas text, shapes or arrows, so
its figure has less on it than composer's (the comparison favours it).
Same panel functions, data and boxes as composer (:mod:`common`).

Run with the rivals' venv: ``python figquilt_volume_kv.py ROOT OUT`` (prints its own wall time).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

START = time.perf_counter()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import yaml  # noqa: E402
from figquilt.cli import compose_figure  # noqa: E402
from matplotlib.figure import Figure as MplFigure  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import MM_PT  # noqa: E402
from common import Figure as VolumeKv  # noqa: E402


def main(root: Path, out: Path) -> None:
    vk = VolumeKv(root)
    out.mkdir(parents=True, exist_ok=True)
    panels = []
    for name, panel, func, kwargs, (x, y, w, h) in vk.panels():
        mpl = MplFigure(figsize=(w / 72, h / 72))
        func(mpl, vk.data, **kwargs)
        path = out / f"panel-{name}.pdf"
        mpl.savefig(path, format="pdf")
        entry = {"id": name, "file": str(path), "x": x / MM_PT, "y": y / MM_PT, "width": w / MM_PT,
                 "height": h / MM_PT}
        if "label" in panel:
            entry["label"] = panel["label"]
        panels.append(entry)
    layout = {"page": {"width": vk.width_pt / MM_PT, "height": vk.height_pt / MM_PT, "units": "mm", "dpi": 300,
                       "label": {"font_family": vk.spec.get("font", "DejaVu Sans"), "uppercase": False}},
              "panels": panels}
    layout_path = out / "volume_kv.yaml"
    layout_path.write_text(yaml.safe_dump(layout, sort_keys=False))
    for kind in ("pdf", "svg", "png"):
        if not compose_figure(layout_path, out / f"volume_kv.{kind}", kind, False):
            raise SystemExit(f"figquilt failed to make volume_kv.{kind}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
    print(f"{time.perf_counter() - START:.3f}")
