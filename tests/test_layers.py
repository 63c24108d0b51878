"""The package in layers: every import points down, from the command to SVG as plain data.

Read from the source with :mod:`ast` (no import runs), so a new upward import
fails here whether or not a test reaches the code that does it. Every import
statement counts: at module level, inside a function (a lazy import) and under
``if TYPE_CHECKING:``. Three checks:

- units (a subpackage or a top-level module) in layers: the layers are the ones
  docs/design.md describes; a unit may import its own modules and any lower
  layer, never a higher one, and never another unit of its own layer unless
  listed in ``SIDEWAYS``;
- modules: the graph of imports between composer's modules has no cycle (each
  one found is named, module by module, with the line of each import);
- stages in run order: a module of ``composer/stages`` imports only stages that
  run before it (``STAGES``), unless listed in ``STAGES_BACK``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "composer"

#: lowest first; a unit is a subpackage or a top-level module of composer
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "units", "progress", "version"),
    ("svg", "sandbox", "kinds"),
    ("layout",),
    ("text", "mpl"),
    ("stages", "incremental", "lint"),
    ("pipeline",),
    ("api", "diff", "edit"),
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
                found += [(node.lineno, f"composer.{a.name}") for a in node.names]
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


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``composer/stages/render.py`` -> ``composer.stages.render``; a package's ``__init__.py`` is the package."""
    parts = ("composer", *path.relative_to(package).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Module -> {composer module it imports: line of the first such import}, every import statement
    counted (module level, lazy, ``TYPE_CHECKING``). ``from composer.stages import render`` imports the
    module ``composer.stages.render``; ``from composer.stages.render import save_panel`` and ``import
    composer.stages.render`` the same module. (Python also runs the ``__init__`` of the packages on the
    way; those are edges of their own only where a module names the package itself.)"""
    modules = {module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                    node.module == "composer" or node.module.startswith("composer.")):
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == "composer" or alias.name.startswith("composer."):
                        parts = alias.name.split(".")
                        targets.append(next(".".join(parts[:i]) for i in range(len(parts), 0, -1)
                                            if ".".join(parts[:i]) in modules))
            for target in targets:
                if target != name and target in modules:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
        graph[name] = dict(sorted(edges.items()))
    return graph


def import_cycles(graph: dict[str, dict[str, int]]) -> list[str]:
    """One cycle of each strongly connected set of modules (Tarjan, 1972), as ``a:3 -> b:12 -> a`` (``a``'s
    line 3 imports ``b``, whose line 12 imports ``a``): the shortest one through the set's first module
    (by name). Empty when the graph has no cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            members = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                members.append(w)
                if w == v:
                    break
            if len(members) > 1:
                found.append(sorted(members))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    cycles = []
    for members in sorted(found):
        start, inside = members[0], set(members)
        paths = {start: [start]}
        queue = [start]
        cycle: list[str] = []
        while queue and not cycle:  # breadth first: the shortest way back to start
            v = queue.pop(0)
            for w in graph[v]:
                if w == start:
                    cycle = paths[v] + [start]
                    break
                if w in inside and w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
        cycles.append(" -> ".join(f"{a}:{graph[a][b]}" for a, b in zip(cycle, cycle[1:])) + f" -> {start}")
    return cycles


def test_no_import_cycle_between_modules():
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles between composer's modules (module:line of each import):\n" + "\n".join(cycles)


def test_a_cycle_through_a_lazy_import_is_named(tmp_path):
    """The cycle check sees lazy and ``TYPE_CHECKING`` imports, ``from PACKAGE import MODULE`` and ``import
    a.b``, names each cycle once with its lines, and leaves out modules that only import into one."""
    package = tmp_path / "composer"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from composer.sub import b\n")
    (package / "sub" / "b.py").write_text("def f():\n    from composer import a\n    return a\n")
    (package / "c.py").write_text("import composer.a\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from composer.d import D\n")
    (package / "d.py").write_text("\n\nimport composer.c\n")
    (package / "e.py").write_text("import composer.a\n")  # imports into a cycle, is not part of one
    graph = import_graph(package)
    assert graph["composer.a"] == {"composer.sub.b": 1}
    assert graph["composer.sub.b"] == {"composer.a": 2}
    assert import_cycles(graph) == ["composer.a:1 -> composer.sub.b:2 -> composer.a",
                                    "composer.c:4 -> composer.d:3 -> composer.c"]
    (package / "sub" / "b.py").write_text("def f():\n    return 1\n")
    (package / "d.py").write_text("")
    assert import_cycles(import_graph(package)) == []


#: the modules of ``composer/stages`` in run order (docs/design.md, "Stages"); a dotted name covers a
#: subpackage's modules (``export``: ``export/__init__.py`` and the engines), the most specific name wins
STAGES = (
    "usercode",      # the project's code: imported for the inputs, called to draw
    "pdf",           # a PDF page as SVG, read with the inputs
    "inputs",
    "typeset",
    "geometry",
    "named",         # the elements by name, with their boxes from the geometry (check, overlay, preview)
    "colormaps",     # drawing a panel: what it records for [[colorbar]] ...
    "plotlysvg",     # ... a Plotly figure drawn as SVG at its box (kaleido), for a renderer that returns one
    "vegasvg",       # ... a Vega-Lite spec drawn as SVG at its box (vl-convert): an Altair result, a vegalite file
    "results",       # ... what another plotting library's object a renderer returns draws (result kinds) ...
    "draft",         # ... its renderer run on a Figure of its size
    "aspect",
    "align",
    "anchors",
    "guides",        # collected in the panel's worker, drawn for the compose stage
    "render",        # a draft saved: RenderedPanel
    "fragment",
    "draw",
    "inkscape",
    "mplfiles",
    "sources",       # panel sources (composer/stages/sources/): each draws its panel for the compose stage
    "describe",      # the alt texts and the provenance, written into the canvas by the compose stage
    "compose",
    "overlay",
    "panels",
    "export",
)
#: imports of a later stage that are part of the design
STAGES_BACK = {
    ("mplfiles", "export"),  # matplotlib's meshes in an imported SVG are rasterized by the resvg engine
    ("inputs", "sources"),   # the inputs stage has each panel's source read its file (one module per source)
}


def stage_of(module: str) -> str | None:
    """``composer.stages.export.png`` -> ``export`` (the most specific entry of ``STAGES``); None: not a stage."""
    if not module.startswith("composer.stages."):
        return None
    parts = module.removeprefix("composer.stages.").split(".")
    return next((".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in STAGES), "?")


def test_every_stage_module_has_a_place_in_the_run_order():
    graph = import_graph()
    missing = sorted(m for m in graph if stage_of(m) == "?")
    assert not missing, f"add to STAGES (tests/test_layers.py) at their place in the run order: {missing}"


def test_stages_import_the_stages_before_them():
    graph = import_graph()
    order = {stage: i for i, stage in enumerate(STAGES)}
    bad = []
    for module, edges in graph.items():
        here = stage_of(module)
        for target, line in edges.items():
            there = stage_of(target)
            if here in order and there in order and order[there] > order[here] and (here, there) not in STAGES_BACK:
                bad.append(f"{module}:{line} ({here}) imports {target} ({there}), a later stage")
    assert not bad, "\n".join(bad)
