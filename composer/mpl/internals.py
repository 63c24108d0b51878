"""Every use composer makes of matplotlib beyond its public API, in one place.

Each item here is guarded by a test in ``tests/mpl/test_internals.py`` that
fails with a message naming the item when a matplotlib release changes it
(an attribute gone, a signature changed, a log message reworded). The
tested range is pinned in ``pyproject.toml`` (``matplotlib>=3.11,<3.12``);
moving the upper bound means running those tests on the new release.

Items:

- :func:`fallback_font_paths`: ``FontManager._find_fonts_by_props``, the
  font list with fallback fonts that matplotlib's own text layout uses
  (there is no public equivalent: ``findfont`` returns one file).
- :func:`forget_font_lookups`: ``FontManager._findfont_cached.cache_clear``
  (matplotlib warns of a substituted font on its first lookup only).
- :func:`forget_parsed_math`: ``MathTextParser._parse_cached.cache_clear``
  (mathtext logs a missing glyph on a formula's first parse only).
- :func:`set_mesh_antialiased`, :func:`constructor_antialiased`:
  ``QuadMesh._antialiased``, the flag ``QuadMesh.draw`` draws with (the one
  its constructor got; ``set_antialiased`` does not reach it).
- the wording of matplotlib's warnings composer reads
  (:data:`FONT_FAMILY_NOT_FOUND`, :data:`FONT_WEIGHT_NOT_FOUND`,
  :data:`MATHTEXT_NO_GLYPH`, :data:`GLYPH_MISSING`): log records of
  ``matplotlib.font_manager`` and ``matplotlib.mathtext`` and the
  ``UserWarning`` of ``matplotlib._text_helpers.warn_on_missing_glyph``; :func:`quiet_family_lookups`
  filters the first by that wording.
- :func:`pyplot_on`: pyplot's figure list (``matplotlib._pylab_helpers.Gcf.figs``,
  the active figure last) and the backend pyplot makes new figures with
  (``matplotlib.pyplot._backend_mod``, a ``matplotlib.backend_bases._Backend``
  subclass; ``_BackendAgg.new_figure_manager_given_figure``, which
  ``plt.figure()`` and so ``plt.subplots()`` call), so that pyplot draws on a
  panel's figure and never starts a GUI.
- :func:`math_as_paths`: not an internal, but a hook on the renderer
  protocol (``Figure.draw(renderer)`` called by ``print_svg``,
  ``renderer.draw_text(gc, x, y, s, prop, angle, ismath, mtext)``, and the
  ``svg.fonttype`` rcParam read by ``RendererSVG.draw_text`` when it is
  called); guarded like the rest.
- :func:`is_colorbar`: ``Axes._colorbar``, which ``Colorbar.__init__`` sets on
  the axes it draws in (also on a ``cax=`` the renderer made itself, whose
  label is its own: only axes made by ``fig.colorbar(ax=...)`` get the label
  ``"<colorbar>"``).
- :func:`dash_pattern`: ``_unscaled_dash_pattern``, the ``(offset, on-off sequence)`` that
  ``Line2D.set_linestyle`` and ``Patch.set_linestyle`` keep (public getters name the style only:
  ``get_linestyle()`` is ``"--"`` for any dashes), for a collected legend's entries.
- :func:`collection_dashes`: ``Collection._us_linestyles``, a ``LineCollection``'s ``(offset, on-off
  sequence)`` per line before line-width scaling (``get_linestyle()`` gives them scaled), which matplotlib's
  errorbar and stem legend handlers copy.
- :func:`markers_written_at_once`: ``RendererSVG.draw_markers`` with its loop over the points
  written as one string (matplotlib computes the same style and goes through its XML writer for each
  of a scatter's 100,000 ``<use>``: 1.5 s of a 1.8 s render): byte-identical output, reading
  ``RendererSVG``'s ``writer``, ``_convert_path``, ``_get_style_dict``, ``_get_style``, ``_markers``,
  ``_make_id``, ``_get_clip_attrs``, ``_make_flip_transform``, ``width``/``height``, and the writer's
  name-mangled ``__write``, ``__tags``, ``__indentation``; guarded by comparing its bytes with
  matplotlib's own on markers of every kind the function meets, and by the source of
  ``draw_markers`` it replaces.
- :func:`glyph_layout`: ``TextToPath._get_font``, ``matplotlib._text_helpers.layout`` (raqm's items:
  ``ft_object``, ``glyph_index``, ``char``, ``x``, ``y``) and ``TextToPath.mathtext_parser.parse`` (its
  glyphs ``(font, fontsize, code, glyph_index, x, y)``), the calls ``TextToPath.get_text_path`` makes, so
  the glyphs it lists are the ones a ``TextPath`` outlines, where it outlines them.
- :func:`contour_levels`: ``ContourSet._levels``, its levels with the ends an ``extend`` adds (+-1e250,
  1e-250 on a log scale), the boundaries ``Colorbar.__init__`` draws a contour set's bar with.

matplotlib is imported inside the functions: importing this module is free.
"""

