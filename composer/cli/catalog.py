"""The figures of a project: what ``compose list`` shows and what ``compose build --all`` builds."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from composer.errors import ComposerError
from composer.layout import sources
from composer.layout.loader import load_layout
from composer.pipeline import FORMATS, BuildResult, build, check_outputs
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, check_timeout
from composer.stages.export import check_chosen
from composer.stages.inputs import Project


@dataclass(frozen=True)
class PanelEntry:
    """One panel of a figure: its name, its source's name (``render``, ``svg``, ``image``...:
    :mod:`composer.layout.sources`), its source as written (a file as the project shows it), and whether
    matplotlib draws it (``compose list`` then names no kind: a renderer's ``module:function`` says it)."""

    name: str
    kind: str
    source: str
    matplotlib: bool = False


@dataclass(frozen=True)
class FigureEntry:
    """One figure of a project.

    Attributes:
        name: the figure's name; layout: its layout file, relative to the root.
        size: ``"180mm x 100mm"`` as the layout writes it ("" if it does not load).
        panels: its panels in layout order.
        error: the one-line error when the layout does not load, else None.
    """

    name: str
    layout: str
    size: str
    panels: tuple[PanelEntry, ...]
    error: str | None = None


def figures(root: str | Path = ".") -> list[FigureEntry]:
    """Every figure of the project at ``root`` with its panels, sorted by name.

    A layout that does not load is listed with its error, not raised.

    Raises:
        ProjectError: ``root`` has no ``layouts/`` folder.
    """
    project = Project.at(root)
    entries = []
    for name in project.figures():
        try:
            path = project.layout_path(name)
            shown = project.display(path)
            figure = load_layout(path, name=name, display=shown)
        except ComposerError as exc:
            entries.append(FigureEntry(name=name, layout=f"layouts/{name}.*", size="", panels=(), error=str(exc)))
            continue
        panels = tuple(PanelEntry(p.name, p.kind, project.display(p.source) if isinstance(p.source, Path)
                                  else str(p.source), matplotlib=sources.table(p.kind).matplotlib)
                       for p in figure.panels)
        entries.append(FigureEntry(name=name, layout=shown,
                                   size=f"{figure.spec.width_text} x {figure.spec.height_text}", panels=panels))
    return entries


def build_all(root: str | Path = ".", *, out: str | Path | None = None, formats: tuple[str, ...] = FORMATS,
              dpi: float = 300.0, progress=None, timeout_s: float | None = DEFAULT_TIMEOUT_S,
              engine: str | None = None, pdf_standard: str | None = None) -> dict[str, BuildResult | ComposerError]:
    """Build every figure of the project; a figure that fails does not stop the others.

    Args:
        progress: called as ``progress(name, result_or_error, seconds)`` after each figure.
        timeout_s, engine, pdf_standard: see :func:`composer.pipeline.build`.

    Returns:
        name -> its :class:`BuildResult`, or the :class:`ComposerError` that stopped it
        (its outputs are then untouched).

    Raises:
        ProjectError: ``root`` is not a project. ComposerError: bad formats, dpi, engine or PDF standard.
    """
    check_outputs(formats, dpi)
    check_timeout(timeout_s)
    check_chosen(engine, pdf_standard)  # refused once, not once per figure
    project = Project.at(root)
    results: dict[str, BuildResult | ComposerError] = {}
    for name in project.figures():
        started = time.perf_counter()
        try:
            results[name] = build(name, root=project.root, out=out, formats=formats, dpi=dpi, timeout_s=timeout_s,
                                  engine=engine, pdf_standard=pdf_standard)
        except ComposerError as exc:
            results[name] = exc
        if progress is not None:
            progress(name, results[name], time.perf_counter() - started)
    return results
