"""No figure looks worse: every gallery figure drawn by composer's PNG export, by pdfium from its PDF and
by headless Chromium from its SVG, compared with the cross-renderer metric; prints a markdown table.

    python benchmarks/crossrender_gallery.py                  # default engine (resvg)
    python benchmarks/crossrender_gallery.py --engine cairosvg

The metric and its threshold are the cross-renderer tests' (``tests/crossrender.py``: blur, per-pixel
distance outside the other image's local range, worst 0.9 mm tile; threshold 0.025). The figures are
built from this repository into a temporary folder; Chromium must be installed (Debian: chromium).
Exit status 1 when any pair is over the threshold.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import crossrender as cr  # noqa: E402

PAIRS = (("composer", "pdfium"), ("chromium", "composer"), ("chromium", "pdfium"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default="resvg", choices=("resvg", "cairosvg"))
    parser.add_argument("names", nargs="*", help="figures (default: every figure of layouts/)")
    args = parser.parse_args()
    from composer.pipeline import build
    from composer.stages.inputs import Project

    if cr.chromium() is None:
        print("chromium is not installed (Debian: apt-get install chromium)", file=sys.stderr)
        return 2
    names = args.names or Project.at(REPO).figures()
    worst = 0.0
    rows = []
    with tempfile.TemporaryDirectory(prefix="composer-crossrender-") as out:
        builds = {}
        for name in names:
            result = build(name, root=REPO, out=out, formats=("svg", "pdf"), engine=args.engine)
            builds[name] = (result.outputs["svg"].read_bytes(), result.outputs["pdf"].read_bytes())
        shots = {}
        for i in range(0, len(names), 4):  # four browsers at a time (each is one at once: 32 time out on 2 cores)
            chunk = names[i:i + 4]
            shots.update(zip(chunk, cr.render_chromium([builds[n][0] for n in chunk])))
        for name in names:
            svg, pdf = builds[name]
            images = {"composer": cr.render_composer(svg, engine=args.engine), "pdfium": cr.render_pdfium(pdf),
                      "chromium": shots[name]}
            prepared = {k: cr.prepare(v) for k, v in images.items()}
            scores = [cr.difference(prepared[a], prepared[b]).score for a, b in PAIRS]
            worst = max(worst, *scores)
            ok = all(s <= cr.THRESHOLD for s in scores)
            rows.append(f"| {name} | " + " | ".join(f"{s:.4f}" for s in scores) + f" | {'yes' if ok else '**no**'} |")
    print(f"Cross-renderer scores at {cr.DPI} dpi, engine {args.engine} (threshold {cr.THRESHOLD}):\n")
    print("| figure | " + " | ".join(f"{a} / {b}" for a, b in PAIRS) + " | passes |")
    print("|---|" + "---|" * (len(PAIRS) + 1))
    print("\n".join(rows))
    print(f"\nworst score {worst:.4f}")
    return 0 if worst <= cr.THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main())
