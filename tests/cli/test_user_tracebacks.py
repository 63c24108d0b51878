"""An error in the user's own code (a renderer, ``values()``, a Python layout's ``layout()``) shows, below
its one line, the frames of the user's code: file and line, function, the source line, most recent
call last, composer's frames hidden; ``-v`` shows every frame, composer's too. The frames are made
where the code ran (a forked worker) and carried back as data (``ComposerError.frames``).

The expected lines are worked out by hand from the files the tests write (their line numbers are
written beside them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import composer
from composer.cli.main import main
from composer.cli.tracebacks import traceback_lines
from composer.errors import Frame
from errlines import frames_block, without_frames

COMPOSER = Path(composer.__file__).resolve().parent
HEAD = re.compile(r"^  traceback of your code \(most recent call last; -v shows all (\d+) frames\):$")

PANEL = '''\
"""A panel module whose code fails on known lines."""


def ratio(total, count):
    return total / count


def broken(fig, data):
    ax = fig.add_subplot()
    ax.plot([0, 1], [ratio(1.0, 0.0), 2])


def misfit(fig, data):
    ax = fig.add_subplot()
    ax.plot([0, 1], [1, 2, 3])


def spins(fig, data):
    n = 0
    while True:
        n += 1


def fine(fig, data):
    fig.add_subplot().plot([0, 1], [0, 1])


def values(data):
    return {"total": ratio(2.0, 0.0)}
'''
# the lines above: ratio's return is line 5, broken's plot line 10, misfit's plot line 15, the loop
# lines 20-21, values' return line 29

LAYOUT = '''\
[figure]
width = "40mm"
height = "30mm"

[panels.p]
render = "failing:{function}"
at = ["0mm", "0mm"]
size = ["40mm", "30mm"]
'''


def _project(root: Path, function: str, extra: str = "") -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "failing.py").write_text(PANEL)
    (root / "layouts" / "fig.toml").write_text(LAYOUT.format(function=function) + extra)
    return root


def _fails(capsys, root: Path, *argv: str, name: str = "fig") -> tuple[str, list[str]]:
    """Build in the project's folder (paths are shown relative to it): the error line and the block below."""
    capsys.readouterr()
    assert main([name, "--format", "svg", *argv]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    lines = without_frames(captured.err)
    assert len(lines) == 1 and lines[0].startswith("compose: error: "), captured.err
    return lines[0], frames_block(captured.err)


def _no_composer_frame(block: list[str]) -> None:
    assert not any(str(COMPOSER) in line or line.lstrip().startswith("composer/") for line in block), block


@pytest.mark.parametrize("jobs", ["1", "2"], ids=["a worker", "a task process"])
def test_a_renderers_error_shows_the_users_frames_and_no_composers(jobs, tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "broken")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root, "-j", jobs)
    assert line == ("compose: error: layouts/fig.toml:6:1: panels.p.render: panel 'p': failing:broken raised "
                    "ZeroDivisionError: float division by zero (at failing.py:5 in ratio: return total / count)")
    assert HEAD.match(block[0]), block
    assert block[1:] == ["    panels/failing.py:10 in broken",
                         "      ax.plot([0, 1], [ratio(1.0, 0.0), 2])",
                         "    panels/failing.py:5 in ratio",
                         "      return total / count"]
    _no_composer_frame(block)


def test_verbose_shows_composers_frames_too(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "broken")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root, "-v")
    assert block[0] == "  traceback (most recent call last):"
    frames = block[1:]
    assert frames[-4:] == ["    panels/failing.py:10 in broken", "      ax.plot([0, 1], [ratio(1.0, 0.0), 2])",
                           "    panels/failing.py:5 in ratio", "      return total / count"]
    places = [f for f in frames if not f.startswith("      ")]
    assert any(p.lstrip().startswith(str(COMPOSER)) for p in places), places  # composer's own frames
    assert len(places) > 2
    _, quiet = _fails(capsys, root)
    assert HEAD.match(quiet[0])[1] == str(len(places))  # the count it promised


