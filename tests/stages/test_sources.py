"""Panel sources are an extension point: a source registered from outside the package (here, in the test)
is read by the loader, listed by the schema and the reference, drawn in a real build, and gone once
unregistered (:mod:`composer.stages.sources`, :mod:`composer.layout.sources`).

The toy source fills its box with the colour its key gives (``toy = "#d62728"``). Where that box lands is
worked out from the layout by hand: at 10 mm, 5 mm, 20 mm x 15 mm on a 60 mm x 40 mm canvas; at 254 dpi
one pixel is 0.1 mm, so the rectangle covers pixel columns 100..299 and rows 50..199 exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from lxml import etree
from PIL import Image

from composer.errors import LayoutError
from composer.layout import sources as layout_sources
from composer.layout.keys import TABLES_BY_KIND, Key
from composer.layout.loader import load_layout
from composer.layout.model import Panel
from composer.layout.schema import json_schema, markdown_reference
from composer.layout.sources import SourceTable
from composer.pipeline import build
from composer.stages.sources import Drawing, DrawnSource, Reading, register, registered, source_of, sources, unregister

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"


class ToySource(DrawnSource):
    """Fills its box with one colour (its key's value), as an SVG document the size of the box."""

    table = SourceTable(key=Key("toy", "color", "a colour the toy fills its box with"))

    def svg(self, panel: Panel, width_pt: float, height_pt: float, drawing: Drawing) -> bytes:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_pt}pt" height="{height_pt}pt" '
                f'viewBox="0 0 {width_pt} {height_pt}"><rect id="fill" x="0" y="0" width="{width_pt}" '
                f'height="{height_pt}" fill="{panel.source}"/></svg>').encode()


@pytest.fixture
def toy() -> Iterator[ToySource]:
    with registered(ToySource()) as (source,):
        assert isinstance(source, ToySource)
        yield source


def _project(tmp_path: Path, panel: str) -> Path:
    (tmp_path / "layouts").mkdir()
    (tmp_path / "layouts" / "fig.toml").write_text(
        '[figure]\nwidth = "60mm"\nheight = "40mm"\nbackground = "white"\n\n'
        f'[panels.t]\n{panel}at = ["10mm", "5mm"]\nsize = ["20mm", "15mm"]\n')
    return tmp_path


def _translation(el: etree._Element) -> tuple[float, float, float]:
    """(dx, dy, scale) of the transforms on ``el`` and its ancestors: translate(), scale() and
    matrix(s 0 0 s dx dy) only (what an unrotated placement writes); anything else fails the test."""
    dx, dy, scale = 0.0, 0.0, 1.0
    for node in [el, *el.iterancestors()][::-1]:  # outermost first
        for name, args in re.findall(r"(\w+)\(([^)]*)\)", node.get("transform", "")):
            v = [float(a) for a in re.split(r"[\s,]+", args.strip())]
            if name == "translate":
                m = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) > 1 else 0.0)
            elif name == "scale":
                m = (v[0], 0.0, 0.0, v[-1], 0.0, 0.0)
            else:
                assert name == "matrix", node.get("transform")
                m = tuple(v)  # type: ignore[assignment]
            assert m[1] == m[2] == 0 and m[0] == m[3], node.get("transform")
            dx, dy, scale = dx + scale * m[4], dy + scale * m[5], scale * m[0]
    return dx, dy, scale


