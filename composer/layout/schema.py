"""The layout format as data: every table and key, its value type, default and meaning.

One declarative table (:data:`TABLES`) feeds three things that must agree
with the loader (:mod:`composer.layout.loader`):

- :func:`json_schema`: a JSON Schema (draft-07) of a layout document, for
  editors (``compose schema``; Taplo / "Even Better TOML" via ``.taplo.toml``)
  and for checking a layout without building it;
- :func:`markdown_reference`: the README's layout reference
  (``compose schema --markdown``);
- the drift test (``tests/layout/test_schema.py``), which loads every layout in the
  repository with the loader instrumented and checks that the keys each table
  accepts are exactly the keys listed here, and that a wrong value of every
  key's type is refused by both the loader and the schema.

Choice lists are the loader's own tuples (:mod:`composer.layout.model`), so they
cannot differ. A key that the loader accepts but the table does not list (or
the reverse) fails the drift test; so does a table the repository's layouts
never exercise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from composer.layout.model import (ALIGNS, COMPASS, HEAD_STYLES, HEADS, RELATIONS, ROUTES, SHAPE_KINDS, SIDES, STYLES,
                    ENGINES, SYMBOLS, TEXT_MODES, WEIGHTS)
from composer.layout.presets import PRESETS
from composer.units import PT_PER_UNIT

SCHEMA_ID = "https://composer.invalid/layout.schema.json"

_UNITS = "|".join(PT_PER_UNIT)
_NUMBER = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


@dataclass(frozen=True)
class ValueType:
    """A kind of value a key takes.

    Attributes:
        name: the type's name in this module (``"length"``).
        shown: how the reference shows it (markdown).
        schema: its JSON Schema fragment.
    """

    name: str
    shown: str
    schema: dict[str, Any]


def _choice_schema(choices: tuple[str, ...]) -> dict[str, Any]:
    return {"enum": list(choices)}


#: every value type, by name. Lengths follow :func:`composer.units.to_pt`.
TYPES: dict[str, ValueType] = {t.name: t for t in (
    ValueType("length", "length", {
        "type": "string", "pattern": rf"^\s*\+?{_NUMBER}\s*(?:{_UNITS})\s*$",
        "description": f"a length with a unit ({', '.join(PT_PER_UNIT)}), zero or more: \"12mm\""}),
    ValueType("offset", "signed length", {
        "type": "string", "pattern": rf"^\s*[-+]?{_NUMBER}\s*(?:{_UNITS})\s*$",
        "description": f"a length with a unit ({', '.join(PT_PER_UNIT)}), may be negative: \"-2mm\""}),
    ValueType("canvas_width", "length, or a journal width (`\"nature.double\"`)", {
        "oneOf": [{"$ref": "#/definitions/length"},
                  {"enum": [f"{j}.{w}" for j, p in PRESETS.items() for w in p.widths]}],
        "description": "a length with a unit, or a journal's column width: \"nature.double\""}),
    ValueType("preset", "choice", _choice_schema(tuple(PRESETS))),
    ValueType("text_mode", "choice", _choice_schema(TEXT_MODES)),
    ValueType("engine", "choice", _choice_schema(ENGINES)),
    ValueType("name_pairs", "list of `[\"a\", \"b\"]` name pairs", {
        "type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "description": "pairs of element names: [[\"a\", \"inset\"]]"}),
    ValueType("size", "`[width, height]` lengths", {
        "type": "array", "items": {"$ref": "#/definitions/length"}, "minItems": 2, "maxItems": 2,
        "description": "[width, height], lengths with units: [\"36mm\", \"20mm\"]"}),
    ValueType("offset_pair", "`[dx, dy]` signed lengths", {
        "type": "array", "items": {"$ref": "#/definitions/offset"}, "minItems": 2, "maxItems": 2,
        "description": "[dx, dy], signed lengths, +y down: [\"2mm\", \"-1mm\"]"}),
    ValueType("point", "point", {
        "description": "a point: [\"x\", \"y\"] from the canvas's top-left, \"element.anchor\", or "
                       "{ at = point, offset = [dx, dy] }",
        "oneOf": [
            {"$ref": "#/definitions/offset_pair"},
            {"type": "string",
             "pattern": rf"^{_IDENT}\.(?:[^@]+|[{''.join(SIDES)}]@(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+))$"},
            {"$ref": "#/definitions/point_table"},
        ]}),
    ValueType("points", "list of points", {
        "type": "array", "items": {"$ref": "#/definitions/point"}, "minItems": 1,
        "description": "a list of points"}),
    ValueType("string", "string", {"type": "string"}),
    ValueType("template", "text template", {
        "type": "string",
        "description": "text: \\n for new lines, $...$ mathtext, {name:format} fields, <b>, <i>, <color=NAME> spans"}),
    ValueType("name", "name", {
        "type": "string", "pattern": rf"^{_IDENT}$",
        "description": "a name: letters, digits and _, not starting with a digit"}),
    ValueType("element", "element name", {
        "type": "string", "pattern": rf"^{_IDENT}$", "description": "the name of another element"}),
    ValueType("color", "colour", {
        "type": "string",
        "description": "a colour matplotlib knows (\"black\", \"#rrggbb\"), a palette name from [colors], "
                       "or \"none\""}),
    ValueType("bool", "`true`/`false`", {"type": "boolean"}),
    ValueType("fraction", "number 0-1", {"type": "number", "minimum": 0, "maximum": 1}),
    ValueType("positive", "number > 0", {"type": "number", "exclusiveMinimum": 0}),
    ValueType("angle", "degrees, -170 to 170", {"type": "number", "minimum": -170, "maximum": 170}),
    ValueType("renderer", "`\"module:function\"`", {
        "type": "string", "pattern": rf"^{_IDENT}:{_IDENT}$",
        "description": "\"module:function\": a function in panels/module.py"}),
    ValueType("svg_file", "path to `.svg`", {
        "type": "string", "pattern": r"(?i)\.svg$", "description": "an SVG file, relative to the layout file"}),
    ValueType("image_file", "path to `.png`/`.jpg`", {
        "type": "string", "pattern": r"(?i)\.(?:png|jpe?g)$",
        "description": "a PNG or JPEG file, relative to the layout file"}),
    ValueType("data_file", "path to `.npz`/`.json`/`.csv`", {
        "type": "string", "pattern": r"(?i)\.(?:npz|json|csv)$",
        "description": "a data file, relative to the layout file"}),
    ValueType("style_file", "path to `.toml`", {
        "type": "string", "pattern": r"(?i)\.toml$",
        "description": "a shared style file with [colors], [styles.NAME], [rcparams]"}),
    ValueType("table", "table", {"type": "object"}),
    ValueType("mosaic", "mosaic string", {
        "type": "string", "description": "rows of area letters, . for an empty cell: \"AAB\\nCDB\""}),
    ValueType("tracks", "list of lengths or ratios", {
        "type": "array", "items": {"$ref": "#/definitions/track"}, "minItems": 1,
        "description": "one per column (row): a length (\"30mm\") or a ratio (1, 2, \"2fr\")"}),
    ValueType("gutter", "length or `[columns, rows]`", {
        "oneOf": [{"$ref": "#/definitions/length"}, {"$ref": "#/definitions/size"}],
        "description": "space between columns and rows: one length or [between columns, between rows]"}),
    ValueType("margin", "length or `[top, right, bottom, left]`", {
        "oneOf": [{"$ref": "#/definitions/length"},
                  {"type": "array", "items": {"$ref": "#/definitions/length"}, "minItems": 4, "maxItems": 4}],
        "description": "one length, or [top, right, bottom, left]"}),
    ValueType("panel_list", "list of 2+ panel names", {
        "type": "array", "items": {"$ref": "#/definitions/name"}, "minItems": 2}),
    ValueType("anchor", "compass anchor", _choice_schema(tuple(COMPASS))),
    ValueType("weight", "choice", _choice_schema(WEIGHTS)),
    ValueType("font_style", "choice", _choice_schema(STYLES)),
    ValueType("justify", "choice", _choice_schema(ALIGNS)),
    ValueType("route", "choice", _choice_schema(ROUTES)),
    ValueType("head", "choice", _choice_schema(HEADS)),
    ValueType("head_style", "choice", _choice_schema(HEAD_STYLES)),
    ValueType("shape_kind", "choice", _choice_schema(SHAPE_KINDS)),
    ValueType("symbol", "choice", _choice_schema(SYMBOLS)),
    ValueType("brace_side", "choice", _choice_schema(("left", "right"))),
    ValueType("label_side", "choice", _choice_schema(("left", "right", "above", "below"))),
    ValueType("align_axis", "choice", _choice_schema(("x", "y", "both"))),
    ValueType("relation_align", "choice", _choice_schema(
        tuple(dict.fromkeys(a for aligns in RELATIONS.values() for a in aligns)))),
)}


@dataclass(frozen=True)
class Key:
    """One key of a table.

    Attributes:
        name: as written in the layout.
        type: a :data:`TYPES` name.
        doc: what it means (markdown, one sentence or two).
        default: the default as shown in the reference; None when required or
            when absence means "not drawn" / "not set".
        required: the loader refuses the table without it.
    """

    name: str
    type: str
    doc: str
    default: str | None = None
    required: bool = False


@dataclass(frozen=True)
class Table:
    """One table of the layout format.

    Attributes:
        kind: its id here and in the drift test (``"panel"``).
        written: how it is written in a layout (``[panels.NAME]``).
        doc: what it is (markdown).
        keys: every key it accepts.
        rules: extra JSON Schema constraints (exactly-one-of, if/then).
    """

    kind: str
    written: str
    doc: str
    keys: tuple[Key, ...]
    rules: tuple[dict[str, Any], ...] = ()

    def key_names(self) -> set[str]:
        return {k.name for k in self.keys}


# ─── shared key groups ─────────────────────────────────────────────────────

_RELATION_KEYS = tuple(RELATIONS)
PLACEMENT_KEYS = ("at", "cell", *_RELATION_KEYS)


def _placement(default_anchor: str) -> tuple[Key, ...]:
    """The placement keys; ``default_anchor`` is the markdown shown as the anchor's default."""
    return (
        Key("at", "point", "place the element's `anchor` at this point (plus `offset`)"),
        Key("anchor", "anchor", "the element's own anchor that sits at `at`", default_anchor),
        Key("offset", "offset_pair", "added to `at` or to a relation's point", "`[\"0pt\", \"0pt\"]`"),
        Key("cell", "string", "fill area `\"A\"` of the figure `[grid]`, or `\"grid.A\"` of `[grids.grid]`"),
        Key("right_of", "element", "place right of this element, `gap` apart"),
        Key("left_of", "element", "place left of this element, `gap` apart"),
        Key("above", "element", "place above this element, `gap` apart"),
        Key("below", "element", "place below this element, `gap` apart"),
        Key("gap", "offset", "distance from the element named by a relation", "`\"0pt\"`"),
        Key("align", "relation_align",
            "edge shared with that element: `top`/`center`/`bottom` beside it, `left`/`center`/`right` "
            "above or below it", "`\"center\"`"),
    )


