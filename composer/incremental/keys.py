"""Cache keys of a build: digests of every file a figure reads, and each render panel's key.

:func:`input_digests` hashes what a figure reads besides its layout (the build's manifest records
them, :mod:`composer.incremental.manifest`); :func:`panel_keys` gives each render panel the key of
its entry in the panel cache (:func:`composer.incremental.cache.panel_key`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

from composer.incremental import manifest
from composer.incremental.cache import group_signature, panel_key, project_imports, rc_digest, renderer_digest
from composer.layout.model import Figure
from composer.stages.draft import rc_params
from composer.stages.geometry import Box
from composer.stages.guides import kinds_of
from composer.stages.inputs import Inputs, Project
from composer.stages.sources import Reading, source_of
from composer.stages.usercode import call_params
from composer.text.metrics import check_font


def input_digests(project: Project,
                   figure: Figure) -> tuple[dict[str, tuple[str, list[Path]]], dict[Path, str | None]]:
    """Digests of every file a figure reads besides its layout.

    Returns:
        ``(sources, digests)``: ``"module:function"`` -> (renderer source
        digest, project files it covers) for render panels whose module
        exists; and absolute path -> sha256 (None when unreadable) of every
        file the layout names (style, data, svg, image: ``Figure.files``), the
        panel modules with the project modules they import, and the project
        modules a Python layout imports.
    """
    sources: dict[str, tuple[str, list[Path]]] = {}
    paths: set[Path] = {Path(p) for p in figure.files}
    if figure.path.suffix == ".py":
        paths.update(project_imports(figure.path, figure.path.parent))
        paths.update(project_imports(figure.path, project.panels_dir))
    reading = Reading(root=project.root, panels_dir=project.panels_dir, file=str(figure.path), display=project.display)
    for panel in figure.panels:
        paths.update(source_of(panel).files(panel, reading))  # what its source reads beyond Figure.files
        if source_of(panel).table.matplotlib:  # the panel cache's key: the renderer's own code
            module, function = str(panel.source).split(":")
            module_path = project.panels_dir / f"{module}.py"
            if str(panel.source) not in sources and module_path.is_file():
                sources[str(panel.source)] = renderer_digest(module_path, function, project.panels_dir)
    for _, covered in sources.values():
        paths.update(covered)
    return sources, {p.resolve(): manifest.file_digest(p) for p in sorted(paths)}


def panel_keys(figure: Figure, inputs: Inputs, boxes: Mapping[str, Box], groups: list[tuple[str, ...]],
                sources: Mapping[str, tuple[str, list[Path]]], digests: Mapping[Path, str | None], *,
                in_code: Collection[str] = (), opened: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """Render panel name -> cache key (:func:`composer.incremental.cache.panel_key`).

    ``opened``: files the panel modules' own code opened as they were imported (path -> sha256); they
    join every panel's key (which module opened which is not recorded: a change draws every panel).

    ``in_code``: renderers given in code (``"module:function"``); their panels,
    and the aligned groups holding one, get no key: they are never cached.

    A panel in an aligned group also depends on the other members and on the
    boxes (position too) of all of them: its key covers the group's signature.
    """
    spec = figure.spec
    font_file = check_font(spec.font)
    rc_in_force = rc_digest()
    panels = {p.name: p for p in figure.panels}
    own = {}
    groups = [g for g in groups if not any(str(panels[n].source) in in_code for n in g)]
    for group in groups:
        for name in group:
            panel = panels[name]
            func = inputs.renderers[name]
            data_path = panel.data or spec.data
            box = boxes[name]
            own[name] = panel_key(
                source=sources[str(panel.source)][0], function=str(panel.source),
                params=call_params(func, panel, spec, file=inputs.file),
                data=digests.get(Path(data_path).resolve()) if data_path is not None else None,
                size_pt=(box.width_pt, box.height_pt), rc=rc_params(spec, name), raster_ppi=spec.raster_ppi,
                font_file=font_file, rc_in_force=rc_in_force, raster=panel.raster,
                text_mode="editable" if spec.text == "editable" else "paths",  # selectable: the same outlines
                empty=panel.empty, opened=opened, guides=kinds_of(figure, name))
            if panel.aspect is not None and panel.aspect_of == "plot":  # drawn to that aspect within the box
                own[name] = manifest.bytes_digest(f"{own[name]}:aspect={panel.aspect!r}:{panel.aspect_align}".encode())
    keys = {}
    for group in groups:
        if len(group) == 1 and not any(group[0] in a.panels for a in figure.aligns):
            keys[group[0]] = own[group[0]]
            continue
        signature = group_signature(
            [(n, own[n], (boxes[n].x_pt, boxes[n].y_pt, boxes[n].width_pt, boxes[n].height_pt)) for n in group],
            [(list(a.panels), a.axis) for a in figure.aligns if set(a.panels) & set(group)])
        for name in group:
            keys[name] = manifest.bytes_digest(f"{own[name]}:{signature}".encode())
    return keys
