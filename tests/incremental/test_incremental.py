"""Incremental builds: the panel cache, the no-op path, parallel rendering, watch, clean.

Nothing here is timed. Renders are counted by the panels themselves: every
renderer of the test project appends its name to the file named by
``COMPOSER_TEST_RENDER_LOG`` (forked workers inherit the variable, so renders
in worker processes count too). Cached output is always compared with the
bytes of a build that used no cache.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from composer.cli.main import main
from composer.errors import ComposerError, ComposerWarning
from composer.incremental.cache import PanelCache, cache_dir, decode_entry, function_closure, project_imports
from composer.incremental.manifest import load as load_manifest
from composer.incremental.manifest import manifest_path
from composer.pipeline import build
from conftest import run_compose

LAYOUT = """\
[figure]
width = "120mm"
height = "50mm"
font_size = "7pt"
data = "../data/shared.json"

[panels.p1]
render = "alpha:one"
at = ["2mm", "6mm"]
size = ["26mm", "26mm"]
label = "a"
params = { k = 2 }

[panels.p2]
render = "alpha:two"
at = ["32mm", "6mm"]
size = ["26mm", "26mm"]
label = "b"
params = { n = 3 }

[panels.p3]
render = "beta:three"
at = ["62mm", "6mm"]
size = ["26mm", "26mm"]
data = "../data/three.csv"

[panels.p4]
render = "beta:four"
at = ["92mm", "6mm"]
size = ["26mm", "26mm"]

[[text]]
text = "total = {total:.1f}"
at = ["60mm", "45mm"]

