"""The fidelity oracle: each file of a folder composed as the one panel of a canvas of its own size, composer's
PNG and a render of its PDF compared with the file alone as a browser or a PDF viewer draws it.

    python benchmarks/oracle.py benchmarks/corpus                  # every producer folder of the corpus
    python benchmarks/oracle.py DIR... --only 'inkscape/*'         # a glob of PRODUCER/FILE (repeatable)
    python benchmarks/oracle.py DIR --diff-dir build/oracle        # ours | oracle | diff of each failure
    python benchmarks/oracle.py DIR --at-least 0.9                 # exit 1 below a pass rate of 90 % (CI)
    python benchmarks/oracle.py DIR --jobs 2 --engine cairosvg

Files: ``*.svg``, ``*.pdf``, ``*.png``, ``*.jpg``/``*.jpeg`` anywhere below each folder. Their producer and
category come from the index of the producer's folder, ``PRODUCER/sources.csv`` (columns
``file,category,source,licence``; ``file`` relative to that folder): the producer is that folder's name. A
file no index lists is in the producer named by its own folder, of the category named by its kind (``svg``,
``pdf``, ``png``, ``jpeg``).

Each file becomes ``[panels.p] svg|image|pdf = ...`` on a transparent canvas of its own size plus an empty
margin of about :data:`MARGIN_PX` CSS px on every side (what a file paints outside its own viewport lands
there, where the file alone shows nothing), built by :func:`composer.pipeline.build` (``cache=False``, in a
worker of ``--jobs`` forked from one interpreter) to PNG and PDF. The file's size: an SVG's root size
(:func:`composer.stages.export.canvas_size_pt`); an image's displayed pixel size (EXIF orientation applied)
at the resolution it states, or at 96 px/in (a CSS px, as a browser shows it) when it states none or an
implausible one (under 20 or over 10,000 px/in); a PDF's first page.

The resolution of the comparison (:func:`plan_dpi`): an image at its own resolution, so one of its pixels is
one output pixel (no resampling filter to disagree on); a drawing at :data:`DRAWING_DPI` (192), doubled while
its longer side has fewer than :data:`MIN_SIDE_PX` px; either halved while the canvas exceeds
:data:`MAX_PIXELS`.

The oracle, the file alone:

- an SVG, PNG or JPEG as Debian's Chromium draws it: an ``<img>`` of the file at its CSS size, the margin
  from the corner of a transparent page, at dpi / 96 device pixels per CSS px for a drawing and 1 for an
  image (the page's CSS ``zoom`` at a device scale factor of 1: :meth:`Browser.draw`), one headless
  browser for the whole run, driven by Playwright, the flags of ``tests/crossrender.py`` (no network
  services, sRGB colour profile);
- a PDF's first page as pdfium (pypdfium2, at an exact scale: :func:`render_pdfium`) and as poppler
  (``pdftocairo -png -transp``) draw it.

Compared: composer's PNG, and composer's PDF as pdfium draws it, each with the oracle, on the canvas'
pixels wholly inside it (:attr:`Plan.whole_px`; a size short of them by more than a pixel is ``other
size``). Metric (:func:`differing`), as ``benchmarks/svg_suite.py``: premultiplied RGBA, a pixel differs
when a channel is off by more than 32/255, with one allowance for antialiasing between engines
(:data:`EDGE_PX`): only when its value lies more than 32/255 outside the range of the other image's values
within one pixel of it, both ways round. Measured (docs/benchmarks.md, "The fidelity oracle"): the strict
rule fails gallery figures made only of composer's own paths and glyph outlines against Chromium at 1-4 %
(Skia and tiny-skia antialias thin strokes and small glyphs differently), with the allowance they score
0.0-0.1 %; a moved, missing or recoloured shape stays a difference. A file passes with at most
:data:`MAX_DIFFERENT` (0.5 %) of its pixels different in both comparisons. When pdfium's drawing of
composer's PDF differs (and its PNG does not), poppler draws it too, and the PDF passes when either agrees
(pdfium draws every stroke thinner than a device pixel as an opaque pixel-wide line: svglite's grey panel
borders come out black in pdfium alone). When both draw it otherwise, an SVG's or image's PDF is drawn by
pdfium against Chromium's own PDF of the file alone, drawn by pdfium too (:func:`printed_check`: both PDF
viewers draw Servier's 0.32 px outlines a pixel wide, in any PDF of the drawing). For a PDF file, composer
passes when it agrees with either pdfium or poppler; where the two disagree with each other by the same rule,
the verdict says so.

Verdicts: ``pass``; ``differs`` (with the share of pixels that differ in the PNG and in the PDF); ``refused``
(composer's one error line); ``crashed`` (composer raised anything else: the exception's line); ``other
size``; ``no oracle`` (Chromium or both PDF renderers cannot draw the file: not counted in the pass rate).
Printed: each failing file with its verdict, a table per producer and
per category, the overall pass rate; with ``--diff-dir DIR`` each failing comparison's image
``DIR/PRODUCER/FILE.{png,pdf}.diff.png``: composer's output | the oracle | the oracle faded with the
differing pixels in red, on white.

Exit status: 0; 1 when ``--at-least RATE`` is given and the pass rate is below it (CI's floor); 2 when
nothing can be run (no file, no Chromium for SVG and images).
"""

from __future__ import annotations

import argparse
import base64
import collections
import csv
import fnmatch
import io
import logging
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from svg_suite import MAX_DIFFERENT, TOLERANCE  # noqa: E402  (one metric for both benchmarks)

