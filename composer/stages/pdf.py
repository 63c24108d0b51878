"""PDF panels: one page of a PDF converted to a vector SVG document, cached by content.

A ``pdf = "plot.pdf"`` panel (``page = N``, 1-based) is converted here to SVG
and then imported like an ``svg`` panel (sanitized, ids prefixed, viewBox
fitted in the box: :mod:`composer.stages.fragment`), so it is vector in the
SVG, the PDF and the PNG alike.

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
from pathlib import Path

from composer.errors import DataError
from composer.sandbox.audit import not_recorded

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
