"""README "Panel functions": a module's ``values(data)`` runs only when the figure's texts use a field
that the data file and ``[figure] params`` do not give; otherwise it is not called, and its failure
cannot stop the build. Each call of ``values()`` appends a line to a file (it runs in a forked worker,
so the file is how the test counts calls)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from composer.cli.main import main
from composer.pipeline import build
from conftest import layout_project

PANELS = '''
from pathlib import Path

CALLS = Path(__file__).parent.parent / "values_calls.txt"


def line(fig, data, k=1.0):
    fig.add_axes([0, 0, 1, 1]).plot([0, 1], [0, k])


def values(data, k=1.0):
    with CALLS.open("a") as calls:
        calls.write("called\\n")
    raise RuntimeError("values() is broken")
'''

PANEL = """
[panels.a]
render = "v:line"
at = ["1mm", "1mm"]
size = ["10mm", "10mm"]
"""


def project(tmp_path: Path, body: str, head: str = "") -> Path:
    root = layout_project(tmp_path, PANEL + body, head='width = "40mm"\nheight = "20mm"\n' + head)
    (root / "panels").mkdir()
    (root / "panels" / "v.py").write_text(PANELS)
    (root / "data").mkdir()
    (root / "data" / "d.json").write_text('{"n": 21}')
    return root


def calls(root: Path) -> int:
    path = root / "values_calls.txt"
    return path.read_text().count("called") if path.exists() else 0


def labels(root: Path) -> list[str]:
    svg = etree.fromstring(build("fig", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes())
    return [el.get("aria-label") for el in svg.iter() if el.get("aria-label")]


def test_a_figure_without_fields_builds_and_values_does_not_run(tmp_path):
    root = project(tmp_path, """
    [[text]]
    text = "no fields here, {{just braces}}"
    at = ["25mm", "10mm"]
    """)
    assert "no fields here, {just braces}" in labels(root)
    assert calls(root) == 0


def test_fields_given_by_data_and_params_do_not_run_values(tmp_path):
    root = project(tmp_path, """
    title = "k {k:.1f}"
    [[text]]
    text = "n = {n}, k = {k:.2f}"
    at = ["25mm", "10mm"]
    """, head='data = "../data/d.json"\nparams = { k = 0.5 }\n')
    assert "n = 21, k = 0.50" in labels(root)
    assert calls(root) == 0


def test_a_field_only_values_can_fill_runs_it_and_reports_its_error(tmp_path, capsys):
    root = project(tmp_path, """
    [[text]]
    text = "n = {n}, m = {m}"
    at = ["25mm", "10mm"]
    """, head='data = "../data/d.json"\n')
    capsys.readouterr()
    status = main(["fig", "--root", str(root), "--format", "svg", "--no-cache"])
    err = capsys.readouterr().err
    assert status == 1
    assert "values() in panels/v.py raised RuntimeError: values() is broken" in err, err
    assert calls(root) == 1


@pytest.mark.parametrize("where", ["shape", "arrow", "title"])
def test_fields_in_shapes_arrows_and_titles_count_too(tmp_path, where):
    body = {
        "shape": '[[shape]]\nkind = "rect"\nat = ["20mm", "2mm"]\nsize = ["15mm", "8mm"]\ntext = "{m}"\n',
        "arrow": '[[arrow]]\nfrom = ["20mm", "15mm"]\nto = ["35mm", "15mm"]\nlabel = "{m}"\n',
        "title": "",
    }[where]
    root = project(tmp_path, body)
    if where == "title":
        layout = root / "layouts" / "fig.toml"
        layout.write_text(layout.read_text().replace('render = "v:line"', 'render = "v:line"\ntitle = "{m}"'))
    with pytest.raises(Exception, match="values\\(\\) is broken"):
        build("fig", root=root, formats=("svg",), cache=False)
    assert calls(root) == 1


def test_data_and_params_win_over_values_so_a_text_is_the_same_whether_or_not_it_ran(tmp_path):
    """values() gives n = 99 (the data file says 21), k = 7 (params say 0.5) and m = 3 (only it): a text
    using only n and k shows the data's and params' values, values() not run; a text also using m runs
    values() and still shows n = 21, k = 0.5."""
    root = project(tmp_path, """
    [[text]]
    text = "n = {n}, k = {k}"
    at = ["25mm", "5mm"]
    """, head='data = "../data/d.json"\nparams = { k = 0.5 }\n')
    (root / "panels" / "v.py").write_text(PANELS.replace('raise RuntimeError("values() is broken")',
                                                          'return {"n": 99, "k": 7, "m": 3}'))
    assert "n = 21, k = 0.5" in labels(root)
    assert calls(root) == 0
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace("k = {k}", "k = {k}, m = {m}"))
    assert "n = 21, k = 0.5, m = 3" in labels(root)
    assert calls(root) == 1
