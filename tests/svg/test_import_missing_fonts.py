"""Imported text in a font the system lacks is drawn in the font browsers draw it with, with one warning.

draw.io writes every label in ``font-family="Helvetica"``, Illustrator ``ArialMT``: fonts a Linux machine
rarely has. Chromium asks fontconfig, refuses its match for Helvetica (Nimbus Sans: Skia takes only the family
asked for or one of its own table of metric-compatible faces), and Blink asks again for Helvetica's alternate
name, Arial, whose match (Liberation Sans) Skia takes (DevTools' ``CSS.getPlatformFontsForNode`` says Liberation
Sans); the resvg engine stopped the build instead ("font 'Helvetica' is not installed for the resvg engine").
The expected font is fontconfig's own answer for Arial (``fc-match``), not composer's code.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conformance_helpers import HEAD, compose


def fc_match(family: str) -> str:
    return subprocess.run(["fc-match", "-f", "%{family[0]}", family], capture_output=True, text=True,
                          check=True).stdout.strip()


pytestmark = pytest.mark.skipif(shutil.which("fc-match") is None or fc_match("Helvetica").casefold() == "helvetica",
                                reason="needs fontconfig without Helvetica (the case this tests)")

ART = (f'<svg {HEAD} width="60" height="20" viewBox="0 0 60 20">'
       '<text x="2" y="15" font-family="Helvetica" font-size="14">Ag</text>'
       '<text x="32" y="15" style="font-family: Helvetica; font-size: 14px">Ag</text></svg>')


def test_a_missing_font_is_drawn_as_fontconfig_draws_it_with_one_warning(tmp_path):
    substitute = fc_match("Arial")
    if substitute.casefold() not in ("liberation sans", "arimo"):
        pytest.skip(f"Arial is drawn with {substitute}, not a face Skia takes for it")
    png, _, messages, svg = compose(tmp_path, (60, 20), {"d": (ART, (0, 0), (60, 20))})  # the resvg engine
    from lxml import etree

    texts = list(etree.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"))
    stacks = [(t.get("font-family") or t.get("style", "").split("font-family:")[1].split(";")[0]).strip()
              for t in texts]
    assert [s.replace('"', "'") for s in stacks] == [f"'{substitute}'"] * 2, stacks
    named = [m for m in messages if "'Helvetica'" in m and repr(substitute) in m]
    assert len(named) == 1 and "art/d.svg" in named[0], messages
    for x0 in (0, 30):  # both texts are drawn: ink in each half
        assert (png[:, x0:x0 + 30, 3] > 128).sum() > 20, x0
