"""PDF panels: one page of a PDF converted to a vector SVG document, cached by content.

A ``pdf = "plot.pdf"`` panel (``page = N``, 1-based) is converted here to SVG
and then imported like an ``svg`` panel (sanitized, ids prefixed, viewBox
fitted in the box: :mod:`composer.stages.fragment`), so it is vector in the
SVG, the PDF and the PNG alike. The PDF output draws the page itself where it can
(:meth:`composer.stages.sources.pdf.PdfSource.pdf_page`: every font embedded;
:func:`composer.stages.export.resvg_engine.layered_document`), so its text stays text.

The converter is poppler's ``pdftocairo -svg`` (poppler-utils; the choice and
its evidence are in docs/design.md, "PDF panels"). Cairo's SVG surface writes
every glyph as a ``<path>`` outline (``<symbol id="glyph0-1">`` drawn with
``<use>``), so fonts embedded in the PDF, or substituted by fontconfig for the
14 standard fonts it does not embed, come through as outlines and need no
font on the reader's machine. poppler is GPL and runs as a separate program
(a subprocess), never linked; it is optional: without it a pdf panel is a one
line error with the install command, and nothing else in composer needs it.

Conversions are cached under ``ROOT/build/.cache/pdf/<2 hex>/<key>.svg``; the
key is the sha256 of the PDF's bytes, the page and the converter's version,
so a rebuild (or another figure showing the same page) does not convert again
and a changed file or poppler version does.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from composer.errors import DataError
from composer.sandbox.audit import not_recorded
from composer.svg.measure import thinnest_scale

#: the converter program (poppler-utils) and the page-count reader shipped with it
CONVERTER = "pdftocairo"
INFO = "pdfinfo"
#: what to install when they are missing (Debian/Ubuntu, macOS, conda)
INSTALL = ("apt-get install poppler-utils (macOS: brew install poppler; conda: conda install -c conda-forge "
           "poppler)")
#: wall-time limit of one conversion, seconds: a one-page figure converts in well under a second
#: (docs/design.md, "PDF panels": 30-90 ms for the test pages)
TIMEOUT_S = 120.0
_MAGIC = b"composer-pdf-svg 1"


class PageRangeError(DataError):
    """``page = N`` past the PDF's last page (the message says how many pages it has)."""


def cache_dir(root: Path) -> Path:
    """The PDF conversion cache of the project at ``root``: ``ROOT/build/.cache/pdf``."""
    return Path(root) / "build" / ".cache" / "pdf"


def missing() -> str | None:
    """None when the converter is installed, else the one-line message saying what to install."""
    if shutil.which(CONVERTER) and shutil.which(INFO):
        return None
    return f"PDF panels need {CONVERTER} and {INFO} (poppler-utils), which are not installed: {INSTALL}"


def converter_version() -> str:
    """The converter's version line (``pdftocairo version 22.12.0``), part of the cache key.

    Raises:
        DataError: the converter is not installed (:func:`missing`).
    """
    problem = missing()
    if problem:
        raise DataError(problem)
    done = subprocess.run([CONVERTER, "-v"], capture_output=True, timeout=TIMEOUT_S, check=False)
    out = (done.stderr or done.stdout).decode("utf-8", "replace")
    return out.splitlines()[0].strip() if out.strip() else CONVERTER


def cache_key(data: bytes, page: int, version: str) -> str:
    """sha256 hex of (format tag, converter version, page, PDF bytes)."""
    digest = hashlib.sha256(_MAGIC + b"\0" + version.encode() + b"\0" + str(page).encode() + b"\0")
    digest.update(data)
    return digest.hexdigest()


