"""Files panel code opens by itself: recorded, rebuilt on change (a fresh process and --watch), listed
by ``compose NAME --deps``; a file it writes into the project is one warning.

Renders are counted as in test_incremental: each renderer appends its name to the file named by
``COMPOSER_TEST_RENDER_LOG`` (outside the project, opened for appending: no input, no warning).
"""

from __future__ import annotations

import hashlib
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from composer.cli.main import main
from composer.incremental.manifest import load as load_manifest
from conftest import run_compose

REPO = Path(__file__).resolve().parents[2]

LAYOUT = """\
[figure]
width = "90mm"
height = "40mm"
font_size = "7pt"

[panels.a]
render = "reader:bars"
at = ["2mm", "4mm"]
size = ["40mm", "32mm"]

[panels.b]
render = "reader:plain"
at = ["46mm", "4mm"]
size = ["40mm", "32mm"]

[[text]]
text = "n = {n}"
at = ["60mm", "38mm"]
"""

READER = '''"""Panel a reads data/x.json by itself (relative to the current folder, the project's, as a script
would) and the file named in outside.txt; panel b reads nothing; values() reads data/v.json."""
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _log(name):
    path = os.environ.get("COMPOSER_TEST_RENDER_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(name + "\\n")


def bars(fig, data):
    _log("bars")
    heights = json.load(open("data/x.json"))
    outside = (ROOT / "outside.txt").read_text().strip()
    if outside:
        with open(outside) as fh:
            heights += json.load(fh)
    ax = fig.add_subplot()
    ax.bar(range(len(heights)), heights)


def plain(fig, data):
    _log("plain")
    fig.add_subplot().plot([0, 1], [1, 0])


def values(data):
    return {"n": json.loads((ROOT / "data" / "v.json").read_text())}
'''


def make_project(root: Path, outside: Path | None = None) -> Path:
    for folder in ("layouts", "panels", "data"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "layouts" / "fig.toml").write_text(LAYOUT)
    (root / "panels" / "reader.py").write_text(READER)
    (root / "data" / "x.json").write_text("[3, 1, 4]")
    (root / "data" / "v.json").write_text("7")
    (root / "outside.txt").write_text(str(outside) if outside else "")
    return root


@pytest.fixture
def render_log(render_log):
    """The panels drawn since the last call, sorted (with two workers they finish in either order)."""
    return lambda: sorted(render_log())


