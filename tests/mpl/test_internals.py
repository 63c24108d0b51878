"""Guards of every matplotlib internal composer uses (:mod:`composer.mpl.internals`).

Each test fails with a message naming the internal when a matplotlib release changes it: an
attribute gone, a signature changed, a warning reworded. The outcomes are worked out from
matplotlib's public API (``findfont`` of each family, Agg's pixels, a ``svg.fonttype = "path"``
save) and not from the code under test.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import re
import warnings

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from composer.mpl import internals

CHANGED = "matplotlib {} changed {}: composer.mpl.internals needs a look (and pyproject's matplotlib pin)"


def changed(what: str) -> str:
    return CHANGED.format(matplotlib.__version__, what)


def test_the_installed_matplotlib_is_in_the_pinned_range():
    """pyproject pins matplotlib to the releases these guards ran on."""
    import tomllib
    from pathlib import Path

    from packaging.specifiers import SpecifierSet

    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    pin = next(d for d in project["project"]["dependencies"] if d.startswith("matplotlib"))
    spec = SpecifierSet(pin[len("matplotlib"):])
    assert any(s.operator in ("<", "<=") for s in spec), f"{pin} has no upper bound"
    assert matplotlib.__version__ in spec, f"matplotlib {matplotlib.__version__} is outside the pin {pin}"


# ------------------------------------------------------------------ FontManager._find_fonts_by_props


def test_fallback_font_paths_is_each_familys_findfont_in_order():
    assert hasattr(font_manager.FontManager, "_find_fonts_by_props"), changed("FontManager._find_fonts_by_props")
    families = ["DejaVu Serif", "DejaVu Sans"]
    expected = [font_manager.findfont(FontProperties(family=f), fallback_to_default=False) for f in families]
    got = internals.fallback_font_paths(FontProperties(family=families))
    assert got == expected, changed("what FontManager._find_fonts_by_props returns (a path per family found)")


# ------------------------------------------------------------------ font lookup logs and their cache


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _logged(logger: str, action) -> list[str]:
    handler = _Records()
    log = logging.getLogger(logger)
    log.addHandler(handler)
    try:
        action()
    finally:
        log.removeHandler(handler)
    return handler.messages


def test_a_missing_family_is_logged_and_parsed_and_logged_again_after_forgetting():
    prop = FontProperties(family=["NoSuchFamilyForComposerGuard"])

    def lookup():
        font_manager.findfont(prop)

    assert internals.forget_font_lookups(), changed("FontManager._findfont_cached (no cache_clear)")
    first = _logged("matplotlib.font_manager", lookup)
    families = [internals.family_not_found(m) for m in first]
    assert "NoSuchFamilyForComposerGuard" in families, changed(f"the findfont 'not found' message: {first}")
    assert [internals.family_not_found(m) for m in _logged("matplotlib.font_manager", lookup)
            if internals.family_not_found(m)] == [], "control: a cached lookup logs nothing"
    assert internals.forget_font_lookups()
    again = _logged("matplotlib.font_manager", lookup)
    assert "NoSuchFamilyForComposerGuard" in [internals.family_not_found(m) for m in again], \
        changed("FontManager._findfont_cached: emptying it no longer makes findfont warn again")


def test_a_missing_weight_is_logged_and_parsed():
    family = "DejaVu Sans"
    weights = {f.weight for f in font_manager.fontManager.ttflist if f.name == family and f.style == "normal"}
    missing = next(w for w in (100, 300, 500, 600, 800, 900) if w not in weights)
    internals.forget_font_lookups()
    messages = _logged("matplotlib.font_manager",
                       lambda: font_manager.findfont(FontProperties(family=family, weight=missing)))
    parsed = [internals.weight_not_found(m) for m in messages if internals.weight_not_found(m)]
    assert parsed, changed(f"the findfont 'Failed to find font weight' message: {messages}")
    asked, name, used = parsed[0]
    assert (asked, name) == (str(missing), family)
    assert int(used) in weights


# ------------------------------------------------------------------ missing glyphs: mathtext's log, text's warning

GRIN = "\U0001F600"  # in no font matplotlib ships


def test_a_mathtext_glyph_missing_is_logged_and_parsed_and_logged_again_after_forgetting():
    from matplotlib.mathtext import MathTextParser

    parser = MathTextParser("path")
    prop = FontProperties(family="DejaVu Sans", size=10)

    def parse():
        parser.parse(f"${GRIN}$", 72, prop)

    assert internals.forget_parsed_math(), changed("MathTextParser._parse_cached (no cache_clear)")
    first = _logged("matplotlib.mathtext", parse)
    assert GRIN in [internals.mathtext_missing_char(m) for m in first], \
        changed(f"mathtext's 'does not have a glyph' message: {first}")
    assert not [m for m in _logged("matplotlib.mathtext", parse) if internals.mathtext_missing_char(m)], \
        "control: a cached parse logs nothing"
    assert internals.forget_parsed_math()
    again = _logged("matplotlib.mathtext", parse)
    assert GRIN in [internals.mathtext_missing_char(m) for m in again], \
        changed("MathTextParser._parse_cached: emptying it no longer makes mathtext log again")


ZHONG = "\u4e2d"  # not in DejaVu Sans


def test_a_text_glyph_missing_is_warned_and_parsed():
    path = font_manager.findfont(FontProperties(family="DejaVu Sans"), fallback_to_default=False)
    assert font_manager.get_font(path).get_char_index(ord(ZHONG)) == 0, "DejaVu Sans has the probe's glyph"
    fig = Figure(figsize=(1, 1), dpi=72)
    fig.text(0.1, 0.5, f"a{ZHONG}", family="DejaVu Sans")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(io.BytesIO(), format="svg")
    messages = [str(w.message) for w in caught]
    assert ZHONG in [internals.text_missing_char(m) for m in messages], \
        changed(f"the 'Glyph N (...) missing from font(s)' warning: {messages}")
    assert internals.text_missing_char("Glyph 97 (a) missing from font(s) X.") == "a"


# ------------------------------------------------------------------ QuadMesh._antialiased


def _mesh_pixels(fix) -> np.ndarray:
    """A 7 x 5 black/white checkerboard pcolormesh over a 103 x 71 px axes (cell edges fall inside
    pixels), rasterized by Agg; ``fix(mesh)`` turns antialiasing off its way."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(103 / 72, 71 / 72), dpi=72)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    cells = np.indices((5, 7)).sum(axis=0) % 2
    mesh = ax.pcolormesh(cells, cmap="gray", vmin=0, vmax=1, edgecolors="none", antialiased=True)
    mesh.set_snap(False)  # pcolormesh.snap would put every edge on a pixel edge
    fix(mesh)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[2:-2, 2:-2, :3]