[[arrow]]
from = "p1.top"
to = "p2.w"
"""

HELPERS = '''"""Shared style of the test panels (a project module imported by alpha)."""

def color():
    return "#1f77b4"
'''

ALPHA = '''"""Panels one and two; both use the project module helpers."""
import os

from helpers import color


def _log(name):
    path = os.environ.get("COMPOSER_TEST_RENDER_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(name + "\\n")


def one(fig, data, k=1):
    _log("one")
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [0, k, 0], color=color())
    return {"top": (ax, 1, k)}


def two(fig, data, n=2):
    _log("two")
    ax = fig.add_subplot()
    ax.bar(range(n), [float(v) for v in data["heights"][:n]], color=color())


def values(data):
    return {"total": float(sum(data["heights"]))}
'''

BETA = '''"""Panels three and four: no project imports."""
import os

EDGE = "#333333"


def _log(name):
    path = os.environ.get("COMPOSER_TEST_RENDER_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(name + "\\n")


def three(fig, data):
    _log("three")
    ax = fig.add_subplot()
    ax.scatter(data["x"], data["y"], s=4, edgecolors=EDGE)


def four(fig, data):
    _log("four")
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.imshow([[0, 1], [2, 3]], interpolation="nearest")
    ax.set_axis_off()
'''

ALL = {"one", "two", "three", "four"}


def make_project(root: Path) -> Path:
    """Write the test project (layouts/fig.toml, panels alpha, beta, helpers, two data files)."""
    for folder in ("layouts", "panels", "data"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "layouts" / "fig.toml").write_text(LAYOUT)
    (root / "panels" / "helpers.py").write_text(HELPERS)
    (root / "panels" / "alpha.py").write_text(ALPHA)
    (root / "panels" / "beta.py").write_text(BETA)
    (root / "data" / "shared.json").write_text(json.dumps({"heights": [3, 1, 4, 1, 5]}))
    (root / "data" / "three.csv").write_text("x,y\n0,1\n1,3\n2,2\n3,5\n")
    return root


@pytest.fixture(scope="module")
def warm_template(tmp_path_factory):
    """The test project built once (svg, pdf, png at 100 dpi): warm cache and manifest."""
    root = make_project(tmp_path_factory.mktemp("warm") / "proj")
    build("fig", root=root, dpi=100, jobs=2)
    return root


@pytest.fixture
def warm(warm_template, tmp_path, render_log):
    """A fresh copy of the warm project (the manifest holds relative paths, so the copy is up to date)."""
    root = tmp_path / "proj"
    shutil.copytree(warm_template, root)
    render_log()
    return root


def outputs(out_dir: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out_dir.glob("fig.*"))}


# ------------------------------------------------------------------ the cache gives the same bytes


def test_cached_build_is_byte_identical_to_uncached(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    uncached = build("fig", root=root, out=tmp_path / "a", dpi=100, jobs=1, cache=False)
    assert sorted(render_log()) == sorted(ALL)
    assert not cache_dir(root).exists(), "--no-cache wrote cache entries"

    cold = build("fig", root=root, out=tmp_path / "b", dpi=100, jobs=2)  # parallel, fills the cache
    assert sorted(render_log()) == sorted(ALL)
    assert set(cold.rendered) == {"p1", "p2", "p3", "p4"} and cold.cached == ()

    hot = build("fig", root=root, out=tmp_path / "c", dpi=100, jobs=2)  # new out dir: no manifest, all hits
    assert render_log() == []
    assert set(hot.cached) == {"p1", "p2", "p3", "p4"} and hot.rendered == ()

    a, b, c = outputs(tmp_path / "a"), outputs(tmp_path / "b"), outputs(tmp_path / "c")
    assert set(a) == {"fig.svg", "fig.pdf", "fig.png"}
    assert a == b == c, "serial uncached, parallel cold and cached builds differ"
    assert uncached.written == ("svg", "pdf", "png")


def test_noop_rebuild_renders_and_writes_nothing(warm, render_log):
    before = {p: p.stat().st_mtime_ns for p in (warm / "build").glob("fig.*")}
    result = build("fig", root=warm, dpi=100)
    assert result.up_to_date and result.written == () and render_log() == []
    assert {p: p.stat().st_mtime_ns for p in (warm / "build").glob("fig.*")} == before


# ------------------------------------------------------------------ invalidation


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, f"{old!r} not exactly once in {path.name}"
    path.write_text(text.replace(old, new))


EDITS = {
    # panel source: one function's body; the other function of the module stays cached
    "source one": (("panels/alpha.py", "[0, k, 0], color", "[0, k, 1], color"), {"one"}),
    "source four": (("panels/beta.py", '"nearest")\n    ax.set_axis_off', '"nearest", cmap="gray")\n    ax.set_axis_off'),
                    {"four"}),
    # a project module imported by alpha: both alpha panels, not beta's
    "imported module": (("panels/helpers.py", "#1f77b4", "#d62728"), {"one", "two"}),
    # a module-level constant: conservatively, every panel of that module
    "module constant": (("panels/beta.py", '"#333333"', '"#000000"'), {"three", "four"}),
    "params": (("layouts/fig.toml", "params = { n = 3 }", "params = { n = 4 }"), {"two"}),
    "panel data": (("data/three.csv", "3,5", "3,6"), {"three"}),
    # the figure's data file feeds every panel without its own data
    "figure data": (("data/shared.json", "[3, 1, 4, 1, 5]", "[3, 1, 4, 1, 6]"), {"one", "two", "four"}),
    "size": (("layouts/fig.toml", 'size = ["26mm", "26mm"]\n\n[[text]]', 'size = ["26mm", "20mm"]\n\n[[text]]'),
             {"four"}),
    # moving a panel changes the canvas, not the panel: nothing rendered
    "position": (("layouts/fig.toml", 'at = ["92mm", "6mm"]', 'at = ["91mm", "7mm"]'), set()),
    # the font size is in every panel's rcParams
    "font size": (("layouts/fig.toml", 'font_size = "7pt"', 'font_size = "6pt"'), ALL),
}


@pytest.mark.parametrize("case", list(EDITS), ids=list(EDITS))
def test_a_change_invalidates_exactly_the_panels_that_depend_on_it(case, warm, render_log, tmp_path):
    (rel, old, new), expected = EDITS[case]
    edit(warm / rel, old, new)

    result = build("fig", root=warm, formats=("svg",), jobs=1)

    renders = render_log()
    assert sorted(renders) == sorted(expected), f"rendered {renders}, expected {sorted(expected)}"
    names = {"one": "p1", "two": "p2", "three": "p3", "four": "p4"}
    assert set(result.rendered) == {names[r] for r in expected}
    assert set(result.cached) == {names[r] for r in ALL - expected}
    # and the result is what a build without any cache makes of the edited project
    fresh = build("fig", root=warm, out=tmp_path / "fresh", formats=("svg",), jobs=1, cache=False)
    assert fresh.outputs["svg"].read_bytes() == result.outputs["svg"].read_bytes()


def test_exports_are_redone_only_when_the_svg_bytes_change(warm, render_log):
    out = warm / "build"
    layout = warm / "layouts/fig.toml"
    # the outputs' provenance names the layout's sha256: a comment changes it, so all three are written
    # again (from the cached panels: none is drawn)
    edit(layout, "[panels.p1]", "# a comment changes the layout's bytes\n[panels.p1]")
    result = build("fig", root=warm, dpi=100)
    assert result.reason == "layouts/fig.toml changed" and result.rendered == ()
    assert result.written == ("svg", "pdf", "png")
    edit(layout, "[figure]\n", "[figure]\nprovenance = false\n")  # without the record, the drawing alone
    build("fig", root=warm, dpi=100)
    pdf_png = {p.name: p.stat().st_mtime_ns for p in (out / "fig.pdf", out / "fig.png")}
    edit(layout, "# a comment changes the layout's bytes", "# a comment changes the layout's bytes, not the figure")
    result = build("fig", root=warm, dpi=100)
    assert not result.up_to_date and result.reason == "layouts/fig.toml changed"
    assert result.rendered == () and result.written == ()
    assert {p.name: p.stat().st_mtime_ns for p in (out / "fig.pdf", out / "fig.png")} == pdf_png

    (out / "fig.png").unlink()
    assert build("fig", root=warm, dpi=100).written == ("png",)

    edit(warm / "layouts/fig.toml", 'at = ["92mm", "6mm"]', 'at = ["91mm", "7mm"]')
    result = build("fig", root=warm, dpi=100)
    assert result.written == ("svg", "pdf", "png") and result.rendered == ()
    assert render_log() == []


# ------------------------------------------------------------------ corrupt entries


def corrupt_flip(data: bytes) -> bytes:
    i = len(data) - 200  # inside the SVG payload
    return data[:i] + bytes([data[i] ^ 0x20]) + data[i + 1:]


CORRUPTIONS = {
    "flipped byte": corrupt_flip,
    "truncated": lambda data: data[: len(data) // 2],
    "empty": lambda data: b"",
    "other entry": None,  # the bytes of another panel's (valid) entry under this key
}


@pytest.mark.parametrize("how", list(CORRUPTIONS), ids=list(CORRUPTIONS))
def test_a_corrupt_cache_entry_is_detected_deleted_and_rebuilt(how, warm, render_log):
    good = outputs(warm / "build")
    keys = {name: rec["key"] for name, rec in load_manifest(warm / "build", "fig")["panels"].items()}
    store = PanelCache(cache_dir(warm))
    entry = store.path(keys["p1"])
    data = entry.read_bytes()
    entry.write_bytes(store.path(keys["p2"]).read_bytes() if how == "other entry" else CORRUPTIONS[how](data))

    for path in (warm / "build").glob("fig.*"):
        path.unlink()  # make the build happen (the manifest's outputs are gone)
    result = build("fig", root=warm, dpi=100, jobs=1)

    assert render_log() == ["one"], "the corrupt entry was used instead of rendering p1 again"
    assert result.repaired == ("p1",) and result.rendered == ("p1",)
    assert outputs(warm / "build") == good
    assert decode_entry(keys["p1"], entry.read_bytes()) is not None, "the entry was not written again"


# ------------------------------------------------------------------ the no-op path


def run_cli(root: Path, *args: str, fresh: bool = False) -> tuple[str, set[str] | None]:
    """Run ``compose fig``; returns its stdout and, ``fresh`` (in a fresh interpreter), the top-level
    modules it imported (None in process, where everything is imported already)."""
    out, _, modules = run_cli_full(root, *args, fresh=fresh)
    return out, modules


def run_cli_full(root: Path, *args: str, fresh: bool = False) -> tuple[str, str, set[str] | None]:
    """:func:`run_cli`, also returning stderr."""
    if not fresh:
        done = run_compose(["fig", "--root", root, *args])
        assert done.returncode == 0, done.stderr
        return done.stdout.rstrip("\n"), done.stderr, None
    code = ("import sys, json\n"
            "from composer.cli.main import main\n"
            f"status = main({['fig', '--root', str(root), *args]!r})\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
            "sys.exit(status)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    return "\n".join(lines[:-1]), proc.stderr, set(json.loads(lines[-1]))


HEAVY = {"matplotlib", "numpy", "lxml", "typst", "cairosvg", "cairocffi", "PIL", "composer.pipeline"}


@pytest.mark.e2e
def test_noop_path_imports_neither_matplotlib_nor_the_pipeline(warm):
    out, modules = run_cli(warm, "--dpi", "100", fresh=True)
    assert out.startswith("fig is up to date"), out
    assert not modules & {"matplotlib", "numpy", "lxml", "typst", "cairosvg", "cairocffi", "PIL"}, modules & HEAVY
    # control: after a change the same command does import them (so the check above can fail)
    edit(warm / "layouts/fig.toml", "params = { n = 3 }", "params = { n = 4 }")
    out, modules = run_cli(warm, "--dpi", "100", fresh=True)
    assert out.startswith("built fig"), out
    assert {"matplotlib", "lxml"} <= modules
    assert not modules & {"cairosvg", "cairocffi"}  # the default engine never imports cairosvg
    out, modules = run_cli(warm, "--dpi", "100", fresh=True)
    assert out.startswith("fig is up to date") and "matplotlib" not in modules


WARNED = """

