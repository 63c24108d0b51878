"""Ids of imported files renumbered in document order: equal drawings give equal bytes (issue #14, item 6).

matplotlib names clip paths, markers and hatches by an md5 of their content salted with
``svg.hashsalt``; unset (its default), the salt is a fresh uuid4 in every process, so a script saving
the same figure twice writes two files that differ only in those ids.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from lxml import etree
from PIL import Image

from composer.pipeline import build
from composer.stages.fragment import import_fragment
from composer.svg.io import parse_svg
from conftest import drawing, layout_project

SAVE = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(2, 1.5))
ax.plot([1, 2, 3], [1, 3, 1], "o-", color="#d62728")
ax.set_xlim(1.2, 3.0)
ax.bar([1, 2], [1, 2], hatch="//", fill=False)
fig.savefig(sys.argv[1], format="svg")
"""


def saved_twice(tmp_path):
    paths = []
    for i in (1, 2):
        path = tmp_path / f"plot{i}.svg"
        subprocess.run([sys.executable, "-c", SAVE, str(path)], check=True, capture_output=True)
        paths.append(path)
    return paths


def compose_both(tmp_path, paths):
    outputs = []
    for i, path in enumerate(paths):
        root = layout_project(tmp_path / f"p{i}", '''
[panels.plot]
svg = "../assets/plot.svg"
at = ["0pt", "0pt"]
size = ["144pt", "108pt"]
''', head='width = "144pt"\nheight = "108pt"\n')
        (root / "assets").mkdir()
        (root / "assets" / "plot.svg").write_bytes(path.read_bytes())
        build("fig", root=root, formats=("svg", "png"), dpi=72, cache=False)
        outputs.append(((root / "build" / "fig.svg").read_bytes(), root / "build" / "fig.png"))
    return outputs


@pytest.mark.e2e
def test_two_saves_of_one_matplotlib_figure_compose_to_the_same_bytes(tmp_path):
    first, second = saved_twice(tmp_path)
    clip = re.compile(rb'<clipPath id="(p[0-9a-f]{10})"')
    assert clip.findall(first.read_bytes()) != clip.findall(second.read_bytes())  # the inputs differ (random salt)
    (svg1, png1), (svg2, png2) = compose_both(tmp_path, [first, second])
    assert drawing(svg1) == drawing(svg2)  # the provenance records name the two files' own sha256
    # and the renamed references still resolve: the line is clipped at the axes. Its left spine is at
    # 0.125 x 144 = 18 pt (matplotlib's subplotpars.left); the point x = 1 lies 0.2 / 1.8 of the axes'
    # 111.6 pt left of it, at 5.6 pt, and is drawn only if the clip path is lost
    with Image.open(png1) as img:
        px = np.asarray(img.convert("RGB")).astype(int)
    red = (px[..., 0] > 180) & (px[..., 1] < 90) & (px[..., 2] < 90)
    assert red.any()
    assert not red[:, :17].any()


def test_ids_follow_document_order_and_references_follow_them():
    src = b"""<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">
    <style>#zz { fill: red } .k { clip-path: url(#q9f) }</style>
    <defs><clipPath id="q9f"><rect width="5" height="5"/></clipPath>
    <path id="DejaVuSans-30" d="M0 0 L1 1"/></defs>
    <g id="zz" clip-path="url(#q9f)"><use xlink:href="#DejaVuSans-30"/><use href="#zz2"/></g>
    <rect id="zz2" width="1" height="1"/></svg>"""
    group = import_fragment(parse_svg(src, source="t.svg"), name="p", group_id="panel-p", source="t.svg",
                            renumber=True)
    ids = [el.get("id") for el in group.iter() if isinstance(el.tag, str) and el.get("id")]
    # document order: q9f, (the glyph keeps its name: font and glyph index), zz, zz2
    assert ids == ["panel-p", "p--1", "p--DejaVuSans-30", "p--2", "p--3"]
    xml = etree.tostring(group).decode()
    assert 'clip-path="url(#p--1)"' in xml and 'xlink:href="#p--DejaVuSans-30"' in xml and 'href="#p--3"' in xml
    css = group.find("{http://www.w3.org/2000/svg}style").text
    assert "#panel-p #p--2" in css and "url(#p--1)" in css and "zz" not in css
