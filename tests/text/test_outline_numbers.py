"""The coordinates of canvas text outlines are written exactly as composer.units.fmt writes a number,
whichever fast path makes them (composer.text.metrics: one formatting for a whole path)."""

from __future__ import annotations

import numpy as np

from composer.text.metrics import _formatted, _translate_d
from composer.units import fmt

#: numbers where writing with 3 decimals is easy to get wrong: whole numbers (their own zeros must stay),
#: one and two trailing zeros, -0 and what rounds to it, the halves of a thousandth on either side.
EDGES = [0.0, -0.0, 1.0, -1.0, 10.0, 100.0, 1000.0, -100.0, 0.1, 0.01, 0.001, 0.5, 1.5, 2.25, 10.1, 100.01,
         0.0004, -0.0004, 0.0005, -0.0005, 0.0006, -0.0006, -0.0004999, -0.00050001, 0.0625, -0.0625, 0.1875,
         -0.0015, 0.0015, 2.0005, -2.0005, 1e-9, -1e-9, 123456.789, -98765.4321, 5e-324, -5e-324, 999.9995,
         -999.9995, 0.9999, -0.9999]


def test_every_number_is_written_as_fmt_writes_it():
    rng = np.random.default_rng(22)
    values = np.concatenate([
        np.array(EDGES),
        np.round(rng.uniform(-600, 600, 20_000), 3),  # outline coordinates: rounded to 3 decimals
        rng.uniform(-600, 600, 20_000),  # and shifted by any offset
        np.round(rng.uniform(-2, 2, 20_000), 2),  # many trailing zeros
        np.round(rng.uniform(-1000, 1000, 5_000)),  # whole numbers
        rng.integers(-4, 4, 5_000) / 16,  # exact binary fractions, halves of a thousandth among them
        rng.uniform(-0.002, 0.002, 5_000),  # around 0
    ])
    assert _formatted(values) == [fmt(float(v)) for v in values]


def test_a_translated_outline_has_each_pair_shifted_and_written_as_fmt_writes_it():
    d = "M1 -2L0.5 0.25C3.125 4 -0.001 100 7.5 -7.5Z M10 20L-0.25 0Z"
    pairs = [(1, -2), (0.5, 0.25), (3.125, 4), (-0.001, 100), (7.5, -7.5), (10, 20), (-0.25, 0)]
    dx, dy = 12.3456, -0.5004
    shifted = [(fmt(x + dx), fmt(y + dy)) for x, y in pairs]
    expected = ("M{} {}L{} {}C{} {} {} {} {} {}Z M{} {}L{} {}Z".format(*[n for pair in shifted for n in pair]))
    assert _translate_d(d, dx, dy) == expected
    assert _translate_d(d, 0.0, 0.0) == d
