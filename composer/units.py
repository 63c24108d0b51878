"""Lengths: parse ``"85mm"``, ``"7pt"``, ``"1in"``, ``"96px"`` into points.

One unit inside composer: the PostScript point, pt = 1/72 in, the user unit of
matplotlib's SVG backend (``width="144pt" viewBox="0 0 144 108"``).
px is the CSS pixel, 1/96 in (CSS Values and Units Level 3, section 5.2), not
the 90 px/in of old Inkscape nor 72.
"""

from __future__ import annotations

import re
from functools import lru_cache

from composer.errors import LayoutError

#: points per unit of the layout's lengths; 1 in = 72 pt = 25.4 mm = 96 px (CSS absolute lengths).
PT_PER_UNIT: dict[str, float] = {
    "pt": 1.0,
    "in": 72.0,
    "mm": 72.0 / 25.4,
    "cm": 720.0 / 25.4,
    "px": 72.0 / 96.0,
}

#: points per unit of every CSS absolute length (CSS Values and Units 3, section 5.2): the layout's
#: units, the pica (1 pc = 12 pt) and the quarter-millimetre (1 Q = 0.25 mm). Keys are lower case.
CSS_PT_PER_UNIT: dict[str, float] = {**PT_PER_UNIT, "pc": 12.0, "q": 18.0 / 25.4}

#: SVG user units per unit: a length with a unit in an SVG is that many CSS px, the user unit of a
#: document (SVG 1.1, 7.10); a bare number ("") is in user units already. Derived from
#: :data:`CSS_PT_PER_UNIT` (1 px = 0.75 pt), so there is one table.
PX_PER_UNIT: dict[str, float] = {"": 1.0, **{unit: pt / CSS_PT_PER_UNIT["px"] for unit, pt in CSS_PT_PER_UNIT.items()}}

#: largest length composer accepts, in pt (100,000 pt = 35.3 m, far beyond any poster): larger values
#: overflow to infinity ("1e999mm") or ask for PNGs of billions of pixels.
MAX_LENGTH_PT = 100_000.0

#: a number (ASCII digits only: "６０mm" is refused) and a unit
_LENGTH = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-zA-Z%]*)\s*$", re.ASCII)


def to_pt(value: object, *, file: str | None = None, key: str | None = None,
          allow_negative: bool = False) -> float:
    """Convert a length such as ``"85mm"`` to points (float).

    Args:
        value: a string with a unit from :data:`PT_PER_UNIT`. A bare number is
            refused: a length without a unit is ambiguous.
        file, key: where the value came from, for the error message.
        allow_negative: offsets may be negative, sizes may not.

    Raises:
        LayoutError: not a string, no number, unknown unit, negative when
            not allowed, or larger than :data:`MAX_LENGTH_PT`.
    """
    choices = ", ".join(PT_PER_UNIT)
    if isinstance(value, bool) or not isinstance(value, str):
        raise LayoutError(f"{value!r} is not a length; write a string with a unit ({choices}), e.g. \"12mm\"",
                          file=file, key=key)
    match = _LENGTH.match(value)
    if not match:
        raise LayoutError(f"{value!r} is not a length; write a number with a unit ({choices}), e.g. \"12mm\"",
                          file=file, key=key)
    number, unit = float(match.group(1)), match.group(2)
    if unit not in PT_PER_UNIT:
        raise LayoutError(f"{value!r} has unknown unit {unit!r}; valid units are {choices}" if unit
                          else f"{value!r} has no unit; valid units are {choices}", file=file, key=key)
    if number < 0 and not allow_negative:
        raise LayoutError(f"{value!r} is negative; a size must be zero or more", file=file, key=key)
    points = number * PT_PER_UNIT[unit]
    if not abs(points) <= MAX_LENGTH_PT:  # also catches inf
        raise LayoutError(f"{value!r} is too large; lengths are at most {say(MAX_LENGTH_PT, unit)} (35 m)",
                          file=file, key=key)
    return points


_SVG_LENGTH = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([a-z]*)\s*")


@lru_cache(maxsize=4096)
def length_px(value: str | None, default: float = 0.0) -> float:
    """An SVG length attribute or property (``"12"``, ``"3mm"``, ``"0.5pt"``) in user units, i.e.
    CSS px (:data:`PX_PER_UNIT`); ``default`` for None, "", a percentage, a relative unit
    (``em``) or anything else that is not a number with an absolute unit. Cached: documents
    repeat the same few values."""
    if not value:
        return default
    m = _SVG_LENGTH.fullmatch(value)
    if not m or m.group(2) not in PX_PER_UNIT:
        return default
    return float(m.group(1)) * PX_PER_UNIT[m.group(2)]


def unit_of(value: str) -> str:
    """The unit suffix of a length already validated by :func:`to_pt`."""
    match = _LENGTH.match(value)
    return match.group(2) if match else "pt"


#: decimals a length is shown with in a message, per unit: a tenth of a mm or finer in every unit
#: (0.1 mm, 0.01 cm = 0.1 mm, 0.01 in = 0.25 mm, 0.1 pt = 0.035 mm, 0.1 px = 0.026 mm)
SAY_DECIMALS: dict[str, int] = {"pt": 1, "mm": 1, "cm": 2, "in": 2, "px": 1}


def layout_unit(value: str | None) -> str:
    """The unit a message speaks for lengths derived from a layout: the unit of its
    ``[figure] width`` as written (``"180mm"`` -> ``"mm"``); ``"pt"`` when there is none
    or it is not one of :data:`PT_PER_UNIT`."""
    unit = unit_of(value) if isinstance(value, str) else "pt"
    return unit if unit in PT_PER_UNIT else "pt"


def amount(length_pt: float, unit: str = "pt") -> str:
    """The number of :func:`say` alone: ``amount(42.52, "mm") == "15.0"``.

    Args:
        length_pt: the length in pt (1/72 in).
        unit: a key of :data:`PT_PER_UNIT` (anything else: pt).

    Returns:
        ``length_pt`` in ``unit``, rounded to :data:`SAY_DECIMALS` decimals, no ``-0``.
    """
    if unit not in PT_PER_UNIT:
        unit = "pt"
    text = f"{length_pt / PT_PER_UNIT[unit]:.{SAY_DECIMALS[unit]}f}"
    return text.lstrip("-") if float(text) == 0 else text


def say(length_pt: float, unit: str = "pt") -> str:
    """A length for a message: ``length_pt`` (pt) in ``unit``, with the unit, e.g.
    ``say(42.52, "mm") == "15.0 mm"`` (number as :func:`amount`; an unknown unit: pt)."""
    return f"{amount(length_pt, unit)} {unit if unit in PT_PER_UNIT else 'pt'}"


def say_pair(width_pt: float, height_pt: float, unit: str = "pt") -> str:
    """Two lengths for a message, one unit: ``"15.0 x 40.0 mm"`` (see :func:`say`)."""
    return f"{amount(width_pt, unit)} x {say(height_pt, unit)}"


def fmt(number: float) -> str:
    """Format a coordinate for SVG output: at most 3 decimals, no ``-0``.

    Deterministic across platforms (``round`` + ``repr`` of a float is exact
    for the same IEEE input), so the same geometry gives the same bytes.
    For a Python float, ``.3f`` formatting alone gives the same digits as
    ``round(number, 3)`` formatted (both round the exact binary value; checked
    on 10^6 values, halves included) at half the cost; other numbers (numpy
    scalars round by scaling) keep the explicit ``round``.
    """
    text = (f"{number:.3f}" if type(number) is float else f"{round(number, 3):.3f}").rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
