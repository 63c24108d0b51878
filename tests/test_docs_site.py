"""The documentation site (``docs/``, issue #22 item 7): what its pages show runs, and what they link to is there.

- the README: at most 250 lines; its small example builds as it says (two lettered panels, the arrow to
  the data anchor, a clean check), and its error line is the one the typo gives; each relative link of
  the README names a file of the repository, and each ``#anchor`` a heading of that file;
- the tutorial: every command of it, in order, in a fresh folder, printing what the page shows (times
  aside), with the edits the page asks for;
- the Inkscape how-to: its project builds and checks clean, and each arrow ends on the point the page
  works out by hand;
- the notebook how-to: its example runs in a starter project and writes what it says;
- the journal how-to: its three lines of ``[figure]`` give the journal's width and the check its limits;
- the Make and Snakemake how-to: its Snakefile, run by real Snakemake, builds a figure as ``compose``
  does, does nothing when nothing changed, and rebuilds it when its data change (its Makefile is run by
  ``tests/incremental/test_opened.py``);
- the site's own checks (``docs/_ext/composer_docs.py``): a small Sphinx site with a link to a missing
  page, a missing heading, a malformed URL and a missing image fails a ``-n -W`` build, naming each;
  the same site without them builds.

The whole site is built by ``.ci/run`` (``sphinx-build -n -W --keep-going``), not here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from composer.cli.main import main
from composer.layout.starter import new_figure
from composer.pipeline import build, check
from conftest import REPO, read_png

DOCS = REPO / "docs"
SVG_NS = "{http://www.w3.org/2000/svg}"
MM = 72 / 25.4  # pt per mm


def _generate_module():
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, content) of every backtick-fenced block of a Markdown text, in order."""
    return [(m.group(1).strip(), m.group(2)) for m in re.finditer(r"^```([^\n`]*)\n(.*?)^```$", text, flags=re.M | re.S)]


def arrow_ends(svg_bytes: bytes) -> list[tuple[float, float]]:
    """The last point of each arrow's line in a composed SVG (pt), arrows in layout order."""
    svg = etree.fromstring(svg_bytes)
    ends = []
    while (group := svg.find(f".//*[@id='arrow-{len(ends)}']")) is not None:
        numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", group.find(f"{SVG_NS}path").get("d"))]
        ends.append((numbers[-2], numbers[-1]))
    return ends


# ─── the README ─────────────────────────────────────────────────────────────────────────────────────────

def github_slug(heading: str) -> str:
    """A heading's anchor as GitHub (and MyST's ``myst_heading_anchors``) make it: lower case, punctuation
    but ``-`` and ``_`` dropped, each space a ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readme_is_at_most_250_lines():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move a section into a page of docs/"


def test_every_relative_link_of_the_readme_resolves():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    relative = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert len(relative) >= 15, "the README links to the site's pages"
    for link in relative:
        path, _, anchor = link.partition("#")
        target = REPO / path if path else REPO / "README.md"
        assert target.is_file(), f"README.md links to {link}: no such file"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", target.read_text(encoding="utf-8"), flags=re.M)
            assert anchor in {github_slug(h) for h in headings}, f"README.md links to {link}: no such heading"


def readme_example() -> tuple[str, str]:
    """The README's small example: the TOML block that starts ``# layouts/fig.toml`` and the Python block
    that starts ``# panels/fig.py``."""
    blocks = fenced_blocks((REPO / "README.md").read_text(encoding="utf-8"))
    toml = [body for info, body in blocks if info == "toml" and body.startswith("# layouts/fig.toml\n")]
    python = [body for info, body in blocks if info == "python" and body.startswith("# panels/fig.py\n")]
    assert len(toml) == 1 and len(python) == 1
    return toml[0], python[0]