def test_a_source_registered_in_a_test_draws_a_real_figure(toy, tmp_path):
    root = _project(tmp_path, 'toy = "#d62728"\n')
    build("fig", root=root, formats=("svg", "png"), dpi=254)

    svg = etree.parse(str(root / "build" / "fig.svg")).getroot()
    group = svg.find(f".//{SVG}g[@id='panel-t']")
    assert group is not None, "the panel's group is on the canvas"
    rects = [r for r in group.iter(f"{SVG}rect") if r.get("fill") == "#d62728"]
    assert len(rects) == 1
    dx, dy, scale = _translation(rects[0])
    x_pt = dx + scale * float(rects[0].get("x", "0"))
    y_pt = dy + scale * float(rects[0].get("y", "0"))
    w_pt, h_pt = scale * float(rects[0].get("width")), scale * float(rects[0].get("height"))
    assert (x_pt, y_pt, w_pt, h_pt) == pytest.approx((10 * MM, 5 * MM, 20 * MM, 15 * MM), abs=1e-3)

    png = Image.open(root / "build" / "fig.png").convert("RGB")
    assert png.size == (600, 400)  # 60 mm x 40 mm at 10 px per mm
    red, white = (0xD6, 0x27, 0x28), (255, 255, 255)
    inside = [(100, 50), (299, 50), (100, 199), (299, 199), (200, 125)]
    outside = [(99, 125), (300, 125), (200, 49), (200, 200), (5, 5), (590, 390)]
    assert [png.getpixel(p) for p in inside] == [red] * len(inside)
    assert [png.getpixel(p) for p in outside] == [white] * len(outside)
    assert int((np.asarray(png) == red).all(axis=2).sum()) == 200 * 150


class PaletteToy(DrawnSource):
    """Fills its box with the colour written in ``palette.txt`` at the project root: a file no key names,
    which the source reads (:meth:`read`) and names for the manifest (:meth:`files`)."""

    table = SourceTable(key=Key("palette_toy", "string", "a toy filled with the colour of palette.txt"))

    def files(self, panel: Panel, reading: Reading) -> tuple[Path, ...]:
        return (reading.root / "palette.txt",)

    def read(self, panel: Panel, reading: Reading) -> bytes:
        return (reading.root / "palette.txt").read_bytes()

    def svg(self, panel: Panel, width_pt: float, height_pt: float, drawing: Drawing) -> bytes:
        assert drawing.document is not None
        colour = drawing.document.decode().strip()
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width_pt} {height_pt}">'
                f'<rect width="{width_pt}" height="{height_pt}" fill="{colour}"/></svg>').encode()


def test_a_file_the_source_names_for_the_manifest_rebuilds_the_figure_when_it_changes(tmp_path):
    root = _project(tmp_path, 'palette_toy = "x"\n')
    (root / "palette.txt").write_text("#0000ff\n")

    def fills() -> set[str]:
        svg = etree.parse(str(root / "build" / "fig.svg")).getroot()
        return {r.get("fill") for r in svg.find(f".//{SVG}g[@id='panel-t']").iter(f"{SVG}rect")}

    with registered(PaletteToy()):
        first = build("fig", root=root, formats=("svg",))
        assert not first.up_to_date and fills() == {"#0000ff"}
        recorded = json.loads((root / "build" / ".fig.manifest.json").read_text())
        assert recorded["inputs"]["palette.txt"] == hashlib.sha256(b"#0000ff\n").hexdigest()  # declared, hashed
        assert "palette.txt" not in recorded["opened"]  # not only seen opened (composer/sandbox/audit.py)
        assert build("fig", root=root, formats=("svg",)).up_to_date
        (root / "palette.txt").write_text("#00ff00\n")
        again = build("fig", root=root, formats=("svg",))
        assert not again.up_to_date and "palette.txt" in again.reason
        assert fills() == {"#00ff00"}


