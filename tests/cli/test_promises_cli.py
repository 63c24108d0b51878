"""README "Command line" and "Journal presets" promises no other test holds: the error examples'
"did you mean" hints, ``--out DIR``, and a journal font that is not installed refused with the
installed fonts of the same metrics."""

from __future__ import annotations

import textwrap
from pathlib import Path

from composer.cli.main import main
from conftest import font_file

HEAD = """\
[figure]
width = "40mm"
height = "30mm"
"""

PANELS = '''
def hist(fig, data, bins=10, color="#000000"):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.bar(range(bins), range(bins), color=color)
'''


def project(tmp_path: Path, body: str, head: str = HEAD) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    (root / "panels").mkdir(exist_ok=True)
    (root / "panels" / "sim.py").write_text(PANELS)
    (root / "layouts" / "fig.toml").write_text(head + textwrap.dedent(body), encoding="utf-8")
    return root


def error_line(capsys, argv: list[str]) -> str:
    capsys.readouterr()
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 1 and out == "", (status, out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("compose: error: "), err
    return lines[0]


def test_a_misspelt_key_suggests_the_key(tmp_path, capsys):
    """README: ``panels.a.lable: unknown key 'lable'; did you mean 'label'?; valid keys are ...``"""
    root = project(tmp_path, """
    [panels.a]
    render = "sim:hist"
    at = ["2mm", "2mm"]
    size = ["30mm", "25mm"]
    lable = "a"
    """)
    line = error_line(capsys, ["fig", "--root", str(root), "--format", "svg"])
    # lable is on line 9 (3 of HEAD, the blank line, then the table's five), column 1
    assert "compose: error: layouts/fig.toml:9:1: panels.a.lable: unknown key 'lable'; did you mean 'label'?; valid keys are " in line
    assert not (root / "build" / "fig.svg").exists()


def test_a_misspelt_parameter_suggests_it_and_lists_what_the_function_takes(tmp_path, capsys):
    """README: ``panels.hist.params.binz: panel 'hist': sim:hist takes no parameter 'binz'; did you mean
    'bins'?; it takes bins, color``"""
    root = project(tmp_path, """
    [panels.hist]
    render = "sim:hist"
    at = ["2mm", "2mm"]
    size = ["30mm", "25mm"]
    params = { binz = 5 }
    """)
    line = error_line(capsys, ["fig", "--root", str(root), "--format", "svg"])
    assert line == ("compose: error: layouts/fig.toml:9:12: panels.hist.params.binz: panel 'hist': sim:hist takes no "
                    "parameter 'binz'; did you mean 'bins'?; it takes bins, color")


def test_readme_examples_of_references_units_and_rcparams(tmp_path, capsys):
    """docs/guide/cli.md (the README's "Command line" before the site): the reference, overlap and rcParam
    lines, exactly. Two panels 40 mm wide, a at x = 0 and b at x = 25 mm, overlap by 40 - 25 = 15 mm
    across and 40 mm down."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "cli.md").read_text(encoding="utf-8")
    head = '[figure]\nwidth = "180mm"\nheight = "60mm"\n'
    panels = """
    [panels.a]
    render = "sim:hist"
    at = ["0mm", "0mm"]
    size = ["40mm", "40mm"]
    [panels.b]
    render = "sim:hist"
    {where}
    size = ["40mm", "40mm"]
    """
    for where, rc in (('right_of = "zz"', ""), ('at = ["25mm", "0mm"]', ""),
                      ('at = ["100mm", "0mm"]', '[rcparams]\n"font.szie" = 9\n')):
        root = project(tmp_path / str(len(rc) + len(where)), panels.format(where=where), head=rc + head)
        line = error_line(capsys, ["fig", "--root", str(root), "--format", "svg"])
        assert line in readme.splitlines(), line


def test_out_writes_the_outputs_to_that_folder(tmp_path, capsys):
    """``compose NAME --out DIR``: the figure's files go to DIR, not to ``root/build``."""
    root = project(tmp_path, '[[text]]\ntext = "x"\nat = ["20mm", "15mm"]\n')
    out = tmp_path / "figures"
    assert main(["fig", "--root", str(root), "--out", str(out), "--format", "svg,png", "--dpi", "50"]) == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {"fig.svg", "fig.png"}
    assert not (root / "build" / "fig.svg").exists() and not (root / "build" / "fig.png").exists()


def test_a_journal_font_that_is_not_installed_names_the_metric_twins(tmp_path, capsys):
    """README "Journal presets": a journal's font such as Arial that is not installed is refused with the
    installed fonts drawn to the same metrics (Liberation Sans, Nimbus Sans)."""
    root = project(tmp_path, '[[text]]\ntext = "x"\nat = ["20mm", "15mm"]\n', head=HEAD + 'font = "Arial"\n')
    if font_file("Arial") is not None:  # installed: nothing to refuse, the figure builds with it
        assert main(["fig", "--root", str(root), "--format", "svg"]) == 0
        return
    line = error_line(capsys, ["fig", "--root", str(root), "--format", "svg"])
    assert "figure.font" in line and "'Arial' is not installed" in line
    suggestion = line.split("installed fonts are")[0]
    for family in ("Liberation Sans", "Nimbus Sans"):  # named when installed (CI may have neither)
        if font_file(family) is not None:
            assert family in suggestion, (family, line)
