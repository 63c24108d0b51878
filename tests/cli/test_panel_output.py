"""What panel code prints (stdout, stderr, warnings, its child processes) is shown after composer's
line, once per panel, prefixed with the panel's name, in layout order; ``--verbose`` shows it live."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import DEMO, ForkedCompose, run_compose
from errlines import without_frames

# both panels of the demo print: from Python, at the file-descriptor level, from a child process,
# and a Python warning; panel a sleeps a little first, so with -j 2 b's lines are read first
NOISY = '''
import os, subprocess, sys, time, warnings
import numpy as np

def line(fig, data, n=10):
    time.sleep(0.3)
    print("a says hello")
    ax = fig.add_subplot(); ax.plot(np.arange(n)); return {"peak": (ax, n - 1, float(n - 1))}

def heat(fig, data):
    print("b: one")
    sys.stderr.write("b: two on stderr\\n")
    os.write(2, b"b: three from C\\n")
    subprocess.run(["echo", "b: four from a child"], check=True)
    warnings.warn("b: five")
    fig.add_subplot().plot([0, 1])

def flood(fig, data):
    for _ in range(1000):
        sys.stdout.write("y" * 99 + "\\n")
    fig.add_subplot().plot([0, 1])

def values(data):
    return {"total": float(np.sum(data["y"]))}
'''

EXPECTED = [
    "  a: a says hello",
    "  b: b: one",
    "  b: b: two on stderr",
    "  b: b: three from C",
    "  b: b: four from a child",
    "  b: UserWarning: b: five (demo.py:15)",
]


def _project(tmp_path, source=NOISY):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    (root / "panels" / "demo.py").write_text(source)
    return root


def _compose(root, *args):
    """stdout and stderr merged, as a terminal shows them."""
    done = run_compose(["demo", "--root", root, "--format", "svg", *args], merged=True)
    assert done.returncode == 0, done.stdout
    return [line for line in done.stdout.splitlines() if "compose: warning: panel photo: " not in line]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_panel_output_follows_the_build_line_prefixed_in_layout_order(tmp_path, jobs):
    lines = _compose(_project(tmp_path), "-j", jobs)
    assert lines[0].startswith("built demo in ")
    assert lines[1:] == EXPECTED


def test_verbose_shows_panel_output_as_it_happens(tmp_path):
    lines = _compose(_project(tmp_path), "-j", "1", "--verbose")
    assert lines[-1].startswith("built demo in ")  # the lines came before the build ended
    assert lines[:-1] == EXPECTED  # -j 1: drawn in layout order, so read in it


def test_cached_panels_say_nothing(tmp_path):
    """A panel taken from the cache did not run: nothing of it is shown (only the panel drawn again)."""
    root = _project(tmp_path)
    _compose(root)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace("params = { n = 8 }", "params = { n = 9 }"))
    lines = _compose(root)
    assert "1 panel from cache" in lines[0]
    assert lines[1:] == ["  a: a says hello"]


def test_warnings_python_ignores_stay_ignored(tmp_path):
    """A ResourceWarning (a file left open: ``json.load(open(...))``) and a DeprecationWarning raised in
    panel code are ignored by Python's default filters, so composer shows neither; a UserWarning it shows
    (composer catches warnings to find missing glyphs, and used to show every caught one again)."""
    root = _project(tmp_path, NOISY.replace('    warnings.warn("b: five")',
                                            '    open(__file__).read()\n'
                                            '    warnings.warn("old", DeprecationWarning)\n'
                                            '    warnings.warn("b: five")'))
    lines = _compose(root, "-j", "1")
    assert lines[1:] == EXPECTED[:-1] + ["  b: UserWarning: b: five (demo.py:17)"], lines


def test_control_characters_are_shown_escaped_not_sent_to_the_terminal(tmp_path):
    """A panel printing an escape sequence (clear the screen, set the window title) does not act on the
    user's terminal: control characters other than tab are shown as ``\\xNN``."""
    root = _project(tmp_path, NOISY.replace('    print("b: one")', '    os.write(1, b"\\x1b[2J\\x1b]0;pwned\\x07 and\\ttab\\n")'))
    lines = _compose(root, "-j", "1")
    assert lines[2] == "  b: \\x1b[2J\\x1b]0;pwned\\x07 and\ttab", lines
    assert "\x1b" not in "\n".join(lines)


def test_a_flood_is_cut_at_64_kib(tmp_path):
    root = _project(tmp_path)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('render = "demo:heat"', 'render = "demo:flood"'))
    lines = _compose(root, "-j", "1")
    flood = [line for line in lines if line.startswith("  b: ")]
    # 1000 lines of 100 bytes: the first 65536 bytes are 655 whole lines and 36 bytes of the next
    assert flood[:655] == ["  b: " + "y" * 99] * 655
    assert flood[655:] == ["  b: " + "y" * 36, "  b: ... (34464 more bytes)"]


def test_the_python_api_returns_it_and_prints_nothing(tmp_path, capfd):
    from composer.pipeline import build

    root = _project(tmp_path)
    result = build("demo", root=root, formats=("svg",), jobs=2)
    shown = capfd.readouterr()
    assert "says hello" not in shown.out + shown.err and "b: one" not in shown.out + shown.err
    assert list(result.output) == ["a", "b"]  # layout order
    assert result.output["a"] == "a says hello\n"
    assert result.output["b"].splitlines() == [line[len("  b: "):] for line in EXPECTED[1:]]


