"""``compose diff NAME [REV]`` (composer/diff.py): a git repository made here, three commits of one
small figure (a layout that does not load, then a figure, then the same figure with its panel title
changed, a number of a canvas text changed, that text moved and the canvas widened), compared through
the command in this process and through the library.

The expected values come from the layouts written here: the text moved 12 mm right (exactly, its
anchor point moved 12 mm and its string kept its width), the canvas went from 2.0 to 2.2 inches
(200 to 220 px at 100 dpi), the panel's code and data did not change (its cache entry serves both
revisions). The diff image is read back as pixels and every coloured pixel must lie in the boxes
(composer's geometry, converted to px here) of the two texts that changed, before or after.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from composer.diff import ADDED_RGB, REMOVED_RGB, compare_texts, diff_figure
from composer.stages.named import NamedText

DPI = 100.0
MM = 72.0 / 25.4

PANEL = '''
def line(fig, data):
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [0, 1, 4])
    ax.set_xticks([0, 1, 2])
    ax.set_yticks([0, 4])
'''

LAYOUT = '''
[figure]
width = "{width}"
height = "38.1mm"
font_size = "7pt"

[panels.a]
render = "tiny:line"
at = ["4mm", "8mm"]
size = ["24mm", "24mm"]
label = "a"
title = "{title}"

[[text]]
name = "count"
text = "n = {n}"
at = ["{x}", "10mm"]
'''

BEFORE = {"width": "50.8mm", "title": "Before", "n": "12", "x": "34mm"}
AFTER = {"width": "55.88mm", "title": "After", "n": "14", "x": "46mm"}


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True).stdout


def _commit(root: Path, layout: str, message: str) -> None:
    (root / "figs" / "layouts" / "fig.toml").write_text(textwrap.dedent(layout))
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The repository; the project is its folder ``figs/`` (a project inside a repository). The working
    tree is the last commit."""
    root = tmp_path_factory.mktemp("diffrepo")
    (root / "figs" / "layouts").mkdir(parents=True)
    (root / "figs" / "panels").mkdir()
    (root / "figs" / "panels" / "tiny.py").write_text(PANEL)
    (root / ".gitignore").write_text("build/\n")
    _git(root, "init", "-q")
    _commit(root, LAYOUT.format(**BEFORE).replace("[figure]", "[figure]\ncolour = \"red\""), "does not load")
    _commit(root, LAYOUT.format(**BEFORE), "first figure")
    _commit(root, LAYOUT.format(**AFTER), "title, number, text moved, canvas wider")
    return root


@pytest.fixture(scope="module")
def diffed(repo):
    """``compose diff fig HEAD~1 --fail-on-change`` through the command (its result, the diff PNG), and
    the same comparison through the library (writing nothing)."""
    from tests.conftest import read_png, run_compose

    project = repo / "figs"
    done = run_compose(["diff", "fig", "HEAD~1", "--root", project, "--dpi", "100", "--fail-on-change", "-j", "1"])
    png = read_png(project / "build" / "fig.diff.png")
    found = diff_figure("fig", "HEAD~1", root=project, dpi=DPI, jobs=1, write=False)
    return done, png, found


def test_the_changed_label_and_number_are_listed(diffed):
    done, _, found = diffed
    assert done.returncode == 1, done.stderr  # --fail-on-change, and it changed
    lines = done.stdout.splitlines()
    assert lines[0].startswith("fig: HEAD~1 (") and lines[0].endswith("-> now: changed")
    assert "text a.title: 'Before' -> 'After'" in lines
    assert "text count: 'n = 12' -> 'n = 14' (12 -> 14)" in lines
    texts = {t.key: t for t in found.texts}
    assert set(texts) == {"a.title", "count"}  # the panel's tick labels did not change
    assert (texts["a.title"].before, texts["a.title"].after) == ("Before", "After")
    assert texts["count"].numbers == (("12", "14"),)


def test_the_moved_element_and_its_distance(diffed):
    done, _, found = diffed
    moved = {e.name: e for e in found.elements}
    text = moved["text count"]
    assert text.dx_pt == pytest.approx(12 * MM, abs=1e-3) and text.dy_pt == pytest.approx(0, abs=1e-3)
    assert not text.resized  # the same string width: "n = 12" and "n = 14" have equally wide digits
    assert "panel a" not in moved  # the panel stayed where it was
    assert any(line.startswith("moved 12.0 mm right (12.0 mm): text count, now at ") for line in done.stdout.splitlines())
    assert "canvas: 50.8 x 38.1 mm -> 55.9 x 38.1 mm" in done.stdout.splitlines()