def _exactly_one(names: tuple[str, ...]) -> dict[str, Any]:
    return {"oneOf": [{"required": [n]} for n in names]}


def _placement_rules() -> tuple[dict[str, Any], ...]:
    beside = ("right_of", "left_of")
    stacked = ("above", "below")
    any_of = lambda names: {"anyOf": [{"required": [n]} for n in names]}  # noqa: E731
    return (
        {"if": any_of(beside), "then": {"properties": {"align": _choice_schema(RELATIONS["right_of"])}}},
        {"if": any_of(stacked), "then": {"properties": {"align": _choice_schema(RELATIONS["below"])}}},
        {"if": any_of(_RELATION_KEYS), "then": {"not": {"required": ["anchor"]}}},
    )


def _text_style(prefix: str, what: str) -> tuple[Key, ...]:
    return (
        Key(f"{prefix}class", "name", f"a named text style from `[styles.NAME]` for {what}"),
        Key(f"{prefix}font", "string", f"font family of {what}", "the figure's `font`"),
        Key(f"{prefix}size", "length", f"font size of {what}", "the figure's `font_size`"),
        Key(f"{prefix}weight", "weight", f"font weight of {what}", "`\"normal\"`"),
        Key(f"{prefix}style", "font_style", f"`italic` or `normal` for {what}", "`\"normal\"`"),
        Key(f"{prefix}color", "color", f"colour of {what}", "`\"#000000\"`"),
        Key(f"{prefix}opacity", "fraction", f"opacity of {what}", "`1`"),
    )


