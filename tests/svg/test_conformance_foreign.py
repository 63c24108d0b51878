"""Issue #23: text-only HTML in a ``<foreignObject>`` (draw.io's and mermaid's labels) is drawn as a browser
lays it out, in the PNG and the PDF; the expected places come from the CSS box geometry of each file,
worked out by hand (72 dpi: one pt per pixel; the files' user units are pt-sized boxes at scale 1).
"""

from __future__ import annotations

import numpy as np
from conformance_helpers import HEAD, compose

#: draw.io's markup for a label centred in the 120 x 60 box at (160, 30): a flex container 118 px wide and
#: 1 px tall at (161, 60) centres its item on x = 161 + 118 / 2 = 220 and y = 60 + 1 / 2 = 60.5, drawn in a
#: group shifted by (-0.5, -0.5): the label's middle is (219.5, 60); then draw.io's closing notice, whose
#: first switch branch (an empty <g requiredFeatures>) is what a browser draws
DRAWIO = (
    f'<svg {HEAD} width="300" height="100" viewBox="0 0 300 100"><g transform="translate(-0.5 -0.5)"><switch>'
    '<foreignObject style="overflow: visible; text-align: left;" pointer-events="none" width="100%" height="100%" '
    'requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility"><div xmlns="http://www.w3.org/1999/xhtml" '
    'style="display: flex; align-items: unsafe center; justify-content: unsafe center; width: 118px; height: 1px; '
    'padding-top: 60px; margin-left: 161px;"><div style="box-sizing: border-box; font-size: 0px; text-align: center;">'
    '<div style="display: inline-block; font-size: 12px; font-family: DejaVu Sans; color: rgb(0, 0, 255); '
    'line-height: 1.2; white-space: normal; overflow-wrap: normal;">HEHEH</div></div></div></foreignObject>'
    '<text x="220" y="64" fill="rgb(255, 0, 0)" font-size="12px" text-anchor="middle">HE...</text></switch></g>'
    # the same label with more words than fit in 60 px (five capitals at 12 px are 42 px wide in DejaVu Sans:
    # H 0.752 em, E 0.632 em): three lines of 14.4 px (43.2 px) centred on y = 60 - 0.5 + 0.5
    '<g transform="translate(-0.5 -0.5)"><foreignObject width="100%" height="100%"><div '
    'xmlns="http://www.w3.org/1999/xhtml" style="display: flex; align-items: unsafe center; justify-content: '
    'unsafe center; width: 60px; height: 1px; padding-top: 60px; margin-left: 21px;"><div style="text-align: '
    'center;"><div style="display: inline-block; font-size: 12px; font-family: DejaVu Sans; color: #0000ff; '
    'line-height: 1.2;">HEHEH HEHEH HEHEH</div></div></div></foreignObject></g>'
    '<switch><g requiredFeatures="http://www.w3.org/TR/SVG11/feature#Extensibility"/><a transform="translate(0,-5)">'
    '<text text-anchor="middle" font-size="10px" x="50%" y="100%" fill="#ff0000">Text is not SVG - cannot display'
    '</text></a></switch></svg>')

#: mermaid's: the root's style sheet gives the font size (16 px, inherited into the HTML) and the label's colour;
#: a block 80 px wide at the foreignObject's (10, 10) centres the line on x = 50; line-height 1.5: a 24 px line
#: box from y 10 to 34, whose middle (22) the text's ink straddles (mermaid's sheet takes the <p>'s 1em margins
#: off; with them, the text would start 16 px lower, cut at the foreignObject's bottom, y 34, as the second
#: label shows: only the top 8 px of its line box are drawn, y 26..34, as a browser cuts it)
MERMAID = (
    f'<svg {HEAD} id="m" width="100" height="50" viewBox="0 0 100 50"><style>#m {{ font-size: 16px; '
    'font-family: DejaVu Sans; }} #m .nodeLabel {{ color: #00aa00; }} #m p {{ margin: 0; }}</style><g class="label">'
    '<foreignObject x="10" y="10" width="80" height="24"><div xmlns="http://www.w3.org/1999/xhtml" '
    'style="display: block; width: 80px; white-space: nowrap; line-height: 1.5; text-align: center;">'
    '<span class="nodeLabel"><p>HEH</p></span></div></foreignObject></g>'
    '<foreignObject x="10" y="10" width="80" height="24" style="color: #0000ff"><div xmlns="http://www.w3.org/1999/xhtml" '
    'style="line-height: 1.5; text-align: center;"><div style="margin-top: 16px">HEH</div></div></foreignObject></svg>').replace("{{", "{").replace("}}", "}")


