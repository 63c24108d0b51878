"""``compose diff NAME [REV]`` (composer/diff.py): a git repository made here, three commits of one
small figure (a layout that does not load, then a figure, then the same figure with its panel title
changed, a number of a canvas text changed, that text moved and the canvas widened), compared through
the command in this process and through the library.

The expected values come from the layouts written here: the text moved 12 mm right (exactly, its
anchor point moved 12 mm and its string kept its width), the canvas went from 50.8 to 57 mm wide
(200 px to 224.4 px at 100 dpi: the comparison draws both on 225 px, at one scale, so the panel keeps
its pixels), the panel's code and data did not change (its cache entry serves both revisions). The diff image is read back as pixels and every coloured pixel must lie in the boxes
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
    ax.plot([0, 1, 2], [0, 1, 4], label="data")
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

[[legend]]
from = ["a"]
at = ["31mm", "24mm"]
'''

BEFORE = {"width": "50.8mm", "title": "Before", "n": "12", "x": "34mm"}
AFTER = {"width": "57mm", "title": "After", "n": "14", "x": "46mm"}


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
def diffed(repo, tmp_path_factory):
    """``compose diff fig HEAD~1 --fail-on-change`` through the command (its result, the diff PNG), and
    the same comparison through the library (writing nothing)."""
    from tests.conftest import read_png, run_compose

    project = repo / "figs"
    done = run_compose(["diff", "fig", "HEAD~1", "--root", project, "--dpi", "100", "--fail-on-change", "-j", "1"])
    png = read_png(project / "build" / "fig.diff.png")
    found = diff_figure("fig", "HEAD~1", root=project, dpi=DPI, jobs=1, write=False)
    kept = tmp_path_factory.mktemp("kept") / "fig.diff.png"  # the command's file, before a later test writes one
    kept.write_bytes((project / "build" / "fig.diff.png").read_bytes())
    return done, png, found, kept


def test_the_changed_label_and_number_are_listed(diffed):
    done, _, found, _ = diffed
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
    done, _, found, _ = diffed
    moved = {e.name: e for e in found.elements}
    text = moved["text count"]
    assert text.dx_pt == pytest.approx(12 * MM, abs=1e-3) and text.dy_pt == pytest.approx(0, abs=1e-3)
    assert not text.resized  # the same string width: "n = 12" and "n = 14" have equally wide digits
    assert "panel a" not in moved  # the panel stayed where it was
    assert any(line.startswith("moved 12.0 mm right (12.0 mm): text count, now at ") for line in done.stdout.splitlines())
    assert "canvas: 50.8 x 38.1 mm -> 57.0 x 38.1 mm" in done.stdout.splitlines()


def test_the_panel_is_drawn_once_for_both_revisions(diffed):
    _, _, found, _ = diffed
    assert found.before.cached == ("a",) and found.after.cached == ("a",)  # the library's run: both from cache
    assert found.before.commit and found.after.commit == ""


def test_the_diff_image_highlights_where_the_texts_changed(diffed):
    _, png, found, _ = diffed
    assert png.shape[:2] == (150, 225)  # 1.5 in tall; 57 mm = 224.4 px wide now (200 px before), whole pixels
    rgb = png[:, :, :3].astype(int)
    removed = np.all(rgb == REMOVED_RGB, axis=2)
    added = np.all(rgb == ADDED_RGB, axis=2)
    assert removed.sum() == found.pixels.removed and added.sum() == found.pixels.added
    import io

    from PIL import Image

    with Image.open(io.BytesIO(found.png)) as library:  # the library's image, made apart: the same pixels
        assert (np.asarray(library.convert("RGB")) == rgb).all()
    assert found.png == (found_file := diffed[3]).read_bytes(), found_file  # and the same bytes: deterministic

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
    where = dict(found.pixels.where)  # the report says so too: in the two texts' boxes, nowhere else
    assert list(where) == ["text count", "a.title"] and sum(where.values()) == found.pixels.changed
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
    guide = [(t.key.split(": ")[0], t.text) for t in result.texts if t.kind == "guide"]
    assert guide == [("legend[0]", "data")]  # the [[legend]]'s entry, drawn by matplotlib from panel a's line
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
    layout = repo / "figs" / "layouts" / "fig.toml"
    committed = layout.read_text()
    try:  # the working tree's layout broken: the error is the build of now's
        layout.write_text(committed.replace('font_size = "7pt"', 'font_size = "7parsecs"'))
        now = cli(["diff", "fig", "--root", repo / "figs", "--dpi", "50", "-j", "1"])
    finally:
        layout.write_text(committed)
    assert now.returncode == 1
    assert now.stderr.strip().splitlines() == [now.stderr.strip()]
    assert now.stderr.startswith("compose: error: now: layouts/fig.toml:5:1: figure.font_size: '7parsecs' ")


def test_renumbered_panel_texts_are_no_change():
    """One tick more renames every later text of the panel: only the new tick is a change."""
    before = [NamedText("a: xtick_1", "panel", "0"), NamedText("a: text_3", "panel", "time")]
    after = [NamedText("a: xtick_1", "panel", "0"), NamedText("a: xtick_2", "panel", "5"),
             NamedText("a: text_4", "panel", "time")]
    changes = compare_texts(before, after)
    assert [(c.key, c.before, c.after) for c in changes] == [("a: xtick_2", None, "5")]


def test_ctrl_c_during_the_revisions_build_removes_its_worktree(repo, monkeypatch):
    """Ctrl-C (KeyboardInterrupt) while the revision's tree is being built: it propagates, and the
    temporary worktree is gone, from the disk and from git's list."""
    import composer.diff as diff

    seen: list[Path] = []
    real = diff.build_layout

    def interrupted(name, options, *, root, out, progress):
        if Path(root).resolve() != (repo / "figs").resolve():  # the revision's tree, not the working tree
            seen.append(Path(root))
            raise KeyboardInterrupt
        return real(name, options, root=root, out=out, progress=progress)

    monkeypatch.setattr(diff, "build_layout", interrupted)
    with pytest.raises(KeyboardInterrupt):
        diff.diff_figure("fig", "HEAD~1", root=repo / "figs", dpi=50, jobs=1, write=False)
    assert len(seen) == 1 and seen[0].name == "figs" and seen[0].parent.name == "tree"
    assert not seen[0].parent.exists() and not seen[0].parent.parent.exists()
    assert _git(repo, "worktree", "list").count("\n") == 1