def _blended(pixels: np.ndarray) -> int:
    """Pixels neither black nor white: where antialiasing blended two cells."""
    return int(((pixels > 0) & (pixels < 255)).any(axis=2).sum())


def test_quadmesh_draws_with_its_constructor_flag():
    from matplotlib.collections import QuadMesh

    assert "_antialiased" in inspect.getsource(QuadMesh.draw), changed("QuadMesh.draw (no self._antialiased)")
    fig = Figure()
    mesh = fig.add_subplot().pcolormesh(np.zeros((2, 2)))
    assert internals.constructor_antialiased(mesh) is not None, changed("QuadMesh._antialiased (gone)")
    assert _blended(_mesh_pixels(lambda m: None)) > 0, "control: an antialiased mesh blends its cell edges"
    assert _blended(_mesh_pixels(lambda m: m.set_antialiased(False))) > 0, \
        changed("QuadMesh.draw: set_antialiased(False) now reaches it; QuadMesh._antialiased is no longer needed")
    assert _blended(_mesh_pixels(lambda m: internals.set_mesh_antialiased(m, False))) == 0, \
        changed("QuadMesh._antialiased: setting it no longer turns Agg's antialiasing off")


# ------------------------------------------------------------------ math_as_paths: the renderer hook


def test_renderer_draw_text_keeps_its_signature():
    from matplotlib.backend_bases import RendererBase
    from matplotlib.backends.backend_svg import FigureCanvasSVG, RendererSVG

    names = ["self", "gc", "x", "y", "s", "prop", "angle", "ismath", "mtext"]
    for cls in (RendererBase, RendererSVG):
        assert list(inspect.signature(cls.draw_text).parameters) == names, changed(f"{cls.__name__}.draw_text")
    assert "self.figure.draw(renderer)" in inspect.getsource(FigureCanvasSVG.print_svg), \
        changed("FigureCanvasSVG.print_svg (no longer draws with figure.draw(renderer))")


