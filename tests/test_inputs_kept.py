"""Outputs never overwrite inputs (issue #23, item 6): an output folder (``--out``, ``out=``) or ``--panels`` whose
files would land on the layout's inputs is refused in one line before anything is written, exit 1.

``compose fig --out data``, where ``data/fig.svg`` is the figure's imported drawing, replaced that input with the
composed figure (exit 0), and the next build nested the figure in itself. Every case below checks that no byte of
any file of the project changed and that no file was added.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from PIL import Image

from composer.errors import ProjectError
from composer.pipeline import build
from conftest import layout_project, run_compose

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30" viewBox="0 0 40 30">'
       '<rect x="5" y="5" width="30" height="20" fill="#2a9d8f"/></svg>')


def project(tmp_path: Path, name: str = "fig", drawing: str = "data/fig.svg") -> Path:
    """A figure ``name`` of two panels: the drawing ``drawing`` (an svg panel) and the photo ``images/fig.png``."""
    root = layout_project(tmp_path, f'''
[panels.drawing]
svg = "../{drawing}"
at = ["0pt", "0pt"]
size = ["40pt", "30pt"]

[panels.photo]
image = "../images/fig.png"
at = ["40pt", "0pt"]
size = ["40pt", "30pt"]
''', head='width = "80pt"\nheight = "30pt"\n')
    if name != "fig":
        (root / "layouts" / "fig.toml").rename(root / "layouts" / f"{name}.toml")
    (root / drawing).parent.mkdir(parents=True, exist_ok=True)
    (root / drawing).write_text(SVG, encoding="utf-8")
    (root / "images").mkdir()
    Image.new("RGB", (8, 6), (200, 30, 30)).save(root / "images" / "fig.png")
    return root


def snapshot(root: Path) -> dict[str, str]:
    """Every file of the project (the build folder's too) -> the sha256 of its bytes."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv, overwritten, output", [
    (["--out", "data"], "data/fig.svg", "SVG"),  # the issue's: the imported drawing
    (["--out", "images", "--format", "png"], "images/fig.png", "PNG"),  # the photo, by the PNG
    (["--out", "./data/../data/", "--format", "svg"], "data/fig.svg", "SVG"),  # the same folder written otherwise
])
def test_an_out_folder_onto_an_input_is_refused_in_one_line_and_nothing_changes(tmp_path, argv, overwritten, output):
    root = project(tmp_path)
    before = snapshot(root)
    done = run_compose(["fig", "--root", root, *argv], cwd=root)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"compose: error: {overwritten}: the figure's {output} would be written onto this "
                               "file, an input of the figure; nothing was written")
    assert "--out" in lines[0] and "build/" in lines[0]  # what to do
    assert snapshot(root) == before  # no byte of any input changed, no file added (no manifest, no cache)


def test_panels_alone_onto_an_imported_file_are_refused(tmp_path):
    """``--panels`` writes ``OUT/NAME/PANEL.svg``: with the project as OUT, figure ``art``'s panel ``drawing`` alone
    is ``art/drawing.svg``, the file that panel imports."""
    root = project(tmp_path, name="art", drawing="art/drawing.svg")
    before = snapshot(root)
    done = run_compose(["art", "--root", root, "--out", root, "--panels", "--format", "svg"], cwd=root)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("compose: error: art/drawing.svg: panel 'drawing' alone would be "
                                          "written onto this file")
    assert snapshot(root) == before


def test_panels_alone_through_a_symlinked_folder_are_refused_and_a_symlinked_output_is_replaced(tmp_path):
    """``OUT/NAME`` a symlink to the data folder: ``--panels`` writes ``OUT/fig/drawing.svg`` through it, onto
    ``data/drawing.svg``, the file panel ``drawing`` imports (it was replaced by the panel alone, exit 0): refused.
    An output file that is itself a symlink to an input (``OUT/fig.svg`` -> ``data/drawing.svg``) is replaced as a
    link, its target kept, so that build goes through and leaves every input as it was."""
    root = project(tmp_path, drawing="data/drawing.svg")
    (root / "out").mkdir()
    (root / "out" / "fig").symlink_to(root / "data", target_is_directory=True)
    before = snapshot(root)
    with pytest.raises(ProjectError, match=r"^data/drawing\.svg: panel 'drawing' alone would be written onto this"):
        build("fig", root=root, out=root / "out", formats=("svg",), panels=True, cache=False)
    assert snapshot(root) == before
    (root / "out" / "fig").unlink()
    (root / "out" / "fig.svg").symlink_to(root / "data" / "drawing.svg")
    build("fig", root=root, out=root / "out", formats=("svg",), cache=False)
    assert not (root / "out" / "fig.svg").is_symlink() and b"#2a9d8f" in (root / "out" / "fig.svg").read_bytes()
    assert (root / "data" / "drawing.svg").read_text(encoding="utf-8") == SVG


def test_the_api_refuses_an_out_onto_an_input_and_builds_elsewhere(tmp_path):
    root = project(tmp_path)
    before = snapshot(root)
    with pytest.raises(ProjectError, match=r"^data/fig\.svg: the figure's SVG would be written onto this file"):
        build("fig", root=root, out=root / "data", formats=("svg",), cache=False)
    assert snapshot(root) == before
    # the same figure into another folder builds, and its SVG holds the imported drawing's rect (colour kept)
    result = build("fig", root=root, out=root / "out", formats=("svg",))
    assert b"#2a9d8f" in result.outputs["svg"].read_bytes()
    assert {p: d for p, d in snapshot(root).items() if not p.startswith(("out/", "build/"))} == before


def test_an_output_onto_a_file_the_panel_code_reads_is_refused(tmp_path):
    """A panel function that reads ``notes/fig.svg`` itself (the layout does not name it; the build records it as
    read): ``--out notes`` would replace it with the figure. Refused after the panel is drawn, before any write."""
    root = layout_project(tmp_path, '''
[panels.p]
render = "reader:draw"
at = ["0pt", "0pt"]
size = ["40pt", "30pt"]
''', head='width = "40pt"\nheight = "30pt"\n')
    (root / "panels").mkdir()
    (root / "panels" / "reader.py").write_text('''
from pathlib import Path


def draw(fig, data):
    ax = fig.add_subplot()
    ax.set_title(str(len(Path("notes/fig.svg").read_text())))
''', encoding="utf-8")
    (root / "notes").mkdir()
    (root / "notes" / "fig.svg").write_text(SVG, encoding="utf-8")
    before = snapshot(root)
    done = run_compose(["fig", "--root", root, "--out", "notes", "--format", "svg"], cwd=root)
    assert done.returncode == 1
    assert done.stderr.strip().startswith("compose: error: notes/fig.svg: the figure's SVG would be written onto "
                                          "this file, a file the figure's code reads; nothing was written")
    assert snapshot(root) == before