@pytest.mark.e2e
def test_the_preview_answers_its_diff_toggle(repo, tmp_path):
    """The preview's server runs ``compose diff NAME HEAD`` in a fresh process on the page's request: its
    JSON report and its image, for an uncommitted edit of the title."""
    import json
    import threading
    import urllib.request

    from composer.cli.serve import DiffRunner, _Figures, _handler, _Server

    layout = repo / "figs" / "layouts" / "fig.toml"
    committed = layout.read_text()
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    httpd = _Server(("127.0.0.1", 0), _handler(_Figures(["fig"], repo / "figs" / "build", state_dir), "fig", {},
                                               DiffRunner(repo / "figs", state_dir, dpi=50.0, jobs=1)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        layout.write_text(committed.replace('title = "After"', 'title = "Edited"'))
        with urllib.request.urlopen(f"{url}/fig.diff.json", timeout=120) as answer:
            found = json.loads(answer.read())
        with urllib.request.urlopen(f"{url}/fig.diff.png", timeout=10) as answer:
            png = answer.read()
    finally:
        layout.write_text(committed)
        httpd.shutdown()
        httpd.server_close()
    assert found["error"] is None and found["image"]
    report = found["report"]
    assert report["changed"] and report["before"]["label"] == "HEAD" and report["unit"] == "mm"
    assert [(t["key"], t["before"], t["after"]) for t in report["texts"]] == [("a.title", "After", "Edited")]
    assert png == (state_dir / "fig" / "fig.diff.png").read_bytes() and png.startswith(b"\x89PNG")
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:  # 57 x 38.1 mm at 50 dpi: 112.2 x 75 px, whole pixels
        assert img.size == (113, 75) == (report["pixels"]["width_px"], report["pixels"]["height_px"])


def test_ticks_added_and_a_label_changed_are_told_apart():
    """Ticks 0, 1, 2 become 0, 0.5, 1, 1.5, 2 (every later tick renumbered) and the x label changes: two
    ticks added and one text changed, each under its key now; a canvas text matched by key."""
    def panel(*texts):
        return [NamedText(f"a: {key}", "panel", text) for key, text in texts]

    before = [NamedText("title", "canvas", "n = 3"),
              *panel(("xtick_1", "0"), ("xtick_2", "1"), ("xtick_3", "2"), ("text_4", "time"))]
    after = [NamedText("title", "canvas", "n = 5"),
             *panel(("xtick_1", "0"), ("xtick_2", "0.5"), ("xtick_3", "1"), ("xtick_4", "1.5"), ("xtick_5", "2"),
                    ("text_6", "time (s)"))]
    changes = [(c.key, c.before, c.after, c.numbers) for c in compare_texts(before, after)]
    assert changes == [("title", "n = 3", "n = 5", (("3", "5"),)), ("a: xtick_2", None, "0.5", ()),
                       ("a: xtick_4", None, "1.5", ()), ("a: text_6", "time", "time (s)", ())]



def test_a_small_move_is_said_with_the_decimals_that_show_it():
    """A box moved 0.01 mm (an arrow whose label got shorter) is said to have moved 0.01 mm, not "0.0 mm",
    and its sizes before and after are told apart; a 12 mm move keeps the unit's one decimal."""
    from composer.diff import ElementChange, _element_line
    from composer.stages.geometry import Box

    small = ElementChange("arrow[0]", "arrow[0]", "arrow", Box(10 * MM, 5 * MM, 22.5 * MM, 2.7 * MM),
                          Box(10 * MM, 4.99 * MM, 22.48 * MM, 2.7 * MM))
    assert _element_line(small, "mm") == ("moved 0.01 mm up (0.01 mm) and resized from 22.50 x 2.70 mm: "
                                          "arrow[0], now at 10.00, 4.99 mm, 22.48 x 2.70 mm")
    big = ElementChange("text t", "text[0]", "text", Box(0, 0, 5 * MM, 2 * MM), Box(12 * MM, 0, 5 * MM, 2 * MM))
    assert _element_line(big, "mm") == "moved 12.0 mm right (12.0 mm): text t, now at 12.0, 0.0 mm, 5.0 x 2.0 mm"
