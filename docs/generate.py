"""Regenerate the files derived from the code: run after changing the layout format or a gallery figure.

    python docs/generate.py            # schema, layout reference, seeds page, gallery thumbnails
    python docs/generate.py --no-build # all but the thumbnails (no figure is built)

- ``docs/layout.schema.json``: ``compose schema`` (editors use it through ``.taplo.toml``);
- ``docs/reference/layout.md``, the site's layout reference, between the ``layout-reference`` markers
  (``compose schema --markdown``);
- ``docs/gallery/NAME.png``: every figure of ``layouts/`` at ``THUMB_DPI``; ``docs/tutorial/*.png`` and
  ``docs/howto/flow_cell.png``, the pictures of the tutorial and the Inkscape how-to;
- ``docs/seeds.md``: every seed figure (``SEED_FIGURES``) with its layout and lines of code before and
  after (``--seeds-only`` writes only it; ``--allow-missing`` gives a layout not built yet a row
  instead of an error; ``--measure-seeds DIR`` checks the typed seed counts against the seed files).

The site's gallery pages (``docs/gallery/*.md``: a thumbnail and caption per figure, and a page per
figure with its layout and renderers, :func:`gallery_pages`) are not kept in git: every Sphinx build
writes them (``docs/_ext/composer_docs.py``); ``--gallery-pages`` writes them without a build.

``tests/layout/test_schema.py``, ``tests/test_gallery.py`` and ``tests/test_seed_figures_b.py`` check that
all of these match the code.
"""

from __future__ import annotations

import argparse
import ast
import functools
import re
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
THUMB_DPI = 100
TUTORIAL_DPI = 150  # the tutorial's pictures (docs/tutorial/), read at full width
LAYOUT_REFERENCE = "docs/reference/layout.md"
COLUMNS = 3


def caption(layout: Path) -> str:
    """A layout's first sentence: of its leading comment (TOML) or of its docstring (Python layout)."""
    if layout.suffix == ".py":
        text = ast.get_docstring(ast.parse(layout.read_text(encoding="utf-8"))) or layout.stem
    else:
        lines = []
        for line in layout.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
        text = " ".join(lines) or layout.stem
    text = " ".join(text.split())
    end = re.search(r"\.(\s|$)", text)
    return (text[:end.start()] if end else text).strip()


GALLERY_INTRO = """\
Every figure in `layouts/`, built by `compose build --all`. Each is a layout, a
panel module and a small data file, and each is a figure a researcher once drew
by hand with matplotlib (the seed scripts, kept outside this repository): the flagship method figure
(`volume_kv`), a pure diagram (`kvpath_delta`), the SpectralQuant paper
figures, the compression-ladder figures, and the Q-TensorFormer architecture
and plots. Where a seed drew several plots that belong together there is also
one multi-panel figure of them (`sq_results`, `qtf_results`). Each figure's page
shows its layout and the renderer functions it uses beside its picture.

The results files of those papers are not available, so the gallery's data
(`data/spectralquant/`, `data/compression_ladder/`, `data/qtensorformer/`) is
**synthetic example data**, written by `data/make_gallery_data.py` in the
shape each seed script reads (same files, keys and columns), and every figure
says so in its footer. A missing data file or key is an error, never
fallback numbers (the Q-TensorFormer seed's anti-pattern). The
compression-ladder seed arrived with its line breaks lost; its three figures
were rebuilt from its text.
[The seed figures](../seeds.md) lists every seed figure (27) with the layout that replaces it, its lines
of code before and after, and what composer adds.
"""


def description(layout: Path) -> str:
    """A layout's whole description: its leading comment lines (TOML) or its docstring (Python layout),
    as Markdown paragraphs (a blank comment line ends a paragraph)."""
    if layout.suffix == ".py":
        return ast.get_docstring(ast.parse(layout.read_text(encoding="utf-8"))) or ""
    lines = []
    for line in layout.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("#").strip())
    return "\n".join(lines)


def page_name(name: str) -> str:
    """The gallery page of figure ``name`` (``sub/x`` -> ``sub--x``: one folder of pages)."""
    return name.replace("/", "--")


