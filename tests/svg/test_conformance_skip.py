"""Issue #14 item 3: what a viewer skips is skipped, not fatal, and reported once naming the file and
the element: reference cycles (the cyclic part drawn as nothing), references to other files, an SVG
image inside itself, a local ``@import``; a missing paint server falls back to its fallback colour.
Real dangers stay refused in one line: external or unbounded entities, links outside the project, URLs.

Canvases are transparent at 72 dpi (1 pt = 1 px); the expected pixels are worked out by hand.
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near

from composer.errors import ComposerError

BLUE, RED, GREEN, WHITE = (0, 0, 255), (255, 0, 0), (0, 128, 0), (255, 255, 255)


def warned(messages: list[str], *parts: str) -> list[str]:
    return [m for m in messages if all(p in m for p in parts)]


def test_a_use_cycle_draws_the_rest_and_warns_once(tmp_path):
    # <use> of its own group: the <use> is drawn as nothing; the group's rect at x 0..10 still is
    art = (f'<svg {HEAD} viewBox="0 0 40 20"><g id="a"><rect width="10" height="10" fill="#0000ff"/>'
           '<use id="again" href="#a" x="20"/></g></svg>')
    png, pdf, messages, _ = compose(tmp_path, (40, 20), {"p": (art, (0, 0), (40, 20))})
    assert near(png[5, 5], (*BLUE, 255)) and near(pdf[5, 5], BLUE)
    assert png[5, 25, 3] < 10 and near(pdf[5, 25], WHITE)
    assert len(warned(messages, "art/p.svg", "<use id='again'>", "cycle", "drawn as nothing")) == 1


def test_a_pattern_painted_with_itself_keeps_its_other_content(tmp_path):
    # the pattern's first rect (x 0..5 of each 10-unit tile) is painted with the pattern itself: none;
    # the second (x 5..10) red: red stripes at x 5..10, 15..20, ...
    art = (f'<svg {HEAD} viewBox="0 0 40 20"><pattern id="p" width="10" height="20" patternUnits="userSpaceOnUse">'
           '<rect id="inner" width="5" height="20" fill="url(#p)"/><rect x="5" width="5" height="20" fill="#ff0000"/>'
           '</pattern><rect width="40" height="20" fill="url(#p)"/></svg>')
    png, pdf, messages, _ = compose(tmp_path, (40, 20), {"p": (art, (0, 0), (40, 20))})
    for x in (7, 17, 27):
        assert near(png[10, x], (*RED, 255)) and near(pdf[10, x], RED), x
    for x in (2, 12, 22):
        assert png[10, x, 3] < 10 and near(pdf[10, x], WHITE), x
    assert len(warned(messages, "<rect id='inner'>", "cycle", "none")) == 1


def test_an_svg_image_of_itself_is_drawn_once_inside_itself(tmp_path):
    # self.svg: a blue square at 0..20 and itself as an image at 20..40 (scale 1/2): inside, its square at
    # 20..30 and its own image at 30..40, which draws nothing (the recursion stops, as viewers stop it)
    art = (f'<svg {HEAD} viewBox="0 0 40 40"><rect width="20" height="20" fill="#0000ff"/>'
           '<image href="p.svg" x="20" y="20" width="20" height="20"/></svg>')
    png, pdf, messages, _ = compose(tmp_path, (40, 40), {"p": (art, (0, 0), (40, 40))})
    assert near(png[10, 10], (*BLUE, 255)) and near(png[25, 25], (*BLUE, 255)) and near(pdf[25, 25], BLUE)
    assert png[35, 35, 3] < 10 and near(pdf[35, 35], WHITE)
    assert warned(messages, "contains itself")


def test_references_to_other_files_are_skipped_with_a_warning(tmp_path):
    # xlink:href="g0" (no '#') names a file, not the gradient g0: the gradient keeps its own green stops;
    # <use href="other.svg#x"> draws nothing; a local @import is not applied (the rect stays red)
    art = (f'<svg {HEAD} viewBox="0 0 40 20"><style>@import "colours.css"; .k {{stroke: none}}</style>'
           '<linearGradient id="g0"><stop offset="0" stop-color="#ff0000"/></linearGradient>'
           '<linearGradient id="g" xlink:href="g0"><stop offset="0" stop-color="#008000"/>'
           '<stop offset="1" stop-color="#008000"/></linearGradient>'
           '<rect class="k" width="20" height="20" fill="url(#g)"/><use id="far" href="other.svg#x"/>'
           '<rect x="20" width="20" height="20" fill="#ff0000"/></svg>')
    png, pdf, messages, _ = compose(tmp_path, (40, 20), {"p": (art, (0, 0), (40, 20))})
    assert near(png[10, 10], (*GREEN, 255)) and near(pdf[10, 10], GREEN)
    assert near(png[10, 30], (*RED, 255)) and near(pdf[10, 30], RED)
    assert len(warned(messages, "<linearGradient id='g'>", "'g0'", "another file")) == 1
    assert len(warned(messages, "<use id='far'>", "'other.svg#x'", "skipped")) == 1
    assert len(warned(messages, "imports 'colours.css'")) == 1


def test_a_missing_paint_uses_its_fallback_colour(tmp_path):
    # fill="url(#missing) green" is green (SVG 2, 13.2: the fallback); without a fallback, none
    art = (f'<svg {HEAD} viewBox="0 0 40 20"><rect width="20" height="20" fill="url(#missing) #008000"/>'
           '<rect x="20" width="20" height="20" style="fill: url(#missing)"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (40, 20), {"p": (art, (0, 0), (40, 20))})
    assert near(png[10, 10], (*GREEN, 255)) and near(pdf[10, 10], GREEN)
    assert png[10, 30, 3] < 10 and near(pdf[10, 30], WHITE)


def test_href_wins_over_xlink_href(tmp_path):
    art = (f'<svg {HEAD} viewBox="0 0 20 20"><defs><rect id="red" width="20" height="20" fill="#ff0000"/>'
           '<rect id="blue" width="20" height="20" fill="#0000ff"/></defs><use href="#blue" xlink:href="#red"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (20, 20), {"p": (art, (0, 0), (20, 20))})
    assert near(png[10, 10], (*BLUE, 255)) and near(pdf[10, 10], BLUE)


@pytest.mark.parametrize("body, expect", [
    ('<use href="../../outside.svg#a"/>', "is outside the project"),
    ('<style>@import url(http://127.0.0.1:9/x.css);</style>', "http://127.0.0.1:9/x.css"),
    ('<image href="file:///etc/hostname" width="4" height="4"/>', "file: links are never followed"),
])
def test_real_dangers_stay_refused_in_one_line(tmp_path, body, expect):
    with pytest.raises(ComposerError) as caught:
        compose(tmp_path, (20, 20), {"p": (f'<svg {HEAD} viewBox="0 0 20 20">{body}</svg>', (0, 0), (20, 20))})
    message = str(caught.value)
    assert expect in message and "art/p.svg" in message and "\n" not in message


def test_internal_entities_are_expanded_and_outside_or_unbounded_ones_refused(tmp_path):
    """As browsers and resvg do, an internal entity is expanded: in an attribute (the fill) and as elements
    (a rect, twice); the rects cover x 0..10 and 10..20 in blue (PNG and pdfium's render of the PDF). An
    external entity (it would read a file), a parameter entity, a cycle, a billion laughs (3e9
    characters, past the 1e6 bound) and a chain of 3,000 entities, each the next one's text (past libxml2's
    nesting depth of 40; a RecursionError's traceback before), stay refused in one line; the blue is reached
    through a chain of 20, which browsers expand."""
    chain = '<!ENTITY c0 "#0000ff">' + "".join(f'<!ENTITY c{i} "&c{i - 1};">' for i in range(1, 20))
    art = (f'<!DOCTYPE svg [{chain}<!ENTITY c "&c19;"><!ENTITY r "<rect width=\'10\' height=\'20\' fill=\'&c;\'/>">]>'
           f'<svg {HEAD} viewBox="0 0 20 20">&r;<g transform="translate(10 0)">&r;</g></svg>')
    png, pdf, _, svg = compose(tmp_path, (20, 20), {"p": (art, (0, 0), (20, 20))})
    for x in (2, 8, 12, 18):
        assert near(png[10, x], (*BLUE, 255)) and near(pdf[10, x], BLUE), (x, png[10, x], pdf[10, x])
    assert b"ENTITY" not in svg
    laughs = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10}">' for i in range(1, 10))
    for decl, use in (('<!ENTITY e SYSTEM "/etc/hostname">', "&e;"), ('<!ENTITY % p "x">', ""),
                      ('<!ENTITY a "&b;"><!ENTITY b "&a;">', "&a;"), ('<!ENTITY l0 "lol">' + laughs, "&l9;"),
                      ('<!ENTITY e0 "x">' + "".join(f'<!ENTITY e{i} "&e{i - 1};">' for i in range(1, 3000)),
                       "&e2999;")):
        art = f'<!DOCTYPE svg [{decl}]><svg {HEAD} viewBox="0 0 20 20"><text>{use}</text></svg>'
        with pytest.raises(ComposerError, match="declares XML entities") as caught:
            compose(tmp_path / str(len(decl)), (20, 20), {"p": (art, (0, 0), (20, 20))})
        assert "\n" not in str(caught.value)