def test_the_readmes_small_example_builds_as_it_says(tmp_path, capsys):
    toml, python = readme_example()
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "layouts" / "fig.toml").write_text(toml, encoding="utf-8")
    (root / "panels" / "fig.py").write_text(python, encoding="utf-8")
    result = build("fig", root=root)
    assert {p.name for p in result.outputs.values()} == {"fig.svg", "fig.pdf", "fig.png"}
    assert sorted(result.rendered) == ["noise", "wave"]
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    labels = [el.get("aria-label") for el in svg.iter() if isinstance(el.tag, str) and el.get("aria-label")]
    assert "a" in labels and "b" in labels and "the peak" in labels
    report = check("fig", root=root)
    assert report.ok and not report.warnings, report.table()
    # the data anchor: the arrow without head and gap ends on the curve's (pi/2, 1), which the same
    # figure with a marker line through that point shows in the panel's own axes
    (root / "layouts" / "fig.toml").write_text(toml.replace('label = "the peak"', 'label = "the peak"\nhead = "none"\n'
                                                            'gap = "0pt"'), encoding="utf-8")
    [end] = arrow_ends(build("fig", root=root, formats=("svg",)).outputs["svg"].read_bytes())
    # panel a is the grid's cell A: 120 mm less two 5 mm margins and the 10 mm gutter, halved = 50 mm wide,
    # 45 - 2 x 5 = 35 mm tall, at (5, 5) mm; matplotlib's own transform puts (pi/2, 1) in that figure
    import matplotlib
    import numpy as np
    from matplotlib.figure import Figure

    namespace: dict = {}
    exec(compile(python, "panels/fig.py", "exec"), namespace)  # noqa: S102 - the README's own renderer
    with matplotlib.rc_context({"font.size": 7}):
        fig = Figure(figsize=(50 / 25.4, 35 / 25.4), dpi=72)
        anchors = namespace["wave"](fig, None)
        ax, x, y = anchors["peak"]
        fig.canvas.draw()
        px, py = ax.transData.transform((x, y))
    assert (x, y) == (np.pi / 2, 1.0)
    assert end == pytest.approx((5 * MM + px, 5 * MM + 35 * MM - py), abs=0.05)
    # the error line the README shows, from the typo it names
    (root / "layouts" / "fig.toml").write_text(toml.replace('label = "a"', 'lable = "a"'), encoding="utf-8")
    capsys.readouterr()
    assert main(["fig", "--root", str(root)]) == 1
    shown = next(line for line in (REPO / "README.md").read_text().splitlines() if "lable" in line)
    assert shown.endswith("valid keys are ...")
    assert capsys.readouterr().err.startswith(shown.removesuffix("..."))


# ─── the tutorial ───────────────────────────────────────────────────────────────────────────────────────

def _times_out(text: str) -> str:
    return re.sub(r"\bin \d+(?:\.\d+)? s\b", "in _ s", text).strip()


