"""Issue #23 item 3, gaps found on the real-file corpus: each input is written here, checked on PNG pixels
and on pdfium's render of the PDF (72 dpi, 1 pt = 1 px), against values worked out by hand.
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near

from composer.stages.export import canvas_size_pt


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be"])
def test_a_utf16_file_is_sized_as_it_is_parsed(codec, tmp_path):
    """A UTF-16 SVG (Wikimedia's Speech_bubbles.svg; with its byte-order mark or only its declaration)
    has the size of its root, as the parser that draws it reads it: 40 x 20 CSS px = 30 x 15 pt. Composed
    as the one panel of a canvas of that size (as the oracle composes every file), its left half is red
    and its right half blue in the PNG and in the PDF."""
    art = (f'<?xml version="1.0" encoding="UTF-16"?>\n<svg {HEAD} width="40" height="20" viewBox="0 0 4 2">'
           '<rect width="2" height="2" fill="#ff0000"/><rect x="2" width="2" height="2" fill="#0000ff"/></svg>')
    data = art.encode(codec)
    size = canvas_size_pt(data, source="a.svg")
    assert size == pytest.approx((30.0, 15.0))
    if codec != "utf-16":
        return  # the drawing is the same for each codec: one build is enough
    png, pdf, _, _ = compose(tmp_path, size, {"a": (data, (0, 0), size)})
    assert png.shape[:2] == (15, 30)
    for x, colour in ((7, (255, 0, 0)), (22, (0, 0, 255))):
        assert near(png[7, x], (*colour, 255)) and near(pdf[7, x], colour), (x, png[7, x], pdf[7, x])
