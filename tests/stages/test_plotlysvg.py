"""The Plotly converter (composer/stages/plotlysvg.py): a figure drawn by kaleido and Debian's Chromium at a
box, read back as SVG: its size, every text's font and size, its plot area and a data anchor, each worked out
by hand from the figure's margins, domains and ranges (1 px = 0.75 pt).

The tests that draw share one Chromium (one module-scoped session: ``drawn``) and are ``e2e``."""

from __future__ import annotations

import os
import re

import pytest
from lxml import etree

from composer.stages import plotlysvg
from composer.stages.plotlysvg import PlotlyUnavailable, apply_fonts, axis_fraction, css_families

go = pytest.importorskip("plotly.graph_objects", reason="plotly comes with the test extra")

SVG = "{http://www.w3.org/2000/svg}"

#: the hand-made figure: 200 x 160 px (150 x 120 pt), margins l 40, r 10, t 10, b 30 px, x domain [0, 0.5]
WIDTH_PT, HEIGHT_PT = 150.0, 120.0


def fixed_figure():
    """Margins, domain and ranges fixed, so the plot area and anchors follow by hand."""
    fig = go.Figure(go.Scatter(x=[0, 2.5, 10], y=[0, 25, 100], mode="markers", name="pts"))
    fig.update_layout(margin=dict(l=40, r=10, t=10, b=30, autoexpand=False), title="A title", xaxis_title="time (s)",
                      yaxis_title="signal", showlegend=True, legend=dict(title="legend", x=0.6, y=1),
                      annotations=[dict(x=2.5, y=25, text="note")])
    fig.update_xaxes(domain=[0, 0.5], range=[0, 10], automargin=False)
    fig.update_yaxes(range=[0, 100], automargin=False)
    return fig


def autoranged_figure():
    """Ranges and margins left to plotly.js (autorange, automargin), a colorbar too."""
    fig = go.Figure(go.Scatter(x=[1, 2, 3, 4], y=[10, 30, 20, 40], mode="markers",
                               marker=dict(color=[1, 2, 3, 4], colorbar=dict(title=dict(text="c")))))
    fig.update_layout(title="Auto", xaxis_title="x", yaxis_title="y")
    return fig


def log_figure():
    """A log x axis over 1..100 (plotly's range in decades: [0, 2]), margins fixed."""
    fig = go.Figure(go.Scatter(x=[1, 100], y=[0, 1]))
    fig.update_layout(margin=dict(l=40, r=10, t=10, b=30, autoexpand=False))
    fig.update_xaxes(type="log", range=[0, 2], automargin=False)
    fig.update_yaxes(range=[0, 1], automargin=False)
    return fig


@pytest.fixture(scope="module")
def drawn():
    """The two figures drawn in one Chromium; the second twice (determinism) and once with its plot area
    placed; the Chromium's pids seen while it ran."""
    with plotlysvg.session():
        browser = plotlysvg._current[0].kaleido
        pids = {browser.subprocess.pid} if getattr(browser, "subprocess", None) is not None else set()
        fixed = plotlysvg.plotly_svg(fixed_figure(), width_pt=WIDTH_PT, height_pt=HEIGHT_PT,
                                     families=["DejaVu Sans"], font_size_pt=7.0, ids="fixed",
                                     anchors={"mid": (2.5, 25)})
        kw = dict(width_pt=WIDTH_PT, height_pt=HEIGHT_PT, families=["DejaVu Serif"], font_size_pt=7.0,
                  ids="auto", anchors={"third": (3, 20)})
        auto = plotlysvg.plotly_svg(autoranged_figure(), **kw)
        again = plotlysvg.plotly_svg(autoranged_figure(), **kw)
        placed = plotlysvg.plotly_svg(autoranged_figure(), width_pt=WIDTH_PT, height_pt=HEIGHT_PT,
                                      families=["DejaVu Sans"], font_size_pt=7.0, ids="placed",
                                      plot_area_pt=(30.0, 15.0, 120.0, 96.0))
        log = plotlysvg.plotly_svg(log_figure(), width_pt=WIDTH_PT, height_pt=HEIGHT_PT, families=["DejaVu Sans"],
                                   font_size_pt=7.0, ids="log", anchors={"ten": (10, 0.5)})
        hidden = plotlysvg.plotly_svg(go.Figure(go.Scatter(x=[1, 2], y=[1, 2], mode="markers", marker=dict(color=[1, 2]))),
                                      width_pt=WIDTH_PT, height_pt=HEIGHT_PT, families=["DejaVu Sans"],
                                      font_size_pt=7.0, ids="hidden")
    return {"fixed": fixed, "auto": auto, "again": again, "placed": placed, "log": log, "hidden": hidden,
            "pids": pids}


