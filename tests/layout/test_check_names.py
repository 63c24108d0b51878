"""``[check] ignore`` and ``allow_overlap`` are checked when the layout is loaded: a plain build refuses a
misspelt name in one line with the closest valid one (only ``compose check`` used to, so a build accepted
the typo and the finding the user meant to silence came back in the check)."""

from __future__ import annotations

import re

import pytest

from composer.cli.main import main
from composer.errors import LayoutError
from composer.kinds.rules import RULES as DECLARED
from composer.kinds.rules import Rule
from composer.layout.loader import load_layout
from composer.lint.rules import RULES
from conftest import layout_project

BODY = """
[[shape]]
name = "box"
at = ["1mm", "1mm"]
size = ["5mm", "5mm"]
[[text]]
text = "T"
at = ["20mm", "20mm"]
[panels.p]
svg = "../box.svg"
at = ["10mm", "10mm"]
size = ["10mm", "10mm"]
label = "a"
[check]
"""
BOX_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 5"><rect width="10" height="5"/></svg>'


def project(tmp_path, check: str):
    root = layout_project(tmp_path, BODY + check)
    (root / "box.svg").write_text(BOX_SVG)
    return root


def test_the_loader_and_the_check_read_one_table_of_rules(tmp_path):
    """A rule declared in composer/kinds/rules.py alone is a name ``[check] ignore`` takes at load and a
    level the check reads; removed, the loader refuses it again, listing the rules the table has."""
    root = project(tmp_path, 'ignore = { p = ["toy-rule"] }\n')
    with DECLARED.registered(Rule("toy-rule", "warning", "nothing (a test's)")):
        assert load_layout(root / "layouts" / "fig.toml").spec.check.ignore == (("p", ("toy-rule",)),)
        assert RULES["toy-rule"] == "warning" and list(RULES)[-1] == "toy-rule"
    assert "toy-rule" not in RULES
    with pytest.raises(LayoutError, match=r"check.ignore.p: 'toy-rule' is not a rule of compose check; rules are "
                                          + re.escape(", ".join(RULES)) + "$"):
        load_layout(root / "layouts" / "fig.toml")


@pytest.mark.parametrize("check, expected", [
    ('ignore = { p = ["outside-pannel"] }',
     "check.ignore.p: 'outside-pannel' is not a rule of compose check; did you mean 'outside-panel'?; rules are "
     + ", ".join(RULES)),
    ('ignore = { pp = ["overlap"] }', "check.ignore.pp: 'pp' is not a panel; did you mean 'p'?; panels are p"),
    ('allow_overlap = [["box", "p.lable"]]',
     "check.allow_overlap[0]: 'p.lable' is not an element; did you mean 'p.label'?; elements are p, text[0], box, "
     "p.label"),
], ids=["rule", "panel", "element"])
def test_a_plain_build_refuses_a_misspelt_check_name(tmp_path, capsys, check, expected):
    root = project(tmp_path, check)
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 1
    out, err = capsys.readouterr()
    assert re.fullmatch(rf"compose: error: layouts/fig\.toml:\d+:\d+: {re.escape(expected)}\n", err), err
    assert not (root / "build" / "fig.svg").exists()


def test_names_that_exist_load(tmp_path):
    root = project(tmp_path, 'ignore = { p = ["outside-panel", "overlap"] }\n'
                             'allow_overlap = [["box", "p.label"], ["text[0]", "p"]]\n')
    figure = load_layout(root / "layouts" / "fig.toml")
    assert figure.spec.check.allow_overlap == (("box", "p.label"), ("text[0]", "p"))