def renderer_sources(root: Path, doc: dict) -> list[tuple[str, list[str], str]]:
    """The renderers a layout document uses: (panel module file, its functions used, their source).

    Per ``panels/MODULE.py`` named by a panel's ``render``: the render functions with every
    module-level function and constant they use, transitively, and the module's ``values()`` (it fills
    the layout's text fields), in the module's order, each once (:func:`_renderer_nodes`).
    """
    by_module: dict[str, dict[str, ast.AST]] = {}
    for panel in doc.get("panels", {}).values():
        if isinstance(panel, dict) and isinstance(panel.get("render"), str) and ":" in panel["render"]:
            module, function = panel["render"].split(":")
            found = _renderer_nodes(root / "panels" / f"{module}.py", function, True)
            by_module.setdefault(module, {}).update(found)
    result = []
    for module, nodes in by_module.items():
        text = (root / "panels" / f"{module}.py").read_text(encoding="utf-8")
        lines = text.splitlines()
        unique = {id(node): node for node in nodes.values()}.values()
        parts = []
        for node in sorted(unique, key=lambda n: n.lineno):  # type: ignore[attr-defined]
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
            parts.append("\n".join(lines[first - 1:node.end_lineno]))  # type: ignore[attr-defined]
        functions = sorted(name for name, node in nodes.items() if isinstance(node, ast.FunctionDef))
        result.append((f"panels/{module}.py", functions, "\n\n\n".join(parts)))
    return result


def imported_files(root: Path, layout: Path, doc: dict) -> list[tuple[str, str, str]]:
    """(panel, kind, file relative to the repository) of every svg, pdf and image panel of a layout."""
    found = []
    for name, panel in doc.get("panels", {}).items():
        for kind in ("svg", "pdf", "image"):
            if isinstance(panel, dict) and isinstance(panel.get(kind), str):
                path, top = (layout.parent / panel[kind]).resolve(), root.resolve()
                shown = path.relative_to(top).as_posix() if path.is_relative_to(top) else panel[kind]
                found.append((name, kind, shown))
    return found


def _fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in ``text``."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def figure_page(root: Path, name: str) -> str:
    """The gallery page of one figure: its picture, its layout file and the renderer code it uses."""
    sys.path.insert(0, str(root))
    from composer.layout.loader import read_document
    from composer.pipeline import Project

    layout = Project.at(root).layout_path(name)
    rel = layout.relative_to(root).as_posix()
    text = layout.read_text(encoding="utf-8")
    doc = read_document(layout)
    lang = "python" if layout.suffix == ".py" else "toml"
    out = [f"# {name}", "", f"<!-- generated by docs/generate.py from {rel}; do not edit -->", "",
           f"{caption(layout)}.", "",
           f"![{name}]({page_name(name)}.png)", "",
           f"Built from the repository's root with `compose {name}` (this picture: `python docs/generate.py`, "
           f"at {THUMB_DPI} dpi).", ""]
    out += [f"## The layout: `{rel}`", "", f"{_fence(text)}{lang}", text.rstrip("\n"), _fence(text), "",
            f"([download {layout.name}](../../{rel}))", ""]
    style = doc.get("figure", {}).get("style")
    if isinstance(style, str) and (layout.parent / style).is_file():
        path = (layout.parent / style).resolve()
        style_text = path.read_text(encoding="utf-8")
        shown = path.relative_to(root.resolve()).as_posix() if path.is_relative_to(root.resolve()) else style
        out += [f"## The shared style file: `{shown}`", "",
                "Colours, text styles and rcParams that the figures of this series share (`[figure] style`).", "",
                f"{_fence(style_text)}toml", style_text.rstrip("\n"), _fence(style_text), ""]
    sources = renderer_sources(root, doc)
    out += ["## The renderers", ""]
    if sources:
        for module_file, functions, source in sources:
            names = ", ".join(f"`{f}`" for f in functions)
            out += [f"### `{module_file}`", "", f"The functions this figure uses: {names}, with the module-level "
                    "constants they read (imports left out).", "",
                    f"{_fence(source)}python", source, _fence(source), ""]
    else:
        out += ["None: every element of this figure is drawn by composer from the layout.", ""]
    files = imported_files(root, layout, doc)
    if files:
        out += ["Panels made by other tools, imported as they are:", ""]
        out += [f"- `{panel}`: {kind} panel, `{path}`" for panel, kind, path in files]
        out.append("")
    return "\n".join(out)


