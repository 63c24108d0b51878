"""The Python API: figures in code give the same SVG as layout files (the same drawing; the provenance record
names the layout file only for a build from the file); notebooks display them."""

from __future__ import annotations

import io
import json
import shutil
import tomllib
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import composer
from composer.api import Align, Connector, Figure, Grid, Panel, Shape, Text, load
from composer.errors import LayoutError, ProjectError
from composer.stages.describe import svg_provenance
from conftest import DEMO, REPO, drawing


@pytest.fixture(scope="module")
def flagship_svg(tmp_path_factory):
    out = tmp_path_factory.mktemp("flagship_svg")
    composer.build("volume_kv", root=REPO, out=out, formats=("svg",))
    return (out / "volume_kv.svg").read_bytes()


def flagship_in_code() -> Figure:
    """layouts/volume_kv.toml, written with the API's constructors (a few tables, enough to differ if any
    key were lost): every element in the layout's order."""
    doc = tomllib.loads((REPO / "layouts" / "volume_kv.toml").read_text())
    fig = Figure(**doc["figure"], name="volume_kv", root=REPO)
    texts, shapes, arrows = iter(doc["text"]), iter(doc["shape"]), iter(doc["arrow"])
    for name, panel in doc["panels"].items():
        panel = dict(panel)
        fig.add(Panel(name, panel.pop("render"), **panel))
    for t in texts:
        t = dict(t)
        fig.add(Text(t.pop("text"), **{("class_" if k == "class" else k): v for k, v in t.items()}))
    for s in shapes:
        fig.add(Shape(**s))
    for a in arrows:
        a = dict(a)
        fig.add(Connector(a.pop("from"), a.pop("to"), **a))
    return fig


def test_flagship_built_in_code_is_byte_identical_to_the_layout_file(flagship_svg):
    fig = flagship_in_code()
    svg = fig.svg()
    assert drawing(svg) == drawing(flagship_svg)  # the same drawing; the records name other inputs:
    in_code, from_file = (json.loads(svg_provenance(s) or "") for s in (svg, flagship_svg))
    assert in_code["inputs"] == [i for i in from_file["inputs"] if i["role"] != "layout"]  # no layout file


def test_flagship_written_by_hand_in_code_is_byte_identical(flagship_svg):
    """The first lines of the flagship, typed as a user would, then the rest from the file: same bytes."""
    fig = Figure(width="180mm", height="100mm", font="DejaVu Sans", font_size="7pt", background="white",
                 data="../data/volume_kv.npz", params={"t": 4}, name="volume_kv", root=REPO)
    doc = tomllib.loads((REPO / "layouts" / "volume_kv.toml").read_text())
    fig.add(Text(doc["text"][0]["text"], at="canvas.n", offset=("0mm", "2mm"), anchor="n", size="8.5pt",
                 weight="bold"))
    for t in doc["text"][1:]:
        fig.add(Text(**t))
    fig.add(Panel("rgb", "volume_kv:rgb_crosshair", at="canvas.nw", offset=["4mm", "18mm"],
                  size=("36mm", "36mm"), label="a", title="RGB input"))
    for name, panel in list(doc["panels"].items())[1:]:
        fig.add(Panel(name, **panel))
    fig.add(*(Shape(**s) for s in doc["shape"]))
    fig.add(*(Connector(a["from"], a["to"], **{k: v for k, v in a.items() if k not in ("from", "to")})
              for a in doc["arrow"]))
    assert drawing(fig.svg()) == drawing(flagship_svg)


def test_load_gives_the_file_and_builds_the_same_bytes(flagship_svg, tmp_path):
    fig = composer.load("volume_kv", root=REPO)
    assert fig.document == tomllib.loads((REPO / "layouts" / "volume_kv.toml").read_text())
    result = fig.build(out=tmp_path, formats=("svg",))
    assert drawing(result.outputs["svg"].read_bytes()) == drawing(flagship_svg)  # in memory: no layout input
    # the file build behind flagship_svg stored every panel: the API build shares its panel cache
    assert result.rendered == () and result.cached == ("rgb", "pca", "fmap", "fvec", "keys", "volume")
    assert result.written == ("svg",)
    assert not (tmp_path / ".volume_kv.manifest.json").exists()  # a figure in memory has no manifest


