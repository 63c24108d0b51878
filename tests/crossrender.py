"""Render one composed figure with three real renderers and compare what they show.

Renderers:
    composer   the SVG -> PNG, as ``compose`` writes it (resvg engine; cairosvg on request);
    Chromium   headless, a screenshot of the SVG file opened as a page (a real
               browser: its own SVG engine, Skia, HarfBuzz, its own font
               hinting), started with networking and background services
               off, in its own session so that it is always killed;
    pdfium     ``pypdfium2`` rendering the PDF ``compose`` writes (the engine
               of Chrome's and many other PDF viewers; it smooths images).

All three render at :data:`DPI` = 288 px per inch: Chromium at device scale
factor 3, since a CSS px is 1/96 in. Figures sized in whole CSS px give images
of identical size; otherwise the comparison uses the common top-left area.

Metric (:func:`difference`), per colour channel of the images flattened onto
white: blur both with a Gaussian of :data:`SIGMA_PX` px; at each pixel, take
how far one image's value lies *outside the range* (min to max) of the other
image's values within :data:`RADIUS_PX` px, both ways round, and keep the
larger, and the largest over the channels; average that over square tiles of
:data:`TILE_PX` px; the score is the worst tile.

Why this shape: renderers legitimately differ by up to a pixel or two in
where an edge falls and how grey its pixels are (antialiasing, hinting that
moves a stem, pdfium placing an image on whole pixels and drawing hairlines
of a glyph darker, which source pixel a downscaled photo shows). A value
that lies within the other image's range a pixel or two away is one of
those; the blur first spreads a one-pixel hairline and its two-pixel grey
twin to the same shape. What a reader would call a different figure puts
values where the other image has nothing like them nearby: a swapped glyph
puts ink inside another glyph's counter; a heatmap smeared by smoothing puts
ramps of in-between colours inside cells that are flat in the sharp one.
Measured on the fixture and the flagship in both text modes (tests in
``test_crossrender.py``): clean pairs score at most 0.015, a single glyph
swapped in 7 to 8 pt text at least 0.041, the 56 x 56 heatmap drawn smoothed
0.078; :data:`THRESHOLD` 0.025 sits between.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: rendering resolution of every comparison (px per inch): Chromium's device scale factor 3.
DPI = 288
#: the prefix of each browser profile folder, followed by the pid of the process that started it
BROWSER_PREFIX = "composer-chromium-"
#: Gaussian blur applied to both images before comparing, px at DPI (0.18 mm).
SIGMA_PX = 2.0
#: how far (px at DPI, 0.18 mm) a value may find its match in the other image.
RADIUS_PX = 2
#: side of the square tiles the out-of-range amount is averaged over, px at DPI (0.88 mm: a glyph of 7 pt text).
TILE_PX = 10
#: largest worst-tile score (0..1) of two renderers showing the same figure.
THRESHOLD = 0.025
#: seconds one Chromium screenshot may take before the process group is killed.
CHROMIUM_TIMEOUT_S = 60


def chromium() -> str | None:
    """Path of a Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def flatten(rgba: np.ndarray) -> np.ndarray:
    """(H, W, 4) uint8 -> (H, W, 3) float in 0..1 composited over white."""
    a = rgba.astype(np.float64) / 255.0
    if a.shape[2] == 3:
        return a
    alpha = a[..., 3:4]
    return a[..., :3] * alpha + (1.0 - alpha)


