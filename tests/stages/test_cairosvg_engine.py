"""``<use>`` expansion before cairosvg: the same pixels, and SVG 1.1's semantics of ``use``."""

from __future__ import annotations

import io

import numpy as np
import pytest
from lxml import etree

from composer.stages.export import cairosvg_engine as rasterize
from composer.stages.export.cairosvg_engine import expand_uses
from conftest import SVG_NS

SVG = b"""<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="60pt" height="40pt" viewBox="0 0 60 40">
  <rect width="60" height="40" fill="white"/>
  <g id="panel-a"><style>#panel-a * {stroke-linejoin: round}</style>
    <defs><path id="m" d="M -3 -3 L 3 3 M -3 3 L 3 -3" style="stroke: #000; stroke-width: 1"/></defs>
    <use xlink:href="#m" x="10" y="10" style="stroke: #d62728"/>
    <use xlink:href="#m" x="30" y="20" transform="rotate(10)"/>
    <g id="inner"><circle id="c" cx="0" cy="0" r="4" fill="#1f77b4"/></g>
    <use xlink:href="#inner" x="48" y="30" style="fill-opacity: 0.5"/>
  </g>
  <g id="panel-logo"><style>#panel-logo #dot {fill: #ef4444}</style>
    <circle id="dot" cx="8" cy="32" r="3"/><use xlink:href="#dot" x="8"/>
  </g>
</svg>
"""


def pixels(svg: bytes) -> np.ndarray:
    import cairosvg
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(cairosvg.svg2png(bytestring=svg, dpi=300))).convert("RGBA"))


def test_expanded_svg_rasterizes_to_the_same_pixels():
    expanded = expand_uses(SVG)
    assert expanded.count(b"<use") == 1, "only the use under an id-selecting stylesheet should stay"
    assert np.array_equal(pixels(expanded), pixels(SVG))


def test_opacity_on_a_use_applies_as_on_a_group():
    """SVG 1.1 gives a ``<use>`` the ``opacity`` of the group it stands for (as browsers draw it);
    cairosvg ignores it on ``<use>``, the expanded group gets it right: half blue on white."""
    svg = SVG.replace(b'style="fill-opacity: 0.5"', b'opacity="0.5"')
    x, y = round(48 / 72 * 300), round(30 / 72 * 300)
    assert tuple(pixels(expand_uses(svg))[y, x, :3]) == pytest.approx((143, 187, 217), abs=2)
    assert tuple(pixels(svg)[y, x, :3]) == (31, 119, 180)  # cairosvg on its own: opacity lost


def test_demo_canvas_has_the_same_pixels_expanded(demo_build):
    _, outputs = demo_build
    svg = outputs["svg"].read_bytes()
    assert b"<use" in svg
    assert np.array_equal(pixels(expand_uses(svg)), pixels(svg))


def test_use_becomes_a_group_with_the_use_attributes_and_an_id_free_copy():
    root = etree.fromstring(expand_uses(SVG))
    groups = [g for g in root.findall(".//svg:g[@id='panel-a']/svg:g", SVG_NS) if g.get("id") != "inner"]
    first, second, third = groups
    assert first.get("transform") == "translate(10 10)" and first.get("style") == "stroke: #d62728"
    assert second.get("transform") == "rotate(10) translate(30 20)"
    assert third.get("style") == "fill-opacity: 0.5" and third.get("transform") == "translate(48 30)"
    copies = [el for g in (first, second, third) for el in g.iter()][3:]
    assert all(el.get("id") is None for g in (first, second, third) for el in list(g.iter())[1:])
    assert copies, "no copies inside the groups"
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert len(ids) == len(set(ids))


def test_expansion_stops_at_its_budget(monkeypatch):
    monkeypatch.setattr(rasterize, "MAX_EXPANDED", 1)
    assert expand_uses(SVG).count(b"<use") == 3  # one copied, the next (a group of 2) over budget


def test_an_svg_without_use_is_returned_unchanged():
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="1pt" height="1pt"/>'
    assert expand_uses(svg) is svg


@pytest.mark.parametrize("fmt", ["png", "pdf"])
def test_exports_go_through_the_expansion(monkeypatch, fmt):
    seen = []
    real = rasterize.expand_uses
    monkeypatch.setattr(rasterize, "expand_uses", lambda svg: seen.append(svg) or real(svg))
    (rasterize.to_png if fmt == "png" else rasterize.to_pdf)(SVG)
    assert seen == [SVG]


def test_pdf_bytes_do_not_depend_on_the_time_zone(monkeypatch):
    """cairo dates the PDF in local time; the pinned date must not change the bytes around it."""
    import time

    outputs = set()
    try:
        for tz in ("UTC0", "EST+5EDT", "IST-5:30"):  # POSIX zone strings: no tz database needed
            monkeypatch.setenv("TZ", tz)
            time.tzset()
            outputs.add(rasterize.to_pdf(SVG))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert len(outputs) == 1
