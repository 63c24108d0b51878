"""A pdf panel's page for the PNG, padded to whole device pixels so Typst draws it where pdfium draws it.

Typst's PNG draws a PDF image (typst-render, ``render_image``) by rendering the page with hayro into a
texture of ``ceil(width in px)`` x ``ceil(height in px)`` pixels, then painting that texture into the
page's place with nearest-neighbour sampling: wherever the place does not start and end on whole device
pixels, every row and column of the texture lands up to half a pixel from where the page draws it, and the
texture, a little larger than its place, is shrunk by dropping a row or column. A 0.4 pt line of a TikZ
page came out 0.2 px low and a tenth thinner than pdfium and poppler draw it (latex-tikz's
thermo-ensemble-trafos: 0.8 % of the PNG's pixels different; r-cairo's base_image_contour: 0.9 %).

So the PNG draws, in place of the page, a one-page PDF whose page covers the device pixels the page
touches, whole: the page itself as a form XObject (qpdf's ``getFormXObjectForPage``, through pikepdf: its
``/Rotate`` and ``/UserUnit`` applied, clipped to its crop box as a viewer clips it) drawn exactly where
the canvas places it. That padded page starts on a pixel and is whole pixels wide and tall (a thousandth
of a pixel less, so Typst's ``ceil`` gives that many), so the texture lands pixel on pixel. The PDF output
keeps the page itself, unpadded.
"""

from __future__ import annotations

import io
import math

#: how much less than whole pixels the padded page is (px): Typst's texture is ``ceil`` of its size in
#: pixels (f32), which a size of exactly N px can round to N + 1
_SHORT_PX = 1e-3


def on_pixel_grid(data: bytes, page: int, rect_pt: tuple[float, float, float, float],
                  dpi: float) -> tuple[bytes, tuple[float, float, float, float]] | None:
    """Page ``page`` (1-based) of the PDF ``data``, which the canvas shows over ``rect_pt`` (x, y, width,
    height in pt, y down), as a one-page PDF covering the whole device pixels of a PNG at ``dpi`` that the
    rect touches, with the page drawn at its place in it (stretched to the rect, as Typst's ``fit:
    "stretch"``), and the padded page's rect in pt. None when qpdf cannot read the file or the rect is empty
    (the page is then drawn as it is)."""
    import pikepdf

    x_pt, y_pt, w_pt, h_pt = rect_pt
    if w_pt <= 0 or h_pt <= 0:
        return None
    px_per_pt = dpi / 72
    left, top = math.floor(x_pt * px_per_pt + 1e-6), math.floor(y_pt * px_per_pt + 1e-6)
    right = math.ceil((x_pt + w_pt) * px_per_pt - 1e-6)
    bottom = math.ceil((y_pt + h_pt) * px_per_pt - 1e-6)
    pad_w_pt = (right - left - _SHORT_PX) / px_per_pt
    pad_h_pt = (bottom - top - _SHORT_PX) / px_per_pt
    try:
        with pikepdf.open(io.BytesIO(data)) as source:
            shown = source.pages[page - 1]
            shown.trimbox = shown.cropbox  # qpdf's form takes the trim box as its /BBox; a viewer shows the crop box
            form = shown.as_form_xobject(True)
            out = pikepdf.new()
            out.add_blank_page(page_size=(pad_w_pt, pad_h_pt))
            padded = out.pages[0]
            placed = out.copy_foreign(form)
            # the form's box as it is shown: its /Matrix (the page's /Rotate, /UserUnit) applied to its /BBox
            llx, lly, urx, ury = (float(v) for v in placed.BBox)
            a, b, c, d, e, f = (float(v) for v in placed.get("/Matrix", [1, 0, 0, 1, 0, 0]))
            xs, ys = zip(*((a * u + c * v + e, b * u + d * v + f) for u in (llx, urx) for v in (lly, ury)))
            shown_w, shown_h = max(xs) - min(xs), max(ys) - min(ys)
            if shown_w <= 0 or shown_h <= 0:
                return None
            sx, sy = w_pt / shown_w, h_pt / shown_h
            # where the page goes on the padded page (PDF: y up from its bottom edge), in pt
            at_x = x_pt - left / px_per_pt
            at_y = pad_h_pt - (y_pt - top / px_per_pt) - h_pt
            cm = (sx, 0, 0, sy, at_x - sx * min(xs), at_y - sy * min(ys))
            padded.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(P=placed))
            padded.Contents = out.make_stream(b"q %s cm /P Do Q" % " ".join(f"{v:.6f}" for v in cm).encode())
            written = io.BytesIO()
            out.save(written, deterministic_id=True)
    except (pikepdf.PdfError, IndexError, ValueError, KeyError):
        return None
    return written.getvalue(), (left / px_per_pt, top / px_per_pt, pad_w_pt, pad_h_pt)