def test_load_takes_the_path_of_a_layout_file(tmp_path, monkeypatch):
    """A notebook passes the layout file: its project is the folder above ``layouts/``; any other path is
    the one-line ProjectError, never a traceback from inside composer."""
    monkeypatch.chdir(REPO)
    by_path = composer.load(Path("layouts/volume_kv.toml"))
    assert (by_path.name, by_path.document) == ("volume_kv", composer.load("volume_kv", root=REPO).document)
    assert composer.load(str(REPO / "layouts" / "volume_kv.toml"), root=tmp_path).name == "volume_kv"
    (tmp_path / "fig.toml").write_text("[figure]\n")
    for bad in (tmp_path / "fig.toml", Path("layouts/nothing.toml"), Path("README.md")):
        with pytest.raises(ProjectError, match="is not a layout file of a project"):
            composer.load(bad)


COUNTED = """
from pathlib import Path


def counted(fig, data, n=3):
    with open(Path(__file__).resolve().parent.parent / "draws.log", "a") as log:
        log.write(f"counted n={n}\\n")
    ax = fig.add_subplot()
    ax.plot(range(n), range(n))
"""


def draws(root) -> list[str]:
    log = root / "draws.log"
    return log.read_text().splitlines() if log.exists() else []


def test_an_api_build_takes_its_panels_from_the_panel_cache(tmp_path):
    """Every call of the renderer is logged by the renderer itself (in its worker): a second build
    of the same figure draws nothing, and gives the same bytes; a changed param redraws that panel only."""
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    (root / "panels" / "counted.py").write_text(COUNTED)
    fig = Figure(width="60mm", height="30mm", name="cached", root=root)
    fig.add(Panel("p", render="counted:counted", at=["2mm", "2mm"], size=["25mm", "25mm"]),
            Panel("q", render="counted:counted", at=["32mm", "2mm"], size=["25mm", "25mm"], params={"n": 5}))
    first = fig.build(formats=("svg",))
    assert sorted(draws(root)) == ["counted n=3", "counted n=5"]
    svg = first.outputs["svg"].read_bytes()
    second = Figure.from_document(fig.document, name="cached", root=root).build(formats=("svg",))
    assert len(draws(root)) == 2, "the second build drew a panel again"
    assert second.outputs["svg"].read_bytes() == svg
    assert second.written == ()  # same bytes: the file is left alone
    assert Figure.from_document(fig.document, name="cached", root=root).svg() == svg  # svg(): the same path
    assert len(draws(root)) == 2
    fig.document["panels"]["q"]["params"] = {"n": 6}
    third = fig.build(formats=("svg",))
    assert draws(root)[2:] == ["counted n=6"]  # p came from the cache
    assert third.outputs["svg"].read_bytes() != svg
    fig.build(formats=("svg",), cache=False)
    assert sorted(draws(root)[3:]) == ["counted n=3", "counted n=6"]  # cache=False draws everything


def test_check_takes_a_figure_in_memory(tmp_path):
    """``composer.check(fig)`` checks the document as it is in memory: a 3 pt text added in code is a
    font-size error against the default 5 pt minimum, which the same figure on disk does not have."""
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    assert not [f for f in composer.check("demo", root=root).findings if f.rule == "font-size"]
    fig = composer.load("demo", root=root)
    fig.add(Text("tiny words", at=["2mm", "2mm"], size="3pt"))
    report = composer.check(fig)
    small = [f for f in report.findings if f.rule == "font-size"]
    assert [(f.measured, f.limit, f.unit) for f in small] == [(3.0, 5.0, "pt")]
    assert "tiny words" in small[0].element
    assert not (root / "build" / "demo.svg").exists()  # a check writes no output


def test_a_renderer_given_as_a_function_is_drawn_by_every_build(tmp_path):
    """A function has no source file to hash, so its panel is never cached."""
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    log = root / "nb.log"

    def drawn(fig, data):
        with open(log, "a") as fh:
            fh.write("drawn\n")
        fig.add_subplot().plot([0, 1])

    fig = Figure(width="40mm", height="30mm", name="nbfunc", root=root)
    fig.add(Panel("p", render=drawn, at=["2mm", "2mm"], size=["30mm", "25mm"]))
    first = fig.build(formats=("svg",))
    second = fig.build(formats=("svg",))
    assert log.read_text() == "drawn\n" * 2
    assert second.outputs["svg"].read_bytes() == first.outputs["svg"].read_bytes()


