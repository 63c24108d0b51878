"""Rasterize stage: the composed SVG -> PDF and PNG with cairosvg.

cairosvg runs with its default ``unsafe=False``: it never reads a file or URL
named by the SVG (composer inlines every image it imports, so nothing is lost).

PNG size: cairosvg sizes the surface from the root's width/height at ``dpi``,
so a 180 mm canvas at 300 dpi is round(180 / 25.4 * 300) = 2126 px wide.
PDF determinism: cairo writes a ``/CreationDate`` of the current time; it is
replaced by a fixed date of the same length, so the byte offsets in the
cross-reference table stay valid and equal inputs give equal bytes.
"""

from __future__ import annotations

import re

#: written into every PDF instead of the build time (same length as cairo's
#: ``D:YYYYMMDDHHmmSS+HH'mm``, so xref offsets do not move).
FIXED_PDF_DATE = b"D:20000101000000Z"


def to_png(svg: bytes, *, dpi: float = 300.0, source: str = "canvas") -> bytes:
    """Rasterize SVG bytes to PNG bytes at ``dpi`` (pixels per inch of the canvas's physical size).

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    return _cairo(lambda: cairosvg.svg2png(bytestring=svg, dpi=dpi), "PNG", source)


def to_pdf(svg: bytes, *, source: str = "canvas") -> bytes:
    """Convert SVG bytes to vector PDF bytes with a pinned creation date.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    pdf = _cairo(lambda: cairosvg.svg2pdf(bytestring=svg), "PDF", source)
    return pin_pdf_dates(pdf)


def _cairo(convert, kind: str, source: str) -> bytes:
    """Run a cairosvg conversion; its failures become one :class:`SvgError` line.

    cairosvg refuses, for instance, more than 100,000 ``<use>`` instantiations
    (a panel with very many markers: draw them with ``rasterized=True``).
    """
    from .errors import SvgError

    try:
        return convert()
    except MemoryError:
        raise SvgError(f"not enough memory to export the {kind}", file=source) from None
    except Exception as exc:  # noqa: BLE001 - cairosvg and cairo raise many kinds
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise SvgError(f"cannot export the {kind}: cairosvg: {message}", file=source) from None


def pin_pdf_dates(pdf: bytes) -> bytes:
    """Replace ``/CreationDate (D:...)`` and ``/ModDate (D:...)`` with :data:`FIXED_PDF_DATE`.

    The replacement is padded to the original length, keeping xref offsets valid.
    """
    def fix(match: re.Match[bytes]) -> bytes:
        old = match.group(2)
        new = FIXED_PDF_DATE[: len(old)].ljust(len(old), b" ")
        return match.group(1) + new + b")"

    return re.sub(rb"(/(?:CreationDate|ModDate) \()(D:[^)]*)\)", fix, pdf)