def five(fig, data):
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.set_axis_off()
    ax.text(0.5, 0.5, "five", fontfamily="Composer Test Missing Font", ha="center")
"""

WARNED_LAYOUT = """
[panels.p5]
render = "beta:five"
at = ["2mm", "36mm"]
size = ["20mm", "12mm"]

[panels.photo]
image = "../data/photo.png"
at = ["30mm", "36mm"]
size = ["12mm", "12mm"]
"""


def _warned_project(root: Path) -> Path:
    """The test project plus a panel in a font that is not installed and a 6x4 px photo 12 mm wide:
    two ComposerWarnings, one from a render worker, one from composing."""
    from PIL import Image

    make_project(root)
    (root / "panels" / "beta.py").write_text(BETA + WARNED)
    edit(root / "layouts/fig.toml", "[[text]]", WARNED_LAYOUT.strip() + "\n\n[[text]]")
    Image.new("RGB", (6, 4), "#336699").save(root / "data" / "photo.png")
    return root


def _warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("compose: warning:")]


def test_a_noop_build_repeats_the_warnings_of_the_build_that_rendered(tmp_path):
    root = _warned_project(tmp_path / "proj")
    out, err, _ = run_cli_full(root, "--dpi", "100")
    assert out.startswith("built fig"), out
    rendered = _warning_lines(err)
    assert len(rendered) == 2, err
    assert "asks for font 'Composer Test Missing Font'" in rendered[0] and "p5" in rendered[0]
    assert "6x4 px" in rendered[1] and "below raster_ppi 300" in rendered[1]

    out, err, modules = run_cli_full(root, "--dpi", "100", fresh=True)
    assert out.startswith("fig is up to date"), out
    assert _warning_lines(err) == rendered
    assert "matplotlib" not in modules and "composer" in modules

    # the library: a no-op build() issues them too, and lists them
    with pytest.warns(ComposerWarning) as caught:
        result = build("fig", root=root, dpi=100)
    assert result.up_to_date and result.rendered == ()
    assert [f"compose: warning: {m}" for m in result.warnings] == rendered
    assert [str(w.message) for w in caught] == list(result.warnings)

    # a build served from the panel cache (new out dir) warns the same, and so does its no-op
    with pytest.warns(ComposerWarning):
        cached = build("fig", root=root, out=tmp_path / "other", dpi=100)
        noop = build("fig", root=root, out=tmp_path / "other", dpi=100)
    assert cached.rendered == () and cached.warnings == result.warnings
    assert noop.up_to_date and noop.warnings == result.warnings

    # once the cause is fixed, the warning is gone from the next build and from its no-op
    edit(root / "panels" / "beta.py", 'fontfamily="Composer Test Missing Font", ', "")
    out, err, _ = run_cli_full(root, "--dpi", "100")
    assert out.startswith("built fig") and _warning_lines(err) == rendered[1:], err
    out, err, _ = run_cli_full(root, "--dpi", "100")
    assert out.startswith("fig is up to date") and _warning_lines(err) == rendered[1:], err


def test_a_clean_build_records_no_warnings(warm):
    assert load_manifest(warm / "build", "fig")["warnings"] == []
    out, err, _ = run_cli_full(warm, "--dpi", "100")
    assert out.startswith("fig is up to date") and _warning_lines(err) == []


@pytest.mark.parametrize("change", ["dpi", "formats", "output modified", "output deleted", "data"])
def test_noop_path_notices_every_kind_of_change(change, warm):
    args = ["--dpi", "100"]
    if change == "dpi":
        args = ["--dpi", "120"]
    elif change == "formats":
        args += ["--format", "svg,png"]
    elif change == "output modified":
        (warm / "build" / "fig.svg").write_bytes((warm / "build" / "fig.svg").read_bytes() + b"\n")
    elif change == "output deleted":
        (warm / "build" / "fig.pdf").unlink()
    else:
        edit(warm / "data/three.csv", "3,5", "3,7")
    out, _ = run_cli(warm, *args)
    assert out.startswith("built fig"), out


def test_a_second_layout_of_the_same_name_is_an_error_even_when_nothing_changed(warm):
    """layouts/fig.py beside layouts/fig.toml: a full build refuses the figure (which one is meant?); the
    no-op path said "up to date" from the old manifest instead."""
    before = outputs(warm / "build")
    (warm / "layouts" / "fig.py").write_text("def layout():\n    return {}\n")
    proc = run_compose(["fig", "--root", warm, "--dpi", "100"])
    assert (proc.returncode, proc.stdout) == (1, "")
    assert proc.stderr == ("compose: error: figure 'fig' has two layouts, layouts/fig.toml and layouts/fig.py; "
                           "keep one\n")
    assert outputs(warm / "build") == before


# ------------------------------------------------------------------ source digests


def closure(source: str, function: str) -> str:
    return function_closure(source.encode(), function)


def test_function_closure_follows_names_not_lines():
    base = ALPHA
    assert closure(base, "one") == closure(base.replace("# ", "#  ").replace("\n\n\ndef two", "\n\n\n\ndef two"), "one")
    assert closure(base, "one") == closure(base.replace("ax.bar(", "ax.barh("), "one"), "editing two changed one"
    assert closure(base, "one") != closure(base.replace('fh.write(name + "\\n")', "fh.write(name)"), "one"), \
        "a helper one calls was not followed"
    assert closure(base, "one") != closure(base.replace("import os", "import os\nimport math"), "one")
    dynamic = base + "\n\ndef pick(name):\n    return globals()[name]\n"
    assert closure(dynamic, "one") != closure(dynamic.replace("ax.bar(", "ax.barh("), "one"), \
        "a module using globals() must be hashed whole"


def test_project_imports_are_found_transitively(tmp_path):
    panels = tmp_path / "panels"
    (panels / "pkg").mkdir(parents=True)
    (panels / "a.py").write_text("import numpy\nfrom b import x\n")
    (panels / "b.py").write_text("def f():\n    import pkg.c\n")
    (panels / "pkg" / "__init__.py").write_text("")
    (panels / "pkg" / "c.py").write_text("from pkg import d\n")
    (panels / "pkg" / "d.py").write_text("")
    (panels / "unused.py").write_text("")
    found = {p.relative_to(panels.resolve()).as_posix() for p in project_imports(panels / "a.py", panels)}
    assert found == {"b.py", "pkg/__init__.py", "pkg/c.py", "pkg/d.py"}


# ------------------------------------------------------------------ watch and clean


def _watch_events(root, on_build, count: int) -> list:
    """Run :func:`composer.cli.watch.watch` on figure ``fig`` in a thread until ``count`` builds were
    reported (``on_build(event)`` is called with each first); returns the events."""
    from composer.cli.watch import watch

    events: queue.Queue = queue.Queue()
    stop = threading.Event()

    def report(event):
        events.put(event)
        on_build(event)

    thread = threading.Thread(target=watch, args=("fig",), daemon=True,
                              kwargs=dict(root=root, dpi=100, jobs=1, on_build=report, stop_event=stop,
                                          max_builds=count, debounce_ms=100))
    thread.start()
    try:
        got = [events.get(timeout=120) for _ in range(count)]
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive()
    return got


def test_watch_rebuilds_the_changed_panel(warm, render_log):
    def on_build(event):
        if event.error is None and event.result.up_to_date:
            edit(warm / "layouts/fig.toml", "params = { n = 3 }", "params = { n = 5 }")

    first, second = _watch_events(warm, on_build, 2)
    assert first.result.up_to_date and first.changed == ()
    assert second.error is None, second.error
    assert "layouts/fig.toml" in " ".join(second.changed)
    assert second.result.rendered == ("p2",) and render_log() == ["two"]


def test_watch_reports_a_failed_build_and_goes_on(warm):
    from composer.cli.watch import watch

    events = []
    edit(warm / "layouts/fig.toml", 'render = "beta:four"', 'render = "beta:missing"')
    assert watch("fig", root=warm, dpi=100, jobs=1, on_build=events.append, max_builds=1) == 1
    assert events[0].result is None and "missing" in str(events[0].error)


def test_a_fix_saved_while_a_failed_build_ran_is_built(warm):
    """The watcher is closed while a build runs (and while its callback runs): a fix saved then is seen
    once the next watcher started, also after a failed build, whose inputs no manifest records (it was
    lost until the next edit: the preview kept showing the error of a layout already fixed)."""
    edit(warm / "layouts/fig.toml", 'render = "beta:four"', 'render = "beta:missing"')

    def on_build(event):
        if event.error is not None:  # no watcher runs now
            edit(warm / "layouts/fig.toml", 'render = "beta:missing"', 'render = "beta:four"')

    first, second = _watch_events(warm, on_build, 2)
    assert first.result is None and "missing" in str(first.error)
    assert second.error is None, second.error
    assert second.changed == ("layouts/fig.toml",)


def test_an_edit_saved_while_a_build_ran_is_built(warm, monkeypatch, render_log):
    """An edit saved while a build runs (after it read its inputs, before it wrote): the build removes
    the manifest on purpose, and the watcher used to look for changes only through it ("no previous
    build" was skipped), so the edit was never built. The edit lands exactly there: the test's own
    step 6 (_write) makes it before the real one runs."""
    import composer.pipeline as pipeline

    real_write = pipeline._write
    calls = []

    def write_after_an_edit(*args, **kwargs):
        if not calls:
            edit(warm / "layouts/fig.toml", "params = { n = 3 }", "params = { n = 4  }")  # the size changes too
        calls.append(1)
        return real_write(*args, **kwargs)

    monkeypatch.setattr(pipeline, "_write", write_after_an_edit)
    edit(warm / "layouts/fig.toml", "params = { k = 2 }", "params = { k = 4 }")  # the first build works
    first, second = _watch_events(warm, lambda event: None, 2)
    assert first.error is None and first.result.rendered == ("p1",), first
    assert second.error is None, second.error
    assert second.changed == ("layouts/fig.toml",)
    # p1 again too: the first build stored no cache entry (its inputs changed under it)
    assert second.result.rendered == ("p1", "p2") and sorted(render_log()) == ["one", "one", "two"]
    assert load_manifest(warm / "build", "fig") is not None  # the second build saw no edit under it


TEMPORARY_FILES = ("data/sedAb12Cd", "data/4913", "data/three.csv~", "data/.three.csv.swp",
                   "panels/.#alpha.py", "layouts/.fig.toml.swp")


def test_watch_names_only_real_inputs_not_editor_temporary_files(warm):
    """Without a manifest (every project file may be an input) a fix saved while a failed build ran is
    built, and the change named is the layout's, not the temporary files editors and ``sed -i`` write
    beside a file they save (they were reported as changed inputs)."""
    manifest_path(warm / "build", "fig").unlink()
    edit(warm / "layouts/fig.toml", 'render = "beta:four"', 'render = "beta:missing"')

    def on_build(event):
        if event.error is not None:  # no watcher runs now
            for shown in TEMPORARY_FILES:
                (warm / shown).write_text("temporary")
            edit(warm / "layouts/fig.toml", 'render = "beta:missing"', 'render = "beta:four"')

    first, second = _watch_events(warm, on_build, 2)
    assert first.error is not None
    assert second.error is None, second.error
    assert second.changed == ("layouts/fig.toml",)


def test_a_save_that_changes_no_content_or_an_editor_file_is_no_change(warm):
    """A change is an input's content changing: after a good build, writing a panel module with the text
    it had, or an editor's temporary file beside it, rebuilds nothing; a real edit does."""
    from composer.cli.watch import _changed_inputs, _relevant
    from composer.incremental.manifest import options
    from composer.stages.inputs import Project

    project, out_dir = Project.at(warm), warm / "build"
    opts = options(("svg", "pdf", "png"), 100.0)
    module = warm / "panels/alpha.py"
    module.write_text(module.read_text())
    paths = [module, *(warm / shown for shown in TEMPORARY_FILES)]
    for path in paths[1:]:
        path.write_text("temporary")
    assert _changed_inputs(project, "fig", out_dir, None, opts, True, paths) == ()
    assert _changed_inputs(project, "fig", out_dir, None, opts, False, paths) == ("panels/alpha.py",)
    edit(module, "[0, k, 0], color", "[0, k, 1], color")
    assert _changed_inputs(project, "fig", out_dir, None, opts, True, paths) == ("panels/alpha.py",)
    manifest_path(out_dir, "fig").unlink()  # without a manifest: any project file but temporary ones
    assert [p.name for p in paths if _relevant(project, "fig", out_dir, p)] == ["alpha.py"]
    assert _relevant(project, "fig", out_dir, warm / "data/three.csv")


def test_clean_removes_what_composer_wrote(warm, capsys):
    shutil.copy(warm / "layouts" / "fig.toml", warm / "layouts" / "other.toml")
    build("other", root=warm, formats=("svg",))
    (warm / "build" / "notes.txt").write_text("mine")
    keys = [r["key"] for r in load_manifest(warm / "build", "fig")["panels"].values()]

    assert main(["clean", "fig", "--root", str(warm)]) == 0
    assert "removed" in capsys.readouterr().out
    left = {p.name for p in (warm / "build").iterdir()}
    assert not {"fig.svg", "fig.pdf", "fig.png", ".fig.manifest.json"} & left
    assert {"other.svg", ".other.manifest.json", "notes.txt"} <= left
    # other's layout is fig's: its manifest names the same panel entries, so they stay (it is still warm)
    assert all(PanelCache(cache_dir(warm)).path(k).exists() for k in keys)
    assert (warm / "build" / ".cache" / "text" / "other.json").is_file()
    assert not (warm / "build" / ".cache" / "text" / "fig.json").exists()

    assert main(["clean", "--root", str(warm)]) == 0
    assert {p.name for p in (warm / "build").iterdir()} == {"notes.txt"}


def test_clean_name_keeps_the_panel_entries_another_figure_names(warm, capsys):
    """`compose clean fig` deletes fig's panel entries except those another figure's manifest names
    (same renderer and inputs: same key); they were deleted, and the other figure's next build rendered
    again. Here other.toml shares p1 and p2 (same lines) and has no p3, p4."""
    text = (warm / "layouts" / "fig.toml").read_text()
    (warm / "layouts" / "other.toml").write_text(text.split("[panels.p3]")[0])
    build("other", root=warm, formats=("svg",))
    store = PanelCache(cache_dir(warm))
    keys = {n: r["key"] for n, r in load_manifest(warm / "build", "fig")["panels"].items()}
    other_keys = {r["key"] for r in load_manifest(warm / "build", "other")["panels"].values()}
    assert other_keys == {keys["p1"], keys["p2"]}

    assert main(["clean", "fig", "--root", str(warm)]) == 0
    capsys.readouterr()
    assert store.path(keys["p1"]).exists() and store.path(keys["p2"]).exists()
    assert not store.path(keys["p3"]).exists() and not store.path(keys["p4"]).exists()
    assert build("other", root=warm, formats=("svg",)).up_to_date


def test_clean_with_a_symlinked_cache_removes_the_link_not_its_target(warm, capsys):
    """build/.cache a symbolic link (the cache on a scratch disk): `compose clean` removes the link and
    leaves the folder it points to (it printed an OSError traceback, after deleting the outputs)."""
    target = warm / "scratch"
    (warm / "build" / ".cache").rename(target)
    (warm / "build" / ".cache").symlink_to(target)
    assert main(["clean", "--root", str(warm)]) == 0
    out, err = capsys.readouterr()
    assert "removed" in out and err == ""
    assert not os.path.lexists(warm / "build" / ".cache")
    assert (target / "panels").is_dir()
    assert {p.name for p in (warm / "build").iterdir()} == set()


def test_clean_that_cannot_delete_says_so_in_one_line(warm, capsys, monkeypatch):
    """A folder this user may not write to: one line, and nothing deleted (checked before deleting);
    an OSError while deleting anyway: one line naming the file and how much was removed before."""
    import composer.incremental.cache as cache

    build_dir = (warm / "build").resolve()
    before = sorted(p.name for p in build_dir.iterdir())
    real_access = os.access
    monkeypatch.setattr(cache.os, "access", lambda path, mode: Path(path).resolve() != build_dir
                        and real_access(path, mode))
    assert main(["clean", "--root", str(warm)]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("compose: error: cannot delete in ") and "Traceback" not in err
    assert "nothing was removed" in err
    assert sorted(p.name for p in build_dir.iterdir()) == before
    monkeypatch.undo()

    def refuse(path, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("shutil.rmtree", refuse)
    assert main(["clean", "--root", str(warm)]) == 1
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.fullmatch(r"compose: error: cannot delete \S*\.cache: Permission denied; \d+ files removed before it\n", err)


def test_progress_display_only_on_a_terminal():
    import io

    from composer.progress import Progress, TerminalProgress, for_terminal

    assert type(for_terminal(io.StringIO())) is Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    screen = Tty()
    display = for_terminal(screen, delay_s=0.0)
    assert isinstance(display, TerminalProgress)
    display.panels(["volume", "rgb"], 4, 6)
    display.close()
    assert "rendering volume, rgb" in screen.getvalue() and "4/6" in screen.getvalue()

    quiet = Tty()
    slow = for_terminal(quiet, delay_s=3600.0)
    slow.panels(["volume"], 0, 6)
    slow.close()
    assert quiet.getvalue() == "", "a quick build showed a progress display"


# ------------------------------------------------------------------ aligned groups and style files


def test_aligned_panels_are_cached_and_rendered_as_a_group(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    edit(root / "layouts/fig.toml", "[[text]]", '[[align]]\npanels = ["p1", "p2"]\naxis = "y"\n\n[[text]]')
    build("fig", root=root, formats=("svg",), jobs=2)
    assert sorted(render_log()) == sorted(ALL)

    # p1's params move its plot area, which moves p2's: the group renders again, p3 and p4 do not
    edit(root / "layouts/fig.toml", "params = { k = 2 }", "params = { k = 3 }")
    result = build("fig", root=root, formats=("svg",), jobs=2)
    assert sorted(render_log()) == ["one", "two"]
    assert result.rendered == ("p1", "p2") and set(result.cached) == {"p3", "p4"}
    fresh = build("fig", root=root, out=tmp_path / "fresh", formats=("svg",), jobs=1, cache=False)
    assert fresh.outputs["svg"].read_bytes() == result.outputs["svg"].read_bytes()
    render_log()

    # moving a member moves the group's canvas alignment: both again
    edit(root / "layouts/fig.toml", 'at = ["32mm", "6mm"]', 'at = ["32mm", "8mm"]')
    assert build("fig", root=root, formats=("svg",), jobs=1).rendered == ("p1", "p2")
    assert sorted(render_log()) == ["one", "two"]


def test_a_style_file_is_an_input(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    (root / "styles").mkdir()
    (root / "styles" / "paper.toml").write_text('[rcparams]\n"lines.linewidth" = 1.0\n')
    edit(root / "layouts/fig.toml", 'font_size = "7pt"', 'font_size = "7pt"\nstyle = "../styles/paper.toml"')
    build("fig", root=root, formats=("svg",))
    assert "styles/paper.toml" in load_manifest(root / "build", "fig")["inputs"]
    render_log()
    (root / "styles" / "paper.toml").write_text('[rcparams]\n"lines.linewidth" = 2.0\n')
    out, _ = run_cli(root, "--format", "svg")
    assert out.startswith("built fig"), out
    assert sorted(render_log()) == sorted(ALL)  # rcParams reach every panel


def test_the_cache_is_pruned_least_recently_used_first(warm, monkeypatch):
    import composer.incremental.cache as cache_module

    store = PanelCache(cache_dir(warm))
    keys = [rec["key"] for rec in load_manifest(warm / "build", "fig")["panels"].values()]
    sizes = {k: store.path(k).stat().st_size for k in keys}
    for i, key in enumerate(keys):  # last use: keys[0] longest ago
        os.utime(store.path(key), ns=(10**18 + i * 10**9, 10**18 + i * 10**9))
    limit = sum(sizes.values()) - 1  # one byte over: prune down to 3/4 of the limit
    deleted = store.prune(limit)
    left = [k for k in keys if store.path(k).exists()]
    assert deleted == keys[:len(deleted)], "not the least recently used first"
    assert sum(sizes[k] for k in left) <= limit * 3 // 4 < sum(sizes[k] for k in left) + sizes[deleted[-1]]
    assert store.prune(10**12) == []

    # a store prunes when over the limit, but never the entries it just wrote
    monkeypatch.setattr(cache_module, "MAX_CACHE_BYTES", 1)
    result = build("fig", root=warm, out=warm / "other", formats=("svg",))
    assert set(result.rendered) == set(deleted_panels(warm, deleted))
    assert {p.name for p in cache_dir(warm).glob("*/*")} == set(deleted)

    # a successful build marks the entries it used as used now
    monkeypatch.setattr(cache_module, "MAX_CACHE_BYTES", 1 << 30)
    os.utime(store.path(deleted[0]), ns=(10**18, 10**18))
    result = build("fig", root=warm, out=warm / "again", formats=("svg",))
    assert deleted_panels(warm, deleted)[0] in result.cached
    assert store.path(deleted[0]).stat().st_mtime_ns > 10**18


def deleted_panels(root: Path, deleted: list[str]) -> list[str]:
    keys = {rec["key"]: name for name, rec in load_manifest(root / "build", "fig")["panels"].items()}
    return [keys[k] for k in deleted]


def test_parallel_and_serial_builds_raise_the_same_first_error(warm):
    """Two broken panels: -j 2 reports the first in layout order, as -j 1 does, and writes nothing."""
    edit(warm / "panels/alpha.py", '    _log("two")\n', '    _log("two")\n    1 / 0\n')
    edit(warm / "panels/beta.py", '    _log("three")\n', '    _log("three")\n    {}["x"]\n')
    # p3 measured slowest last time: it is submitted (and fails) first, yet p2 is first in layout order
    path = manifest_path(warm / "build", "fig")
    record = json.loads(path.read_text())
    record["panels"]["p3"]["seconds"] = 99.0
    path.write_text(json.dumps(record))
    before = {p: p.read_bytes() for p in (warm / "build").rglob("*") if p.is_file()}
    messages = []
    for jobs in (1, 2):
        with pytest.raises(ComposerError) as info:
            build("fig", root=warm, dpi=100, jobs=jobs)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "panels.p2.render" in messages[0] and "ZeroDivisionError" in messages[0]
    assert {p: p.read_bytes() for p in (warm / "build").rglob("*") if p.is_file()} == before


# ------------------------------------------------------------------ typeset canvas text


def test_canvas_text_is_typeset_once_and_reused(warm, monkeypatch, tmp_path, user_cache):
    import composer.text.metrics as text_module
    from composer.incremental.cache import text_cache_path

    calls = []
    real = text_module.typeset
    monkeypatch.setattr(text_module, "typeset", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    assert text_cache_path(warm, "fig").is_file()

    edit(warm / "layouts/fig.toml", "params = { n = 3 }", "params = { n = 4 }")
    result = build("fig", root=warm, formats=("svg",), jobs=1)
    assert result.rendered == ("p2",) and calls == [], f"typeset again: {calls}"

    edit(warm / "layouts/fig.toml", 'text = "total = {total:.1f}"', 'text = "sum = {total:.1f}"')
    build("fig", root=warm, formats=("svg",), jobs=1)
    assert calls == ["sum = 14.0"], calls

    # a damaged text cache is ignored (and deleted): everything typeset again (an empty user cache too), same bytes
    path = text_cache_path(warm, "fig")
    path.write_bytes(path.read_bytes()[:-10])
    monkeypatch.setenv("COMPOSER_CACHE_DIR", str(tmp_path / "empty-user-cache"))
    calls.clear()
    edit(warm / "layouts/fig.toml", 'at = ["92mm", "6mm"]', 'at = ["91mm", "6mm"]')
    again = build("fig", root=warm, formats=("svg",), jobs=1)
    assert "sum = 14.0" in calls
    fresh = build("fig", root=warm, out=tmp_path / "fresh", formats=("svg",), jobs=1, cache=False)
    assert fresh.outputs["svg"].read_bytes() == again.outputs["svg"].read_bytes()


def test_a_long_lived_process_runs_the_edited_panel_code(warm):
    """Edited panel modules (and the project modules they import) are imported again, even when the
    edit keeps the file's size: the new drawing reaches the SVG (watch mode, notebooks, tests)."""
    svg = warm / "build" / "fig.svg"
    assert b"#d62728" not in svg.read_bytes()
    edit(warm / "panels/helpers.py", "#1f77b4", "#d62728")  # same length, same mtime second possibly
    build("fig", root=warm, dpi=100, jobs=1)
    assert b"#d62728" in svg.read_bytes()
    edit(warm / "panels/alpha.py", "[0, k, 0], color", "[0, k, 0], lw=3, color")
    build("fig", root=warm, dpi=100, jobs=1)
    assert b"stroke-width: 3" in svg.read_bytes()


def test_editable_text_from_the_text_cache_is_the_same_text(tmp_path):
    """``text = "editable"``: a rebuild that takes the canvas text from the text cache writes the same
    ``<text>`` (the cache keeps each line's runs, not only its outlines)."""
    from composer.pipeline import build

    (tmp_path / "layouts").mkdir()
    layout = tmp_path / "layouts" / "ed.toml"
    layout.write_text('[figure]\nwidth = "60mm"\nheight = "20mm"\ntext = "editable"\nprovenance = false\n'
                      '[[text]]\ntext = "Editable $x^2$ words"\nat = ["5mm", "10mm"]\n')
    first = build("ed", root=tmp_path, formats=("svg",)).outputs["svg"].read_bytes()
    assert first.count(b"<text") == 1 and b"Editable" in first
    layout.write_text(layout.read_text().replace('height = "20mm"', 'height = "25mm"'))
    second = build("ed", root=tmp_path, formats=("svg",)).outputs["svg"].read_bytes()
    assert second.count(b"<text") == 1 and b"Editable" in second
    assert re.sub(rb'(height|viewBox)="[^"]*"', b"", first) == re.sub(rb'(height|viewBox)="[^"]*"', b"", second)


def test_a_temporary_file_left_by_a_stopped_build_makes_the_next_build_remove_it(tmp_path):
    """A build killed between writing its temporary files and renaming them leaves the outputs as they
    were, so the next build would be a no-op and the temporary files would stay: it builds instead."""
    import shutil

    from composer.pipeline import build
    from conftest import DEMO

    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    build("demo", root=root, formats=("svg",), dpi=50)
    assert build("demo", root=root, formats=("svg",), dpi=50).up_to_date
    left = root / "build" / ".demo.svg.k1lled.tmp"
    left.write_bytes(b"<svg")
    result = build("demo", root=root, formats=("svg",), dpi=50)
    assert not result.up_to_date and "interrupted" in result.reason
    assert not left.exists()
    assert build("demo", root=root, formats=("svg",), dpi=50).up_to_date


@pytest.mark.e2e
def test_an_edit_anywhere_in_composer_changes_its_fingerprint(tmp_path):
    """The fingerprint (manifest and panel cache keys) hashed composer/incremental/ alone since the package
    was split into subpackages: an edit to composer/stages/ left old outputs "up to date". A copy of the
    package is fingerprinted, then one file of each subpackage is edited in the copy."""
    copy = tmp_path / "composer"
    shutil.copytree(Path(__file__).resolve().parents[2] / "composer", copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = "from composer.incremental.manifest import composer_fingerprint; print(composer_fingerprint())"

    def fingerprint() -> str:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}).stdout.strip()

    seen = [fingerprint()]
    for part in ("stages/compose.py", "svg/css.py", "stages/export/png.py", "pipeline.py", "incremental/cache.py"):
        with open(copy / part, "a", encoding="utf-8") as file:
            file.write("\n# edited\n")
        seen.append(fingerprint())
    assert len(set(seen)) == len(seen), seen


def test_a_panel_key_holds_the_versions_of_the_extras_libraries(monkeypatch):
    """plotly, kaleido, plotnine... draw the panels whose renderers return their objects: their versions,
    read from the installed distributions (the test extra installs them all), are in every panel's key, so an
    upgrade draws those panels again."""
    from importlib import metadata

    from composer.incremental import cache

    versions = cache.extra_versions()
    assert versions["plotly"] == metadata.version("plotly") and versions["kaleido"] == metadata.version("kaleido")
    assert versions["vl_convert"] == metadata.version("vl-convert-python")
    kw = dict(source="s", function="m:f", params={}, data=None, size_pt=(10.0, 10.0), rc={}, raster_ppi=300.0,
              font_file=None, rc_in_force="r")
    before = cache.panel_key(**kw)
    monkeypatch.setattr(cache, "extra_versions", lambda: {**versions, "plotly": "0.0.1"})
    assert cache.panel_key(**kw) != before