def test_the_panel_is_drawn_once_for_both_revisions(diffed):
    _, _, found = diffed
    assert found.before.cached == ("a",) and found.after.cached == ("a",)  # the library's run: both from cache
    assert found.before.commit and found.after.commit == ""


def test_the_diff_image_highlights_where_the_texts_changed(diffed):
    _, png, found = diffed
    assert png.shape[:2] == (150, 220)  # 1.5 in tall; 2.2 in wide now (2.0 in before)
    rgb = png[:, :, :3].astype(int)
    removed = np.all(rgb == REMOVED_RGB, axis=2)
    added = np.all(rgb == ADDED_RGB, axis=2)
    assert removed.sum() == found.pixels.removed and added.sum() == found.pixels.added

    def px(box, margin=1):  # a box in pt -> the pixel slice holding it, a pixel of margin round it
        scale = DPI / 72.0
        x0, y0 = int(box.x_pt * scale) - margin, int(box.y_pt * scale) - margin
        x1, y1 = int(np.ceil((box.x_pt + box.width_pt) * scale)) + margin, \
            int(np.ceil((box.y_pt + box.height_pt) * scale)) + margin
        return slice(max(y0, 0), y1), slice(max(x0, 0), x1)

    changes = {e.name: e for e in found.elements}
    title, count = changes["a.title"], changes["text count"]
    expected = np.zeros(removed.shape, bool)
    for box in (title.before, title.after, count.before, count.after):
        expected[px(box)] = True
    assert not ((removed | added) & ~expected).any()  # nothing else is coloured: the panel is unchanged
    assert removed[px(title.before)].any() and added[px(title.after)].any()
    old, new = px(count.before), px(count.after)
    assert count.before.x_pt + count.before.width_pt < count.after.x_pt  # apart: each box has one colour
    assert removed[old].sum() > 20 and not added[old].any()
    assert added[new].sum() > 20 and not removed[new].any()
    grey = rgb[~(removed | added)]
    assert (grey[:, 0] == grey[:, 1]).all() and (grey[:, 1] == grey[:, 2]).all()
    assert grey.min() >= round(255 * (1 - 0.25)) - 1  # faded to a quarter of its ink


def test_the_panel_texts_are_named_by_their_ticks(repo):
    from composer.pipeline import BuildOptions, build_layout

    result, _ = build_layout("fig", BuildOptions(formats=("svg",), elements=True, jobs=1, write=False),
                             root=repo / "figs", out=repo / "elsewhere")
    panel = {t.key: t.text for t in result.texts if t.kind == "panel"}
    assert [panel[f"a: xtick_{i}"] for i in (1, 2, 3)] == ["0", "1", "2"]
    assert [panel[f"a: ytick_{i}"] for i in (1, 2)] == ["0", "4"]
    canvas = {t.key: t.text for t in result.texts if t.kind == "canvas"}
    assert canvas == {"count": "n = 14", "a.label": "a", "a.title": "After"}
    assert not (repo / "elsewhere").exists()


def test_no_change_exits_0_and_the_worktrees_are_gone(repo, cli):
    done = cli(["diff", "fig", "--root", repo / "figs", "--dpi", "50", "--fail-on-change", "-j", "1"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("-> now: unchanged (the same SVG bytes)")
    assert _git(repo, "worktree", "list").count("\n") == 1  # the repository's own tree only
    assert _git(repo, "status", "--porcelain") == ""


def test_an_error_at_a_revision_is_one_line_naming_it(repo, cli):
    commit = _git(repo, "rev-parse", "--short=7", "HEAD~2").strip()
    done = cli(["diff", "fig", "HEAD~2", "--root", repo / "figs", "--dpi", "50", "-j", "1"])
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"compose: error: at HEAD~2 ({commit}): layouts/fig.toml:3:1: figure.colour: ")
    assert "tmp" not in lines[0].split("layouts/")[0]  # the temporary tree's folder is not shown
    assert _git(repo, "worktree", "list").count("\n") == 1
    unknown = cli(["diff", "fig", "v9", "--root", repo / "figs"])
    assert unknown.returncode == 1 and "'v9': no such commit" in unknown.stderr


def test_renumbered_panel_texts_are_no_change():
    """One tick more renames every later text of the panel: only the new tick is a change."""
    before = [NamedText("a: xtick_1", "panel", "0"), NamedText("a: text_3", "panel", "time")]
    after = [NamedText("a: xtick_1", "panel", "0"), NamedText("a: xtick_2", "panel", "5"),
             NamedText("a: text_4", "panel", "time")]
    changes = compare_texts(before, after)
    assert [(c.key, c.before, c.after) for c in changes] == [("a: xtick_2", None, "5")]
