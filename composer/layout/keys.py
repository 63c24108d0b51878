"""The layout format's key table, defined once: every table and key with its value type, default and meaning.

:data:`TABLES` is the one definition of what a layout file may say. Each
:class:`Key` names its value type (:data:`TYPES`: the JSON Schema fragment,
the way the reference shows it, and the :class:`composer.layout.reader.Reader`
method that converts and checks a value of it), its default in the user's own
notation (``"0.5pt"``), and what it means. From it:

- the loader (:mod:`composer.layout.loader`) converts every key
  (:meth:`composer.layout.section.Section.get` takes the converter and the
  default from here) and finds unknown and misspelt keys
  (:mod:`composer.layout.section`);
- the typed model's defaults (:mod:`composer.layout.model`) are the
  converted defaults (:func:`default`): ``default("shape", "stroke_width")``
  is ``0.5`` (pt);
- :mod:`composer.layout.schema` writes the JSON Schema and the layout
  reference, the written default derived from the same value.

Cross-key rules (exactly one placement, the ``align`` a relation takes, a
``size`` unless a cell gives it) are each declared once, in
:mod:`composer.layout.constraints`, and listed here by table
(:attr:`Table.rules`): the schema writes them, the loader raises their
errors. What only the loader can check (keys refused in one use of a table,
defaults computed from other keys such as an arrow's head length) stays as
code there; its types, docs and base defaults are here.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from composer.kinds import outputs
from composer.kinds.shapes import SHAPES
from composer.layout.constraints import (
    BESIDE,
    BESIDE_SIDE,
    COLORBAR_SIZE,
    GRID_SIZE,
    PANEL_SIZE,
    PLACED,
    RELATION_ALIGN,
    RELATION_ANCHOR,
    SHAPE_POINTS,
    Rule,
)
from composer.layout.presets import PRESETS
from composer.layout.reader import Reader
from composer.layout.vocabulary import (
    ALIGN_AXES,
    ALIGNS,
    ASPECT_OF,
    BESIDE_SIDES,
    BRACE_SIDES,
    COMPASS,
    ENGINES,
    HEAD_PER_WIDTH,
    HEAD_STYLES,
    HEADS,
    LABEL_AT,
    LABEL_SIDES,
    LABEL_SIZE_ABOVE_FONT_PT,
    LABEL_STYLES,
    MATH_MODES,
    MAX_BEND_DEG,
    MAX_ROTATE_DEG,
    ORIENTATIONS,
    RELATION_ALIGNS,
    ROUTES,
    SHAPE_ANCHORS,
    SHAPE_KINDS,
    SIDES,
    STYLES,
    SYMBOLS,
    TEXT_MODES,
    TRACK_SHARE,
    WEIGHTS,
)
from composer.units import PT_PER_UNIT

#: a converter of one value type: ``convert(reader, value, key) -> value`` (see :class:`Reader`)
Convert = Callable[[Reader, Any, str], Any]


def _choice(choices: tuple[str, ...]) -> Convert:
    return lambda r, value, key: r.choice(choices)(value, key)


def _file(*suffixes: str) -> Convert:
    return lambda r, value, key: r.file_path(value, key, suffixes)


class _Unset:
    """The marker of "no default": see :class:`Key`."""

    def __repr__(self) -> str:
        return "UNSET"


#: ``Key(default=UNSET)``: no default value, absence means "not set" (None), or the key is required.
UNSET: Any = _Unset()


_UNITS = "|".join(PT_PER_UNIT)
NUMBER_PATTERN = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


@dataclass(frozen=True)
class ValueType:
    """A kind of value a key takes.

    Attributes:
        name: the type's name in this module (``"length"``).
        shown: how the reference shows it (markdown).
        convert: the loader's converter, ``convert(reader, value, key)`` (a
            :class:`Reader` method); None: the value as written (a table the
            loader reads key by key).
        schema: its JSON Schema fragment.
    """

    name: str
    shown: str
    convert: Convert | None
    schema: dict[str, Any]


def _choice_schema(choices: tuple[str, ...]) -> dict[str, Any]:
    return {"enum": list(choices)}


#: every value type, by name. Lengths follow :func:`composer.units.to_pt`.
TYPES: dict[str, ValueType] = {t.name: t for t in (
    ValueType("length", "length", Reader.length, {
        "type": "string", "pattern": rf"^\s*\+?{NUMBER_PATTERN}\s*(?:{_UNITS})\s*$",
        "description": f"a length with a unit ({', '.join(PT_PER_UNIT)}), zero or more: \"12mm\""}),
    ValueType("offset", "signed length", Reader.offset, {
        "type": "string", "pattern": rf"^\s*[-+]?{NUMBER_PATTERN}\s*(?:{_UNITS})\s*$",
        "description": f"a length with a unit ({', '.join(PT_PER_UNIT)}), may be negative: \"-2mm\""}),
    ValueType("canvas_width", "length, or a journal width (`\"nature.double\"`)", Reader.canvas_width, {
        "oneOf": [{"$ref": "#/definitions/length"},
                  {"enum": [f"{j}.{w}" for j, p in PRESETS.items() for w in p.widths]}],
        "description": "a length with a unit, or a journal's column width: \"nature.double\""}),
    ValueType("canvas_height", "length, or `\"auto\"`", Reader.string, {
        "oneOf": [{"$ref": "#/definitions/length"}, {"const": "auto"}],
        "description": "a length with a unit, or \"auto\": as tall as the content"}),
    ValueType("preset", "choice", Reader.preset, _choice_schema(tuple(PRESETS))),
    ValueType("text_mode", "choice", _choice(TEXT_MODES), _choice_schema(TEXT_MODES)),
    ValueType("math_mode", "choice", _choice(MATH_MODES), _choice_schema(MATH_MODES)),
    ValueType("engine", "choice", lambda r, value, key: r.choice(outputs.engine_names())(value, key),
              _choice_schema(ENGINES)),
    ValueType("name_pairs", "list of `[\"a\", \"b\"]` name pairs", Reader.name_pairs, {
        "type": "array", "items": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        "description": "pairs of element names: [[\"a\", \"inset\"]]"}),
    ValueType("panel_rules", "table: panel name -> list of rule names", Reader.panel_rules, {
        "type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "description": "rules whose findings about a panel are not reported: {a = [\"outside-panel\"]}"}),
    ValueType("size", "`[width, height]` lengths", Reader.pair, {
        "type": "array", "items": {"$ref": "#/definitions/length"}, "minItems": 2, "maxItems": 2,
        "description": "[width, height], lengths with units: [\"36mm\", \"20mm\"]"}),
    ValueType("offset_pair", "`[dx, dy]` signed lengths", Reader.signed_pair, {
        "type": "array", "items": {"$ref": "#/definitions/offset"}, "minItems": 2, "maxItems": 2,
        "description": "[dx, dy], signed lengths, +y down: [\"2mm\", \"-1mm\"]"}),
    ValueType("point", "point", Reader.position, {
        "description": "a point: [\"x\", \"y\"] from the canvas's top-left, \"element.anchor\", "
                       "\"panel#id\" or \"panel#id.anchor\" (an element of an imported SVG panel), or "
                       "{ at = point, offset = [dx, dy] }",
        "oneOf": [
            {"$ref": "#/definitions/offset_pair"},
            {"type": "string",
             "pattern": rf"^{_IDENT}\.(?:[^@]+|[{''.join(SIDES)}]@(?:0(?:\.\d*)?|1(?:\.0*)?|\.\d+))$"},
            {"type": "string", "pattern": rf"^{_IDENT}#[^#\s]+$"},
            {"$ref": "#/definitions/point_table"},
        ]}),
    ValueType("points", "list of points", Reader.points, {
        "type": "array", "items": {"$ref": "#/definitions/point"}, "minItems": 1,
        "description": "a list of points"}),
    ValueType("waypoints", "list of points, may be empty", Reader.waypoints, {
        "type": "array", "items": {"$ref": "#/definitions/point"},
        "description": "a list of points, or [] for none"}),
    ValueType("string", "string", Reader.string, {"type": "string"}),
    ValueType("template", "text template", Reader.words, {
        "type": "string",
        "description": "text: \\n for new lines, $...$ mathtext, {name:format} fields, <b>, <i>, <color=NAME> spans"}),
    ValueType("name", "name", Reader.name, {
        "type": "string", "pattern": rf"^{_IDENT}$",
        "description": "a name: letters, digits and _, not starting with a digit"}),
    ValueType("element", "element name", Reader.name, {
        "type": "string", "pattern": rf"^{_IDENT}$", "description": "the name of another element"}),
    ValueType("color", "colour", Reader.color, {
        "type": "string",
        "description": "a colour matplotlib knows (\"black\", \"#rrggbb\"), a palette name from [colors], "
                       "or \"none\""}),
    ValueType("bool", "`true`/`false`", Reader.boolean, {"type": "boolean"}),
    ValueType("panel_label", "string, or `false`", Reader.panel_label, {
        "oneOf": [{"type": "string", "pattern": r"\S"}, {"const": False}],
        "description": "the panel's label (\"a\"), or false: none (and no automatic letter)"}),
    ValueType("panel_order", "list of panel names", Reader.panel_order, {
        "type": "array", "items": {"$ref": "#/definitions/name"}, "minItems": 1, "uniqueItems": True}),
    ValueType("rotation", "degrees, -360 to 360", Reader.rotation,
              {"type": "number", "minimum": -MAX_ROTATE_DEG, "maximum": MAX_ROTATE_DEG}),
    ValueType("panel_names", "list of panel names", Reader.panel_names, {
        "type": "array", "items": {"$ref": "#/definitions/name"}, "minItems": 1}),
    ValueType("beside_side", "choice", _choice(BESIDE_SIDES), _choice_schema(BESIDE_SIDES)),
    ValueType("orientation", "choice", _choice(ORIENTATIONS), _choice_schema(ORIENTATIONS)),
    ValueType("numbers", "list of numbers", Reader.numbers, {"type": "array", "items": {"type": "number"},
                                                              "uniqueItems": True}),
    ValueType("label_style", "choice", _choice(LABEL_STYLES), _choice_schema(LABEL_STYLES)),
    ValueType("label_at", "choice", _choice(LABEL_AT), _choice_schema(LABEL_AT)),
    ValueType("fraction", "number 0-1", Reader.fraction, {"type": "number", "minimum": 0, "maximum": 1}),
    ValueType("positive", "number > 0", Reader.positive_number, {"type": "number", "exclusiveMinimum": 0}),
    ValueType("aspect", "number > 0, or `\"auto\"`", Reader.aspect, {
        "oneOf": [{"type": "number", "exclusiveMinimum": 0}, {"const": "auto"}],
        "description": "width / height, or \"auto\": an image, svg or pdf panel's file's own aspect"}),
    ValueType("angle", f"degrees, -{MAX_BEND_DEG} to {MAX_BEND_DEG}", Reader.degrees,
              {"type": "number", "minimum": -MAX_BEND_DEG, "maximum": MAX_BEND_DEG}),
    # a panel source's own value types (renderer, svg_file, pdf_file, page, image_file) are in its module
    # (composer/stages/sources/), added here while it is registered (composer.layout.sources)
    ValueType("count", "integer >= 1", Reader.count, {"type": "integer", "minimum": 1}),
    ValueType("data_file", "path to `.npz`/`.json`/`.csv`", _file(".npz", ".json", ".csv"), {
        "type": "string", "pattern": r"(?i)\.(?:npz|json|csv)$",
        "description": "a data file, relative to the layout file"}),
    ValueType("style_file", "path to `.toml`", _file(".toml"), {
        "type": "string", "pattern": r"(?i)\.toml$",
        "description": "a shared style file with [colors], [styles.NAME], [rcparams]"}),
    ValueType("table", "table", None, {"type": "object"}),
    ValueType("mosaic", "mosaic string", Reader.string, {
        "type": "string", "description": "rows of area letters, . for an empty cell: \"AAB\\nCDB\""}),
    ValueType("tracks", "list of lengths or ratios", None, {
        "type": "array", "items": {"$ref": "#/definitions/track"}, "minItems": 1,
        "description": "one per column (row): a length (\"30mm\") or a ratio (1, 2, \"2fr\")"}),
    ValueType("gutter", "length or `[columns, rows]`", Reader.gutter, {
        "oneOf": [{"$ref": "#/definitions/length"}, {"$ref": "#/definitions/size"}],
        "description": "space between columns and rows: one length or [between columns, between rows]"}),
    ValueType("margin", "length or `[top, right, bottom, left]`", Reader.margin, {
        "oneOf": [{"$ref": "#/definitions/length"},
                  {"type": "array", "items": {"$ref": "#/definitions/length"}, "minItems": 4, "maxItems": 4}],
        "description": "one length, or [top, right, bottom, left]"}),
    ValueType("panel_list", "list of 2+ panel names", Reader.panel_list, {
        "type": "array", "items": {"$ref": "#/definitions/name"}, "minItems": 2}),
    ValueType("anchor", "compass anchor", _choice(tuple(COMPASS)), _choice_schema(tuple(COMPASS))),
    ValueType("weight", "choice", _choice(WEIGHTS), _choice_schema(WEIGHTS)),
    ValueType("font_style", "choice", _choice(STYLES), _choice_schema(STYLES)),
    ValueType("justify", "choice", _choice(ALIGNS), _choice_schema(ALIGNS)),
    ValueType("route", "choice", _choice(ROUTES), _choice_schema(ROUTES)),
    ValueType("head", "choice", _choice(HEADS), _choice_schema(HEADS)),
    ValueType("head_style", "choice", _choice(HEAD_STYLES), _choice_schema(HEAD_STYLES)),
    ValueType("shape_kind", "choice", lambda r, value, key: r.choice(SHAPES.names())(value, key),  # one added later too
              _choice_schema(SHAPE_KINDS)),
    ValueType("symbol", "choice", _choice(SYMBOLS), _choice_schema(SYMBOLS)),
    ValueType("brace_side", "choice", _choice(BRACE_SIDES), _choice_schema(BRACE_SIDES)),
    ValueType("label_side", "choice", _choice(LABEL_SIDES), _choice_schema(LABEL_SIDES)),
    ValueType("align_axis", "choice", _choice(ALIGN_AXES), _choice_schema(ALIGN_AXES)),
    ValueType("aspect_of", "choice", _choice(ASPECT_OF), _choice_schema(ASPECT_OF)),
    ValueType("relation_align", "choice", _choice(RELATION_ALIGNS), _choice_schema(RELATION_ALIGNS)),
)}


_FROM_TYPE: Any = object()


@dataclass(frozen=True)
class Key:
    """One key of a table.

    Attributes:
        name: as written in the layout.
        type: a :data:`TYPES` name.
        doc: what it means (markdown, one sentence or two).
        default: the default as a layout would write it (``"0.5pt"``, ``false``,
            ``["0pt", "-2pt"]``); the model gets it converted (:attr:`value`).
            :data:`UNSET`: absence means "not set" (None), or the key is
            required, or the default is computed from other keys (``shown``).
        required: the loader refuses the table without it.
        note: words after the written default: how other keys change it
            (``", or the preset's smallest text size when larger"``).
        shown: the written default when it is computed from other keys and
            has no one value (``"the figure's `font`"``).
        convert: this key's converter when it is not its type's
            (``convert(reader, value, key)``; None: the value as written).
    """

    name: str
    type: str
    doc: str
    default: Any = UNSET
    required: bool = False
    note: str = ""
    shown: str | None = None
    convert: Convert | None = _FROM_TYPE

    def converter(self, reader: Reader) -> Callable[[Any, str], Any] | None:
        """This key's converter bound to ``reader`` (None: the value as written)."""
        convert = TYPES[self.type].convert if self.convert is _FROM_TYPE else self.convert
        if convert is None:
            return None
        bound: Convert = convert
        return lambda value, key: bound(reader, value, key)

    @cached_property
    def value(self) -> Any:
        """The default converted, as the model holds it (``"0.5pt"`` -> ``0.5``); None when it has none."""
        if self.default is UNSET:
            return None
        convert = self.converter(_DEFAULTS)
        return convert(self.default, self.name) if convert else self.default

    @property
    def written(self) -> str | None:
        """The default as the reference shows it (markdown), derived from :attr:`default`; None: none."""
        if self.shown is not None:
            return self.shown
        if self.default is UNSET:
            return None
        return f"`{json.dumps(self.default, ensure_ascii=False)}`{self.note}"


