"""The flagship figure, built from the repo's own layout, panels and data.

Every expected position here is worked out by hand from ``layouts/volume_kv.toml`` (the numbers are
copied from it into the comments), the README's layout reference (defaults: arrow ``gap`` 1 pt,
``head_length`` max(4 pt, 4.5 x width), ``head_width`` max(3.2 pt, 3.6 x width); ``at`` without
``anchor`` places the box's north-west corner) and the data file; or read from what matplotlib drew
(the 3D panel's argmax ring, whose projection no hand can follow). Nothing is asked of composer's own
geometry code.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from lxml import etree

from conftest import REPO, SVG_NS, cumulative_transform, ids_and_refs, read_png

MM = 72 / 25.4  # pt per mm
SVG = "{http://www.w3.org/2000/svg}"
DPI = 300  # the flagship_build fixture's

# [figure] width = "180mm", height = "100mm"
CANVAS_MM = (180.0, 100.0)
# Each panel's north-west corner and size in mm, from the layout:
#   rgb:    at canvas.nw + offset (4, 18), size 36 x 36
#   proj (a shape, below): at rgb.e = (4 + 36, 18 + 18) = (40, 36), offset (4.5, 0), anchor w, size 21 x 15
#           -> x = 44.5, y = 36 - 15 / 2 = 28.5
#   pca:    at proj.s = (44.5 + 21 / 2, 28.5 + 15) = (55, 43.5), offset (-6, 3.5) -> (49, 47), size 12 x 12
#   fmap:   right_of proj, gap 4.5, align center, 36 x 36 -> x = 44.5 + 21 + 4.5 = 70, y = 36 - 36 / 2 = 18
#   fvec:   right_of fmap, gap 6, align top, offset (0, 13), 27 x 4 -> x = 70 + 36 + 6 = 112, y = 18 + 13 = 31
#   keys:   below rgb, gap 16, align left, 56 x 15 -> x = 4, y = 18 + 36 + 16 = 70
#   volume: at canvas.ne = (180, 0), offset (-1, 18), anchor ne, 38 x 38 -> x = 180 - 1 - 38 = 141, y = 18
PANELS_MM = {"rgb": (4, 18, 36, 36), "pca": (49, 47, 12, 12), "fmap": (70, 18, 36, 36),
             "fvec": (112, 31, 27, 4), "keys": (4, 70, 56, 15), "volume": (141, 18, 38, 38)}
PROJ_MM = (44.5, 28.5, 21, 15)  # corner = 1.5 mm, stroke_width = 0.6 pt
# the dot circle: at pixcap.s, pixcap at fvec.s (anchor n), so its centre x is fvec's: 112 + 27 / 2 = 125.5;
# radius 3 mm. The readout rect: at volcap.s, volcap at volume.s (anchor n): centre x 141 + 38 / 2 = 160.
DOT_X_MM, DOT_R_MM = 125.5, 3.0
READOUT_X_MM, READOUT_SIZE_MM = 160 - 36 / 2, (36, 18.5)


def _root(flagship_build):
    return etree.fromstring(flagship_build["svg"].read_bytes())


def _points(d: str) -> list[np.ndarray]:
    """The points of an ``M x y L x y ...`` path (pt)."""
    return [np.array([float(x), float(y)]) for x, y in re.findall(r"[ML]\s*(-?[\d.]+) (-?[\d.]+)", d)]


def _arrow(root, i: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Arrow ``i``'s line and its head (tip first, then the two base corners), as points in pt."""
    line, head = root.find(f"svg:g[@id='arrow-{i}']", SVG_NS).findall("svg:path", SVG_NS)
    return _points(line.get("d")), _points(head.get("d"))


def _mm(x_mm: float, y_mm: float) -> np.ndarray:
    return np.array([x_mm, y_mm]) * MM


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.hypot(*v)


def test_flagship_ids_unique_and_references_resolve(flagship_build):
    ids, refs = ids_and_refs(flagship_build["svg"].read_bytes())
    assert len(ids) == len(set(ids))
    assert len(refs) > 50 and refs <= set(ids)


def test_flagship_canvas_is_the_layouts_size_in_svg_and_png(flagship_build):
    root = _root(flagship_build)
    assert (root.get("width"), root.get("height")) == ("180mm", "100mm")
    # 180 mm = 180 * 72 / 25.4 = 510.236 pt, 100 mm = 283.465 pt
    assert [float(v) for v in root.get("viewBox").split()] == pytest.approx([0, 0, 510.236, 283.465], abs=1e-3)
    png = read_png(flagship_build["png"])
    # 180 mm at 300 dpi = 180 / 25.4 * 300 = 2125.98 -> 2126 px; 100 mm -> 1181.1 -> 1181 px
    assert png.shape[:2] == (1181, 2126)