def test_notebook_reprs_render_the_flagship(flagship_svg):
    from PIL import Image

    fig = composer.load("volume_kv", root=REPO)
    svg = fig._repr_svg_()
    assert isinstance(svg, str) and drawing(svg) == drawing(flagship_svg)
    root = etree.fromstring(svg.encode())
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("width") == "180mm"
    png = fig._repr_png_()
    with Image.open(io.BytesIO(png)) as img:
        assert img.format == "PNG"
        assert img.size == (round(180 / 25.4 * fig.png_dpi), round(100 / 25.4 * fig.png_dpi))
        pixels = np.asarray(img.convert("RGB"))
    assert pixels.std() > 20, "the PNG is blank"
    assert (pixels > 250).all(axis=2).mean() > 0.3, "a white canvas with figure content"


def test_python_layout_loads_and_builds_identically(tmp_path):
    composer.build("kvpath_delta", root=REPO, out=tmp_path, formats=("svg",))
    fig = load("kvpath_delta", root=REPO)
    assert isinstance(fig.document, dict) and len(fig.document["shape"]) == 10  # 4 states, 3 deltas, 3 merge nodes
    assert drawing(fig.svg()) == drawing((tmp_path / "kvpath_delta.svg").read_bytes())


def test_grid_align_and_a_renderer_function_from_a_notebook(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)

    def ramp(fig, data, step=1):
        ax = fig.add_subplot()
        ax.plot(np.arange(0, 10, step))
        return {"end": (ax, 9, 9)}

    fig = Figure(width="100mm", height="50mm", name="nb", root=root, colors={"accent": "#0f6cbd"})
    fig.add(Grid("AB", margin="4mm", gutter="8mm"),
            Panel("left", render=ramp, cell="A", label="a"),
            Panel("right", render=ramp, cell="B", params={"step": 3}),
            Align("left", "right"),
            Connector("left.end", "right.w", color="accent"))
    assert fig.document["panels"]["left"]["render"] == "test_api:ramp"
    svg = etree.fromstring(fig.svg())
    assert svg.find(".//{http://www.w3.org/2000/svg}g[@id='panel-left']") is not None
    assert svg.find(".//{http://www.w3.org/2000/svg}g[@id='arrow-0']") is not None
    out = fig.build(out=tmp_path / "out", formats=("svg", "png"), dpi=50)
    assert out.outputs["png"].stat().st_size > 0


def test_unknown_key_is_refused_where_it_is_written():
    with pytest.raises(TypeError, match=r"Panel 'a': unknown key 'sise'; did you mean 'size'\?; valid keys are .*size"):
        Panel("a", "m:f", sise=["1mm", "1mm"])
    with pytest.raises(TypeError, match=r"Figure: unknown key 'colour'"):
        Figure(width="1mm", height="1mm", colour="red")


def test_a_misspelt_figure_argument_suggests_the_figures_own_arguments_too():
    """`colors=`, `name=`, `root=`, `styles=`, `rcparams=` are Figure's arguments beside the [figure] keys:
    a slip near one of them is pointed at it, and the valid list names them."""
    with pytest.raises(TypeError) as raised:
        Figure(width="1mm", height="1mm", colour={"ink": "#000000"})
    message = str(raised.value)
    assert "did you mean 'colors'?" in message, message
    listed = set(message.split("valid keys are ")[1].split(", "))
    assert {"colors", "name", "root", "styles", "rcparams", "font", "width"} <= listed, listed


def test_bad_values_fail_like_a_layout_file():
    fig = Figure(width="100mm", height="50mm", name="bad", root=REPO)
    fig.add(Text("x", at=["12parsecs", "1mm"]))
    with pytest.raises(LayoutError, match=r"figure 'bad' \(built in code\): text\[0\]\.at\[0\]: '12parsecs'"):
        fig.svg()


