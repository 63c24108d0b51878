"""Issue #14 item 1: an imported SVG keeps its own viewport. What the file resolves against its root
viewport (percentages, ``<symbol>`` sizes, ``userSpaceOnUse`` defaults, ``transform-origin``), root
attributes (opacity, background-color, systemLanguage), ``preserveAspectRatio="... slice"`` and absolute
units inside the file (96 px per inch) come out as in the file alone.

Canvases are transparent at 72 dpi (1 pt = 1 px); every expected pixel is worked out by hand below.
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near, on_white

RED, BLUE, GREEN, WHITE = (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)


def test_a_100_percent_rect_fills_exactly_its_panels_box(tmp_path):
    # svglite's background: 100 % x 100 % of the file's viewBox (80 x 60 units), drawn in a 40 x 30 pt
    # box at (10, 10) (scale 0.5): exactly x 10..50, y 10..40 pt, not the canvas (100 x 60 pt)
    svglite = f'<svg {HEAD} viewBox="0 0 80 60"><rect width="100%" height="100%" fill="#ff0000"/></svg>'
    blue = f'<svg {HEAD} viewBox="0 0 30 30"><rect width="30" height="30" fill="#0000ff"/></svg>'
    png, pdf, _, svg = compose(tmp_path, (100, 60), {"b": (blue, (60, 10), (30, 30)),
                                                     "s": (svglite, (10, 10), (40, 30))})
    for x, y in ((11, 11), (30, 25), (48, 38)):
        assert near(png[y, x], (*RED, 255)), (x, y, png[y, x])
        assert near(pdf[y, x], RED), (x, y, pdf[y, x])
    for x, y in ((5, 5), (52, 25), (30, 43), (55, 55)):
        assert png[y, x, 3] < 10, (x, y, png[y, x])
        assert near(pdf[y, x], WHITE), (x, y, pdf[y, x])
    assert near(png[25, 75], (*BLUE, 255)) and near(pdf[25, 75], BLUE)  # the panel drawn before is not covered
    assert b'width="100%"' in svg  # resolved by the engine, in the panel's own nested viewport


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_slice_covers_the_box_and_is_cropped_at_its_edges(tmp_path, engine):
    # viewBox 20 x 10 (left half red, right half blue) in a 30 x 30 box, xMidYMid slice:
    # scale max(30/20, 30/10) = 3, content 60 x 30 at x = (30 - 60) / 2 = -15: red -15..15, blue 15..45,
    # both cut at the box (0..30); meet would leave y 0..7.5 empty
    art = (f'<svg {HEAD} viewBox="0 0 20 10" preserveAspectRatio="xMidYMid slice">'
           '<rect width="10" height="10" fill="#ff0000"/><rect x="10" width="10" height="10" fill="#0000ff"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (60, 40), {"a": (art, (0, 0), (30, 30))}, engine=engine)
    for (x, y), colour in (((5, 15), RED), ((5, 3), RED), ((25, 15), BLUE), ((25, 27), BLUE)):
        assert near(png[y, x], (*colour, 255)), (x, y, png[y, x])
        assert near(pdf[y, x], colour), (x, y, pdf[y, x])
    for x, y in ((35, 15), (45, 5), (15, 35)):
        assert png[y, x, 3] < 10, (x, y, png[y, x])
        assert near(pdf[y, x], WHITE), (x, y, pdf[y, x])


def test_a_symbol_without_size_is_100_percent_of_the_files_viewport(tmp_path):
    # the <use> is 100 % x 100 % of the 40 x 30 viewport; the symbol's 1 x 1 viewBox meets into it:
    # a 30 x 30 square centred, x 5..35 (the canvas is 80 wide: against it the square would be 30 x 30
    # at x 25..55 in the panel's units)
    art = (f'<svg {HEAD} viewBox="0 0 40 30"><symbol id="s" viewBox="0 0 1 1">'
           '<rect width="1" height="1" fill="#0000ff"/></symbol><use href="#s"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (80, 30), {"a": (art, (0, 0), (40, 30))})
    for x in (6, 20, 34):
        assert near(png[15, x], (*BLUE, 255)) and near(pdf[15, x], BLUE), x
    for x in (2, 38, 60):
        assert png[15, x, 3] < 10 and near(pdf[15, x], WHITE), x


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_percentages_inside_a_symbol_are_of_its_viewbox(tmp_path, engine):
    # SVG 2, 8.9: inside a <symbol viewBox="0 0 20 10"> a percentage is of that viewBox, whatever the
    # <use>'s size: the rect is 25 % x 50 % = 5 x 5 units, the line x 10..20 at y 8 with a stroke 20 % of
    # the diagonal sqrt((20^2 + 10^2) / 2) = 15.81, so 3.16 wide (y 6.42..9.58). The use's 40 x 40 meets
    # the 20 x 10 viewBox at scale 2, centred: y offset (40 - 20) / 2 = 10; the use is at x 40 of the file,
    # the file (80 x 40, scale 1) at (10, 10) of the canvas. So the rect covers canvas x 50..60, y 20..30,
    # the line x 70..90, y 32.8..39.2. (Of the 80 x 40 viewport around the use instead, the rect would
    # be 20 x 20 units and cover the whole symbol.)
    art = (f'<svg {HEAD} viewBox="0 0 80 40"><symbol id="s" viewBox="0 0 20 10">'
           '<rect width="25%" height="50%" fill="#0000ff"/>'
           '<line x1="50%" y1="80%" x2="100%" y2="80%" stroke="#ff0000" stroke-width="20%"/></symbol>'
           '<use href="#s" x="40" width="40" height="40"/></svg>')
    png, pdf, _, svg = compose(tmp_path, (100, 60), {"a": (art, (10, 10), (80, 40))}, engine=engine)
    for (x, y), colour in (((51, 21), BLUE), ((58, 28), BLUE), ((72, 34), RED), ((80, 36), RED), ((88, 38), RED)):
        assert near(png[y, x], (*colour, 255)), (x, y, png[y, x])
        assert near(pdf[y, x], colour), (x, y, pdf[y, x])
    for x, y in ((63, 25), (75, 22), (65, 36), (80, 31), (45, 25)):
        assert png[y, x, 3] < 10, (x, y, png[y, x])
        assert near(pdf[y, x], WHITE), (x, y, pdf[y, x])
    assert b'<rect width="5" height="5"' in svg and b'stroke-width="3.16227766"' in svg


def test_user_space_gradient_defaults_span_the_files_viewport(tmp_path):
    # gradientUnits="userSpaceOnUse" with x1 = 0 %, x2 = 100 % of the file's viewport (40 units): black
    # at the panel's left edge (canvas x 40), mid-grey at its middle (x 60), white at its right (x 80)
    art = (f'<svg {HEAD} viewBox="0 0 40 30"><linearGradient id="g" gradientUnits="userSpaceOnUse">'
           '<stop offset="0" stop-color="#000000"/><stop offset="1" stop-color="#ffffff"/></linearGradient>'
           '<rect width="40" height="30" fill="url(#g)"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (80, 30), {"a": (art, (40, 0), (40, 30))})
    for image in (on_white(png), pdf):
        assert image[15, 60, 0] == pytest.approx(128, abs=12)
        assert image[15, 41, 0] < 20 and image[15, 79, 0] > 235


def test_transform_origin_keywords_resolve_against_the_files_viewport(tmp_path):
    # rotate(90) about "center" = (20, 15), the middle of the 40 x 30 viewport: (x, y) -> (35 - y, x - 5),
    # so the 20 x 10 rect at the origin lands on x 25..35, y -5..15
    art = (f'<svg {HEAD} viewBox="0 0 40 30"><rect width="20" height="10" fill="#0000ff" transform="rotate(90)" '
           'transform-origin="center"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (80, 30), {"a": (art, (0, 0), (40, 30))})
    assert near(png[7, 30], (*BLUE, 255)) and near(pdf[7, 30], BLUE)
    assert png[5, 10, 3] < 10 and png[20, 30, 3] < 10


def test_root_opacity_background_and_nested_svg_opacity_apply_once(tmp_path):
    # root opacity 0.5 over an opaque black rect: alpha 128 (not 64: applied once); a nested <svg> with
    # opacity 0.5 likewise; background-color on the root paints the viewport (the whole 40 x 30 box)
    faded = f'<svg {HEAD} viewBox="0 0 40 30" opacity="0.5"><rect width="40" height="30"/></svg>'
    nested = (f'<svg {HEAD} viewBox="0 0 40 30"><svg width="40" height="30" opacity="0.5">'
              '<rect width="40" height="30"/></svg></svg>')
    backed = (f'<svg {HEAD} viewBox="0 0 20 30" style="background-color: #00ff00">'
              '<rect width="10" height="10" fill="#ff0000"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (140, 30), {"f": (faded, (0, 0), (40, 30)), "n": (nested, (50, 0), (40, 30)),
                                                   "b": (backed, (100, 0), (40, 30))})
    assert png[15, 20, 3] == pytest.approx(128, abs=4) and png[15, 70, 3] == pytest.approx(128, abs=4)
    assert pdf[15, 20, 0] == pytest.approx(128, abs=6) and pdf[15, 70, 0] == pytest.approx(128, abs=6)
    # the 20 x 30 viewBox meets into the 40 x 30 box at x 110..130; the viewport is the box, 100..140
    assert near(png[25, 102], (*GREEN, 255)) and near(png[25, 138], (*GREEN, 255)) and near(pdf[25, 102], GREEN)
    assert near(png[5, 115], (*RED, 255)) and near(pdf[5, 115], RED)
    assert png[15, 95, 3] < 10


def test_a_root_for_another_language_draws_nothing(tmp_path):
    art = (f'<svg {HEAD} viewBox="0 0 40 30" systemLanguage="x-none">'
           '<rect width="40" height="30" fill="#ff0000"/></svg>')
    png, pdf, _, _ = compose(tmp_path, (40, 30), {"a": (art, (0, 0), (40, 30))})
    assert png[..., 3].max() < 10 and near(pdf[15, 20], WHITE)


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_units_inside_the_file_are_96_px_per_inch(tmp_path, engine):
    # a 1in x 1in file without viewBox is 96 x 96 user units; its 0.5in rect is 48 units, half of it:
    # 36 x 36 pt in a 72 x 72 pt box (at the export's 72 dpi a px-per-dpi conversion would give 27 pt)
    art = f'<svg {HEAD} width="1in" height="1in"><rect width="0.5in" height="12.7mm" fill="#0000ff"/></svg>'
    png, pdf, _, _ = compose(tmp_path, (100, 72), {"a": (art, (0, 0), (72, 72))}, engine=engine)
    for x, y in ((30, 30), (34, 5), (5, 34)):
        assert near(png[y, x], (*BLUE, 255)) and near(pdf[y, x], BLUE), (x, y)
    for x, y in ((39, 20), (20, 39), (50, 50)):
        assert png[y, x, 3] < 10 and near(pdf[y, x], WHITE), (x, y)


def test_a_non_scaling_stroke_keeps_its_width_under_transforms(tmp_path):
    # vector-effect: non-scaling-stroke (which the engine does not implement): 2 units wide in the file's
    # 40 x 40 viewport whatever scale(4) says, so 2 pt in the 40 x 40 pt box; the plain stroke beside it
    # is 4 x 2 = 8 pt wide. Rows counted down the column x = 10 (scaled line) and x = 30.
    art = (f'<svg {HEAD} width="40" height="40" viewBox="0 0 40 40"><g transform="scale(4)">'
           '<line x1="0" y1="2.5" x2="5" y2="2.5" stroke="#000000" stroke-width="2" vector-effect="non-scaling-stroke"/>'
           '<line x1="5" y1="7.5" x2="10" y2="7.5" stroke="#000000" stroke-width="2"/></g></svg>')
    png, pdf, _, _ = compose(tmp_path, (40, 40), {"a": (art, (0, 0), (40, 40))})
    assert int((png[:, 10, 3] > 128).sum()) == 2 and int((pdf[:, 10, 0] < 128).sum()) == 2
    assert int((png[:, 30, 3] > 128).sum()) == 8 and int((pdf[:, 30, 0] < 128).sum()) == 8


def test_a_plain_drawing_is_cut_at_its_viewport_and_spares_its_neighbours(tmp_path):
    """Issue #23: an off-page scrap (a plain drawing, nothing relative in it) is cut at the file's viewport,
    as every viewer cuts the file alone. The 10 x 10 viewBox is drawn in a 20 x 20 pt box at the origin
    (scale 2): the green square fills x 0..20, the scrap at x 10..30 of the file would cover canvas
    x 20..60, over the empty gap (20..40) and panel b's blue square (40..60); it ends at x 20 exactly."""
    scrap = (f'<svg {HEAD} viewBox="0 0 10 10"><rect width="10" height="10" fill="#00ff00"/>'
             '<rect x="10" width="20" height="10" fill="#ff0000"/></svg>')
    blue = f'<svg {HEAD} viewBox="0 0 20 20"><rect width="20" height="20" fill="#0000ff"/></svg>'
    png, pdf, _, _ = compose(tmp_path, (60, 20), {"b": (blue, (40, 0), (20, 20)), "a": (scrap, (0, 0), (20, 20))})
    for x in (1, 10, 19):
        assert near(png[10, x], (*GREEN, 255)) and near(pdf[10, x], GREEN), (x, png[10, x], pdf[10, x])
    for x in (20, 21, 30, 39):
        assert png[10, x, 3] < 10 and near(pdf[10, x], WHITE), (x, png[10, x], pdf[10, x])
    for x in (41, 50, 59):
        assert near(png[10, x], (*BLUE, 255)) and near(pdf[10, x], BLUE), (x, png[10, x], pdf[10, x])


