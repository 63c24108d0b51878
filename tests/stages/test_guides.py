"""``[[legend]] from = [...]`` (issue #13 item 2), checked on built SVGs.

What is expected is worked out by hand from the renderers below: panel ``a`` labels ``alpha`` (blue,
solid, 1.5 pt) and ``beta`` (orange, dashed), panel ``b`` ``alpha`` again (the same style) and
``gamma`` (green bars), so the merged legend reads alpha, beta, gamma. Texts are read back from the
glyph outlines (:func:`composer.svg.measure.scene`: matplotlib's glyph ids name the characters);
positions from the legend frame's path, whose stroke (``patch.linewidth`` = 1 pt, matplotlib's
default) lies half outside it, so its geometric box starts half a line width inside the point asked.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from lxml import etree

from composer.cli.main import main
from composer.errors import ComposerWarning, LayoutError
from composer.incremental.cache import decode_entry, encode_entry
from composer.pipeline import build, check
from composer.stages.guides import LegendEntry
from composer.stages.render import RenderedPanel
from composer.svg.measure import path_points, scene
from conftest import cumulative_transform, layout_project, snapshot

MM = 72 / 25.4
SVG = "{http://www.w3.org/2000/svg}"

PANELS_PY = '''
def lines(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#1f77b4", linewidth=1.5, label="alpha")
    ax.plot([0, 1], [1, 0], color="#ff7f0e", linestyle="--", label="beta")
    ax.legend()

def bars(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0.5, 0.5], color="#1f77b4", linewidth=1.5, label="alpha")
    ax.bar([0, 1], [1, 2], color="#2ca02c", label="gamma")
    ax.legend(loc="upper left")

def clash(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#d62728", linewidth=1.5, label="alpha")
    ax.legend()

def labelled(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.scatter([0, 1], [0, 1], color="#9467bd", marker="s", label="delta")

def faint_wide(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#1f77b480", linewidth=2.5, label="alpha")

def custom(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#8c564b", linewidth=2, dashes=(6, 1, 1, 1), label="eps")
    ax.legend()

def dashed_alpha(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.plot([0, 1], [0, 1], color="#1f77b4", linewidth=1.5, dashes=(5, 2), label="alpha")

def dots(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    for y, colour in enumerate(("#ff0000", "#00ff00", "#0000ff")):
        ax.scatter([0, 1], [y, y], color=colour, marker="o", s=30, label=f"row {y}")

def bands(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.fill_between([0, 1, 2], [0, 1, 0], [1, 2, 1], color="#56b4e9", label="band")
    ax.stackplot([0, 1, 2], [1, 2, 1], colors=["#e69f00"], labels=["stack"])

def math_label(fig, data):
    fig.add_axes([0.2, 0.2, 0.7, 0.7]).plot([0, 1], [0, 1], label=r"$\frac{1}{$")

def cjk_label(fig, data):
    fig.add_axes([0.2, 0.2, 0.7, 0.7]).plot([0, 1], [0, 1], label="\u4e2d")

def bare(fig, data):
    fig.add_axes([0.2, 0.2, 0.7, 0.7]).plot([0, 1], [0, 1])
'''

PANELS = '''
[panels.a]
render = "p:lines"
at = ["0mm", "0mm"]
size = ["40mm", "30mm"]

[panels.b]
render = "p:bars"
at = ["45mm", "0mm"]
size = ["40mm", "30mm"]
'''


def project(tmp_path, body: str, head: str = "") -> object:
    root = layout_project(tmp_path, PANELS + body, head='width = "140mm"\nheight = "60mm"\n' + head)
    (root / "panels").mkdir()
    (root / "panels" / "p.py").write_text(PANELS_PY)
    return root


def built(root, **kw) -> bytes:
    return build("fig", root=root, formats=("svg",), **{"cache": False, **kw}).outputs["svg"].read_bytes()


def legend_texts(svg: bytes, group: str = "legend-0") -> list[str]:
    return [run.text for run in scene(svg).texts if run.top == group]


def frame_box(svg: bytes, group: str = "legend-0") -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1) canvas pt of the legend frame's path (its control points, every transform applied)."""
    root = etree.fromstring(svg)
    legend = root.find(f".//{SVG}g[@id='{group}--legend_1']")
    path = next(legend.iter(f"{SVG}path"))  # the frame (legendPatch) is drawn first
    m = cumulative_transform(path)
    pts = np.array([p for sub in path_points(path.get("d")) for p in sub])
    xy = (m @ np.c_[pts, np.ones(len(pts))].T)[:2].T
    return xy[:, 0].min(), xy[:, 1].min(), xy[:, 0].max(), xy[:, 1].max()


