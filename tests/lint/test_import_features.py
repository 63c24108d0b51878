"""``compose check`` reports, once per panel, file and feature, what composer draws differently from a browser
(issue #23, item 5): the import records it (:class:`composer.errors.ImportFeature`), the check reads the
records, never the warnings' words.

The file is written here: a square whose fill a SMIL ``<animate>`` turns from grey to red, which a browser
plays and composer draws as it stands (grey), and a rect moved by a 3-D CSS transform SVG cannot express.
"""

from __future__ import annotations

import warnings

import pytest

from composer.errors import ImportFeature
from composer.pipeline import check
from conftest import layout_project

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40" viewBox="0 0 40 40">'
       '<rect width="20" height="20" fill="#888888"><animate attributeName="fill" to="red" dur="1s"/>'
       '<set attributeName="x" to="5"/></rect>'
       '<rect x="20" y="20" width="10" height="10" style="transform: rotateY(30deg)"/></svg>')


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = layout_project(tmp_path_factory.mktemp("features"), '''
[panels.a]
svg = "../assets/anim.svg"
at = ["0mm", "0mm"]
size = ["20mm", "20mm"]

[panels.b]
svg = "../assets/anim.svg"
at = ["20mm", "0mm"]
size = ["20mm", "20mm"]
''', head='width = "40mm"\nheight = "20mm"\n')
    (root / "assets").mkdir()
    (root / "assets" / "anim.svg").write_text(SVG, encoding="utf-8")
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        found = check("fig", root=root, jobs=1)
    return found, [w.message for w in log]


def test_each_feature_is_one_finding_per_panel_naming_the_file(report):
    found, _ = report
    features = [(f.element, f.problem) for f in found.findings if f.rule == "import-feature"]
    assert len(features) == 4, features  # 2 features x 2 panels
    for panel in ("a", "b"):
        mine = [problem for element, problem in features if element == f"panel {panel}: ../assets/anim.svg"]
        assert any("SMIL animation" in p and "2 animation elements left out" in p for p in mine), mine
        assert any("a CSS transform SVG cannot express" in p for p in mine), mine
    assert found.ok  # warnings, not errors


def test_the_records_are_warnings_of_the_panel_they_belong_to(report):
    _, messages = report
    records = [m for m in messages if isinstance(m, ImportFeature)]
    assert {(m.panel, m.feature) for m in records} >= {("a", "SMIL animation"), ("b", "SMIL animation"),
                                                       ("a", "a CSS transform SVG cannot express")}