def test_the_tutorial_runs_as_written(tmp_path, monkeypatch, capsys):
    """Every command of docs/tutorial.md, in order, in an empty folder: each prints what the page shows
    after it (times aside), the edits are the page's, and the results are what the page says."""
    gen = _generate_module()
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    steps = re.finditer(r"^```([^\n`]*)\n(.*?)^```$|<!-- tutorial-edit: (\S+) (.+?) => (.+?) -->", text,
                        flags=re.M | re.S)
    commands = []
    output: str | None = None
    root = tmp_path / "paper"
    for step in steps:
        info, body = (step.group(1) or "").strip(), step.group(2)
        if step.group(3):  # an edit the page asks for in words; the comment holds it for this test
            path, old, new = root / step.group(3), step.group(4), step.group(5)
            assert f"replace\n`{old}` with `{new}`" in text or f"replace `{old}` with `{new}`" in text
            assert path.read_text().count(old) == 1
            path.write_text(path.read_text().replace(old, new))
        elif info == "sh":
            for command in body.splitlines():
                commands.append(command)
                if command == "mkdir paper && cd paper":
                    root.mkdir()
                    monkeypatch.chdir(root)
                    continue
                argv = shlex.split(command)
                assert argv[0] == "compose", command
                capsys.readouterr()
                before = {p.name: p.read_bytes() for p in (root / "build").glob("fig1.*")}
                assert main(argv[1:]) == 0, command
                captured = capsys.readouterr()
                output = captured.out + captured.err
                if "--debug" in argv:  # the figure's own outputs stay byte for byte what they were
                    assert {n: (root / "build" / n).read_bytes() for n in before} == before
        elif info == "text":
            assert output is not None and _times_out(body) == _times_out(output), body
            output = None
        elif info == "toml":
            assert body.strip() == gen.TUTORIAL_ARROW.strip()
            layout = root / "layouts" / "fig1.toml"
            layout.write_text(layout.read_text() + "\n" + body)
    assert commands == ["mkdir paper && cd paper", "compose new fig1", "compose fig1", "compose fig1", "compose fig1",
                        "compose check fig1", "compose fig1 --debug", "compose fig1 --format png --dpi 600"]
    assert (root / "build" / "fig1.debug.svg").is_file() and (root / "build" / "fig1.debug.png").is_file()
    png = read_png(root / "build" / "fig1.png")
    # 120 mm x 62 mm (the starter's size) at 600 dpi, as the page says
    assert png.shape[:2] == (round(62 / 25.4 * 600), round(120 / 25.4 * 600)) == (1465, 2835)
    assert "2835 x 1465 pixels" in text
    from PIL import Image
    with Image.open(root / "build" / "fig1.png") as image:
        assert [round(d) for d in image.info["dpi"]] == [600, 600]


def test_the_tutorials_pictures_are_of_its_figure():
    """docs/tutorial/*.png are the tutorial's figure at TUTORIAL_DPI: 120 x 62 mm; the page shows each."""
    gen = _generate_module()
    for name in ("fig1.png", "fig1_arrow.png", "fig1_debug.png"):
        assert f"(tutorial/{name})" in (DOCS / "tutorial.md").read_text()
        png = read_png(DOCS / "tutorial" / name)
        assert png.shape[:2] == (round(62 / 25.4 * gen.TUTORIAL_DPI), round(120 / 25.4 * gen.TUTORIAL_DPI))


# ─── the Inkscape how-to ────────────────────────────────────────────────────────────────────────────────

#: the points docs/howto/inkscape.md works out, in mm on the canvas: panel box 80 x 40 mm at (4, 4) mm,
#: viewBox 100 x 50, so (x, y) -> (4 + 0.8 x, 4 + 0.8 y); boxes from data/flow_cell.svg, strokes left out
INKSCAPE_ENDS_MM = [
    (4 + 0.8 * 54, 4 + 0.8 * 21),             # electrode.ne: circle (50, 25) r 4 -> corner (54, 21)
    (4 + 0.8 * 82.5, 4 + 0.8 * 25),           # outlet: path 70..95 at y 25 -> centre
    (4 + 0.8 * 17.5, 4 + 0.8 * 25),           # inlet: path 5..30 at y 25 -> centre
    (4 + 0.8 * (30 + 0.75 * 40), 4 + 0.8 * 35),  # chamber.s@0.75: rect 30..70 x 15..35
]


def test_the_inkscape_howto_builds_clean_and_its_arrows_end_where_the_page_says(tmp_path):
    root = tmp_path / "inkscape"
    shutil.copytree(DOCS / "howto" / "inkscape", root)
    svg = build("flow_cell", root=root, formats=("svg",), cache=False).outputs["svg"].read_bytes()
    assert b"sodipodi:namedview" not in svg and b'inkscape:label="panel cell"' in svg
    report = check("flow_cell", root=root)
    assert report.ok and not report.warnings, report.table()
    page = (DOCS / "howto" / "inkscape.md").read_text(encoding="utf-8")
    for x_mm, y_mm in INKSCAPE_ENDS_MM:
        assert f"({x_mm:g}, {y_mm:g}) |" in page
    # the same arrows without head and gap end exactly on the points
    layout = root / "layouts" / "flow_cell.toml"
    layout.write_text(layout.read_text().replace('gap = "1.5pt"', 'gap = "0pt"\nhead = "none"'))
    ends = arrow_ends(build("flow_cell", root=root, formats=("svg",)).outputs["svg"].read_bytes())
    flat = [v for end in ends for v in end]
    assert flat == pytest.approx([v * MM for point in INKSCAPE_ENDS_MM for v in point], abs=0.01)


