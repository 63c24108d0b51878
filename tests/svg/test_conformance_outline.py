"""Issue #23, icons and illustrations drawn otherwise than alone (the corpus's bioicons, Inkscape and Servier
files): each input is written here, checked on PNG pixels and on pdfium's render of the PDF (72 dpi, 1 pt =
1 px), against values worked out by hand from the SVG specification.

One build (the module's fixture) composes every case as a panel of one canvas, each file's user unit one pt:

    l  paint servers that take their transform through href   at (0, 0), 40 x 30
    h  an HTML label inside a stroked group                   at (50, 0), 60 x 30
"""

from __future__ import annotations

import pytest
from conformance_helpers import HEAD, compose, near

#: three paint servers whose transform is the linked one's (SVG 1.1, 13.2.2-13.3: an attribute a gradient or
#: pattern does not say is the one its href names says, down the chain):
#: - a linear gradient C -> B -> A; A's vector from x 0 to 10, red then blue from its middle (a hard step),
#:   moved 20 right: the step at x = 20 + 5 = 25 (without A's transform: at 5);
#: - a pattern of 10 x 10 tiles, black on the left 5 of each, moved 5 right: black where (x - 5) mod 10 < 5;
#: - a radial gradient with its own r = 10 about (0, 0), yellow to radius 5 then green, moved to (20, 25).
LINKED = (f'<svg {HEAD} width="40" height="30" viewBox="0 0 40 30"><defs>'
          '<linearGradient id="a" x1="0" x2="10" gradientUnits="userSpaceOnUse" gradientTransform="translate(20 0)">'
          '<stop offset="0.5" stop-color="#ff0000"/><stop offset="0.5" stop-color="#0000ff"/></linearGradient>'
          '<linearGradient id="b" xlink:href="#a"/><linearGradient id="c" x1="0" xlink:href="#b"/>'
          '<pattern id="p" width="10" height="10" patternUnits="userSpaceOnUse" patternTransform="translate(5 0)">'
          '<rect width="5" height="10" fill="#000000"/></pattern><pattern id="q" href="#p"/>'
          '<radialGradient id="r" cx="0" cy="0" r="3" gradientUnits="userSpaceOnUse"'
          ' gradientTransform="translate(20 25)"><stop offset="0.5" stop-color="#ffff00"/>'
          '<stop offset="0.5" stop-color="#008000"/></radialGradient><radialGradient id="s" r="10" xlink:href="#r"/>'
          '</defs><rect width="40" height="10" fill="url(#c)"/><rect y="10" width="40" height="10" fill="url(#q)"/>'
          '<rect y="20" width="40" height="10" fill="url(#s)"/></svg>')


#: mermaid's ``classDef hot`` strokes a node's children (``.hot>*{stroke:#333!important;stroke-width:2px}``), among
#: them the group of its label's foreignObject; HTML text is painted with its colour only (CSS ``stroke`` does
#: not apply to HTML), so a browser draws the white label unstroked: white ink, nothing dark anywhere
HTML_IN_STROKED = (f'<svg {HEAD} width="60" height="30" viewBox="0 0 60 30"><style>.hot&gt;*{{stroke:#000000'
                   '!important;stroke-width:3px!important}}</style><g class="hot"><g class="label">'
                   '<foreignObject x="5" y="5" width="50" height="20"><div xmlns="http://www.w3.org/1999/xhtml" '
                   'style="font-size: 16px; font-family: DejaVu Sans; color: #ffffff; line-height: 20px">HEH</div>'
                   '</foreignObject></g></g></svg>')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(PNG RGBA, pdfium's RGB of the PDF, the build's warnings, the composed SVG)."""
    return compose(tmp_path_factory.mktemp("outline"), (110, 30), {"l": (LINKED, (0, 0), (40, 30)),
                                                                    "h": (HTML_IN_STROKED, (50, 0), (60, 30))})


def test_a_paint_server_takes_its_transform_through_its_link(built):
    """Bioicons' cells_side_view shares each gradient's stops and transform through an ``xlink:href`` that
    carries only cx/cy/r; the engine's usvg drew those gradients untransformed (seven of nine cells lost
    their highlight). Panel l: the linear gradient red left of x = 25 and blue right of it; the pattern
    black at x 5-10 and 15-20, empty at 0-5 and 10-15; the radial gradient yellow at its centre (20, 25),
    green 7 px from it; in the PNG and in the PDF."""
    png, pdf, _, _ = built
    red, blue, black, yellow, green = (255, 0, 0), (0, 0, 255), (0, 0, 0), (255, 255, 0), (0, 128, 0)
    for (x, y), colour in (((15, 5), red), ((23, 5), red), ((27, 5), blue), ((35, 5), blue),
                           ((7, 15), black), ((17, 15), black), ((2, 15), None), ((12, 15), None),
                           ((19, 24), yellow), ((12, 25), green), ((28, 25), green)):
        if colour is None:
            assert png[y, x, 3] == 0 and near(pdf[y, x], (255, 255, 255)), (x, y, png[y, x], pdf[y, x])
        else:
            assert near(png[y, x], (*colour, 255)) and near(pdf[y, x], colour), (x, y, png[y, x], pdf[y, x])


def test_html_text_takes_no_stroke_from_the_svg_around_it(built):
    """Panel h: the white "HEH" is drawn (white ink of some alpha in the PNG, in the label's box x 55-105,
    y 5-25) and nothing dark anywhere in the panel, in the PNG and in the PDF (on its white page: all white);
    the label's text had inherited the group's 3 px black stroke."""
    png, pdf, _, _ = built
    panel_png, panel_pdf = png[:, 50:110], pdf[:, 50:110]
    assert panel_png[5:25, 5:55, 3].max() > 200 and panel_png[:, :, 3][panel_png[:, :, 0] < 200].max(initial=0) == 0
    assert panel_pdf.min() >= 250

