"""The JSON Schema and the loader must not drift apart.

- Every layout in the repository (TOML, and the dict a Python layout returns)
  is valid under the schema, and loads.
- The loader is instrumented while loading them: the keys each table accepts
  (``_Table.asked`` when ``done()`` checks for unknown keys, plus the keys
  ``refuse()`` names as doing nothing in that use) must be exactly
  the keys :data:`composer.layout.schema.TABLES` lists, for every table kind.
- For every key of every table, a wrong value of the key's type is refused by
  the loader AND by the schema.
- Every key with a default, omitted from a minimal layout, gives the model
  the format's default converted (:attr:`composer.layout.keys.Key.value`),
  and a few of those are checked against values worked out by hand
  (``stroke_width`` 0.5 pt).
- A key added to the format (here, for the test only) is accepted and
  converted by the loader, listed in the JSON Schema and in the reference.
- The generated files (docs/layout.schema.json, the site's layout reference) match
  what the code generates now.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path

import jsonschema
import pytest

from composer.cli.main import main
from composer.errors import LayoutError
from composer.layout import loader as layout_module
from composer.layout.keys import UNSET
from composer.layout.loader import load_document, load_layout, read_document
from composer.layout.schema import (
    PLACEMENT_KEYS,
    README_END,
    README_START,
    TABLES,
    TABLES_BY_KIND,
    json_schema,
    markdown_reference,
    readme_section,
    schema_text,
    style_file_schema,
)
from conftest import REPO

VALIDATOR = jsonschema.Draft7Validator(json_schema())


def repo_layouts() -> list[Path]:
    """Every layout file the repository ships: its gallery and the test projects."""
    found = sorted((REPO / "layouts").glob("*.toml")) + sorted((REPO / "layouts").glob("*.py"))
    found += sorted((REPO / "tests" / "projects").glob("*/layouts/*.toml"))
    found += sorted((REPO / "tests" / "projects").glob("*/layouts/*.py"))
    return [p for p in found if not p.name.startswith("_")]


def repo_style_files() -> list[Path]:
    return sorted((REPO / "styles").glob("*.toml")) + sorted((REPO / "tests" / "projects").glob("*/styles/*.toml"))


def test_schema_is_a_valid_draft7_schema():
    jsonschema.Draft7Validator.check_schema(json_schema())
    jsonschema.Draft7Validator.check_schema(style_file_schema())


@pytest.mark.parametrize("path", repo_layouts(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_repo_layout_is_valid_under_the_schema_and_loads(path):
    doc = read_document(path)
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in VALIDATOR.iter_errors(doc)]
    assert not errors, errors
    load_layout(path)


@pytest.mark.parametrize("path", repo_style_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_repo_style_file_is_valid(path):
    import tomllib

    jsonschema.validate(tomllib.loads(path.read_text()), style_file_schema())


def test_the_repo_has_layouts_of_both_kinds():
    suffixes = {p.suffix for p in repo_layouts()}
    assert suffixes == {".toml", ".py"}
    assert len(repo_layouts()) >= 15


# ─── the loader's accepted keys == the schema's keys ──────────────────────

def _kind(table) -> str:
    key = table.key
    if key == "":
        return "layout" if "figure" in table.asked else "style_file"
    for pattern, kind in ((r"figure", "figure"), (r"grid", "grid"), (r"check", "check"), (r"grids\.\w+", "grids"),
                          (r"panels\.\w+", "panel"), (r"text\[\d+\]", "text"), (r"shape\[\d+\]", "shape"),
                          (r"arrow\[\d+\]", "arrow"), (r"align\[\d+\]", "align"), (r"styles\.\w+", "style"),
                          (r"legend\[\d+\]", "legend"),
                          (r"colorbar\[\d+\]", "colorbar")):
        if re.fullmatch(pattern, key):
            return kind
    return "point_table"  # a point written as { at, offset }: arrow[0].via[1], text[2].at...


@pytest.fixture(scope="module")
def accepted_keys():
    """kind -> every set of keys the loader accepted for a table of that kind, over all repo layouts."""
    seen: dict[str, set[frozenset[str]]] = {}
    original = layout_module._Table.done

    def recording_done(self):
        seen.setdefault(_kind(self), set()).add(frozenset(self.asked + self.refused))
        return original(self)

    layout_module._Table.done = recording_done
    try:
        for path in repo_layouts():
            load_layout(path)
        for doc in FULL_COVERAGE:
            load_document(doc, REPO / "layouts" / "_coverage.toml", name="coverage")
    finally:
        layout_module._Table.done = original
    return seen


#: tables the repo's layouts may not use; loaded too so every kind is seen.
FULL_COVERAGE = [
    {"figure": {"width": "50mm", "height": "40mm", "preset": "nature"},
     "check": {"min_font_size": "5pt", "allow_overlap": [["a", "p"]]},
     "grids": {"g": {"mosaic": "AB", "at": ["0mm", "0mm"], "size": ["40mm", "10mm"]}},
     "styles": {"s": {"size": "7pt"}},
     "shape": [{"name": "a", "cell": "g.A", "text": "A", "text_class": "s"},
               {"kind": "brace", "points": [{"at": "a.sw", "offset": ["0mm", "1mm"]}, "a.se"]},
               {"kind": "circle", "radius": "2mm", "below": "a", "gap": "5mm", "symbol": "+"}],
     "arrow": [{"from": {"at": "a.s"}, "to": ["30mm", "30mm"], "via": [["10mm", "30mm"]], "label": "x"}],
     "panels": {"p": {"render": "m:f", "cell": "g.B"}, "q": {"render": "m:f", "at": ["0mm", "20mm"],
                                                             "size": ["10mm", "10mm"]}},
     "align": [{"panels": ["p", "q"]}],
     "text": [{"text": "T", "beside": ["p", "q"], "side": "left", "rotate": 90}]},
]


@pytest.mark.parametrize("kind", [t.kind for t in TABLES])
def test_loader_accepts_exactly_the_keys_the_schema_lists(kind, accepted_keys):
    assert kind in accepted_keys, f"no layout in the repo exercises {kind!r}; add one to FULL_COVERAGE"
    listed = TABLES_BY_KIND[kind].key_names()
    for asked in accepted_keys[kind]:
        assert set(asked) == listed, (f"{kind}: the loader accepts {sorted(asked - listed)} that the schema "
                                      f"does not list, and the schema lists {sorted(listed - asked)} that the "
                                      "loader refuses")


def test_every_loader_table_kind_is_in_the_schema(accepted_keys):
    assert set(accepted_keys) <= set(TABLES_BY_KIND)


# ─── a wrong value of every key's type: loader and schema both refuse ─────

#: a wrong value of each value type.
BAD = {
    "length": "12parsecs", "offset": "3 apples", "size": ["1mm"], "offset_pair": "2mm", "point": 42,
    "points": "a.e", "waypoints": "a.e", "string": 3, "template": 3, "name": "9lives", "element": "9lives", "color": 12,
    "bool": "yes", "fraction": 1.5, "positive": -1, "aspect": "square", "angle": 200, "renderer": "no_colon",
    "svg_file": "logo.png", "pdf_file": "plot.eps", "page": 0, "count": 0, "image_file": "photo.gif", "data_file": "results.xlsx", "style_file": "paper.yaml",
    "vegalite_file": "chart.vl.yaml", "vega_anchors": {"peak": [1]},
    "table": 3, "mosaic": 3, "tracks": "1", "gutter": True, "margin": ["1mm", "2mm"], "panel_list": ["a"],
    "canvas_width": "nature.huge", "name_pairs": [["a"]], "panel_order": "a", "panel_label": True,
    "rotation": 400, "panel_names": "a", "canvas_height": "tall", "panel_rules": {"a": "overlap"},
    "numbers": "0.5",
}
BAD_CHOICE = "bogus"

FIG = {"width": "60mm", "height": "40mm"}
PANEL = {"render": "m:f", "at": ["1mm", "1mm"], "size": ["20mm", "20mm"]}


def base(kind: str, key: str) -> tuple[dict, list]:
    """A valid document and the path of the table where ``key`` is read (live, not ignored)."""
    if kind == "layout":
        return {"figure": dict(FIG)}, []
    if kind == "figure":
        return {"figure": dict(FIG)}, ["figure"]
    if kind == "check":
        return {"figure": dict(FIG), "check": {"min_ppi": 300}}, ["check"]
    if kind == "style":
        return ({"figure": dict(FIG), "styles": {"s": {"size": "7pt"}},
                 "text": [{"text": "x", "at": ["5mm", "5mm"], "class": "s"}]}, ["styles", "s"])
    if kind == "grid":
        return {"figure": dict(FIG), "grid": {"mosaic": "AB"}}, ["grid"]
    if kind == "grids":
        grid = {"mosaic": "AB", "at": ["1mm", "1mm"], "size": ["20mm", "10mm"]}
        if key in ("gap", "align"):
            grid = {"mosaic": "AB", "right_of": "o", "size": ["20mm", "10mm"]}
        return ({"figure": dict(FIG), "grids": {"g": grid},
                 "shape": [{"name": "o", "at": ["1mm", "1mm"], "size": ["5mm", "5mm"]}]}, ["grids", "g"])
    if kind == "panel":
        panel = dict(PANEL)
        if key in ("gap", "align"):
            panel = {"render": "m:f", "below": "o", "size": ["20mm", "10mm"]}
        return ({"figure": dict(FIG), "panels": {"p": panel},
                 "shape": [{"name": "o", "at": ["30mm", "1mm"], "size": ["5mm", "5mm"]}]}, ["panels", "p"])
    if kind == "text":
        text = {"text": "x", "at": ["5mm", "5mm"]}
        if key in ("gap", "align"):
            text = {"text": "x", "right_of": "o"}
        return ({"figure": dict(FIG), "text": [text],
                 "shape": [{"name": "o", "at": ["30mm", "1mm"], "size": ["5mm", "5mm"]}]}, ["text", 0])
    if kind == "shape":
        if key in ("points", "side", "depth"):
            shape = {"kind": "brace", "points": [["1mm", "1mm"], ["9mm", "1mm"]]}
        elif key in ("radius", "symbol"):
            shape = {"kind": "circle", "at": ["9mm", "9mm"], "radius": "2mm"}
        elif key in ("gap", "align"):
            shape = {"right_of": "o", "size": ["5mm", "5mm"]}
        else:
            shape = {"at": ["1mm", "1mm"], "size": ["5mm", "5mm"]}
        return ({"figure": dict(FIG), "shape": [shape, {"name": "o", "at": ["30mm", "20mm"],
                                                        "size": ["5mm", "5mm"]}]}, ["shape", 0])
    if kind == "arrow":
        return {"figure": dict(FIG), "arrow": [{"from": ["1mm", "1mm"], "to": ["9mm", "9mm"]}]}, ["arrow", 0]
    if kind == "align":
        return ({"figure": dict(FIG), "panels": {"p": dict(PANEL), "q": {**PANEL, "at": ["30mm", "1mm"]}},
                 "align": [{"panels": ["p", "q"]}]}, ["align", 0])
    if kind == "colorbar":
        bar = {"for": ["p"], "at": ["30mm", "1mm"], "size": ["5mm", "20mm"]}
        if key in ("gap", "align"):
            bar = {"for": ["p"], "right_of": "p", "size": ["5mm", "20mm"]}
        return {"figure": dict(FIG), "panels": {"p": dict(PANEL)}, "colorbar": [bar]}, ["colorbar", 0]
    if kind == "point_table":
        return ({"figure": dict(FIG), "arrow": [{"from": {"at": ["1mm", "1mm"]}, "to": ["9mm", "9mm"]}]},
                ["arrow", 0, "from"])
    if kind == "legend":
        legend = {"from": ["p"], "right_of": "p"} if key in ("gap", "align") else {"from": ["p"], "at": ["30mm", "1mm"]}
        return {"figure": dict(FIG), "panels": {"p": dict(PANEL)}, "legend": [legend]}, ["legend", 0]
    raise AssertionError(f"no base document for {kind!r}")


def _cases():
    for table in TABLES:
        if table.kind == "style_file":
            continue  # a file of its own: test_style_file_keys_refuse_wrong_values
        for key in table.keys:
            yield pytest.param(table.kind, key.name, key.type, id=f"{table.kind}.{key.name}")


def _bad(vtype: str):
    from composer.layout.schema import TYPES

    return BAD_CHOICE if "enum" in TYPES[vtype].schema else BAD[vtype]


@pytest.mark.parametrize("kind, key, vtype", list(_cases()))
def test_a_wrong_value_is_refused_by_loader_and_schema(kind, key, vtype, tmp_path):
    doc, where = base(kind, key)
    path = tmp_path / "layouts" / "fig.toml"
    path.parent.mkdir()
    # the valid base passes both
    assert not list(VALIDATOR.iter_errors(doc)), next(iter(VALIDATOR.iter_errors(doc))).message
    load_document(copy.deepcopy(doc), path, name="fig")
    bad = copy.deepcopy(doc)
    target = bad
    for step in where:
        target = target[step]
    if key in PLACEMENT_KEYS:  # replace the placement, do not add a second one
        for other in PLACEMENT_KEYS:
            target.pop(other, None)
    target[key] = _bad(vtype)
    assert list(VALIDATOR.iter_errors(bad)), f"the schema accepts {key} = {target[key]!r} in {kind}"
    with pytest.raises(LayoutError):
        load_document(bad, path, name="fig")


@pytest.mark.parametrize("key", sorted(TABLES_BY_KIND["style_file"].key_names()))
def test_style_file_keys_refuse_wrong_values(key, tmp_path):
    (tmp_path / "layouts").mkdir()
    (tmp_path / "paper.toml").write_text(f"{key} = 3\n")
    doc = {"figure": {**FIG, "style": "../paper.toml"}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({key: 3}, style_file_schema())
    with pytest.raises(LayoutError):
        load_document(doc, tmp_path / "layouts" / "fig.toml", name="fig")


BROKEN = """\
[figure]
width = "180mm"
height = "100mm"

