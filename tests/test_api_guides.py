"""The API's ``Legend`` and ``Colorbar``: the same SVG bytes and the same errors as ``[[legend]]``/``[[colorbar]]``.

Each figure is written twice, once as a layout file built by name (``composer.build``), once with the API's
constructors; the expectation is the file's build, made without the API. An error is the file's one line
with the file's name (``layouts/fig.toml``) read as the figure built in code.
"""

from __future__ import annotations

import re
import textwrap
import tomllib

import pytest

import composer
from composer.api import Colorbar, Figure, Grid, Legend, Panel
from composer.errors import ComposerError, LayoutError
from composer.layout.schema import TABLES_BY_KIND
from conftest import drawing, layout_project

RENDERERS = '''
import numpy as np

def lines(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#1f77b4", linewidth=1.5, label="alpha")
    ax.plot([0, 1], [1, 0], color="#ff7f0e", linestyle="--", label="beta")
    ax.legend()

def bars(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0.5, 0.5], color="#1f77b4", linewidth=1.5, label="alpha")
    ax.bar([0, 1], [1, 2], color="#2ca02c", label="gamma")
    ax.legend(loc="upper left")

def heat(fig, data, vmax=1.0):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.imshow(np.linspace(0, vmax, 12).reshape(3, 4), cmap="viridis", vmin=0.0, vmax=vmax)
'''

HEAD = 'width = "140mm"\nheight = "60mm"\nfont_size = "7pt"\n'

LEGEND_TOML = '''
[panels.a]
render = "p:lines"
at = ["0mm", "0mm"]
size = ["40mm", "30mm"]

[panels.b]
render = "p:bars"
at = ["45mm", "0mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["a", "b"]
at = ["90mm", "5mm"]
anchor = "nw"
ncols = 2
title = "runs"
frame = true
'''

COLORBAR_TOML = '''
[grid]
mosaic = "AK\\nBK"
columns = ["80mm", "20mm"]

[panels.a]
render = "p:heat"
cell = "A"

[panels.b]
render = "p:heat"
cell = "B"

[[colorbar]]
for = ["a", "b"]
cell = "K"
label = "$z$ (a.u.)"
ticks = [0, 0.5, 1]
'''


def project(tmp_path, body: str):
    root = layout_project(tmp_path, body, head=HEAD)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(RENDERERS)
    return root


def file_svg(root) -> bytes:
    return composer.build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes()


def file_error(root) -> str:
    """The one line a build of layouts/fig.toml fails with, its file part as a figure in code names it."""
    with pytest.raises(ComposerError) as caught:
        file_svg(root)
    message = str(caught.value)
    assert "\n" not in message and re.match(r"layouts/fig\.toml:\d+:\d+: ", message)
    return re.sub(r"^layouts/fig\.toml:\d+:\d+", "figure 'fig' (built in code)", message)


def figure(root) -> Figure:
    return Figure(width="140mm", height="60mm", font_size="7pt", name="fig", root=root)


def legend_figure(root, legend: Legend) -> Figure:
    return figure(root).add(Panel("a", "p:lines", at=["0mm", "0mm"], size=["40mm", "30mm"]),
                            Panel("b", "p:bars", at=["45mm", "0mm"], size=["40mm", "30mm"]),
                            legend)


def colorbar_figure(root, colorbar: Colorbar, b_params: dict[str, float] | None = None) -> Figure:
    return figure(root).add(Grid("AK\nBK", columns=["80mm", "20mm"]),
                            Panel("a", "p:heat", cell="A"),
                            Panel("b", "p:heat", cell="B", params=b_params),
                            colorbar)


def test_a_legend_in_code_gives_the_layout_files_bytes(tmp_path):
    root = project(tmp_path, LEGEND_TOML)
    expected = file_svg(root)
    assert b'id="legend-0"' in expected  # the file's build drew the collected legend
    fig = legend_figure(root, Legend("a", "b", at=("90mm", "5mm"), anchor="nw", ncols=2, title="runs", frame=True))
    assert fig.document["legend"] == tomllib.loads(textwrap.dedent(LEGEND_TOML))["legend"]
    assert drawing(fig.svg()) == drawing(expected)  # the same drawing; only the file's record names the layout


def test_a_colorbar_in_code_gives_the_layout_files_bytes(tmp_path):
    root = project(tmp_path, COLORBAR_TOML)
    expected = file_svg(root)
    assert b'id="colorbar-0"' in expected
    fig = colorbar_figure(root, Colorbar("a", "b", cell="K", label="$z$ (a.u.)", ticks=(0, 0.5, 1)))
    assert fig.document["colorbar"] == tomllib.loads(textwrap.dedent(COLORBAR_TOML))["colorbar"]
    assert drawing(fig.svg()) == drawing(expected)


