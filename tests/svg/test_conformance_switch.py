"""An imported ``<switch>`` draws the child a browser draws (SVG 2, 5.8.2 and 5.8.5).

SVG 2 removed ``requiredFeatures``: Chromium and Firefox treat a child carrying it as passing, so a
``<switch>`` draws that child. draw.io ends every export with such a switch (an empty
``<g requiredFeatures=...#Extensibility/>`` then a "Text is not SVG - cannot display" notice), which a
browser never shows. ``requiredExtensions`` naming an extension fails (composer supports none).
Expected pixels are Chromium's for the same file (its screenshot: white, green, blue), worked out by hand:
the 60 x 20 viewBox drawn in a 60 x 20 pt box at 72 dpi, one pt per pixel.
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
FEATURE = "http://www.w3.org/TR/SVG11/feature#"
ART = (f'<svg {HEAD} width="60" height="20" viewBox="0 0 60 20">'
       # 0..20: the first child passes and draws nothing (draw.io's notice is the red rect after it)
       f'<switch><g requiredFeatures="{FEATURE}Extensibility"/><rect width="20" height="20" fill="#ff0000"/></switch>'
       # 20..40: the green rect carries requiredFeatures and passes
       f'<switch><rect x="20" width="20" height="20" fill="#00ff00" requiredFeatures="{FEATURE}Shape"/>'
       '<rect x="20" width="20" height="20" fill="#ff0000"/></switch>'
       # 40..60: an extension composer lacks fails: the blue rect after it is drawn
       '<switch><rect x="40" width="20" height="20" fill="#ff0000" requiredExtensions="http://example.org/ext"/>'
       '<rect x="40" width="20" height="20" fill="#0000ff"/></switch>'
       '</svg>')


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_a_switch_draws_the_child_a_browser_draws(tmp_path, engine):
    png, pdf, _, svg = compose(tmp_path, (60, 20), {"s": (ART, (0, 0), (60, 20))}, engine=engine)
    for x in (5, 15):
        assert png[10, x, 3] < 10, (x, png[10, x])  # nothing drawn: the canvas is transparent
    for x, colour in ((25, GREEN), (35, GREEN), (45, BLUE), (55, BLUE)):
        assert near(png[10, x], (*colour, 255)), (x, png[10, x])
        assert near(pdf[10, x], colour), (x, pdf[10, x])
    assert b"#ff0000" not in svg  # the children not drawn are gone: the check measures what is drawn


def test_a_child_a_switch_cannot_choose_is_passed_over(tmp_path):
    """resvg's suite, structure/switch/non-SVG-child.svg: an unknown element (and a title) before the
    first rect is not chosen; Chromium draws the green rect, not the red one after it."""
    art = (f'<svg {HEAD} width="20" height="20" viewBox="0 0 20 20"><switch><title>t</title><random/>'
           '<rect width="20" height="20" fill="#00ff00"/><rect width="20" height="20" fill="#ff0000"/></switch></svg>')
    png, pdf, _, svg = compose(tmp_path, (20, 20), {"s": (art, (0, 0), (20, 20))})
    assert near(png[10, 10], (*GREEN, 255)), png[10, 10]
    assert near(pdf[10, 10], GREEN), pdf[10, 10]
    assert b"#ff0000" not in svg


def test_html_that_is_not_only_text_is_left_out_with_one_warning_naming_the_file(tmp_path):
    # a video and a table inside <foreignObject>: composer draws no HTML but text and pictures; the switch's SVG
    # fallback is drawn instead, and one warning names the file and says how many are not drawn
    art = (f'<svg {HEAD} width="60" height="20" viewBox="0 0 60 20">'
           '<switch><foreignObject width="60" height="20"><div xmlns="http://www.w3.org/1999/xhtml">'
           '<video src="photo.webm"/>Lamp</div></foreignObject><text x="2" y="12" font-size="8">Lamp...</text></switch>'
           '<foreignObject width="10" height="10"><table xmlns="http://www.w3.org/1999/xhtml"><tr><td>x</td></tr>'
           '</table></foreignObject></svg>')
    _, _, messages, svg = compose(tmp_path, (60, 20), {"s": (art, (0, 0), (60, 20))})
    html = [m for m in messages if "foreignObject" in m]
    assert len(html) == 1, messages
    assert "art/s.svg" in html[0] and "2 <foreignObject> not drawn" in html[0] and "image" in html[0]
    assert b"foreignObject" not in svg and b"Lamp..." in svg and b"photo" not in svg
    _, _, messages, _ = compose(tmp_path / "plain", (60, 20), {"s": (ART, (0, 0), (60, 20))})
    assert not [m for m in messages if "foreignObject" in m]


def test_conditions_are_evaluated_as_a_browser_does_inside_and_outside_switches(tmp_path):
    """systemLanguage against the user's language ``en`` (``en-GB``, ``ru, en`` pass; ``ru-RU`` fails),
    inside a ``<switch>`` (the first passing child) and on any element outside one (a failing one is not
    drawn, a failing ``<tspan>`` neither), and an empty ``requiredExtensions`` fails. Columns of 10 pt:
    0..10 green (en-GB chosen over red), 10..20 green (the ru-RU rect is skipped), 20..30 blue (ru, en),
    30..40 nothing (a ru-RU rect outside a switch), 40..50 green (empty requiredExtensions fails)."""
    art = (f'<svg {HEAD} width="50" height="20" viewBox="0 0 50 20">'
           '<switch><rect width="10" height="20" fill="#00ff00" systemLanguage="en-GB"/>'
           '<rect width="10" height="20" fill="#ff0000"/></switch>'
           '<switch><rect x="10" width="10" height="20" fill="#ff0000" systemLanguage="ru-RU"/>'
           '<rect x="10" width="10" height="20" fill="#00ff00"/></switch>'
           '<rect x="20" width="10" height="20" fill="#0000ff" systemLanguage="ru, en"/>'
           '<rect x="30" width="10" height="20" fill="#ff0000" systemLanguage="ru-RU"/>'
           '<switch><rect x="40" width="10" height="20" fill="#ff0000" requiredExtensions=""/>'
           '<rect x="40" width="10" height="20" fill="#00ff00"/></switch>'
           '<text x="0" y="30" font-size="8"><tspan fill="#ff0000" systemLanguage="de">Nein</tspan></text>'
           '</svg>')
    png, pdf, _, svg = compose(tmp_path, (50, 20), {"s": (art, (0, 0), (50, 20))}, engine="cairosvg")
    for x, colour in ((5, GREEN), (15, GREEN), (25, BLUE), (45, GREEN)):
        assert near(png[10, x], (*colour, 255)), (x, png[10, x])
        assert near(pdf[10, x], colour), (x, pdf[10, x])
    assert png[10, 35, 3] < 10 and near(pdf[10, 35], (255, 255, 255))
    assert b"#ff0000" not in svg and b"Nein" not in svg and b"systemLanguage" not in svg
