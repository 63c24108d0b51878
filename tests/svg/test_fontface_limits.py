"""Embedded fonts (``@font-face`` with a ``data:`` URL) that must not reach the import: a WOFF or WOFF2
whose tables decompress past the limit (a decompression bomb: a quarter of a megabyte of WOFF2 holds
400 MB of zeros), one whose directory declares less than its compressed stream holds, and descriptors
out of CSS's range (``font-weight: 1e400`` crashed the import with an OverflowError).

Each font is made here from matplotlib's cmr10.ttf (about 20 KB as WOFF2); the limit handed to
:func:`faces_of_rule` is 2 MB and every bomb holds a 4 MB table, so the decompressed size is known from
the input alone. That the bomb is refused *before* it is decompressed is read from tracemalloc's peak:
fontTools decompresses a stream whole (a 4 MB bytes object at least) before it checks its size.
"""

from __future__ import annotations

import base64
import io
import struct
import tracemalloc
from pathlib import Path

import matplotlib
import pytest
import tinycss2

from composer.svg.fontfaces import faces_of_rule

FONT = Path(matplotlib.get_data_path(), "fonts", "ttf", "cmr10.ttf").read_bytes()
LIMIT = 2 * 1024 * 1024
BOMB = 4 * 1024 * 1024


def flavoured(flavor: str, extra: int = 0) -> bytes:
    from fontTools.ttLib import TTFont
    from fontTools.ttLib.tables.DefaultTable import DefaultTable

    font = TTFont(io.BytesIO(FONT))
    if extra:
        table = DefaultTable("zzzz")
        table.data = b"\0" * extra
        font["zzzz"] = table
    font.flavor = flavor
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def lying_woff2() -> bytes:
    """cmr10 as WOFF2 whose brotli stream holds 4 MB more than its table directory declares (the directory
    and header otherwise intact: W3C WOFF 2.0, 3-5)."""
    import brotli
    from fontTools.ttLib.woff2 import WOFF2DirectoryEntry

    raw = flavoured("woff2")
    tables, packed = struct.unpack(">H", raw[12:14])[0], struct.unpack(">L", raw[20:24])[0]
    rest = raw[48:]
    for _ in range(tables):
        rest = WOFF2DirectoryEntry().fromString(rest)
    start = len(raw) - len(rest)
    stream = brotli.compress(brotli.decompress(raw[start:start + packed]) + b"\0" * BOMB)
    body = raw[:start] + stream
    body += b"\0" * (-len(body) % 4)
    return body[:8] + struct.pack(">L", len(body)) + body[12:20] + struct.pack(">L", len(stream)) + body[24:]


def rule(data: bytes, mime: str, weight: str = "normal") -> tinycss2.ast.AtRule:
    css = (f'@font-face {{ font-family: "Embedded Roman"; font-weight: {weight}; '
           f'src: url(data:{mime};base64,{base64.b64encode(data).decode()}); }}')
    return next(n for n in tinycss2.parse_stylesheet(css) if n.type == "at-rule")


def faces_and_peak(node) -> tuple[list, int]:
    tracemalloc.start()
    try:
        faces, _ = faces_of_rule(node, LIMIT)
        return faces, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def fonts():
    return {"woff": flavoured("woff"), "woff2": flavoured("woff2"), "woff bomb": flavoured("woff", BOMB),
            "woff2 bomb": flavoured("woff2", BOMB), "lying woff2": lying_woff2()}


@pytest.mark.parametrize("kind", ["woff", "woff2"])
def test_a_font_within_the_limit_is_handed_on(fonts, kind):
    faces, _ = faces_and_peak(rule(fonts[kind], f"font/{kind}"))
    assert len(faces) == 1 and faces[0].data[:4] == b"\0\1\0\0" and len(faces[0].data) < LIMIT


@pytest.mark.parametrize("kind", ["woff bomb", "woff2 bomb", "lying woff2"])
def test_a_font_that_decompresses_past_the_limit_is_refused_before_it_is_decompressed(fonts, kind):
    data = fonts[kind]
    assert len(data) < LIMIT / 4  # the bomb is small; only what it decompresses to is not
    faces, peak = faces_and_peak(rule(data, "font/woff2" if "woff2" in kind else "font/woff"))
    assert faces == []
    assert peak < BOMB, peak  # no 4 MB table was ever decompressed


@pytest.mark.parametrize("weight, want", [("1e400", [400]), ("5000", [400]), ("-5", [400]),
                                          ("300 1e999", [300, 400]), ("700", [700])])
def test_a_weight_outside_css_range_is_normal(fonts, weight, want):
    """CSS Fonts 4, 4.3: a font-weight descriptor is a number from 1 to 1000; another is invalid."""
    faces, _ = faces_of_rule(rule(fonts["woff2"], "font/woff2", weight), LIMIT)
    assert [f.weight for f in faces] == want