def test_the_panel_list_may_be_given_as_the_keyword_with_an_underscore(tmp_path):
    assert Legend(from_=["a", "b"], at=["1mm", "1mm"]).table == Legend("a", "b", at=["1mm", "1mm"]).table
    assert Colorbar(for_=("a",), cell="K").table == {"for": ["a"], "cell": "K"}
    with pytest.raises(TypeError, match=r"Legend: the panels are given twice, as positional names and as from_="):
        Legend("a", from_=["b"])
    with pytest.raises(TypeError, match=r"Colorbar: the panels are given twice"):
        Colorbar("a", for_=["b"], cell="K")


@pytest.mark.parametrize(("toml_change", "legend"), [
    (('from = ["a", "b"]', 'from = ["a", "a"]'), Legend("a", "a", at=["90mm", "5mm"])),       # listed twice
    (('from = ["a", "b"]', 'from = ["a", "bb"]'), Legend("a", "bb", at=["90mm", "5mm"])),     # no such panel
    (('from = ["a", "b"]\n', ''), Legend(at=["90mm", "5mm"])),                                # no panels
    (('at = ["90mm", "5mm"]', 'at = ["90mm", "5mm"]\ncell = "A"'),                            # two placements
     Legend("a", "b", at=["90mm", "5mm"], cell="A")),
    (('ncols = 2', 'ncols = 0'), Legend("a", "b", at=["90mm", "5mm"], ncols=0)),                 # not a count
])
def test_a_bad_legend_fails_with_the_layout_files_line(tmp_path, toml_change, legend):
    old, new = toml_change
    body = LEGEND_TOML.replace('anchor = "nw"\n', "").replace('title = "runs"\nframe = true\n', "")
    assert old in body
    root = project(tmp_path, body.replace(old, new))
    expected = file_error(root)
    with pytest.raises(LayoutError) as caught:
        legend_figure(root, legend).svg()
    assert str(caught.value) == expected


@pytest.mark.parametrize(("toml_change", "colorbar", "b_params"), [
    (('cell = "K"', 'cell = "K"\nsize = ["10mm", "40mm"]'),
     Colorbar("a", "b", cell="K", size=["10mm", "40mm"]), None),                          # a cell and a size
    (('for = ["a", "b"]', 'for = ["a", "bb"]'), Colorbar("a", "bb", cell="K"), None),
    (('cell = "K"', 'cell = "K"\norientation = "diagonal"'),
     Colorbar("a", "b", cell="K", orientation="diagonal"), None),
    (('render = "p:heat"\ncell = "B"', 'render = "p:heat"\ncell = "B"\nparams = { vmax = 2.0 }'),
     Colorbar("a", "b", cell="K"), {"vmax": 2.0}),                                        # different limits
])
def test_a_bad_colorbar_fails_with_the_layout_files_line(tmp_path, toml_change, colorbar, b_params):
    old, new = toml_change
    body = COLORBAR_TOML.replace('label = "$z$ (a.u.)"\nticks = [0, 0.5, 1]\n', "")
    assert old in body
    root = project(tmp_path, body.replace(old, new))
    expected = file_error(root)
    with pytest.raises(LayoutError) as caught:
        colorbar_figure(root, colorbar, b_params).svg()
    assert str(caught.value) == expected


def test_legend_and_colorbar_take_every_key_of_their_table_and_no_other():
    for cls, kind, listed in ((Legend, "legend", "from"), (Colorbar, "colorbar", "for")):
        keys = TABLES_BY_KIND[kind].key_names() - {listed}
        element = cls("p", "q", **dict.fromkeys(keys, "x"))
        assert set(element.table) == keys | {listed} and element.table[listed] == ["p", "q"]
        with pytest.raises(TypeError, match=rf"{cls.__name__}: unknown key 'colour'; valid keys are .*anchor"):
            cls("p", colour="red")


def test_figure_add_appends_legends_and_colorbars_in_order(tmp_path):
    fig = figure(tmp_path).add(Legend("a", at=["1mm", "1mm"]), Colorbar("b", cell="K"),
                               Legend("b", at=["2mm", "2mm"], name="second"))
    assert fig.document["legend"] == [{"from": ["a"], "at": ["1mm", "1mm"]},
                                      {"from": ["b"], "at": ["2mm", "2mm"], "name": "second"}]
    assert fig.document["colorbar"] == [{"for": ["b"], "cell": "K"}]
