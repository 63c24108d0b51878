"""``compose check`` on imported text: its real anchor and font, and findings limited per panel (issue #14, item 9).

Expected extents are worked out with Pillow's own layout of the same font file (``ImageFont.getlength``,
independent of matplotlib's text_to_path the check uses): DejaVu Sans at 14 px sets "A centred title
text" 131.55 px wide; centred at x = 100 it spans 34.2 .. 165.8 px.
"""

from __future__ import annotations

import pytest
from matplotlib import font_manager
from PIL import ImageFont

from composer.errors import LayoutError
from composer.pipeline import check
from composer.svg.measure import scene
from conftest import layout_project

TITLE = "A centred title text"


def width_px(text: str, size: float) -> float:
    font = ImageFont.truetype(font_manager.findfont("DejaVu Sans"), 1000)
    return font.getlength(text) / 1000 * size


@pytest.mark.parametrize("how", [
    'text-anchor="middle"',  # attribute
    'style="text-anchor: middle"',  # inline style
    'class="c"',  # a <style> rule
    "parent",  # inherited from a <g>
])
def test_text_anchor_from_attribute_style_class_or_parent_is_measured(how):
    own = "" if how == "parent" else how
    text = f'<text {own} x="100" y="30" font-size="14" font-family="DejaVu Sans">{TITLE}</text>'
    if how == "parent":
        text = f'<g style="text-anchor: middle">{text}</g>'
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 40"><style>.c {{ text-anchor: middle }}</style>'
           f'<g id="panel-p">{text}</g></svg>').encode()
    (run,) = [r for r in scene(svg).texts if r.label == TITLE]
    half = width_px(TITLE, 14) / 2
    assert run.bbox[0] == pytest.approx(100 - half, abs=0.3)
    assert run.bbox[2] == pytest.approx(100 + half, abs=0.3)
    assert not run.estimated


def test_end_anchor_and_a_bold_font_are_measured_with_that_font():
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 40"><g id="panel-p">'
           b'<text x="190" y="20" font-size="10" font-family="DejaVu Sans" font-weight="bold" text-anchor="end">'
           b'Wide bold words</text></g></svg>')
    (run,) = scene(svg).texts
    font = ImageFont.truetype(font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans",
                                                                              weight="bold")), 1000)
    width = font.getlength("Wide bold words") / 1000 * 10
    assert run.bbox[0] == pytest.approx(190 - width, abs=0.3) and run.bbox[2] == pytest.approx(190, abs=0.01)


SVG = f'''<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" viewBox="0 0 200 40">
<style>.c {{ text-anchor: middle }}</style>
<g style="text-anchor: end"><text x="196" y="12" font-size="10" font-family="DejaVu Sans">right aligned</text></g>
<text class="c" x="100" y="32" font-size="14" font-family="DejaVu Sans">{TITLE}</text>
<text x="150" y="20" font-size="10" font-family="DejaVu Sans">spills out on purpose</text>
</svg>'''


def project(tmp_path, check_table: str = "", svg: str = SVG):
    root = layout_project(tmp_path, f'''
[panels.p]
svg = "../assets/t.svg"
at = ["0pt", "0pt"]
size = ["150pt", "30pt"]
{check_table}''', head='width = "150pt"\nheight = "30pt"\n')
    (root / "assets").mkdir(exist_ok=True)
    (root / "assets" / "t.svg").write_text(svg, encoding="utf-8")
    return root


def test_centred_and_right_aligned_imported_text_is_inside_and_spilling_text_is_found(tmp_path):
    report = check("fig", root=project(tmp_path), jobs=1)
    # only the text starting at x = 150 px (112.5 pt) and 'spills out' passes the right edge
    rules = sorted((f.rule, f.element) for f in report.findings)
    assert rules == [("outside-canvas", "panel p: 1 text"), ("outside-panel", "panel p: 'spills out …'")], rules


def test_check_ignore_leaves_out_a_panels_findings_and_says_so(tmp_path):
    root = project(tmp_path, '\n[check]\nignore = { p = ["outside-canvas", "outside-panel"] }\n')
    report = check("fig", root=root, jobs=1)
    assert report.findings == () and report.ok
    assert "panel p: 1 outside-canvas finding not reported ([check] ignore)" in report.notes
    assert "panel p: 1 outside-panel finding not reported ([check] ignore)" in report.notes


def test_check_ignore_of_one_rule_keeps_the_others(tmp_path):
    report = check("fig", root=project(tmp_path, '\n[check]\nignore = { p = ["outside-panel"] }\n'), jobs=1)
    assert [f.rule for f in report.findings] == ["outside-canvas"]


@pytest.mark.parametrize("table, message", [
    ('ignore = { p = ["outside-pannel"] }', "'outside-pannel' is not a rule of compose check; did you mean "
                                            "'outside-panel'?"),
    ('ignore = { q = ["overlap"] }', "'q' is not a panel; panels are p"),
])
def test_check_ignore_names_are_checked(tmp_path, table, message):
    with pytest.raises(LayoutError) as caught:
        check("fig", root=project(tmp_path, f"\n[check]\n{table}\n"), jobs=1)
    assert message in str(caught.value) and "check.ignore." in str(caught.value)


def test_check_ignore_must_be_a_table_of_lists(tmp_path):
    with pytest.raises(LayoutError, match=r"check.ignore.p.*is not a list of rule names"):
        check("fig", root=project(tmp_path, '\n[check]\nignore = { p = "overlap" }\n'), jobs=1)
