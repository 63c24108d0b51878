"""The JSON Schema and the loader must not drift apart.

- Every layout in the repository (TOML, and the dict a Python layout returns)
  is valid under the schema, and loads.
- The loader is instrumented while loading them: the keys each table accepts
  (``_Table.asked`` when ``done()`` checks for unknown keys, plus the keys
  ``refuse()`` names as doing nothing in that use) must be exactly
  the keys :data:`composer.layout.schema.TABLES` lists, for every table kind.
- For every key of every table, a wrong value of the key's type is refused by
  the loader AND by the schema.
- The generated files (docs/layout.schema.json, the README reference) match
  what the code generates now.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import textwrap
from pathlib import Path

import jsonschema
import pytest

from composer.layout import loader as layout_module
from composer.cli.main import main
from composer.errors import LayoutError
from composer.layout.loader import load_document, load_layout, read_document
from composer.layout.schema import (PLACEMENT_KEYS, README_END, README_START, TABLES, TABLES_BY_KIND, json_schema,
                             markdown_reference, readme_section, schema_text, style_file_schema)
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
                          (r"arrow\[\d+\]", "arrow"), (r"align\[\d+\]", "align"), (r"styles\.\w+", "style")):
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
     "align": [{"panels": ["p", "q"]}]},
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
    "points": "a.e", "string": 3, "template": 3, "name": "9lives", "element": "9lives", "color": 12,
    "bool": "yes", "fraction": 1.5, "positive": -1, "angle": 200, "renderer": "no_colon",
    "svg_file": "logo.png", "image_file": "photo.gif", "data_file": "results.xlsx", "style_file": "paper.yaml",
    "table": 3, "mosaic": 3, "tracks": "1", "gutter": True, "margin": ["1mm", "2mm"], "panel_list": ["a"],
    "canvas_width": "nature.huge", "name_pairs": [["a"]],
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
    if kind == "point_table":
        return ({"figure": dict(FIG), "arrow": [{"from": {"at": ["1mm", "1mm"]}, "to": ["9mm", "9mm"]}]},
                ["arrow", 0, "from"])
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
    assert not list(VALIDATOR.iter_errors(doc)), list(VALIDATOR.iter_errors(doc))[0].message
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


def test_readme_layout_reference_is_the_generated_reference():
    readme = (REPO / "README.md").read_text()
    assert readme.count(README_START) == 1 and readme.count(README_END) == 1
    start = readme.index(README_START)
    end = readme.index(README_END) + len(README_END)
    assert readme[start:end] == readme_section(), \
        "regenerate the README's layout reference: python docs/generate.py"


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


def test_taplo_config_points_editors_at_the_schema():
    import tomllib

    config = tomllib.loads((REPO / ".taplo.toml").read_text())
    rule = config["rule"][0]
    assert "layouts/*.toml" in rule["include"]
    assert (REPO / rule["schema"]["path"]).resolve() == (REPO / "docs" / "layout.schema.json").resolve()
