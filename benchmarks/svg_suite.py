"""Conformance of imported SVG: each file of a resvg-style test suite composed as the one panel of a canvas of
its own size, exported to PNG, compared with the suite's reference rendering; prints pass rates.

    python benchmarks/svg_suite.py SUITE_DIR                    # a copy of resvg's test suite; default engine (resvg)
    python benchmarks/svg_suite.py SUITE_DIR --engine cairosvg
    python benchmarks/svg_suite.py SUITE_DIR --only structure   # one category (repeatable; or a glob:
    python benchmarks/svg_suite.py SUITE_DIR --only 'structure/style/*'   #  matched against tests/-relative paths)
    python benchmarks/svg_suite.py SUITE_DIR --at-least 0.97    # exit 1 when the pass rate is below 97 %
    python benchmarks/svg_suite.py SUITE_DIR --fonts DIR        # DIR's fonts (Noto Sans) for this run only

The suite folder holds ``tests/CATEGORY/.../NAME.svg`` with ``NAME.png`` beside it (references 300 px wide,
RGBA on transparent) and ``resources/``. Each file becomes ``[panels.p] svg = ...`` on a transparent canvas
of the file's own size (root width/height, else its viewBox in CSS px; a file with neither, the reference's size
at 96 px per inch), exported at the dpi that makes the
PNG as wide as the reference (300 px for most files). Metric (the suite's README): a pixel differs when a
channel of its premultiplied RGBA is off by more than 32/255; a file passes with at most 0.5 % of its pixels
different. A file composer refuses
(one error line) or draws at another size fails, and is counted apart.

After the table, every failing file is listed under its category with its reason: ``refused`` and the
error line, ``differs`` and the share of its pixels that differ, ``other size`` and both sizes.
Exit status: 0, or 1 when ``--at-least`` is given and the pass rate is below it (CI's regression guard).
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
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
    """The PNG as (H, W, 4) premultiplied RGBA, int16 (a difference of two fits): each colour channel times
    alpha, floored to 0..255 (computed in uint16: 255 x 255 fits), alpha as it is."""
    from PIL import Image

    with Image.open(io.BytesIO(png) if isinstance(png, bytes) else png) as img:
        a = np.asarray(img.convert("RGBA"))
    out = np.empty(a.shape, np.int16)
    out[..., :3] = a[..., :3].astype(np.uint16) * a[..., 3:4] // 255
    out[..., 3] = a[..., 3]
    return out


def use_fonts(folder: Path) -> None:
    """Make the fonts in ``folder`` visible to this process and its workers only: a fontconfig file that
    includes the system's configuration and adds the folder, named by ``FONTCONFIG_FILE`` (read by
    fontconfig, so cairosvg, and by the resvg engine's font search). Call before composer is imported."""
    import atexit
    import os

    conf = Path(tempfile.mkstemp(prefix="composer-suite-fonts-", suffix=".conf")[1])
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>'
                    '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>'
                    f"<dir>{folder.resolve()}</dir></fontconfig>\n")
    atexit.register(conf.unlink)
    os.environ["FONTCONFIG_FILE"] = str(conf)
    # and to matplotlib, as an installed font is (it scans the system's folders): composer lays imported text
    # out in the fonts matplotlib has (composer.text.pin), so without this the suite's text is never pinned
    from matplotlib import font_manager

    for file in sorted(folder.iterdir()):
        if file.suffix.lower() in (".ttf", ".otf", ".ttc"):
            try:
                font_manager.fontManager.addfont(str(file))
            except (OSError, RuntimeError, ValueError):
                pass  # a font matplotlib cannot read (a colour bitmap font): fontconfig's alone


def reference_width_px(png: Path) -> int:
    """The width of a reference PNG in pixels (300 for most files; a few, such as the size tests, 500)."""
    from PIL import Image

    with Image.open(png) as img:
        return img.size[0]