def test_the_loader_schema_and_reference_know_the_source_while_it_is_registered(toy, tmp_path):
    assert source_of(load_layout(_project(tmp_path, 'toy = "#00ff00"\n') / "layouts" / "fig.toml").panels[0]) is toy
    panel = json_schema()["properties"]["panels"]["additionalProperties"]
    assert "toy" in panel["properties"] and {"required": ["toy"]} in panel["allOf"][0]["oneOf"]
    assert "a colour the toy fills its box with" in markdown_reference()
    layout = tmp_path / "layouts" / "fig.toml"
    cases = {
        'toy = "not-a-colour"\n': r"panels\.t\.toy: .*not-a-colour",
        'toy = "#00ff00"\npage = 2\n': r"panels\.t\.page: page applies to pdf panels, so it does nothing here: "
                                       r"a toy panel has no use for it",
        'toy = "#00ff00"\nparams = { n = 1 }\n': r"panels\.t\.params: params applies to render panels",
        'toy = "#00ff00"\nsvg = "x.svg"\n': r"panels\.t: give exactly one of render, svg, image, pdf, vegalite, toy "
                                           r"\(got svg, toy\)",
    }
    for panel, message in cases.items():
        layout.write_text(layout.read_text().split("[panels.t]")[0] + f"[panels.t]\n{panel}at = [\"0mm\", \"0mm\"]\n"
                          'size = ["5mm", "5mm"]\n')
        with pytest.raises(LayoutError, match=message) as err:
            load_layout(layout)
        assert "\n" not in str(err.value)


def test_the_loader_asks_the_source_table_what_a_panel_can_be_used_for(toy, tmp_path):
    """A toy panel is not drawn by matplotlib and has no element ids: guides, [[align]], data anchors and
    "panel#id" points refuse it, naming it as its table says (a toy panel)."""
    layout = _project(tmp_path, 'toy = "#00ff00"\n') / "layouts" / "fig.toml"
    base = layout.read_text()
    cases = {
        '[[legend]]\nfrom = ["t"]\nat = ["40mm", "5mm"]\n':
            r"legend\[0\]\.from\[0\]: .*'t' is a toy panel, not a matplotlib one",
        '[[align]]\npanels = ["t", "t"]\n': r"align\[0\]\.panels\[0\]: .*'t' is a toy panel, not a matplotlib one",
        '[[arrow]]\nfrom = ["0mm", "0mm"]\nto = "t.peak"\n': r"arrow\[0\]\.to: .*'t' has no anchor 'peak'",
        '[[arrow]]\nfrom = ["0mm", "0mm"]\nto = "t#fill.n"\n': r"arrow\[0\]\.to: .*'t' is a toy panel, not an svg one",
    }
    for extra, message in cases.items():
        layout.write_text(base + "\n" + extra)
        with pytest.raises(LayoutError, match=message):
            load_layout(layout)


def test_unregistering_removes_the_source_everywhere(tmp_path):
    before = [k.name for k in TABLES_BY_KIND["panel"].keys]
    register(ToySource())
    assert [k.name for k in TABLES_BY_KIND["panel"].keys] != before
    unregister("toy")
    assert [k.name for k in TABLES_BY_KIND["panel"].keys] == before
    assert "toy" not in {s.name for s in sources()} | {t.name for t in layout_sources.registered()}
    with pytest.raises(LayoutError, match=r"panels\.t: give exactly one of render, svg, image, pdf, vegalite \(got none\)"):
        load_layout(_project(tmp_path, 'toy = "#00ff00"\n') / "layouts" / "fig.toml")


def test_a_source_cannot_take_a_key_another_source_or_every_panel_has():
    class Clash(ToySource):
        table = SourceTable(key=Key("toy", "color", "x"), keys=(Key("page", "page", "y", default=1),))

    class Common(ToySource):
        table = SourceTable(key=Key("size", "color", "x"))

    with pytest.raises(ValueError, match="page belongs to another source"):
        register(Clash())
    with pytest.raises(ValueError, match="size is a key every panel has"):
        register(Common())
    assert "toy" not in {s.name for s in sources()}


@pytest.mark.e2e
def test_compose_schema_in_a_fresh_process_lists_the_built_in_sources():
    """The command imports the stages, which register the sources, before it prints the panel table."""
    code = "import sys\nfrom composer.cli.main import main\nsys.exit(main(['schema']))\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    panel = json.loads(proc.stdout)["properties"]["panels"]["additionalProperties"]
    assert [k for k in panel["properties"]][:7] == ["render", "svg", "image", "pdf", "vegalite", "page", "anchors"]
    assert proc.stdout == (Path(__file__).parents[2] / "docs" / "layout.schema.json").read_text()
