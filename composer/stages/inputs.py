"""Data stage: read a figure's data file and fill ``{name:format}`` text fields.

No number in a figure is typed by hand and none is invented: a missing file,
key or field is a :class:`DataError` naming it.
"""

from __future__ import annotations

import csv
import json
import math
import re
import string
import zipfile
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from composer.errors import DataError


class MissingKey(KeyError):
    """``data["z"]`` on a data file without ``z``: the message lists the keys it has."""

    def __str__(self) -> str:
        key, keys = self.args
        return f"{key!r}; the data file has {', '.join(map(str, keys)) or 'no keys'}"


class DataFile(dict):
    """The dict a data file reads into; a missing key raises :class:`MissingKey`, naming the keys there are."""

    def __missing__(self, key: Any) -> Any:
        raise MissingKey(key, sorted(self, key=str))


def load_data(path: Path | None, *, display: str | None = None) -> dict[str, Any]:
    """Read ``.npz``, ``.json`` or ``.csv`` into a dict.

    Returns:
        ``.npz``: name -> numpy array (``allow_pickle=False``: a pickled array
        is refused, never executed). ``.json``: the top-level object.
        ``.csv``: column name -> 1-d array (float where every cell parses,
        else str). ``None`` -> ``{}``. A :class:`DataFile`: ``data["z"]``
        without ``z`` raises a KeyError naming the keys there are.

    Raises:
        DataError: unreadable file, pickled npz entry, JSON that is not an
            object, CSV without a header.
    """
    return DataFile(_read(path, display))


