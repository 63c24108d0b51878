"""Layout errors give the line and column of their key in the TOML file: ``layouts/x.toml:12:5: key: ...``.

tomllib gives no positions; :mod:`composer.layout.positions` scans the text. The expected positions are
counted by hand from the TOML written here (line numbers beside the lines)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from composer.cli.main import main
from composer.errors import LayoutError
from composer.layout.loader import load_layout
from composer.layout.positions import key_positions, position
from conftest import DEMO

TRICKY = '''\
title = "a # not a comment [x] = y"
"quoted.key" = 1
'lit' = 2
a.b.c = 3
[tbl]
s = """
[not.a.table]
x = 1
"""
k = { x = 1, y = { z = [1, { w = 2 }] } }
arr = [
  "one", # a comment, then a newline
  [10, 20],
  { q = "}" },
]
[[aot]]
n = 1
[[aot]]
n = 2
[[aot.sub]]
m = 3
[aot.more]
v = 4
['odd "key"']
z = 'it is "so"'
w = \'\'\'a
"b" = c\'\'\'
after = 1979-05-27 07:32:00Z
last = 1
'''


@pytest.mark.parametrize("key, where", [
    ("title", (1, 1)),
    ("quoted.key", (2, 1)),        # a quoted key is one component, dots and all
    ("lit", (3, 1)),
    ("a", (4, 1)), ("a.b", (4, 3)), ("a.b.c", (4, 5)),  # dotted keys
    ("tbl", (5, 2)),
    ("tbl.s", (6, 1)),
    ("tbl.k", (10, 1)),            # after a multi-line string that looks like TOML inside
    ("tbl.k.x", (10, 7)), ("tbl.k.y", (10, 14)), ("tbl.k.y.z", (10, 20)),  # inline tables in inline tables
    ("tbl.k.y.z[0]", (10, 25)), ("tbl.k.y.z[1]", (10, 28)), ("tbl.k.y.z[1].w", (10, 30)),
    ("tbl.arr[0]", (12, 3)), ("tbl.arr[1]", (13, 3)), ("tbl.arr[1][1]", (13, 8)),  # an array over lines
    ("tbl.arr[2]", (14, 3)), ("tbl.arr[2].q", (14, 5)),
    ("aot[0]", (16, 3)), ("aot[0].n", (17, 1)),  # arrays of tables, counted as TOML counts them
    ("aot[1]", (18, 3)), ("aot[1].n", (19, 1)),
    ("aot[1].sub[0]", (20, 7)), ("aot[1].sub[0].m", (21, 1)),  # [[aot.sub]] under the last [[aot]]
    ("aot[1].more", (22, 6)), ("aot[1].more.v", (23, 1)),
    ('odd "key"', (24, 2)),
    ('odd "key".z', (25, 1)), ('odd "key".w', (26, 1)),
    ('odd "key".after', (28, 1)), ('odd "key".last', (29, 1)),  # after a literal multi-line string
])
def test_tricky_toml_maps_each_key_to_where_it_is_written(key, where):
    tomllib.loads(TRICKY)  # valid TOML, as the scanner expects
    assert key_positions(TRICKY)[key] == where


def test_a_key_not_written_falls_back_to_the_nearest_enclosing_one():
    found = key_positions(TRICKY)
    assert position(found, "aot[1].n.deeper[3]") == (19, 1)
    assert position(found, "nowhere.at.all") is None


def _project(tmp_path: Path, layout: str) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    (root / "layouts" / "demo.toml").write_text(layout, encoding="utf-8")
    return root


HEAD = '''\
[figure]
width = "120mm"
height = "70mm"

[panels.a]
render = "demo:line"
at = ["5mm", "8mm"]
size = ["50mm", "45mm"]
'''  # 8 lines


def test_an_unknown_key_names_its_line_and_column(tmp_path, capsys):
    root = _project(tmp_path, HEAD + '''\
label = "a"
  widht = "3mm"
''')  # widht: line 10, column 3
    assert main(["demo", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("compose: error: layouts/demo.toml:10:3: panels.a.widht: unknown key 'widht'; "), err
    assert err.count("\n") == 1


def test_a_bad_value_in_an_array_of_tables_names_its_table(tmp_path, capsys):
    root = _project(tmp_path, HEAD + '''\

[[text]]
text = "first"
at = ["1mm", "1mm"]

[[text]]
text = "second"
at = ["1mm", "2parsec"]
''')  # the second [[text]] is text[1]; its at[1] is line 16, column 14
    with pytest.raises(LayoutError) as raised:
        load_layout(root / "layouts" / "demo.toml", display="layouts/demo.toml")
    assert (raised.value.line, raised.value.column) == (16, 14)
    assert str(raised.value).startswith("layouts/demo.toml:16:14: text[1].at[1]: '2parsec' has unknown unit")


def test_a_bad_value_in_an_inline_table_names_its_key(tmp_path, capsys):
    root = _project(tmp_path, '''\
[figure]
width = "120mm"
height = "70mm"

[panels]
a = { render = "demo:line", at = ["5mm", "8mm"], size = ["50mm", "45parsec"] }
''')  # panels.a.size[1]: line 6; the element's quote is column 66
    assert main(["demo", "--root", str(root), "--format", "svg"]) == 1
    assert capsys.readouterr().err == ("compose: error: layouts/demo.toml:6:66: panels.a.size[1]: '45parsec' has "
                                       "unknown unit 'parsec'; valid units are pt, in, mm, cm, px\n")


def test_a_parameter_in_an_inline_table_names_its_line_and_column(tmp_path, capsys):
    root = _project(tmp_path, HEAD + '''\
params = { n = 8, m = 3 }
''')  # params.m: line 9, column 19; it is found after loading, when the renderer's signature is read
    assert main(["demo", "--root", str(root), "--format", "svg"]) == 1
    assert capsys.readouterr().err == ("compose: error: layouts/demo.toml:9:19: panels.a.params.m: panel 'a': "
                                       "demo:line takes no parameter 'm'; it takes n\n")
    assert main(["check", "demo", "--root", str(root)]) == 1  # compose check says the same
    assert "layouts/demo.toml:9:19: panels.a.params.m:" in capsys.readouterr().err


def test_a_python_layouts_error_has_no_line(tmp_path, capsys):
    root = _project(tmp_path, HEAD)
    (root / "layouts" / "demo.toml").unlink()
    (root / "layouts" / "demo.py").write_text("def layout():\n    return {'figure': {'width': '1parsec'}}\n")
    assert main(["demo", "--root", str(root), "--format", "svg"]) == 1
    assert capsys.readouterr().err.startswith("compose: error: layouts/demo.py: figure.width: ")


STYLE = '''\
[colors]
ink = "#102030"

[styles.note]
size = "6pt"
style = "italik"

[rcparams]
"axes.linewidht" = 0.6
'''  # styles.note.style: line 6, column 1; rcparams."axes.linewidht": line 9, column 1


def _styled(tmp_path: Path, style: str, extra: str = "") -> Path:
    root = _project(tmp_path, HEAD.replace('height = "70mm"\n', 'height = "70mm"\nstyle = "../styles/paper.toml"\n')
                    + extra)
    (root / "styles").mkdir()
    (root / "styles" / "paper.toml").write_text(style, encoding="utf-8")
    return root


def test_a_bad_value_of_a_shared_style_files_class_names_that_file_and_its_line(tmp_path, capsys):
    """The value is written in the style file, not in the layout: the layout's file has no such key."""
    root = _styled(tmp_path, STYLE.replace("linewidht", "linewidth"))  # rcParams are read first
    assert main(["demo", "--root", str(root), "--format", "svg"]) == 1
    assert capsys.readouterr().err == ("compose: error: layouts/../styles/paper.toml:6:1: styles.note.style: "
                                       "'italik' is not a valid value; did you mean 'italic'?; supported values are "
                                       "'normal', 'italic'\n")


def test_an_unknown_rcparam_of_a_shared_style_file_names_that_file_and_its_line(tmp_path, capsys):
    root = _styled(tmp_path, STYLE.replace('"italik"', '"italic"'))
    assert main(["check", "demo", "--root", str(root)]) == 1
    assert capsys.readouterr().err.startswith("compose: error: layouts/../styles/paper.toml:9:1: "
                                              "rcparams.axes.linewidht: unknown rcParam 'axes.linewidht'; ")


def test_a_layouts_own_value_over_a_style_files_is_the_layouts_error(tmp_path, capsys):
    root = _styled(tmp_path, STYLE.replace('"italik"', '"italic"').replace("linewidht", "linewidth"),
                   '\n[styles.note]\nweight = "heavy"\n')  # HEAD and its style line: 9 lines; weight: line 12
    with pytest.raises(LayoutError) as raised:
        load_layout(root / "layouts" / "demo.toml", display="layouts/demo.toml")
    assert str(raised.value).startswith("layouts/demo.toml:12:1: styles.note.weight: 'heavy' is not a valid value")
