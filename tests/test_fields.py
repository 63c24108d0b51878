"""Text fields filled from data: str.format rules, a true minus sign, missing values refused."""

from __future__ import annotations

import numpy as np
import pytest

from composer.data import fill_fields
from composer.errors import DataError

MINUS = "\u2212"


def test_negative_numbers_get_the_minus_sign_tick_labels_have():
    values = {"a": -3.5, "b": np.int64(-2), "c": 1e-5, "d": 4, "s": "x-y", "flag": True}
    text = fill_fields("{a:.1f} {b} {c:.2e} {d:+d} {s} {flag}", values, file="f", key="k", minus=MINUS)
    assert text == f"{MINUS}3.5 {MINUS}2 1.00e{MINUS}05 +4 x-y True"  # strings and booleans as given
    assert fill_fields("{a:.1f}", values, file="f", key="k") == "-3.5"  # axes.unicode_minus off


@pytest.mark.parametrize("value", [float("nan"), float("inf"), np.float32("nan"), None])
def test_a_missing_value_is_refused_not_printed(value):
    with pytest.raises(DataError, match=r"text field \{x\} is (nan|inf|None)"):
        fill_fields("x = {x:.2f}", {"x": value}, file="fig.toml", key="text[0].text", minus=MINUS)