# ─── the tables ────────────────────────────────────────────────────────────

TABLES: tuple[Table, ...] = (
    Table("layout", "top level", "A layout file's tables; only `[figure]` is required.", (
        Key("figure", "table", "the canvas: size, font, data (see `[figure]`)", required=True),
        Key("colors", "table", "the palette (see `[colors]`)"),
        Key("styles", "table", "named text styles (see `[styles.NAME]`)"),
        Key("rcparams", "table", "matplotlib rcParams for every panel (see `[rcparams]`)"),
        Key("grid", "table", "the figure's mosaic grid (see `[grid]`)"),
        Key("grids", "table", "more grids, each placed like an element (see `[grids.NAME]`)"),
        Key("panels", "table", "the panels, by name (see `[panels.NAME]`)"),
        Key("text", "table", "canvas texts, an array of tables (see `[[text]]`)"),
        Key("shape", "table", "boxes, nodes, lines and braces (see `[[shape]]`)"),
        Key("arrow", "table", "connectors (see `[[arrow]]`)"),
        Key("align", "table", "plot-area alignment groups (see `[[align]]`)"),
        Key("check", "table", "limits for `compose check` (see `[check]`)"),
    )),
    Table("figure", "[figure]", "The canvas and the defaults every element and panel starts from.", (
        Key("width", "canvas_width", "canvas width: a length, or a journal's column width such as "
                                     "`\"nature.double\"`", required=True),
        Key("height", "length", "canvas height", required=True),
        Key("font", "string", "text font of canvas and panels; a font that is not installed is an error, "
                              "never a silent swap", "`\"DejaVu Sans\"`"),
        Key("font_size", "length", "text size of canvas and panels",
            "`\"7pt\"`, or the preset's smallest text size when larger"),
        Key("background", "color", "canvas colour, painted as a rect; `\"none\"` for transparent",
            "`\"white\"`"),
        Key("data", "data_file", "the figure's data: renderers get it, and its scalars fill `{fields}`"),
        Key("params", "table", "shared parameters for every renderer and `values()` that accepts them, and "
                               "for text fields; a key that none takes is an error", "`{}`"),
        Key("style", "style_file", "a shared style file whose `[colors]`, `[styles.NAME]`, `[rcparams]` "
                                   "the layout's own tables extend and override"),
        Key("label_size", "length", "panel label size", "`font_size` + 1pt"),
        Key("label_weight", "weight", "panel label weight", "`\"bold\"`"),
        Key("label_color", "color", "panel label colour", "`\"#000000\"`"),
        Key("label_offset", "offset_pair", "the label's lower-left corner from the panel's top-left",
            "`[\"0pt\", \"-2pt\"]`"),
        Key("raster_ppi", "positive", "pixels per inch, at final size, of every embedded raster: matplotlib's "
                                      "images and rasterized artists, and data-cell images enlarged to it",
            "`300`"),
        Key("text", "text_mode", "`\"paths\"`: every glyph an outline, the same in every viewer; `\"editable\"`: "
                                 "`<text>` with a font stack for Inkscape and Illustrator (mathtext stays outlines)",
            "`\"paths\"`"),
        Key("engine", "engine", "the engine that draws PDF and PNG: `\"resvg\"` (resvg and svg2pdf, nothing to "
                                "install) or `\"cairosvg\"` (needs the cairosvg package and the cairo library); "
                                "`compose --engine` overrides it", "`\"resvg\"`"),
        Key("preset", "preset", "a journal's print limits and panel-label style (`compose check`)"),
    )),
    Table("check", "[check]", "Limits for `compose check`, over composer's defaults and the preset's.", (
        Key("min_font_size", "length", "smallest text size at final size", "`\"5pt\"` or the preset's"),
        Key("min_line_width", "length", "thinnest stroke at final size", "`\"0.25pt\"`"),
        Key("min_ppi", "positive", "pixels per inch of every embedded raster at final size", "`300` or the preset's"),
        Key("cvd_min_distance", "positive", "smallest CAM02-UCS distance between palette colours under "
                                            "simulated colour-vision deficiency", "`10`"),
        Key("allow_overlap", "name_pairs", "element pairs that are meant to overlap"),
    )),
    Table("style", "[styles.NAME]",
          "A named text style; a text uses it with `class = \"NAME\"` (shape text: `text_class`, arrow "
          "labels: `label_class`), and its own keys override the style's.",
          _text_style("", "the text")[1:]),
    Table("style_file", "style file",
          "A shared style file (`[figure] style`): only these tables. Any name under `[colors]` is a colour; "
          "any key under `[rcparams]` is a matplotlib rcParam.", (
              Key("colors", "table", "the palette: `NAME = \"#hex\"`; any colour key may name it, and renderers "
                                     "that take a `colors` argument receive it"),
              Key("styles", "table", "named text styles"),
              Key("rcparams", "table", "matplotlib rcParams for every panel (`\"mathtext.fontset\"` also "
                                       "sets canvas mathtext)"),
          )),
    Table("grid", "[grid]",
          "The figure's mosaic grid: it fills the canvas inside its margin; elements fill its areas with "
          "`cell = \"A\"`.", (
              Key("mosaic", "mosaic", "rows of area letters, `.` for an empty cell (`\"AAB\\nCDB\"`); every "
                                      "area is a rectangle", required=True),
              Key("columns", "tracks", "one per column: a length or a ratio of what is left", "all `1`"),
              Key("rows", "tracks", "one per row: a length or a ratio of what is left", "all `1`"),
              Key("gutter", "gutter", "space between columns and rows", "`\"0pt\"`"),
              Key("margin", "margin", "space between the canvas edge and the grid", "`\"0pt\"`"),
          )),
    Table("grids", "[grids.NAME]",
          "A nested grid placed like any element (by `at`, `cell` or a relation) with a `size` unless a cell "
          "gives it; elements fill its areas with `cell = \"NAME.A\"`.", (
              Key("mosaic", "mosaic", "rows of area letters, `.` for an empty cell", required=True),
              Key("columns", "tracks", "one per column: a length or a ratio", "all `1`"),
              Key("rows", "tracks", "one per row: a length or a ratio", "all `1`"),
              Key("gutter", "gutter", "space between columns and rows", "`\"0pt\"`"),
              *_placement('`"nw"`'),
              Key("size", "size", "the grid's box, unless a cell gives it"),
          ), rules=(_exactly_one(PLACEMENT_KEYS), *_placement_rules(),
                    {"if": {"not": {"required": ["cell"]}}, "then": {"required": ["size"]}})),
    Table("panel", "[panels.NAME]",
          "A panel: a matplotlib renderer drawn at its final size, an SVG file or a PNG/JPEG image.", (
              Key("render", "renderer", "`\"module:function\"`: `function(fig, data, **params)` in "
                                        "`panels/module.py`"),
              Key("svg", "svg_file", "an SVG file, fitted in the box keeping its aspect"),
              Key("image", "image_file", "a PNG or JPEG, fitted keeping its aspect and inlined"),
              *_placement('`"nw"`'),
              Key("size", "size", "the panel's box; required unless a `cell` gives it"),
              Key("label", "string", "panel label drawn at its top-left (`\"a\"`)"),
              Key("title", "template", "a title drawn after the label (`{fields}` allowed)"),
              Key("params", "table", "keyword arguments for the renderer", "`{}`"),
              Key("data", "data_file", "a data file for this panel instead of the figure's"),
              Key("overlap", "bool", "the panel may overlap others (an inset)", "`false`"),
              Key("raster", "bool", "render panels: `true` rasterizes the panel's data artists at `raster_ppi` "
                                    "(text and axes stay vector); `false` never; unset: when its SVG is heavy "
                                    "(over 1 MB), and meshes and 3D surfaces always (seams)"),
          ), rules=(
              _exactly_one(("render", "svg", "image")),
              _exactly_one(PLACEMENT_KEYS),
              *_placement_rules(),
              {"if": {"required": ["cell"]}, "then": {"not": {"required": ["size"]}},
               "else": {"required": ["size"]}},
          )),
    Table("text", "[[text]]", "A block of canvas text, drawn as glyph outlines.", (
        Key("text", "template", "the text: `\\n` new lines, `$...$` mathtext, `{name:format}` fields, "
                                "`<b>`, `<i>`, `<color=NAME>` spans", required=True),
        Key("name", "name", "lets other elements refer to this text"),
        *_placement('`"center"`'),
        Key("justify", "justify", "line alignment", "from the anchor's side"),
        Key("width", "length", "wrap the text to this width"),
        *_text_style("", "the text"),
    ), rules=(_exactly_one(PLACEMENT_KEYS), *_placement_rules())),
    Table("shape", "[[shape]]",
          "A box (`rect`, `circle`, `ellipse`, placed like a panel), a polyline (`line`), or a `brace`/"
          "`bracket` from one point to another. A boxed shape with text and no size fits its text.", (
              Key("kind", "shape_kind", "what to draw", "`\"rect\"`"),
              Key("name", "name", "lets other elements refer to this shape"),
              *_placement('`"nw"` (rect), `"center"` (circle, ellipse)'),
              Key("size", "size", "box size (`rect`, `ellipse`)", "fits the text"),
              Key("width", "length", "box width alone: the text wraps to it and the height follows"),
              Key("height", "length", "box height alone"),
              Key("radius", "length", "circle radius"),
              Key("corner", "length", "corner radius of a `rect`", "`\"0pt\"`"),
              Key("points", "points", "`line`: 2 or more points; `brace`/`bracket`: from, to"),
              Key("side", "brace_side", "the side of travel a brace or bracket bulges to", "`\"left\"`"),
              Key("depth", "length", "how far a brace or bracket bulges", "`\"4pt\"`"),
              Key("fill", "color", "fill colour", "`\"none\"`"),
              Key("stroke", "color", "outline colour", "`\"black\"`"),
              Key("stroke_width", "length", "outline width", "`\"0.5pt\"`"),
              Key("dash", "bool", "dashed outline", "`false`"),
              Key("opacity", "fraction", "opacity of the shape", "`1`"),
              Key("symbol", "symbol", "a symbol inside a `circle` or `ellipse` (`+` for a sum node)"),
              Key("text", "template", "text centred in a boxed shape"),
              Key("padding", "length", "space between the text and the box it fits", "`\"3pt\"`"),
              *_text_style("text_", "the shape's text"),
          ), rules=({
              "if": {"required": ["kind"], "properties": {"kind": {"enum": ["line", "brace", "bracket"]}}},
              "then": {"required": ["points"]},
              "else": {"allOf": [_exactly_one(PLACEMENT_KEYS), *_placement_rules()]},
          },)),
    Table("arrow", "[[arrow]]", "A connector between two points, with an optional label.", (
        Key("from", "point", "where it starts", required=True),
        Key("to", "point", "where it ends", required=True),
        Key("via", "points", "waypoints, each hop routed the same way"),
        Key("route", "route", "`straight`, `-|` (horizontal, then vertical), `|-`, or `arc`", "`\"straight\"`"),
        Key("bend", "angle", "how far an `arc` bends (positive: to the left of travel)", "`30`"),
        Key("color", "color", "line and head colour", "`\"#000000\"`"),
        Key("width", "length", "line width", "`\"0.75pt\"`"),
        Key("dash", "bool", "dashed line", "`false`"),
        Key("head", "head", "which ends get a head", "`\"end\"`"),
        Key("head_style", "head_style", "head shape, drawn as a filled path", "`\"triangle\"`"),
        Key("head_length", "length", "head length", "4pt, or 4.5 x width"),
        Key("head_width", "length", "head width", "3.2pt, or 3.6 x width"),
        Key("gap", "length", "space left free at both ends", "`\"1pt\"`"),
        Key("label", "template", "text beside the route"),
        Key("label_pos", "fraction", "where along the route the label sits", "`0.5`"),
        Key("label_side", "label_side", "`above`/`below` the route, or `left`/`right` of travel", "`\"above\"`"),
        *_text_style("label_", "the label"),
    )),
    Table("align", "[[align]]",
          "Line up the plot areas (axes) of matplotlib panels, as R's patchwork does.", (
              Key("panels", "panel_list", "the panels, 2 or more", required=True),
              Key("axis", "align_axis", "`y`: tops and bottoms within each row of the group; `x`: left and "
                                        "right edges within each column; `both`: both (a 2 x 2 grid, an L). A "
                                        "panel sharing no row (column) with the others is an error",
                  "`\"y\"`"),
          )),
    Table("point_table", "point table",
          "A point written as a table: `{ at = \"state1.se\", offset = [\"4mm\", \"5mm\"] }`.", (
              Key("at", "point", "the point", required=True),
              Key("offset", "offset_pair", "added to it", "`[\"0pt\", \"0pt\"]`"),
          )),
)