def selected(files: list[Path], tests: Path, patterns: list[str]) -> list[Path]:
    """The files whose path relative to ``tests`` is a category named in ``patterns``, lies under a folder
    named there, or matches one of them as a glob (``structure/style/*``, ``*/preserveAspectRatio/*``);
    every file for no patterns."""
    if not patterns:
        return files
    out = []
    for path in files:
        rel = path.relative_to(tests).as_posix()
        if any(rel.startswith(p.rstrip("/") + "/") or fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(rel, p + ".svg")
               for p in patterns):
            out.append(path)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--engine", default="resvg", choices=("resvg", "cairosvg"))
    parser.add_argument("--limit", type=int, default=0, help="only the first N files (0: all)")
    parser.add_argument("--only", action="append", default=[], metavar="PATTERN",
                        help="a category, a folder or a glob of paths below tests/ (repeatable)")
    parser.add_argument("--at-least", type=float, default=None, metavar="RATE",
                        help="exit 1 when the pass rate (0..1) is below RATE")
    parser.add_argument("--quiet", action="store_true", help="the table only, no list of failing files")
    parser.add_argument("--fonts", type=Path, default=None, metavar="DIR",
                        help="a folder of extra fonts for this run only (the suite's text is in Noto Sans): "
                             "fontconfig and the engine see it, the machine's fonts and fallbacks are unchanged")
    args = parser.parse_args()
    if args.fonts is not None:
        use_fonts(args.fonts)
    import warnings

    from PIL import Image

    from composer.errors import ComposerError, SvgError
    from composer.pipeline import build
    from composer.stages.export import canvas_size_pt

    warnings.simplefilter("ignore")
    tests = args.suite / "tests"
    if not tests.is_dir():
        print(f"svg_suite: {tests} is not a folder; give the suite's folder (it holds tests/CATEGORY/...)",
              file=sys.stderr)
        return 2
    files = sorted(tests.rglob("*.svg"))
    files = selected([f for f in files if f.with_suffix(".png").exists()], tests, args.only)[: args.limit or None]
    if not files:
        print(f"svg_suite: no file with a reference PNG matches {args.only}", file=sys.stderr)
        return 2
    outcome: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    failures: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)  # category -> (file, kind, why)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="composer-suite-") as tmp:
        root = Path(tmp)
        shutil.copytree(tests, root / "tests")
        if (args.suite / "resources").is_dir():
            shutil.copytree(args.suite / "resources", root / "resources")
        (root / "layouts").mkdir()
        for path in files:
            rel = path.relative_to(args.suite)
            category = rel.parts[1]
            shown = path.relative_to(tests).as_posix()
            try:
                try:
                    width_pt, height_pt = canvas_size_pt((root / rel).read_bytes(), source=str(rel))
                except SvgError:  # no size of its own (no-size, zero-size): the reference's, at 96 px per inch
                    with Image.open(path.with_suffix(".png")) as ref:
                        width_pt, height_pt = ref.size[0] * 0.75, ref.size[1] * 0.75
                (root / "layouts" / "case.toml").write_text(
                    f'[figure]\nwidth = "{width_pt:.4f}pt"\nheight = "{height_pt:.4f}pt"\nbackground = "none"\n'
                    f'engine = "{args.engine}"\n[panels.p]\nsvg = "../{rel.as_posix()}"\nat = ["0pt", "0pt"]\n'
                    f'size = ["{width_pt:.4f}pt", "{height_pt:.4f}pt"]\n')
                result = build("case", root=root, out=root / "out", formats=("png",),
                               dpi=reference_width_px(path.with_suffix(".png")) * 72 / width_pt, cache=False,
                               timeout_s=30)
                ours = premultiplied(result.outputs["png"].read_bytes())
            except ComposerError as exc:
                outcome[category]["refused"] += 1
                failures[category].append((shown, "refused", " ".join(str(exc).split())))
                continue
            reference = premultiplied(path.with_suffix(".png"))
            if ours.shape != reference.shape:
                outcome[category]["other size"] += 1
                failures[category].append((shown, "other size", f"{ours.shape[1]}x{ours.shape[0]} px, reference "
                                           f"{reference.shape[1]}x{reference.shape[0]} px"))
                continue
            different = (np.abs(ours - reference).max(axis=2) > TOLERANCE).mean()
            if different <= MAX_DIFFERENT:
                outcome[category]["pass"] += 1
            else:
                outcome[category]["differs"] += 1
                failures[category].append((shown, "differs", f"{different:.1%} of the pixels"))
    total: collections.Counter = collections.Counter()
    print(f"engine {args.engine}, {len(files)} files, {time.monotonic() - started:.0f} s\n")
    print("| category | files | pass | differs | other size | refused |")
    print("|---|---|---|---|---|---|")
    for category, c in sorted(outcome.items()):
        total.update(c)
        n = sum(c.values())
        print(f"| {category} | {n} | {c['pass']} ({c['pass'] / n:.1%}) | {c['differs']} | {c['other size']} | "
              f"{c['refused']} |")
    n = sum(total.values())
    rate = total["pass"] / max(n, 1)
    print(f"| **all** | {n} | {total['pass']} ({rate:.1%}) | {total['differs']} | "
          f"{total['other size']} | {total['refused']} |")
    if not args.quiet:
        for category in sorted(failures):
            print(f"\n{category}: {len(failures[category])} failing")
            for shown, kind, why in failures[category]:
                print(f"  {shown}: {kind}: {why}")
    if args.at_least is not None and rate < args.at_least:
        print(f"\nsvg_suite: pass rate {rate:.2%} is below the floor {args.at_least:.2%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