def gallery_pages(root: Path = REPO) -> dict[str, str]:
    """The site's gallery (``docs/gallery/``): ``index.md`` (a thumbnail and caption per figure, ``COLUMNS``
    per row) and a page per figure (:func:`figure_page`): file name -> Markdown."""
    sys.path.insert(0, str(root))
    from composer.pipeline import Project

    figures = Project.at(root).figures()
    cells = []
    for name in figures:
        text = caption(Project.at(root).layout_path(name)).replace("|", "\\|")
        cells.append(f"[![{name}]({page_name(name)}.png)]({page_name(name)}.md)<br>**{name}**: {text}")
    rows = ["| " + " | ".join([""] * COLUMNS) + " |", "|" + "---|" * COLUMNS]
    for i in range(0, len(cells), COLUMNS):
        chunk = cells[i:i + COLUMNS] + [""] * (COLUMNS - len(cells[i:i + COLUMNS]))
        rows.append("| " + " | ".join(chunk) + " |")
    toctree = ["```{toctree}", ":hidden:", ""] + [page_name(n) for n in figures] + ["```"]
    index = "\n".join(["# Gallery", "", "<!-- generated by docs/generate.py from layouts/; do not edit -->", "",
                        GALLERY_INTRO, ":::{container} composer-gallery", *rows, ":::", "", *toctree, ""])
    pages = {"index.md": index}
    for name in figures:
        pages[f"{page_name(name)}.md"] = figure_page(root, name)
    return pages


def write_gallery_pages(root: Path = REPO) -> list[str]:
    """Write :func:`gallery_pages` into ``docs/gallery/`` (a page only when its text changed, so Sphinx
    reads again only what changed) and delete pages of figures that are gone. Returns the files written."""
    out = root / "docs" / "gallery"
    out.mkdir(parents=True, exist_ok=True)
    pages = gallery_pages(root)
    written = []
    for file, text in pages.items():
        path = out / file
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(file)
    for stale in out.glob("*.md"):
        if stale.name not in pages:
            stale.unlink()
    return written


def reference_block() -> str:
    """The layout reference block of ``docs/reference/layout.md`` (markers included): the README block of
    :func:`composer.layout.schema.readme_section` (``compose schema --markdown``), its tables' headings
    one level under the page's title (``## `[figure]```, not ``####``)."""
    sys.path.insert(0, str(REPO))
    import composer.stages  # noqa: F401  (the panel sources register their keys with the format when imported)
    from composer.layout.schema import readme_section

    return re.sub(r"^#### ", "## ", readme_section(), flags=re.M)


def replace_block(text: str, start: str, end: str, block: str) -> str:
    """``text`` with the block from ``start`` to ``end`` (markers included) replaced by ``block``."""
    i, j = text.index(start), text.index(end) + len(end)
    return text[:i] + block + text[j:]


def build_thumbnails(root: Path = REPO) -> None:
    from composer.cli.catalog import build_all

    out = root / "docs" / "gallery"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        results = build_all(root, out=tmp, formats=("png",), dpi=THUMB_DPI,
                            progress=lambda name, r, s: print(f"{name}: {r if isinstance(r, Exception) else 'ok'}"))
        failed = [n for n, r in results.items() if isinstance(r, Exception)]
        if failed:
            raise SystemExit(f"figures failed: {', '.join(failed)}")
        for name in results:
            (out / f"{name}.png").write_bytes((Path(tmp) / f"{name}.png").read_bytes())
    for stale in out.glob("*.png"):
        if stale.stem not in results:
            stale.unlink()


#: the tutorial's arrow (docs/tutorial.md, step 3), appended to the starter layout; tests/test_docs_site.py
#: checks that the tutorial shows exactly this block
TUTORIAL_ARROW = """
[[arrow]]
from = "curve.n@0.25"
to = "curve.best"
color = "accent"
label = "best step"
"""


