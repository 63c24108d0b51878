"""The flagship figure, built from the repo's own layout, panels and data."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from lxml import etree

from conftest import REPO, SVG_NS, ids_and_refs, read_png

MM = 72 / 25.4


def test_flagship_ids_unique_and_references_resolve(flagship_build):
    ids, refs = ids_and_refs(flagship_build["svg"].read_bytes())
    assert len(ids) == len(set(ids))
    assert len(refs) > 50 and refs <= set(ids)


def test_flagship_has_every_panel_and_canvas_size(flagship_build):
    root = etree.fromstring(flagship_build["svg"].read_bytes())
    panels = {g.get("id") for g in root.findall("svg:g", SVG_NS) if (g.get("id") or "").startswith("panel-")}
    assert {"panel-rgb", "panel-pca", "panel-fmap", "panel-fvec", "panel-keys", "panel-volume"} <= panels
    assert root.get("width").endswith("mm")
    width_mm = float(root.get("width")[:-2])
    png = read_png(flagship_build["png"])
    assert png.shape[1] == round(width_mm / 25.4 * 300)


def test_flagship_numbers_come_from_the_data(flagship_build):
    """The readout's numbers are the data's: argmax voxel and height at t=4."""
    data = np.load(REPO / "data" / "volume_kv.npz", allow_pickle=False)
    z, v, u = (int(x) for x in data["argmax_voxel"][4])
    height_cm = float(data["height_meters"][z]) * 100
    root = etree.fromstring(flagship_build["svg"].read_bytes())
    text = "\n".join(el.get("aria-label") for el in root.iter() if el.get("aria-label"))
    assert f"({u}, {v})" in text
    assert f"{height_cm:.1f} cm" in text
    top1 = float(data["volume_softmax"][4].max()) * 100
    assert f"{top1:.1f}%" in text
    meta = json.loads(str(data["meta"]))
    assert str(meta["sample_idx"]) in text and str(meta["ckpt_epoch"]) in text


def test_flagship_arrows_land_on_data_points(flagship_build):
    """Arrows that start or end at a data anchor (the chosen pixel, the argmax voxel) touch
    that data point: the head's tip, or the line's start, sits one gap away from it."""
    from composer.pipeline import render_panels
    from composer.stages.compose import figure_geometry
    from composer.stages.inputs import Project, read_inputs

    inputs = read_inputs(Project.at(REPO), "volume_kv")
    rendered = render_panels(inputs)
    geometry = figure_geometry(inputs, rendered)
    root = etree.fromstring(flagship_build["svg"].read_bytes())
    checked = 0
    for i, arrow in enumerate(inputs.figure.arrows):
        group = root.find(f"svg:g[@id='arrow-{i}']", SVG_NS)
        paths = group.findall("svg:path", SVG_NS)
        line = [tuple(float(v) for v in p.split()) for p in paths[0].get("d")[1:].split(" L")]
        for end, pos in (("start", arrow.start), ("end", arrow.end)):
            if pos.ref is None or (pos.ref[0], pos.ref[1]) not in geometry.data_anchors:
                continue
            x, y = geometry.data_anchors[pos.ref]
            if end == "end" and arrow.head in ("end", "both"):
                tip = [float(v) for v in re.match(r"M(\S+) (\S+)", paths[-1].get("d")).groups()]
            else:
                tip = line[0] if end == "start" else line[-1]
            assert np.hypot(tip[0] - x, tip[1] - y) == pytest.approx(arrow.gap_pt, abs=0.01), (i, pos.ref)
            checked += 1
    assert checked >= 2, "the flagship's arrows into the feature map and the volume use data anchors"


@pytest.mark.parametrize("panel, anchor", [("fmap", "pixel"), ("volume", "argmax")])
def test_data_anchor_is_within_a_tenth_of_a_point_of_the_drawn_marker(flagship_build, panel, anchor):
    """The anchor composer computed (2D, and 3D through the axes' projection) coincides with
    the marker matplotlib drew at the same data point."""
    from composer.pipeline import render_panels
    from composer.stages.compose import figure_geometry
    from composer.stages.inputs import Project, read_inputs
    from conftest import cumulative_transform

    inputs = read_inputs(Project.at(REPO), "volume_kv")
    geometry = figure_geometry(inputs, render_panels(inputs))
    x, y = geometry.data_anchors[(panel, anchor)]
    root = etree.fromstring(flagship_build["svg"].read_bytes())
    group = root.find(f"svg:g[@id='panel-{panel}']", SVG_NS)
    # markers: <use x y> of a marker path, or (single 3D scatter points) a small closed path
    markers = [cumulative_transform(u) @ [float(u.get("x")), float(u.get("y")), 1]
               for u in group.iter("{http://www.w3.org/2000/svg}use") if u.get("x") is not None]
    for path in group.iter("{http://www.w3.org/2000/svg}path"):
        if "Collection" in (path.getparent().get("id") or ""):
            pts = np.array([float(v) for v in re.findall(r"-?\d+\.?\d*", path.get("d"))]).reshape(-1, 2)
            if np.ptp(pts[:, 0]) < 10:
                centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
                markers.append(cumulative_transform(path) @ [centre[0], centre[1], 1])
    assert markers
    assert min(np.hypot(m[0] - x, m[1] - y) for m in markers) < 0.1