@dataclass(frozen=True)
class Table:
    """One table of the layout format.

    Attributes:
        kind: its id here and in the drift test (``"panel"``).
        written: how it is written in a layout (``[panels.NAME]``).
        doc: what it is (markdown).
        keys: every key it accepts.
        rules: its cross-key rules (:mod:`composer.layout.constraints`: exactly one placement, ...), each the
            JSON Schema's rule and the loader's error at once.
    """

    kind: str
    written: str
    doc: str
    keys: tuple[Key, ...]
    rules: tuple[Rule, ...] = ()

    def key_names(self) -> set[str]:
        return {k.name for k in self.keys}

    @cached_property
    def _by_name(self) -> dict[str, Key]:
        return {k.name: k for k in self.keys}

    def key(self, name: str) -> Key:
        """The key ``name`` (KeyError when the table has none)."""
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"{self.kind} has no key {name!r}") from None


# ─── shared key groups ─────────────────────────────────────────────────────

def _placement(default_anchor: str | None) -> tuple[Key, ...]:
    """The placement keys; ``default_anchor``: the anchor's default, None for a shape's (by kind:
    :data:`SHAPE_ANCHORS`)."""
    by_kind = ", ".join(f"`{json.dumps(a)}` ({', '.join(k for k, b in SHAPE_ANCHORS.items() if b == a)})"
                        for a in dict.fromkeys(SHAPE_ANCHORS.values()))
    anchor = (Key("anchor", "anchor", "the element's own anchor that sits at `at`", default=default_anchor)
              if default_anchor is not None else
              Key("anchor", "anchor", "the element's own anchor that sits at `at`", shown=by_kind))
    return (
        Key("at", "point", "place the element's `anchor` at this point (plus `offset`)"),
        anchor,
        Key("offset", "offset_pair", "added to `at` or to a relation's point", default=["0pt", "0pt"]),
        Key("cell", "string", "fill area `\"A\"` of the figure `[grid]`, or `\"grid.A\"` of `[grids.grid]`"),
        Key("right_of", "element", "place right of this element, `gap` apart"),
        Key("left_of", "element", "place left of this element, `gap` apart"),
        Key("above", "element", "place above this element, `gap` apart"),
        Key("below", "element", "place below this element, `gap` apart"),
        Key("gap", "offset", "distance from the element named by a relation", default="0pt"),
        Key("align", "relation_align",
            "edge shared with that element: `top`/`center`/`bottom` beside it, `left`/`center`/`right` "
            "above or below it", default="center"),
    )