def test_flagship_panels_sit_where_the_layout_puts_them(flagship_build):
    root = _root(flagship_build)
    for name, (x_mm, y_mm, _, _) in PANELS_MM.items():
        group = root.find(f"svg:g[@id='panel-{name}']", SVG_NS)
        assert group is not None, name
        m = cumulative_transform(group)
        assert m[:2, 2] == pytest.approx(_mm(x_mm, y_mm), abs=2e-3), name
        assert m[:2, :2] == pytest.approx(np.eye(2)), name  # placed at its final size, never scaled
    # the feature map's image fills its 36 mm box: width x scale = 36 mm = 102.047 pt
    image = root.find("svg:g[@id='panel-fmap']", SVG_NS).find(f".//{SVG}image")
    scale = cumulative_transform(image)
    assert float(image.get("width")) * scale[0, 0] == pytest.approx(36 * MM, abs=2e-3)
    assert float(image.get("height")) * scale[1, 1] == pytest.approx(36 * MM, abs=2e-3)


def test_flagship_shapes_sit_where_the_layout_puts_them(flagship_build):
    root = _root(flagship_build)
    rect = root.find("svg:g[@id='shape-proj']/svg:rect", SVG_NS)
    got = [float(rect.get(k)) for k in ("x", "y", "width", "height", "rx", "stroke-width")]
    assert got == pytest.approx([*(v * MM for v in PROJ_MM), 1.5 * MM, 0.6], abs=2e-3)
    circle = root.find("svg:g[@id='shape-dot']/svg:circle", SVG_NS)
    assert float(circle.get("cx")) == pytest.approx(DOT_X_MM * MM, abs=2e-3)
    assert float(circle.get("r")) == pytest.approx(DOT_R_MM * MM, abs=2e-3)
    readout = root.find("svg:g[@id='shape-readout']/svg:rect", SVG_NS)
    got = [float(readout.get(k)) for k in ("x", "width", "height")]
    assert got == pytest.approx([READOUT_X_MM * MM, *(v * MM for v in READOUT_SIZE_MM)], abs=2e-3)


@pytest.mark.parametrize("i, start_mm, end_mm", [
    (0, (40, 36), (44.5, 36)),  # rgb.e -> proj.w
    (1, (55, 43.5), (55, 47)),  # proj.s -> pca.n (pca's north edge: x 49 + 12 / 2 = 55, y 47)
    (2, (65.5, 36), (70, 36)),  # proj.e -> fmap.w
])
def test_flagship_arrows_between_boxes_leave_the_default_gap(flagship_build, i, start_mm, end_mm):
    """The line starts 1 pt (the default gap) past its start anchor, the head's tip stops 1 pt short of
    its end anchor, and the head is 4 pt long and 3.2 pt wide (width 0.8 or 0.5 pt: the minimums)."""
    line, (tip, left, right) = _arrow(_root(flagship_build), i)
    start, end = _mm(*start_mm), _mm(*end_mm)
    u = _unit(end - start)
    assert line[0] == pytest.approx(start + 1.0 * u, abs=2e-3)
    assert tip == pytest.approx(end - 1.0 * u, abs=2e-3)
    assert (left + right) / 2 == pytest.approx(tip - 4.0 * u, abs=2e-3)
    assert np.hypot(*(left - right)) == pytest.approx(3.2, abs=2e-3)


def test_flagship_vertical_arrows_are_as_long_as_the_layout_says(flagship_build):
    """pixcap.s -> dot.n: the dot's centre is 8 mm below pixcap.s and its radius 3 mm, so dot.n is 5 mm
    below; the line starts 1 pt below and the tip stops 1 pt short: 5 mm - 2 pt = 12.173 pt. Likewise
    volcap.s -> readout.n, 4 mm apart: 4 mm - 2 pt = 9.339 pt. Both at the x of their column."""
    root = _root(flagship_build)
    for i, x_mm, length_pt in ((4, DOT_X_MM, 5 * MM - 2), (7, READOUT_X_MM + 18, 4 * MM - 2)):
        line, (tip, *_) = _arrow(root, i)
        assert line[0][0] == pytest.approx(x_mm * MM, abs=2e-3) and tip[0] == pytest.approx(x_mm * MM, abs=2e-3)
        assert tip[1] - line[0][1] == pytest.approx(length_pt, abs=2e-3)
    # keys.key_e -> dot.s, routed "-|": horizontal first, then up the dot's column into dot.s
    line, (tip, *_) = _arrow(root, 5)
    assert len(line) == 3 and line[0][1] == pytest.approx(line[1][1], abs=1e-3)
    assert line[1][0] == pytest.approx(DOT_X_MM * MM, abs=2e-3) and tip[0] == pytest.approx(DOT_X_MM * MM, abs=2e-3)
    circle = root.find("svg:g[@id='shape-dot']/svg:circle", SVG_NS)
    assert tip[1] == pytest.approx(float(circle.get("cy")) + DOT_R_MM * MM + 1.0, abs=2e-3)  # dot.s + 1 pt gap