def texts_pt(svg: bytes) -> list[tuple[str, float, str]]:
    """(text, size in pt, font-family) of every ``<text>``: its CSS ``font-size`` in px times the scales of
    its ancestors' ``scale(...)`` transforms."""
    root = etree.fromstring(svg)
    found = []
    for el in root.iter(f"{SVG}text"):
        style = el.get("style", "")
        size = re.search(r"font-size:\s*([\d.]+)px", style)
        family = re.search(r"font-family:\s*([^;]+)", style)
        assert size and family, etree.tostring(el)
        scale = 1.0
        for up in el.iterancestors():
            m = re.fullmatch(r"scale\(([\d.]+)\)", up.get("transform", ""))
            if m:
                scale *= float(m.group(1))
        found.append(("".join(el.itertext()), float(size.group(1)) * scale, family.group(1)))
    return found


@pytest.mark.e2e
def test_the_svg_is_the_box_in_pt(drawn):
    root = etree.fromstring(drawn["fixed"].svg)
    assert root.get("viewBox") == "0 0 150 120"
    assert (root.get("width"), root.get("height")) == ("150pt", "120pt")
    # the background plotly.js paints is 200 x 160 px, drawn at 0.75 pt per px
    assert [c.get("transform") for c in root] == ["scale(0.75)"]
    rect = root[0].find(f"{SVG}rect")
    assert (rect.get("width"), rect.get("height")) == ("200", "160")


@pytest.mark.e2e
@pytest.mark.parametrize("which, family", [("fixed", "'DejaVu Sans'"), ("auto", "'DejaVu Serif'")])
def test_every_text_is_7_pt_in_the_figures_font(drawn, which, family):
    texts = texts_pt(drawn[which].svg)
    words = {t for t, _, _ in texts}
    # titles, axis titles, tick labels, legend title and entry, annotation, colorbar title: all there
    assert ({"A title", "time (s)", "signal", "legend", "pts", "note", "10"} <= words if which == "fixed"
            else {"Auto", "x", "y", "c"} <= words)
    for text, size_pt, fam in texts:
        assert round(size_pt, 4) == 7.0, (text, size_pt)
        assert fam.strip() == family, (text, fam)


@pytest.mark.e2e
def test_the_plot_area_is_the_margins_and_domain_by_hand(drawn):
    # 200 px wide: left margin 40, right 10 -> 150 px of plot region, the x domain its first half: 75 px
    # 160 px tall: top 10, bottom 30 -> 120 px; all in pt at 0.75
    assert drawn["fixed"].plot_area == pytest.approx((40 * 0.75, 10 * 0.75, (40 + 75) * 0.75, (10 + 120) * 0.75))


@pytest.mark.e2e
def test_an_anchor_goes_through_the_axis_ranges(drawn):
    # x range [0, 10]: 2.5 is a quarter of the 75 px; y range [0, 100]: 25 is a quarter up the 120 px
    x_pt, y_pt = drawn["fixed"].anchors["mid"]
    assert (x_pt, y_pt) == pytest.approx(((40 + 0.25 * 75) * 0.75, (10 + 120 - 0.25 * 120) * 0.75))


@pytest.mark.e2e
def test_an_anchor_on_a_log_axis_goes_through_its_decades(drawn):
    # 10 is one decade of two along 1..100: half of the 150 px plot width; y 0.5 half of the 120 px
    assert drawn["log"].anchors["ten"] == pytest.approx(((40 + 0.5 * 150) * 0.75, (10 + 0.5 * 120) * 0.75))


