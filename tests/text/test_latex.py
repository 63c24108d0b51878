"""Canvas text written in LaTeX (``math = "latex"``, composer/text/latex.py), measured on one built figure.

The numbers come from Computer Modern itself, not from composer: its fonts' TFM files (``tftopl cmr7``,
``tftopl cmr10``) give the x-height 0.430555 em (XHEIGHT) and the height of ``H`` 0.683333 em at every
design size, and an ``x`` and an ``H`` sit on the baseline with flat tops and bottoms (serifs), so their
outlines are exactly that tall. composer's pt is 1/72 in; the TeX text is set so that its em is the
style's size in these points. A plain text's first baseline is 0.76 em below its box's top (DejaVu Sans's
ascender, composer.text.metrics.MIN_ASCENT), and a one-line LaTeX text of letters no taller has its
baseline there too, so an ``H`` set either way at the same anchor stands on the same line.

One figure is built once for the module (one TeX run per text, about 0.5 s each); the error tests typeset
single short texts or none (missing programs, a bad value).
"""

from __future__ import annotations

import os

import pytest
from lxml import etree

from composer.errors import LayoutError
from composer.layout.model import TextStyle
from composer.pipeline import build, check
from composer.svg.measure import path_points
from conftest import REPO, layout_project, pdf_pixels

SVG = "{http://www.w3.org/2000/svg}"
HOWTO = REPO / "docs" / "howto" / "latex.md"
XHEIGHT_EM, CAP_EM = 0.430555, 0.683333  # Computer Modern (TFM of cmr7 and cmr10)
ASCENT_EM = 0.76  # a plain line's least ascent (DejaVu Sans's hhea ascender)
AT_Y_PT = 20.0  # every text of the first row has its top-left (anchor "nw") at this y

FIGURE = r"""
[[text]]
name = "ex"
text = "x"
at = ["10pt", "20pt"]
anchor = "nw"

[[text]]
name = "cap"
text = "H"
at = ["30pt", "20pt"]
anchor = "nw"

[[text]]
name = "plain"
text = "H"
math = "mathtext"
at = ["50pt", "20pt"]
anchor = "nw"

[[text]]
name = "big"
text = "H"
size = "10pt"
at = ["70pt", "20pt"]
anchor = "nw"

[[text]]
name = "eq"
text = '$\frac{{a}}{{b}} = \sqrt{{x^2+1}}$'
color = "#cc0000"
at = ["10pt", "50pt"]
anchor = "nw"

[[text]]
name = "tiny"
text = '$y$'
size = "4pt"
at = ["110pt", "20pt"]
anchor = "nw"

[[shape]]
kind = "rect"
at = ["70pt", "50pt"]
text = '$\alpha_{{i}}$'

[[arrow]]
from = ["10pt", "90pt"]
to = ["110pt", "90pt"]
label = '$\sum_k k$'
"""


@pytest.fixture(scope="module")
def figure(tmp_path_factory):
    root = layout_project(tmp_path_factory.mktemp("latex"), FIGURE,
                          head='width = "160pt"\nheight = "110pt"\nfont_size = "7pt"\nmath = "latex"\n')
    result = build("fig", root=root, formats=("svg", "pdf"), dpi=72, cache=False)
    svg = etree.fromstring(result.outputs["svg"].read_bytes())
    return root, svg, result.outputs["pdf"].read_bytes()


def element(svg, ident: str):
    found = svg.find(f".//*[@id='{ident}']")
    assert found is not None, ident
    return found