def _fmap_pixel_pt() -> np.ndarray:
    """The chosen pixel's centre on the canvas, by hand: the feature map's image fills fmap's 36 mm box
    (extent -0.5 .. n - 0.5 on both axes, y down), so cell (u, v) is centred at ((u + 0.5) / n,
    (v + 0.5) / n) of the box. (u, v) is the data's gt_pix_grid at t = 4 (the layout's params), rounded."""
    data = np.load(REPO / "data" / "volume_kv.npz", allow_pickle=False)
    _, nv, nu = data["pixel_feats_unit"].shape
    u, v = (int(round(float(c))) for c in data["gt_pix_grid"][4])
    x_mm, y_mm, w_mm, h_mm = PANELS_MM["fmap"]
    return _mm(x_mm + (u + 0.5) / nu * w_mm, y_mm + (v + 0.5) / nv * h_mm)


def _argmax_ring_pt(root) -> np.ndarray:
    """The centre of the ring matplotlib drew around the argmax voxel in the 3D panel (its only
    Path3DCollection, a one-point scatter: the centre of its bounding box), in canvas pt."""
    group = root.find("svg:g[@id='panel-volume']", SVG_NS)
    rings = [g for g in group.iter(f"{SVG}g") if "Path3DCollection" in (g.get("id") or "")]
    assert len(rings) == 1
    path = rings[0].find(f"{SVG}path")
    assert "stroke: #22c55e" in path.get("style")  # GT_COLOR of panels/volume_kv.py
    pts = np.array([float(v) for v in re.findall(r"-?\d+\.?\d*", path.get("d"))]).reshape(-1, 2)
    assert np.ptp(pts, axis=0).max() < 10  # s = 16 pt^2: a ring 4 pt across
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    return (cumulative_transform(path) @ [centre[0], centre[1], 1])[:2]


def test_flagship_arrows_touch_the_data_points(flagship_build):
    """fmap.pixel -> fvec.w starts 2 pt (its gap) from the chosen pixel, worked out from the data, and its
    tip stops 2 pt short of fvec's west edge (112 mm, 31 + 4 / 2 = 33 mm). dot.e -> volume.argmax ends
    2.5 pt (its gap) short of the ring matplotlib drew around the argmax voxel, pointing at it."""
    root = _root(flagship_build)
    pixel, fvec_w = _fmap_pixel_pt(), _mm(112, 33)
    # matplotlib's own markers (two <use> rings, white under green) sit on the hand-computed pixel
    markers = [(cumulative_transform(m) @ [float(m.get("x")), float(m.get("y")), 1])[:2]
               for m in root.find("svg:g[@id='panel-fmap']", SVG_NS).iter(f"{SVG}use") if m.get("x") is not None]
    assert len(markers) == 2 and all(m == pytest.approx(pixel, abs=2e-3) for m in markers)
    line, (tip, *_) = _arrow(root, 3)
    u = _unit(fvec_w - pixel)
    assert line[0] == pytest.approx(pixel + 2.0 * u, abs=5e-3)
    assert tip == pytest.approx(fvec_w - 2.0 * u, abs=5e-3)

    line, (tip, *_) = _arrow(root, 6)
    ring = _argmax_ring_pt(root)
    assert tip + 2.5 * _unit(tip - line[0]) == pytest.approx(ring, abs=0.05)


def test_flagship_png_pixels_where_the_layout_draws(flagship_build):
    """Pixel probes of the 300 dpi PNG at hand-computed places: the white background in two corners, the
    proj box's fill (#eef2ff) 0.8 mm inside its top edge (above its centred four lines of text), and the
    chosen pixel's marker in (b): a ring 5 pt across (ms = 5.0) in GT green #22c55e, 0.8 pt wide, with a
    white 1.6 pt ring beneath: 2.5 pt from the centre, up, down and left, is the green."""
    png = read_png(flagship_build["png"])[:, :, :3].astype(int)

    def at(point_pt: np.ndarray) -> np.ndarray:
        x_px, y_px = point_pt / 72 * DPI
        return png[int(y_px), int(x_px)]

    assert tuple(at(_mm(0.5, 99.5))) == (255, 255, 255) and tuple(at(_mm(179.5, 0.5))) == (255, 255, 255)
    x_mm, y_mm, w_mm, _ = PROJ_MM
    assert tuple(at(_mm(x_mm + w_mm / 2, y_mm + 0.8))) == (0xEE, 0xF2, 0xFF)
    pixel = _fmap_pixel_pt()
    for d in ((0, -2.5), (0, 2.5), (-2.5, 0)):  # right of it the green arrow starts
        assert np.abs(at(pixel + d) - (0x22, 0xC5, 0x5E)).max() <= 24, d


def test_flagship_numbers_come_from_the_data(flagship_build):
    """The readout's numbers are the data's: argmax voxel and height at t=4."""
    data = np.load(REPO / "data" / "volume_kv.npz", allow_pickle=False)
    z, v, u = (int(x) for x in data["argmax_voxel"][4])
    height_cm = float(data["height_meters"][z]) * 100
    root = _root(flagship_build)
    text = "\n".join(el.get("aria-label") for el in root.iter() if el.get("aria-label"))
    assert f"({u}, {v})" in text
    assert f"{height_cm:.1f} cm" in text
    top1 = float(data["volume_softmax"][4].max()) * 100
    assert f"{top1:.1f}%" in text
    meta = json.loads(str(data["meta"]))
    assert str(meta["sample_idx"]) in text and str(meta["ckpt_epoch"]) in text