def build_page_pictures(root: Path = REPO) -> None:
    """The pictures of the site's pages, at ``TUTORIAL_DPI``, made as the pages make them: the tutorial's
    ``docs/tutorial/fig1.png`` (``compose new fig1``, step 2), ``fig1_arrow.png`` (with its arrow, step 3)
    and ``fig1_debug.png`` (the overlay after step 4's edit, step 6); the Inkscape how-to's
    ``docs/howto/flow_cell.png`` (``docs/howto/inkscape/``); the LaTeX how-to's ``docs/howto/latex.png``
    (``layouts/latex_equations.toml``, at twice ``TUTORIAL_DPI``)."""
    import shutil

    sys.path.insert(0, str(root))
    from composer.layout.starter import new_figure
    from composer.pipeline import build

    out = root / "docs" / "tutorial"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "build"
        new_figure(tmp, "fig1")
        build("fig1", root=tmp, formats=("png",), dpi=TUTORIAL_DPI)
        (out / "fig1.png").write_bytes((built / "fig1.png").read_bytes())
        layout = Path(tmp) / "layouts" / "fig1.toml"
        layout.write_text(layout.read_text(encoding="utf-8") + "\n" + TUTORIAL_ARROW.lstrip("\n"), encoding="utf-8")
        build("fig1", root=tmp, formats=("png",), dpi=TUTORIAL_DPI)
        (out / "fig1_arrow.png").write_bytes((built / "fig1.png").read_bytes())
        panels = Path(tmp) / "panels" / "fig1.py"
        panels.write_text(panels.read_text(encoding="utf-8").replace('marker="o"', 'marker="s"'), encoding="utf-8")
        build("fig1", root=tmp, formats=("png",), dpi=TUTORIAL_DPI, debug=True)
        (out / "fig1_debug.png").write_bytes((built / "fig1.debug.png").read_bytes())
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "inkscape"
        shutil.copytree(root / "docs" / "howto" / "inkscape", project)
        build("flow_cell", root=project, formats=("png",), dpi=TUTORIAL_DPI)
        (root / "docs" / "howto" / "flow_cell.png").write_bytes((project / "build" / "flow_cell.png").read_bytes())
    with tempfile.TemporaryDirectory() as tmp:  # the LaTeX how-to's picture: the gallery's latex_equations, at
        # 300 dpi: at 150 the resvg PNG leaves out the 5 pt superscript minus (0.27 pt thick, half a pixel)
        build("latex_equations", root=root, out=tmp, formats=("png",), dpi=2 * TUTORIAL_DPI)
        (root / "docs" / "howto" / "latex.png").write_bytes((Path(tmp) / "latex_equations.png").read_bytes())


# ─── docs/seeds.md: every seed figure, the layout that replaces it, its code before and after ──────────

SEEDS_DOC = "docs/seeds.md"
SEED_DIR = REPO.parent / "shared" / "seeds"   # the seed scripts: outside the repository, read only by --measure-seeds


class Seed(NamedTuple):
    """One seed figure: where it was drawn and what replaces it.

    ``span`` is the seed function's first and last line in the seed file (1-based, inclusive) and
    ``lines`` its code lines there (:func:`code_lines`); a file that arrived without line breaks has
    ``span`` and ``lines`` None and ``chars``, the function's characters in the one-line file. Both are
    measured from the seed files by ``python docs/generate.py --measure-seeds DIR`` and typed here, so
    the doc builds without the seeds (which are not in the repository).
    """

    script: str
    function: str
    span: tuple[int, int] | None
    lines: int | None
    chars: int | None
    layout: str