def _texts_svg(fonttype: str, hook: bool) -> bytes:
    with matplotlib.rc_context({"svg.fonttype": fonttype, "svg.hashsalt": "guard", "font.family": "DejaVu Sans"}):
        fig = Figure(figsize=(3, 1), dpi=72)
        fig.text(0.05, 0.5, r"$\alpha^2$", gid="math")  # drawn first: its glyph defs are in its own group
        fig.text(0.5, 0.5, "plain Text", gid="plain")
        buf = io.BytesIO()
        if hook:
            with internals.math_as_paths(fig):
                fig.savefig(buf, format="svg", metadata={"Date": None})
            assert "draw" not in vars(fig), "math_as_paths left its draw on the figure"
        else:
            fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def _group(svg: bytes, gid: str) -> bytes:
    match = re.search(rb'(?ms)^( *)<g id="' + gid.encode() + rb'">$.*?^\1</g>$', svg)
    assert match, f"no group {gid} in the SVG"
    return match.group(0)


def test_math_as_paths_draws_mathtext_as_outlines_and_text_as_text():
    hooked = _texts_svg("none", hook=True)
    outlines = _texts_svg("path", hook=False)
    texts = _texts_svg("none", hook=False)
    assert _group(hooked, "math") == _group(outlines, "math"), \
        changed("the renderer hook: mathtext is no longer drawn as matplotlib's outlines")
    assert b"<text" in _group(hooked, "plain") and _group(hooked, "plain") == _group(texts, "plain"), \
        changed("the renderer hook: plain text is no longer drawn as <text>")
    assert b"<text" in _group(texts, "math"), "control: without the hook mathtext is <text> too"


# ------------------------------------------------------------------ pyplot: Gcf.figs and pyplot._backend_mod


def test_pyplots_figure_list_and_backend_are_where_pyplot_on_expects_them():
    import matplotlib.pyplot as plt
    from matplotlib import _pylab_helpers
    from matplotlib.backends import backend_agg

    gcf = _pylab_helpers.Gcf
    assert isinstance(getattr(gcf, "figs", None), dict), changed("_pylab_helpers.Gcf.figs (pyplot's figure list)")
    assert hasattr(plt, "_backend_mod") and hasattr(plt, "_get_backend_mod"), changed("pyplot._backend_mod")
    assert hasattr(backend_agg, "_BackendAgg") and hasattr(backend_agg._BackendAgg,
                                                           "new_figure_manager_given_figure"), \
        changed("backend_agg._BackendAgg.new_figure_manager_given_figure")
    first, second = plt.figure(), plt.figure()
    try:
        assert gcf.get_active() is second.canvas.manager and list(gcf.figs.values())[-1] is second.canvas.manager, \
            changed("Gcf.figs order: the active figure is no longer the last entry")
        plt.figure(first)
        assert list(gcf.figs.values())[-1] is first.canvas.manager, changed("Gcf.set_active (moves to the end)")
    finally:
        plt.close(first)
        plt.close(second)