def ink(el) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) pt of the outline of ``el`` (its paths' points, curves cut into chords)."""
    points = [p for path in el.iter(f"{SVG}path") for sub in path_points(path.get("d")) for p in sub]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize(("ident", "size_pt", "em"), [("text-ex", 7.0, XHEIGHT_EM), ("text-cap", 7.0, CAP_EM),
                                                        ("text-big", 10.0, CAP_EM)])
def test_glyphs_are_the_size_of_the_text(figure, ident, size_pt, em):
    """An x is the x-height tall and an H the cap height, of Computer Modern at the text's size."""
    _, svg, _ = figure
    x0, y0, x1, y1 = ink(element(svg, ident))
    assert y1 - y0 == pytest.approx(em * size_pt, abs=0.01)
    assert element(svg, ident).get("data-font-size") == f"{size_pt:g}"


def test_the_baseline_is_where_a_plain_text_has_it(figure):
    """A LaTeX H and a mathtext H at the same anchor stand on the same baseline, 0.76 em under the anchor."""
    _, svg, _ = figure
    baseline = AT_Y_PT + ASCENT_EM * 7.0
    assert ink(element(svg, "text-cap"))[3] == pytest.approx(baseline, abs=0.01)
    assert ink(element(svg, "text-plain"))[3] == pytest.approx(baseline, abs=0.01)
    assert ink(element(svg, "text-ex"))[3] == pytest.approx(baseline, abs=0.01)
    assert ink(element(svg, "text-cap"))[0] == pytest.approx(30.0, abs=0.5)  # H's left side bearing is small


def test_the_source_is_the_accessible_text_and_the_colour_is_applied(figure):
    _, svg, _ = figure
    eq = element(svg, "text-eq")
    assert eq.get("aria-label") == r"$\frac{a}{b} = \sqrt{x^2+1}$"
    assert {p.get("fill") for p in eq.iter(f"{SVG}path")} == {"#cc0000"}
    labels = {el.get("aria-label") for el in svg.iter() if isinstance(el.tag, str)}
    assert r"$\alpha_{i}$" in labels and r"$\sum_k k$" in labels  # shape text and arrow label
    # the fraction: a bar (a rule, drawn as a rectangle) between a above and b below, as wide as TeX made it
    x0, y0, x1, y1 = ink(eq)
    assert y1 - y0 > 1.5 * 7.0 * CAP_EM and x1 - x0 > 4 * 7.0 * XHEIGHT_EM


def test_the_pdf_draws_the_equation(figure):
    """pdfium's rendering of the PDF has red ink inside the equation's box and none beside it."""
    _, svg, pdf = figure
    dpi = 288.0
    pixels = pdf_pixels(pdf, dpi=dpi).astype(int)
    scale = dpi / 72.0
    x0, y0, x1, y1 = (round(v * scale) for v in ink(element(svg, "text-eq")))
    inside = pixels[y0:y1, x0:x1]
    red = (inside[..., 0] > 150) & (inside[..., 1] < 110) & (inside[..., 2] < 110)
    assert red.mean() > 0.05
    below = pixels[y1 + 8:y1 + 8 + (y1 - y0), x0:x1]  # the empty canvas under the equation
    assert (below > 245).all()


def test_compose_check_reads_the_size_of_latex_text(figure):
    """The 4 pt LaTeX text is found below the 5 pt minimum, by name; the 7 pt ones are not."""
    root, _, _ = figure
    report = check("fig", root=str(root))
    sizes = [f for f in report.findings if f.rule == "font-size"]
    assert [str(f.element) for f in sizes] == ["text tiny: '$y$'"]
    assert sizes[0].measured == pytest.approx(4.0) and sizes[0].limit == pytest.approx(5.0)


def test_a_latex_error_shows_tex_s_message_and_the_line(tmp_path):
    root = layout_project(tmp_path, '[[text]]\ntext = "fine\\n$\\\\frac{{a}}{{b}} \\\\nosuch$"\nat = ["5mm", "5mm"]\n',
                          head='width = "40mm"\nheight = "30mm"\nmath = "latex"\n')
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "fig.toml:6" in message and "text[0].text" in message, message
    assert "Undefined control sequence" in message and "line 2" in message, message
    assert r'TeX stopped after "$\frac{a}{b} \nosuch"' in message, message
    assert "\n" not in message
    assert message in HOWTO.read_text(encoding="utf-8"), "docs/howto/latex.md quotes this message"


def test_missing_tex_is_one_line_naming_what_to_install(tmp_path, monkeypatch):
    root = layout_project(tmp_path, '[[text]]\ntext = "$x$"\nmath = "latex"\nat = ["5mm", "5mm"]\n')
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "apt-get install texlive-latex-base dvisvgm" in message and "latex and dvisvgm are not installed" in message
    assert "fig.toml:" in message and "text[0].text" in message and "\n" not in message
    assert os.environ["PATH"] == str(empty)
    assert message in HOWTO.read_text(encoding="utf-8"), "docs/howto/latex.md quotes this message"


def test_a_bad_math_value_names_the_choices(tmp_path):
    root = layout_project(tmp_path, '[[text]]\ntext = "$x$"\nmath = "tex"\nat = ["5mm", "5mm"]\n')
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "fig.toml:6" in message and "text[0].math" in message and "'tex'" in message, message
    assert "mathtext" in message and "latex" in message


def test_the_same_text_gives_the_same_outline(figure):
    """Typeset twice more in fresh TeX runs (no cache): the same path data, byte for byte, and the figure's
    H is that outline moved to its box's left and first baseline."""
    from composer.text.latex import typeset_lines
    from composer.text.metrics import translate_d

    _, svg, _ = figure
    style = TextStyle(font="DejaVu Sans", size_pt=7.0, math="latex")
    first, again = typeset_lines("H", style), typeset_lines("H", style)
    assert first == again and first[0].d.startswith("M")
    assert element(svg, "text-cap").get("d") == translate_d(first[0].d, 30.0, AT_Y_PT + ASCENT_EM * 7.0)


def test_the_howtos_example_is_the_gallery_figure():
    """docs/howto/latex.md's layout: the gallery figure's [figure] and some of its tables, as written there."""
    import re
    import tomllib

    [block] = re.findall(r"^```toml\n(.*?)^```$", HOWTO.read_text(encoding="utf-8"), flags=re.M | re.S)
    page = tomllib.loads(block)
    layout = tomllib.loads((REPO / "layouts" / "latex_equations.toml").read_text(encoding="utf-8"))
    assert page["figure"] == layout["figure"] and page["figure"]["math"] == "latex"
    for table in ("text", "arrow"):
        assert page[table] and all(t in layout[table] for t in page[table])


def test_a_figures_latex_is_one_tex_run_and_a_rebuild_none(tmp_path, monkeypatch, user_cache):
    """Three LaTeX texts (a text, a shape's, an arrow's label) are typeset in one TeX run; built again
    with the build's text cache, none (the cache has every block, so nothing is typeset ahead either)."""
    import composer.text.latex as latex

    runs = []
    real = latex.run_tex

    def counted(source, folder, lines):
        runs.append(list(lines))
        return real(source, folder, lines)

    monkeypatch.setattr(latex, "run_tex", counted)
    root = layout_project(tmp_path, """
        [[text]]
        text = '$a_1$'
        at = ["5mm", "5mm"]

        [[shape]]
        kind = "rect"
        at = ["20mm", "5mm"]
        text = '$b_2$'

        [[arrow]]
        from = ["5mm", "20mm"]
        to = ["35mm", "20mm"]
        label = '$c_3$'
        """, head='width = "40mm"\nheight = "30mm"\nmath = "latex"\n')
    build("fig", root=root, formats=("svg",))
    assert runs == [["$a_1$", "$b_2$", "$c_3$"]]
    build("fig", root=root, formats=("svg",))
    assert len(runs) == 1


def test_latex_reads_no_file_outside_tex_s_own(tmp_path):
    """A layout is untrusted input: ``\\input`` of an absolute path is refused by TeX (openin_any = p),
    named in the one-line error, and the file's words are nowhere in it."""
    secret = tmp_path / "secret.tex"
    secret.write_text("SECRETWORD\n", encoding="utf-8")
    root = layout_project(tmp_path, f"[[text]]\ntext = '\\input{{{{{secret}}}}}'\nat = [\"5mm\", \"5mm\"]\n",
                          head='width = "40mm"\nheight = "30mm"\nmath = "latex"\n')
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), cache=False)
    message = str(caught.value)
    assert "LaTeX error" in message and "not found" in message and "SECRETWORD" not in message, message


def test_an_unclosed_formula_and_a_character_latex_lacks_are_told_as_such():
    from composer.stages.typeset import typeset_text

    style = TextStyle(font="DejaVu Sans", size_pt=7.0, math="latex")
    with pytest.raises(LayoutError, match=r"forgotten \$\. TeX stopped at the end of the text \(an unclosed"):
        typeset_text("$x", style, "f.toml", "text[0].text")
    with pytest.raises(LayoutError, match=r"Unicode character α \(U\+03B1\) not set up for use with LaTeX"):
        typeset_text("α", style, "f.toml", "text[0].text")


def test_a_negative_value_s_minus_sign_is_latex_s_minus():
    """A field's negative number is filled with U+2212 (as tick labels have it); in LaTeX it is the math minus,
    the same outline as ``-`` in math."""
    from composer.stages.typeset import typeset_text

    style = TextStyle(font="DejaVu Sans", size_pt=7.0, math="latex")
    filled = typeset_text("$x = \u22121$", style, "f.toml", "text[0].text")
    written = typeset_text("$x = -1$", style, "f.toml", "text[0].text")
    assert filled.lines[0].pieces == written.lines[0].pieces and filled.width_pt == written.width_pt
