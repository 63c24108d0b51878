"""Text fields filled from data: str.format rules, a true minus sign, missing values refused."""

from __future__ import annotations

import numpy as np
import pytest

from composer.errors import DataError
from composer.stages.inputs import fill_fields

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


@pytest.mark.parametrize("template, why", [
    ("{x.__class__.__init__.__globals__}", "attributes and indexes"),
    ("{x[0]}", "attributes and indexes"),
    ("{x!r}", "conversions"),
])
def test_a_field_is_a_name_and_a_format_nothing_more(template, why):
    """No attribute or index access: a layout must not reach Python internals (or the environment)."""
    with pytest.raises(DataError, match=why):
        fill_fields(template, {"x": 1.5}, file="fig.toml", key="text[0].text")


@pytest.mark.parametrize("value", [[1.0, float("nan")], {"a": 1}, (1, 2)])
def test_a_field_prints_one_value(value):
    with pytest.raises(DataError, match=r"text field \{v\} is a (list|dict|tuple)"):
        fill_fields("{v}", {"v": value}, file="fig.toml", key="text[0].text")


def test_a_fill_character_is_not_a_sign():
    assert fill_fields("{x:-^12}", {"x": -1234.5}, file="f", key="k", minus=MINUS) == f"--{MINUS}1234.5---"


def test_a_format_that_does_not_fit_its_value_names_the_field():
    """``{r:.2d}`` of a float: the message named the whole text and not which of its fields failed."""
    with pytest.raises(DataError) as err:
        fill_fields("n = {n:d}, r = {r:.2d}", {"n": 3, "r": 0.75}, file="fig.toml", key="text[0].text", minus=MINUS)
    assert str(err.value) == ("fig.toml: text[0].text: text field {r:.2d} cannot print 0.75 (float): Unknown format "
                              "code 'd' for object of type 'float'")