def test_api_constructors_accept_every_schema_key():
    from composer.layout.schema import TABLES_BY_KIND

    for cls, kind, args in ((Panel, "panel", ("p",)), (Text, "text", ("t",)), (Shape, "shape", ()),
                            (Connector, "arrow", ("a.e", "b.w")), (Align, "align", ("p", "q"))):
        keys = TABLES_BY_KIND[kind].key_names() - {"text", "from", "to", "panels", "kind"}
        if cls is Panel:
            keys -= {"render"}
        values = {(k + "_" if k in ("class", "from") else k): "x" for k in keys}
        if cls is Align:
            element = cls(*args, axis="y")
        else:
            element = cls(*args, **values)
            assert set(element.table) >= keys


@pytest.mark.parametrize("name", ["../evil", "/tmp/abs", "", 5, "a b"])
def test_a_figure_name_cannot_leave_build(name, tmp_path):
    from composer.errors import ComposerError

    with pytest.raises(ComposerError, match="is not a valid figure name"):
        Figure(width="10mm", height="10mm", name=name, root=tmp_path)


def test_api_mistakes_are_composer_errors(tmp_path):
    from composer.errors import ComposerError

    fig = Figure(width="20mm", height="10mm", name="f", root=tmp_path)
    with pytest.raises(ComposerError, match="is not a Panel"):
        fig.add(5)
    fig.add(Panel("a", render="m:f", at=["0mm", "0mm"], size=["5mm", "5mm"]))
    with pytest.raises(ComposerError, match="already in the figure"):
        fig.add(Panel("a", render="m:f", at=["0mm", "0mm"], size=["5mm", "5mm"]))
    for dpi in (0, float("nan"), "abc", True):
        with pytest.raises(ComposerError, match="must be a number from 1 to 12000"):
            fig.png(dpi=dpi)


def _line_in(color):
    def line(fig, data):
        fig.add_subplot().plot([0, 1], [0, 1], color=color)
    return line


def test_two_functions_of_one_name_are_refused_not_swapped(tmp_path):
    """Two panels drawn by different functions that share a name (a factory, a re-run notebook cell)
    would both be drawn by one of them: refused, naming the panel."""
    fig = Figure(width="100mm", height="40mm", name="fac", root=tmp_path)
    fig.add(Panel("a", render=_line_in("#ff0000"), at=["2mm", "2mm"], size=["40mm", "30mm"]))
    with pytest.raises(LayoutError, match=r"Panel 'b': another function named 'test_api:line' already draws"):
        fig.add(Panel("b", render=_line_in("#0000ff"), at=["50mm", "2mm"], size=["40mm", "30mm"]))


def test_a_lambda_renderer_is_refused_where_it_is_given():
    with pytest.raises(LayoutError, match=r"Panel 'a': render=.*is not a named function; define it with def"):
        Panel("a", render=lambda fig, data: None, at=["2mm", "2mm"], size=["40mm", "30mm"])


def test_svg_follows_an_edited_panel_module(tmp_path):
    """``svg()`` runs the pipeline on each call: an edit of the panel's module shows in the next one."""
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    (root / "panels" / "counted.py").write_text(COUNTED)
    fig = Figure(width="40mm", height="30mm", name="edited", root=root)
    fig.add(Panel("p", render="counted:counted", at=["2mm", "2mm"], size=["30mm", "25mm"]))
    before = fig.svg()
    assert fig.svg() == before  # nothing changed: the same bytes (from the panel cache)
    module = root / "panels" / "counted.py"
    module.write_text(module.read_text().replace("ax.plot(range(n), range(n))", "ax.plot(range(n), range(n)[::-1])"))
    assert fig.svg() != before


def test_figure_build_takes_jobs_and_timeout(tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    (root / "panels" / "slow.py").write_text("import time\n\ndef slow(fig, data):\n    time.sleep(30)\n")
    fig = Figure(width="40mm", height="30mm", name="slow", root=root)
    fig.add(Panel("p", render="slow:slow", at=["2mm", "2mm"], size=["30mm", "25mm"]))
    with pytest.raises(composer.ComposerError, match=r"still running after 1 s"):
        composer.build(fig, formats=("svg",), jobs=1, timeout_s=1)
    with pytest.raises(composer.ComposerError, match=r"formats is a tuple of format names, e\.g\. \('svg',\)"):
        fig.build(formats="svg")