def test_pyplot_on_makes_pyplot_draw_on_the_figure_and_leaves_pyplot_as_it_was():
    """pyplot_on's promise, checked with pyplot's public functions: plt.plot/plt.title reach ``fig``; a
    plt.subplots() inside is reported with its stack, made with a non-GUI canvas, and closed after; the
    user's figures, the current one, and the backend pyplot had are as before."""
    import matplotlib.pyplot as plt

    mine = plt.figure()
    before, backend = plt.get_fignums(), plt._backend_mod
    fig = Figure(figsize=(2, 2), dpi=72)
    try:
        with internals.pyplot_on(fig) as made:
            assert plt.gcf() is fig and plt.get_fignums() == [1], changed("pyplot.gcf() via Gcf.get_active()")
            plt.plot([0, 1], [0, 1])
            plt.title("t")
            new, _ax = plt.subplots()  # line of the call: the innermost frame of the stack
            line = inspect.currentframe().f_lineno - 1
            assert type(new.canvas).required_interactive_framework is None, \
                changed("the canvas plt.subplots() makes under pyplot_on's backend")
        assert fig.axes and fig.axes[0].get_title() == "t" and len(fig.axes[0].lines) == 1
        assert [f for f, _ in made] == [new], changed("_BackendAgg.new_figure_manager_given_figure is not what "
                                                      "plt.subplots() calls")
        assert any(f.filename == __file__ and f.lineno == line for f in made[0][1]), "the call is in the stack"
        assert plt.get_fignums() == before and plt.gcf() is mine and plt._backend_mod is backend
        assert fig.canvas.manager is None
    finally:
        plt.close(mine)


def test_is_colorbar_knows_colorbar_axes_made_either_way():
    """``Axes._colorbar``: set on the axes a colorbar is drawn in, by fig.colorbar(ax=) and with cax=."""
    fig = Figure()
    ax = fig.add_axes((0.1, 0.1, 0.5, 0.8))
    mesh = ax.pcolormesh([[0, 1], [1, 0]])
    own = fig.add_axes((0.8, 0.1, 0.05, 0.8))
    fig.colorbar(mesh, cax=own)
    fig.colorbar(mesh, ax=ax)
    made = [a for a in fig.axes if a not in (ax, own)]
    assert len(made) == 1
    assert internals.is_colorbar(own) and internals.is_colorbar(made[0]), changed("Axes._colorbar")
    assert not internals.is_colorbar(ax)


def test_dash_pattern_is_the_unscaled_on_off_sequence():
    """``_unscaled_dash_pattern``: what set_linestyle keeps, before lines.scale_dashes multiplies it by the width."""
    import matplotlib
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    assert internals.dash_pattern(Line2D([], [], dashes=(5, 2), linewidth=3)) == (0.0, (5.0, 2.0)), \
        changed("Line2D._unscaled_dash_pattern")
    dashed = tuple(float(v) for v in matplotlib.rcParams["lines.dashed_pattern"])
    assert internals.dash_pattern(Line2D([], [], linestyle="--")) == (0.0, dashed)
    assert internals.dash_pattern(Rectangle((0, 0), 1, 1, linestyle=(1, (3, 1)))) == (1.0, (3.0, 1.0)), \
        changed("Patch._unscaled_dash_pattern")
    assert internals.dash_pattern(Line2D([], [])) is None



def test_collection_dashes_is_the_unscaled_on_off_sequence_of_the_first_line():
    """``_us_linestyles``: a LineCollection's patterns before its line width scales them (get_linestyle() is scaled)."""
    from matplotlib.collections import LineCollection

    dashed = LineCollection([], linestyles=[(1, (4, 2))], linewidths=[3])
    assert internals.collection_dashes(dashed) == (1.0, (4.0, 2.0)), changed("LineCollection._us_linestyles")
    assert internals.collection_dashes(LineCollection([], linewidths=[3])) is None


def test_contour_levels_have_the_extension_ends_colorbar_draws():
    """``ContourSet._levels``: the levels with -1e250/1e250 (1e-250 on a log scale) for each end ``extend`` adds."""
    x, y = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5))
    ax = Figure().add_subplot()
    both = ax.contourf(x, y, x * y, levels=[-0.5, 0, 0.5], extend="both")
    assert internals.contour_levels(both) == [-1e250, -0.5, 0.0, 0.5, 1e250], changed("ContourSet._levels")
    assert internals.contour_levels(ax.contourf(x, y, x * y, levels=[-0.5, 0, 0.5], extend="max")) == \
        [-0.5, 0.0, 0.5, 1e250]
    assert internals.contour_levels(ax.contourf(x, y, x * y, levels=[-0.5, 0, 0.5])) == [-0.5, 0.0, 0.5]


