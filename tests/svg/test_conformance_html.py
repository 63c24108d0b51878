"""Issue #23: the HTML of a ``<foreignObject>`` laid out as Chromium lays it out (composer/text/html.py), and the
faces and sizes Chromium draws imported text with (composer/text/fonts.py), checked on PNG pixels and pdfium's
render of the PDF of one canvas (72 dpi: one pt per pixel).

Each expected place is worked out by hand from the CSS rules and DejaVu Sans' own metrics (units per em 2048;
hhea ascender 1901, descender -483, line gap 0; OS/2 x-height 1120, cap height 1493): at 16 px its ascent
rounds to 15 px and its descent to 4 (Blink rounds each), a 19 px line box; at 12 px 11 + 3. Chromium's own
layout of each label (DevTools) gave the same numbers.
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose
from test_conformance_foreign import ink

XHTML = 'xmlns="http://www.w3.org/1999/xhtml"'

ART = (
    f'<svg {HEAD} id="m" width="300" height="130" viewBox="0 0 300 130"><style>'
    '#m .labelBkg { background-color: rgba(0, 0, 255, 0.5); } #m .edgeLabel p { background-color: '
    'hsl(-240, 100%, 50%); margin: 0; } #m .edgeLabel rect { opacity: 0.5; }</style>'
    # (a) mermaid's journey label: a table as large as the foreignObject (width and height 100 %) whose cell
    # centres the line (text-align: center; vertical-align: middle): the 19 px line box sits (41 - 19) / 2 = 11
    # px down, its baseline 15 px lower, at y 26; the capitals' middle on x 60
    f'<foreignObject x="0" y="0" width="120" height="41"><div {XHTML} style="display: table; height: 100%; '
    'width: 100%; font-family: DejaVu Sans; font-size: 16px; color: #0000ff;"><div style="display: table-cell; '
    'text-align: center; vertical-align: middle;">HEH</div></div></foreignObject>'
    # (b) draw.io's inline-block with vertical-align: top in the foreignObject's own line: its top on the line
    # box's top (y 50), its baseline 11 px lower (line-height 1.2 at 12 px: 14.4 px, half-leading floored to 0);
    # on the baseline it would sit lower, under the taller strut of the root's 16 px font
    f'<foreignObject x="0" y="50" width="120" height="50"><div {XHTML} style="display: inline-block; '
    'vertical-align: top; font-size: 12px; font-family: DejaVu Sans; line-height: 1.2; color: #ff0000;">HEH</div>'
    '</foreignObject>'
    # (c) mermaid's edge label: a <p> inside a <span> (a block in an inline) painting its own opaque background
    # over the cell's translucent one, both as wide as the shrink-to-fit cell (the text's width, 34 px) and as
    # tall as the 24 px line (line-height 1.5); its colour is hsl(-240, 100%, 50%), green (the hue taken modulo
    # 360); the sheet's rule for the file's own rects in .edgeLabel (opacity 0.5) is not the HTML's
    '<g class="edgeLabel">'
    f'<foreignObject x="140" y="55" width="100" height="24"><div {XHTML} class="labelBkg" style="display: '
    'table-cell; white-space: nowrap; line-height: 1.5; text-align: center; font-family: DejaVu Sans; '
    'font-size: 16px;"><span class="edgeLabel"><p>HEH</p></span></div></foreignObject></g>'
    # (f) mermaid's picture in a label (flowchart3): an <img> made a block, 100 % wide, in a shrink-to-fit cell:
    # the cell takes the picture's width attribute (20 px; a percentage width gives no min-content), the
    # picture that width and, from its attributes' ratio, as tall: a magenta square at (250, 50, 20, 20)
    f'<foreignObject x="250" y="50" width="40" height="40"><div {XHTML} style="display: table-cell; '
    'line-height: 1.5; text-align: center;"><span><p style="margin: 0"><img width="20" height="20" '
    'style="display: flex; width: 100%;" src="data:image/svg+xml,%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 '
    'viewBox=%220 0 10 10%22%3E%3Crect width=%2210%22 height=%2210%22 fill=%22%23ff00ff%22/%3E%3C/svg%3E"/>'
    '</p></span></div></foreignObject>'
    # (d) 4ex of the parent's 16 px DejaVu Sans: its x-height, 1120/2048 em, four times: 35 px, whose capitals
    # are 1493/2048 of that, 25.5 px tall (half an em per ex would give 32 px, capitals 23.3 px)
    '<g font-family="DejaVu Sans" font-size="16"><text x="140" y="40" font-size="4ex" fill="#00aa00">H</text></g>'
    # (e) families named as draw.io and graphviz name them; CSS the layout does not apply (text-transform,
    # a border's line), said once for the file
    f'<foreignObject x="250" y="0" width="50" height="20"><div {XHTML} style="font-family: Helvetica; '
    'font-size: 10px; text-transform: lowercase; border: 1px solid #808080">x</div></foreignObject>'
    '<text x="250" y="40" font-family="Times" font-size="10">x</text>'
    # (g) a list item's disc as Blink draws it: DejaVu Sans' ascent at 12 px rounds to 11; the disc is
    # (11 * 2 // 3 + 1) // 2 = 4 px across, its marker box 11 * 2 // 3 + 8 = 15 px before the content (the
    # list's 40 px padding): from x 25, the disc 1 px in, 26..30; 3 * (11 - 7) // 2 = 6 px below the line's top
    # (the 14.4 px line's half-leading floors to 0): y 106..110. The text itself starts at x 40
    f'<foreignObject x="0" y="100" width="120" height="30"><ul {XHTML} style="margin: 0; font-size: 12px; '
    'font-family: DejaVu Sans; line-height: 1.2; color: #ff8000;"><li>H</li></ul></foreignObject></svg>')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return compose(tmp_path_factory.mktemp("html"), (300, 130), {"a": (ART, (0, 0), (300, 130))})


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_a_table_cell_centres_its_line_both_ways(built, which):
    image = built[0] if which == "png" else built[1]
    left, right, top, bottom = ink(image, (0, 0, 255), (0, 0, 130, 45))
    assert abs((left + right) / 2 - 60) <= 1, (left, right)
    assert bottom == 26, (top, bottom)  # the baseline: 11 + 15


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_an_inline_block_aligned_top_starts_at_the_line_top(built, which):
    image = built[0] if which == "png" else built[1]
    left, right, top, bottom = ink(image, (255, 0, 0), (0, 45, 130, 100))
    assert bottom == 61 and left == 1, (left, top, bottom)  # baseline 50 + 11; H's left side bearing 1.2 px


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_a_block_inside_an_inline_paints_its_background_over_the_cell(built, which):
    image = built[0] if which == "png" else built[1]
    for x, y in ((141, 56), (172, 77)):  # inside the 34 x 24 label, off the text: the <p>'s opaque green
        assert abs(int(image[y, x][0]) - 0) <= 2 and int(image[y, x][1]) >= 253 and int(image[y, x][2]) <= 2, \
            (x, y, image[y, x])
    assert image[60, 180][:3].tolist() != [0, 255, 0]  # right of the 34 px cell: nothing painted


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_a_picture_in_a_label_is_drawn_in_its_box(built, which):
    image = built[0] if which == "png" else built[1]
    assert ink(image, (255, 0, 255), (245, 45, 300, 100)) == (250, 270, 50, 70)


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_a_list_items_disc_is_drawn_where_blink_draws_it(built, which):
    image = built[0] if which == "png" else built[1]
    assert ink(image, (255, 128, 0), (0, 100, 38, 130)) == (26, 30, 106, 110)
    left, _, _, _ = ink(image, (255, 128, 0), (38, 100, 120, 130))
    assert left == 41  # H's left side bearing: 1.2 px


@pytest.mark.parametrize("which", ["png", "pdf"])
def test_ex_is_the_parent_fonts_x_height(built, which):
    image = built[0] if which == "png" else built[1]
    left, right, top, bottom = ink(image, (0, 170, 0), (130, 0, 240, 45))
    assert bottom == 40 and abs((bottom - top) - 25.5) <= 1, (top, bottom)


def test_helvetica_and_times_are_drawn_in_the_faces_chromium_takes():
    """Chromium here draws Helvetica with Liberation Sans and Times with Liberation Serif (DevTools'
    CSS.getPlatformFontsForNode): Skia refuses fontconfig's Nimbus Sans and Nimbus Roman (not in its table of
    metric-compatible faces) and Blink retries with the alternate names Arial and Times New Roman."""
    from composer.text.fonts import browser_font
    from conftest import font_file

    if font_file("Liberation Sans") is None or font_file("Liberation Serif") is None:
        pytest.skip("needs fonts-liberation")
    assert browser_font("Helvetica").family == "Liberation Sans"
    assert browser_font("Times").family == "Liberation Serif"
    assert browser_font("Verdana") is None  # fontconfig's DejaVu Sans is refused: the next family is drawn


def test_the_composed_svg_names_those_faces(built):
    from lxml import etree

    from conftest import font_file

    if font_file("Liberation Sans") is None or font_file("Liberation Serif") is None:
        pytest.skip("needs fonts-liberation")
    found = [(t.get("font-family") or "") + (t.get("style") or "")
             for t in etree.fromstring(built[3]).iter("{http://www.w3.org/2000/svg}text") if t.text == "x"]
    assert len(found) == 2 and any("Liberation Sans" in f for f in found) \
        and any("Liberation Serif" in f for f in found), found


def test_css_the_layout_does_not_apply_is_said_once_for_the_file(built):
    said = [m for m in built[2] if "CSS composer does not lay out" in m]
    assert len(said) == 1 and "art/a.svg" in said[0] and "border, text-transform" in said[0], built[2]