QTF = "qtensorformer_figures.py.txt"
SQ = "spectralquant_figures.py.txt"
CL = "compression_ladder_figures.py.txt"
#: seed function -> gallery layout, all 27 seed figures, in the seeds' order
SEED_FIGURES = (
    Seed("volume_kv_method.py.txt", "(the whole script)", None, None, 11120, "volume_kv"),
    Seed("kvpath_delta.py.txt", "(the whole script)", (1, 124), 96, None, "kvpath_delta"),
    Seed(SQ, "fig_perplexity", (65, 94), 27, None, "sq_perplexity"),
    Seed(SQ, "fig_generation", (97, 125), 28, None, "sq_generation"),
    Seed(SQ, "fig_longbench", (128, 164), 32, None, "sq_longbench"),
    Seed(SQ, "fig_latency", (167, 212), 39, None, "sq_latency"),
    Seed(SQ, "fig_attention_cosine", (215, 256), 33, None, "sq_attention_cosine"),
    Seed(SQ, "fig_pipeline", (259, 305), 37, None, "sq_pipeline"),
    Seed(CL, "fig_parameters", None, None, 2805, "cl_parameters"),
    Seed(CL, "fig_ladder_loss", None, None, 2465, "cl_ladder_loss"),
    Seed(CL, "fig_thresholds", None, None, 3362, "cl_thresholds"),
    Seed(QTF, "plot_fig1_architecture", (131, 201), 34, None, "qtf_architecture"),
    Seed(QTF, "plot_fig2_marginal_value_r2", (203, 257), 28, None, "qtf_marginal_r2"),
    Seed(QTF, "plot_fig3_lofo", (259, 297), 20, None, "qtf_lofo"),
    Seed(QTF, "plot_fig4_nested_tt", (299, 349), 25, None, "qtf_nested_tt"),
    Seed(QTF, "plot_fig5_adaptive_rank", (351, 397), 24, None, "qtf_adaptive_rank"),
    Seed(QTF, "plot_fig6_gqa_audit", (399, 451), 26, None, "qtf_gqa_audit"),
    Seed(QTF, "plot_fig7_kv_rate_distortion", (453, 513), 31, None, "qtf_kv_rate_distortion"),
    Seed(QTF, "plot_fig8_controller", (515, 565), 23, None, "qtf_controller"),
    Seed(QTF, "plot_fig9_hysteresis", (567, 617), 26, None, "qtf_hysteresis"),
    Seed(QTF, "plot_fig10_quantum", (619, 681), 30, None, "qtf_quantum"),
    Seed(QTF, "plot_fig11_subsystem_breakdown", (683, 747), 33, None, "qtf_subsystem_breakdown"),
    Seed(QTF, "plot_fig12_roofline", (749, 809), 28, None, "qtf_roofline"),
    Seed(QTF, "plot_fig13_pareto", (811, 883), 35, None, "qtf_pareto"),
    Seed(QTF, "plot_fig14_counter_hypothesis", (885, 951), 32, None, "qtf_counter_hypothesis"),
    Seed(QTF, "plot_fig15_baseline_pareto", (953, 1125), 83, None, "qtf_baseline_pareto"),
    Seed(QTF, "plot_fig16_baseline_improvements", (1127, 1241), 57, None, "qtf_baseline_improvements"),
)


def code_lines(text: str, python: bool = True) -> int:
    """Lines of code in ``text``: not blank, not only a comment, not a docstring (Python; TOML has none).

    Python that parses: docstrings are the string statements first in a module, class or function
    (``ast``). Python that does not parse (the Q-TensorFormer seed lost its indentation): a docstring
    is a line that starts with triple quotes, through the line that closes them.
    """
    lines = text.splitlines()
    skip: set[int] = set()
    if python:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            quote = None
            for i, line in enumerate(lines):
                stripped = line.strip()
                if quote:
                    skip.add(i)
                    quote = None if quote in stripped else quote
                elif re.match(r'[rbu]?("""|\'\'\')', stripped, re.I):
                    skip.add(i)
                    q = stripped.lstrip("rbuRBU")[:3]
                    quote = q if stripped.count(q) == 1 else None
        else:
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body
                        and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)):
                    skip.update(range(body[0].lineno - 1, body[0].end_lineno or body[0].lineno))
    return sum(1 for i, line in enumerate(lines)
               if i not in skip and line.strip() and not line.strip().startswith("#"))


def _seed_code(line: str) -> str:
    """A seed line as code: the Q-TensorFormer seed's lines carry a ``| `` prefix from their extraction."""
    return line[2:] if line.startswith("| ") else ("" if line.strip() == "|" else line)


