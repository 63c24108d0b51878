"""Conformance of imported SVG: each file of a resvg-style test suite composed as the one panel of a canvas of
its own size, exported to PNG, compared with the suite's reference rendering; prints pass rates.

    python benchmarks/svg_suite.py SUITE_DIR                    # a copy of resvg's test suite; default engine (resvg)
    python benchmarks/svg_suite.py SUITE_DIR --engine cairosvg

The suite folder holds ``tests/CATEGORY/.../NAME.svg`` with ``NAME.png`` beside it (references 300 px wide,
RGBA on transparent) and ``resources/``. Each file becomes ``[panels.p] svg = ...`` on a transparent canvas
of the file's own size (root width/height, else its viewBox in CSS px), exported at the dpi that makes the
PNG 300 px wide. Metric (the suite's README): a pixel differs when a channel of its premultiplied RGBA is
off by more than 32/255; a file passes with at most 0.5 % of its pixels different. A file composer refuses
(one error line) or draws at another size fails, and is counted apart.
"""

from __future__ import annotations

import argparse
import collections
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TOLERANCE = 32
MAX_DIFFERENT = 0.005


def premultiplied(png: bytes | Path) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(png) if isinstance(png, bytes) else png) as img:
        a = np.asarray(img.convert("RGBA")).astype(np.int32)
    return np.concatenate([a[..., :3] * a[..., 3:4] // 255, a[..., 3:4]], axis=2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--engine", default="resvg", choices=("resvg", "cairosvg"))
    parser.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    args = parser.parse_args()
    import warnings

    from composer.errors import ComposerError
    from composer.pipeline import build
    from composer.stages.export import canvas_size_pt

    warnings.simplefilter("ignore")
    files = sorted((args.suite / "tests").rglob("*.svg"))
    files = [f for f in files if f.with_suffix(".png").exists()][: args.limit or None]
    outcome: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="composer-suite-") as tmp:
        root = Path(tmp)
        shutil.copytree(args.suite / "tests", root / "tests")
        if (args.suite / "resources").is_dir():
            shutil.copytree(args.suite / "resources", root / "resources")
        (root / "layouts").mkdir()
        for path in files:
            rel = path.relative_to(args.suite)
            category = rel.parts[1]
            try:
                width_pt, height_pt = canvas_size_pt((root / rel).read_bytes(), source=str(rel))
                (root / "layouts" / "case.toml").write_text(
                    f'[figure]\nwidth = "{width_pt:.4f}pt"\nheight = "{height_pt:.4f}pt"\nbackground = "none"\n'
                    f'engine = "{args.engine}"\n[panels.p]\nsvg = "../{rel.as_posix()}"\nat = ["0pt", "0pt"]\n'
                    f'size = ["{width_pt:.4f}pt", "{height_pt:.4f}pt"]\n')
                result = build("case", root=root, out=root / "out", formats=("png",), dpi=300 * 72 / width_pt,
                               cache=False, timeout_s=30)
                ours = premultiplied(result.outputs["png"].read_bytes())
            except ComposerError:
                outcome[category]["refused"] += 1
                continue
            reference = premultiplied(path.with_suffix(".png"))
            if ours.shape != reference.shape:
                outcome[category]["other size"] += 1
                continue
            different = (np.abs(ours - reference).max(axis=2) > TOLERANCE).mean()
            outcome[category]["pass" if different <= MAX_DIFFERENT else "differs"] += 1
    total = collections.Counter()
    print(f"engine {args.engine}, {len(files)} files, {time.monotonic() - started:.0f} s\n")
    print("| category | files | pass | differs | other size | refused |")
    print("|---|---|---|---|---|---|")
    for category, c in sorted(outcome.items()):
        total.update(c)
        n = sum(c.values())
        print(f"| {category} | {n} | {c['pass']} ({c['pass'] / n:.0%}) | {c['differs']} | {c['other size']} | "
              f"{c['refused']} |")
    n = sum(total.values())
    print(f"| **all** | {n} | {total['pass']} ({total['pass'] / max(n, 1):.1%}) | {total['differs']} | "
          f"{total['other size']} | {total['refused']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