def marker_centres_pt(svg: bytes) -> list[tuple[float, float]]:
    """The centres of the scatter markers plotly.js drew (``<path class="point" transform="translate(x,y)">``
    inside the subplot's ``translate``), in pt."""
    root = etree.fromstring(svg)
    out = []
    for path in root.iter(f"{SVG}path"):
        if path.get("class") != "point":
            continue
        x = y = 0.0
        scale = 1.0
        for el in [path, *path.iterancestors()]:
            m = re.search(r"translate\(([-\d.]+),\s*([-\d.]+)\)", el.get("transform", ""))
            if m:
                x, y = x + float(m.group(1)), y + float(m.group(2))
            s = re.fullmatch(r"scale\(([\d.]+)\)", el.get("transform", ""))
            if s:
                scale *= float(s.group(1))
        out.append((x * scale, y * scale))
    return out


@pytest.mark.e2e
def test_an_anchor_on_autoranged_axes_is_where_the_marker_is_drawn(drawn):
    centres = marker_centres_pt(drawn["auto"].svg)
    assert len(centres) == 4
    third = sorted(centres)[2]  # the point (3, 20): third from the left
    assert drawn["auto"].anchors["third"] == pytest.approx(third, abs=0.01)
    x0, y0, x1, y1 = drawn["auto"].plot_area
    assert x0 < third[0] < x1 and y0 < third[1] < y1


@pytest.mark.e2e
def test_the_same_figure_gives_the_same_bytes_with_ids_of_the_panel(drawn):
    assert drawn["auto"].svg == drawn["again"].svg
    ids = re.findall(rb'id="([^"]+)"', drawn["auto"].svg)
    assert ids and all(b"auto" in i for i in ids)
    refs = re.findall(rb"url\(['\"]?#([^'\")]+)", drawn["auto"].svg)
    assert refs and set(refs) <= set(ids)


@pytest.mark.e2e
def test_a_plot_area_asked_for_is_where_it_is_drawn(drawn):
    # plotly.js rounds margins to whole px but not domains: the domains place it to a thousandth of a pt
    assert drawn["placed"].plot_area == pytest.approx((30.0, 15.0, 120.0, 96.0), abs=1e-3)


@pytest.mark.e2e
def test_no_chromium_is_left_running(drawn):
    for pid in drawn["pids"]:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        with open(f"/proc/{pid}/stat") as stat:
            assert stat.read().split()[2] == "Z", f"chromium {pid} still runs"


def test_fonts_are_set_where_the_figure_sets_none():
    fig = go.Figure(go.Heatmap(z=[[1, 2]], colorbar=dict(title=dict(text="z"))))
    fig.update_layout(title="t", annotations=[dict(text="a", font=dict(size=20))])
    apply_fonts(fig, "Lato", 10.0)
    assert (fig.layout.font.family, fig.layout.font.size) == ("Lato", 10.0)
    assert fig.layout.title.font.size == 10.0  # plotly.js's own: 1.4 x layout.font.size
    assert fig.layout.xaxis.title.font.size == 10.0 and fig.layout.yaxis.tickfont.family == "Lato"
    assert fig.data[0].colorbar.title.font.size == 10.0
    assert fig.layout.annotations[0].font.size == 20  # set by the figure: kept


def test_a_colorbar_is_drawn_only_where_plotly_would(drawn):
    """Markers coloured by values, no showscale: plotly.js alone draws no colorbar, nor does the panel; the
    autoranged figure gives its marker's colorbar a title, so it has one."""
    assert b"cbfill" not in drawn["hidden"].svg  # plotly.js draws a colorbar as class "cbt0 colorbar", its fill "cbfill"
    assert b"cbfill" in drawn["auto"].svg