def test_a_failing_panels_output_follows_the_error_line(tmp_path):
    root = _project(tmp_path, NOISY.replace('    fig.add_subplot().plot([0, 1])\n\ndef flood',
                                            '    raise ValueError("bad")\n\ndef flood'))
    done = run_compose(["demo", "--root", root, "--format", "svg"])
    assert done.returncode == 1
    lines = without_frames(done.stderr)  # the error line, then (after the user's frames) the panels' output
    assert lines[0].startswith("compose: error: layouts/demo.toml:16:1: panels.b.render: panel 'b': demo:heat raised "
                               "ValueError: bad")
    assert lines[1:] == EXPECTED  # a's too: every panel ran
    assert done.stdout == ""


@pytest.mark.e2e
@pytest.mark.parametrize("mode", ["watch", "serve"])
def test_watch_and_serve_show_a_failing_panels_output_after_its_error(tmp_path, mode):
    """As a plain build does (above): the error line, then what the panels printed (they showed only the
    error)."""
    import signal
    import time

    marker = tmp_path / "failed"  # outside the project: written just before the panel raises
    root = _project(tmp_path, NOISY.replace('    fig.add_subplot().plot([0, 1])\n\ndef flood',
                                            f'    open({str(marker)!r}, "w").close()\n'
                                            '    raise ValueError("bad")\n\ndef flood'))
    proc = ForkedCompose([mode, "demo", "--root", str(root), "--format", "svg", "-j", "1"])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(2)  # the first (failing) build ends and is reported
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    lines = [line for line in without_frames(err) if "panel photo: " not in line]
    first = next(i for i, line in enumerate(lines) if line.startswith("compose: error: "))
    assert "demo:heat raised ValueError: bad" in lines[first]
    assert lines[first + 1:first + 1 + len(EXPECTED)] == EXPECTED, lines


def test_matplotlibs_findfont_lines_never_reach_the_terminal_raw(tmp_path):
    """A font matplotlib looks up in the compose process (canvas mathtext here) and does not find is one
    ``compose: warning: matplotlib: ...`` line; what it logs in a panel's worker is that panel's output."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text() + '\n[rcparams]\n"mathtext.fontset" = "custom"\n'
                                           '"mathtext.rm" = "Nonexistent Sans"\n')
    done = run_compose(["demo", "--root", root, "--format", "svg"])
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert [line for line in lines if "findfont" in line and not line.startswith(("compose: warning: ", "  "))] == []
    assert lines.count("compose: warning: matplotlib: findfont: Font family ['Nonexistent Sans'] not found. "
                       "Falling back to DejaVu Sans.") == 1


def test_compose_check_shows_it_after_its_report(tmp_path):
    done = run_compose(["check", "demo", "--root", _project(tmp_path), "--json"])
    assert isinstance(json.loads(done.stdout), dict)  # stdout stays JSON: the panels' lines are on stderr
    assert [line for line in done.stderr.splitlines() if line.startswith("  ")] == EXPECTED


def _loud(fig, data):
    print("from a renderer in code")
    fig.add_subplot().plot([0, 1])


def test_figure_build_returns_it_too(tmp_path, capfd):
    from composer import Figure
    from composer.api import Panel

    (tmp_path / "layouts").mkdir()
    fig = Figure("60mm", "40mm", name="solo", root=tmp_path)
    fig.add(Panel("p", render=_loud, at=["0mm", "0mm"], size=["60mm", "40mm"]))
    result = fig.build(formats=("svg",))
    shown = capfd.readouterr()
    assert "from a renderer" not in shown.out + shown.err
    assert result.output == {"p": "from a renderer in code\n"}


def test_what_values_prints_is_shown_like_a_panels_output(tmp_path):
    """``values()`` runs in a worker like a renderer: its prints were dropped; now they come first (it runs
    before any panel), labelled with what ran, and in ``result.output`` too."""
    from composer.pipeline import build

    root = _project(tmp_path, NOISY.replace('def values(data):\n',
                                            'def values(data):\n    print("values: summing", len(data["y"]))\n'))
    lines = _compose(root, "-j", "1")
    assert lines[1:] == ["  values() in panels/demo.py: values: summing 10", *EXPECTED], lines
    shutil.rmtree(root / "build")
    result = build("demo", root=root, formats=("svg",), jobs=1)
    assert list(result.output) == ["values() in panels/demo.py", "a", "b"]
    assert result.output["values() in panels/demo.py"] == "values: summing 10\n"


def test_a_failing_values_output_follows_the_error_line(tmp_path):
    root = _project(tmp_path, NOISY.replace('def values(data):\n',
                                            'def values(data):\n    print("values: about to fail")\n    1 / 0\n'))
    done = run_compose(["demo", "--root", root, "--format", "svg"])
    assert done.returncode == 1 and done.stdout == ""
    lines = without_frames(done.stderr)
    assert lines[0].startswith("compose: error: layouts/demo.toml:5:1: figure.data: values() in panels/demo.py raised "
                               "ZeroDivisionError"), lines
    assert lines[1:] == ["  values() in panels/demo.py: values: about to fail"]