# ------------------------------------------------------------------ markers_written_at_once: draw_markers


def test_draw_markers_is_the_source_composer_reproduces():
    import hashlib

    from matplotlib.backends.backend_svg import RendererSVG

    digest = hashlib.sha256(inspect.getsource(RendererSVG.draw_markers).encode()).hexdigest()
    assert digest == internals.DRAW_MARKERS_SOURCE, changed("RendererSVG.draw_markers (its source)")


def _markers_svg(fast: bool) -> bytes:
    """Markers of every kind ``draw_markers`` is given: a uniform scatter (one marker, no edge), a line's
    markers with a url (the ``<a>`` around them), hollow markers (stroke only), points outside the axes
    (clipped by the figure's box), an alpha, a second axes clipped by a circle."""
    from matplotlib.patches import Circle

    with matplotlib.rc_context({"svg.hashsalt": "guard"}):
        fig = Figure(figsize=(3, 2), dpi=72)
        ax = fig.add_subplot(121)
        rng = np.random.default_rng(3)
        ax.scatter(rng.standard_normal(300), rng.standard_normal(300), s=4, linewidths=0, alpha=0.5)
        ax.plot([0, 1, 2], [0, 1, 0], "o-", url="https://example.org/a&b")
        ax.plot([0.5, 40], [0.5, -40], ls="none", marker="s", mfc="none", mec="r", clip_on=False)
        ax.set_xlim(-3, 3)
        other = fig.add_subplot(122)
        line, = other.plot([0, 1, 2, 3], [3, 1, 2, 0], "^", ms=9)
        line.set_clip_path(Circle((0.5, 0.5), 0.4, transform=other.transAxes))
        buf = io.BytesIO()
        with internals.markers_written_at_once() if fast else contextlib.nullcontext():
            fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def test_markers_written_at_once_write_matplotlibs_own_bytes():
    from matplotlib.backends.backend_svg import RendererSVG

    own = RendererSVG.draw_markers
    fast = _markers_svg(True)
    assert RendererSVG.draw_markers is own, "markers_written_at_once left its draw_markers on RendererSVG"
    mine = _markers_svg(False)
    assert fast.count(b"<use ") > 300 and b"<a xlink:href" in fast  # every kind was drawn
    assert fast == mine, changed("RendererSVG.draw_markers or its XML writer: the markers' bytes differ")


def test_glyph_layout_lists_the_glyphs_textpath_outlines_where_it_outlines_them():
    """Each listed glyph's outline, loaded from its font file by index and moved to its place, rebuilds
    ``TextPath``'s vertices exactly (plain text with a raqm ligature and a kerned pair; mathtext with a
    superscript); the characters are the ones written."""
    from matplotlib.ft2font import FT2Font, LoadFlags
    from matplotlib.textpath import TextPath

    for text, ismath in (("To office", False), (r"$\alpha^{2}x$", True)):
        prop = FontProperties(family="DejaVu Sans", size=10)
        glyphs = internals.glyph_layout(text, prop, ismath)
        rebuilt = []
        for file, index, _, x, y, scale in glyphs:
            font = FT2Font(file)
            font.set_size(100, 72)
            font.load_glyph(index, flags=LoadFlags.NO_HINTING)
            verts, _ = font.get_path()
            rebuilt.append(verts * scale + [x, y])
        expected = TextPath((0, 0), text, prop=prop).vertices  # at 10 pt
        got = np.concatenate(rebuilt) * 10 / 100  # TextToPath's 100 units to the font size
        assert got.shape == expected.shape and np.allclose(got, expected, atol=1e-6), changed(
            "TextToPath.get_text_path's glyph layout (_text_helpers.layout, mathtext_parser.parse's glyphs)")
        chars = "".join(c for _, _, c, *_ in glyphs)
        assert chars == ("To office" if not ismath else "α2x"), changed("raqm's LayoutItem.char / mathtext's code")