# ─── the notebook how-to ────────────────────────────────────────────────────────────────────────────────

def test_the_notebook_howtos_example_runs_in_a_starter_project(tmp_path, monkeypatch):
    """docs/howto/notebook.md's example, run in a project made by ``compose new demo`` as the page says:
    ``fig.build()`` writes build/demo.*, the figure made in code builds to figures/, and its ``svg()`` and
    ``png()`` are those files' bytes (the PNG 120 mm at 300 dpi: 1417 px wide)."""
    [block] = [body for info, body in fenced_blocks((DOCS / "howto" / "notebook.md").read_text()) if info == "python"]
    assert "compose new demo" in (DOCS / "howto" / "notebook.md").read_text()
    new_figure(tmp_path, "demo")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "docs/howto/notebook.md", "exec"), namespace)  # noqa: S102 - the page's own example
    assert {p.name for p in (tmp_path / "build").glob("demo.*")} == {"demo.svg", "demo.pdf", "demo.png"}
    assert namespace["svg"] == (tmp_path / "figures" / "demo_api.svg").read_bytes()
    assert namespace["png"] == (tmp_path / "figures" / "demo_api.png").read_bytes()
    assert read_png(tmp_path / "figures" / "demo_api.png").shape[1] == round(120 / 25.4 * 300) == 1417


# ─── the journal how-to ─────────────────────────────────────────────────────────────────────────────────

def test_the_journal_howtos_preset_sets_the_checks_limits(tmp_path):
    """docs/howto/journal.md's three lines of ``[figure]`` on a starter figure: 183 mm wide (Nature's
    double column), and the check's report names the preset as the source of its limits."""
    [block] = [body for info, body in fenced_blocks((DOCS / "howto" / "journal.md").read_text()) if info == "toml"]
    assert block.startswith("[figure]\n")
    root = tmp_path / "paper"
    new_figure(root, "fig1")
    layout = root / "layouts" / "fig1.toml"
    text = layout.read_text()
    text = re.sub(r'^width = .*\n^height = .*\n', "", text, flags=re.M)
    layout.write_text(text.replace("[figure]\n", block, 1))
    svg = etree.fromstring(build("fig1", root=root, formats=("svg",)).outputs["svg"].read_bytes())
    assert svg.get("width") == "183mm" and svg.get("height") == "120mm"
    report = check("fig1", root=root)
    assert "limits from nature preset" in report.summary()


# ─── the Make and Snakemake how-to ──────────────────────────────────────────────────────────────────────