#: pixels an edge may move between two engines' antialiasing before it counts as a difference
EDGE_PX = 1
#: a drawing is compared at twice a CSS px (device scale factor 2, a laptop's screen) unless ...
DRAWING_DPI = 2 * 96.0
#: ... its longer side would have fewer pixels than this (its dpi doubled until it has: an icon is not judged
#: on 48 pixels) ...
MIN_SIDE_PX = 400
#: ... or the comparison more pixels than this (the dpi halved until it has not: 6 MB per RGBA image)
MAX_PIXELS = 1_500_000
#: a stated image resolution outside this range (px/in) is taken as none stated
PLAUSIBLE_PPI = (20.0, 10_000.0)
#: the CSS px: a browser shows an image that states no resolution at 96 px per inch
CSS_PPI = 96.0
#: the Chromium the oracle drives, and its flags (tests/crossrender.py's, less the screenshot ones)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
                 "--hide-scrollbars", "--force-color-profile=srgb"]
#: the empty margin around the file on the canvas, CSS px: what a file paints outside its own viewport
#: (an off-page scrap) lands there, where the file alone in a viewer shows nothing
MARGIN_PX = 12
#: seconds composer's build of one file may take (each panel and export; composer's own limit)
BUILD_TIMEOUT_S = 60.0
#: seconds Chromium may take to decode and draw one file
BROWSER_TIMEOUT_S = 30.0
KINDS = {".svg": "svg", ".pdf": "pdf", ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg"}
SOURCE_KEY = {"svg": "svg", "pdf": "pdf", "png": "image", "jpeg": "image"}
VERDICTS = ("pass", "differs", "other size", "refused", "crashed", "no oracle")


@dataclass(frozen=True)
class Entry:
    """One file to compare: where it is, how it is shown (``PRODUCER/FILE``), its producer and category,
    its kind (``svg``, ``pdf``, ``png``, ``jpeg``)."""

    path: Path
    shown: str
    producer: str
    category: str
    kind: str


@dataclass(frozen=True)
class Plan:
    """A file's canvas in pt and the resolution (px per inch) of its comparison."""

    width_pt: float
    height_pt: float
    dpi: float
    #: the browser's device pixels per CSS px: dpi / 96 for a drawing; for an image 1 (one of its pixels a CSS
    #: px, as a browser shows an image, and one output pixel), halved with the dpi (for :data:`MAX_PIXELS`)
    scale: float = 1.0

    @property
    def css_px(self) -> tuple[float, float]:
        """The file's size in the browser's CSS px: its size in output pixels over :attr:`scale`."""
        return self.width_pt / 72 * self.dpi / self.scale, self.height_pt / 72 * self.dpi / self.scale

    @property
    def margin_px(self) -> int:
        """The empty margin around the file, in whole pixels of the comparison: about :data:`MARGIN_PX` CSS px."""
        return max(1, round(MARGIN_PX * self.dpi / CSS_PPI))

    @property
    def margin_pt(self) -> float:
        """:attr:`margin_px` in pt."""
        return self.margin_px * 72 / self.dpi

    @property
    def canvas_pt(self) -> tuple[float, float]:
        """The canvas: the file with :attr:`margin_pt` of empty margin on every side, in pt."""
        return self.width_pt + 2 * self.margin_pt, self.height_pt + 2 * self.margin_pt

    @property
    def pixels(self) -> tuple[int, int]:
        """(width, height) of composer's PNG of the canvas: round(inches x dpi), as its export writes it."""
        w_pt, h_pt = self.canvas_pt
        return round(w_pt / 72 * self.dpi), round(h_pt / 72 * self.dpi)

    @property
    def whole_px(self) -> tuple[int, int]:
        """(width, height) of the canvas' pixels wholly inside it: those compared (a pixel the canvas' edge
        crosses is drawn as an engine snaps the page to whole pixels or not)."""
        w_pt, h_pt = self.canvas_pt
        return max(1, math.floor(w_pt / 72 * self.dpi + 1e-6)), max(1, math.floor(h_pt / 72 * self.dpi + 1e-6))


@dataclass(frozen=True)
class Comparison:
    """One of composer's outputs (``png`` or ``pdf``) against the oracle: the share of pixels that differ
    (0..1), or ``None`` for another size, with both sizes then; which oracle it was measured against."""

    output: str
    share: float | None
    oracle: str
    size: str = ""
    #: the renderer of composer's PDF that agreed best (``pdfium``, or ``poppler`` when pdfium differs)
    drawn_by: str = ""

    @property
    def ok(self) -> bool:
        return self.share is not None and self.share <= MAX_DIFFERENT


@dataclass(frozen=True)
class Outcome:
    """A file's verdict (one of :data:`VERDICTS`), its comparisons, its reason in one line, and the seconds
    composer's build took."""

    entry: Entry
    verdict: str
    comparisons: tuple[Comparison, ...] = ()
    why: str = ""
    build_s: float = 0.0
    note: str = ""
    #: composer's PDF, kept only while a file whose PNG agrees with Chromium has a PDF that pdfium and poppler
    #: draw otherwise: :func:`run` draws it against Chromium's own PDF of the file (:func:`printed_check`)
    pdf: bytes = b""


@dataclass
class Report:
    """Every file's outcome, in the order of the files, and the run's wall time in seconds."""

    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self, key: str) -> dict[str, collections.Counter]:
        """``producer`` or ``category`` -> a counter of verdicts."""
        out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
        for o in self.outcomes:
            out[getattr(o.entry, key)][o.verdict] += 1
        return dict(out)

    @property
    def rate(self) -> float:
        """Files that pass over files with an oracle (0..1; 0 for none)."""
        judged = [o for o in self.outcomes if o.verdict != "no oracle"]
        return sum(o.verdict == "pass" for o in judged) / len(judged) if judged else 0.0


# ─── the files ────────────────────────────────────────────────────────────────────────────────────────────

