"""Imported ``<text>`` in a generic family (``sans-serif``, Inkscape's default; ``monospace``) or in no
family at all was drawn by the engine's usvg in Arial / Courier New / Times New Roman, which a Linux
machine lacks: the text vanished from the PNG and the PDF, exit 0, no warning, while a browser drew it.

Each line of the file below is probed for ink (dark pixels) in its own band of rows, in the PNG and in
pdfium's render of the PDF; canvases at 72 dpi (1 pt = 1 px).
"""

from __future__ import annotations

import re

from conformance_helpers import HEAD, compose, on_white
from lxml import etree

ART = (f'<svg {HEAD} width="300" height="120" viewBox="0 0 300 120">'
       '<text x="10" y="30" style="font-size:20px;font-family:sans-serif">Inkscape default sans</text>'
       '<text x="10" y="70" font-size="20">no family at all</text>'
       '<text x="10" y="110" font-size="20" font-family="monospace">monospace here</text></svg>')


def _ink_rows(rgb, top: int, bottom: int) -> int:
    """How many pixels of rows top..bottom are dark (text), out of the 300 pt wide canvas."""
    return int((rgb[top:bottom, :, :3].max(axis=2) < 128).sum())


def test_text_in_a_generic_family_or_none_is_drawn(tmp_path):
    png, pdf, _, svg = compose(tmp_path, (225, 90), {"p": (ART, (0, 0), (225, 90))})  # 300 px = 225 pt
    rgb = on_white(png)
    # baselines at 30, 70, 110 px of 120 = 22.5, 52.5, 82.5 pt; 20 px text = 15 pt: ~11 pt of caps above
    for top, bottom in ((10, 25), (40, 55), (70, 85)):
        assert _ink_rows(rgb, top, bottom) > 100, (top, _ink_rows(rgb, top, bottom))
        assert _ink_rows(pdf, top, bottom) > 100, (top, _ink_rows(pdf, top, bottom))
    # a browser without the named font still has the generic name after it: "'X', sans-serif"
    stacks = []
    for el in etree.fromstring(svg).iter():
        stacks += [el.get("font-family")] if el.get("font-family") else []
        stacks += re.findall(r"font-family:\s*([^;]+)", el.get("style") or "")
    for generic in ("sans-serif", "monospace", "serif"):  # serif: on the file's root, which names none
        assert any(re.fullmatch(rf"""(["'])[^"']+\1, {generic}""", f.strip()) for f in stacks), stacks
