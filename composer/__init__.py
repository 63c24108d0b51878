"""composer: multi-panel scientific figures from a layout file and panel functions.

The public API (documented in ``docs/api.md``)::

    from composer import Figure, build, check, load, BuildResult, ComposerError, ComposerWarning

    result = build("volume_kv", root=".")          # layouts/volume_kv.toml -> build/volume_kv.{svg,pdf,png}
    report = check("volume_kv", root=".")          # the print check, writing nothing
    fig = load("volume_kv", root=".")              # the layout as a Figure to change in code

The package reads in run order (``docs/design.md``): :mod:`composer.layout`
(the format table, model, loader, presets) -> :mod:`composer.stages` (inputs,
typeset, geometry, render, fragment, draw, compose, export) run by
:mod:`composer.pipeline`; beneath them :mod:`composer.svg` (SVG as data),
:mod:`composer.text`, :mod:`composer.mpl` (matplotlib glue),
:mod:`composer.incremental` (manifest, caches), :mod:`composer.sandbox`
(forked workers); :mod:`composer.lint` checks a composition;
:mod:`composer.cli` is the command.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from composer.errors import ComposerError, ComposerWarning
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S
from composer.version import __version__

if TYPE_CHECKING:  # imported on first use: ``import composer`` stays light for the command's error paths
    from composer.api import Figure
    from composer.lint.rules import Report
    from composer.pipeline import BuildResult

__all__ = ["BuildResult", "ComposerError", "ComposerWarning", "Figure", "__version__", "build", "check", "load"]


def build(figure: str | Figure, **options: Any) -> BuildResult:
    """Build a figure and write its outputs.

    Args:
        figure: a figure name (``layouts/NAME.toml`` or ``.py`` under
            ``root``; options as :func:`composer.pipeline.build`: ``root``,
            ``out``, ``formats``, ``dpi``, ``jobs``, ``engine``, ...) or a
            :class:`Figure` (options as :meth:`Figure.build`).

    Returns:
        A :class:`BuildResult`: the files written (by format) and what was
        rendered or taken from the panel cache.

    Raises:
        ComposerError: one line naming the file, key and bad value.
    """
    if isinstance(figure, str):
        from composer.pipeline import build as build_named

        return build_named(figure, **options)
    return figure.build(**options)


def check(figure: str | Figure, *, root: str | Path = ".", jobs: int | None = None,
          timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Report:
    """Compose a figure and run the print check on it; writes nothing.

    ``figure``: a name (``layouts/NAME.toml`` or ``.py`` of the project at
    ``root``) or a :class:`Figure` (its own project; ``root`` is not used).

    Panels render as a build renders them, each stopped after ``timeout_s``
    seconds (None: no limit); see :func:`composer.pipeline.check` and the
    rules in :mod:`composer.lint.rules`.

    Raises:
        ComposerError: the figure cannot be loaded, rendered or composed.
    """
    if isinstance(figure, str):
        from composer.pipeline import check as check_named

        return check_named(figure, root=root, jobs=jobs, timeout_s=timeout_s)
    return figure.check(jobs=jobs, timeout_s=timeout_s)


def load(name: str, *, root: str | Path = ".") -> Figure:
    """The figure ``layouts/NAME.toml`` (or ``.py``) of the project at ``root`` as a :class:`Figure`
    (shows inline in a notebook); see :func:`composer.api.load`.

    Raises:
        ProjectError: no such figure. LayoutError: an unreadable layout file.
    """
    from composer.api import load as load_named

    return load_named(name, root=root)


def __getattr__(name: str) -> Any:
    """``Figure`` and ``BuildResult``, imported when first asked for (PEP 562)."""
    if name == "Figure":
        from composer.api import Figure

        return Figure
    if name == "BuildResult":
        from composer.pipeline import BuildResult

        return BuildResult
    raise AttributeError(f"module 'composer' has no attribute {name!r}")