def _read(path: Path | None, display: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    where = display or str(path)
    try:
        if path.suffix == ".npz":
            if not zipfile.is_zipfile(path):  # np.load would try pickle and blame "pickled data"
                raise DataError("not an .npz archive (numpy.savez writes one)", file=where)
            with np.load(path, allow_pickle=False) as npz:
                return {key: npz[key] for key in sorted(npz.files)}
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise DataError("the top level of a JSON data file must be an object", file=where)
            return data
        with path.open(newline="", encoding="utf-8") as fh:
            lines = list(csv.reader(fh))
        if len(lines) < 2 or not any(lines[1:]):
            raise DataError("a CSV data file needs a header row and at least one data row", file=where)
        header = lines[0]
        numbered = [(n, row) for n, row in enumerate(lines[1:], start=2) if row]  # blank lines are skipped
        rows = [row for _, row in numbered]
        for i, name in enumerate(header):
            if name in header[:i]:
                raise DataError(f"column {name!r} appears twice in the header; name every column once",
                                file=where)
        for number, row in numbered:
            if len(row) != len(header):
                raise DataError(f"row {number} has {len(row)} cells, the header {len(header)}; every row needs "
                                "one cell per column", file=where)
        return {col: _column([row[i] for row in rows]) for i, col in enumerate(header)}
    except DataError:
        raise
    except ValueError as exc:  # npz with object arrays, bad JSON, bad CSV
        raise DataError(f"cannot read data: {exc}", file=where) from None
    except OSError as exc:
        raise DataError(f"cannot read data: {exc.strerror or exc}", file=where) from None


def _column(cells: list[str]) -> np.ndarray:
    try:
        return np.array([float(c) for c in cells])
    except ValueError:
        return np.array(cells)


def scalar_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` usable as text fields: numbers, strings, 0-d arrays."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, (int, float, str, np.generic)) and not isinstance(value, bool):
            out[key] = value
    return out


def field_names(template: str) -> list[str]:
    """The top-level names of ``{name:format}`` fields in a text template.

    Raises:
        ValueError: malformed braces (the caller adds file and key).
    """
    names = []
    for _, field, _, conversion in string.Formatter().parse(template):
        if field is not None:
            if field == "" or field.isdigit():
                raise ValueError("positional fields like {} are not allowed; name the value: {name}")
            if not field.isidentifier():
                raise ValueError(f"{{{field}}}: a field is a value's name and a format, {{name:.2f}}; "
                                 "attributes and indexes (. and [ ]) are not allowed: compute the value in "
                                 "values(data)")
            if conversion:
                raise ValueError(f"{{{field}!{conversion}}}: a field is a value's name and a format, "
                                 "{name:.2f}; conversions (!r, !s, !a) are not allowed")
            names.append(field)
    return names


_MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$", re.DOTALL)


#: longest text composer typesets (characters); a figure's longest caption-like text is far shorter, and
#: a format such as ``{x:>99999}`` or ``{x:.99999f}`` would otherwise make a text that takes minutes.
MAX_TEXT_CHARS = 2000


_SIGN = re.compile(r"-(?=[0-9.])")


class _Number:
    """A number filled into a text: formatted as ``str.format`` would, with ``minus`` for the sign."""

    __slots__ = ("value", "minus")

    def __init__(self, value: Any, minus: str):
        self.value, self.minus = value, minus

    def __format__(self, spec: str) -> str:
        # a sign is a hyphen before a digit or a point (the number's and its exponent's), not a fill character
        return _SIGN.sub(self.minus, format(self.value, spec))


def fill_fields(template: str, values: Mapping[str, Any], *, file: str, key: str, minus: str = "-") -> str:
    """Fill ``{name:format}`` fields of a text template from ``values`` (``str.format`` rules).

    As in a Python f-string, literal braces are doubled, in mathtext too:
    ``"$d_{{KV}}$ = {d_kv}"``. A number's minus sign (and its exponent's) is
    written as ``minus`` (composer passes U+2212, as matplotlib's tick labels
    have it, unless ``axes.unicode_minus`` is off).

    Raises:
        DataError: a field has no value (lists the names that do; for a field
            inside ``$...$`` it reminds that mathtext braces are doubled), is
            None, NaN or infinite (a missing value is never printed as ``nan``), its
            format spec does not fit the value, has a nested ``{}`` or a width
            or precision over :data:`MAX_TEXT_CHARS`, or the filled text is
            longer than that.
    """
    filled = _fill_plain(template, values, template, file, key, minus)
    if len(filled) > MAX_TEXT_CHARS:
        raise DataError(f"{_short(template)!r} is {len(filled)} characters long when filled, more than the limit "
                        f"of {MAX_TEXT_CHARS}", file=file, key=key)
    return filled


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fill_plain(text: str, values: Mapping[str, Any], template: str, file: str, key: str, minus: str = "-") -> str:
    try:
        names = field_names(text)
        for _, field, spec, _ in string.Formatter().parse(text):
            if field is not None and spec:
                if "{" in spec or "}" in spec:
                    raise ValueError(f"the format of {{{field}}} has a nested field; write the format out")
                if any(int(n) > MAX_TEXT_CHARS for n in re.findall(r"\d+", spec)):
                    raise ValueError(f"the format of {{{field}}} asks for more than {MAX_TEXT_CHARS} characters")
    except ValueError as exc:
        raise DataError(f"{_short(template)!r}: {exc}", file=file, key=key) from None
    for name in names:
        if name not in values:
            known = ", ".join(sorted(values)) or "(none: give the figure a data file, or define values(data) in a panel module)"
            hint = ""
            if any(f"{{{name}" in m.group(0) for m in _MATH.finditer(template)):
                hint = " (for mathtext braces inside $...$ write {{ and }})"
            raise DataError(f"text field {{{name}}} has no value{hint}; values are {known}", file=file, key=key)
        value = values[name]
        if value is None:
            raise DataError(f"text field {{{name}}} is None, not a value to print; composer never prints a "
                            "missing value: fix the data file or values()", file=file, key=key)
        if not isinstance(value, (str, int, float, np.number, np.bool_)):
            raise DataError(f"text field {{{name}}} is a {type(value).__name__}; a field prints one number or "
                            "string: pick it in values(data)", file=file, key=key)
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            raise DataError(f"text field {{{name}}} is {float(value)}, not a number to print; composer never "
                            "prints a missing value: fix the data file or values()", file=file, key=key)
    if minus != "-":
        values = {k: _Number(v, minus) if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                  else v for k, v in values.items()}
    try:
        return text.format_map(values)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        raise DataError(f"cannot fill {_short(template)!r}: {exc}", file=file, key=key) from None