def test_one_legend_with_the_merged_entries_in_order_and_no_panel_legend(tmp_path):
    root = project(tmp_path, '''
[[legend]]
from = ["a", "b"]
at = ["90mm", "5mm"]
anchor = "nw"
''')
    svg = built(root)
    ids = re.findall(rb'id="([^"]*legend_\d+)"', svg)
    assert ids == [b"legend-0--legend_1"]  # one legend: the collected one; a's and b's own are gone
    assert legend_texts(svg) == ["alpha", "beta", "gamma"]  # alpha once (same style in a and b), in order
    group = etree.fromstring(svg).find(f".//{SVG}g[@id='legend-0']")
    assert group.get("{http://www.inkscape.org/namespaces/inkscape}label") == "legend from a, b"
    drawn = etree.tostring(group).decode()
    for colour in ("#1f77b4", "#ff7f0e", "#2ca02c"):  # each entry's handle in its panel's colour
        assert colour in drawn
    assert "stroke-dasharray" in drawn  # beta's dashes
    panels = {p: etree.tostring(etree.fromstring(svg).find(f".//{SVG}g[@id='panel-{p}']")).decode() for p in "ab"}
    assert all("legend" not in text for text in panels.values())


def test_legend_text_is_in_the_figures_font_and_legend_rcparams(tmp_path):
    root = project(tmp_path, '''
[[legend]]
from = ["a"]
at = ["90mm", "5mm"]

[rcparams]
"legend.fontsize" = 9.0
''', head='font = "DejaVu Serif"\n')
    runs = [r for r in scene(built(root)).texts if r.top == "legend-0"]
    assert [r.text for r in runs] == ["alpha", "beta"]
    assert all(r.glyphs and all(g.startswith("legend-0--DejaVuSerif-") for g in r.glyphs) for r in runs)
    assert all(r.size_pt == pytest.approx(9.0, abs=0.01) for r in runs)


@pytest.mark.parametrize("at, anchor", [('["90mm", "5mm"]', "nw"), ('"canvas.se"', "se")])
def test_legend_is_placed_where_asked(tmp_path, at, anchor):
    root = project(tmp_path, f'''
[[legend]]
from = ["a", "b"]
at = {at}
anchor = "{anchor}"
frame = true
''')
    x0, y0, x1, y1 = frame_box(built(root))
    half = 0.5  # half of matplotlib's patch.linewidth (1 pt): the stroke's outer edge is on the point
    if anchor == "nw":
        assert (x0, y0) == (pytest.approx(90 * MM + half, abs=0.01), pytest.approx(5 * MM + half, abs=0.01))
    else:
        assert (x1, y1) == (pytest.approx(140 * MM - half, abs=0.01), pytest.approx(60 * MM - half, abs=0.01))


def test_a_legend_in_a_cell_is_centred_in_it(tmp_path):
    root = project(tmp_path, '''
[grid]
mosaic = "AB"
columns = ["90mm", "50mm"]

[[legend]]
from = ["a", "b"]
cell = "B"
frame = true
''')
    x0, y0, x1, y1 = frame_box(built(root))
    assert (x0 + x1) / 2 == pytest.approx(115 * MM, abs=0.01)  # cell B spans 90 to 140 mm
    assert (y0 + y1) / 2 == pytest.approx(30 * MM, abs=0.01)