[panels.rgb]
render = "volume_kv:rgb_crosshair"
at = ["4mm", "18mm"]
size = ["36mm", "12parsecs"]
"""


def test_schema_rejects_a_broken_layout_and_so_does_the_loader(tmp_path):
    import tomllib

    errors = list(VALIDATOR.iter_errors(tomllib.loads(BROKEN)))
    assert [list(e.absolute_path) for e in errors] == [["panels", "rgb", "size", 1]]
    path = tmp_path / "layouts" / "broken.toml"
    path.parent.mkdir()
    path.write_text(BROKEN)
    with pytest.raises(LayoutError, match=r"panels\.rgb\.size\[1\]: '12parsecs' has unknown unit"):
        load_layout(path)


@pytest.mark.parametrize("doc, where", [
    ({"figure": FIG, "panels": {"p": {**PANEL, "cell": "A"}}}, "two placements"),
    ({"figure": FIG, "panels": {"p": {"render": "m:f", "svg": "a.svg", "at": ["0mm", "0mm"],
                                      "size": ["1mm", "1mm"]}}}, "two sources"),
    ({"figure": FIG, "panels": {"p": {"render": "m:f", "at": ["0mm", "0mm"]}}}, "no size"),
    ({"figure": FIG, "text": [{"text": "x"}]}, "no placement"),
    ({"figure": FIG, "shape": [{"kind": "line"}]}, "line without points"),
    ({"figure": FIG, "text": [{"text": "x", "below": "o", "anchor": "n"}],
      "shape": [{"name": "o", "at": ["0mm", "0mm"], "size": ["1mm", "1mm"]}]}, "anchor with a relation"),
    ({"figure": FIG, "text": [{"text": "x", "below": "o", "align": "top"}],
      "shape": [{"name": "o", "at": ["0mm", "0mm"], "size": ["1mm", "1mm"]}]}, "align top below"),
    ({"figure": FIG, "grid": {"mosaic": "A", "at": ["0mm", "0mm"]}}, "figure grid placed"),
    ({"figure": FIG, "grids": {"g": {"mosaic": "A", "at": ["0mm", "0mm"], "size": ["1mm", "1mm"],
                                     "margin": "1mm"}}}, "margin on a named grid"),
    ({"figure": FIG, "wat": {}}, "unknown table"),
    ({"figure": {"width": "60mm"}}, "no height"),
])
def test_schema_and_loader_refuse_structural_mistakes(doc, where, tmp_path):
    assert list(VALIDATOR.iter_errors(doc)), f"the schema accepts {where}"
    with pytest.raises(LayoutError):
        load_document(copy.deepcopy(doc), tmp_path / "fig.toml", name="fig")


# ─── generated files stay in step with the code ───────────────────────────

def test_docs_schema_file_is_the_generated_schema():
    assert (REPO / "docs" / "layout.schema.json").read_text() == schema_text(), \
        "regenerate: compose schema > docs/layout.schema.json"


def test_site_layout_reference_is_the_generated_reference():
    """docs/reference/layout.md holds the README block of readme_section() (``compose schema --markdown``),
    its tables' headings one level under the page's title (``## `[figure]```, not ``####``)."""
    page = (REPO / "docs" / "reference" / "layout.md").read_text()
    assert page.count(README_START) == 1 and page.count(README_END) == 1
    start = page.index(README_START)
    end = page.index(README_END) + len(README_END)
    block = page[start:end]
    assert block == re.sub(r"^#### ", "## ", readme_section(), flags=re.M), \
        "regenerate the site's layout reference: python docs/generate.py --no-build"
    assert "\n## `[figure]`\n" in block and "\n#### " not in block


def test_reference_documents_every_key():
    text = markdown_reference()
    for table in TABLES:
        for key in table.keys:
            assert f"| `{key.name}` |" in text, (table.kind, key.name)


def test_compose_schema_prints_the_schema_and_the_reference(capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schema()
    assert main(["schema", "--markdown"]) == 0
    assert capsys.readouterr().out == markdown_reference()


@pytest.mark.e2e
def test_compose_schema_in_a_fresh_process_is_the_docs_schema_and_the_sites_reference():
    """In a process that imported nothing else first: the panel sources' keys (``render``, ``svg``, ``pdf``,
    ``image``) register with the format when the stages are imported, and ``compose schema`` has them."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "composer.cli", "schema"], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert done.returncode == 0 and done.stdout == (REPO / "docs" / "layout.schema.json").read_text()
    done = subprocess.run([sys.executable, "-m", "composer.cli", "schema", "--markdown"], capture_output=True,
                          text=True, timeout=120, cwd=REPO)
    page = (REPO / "docs" / "reference" / "layout.md").read_text()
    assert done.returncode == 0 and re.sub(r"^#### ", "## ", done.stdout, flags=re.M).strip() in page
    assert "| `svg` |" in done.stdout and "| `pdf` |" in done.stdout


def test_taplo_config_points_editors_at_the_schema():
    import tomllib

    config = tomllib.loads((REPO / ".taplo.toml").read_text())
    rule = config["rule"][0]
    assert "layouts/*.toml" in rule["include"]
    assert (REPO / rule["schema"]["path"]).resolve() == (REPO / "docs" / "layout.schema.json").resolve()


# ─── every default reaches the model ──────────────────────────────────────

#: keys with a default that the model does not keep: the text styles are read into each text's style
NOT_IN_MODEL = {("layout", "styles"), ("style_file", "styles")}


def _with_defaults():
    for table in TABLES:
        for key in table.keys:
            if key.default is not UNSET and (table.kind, key.name) not in NOT_IN_MODEL:
                yield pytest.param(table.kind, key.name, id=f"{table.kind}.{key.name}")


W_PT, H_PT = 60 * 72 / 25.4, 40 * 72 / 25.4  # FIG's canvas
BESIDE = {"w": "center", "nw": "top", "sw": "bottom"}  # right_of: the element's own anchor -> align
RELATION_KEYS = ("gap", "align")


def _relation(place):
    """(gap, align) of a ``right_of`` placement, read back from the model's point and anchor."""
    return place.at.dx_pt, BESIDE[place.anchor]


def _placed(get):
    """Getters of the placement keys with defaults, for the element ``get(figure)`` returns."""
    return {"anchor": lambda f: get(f).place.anchor,
            "offset": lambda f: (get(f).place.at.dx_pt, get(f).place.at.dy_pt),
            "gap": lambda f: _relation(get(f).place)[0], "align": lambda f: _relation(get(f).place)[1]}


def _styled(get, prefix):
    """Getters of the text-style keys with defaults, for the TextStyle ``get(figure)`` returns."""
    def attribute(name):
        return lambda f: getattr(get(f), name)
    return {f"{prefix}{k}": attribute(k) for k in ("weight", "style", "color", "opacity")}


OTHER = {"name": "o", "at": ["30mm", "20mm"], "size": ["5mm", "5mm"]}

#: kind -> (a minimal document using that table, or a function of the key giving one; the getters of the
#: model's value of each key with a default). Each document omits every key it does not need.
MODEL = {
    "layout": ({"figure": dict(FIG)}, {
        "colors": lambda f: f.spec.colors, "rcparams": lambda f: f.spec.rcparams,
        "grids": lambda f: {g.name: g for g in f.grids}, "panels": lambda f: {p.name: p for p in f.panels},
        "text": lambda f: list(f.texts), "shape": lambda f: list(f.shapes), "arrow": lambda f: list(f.arrows),
        "align": lambda f: list(f.aligns), "legend": lambda f: list(f.legends),
        "colorbar": lambda f: list(f.colorbars)}),
    "figure": ({"figure": dict(FIG)}, {
        "font": lambda f: f.spec.font, "font_size": lambda f: f.spec.font_size_pt,
        "background": lambda f: f.spec.background, "params": lambda f: f.spec.params,
        "label_weight": lambda f: f.spec.label.weight, "label_color": lambda f: f.spec.label.color,
        "label_offset": lambda f: f.spec.label_offset_pt, "raster_ppi": lambda f: f.spec.raster_ppi,
        "text": lambda f: f.spec.text, "engine": lambda f: f.spec.engine, "label_at": lambda f: f.spec.label_at,
        "provenance": lambda f: f.spec.provenance, "math": lambda f: f.spec.math}),
    "check": ({"figure": dict(FIG), "check": {}}, {
        "min_font_size": lambda f: f.spec.check.min_font_pt, "min_line_width": lambda f: f.spec.check.min_line_pt,
        "min_ppi": lambda f: f.spec.check.min_ppi, "cvd_min_distance": lambda f: f.spec.check.cvd_min_distance}),
    "style": ({"figure": dict(FIG), "styles": {"s": {"font": "DejaVu Sans"}},
               "text": [{"text": "x", "at": ["5mm", "5mm"], "class": "s"}]},
              _styled(lambda f: f.texts[0].style, "")),
    "style_file": ({"figure": {**FIG, "style": "../paper.toml"}},
                   {"colors": lambda f: f.spec.colors, "rcparams": lambda f: f.spec.rcparams}),
    "grid": ({"figure": dict(FIG), "grid": {"mosaic": "A"}}, {
        "gutter": lambda f: f.grids[0].gutter_pt,
        "margin": lambda f: (f.grids[0].place.at.y_pt, W_PT - f.grids[0].place.at.x_pt - f.grids[0].size_pt[0],
                             H_PT - f.grids[0].place.at.y_pt - f.grids[0].size_pt[1], f.grids[0].place.at.x_pt)}),
    "grids": (lambda key: {"figure": dict(FIG), "shape": [dict(OTHER)], "grids": {"g": {
        "mosaic": "A", "size": ["10mm", "10mm"],
        **({"right_of": "o"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}}},
              {"gutter": lambda f: f.grids[0].gutter_pt, **_placed(lambda f: f.grids[0])}),
    "panel": (lambda key: {"figure": dict(FIG), "shape": [dict(OTHER)], "panels": {"p": {
        **({"pdf": "../paper.pdf"} if key == "page" else {"vegalite": "../chart.vl.json"} if key == "anchors"
           else {"render": "m:f"}), "size": ["10mm", "10mm"],
        **({"right_of": "o"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}}},
              {"params": lambda f: f.panels[0].params, "overlap": lambda f: f.panels[0].overlap,
               "empty": lambda f: f.panels[0].empty, "page": lambda f: f.panels[0].options["page"],
               "anchors": lambda f: f.panels[0].options["anchors"],
               "aspect_of": lambda f: f.panels[0].aspect_of,
               **_placed(lambda f: f.panels[0])}),
    "text": (lambda key: {"figure": dict(FIG), "shape": [dict(OTHER)], "text": [{
        "text": "x", **({"right_of": "o"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}]},
             {**_placed(lambda f: f.texts[0]), **_styled(lambda f: f.texts[0].style, ""),
              "side": lambda f: f.texts[0].place.side, "rotate": lambda f: f.texts[0].rotate_deg}),
    "shape": (lambda key: {"figure": dict(FIG), "shape": [
        {"kind": "brace", "points": [["1mm", "1mm"], ["9mm", "1mm"]]} if key in ("side", "depth") else
        {"text": "x", **({"right_of": "o"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}, dict(OTHER)]},
              {"kind": lambda f: f.shapes[0].kind, "corner": lambda f: f.shapes[0].corner_pt,
               "side": lambda f: f.shapes[0].side, "depth": lambda f: f.shapes[0].depth_pt,
               "fill": lambda f: f.shapes[0].fill, "stroke": lambda f: f.shapes[0].stroke,
               "stroke_width": lambda f: f.shapes[0].stroke_width_pt, "dash": lambda f: f.shapes[0].dash,
               "opacity": lambda f: f.shapes[0].opacity, "padding": lambda f: f.shapes[0].padding_pt,
               **_placed(lambda f: f.shapes[0]), **_styled(lambda f: f.shapes[0].text_style, "text_")}),
    "arrow": (lambda key: {"figure": dict(FIG), "arrow": [{
        "from": ["1mm", "1mm"], "to": ["9mm", "9mm"], **({"route": "arc"} if key == "bend" else {}),
        **({"label": "x"} if key.startswith("label_") else {})}]},
              {"via": lambda f: f.arrows[0].via, "route": lambda f: f.arrows[0].route,
               "bend": lambda f: f.arrows[0].bend_deg, "color": lambda f: f.arrows[0].color,
               "width": lambda f: f.arrows[0].width_pt, "dash": lambda f: f.arrows[0].dash,
               "head": lambda f: f.arrows[0].head, "head_style": lambda f: f.arrows[0].head_style,
               "head_length": lambda f: f.arrows[0].head_length_pt, "head_width": lambda f: f.arrows[0].head_width_pt,
               "gap": lambda f: f.arrows[0].gap_pt, "label_pos": lambda f: f.arrows[0].label_pos,
               "label_side": lambda f: f.arrows[0].label_side, **_styled(lambda f: f.arrows[0].label_style, "label_")}),
    "align": ({"figure": dict(FIG), "panels": {"p": dict(PANEL), "q": {**PANEL, "at": ["30mm", "1mm"]}},
               "align": [{"panels": ["p", "q"]}]}, {"axis": lambda f: f.aligns[0].axis}),
    "colorbar": (lambda key: {"figure": dict(FIG), "panels": {"p": dict(PANEL)}, "colorbar": [{
        "for": ["p"], "size": ["5mm", "20mm"], **({"right_of": "p"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}]},
                 {"orientation": lambda f: f.colorbars[0].orientation, **_placed(lambda f: f.colorbars[0])}),
    "point_table": ({"figure": dict(FIG), "arrow": [{"from": {"at": ["1mm", "1mm"]}, "to": ["9mm", "9mm"]}]},
                    {"offset": lambda f: (f.arrows[0].start.dx_pt, f.arrows[0].start.dy_pt)}),
    "legend": (lambda key: {"figure": dict(FIG), "shape": [dict(OTHER)], "panels": {"p": dict(PANEL)}, "legend": [{
        "from": ["p"], **({"right_of": "o"} if key in RELATION_KEYS else {"at": ["1mm", "1mm"]})}]},
               {"ncols": lambda f: f.legends[0].ncols, "frame": lambda f: f.legends[0].frame,
                **_placed(lambda f: f.legends[0])}),
}


def _load_minimal(kind: str, key: str, tmp_path: Path):
    doc, getters = MODEL[kind]
    doc = doc(key) if callable(doc) else copy.deepcopy(doc)
    (tmp_path / "layouts").mkdir(exist_ok=True)
    (tmp_path / "paper.toml").write_text("")  # an empty style file, for style_file
    (tmp_path / "paper.pdf").write_bytes(b"%PDF-1.4\n")  # named by a pdf panel (page); not read when loading
    (tmp_path / "chart.vl.json").write_text("{}")  # named by a vegalite panel (anchors); not read when loading
    return load_document(doc, tmp_path / "layouts" / "fig.toml", name="fig"), getters


@pytest.mark.parametrize("kind, key", list(_with_defaults()))
def test_an_omitted_key_gives_the_model_the_formats_default(kind, key, tmp_path):
    assert kind in MODEL and key in MODEL[kind][1], f"no getter for {kind}.{key}: add it to MODEL"
    figure, getters = _load_minimal(kind, key, tmp_path)
    assert getters[key](figure) == TABLES_BY_KIND[kind].key(key).value


#: defaults worked out by hand from the written notation (1 pt = 1 pt; colours as matplotlib's to_hex writes them).
HAND = {
    ("shape", "stroke_width"): 0.5, ("shape", "stroke"): "#000000", ("shape", "fill"): None,
    ("shape", "depth"): 4.0, ("shape", "padding"): 3.0, ("arrow", "width"): 0.75, ("arrow", "gap"): 1.0,
    # head: 4pt x 3.2pt, larger than 4.5 x 0.75pt = 3.375pt and 3.6 x 0.75pt = 2.7pt
    ("arrow", "head_length"): 4.0, ("arrow", "head_width"): 3.2, ("arrow", "bend"): 30.0, ("arrow", "via"): (),
    ("figure", "background"): "#ffffff", ("figure", "label_offset"): (0.0, -2.0), ("figure", "raster_ppi"): 300.0,
    ("check", "min_line_width"): 0.25, ("check", "min_font_size"): 5.0, ("grid", "margin"): (0.0, 0.0, 0.0, 0.0),
    ("grid", "gutter"): (0.0, 0.0), ("text", "anchor"): "center", ("panel", "anchor"): "nw",
    ("text", "opacity"): 1.0, ("panel", "align"): "center", ("point_table", "offset"): (0.0, 0.0),
}


@pytest.mark.parametrize("kind, key", sorted(HAND))
def test_defaults_match_hand_written_values(kind, key, tmp_path):
    assert TABLES_BY_KIND[kind].key(key).value == HAND[kind, key]
    figure, getters = _load_minimal(kind, key, tmp_path)
    assert getters[key](figure) == HAND[kind, key]


def test_model_dataclass_defaults_are_the_formats():
    from composer.layout.model import Arrow, CheckLimits, Position, Shape, TextStyle

    shape = Shape(kind="rect", place=None, size_pt=(None, None))
    assert (shape.stroke_width_pt, shape.stroke, shape.fill, shape.padding_pt) == (0.5, "#000000", None, 3.0)
    arrow = Arrow(start=Position(), end=Position())
    assert (arrow.width_pt, arrow.head_length_pt, arrow.head_width_pt, arrow.via) == (0.75, 4.0, 3.2, ())
    assert CheckLimits().min_line_pt == 0.25 and CheckLimits().min_font_pt == 5.0
    assert TextStyle(font="x", size_pt=7.0).color == "#000000"
    assert Shape.__dataclass_fields__["depth_pt"].default == TABLES_BY_KIND["shape"].key("depth").value


def test_written_defaults_are_derived_from_the_values():
    stroke = TABLES_BY_KIND["shape"].key("stroke_width")
    assert stroke.written == '`"0.5pt"`'
    assert "| `stroke_width` | length | `\"0.5pt\"` | outline width |" in markdown_reference()
    schema = json_schema()["properties"]["shape"]["items"]["properties"]["stroke_width"]
    assert schema["description"] == 'outline width (default: "0.5pt")'


# ─── a key added to the format reaches the loader, the schema and the reference ───

def test_a_key_added_to_the_format_is_accepted_documented_and_listed(monkeypatch, tmp_path):
    from composer.layout import keys, section

    wobble = keys.Key("wobble", "length", "how far the connector wobbles", default="2pt")
    arrow = TABLES_BY_KIND["arrow"]
    monkeypatch.setitem(keys.TABLES_BY_KIND, "arrow", dataclasses.replace(arrow, keys=(*arrow.keys, wobble)))
    reached: list[dict] = []
    done = section.Section.done

    def recording_done(self):
        rest = done(self)
        if self.kind == "arrow":
            reached.append(rest)
        return rest

    monkeypatch.setattr(section.Section, "done", recording_done)
    path = tmp_path / "layouts" / "fig.toml"
    path.parent.mkdir()
    doc = {"figure": dict(FIG), "arrow": [{"from": ["1mm", "1mm"], "to": ["9mm", "9mm"], "wobble": "3mm"}]}
    load_document(copy.deepcopy(doc), path, name="fig")  # accepted: no "unknown key"
    assert reached == [{"wobble": pytest.approx(3 * 72 / 25.4)}]  # converted: 3 mm = 8.504 pt
    doc["arrow"][0]["wobble"] = "3 apples"
    with pytest.raises(LayoutError, match=r"arrow\[0\]\.wobble"):
        load_document(copy.deepcopy(doc), path, name="fig")
    doc["arrow"][0]["wobbel"] = doc["arrow"][0].pop("wobble")
    with pytest.raises(LayoutError, match=r"unknown key 'wobbel'; did you mean 'wobble'\?; valid keys are .*, wobble$"):
        load_document(copy.deepcopy(doc), path, name="fig")
    assert wobble.value == 2.0

    schema = json_schema()
    listed = schema["properties"]["arrow"]["items"]["properties"]["wobble"]
    assert listed["description"] == 'how far the connector wobbles (default: "2pt")'
    validator = jsonschema.Draft7Validator(schema)
    good = {"figure": dict(FIG), "arrow": [{"from": ["1mm", "1mm"], "to": ["9mm", "9mm"], "wobble": "3mm"}]}
    assert not list(validator.iter_errors(good))
    assert list(validator.iter_errors({**good, "arrow": [{**good["arrow"][0], "wobble": "3 apples"}]}))
    assert "| `wobble` | length | `\"2pt\"` | how far the connector wobbles |" in markdown_reference()


@pytest.mark.e2e
def test_loading_a_layout_that_names_no_colour_imports_no_matplotlib(tmp_path):
    """The format's defaults convert without matplotlib (colours as ``#rrggbb``), so the model and a
    plain layout load light (``compose`` on an up-to-date figure imports no matplotlib)."""
    import subprocess
    import sys

    code = ("import sys, pathlib\n"
            "from composer.layout.loader import load_document\n"
            "doc = {'figure': {'width': '60mm', 'height': '40mm'}, 'text': [{'text': 'x', 'at': ['1mm', '1mm']}],"
            " 'shape': [{'at': ['1mm', '1mm'], 'size': ['2mm', '2mm']}], 'arrow': [{'from': ['1mm', '1mm'],"
            " 'to': ['5mm', '5mm'], 'label': 'y'}]}\n"
            f"load_document(doc, pathlib.Path({str(tmp_path / 'fig.toml')!r}), name='fig')\n"
            "print('matplotlib' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
    # control: a colour name does need matplotlib, so the check above can fail
    code = code.replace("'text': 'x',", "'text': 'x', 'color': 'red',")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"