def measure_seed(text: str, function: str) -> tuple[tuple[int, int] | None, int | None, int | None]:
    """(span, lines, chars) of one seed function in a seed file's text (see :class:`Seed`).

    ``(the whole script)`` is the file. A file of one line (its line breaks lost) gives only the
    characters, from ``def NAME(`` to the next ``def `` or ``if __name__`` (nested defs would end it
    early; the compression-ladder seed has none). Otherwise the function runs from its ``def`` line to
    the last non-blank line before the next top-level statement (with the indentation lost, the next
    ``def``, ``@`` or ``if __name__``).
    """
    lines = text.splitlines()
    if len(lines) <= 1:
        if function.startswith("("):
            return None, None, len(text)
        start = text.index(f"def {function}(")
        ends = [i for i in (text.find(" def ", start + 1), text.find(" if __name__", start + 1)) if i > 0]
        return None, None, len(text[start:min(ends, default=len(text))].strip())
    code = [_seed_code(line) for line in lines]
    if function.startswith("("):
        first, last = 0, len(code) - 1
    else:
        first = next(i for i, c in enumerate(code) if c.startswith(f"def {function}("))
        flat = all(not c[:1].isspace() for c in code)
        last = first + 1
        while last < len(code):
            c = code[last]
            top = (c.startswith(("def ", "@", "if __name__", "class ")) if flat
                   else c.strip() and not c[:1].isspace() and not c.startswith(("#", ")")))
            if top:
                break
            last += 1
        last -= 1
        while not code[last].strip():
            last -= 1
    if re.fullmatch(r"[\w./-]+\.py", code[0].strip()):  # the seed's file name heads some seeds: not code
        code[0] = ""
    return (first + 1, last + 1), code_lines("\n".join(code[first:last + 1])), None


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> ast.Module:
    """``ast.parse(text)``, once per text (a module is read for each of its panels, and again for every page
    and count that shows it). The tree is shared: read it, never change it."""
    return ast.parse(text)


def _renderer_nodes(module: Path, function: str, include_values: bool) -> dict[str, ast.AST]:
    """The renderer's ``def`` and every module-level function or constant it uses, transitively (the
    module's ``values()`` too when ``include_values``): name -> node."""
    tree = _parsed(module.read_text(encoding="utf-8"))
    top: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(target, ast.Name):
                    top[target.id] = node
    if function not in top:
        raise SystemExit(f"{module.name} has no function {function!r}")
    todo = [function] + (["values"] if include_values and "values" in top else [])
    found: dict[str, ast.AST] = {}
    while todo:
        name = todo.pop()
        if name in found or name not in top:
            continue
        found[name] = top[name]
        todo.extend(n.id for n in ast.walk(top[name]) if isinstance(n, ast.Name))
    return found


def layout_code(root: Path, name: str) -> tuple[int, int, list[str]]:
    """(layout lines, renderer lines, renderer names) of gallery figure ``name`` (:func:`code_lines`).

    The renderers are the layout's panels' ``render`` functions with the module-level functions and
    constants they use, and the module's ``values()`` when it has one (it fills the layout's text
    fields); each counted once. The shared style file and imports are not counted (nor are the seed's
    rcParams and imports).

    Raises:
        SystemExit: the layout does not exist (a figure of a branch not merged yet: merge, then run
            this again).
    """
    sys.path.insert(0, str(root))
    from composer.layout.loader import read_document

    path = next((p for p in (root / "layouts" / f"{name}.toml", root / "layouts" / f"{name}.py") if p.is_file()),
                None)
    if path is None:
        raise SystemExit(f"docs/seeds.md: seed figure layout {name!r} does not exist (no layouts/{name}.toml or "
                         f".py): build it, or merge the branch that does, and run python docs/generate.py again")
    doc = read_document(path)
    nodes: dict[tuple[str, str], ast.AST] = {}
    for panel in doc.get("panels", {}).values():
        if "render" in panel:
            module, function = panel["render"].split(":")
            for key, node in _renderer_nodes(root / "panels" / f"{module}.py", function, True).items():
                nodes[(module, key)] = node
    text_by_module = {m: (root / "panels" / f"{m}.py").read_text(encoding="utf-8") for m, _ in nodes}
    renderer_lines = sum(code_lines(ast.get_source_segment(text_by_module[m], node, padded=True) or "")
                         for (m, _), node in nodes.items())
    return (code_lines(path.read_text(encoding="utf-8"), python=path.suffix == ".py"), renderer_lines,
            sorted(f"{m}:{f}" for (m, f), node in nodes.items() if isinstance(node, ast.FunctionDef)))