def test_fonts_leave_a_hidden_colorbar_hidden():
    """A marker coloured by values shows no colorbar unless asked (plotly's showscale defaults to false): the
    figure's font is given only to the colorbars drawn, as a font given to a hidden one makes plotly.js draw it."""
    hidden = go.Figure(go.Scatter(x=[1, 2], y=[1, 2], mode="markers", marker=dict(color=[1, 2])))
    shown = go.Figure(go.Scatter(x=[1, 2], y=[1, 2], mode="markers", marker=dict(color=[1, 2], showscale=True)))
    off = go.Figure(go.Heatmap(z=[[1, 2]], showscale=False))
    for fig in (hidden, shown, off):
        apply_fonts(fig, "Lato", 10.0)
    assert "colorbar" not in hidden.data[0].marker.to_plotly_json()
    assert shown.data[0].marker.colorbar.tickfont.size == 10.0
    assert "colorbar" not in off.data[0].to_plotly_json()


@pytest.mark.e2e
def test_a_tab_holding_a_stale_script_context_is_reloaded_until_it_has_kaleidos_script():
    """kaleido 1.x may keep the blank page's JavaScript context for its tab (the first one reported after it
    navigates): the drawing then fails ("kaleido_scopes is not defined"). A session asks the tab for the
    script and reloads it; here the tab is handed a context that does not exist, as that race leaves it."""
    opened = plotlysvg._Session()
    try:
        tab = opened.kaleido.tabs_ready.get_nowait()
        stale, tab._current_js_id = tab._current_js_id, 10**6  # no such context
        opened.kaleido.tabs_ready.put_nowait(tab)
        opened.loop.run_until_complete(opened._scripts_ready())
        assert tab._current_js_id not in (stale, 10**6)
        svg = opened.calc(go.Figure(go.Scatter(x=[1, 2], y=[1, 2])), "svg", 200, 160)
        assert svg.startswith(b"<svg") and b"scatterlayer" in svg
    finally:
        opened.close()


def test_css_families():
    assert css_families(["DejaVu Sans", "serif"]) == '"DejaVu Sans", serif'
    assert css_families(["Lato"]) == "Lato"


def test_axis_fraction_linear_and_log():
    assert axis_fraction(2.5, "linear", (0.0, 10.0), "x") == 0.25
    assert axis_fraction(100.0, "log", (0.0, 4.0), "x") == 0.5  # decades: 10^0 .. 10^4
    with pytest.raises(ValueError, match="not > 0"):
        axis_fraction(0.0, "log", (0.0, 4.0), "anchor 'a'")
    with pytest.raises(ValueError, match="date axis"):
        axis_fraction(1.0, "date", (0.0, 4.0), "anchor 'a'")


def test_no_chromium_is_one_line_naming_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "none"))
    monkeypatch.setattr(plotlysvg, "DEBIAN_CHROMIUM", str(tmp_path / "none"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PlotlyUnavailable) as err:
        plotlysvg.browser_path()
    assert "apt-get install chromium" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.e2e
def test_a_worker_draws_its_figures_with_one_chromium_and_ends_it_with_itself():
    """In a forked worker (a render unit: its panels, an [[align]] redraw) the first drawing's Chromium
    serves the next ones and is ended by the worker itself (composer.sandbox.isolate.at_worker_end): no
    process left for the worker to kill and name."""
    import warnings

    from composer.sandbox.isolate import run_isolated

    def two_drawings():
        pids = []
        for ids in ("a", "b"):
            with plotlysvg.session():
                pids.append(plotlysvg._current[-1].kaleido.subprocess.pid)
                plotlysvg.plotly_svg(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])), width_pt=60, height_pt=40,
                                     families=["DejaVu Sans"], font_size_pt=7.0, ids=ids)
        return pids

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pids = run_isolated(two_drawings, timeout_s=120, label="pl")
    assert len(set(pids)) == 1, pids
    assert not [str(w.message) for w in caught if "left" in str(w.message) or "running" in str(w.message)]
    try:
        os.kill(pids[0], 0)
    except ProcessLookupError:
        return
    with open(f"/proc/{pids[0]}/stat") as stat:
        assert stat.read().split()[2] == "Z", "chromium still runs"
