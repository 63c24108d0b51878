"""From release to the updated figure *in the page*: a drag in ``compose serve``'s page, in Chromium, timed.

    python benchmarks/edit_page_latency.py            # volume_kv, 9 drags
    python benchmarks/edit_page_latency.py -n 21 --figure volume_kv --element text:0

:mod:`benchmarks.edit_latency` times the server and the builder (POST, then the new SVG's token); this
adds the page's own part, as a person sees it. ``compose serve FIGURE`` runs on a copy of the repository's
project; Playwright drives Debian's Chromium (``/usr/bin/chromium``) on its page at 100 %. Each round
drags one element 1 mm right (then back left: the same two layouts over and over, every panel in the
panel cache) with Alt held (no snapping), and the page itself records two moments with
``performance.now()``: the ``pointerup`` that ends the drag, and the ``compose:swapped`` event of the new
SVG (fetched, decoded and shown in place). Their difference is one sample. Then it waits until the page
holds the ``elements.json`` of that layout (the builder idle) before the next round. Printed: the
median and the spread, the median of a plain rebuild of the same change in a warm process
(:func:`benchmarks.edit_latency._plain_rebuilds`, SVG + PDF + PNG, as ``compose FIGURE`` after a save),
and their ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from edit_latency import REPO, _plain_rebuilds  # noqa: E402 - beside this file

CHROMIUM = "/usr/bin/chromium"
MM_PX = 96 / 25.4  # CSS px per mm at 100 %
#: an element's box as the page holds it (elements.json's), in the viewport's CSS px
BOX_PX = ("id => { const b = boxOf(element(id)), r = document.getElementById('sheet').getBoundingClientRect(),"
          " k = ptPerPx(); return [r.left + b[0] / k, r.top + b[1] / k, b[2] / k, b[3] / k]; }")


def measure(name: str, rounds: int, element: str) -> tuple[list[float], list[float]]:
    """``rounds`` samples (s) of release -> the new figure shown, dragging ``element`` of figure ``name``, and as
    many plain rebuilds of the same change (s)."""
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="edit-page-latency-"))
    root = work / "proj"
    root.mkdir()
    for part in ("layouts", "panels", "data", "styles"):
        if (REPO / part).exists():
            shutil.copytree(REPO / part, root / part)
    env = {**os.environ, "COMPOSER_CACHE_DIR": str(work / "usercache")}
    server = subprocess.Popen([sys.executable, "-m", "composer.cli", "serve", name, "--root", str(root)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    samples: list[float] = []
    try:
        first = server.stdout.readline() if server.stdout is not None else ""
        found = re.search(r"(http://\S+)", first)
        if found is None:
            raise RuntimeError(f"compose serve said no address: {first!r}")
        url = found.group(1)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1600, "height": 1200})
            page.goto(url)
            idle = ("edit.data && edit.data.digest === edit.digest && !edit.busy && current && !current.building"
                    " && shown.svg === current.svg")
            page.wait_for_function(idle, timeout=300_000)
            page.evaluate("""() => {
                window.__released = null; window.__samples = [];
                window.addEventListener('pointerup', () => { window.__released = performance.now(); }, true);
                window.addEventListener('compose:swapped', (e) => {
                  if (e.detail.key === 'svg' && window.__released !== null) {
                    window.__samples.push(performance.now() - window.__released); window.__released = null; }
                });
            }""")
            for i in range(rounds):
                x, y, w, h = page.evaluate(BOX_PX, element)
                start = (x + w / 2, y + h / 2)
                step = (1 if i % 2 == 0 else -1) * MM_PX
                page.keyboard.down("Alt")
                page.mouse.move(*start)
                page.mouse.down()
                page.mouse.move(start[0] + step / 2, start[1], steps=2)
                page.mouse.move(start[0] + step, start[1], steps=2)
                page.mouse.up()
                page.keyboard.up("Alt")
                page.wait_for_function(f"window.__samples.length > {i}", timeout=120_000)
                page.wait_for_function(idle, timeout=120_000)
            samples = [v / 1000 for v in page.evaluate("window.__samples")]
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    plain = _plain_rebuilds(root, name, element, rounds)
    shutil.rmtree(work, ignore_errors=True)
    return samples, plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figure", default="volume_kv")
    parser.add_argument("--element", default="text:0", help="the element dragged (an id of elements.json)")
    parser.add_argument("-n", "--rounds", type=int, default=9)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    samples, plain = measure(args.figure, args.rounds, args.element)
    median, plain_median = statistics.median(samples), statistics.median(plain)
    print(f"edit latency in the page, {args.figure} ({args.element} dragged 1 mm, {len(samples)} drags; load "
          f"{load:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print("| measure | median s | min s | max s |")
    print("|---|---|---|---|")
    print(f"| release (pointerup) -> the new SVG shown in the page | {median:.3f} | {min(samples):.3f} | "
          f"{max(samples):.3f} |")
    print(f"| plain rebuild of the same change (SVG + PDF + PNG, warm process) | {plain_median:.3f} | {min(plain):.3f} "
          f"| {max(plain):.3f} |")
    print(f"ratio page edit / plain rebuild: {median / plain_median:.2f}")


if __name__ == "__main__":
    main()
