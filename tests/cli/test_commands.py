"""The command words of ``compose`` (``build``, ``check``, ``watch``, ``serve``, ``list``, ``new``,
``schema``, ``clean``), ``compose NAME...`` as the short form of ``compose build NAME...``, figures named
like a command, and the old spellings (``compose all``, ``compose --all``, ``compose NAME --watch``,
``compose NAME --serve``): each still works, after one line saying what to type instead."""

from __future__ import annotations

import re
import shlex
import shutil
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from composer.cli.main import main
from conftest import ForkedCompose

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "tests" / "projects" / "demo"
#: the command words, as the README's "Command line" lists them
WORDS = ["build", "check", "watch", "serve", "list", "new", "schema", "clean", "diff", "provenance"]


def _demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    return root


def _own(err: str) -> list[str]:
    """stderr without the demo's own warning (its photo panel is below 300 ppi)."""
    return [line for line in err.splitlines() if "panel photo: " not in line]


def test_help_lists_each_command_once(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    listed = re.findall(r"^  ([a-z]+)\b", out.split("commands:", 1)[1], re.M)
    assert listed == WORDS
    assert "compose NAME... [options]   (short for compose build NAME...)" in out
    assert "--serve" not in out and "--watch" not in out  # the old flags are not advertised
    for word in WORDS:  # each has its own --help
        with pytest.raises(SystemExit) as done:
            main([word, "--help"])
        assert done.value.code == 0 and capsys.readouterr().out.startswith(f"usage: compose {word} ")


def test_figures_named_like_commands_are_built_checked_and_listed(tmp_path, capsys):
    root = tmp_path / "p"
    for name in ("list", "check"):
        assert main(["new", name, "--root", str(root)]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == f"build it: compose build {name} --root {root}"
    assert main(["build", "list", "check", "--root", str(root), "--format", "svg"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" in ")[0] for line in out] == ["built list", "built check"]
    assert (root / "build" / "list.svg").is_file() and (root / "build" / "check.svg").is_file()
    assert main(["list", "--names", "--root", str(root)]) == 0  # the word is still the command
    assert capsys.readouterr().out.split() == ["check", "list"]
    assert main(["check", "check", "--root", str(root)]) == 0  # the figure named check, checked
    assert "0 errors, 0 warnings" in capsys.readouterr().out


def test_build_of_several_figures_goes_on_after_a_failure(tmp_path, capsys):
    root = _demo(tmp_path)
    assert main(["build", "nosuch", "demo", "--root", str(root), "--format", "svg"]) == 1
    captured = capsys.readouterr()
    assert _own(captured.err) == ["compose: error: no figure 'nosuch' (no layouts/nosuch.toml or .py); "
                                  "figures are demo"]
    assert captured.out.startswith("built demo in ") and (root / "build" / "demo.svg").is_file()
    assert main(["demo", "demo", "--root", str(root), "--format", "svg"]) == 0  # the short form takes several too
    assert [line.split(" (")[0] for line in capsys.readouterr().out.splitlines()] == ["demo is up to date"] * 2


@pytest.mark.parametrize("old, new", [
    (["all"], ["build", "--all"]),
    (["--all"], ["build", "--all"]),
], ids=["compose all", "compose --all"])
def test_old_build_all_spellings_work_and_say_what_to_type(old, new, tmp_path, capsys):
    root = _demo(tmp_path)
    rest = ["--root", str(root), "--format", "svg"]
    assert main([*old, *rest]) == 0
    captured = capsys.readouterr()
    typed, suggested = shlex.join(["compose", *old, *rest]), shlex.join(["compose", *new, *rest])
    assert _own(captured.err) == [f"compose: warning: {typed!r} is an old spelling, kept for this release; "
                                  f"type: {suggested}"]
    assert (root / "build" / "demo.svg").is_file()
    assert captured.out.splitlines()[-1] == "1 of 1 figures built"
    assert main(shlex.split(suggested)[1:]) == 0  # what it says to type works, and says nothing more
    captured = capsys.readouterr()
    assert _own(captured.err) == [] and captured.out.splitlines()[-1] == "0 of 1 figures built, 1 up to date"


def _stopped(proc: ForkedCompose) -> tuple[int, str]:
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.e2e
@pytest.mark.e2e  # a compose process of its own (forked) stopped with SIGINT
def test_old_watch_flag_works_and_says_what_to_type(tmp_path):
    root = _demo(tmp_path)
    proc = ForkedCompose(["demo", "--watch", "--root", str(root), "--format", "svg"])
    try:
        assert proc.stdout.readline() == "watching demo (Ctrl-C stops)\n"
        assert proc.stdout.readline().startswith("built demo in ")
    finally:
        status, err = _stopped(proc)
    assert status == 130
    assert _own(err) == [f"compose: warning: 'compose demo --watch --root {root} --format svg' is an old spelling, "
                         f"kept for this release; type: compose watch demo --root {root} --format svg",
                         "compose: stopped watching; outputs left as the last build wrote them"]


@pytest.mark.e2e
@pytest.mark.e2e  # a compose process of its own (forked) stopped with SIGINT
def test_old_serve_flag_works_and_says_what_to_type(tmp_path):
    root = _demo(tmp_path)
    proc = ForkedCompose(["demo", "--root", str(root), "--serve", "--format", "svg"])
    try:
        line = proc.stdout.readline()
        match = re.fullmatch(r"serving demo at (http://127\.0\.0\.1:\d+/)\n", line)
        assert match, line
        deadline = time.monotonic() + 60
        while not (root / "build" / "demo.svg").is_file() and time.monotonic() < deadline:
            time.sleep(0.05)
        with urllib.request.urlopen(match.group(1) + "demo.svg", timeout=60) as response:
            assert response.read() == (root / "build" / "demo.svg").read_bytes()
    finally:
        status, err = _stopped(proc)
    assert status == 130
    assert _own(err)[0] == (f"compose: warning: 'compose demo --root {root} --serve --format svg' is an old "
                            f"spelling, kept for this release; type: compose serve demo --root {root} --format svg")


@pytest.mark.parametrize("old, new", [
    (["demo", "--watch", "--check", "--format", "svg"], ["watch", "demo", "--format", "svg"]),
    (["demo", "--watch", "--no-cache", "--debug", "-v", "-j", "2"], ["watch", "demo", "-v", "-j", "2"]),
    (["demo", "--serve", "--no-cache", "--check", "--port", "8001"], ["serve", "demo", "--check", "--port", "8001"]),
    (["--all", "--serve", "--no-cache"], ["serve", "--all"]),
], ids=["watch --check", "watch --no-cache --debug", "serve --no-cache", "serve --all"])
def test_an_old_spelling_says_a_command_that_runs(old, new, capsys):
    """The options the old spelling took and ignored (``compose NAME --watch --check`` never checked) are
    not in what it says to type: the new command refuses them (``compose watch: error: unrecognized
    arguments: --check``)."""
    from composer.cli.main import _build_parser, _old_spelling, _serve_parser, _watch_parser

    _old_spelling("compose", old, _build_parser("compose").parse_args(old))
    err = capsys.readouterr().err
    assert err == (f"compose: warning: {shlex.join(['compose', *old])!r} is an old spelling, kept for this release; "
                   f"type: {shlex.join(['compose', *new])}\n")
    (_serve_parser() if new[0] == "serve" else _watch_parser()).parse_args(new[1:])  # it parses: no SystemExit
