"""The gallery: `compose --all` builds every figure from a fresh copy of the repository's tracked files,
and each figure is checked: ids unique, references resolve, canvas size, nothing off the canvas, canvas
texts apart, example data labelled, no fallback numbers. Also `compose new`, `compose list`, the site's gallery."""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from lxml import etree

from composer.cli.main import main
from composer.lint.pdffonts import pdf_fonts
from composer.stages.inputs import Project, read_inputs
from composer.units import to_pt
from conftest import REPO, ids_and_refs, read_png

GALLERY_DPI = 40
FIGURES = Project.at(REPO).figures()
SYNTHETIC = ("sq_", "cl_", "qtf_")  # figures drawn from data/make_gallery_data.py


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: cannot tell which files a fresh clone has")
    return [f for f in out.stdout.decode().split("\0") if f]


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """The repository's tracked project files (what a fresh clone has), copied to a temp folder."""
    root = tmp_path_factory.mktemp("clone")
    for name in tracked_files():
        if name.split("/")[0] in ("layouts", "panels", "data", "styles"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, root / name)
    return root


@pytest.fixture(scope="module")
def built(clone):
    """`compose --all` in the clone: svg, pdf and a low-dpi png of every figure."""
    status = main(["build", "--all", "--root", str(clone), "--format", "svg,pdf,png", "--dpi", str(GALLERY_DPI)])
    return status, clone / "build"


def _pdfium_text(pdf: bytes) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[0].get_textpage().get_text_range()
    finally:
        doc.close()


def test_the_gallery_has_every_seed_figure():
    expected = {"volume_kv", "kvpath_delta", "sq_perplexity", "sq_generation", "sq_longbench", "sq_latency",
                "sq_attention_cosine", "sq_pipeline", "sq_results", "cl_parameters", "cl_ladder_loss",
                "cl_thresholds", "qtf_architecture", "qtf_results"}
    assert expected <= set(FIGURES)
    assert len([f for f in FIGURES if f.startswith("qtf_") and f not in ("qtf_architecture", "qtf_results")]) >= 4


def test_compose_all_builds_every_figure_from_a_fresh_clone(built):
    status, out = built
    assert status == 0
    for name in FIGURES:
        assert all((out / f"{name}.{kind}").is_file() for kind in ("svg", "pdf", "png")), name


@pytest.mark.parametrize("name", FIGURES)
def test_gallery_figure(name, built, clone):
    _, out = built
    svg = (out / f"{name}.svg").read_bytes()
    ids, refs = ids_and_refs(svg)
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted({i for i in ids if ids.count(i) > 1})[:5]}"
    assert refs <= set(ids), f"dangling references: {sorted(refs - set(ids))[:5]}"
    root = etree.fromstring(svg)
    inputs = read_inputs(Project.at(clone), name)
    spec = inputs.figure.spec
    # height = "auto": the canvas fitted to its content (tests/stages/test_auto_height.py), in the width's unit
    height = spec.height_text if not spec.height_auto else root.get("height")
    assert root.get("width") == spec.width_text and root.get("height") == height
    w_pt, h_pt = to_pt(spec.width_text), to_pt(height)
    assert [float(v) for v in root.get("viewBox").split()] == pytest.approx([0, 0, w_pt, h_pt], abs=1e-3)
    # the PDF's text is text (text = "selectable"): its fonts embedded TrueType subsets, never Type 3, and
    # pdfium reads the figure's canvas texts (each top-level aria-label's first line, spaces left out)
    pdf = (out / f"{name}.pdf").read_bytes()
    fonts = pdf_fonts(pdf)
    assert fonts and all(f.embedded and f.kind == "CID TrueType" for f in fonts), fonts
    read = re.sub(r"\s+", "", _pdfium_text(pdf))
    for el in root:
        label = el.get("aria-label") if isinstance(el.tag, str) and el.get("id", "").startswith(
            ("text-", "label-", "title-")) else None
        if label and "$" not in label:  # the markup of rich text (<b>, <i>, <color=...>) is not drawn
            plain = re.sub(r"</?(?:b|i|color)(?:=[^<>]*)?>", "", label.split("\n")[0])
            assert re.sub(r"\s+", "", plain) in read, (label, read[:400])
    png = read_png(out / f"{name}.png")
    assert png.shape[:2] == (round(h_pt / 72 * GALLERY_DPI), round(w_pt / 72 * GALLERY_DPI))
    assert png[..., :3].std() > 10, "blank figure"
    # nothing off the canvas and no text on text: the check's outside-canvas and overlap rules, measured on
    # the composed SVG's ink (test_compose_check_is_clean_for_every_gallery_figure)
    if name.startswith(SYNTHETIC):
        labels = " ".join(el.get("aria-label", "") for el in root.iter() if isinstance(el.tag, str))
        assert "SYNTHETIC example data" in labels or name in ("qtf_architecture", "sq_pipeline"), \
            "a gallery figure of synthetic data says so"


