"""The package in layers: every import points down, from the command to SVG as plain data.

Read from the source with :mod:`ast` (no import runs), so a new upward import
fails here whether or not a test reaches the code that does it. The layers
are the ones docs/design.md describes; a package may import its own modules
and any lower layer, never a higher one, and never another package of its own
layer unless listed in ``SIDEWAYS``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "composer"

#: lowest first; a unit is a subpackage or a top-level module of composer
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "units", "progress"),
    ("svg", "sandbox", "kinds"),
    ("layout",),
    ("text", "mpl"),
    ("stages", "incremental", "lint"),
    ("pipeline",),
    ("api",),
    ("cli",),
    ("__init__",),
)
#: imports between units of one layer that are part of the design
SIDEWAYS = {
    ("units", "errors"),      # a bad length is a LayoutError
    ("text", "mpl"),          # text metrics read matplotlib's fonts through the guarded glue
    ("stages", "text"),
    ("incremental", "stages"),  # the panel cache stores rendered panels
    ("lint", "stages"),       # the check receives the composition: boxes of the geometry stage
}
LEVEL = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def unit_of(module: str) -> str:
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, imported composer module) for every import statement of one file, lazy ones included."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "composer":
                found += [(node.lineno, f"composer.{a.name}") for a in node.names if a.name != "__version__"]
            elif node.module.startswith("composer."):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.append((node.lineno, "relative"))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("composer")]
    return found


FILES = sorted(PACKAGE.rglob("*.py"))


def test_every_unit_has_a_layer():
    units = {unit_of(".".join(("composer", *p.relative_to(PACKAGE).with_suffix("").parts))) for p in FILES}
    assert units <= set(LEVEL), f"not in LAYERS: {sorted(units - set(LEVEL))}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path):
    module = ".".join(("composer", *path.relative_to(PACKAGE).with_suffix("").parts))
    here = unit_of(module)
    bad = []
    for line, target in imports(path):
        if target == "relative":
            bad.append(f"line {line}: relative import (the package uses absolute imports)")
            continue
        there = unit_of(target)
        if there == here:
            continue
        if LEVEL[there] > LEVEL[here] or (LEVEL[there] == LEVEL[here] and (here, there) not in SIDEWAYS):
            bad.append(f"line {line}: {module} ({here}) imports {target} ({there})")
    assert not bad, "\n".join(bad)


def test_an_upward_import_is_caught(tmp_path):
    """The walker sees a lazy import inside a function (the kind that hides a cycle)."""
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from composer.pipeline import build\n    return build\n")
    assert imports(probe) == [(2, "composer.pipeline")]