def _snakemake(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run([sys.executable, "-m", "snakemake", "-c1", "--rerun-triggers", "mtime"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.e2e
def test_the_snakefile_builds_as_compose_does_and_rebuilds_when_the_data_change(tmp_path):
    """docs/howto/make/Snakefile, run by Snakemake itself on a project of one figure (``compose new``): it
    writes the figure's three outputs, the same bytes as ``compose`` writes; run again it does nothing;
    after a data row is added it builds the figure again, as ``compose`` builds it from those data."""
    pytest.importorskip("snakemake", reason="snakemake comes with the test extra")
    page = (DOCS / "howto" / "make.md").read_text()
    assert "```{literalinclude} make/Snakefile" in page and "snakemake -c1 --rerun-triggers mtime\n" in page
    root, alone = tmp_path / "paper", tmp_path / "alone"
    new_figure(root, "fig1")
    shutil.copytree(root, alone)
    shutil.copyfile(DOCS / "howto" / "make" / "Snakefile", root / "Snakefile")

    def by_compose() -> dict[str, bytes]:
        assert main(["fig1", "--root", str(alone)]) == 0
        return {s: (alone / "build" / f"fig1.{s}").read_bytes() for s in ("svg", "pdf", "png")}

    def by_snakemake() -> dict[str, bytes]:
        return {s: (root / "build" / f"fig1.{s}").read_bytes() for s in ("svg", "pdf", "png")}

    done = _snakemake(root)
    assert done.returncode == 0, done.stderr
    assert "built fig1" in done.stdout + done.stderr
    assert by_snakemake() == by_compose()
    assert (root / "build" / "fig1.deps").read_text().split() == ["data/fig1.csv", "layouts/fig1.toml", "panels/fig1.py"]

    again = _snakemake(root)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr
    assert "built fig1" not in again.stdout + again.stderr

    before = by_snakemake()
    for folder in (root, alone):
        with open(folder / "data" / "fig1.csv", "a") as csv:
            csv.write("11,0.9\n")
    changed = _snakemake(root)
    assert changed.returncode == 0 and "built fig1" in changed.stdout + changed.stderr, changed.stderr
    assert by_snakemake() != before and by_snakemake() == by_compose()


# ─── the site's own checks ──────────────────────────────────────────────────────────────────────────────

def _tiny_site(folder: Path, index: str) -> Path:
    folder.mkdir()
    (folder / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        'extensions = ["myst_parser", "composer_docs"]\n'
        "myst_heading_anchors = 4\nnitpicky = True\ncomposer_gallery = False\n")
    (folder / "index.md").write_text(index)
    (folder / "other.md").write_text("# Other\n\n## A heading\n\ntext\n")
    (folder / "there.png").write_bytes((DOCS / "volume_kv.png").read_bytes())
    return folder


def _sphinx(source: Path, out: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-m", "sphinx", "-n", "-W", "--keep-going", "-q", "-b", "html",
                           str(source), str(out)], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr


GOOD = """# Index

[other](other.md), [its heading](other.md#a-heading), [a site](https://www.sphinx-doc.org/en/master/),
<img src="there.png" alt="x">

```{toctree}
other
```
"""


@pytest.mark.e2e
def test_the_sites_build_fails_on_a_broken_link_a_missing_heading_a_bad_url_and_a_missing_image(tmp_path):
    pytest.importorskip("sphinx", reason="sphinx comes with the docs extra, which the test extra holds")
    status, err = _sphinx(_tiny_site(tmp_path / "good", GOOD), tmp_path / "good-out")
    assert status == 0 and "WARNING" not in err, err
    bad = GOOD.replace("(other.md)", "(gone.md)").replace("#a-heading", "#no-such-heading") \
        .replace("https://www.sphinx-doc.org/en/master/", "https://localhost") \
        .replace('src="there.png"', 'src="missing.png"')
    status, err = _sphinx(_tiny_site(tmp_path / "bad", bad), tmp_path / "bad-out")
    assert status != 0
    assert "gone.md" in err and "no-such-heading" in err
    assert "external link https://localhost: host 'localhost' is not a host name" in err
    assert "raw <img> names missing.png" in err


@pytest.mark.parametrize("url, problem", [
    ("https://www.sphinx-doc.org/en/master/", None),
    ("mailto:someone@example.org", None),
    ("ftp://example.org/file", "scheme 'ftp' is not https, http or mailto"),
    ("https://example", "host 'example' is not a host name"),
    ("https://exa mple.org/", "holds white space"),
])
def test_external_links_are_checked_for_their_form_only(url, problem):
    pytest.importorskip("sphinx", reason="sphinx comes with the docs extra, which the test extra holds")
    sys.path.insert(0, str(DOCS / "_ext"))
    import composer_docs

    assert composer_docs.bad_url_form(url) == problem