from __future__ import annotations

import logging
import re
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: ``findfont: Font family ['Foo'] not found. Falling back to DejaVu Sans.`` and
#: ``findfont: Font family 'Foo' not found.`` (matplotlib/font_manager.py,
#: ``_find_fonts_by_props`` and ``_findfont_cached``); group 1: the family.
FONT_FAMILY_NOT_FOUND = re.compile(r"Font family \[?'([^']+)'\]? not found")
#: ``findfont: Failed to find font weight light for DejaVu Sans, now using 400.``
#: (font_manager.py, ``_findfont_cached``); groups: asked weight, font name, weight used.
FONT_WEIGHT_NOT_FOUND = re.compile(r"Failed to find font weight (\S+) for (.+), now using (\S+)\.")
#: ``Font 'default' does not have a glyph for '\u2603' [U+2603], substituting with a dummy symbol.``
#: (matplotlib/_mathtext.py, ``TruetypeFonts._get_glyph``); group 1: the code point in hex.
MATHTEXT_NO_GLYPH = re.compile(r"does not have a glyph for .*\[U\+([0-9a-fA-F]+)\]")
#: ``Glyph 9731 (\N{SNOWMAN}) missing from font(s) DejaVu Sans.`` (a UserWarning of
#: matplotlib/_text_helpers.py, ``warn_on_missing_glyph``); group 1: the code point in decimal.
GLYPH_MISSING = re.compile(r"Glyph (\d+) \(.*\) missing from font")


def family_not_found(message: str) -> str | None:
    """The family of a ``findfont: Font family ... not found`` log message, else None."""
    match = FONT_FAMILY_NOT_FOUND.search(message)
    return match.group(1) if match else None


def weight_not_found(message: str) -> tuple[str, str, str] | None:
    """``(asked weight, font name, weight used)`` of a ``Failed to find font weight`` message, else None."""
    match = FONT_WEIGHT_NOT_FOUND.search(message)
    return (match.group(1), match.group(2), match.group(3)) if match else None


def mathtext_missing_char(message: str) -> str | None:
    """The character of a mathtext ``does not have a glyph for ... [U+xxxx]`` log message, else None."""
    match = MATHTEXT_NO_GLYPH.search(message)
    return chr(int(match.group(1), 16)) if match else None


def text_missing_char(message: str) -> str | None:
    """The character of a ``Glyph N (...) missing from font(s)`` warning, else None."""
    match = GLYPH_MISSING.match(message)
    return chr(int(match.group(1))) if match else None