def compose(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``compose fig ARGS`` (in process), run in the project folder."""
    proc = run_compose(["fig", *args], cwd=root)
    assert proc.returncode == 0, proc.stderr
    return proc


def fresh_compose(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``compose fig ARGS`` in a fresh interpreter, run in the project folder."""
    proc = subprocess.run([sys.executable, "-m", "composer.cli", "fig", *args], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.e2e
def test_editing_a_file_a_renderer_opens_rebuilds_that_panel_in_a_fresh_process(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    assert fresh_compose(root, "--format", "svg").stdout.startswith("built fig")
    assert render_log() == ["bars", "plain"]
    assert "up to date" in fresh_compose(root, "--format", "svg").stdout
    recorded = load_manifest(root / "build", "fig")
    assert set(recorded["opened"]) == {"data/x.json", "data/v.json", "outside.txt"}, recorded["opened"]

    (root / "data" / "x.json").write_text("[3, 1, 5]")
    out = fresh_compose(root, "--format", "svg").stdout
    assert out.startswith("built fig") and "rendered a;" in out, out
    assert render_log() == ["bars"], "only the panel that opened the file is drawn again"
    assert "up to date" in fresh_compose(root, "--format", "svg").stdout

    (root / "data" / "v.json").write_text("8")  # what values() opened: the text changes, no panel
    out = fresh_compose(root, "--format", "svg").stdout
    assert out.startswith("built fig") and "wrote svg" in out, out
    assert render_log() == []
    (root / "data" / "x.json").unlink()  # a recorded file that vanished: stale, and the build says why
    proc = subprocess.run([sys.executable, "-m", "composer.cli", "fig", "--format", "svg"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "x.json" in proc.stderr and "up to date" not in proc.stdout


def test_a_stale_cache_entry_is_drawn_again_in_another_output_folder(tmp_path, render_log, monkeypatch):
    """The panel cache keeps the opened files with the entry: a build into a new folder (no manifest)
    does not take the entry once the file changed."""
    from composer.pipeline import build

    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    build("fig", root=root, out=tmp_path / "one", formats=("svg",), jobs=2)
    assert render_log() == ["bars", "plain"]
    assert build("fig", root=root, out=tmp_path / "two", formats=("svg",)).cached == ("a", "b")
    (root / "data" / "x.json").write_text("[2]")
    result = build("fig", root=root, out=tmp_path / "three", formats=("svg",))
    assert result.rendered == ("a",) and result.cached == ("b",)
    assert render_log() == ["bars"]


def test_a_file_outside_the_project_is_recorded_and_listed(tmp_path, render_log):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "more.json").write_text("[9]")
    root = make_project(tmp_path / "proj", outside=elsewhere / "more.json")
    listed = compose(root, "--deps").stdout.splitlines()
    assert listed == sorted([str((elsewhere / "more.json").resolve()), "data/v.json", "data/x.json",
                             "layouts/fig.toml", "outside.txt", "panels/reader.py"])
    assert render_log() == ["bars", "plain"], "--deps builds first when not up to date"
    assert compose(root, "--deps").stdout.splitlines() == listed
    assert render_log() == [], "an up-to-date figure's list comes from its manifest"
    (elsewhere / "more.json").write_text("[10]")
    assert compose(root).stdout.startswith("built fig")
    assert render_log() == ["bars"]


def test_deps_lists_exactly_the_inputs_of_volume_kv(flagship_build, capsys):
    """Worked out by hand from layouts/volume_kv.toml (data = "../data/volume_kv.npz", no style, every
    panel drawn by panels/volume_kv.py) and panels/volume_kv.py (imports json, numpy and matplotlib: no
    project module; it opens no file itself)."""
    out = flagship_build["svg"].parent
    assert main(["volume_kv", "--root", str(REPO), "--out", str(out), "--dpi", "300", "--deps"]) == 0
    assert capsys.readouterr().out == "data/volume_kv.npz\nlayouts/volume_kv.toml\npanels/volume_kv.py\n"
    assert main(["volume_kv", "--root", str(REPO), "--out", str(out), "--dpi", "300", "--deps=make"]) == 0
    assert capsys.readouterr().out == (f"{out}/volume_kv.svg {out}/volume_kv.pdf {out}/volume_kv.png: "
                                       "data/volume_kv.npz layouts/volume_kv.toml panels/volume_kv.py\n"
                                       "data/volume_kv.npz:\nlayouts/volume_kv.toml:\npanels/volume_kv.py:\n")


def test_deps_make_rule_names_the_outputs_of_the_formats_asked(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    (root / "data" / "a b#1:$.json").write_text("[1]")
    (root / "outside.txt").write_text(str(root / "data" / "a b#1:$.json"))
    rule = compose(root, "--deps=make", "--format", "svg,png").stdout
    deps = ["data/a\\ b\\#1\\:$$.json", "data/v.json", "data/x.json", "layouts/fig.toml", "outside.txt",
            "panels/reader.py"]
    # the rule, then an empty rule for each dependency (gcc -MP): a deleted one is no error for make
    assert rule.splitlines() == ["build/fig.svg build/fig.png: " + " ".join(deps), *[f"{d}:" for d in deps]]


def test_a_file_name_with_a_line_break_is_refused_by_deps(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    (root / "data" / "two\nlines.json").write_text("[1]")
    (root / "outside.txt").write_text(str(root / "data" / "two\nlines.json"))
    done = run_compose(["fig", "--deps=make"], cwd=root)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("compose: error: fig: it depends on a file whose name holds a line break")
    assert len(done.stderr.splitlines()) == 1


def howto_makefile() -> str:
    """docs/howto/make/Makefile, the Makefile the Make how-to shows (docs/howto/make.md includes it)."""
    assert "```{literalinclude} make/Makefile" in (REPO / "docs" / "howto" / "make.md").read_text()
    return (REPO / "docs" / "howto" / "make" / "Makefile").read_text()


@pytest.mark.e2e
def test_the_make_howtos_makefile_rebuilds_a_figure_when_its_data_change(tmp_path, render_log):
    if shutil.which("make") is None:
        pytest.skip("make is not installed (Debian: apt-get install make)")
    root = make_project(tmp_path / "proj")
    (root / "Makefile").write_text(howto_makefile())
    command = f"COMPOSE={sys.executable} -m composer.cli"

    def make(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["make", *args, command], cwd=root, capture_output=True, text=True, timeout=300)

    assert make("-q").returncode == 1, "nothing built yet: out of date"
    first = make()
    assert first.returncode == 0, first.stderr
    assert (root / "build" / "fig.d").read_text().startswith("build/fig.svg build/fig.pdf build/fig.png: ")
    assert make("-q").returncode == 0, "just built: up to date"
    (root / "data" / "x.json").write_text("[5, 5]")  # a file only the renderer opens
    assert make("-q").returncode == 1, "make did not see the renderer's data file change"
    again = make()
    assert again.returncode == 0 and "built fig" in again.stdout, again.stdout + again.stderr
    assert make("-q").returncode == 0


def test_savefig_into_the_project_is_one_warning_naming_the_file(tmp_path, render_log):
    root = make_project(tmp_path / "proj")
    source = (root / "panels" / "reader.py").read_text()
    (root / "panels" / "reader.py").write_text(source.replace(
        '    fig.add_subplot().plot([0, 1], [1, 0])\n',
        '    fig.add_subplot().plot([0, 1], [1, 0])\n    fig.savefig(ROOT / "stray.png")\n'))
    proc = compose(root, "--format", "svg")
    warned = [line for line in proc.stderr.splitlines() if line.startswith("compose: warning:")]
    assert len(warned) == 1, proc.stderr
    assert "panel 'b'" in warned[0] and "wrote stray.png into the project" in warned[0]
    assert (root / "stray.png").is_file()
    assert load_manifest(root / "build", "fig")["warnings"] == [warned[0].removeprefix("compose: warning: ")]
    again = compose(root, "--format", "svg")  # up to date: the warning again, once, from the manifest
    assert "up to date" in again.stdout and again.stderr.count("stray.png") == 1


def test_watch_rebuilds_after_a_file_a_renderer_opens_changes(tmp_path, render_log, monkeypatch):
    """Each edit is made once the watcher runs (its second timeout: after the first, the watch loop
    compares with the manifest), so the rebuild comes from the watcher's own event for that file."""
    import watchfiles

    from composer.cli.watch import watch

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "more.json").write_text("[9]")
    root = make_project(tmp_path / "proj", outside=elsewhere / "more.json")
    monkeypatch.chdir(root)
    real, watching, given = watchfiles.watch, threading.Event(), []

    def spying(*paths, **kwargs):
        given.append(paths)
        quiet = 0
        for changes in real(*paths, **kwargs):
            quiet += not changes
            if not changes and quiet == 2:
                watching.set()
            yield changes

    monkeypatch.setattr(watchfiles, "watch", spying)
    events: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=("fig",), daemon=True,
                              kwargs=dict(root=root, formats=("svg",), jobs=1, on_build=events.put, stop_event=stop,
                                          max_builds=3, debounce_ms=100))
    thread.start()
    got = []
    try:
        for edit in (lambda: (root / "data" / "x.json").write_text("[2, 7]"),
                     lambda: (elsewhere / "more.json").write_text("[8]"), None):
            got.append(events.get(timeout=120))
            if edit is not None:
                assert watching.wait(timeout=60)
                watching.clear()
                edit()
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not thread.is_alive()
    assert all(e.error is None for e in got), [str(e.error) for e in got]
    outside = str((elsewhere / "more.json").resolve())
    assert Path(outside) in [Path(p) for p in given[0]], "the file outside the project is watched"
    assert got[1].changed == ("data/x.json",) and got[1].result.rendered == ("a",)
    assert got[2].changed == (outside,) and got[2].result.rendered == ("a",)
    assert render_log() == ["bars", "bars", "bars", "plain"]


def test_a_file_a_panel_module_opens_on_import_or_a_python_layout_opens_is_an_input(tmp_path, render_log,
                                                                                     monkeypatch):
    """Module-level code (``TOP = json.load(open(...))``) runs when composer imports the module, in the
    build's process; a Python layout's ``layout()`` runs in a worker: both are recorded."""
    from composer.pipeline import build

    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    source = (root / "panels" / "reader.py").read_text()
    (root / "panels" / "reader.py").write_text(source.replace(
        'ROOT = Path(__file__).resolve().parents[1]\n',
        'ROOT = Path(__file__).resolve().parents[1]\nTOP = json.loads((ROOT / "data" / "top.json").read_text())\n'
    ).replace("    fig.add_subplot().plot([0, 1], [1, 0])", "    fig.add_subplot().plot([0, 1], [1, TOP])"))
    (root / "data" / "top.json").write_text("2")
    (root / "data" / "size.json").write_text('"40mm"')
    (root / "layouts" / "py.py").write_text(
        "import json\n\n\ndef layout():\n"
        "    height = json.load(open('data/size.json'))\n"
        "    return {'figure': {'width': '90mm', 'height': height},\n"
        "            'panels': {'b': {'render': 'reader:plain', 'at': ['2mm', '2mm'], 'size': ['30mm', '30mm']}}}\n")
    build("py", root=root, formats=("svg",))
    # values() reads data/v.json, but this layout has no text field: values() does not run, reads nothing
    assert set(load_manifest(root / "build", "py")["opened"]) == {"data/size.json", "data/top.json"}
    assert render_log() == ["plain"]
    (root / "data" / "top.json").write_text("3")
    result = build("py", root=root, formats=("svg",))
    assert "data/top.json changed" in result.reason and result.rendered == ("b",)
    assert render_log() == ["plain"]
    (root / "data" / "size.json").write_text('"35mm"')
    result = build("py", root=root, formats=("svg",))
    assert "data/size.json changed" in result.reason
    assert b'height="35mm"' in (root / "build" / "py.svg").read_bytes()


def test_deps_is_for_one_figure_that_builds(tmp_path, render_log, capsys, monkeypatch):
    root = make_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    with pytest.raises(SystemExit) as stop:  # a usage error: argparse's exit, status 1
        main(["build", "--all", "--deps", "--root", str(root)])
    assert stop.value.code == 1 and "--deps lists one figure's dependencies" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main(["build", "fig", "--deps", "--check", "--root", str(root)])
    assert stop.value.code == 1 and "without --watch, --check" in capsys.readouterr().err
    (root / "data" / "x.json").write_text("[1, ")  # the renderer raises: no list, the build's one error line
    assert main(["fig", "--deps", "--root", str(root)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "panel 'a': reader:bars raised JSONDecodeError" in captured.err


def test_panel_code_runs_in_the_project_folder_wherever_compose_was_started(tmp_path):
    """``compose fig --root P`` started in another folder Q: panel a's ``open("data/x.json")`` reads P's
    file, not Q's (it read Q's, or failed; seen: a figure built from another project's data, exit 0),
    and ``--deps`` lists P's file."""
    root = make_project(tmp_path / "proj")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "data").mkdir(parents=True)
    (elsewhere / "data" / "x.json").write_text("[100, 200]")  # another project's data, where compose starts
    done = run_compose(["fig", "--root", root, "--format", "svg", "--no-cache"], cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    # what panel a read is P's file: its digest is that of P's bytes
    assert load_manifest(root / "build", "fig")["opened"] == {
        "data/x.json": hashlib.sha256(b"[3, 1, 4]").hexdigest(), "data/v.json": hashlib.sha256(b"7").hexdigest(),
        "outside.txt": hashlib.sha256(b"").hexdigest()}
    deps = run_compose(["fig", "--root", root, "--deps"], cwd=elsewhere)
    assert deps.returncode == 0, deps.stderr
    deps = deps.stdout.split()
    assert "data/x.json" in deps and not any(str(elsewhere) in d for d in deps), deps
