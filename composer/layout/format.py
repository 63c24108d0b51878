"""The layout format, defined once: every table and key with its value type, default, converter and meaning.

:data:`TABLES` is the one definition of what a layout file may say. Each
:class:`Key` names its value type (:data:`TYPES`: the JSON Schema fragment,
the way the reference shows it, and the :class:`Reader` method that converts
and checks a value of it), its default in the user's own notation
(``"0.5pt"``), and what it means. From it:

- the loader (:mod:`composer.layout.loader`) converts every key
  (:meth:`Section.get` takes the converter and the default from here) and
  finds unknown and misspelt keys;
- the typed model's defaults (:mod:`composer.layout.model`) are the
  converted defaults (:func:`default`): ``default("shape", "stroke_width")``
  is ``0.5`` (pt);
- :mod:`composer.layout.schema` writes the JSON Schema and the README
  reference, the written default derived from the same value.

Cross-key behaviour (exactly one placement, keys refused in one use of a
table, defaults computed from other keys such as an arrow's head length)
stays as code in the loader; its types, docs and base defaults are here.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from composer.errors import LayoutError, closest, did_you_mean
from composer.layout import presets
from composer.layout.presets import PRESETS
from composer.units import PT_PER_UNIT, to_pt

if TYPE_CHECKING:
    from composer.layout.model import Position, Track

#: a name composer accepts for a figure, a panel, an element, a grid or a style: a Python identifier in
#: ASCII (it names files, ids and anchors: ``build/NAME.svg``, ``panel-NAME``, ``NAME.e``)
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: compass anchors every element has; (fx, fy) as fractions of the box,
#: from its top-left corner, y down.
COMPASS: dict[str, tuple[float, float]] = {
    "nw": (0.0, 0.0), "n": (0.5, 0.0), "ne": (1.0, 0.0),
    "w": (0.0, 0.5), "center": (0.5, 0.5), "e": (1.0, 0.5),
    "sw": (0.0, 1.0), "s": (0.5, 1.0), "se": (1.0, 1.0),
}
#: what a user may write for a compass anchor (``east``, ``top-left``), for the "did you mean" of a typo
COMPASS_WORDS: dict[str, str] = {
    "north": "n", "south": "s", "east": "e", "west": "w", "top": "n", "bottom": "s", "right": "e", "left": "w",
    "northwest": "nw", "northeast": "ne", "southwest": "sw", "southeast": "se",
    "north-west": "nw", "north-east": "ne", "south-west": "sw", "south-east": "se",
    "top-left": "nw", "top-right": "ne", "bottom-left": "sw", "bottom-right": "se",
    "topleft": "nw", "topright": "ne", "bottomleft": "sw", "bottomright": "se",
    "centre": "center", "middle": "center", "c": "center", "mid": "center",
}

ROUTES = ("straight", "-|", "|-", "arc")
HEADS = ("end", "start", "both", "none")
HEAD_STYLES = ("triangle", "open", "stealth", "bar")
WEIGHTS = ("normal", "bold")
STYLES = ("normal", "italic")
ALIGNS = ("left", "center", "right")
SHAPE_KINDS = ("rect", "circle", "ellipse", "line", "brace", "bracket")
SYMBOLS = ("+", "x", ".", "*")
#: ``[figure] text``: glyphs as outlines everywhere, or canvas and panel text kept as ``<text>``.
TEXT_MODES = ("paths", "editable")
#: export engines, default first (:mod:`composer.stages.export`).
ENGINES = ("resvg", "cairosvg")
#: relative placements and, for each, the alignments it takes.
RELATIONS: dict[str, tuple[str, ...]] = {
    "right_of": ("top", "center", "bottom"), "left_of": ("top", "center", "bottom"),
    "below": ("left", "center", "right"), "above": ("left", "center", "right"),
}
#: sides that take a fraction: ``"box.e@0.25"`` is a quarter of the way down the east side.
SIDES = ("n", "s", "e", "w")
#: the side of travel a brace or bracket bulges to; the side of an arrow's route its label sits on.
BRACE_SIDES = ("left", "right")
LABEL_SIDES = ("left", "right", "above", "below")
#: a panel label's size above the figure's font size, pt, when ``label_size`` is not given
LABEL_SIZE_ABOVE_FONT_PT = 1.0
#: each grid column's (row's) share when ``columns`` (``rows``) is not given: all equal
TRACK_SHARE = 1
#: an arrow's head (length, width) per pt of line width, when larger than the head's default
HEAD_PER_WIDTH = (4.5, 3.6)
#: ``[figure] labels``: the styles of automatic panel labels, shown as the first label of each
#: (:func:`composer.layout.presets.auto_label` writes the n-th).
LABEL_STYLES = ("a", "A", "(a)", "a)", "i", "(i)", "1")
#: ``[figure] label_at``: a panel label's corner at the panel's box, or at its plot area (axes).
LABEL_AT = ("box", "plot")
#: ``[[text]] side``: where a text ``beside`` panels sits, outside their combined plot areas.
BESIDE_SIDES = ("left", "right", "above", "below")
#: ``[[text]] rotate``: the largest turn, degrees either way (a full turn is the text unturned).
MAX_ROTATE_DEG = 360.0
#: the largest arc bend, degrees (:meth:`_Reader.degrees`)
MAX_BEND_DEG = 80
#: ``[panels.NAME] aspect_of``: what ``aspect`` (width / height) locks: the plot area (axes) or the box.
ASPECT_OF = ("plot", "box")
#: ``[[colorbar]] orientation``: the bar's long side, default first.
ORIENTATIONS = ("vertical", "horizontal")
#: ``[[align]] axis``: plot-area edges lined up.
ALIGN_AXES = ("x", "y", "both")
#: every ``align`` of any relation.
RELATION_ALIGNS = tuple(dict.fromkeys(a for aligns in RELATIONS.values() for a in aligns))
#: largest grid track ratio ("2fr"); a million to one is beyond any layout, and larger values overflow
#: the sum of the ratios to infinity.
MAX_RATIO = 1e6
#: ``#rrggbb`` as :func:`matplotlib.colors.to_hex` writes it: such a colour converts to itself.
_HEX = re.compile(r"^#[0-9a-f]{6}$")
_RENDER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_][A-Za-z0-9_]*)$")


class Reader:
    """The value converters, bound to one layout file (for error messages and relative paths).

    Every converter takes ``(value, key)``: the value as written and its key
    path, and returns the value in the model's terms (lengths in pt, colours
    ``#rrggbb``), or raises :class:`LayoutError` naming the file, the key path,
    the bad value and what is valid. :data:`TYPES` names one per value type.
    """

    def __init__(self, path: Path, display: str, files: list[Path] | None = None):
        self.path, self.file = path, display
        #: every file resolved by file_path (shared with a style file's reader)
        self.files: list[Path] = files if files is not None else []
        self.colors: dict[str, str] = {}
        self.classes: dict[str, dict[str, Any]] = {}
        self.rcparams: dict[str, Any] = {}

    def err(self, key: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=key)

    def section(self, raw: Any, key: str, kind: str | None) -> Section:
        """``raw`` read as a table of kind ``kind`` (a :data:`TABLES_BY_KIND` kind) at key path ``key``."""
        return Section(raw, key, self, kind)

    def length(self, value: Any, key: str) -> float:
        return to_pt(value, file=self.file, key=key)

    def words(self, value: Any, key: str) -> str:
        """A text to draw: a string with something to see (an empty one would be drawn as nothing)."""
        text = self.string(value, key)
        if not text.strip():
            raise self.err(key, f"{value!r} is empty; give the text, or remove the key")
        return text

    def text_size(self, value: Any, key: str) -> float:
        """A font size: a length above zero (0 pt text is invisible, never what was meant)."""
        size = to_pt(value, file=self.file, key=key)
        if size <= 0:
            raise self.err(key, f"{value!r} is zero; text needs a size above 0 pt")
        return size

    def offset(self, value: Any, key: str) -> float:
        return to_pt(value, file=self.file, key=key, allow_negative=True)

    def pair(self, value: Any, key: str, *, signed: bool = False) -> tuple[float, float]:
        if not isinstance(value, list) or len(value) != 2:
            raise self.err(key, f"{value!r} is not a pair; write [\"x\", \"y\"] with units, e.g. [\"4mm\", \"12mm\"]")
        conv = self.offset if signed else self.length
        return conv(value[0], f"{key}[0]"), conv(value[1], f"{key}[1]")

    def signed_pair(self, value: Any, key: str) -> tuple[float, float]:
        """``[dx, dy]``: two signed lengths."""
        return self.pair(value, key, signed=True)

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str):
            raise self.err(key, f"{value!r} is not a string")
        return value

    def name(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not NAME.match(value):
            raise self.err(key, f"{value!r} is not a valid name; use letters, digits and _, not starting with a digit")
        return value

    def choice(self, choices: tuple[str, ...]) -> Callable[[Any, str], str]:
        def convert(value: Any, key: str) -> str:
            if value not in choices:
                raise self.err(key, f"{value!r} is not a valid value; supported values are "
                                    + ", ".join(repr(c) for c in choices))
            return value
        return convert

    def page_number(self, value: Any, key: str) -> int:
        """A 1-based page number: an integer >= 1."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.err(key, f"{value!r} is not a page number; give an integer from 1 (the first page)")
        return value

    def count(self, value: Any, key: str) -> int:
        """A count of things: an integer >= 1 (``ncols = 2``)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.err(key, f"{value!r} is not a count; give an integer from 1")
        return value

    def positive_number(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise self.err(key, f"{value!r} is not a positive number")
        return float(value)

    def panel_label(self, value: Any, key: str) -> str | bool:
        """A panel's own label (a string with something to see), or ``false``: no label."""
        if value is False:
            return False
        if value is True:
            raise self.err(key, "true is not a label; write the label (\"a\"), or false for none")
        return self.words(value, key)

    def panel_order(self, value: Any, key: str) -> tuple[str, ...]:
        """A list of panel names, none twice (checked against the figure's panels by the loader)."""
        if not isinstance(value, list) or not value:
            raise self.err(key, f"{value!r} is not a list of panel names; write [\"b\", \"a\", ...]")
        names = tuple(self.name(v, f"{key}[{i}]") for i, v in enumerate(value))
        twice = [n for i, n in enumerate(names) if n in names[:i]]
        if twice:
            raise self.err(key, f"{twice[0]!r} is listed twice; list each panel once")
        return names

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.err(key, f"{value!r} is not true or false")
        return value

    def fraction(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise self.err(key, f"{value!r} is not a number from 0 to 1")
        return float(value)

    def degrees(self, value: Any, key: str) -> float:
        """An arc's bend: degrees from -80 to 80 (the arc is a quadratic Bezier whose control point sits
        tan(bend) half-chords off the chord: 80 degrees is 5.7 half-chords; at 90 it is at infinity)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -MAX_BEND_DEG <= value <= MAX_BEND_DEG:
            raise self.err(key, f"{value!r} is not an angle in degrees from -{MAX_BEND_DEG} to {MAX_BEND_DEG} "
                                "(how far the arc leaves its chord; 0 is straight)")
        return float(value)

    def rotation(self, value: Any, key: str) -> float:
        """A text's turn: degrees from -360 to 360, counter-clockwise positive."""
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not -MAX_ROTATE_DEG <= value <= MAX_ROTATE_DEG:
            raise self.err(key, f"{value!r} is not an angle in degrees from -360 to 360 (90: reads bottom to top)")
        return float(value)

    def panel_names(self, value: Any, key: str) -> tuple[str, ...]:
        """One or more panel names (checked against the figure's panels by the loader)."""
        if not isinstance(value, list) or not value:
            raise self.err(key, f"{value!r} is not a list of panel names; write [\"a\", \"c\"]")
        return tuple(self.name(v, f"{key}[{i}]") for i, v in enumerate(value))

    def numbers(self, value: Any, key: str) -> tuple[float, ...]:
        """A list of finite numbers, each once, may be empty (``ticks = [0, 0.5, 1]``)."""
        if not isinstance(value, list):
            raise self.err(key, f"{value!r} is not a list of numbers; write [0, 0.5, 1] (or [] for none)")
        out = []
        for i, v in enumerate(value):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not abs(v) < float("inf"):
                raise self.err(f"{key}[{i}]", f"{v!r} is not a finite number")
            if float(v) in out:
                raise self.err(f"{key}[{i}]", f"{v!r} is listed twice; list each value once")
            out.append(float(v))
        return tuple(out)

    def color(self, value: Any, key: str) -> str | None:
        """A colour matplotlib understands -> ``#rrggbb`` (or None for "none")."""
        if value == "none":
            return None
        if isinstance(value, str) and value in self.colors:
            return self.colors[value]
        if isinstance(value, str) and _HEX.match(value):
            return value  # what to_hex(to_rgba(value)) gives, without importing matplotlib
        from matplotlib.colors import to_hex, to_rgba
        try:
            rgba = to_rgba(value)
        except (ValueError, TypeError):
            palette = f", a palette name ({', '.join(self.colors)})" if self.colors else ""
            hint = did_you_mean(value, self.colors) if isinstance(value, str) else ""
            raise self.err(key, f"{value!r} is not a colour{hint}; "
                                f"use a name (\"black\"), \"#rrggbb\", \"none\"{palette}") from None
        if rgba[3] != 1.0:
            raise self.err(key, f"{value!r} has transparency; give the colour opaque and use an opacity key")
        return to_hex(rgba)

    def file_path(self, value: Any, key: str, suffixes: tuple[str, ...]) -> Path:
        """A path relative to the layout file; must exist and have a known suffix."""
        text = self.string(value, key)
        try:
            path = (self.path.parent / text).resolve()
            found = path.is_file()
        except (OSError, ValueError) as exc:  # a NUL byte, a name too long, a symlink loop
            raise self.err(key, f"{text!r} is not a usable path: {exc}") from None
        if path.suffix.lower() not in suffixes:
            raise self.err(key, f"{text!r} has an unsupported type; supported: {', '.join(suffixes)}")
        if not found:
            raise self.err(key, f"{text!r} not found (looked for {path})")
        self.files.append(path)
        return path

    def params(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.err(key, f"{value!r} is not a table; write {{ name = value }}")
        return dict(value)

    def renderer(self, value: Any, key: str) -> str:
        """``"module:function"``: a function in ``panels/module.py``."""
        source = self.string(value, key)
        if not _RENDER.match(source):
            raise self.err(key, f"{source!r} is not \"module:function\" (a function in panels/module.py)")
        return source

    def canvas_width(self, value: Any, key: str) -> str:
        """The canvas width as written, a journal's width (``"nature.double"``) replaced by its length."""
        if not isinstance(value, str):
            to_pt(value, file=self.file, key=key)  # raises: "120 is not a length; write a string with a unit"
        text = self.string(value, key)
        if presets.is_width_name(text):
            return presets.named_width(text, file=self.file, key=key)
        return text

    def preset(self, value: Any, key: str) -> presets.Preset:
        return presets.get_preset(value, file=self.file, key=key)

    def name_pairs(self, value: Any, key: str) -> tuple[tuple[str, str], ...]:
        """``[["a", "inset"], ...]`` -> pairs of element names (checked against the figure by the check)."""
        if not isinstance(value, list):
            raise self.err(key, f"{value!r} is not a list of name pairs; write [[\"a\", \"inset\"]]")
        pairs = []
        for i, pair in enumerate(value):
            if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(n, str) for n in pair)):
                raise self.err(f"{key}[{i}]", f"{pair!r} is not a pair of element names; write [\"a\", \"inset\"]")
            pairs.append((pair[0], pair[1]))
        return tuple(pairs)

    def panel_rules(self, value: Any, key: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """``{a = ["outside-panel"], ...}`` -> (panel name, rule names) pairs, in the order written
        (the names checked against the figure's panels and the check's rules by the check)."""
        if not isinstance(value, dict):
            raise self.err(key, f"{value!r} is not a table of panel names; write {{a = [\"outside-panel\"]}}")
        out = []
        for panel, rules in value.items():
            if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
                raise self.err(f"{key}.{panel}", f"{rules!r} is not a list of rule names; write [\"outside-panel\"]")
            out.append((str(panel), tuple(rules)))
        return tuple(out)

    def gutter(self, value: Any, key: str) -> tuple[float, float]:
        """One length for both, or ``[between columns, between rows]``."""
        return self.pair(value, key) if isinstance(value, list) else (self.length(value, key),) * 2

    def margin(self, value: Any, key: str) -> tuple[float, float, float, float]:
        """One length, or ``[top, right, bottom, left]``."""
        if isinstance(value, str):
            m = self.length(value, key)
            return m, m, m, m
        if isinstance(value, list) and len(value) == 4:
            return tuple(self.length(v, f"{key}[{i}]") for i, v in enumerate(value))  # type: ignore[return-value]
        raise self.err(key, f"{value!r}: a margin is one length or [top, right, bottom, left]")

    def panel_list(self, value: Any, key: str) -> tuple[str, ...]:
        if not isinstance(value, list) or len(value) < 2:
            raise self.err(key, f"{value!r}: list two or more panel names")
        return tuple(self.name(p, f"{key}[{i}]") for i, p in enumerate(value))

    def position(self, value: Any, key: str, offset: tuple[float, float] = (0.0, 0.0)) -> Position:
        """``["x", "y"]`` or ``"element.anchor"``; anchor a compass point, ``side@fraction``
        (``"e@0.25"``) or a data anchor name (checked after rendering)."""
        from composer.layout.model import Position

        dx, dy = offset
        if isinstance(value, dict):  # { at = ..., offset = [...] }: a point with its own offset
            t = self.section(value, key, "point_table")
            own = t.get("offset")
            pos = t.get("at", lambda v, k: self.position(v, k, (dx + own[0], dy + own[1])))
            t.done()
            return pos
        if isinstance(value, str) and "#" in value:
            return self._svg_element_position(value, key, dx, dy)
        if isinstance(value, str):
            element, dot, anchor = value.partition(".")
            if not dot or not NAME.match(element) or not anchor:
                raise self.err(key, f"{value!r} is not a point; write [\"x\", \"y\"] or \"element.anchor\" "
                                    f"with anchor one of {', '.join(COMPASS)}, side@fraction like e@0.25, "
                                    "or a data anchor")
            side, at, fraction = anchor.partition("@")
            if at:
                try:
                    ok = side in SIDES and 0.0 <= float(fraction) <= 1.0
                except ValueError:
                    ok = False
                if not ok:
                    raise self.err(key, f"{value!r}: a point along a side is side@fraction with side one of "
                                        f"{', '.join(SIDES)} and fraction from 0 to 1, e.g. \"{element}.e@0.25\"")
            return Position(ref=(element, anchor), dx_pt=dx, dy_pt=dy, key=key)
        x, y = self.pair(value, key, signed=True)
        return Position(x_pt=x, y_pt=y, dx_pt=dx, dy_pt=dy, key=key)

    def _svg_element_position(self, value: str, key: str, dx: float, dy: float) -> Position:
        """``"panel#id"`` (the centre of element ``id`` of an imported SVG panel) or
        ``"panel#id.anchor"``; ``ref`` becomes ``("panel#id", anchor)``, the id checked against
        the file when it is read (:mod:`composer.stages.geometry`)."""
        from composer.layout.model import Position

        panel, _, rest = value.partition("#")
        ident, anchor = rest, "center"
        m = re.fullmatch(rf"(.+)\.({'|'.join(COMPASS)}|[{''.join(SIDES)}]@[^.@]*(?:\.[^.@]*)?)", rest)
        if m:
            ident, anchor = m.groups()
            side, at, fraction = anchor.partition("@")
            if at:
                try:
                    ok = 0.0 <= float(fraction) <= 1.0
                except ValueError:
                    ok = False
                if not ok:
                    raise self.err(key, f"{value!r}: a point along a side is side@fraction with fraction from "
                                        f"0 to 1, e.g. \"{panel}#{ident}.e@0.25\"")
        if not NAME.match(panel) or not ident or any(c.isspace() or c in "#" for c in ident):
            raise self.err(key, f"{value!r} is not an element of an imported SVG; write \"panel#id\" or "
                                f"\"panel#id.anchor\" with anchor one of {', '.join(COMPASS)} or side@fraction")
        return Position(ref=(f"{panel}#{ident}", anchor), dx_pt=dx, dy_pt=dy, key=key)

    def points(self, value: Any, key: str) -> tuple[Position, ...]:
        if not isinstance(value, list) or not value:
            raise self.err(key, f"{value!r} is not a list of points")
        return tuple(self.position(v, f"{key}[{i}]") for i, v in enumerate(value))

    def waypoints(self, value: Any, key: str) -> tuple[Position, ...]:
        """A list of points that may be empty (``via = []``: no waypoints)."""
        return () if value == [] else self.points(value, key)

    def track(self, value: Any, key: str) -> Track:
        """A grid column/row: a length string (``"30mm"``) or a ratio (``1``, ``2``, ``"1fr"``)."""
        from composer.layout.model import Track

        if isinstance(value, str) and value.strip().endswith("fr"):
            try:
                value = float(value.strip()[:-2])
            except ValueError:
                raise self.err(key, f"{value!r} is not a ratio like \"2fr\"") from None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if not 0 < value <= MAX_RATIO:  # also refuses nan and inf, which would make every cell nan
                raise self.err(key, f"{value!r}: a ratio must be positive and at most {MAX_RATIO:g}")
            return Track(ratio=float(value))
        return Track(length_pt=self.length(value, key))

    def tracks(self, count: int) -> Callable[[Any, str], tuple[Track, ...]]:
        """A grid's ``columns`` (``rows``): exactly ``count`` tracks, one per mosaic column (row)."""
        def convert(value: Any, key: str) -> tuple[Track, ...]:
            if not isinstance(value, list) or len(value) != count:
                raise self.err(key, f"{value!r}: the mosaic has {count} of these; give {count} lengths or ratios")
            return tuple(self.track(v, f"{key}[{i}]") for i, v in enumerate(value))
        return convert


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
#: ``Section.get(name, default=REQUIRED)``: this use of the table needs the key.
REQUIRED: Any = object()
_FROM_TABLE: Any = object()


class Section:
    """A table of a layout being read: tracks its key path and which keys were read.

    ``get(name)`` converts a key with its type's converter and falls back to
    its default, both from the table of kind ``kind`` in :data:`TABLES_BY_KIND`.
    ``done()`` refuses keys the table does not list, listing the valid ones;
    ``refuse()`` names keys of this table kind that do nothing in this use
    of it (``radius`` on a rect), so no key is accepted and ignored.
    """

    def __init__(self, raw: Any, key: str, reader: Reader, kind: str | None = None):
        if not isinstance(raw, dict):
            raise LayoutError(f"expected a table, got {raw!r}", file=reader.file, key=key or None)
        self.raw, self.key, self.file, self.reader, self.kind = raw, key, reader.file, reader, kind
        self.asked: list[str] = []
        #: keys of this table kind refused here because they would do nothing
        self.refused: list[str] = []

    def path(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def error(self, name: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=self.path(name))

    def spec(self, name: str) -> Key:
        """The :class:`Key` ``name`` of this table's kind (KeyError if the format has none: a bug)."""
        if self.kind is None:
            raise KeyError(f"{self.key!r} is read without a table kind")
        return TABLES_BY_KIND[self.kind].key(name)

    def default(self, name: str) -> Any:
        """The format's default of key ``name``, converted (a fresh copy of a table or list); None: none."""
        value = self.spec(name).value
        return copy.copy(value) if isinstance(value, (dict, list)) else value

    def get(self, name: str, convert: Callable[[Any, str], Any] | None = _FROM_TABLE,
            default: Any = _FROM_TABLE) -> Any:
        """The value of key ``name``, converted; its default when absent.

        Args:
            convert: the key's converter (default: its type's, from the format);
                an explicit one when the conversion needs other keys (a grid's
                column count); None: the value as written.
            default: the value when absent (default: the format's converted
                default, None when it has none); :data:`REQUIRED`: the key is
                required here. A computed default (an arrow's head length from
                its width) is passed by the reader.

        Raises:
            LayoutError: the key is required and missing (naming a close misspelling
                among the given keys), or its value does not convert.
        """
        self.asked.append(name)
        if name not in self.raw:
            if default is _FROM_TABLE:
                default = REQUIRED if self.spec(name).required else self.default(name)
            if default is REQUIRED:
                raise LayoutError(f"required key is missing{self.misspelt([name])}", file=self.file,
                                  key=self.path(name))
            return default
        if convert is _FROM_TABLE:
            convert = self.spec(name).converter(self.reader)
        value = self.raw[name]
        return convert(value, self.path(name)) if convert else value

    def misspelt(self, names: Iterable[str]) -> str:
        """`` (is 'hieght' a misspelling of 'height'?)`` when a key nobody asked for is close to one of
        ``names``, else ``""``: a typo then explains a missing key."""
        names = list(names)
        known = set().union(*(table.key_names() for table in TABLES))  # a real key is not a typo
        for given in self.raw:
            if given in self.asked or given in names or given in known:
                continue
            close = closest(given, names)
            if close is not None:
                return f" (is {given!r} a misspelling of {close!r}?)"
        return ""

    def refuse(self, names: Iterable[str], why: str) -> None:
        """Raise LayoutError if any of ``names`` is given: ``why`` says what the element takes instead."""
        for name in names:
            self.refused.append(name)
            if name in self.raw:
                raise self.error(name, f"{name!r} does nothing here: {why}")

    def done(self) -> dict[str, Any]:
        """Refuse the keys nobody asked for; return the format's keys the reader did not ask for by name.

        A key given that the table lists and the reader neither read nor
        refused is read here (converted) and returned by name: a key added to
        the format reaches the reader without a line of its own. The drift
        test (``tests/layout/test_schema.py``) checks that every key the
        repository's format lists is read or refused by name.

        Raises:
            LayoutError: a key the table does not list (with a close valid key, and every valid key).
        """
        rest: dict[str, Any] = {}
        if self.kind is not None:
            for key in TABLES_BY_KIND[self.kind].keys:
                if key.name in self.raw and key.name not in self.asked and key.name not in self.refused:
                    rest[key.name] = self.get(key.name)
        unknown = sorted(set(self.raw) - set(self.asked))
        if unknown:
            valid = list(self.asked)  # read here, in reading order; then the format's others that are not refused
            if self.kind is not None:
                valid += [k.name for k in TABLES_BY_KIND[self.kind].keys if k.name not in valid + self.refused]
            hint = did_you_mean(unknown[0], valid + self.refused)  # a refused key too: its own error says why
            raise self.error(unknown[0], f"unknown key {unknown[0]!r}{hint}; valid keys are {', '.join(valid)}")
        return rest


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
    ValueType("engine", "choice", _choice(ENGINES), _choice_schema(ENGINES)),
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
    ValueType("angle", f"degrees, -{MAX_BEND_DEG} to {MAX_BEND_DEG}", Reader.degrees,
              {"type": "number", "minimum": -MAX_BEND_DEG, "maximum": MAX_BEND_DEG}),
    ValueType("renderer", "`\"module:function\"`", Reader.renderer, {
        "type": "string", "pattern": rf"^{_IDENT}:{_IDENT}$",
        "description": "\"module:function\": a function in panels/module.py"}),
    ValueType("svg_file", "path to `.svg`", _file(".svg"), {
        "type": "string", "pattern": r"(?i)\.svg$", "description": "an SVG file, relative to the layout file"}),
    ValueType("pdf_file", "path to `.pdf`", _file(".pdf"), {
        "type": "string", "pattern": r"(?i)\.pdf$", "description": "a PDF file, relative to the layout file"}),
    ValueType("page", "integer >= 1", Reader.page_number, {"type": "integer", "minimum": 1}),
    ValueType("count", "integer >= 1", Reader.count, {"type": "integer", "minimum": 1}),
    ValueType("image_file", "path to `.png`/`.jpg`", _file(".png", ".jpg", ".jpeg"), {
        "type": "string", "pattern": r"(?i)\.(?:png|jpe?g)$",
        "description": "a PNG or JPEG file, relative to the layout file"}),
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
    ValueType("shape_kind", "choice", _choice(SHAPE_KINDS), _choice_schema(SHAPE_KINDS)),
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
        rules: extra JSON Schema constraints (exactly-one-of, if/then).
    """

    kind: str
    written: str
    doc: str
    keys: tuple[Key, ...]
    rules: tuple[dict[str, Any], ...] = ()

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

_RELATION_KEYS = tuple(RELATIONS)
PLACEMENT_KEYS = ("at", "cell", *_RELATION_KEYS)


#: the anchor of a shape's own box, by kind, when ``anchor`` is not given
SHAPE_ANCHORS = {"rect": "nw", "circle": "center", "ellipse": "center"}


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


def _exactly_one(names: tuple[str, ...]) -> dict[str, Any]:
    return {"oneOf": [{"required": [n]} for n in names]}


def _placement_rules() -> tuple[dict[str, Any], ...]:
    beside = ("right_of", "left_of")
    stacked = ("above", "below")
    def any_of(names: tuple[str, ...]) -> dict[str, Any]:
        return {"anyOf": [{"required": [n]} for n in names]}

    return (
        {"if": any_of(beside), "then": {"properties": {"align": _choice_schema(RELATIONS["right_of"])}}},
        {"if": any_of(stacked), "then": {"properties": {"align": _choice_schema(RELATIONS["below"])}}},
        {"if": any_of(_RELATION_KEYS), "then": {"not": {"required": ["anchor"]}}},
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
    )


# ─── the tables ────────────────────────────────────────────────────────────

TABLES: tuple[Table, ...] = (
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
        Key("text", "text_mode", "`\"paths\"`: every glyph an outline, the same in every viewer; `\"editable\"`: "
                                 "`<text>` with a font stack for Inkscape and Illustrator (mathtext stays outlines)",
            default="paths"),
        Key("engine", "engine", "the engine that draws PDF and PNG: `\"resvg\"` (resvg and svg2pdf, nothing to "
                                "install) or `\"cairosvg\"` (needs the cairosvg package and the cairo library); "
                                "`compose --engine` overrides it", default="resvg"),
        Key("preset", "preset", "a journal's print limits and panel-label style (`compose check`)"),
    )),
    Table("check", "[check]", "Limits for `compose check`, over composer's defaults and the preset's.", (
        Key("min_font_size", "length", "smallest text size at final size", default="5pt", note=" or the preset's"),
        Key("min_line_width", "length", "thinnest stroke at final size", default="0.25pt"),
        Key("min_ppi", "positive", "pixels per inch of every embedded raster at final size", default=300,
            note=" or the preset's"),
        Key("cvd_min_distance", "positive", "smallest CAM02-UCS distance between palette colours under "
                                            "simulated colour-vision deficiency", default=10),
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
          ), rules=(_exactly_one(PLACEMENT_KEYS), *_placement_rules(),
                    {"if": {"not": {"required": ["cell"]}}, "then": {"required": ["size"]}})),
    Table("panel", "[panels.NAME]",
          "A panel: a matplotlib renderer drawn at its final size, an SVG file, a PDF page or a PNG/JPEG image.", (
              Key("render", "renderer", "`\"module:function\"`: `function(fig, data, **params)` in "
                                        "`panels/module.py`"),
              Key("svg", "svg_file", "an SVG file, fitted in the box keeping its aspect"),
              Key("image", "image_file", "a PNG or JPEG, fitted keeping its aspect and inlined"),
              Key("pdf", "pdf_file", "a PDF page (made by R, Illustrator...), converted to vector SVG (glyphs as "
                                     "outlines) and fitted like `svg`; needs `pdftocairo` (poppler-utils)"),
              Key("page", "page", "pdf panels: the page to show, 1-based", default=1),
              *_placement("nw"),
              Key("size", "size", "the panel's box; required unless a `cell` gives it"),
              Key("label", "panel_label", "panel label drawn at its top-left (`\"a\"`); with `[figure] labels`, "
                                          "replaces the panel's letter, and `false` skips the panel"),
              Key("title", "template", "a title drawn after the label (`{fields}` allowed)", convert=Reader.string),
              Key("params", "table", "keyword arguments for the renderer", default={}, convert=Reader.params),
              Key("data", "data_file", "a data file for this panel instead of the figure's"),
              Key("overlap", "bool", "the panel may overlap others (an inset)", default=False),
              Key("raster", "bool", "render panels: `true` rasterizes the panel's data artists at `raster_ppi` "
                                    "(text and axes stay vector); `false` never; unset: when its SVG is heavy "
                                    "(over 1 MB), and meshes and 3D surfaces always (seams)"),
              Key("empty", "bool", "render panels: `true` when the renderer may draw nothing (a blank panel); "
                                   "otherwise drawing nothing is an error", default=False),
              Key("aspect", "positive", "locks width / height (`1.0`: square) of the panel's plot area (its axes) or, "
                                        "with `aspect_of = \"box\"`, of its box: the box becomes the largest box "
                                        "of that aspect inside its cell (or `size`), placed in a cell by `align` "
                                        "(`top`/`bottom` or `left`/`right` on the side with room, else centred), "
                                        "otherwise at its `anchor`"),
              Key("aspect_of", "aspect_of", "what `aspect` locks: `\"plot\"` the plot area, `\"box\"` the box",
                  default="plot"),
          ), rules=(
              _exactly_one(("render", "svg", "image", "pdf")),
              _exactly_one(PLACEMENT_KEYS),
              *_placement_rules(),
              {"if": {"required": ["cell"]}, "then": {"not": {"required": ["size"]}},
               "else": {"required": ["size"]}},
          )),
    Table("text", "[[text]]", "A block of canvas text, drawn as glyph outlines.", (
        Key("text", "template", "the text: `\\n` new lines, `$...$` mathtext, `{name:format}` fields, "
                                "`<b>`, `<i>`, `<color=NAME>` spans", required=True),
        Key("name", "name", "lets other elements refer to this text"),
        *_placement("center"),
        Key("beside", "panel_names", "place the text beside these panels instead: centred on their combined "
                                     "plot areas (the union of their axes as drawn; an SVG or image panel's "
                                     "box), `gap` outside them on `side` (a shared axis title)"),
        Key("side", "beside_side", "the side of the panels' plot areas a `beside` text sits on", default="left"),
        Key("rotate", "rotation", "turn the text by this many degrees, counter-clockwise (90: reads bottom to "
                                  "top, as a y-axis title); its box, placed and checked, is the turned box",
            default=0),
        Key("justify", "justify", "line alignment; in a cell also the side the text sits at",
            shown="from the anchor's side"),
        Key("width", "length", "wrap the text to this width"),
        *_text_style("", "the text"),
    ), rules=(_exactly_one((*PLACEMENT_KEYS, "beside")), *_placement_rules(),
              {"if": {"required": ["beside"]}, "then": {"not": {"anyOf": [{"required": ["anchor"]},
                                                                          {"required": ["align"]}]}},
               "else": {"not": {"required": ["side"]}}})),
    Table("shape", "[[shape]]",
          "A box (`rect`, `circle`, `ellipse`, placed like a panel), a polyline (`line`), or a `brace`/"
          "`bracket` from one point to another. A boxed shape with text and no size fits its text.", (
              Key("kind", "shape_kind", "what to draw", default="rect"),
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
          ), rules=({
              "if": {"required": ["kind"], "properties": {"kind": {"enum": ["line", "brace", "bracket"]}}},
              "then": {"required": ["points"]},
              "else": {"allOf": [_exactly_one(PLACEMENT_KEYS), *_placement_rules()]},
          },)),
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
          ), rules=(_exactly_one(PLACEMENT_KEYS), *_placement_rules())),
    Table("colorbar", "[[colorbar]]",
          "One colorbar for several matplotlib panels that map values to colours alike: the same colormap, "
          "norm (class and parameters) and limits, as each panel drew them (a difference is an error naming "
          "the panel and both values; norms: Normalize, LogNorm, NoNorm, PowerNorm, AsinhNorm, TwoSlopeNorm, "
          "CenteredNorm, BoundaryNorm). Drawn by matplotlib at its box's size in the figure's font and "
          "rcParams: the bar runs the box's length, its end tick labels inside, and is 1/20 as thick "
          "(matplotlib's default colorbar aspect) or as the box leaves room for; a vertical bar sits at the "
          "box's left with ticks and label on its right, a horizontal one at its top with them below. It "
          "extends (triangles) at the ends any of the panels' own colorbars or contour sets extend. Placed "
          "like a panel (a cell, spanning the cells of its area, or `at`/a relation with a `size`); the "
          "panels keep any colorbar they draw themselves.", (
              Key("for", "panel_names", "the matplotlib panels it is the colour scale of", required=True),
              Key("name", "name", "lets other elements refer to this colorbar (annotations only: it is drawn "
                                  "after the panels)"),
              *_placement("nw"),
              Key("size", "size", "the colorbar's box; required unless a `cell` gives it"),
              Key("orientation", "orientation", "the bar's long side: `\"vertical\"` or `\"horizontal\"`",
                  default="vertical"),
              Key("label", "string", "the colorbar's label, beside the tick labels (`$...$` mathtext)"),
              Key("ticks", "numbers", "tick values, in data units; `[]`: none",
                  shown="matplotlib's locator for the norm (a filled contour set's levels)"),
          ), rules=(_exactly_one(PLACEMENT_KEYS), *_placement_rules(),
                    {"if": {"required": ["cell"]}, "then": {"not": {"required": ["size"]}},
                     "else": {"required": ["size"]}})),
    Table("point_table", "point table",
          "A point written as a table: `{ at = \"state1.se\", offset = [\"4mm\", \"5mm\"] }`.", (
              Key("at", "point", "the point", required=True),
              Key("offset", "offset_pair", "added to it", default=["0pt", "0pt"]),
          )),
)

TABLES_BY_KIND: dict[str, Table] = {t.kind: t for t in TABLES}

#: the reader that converts the format's own defaults (its errors would name this file: a bug here)
_DEFAULTS = Reader(Path(__file__), "composer/layout/format.py")


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