def test_an_error_inside_a_library_names_it_after_the_users_last_frame(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "misfit")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root)
    assert "failing:misfit raised ValueError: x and y must have same first dimension" in line
    assert block[1:3] == ["    panels/failing.py:15 in misfit", "      ax.plot([0, 1], [1, 2, 3])"]
    assert re.fullmatch(r"    \.\.\. then \d+ frames in matplotlib", block[3]), block
    assert len(block) == 4


def test_values_error_shows_the_users_frames(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "fine", '\n[[text]]\ntext = "{total}"\nat = ["5mm", "5mm"]\n')
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root)
    assert line.startswith("compose: error: layouts/fig.toml:11:1: text[0].text: values() in panels/failing.py raised "
                           "ZeroDivisionError: float division by zero (at failing.py:5 in ratio: "
                           "return total / count)"), line
    assert HEAD.match(block[0]), block
    assert block[1:] == ["    panels/failing.py:29 in values", '      return {"total": ratio(2.0, 0.0)}',
                         "    panels/failing.py:5 in ratio", "      return total / count"]
    _no_composer_frame(block)


def test_a_python_layouts_error_shows_the_users_frames(tmp_path, monkeypatch, capsys):
    root = tmp_path / "p"
    (root / "layouts").mkdir(parents=True)
    (root / "layouts" / "pyfig.py").write_text(
        "def width_mm():\n"                       # 1
        "    columns = 0\n"                       # 2
        "    return 180 / columns\n"              # 3
        "\n"                                      # 4
        "\n"                                      # 5
        "def layout():\n"                         # 6
        "    return {'figure': {'width': f'{width_mm()}mm', 'height': '10mm'}}\n")  # 7
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root, name="pyfig")
    assert line == ("compose: error: layouts/pyfig.py: running the layout raised ZeroDivisionError: division by "
                    "zero (at pyfig.py:3 in width_mm: return 180 / columns)")
    assert HEAD.match(block[0]), block
    assert block[1:] == ["    layouts/pyfig.py:7 in layout",
                         "      return {'figure': {'width': f'{width_mm()}mm', 'height': '10mm'}}",
                         "    layouts/pyfig.py:3 in width_mm",
                         "      return 180 / columns"]
    _no_composer_frame(block)


def test_a_hanging_renderer_shows_the_line_it_hung_on(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "spins")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root, "--timeout", "1")
    # the loop is lines 20-21: the worker is stopped on either (the jump back is line 20's)
    at = {"20": "while True:", "21": "n += 1"}
    found = re.search(r"failing:spins did not finish: still running after 1 s \(the timeout\) "
                      r"\(at failing\.py:(\d+) in spins: (.*)\)$", line)
    assert found and at[found[1]] == found[2], line
    assert block[1:] == [f"    panels/failing.py:{found[1]} in spins", f"      {found[2]}"]


def test_a_layout_error_has_no_frames(tmp_path, monkeypatch, capsys):
    root = _project(tmp_path / "p", "fine", '\n[panels.q]\nrender = "failing:fine"\nat = ["1mm", "1mm"]\n'
                                            'size = ["5mm", "5mm"]\nwidht = "3mm"\n')
    monkeypatch.chdir(root)
    capsys.readouterr()
    assert main(["fig", "--format", "svg", "-v"]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "panels.q.widht" in err, err


def test_callers_above_composer_are_not_the_users_frames():
    """A script, notebook or test that called composer is above composer's first frame: not shown
    without -v, though it is no library's; the user's code composer called is."""
    user = "/home/u/project/panels/fig.py"
    frames = (Frame("/home/u/script.py", 3, "<module>", "build('fig')"),
              Frame(str(COMPOSER / "pipeline.py"), 10, "build", "x"),
              Frame(user, 5, "heat", "1 / 0"))
    lines = traceback_lines(frames, verbose=False)
    assert lines == ["  traceback of your code (most recent call last; -v shows all 3 frames):",
                     f"    {user}:5 in heat", "      1 / 0"]
    assert len(traceback_lines(frames, verbose=True)) == 1 + 2 * 3
    assert traceback_lines((), verbose=True) == []


HOSTILE = '''\
class Mute(Exception):
    def __str__(self):
        raise RuntimeError("no str")


def mute(fig, data):
    raise Mute()


def loud(fig, data):
    raise ValueError("red \\x1b[31mtext\\x07 here")


def deep(fig, data):
    return deep(fig, data)
'''
# the lines above: mute's raise is line 7, loud's line 11, deep's return line 15


def _hostile(root: Path, function: str) -> Path:
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "panels" / "hostile.py").write_text(HOSTILE)
    (root / "layouts" / "fig.toml").write_text(LAYOUT.replace("failing:{function}", f"hostile:{function}"))
    return root


