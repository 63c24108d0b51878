"""docs/api.md's promises about the public API that no other test holds: the seven public names, a
light ``import composer``, ``py.typed``, ``BuildResult`` frozen, ``ComposerError``'s parts, ``Arrow`` as
``Connector``, ``load``'s errors, ``Figure``'s ``TypeError`` naming the valid keys."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest


def test_the_seven_public_names_import_from_composer():
    """docs/api.md: ``from composer import Figure, build, check, load, BuildResult, ComposerError,
    ComposerWarning``; the error and warning classes are the ones composer.errors defines."""
    import composer
    from composer import BuildResult, ComposerError, ComposerWarning, Figure, build, check, errors, load  # noqa: F401

    assert ComposerError is errors.ComposerError
    assert issubclass(ComposerWarning, UserWarning)
    for sub in ("LayoutError", "DataError", "PanelError", "ProjectError", "SvgError"):
        assert issubclass(getattr(errors, sub), ComposerError), sub
    assert callable(build) and callable(check) and callable(load) and isinstance(Figure, type)
    assert composer.Figure is Figure


@pytest.mark.e2e
def test_import_composer_imports_neither_matplotlib_nor_lxml():
    """docs/api.md: "``import composer`` is light: it imports neither matplotlib nor lxml". A fresh
    interpreter, so nothing earlier in the test session has imported them."""
    code = ("import sys, composer; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('matplotlib', 'lxml')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_package_is_typed():
    """docs/api.md: "The package is typed (``py.typed``)": PEP 561's marker file in the package folder."""
    import composer

    assert (Path(composer.__file__).parent / "py.typed").is_file()


def test_build_result_is_a_frozen_dataclass_with_the_documented_attributes():
    from composer import BuildResult

    assert dataclasses.is_dataclass(BuildResult)
    names = {f.name for f in dataclasses.fields(BuildResult)}
    assert names >= {"outputs", "up_to_date", "reason", "rendered", "cached", "repaired", "written",
                     "seconds", "render_seconds", "report", "warnings"}
    fields = {f.name: f for f in dataclasses.fields(BuildResult)}
    values = {name: None for name in fields if fields[name].default is dataclasses.MISSING
              and fields[name].default_factory is dataclasses.MISSING}
    result = BuildResult(**values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.up_to_date = True  # type: ignore[misc]


def test_composer_error_is_one_line_file_key_problem_with_its_parts():
    """docs/api.md: ``str(error)`` is one line ``file: key.path: problem``; attributes ``message``,
    ``file``, ``key`` hold its parts, ``None`` when not given."""
    from composer import ComposerError

    error = ComposerError("'12parsecs' has unknown unit", file="layouts/x.toml", key="panels.rgb.size[0]")
    assert str(error) == "layouts/x.toml: panels.rgb.size[0]: '12parsecs' has unknown unit"
    assert (error.message, error.file, error.key) == ("'12parsecs' has unknown unit", "layouts/x.toml",
                                                      "panels.rgb.size[0]")
    bare = ComposerError("no figure 'x'")
    assert str(bare) == "no figure 'x'" and bare.file is None and bare.key is None


def test_arrow_is_connector():
    """docs/api.md: ``Connector(from_, to, **keys)`` (also ``Arrow``), taking the ``[[arrow]]`` table."""
    from composer.api import Arrow, Connector

    assert Arrow is Connector
    arrow = Arrow("a.e", "b.w", route="-|")
    assert arrow.table["from"] == "a.e" and arrow.table["to"] == "b.w" and arrow.table["route"] == "-|"


def test_figure_refuses_an_unknown_figure_key_naming_the_valid_ones():
    """docs/api.md: ``Figure(...)`` raises ``TypeError`` for a key the ``[figure]`` table does not have
    (naming the valid keys); the README's ``[figure]`` table lists them."""
    from composer import Figure

    with pytest.raises(TypeError) as err:
        Figure("10mm", "10mm", colour="red")
    message = str(err.value)
    assert "'colour'" in message
    for key in ("font", "font_size", "background", "data", "params", "preset", "engine", "text",
                "raster_ppi", "label_offset"):
        assert key in message, key


def test_figure_refuses_a_bad_name_with_a_layout_error(tmp_path):
    """docs/api.md: ``name`` is letters, digits and ``_``; a bad one raises ``LayoutError``."""
    from composer import Figure
    from composer.errors import LayoutError

    for name in ("a-b", "../x", "a.b"):
        with pytest.raises(LayoutError):
            Figure("10mm", "10mm", name=name, root=tmp_path)
    assert Figure("10mm", "10mm", name="fig_2", root=tmp_path).path == tmp_path / "layouts" / "fig_2.toml"


def test_load_raises_project_error_or_layout_error(tmp_path):
    """docs/api.md ``load``: ``ProjectError`` (no such figure, no ``layouts/`` folder) or ``LayoutError``
    (a file that is not valid TOML)."""
    from composer import load
    from composer.errors import LayoutError, ProjectError

    with pytest.raises(ProjectError, match="layouts"):
        load("fig", root=tmp_path)
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "bad.toml").write_text('[figure]\nwidth = "1mm\n')
    with pytest.raises(ProjectError, match="no figure 'nosuch'.*bad"):
        load("nosuch", root=tmp_path)
    with pytest.raises(LayoutError, match="layouts/bad.toml: not valid TOML.*line 2"):
        load("bad", root=tmp_path)