def test_a_file_without_a_size_is_an_image_of_the_default_size_and_a_zero_size_draws_nothing(tmp_path):
    """No width, height or viewBox (or negative ones): a browser draws an image of the file at the default
    object size, 300 x 150 CSS px (CSS Images 3, 5.2); fitted in a 60 x 30 pt box that is scale 0.2, so the
    100 x 200 px rect covers x 0..20 and is cut at the viewport's bottom, 150 px: y 0..30, not 40. A zero
    width disables the file's rendering (SVG 2, 8.2): nothing drawn, nothing refused."""
    unsized = f'<svg {HEAD}><rect width="100" height="200" fill="#0000ff"/></svg>'
    negative = f'<svg {HEAD} width="-50" height="-100"><rect width="100" height="200" fill="#0000ff"/></svg>'
    zero = f'<svg {HEAD} width="0" height="0"><rect width="100" height="200" fill="#ff0000"/></svg>'
    png, pdf, _, _ = compose(tmp_path, (200, 40), {"u": (unsized, (0, 0), (60, 30)), "n": (negative, (70, 0), (60, 30)),
                                                   "z": (zero, (140, 0), (60, 30))})
    for dx in (0, 70):
        for x, y in ((dx + 2, 2), (dx + 18, 28)):
            assert near(png[y, x], (*BLUE, 255)) and near(pdf[y, x], BLUE), (x, y, png[y, x], pdf[y, x])
        for x, y in ((dx + 22, 10), (dx + 10, 32), (dx + 10, 38)):
            assert png[y, x, 3] < 10 and near(pdf[y, x], WHITE), (x, y, png[y, x], pdf[y, x])
    assert png[:, 140:, 3].max() < 10 and near(pdf[20, 170], WHITE)


