"""Length parsing: every unit to pt, and the errors."""

import pytest

from composer.errors import LayoutError
from composer.units import amount, fmt, layout_unit, say, say_pair, to_pt


@pytest.mark.parametrize("text, pt", [
    ("72pt", 72.0), ("1in", 72.0), ("25.4mm", 72.0), ("2.54cm", 72.0), ("96px", 72.0),
    ("85mm", 85 * 72 / 25.4), ("0.5in", 36.0), (".5in", 36.0), ("1e1pt", 10.0), (" 3 mm ", 3 * 72 / 25.4),
])
def test_units_convert_to_points(text, pt):
    assert to_pt(text) == pytest.approx(pt, rel=1e-12)


@pytest.mark.parametrize("value, fragment", [
    ("12parsecs", "unknown unit 'parsecs'"), ("12", "has no unit"), (12, "is not a length"),
    ("mm", "is not a length"), ("-3mm", "is negative"), (True, "is not a length"),
])
def test_bad_lengths_name_the_value_and_the_units(value, fragment):
    with pytest.raises(LayoutError) as err:
        to_pt(value, file="layouts/x.toml", key="panels.a.size[0]")
    message = str(err.value)
    assert message.startswith("layouts/x.toml: panels.a.size[0]: ")
    assert fragment in message
    if fragment != "is negative":
        assert "pt, in, mm, cm, px" in message  # the valid choices


def test_negative_allowed_for_offsets():
    assert to_pt("-2pt", allow_negative=True) == -2.0


@pytest.mark.parametrize("number, text",
                         [(1.0, "1"), (0.12345, "0.123"), (-0.0001, "0"), (2.5, "2.5"), (-1.25, "-1.25")])
def test_fmt_is_short_and_stable(number, text):
    assert fmt(number) == text


# ─── the one table, as SVG user units ─────────────────────────────────────

def test_css_units_in_points():
    from composer.units import CSS_PT_PER_UNIT

    # 1 in = 72 pt = 6 pc = 25.4 mm = 101.6 Q = 96 px (CSS Values 3, 5.2)
    assert CSS_PT_PER_UNIT["pc"] * 6 == pytest.approx(72)
    assert CSS_PT_PER_UNIT["q"] * 101.6 == pytest.approx(72)
    assert CSS_PT_PER_UNIT["px"] * 96 == pytest.approx(72)


@pytest.mark.parametrize("unit, px", [
    ("", 1.0), ("px", 1.0), ("pt", 4 / 3), ("pc", 16.0), ("in", 96.0), ("mm", 96 / 25.4), ("cm", 96 / 2.54),
    ("q", 96 / 101.6),
])
def test_svg_user_units_are_css_px(unit, px):
    from composer.units import PX_PER_UNIT

    assert PX_PER_UNIT[unit] == pytest.approx(px, rel=1e-15)


@pytest.mark.parametrize("value, px", [
    ("12", 12.0), (" 12 ", 12.0), ("3mm", 3 * 96 / 25.4), ("0.5pt", 2 / 3), ("-2px", -2.0), ("1e1pt", 40 / 3),
    (None, 7.0), ("", 7.0), ("50%", 7.0), ("1em", 7.0), ("auto", 7.0), ("1 2", 7.0),
])
def test_svg_lengths(value, px):
    from composer.units import length_px

    assert length_px(value, 7.0) == pytest.approx(px, rel=1e-15)


def test_say_formats_a_pt_length_in_a_unit():
    """Messages give lengths in the layout's unit: 1 mm = 72 / 25.4 pt; 1 cm = 720 / 25.4 pt;
    1 in = 72 pt; 1 px = 0.75 pt; one decimal in mm, pt, px, two in cm and in."""
    assert say(15 * 72 / 25.4, "mm") == "15.0 mm"
    assert say(42.52, "mm") == "15.0 mm"
    assert say(36.0, "in") == "0.50 in"
    assert say(1.5 * 720 / 25.4, "cm") == "1.50 cm"
    assert say(7.5, "px") == "10.0 px"
    assert say(113.4, "pt") == "113.4 pt"
    assert say(-0.001, "mm") == "0.0 mm"  # never "-0.0"
    assert say(10.0, "furlong") == "10.0 pt"  # not a layout unit: pt
    assert amount(72.0, "in") == "1.00"
    assert say_pair(15 * 72 / 25.4, 40 * 72 / 25.4, "mm") == "15.0 x 40.0 mm"


def test_layout_unit_is_the_unit_of_the_width_as_written():
    assert [layout_unit(w) for w in ("180mm", "7in", "18cm", "500pt", "960px", None, "1Q")] == [
        "mm", "in", "cm", "pt", "px", "pt", "pt"]
