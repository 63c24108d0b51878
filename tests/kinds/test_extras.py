"""The optional extras a panel module's imports come from (:mod:`composer.kinds.extras`): each is an extra of
pyproject.toml that installs its modules, and a missing one is named with what to install."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest

from composer.kinds.extras import EXTRAS, install_hint
from composer.stages.usercode import describe

PYPROJECT = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("extra", list(EXTRAS), ids=lambda e: e.name)
def test_each_extra_is_pyprojects_and_installs_its_modules(extra):
    """Its name is an extra of pyproject.toml, and each module is one of that extra's requirements (a
    distribution's name, ``-`` for ``_``, possibly with a suffix: vl_convert is vl-convert-python), which the
    test extra installs too."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert extra.name in extras and f"figure-composer[{extra.name}]" in extras["test"]
    requirements = [re.split(r"[<>=!~ \[]", r)[0].lower() for r in extras[extra.name]]
    for module in extra.modules:
        assert any(r == module.replace("_", "-") or r.startswith(module.replace("_", "-") + "-") for r in requirements)


def test_a_missing_library_of_an_extra_is_named_with_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "plotnine", None)  # import plotnine raises ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError) as caught:
        import plotnine  # noqa: F401
    text = describe(caught.value, None)
    assert "\n" not in text and text.startswith("ModuleNotFoundError: ")
    assert text.endswith("; composer's optional extra 'plots' installs it: pip install 'figure-composer[plots]'")


def test_other_missing_modules_get_no_hint():
    assert install_hint("seaborn.not_here") == "" and install_hint("numpyy") == "" and install_hint(None) == ""
    assert "figure-composer[plotly]" in install_hint("kaleido") and "figure-composer[vega]" in install_hint("altair")