@pytest.mark.parametrize("name", FIGURES)
def test_compose_check_is_clean_for_every_gallery_figure(built, clone, name):
    """`compose check NAME` finds nothing in any gallery figure: no error and no warning (nothing outside
    the canvas, no overlap, colour vision, text outside its panel), with the default limits. It runs
    after `compose --all` (``built``), as a user would: the panels come from the build's cache."""
    from composer.pipeline import check

    report = check(name, root=str(clone))
    assert report.findings == (), report.table()
    assert not report.errors and not report.warnings


def test_plot_sources_text_is_7pt_everywhere_and_its_plot_areas_align(built):
    """layouts/plot_sources.toml: every text of the composed SVG (canvas, labels, titles, every panel's, whatever
    library drew it) measures 7 pt, as [figure] font_size says; and the panels' plot areas are aligned in each
    row: their y axes span the same limits (0 to 1.8), so a tick label of one value sits at one height in the
    row of matplotlib and plotnine (within 0.1 pt: an SVG <text>'s extent is estimated from its size), and at
    one offset, the same at every tick, in the row of Altair and Plotly (plotly.js puts a y tick label's
    baseline 0.35 em below its tick, its own rule: under 0.3 pt at 7 pt)."""
    from composer.svg.measure import scene

    runs = scene((built[1] / "plot_sources.svg").read_bytes()).texts
    panels = sorted({run.top for run in runs if run.top.startswith("panel-")})
    assert panels == ["panel-al", "panel-gg", "panel-mpl", "panel-pl"] and len(runs) > 60
    assert {round(run.size_pt, 3) for run in runs} == {7.0}, sorted({(r.top, r.text, r.size_pt) for r in runs
                                                                      if abs(r.size_pt - 7) > 1e-3})[:5]

    def number(text: str) -> float | None:
        try:
            return float(text)
        except ValueError:
            return None

    offsets: dict[tuple[str, str], list[float]] = {("panel-mpl", "panel-gg"): [], ("panel-al", "panel-pl"): []}
    for tick in (0.5, 1.0, 1.5):
        # the y tick label of that value, however the library writes it ("1.0", "1"): the leftmost such run
        heights = [(min((r for r in runs if r.top == top and number(r.text) == tick), key=lambda r: r.bbox[0]).bbox)
                   for top in panels]
        centres = dict(zip(panels, [(b[1] + b[3]) / 2 for b in heights]))
        for (a, b), found in offsets.items():
            found.append(centres[b] - centres[a])
    assert all(abs(d) < 0.1 for d in offsets[("panel-mpl", "panel-gg")]), offsets  # <text> extents are estimated
    row = offsets[("panel-al", "panel-pl")]
    assert max(row) - min(row) < 0.05 and all(abs(d) < 0.3 for d in row), offsets