def _png(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return flatten(np.asarray(img.convert("RGBA")))


def render_composer(svg: bytes, dpi: float = DPI, engine: str = "resvg") -> np.ndarray:
    """The SVG as composer's PNG export draws it (its default engine, resvg, unless told)."""
    from composer.stages.export import export

    return _png(export(svg, ["png"], dpi=dpi, engine=engine)["png"])


def render_pdfium(pdf: bytes, dpi: float = DPI) -> np.ndarray:
    """Page 1 of a PDF as pdfium draws it (its defaults: anti-aliasing and image smoothing on)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        bitmap = page.render(scale=dpi / 72.0)
        image = bitmap.to_pil()
        out = flatten(np.asarray(image.convert("RGBA")))
        page.close()
    finally:
        doc.close()
    return out


def css_px(svg: bytes) -> tuple[int, int]:
    """The figure's size in whole CSS px (rounded up), from the root's width and height."""
    from lxml import etree

    from composer.units import to_pt

    root = etree.fromstring(svg)
    w = to_pt(root.get("width"), file="svg", key="width") * 96 / 72
    h = to_pt(root.get("height"), file="svg", key="height") * 96 / 72
    return int(np.ceil(w - 1e-6)), int(np.ceil(h - 1e-6))


def render_chromium(svgs: list[bytes], dpi: float = DPI) -> list[np.ndarray]:
    """Each SVG as headless Chromium shows it, screenshots taken concurrently.

    Every browser runs in its own session (process group) with a fresh
    profile, no network services, and is killed with its whole group when it
    is done or after :data:`CHROMIUM_TIMEOUT_S` s.

    Raises:
        RuntimeError: Chromium is not installed, failed, or timed out.
    """
    exe = chromium()
    if exe is None:
        raise RuntimeError("chromium is not installed")
    with tempfile.TemporaryDirectory(prefix=f"{BROWSER_PREFIX}{os.getpid()}-") as tmp:
        procs = []
        try:
            for i, svg in enumerate(svgs):
                page = Path(tmp) / f"figure{i}.svg"
                page.write_bytes(svg)
                shot = Path(tmp) / f"shot{i}.png"
                w, h = css_px(svg)
                args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
                        "--hide-scrollbars", "--force-color-profile=srgb", f"--force-device-scale-factor={dpi / 96:g}",
                        f"--user-data-dir={tmp}/profile{i}", f"--window-size={w},{h}", f"--screenshot={shot}",
                        page.as_uri()]
                proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL,
                                        start_new_session=True)
                procs.append((proc, shot))
            images = []
            for proc, shot in procs:
                try:
                    out, _ = proc.communicate(timeout=CHROMIUM_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    raise RuntimeError(f"chromium took more than {CHROMIUM_TIMEOUT_S} s") from None
                if proc.returncode != 0 or not shot.exists():
                    raise RuntimeError(f"chromium failed ({proc.returncode}): {out.decode(errors='replace')[-500:]}")
                images.append(_png(shot.read_bytes()))
            return images
        finally:
            for proc, _ in procs:
                _kill_group(proc)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the process group ``proc`` leads (the browser and every helper it started)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Separable Gaussian blur of a 2-D float32 array, edges extended."""
    radius = int(3 * sigma + 0.5)
    x = np.arange(-radius, radius + 1)
    kernel = np.exp(-(x ** 2) / (2 * sigma ** 2)).astype(np.float32)
    kernel /= kernel.sum()
    h, w = img.shape
    padded = np.pad(img, radius, mode="edge")
    rows = np.zeros((h + 2 * radius, w), np.float32)
    for i, k in enumerate(kernel):
        rows += k * padded[:, i:i + w]
    out = np.zeros((h, w), np.float32)
    for i, k in enumerate(kernel):
        out += k * rows[i:i + h, :]
    return out


def _window(img: np.ndarray, radius: int, op) -> np.ndarray:
    """Running ``op`` (np.minimum / np.maximum) over the (2r+1)^2 square around each pixel, edges
    extended; separable (rows, then columns)."""
    h, w = img.shape
    padded = np.pad(img, radius, mode="edge")
    rows = padded[:, :w].copy()
    for dx in range(1, 2 * radius + 1):
        op(rows, padded[:, dx:dx + w], out=rows)
    out = rows[:h, :].copy()
    for dy in range(1, 2 * radius + 1):
        op(out, rows[dy:dy + h, :], out=out)
    return out


@dataclass(frozen=True)
class Prepared:
    """A rendering ready for :func:`difference`: per channel, blurred values and their local min and max."""

    blurred: tuple[np.ndarray, ...]
    low: tuple[np.ndarray, ...]
    high: tuple[np.ndarray, ...]
    shape: tuple[int, int]


def prepare(img: np.ndarray, *, sigma_px: float = SIGMA_PX, radius_px: int = RADIUS_PX) -> Prepared:
    """Blur each channel of a (H, W, 3) rendering and take its local ranges (do it once per rendering)."""
    blurred = tuple(_blur(img[..., c].astype(np.float32), sigma_px) for c in range(3))
    return Prepared(blurred, tuple(_window(b, radius_px, np.minimum) for b in blurred),
                    tuple(_window(b, radius_px, np.maximum) for b in blurred), img.shape[:2])


@dataclass(frozen=True)
class Difference:
    """The metric's result: the worst tile's score, where it is (px at DPI), and every tile's score."""

    score: float
    y_px: int
    x_px: int
    tiles: np.ndarray

    def ok(self, threshold: float = THRESHOLD) -> bool:
        return self.score <= threshold


def difference(a: np.ndarray | Prepared, b: np.ndarray | Prepared, *, tile_px: int = TILE_PX) -> Difference:
    """Compare two renderings (see module docstring); either may be :func:`prepare` d already.
    Images of unequal size are cut to the common area."""
    pa = a if isinstance(a, Prepared) else prepare(a)
    pb = b if isinstance(b, Prepared) else prepare(b)
    h, w = min(pa.shape[0], pb.shape[0]), min(pa.shape[1], pb.shape[1])
    worst = np.zeros((h, w), np.float32)
    for c in range(3):
        for p, q in ((pa, pb), (pb, pa)):
            value, low, high = p.blurred[c][:h, :w], q.low[c][:h, :w], q.high[c][:h, :w]
            np.maximum(worst, value - high, out=worst)
            np.maximum(worst, low - value, out=worst)
    th, tw = h // tile_px, w // tile_px
    tiles = worst[:th * tile_px, :tw * tile_px].reshape(th, tile_px, tw, tile_px).mean(axis=(1, 3))
    ty, tx = np.unravel_index(int(np.argmax(tiles)), tiles.shape)
    return Difference(float(tiles[ty, tx]), int(ty * tile_px), int(tx * tile_px), tiles)


def save_diff(path: Path, a: np.ndarray, b: np.ndarray, d: Difference) -> None:
    """Write ``a | b | difference`` side by side around the worst tile (for a failing test)."""
    from PIL import Image

    h, w = min(a.shape[0], b.shape[0]), min(a.shape[1], b.shape[1])
    y0, x0 = max(0, d.y_px - 60), max(0, d.x_px - 90)
    crop = (slice(y0, min(h, d.y_px + 60)), slice(x0, min(w, d.x_px + 90)))
    diff = np.abs(a[:h, :w] - b[:h, :w]).max(axis=2, keepdims=True).repeat(3, axis=2)
    strip = np.concatenate([a[:h, :w][crop], b[:h, :w][crop], 1 - diff[crop]], axis=1)
    Image.fromarray((np.clip(strip, 0, 1) * 255).astype(np.uint8)).resize(
        (strip.shape[1] * 3, strip.shape[0] * 3), Image.NEAREST).save(path)