def test_a_root_whose_style_says_overflow_visible_is_still_cut_at_its_viewport(tmp_path):
    """A file alone is cut at its viewport whatever its root's ``overflow``: the attribute was honoured,
    but ``style="overflow: visible"`` on the root, or a rule ``svg { overflow: visible }``, carried onto
    the kept viewport and the file's off-page rect (-10..30 in a 20 x 20 viewBox) painted 10 pt around
    its box. Boxes 20 x 20 pt at (10, 10) and (40, 10) at scale 1: red exactly x 10..30 and 40..60, y 10..30."""
    rect = '<rect x="-10" y="-10" width="40" height="40" fill="#ff0000"/>'
    styled = f'<svg {HEAD} viewBox="0 0 20 20" style="overflow: visible; fill: #00ff00">{rect}</svg>'
    ruled = f'<svg {HEAD} viewBox="0 0 20 20"><style>svg {{ overflow: visible }}</style>{rect}</svg>'
    png, pdf, _, _ = compose(tmp_path, (70, 40), {"s": (styled, (10, 10), (20, 20)), "r": (ruled, (40, 10), (20, 20))})
    for x, y in ((11, 11), (28, 28), (41, 11), (58, 28)):
        assert near(png[y, x], (*RED, 255)) and near(pdf[y, x], RED), (x, y, png[y, x], pdf[y, x])
    for x, y in ((5, 5), (8, 20), (35, 20), (20, 33), (50, 5), (65, 20), (50, 35)):
        assert png[y, x, 3] < 10 and near(pdf[y, x], WHITE), (x, y, png[y, x], pdf[y, x])
