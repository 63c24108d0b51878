"""Issue #14 item 2: style sheets that name the panel's root ``<svg>`` (by type, class, id, ``:root``,
``svg > x``) still match after import, and still reach nothing outside the panel.

The files imitate their producers: svglite keys every rule to ``.svglite``, mermaid to the root's id.
Where a rule failed to match, the shapes would fall back to ``fill: black`` (SVG 2, 13.2). Canvases
are transparent at 72 dpi (1 pt = 1 px).
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near, on_white

WHITE = (255, 255, 255)


def test_rules_keyed_to_the_roots_class_and_id_still_apply(tmp_path):
    # svglite: the V-shaped polyline gets fill none from `.svglite polyline`: inside the V (20, 15) the
    # canvas stays transparent (black if the rule were lost); mermaid: `#mermaid-17 .node rect` fills
    # the node #ECECFF = (236, 236, 255)
    svglite = (f"<svg {HEAD} class='svglite' viewBox='0 0 40 40'><style>.svglite polyline, .svglite rect "
               "{ fill: none; stroke: #000000; }</style>"
               "<polyline points='5,5 20,35 35,5' style='stroke: #ff0000; stroke-width: 2'/>"
               "<rect x='1' y='1' width='38' height='38'/></svg>")
    mermaid = (f'<svg {HEAD} id="mermaid-17" width="100%" viewBox="0 0 40 40" style="max-width: 40px;">'
               '<style>#mermaid-17 .node rect {fill:#ECECFF; stroke:#9370DB;}</style>'
               '<g class="node"><rect x="5" y="5" width="30" height="30"/></g></svg>')
    png, pdf, _, _ = compose(tmp_path, (100, 40), {"s": (svglite, (0, 0), (40, 40)), "m": (mermaid, (50, 0), (40, 40))})
    assert png[15, 20, 3] < 10 and near(pdf[15, 20], WHITE)
    assert near(png[20, 70], (236, 236, 255, 255), 4) and near(pdf[20, 70], (236, 236, 255), 4)


def test_type_child_and_root_selectors_match_the_root_but_not_other_panels(tmp_path):
    # `svg > rect` and `:root circle` name the root; the second panel (a plain file, its rect unstyled)
    # stays black: the first panel's rules reach no other panel
    styled = (f'<svg {HEAD} viewBox="0 0 40 20"><style>svg > rect {{fill: #00ff00}} :root circle {{fill: #0000ff}}'
              '</style><rect width="20" height="20"/><circle cx="30" cy="10" r="8"/></svg>')
    plain = f'<svg {HEAD} viewBox="0 0 20 20"><rect width="20" height="20"/></svg>'
    # a third file whose only rule is `:root circle`: the circle, a child of the root, is blue
    rooted = (f'<svg {HEAD} viewBox="0 0 20 20"><style>:root circle {{fill: #0000ff}}</style>'
              '<circle cx="10" cy="10" r="8"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (110, 20), {"a": (styled, (0, 0), (40, 20)), "b": (plain, (50, 0), (20, 20)),
                                                   "c": (rooted, (80, 0), (20, 20))})
    assert near(png[10, 10], (0, 255, 0, 255)) and near(pdf[10, 10], (0, 255, 0))
    assert near(png[10, 30], (0, 0, 255, 255)) and near(pdf[10, 30], (0, 0, 255))
    assert near(png[10, 60], (0, 0, 0, 255)) and near(pdf[10, 60], (0, 0, 0))
    assert near(png[10, 90], (0, 0, 255, 255)) and near(pdf[10, 90], (0, 0, 255))


def test_rules_reach_what_a_use_draws_in_a_browser_too(tmp_path):
    """A browser draws a ``<use>`` as a copy in a shadow tree and matches selectors inside it, so a rule
    scoped to the panel (``#panel-p .c``) missed the copy: Chromium drew black squares where resvg drew the
    file's colours. Each square is a ``<use>`` of a group in ``<defs>``: a class rule (teal #2a9d8f), a
    descendant rule (orange #e76f51), an ``!important`` rule over a presentation attribute and a ``style``
    (blue), a normal rule under the element's own ``style`` (yellow). Canvas 400 x 200 pt: a small window
    screenshots blank in headless Chromium."""
    import crossrender as cr

    art = (f'<svg {HEAD} viewBox="0 0 100 50"><style>.c {{ fill: #2a9d8f }} #d2 rect {{ fill: #e76f51 }} '
           '.imp { fill: #0000ff !important }</style><defs>'
           '<g id="g1"><rect class="c" width="20" height="20"/></g>'
           '<g id="d2"><rect width="20" height="20"/></g>'
           '<g id="g3"><rect class="imp" fill="#ff0000" style="fill: #00ff00" width="20" height="20"/></g>'
           '<g id="g4"><rect class="c" style="fill: #ffff00" width="20" height="20"/></g></defs>'
           '<use href="#g1" x="2" y="15"/><use href="#d2" x="27" y="15"/>'
           '<use xlink:href="#g3" x="52" y="15"/><use href="#g4" x="77" y="15"/></svg>')
    png, pdf, _, svg = compose(tmp_path, (400, 200), {"p": (art, (0, 0), (400, 200))})
    expected = [(42, 157, 143), (231, 111, 81), (0, 0, 255), (255, 255, 0)]
    centres_pt = [(48, 100), (148, 100), (248, 100), (348, 100)]  # (use x + 10, 25) in the viewBox, times 4
    shot = cr.render_chromium([svg], dpi=72)[0]  # 1 pt = 1 px; RGB in 0..1 on white
    for (x, y), colour in zip(centres_pt, expected, strict=True):
        assert near(png[y, x], (*colour, 255)), (x, png[y, x])
        assert near(pdf[y, x], colour), (x, pdf[y, x])
        assert near((shot[y, x] * 255).round(), colour), (x, shot[y, x] * 255)


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_rules_the_engine_cannot_match_style_the_file_as_it_is_styled_alone(tmp_path, engine):
    # the file alone (Selectors 4): its root has class k, so `svg:not(.x) circle` fills both circles blue;
    # `svg:not(:root) rect` reaches the rect of the nested <svg> (red), not the root's own rect (black,
    # the default fill: the root is :root in the file, though it becomes a nested viewport of the
    # canvas); the second circle's own style (green) beats the normal rule, and the !important rule
    # `.c:not(.x)` (magenta) beats its own style. typst's resvg matches none of :not() by itself.
    art = (f'<svg {HEAD} class="k" viewBox="0 0 80 20"><style>svg:not(.x) circle {{fill: #0000ff}} '
           'svg:not(:root) rect {fill: #ff0000} .c:not(.x) {fill: #ff00ff !important}</style>'
           '<circle cx="10" cy="10" r="8"/><svg x="20" width="20" height="20"><rect width="20" height="20"/></svg>'
           '<rect x="40" width="20" height="20"/><circle class="c" cx="70" cy="10" r="8" style="fill: #00ff00"/>'
           '</svg>')
    png, pdf, _, svg = compose(tmp_path, (80, 20), {"a": (art, (0, 0), (80, 20))}, engine=engine)
    for x, colour in ((10, (0, 0, 255)), (30, (255, 0, 0)), (50, (0, 0, 0)), (70, (255, 0, 255))):
        assert near(png[10, x], (*colour, 255)), (x, png[10, x])
        assert near(pdf[10, x], colour), (x, pdf[10, x])
    assert b"<style" not in svg and b'style="fill: #0000ff"' in svg  # the rules applied to what they select


#: columns of 10 units, each a rect styled one way (issue #23): a custom property set on :root, a var()
#: fallback, one inherited from a group, an @supports block whose condition holds (and one whose does not),
#: an @media block applied only at a panel width up to 100 CSS px (75 pt)
CSS_FEATURES = (
    f'<svg {HEAD} viewBox="0 0 50 10"><style>'
    ':root { --main: #2a9d8f } .v { fill: var(--main) } .f { fill: var(--unset, #0000ff) } g { --c: #00ff00 }'
    ' .i { fill: var(--c) } .s { fill: #ff0000 } @supports (display: grid) { .s { fill: #ff00ff } }'
    ' @supports (frobnicate: 1) { .s { stroke: #ff0000; stroke-width: 4 } }'
    ' .m { fill: #00ffff } @media (max-width: 100px) { .m { fill: #ffff00 } } @media print { .m { fill: #ff0000 } }'
    '</style><rect class="v" width="10" height="10"/><rect class="f" x="10" width="10" height="10"/>'
    '<g><rect class="i" x="20" width="10" height="10"/></g><rect class="s" x="30" width="10" height="10"/>'
    '<rect class="m" x="40" width="10" height="10"/></svg>')


def test_custom_properties_supports_and_media_are_applied_as_a_browser_applies_them(tmp_path):
    """The same file in a 50 x 10 pt box (66.7 CSS px wide: the @media block applies, yellow) and a
    100 x 20 pt box (133 px: it does not, cyan). #2a9d8f is (42, 157, 143); in the PNG and pdfium's render
    of the PDF (the engines read no var(): black before)."""
    png, pdf, _, svg = compose(tmp_path, (100, 40), {"small": (CSS_FEATURES, (0, 0), (50, 10)),
                                                     "large": (CSS_FEATURES, (0, 20), (100, 20))})
    expected = [(42, 157, 143), (0, 0, 255), (0, 255, 0), (255, 0, 255)]
    for i, colour in enumerate(expected):
        for image, (x, y) in ((png, (5 + 10 * i, 5)), (png, (10 + 20 * i, 30))):
            assert near(image[y, x], (*colour, 255)), (i, x, y, image[y, x])
        for x, y in ((5 + 10 * i, 5), (10 + 20 * i, 30)):
            assert near(pdf[y, x], colour), (i, x, y, pdf[y, x])
    assert near(png[5, 45], (255, 255, 0, 255)) and near(pdf[5, 45], (255, 255, 0))
    assert near(png[30, 90], (0, 255, 255, 255)) and near(pdf[30, 90], (0, 255, 255))
    # the @supports block that fails draws no red stroke around the magenta rect
    assert near(png[8, 31], (255, 0, 255, 255)) and near(pdf[8, 31], (255, 0, 255))
    assert b"var(" not in svg and b"@media" not in svg and b"@supports" not in svg


def test_overly_long_and_overly_deep_variables_are_invalid_not_a_crash(tmp_path):
    """CSS Variables 1, 3.3: a value past the browser's length limit is invalid at computed-value time.
    ``--v{i}: var(--v{i-1}) var(--v{i-1})`` forty times asks for 2**40 characters (the build was killed
    for want of memory); a chain of 3,000 properties declared last-first ran Python out of stack. The
    rect whose fill is ``var(--nope, #0000ff)`` beside the bomb (its stroke-width invalid) is blue; the fill
    reached through the 3,000 chain is invalid and inherits the initial black, as a cycle does (Chromium
    resolves so long a chain; no file draws one). PNG and pdfium's render of the PDF."""
    BLUE = (0, 0, 255)
    bomb = "".join(f"--v{i}: var(--v{i - 1}) var(--v{i - 1});" for i in range(1, 41))
    chain = "".join(f"--w{i}: var(--w{i - 1});" for i in range(2999, 0, -1))
    art = (f'<svg {HEAD} viewBox="0 0 60 20"><style>:root{{--v0: 1px;{bomb}{chain}--w0: #ff0000; --e: ;}}'
           '.b{fill: var(--nope, #0000ff); stroke-width: var(--v40)} .c{fill: var(--w2999)}'
           '.e{fill: var(--e, #ff0000)}</style>'
           '<rect class="b" x="2" y="2" width="16" height="16"/><rect class="c" x="22" y="2" width="16" height="16"/>'
           '<rect class="e" x="42" y="2" width="16" height="16" fill="#0000ff"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (60, 20), {"a": (art, (0, 0), (60, 20))})
    # an empty custom property (--e: ;) substitutes nothing: fill invalid at computed-value time, inherited
    # black, as Chromium draws it (benchmarks/oracle.py), not the blue attribute nor the red fallback
    assert near(png[10, 50], (0, 0, 0, 255)) and near(pdf[10, 50], (0, 0, 0)), (png[10, 50], pdf[10, 50])
    assert near(png[10, 10], (*BLUE, 255)) and near(pdf[10, 10], BLUE), (png[10, 10], pdf[10, 10])
    assert near(png[10, 30], (0, 0, 0, 255)) and near(pdf[10, 30], (0, 0, 0)), (png[10, 30], pdf[10, 30])


def test_light_dark_colours_are_the_light_schemes(tmp_path):
    """New draw.io exports write every fill and stroke as ``light-dark(L, D)`` (CSS Color 5) beside a plain
    attribute; a browser in the light scheme draws L (the engines drew black). In a style attribute and in
    a style sheet rule, with a var() inside the dark branch: orange (255, 128, 0) and blue in the PNG and
    in pdfium's render of the PDF."""
    art = (f'<svg {HEAD} viewBox="0 0 20 10" style="color-scheme: light dark"><style>.b {{ fill: '
           'light-dark(#0000ff, var(--dark, #111111)) }}</style>'
           '<rect width="10" height="10" fill="#dae8fc" style="fill: light-dark(rgb(255, 128, 0), rgb(29, 41, 59))"/>'
           '<rect class="b" x="10" width="10" height="10"/></svg>').replace("{{", "{").replace("}}", "}")
    png, pdf, _, svg = compose(tmp_path, (20, 10), {"d": (art, (0, 0), (20, 10))})
    for x, colour in ((5, (255, 128, 0)), (15, (0, 0, 255))):
        assert near(png[5, x], (*colour, 255)) and near(pdf[5, x], colour), (x, png[5, x], pdf[5, x])
    assert b"light-dark" not in svg


def _srgb_encoded(linear: float) -> int:
    """A linear-light channel, clipped to 0..1, in sRGB's transfer function (IEC 61966-2-1), 0..255."""
    v = min(max(linear, 0.0), 1.0)
    return round(255 * (12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055))


def _srgb_linear(encoded: float) -> float:
    return encoded / 12.92 if encoded <= 0.04045 else ((encoded + 0.055) / 1.055) ** 2.4


#: linear display-p3 to linear sRGB, both D65: CSS Color 4's lin_P3_to_XYZ then XYZ_to_lin_sRGB (section 18)
_P3_TO_SRGB = ((1.2249401762805598, -0.22494017628055996, 0.0),
               (-0.04205695470968816, 1.0420569547096882, 0.0),
               (-0.019637554590334432, -0.07863604555063186, 1.0982736001409663))


def test_display_p3_and_color_mix_colours_are_drawn_in_the_srgb_they_name(tmp_path):
    """``color(display-p3 ...)`` (CSS Color 4) and ``color-mix()`` (CSS Color 5), which Chromium draws and
    both engines drew black: each square in the sRGB colour worked out here, in the PNG and in pdfium's
    render of the PDF.
    - display-p3 (0.2, 0.6, 0.3): linearized with sRGB's curve (display-p3 shares it), through the
      primaries' matrix, clipped, encoded: (0, 156, 66);
    - ``color-mix(in srgb, #ff0000 50%, #0000ff)``: half of each channel, (128, 0, 128);
    - ``color-mix(in srgb, red 20%, blue 20%)``: percentages summing to 40 % scale to 50/50 and leave the
      mix 40 % opaque (CSS Color 5, 3.1): (128, 0, 128) at alpha 0.4 over white, (204, 153, 204);
    - ``color-mix(in srgb-linear, #000 25%, #fff)``: 75 % of white in linear light, encoded: 225."""
    p3 = (0.2, 0.6, 0.3)
    lin = [_srgb_linear(c) for c in p3]
    want_p3 = tuple(_srgb_encoded(sum(m * c for m, c in zip(row, lin))) for row in _P3_TO_SRGB)
    fills = [("color(display-p3 0.2 0.6 0.3)", want_p3),
             ("color-mix(in srgb, #ff0000 50%, #0000ff)", (128, 0, 128)),
             ("color-mix(in srgb, red 20%, blue 20%)", (204, 153, 204)),
             ("color-mix(in srgb-linear, #000 25%, #fff)", (_srgb_encoded(0.75),) * 3)]
    art = (f'<svg {HEAD} viewBox="0 0 {10 * len(fills)} 10">'
           + "".join(f'<rect x="{10 * i}" width="10" height="10" style="fill: {fill}"/>'
                     for i, (fill, _) in enumerate(fills)) + '</svg>')
    png, pdf, _, svg = compose(tmp_path, (10 * len(fills), 10), {"c": (art, (0, 0), (10 * len(fills), 10))})
    png = on_white(png)
    assert want_p3 == (0, 156, 66), want_p3
    for i, (fill, colour) in enumerate(fills):
        x = 10 * i + 5
        assert near(png[5, x], colour, 2) and near(pdf[5, x], colour, 2), (fill, png[5, x], pdf[5, x], colour)
    assert b"color-mix" not in svg and b"display-p3" not in svg


def test_custom_properties_of_a_use_reach_the_copy_it_draws(tmp_path):
    """A ``<use>`` draws its target in a shadow tree that inherits from the ``<use>`` (SVG 2, 5.6.3), custom
    properties included: two ``<use>`` of one rect, one symbol, each handing ``--c`` its own colour, draw
    teal (42, 157, 143) and orange (231, 111, 81), the symbol blue; the target in place keeps its
    fallback (grey 128). composer resolved each ``var()`` where the definition stands: every square grey."""
    art = (f'<svg {HEAD} viewBox="0 0 40 10"><defs><symbol id="s" viewBox="0 0 10 10">'
           '<rect width="10" height="10" style="fill: var(--c, #808080)"/></symbol></defs>'
           '<rect id="r" width="10" height="10" style="fill: var(--c, #808080)"/>'
           '<use href="#r" x="10" style="--c: #2a9d8f"/><use xlink:href="#r" x="20" style="--c: #e76f51"/>'
           '<g style="--c: #0000ff"><use href="#s" x="30" width="10" height="10"/></g></svg>')
    png, pdf, _, svg = compose(tmp_path, (40, 10), {"u": (art, (0, 0), (40, 10))})
    png = on_white(png)
    for x, colour in ((5, (128, 128, 128)), (15, (42, 157, 143)), (25, (231, 111, 81)), (35, (0, 0, 255))):
        assert near(png[5, x], colour) and near(pdf[5, x], colour), (x, png[5, x], pdf[5, x], colour)
    assert b"var(" not in svg