def _text_style(prefix: str, what: str) -> tuple[Key, ...]:
    return (
        Key(f"{prefix}class", "name", f"a named text style from `[styles.NAME]` for {what}"),
        Key(f"{prefix}font", "string", f"font family of {what}", shown="the figure's `font`"),
        Key(f"{prefix}size", "length", f"font size of {what}", shown="the figure's `font_size`",
            convert=Reader.text_size),
        Key(f"{prefix}weight", "weight", f"font weight of {what}", default="normal"),
        Key(f"{prefix}style", "font_style", f"`italic` or `normal` for {what}", default="normal"),
        Key(f"{prefix}color", "color", f"colour of {what}", default="#000000"),
        Key(f"{prefix}opacity", "fraction", f"opacity of {what}", default=1),
        Key(f"{prefix}math", "math_mode", f"`\"mathtext\"`: `$...$` in {what} by matplotlib's mathtext; "
                                          f"`\"latex\"`: all of {what} is LaTeX, typeset by TeX",
            shown="the figure's `math`"),
    )


# ─── the tables ────────────────────────────────────────────────────────────

#: a list: :mod:`composer.layout.sources` completes the panel table with the registered panel sources
TABLES: list[Table] = [
    Table("layout", "top level", "A layout file's tables; only `[figure]` is required.", (
        Key("figure", "table", "the canvas: size, font, data (see `[figure]`)", required=True),
        Key("colors", "table", "the palette (see `[colors]`)", default={}),
        Key("styles", "table", "named text styles (see `[styles.NAME]`)", default={}),
        Key("rcparams", "table", "matplotlib rcParams for every panel (see `[rcparams]`)", default={},
            convert=Reader.params),
        Key("grid", "table", "the figure's mosaic grid (see `[grid]`)"),
        Key("grids", "table", "more grids, each placed like an element (see `[grids.NAME]`)", default={}),
        Key("panels", "table", "the panels, by name (see `[panels.NAME]`)", default={}),
        Key("text", "table", "canvas texts, an array of tables (see `[[text]]`)", default=[]),
        Key("shape", "table", "boxes, nodes, lines and braces (see `[[shape]]`)", default=[]),
        Key("arrow", "table", "connectors (see `[[arrow]]`)", default=[]),
        Key("align", "table", "plot-area alignment groups (see `[[align]]`)", default=[]),
        Key("legend", "table", "collected legends, an array of tables (see `[[legend]]`)", default=[]),
        Key("colorbar", "table", "shared colorbars, an array of tables (see `[[colorbar]]`)", default=[]),
        Key("check", "table", "limits for `compose check` (see `[check]`)"),
    )),
    Table("figure", "[figure]", "The canvas and the defaults every element and panel starts from.", (
        Key("width", "canvas_width", "canvas width: a length, or a journal's column width such as "
                                     "`\"nature.double\"`", required=True),
        Key("height", "canvas_height", "canvas height, or `\"auto\"`: exactly as tall as the content (the "
                                       "lowest element's bottom, its stroke included) plus `margin`; the height "
                                       "built is reported",
            required=True, convert=Reader.string),  # kept as written
        Key("margin", "length", "`height = \"auto\"`: the space below the lowest element",
            shown="the `[grid]` margin's bottom, else `\"0pt\"`"),
        Key("font", "string", "text font of canvas and panels; a font that is not installed is an error, "
                              "never a silent swap", default="DejaVu Sans"),
        Key("font_size", "length", "text size of canvas and panels",
            default="7pt", note=", or the preset's smallest text size when larger", convert=Reader.text_size),
        Key("background", "color", "canvas colour, painted as a rect; `\"none\"` for transparent",
            default="#ffffff"),
        Key("data", "data_file", "the figure's data: renderers get it, and its scalars fill `{fields}`"),
        Key("params", "table", "shared parameters for every renderer and `values()` that accepts them, and "
                               "for text fields; a key that none takes is an error", default={},
            convert=Reader.params),
        Key("style", "style_file", "a shared style file whose `[colors]`, `[styles.NAME]`, `[rcparams]` "
                                   "the layout's own tables extend and override"),
        Key("label_size", "length", "panel label size", shown=f"`font_size` + {LABEL_SIZE_ABOVE_FONT_PT:g}pt",
            convert=Reader.text_size),
        Key("label_weight", "weight", "panel label weight", default="bold", note=", or the preset's"),
        Key("label_color", "color", "panel label colour", default="#000000"),
        Key("label_offset", "offset_pair", "the label's lower-left corner from the panel's top-left "
                                           "(its box's, or its plot area's with `label_at = \"plot\"`)",
            default=["0pt", "-2pt"]),
        Key("labels", "label_style", "letter the panels automatically in this style: `\"a\"`, `\"A\"`, "
                                     "`\"(a)\"`, `\"a)\"` (after z comes aa, ab...), `\"i\"`, `\"(i)\"` "
                                     "(lower-case roman), `\"1\"`; in the order the `[panels.NAME]` tables are "
                                     "written, or `label_order`. A panel's own `label` replaces its letter; "
                                     "`label = false` skips the panel, which takes no letter. With a `preset`, "
                                     "the journal's style only (Nature `\"a\"`, Science, Cell and PNAS "
                                     "`\"A\"`, IEEE `\"(a)\"`)", shown="none: labels only where a panel has `label`"),
        Key("label_order", "panel_order", "the order panels take letters under `labels`: every panel that "
                                          "is lettered, each once", shown="the order the panels are written"),
        Key("label_at", "label_at", "`\"box\"`: `label_offset` is from the panel's box; `\"plot\"`: from "
                                    "its plot area, the union of its axes as matplotlib placed them (colorbars "
                                    "left out); an SVG or image panel, or one with no axes, uses its box",
            default="box"),
        Key("raster_ppi", "positive", "pixels per inch, at final size, of every embedded raster: matplotlib's "
                                      "images and rasterized artists, and data-cell images enlarged to it",
            default=300),
        Key("text", "text_mode", "`\"selectable\"`: every glyph an outline in the SVG and PNG, the same in every "
                                 "viewer, and real text in the PDF (selectable, searchable, its fonts embedded as "
                                 "TrueType subsets), each character where its outline is; `\"paths\"`: outlines in "
                                 "the PDF too, no font in it (a journal that asks for outlined text); `\"editable\"`: "
                                 "`<text>` with a font stack for Inkscape and Illustrator (mathtext stays outlines)",
            default="selectable"),
        Key("math", "math_mode", "how canvas text (`[[text]]`, shape text, arrow labels) is typeset: "
                                 "`\"mathtext\"`: `$...$` by matplotlib's mathtext, nothing to install; "
                                 "`\"latex\"`: the whole text is LaTeX (`$...$` math; `'\\frac{{a}}{{b}}'` in a "
                                 "TOML literal string: braces doubled as for every text), typeset by TeX and dvisvgm "
                                 "at the text's size, in Computer Modern (docs/howto/latex.md); a text's `math` "
                                 "overrides it",
            default="mathtext"),
        Key("engine", "engine", "the engine that draws PDF and PNG: `\"resvg\"` (resvg and svg2pdf, nothing to "
                                "install) or `\"cairosvg\"` (needs the cairosvg package and the cairo library); "
                                "`compose --engine` overrides it", default=outputs.DEFAULT_ENGINE),
        Key("preset", "preset", "a journal's print limits and panel-label style (`compose check`)"),
        Key("alt", "template", "alt text: what the figure shows, for a reader who cannot see it (`{fields}` "
                               "allowed): the SVG's `<title>` (and, with the panels' `alt`, its `<desc>`), the "
                               "PDF's tagged figure (`/Alt`), the PNG's `Description`; a preset that asks for "
                               "alt text (PNAS) makes `compose check` warn without it", convert=Reader.string),
        Key("provenance", "bool", "write where the figure comes from into the SVG's `<metadata>`, the PDF's XMP "
                                  "and the PNG's `iTXt`: composer's version, the git commit and whether the "
                                  "figure's inputs are as committed, the sha256 of every input "
                                  "(`compose provenance FILE` reads it back); `false` leaves it out",
            default=True),
    )),
    Table("check", "[check]", "Limits for `compose check`, over composer's defaults and the preset's.", (
        Key("min_font_size", "length", "smallest text size at final size", default="5pt", note=" or the preset's"),
        Key("min_line_width", "length", "thinnest stroke at final size", default="0.25pt"),
        Key("min_ppi", "positive", "pixels per inch of every embedded raster at final size", default=300,
            note=" or the preset's"),
        Key("cvd_min_distance", "positive", "smallest CAM02-UCS distance between palette colours under "
                                            "simulated colour-vision deficiency", default=10),
        Key("max_file_mb", "positive", "largest output file (each of SVG, PDF, PNG, TIFF...), in MB of "
                                       "10^6 bytes, as `compose build --check` writes it", shown="the preset's "
                                       "(PLOS 10, Cell 20, ICML 20), else none"),
        Key("allow_overlap", "name_pairs", "element pairs that are meant to overlap"),
        Key("ignore", "panel_rules", "rules not reported for a panel or guide (by name, or `legend[0]`): "
                                     "`{photo = [\"outside-panel\"]}` (an "
                                     "imported drawing that is meant to reach past its box); the report's notes "
                                     "count what was left out"),
    )),
    Table("style", "[styles.NAME]",
          "A named text style; a text uses it with `class = \"NAME\"` (shape text: `text_class`, arrow "
          "labels: `label_class`), and its own keys override the style's.",
          _text_style("", "the text")[1:]),
    Table("style_file", "style file",
          "A shared style file (`[figure] style`): only these tables. Any name under `[colors]` is a colour; "
          "any key under `[rcparams]` is a matplotlib rcParam.", (
              Key("colors", "table", "the palette: `NAME = \"#hex\"`; any colour key may name it, and renderers "
                                     "that take a `colors` argument receive it", default={}),
              Key("styles", "table", "named text styles", default={}),
              Key("rcparams", "table", "matplotlib rcParams for every panel (`\"mathtext.fontset\"` also "
                                       "sets canvas mathtext)", default={}, convert=Reader.params),
          )),
    Table("grid", "[grid]",
          "The figure's mosaic grid: it fills the canvas inside its margin; elements fill its areas with "
          "`cell = \"A\"`.", (
              Key("mosaic", "mosaic", "rows of area letters, `.` for an empty cell (`\"AAB\\nCDB\"`); every "
                                      "area is a rectangle", required=True),
              Key("columns", "tracks", "one per column: a length or a ratio of what is left",
                  shown=f"all `{TRACK_SHARE}`"),
              Key("rows", "tracks", "one per row: a length or a ratio of what is left", shown=f"all `{TRACK_SHARE}`"),
              Key("gutter", "gutter", "space between columns and rows", default="0pt"),
              Key("margin", "margin", "space between the canvas edge and the grid", default="0pt"),
          )),
    Table("grids", "[grids.NAME]",
          "A nested grid placed like any element (by `at`, `cell` or a relation) with a `size` unless a cell "
          "gives it; elements fill its areas with `cell = \"NAME.A\"`.", (
              Key("mosaic", "mosaic", "rows of area letters, `.` for an empty cell", required=True),
              Key("columns", "tracks", "one per column: a length or a ratio", shown=f"all `{TRACK_SHARE}`"),
              Key("rows", "tracks", "one per row: a length or a ratio", shown=f"all `{TRACK_SHARE}`"),
              Key("gutter", "gutter", "space between columns and rows", default="0pt"),
              *_placement("nw"),
              Key("size", "size", "the grid's box, unless a cell gives it"),
          ), rules=(*PLACED, GRID_SIZE)),
    Table("panel", "[panels.NAME]",
          "A panel: a matplotlib renderer drawn at its final size, an SVG file, a PDF page or a PNG/JPEG image.", (
              # first: each panel source's key and own keys (composer.layout.sources.panel_table)
              *_placement("nw"),
              Key("size", "size", "the panel's box; required unless a `cell` gives it"),
              Key("label", "panel_label", "panel label drawn at its top-left (`\"a\"`); with `[figure] labels`, "
                                          "replaces the panel's letter, and `false` skips the panel; two panels "
                                          "cannot carry one label"),
              Key("title", "template", "a title drawn after the label (`{fields}` allowed)", convert=Reader.string),
              Key("alt", "template", "alt text of the panel (`{fields}` allowed): the panel group's `<title>` "
                                     "and `aria-label` in the SVG, and a line of the figure's description "
                                     "(SVG `<desc>`, PDF `/Alt`, PNG `Description`)", convert=Reader.string),
              Key("params", "table", "keyword arguments for the renderer", default={}, convert=Reader.params),
              Key("data", "data_file", "a data file for this panel instead of the figure's"),
              Key("overlap", "bool", "the panel may overlap others (an inset)", default=False),
              Key("raster", "bool", "render panels: `true` rasterizes the panel's data artists at `raster_ppi` "
                                    "(text and axes stay vector); `false` never; unset: when its SVG is heavy "
                                    "(over 1 MB), and meshes and 3D surfaces always (seams)"),
              Key("empty", "bool", "render panels: `true` when the renderer may draw nothing (a blank panel); "
                                   "otherwise drawing nothing is an error", default=False),
              Key("aspect", "aspect", "locks width / height (`1.0`: square) of the panel's plot area (its axes) or, "
                                      "with `aspect_of = \"box\"`, of its box: the box becomes the largest box "
                                      "of that aspect inside its cell (or `size`), placed in a cell by `align` "
                                      "(`top`/`bottom` or `left`/`right` on the side with room, else centred), "
                                      "otherwise at its `anchor`. `\"auto\"` (image, svg and pdf panels): the "
                                      "file's own aspect (its pixels', its viewBox's, its page's), so the box is the "
                                      "picture drawn and the panel's label and anchors sit on it"),
              Key("aspect_of", "aspect_of", "what `aspect` locks: `\"plot\"` the plot area, `\"box\"` the box",
                  default="plot"),
          ), rules=(*PLACED, PANEL_SIZE)),  # first: exactly one source (composer.layout.sources.panel_table)
    Table("text", "[[text]]", "A block of canvas text, drawn as glyph outlines.", (
        Key("text", "template", "the text: `\\n` new lines, `$...$` mathtext, `{name:format}` fields, "
                                "`<b>`, `<i>`, `<color=NAME>` spans", required=True),
        Key("name", "name", "lets other elements refer to this text"),
        *_placement("center"),
        Key("beside", "panel_names", "place the text beside these panels instead: centred on their combined "
                                     "plot areas (the union of their axes as drawn; an SVG or image panel's "
                                     "box), `gap` outside them on `side` (a shared axis title). Without "
                                     "`gap`, it sits clear of the panels' texts on that side (tick labels, axis "
                                     "labels: their drawn extent), plus matplotlib's axis-label pad, 4 pt; a "
                                     "`gap` that puts it over them is an error giving the gap that clears them"),
        Key("side", "beside_side", "the side of the panels' plot areas a `beside` text sits on", default="left"),
        Key("rotate", "rotation", "turn the text by this many degrees, counter-clockwise (90: reads bottom to "
                                  "top, as a y-axis title); its box, placed and checked, is the turned box",
            default=0),
        Key("justify", "justify", "line alignment; in a cell also the side the text sits at",
            shown="from the anchor's side"),
        Key("width", "length", "wrap the text to this width"),
        *_text_style("", "the text"),
    ), rules=(BESIDE, RELATION_ALIGN, RELATION_ANCHOR, BESIDE_SIDE)),
    Table("shape", "[[shape]]",
          "A box (`rect`, `circle`, `ellipse`, placed like a panel), a polyline (`line`), or a `brace`/"
          "`bracket` from one point to another. A boxed shape with text and no size fits its text.", (
              Key("kind", "shape_kind", "what to draw", default=SHAPES.names()[0]),
              Key("name", "name", "lets other elements refer to this shape"),
              *_placement(None),
              Key("size", "size", "box size (`rect`, `ellipse`)", shown="fits the text"),
              Key("width", "length", "box width alone: the text wraps to it and the height follows"),
              Key("height", "length", "box height alone"),
              Key("radius", "length", "circle radius"),
              Key("corner", "length", "corner radius of a `rect`", default="0pt"),
              Key("points", "points", "`line`: 2 or more points; `brace`/`bracket`: from, to"),
              Key("side", "brace_side", "the side of travel a brace or bracket bulges to", default="left"),
              Key("depth", "length", "how far a brace or bracket bulges", default="4pt"),
              Key("fill", "color", "fill colour", default="none"),
              Key("stroke", "color", "outline colour", default="#000000"),
              Key("stroke_width", "length", "outline width", default="0.5pt"),
              Key("dash", "bool", "dashed outline", default=False),
              Key("opacity", "fraction", "opacity of the shape", default=1),
              Key("symbol", "symbol", "a symbol inside a `circle` or `ellipse` (`+` for a sum node)"),
              Key("text", "template", "text centred in a boxed shape"),
              Key("padding", "length", "space between the text and the box it fits", default="3pt"),
              *_text_style("text_", "the shape's text"),
          ), rules=(SHAPE_POINTS,)),
    Table("arrow", "[[arrow]]", "A connector between two points, with an optional label.", (
        Key("from", "point", "where it starts", required=True),
        Key("to", "point", "where it ends", required=True),
        Key("via", "waypoints", "waypoints, each hop routed the same way", default=[]),
        Key("route", "route", "`straight`, `-|` (horizontal, then vertical), `|-`, or `arc`", default="straight"),
        Key("bend", "angle", "how far an `arc` bends (positive: to the left of travel)", default=30),
        Key("color", "color", "line and head colour", default="#000000"),
        Key("width", "length", "line width", default="0.75pt"),
        Key("dash", "bool", "dashed line", default=False),
        Key("head", "head", "which ends get a head", default="end"),
        Key("head_style", "head_style", "head shape, drawn as a filled path", default="triangle"),
        Key("head_length", "length", "head length", default="4pt",
            note=f", or {HEAD_PER_WIDTH[0]:g} x width when larger"),
        Key("head_width", "length", "head width", default="3.2pt",
            note=f", or {HEAD_PER_WIDTH[1]:g} x width when larger"),
        Key("gap", "length", "space left free at both ends", default="1pt"),
        Key("label", "template", "text beside the route, never on its line or heads: its box is offset along the "
                                 "normal of the segment it names, 1.5 pt from the line's centre (at least 1 pt clear "
                                 "of the stroke), farther if another part of the connector is in the way"),
        Key("label_pos", "fraction", "where along the route the label sits", default=0.5),
        Key("label_side", "label_side", "`above`/`below` the segment at `label_pos` (on a slanted segment, the normal "
                                        "pointing up/down the page; on a vertical one, left/right; on an arc, the "
                                        "tangent's), or `left`/`right` of travel", default="above"),
        *_text_style("label_", "the label"),
    )),
    Table("align", "[[align]]",
          "Line up the plot areas (axes) of matplotlib panels, as R's patchwork does. A colorbar a panel draws "
          "itself is not part of its plot area: it keeps its gap to the edge it is beside.", (
              Key("panels", "panel_list", "the panels, 2 or more", required=True),
              Key("axis", "align_axis", "`y`: tops and bottoms within each row of the group; `x`: left and "
                                        "right edges within each column; `both`: both (a 2 x 2 grid, an L). A "
                                        "panel sharing no row (column) with the others is an error",
                  default="y"),
          )),
    Table("legend", "[[legend]]",
          "One legend for several matplotlib panels: the entries of their legends (or, for a panel that "
          "draws none, of its labelled artists), merged by label in order of appearance and drawn once by "
          "matplotlib at its natural size, in the figure's font and rcParams; those panels' own legends are "
          "not drawn. Placed like a panel (by `at`, `cell` or a relation), at its drawn size; in a cell, "
          "centred (the cell must hold it). One label "
          "drawn in two styles is an error naming both panels.", (
              Key("from", "panel_names", "the matplotlib panels whose legend entries it shows, in this order",
                  required=True),
              Key("name", "name", "lets other elements refer to this legend (annotations only: its size is "
                                  "known after the panels are drawn)"),
              *_placement("nw"),
              Key("ncols", "count", "columns of entries", default=1),
              Key("title", "string", "a title above the entries"),
              Key("frame", "bool", "draw matplotlib's legend frame (`legend.*` rcParams style it)", default=False),
          ), rules=PLACED),
    Table("colorbar", "[[colorbar]]",
          "One colorbar for several matplotlib panels that map values to colours alike: the same colormap, "
          "norm (class and parameters), limits and alpha, as each panel drew them (a difference is an error naming "
          "the panels and both values; the bar is drawn with that alpha, as pale as its maps; norms: Normalize, "
          "LogNorm, NoNorm, PowerNorm, AsinhNorm, TwoSlopeNorm, "
          "CenteredNorm, BoundaryNorm). Drawn by matplotlib at its box's size in the figure's font and "
          "rcParams: in a cell the bar runs along its panels' plot areas (cut to the cell), with a `size` the "
          "box's length, its end tick labels inside, and is 1/20 as thick "
          "(matplotlib's default colorbar aspect) or as the box leaves room for; a vertical bar sits at the "
          "box's left with ticks and label on its right, a horizontal one at its top with them below. It "
          "extends (triangles) at the ends any of the panels' own colorbars or contour sets extend. Placed "
          "like a panel (a cell, spanning the cells of its area, or `at`/a relation, with a `size` or sized "
          "from its panels); the panels keep any colorbar they draw themselves.", (
              Key("for", "panel_names", "the matplotlib panels it is the colour scale of", required=True),
              Key("name", "name", "lets other elements refer to this colorbar (annotations only: it is drawn "
                                  "after the panels)"),
              *_placement("nw"),
              Key("size", "size", "the colorbar's box, unless a `cell` gives it; without either, its bar is as "
                                  "long as its panels' plot areas span (one font size of room past each end for "
                                  "the end tick labels) and its box as wide as it draws"),
              Key("orientation", "orientation", "the bar's long side: `\"vertical\"` or `\"horizontal\"`",
                  default="vertical"),
              Key("label", "string", "the colorbar's label, beside the tick labels (`$...$` mathtext)"),
              Key("ticks", "numbers", "tick values, in data units; `[]`: none",
                  shown="matplotlib's locator for the norm (a filled contour set's levels)"),
          ), rules=(*PLACED, COLORBAR_SIZE)),
    Table("point_table", "point table",
          "A point written as a table: `{ at = \"state1.se\", offset = [\"4mm\", \"5mm\"] }`.", (
              Key("at", "point", "the point", required=True),
              Key("offset", "offset_pair", "added to it", default=["0pt", "0pt"]),
          )),
]

TABLES_BY_KIND: dict[str, Table] = {t.kind: t for t in TABLES}

#: the reader that converts the format's own defaults (its errors would name this file: a bug here)
_DEFAULTS = Reader(Path(__file__), "composer/layout/keys.py")


def default(kind: str, name: str) -> Any:
    """The default of key ``name`` of table ``kind``, converted as the model holds it.

    ``default("shape", "stroke_width")`` is ``0.5`` (pt: ``"0.5pt"``);
    ``default("shape", "fill")`` is None (``"none"``).

    Raises:
        KeyError: no such table or key, or the key has no default value
            (required, or computed from other keys).
    """
    key = TABLES_BY_KIND[kind].key(name)
    if key.default is UNSET:
        raise KeyError(f"{kind}.{name} has no default value")
    return key.value
