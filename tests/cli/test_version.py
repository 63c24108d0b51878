"""``compose --version`` names the distribution of pyproject.toml (not PyPI's ``composer``, which is
MosaicML's training library with the same import package) and the folder ``import composer`` gave."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import composer
from conftest import run_compose

REPO = Path(__file__).resolve().parents[2]


def test_version_names_the_distribution_and_the_package_folder() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] != "composer"  # MosaicML's distribution on PyPI
    run = run_compose(["--version"], cwd=REPO)
    assert run.returncode == 0, run.stderr
    folder = Path(composer.__file__).resolve().parent
    assert run.stdout == f"{project['name']} {project['version']} ({folder})\n"


def test_version_after_a_figure_name_or_an_option_still_works(capsys) -> None:
    """``compose NAME --version`` and ``compose --root DIR --version`` printed it before the command words
    came (the build's parser took it); they are the short form of build now, whose parser still does."""
    from composer.cli.main import main

    for argv in (["demo", "--version"], ["--root", "somewhere", "--version"], ["build", "--version"]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        assert capsys.readouterr().out == f"figure-composer {composer.__version__} " \
                                          f"({Path(composer.__file__).resolve().parent})\n"