def composer_adds(root: Path, name: str) -> str:
    """What the layout gives that the seed did by hand, read from the layout itself."""
    from composer.layout.loader import load_layout, read_document

    path = next(p for p in (root / "layouts" / f"{name}.toml", root / "layouts" / f"{name}.py") if p.is_file())
    doc, spec = read_document(path), load_layout(path).spec
    texts = ([t.get("text", "") for t in doc.get("text", [])]
             + [p.get("title", "") for p in doc.get("panels", {}).values()])
    size = f"{spec.width_text} x {spec.height_text}" if not spec.height_auto else f"{spec.width_text} wide"
    adds = [f"fonts at final size ({spec.font_size_pt:g} pt)",
            {"paths": "vector text (glyph outlines)", "editable": "editable vector text"}.get(
                spec.text, "vector text (glyph outlines; selectable text in the PDF)"),
            f"print size {size} checked by `compose check`"]
    if spec.labels:
        adds.append("automatic panel labels")
    if doc.get("align"):
        adds.append("aligned plot areas")
    if any("beside" in t for t in doc.get("text", [])):
        adds.append("shared axis title")
    if any(re.search(r"\{(?!source\})[^{}]+\}", t.replace("{{", "").replace("}}", "")) for t in texts):
        adds.append("numbers in text from the data")
    if doc.get("arrow"):
        adds.append("arrows to named anchors")
    if any("svg" in p or "pdf" in p or "image" in p for p in doc.get("panels", {}).values()):
        adds.append("imported vector panel")
    return ", ".join(adds)


def seeds_markdown(root: Path = REPO, allow_missing: bool = False) -> str:
    """docs/seeds.md: a row per seed figure of ``SEED_FIGURES``, then the multi-panel figures made of them.

    Args:
        allow_missing: a layout that does not exist yet gets a row saying so instead of stopping the
            run (the doc of a branch that builds only some of the figures).

    Raises:
        SystemExit: a layout does not exist and ``allow_missing`` is False.
    """
    sys.path.insert(0, str(root))
    from composer.pipeline import Project

    figures = Project.at(root).figures()
    seeded = {s.layout for s in SEED_FIGURES}
    renderers: dict[str, set[str]] = {}
    for name in figures:
        renderers[name] = set(layout_code(root, name)[2])
    rows, missing, contains = [], [], {}
    for seed in SEED_FIGURES:
        before = (f"{seed.lines} (lines {seed.span[0]}-{seed.span[1]})" if seed.lines is not None
                  else f"n/a: line breaks lost ({seed.chars:,} characters)")
        if seed.layout not in figures:
            if not allow_missing:
                layout_code(root, seed.layout)  # raises, naming it
            missing.append(seed.layout)
            rows.append(f"| `{seed.script}` | `{seed.function}` | {seed.layout} (not built yet) | {before} | "
                        "n/a | n/a | |")
            continue
        layout_lines, renderer_lines, funcs = layout_code(root, seed.layout)
        also = sorted(n for n in figures if n not in seeded and renderers[n] & set(funcs))
        for other in also:
            contains.setdefault(other, []).append(f"`{seed.function}`")
        layout_file = Project.at(root).layout_path(seed.layout).name
        where = f"[{seed.layout}](../layouts/{layout_file})" + (f" (also in {', '.join(also)})" if also else "")
        rows.append(f"| `{seed.script}` | `{seed.function}` | {where} | {before} | "
                    f"{layout_lines + renderer_lines} ({layout_lines} + {renderer_lines}) | "
                    f"{composer_adds(root, seed.layout)} | "
                    f'<img src="gallery/{seed.layout}.png" alt="{seed.layout}" width="160"> |')
    head = [
        "# The seed figures and the layouts that replace them",
        "",
        "<!-- generated by `python docs/generate.py` from SEED_FIGURES in docs/generate.py; do not edit -->",
        "",
        f"The {len(SEED_FIGURES)} figures of the five seed scripts (hand-written matplotlib, kept outside this "
        "repository in `../shared/seeds/`), each with the gallery layout that replaces it.",
        "",
        "- **before**: lines of code of the seed function (or script) in the seed file: lines that are not "
        "blank, not only a comment and not a docstring, with the source line range they were counted in. "
        "The counts were measured once from the seed files (`python docs/generate.py --measure-seeds DIR` "
        "measures them again and compares) and are kept with the ranges in `SEED_FIGURES`, so this page "
        "builds without the seeds. Two seeds arrived with their line breaks lost "
        "(`volume_kv_method.py.txt`, `compression_ladder_figures.py.txt`): their lines cannot be counted, "
        "the characters of the function are given instead. The seeds' shared rcParams, helpers and imports "
        "are not counted.",
        "- **after**: lines of code, counted the same way, of the layout plus its renderers: each panel's "
        "`render` function with the module-level functions and constants it uses and the module's "
        "`values()` (layout + renderers). The shared style file and imports are not counted.",
        "- **composer adds**: read from the layout.",
        "",
        "| seed script | seed function | composer layout | before | after (layout + renderers) | composer adds "
        "| thumbnail |",
        "|---|---|---|---|---|---|---|",
    ]
    tail = []
    if contains:
        tail += ["", "Multi-panel figures made of seed figures' renderers:", ""]
        tail += [f"- **{name}**: {', '.join(funcs)}" for name, funcs in sorted(contains.items())]
    if missing:
        tail += ["", f"Not built yet on this branch: {', '.join(missing)}."]
    return "\n".join(head + rows + tail) + "\n"