def read_index(folder: Path) -> dict[str, str]:
    """``folder/sources.csv``: file (relative to ``folder``, posix) -> category; {} without one.

    Raises:
        ValueError: the index lacks the ``file`` or ``category`` column.
    """
    index = folder / "sources.csv"
    if not index.is_file():
        return {}
    with index.open(newline="", encoding="utf-8") as f:
        rows = csv.DictReader(f)
        if not {"file", "category"} <= set(rows.fieldnames or ()):
            raise ValueError(f"{index}: needs the columns file,category,source,licence; has {rows.fieldnames}")
        return {row["file"].strip(): row["category"].strip() for row in rows if row.get("file")}


def collect(folders: list[Path], patterns: list[str]) -> list[Entry]:
    """Every SVG, PDF, PNG and JPEG below ``folders`` (sorted; each once), with its producer and category
    (module docstring), kept when its ``PRODUCER/FILE`` or its path matches one of the glob ``patterns``
    (every file for none).

    Raises:
        ValueError: an index without its columns (:func:`read_index`).
    """
    entries: dict[Path, Entry] = {}
    indexes: dict[Path, dict[str, str]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            kind = KINDS.get(path.suffix.lower())
            if kind is None or not path.is_file() or path.resolve() in entries:
                continue
            producer_dir, category = path.parent, kind
            for candidate in [path.parent, *path.parent.parents]:
                if candidate not in indexes:
                    indexes[candidate] = read_index(candidate)
                rel = path.relative_to(candidate).as_posix()
                if rel in indexes[candidate]:
                    producer_dir, category = candidate, indexes[candidate][rel] or kind
                    break
                if candidate == folder or candidate == candidate.parent:
                    break
            shown = f"{producer_dir.resolve().name}/{path.relative_to(producer_dir).as_posix()}"
            if patterns and not any(fnmatch.fnmatch(shown, p) or fnmatch.fnmatch(str(path), p) for p in patterns):
                continue
            entries[path.resolve()] = Entry(path, shown, producer_dir.resolve().name, category, kind)
    return sorted(entries.values(), key=lambda e: e.shown)


def stated_ppi(img) -> float | None:
    """The resolution a PIL image states (PNG pHYs, JFIF or EXIF density) in px/in, or None when it states
    none or one outside :data:`PLAUSIBLE_PPI`."""
    dpi = img.info.get("dpi")
    try:
        ppi = float(dpi[0]) if dpi else None
    except (TypeError, ValueError):
        ppi = None
    return ppi if ppi is not None and PLAUSIBLE_PPI[0] <= ppi <= PLAUSIBLE_PPI[1] else None


def plan_dpi(width_pt: float, height_pt: float, native_ppi: float | None = None) -> float:
    """The resolution of a comparison (module docstring): ``native_ppi`` for an image, else
    :data:`DRAWING_DPI` doubled until the longer side has :data:`MIN_SIDE_PX` px; either halved while over
    :data:`MAX_PIXELS`."""
    dpi = native_ppi or DRAWING_DPI
    if native_ppi is None:
        while max(width_pt, height_pt) / 72 * dpi < MIN_SIDE_PX and dpi < 16 * CSS_PPI:
            dpi *= 2
    while (width_pt / 72 * dpi) * (height_pt / 72 * dpi) > MAX_PIXELS and dpi > 1:
        dpi /= 2
    return dpi


def plan(entry: Entry) -> Plan:
    """The canvas and resolution of ``entry`` (module docstring).

    Raises:
        ComposerError: an SVG without a size. OSError, ValueError: an image or PDF that cannot be read
            (Pillow's and pypdfium2's errors).
    """
    data = entry.path.read_bytes()
    if entry.kind == "svg":
        from composer.stages.export import canvas_size_pt

        w, h = canvas_size_pt(data, source=entry.shown)
        dpi = plan_dpi(w, h)
        return Plan(w, h, dpi, dpi / CSS_PPI)
    if entry.kind == "pdf":
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(data)
        try:
            page = doc[0]
            w, h = page.get_size()  # as the page is shown: pdfium's size is turned by its /Rotate already
            page.close()
        finally:
            doc.close()
        dpi = plan_dpi(w, h)
        return Plan(w, h, dpi, dpi / CSS_PPI)
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:  # the header alone: composer decodes the pixels, and judges them
        ppi = stated_ppi(img)
        width_px, height_px = img.size
        if img.getexif().get(0x0112) in (5, 6, 7, 8):  # EXIF Orientation: turned a quarter
            width_px, height_px = height_px, width_px
    per_in = ppi or CSS_PPI
    w, h = width_px * 72 / per_in, height_px * 72 / per_in
    dpi = plan_dpi(w, h, per_in)
    return Plan(w, h, dpi, dpi / per_in)


def premultiplied(image) -> np.ndarray:
    """An image (PNG bytes, a path or a PIL image) as an (H, W, 4) uint8 array of premultiplied RGBA: svg_suite's
    values, made by Pillow's ``RGBa`` conversion (in C, rounded where svg_suite floors: at most 1/255 apart;
    20 times faster, which matters at 300 files of a million pixels).

    Raises:
        OSError: not an image Pillow reads.
    """
    from PIL import Image

    if isinstance(image, Image.Image):
        return np.asarray(image.convert("RGBA").convert("RGBa"))
    with Image.open(io.BytesIO(image) if isinstance(image, bytes) else image) as img:
        return np.asarray(img.convert("RGBA").convert("RGBa"))


# ─── the oracle ───────────────────────────────────────────────────────────────────────────────────────────

class Browser:
    """One headless Chromium for the whole run (Playwright), one page at device scale factor 1, reused.

    :meth:`draw` shows a file as an ``<img>`` at a CSS size on a transparent page and returns the screenshot,
    taken by the DevTools protocol's ``Page.captureScreenshot`` with ``optimizeForSpeed`` (a faster PNG
    encoder in Chromium, the same pixels: measured on every SVG and image of the corpus against Playwright's
    ``page.screenshot(omit_background=True)``, identical, at about two thirds of Chromium's CPU time).
    Use as a context manager; Chromium and Playwright's driver end with it.

    Raises:
        RuntimeError: :data:`CHROMIUM` is missing, or playwright is not installed.
    """

    def __init__(self) -> None:
        if not os.access(CHROMIUM, os.X_OK):
            raise RuntimeError(f"{CHROMIUM} is not installed (apt-get install chromium)")
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise RuntimeError("playwright is not installed (it is in the test extra: pip install -e '.[test]')") \
                from None
        self._tmp = tempfile.TemporaryDirectory(prefix="composer-oracle-browser-")
        self._index = Path(self._tmp.name) / "index.html"
        self._index.write_text("<!doctype html><html><head><style>html,body{margin:0;background:transparent}"
                               "img{display:block}</style></head>"
                               "<body><img id=i alt=''></body></html>")
        self._manager = sync_playwright()
        self._playwright = self._manager.start()
        self._browser: Any = self._playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                                         args=CHROMIUM_ARGS)
        self._the_page: Any = None

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End Chromium and the driver (idempotent)."""
        if self._browser is not None:
            self._browser.close()
            self._manager.__exit__(None, None, None)
            self._browser = None
            self._tmp.cleanup()

    def _page(self):
        """The page (device scale factor 1: :meth:`draw` zooms it) and its DevTools session (background
        transparent)."""
        if self._the_page is None:
            context = self._browser.new_context(device_scale_factor=1, viewport={"width": 100, "height": 100})
            page = context.new_page()
            page.set_default_timeout(BROWSER_TIMEOUT_S * 1000)
            page.goto(self._index.as_uri())
            session = context.new_cdp_session(page)
            # what page.screenshot(omit_background=True) sets before each screenshot: no white page behind
            session.send("Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}})
            self._the_page = (page, session)
        return self._the_page

    def draw(self, path: Path, css_px: tuple[float, float], scale: float, margin_css_px: float) -> bytes:
        """The screenshot (PNG bytes, RGBA) of ``path`` drawn by an ``<img>`` of ``css_px`` at ``scale``
        device pixels per CSS px, ``margin_css_px`` from the page's top left corner on a transparent page of
        ceil((css + 2 margins) x scale) pixels.

        The scale is the page's CSS ``zoom`` at a device scale factor of 1, not an emulated device scale
        factor: with ``device_scale_factor`` Chromium snaps the ``<img>`` to whole CSS px before scaling,
        so a file 31.36 x 13.47 CSS px wide was drawn stretched onto 31 x 13 (at 16 device px a CSS px, its
        far edges 6 and 8 device px in from where the file puts them); zoomed, the box is snapped to whole
        device pixels, as on a screen of that density. Lengths that follow the device scale factor follow
        the zoom alike (a ``non-scaling-stroke`` of 2 stays 2 CSS px: ``tests/test_oracle.py``).

        Raises:
            RuntimeError: Chromium cannot decode or draw the file (its message).
        """
        page, session = self._page()
        w, h = css_px
        viewport = {"width": math.ceil((w + 2 * margin_css_px) * scale - 1e-6),
                    "height": math.ceil((h + 2 * margin_css_px) * scale - 1e-6)}
        page.set_viewport_size(viewport)
        error = page.evaluate("""async ([src, w, h, m, zoom]) => {
            document.documentElement.style.zoom = String(zoom);
            const img = document.getElementById('i');
            img.removeAttribute('src');
            img.style.width = w + 'px'; img.style.height = h + 'px'; img.style.margin = m + 'px';
            img.src = src;
            try { await img.decode(); } catch (e) { return String(e); }
            return '';
        }""", [path.resolve().as_uri(), w, h, margin_css_px, scale])
        if error:
            raise RuntimeError(f"Chromium cannot draw it: {error}")
        # the viewport, in device pixels at device scale factor 1, with Chromium's faster PNG encoding
        shot = session.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True,
                                                       "captureBeyondViewport": False,
                                                       "clip": {"x": 0, "y": 0, **viewport, "scale": 1}})
        return base64.b64decode(shot["data"])


    def print_pdf(self, path: Path, css_px: tuple[float, float], scale: float) -> bytes:
        """The PDF Chromium prints of ``path`` alone: an ``<img>`` of ``css_px`` at the page's corner, zoomed
        by ``scale`` (a page of css x scale CSS px, its box snapped to whole zoomed px as on the screen of
        :meth:`draw`), no margin, no background. Drawn at dpi / scale it has the pixels of the comparison.

        Raises:
            RuntimeError: Chromium cannot decode or print the file (its message).
        """
        page, _ = self._page()
        w, h = css_px
        error = page.evaluate("""async ([src, w, h, zoom]) => {
            document.documentElement.style.zoom = String(zoom);
            const img = document.getElementById('i');
            img.removeAttribute('src');
            img.style.width = w + 'px'; img.style.height = h + 'px'; img.style.margin = '0px';
            img.src = src;
            try { await img.decode(); } catch (e) { return String(e); }
            return '';
        }""", [path.resolve().as_uri(), w, h, scale])
        if error:
            raise RuntimeError(f"Chromium cannot draw it: {error}")
        return page.pdf(width=f"{w * scale:.4f}px", height=f"{h * scale:.4f}px", page_ranges="1",
                        margin={"top": "0", "right": "0", "bottom": "0", "left": "0"})


def render_pdfium(pdf: bytes, dpi: float) -> np.ndarray:
    """Page 1 of a PDF as pdfium draws it at exactly ``dpi`` on a transparent bitmap of ceil(size) px,
    premultiplied RGBA. (pypdfium2's ``render`` stretches the page to whole pixels: up to a pixel's shift at
    the far edges, which moves every line there. A page's ``/Rotate`` is applied by pdfium on this path too, and
    its size is the turned one.) The bitmap is in pdfium's own byte order, BGRA: with
    ``FPDF_REVERSE_BYTE_ORDER`` on a transparent bitmap pdfium paints an axis-aligned rectangle of fill
    opacity 0.5 over another one without blending (alpha 0.5 where both are, not 0.75: ``tests/test_oracle.py``),
    which made Inkscape's cube of translucent faces 31 % lighter in pdfium than composer's PDF draws on a page."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        scale = dpi / 72
        w_pt, h_pt = page.get_size()
        w, h = math.ceil(w_pt * scale - 1e-6), math.ceil(h_pt * scale - 1e-6)
        bitmap = pdfium.PdfBitmap.new_native(w, h, raw.FPDFBitmap_BGRA, rev_byteorder=False)
        bitmap.fill_rect((255, 255, 255, 0), 0, 0, w, h)
        raw.FPDF_RenderPageBitmapWithMatrix(bitmap, page, raw.FS_MATRIX(scale, 0, 0, scale, 0, 0),
                                            raw.FS_RECTF(0, 0, w, h), raw.FPDF_ANNOT)
        out = premultiplied(bitmap.to_pil())
        page.close()
    finally:
        doc.close()
    return out