def page_count(path: Path, *, source: str) -> int:
    """The number of pages of the PDF at ``path``.

    Raises:
        DataError: (one line, naming ``source``; the caller adds the layout
            file and key) not a PDF, damaged, or encrypted with a password;
            the converter is missing.
    """
    if missing():
        raise DataError(missing() or "")
    with path.open("rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" not in head:
        raise DataError(f"{source} is not a PDF file (it does not start with %PDF-)")
    done = _run([INFO, str(path)], source)
    text = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    if done.returncode != 0 or not re.search(r"^Pages:", text, re.M):
        if "password" in err.lower():
            raise DataError(f"{source} is encrypted with a password; save an unencrypted copy (for example with "
                            "`qpdf --decrypt`) and use that")
        reason = next((line.strip() for line in err.splitlines() if line.strip()), "no pages found")
        raise DataError(f"{source} is damaged or not a PDF ({INFO}: {reason})")
    found = re.search(r"^Pages:\s*(\d+)", text, re.M)
    return int(found.group(1)) if found else 0


def pdf_page_svg(path: Path, page: int, *, source: str, cache: Path | None = None) -> bytes:
    """Convert page ``page`` (1-based) of the PDF at ``path`` to an SVG document.

    Args:
        path: the PDF file (already known to be inside the project).
        page: the page, 1-based.
        source: how messages name the file.
        cache: the cache folder (:func:`cache_dir`), or None for no cache.

    Returns:
        The SVG document's bytes, as the converter writes them: ``width`` and
        ``height`` in pt and a viewBox of the page's size in pt (the PDF's
        crop box), glyphs as path outlines. Not yet sanitized.

    Raises:
        DataError: one line each: the converter is missing (with the install
            command), not a PDF, damaged, encrypted with a password, ``page``
            past the last page (:class:`PageRangeError`: ``plot.pdf has 3
            pages; ...``), the conversion
            failed or did not finish in :data:`TIMEOUT_S`.
    """
    with not_recorded():  # composer's own files (the cache entry, the converter's temporary folder)
        return _page_svg(path, page, source=source, cache=cache)


def _page_svg(path: Path, page: int, *, source: str, cache: Path | None) -> bytes:
    data = path.read_bytes()
    key = cache_key(data, page, converter_version())
    entry = cache / key[:2] / f"{key}.svg" if cache is not None else None
    if entry is not None and entry.is_file():
        return entry.read_bytes()
    pages = page_count(path, source=source)
    if page > pages:
        raise PageRangeError(f"{source} has {pages} page{'s' if pages != 1 else ''}; page = {page} is not one of "
                             "them")
    with tempfile.TemporaryDirectory(prefix="composer-pdf-") as tmp:
        out = Path(tmp) / "page.svg"
        done = _run([CONVERTER, "-svg", "-f", str(page), "-l", str(page), str(path), str(out)], source)
        if done.returncode != 0 or not out.is_file():
            err = done.stderr.decode("utf-8", "replace")
            reason = next((line.strip() for line in err.splitlines() if line.strip()), "no output")
            raise DataError(f"{source}: cannot convert page {page} to SVG ({CONVERTER}: {reason})")
        svg = out.read_bytes()
    if entry is not None:
        _store(entry, svg)
    return svg


def _run(argv: list[str], source: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(argv, capture_output=True, timeout=TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise DataError(f"{source}: {argv[0]} did not finish in {TIMEOUT_S:g} s") from None
    except OSError as exc:
        raise DataError(f"{source}: cannot run {argv[0]}: {exc.strerror or exc}") from None


def _store(entry: Path, svg: bytes) -> None:
    """Write a cache entry atomically; a cache that cannot be written is skipped, not an error."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(svg)
        os.replace(tmp, entry)
    except OSError:
        pass


@dataclass(frozen=True)
class PageText:
    """One text object of a PDF page as a PDF viewer draws it.

    Attributes:
        size_pt: its font size on the page, pt: the ``Tf`` size times the scale of its text matrix and
            of every transform above it (``cm``, form XObjects), the smaller of the two axes.
        text: its characters (pdfium's reading of the font's encoding; may hold ``\ufffd`` for a glyph
            without a Unicode mapping).
    """

    size_pt: float
    text: str


def fonts_embedded(path: Path, page: int) -> bool:
    """Whether every font the visible text of page ``page`` (1-based) of the PDF at ``path`` is drawn in is
    embedded in the file (pdfium's ``FPDFFont_GetIsEmbedded``; a Type 3 font's glyphs are in the file).
    A page without text has none to miss: True.

    Raises:
        DataError: pdfium cannot open the file or the page.
    """
    import pypdfium2.raw as raw

    with _page(path, page) as sheet:
        for obj in sheet.get_objects(max_depth=16):
            if obj.type != raw.FPDF_PAGEOBJ_TEXT:
                continue
            if raw.FPDFTextObj_GetTextRenderMode(obj.raw) == raw.FPDF_TEXTRENDERMODE_INVISIBLE:
                continue
            font = raw.FPDFTextObj_GetFont(obj.raw)
            if not font or raw.FPDFFont_GetIsEmbedded(font) != 1:
                return False
    return True


def smoothed_image_sizes(path: Path, page: int) -> set[tuple[int, int]]:
    """The pixel sizes ``(width, height)`` of the images page ``page`` (1-based) of the PDF at ``path``
    asks to be smoothed: ``/Interpolate true`` (ISO 32000-1, 8.9.5.3; ``/I true`` for an inline image),
    image XObjects of the page and of the forms it draws, at any depth.

    Every other image a PDF viewer draws without interpolation: enlarged, its pixels are squares
    (pdfium repeats them; so does Acrobat), which a heat map's cells need. pdftocairo writes every image
    as a plain ``<image>``, which an SVG renderer smooths, so the import marks the others
    ``image-rendering="optimizeSpeed"`` (:func:`composer.stages.sources.pdf.PdfSource.read`). An
    unreadable file has none (its images are then drawn crisp).
    """
    import pikepdf

    found: set[tuple[int, int]] = set()
    try:
        with pikepdf.open(path) as doc:
            if not 1 <= page <= len(doc.pages):
                return found
            seen: set[tuple[int, int]] = set()

            def walk(resources: Any) -> None:
                xobjects = resources.get("/XObject") if resources is not None else None
                for _, obj in (xobjects.items() if xobjects is not None else ()):
                    if obj.objgen in seen:
                        continue
                    seen.add(obj.objgen)
                    if obj.get("/Subtype") == "/Image" and bool(obj.get("/Interpolate", False)):
                        found.add((int(obj.get("/Width", 0)), int(obj.get("/Height", 0))))
                    elif obj.get("/Subtype") == "/Form":
                        walk(obj.get("/Resources"))

            sheet = doc.pages[page - 1]
            walk(sheet.obj.get("/Resources"))
            for item in pikepdf.parse_content_stream(sheet):
                if isinstance(item, pikepdf.ContentStreamInlineImage):
                    image = item.iimage
                    if bool(image.obj.get("/I", image.obj.get("/Interpolate", False))):
                        found.add((int(image.width), int(image.height)))
    except (pikepdf.PdfError, ValueError, OSError):
        return found
    return found


@contextmanager
def _page(path: Path, page: int) -> Iterator[Any]:
    """Page ``page`` (1-based) of the PDF at ``path``, opened with pdfium (pypdfium2), closed after.

    Raises:
        DataError: pdfium cannot open the file, or it has no such page.
    """
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise DataError(f"{path.name}: pdfium cannot read it ({exc})") from None
    try:
        if not 1 <= page <= len(document):
            raise DataError(f"{path.name} has no page {page}")
        yield document[page - 1]
    finally:
        document.close()


def page_texts(path: Path, page: int) -> tuple[PageText, ...]:
    """The visible text objects of page ``page`` (1-based) of the PDF at ``path``, in drawing order,
    measured by pdfium (pypdfium2): what ``compose check`` reads of a pdf panel's text, whose glyphs
    the conversion made outlines with no size.

    A glyph's size does not depend on how the font is stored: an embedded TrueType or Type 1 font, a
    standard font the file names only (R's ``pdf()`` Helvetica), or Type 3 glyphs drawn as outlines
    (matplotlib's default) are each a text object with a ``Tf`` size. Invisible text (render mode 3,
    an OCR layer) and text objects without characters are left out.

    Raises:
        DataError: pdfium cannot open the file or the page (the conversion, run first, would have said
            so in the layout's words).
    """
    import ctypes

    import pypdfium2.raw as raw

    with _page(path, page) as sheet:
        textpage = sheet.get_textpage()
        found: list[PageText] = []
        forms: dict[int, tuple[float, float, float, float]] = {}  # level -> linear part of its form's map
        for obj in sheet.get_objects(max_depth=16):
            if obj.type not in (raw.FPDF_PAGEOBJ_FORM, raw.FPDF_PAGEOBJ_TEXT):
                continue  # paths, images, shadings: no text; pdfium gives a shading (``sh``) no matrix
            a, b, c, d, _, _ = obj.get_matrix().get()
            linear = (a, b, c, d)
            if obj.level > 0 and obj.level - 1 in forms:
                linear = _then(linear, forms[obj.level - 1])
            if obj.type == raw.FPDF_PAGEOBJ_FORM:
                forms[obj.level] = linear
                continue
            if raw.FPDFTextObj_GetTextRenderMode(obj.raw) == raw.FPDF_TEXTRENDERMODE_INVISIBLE:
                continue
            size = ctypes.c_float()
            if not raw.FPDFTextObj_GetFontSize(obj.raw, size):
                continue
            count = raw.FPDFTextObj_GetText(obj.raw, textpage.raw, None, 0)  # bytes, UTF-16LE with a NUL
            buffer = (ctypes.c_ushort * max(count // 2, 1))()
            raw.FPDFTextObj_GetText(obj.raw, textpage.raw, buffer, count)
            text = bytes(buffer).decode("utf-16-le", "replace").rstrip("\x00")
            if text.strip():
                found.append(PageText(abs(size.value) * thinnest_scale((*linear, 0.0, 0.0)), text))
        return tuple(found)


def _then(first: tuple[float, float, float, float], then: tuple[float, float, float, float]
          ) -> tuple[float, float, float, float]:
    """The linear part of ``first`` followed by ``then`` (PDF's row-vector matrices ``[a b; c d]``)."""
    a, b, c, d = first
    e, f, g, h = then
    return a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h

