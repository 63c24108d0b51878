"""The layout format written out: its JSON Schema and its markdown reference.

Both are generated from the one definition of the format,
:data:`composer.layout.keys.TABLES` (every table and key with its type,
default and meaning), which the loader (:mod:`composer.layout.loader`) reads
its converters and defaults from:

- :func:`json_schema`: a JSON Schema (draft-07) of a layout document, for
  editors (``compose schema``; Taplo / "Even Better TOML" via ``.taplo.toml``)
  and for checking a layout without building it;
- :func:`markdown_reference`: the layout reference of the documentation site,
  ``docs/reference/layout.md`` (``compose schema --markdown``).

A written default (``"0.5pt"``) is :attr:`composer.layout.keys.Key.written`,
derived from the same value the loader converts. The drift test
(``tests/layout/test_schema.py``) loads every layout in the repository with
the loader instrumented and checks that the keys each table accepts are
exactly the keys listed, that a wrong value of every key's type is refused by
both the loader and the schema, and that every default reaches the model.
"""

from __future__ import annotations

import json
from typing import Any

from composer.layout import sources
from composer.layout.keys import (  # noqa: F401
    NUMBER_PATTERN,
    TABLES,
    TABLES_BY_KIND,
    TYPES,
    Key,
    Table,
    ValueType,
)
from composer.layout.vocabulary import PLACEMENT_KEYS  # noqa: F401 - the tests read it here

SCHEMA_ID = "https://composer.invalid/layout.schema.json"


# ─── JSON Schema ───────────────────────────────────────────────────────────

def _key_schema(key: Key) -> dict[str, Any]:
    vtype = TYPES[key.type]
    inline = key.type in ("bool", "fraction", "positive", "angle", "string", "table") or "enum" in vtype.schema
    out: dict[str, Any] = dict(vtype.schema) if inline else {"$ref": f"#/definitions/{key.type}"}
    out.pop("description", None)
    text = key.doc.replace("`", "")
    if key.written is not None:
        text += f" (default: {key.written.replace('`', '')})"
    if inline or "$ref" not in out:
        out["description"] = text
        return out
    return {"allOf": [out], "description": text}