def render_poppler(path: Path, dpi: float, tmp: Path) -> np.ndarray:
    """Page 1 of the PDF at ``path`` as poppler's ``pdftocairo -png -transp`` draws it at ``dpi``.

    Raises:
        RuntimeError: pdftocairo failed (its last line).
    """
    stem = tmp / "poppler"
    done = subprocess.run(["pdftocairo", "-png", "-transp", "-singlefile", "-f", "1", "-l", "1",
                           "-r", f"{dpi:g}", str(path), str(stem)], capture_output=True, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0 or not stem.with_suffix(".png").exists():
        lines = done.stderr.decode(errors="replace").strip().splitlines() or [f"status {done.returncode}"]
        raise RuntimeError(f"pdftocairo: {lines[-1]}")
    return premultiplied(stem.with_suffix(".png"))


def placed(image: np.ndarray, shape: tuple[int, ...], offset_px: int) -> np.ndarray:
    """``image`` on a transparent canvas of ``shape`` (H, W, 4), its top left corner ``offset_px`` from the
    canvas' (what lies past the canvas is cut)."""
    out = np.zeros(shape, image.dtype)
    h, w = min(image.shape[0], shape[0] - offset_px), min(image.shape[1], shape[1] - offset_px)
    out[offset_px:offset_px + h, offset_px:offset_px + w] = image[:h, :w]
    return out


# ─── the metric ───────────────────────────────────────────────────────────────────────────────────────────

def differing(a: np.ndarray, b: np.ndarray, *, edge_px: int = EDGE_PX) -> np.ndarray:
    """The (H, W) mask of pixels that differ between two premultiplied RGBA images of one size: a pixel of
    one image differs when, in some channel, its value lies more than :data:`TOLERANCE` outside the range
    (min to max) of the other image's values within ``edge_px`` of it (a square); the union of both ways
    round. ``edge_px=0`` is svg_suite's strict rule (a channel off by more than the tolerance).

    Only the pixels the strict rule marks can differ under the wider one (a pixel's own counterpart is in
    the range), so the ranges are taken at those alone.
    """
    a8, b8 = np.ascontiguousarray(a, np.uint8), np.ascontiguousarray(b, np.uint8)
    over = (np.maximum(a8, b8) - np.minimum(a8, b8)) > TOLERANCE  # (H, W, 4) bools, one byte each
    strict = over.view(np.uint32)[..., 0] != 0  # any of the four channels
    if edge_px == 0 or not strict.any():
        return strict
    a16, b16 = a8.astype(np.int16), b8.astype(np.int16)
    ys, xs = np.nonzero(strict)
    r = edge_px
    width = a.shape[1] + 2 * r
    at = (ys + r) * width + (xs + r)  # the candidates in the padded images, one 8-byte pixel each
    out = np.zeros(len(ys), bool)
    for p, q in ((a16, b16), (b16, a16)):
        value = p[ys, xs]
        pixels = np.pad(q, ((r, r), (r, r), (0, 0)), mode="edge").view(np.uint64).reshape(-1)
        low = np.full_like(value, np.iinfo(np.int16).max)
        high = np.full_like(value, np.iinfo(np.int16).min)
        for dy in range(-r, r + 1):
            for dx in range(-r, r + 1):
                near = pixels[at + (dy * width + dx)].view(np.int16).reshape(-1, 4)
                np.minimum(low, near, out=low)
                np.maximum(high, near, out=high)
        out |= (np.maximum(value - high, low - value) > TOLERANCE).any(axis=1)
    mask = np.zeros(a.shape[:2], bool)
    mask[ys[out], xs[out]] = True
    return mask


def common(a: np.ndarray, b: np.ndarray, whole_px: tuple[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
    """Both images cut to the canvas' whole pixels ``whole_px`` (w, h: :attr:`Plan.whole_px`) at their top left,
    or None when either is short of them by more than a pixel (another size than the canvas': a rounding
    is one pixel; a browser's page is whole CSS px, so it may be a few pixels larger)."""
    w, h = whole_px
    if min(a.shape[1], b.shape[1]) < w - 1 or min(a.shape[0], b.shape[0]) < h - 1:
        return None
    h, w = min(h, a.shape[0], b.shape[0]), min(w, a.shape[1], b.shape[1])
    return a[:h, :w], b[:h, :w]


def compare(output: str, ours: np.ndarray, oracles: dict[str, np.ndarray], whole_px: tuple[int, int]
            ) -> tuple[Comparison, np.ndarray | None]:
    """``ours`` against each of ``oracles`` (name -> image) on their common area (:func:`common`): the
    comparison with the one it agrees with best, and its difference mask (None for another size)."""
    best: tuple[Comparison, np.ndarray | None] | None = None
    for name, theirs in oracles.items():
        cut = common(ours, theirs, whole_px)
        found: tuple[Comparison, np.ndarray | None]
        if cut is None:
            found = (Comparison(output, None, name, f"{ours.shape[1]}x{ours.shape[0]} px, {name} "
                                                     f"{theirs.shape[1]}x{theirs.shape[0]} px"), None)
        else:
            mask = differing(*cut)
            found = (Comparison(output, float(mask.mean()), name), mask)
        if best is None or (found[0].share is not None
                            and (best[0].share is None or found[0].share < best[0].share)):
            best = found
    assert best is not None
    return best


def diff_image(ours: np.ndarray, theirs: np.ndarray, mask: np.ndarray, *, max_width_px: int = 2400) -> bytes:
    """PNG bytes: ``ours`` | ``theirs`` | the oracle faded with ``mask``'s pixels in red, each on white,
    side by side (scaled down to ``max_width_px`` in all)."""
    from PIL import Image

    h, w = mask.shape

    def on_white(p: np.ndarray) -> np.ndarray:
        p = p[:h, :w].astype(np.int32)
        return (p[..., :3] + (255 - p[..., 3:4])).clip(0, 255).astype(np.uint8)

    faded = (on_white(theirs).astype(np.int32) // 4 + 191).astype(np.uint8)
    faded[mask] = (220, 0, 0)
    gap = np.full((h, 4, 3), 128, np.uint8)
    strip = Image.fromarray(np.concatenate([on_white(ours), gap, on_white(theirs), gap, faded], axis=1))
    if strip.width > max_width_px:
        strip = strip.resize((max_width_px, max(1, round(strip.height * max_width_px / strip.width))),
                             Image.Resampling.BOX)
    out = io.BytesIO()
    strip.save(out, format="png")
    return out.getvalue()


# ─── one file ─────────────────────────────────────────────────────────────────────────────────────────────

def build_outputs(entry: Entry, p: Plan, root: Path, engine: str) -> tuple[np.ndarray, np.ndarray, Path]:
    """composer's PNG and its PDF drawn by pdfium at the plan's dpi, both premultiplied RGBA, and the PDF's
    path: ``entry`` as the one panel of a transparent canvas of its own size (and a margin), built in a
    project made in ``root``.

    Raises:
        ComposerError: composer refused the file.
    """
    from composer.pipeline import build

    (root / "layouts").mkdir(parents=True)
    (root / "files").mkdir()
    name = "panel" + entry.path.suffix.lower()
    shutil.copyfile(entry.path, root / "files" / name)
    (root / "layouts" / "case.toml").write_text(
        f'[figure]\nwidth = "{p.canvas_pt[0]:.4f}pt"\nheight = "{p.canvas_pt[1]:.4f}pt"\nbackground = "none"\n'
        f'engine = "{engine}"\n[panels.p]\n{SOURCE_KEY[entry.kind]} = "../files/{name}"\n'
        f'at = ["{p.margin_pt:.4f}pt", "{p.margin_pt:.4f}pt"]\n'
        f'size = ["{p.width_pt:.4f}pt", "{p.height_pt:.4f}pt"]\n')
    result = build("case", root=root, out=root / "out", formats=("png", "pdf"), dpi=p.dpi, cache=False,
                   timeout_s=BUILD_TIMEOUT_S, jobs=1)
    ours = premultiplied(result.outputs["png"].read_bytes())
    pdf = render_pdfium(result.outputs["pdf"].read_bytes(), p.dpi)
    return ours, pdf, result.outputs["pdf"]


@dataclass(frozen=True)
class Built:
    """composer's outputs of one file: its PNG and its PDF as pdfium draws it (premultiplied RGBA, the plan's
    dpi), the PDF's path (for poppler, should pdfium's drawing differ), and the build's seconds."""

    png: np.ndarray
    pdf: np.ndarray
    pdf_path: Path
    seconds: float


def judge(entry: Entry, p: Plan, oracle_png: bytes | None, oracle_error: str, engine: str,
          diff_dir: Path | None) -> Outcome:
    """``entry``'s verdict: built by composer (:func:`build_outputs`), compared (:func:`assess`) with the
    oracle: Chromium's screenshot ``oracle_png`` of an SVG or image, taken by the caller (``oracle_error``
    when it could not be); pdfium's and poppler's renders of a PDF, made here."""
    from composer.errors import ComposerError

    warnings.simplefilter("ignore")
    logging.getLogger("matplotlib").setLevel(logging.ERROR)  # its font fallbacks ("findfont: ..."), per text
    with tempfile.TemporaryDirectory(prefix="composer-oracle-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        try:
            png, pdf, pdf_path = build_outputs(entry, p, root / "project", engine)
        except ComposerError as exc:
            return Outcome(entry, "refused", why=" ".join(str(exc).split()), build_s=time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001  (composer raised what is not its one-line error: a bug to list)
            return Outcome(entry, "crashed", why=f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300],
                           build_s=time.perf_counter() - started)
        built = Built(png, pdf, pdf_path, time.perf_counter() - started)
        oracles: dict[str, np.ndarray] = {}
        if entry.kind == "pdf":
            errors = []
            for name, draw in (("pdfium", lambda: render_pdfium(entry.path.read_bytes(), p.dpi)),
                               ("poppler", lambda: render_poppler(entry.path, p.dpi, root))):
                try:
                    oracles[name] = placed(draw(), (p.pixels[1], p.pixels[0], 4), p.margin_px)
                except Exception as exc:  # noqa: BLE001  (a renderer's failure is the oracle's verdict)
                    errors.append(f"{name}: {' '.join(str(exc).split())}")
            if not oracles:
                return Outcome(entry, "no oracle", why="; ".join(errors), build_s=built.seconds)
        elif oracle_png is None:
            return Outcome(entry, "no oracle", why=oracle_error, build_s=built.seconds)
        else:
            oracles["chromium"] = premultiplied(oracle_png)
        return assess(entry, p, built, oracles, diff_dir, root)


def assess(entry: Entry, p: Plan, built: Built, oracles: dict[str, np.ndarray], diff_dir: Path | None,
           tmp: Path) -> Outcome:
    """The verdict of composer's outputs ``built`` against ``oracles`` (name -> premultiplied RGBA of the
    canvas, the file at the margin: ``chromium``, or ``pdfium`` and ``poppler``): ``other size``, ``pass``
    or ``differs``; composer's PDF is drawn by poppler too when pdfium's drawing of it differs and its PNG
    does not (``tmp`` holds that drawing), and passes when either agrees; each failing comparison's image is
    written under ``diff_dir``."""
    note = ""
    if "pdfium" in oracles and "poppler" in oracles:
        cut = common(oracles["pdfium"], oracles["poppler"], p.whole_px)
        share = float(differing(*cut).mean()) if cut is not None else 1.0
        if share > MAX_DIFFERENT:
            note = f"pdfium and poppler disagree ({share:.1%} of the pixels)"
    for output, ours in (("PNG", built.png), ("PDF", built.pdf)):
        if abs(ours.shape[1] - p.pixels[0]) > 1 or abs(ours.shape[0] - p.pixels[1]) > 1:
            return Outcome(entry, "other size", why=f"composer's {output} is {ours.shape[1]}x{ours.shape[0]} px, "
                           f"the canvas {p.pixels[0]}x{p.pixels[1]} px", build_s=built.seconds, note=note)
    results = [compare("png", built.png, oracles, p.whole_px), compare("pdf", built.pdf, oracles, p.whole_px)]
    drawn = [built.png, built.pdf]
    if results[0][0].ok and not results[1][0].ok:
        # pdfium draws a stroke thinner than a pixel a pixel wide and opaque: poppler too (not when the PNG
        # differs already: the verdict stands, and the subprocess is a tenth of a second)
        try:
            by_poppler = render_poppler(built.pdf_path, p.dpi, tmp)
        except RuntimeError:
            by_poppler = None
        if by_poppler is not None:
            found = compare("pdf", by_poppler, oracles, p.whole_px)
            if found[0].share is not None and found[0].share < (results[1][0].share or 1.0):
                results[1], drawn[1] = (replace(found[0], drawn_by="poppler"), found[1]), by_poppler
                if found[0].ok:
                    note = "; ".join(filter(None, [note, "composer's PDF as pdfium draws it differs"]))
    comparisons = tuple(c for c, _ in results)
    if any(c.share is None for c in comparisons):
        size = next(c.size for c in comparisons if c.share is None)
        return Outcome(entry, "other size", comparisons, why=size, build_s=built.seconds, note=note)
    if all(c.ok for c in comparisons):
        return Outcome(entry, "pass", comparisons, build_s=built.seconds, note=note)
    if diff_dir is not None:
        for (c, mask), ours in zip(results, drawn):
            if not c.ok and mask is not None:
                target = diff_dir / f"{entry.shown}.{c.output}.diff.png"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(diff_image(ours, oracles[c.oracle], mask))
    why = ", ".join(f"{c.output.upper()}{' by ' + c.drawn_by if c.drawn_by else ''} {c.share:.1%}"
                    + (f" (vs {c.oracle})" if entry.kind == "pdf" else "") for c in comparisons)
    kept = built.pdf_path.read_bytes() if entry.kind != "pdf" and comparisons[0].ok else b""
    return Outcome(entry, "differs", comparisons, why=why, build_s=built.seconds, note=note, pdf=kept)


def printed_check(outcome: Outcome, p: Plan, browser: Browser, diff_dir: Path | None) -> Outcome:
    """The verdict of a file whose PNG agrees with Chromium and whose PDF pdfium and poppler draw otherwise
    (:attr:`Outcome.pdf`): composer's PDF drawn by pdfium against Chromium's own PDF of the file alone
    (:meth:`Browser.print_pdf`), drawn by pdfium at the same pixels. A PDF viewer draws a stroke thinner than
    a device pixel a pixel wide and opaque (pdfium and poppler alike: Servier's 0.32 px outlines at 192 dpi,
    2.0 % against Chromium's screen), in any PDF of the drawing; measured: composer's PDF and Chromium's of
    servier/mitochondrium-blue differ by 0.20 % in pdfium. It passes when they agree, with a note; the
    PDF's difference image is then removed. Otherwise the verdict stands."""
    entry = outcome.entry
    try:
        printed = browser.print_pdf(entry.path, p.css_px, p.scale)
        theirs = placed(render_pdfium(printed, p.dpi / p.scale), (p.pixels[1], p.pixels[0], 4), p.margin_px)
    except Exception:  # noqa: BLE001  (Chromium or pdfium could not: the verdict stands)
        return replace(outcome, pdf=b"")
    found, _ = compare("pdf", render_pdfium(outcome.pdf, p.dpi), {"chromium's pdf": theirs}, p.whole_px)
    if not found.ok:
        return replace(outcome, pdf=b"")
    if diff_dir is not None:
        (diff_dir / f"{entry.shown}.pdf.diff.png").unlink(missing_ok=True)
    note = "; ".join(filter(None, [outcome.note, f"composer's PDF as pdfium and poppler draw it differs from "
                                                 f"Chromium's screen, as pdfium draws Chromium's own PDF of the "
                                                 f"file it agrees ({found.share:.1%})"]))
    return replace(outcome, verdict="pass", comparisons=(outcome.comparisons[0], found), why="", note=note,
                   pdf=b"")


# ─── the run ──────────────────────────────────────────────────────────────────────────────────────────────

def _job(args: tuple) -> Outcome:
    return judge(*args)


def run(entries: list[Entry], *, jobs: int = 2, engine: str = "resvg", diff_dir: Path | None = None,
        progress=None) -> Report:
    """Every entry judged (:func:`judge`) in ``jobs`` forked worker processes, the browser's screenshots taken
    in this one meanwhile (one Chromium, started after the workers are forked).

    Raises:
        RuntimeError: an SVG or image is among ``entries`` and Chromium cannot be started.
    """
    import composer.pipeline  # noqa: F401  (imported once, before the workers are forked: they share it)
    from composer.errors import ComposerError

    started = time.monotonic()
    report = Report()
    plans: list[tuple[Entry, Plan | None, str]] = []
    for entry in entries:
        try:
            plans.append((entry, plan(entry), ""))
        except ComposerError as exc:
            plans.append((entry, None, " ".join(str(exc).split())))
        except Exception as exc:  # noqa: BLE001  (Pillow's, pypdfium2's: a file that cannot be read)
            plans.append((entry, None, f"cannot read it: {' '.join(str(exc).split())}"))
    context = multiprocessing.get_context("fork")
    with context.Pool(max(1, jobs)) as pool:
        pending: list[tuple[Entry, Any, str]] = []
        for entry, p, why in plans:  # PDFs first: they need no browser
            if p is None:
                pending.append((entry, None, why))
            elif entry.kind == "pdf":
                pending.append((entry, pool.apply_async(_job, ((entry, p, None, "", engine, diff_dir),)), ""))
        browsed = [(entry, p) for entry, p, _ in plans if p is not None and entry.kind != "pdf"]
        planned = {entry.shown: p for entry, p, _ in plans}
        browser = Browser() if browsed else None
        try:
            for entry, p in browsed:
                assert browser is not None
                try:
                    shot, error = browser.draw(entry.path, p.css_px, p.scale, p.margin_px / p.scale), ""
                except Exception as exc:  # noqa: BLE001  (Playwright's errors: the oracle's verdict)
                    shot, error = None, " ".join(str(exc).split())[:300]
                pending.append((entry, pool.apply_async(_job, ((entry, p, shot, error, engine, diff_dir),)), ""))
            order = {e.shown: i for i, e in enumerate(entries)}
            for entry, job, why in pending:
                if job is None:
                    outcome = Outcome(entry, "refused", why=why)
                else:
                    outcome = job.get()
                if outcome.pdf:
                    plan_of = planned[entry.shown]
                    assert browser is not None and plan_of is not None
                    outcome = printed_check(outcome, plan_of, browser, diff_dir)
                report.outcomes.append(outcome)
                if progress is not None:
                    progress(outcome)
        finally:
            if browser is not None:
                browser.close()
        report.outcomes.sort(key=lambda o: order[o.entry.shown])
    report.seconds = time.monotonic() - started
    return report


def table(report: Report, key: str) -> list[str]:
    """The Markdown table of ``report``'s verdicts per ``producer`` or ``category``, with a total row."""
    head = ["| " + key + " | files | " + " | ".join(VERDICTS) + " |", "|---" * (len(VERDICTS) + 2) + "|"]
    rows: list[str] = []
    total: collections.Counter = collections.Counter()
    for name, c in sorted(report.counts(key).items()):
        total.update(c)
        rows.append(_row(name, c))
    return head + rows + [_row("**all**", total)]


def _row(name: str, c: collections.Counter) -> str:
    n = sum(c.values())
    judged = n - c["no oracle"]
    rate = f" ({c['pass'] / judged:.1%})" if judged else ""
    return f"| {name} | {n} | {c['pass']}{rate} | " + " | ".join(str(c[v]) for v in VERDICTS[1:]) + " |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("folders", type=Path, nargs="+", metavar="FOLDER")
    parser.add_argument("--only", action="append", default=[], metavar="GLOB",
                        help="only the files whose PRODUCER/FILE (or path) matches the glob (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes building side by side (default 2)")
    parser.add_argument("--engine", default="resvg", choices=("resvg", "cairosvg"))
    parser.add_argument("--diff-dir", type=Path, default=None, metavar="DIR",
                        help="write ours | oracle | diff of each failing comparison under DIR/PRODUCER/")
    parser.add_argument("--at-least", type=float, default=None, metavar="RATE",
                        help="exit 1 when the pass rate (0..1) is below RATE")
    parser.add_argument("--quiet", action="store_true", help="the tables only, no line per failing file")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not folder.is_dir():
            print(f"oracle: {folder} is not a folder", file=sys.stderr)
            return 2
    try:
        entries = collect(args.folders, args.only)
    except ValueError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 2
    if not entries:
        print(f"oracle: no SVG, PDF, PNG or JPEG file in {', '.join(map(str, args.folders))}"
              + (f" matches {args.only}" if args.only else ""), file=sys.stderr)
        return 2

    def shown(o: Outcome) -> None:
        if not args.quiet and o.verdict != "pass":
            print(f"  {o.entry.shown} [{o.entry.category}]: {o.verdict}: {o.why}" + (f"; {o.note}" if o.note else ""),
                  flush=True)

    try:
        report = run(entries, jobs=args.jobs, engine=args.engine, diff_dir=args.diff_dir, progress=shown)
    except RuntimeError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 2
    notes = [o for o in report.outcomes if o.note and o.verdict == "pass"]
    if notes and not args.quiet:
        for o in notes:
            print(f"  {o.entry.shown}: pass; {o.note}")
    build_s = sum(o.build_s for o in report.outcomes)
    print(f"\nengine {args.engine}, {len(entries)} files, {report.seconds:.1f} s "
          f"({args.jobs} jobs; composer's builds {build_s:.1f} s in all)\n")
    print("\n".join(table(report, "producer")))
    print()
    print("\n".join(table(report, "category")))
    print(f"\npass rate {report.rate:.1%}")
    if args.at_least is not None and report.rate < args.at_least:
        print(f"oracle: pass rate {report.rate:.2%} is below the floor {args.at_least:.2%}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
