"""The same figure in every viewer: composer's PNG, headless Chromium and pdfium agree, in both text modes.

Fixture set: ``tests/projects/fidelity`` (canvas text with bold, italic and
colour spans and mathtext; a 56 x 56 imshow heatmap; a 56 x 56 pcolormesh
with ticks; a dense 3D surface; axes with mathtext labels and rotated text;
an imported SVG with its own fonts, CSS classes and an inlined image; arrows)
and the flagship ``volume_kv``, each built with ``text = "paths"`` and
``text = "editable"``. The metric and threshold are in ``crossrender.py``;
the tests below show that clean builds pass it and broken inputs (a swapped
glyph, a smeared heatmap) do not.

Chromium tests are skipped, saying so, where no Chromium is installed;
``.ci/run`` installs it, so CI runs them.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import crossrender as cr
from conftest import FIDELITY

pytestmark = pytest.mark.e2e  # a real browser (Chromium) beside composer and pdfium: run once in CI (.ci/run)
needs_chromium = pytest.mark.skipif(cr.chromium() is None,
                                    reason="chromium is not installed (.ci/run installs it: apt-get install chromium)")
RENDERERS = ("composer", "chromium", "pdfium")


@pytest.fixture(scope="module")
def builds(fidelity_builds):
    return fidelity_builds


@pytest.fixture(scope="module")
def renders(builds):
    """name -> {renderer: (H, W, 3) image at cr.DPI}; Chromium only where installed. For this module only:
    the images and their blurred copies (`prepared`) hold 1.9 GB, which the worker kept for the rest of the run
    (and copied the page tables of at every fork), as session fixtures."""
    names = list(builds)
    out = {name: {"composer": cr.render_composer(builds[name][0]),
                  "pdfium": cr.render_pdfium(builds[name][1])} for name in names}
    if cr.chromium() is not None:
        for name, shot in zip(names, cr.render_chromium([builds[n][0] for n in names]), strict=True):
            out[name]["chromium"] = shot
    return out


@pytest.fixture(scope="module")
def prepared(renders):
    return {name: {r: cr.prepare(img) for r, img in by.items()} for name, by in renders.items()}


def _check(name, a, b, prepared, renders, tmp_path_factory) -> cr.Difference:
    d = cr.difference(prepared[name][a], prepared[name][b])
    if not d.ok():
        path = tmp_path_factory.mktemp("diff") / f"{name}-{a}-{b}.png"
        cr.save_diff(path, renders[name][a], renders[name][b], d)
        pytest.fail(f"{name}: {a} and {b} differ by {d.score:.4f} > {cr.THRESHOLD} at x={d.x_px}, y={d.y_px} px "
                    f"({cr.DPI} dpi); see {path}")
    return d


@pytest.mark.parametrize("name", ["fidelity", "fidelity_editable", "volume_kv", "volume_kv_editable"])
def test_composer_and_pdfium_agree(name, prepared, renders, tmp_path_factory):
    _check(name, "composer", "pdfium", prepared, renders, tmp_path_factory)


@needs_chromium
@pytest.mark.parametrize("name", ["fidelity", "fidelity_editable", "volume_kv", "volume_kv_editable"])
def test_chromium_agrees_with_composer_and_pdfium(name, prepared, renders, tmp_path_factory):
    _check(name, "chromium", "composer", prepared, renders, tmp_path_factory)
    _check(name, "chromium", "pdfium", prepared, renders, tmp_path_factory)


def _available(renders, name):
    return [r for r in RENDERERS if r in renders[name]]


@pytest.mark.parametrize("broken,clean", [("fidelity_glyph", "fidelity"),
                                          ("fidelity_glyph_editable", "fidelity_editable"),
                                          ("fidelity_smeared", "fidelity")])
def test_threshold_catches_broken_input(broken, clean, prepared, renders):
    """A broken build drawn by any renderer fails against the clean build drawn by any other."""
    available = _available(renders, clean)
    # the smeared heatmap is smeared by pdfium too: the PDF asks for it (/Interpolate true on every image
    # drawn smooth: composer/stages/export/pdfimages.py), as the SVG asks resvg and Chromium
    drawing = available
    scores = {(a, b): cr.difference(prepared[broken][a], prepared[clean][b]).score
              for a in drawing for b in available if a != b}
    assert len(scores) >= 2
    assert all(s > cr.THRESHOLD for s in scores.values()), \
        {k: round(v, 4) for k, v in scores.items() if v <= cr.THRESHOLD}
    # and the worst tile is where the damage is: the swapped glyph, or the heatmap
    d = cr.difference(prepared[broken]["composer"], prepared[clean]["pdfium"])
    region = _box_px(renders, clean, "text-rich") if "glyph" in broken else _box_px(renders, clean, "panel-heat")
    assert region[0] <= d.x_px + cr.TILE_PX and d.x_px <= region[2], (d, region)
    assert region[1] <= d.y_px + cr.TILE_PX and d.y_px <= region[3], (d, region)


_BOXES: dict[str, tuple[float, float, float, float]] = {}


def _box_px(renders, name, element_id):
    """Bounding box (x0, y0, x1, y1) in px at cr.DPI of a canvas element, from the composed geometry."""
    from composer.pipeline import render_panels
    from composer.stages.compose import figure_geometry
    from composer.stages.inputs import Project, read_inputs

    if not _BOXES:
        inputs = read_inputs(Project.at(FIDELITY), "fidelity")
        geometry = figure_geometry(inputs, render_panels(inputs))
        _BOXES.update({f"panel-{k}": (b.x_pt, b.y_pt, b.x_pt + b.width_pt, b.y_pt + b.height_pt)
                       for k, b in geometry.panels.items()})
        for text, box in zip(inputs.figure.texts, geometry.texts, strict=True):
            _BOXES[f"text-{text.name}"] = (box.x_pt, box.y_pt, box.x_pt + box.width_pt, box.y_pt + box.height_pt)
    scale = cr.DPI / 72.0
    return tuple(v * scale for v in _BOXES[element_id])


def _columns(row: np.ndarray) -> tuple[int, int]:
    """(number of runs of dark and light, pixels that are neither) along a row of luminance."""
    lo, hi = np.percentile(row, 5), np.percentile(row, 95)
    level = (row - lo) / (hi - lo)
    dark = level < 0.5
    runs = 1 + int(np.count_nonzero(np.diff(dark.astype(int))))
    between = int(np.count_nonzero((level > 0.2) & (level < 0.8)))
    return runs, between


@pytest.mark.parametrize("panel,inset", [("panel-heat", (0.0, 0.0, 1.0, 1.0)),
                                         ("panel-mesh", (0.14, 0.06, 0.96, 0.88))])
@pytest.mark.parametrize("name", ["fidelity", "fidelity_editable"])
def test_56_sharp_columns_in_every_renderer(name, panel, inset, renders):
    """Along a row through the heatmap: 56 columns, and at most one in-between pixel per column edge.

    ``inset`` is the heatmap's area as fractions of the panel box (x0, y0, x1, y1 from the top-left):
    the pcolormesh axes are [0.14, 0.12, 0.82, 0.82] of the figure (y up)."""
    x0, y0, x1, y1 = _box_px(renders, name, panel)
    w, h = x1 - x0, y1 - y0
    left, right = int(np.ceil(x0 + inset[0] * w)) + 1, int(np.floor(x0 + inset[2] * w)) - 1
    y = int((y0 + inset[1] * h + y0 + inset[3] * h) / 2)
    seen = {}
    for renderer, img in renders[name].items():
        row = img[y, left:right] @ np.array([0.2126, 0.7152, 0.0722])
        runs, between = _columns(row)
        seen[renderer] = (runs, between)
        assert runs == 56, (renderer, runs)
        assert between <= 55 + 4, (renderer, between)  # one per edge, a few to spare at the ends
    assert set(seen) >= {"composer", "pdfium"}


def test_smeared_heatmap_is_not_sharp(renders):
    """The column test fails on the smeared heatmap: its edges are ramps several pixels wide."""
    x0, y0, x1, y1 = _box_px(renders, "fidelity", "panel-heat")
    row = renders["fidelity_smeared"]["composer"][int((y0 + y1) / 2), int(x0) + 2:int(x1) - 2]
    runs, between = _columns(row @ np.array([0.2126, 0.7152, 0.0722]))
    assert between > 2 * 55, between


@needs_chromium
def test_chromium_leaves_no_process(builds):
    """Every browser the harness starts is gone when it returns, even when a page fails to load."""
    cr.render_chromium([builds["fidelity"][0]])
    left = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes()
            except OSError:
                continue
            if f"{cr.BROWSER_PREFIX}{os.getpid()}-".encode() in cmd:  # this process's browsers, not other runs'
                left.append((proc.name, cmd[:120]))
    assert not left, left