class _FamilyNotFound(logging.Filter):
    """Drops matplotlib's ``findfont: Font family ... not found`` records (:func:`family_not_found`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return family_not_found(record.getMessage()) is None


@contextmanager
def quiet_family_lookups() -> Iterator[None]:
    """Inside the block, matplotlib logs no ``findfont: Font family 'X' not found.`` (it logs one for each
    family of a list it lacks, at every lookup: an imported file's ``font-family`` names ten, most absent,
    and measuring its text logged 1,540 lines in one corpus run). For composer's own lookups, whose callers
    say what is missing in composer's voice (:func:`composer.text.fonts.check_svg_fonts`: an imported
    file's missing fonts, once per file). Other records of matplotlib's font manager pass."""
    logger = logging.getLogger("matplotlib.font_manager")
    quiet = _FamilyNotFound()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def fallback_font_paths(prop: Any) -> list[str]:
    """The font files matplotlib lays out ``prop`` (a FontProperties) with: the first match of each
    family of its list, in order (``FontManager._find_fonts_by_props``, as ``text.Text`` uses)."""
    from matplotlib import font_manager

    return list(font_manager.fontManager._find_fonts_by_props(prop))


def forget_font_lookups() -> bool:
    """Empty matplotlib's cache of font lookups (``FontManager._findfont_cached``), so the next lookup
    of a missing font warns again. Returns False when this matplotlib has no such cache."""
    from matplotlib import font_manager

    clear = getattr(getattr(font_manager.FontManager, "_findfont_cached", None), "cache_clear", None)
    if clear is None:
        return False
    clear()
    return True


def forget_parsed_math() -> bool:
    """Empty mathtext's cache of parsed formulas (``MathTextParser._parse_cached``), so a formula
    parsed again logs its missing glyphs again. Returns False when this matplotlib has no such cache."""
    from matplotlib.mathtext import MathTextParser

    clear = getattr(getattr(MathTextParser, "_parse_cached", None), "cache_clear", None)
    if clear is None:
        return False
    clear()
    return True


def constructor_antialiased(collection: Any) -> bool | None:
    """The ``antialiased`` a QuadMesh was made with (``QuadMesh._antialiased``); None for other collections."""
    value = getattr(collection, "_antialiased", None)
    return None if value is None else bool(value)


def set_mesh_antialiased(collection: Any, flag: bool) -> None:
    """``collection.set_antialiased(flag)``, and for a QuadMesh also the flag its ``draw`` uses
    (``QuadMesh._antialiased``: matplotlib 3.x collections.py draws with the constructor's value)."""
    collection.set_antialiased(flag)
    if hasattr(collection, "_antialiased"):
        collection._antialiased = flag


class _MathAsPathsRenderer:
    """A renderer standing in for the one ``Figure.draw`` is given: every attribute read and write goes
    to that renderer, except ``draw_text``, which draws mathtext (``ismath`` true) with
    ``svg.fonttype = "path"`` whatever the rcParam says."""

    def __init__(self, renderer: Any) -> None:
        object.__setattr__(self, "_composer_inner", renderer)

    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "_composer_inner"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_composer_inner"), name, value)

    def draw_text(self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float, ismath: Any = False,
                  mtext: Any = None) -> Any:
        import matplotlib

        inner = object.__getattribute__(self, "_composer_inner")
        if ismath and matplotlib.rcParams["svg.fonttype"] != "path":
            with matplotlib.rc_context({"svg.fonttype": "path"}):
                return inner.draw_text(gc, x, y, s, prop, angle, ismath, mtext)
        return inner.draw_text(gc, x, y, s, prop, angle, ismath, mtext)


@contextmanager
def math_as_paths(fig: Any) -> Iterator[None]:
    """While inside, saving ``fig`` as SVG draws its mathtext as outlines and its other text as
    ``<text>`` (under ``svg.fonttype = "none"``).

    ``FigureCanvasSVG.print_svg`` draws with ``fig.draw(renderer)``; for the block, ``fig.draw`` is an
    instance attribute that hands ``Figure.draw`` a renderer whose ``draw_text`` sets
    ``svg.fonttype = "path"`` around every ``ismath`` call (:class:`_MathAsPathsRenderer`). What the
    figure had as ``draw`` before is put back on leaving.
    """
    had = "draw" in vars(fig)
    before = fig.draw  # bound method, or the instance's own draw

    def draw(renderer: Any, *args: Any, **kwargs: Any) -> Any:
        return before(_MathAsPathsRenderer(renderer), *args, **kwargs)

    fig.draw = draw
    try:
        yield
    finally:
        if had:
            fig.draw = before
        else:
            del fig.draw


@contextmanager
def pyplot_on(fig: Any) -> Iterator[list[tuple[Any, traceback.StackSummary]]]:
    """While inside, pyplot's current figure is ``fig`` (a ``matplotlib.figure.Figure``), and pyplot
    sees no other: ``plt.gca()``, ``plt.plot()``, ``plt.title()``, ``plt.colorbar()`` draw on ``fig``.

    Yields a list, filled as it happens, of ``(figure, stack)`` for each figure pyplot makes inside
    the block (``plt.figure()``, ``plt.subplots()``, ``plt.subplot_mosaic()``, a ``plt.gca()`` after
    ``plt.close()``), ``stack`` being where it was made (``traceback.extract_stack``, innermost last).

    How: ``fig`` gets a ``FigureManagerBase`` (no window) and is made the only entry of pyplot's
    figure list ``Gcf.figs``; pyplot's backend (``pyplot._backend_mod``) is, for the block, Agg's
    (:class:`matplotlib.backends.backend_agg._BackendAgg`, non-interactive), so a figure made inside
    gets an Agg canvas and no GUI backend is ever resolved or started. On leaving, the figures made
    inside are closed (``Gcf.destroy``), ``fig`` loses its manager, and the figure list and backend
    are what they were, in the same order (the user's current figure stays current).
    """
    from matplotlib import _pylab_helpers, pyplot
    from matplotlib.backend_bases import FigureManagerBase
    from matplotlib.backends.backend_agg import _BackendAgg

    made: list[tuple[Any, traceback.StackSummary]] = []

    class _PanelBackend(_BackendAgg):
        @classmethod
        def new_figure_manager_given_figure(cls, num: Any, figure: Any) -> Any:
            if figure is not fig:  # plt.figure(fig) after plt.close(): fig again, not a new one
                made.append((figure, traceback.extract_stack()))
            return super().new_figure_manager_given_figure(num, figure)

    gcf = _pylab_helpers.Gcf
    figs_before = list(gcf.figs.items())
    backend_before = pyplot._backend_mod
    canvas = fig.canvas
    manager_before = canvas.manager
    gcf.figs.clear()
    pyplot._backend_mod = _PanelBackend
    try:
        manager = FigureManagerBase(canvas, 1)
        # what Gcf gives each manager it makes (plt.close("all") disconnects it: Gcf.destroy_all)
        manager._cidgcf = canvas.mpl_connect("button_press_event", lambda event: None)  # type: ignore[attr-defined]
        gcf.set_active(manager)
        yield made
    finally:
        for other in list(gcf.figs.values()):
            if other is not manager:
                gcf.destroy(other)
        gcf.figs.clear()
        gcf.figs.update(figs_before)
        pyplot._backend_mod = backend_before
        if fig.canvas is not canvas:  # plt.figure(fig) after plt.close() gave it an Agg canvas
            fig.set_canvas(canvas)
        canvas.mpl_disconnect(manager._cidgcf)  # type: ignore[attr-defined]
        canvas.manager = manager_before


def is_colorbar(ax: Any) -> bool:
    """True when ``ax`` holds a colorbar (``fig.colorbar``, also with a ``cax`` of the renderer's own)."""
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"


def dash_pattern(artist: Any) -> tuple[float, tuple[float, ...]] | None:
    """The dash pattern of a ``Line2D`` or ``Patch`` in pt before line-width scaling: ``(offset, (on, off,
    ...))``; None when it is solid (or the artist keeps none)."""
    pattern = getattr(artist, "_unscaled_dash_pattern", None)
    if not isinstance(pattern, tuple) or len(pattern) != 2 or not pattern[1]:
        return None
    offset, sequence = pattern
    return float(offset or 0.0), tuple(float(v) for v in sequence)


def collection_dashes(collection: Any) -> tuple[float, tuple[float, ...]] | None:
    """The first line's dash pattern of a ``LineCollection`` in pt before line-width scaling: ``(offset, (on, off,
    ...))``; None when it is solid (or the collection keeps none)."""
    unscaled = getattr(collection, "_us_linestyles", None) or [(0.0, None)]
    first = unscaled[0] if isinstance(unscaled[0], tuple) and len(unscaled[0]) == 2 else (0.0, None)
    offset, sequence = first
    if not sequence:
        return None
    return float(offset or 0.0), tuple(float(v) for v in sequence)


def contour_levels(contour_set: Any) -> list[float]:
    """A ``ContourSet``'s levels with the ends its ``extend`` adds (what ``Colorbar`` draws its bands between);
    its public ``levels`` when it keeps none."""
    levels = getattr(contour_set, "_levels", None)
    return [float(v) for v in (levels if levels is not None else contour_set.levels)]


#: sha256 of the source of ``RendererSVG.draw_markers`` that :func:`_draw_markers` reproduces (matplotlib 3.11)
DRAW_MARKERS_SOURCE = "678bac1a8eddd1a8d1b3ab5d34b08dd00a71e7e90d1018e989e6697f0d37bd82"


def _draw_markers(self: Any, gc: Any, marker_path: Any, marker_trans: Any, path: Any, trans: Any,
                  rgbFace: Any = None) -> None:
    """``RendererSVG.draw_markers`` of matplotlib 3.11, its output byte for byte, with the ``<use>`` of
    every point after the first written as one string: the marker's style is the same at every point
    (``self._get_style(gc, rgbFace)``, which matplotlib computes again at each), and the writer's
    ``element`` would write, for an empty ``<use>`` after the first, its indentation, the tag, the
    attributes (each value quoted as ``_quote_escape_attrib`` quotes it, skipped when empty) and ``/>``."""
    from matplotlib.backends.backend_svg import _generate_css, _quote_escape_attrib, _short_float_fmt
    from matplotlib.transforms import Affine2D

    if not len(path.vertices):
        return

    writer = self.writer
    path_data = self._convert_path(
        marker_path,
        marker_trans + Affine2D().scale(1.0, -1.0),
        simplify=False)
    style = self._get_style_dict(gc, rgbFace)
    dictkey = (path_data, _generate_css(style))
    oid = self._markers.get(dictkey)
    style = _generate_css({k: v for k, v in style.items()
                          if k.startswith('stroke')})

    if oid is None:
        oid = self._make_id('m', dictkey)
        writer.start('defs')
        writer.element('path', id=oid, d=path_data, style=style)
        writer.end('defs')
        self._markers[dictkey] = oid

    writer.start('g', **self._get_clip_attrs(gc))
    if gc.get_url() is not None:
        self.writer.start('a', {'xlink:href': gc.get_url(), 'target': '_blank'})
    trans_and_flip = self._make_flip_transform(trans)
    attrib = {'xlink:href': f'#{oid}'}
    clip = (0, 0, self.width*72, self.height*72)
    use_style = self._get_style(gc, rgbFace)
    lines: list[str] | None = None
    head = tail = ""
    for vertices, _code in path.iter_segments(
            trans_and_flip, clip=clip, simplify=False):
        if len(vertices):
            x, y = vertices[-2:]
            if lines is None:  # the first through the writer: it closes the open <g> start tag
                attrib['x'] = _short_float_fmt(x)
                attrib['y'] = _short_float_fmt(y)
                attrib['style'] = use_style
                writer.element('use', attrib=attrib)
                indent = writer._XMLWriter__indentation[:len(writer._XMLWriter__tags)]
                head = f'{indent}<use xlink:href={_quote_escape_attrib(attrib["xlink:href"])} x="'
                tail = f'" style={_quote_escape_attrib(use_style)}/>\n' if use_style else '"/>\n'
                lines = []
                continue
            lines.append(f'{head}{_short_float_fmt(x)}" y="{_short_float_fmt(y)}{tail}')
    if lines:
        writer._XMLWriter__write("".join(lines))
    if gc.get_url() is not None:
        self.writer.end('a')
    writer.end('g')


@contextmanager
def markers_written_at_once() -> Iterator[None]:
    """While inside, matplotlib's SVG renderer draws markers with :func:`_draw_markers` (the same bytes, the
    points after the first written at once); matplotlib's own ``draw_markers`` is put back on leaving. Not
    entered (matplotlib's own is used) when the method's source is not the one reproduced."""
    import hashlib
    import inspect

    from matplotlib.backends.backend_svg import RendererSVG

    own = RendererSVG.__dict__.get("draw_markers")
    try:
        digest = hashlib.sha256(inspect.getsource(own).encode()).hexdigest() if own is not None else ""
    except (OSError, TypeError):
        digest = ""
    if digest != DRAW_MARKERS_SOURCE:
        yield
        return
    setattr(RendererSVG, "draw_markers", _draw_markers)  # noqa: B010  (a method replaced: mypy's rule)
    try:
        yield
    finally:
        setattr(RendererSVG, "draw_markers", own)  # noqa: B010


def glyph_layout(text: str, prop: Any, ismath: bool) -> list[tuple[str, int, str, float, float, float]]:
    """The glyphs matplotlib's ``TextPath`` outlines for ``text`` in ``prop`` (a FontProperties), as
    ``TextToPath.get_text_path`` lays them out (the same calls, so the same fonts, fallbacks and places).

    Returns:
        One ``(font file, glyph index, character, x, y, scale)`` per glyph, in ``TextToPath``'s frame:
        ``TextToPath.FONT_SCALE`` (100) units to the font size, y up, the origin at the start of the
        baseline; ``scale`` is the glyph's size over the font size (mathtext's sub- and superscripts are
        smaller). The character is the one matplotlib looked up (raqm's item, mathtext's code point in
        the font's own character map); the rectangles of mathtext (fraction bars, roots) are not glyphs
        and are not listed.
    """
    from matplotlib import _text_helpers
    from matplotlib.textpath import text_to_path

    if ismath:
        big = prop.copy()
        big.set_size(text_to_path.FONT_SCALE)
        parsed = text_to_path.mathtext_parser.parse(text, text_to_path.DPI, big)
        return [(str(font.fname), int(index), chr(int(code)), float(ox), float(oy),
                 float(size) / text_to_path.FONT_SCALE)
                for font, size, code, index, ox, oy in parsed.glyphs]
    font = text_to_path._get_font(prop)  # type: ignore[attr-defined]
    return [(str(item.ft_object.fname), int(item.glyph_index), str(item.char), float(item.x), float(item.y), 1.0)
            for item in _text_helpers.layout(text, font)]