def _table_schema(table: Table, *, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "description": table.doc.replace("`", ""),
        "properties": {k.name: _key_schema(k) for k in table.keys},
        "additionalProperties": False,
    }
    required = [k.name for k in table.keys if k.required]
    if required:
        schema["required"] = required
    if table.rules:
        schema["allOf"] = [s for rule in table.rules for s in rule.schemas()]
    schema["properties"].update(extra or {})
    return schema


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a layout document (a parsed TOML file, or a Python layout's dict).

    It checks structure and value syntax: table and key names, value types,
    units, choices, exactly-one-of placement. It cannot check what needs the
    whole figure (references to other elements, styles and palette names,
    mosaic sizes, files on disk): the loader does.
    """
    sources.registered()  # raises when no panel source is registered: the panel table would lack them
    t = TABLES_BY_KIND
    definitions: dict[str, Any] = {name: dict(v.schema) for name, v in TYPES.items() if "enum" not in v.schema}
    definitions["track"] = {"oneOf": [
        {"type": "number", "exclusiveMinimum": 0},
        {"$ref": "#/definitions/length"},
        {"type": "string", "pattern": rf"^\s*{NUMBER_PATTERN}\s*fr\s*$"},
    ]}
    definitions["point_table"] = _table_schema(t["point_table"])
    names = {"type": "object", "propertyNames": {"$ref": "#/definitions/name"}}
    definitions["style_tables"] = {
        "colors": {**names, "description": t["style_file"].keys[0].doc.replace("`", ""),
                   "additionalProperties": {"$ref": "#/definitions/color"}},
        "styles": {**names, "description": t["style"].doc.replace("`", ""),
                   "additionalProperties": _table_schema(t["style"])},
        "rcparams": {"type": "object", "description": "matplotlib rcParams: \"key\" = value"},
    }
    tables = {
        "figure": _table_schema(t["figure"]),
        **definitions["style_tables"],
        "grid": _table_schema(t["grid"]),
        "check": _table_schema(t["check"]),
        "grids": {**names, "description": t["grids"].doc.replace("`", ""),
                  "additionalProperties": _table_schema(t["grids"])},
        "panels": {**names, "description": t["panel"].doc.replace("`", ""),
                   "additionalProperties": _table_schema(t["panel"])},
        "text": {"type": "array", "description": t["text"].doc.replace("`", ""), "items": _table_schema(t["text"])},
        "shape": {"type": "array", "description": t["shape"].doc.replace("`", ""),
                  "items": _table_schema(t["shape"])},
        "arrow": {"type": "array", "description": t["arrow"].doc.replace("`", ""),
                  "items": _table_schema(t["arrow"])},
        "align": {"type": "array", "description": t["align"].doc.replace("`", ""),
                  "items": _table_schema(t["align"])},
        "legend": {"type": "array", "description": t["legend"].doc.replace("`", ""),
                   "items": _table_schema(t["legend"])},
        "colorbar": {"type": "array", "description": t["colorbar"].doc.replace("`", ""),
                     "items": _table_schema(t["colorbar"])},
    }
    assert set(tables) == t["layout"].key_names(), "every top-level table has a schema"
    del definitions["style_tables"]
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "composer layout",
        "description": "A composer layout file (layouts/NAME.toml); its keys: docs/reference/layout.md.",
        "type": "object",
        "properties": tables,
        "required": ["figure"],
        "additionalProperties": False,
        "definitions": definitions,
    }


def style_file_schema() -> dict[str, Any]:
    """The JSON Schema of a shared style file (``[figure] style``): ``[colors]``, ``[styles.NAME]``, ``[rcparams]``."""
    full = json_schema()
    return {
        "$schema": full["$schema"],
        "title": "composer style file",
        "type": "object",
        "properties": {k: full["properties"][k] for k in ("colors", "styles", "rcparams")},
        "additionalProperties": False,
        "definitions": full["definitions"],
    }


def schema_text() -> str:
    """:func:`json_schema` as the deterministic text ``compose schema`` prints (and docs/ keeps)."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


# ─── markdown reference ────────────────────────────────────────────────────

_PREAMBLE = """\
Lengths are strings with a unit: `mm`, `cm`, `in`, `pt`, `px` (CSS px = 1/96 in).
A **point** is `["x", "y"]` from the canvas's top-left (y down), or
`"element.anchor"` where anchor is `n s e w ne nw se sw center`, a point
along a side (`"proj.e@0.25"`: a quarter of the way down the east side), or a
**data anchor** published by a renderer (`"fmap.pixel"`); `canvas` names the
whole canvas (`"canvas.sw"`). `"panel#id"` is the element with that `id` in
an imported SVG panel (its centre; `"schem#sensor.e"`, `"schem#sensor.e@0.25"`
for the usual anchors): its bounding box in the file, stroke excluded, mapped
through the file's viewBox and `preserveAspectRatio` into the panel's box.
A point may also be a table
`{ at = "state1.se", offset = ["4mm", "5mm"] }`.

**Placing an element** (panels, shapes, texts, grids) takes exactly one of
`at` (its own `anchor` sits at the point `at` + `offset`), `cell` (it fills a
grid area), or a relation `right_of`, `left_of`, `above`, `below` (beside
another element, `gap` apart, edges aligned by `align`). Two of them are
over-constrained, none under-constrained: both errors name the element. Panels
may not overlap unless one sets `overlap = true` (an inset); a cycle of
references is an error naming its elements.

Text templates follow Python's `str.format`: literal braces are doubled, in
mathtext too (`"$d_{{KV}}$ = {d_kv:.1f}"`), as in an f-string.

A layout may also be Python: `layouts/NAME.py` defining `layout()` that
returns the same document as a dict (loops for repeated rows); it is validated
key by key like a TOML file. See `layouts/kvpath_delta.py`.
"""

_ORDER = ("layout", "figure", "check", "style", "grid", "grids", "panel", "text", "shape", "arrow", "align",
          "legend", "colorbar", "point_table",
          "style_file")


def _shown(key: Key) -> str:
    vtype = TYPES[key.type]
    if "enum" in vtype.schema:
        return " ".join(f"`{c}`" for c in vtype.schema["enum"])
    return vtype.shown


def markdown_reference() -> str:
    """The layout reference as markdown: a table per layout table, a row per key.

    The site's layout reference (``docs/reference/layout.md``, written by ``docs/generate.py``) and
    ``compose schema --markdown``.
    """
    sources.registered()  # raises when no panel source is registered: the panel table would lack them
    lines = [_PREAMBLE]
    lines.append("`[colors]` holds the palette, `NAME = \"#hex\"`: any colour key may name it, and renderers "
                 "that take a `colors` argument receive it. `[rcparams]` holds matplotlib rcParams for every "
                 "panel (`\"mathtext.fontset\"` also sets canvas mathtext).\n")
    for kind in _ORDER:
        table = TABLES_BY_KIND[kind]
        lines.append(f"#### `{table.written}`\n" if table.written.startswith("[") else f"#### {table.written}\n")
        lines.append(table.doc + "\n")
        lines.append("| key | value | default | meaning |")
        lines.append("|---|---|---|---|")
        for key in table.keys:
            default = "required" if key.required else (key.written or "")
            doc = key.doc.replace("|", "\\|")
            shown = _shown(key).replace("|", "\\|")
            lines.append(f"| `{key.name}` | {shown} | {default.replace('|', chr(92) + '|')} | {doc} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


README_START = "<!-- layout-reference:start -->"
README_END = "<!-- layout-reference:end -->"


def readme_section() -> str:
    """The block between the layout-reference markers, markers included: ``docs/reference/layout.md`` holds
    it, its tables' headings one level up (``docs/generate.py``)."""
    return (f"{README_START}\n<!-- generated by `compose schema --markdown`; edit composer/layout/keys.py, "
            f"not this block -->\n\n{markdown_reference()}\n{README_END}")