def ink(image: np.ndarray, colour: tuple[int, int, int], box: tuple[int, int, int, int]) -> tuple[float, ...]:
    """(left, right, top, bottom) of the pixels near ``colour`` (RGB, on white or transparent) inside
    ``box`` = (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    rgb = image[y0:y1, x0:x1, :3].astype(int)
    if image.shape[2] == 4:  # transparent canvas: composite on white
        alpha = image[y0:y1, x0:x1, 3:4] / 255.0
        rgb = (rgb * alpha + 255 * (1 - alpha)).astype(int)
    white = np.array([255, 255, 255])
    # a pixel of that hue: its distance from white mostly along the colour's direction
    direction = white - np.array(colour)
    amount = ((white - rgb) @ direction) / float(direction @ direction)
    off_axis = np.abs((white - rgb) - amount[..., None] * direction).max(axis=2)
    ys, xs = np.nonzero((amount > 0.5) & (off_axis < 60))
    assert len(xs), f"no {colour} pixels in {box}"
    return x0 + xs.min(), x0 + xs.max() + 1, y0 + ys.min(), y0 + ys.max() + 1


def test_drawio_labels_are_drawn_centred_and_wrapped_and_the_notice_is_not(tmp_path):
    png, pdf, messages, svg = compose(tmp_path, (300, 100), {"d": (DRAWIO, (0, 0), (300, 100))})
    for image in (png, pdf):
        left, right, top, bottom = ink(image, (0, 0, 255), (150, 30, 290, 90))
        assert abs((left + right) / 2 - 219.5) <= 1.5, (left, right)  # centred on the flex container
        assert 52.3 <= top and bottom <= 67.3 and abs((top + bottom) / 2 - 60) <= 3, (top, bottom)  # its line box
        assert 20 < right - left < 60  # one line of five capitals at 12 px, not the fallback's "HE..."
        left, right, top, bottom = ink(image, (0, 0, 255), (0, 20, 110, 100))
        assert abs((left + right) / 2 - 50.5) <= 1.5 and right - left <= 62, (left, right)  # wrapped in 60 px
        # three lines of 14.4 px centred on y = 60: the ink spans more than two lines, inside 38.4..81.6
        assert bottom - top > 2 * 14.4 and 37.9 <= top and bottom <= 82.1, (top, bottom)
    red = (png[..., 0] > 150) & (png[..., 1] < 100) & (png[..., 3] > 100)
    assert not red.any()  # neither the shortened fallback nor "Text is not SVG - cannot display"
    assert b"foreignObject" not in svg and b"cannot display" not in svg and b"HE..." not in svg
    assert not [m for m in messages if "foreignObject" in m]


def test_mermaid_labels_take_the_style_sheets_font_and_colour(tmp_path):
    png, pdf, _, svg = compose(tmp_path, (100, 50), {"m": (MERMAID, (0, 0), (100, 50))})
    for image in (png, pdf):
        left, right, top, bottom = ink(image, (0, 170, 0), (0, 0, 100, 50))
        assert abs((left + right) / 2 - 50) <= 1.5, (left, right)
        assert 10 <= top and bottom <= 34 and abs((top + bottom) / 2 - 22) <= 4, (top, bottom)
        # 16 px capitals: the ink of "H" is the cap height, 0.73 em in DejaVu Sans (11.7 px), not 12 px text's 8.8
        assert 10.5 <= bottom - top <= 13, (top, bottom)
        left, right, top, bottom = ink(image, (0, 0, 255), (0, 0, 100, 50))
        assert abs((left + right) / 2 - 50) <= 1.5 and 26 <= top and bottom <= 34, (left, right, top, bottom)
    assert b"font-size: 16px" in svg  # in the text's style: over the sheet's rules, as the HTML's own size is


#: what a browser draws nothing of, and says nothing about: mermaid's empty edge label, Illustrator's private
#: data in a <switch> (its requiredExtensions fails: the <g> after it is drawn, green); a web font the file loads
#: (@font-face with a URL: composer reads none, the text is drawn in the installed font); a label's background
#: (mermaid's .edgeLabel: #ffff00 behind the run, over its content area as Chromium paints an inline box: DejaVu
#: Sans' hhea ascent 1901/2048 and descent 483/2048 of 16 px, each rounded, 15 + 4 px, in a 24 px line box
#: (line-height 1.5) whose half-leading (24 - 19) / 2 is floored to 2: y 12..31, as Chromium draws it)
QUIET = (
    f'<svg {HEAD} xmlns:i="http://ns.adobe.com/AdobeIllustrator/10.0/" width="100" height="50" viewBox="0 0 100 50">'
    '<style>@font-face { font-family: "Web Font"; src: url(https://fonts.example.org/web.woff2) format("woff2"); }'
    ' .edgeLabel { background-color: #ffff00; }</style>'
    '<foreignObject width="0" height="0"><div xmlns="http://www.w3.org/1999/xhtml"><span class="edgeLabel">'
    '</span></div></foreignObject>'
    '<switch><foreignObject requiredExtensions="http://ns.adobe.com/AdobeIllustrator/10.0/" width="1" height="1">'
    '<i:pgfRef/></foreignObject><g><rect x="90" y="40" width="10" height="10" fill="#00ff00"/></g></switch>'
    '<foreignObject x="10" y="10" width="80" height="24"><div xmlns="http://www.w3.org/1999/xhtml" '
    'style="width: 80px; line-height: 1.5; text-align: center; font-size: 16px; font-family: \'Web Font\', '
    'DejaVu Sans;"><span class="edgeLabel">HEH</span></div></foreignObject></svg>')


def test_what_a_browser_draws_nothing_of_is_silent_and_a_label_background_is_drawn(tmp_path):
    png, pdf, messages, svg = compose(tmp_path, (100, 50), {"q": (QUIET, (0, 0), (100, 50))})
    assert not [m for m in messages if "foreignObject" in m], messages
    fonts = [m for m in messages if "@font-face" in m]
    assert len(fonts) == 1 and "'Web Font'" in fonts[0] and "art/q.svg" in fonts[0], messages
    for image in (png, pdf):
        assert tuple(image[45, 95][:3]) == (0, 255, 0), image[45, 95]
        left, right, top, bottom = ink(image, (255, 255, 0), (0, 0, 100, 50))
        assert top == 12 and bottom == 31 and abs((left + right) / 2 - 50) <= 1.5, (left, right, top, bottom)
        assert tuple(image[13, 50][:3]) == (255, 255, 0)  # above the capitals, inside the content area
    assert b"fonts.example.org" not in svg and b"pgfRef" not in svg


def test_the_family_drawn_is_the_first_of_the_list_the_system_has():
    """As Chromium walks a font-family list (mermaid's ``"trebuchet ms", verdana, arial, sans-serif``): a family
    fontconfig lacks (its match is fontconfig's last resort) is passed over; DejaVu Sans (installed with
    fonts-dejavu-core, as CI installs it) is taken; a generic family ends the walk."""
    from composer.text.html import browser_stack

    assert browser_stack('"No Such Family 1", \'No Such Family 2\', DejaVu Sans, sans-serif') == "DejaVu Sans, sans-serif"
    assert browser_stack('"No Such Family 1", serif') == "serif"
    assert browser_stack("No Such Family 1") == "No Such Family 1"  # none: as written, for the later passes


def test_compose_check_reports_what_is_not_drawn_once_per_file(tmp_path):
    """The HTML left out and the web fonts not loaded are import-feature findings of their panel (the check
    reports what a file draws differently from a browser), once each, whatever their count in the file."""
    import warnings as _warnings

    from composer.pipeline import check

    art = (f'<svg {HEAD} width="40" height="20" viewBox="0 0 40 20"><style>@font-face {{ font-family: Web; '
           'src: url(https://fonts.example.org/w.woff2); }</style>'
           + '<foreignObject width="40" height="20"><div xmlns="http://www.w3.org/1999/xhtml"><table><tr><td>a'
             '</td></tr></table></div></foreignObject>' * 2 + '<rect width="4" height="4"/></svg>')
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "art").mkdir()
    (root / "art" / "h.svg").write_text(art.replace("{{", "{").replace("}}", "}"), encoding="utf-8")
    (root / "layouts" / "fig.toml").write_text('[figure]\nwidth = "40pt"\nheight = "20pt"\n[panels.h]\n'
                                               'svg = "../art/h.svg"\nat = ["0pt", "0pt"]\nsize = ["40pt", "20pt"]\n')
    with _warnings.catch_warnings():
        _warnings.simplefilter("ignore")
        report = check("fig", root=root)
    found = [f for f in report.findings if f.rule == "import-feature"]
    problems = sorted(f.problem for f in found)
    assert len(found) == 2, problems
    assert "HTML other than text in <foreignObject> (2 not drawn)" in problems[0]
    assert "web fonts (@font-face) ('Web' not loaded)" in problems[1]