def test_a_panel_that_labels_artists_without_a_legend_gives_its_entries(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:labelled"
at = ["90mm", "30mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["c", "a"]
at = ["90mm", "5mm"]
''')
    svg = built(root)
    assert legend_texts(svg) == ["delta", "alpha", "beta"]
    assert "#9467bd" in etree.tostring(etree.fromstring(svg).find(f".//{SVG}g[@id='legend-0']")).decode()


def test_the_legend_draws_a_panels_own_dashes(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:custom"
at = ["90mm", "30mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["c"]
at = ["90mm", "5mm"]
''')
    root_el = etree.fromstring(built(root))

    def dashes(group: str) -> list[str]:
        text = etree.tostring(root_el.find(f".//{SVG}g[@id='{group}']")).decode()
        return re.findall(r"stroke-dasharray: ([\d.,\s]+)", text)

    panel = dashes("panel-c")
    assert len(panel) == 1 and len(panel[0].split(",")) == 4  # matplotlib's own drawing of (6, 1, 1, 1) at 2 pt
    assert dashes("legend-0") == panel


def test_dashes_that_differ_are_a_conflict(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:dashed_alpha"
at = ["90mm", "30mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["a", "c"]
at = ["90mm", "5mm"]
''')
    with pytest.raises(LayoutError, match="label 'alpha' is drawn in two styles in panels 'a' and 'c': .*dashes "
                                          "none in 'a', on-off 5 2 in 'c'"):
        built(root)


def test_one_label_in_two_styles_is_an_error_naming_both_panels(tmp_path, capsys):
    root = project(tmp_path, '''
[[legend]]
from = ["a", "b"]
at = ["90mm", "5mm"]
''')
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 0
    before = snapshot(root)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('render = "p:bars"', 'render = "p:clash"'))
    capsys.readouterr()
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "layouts/fig.toml" in err and "legend[0].from" in err, err
    assert "'alpha'" in err and "'a'" in err and "'b'" in err, err
    assert "color #1f77b4 in 'a', #d62728 in 'b'" in err, err  # what differs: the colour, both values (opaque)
    assert snapshot(root) == before  # no output changed


def test_a_conflict_gives_widths_in_pt_and_alpha_only_when_not_opaque(tmp_path):
    root = project(tmp_path, '[panels.c]\nrender = "p:faint_wide"\nat = ["90mm", "30mm"]\nsize = ["40mm", "30mm"]\n'
                             '[[legend]]\nfrom = ["a", "c"]\nat = ["90mm", "5mm"]\n')
    with pytest.raises(LayoutError) as info:
        built(root)
    assert ("label 'alpha' is drawn in two styles in panels 'a' and 'c': color #1f77b4 in 'a', #1f77b480 in 'c'; "
            "linewidth 1.5 pt in 'a', 2.5 pt in 'c'; one label") in str(info.value), str(info.value)


@pytest.mark.parametrize("typo, hint", [("ncol", "ncols"), ("ancor", "anchor")])
def test_a_typo_in_a_legend_in_a_cell_lists_only_keys_it_can_take(tmp_path, typo, hint):
    """In a cell, a legend takes from, name, ncols, title, frame (and cell): at, anchor, offset, the relations,
    gap and align are each an error there, so a typo's valid keys leave them out (the hint may still name one:
    its own error then says why)."""
    root = project(tmp_path, f'''
[grid]
mosaic = "AB"
columns = ["90mm", "50mm"]

[[legend]]
from = ["a", "b"]
cell = "B"
{typo} = 2
''')
    with pytest.raises(LayoutError) as info:
        built(root)
    assert str(info.value).endswith(f"legend[0].{typo}: unknown key {typo!r}; did you mean {hint!r}?; valid keys are "
                                    "from, name, cell, ncols, title, frame"), str(info.value)


@pytest.mark.parametrize("listed, message", [
    ('["a", "bb"]', "from[1] = \"bb\": no panel named 'bb'; did you mean 'b'?"),
    ('["a", "a"]', "'a' is listed twice"),
    ('["a", "logo"]', "'logo' is an svg panel, not a matplotlib one"),
])
def test_from_names_matplotlib_panels(tmp_path, listed, message):
    root = project(tmp_path, f'''
[panels.logo]
svg = "../logo.svg"
at = ["90mm", "30mm"]
size = ["10mm", "10mm"]

[[legend]]
from = {listed}
at = ["90mm", "5mm"]
''')
    (root / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" '
                                   'height="1"/></svg>')
    with pytest.raises(LayoutError) as info:
        built(root)
    assert message in str(info.value) and "legend[0].from" in str(info.value)


def test_a_panel_without_entries_is_a_warning_and_no_entries_at_all_an_error(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:bare"
at = ["90mm", "30mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["a", "c"]
at = ["90mm", "5mm"]
''')
    with pytest.warns(ComposerWarning, match="panel 'c' is listed in a \\[\\[legend\\]\\]'s from but has no legend "
                                             "entries"):
        svg = built(root)
    assert legend_texts(svg) == ["alpha", "beta"]
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('from = ["a", "c"]', 'from = ["c"]'))
    with pytest.raises(LayoutError, match="none of its panels \\('c'\\) has legend entries"):
        built(root)


def test_nothing_before_rendering_may_be_placed_relative_to_a_legend(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:bare"
below = "key"
size = ["40mm", "20mm"]

[[legend]]
name = "key"
from = ["a"]
at = ["90mm", "5mm"]
''')
    with pytest.raises(LayoutError, match=r"panels\.c\.below: legend\[0\] \('key'\) is drawn from .* known only "
                                          "after rendering"):
        built(root)


def test_a_legend_larger_than_its_cell_is_an_error(tmp_path):
    root = project(tmp_path, '''
[grid]
mosaic = "AB"
columns = ["130mm", "10mm"]

[[legend]]
from = ["a", "b"]
cell = "B"
''')
    with pytest.raises(LayoutError, match="does not fit"):
        built(root)


def test_an_annotation_may_point_at_a_legend(tmp_path):
    root = project(tmp_path, '''
[[legend]]
name = "key"
from = ["a"]
at = ["100mm", "5mm"]
anchor = "nw"
frame = true

[[arrow]]
from = ["95mm", "40mm"]
to = "key.sw"
gap = "0pt"
''')
    svg = built(root)
    x0, _, _, y1 = frame_box(svg, "legend-key")  # a named legend's group is legend-NAME
    arrow = etree.fromstring(svg).find(f".//{SVG}g[@id='arrow-0']")
    points = [p for path in arrow.iter(f"{SVG}path") for sub in path_points(path.get("d")) for p in sub]
    # the head's tip is on the legend box's corner: half a line width outside the frame path's corner
    assert min(np.hypot(x - (x0 - 0.5), y - (y1 + 0.5)) for x, y in points) < 0.01


def test_the_cache_round_trips_the_entries(tmp_path):
    root = project(tmp_path, '''
[[legend]]
from = ["a", "b"]
at = ["90mm", "5mm"]
''')
    first = build("fig", root=root, formats=("svg",))
    svg = first.outputs["svg"].read_bytes()
    (root / "build" / "fig.svg").unlink()  # not up to date: the panels come from the cache
    second = build("fig", root=root, formats=("svg",))
    assert second.cached == ("a", "b") and second.rendered == ()
    assert second.outputs["svg"].read_bytes() == svg
    assert built(root) == svg  # and drawn afresh, the same bytes


def test_a_cache_entry_keeps_a_panels_records():
    entries = (LegendEntry("alpha", "line", color="#1f77b4ff", linestyle="-", linewidth=1.5),
               LegendEntry("m", "scatter", facecolor="#9467bdff", size=36.0,
                           path=(((0.0, 0.0), (1.0, 0.0), (0.0, 0.0)), (1, 2, 79))))
    panel = RenderedPanel(svg=b"<svg/>", anchors={}, guides={"legend": entries})
    assert decode_entry("k", encode_entry("k", panel)).guides == {"legend": entries}


def test_ncols_title_and_frame(tmp_path):
    root = project(tmp_path, '''
[[legend]]
from = ["a", "b"]
at = ["90mm", "5mm"]
ncols = 3
title = "Methods"
frame = true
''')
    svg = built(root)
    runs = [r for r in scene(svg).texts if r.top == "legend-0"]
    assert [r.text for r in runs] == ["Methods", "alpha", "beta", "gamma"]  # the title first, above the entries
    title, *entries = runs
    assert all(abs(r.frame[5] - entries[0].frame[5]) < 0.01 for r in entries)  # one row: a shared baseline
    assert entries[0].bbox[2] < entries[1].bbox[0] and entries[1].bbox[2] < entries[2].bbox[0]
    assert title.bbox[3] < min(r.bbox[1] for r in entries)
    x0, y0, x1, y1 = frame_box(svg)  # the frame holds them all
    assert all(x0 < r.bbox[0] and r.bbox[2] < x1 and y0 < r.bbox[1] and r.bbox[3] < y1 for r in runs)


def test_joining_a_legend_draws_the_panel_again_without_its_own(tmp_path):
    root = project(tmp_path, "")
    layout = root / "layouts" / "fig.toml"
    plain = build("fig", root=root, formats=("svg",))
    svg = plain.outputs["svg"].read_bytes()
    assert plain.rendered == ("a", "b") and b'id="a--legend_1"' in svg
    layout.write_text(layout.read_text() + '\n[[legend]]\nfrom = ["a"]\nat = ["90mm", "5mm"]\n')
    joined = build("fig", root=root, formats=("svg",))
    assert joined.rendered == ("a",) and joined.cached == ("b",)  # a's key says it is collected from
    assert b'id="a--legend_1"' not in joined.outputs["svg"].read_bytes()
    layout.write_text(layout.read_text().split("\n[[legend]]")[0])
    again = build("fig", root=root, formats=("svg",))
    assert again.rendered == () and again.cached == ("a", "b")  # a's first entry is still there
    assert again.outputs["svg"].read_bytes() == svg


def test_scatter_markers_sit_in_their_own_rows(tmp_path):
    """Three scatters (red, green, blue; s = 30 pt², so a disc of sqrt(30) = 5.5 pt across): in the PNG
    each marker is drawn inside the legend frame, all in one column, top to bottom in entry order one row
    pitch apart, and as large as the panel draws it."""
    root = project(tmp_path, '''
[panels.c]
render = "p:dots"
at = ["90mm", "0mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["c"]
at = ["10mm", "35mm"]
anchor = "nw"
frame = true
''', head='background = "white"\n')
    ppt = 4  # px per pt at 288 dpi
    result = build("fig", root=root, formats=("svg", "png"), dpi=72 * ppt, cache=False)
    x0, y0, x1, y1 = frame_box(result.outputs["svg"].read_bytes())
    from PIL import Image

    with Image.open(result.outputs["png"]) as img:
        px = np.asarray(img.convert("RGB")).astype(int)
    legend = px[int(y0 * ppt):int(y1 * ppt) + 1, int(x0 * ppt):int(x1 * ppt) + 1]
    centres, widths = [], []
    for channel in range(3):
        others = [c for c in range(3) if c != channel]
        mask = (legend[..., channel] > 200) & (legend[..., others[0]] < 60) & (legend[..., others[1]] < 60)
        ys, xs = np.nonzero(mask)
        assert len(xs) > 0, f"marker {channel} is not inside the legend frame"
        centres.append((xs.mean() / ppt, ys.mean() / ppt))
        widths.append((xs.max() - xs.min() + 1) / ppt)
    (ax_, ay), (bx, by), (cx, cy) = centres
    assert abs(ax_ - bx) < 0.5 and abs(bx - cx) < 0.5, centres  # one column
    assert 0 < by - ay and abs((by - ay) - (cy - by)) < 0.5, centres  # in order, one pitch apart
    for width in widths:
        assert abs(width - 30 ** 0.5) < 1.0, widths


def test_entries_of_filled_areas_are_drawn(tmp_path):
    """fill_between and stackplot give their entries through collections whose legend handles keep their line
    style as matplotlib's (offset, dashes) tuple (it raised ValueError, a traceback): both entries are drawn,
    in their colours."""
    root = project(tmp_path, '[panels.c]\nrender = "p:bands"\nat = ["90mm", "0mm"]\nsize = ["40mm", "30mm"]\n'
                             '[[legend]]\nfrom = ["c"]\nat = ["10mm", "35mm"]\n')
    svg = built(root)
    assert legend_texts(svg) == ["band", "stack"]
    drawn = etree.tostring(etree.fromstring(svg).find(f".//{SVG}g[@id='legend-0']")).decode()
    assert "#56b4e9" in drawn and "#e69f00" in drawn


@pytest.mark.parametrize("renderer, message", [
    ("math_label", r"legend\[0\]: cannot typeset a text of it \(a label, title or tick\): .*ParseException"),
    ("cjk_label", r"legend\[0\]: its texts have '\u4e2d' \(U\+4E2D\), which font 'DejaVu Sans' has no glyph for"),
])
def test_a_label_that_cannot_be_drawn_is_one_line_at_the_legend(tmp_path, capsys, renderer, message):
    root = project(tmp_path, f'[panels.c]\nrender = "p:{renderer}"\nat = ["90mm", "0mm"]\nsize = ["40mm", "30mm"]\n'
                             '[[legend]]\nfrom = ["c"]\nat = ["10mm", "35mm"]\n')
    assert main(["fig", "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert re.search(message, err), err


def test_a_legend_off_the_canvas_is_one_warning_naming_it(tmp_path):
    """Its entries are the legend's texts: one warning at legend[0] for the edge, as far as the farthest text
    reaches (not one per entry, named by inner ids)."""
    root = project(tmp_path, '[[legend]]\nfrom = ["a", "b"]\nat = ["-100mm", "5mm"]\n')
    with pytest.warns(ComposerWarning) as caught:
        built(root)
    said = [str(w.message) for w in caught if "past the" in str(w.message)]
    assert len(said) == 1 and re.search(r"legend\[0\]: [\d.]+ mm past the left edge of the canvas, clipped", said[0]), said


# ─── errorbar and stem entries: drawn as matplotlib's own legend draws them ──────────────────────────

#: drawn in a panel (collected) and in matplotlib's own legend (the reference), in distinct colours: the data
#: line and markers orange, error bars and caps blue; a stem's markers orange, stems green, baseline pink
ERRORBAR = ('ax.errorbar([0, 1], [0, 1], yerr=[0.2, 0.3], capsize=3, fmt="o-", color="#d55e00", ecolor="#0072b2", '
            'elinewidth=2, label="err")')
STEM = ('s = ax.stem([0, 1], [1, 2], label="stem"); s.markerline.set_color("#d55e00"); s.markerline.set_markersize(2); '
        's.stemlines.set_color("#009e73"); s.baseline.set_color("#cc79a7")')  # a small marker: the stem shows
COLOURS = {"orange": (0xd5, 0x5e, 0x00), "blue": (0x00, 0x72, 0xb2), "green": (0x00, 0x9e, 0x73),
           "pink": (0xcc, 0x79, 0xa7)}
PPT = 4  # px per pt at 288 dpi
PANELS_PY += f'''
def errs(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {ERRORBAR}
    ax.legend()

def errs_unshown(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {ERRORBAR}

def errs_explicit(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    bars = {ERRORBAR.replace(', label="err"', '')}
    ax.legend([bars], ["err"])

def stems(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {STEM}
    ax.legend()

def errs_green(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {ERRORBAR.replace('ecolor="#0072b2"', 'ecolor="#009e73"')}
'''


def colour_boxes(px: np.ndarray, colours: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """(x0, y0, x1, y1) pt of each colour's pixels (within 40 of it in RGB, so antialiased edges and other colours
    are left out), relative to the top-left of all of them together: a legend handle's parts, wherever it is."""
    found = {}
    for name in colours:
        mask = np.abs(px[..., :3].astype(int) - COLOURS[name]).max(axis=2) < 40
        ys, xs = np.nonzero(mask)
        assert len(xs), f"no {name} pixels"
        found[name] = (xs.min() / PPT, ys.min() / PPT, (xs.max() + 1) / PPT, (ys.max() + 1) / PPT)
    x0, y0 = min(b[0] for b in found.values()), min(b[1] for b in found.values())
    return {k: (b[0] - x0, b[1] - y0, b[2] - x0, b[3] - y0) for k, b in found.items()}


def own_legend(call: str, colours: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """:func:`colour_boxes` of matplotlib's own legend of ``call``'s artists, drawn alone (the data out of view, the
    axes off) with Agg at 288 dpi, legend font size 10 pt."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"legend.fontsize": 10.0}):
        fig = Figure(figsize=(3, 2), dpi=72 * PPT, facecolor="white")
        ax = fig.add_axes((0, 0, 1, 1))
        exec(call, {"ax": ax})
        ax.set_xlim(10, 11)
        ax.set_axis_off()
        ax.legend(loc="center", frameon=False)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        return colour_boxes(np.asarray(canvas.buffer_rgba()), colours)


def collected_legend(tmp_path, renderer: str, colours: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """:func:`colour_boxes` inside the frame of the collected legend of panel ``renderer`` in composer's PNG."""
    return colour_boxes(collected_pixels(tmp_path, renderer), colours)


@pytest.mark.parametrize("renderer", ["errs", "errs_unshown", "errs_explicit"])
def test_an_errorbar_entry_has_its_bar_and_caps(tmp_path, renderer):
    """The entry of ``ax.errorbar(yerr=..., capsize=3)`` with its legend drawn (``errs``), only labelled
    (``errs_unshown``) or given to ``ax.legend([bars], ["err"])`` unlabelled (``errs_explicit``): as matplotlib's HandlerErrorbar draws it, a vertical blue bar 2 x 0.5 x the font size
    (10 pt) long with 2 x capsize = 6 pt wide caps, across an orange line 2 x the font size (handlelength) long
    with its marker; it was drawn as a plain blue line 20 pt wide and 2 pt tall. Each part's box is matplotlib's
    own legend's."""
    boxes = collected_legend(tmp_path, renderer, ["orange", "blue"])
    bx0, by0, bx1, by1 = boxes["blue"]
    assert bx1 - bx0 == pytest.approx(6.0, abs=0.75)  # the caps' width
    assert by1 - by0 == pytest.approx(10.0 + 1.0, abs=0.75)  # the bar, plus the caps' 1 pt stroke
    ox0, _, ox1, _ = boxes["orange"]
    assert ox1 - ox0 == pytest.approx(20.0 + 1.5, abs=0.75)  # the data line, its projecting ends 1.5 / 2 pt each
    own = own_legend(ERRORBAR, ["orange", "blue"])
    for name in own:
        assert boxes[name] == pytest.approx(own[name], abs=0.5), (name, boxes, own)


def test_a_stem_entry_has_its_stem_marker_and_baseline(tmp_path):
    """``ax.stem``'s entry as matplotlib's HandlerStem draws it (its own legend of the same artists, alone): a
    green stem up from a pink baseline to an orange marker; it was drawn as a plain green line."""
    boxes = collected_legend(tmp_path, "stems", ["orange", "green", "pink"])
    own = own_legend(STEM, ["orange", "green", "pink"])
    for name in own:
        assert boxes[name] == pytest.approx(own[name], abs=0.5), (name, boxes, own)
    (gx0, gy0, gx1, gy1), orange, pink = boxes["green"], boxes["orange"], boxes["pink"]
    assert gy1 - gy0 > 1.5 * (gx1 - gx0)  # the stem is upright, between the marker above and the baseline below
    assert orange[1] < gy0 < pink[1] and orange[0] < (gx0 + gx1) / 2 < orange[2] and pink[2] - pink[0] > 10.0


def test_a_proxy_line_of_an_errorbars_label_stays_a_line():
    """A legend drawn with a proxy ``Line2D`` under the label of an errorbar the panel also draws: the entry is the
    proxy (one orange line), not the errorbar."""
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from composer.stages.guides import collect_legend

    fig = Figure()
    ax = fig.add_subplot()
    exec(ERRORBAR, {"ax": ax})
    exec(STEM, {"ax": ax})
    ax.legend([Line2D([], [], color="#d55e00"), ax.containers[1]], ["err", "stem"])
    entries = collect_legend(fig)
    assert [(e.label, e.kind, e.color) for e in entries] == [("err", "line", "#d55e00ff"), ("stem", "stem", None)]
    assert [role for role, _ in entries[1].parts] == ["markers", "stems", "baseline"]


def test_errorbars_of_two_colours_are_a_conflict_naming_the_part(tmp_path):
    root = project(tmp_path, '''
[panels.c]
render = "p:errs"
at = ["90mm", "30mm"]
size = ["40mm", "30mm"]

[panels.d]
render = "p:errs_green"
at = ["90mm", "0mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["c", "d"]
at = ["10mm", "35mm"]
''')
    with pytest.raises(LayoutError) as info:
        built(root)
    assert ("label 'err' is drawn in two styles in panels 'c' and 'd': its error bars: color #0072b2 in 'c', "
            "#009e73 in 'd'; its caps: ") in str(info.value), str(info.value)


def test_a_cache_entry_keeps_an_errorbar_entry():
    entry = LegendEntry("err", "errorbar", errors="y", parts=(
        ("line", LegendEntry("", "line", color="#d55e00ff", linestyle="-", linewidth=1.5, marker="o")),
        ("bars", LegendEntry("", "line", color="#0072b2ff", linestyle="--", linewidth=2.0, dashes=(0.0, (3.7, 1.6))))))
    panel = RenderedPanel(svg=b"<svg/>", anchors={}, guides={"legend": (entry,)})
    assert decode_entry("k", encode_entry("k", panel)).guides == {"legend": (entry,)}


# ─── compose check names a guide's texts by the guide ────────────────────────────────────────────────


@pytest.mark.parametrize("name, display, key", [("", "legend[0]", "legend[0]"), ('name = "key"\n', "legend key", "key")])
def test_check_names_a_legends_texts_by_the_legend(tmp_path, name, display, key):
    """A [[text]] written over the legend's first entry: the overlap names the legend by its layout key (or its
    name), as a panel's text is named by its panel, and that name in allow_overlap allows it. Texts below
    the minimum size are one finding for the legend, as for a panel."""
    body = f'''
[[legend]]
{name}from = ["a", "b"]
at = ["90mm", "5mm"]
anchor = "nw"

[[text]]
name = "note"
text = "WWWWWWWWWW"
at = ["90mm", "5mm"]
anchor = "nw"
size = "9pt"

[rcparams]
"legend.fontsize" = 4.0
'''
    root = project(tmp_path, body)
    findings = check("fig", root=root).findings
    overlaps = [f.element for f in findings if f.rule == "overlap"]
    assert overlaps and all(re.fullmatch(rf"{re.escape(display)}: text '(alpha|beta|gamma)' / text note|"
                                         rf"text note / {re.escape(display)}: text '(alpha|beta|gamma)'", e)
                            for e in overlaps), overlaps
    small = [f.element for f in findings if f.rule == "font-size"]
    assert small == [f"{display}: 3 texts ('alpha', 'beta', 'gamma')"], small
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text() + f'\n[check]\nallow_overlap = [["{key}", "note"]]\n')
    assert not [f for f in check("fig", root=root).findings if f.rule == "overlap"]


# ─── alpha and colour-mapped scatters drawn as matplotlib's own legend draws them ─────────────────────

#: translucent swatches without an edge (bar, hist, axvspan), an unfilled step hist with alpha, a colour-mapped scatter
TRANSLUCENT = ('ax.bar([0, 1], [1, 2], color="#0000ff", alpha=0.5, label="bar"); '
               'ax.hist([0, 1, 1, 2], histtype="step", color="#ff0000", alpha=0.5, label="step"); '
               'ax.axvspan(0.2, 0.4, color="#00c000", alpha=0.5, label="span")')
MAPPED = 'x = [0.0, 0.5, 1.0]; ax.scatter(x, x, c=x, cmap="viridis", s=60, label="mapped")'
PANELS_PY += f'''
def translucent(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {TRANSLUCENT}
    ax.legend()

def mapped(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    {MAPPED}
    ax.legend()
'''


def own_pixels(call: str) -> np.ndarray:
    """RGB pixels of matplotlib's own legend of ``call``'s artists alone (as :func:`own_legend` draws it), cropped
    inside its frame."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"legend.fontsize": 10.0}):
        fig = Figure(figsize=(3, 2), dpi=72 * PPT, facecolor="white")
        ax = fig.add_axes((0, 0, 1, 1))
        exec(call, {"ax": ax})
        ax.set_xlim(10, 11)
        ax.set_ylim(10, 11)
        ax.set_axis_off()
        legend = ax.legend(loc="center")
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        box = legend.get_frame().get_window_extent()
        px = np.asarray(canvas.buffer_rgba())[..., :3]
        height = px.shape[0]
        return px[int(height - box.y1) + 2:int(height - box.y0) - 1, int(box.x0) + 2:int(box.x1) - 1]


def collected_pixels(tmp_path, renderer: str) -> np.ndarray:
    """RGB pixels inside the frame of the collected legend of panel ``renderer`` in composer's PNG at 288 dpi."""
    root = project(tmp_path, f'''
[panels.c]
render = "p:{renderer}"
at = ["90mm", "0mm"]
size = ["40mm", "30mm"]

[[legend]]
from = ["c"]
at = ["10mm", "35mm"]
frame = true

[rcparams]
"legend.fontsize" = 10.0
''', head='background = "white"\n')
    result = build("fig", root=root, formats=("svg", "png"), dpi=72 * PPT, cache=False)
    x0, y0, x1, y1 = frame_box(result.outputs["svg"].read_bytes())
    from PIL import Image

    with Image.open(result.outputs["png"]) as img:
        px = np.asarray(img.convert("RGB"))
    return px[int(y0 * PPT) + 2:int(y1 * PPT) - 1, int(x0 * PPT) + 2:int(x1 * PPT) - 1]


def near(px: np.ndarray, rgb: tuple[int, int, int], within: int = 12) -> np.ndarray:
    return np.abs(px.astype(int) - rgb).max(axis=2) <= within


def test_translucent_swatches_have_no_frame_and_a_step_hist_no_fill(tmp_path):
    """``bar``/``axvspan`` with ``alpha=0.5`` and no edge, and an unfilled step ``hist`` with alpha: the collected
    legend's swatches are matplotlib's own (its legend alone): the bar's a 50 % blue (127, 127, 255) fill with no
    grey outline (it had one: the transparent edge redrawn with alpha 0.5, black at 50 %), the span's 50 % green,
    the step hist's a 50 % red outline around white (it was a 50 % red fill)."""
    mine, own = collected_pixels(tmp_path, "translucent"), own_pixels(TRANSLUCENT)
    for px in (mine, own):
        assert near(px, (127, 127, 255)).sum() > 100 and near(px, (127, 224, 127)).sum() > 100
    # the outline: black at 50 % over the blue fill or over white; text antialiasing is grey, never bluish dark
    for px in (mine, own):
        dark_blue = (px[..., 2].astype(int) - px[..., 0] > 40) & (px[..., 2] < 230)
        assert dark_blue.sum() == 0
        assert near(px, (255, 0, 0), 60).sum() == 0  # nothing red at full strength
    red = [int(((px[..., 0].astype(int) - px[..., 1] > 40) & (px[..., 0] > 200)).sum()) for px in (mine, own)]
    assert 0 < red[0] < 1.3 * red[1]  # an outline's pixels only: filled, the swatch's 20 x 7 pt are 2240 px
    for colour in ((127, 127, 255), (127, 224, 127)):
        assert near(mine, colour).sum() == pytest.approx(near(own, colour).sum(), rel=0.1)


def test_a_colour_mapped_scatter_has_the_colour_its_handler_draws(tmp_path):
    """``scatter(c=x, cmap="viridis")``: matplotlib's legend draws its marker in the colour of the first value,
    viridis(0) = #440154 (the colormap's first entry: x[0] is the norm's vmin); the collected legend drew
    matplotlib's default blue #1f77b4."""
    mine, own = collected_pixels(tmp_path, "mapped"), own_pixels(MAPPED)
    for px in (mine, own):
        assert near(px, (0x44, 0x01, 0x54)).sum() > 50
        assert near(px, (0x1f, 0x77, 0xb4), 40).sum() == 0
    assert near(mine, (0x44, 0x01, 0x54)).sum() == pytest.approx(near(own, (0x44, 0x01, 0x54)).sum(), rel=0.15)
