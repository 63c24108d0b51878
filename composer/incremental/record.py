"""The manifest of a successful build: what it read, what it wrote, the environment it ran in.

:func:`manifest_contents` gathers them as the JSON data :mod:`composer.incremental.manifest` writes
and reads back (that module, for the no-op path, imports the standard library only).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from composer.incremental import manifest
from composer.kinds import outputs
from composer.layout.model import Figure
from composer.stages.inputs import Project
from composer.text.metrics import check_font


def manifest_contents(project: Project, figure: Figure, opts: Mapping[str, Any],
              digests: Mapping[Path, str | None], records: Mapping[str, Any], keys: Mapping[str, str],
              seconds: Mapping[str, float], before: Mapping[str, float], issued: list[str],
              opened: Mapping[str, str | None]) -> dict:
    """The manifest of a successful build (see :mod:`composer.incremental.manifest`); ``issued``: its warnings;
    ``opened``: the files panel code opened by itself (absolute path -> sha256, None: missing)."""
    import importlib.util
    import sys

    packages = ("matplotlib", "numpy", "lxml", "cairosvg", "cairocffi", "PIL", "tinycss2", "cssselect2",
                "mpl_toolkits", "pyparsing", "kiwisolver")
    env_files = [getattr(sys.modules[p], "__file__", None) for p in packages if p in sys.modules]
    # the engines are imported by the export workers only: their files are found, not imported
    engines = {outputs.engine_for(kind, opts.get("engine", figure.spec.engine))
               for kind in opts["formats"] if kind != outputs.CANVAS}
    for package in sorted({p for e in engines for p in outputs.ENGINES[e].packages}):
        spec = importlib.util.find_spec(package)
        env_files.append(spec.origin if spec is not None else None)
    fonts = {figure.spec.font, figure.spec.label.font}
    fonts |= {t.style.font for t in figure.texts}
    fonts |= {s.text_style.font for s in figure.shapes if s.text_style is not None}
    fonts |= {a.label_style.font for a in figure.arrows if a.label_style is not None}
    env_files += [check_font(f) for f in sorted(fonts)]
    panels = {name: {"key": key, "seconds": round(seconds.get(name, before.get(name, 0.0)), 4)}
              for name, key in keys.items()}
    return {
        "format": manifest.FORMAT,
        "figure": figure.name,
        "environment": manifest.environment(f for f in env_files if f),
        "options": dict(opts),
        "inputs": {manifest.display_path(p, project.root): d for p, d in sorted(digests.items())},
        "opened": {manifest.display_path(Path(p), project.root): d for p, d in sorted(opened.items())},
        "outputs": dict(records),
        "panels": panels,
        "panel_names": [panel.name for panel in figure.panels],  # every panel: compose clean's --panels files
        "warnings": list(issued),
    }
