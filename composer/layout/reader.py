"""The layout's values converted and checked: :class:`Reader`, one converter per value type.

Each converter takes a value as written and its key path and returns it in the model's terms
(lengths in pt, colours ``#rrggbb``, points as :class:`composer.layout.values.Position`, grid tracks
as :class:`composer.layout.values.Track`), or raises a :class:`LayoutError` naming the file, the key
path, the bad value and what is valid. The key table (:mod:`composer.layout.keys`) names the
converter of each value type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from composer.errors import LayoutError, did_you_mean
from composer.layout import presets
from composer.layout.values import Position, Track
from composer.layout.vocabulary import (
    COMPASS,
    MAX_BEND_DEG,
    MAX_RATIO,
    MAX_ROTATE_DEG,
    NAME,
    SIDES,
)
from composer.units import to_pt


class Table(Protocol):
    """A table inside a value, as :meth:`Reader.section` gives it (:class:`composer.layout.section.Section`)."""

    def get(self, name: str, convert: Callable[[Any, str], Any] | None = ..., default: Any = ...) -> Any:
        """The value of key ``name``, converted; its default when absent."""

    def done(self) -> dict[str, Any]:
        """Refuse the keys nobody asked for."""

#: ``#rrggbb`` as :func:`matplotlib.colors.to_hex` writes it: such a colour converts to itself.
_HEX = re.compile(r"^#[0-9a-f]{6}$")


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
        #: key path (``styles.NAME.KEY``, ``rcparams.KEY``) -> the file that wrote the value in force, for a
        #: value a shared style file gave (a layout's own value overrides it): its errors name that file
        self.origins: dict[str, str] = {}

    def err(self, key: str, message: str) -> LayoutError:
        return LayoutError(message, file=self.file, key=key)

    def section(self, raw: Any, key: str, kind: str | None) -> Table:
        """``raw`` read as a table of kind ``kind`` at key path ``key``: a value written as a table (a point
        table, ``{ at = ..., offset = [...] }``) is read with the key table, by the layout's reader
        (:class:`composer.layout.section.LayoutReader`); this reader converts single values only.

        Raises:
            TypeError: always (this reader has no key table).
        """
        raise TypeError(f"{key}: a table inside a value needs the layout's reader (composer.layout.section)")

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
                close = did_you_mean(value, choices) if isinstance(value, str) else ""
                raise self.err(key, f"{value!r} is not a valid value{close}; supported values are "
                                    + ", ".join(repr(c) for c in choices))
            return value
        return convert

    def count(self, value: Any, key: str) -> int:
        """A count of things: an integer >= 1 (``ncols = 2``)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.err(key, f"{value!r} is not a count; give an integer from 1")
        return value

    def positive_number(self, value: Any, key: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise self.err(key, f"{value!r} is not a positive number")
        return float(value)

    def aspect(self, value: Any, key: str) -> float | str:
        """A panel's ``aspect``: width / height, a positive finite number, or ``"auto"`` (a file's own)."""
        if value == "auto":
            return "auto"
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise self.err(key, f"{value!r} is not a positive number (width / height) or \"auto\" (the file's own "
                                "aspect)")
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

    def file_path(self, value: Any, key: str, suffixes: tuple[str, ...],
                  key_for: Callable[[str], str] | None = None) -> Path:
        """A path relative to the layout file; must exist and have a known suffix. ``key_for`` names the
        key that takes a file of another suffix (``".pdf"`` -> ``"pdf"``), said in the refusal."""
        text = self.string(value, key)
        try:
            path = (self.path.parent / text).resolve()
            found = path.is_file()
        except (OSError, ValueError) as exc:  # a NUL byte, a name too long, a symlink loop
            raise self.err(key, f"{text!r} is not a usable path: {exc}") from None
        if path.suffix.lower() not in suffixes:
            other = key_for(path.suffix) if key_for else ""
            hint = f"; a {path.suffix} file is drawn by {other} = {text!r}" if other else ""
            raise self.err(key, f"{text!r} has an unsupported type; supported: {', '.join(suffixes)}{hint}")
        if not found:
            raise self.err(key, f"{text!r} not found (looked for {path})")
        self.files.append(path)
        return path

    def params(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.err(key, f"{value!r} is not a table; write {{ name = value }}")
        return dict(value)

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
            return Position(ref=(element, anchor), dx_pt=dx, dy_pt=dy, key=key, text=value)
        x, y = self.pair(value, key, signed=True)
        return Position(x_pt=x, y_pt=y, dx_pt=dx, dy_pt=dy, key=key)

    def _svg_element_position(self, value: str, key: str, dx: float, dy: float) -> Position:
        """``"panel#id"`` (the centre of element ``id`` of an imported SVG panel) or
        ``"panel#id.anchor"``; ``ref`` becomes ``("panel#id", anchor)``, the id checked against
        the file when it is read (:mod:`composer.stages.geometry`)."""
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
        return Position(ref=(f"{panel}#{ident}", anchor), dx_pt=dx, dy_pt=dy, key=key, text=value)

    def points(self, value: Any, key: str) -> tuple[Position, ...]:
        if not isinstance(value, list) or not value:
            raise self.err(key, f"{value!r} is not a list of points")
        return tuple(self.position(v, f"{key}[{i}]") for i, v in enumerate(value))

    def waypoints(self, value: Any, key: str) -> tuple[Position, ...]:
        """A list of points that may be empty (``via = []``: no waypoints)."""
        return () if value == [] else self.points(value, key)

    def track(self, value: Any, key: str) -> Track:
        """A grid column/row: a length string (``"30mm"``) or a ratio (``1``, ``2``, ``"1fr"``)."""
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
