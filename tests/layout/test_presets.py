"""Journal presets: named widths, limits for compose check, panel-label styles."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from lxml import etree

from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.layout.presets import PRESETS, LabelStyle, named_width
from composer.units import to_pt

MM = 72 / 25.4
DEMO = Path(__file__).resolve().parents[1] / "projects" / "demo"

LAYOUT = """
[figure]
width = "{width}"
height = "50mm"
{extra}

[panels.p]
svg = "logo.svg"
at = ["2mm", "8mm"]
size = ["20mm", "10mm"]
label = "{label}"
"""


def _load(tmp_path: Path, width: str = "80mm", extra: str = "", label: str = "b", tail: str = ""):
    shutil.copy(DEMO / "assets" / "logo.svg", tmp_path / "logo.svg")
    path = tmp_path / "fig.toml"
    path.write_text(LAYOUT.format(width=width, extra=extra, label=label) + tail)
    return load_layout(path, display="fig.toml")


@pytest.mark.parametrize("name, mm", [("nature.single", 89), ("nature.double", 183), ("cell.onehalf", 114),
                                      ("pnas.double", 178), ("ieee.single", 88.9), ("ieee.double", 7.16 * 25.4),
                                      ("neurips.text", 5.5 * 25.4), ("icml.single", 3.25 * 25.4),
                                      ("science.triple", 183)])
def test_named_width_gives_the_journal_width(tmp_path, name, mm):
    figure = _load(tmp_path, width=name)
    assert figure.spec.width_pt == pytest.approx(mm * MM, abs=1e-6)
    assert to_pt(figure.spec.width_text) == pytest.approx(figure.spec.width_pt)


def test_named_width_reaches_the_svg_and_png(tmp_path):
    from composer.pipeline import build

    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('width = "120mm"', 'width = "nature.double"'))
    outputs = build("demo", root=root, formats=("svg", "png"), dpi=100).outputs
    svg = etree.fromstring(outputs["svg"].read_bytes())
    assert svg.get("width") == "183mm"
    from PIL import Image

    with Image.open(outputs["png"]) as img:
        assert img.size[0] == round(183 / 25.4 * 100)


@pytest.mark.parametrize("value, message", [
    ("natur.single", "unknown journal 'natur'; journals are 'nature', 'science'"),
    ("nature.triple", "valid widths are nature.single (89mm), nature.double (183mm)"),
])
def test_unknown_named_width_lists_the_choices(tmp_path, value, message):
    with pytest.raises(LayoutError) as info:
        _load(tmp_path, width=value)
    assert re.match(r"fig\.toml:\d+:\d+: figure\.width: ", str(info.value)) and message in str(info.value)


@pytest.mark.parametrize("preset, label, weight", [("nature", "b", "bold"), ("science", "B", "bold"),
                                                   ("cell", "B", "bold"), ("ieee", "(b)", "normal")])
def test_preset_sets_the_panel_label_style(tmp_path, preset, label, weight):
    figure = _load(tmp_path, extra=f'preset = "{preset}"', label="(B)" if preset == "nature" else "b")
    assert figure.panels[0].label == label
    assert figure.spec.label.weight == weight


def test_layout_keys_win_over_the_preset(tmp_path):
    figure = _load(tmp_path, extra='preset = "nature"\nlabel_weight = "normal"',
                   tail='\n[check]\nmin_font_size = "6pt"\nmin_ppi = 450\n')
    assert figure.spec.label.weight == "normal"
    limits = figure.spec.check
    assert (limits.min_font_pt, limits.min_ppi, limits.max_height_pt) == (6.0, 450.0, pytest.approx(170 * MM))
    assert limits.source == "nature preset + [check]"


def test_preset_sets_check_limits(tmp_path):
    assert _load(tmp_path).spec.check.min_font_pt == 5.0
    cell = _load(tmp_path, extra='preset = "cell"').spec.check
    assert (cell.min_font_pt, cell.min_ppi, cell.source) == (6.0, 300.0, "cell preset")
    science = _load(tmp_path, extra='preset = "science"').spec.check
    assert (science.min_font_pt, science.min_ppi) == (5.0, 400.0)  # no font minimum stated: composer's default
    ieee = _load(tmp_path, extra='preset = "ieee"').spec
    assert ieee.check.min_font_pt == 8.0
    assert ieee.font_size_pt == 8.0  # the default text size rises to the journal's minimum (7 pt otherwise)
    assert _load(tmp_path, extra='preset = "nature"').spec.font_size_pt == 7.0


def test_unknown_preset_lists_the_presets(tmp_path):
    with pytest.raises(LayoutError, match=r"fig.toml:\d+:\d+: figure.preset: 'natre' is not a known preset; presets are "
                                          r"'nature', 'science', 'cell', 'pnas', 'ieee', 'neurips', 'icml'"):
        _load(tmp_path, extra='preset = "natre"')


def test_check_table_rejects_unknown_keys(tmp_path):
    with pytest.raises(LayoutError, match=r"check.min_fontsize: unknown key 'min_fontsize'; did you mean 'min_font_size'\?; valid keys are "
                                          r"min_font_size, min_line_width"):
        _load(tmp_path, tail='\n[check]\nmin_fontsize = "6pt"\n')


def test_every_preset_is_complete_and_cites_its_source():
    for preset in PRESETS.values():
        assert preset.widths and preset.source
        for width in preset.widths.values():
            assert 50 < to_pt(width) / MM < 200
            assert named_width(f"{preset.name}.{next(iter(preset.widths))}")
    assert LabelStyle("upper", "bold").format("(a)") == "A"
    assert LabelStyle("lower", "normal", parens=True).format("A") == "(a)"


def test_another_journals_width_is_refused_with_a_preset(tmp_path):
    with pytest.raises(LayoutError, match=r"figure.width: 'science.double' is a Science width, but preset = "
                                          r"'nature'; use a Nature width \(nature.single, nature.double\)"):
        _load(tmp_path, width="science.double", extra='preset = "nature"')
    assert _load(tmp_path, width="science.double").spec.width_pt == pytest.approx(120 * MM)  # no preset: fine