TABLES_BY_KIND: dict[str, Table] = {t.kind: t for t in TABLES}


# ─── JSON Schema ───────────────────────────────────────────────────────────

def _key_schema(key: Key) -> dict[str, Any]:
    vtype = TYPES[key.type]
    inline = key.type in ("bool", "fraction", "positive", "angle", "string", "table") or "enum" in vtype.schema
    out: dict[str, Any] = dict(vtype.schema) if inline else {"$ref": f"#/definitions/{key.type}"}
    out.pop("description", None)
    text = key.doc.replace("`", "")
    if key.default is not None:
        text += f" (default: {key.default.replace('`', '')})"
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
        schema["allOf"] = list(table.rules)
    schema["properties"].update(extra or {})
    return schema


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft-07) of a layout document (a parsed TOML file, or a Python layout's dict).

    It checks structure and value syntax: table and key names, value types,
    units, choices, exactly-one-of placement. It cannot check what needs the
    whole figure (references to other elements, styles and palette names,
    mosaic sizes, files on disk): the loader does.
    """
    t = TABLES_BY_KIND
    definitions: dict[str, Any] = {name: dict(v.schema) for name, v in TYPES.items() if "enum" not in v.schema}
    definitions["track"] = {"oneOf": [
        {"type": "number", "exclusiveMinimum": 0},
        {"$ref": "#/definitions/length"},
        {"type": "string", "pattern": rf"^\s*{_NUMBER}\s*fr\s*$"},
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
    }
    assert set(tables) == t["layout"].key_names(), "every top-level table has a schema"
    del definitions["style_tables"]
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "composer layout",
        "description": "A composer layout file (layouts/NAME.toml). See the README's layout reference.",
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
whole canvas (`"canvas.sw"`). A point may also be a table
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

_ORDER = ("layout", "figure", "check", "style", "grid", "grids", "panel", "text", "shape", "arrow", "align", "point_table",
          "style_file")


def _shown(key: Key) -> str:
    vtype = TYPES[key.type]
    if "enum" in vtype.schema:
        return " ".join(f"`{c}`" for c in vtype.schema["enum"])
    return vtype.shown


def markdown_reference() -> str:
    """The layout reference as markdown: a table per layout table, a row per key (README, ``compose schema --markdown``)."""
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
            default = "required" if key.required else (key.default or "")
            doc = key.doc.replace("|", "\\|")
            shown = _shown(key).replace("|", "\\|")
            lines.append(f"| `{key.name}` | {shown} | {default.replace('|', chr(92) + '|')} | {doc} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


README_START = "<!-- layout-reference:start -->"
README_END = "<!-- layout-reference:end -->"


def readme_section() -> str:
    """The README block between the layout-reference markers, markers included."""
    return (f"{README_START}\n<!-- generated by `compose schema --markdown`; edit composer/schema.py, "
            f"not this block -->\n\n{markdown_reference()}\n{README_END}")