def test_an_exception_whose_str_fails_is_named_not_the_error_of_its_str(tmp_path, monkeypatch, capsys):
    """Python's traceback says ``<exception str() failed>``; the error raised by ``__str__`` is not the
    user's error (it was named, at ``__str__``'s line, before)."""
    root = _hostile(tmp_path / "p", "mute")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root)
    assert line == ("compose: error: layouts/fig.toml:6:1: panels.p.render: panel 'p': hostile:mute raised "
                    "Mute: <str() failed: RuntimeError> (at hostile.py:7 in mute: raise Mute())")
    assert block[1:] == ["    panels/hostile.py:7 in mute", "      raise Mute()"]


def test_control_characters_of_a_message_are_escaped(tmp_path, monkeypatch, capsys):
    root = _hostile(tmp_path / "p", "loud")
    monkeypatch.chdir(root)
    line, _ = _fails(capsys, root)
    assert "raised ValueError: red \\x1b[31mtext\\x07 here (at hostile.py:11 in loud" in line, line
    assert "\x1b" not in line and "\x07" not in line


def test_a_runaway_recursion_shows_its_frame_three_times_then_a_count(tmp_path, monkeypatch, capsys):
    """As Python's own traceback (``[Previous line repeated 996 more times]``): not 1,000 frames of
    two lines each."""
    root = _hostile(tmp_path / "p", "deep")
    monkeypatch.chdir(root)
    line, block = _fails(capsys, root)
    assert "hostile:deep raised RecursionError: maximum recursion depth exceeded" in line
    assert HEAD.match(block[0]), block
    frame = ["    panels/hostile.py:15 in deep", "      return deep(fig, data)"]
    assert block[1:7] == frame * 3
    total = int(HEAD.match(block[0])[1])
    repeated = re.fullmatch(r"    \[the frame above repeated (\d+) more times\]", block[7])
    assert repeated, block[:9]
    assert len(block) == 8  # nothing after it: the recursion is where it was raised
    # every frame is counted: the 3 shown and the rest, out of all the traceback's frames (composer's too)
    assert 3 + int(repeated[1]) < total


def test_repeated_frames_are_cut_only_when_back_to_back():
    a = Frame("/u/p/panels/f.py", 3, "a", "b()")
    b = Frame("/u/p/panels/f.py", 7, "b", "a()")
    lines = traceback_lines((a, a, a, a, a), verbose=True)
    assert lines[1:] == ["    /u/p/panels/f.py:3 in a", "      b()"] * 3 + ["    [the frame above repeated 2 more times]"]
    lines = traceback_lines((a, a, a, a, b, a), verbose=True)
    assert lines[1:] == (["    /u/p/panels/f.py:3 in a", "      b()"] * 3 + ["    [the frame above repeated 1 more time]"]
                         + ["    /u/p/panels/f.py:7 in b", "      a()", "    /u/p/panels/f.py:3 in a", "      b()"])
    lines = traceback_lines((a, b, a, b), verbose=True)  # no run: all shown
    assert len(lines) == 1 + 2 * 4
