"""docs/api.md's examples run, and print what their comments say.

Every ```python block of docs/api.md is run, in order, in one namespace, in a
project made by ``compose new demo`` (the page's setup). A line
``print(...)  # text`` must print exactly ``text``, or, when ``text`` ends in
``...``, a line starting with what stands before it. The expected values in
those comments were worked out by hand (a 120 mm PNG at 150 dpi is
round(120 / 25.4 * 150) = 709 px wide), not taken from a run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from composer.cli.main import main

API_MD = Path(__file__).resolve().parents[1] / "docs" / "api.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
PRINT = re.compile(r"^\s*print\(.*\)\s+# (.*)$")


def blocks() -> list[str]:
    return BLOCK.findall(API_MD.read_text(encoding="utf-8"))


def test_the_page_has_examples_with_printed_results() -> None:
    found = blocks()
    assert len(found) >= 6
    assert sum(bool(PRINT.match(line)) for b in found for line in b.splitlines()) >= 10


def test_examples_run_and_print_what_they_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["new", "demo", "--root", str(tmp_path / "proj")]) == 0
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.syspath_prepend(str(tmp_path / "proj"))
    capsys.readouterr()
    namespace: dict[str, object] = {"__name__": "api_md"}
    for number, block in enumerate(blocks(), start=1):
        printed: list[tuple[int, str]] = []

        def record(*args: object, _printed: list[tuple[int, str]] = printed) -> None:
            _printed.append((sys._getframe(1).f_lineno, " ".join(str(a) for a in args)))

        namespace["print"] = record
        exec(compile(block, f"docs/api.md block {number}", "exec"), namespace)  # noqa: S102 - the page's own examples
        lines = block.splitlines()
        for lineno, text in printed:
            match = PRINT.match(lines[lineno - 1])
            if match is None:
                continue
            expected = match.group(1)
            where = f"docs/api.md block {number}, line {lineno}: {lines[lineno - 1].strip()}"
            if expected.endswith("..."):
                assert text.startswith(expected[:-3]), f"{where}\nprinted: {text}"
            else:
                assert text == expected, f"{where}\nprinted: {text}"
        commented = sum(bool(PRINT.match(line)) for line in lines)
        checked = sum(bool(PRINT.match(lines[n - 1])) for n, _ in printed)
        assert checked >= commented, f"docs/api.md block {number}: a commented print did not run"