def test_a_missing_data_file_is_an_error_never_fallback_numbers(clone, tmp_path, capsys):
    root = tmp_path / "proj"
    shutil.copytree(clone, root, ignore=shutil.ignore_patterns("build"))
    (root / "data" / "qtensorformer" / "marginal_value_results.json").unlink()
    assert main(["qtf_marginal_r2", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert "figure.data" in err and "marginal_value_results.json" in err and "not found" in err
    assert not (root / "build" / "qtf_marginal_r2.svg").exists()


def test_a_missing_key_is_an_error_naming_it(clone, tmp_path, capsys):
    root = tmp_path / "proj"
    shutil.copytree(clone, root, ignore=shutil.ignore_patterns("build"))
    path = root / "data" / "qtensorformer" / "marginal_value_results.json"
    doc = json.loads(path.read_text())
    del doc["regression_heads"]["delta_energy"]
    path.write_text(json.dumps(doc))
    assert main(["qtf_marginal_r2", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert "panel 'plot'" in err and "KeyError" in err and "delta_energy" in err


def test_gallery_data_is_what_the_generator_writes(tmp_path):
    """data/make_gallery_data.py is deterministic and the committed files are its output."""
    spec = importlib.util.spec_from_file_location("make_gallery_data", REPO / "data" / "make_gallery_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.HERE = tmp_path
    module.spectralquant(), module.compression_ladder(), module.qtensorformer()
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert written
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (REPO / "data" / rel).read_bytes(), rel
        if rel.suffix == ".json":
            assert json.loads((tmp_path / rel).read_text())["source"].startswith("SYNTHETIC")


# ─── the site's gallery and thumbnails ───────────────────────────────────

def _generate_module():
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def _top_level_functions(module: Path) -> dict[str, ast.FunctionDef]:
    """The module's top-level functions (parsed once per module: several figures render with one)."""
    return {node.name: node for node in ast.parse(module.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef)}


def test_site_gallery_shows_every_figure_with_its_layout_and_renderers():
    """docs/gallery/ of the site (written by every Sphinx build from gallery_pages()): the index shows
    every figure's thumbnail, linked to its page; each page shows the picture, the whole layout file and
    the source of every function its panels render with and of every module-level function those call, and
    its shared style file."""
    gen = _generate_module()
    pages = gen.gallery_pages(REPO)
    helpers = styles = 0
    assert set(pages) == {"index.md"} | {f"{gen.page_name(n)}.md" for n in FIGURES}
    assert "(../seeds.md)" in pages["index.md"]
    for name in FIGURES:
        page = pages[f"{gen.page_name(name)}.md"]
        assert f"[![{name}]({gen.page_name(name)}.png)]({gen.page_name(name)}.md)" in pages["index.md"]
        assert f"![{name}]({gen.page_name(name)}.png)" in page and (REPO / "docs" / "gallery" / f"{name}.png").is_file()
        layout = Project.at(REPO).layout_path(name)
        assert layout.read_text(encoding="utf-8").rstrip("\n") in page, f"{name}: the layout is not on its page"
        renders = re.findall(r'^render = "([\w.]+):(\w+)"', layout.read_text(encoding="utf-8"), flags=re.M)
        for module, function in renders:
            path = REPO / "panels" / f"{module}.py"
            text = path.read_text(encoding="utf-8")
            functions = _top_level_functions(path)
            called = {n.func.id for n in ast.walk(functions[function])
                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in functions}
            helpers += len(called)
            for used in {function} | called:
                assert ast.get_source_segment(text, functions[used]) in page, f"{name}: {module}:{used} is not on its page"
        if not renders:
            assert "None: every element of this figure is drawn by composer" in page
        style = tomllib.loads(layout.read_text(encoding="utf-8")).get("figure", {}).get("style") \
            if layout.suffix == ".toml" else None
        if style:
            styles += 1
            assert (layout.parent / style).read_text(encoding="utf-8").rstrip("\n") in page, name
    assert helpers > 0 and styles > 0, "no renderer calls a helper or no layout has a style: a check checked nothing"


def test_the_flagship_page_shows_its_panel_module_and_values():
    """The flagship's page names its panel module and shows its ``values()`` (it fills the texts' fields)."""
    gen = _generate_module()
    page = gen.figure_page(REPO, "volume_kv")
    assert "### `panels/volume_kv.py`" in page and "def values(data" in page


@pytest.mark.parametrize("name", FIGURES)
def test_thumbnail_exists_at_the_figures_size(name, tmp_path):
    """A thumbnail per figure, at THUMB_DPI of the figure's current canvas size (stale ones fail); a
    ``height = "auto"`` figure's height is the one its build fits."""
    gen = _generate_module()
    from composer.layout.loader import load_layout
    from composer.pipeline import build

    spec = load_layout(Project.at(REPO).layout_path(name)).spec
    height_pt = spec.height_pt
    if spec.height_auto:
        height_pt = to_pt(build(name, root=REPO, out=tmp_path, formats=("svg",), cache=False).fitted_height)
    png = read_png(REPO / "docs" / "gallery" / f"{name}.png")
    assert png.shape[:2] == (round(height_pt / 72 * gen.THUMB_DPI), round(spec.width_pt / 72 * gen.THUMB_DPI))


# ─── compose new, compose list ────────────────────────────────────────────

def test_compose_new_builds_at_once_and_never_overwrites(tmp_path, capsys):
    root = tmp_path / "paper"
    assert main(["new", "fig1", "--root", str(root)]) == 0
    written = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    assert written == {"layouts/fig1.toml", "panels/fig1.py", "data/fig1.csv"}
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert main(["fig1", "--root", str(root), "--format", "svg,png", "--dpi", "60"]) == 0
    svg = (root / "build" / "fig1.svg").read_bytes()
    ids, refs = ids_and_refs(svg)
    assert len(ids) == len(set(ids)) and refs <= set(ids)
    labels = " ".join(el.get("aria-label", "") for el in etree.fromstring(svg).iter() if isinstance(el.tag, str))
    assert "10 points, mean 0.62" in labels  # the footer's numbers come from the CSV
    assert read_png(root / "build" / "fig1.png").shape[:2] == (round(62 / 25.4 * 60), round(120 / 25.4 * 60))
    capsys.readouterr()
    assert main(["check", "fig1", "--root", str(root)]) == 0  # the first figure a user sees is print-clean
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    capsys.readouterr()
    (root / "layouts" / "fig1.toml").write_text("# my edits\n" + (root / "layouts" / "fig1.toml").read_text())
    edited = (root / "layouts" / "fig1.toml").read_bytes()
    assert main(["new", "fig1", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err and "layouts/fig1.toml" in err
    assert (root / "layouts" / "fig1.toml").read_bytes() == edited
    assert all(p.read_bytes() == b for p, b in before.items() if p.name != "fig1.toml")


@pytest.mark.parametrize("name", ["9lives", "a-b"])
def test_compose_new_refuses_bad_names(name, tmp_path, capsys):
    assert main(["new", name, "--root", str(tmp_path)]) == 1
    assert "compose: error:" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_compose_list_shows_figures_and_their_panels(capsys):
    assert main(["list", "--root", str(REPO)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^volume_kv  \(layouts/volume_kv\.toml, 180mm x 100mm, 6 panels\)$", out, re.M)
    assert re.search(r"^  rgb +volume_kv:rgb_crosshair$", out, re.M)
    assert re.search(r"^kvpath_delta  \(layouts/kvpath_delta\.py", out, re.M)
    listed = re.findall(r"^(\w+)  \(", out, re.M)
    assert listed == FIGURES
    assert main(["list", "--names", "--root", str(REPO)]) == 0
    assert capsys.readouterr().out.split() == FIGURES


def test_compose_list_reports_a_broken_layout_and_goes_on(tmp_path, capsys):
    shutil.copytree(REPO / "tests" / "projects" / "demo", tmp_path / "p")
    (tmp_path / "p" / "layouts" / "broken.toml").write_text("[figure]\nwidth = '1parsec'\nheight = '1mm'\n")
    assert main(["list", "--root", str(tmp_path / "p")]) == 1
    out = capsys.readouterr().out
    assert "broken  (layouts/broken.*)" in out and "figure.width" in out
    assert "demo  (layouts/demo.toml" in out


def test_compose_all_goes_on_after_a_failure(tmp_path, capsys):
    shutil.copytree(REPO / "tests" / "projects" / "demo", tmp_path / "p")
    (tmp_path / "p" / "layouts" / "broken.toml").write_text("[figure]\nwidth = '1parsec'\nheight = '1mm'\n")
    assert main(["build", "--all", "--root", str(tmp_path / "p"), "--format", "svg"]) == 1
    captured = capsys.readouterr()
    assert (tmp_path / "p" / "build" / "demo.svg").is_file()
    assert "1 of 2 figures built; failed: broken" in captured.out
    assert captured.err.count("compose: error:") == 1
    assert main(["build", "--all", "--root", str(tmp_path / "p"), "--format", "svg"]) == 1  # demo is up to date now
    assert "0 of 2 figures built, 1 up to date; failed: broken" in capsys.readouterr().out


def test_compose_needs_a_name_or_all(capsys):
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 1
    assert capsys.readouterr().err == "compose: error: give a figure NAME or --all (see compose --help)\n"
    with pytest.raises(SystemExit):
        main(["build", "volume_kv", "--all"])
    capsys.readouterr()
    for argv in (["volume_kv", "--dpi", "abc"], ["volume_kv", "--bogus"], ["check", "--json"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 1 and len(err.splitlines()) == 1 and "error:" in err, (argv, err)