def write_seeds(allow_missing: bool = False) -> None:
    (REPO / SEEDS_DOC).write_text(seeds_markdown(allow_missing=allow_missing), encoding="utf-8")


def check_seed_counts(seed_dir: Path) -> int:
    """Measure every seed function in ``seed_dir`` and compare with ``SEED_FIGURES``; print mismatches."""
    bad = 0
    for seed in SEED_FIGURES:
        measured = measure_seed((seed_dir / seed.script).read_text(encoding="utf-8"), seed.function)
        if measured != (seed.span, seed.lines, seed.chars):
            bad += 1
            print(f"{seed.script} {seed.function}: measured {measured}, typed {(seed.span, seed.lines, seed.chars)}")
    print(f"{len(SEED_FIGURES) - bad} of {len(SEED_FIGURES)} seed counts match")
    return int(bad > 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="do not rebuild the gallery thumbnails")
    parser.add_argument("--seeds-only", action="store_true", help=f"write only {SEEDS_DOC}")
    parser.add_argument("--allow-missing", action="store_true",
                        help=f"{SEEDS_DOC}: a seed figure's layout that does not exist yet is a row, not an error")
    parser.add_argument("--measure-seeds", metavar="DIR", nargs="?", const=str(SEED_DIR),
                        help="measure the seed functions in DIR and compare with SEED_FIGURES (nothing written)")
    parser.add_argument("--gallery-pages", action="store_true",
                        help="also write the site's gallery pages (every Sphinx build writes them)")
    args = parser.parse_args()
    if args.measure_seeds:
        raise SystemExit(check_seed_counts(Path(args.measure_seeds)))
    if args.seeds_only:
        write_seeds(args.allow_missing)
        return
    sys.path.insert(0, str(REPO))
    import composer.stages  # noqa: F401  (the panel sources register their keys with the format when imported)
    from composer.layout.schema import README_END, README_START, schema_text

    (REPO / "docs" / "layout.schema.json").write_text(schema_text(), encoding="utf-8")
    reference = (REPO / LAYOUT_REFERENCE).read_text(encoding="utf-8")
    reference = replace_block(reference, README_START, README_END, reference_block())
    (REPO / LAYOUT_REFERENCE).write_text(reference, encoding="utf-8")
    write_seeds(args.allow_missing)
    if args.gallery_pages:
        write_gallery_pages()
    if not args.no_build:
        build_thumbnails()
        build_page_pictures()


if __name__ == "__main__":
    main()
