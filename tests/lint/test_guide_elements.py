"""``compose check`` and guides (``[[legend]]``, ``[[colorbar]]``): a guide's box is an element a connector may end
on, and ``[check] ignore`` names a guide as ``allow_overlap`` does (its name, else its layout key)."""

from __future__ import annotations

import pytest

from composer.errors import LayoutError
from composer.pipeline import check
from conftest import layout_project

PANELS_PY = '''
import numpy as np

def lines(fig, data):
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1], label="model")
    ax.legend()

def heat(fig, data):
    ax = fig.add_subplot()
    ax.imshow(np.linspace(0, 1, 16).reshape(4, 4), vmin=0, vmax=1)
'''

#: the tester's case: a legend named key at (5, 50) mm, a colorbar named scale 115..130 x 5..45 mm
LAYOUT = '''
[panels.a]
render = "p:lines"
at = ["5mm", "5mm"]
size = ["50mm", "40mm"]

[panels.h]
render = "p:heat"
at = ["70mm", "5mm"]
size = ["40mm", "40mm"]

[[legend]]
from = ["a"]
name = "key"
at = ["5mm", "50mm"]

[[colorbar]]
for = ["h"]
name = "scale"
at = ["115mm", "5mm"]
size = ["15mm", "40mm"]

[[arrow]]
from = "a.se"
to = "key.e"

[[arrow]]
from = "h.se"
to = "scale.s"
'''


def project(tmp_path, body: str):
    root = layout_project(tmp_path, body, head='width = "140mm"\nheight = "60mm"\n')
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS_PY)
    return root


def test_a_connector_ending_on_a_legend_or_a_colorbar_is_not_dangling(tmp_path):
    """Arrows to ``key.e`` and ``scale.s`` end on the guides' edges: no dangling-connector (both were reported as
    touching no element). An arrow ending 3 mm below the colorbar's bottom edge (45 mm), clear of every element,
    still is: 3 mm = 8.5 pt, past the 0.5 pt tolerance."""
    findings = check("fig", root=project(tmp_path / "on", LAYOUT)).findings
    assert not [f for f in findings if f.rule == "dangling-connector"], findings
    off = LAYOUT + '''
[[arrow]]
from = "h.se"
to = ["122.5mm", "48mm"]
'''
    dangling = [f for f in check("fig", root=project(tmp_path / "off", off)).findings
                if f.rule == "dangling-connector"]
    assert [f.element for f in dangling] == ["arrow[2] end"]
    assert dangling[0].measured == pytest.approx(3.0, abs=0.05)  # mm, the figure's unit


@pytest.mark.parametrize("name, display, ignored", [("", "legend[0]", "legend[0]"), ('name = "key"\n', "legend key", "key")])
def test_check_ignore_names_a_guide(tmp_path, name, display, ignored):
    """A legend with 3 pt text is a font-size finding named by the legend; ``[check] ignore`` under the legend's
    name (or ``legend[0]`` without one) leaves it out and counts it in the notes, as for a panel (it was refused:
    'is not a panel')."""
    body = f'''
[panels.a]
render = "p:lines"
at = ["5mm", "5mm"]
size = ["50mm", "40mm"]

[[legend]]
{name}from = ["a"]
at = ["70mm", "5mm"]

[rcparams]
"legend.fontsize" = 3.0
'''
    root = project(tmp_path, body)
    report = check("fig", root=root)
    assert [f.element for f in report.findings if f.rule == "font-size"] == [f"{display}: 1 text ('model')"]
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text() + f'\n[check]\nignore = {{ "{ignored}" = ["font-size"] }}\n')
    report = check("fig", root=root)
    assert not [f for f in report.findings if f.rule == "font-size"]
    assert f"{display}: 1 font-size finding not reported ([check] ignore)" in report.notes


def test_check_ignore_of_an_unknown_name_lists_panels_and_guides(tmp_path):
    root = project(tmp_path, LAYOUT + '\n[check]\nignore = { kee = ["font-size"] }\n')
    with pytest.raises(LayoutError) as caught:
        check("fig", root=root)
    assert str(caught.value).endswith("check.ignore.kee: 'kee' is not a panel or guide; did you mean 'key'?; "
                                      "panels and guides are a, h, key, scale")
