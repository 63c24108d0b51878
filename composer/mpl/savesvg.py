"""Panel SVG: how a drawn matplotlib Figure is saved as the SVG composer imports.

Called by :func:`composer.stages.render.save_panel` inside the panel's rcParams.

Text (``[figure] text``):
    ``"paths"``: ``svg.fonttype = "path"``, every glyph an outline.
    ``"editable"``: ``svg.fonttype = "none"``, text stays ``<text>``; but
    mathtext is still drawn as outlines: with ``fonttype = "none"`` matplotlib
    writes math as characters of its own math fonts (``cmmi10``, STIX,
    DejaVu's math glyphs) that other renderers draw with other glyphs
    (docs/design.md). :func:`composer.mpl.internals.math_as_paths` hands
    matplotlib's own ``print_svg`` a renderer that sends ``ismath`` text to
    matplotlib's outline path. On the canvas,
    :mod:`composer.text.pin` then gives every character the x matplotlib laid
    it out at.

Fonts:
    every visible text of the panel must find its font without fallback
    (:func:`check_panel_fonts`); matplotlib's own fallback to DejaVu Sans
    is only a log line, and a swap nobody sees.

Rasters (at ``[figure] raster_ppi`` at final size, aligned with the axes, as
matplotlib's mixed-mode renderer crops every raster to whole pixels of that
grid):
    - seams: vector renderers antialias each polygon alone, so cells that
      share an edge leave a hairline of background between them in every
      viewer (pcolormesh, pcolor, 3D surfaces; SVG has no way to say
      "don't antialias" that PDF viewers follow). Meshes
      (:data:`MESHES`) and filled collections drawn with
      ``antialiased=False`` are rasterized with antialiasing off: Agg then
      gives each pixel to exactly one cell, so there is no seam.
    - heavy panels: when the vector markup of a panel's SVG (its bytes
      minus embedded images) exceeds :data:`HEAVY_PANEL_BYTES`, or the
      layout says ``raster = true``, every data artist of every axes (lines,
      collections, patches, images; not text, axes, ticks or spines) is
      rasterized and the panel saved again: text and axes stay vector.
    ``raster = false`` turns both off (the user's own ``rasterized=True``
    artists stay rasterized).
"""

from __future__ import annotations

import io
import re
from contextlib import nullcontext
from typing import Any

from composer.layout.model import FigureSpec, Panel
from composer.mpl.internals import (
    constructor_antialiased,
    markers_written_at_once,
    math_as_paths,
    set_mesh_antialiased,
)

#: vector markup (SVG bytes outside embedded ``data:`` images) above which a
#: panel's data artists are rasterized: about 6,000 scatter points (160 bytes
#: each) or a 60 x 60 3D surface. Measured again with the resvg engine
#: (``benchmarks/bench.py``, scatter rows): it exports that much markup in a
#: tenth of cairosvg's time, but the SVG itself is then heavy for what opens it
#: (a browser, Inkscape, a journal's upload preview), so the limit stays.
HEAVY_PANEL_BYTES = 1_000_000

_DATA_URI = re.compile(rb"data:[\w/+.-]+;base64,[A-Za-z0-9+/=\s]*")


def svg_fonttype(spec: FigureSpec) -> str:
    """matplotlib's ``svg.fonttype`` for the figure's text mode."""
    return "none" if spec.text == "editable" else "path"


def vector_bytes(svg: bytes) -> int:
    """Size of an SVG without its embedded ``data:`` images (bytes)."""
    return len(svg) - sum(len(m.group(0)) for m in _DATA_URI.finditer(svg))


def save_svg(fig: Any, spec: FigureSpec, panel: Panel, *, file: str) -> tuple[bytes, tuple[str, ...]]:
    """Save a drawn panel figure as SVG bytes (inside the panel's rcParams).

    Returns:
        The SVG bytes and the warnings to report (fonts the panel asks for
        that are not installed: :func:`check_panel_fonts`). They are returned,
        not issued, since panels are drawn in a worker process.

    Raises:
        Exception: matplotlib raised while drawing (the caller reports it).
    """
    notes = check_panel_fonts(fig, panel)
    if panel.raster is not False:
        fix_seams(fig)
    photos = mark_photos(fig)
    svg = _save(fig, spec)
    heavy = vector_bytes(svg)
    if panel.raster or panel.raster is None and heavy > HEAVY_PANEL_BYTES:
        if rasterize_data_artists(fig):
            svg = _save(fig, spec)
            if not panel.raster:
                notes += (f"panel {panel.name!r}: {heavy / 1e6:.1f} MB of vector markup (over "
                          f"{HEAVY_PANEL_BYTES / 1e6:g} MB), so its data artists are rasterized at "
                          f"{spec.raster_ppi:g} ppi (text and axes stay vector); raster = false keeps it vector",)
    return smooth_photos(svg, photos), notes


#: the gid :func:`mark_photos` gives a photo, numbered in drawing order (matplotlib writes it as the image's id)
PHOTO_GID = "composer-photo-{}"
_PIXELATED = 'style="image-rendering:crisp-edges;image-rendering:pixelated"'


def mark_photos(fig: Any) -> int:
    """Give every image of RGB(A) pixels (a photo: ``imshow`` of an (H, W, 3|4) array) without a gid of its
    own the gid ``composer-photo-N``; returns how many.

    matplotlib writes every ``imshow`` as ``image-rendering: pixelated``. For
    a colour-mapped array that is right (its pixels are data cells, kept
    sharp and enlarged to ``raster_ppi``: :mod:`composer.svg.images`); a photo
    drawn smaller than its pixels is then sampled by nearest pixel in SVG
    renderers but smoothed by PDF viewers, and the two disagree (36/255 on a
    24 px tile of volume_kv at 127 dpi, Chromium against pdfium).
    """
    from matplotlib.image import AxesImage

    count = 0
    for image in fig.findobj(AxesImage):
        array = image.get_array()
        if array is not None and array.ndim == 3 and image.get_gid() is None:
            image.set_gid(PHOTO_GID.format(count))
            count += 1
    return count


def smooth_photos(svg: bytes, count: int) -> bytes:
    """The saved SVG with each photo :func:`mark_photos` marked drawn smoothly (``optimizeQuality``)."""
    for i in range(count):
        svg = re.sub(rb'(<image\b[^>]*\bid="' + PHOTO_GID.format(i).encode() + rb'"[^>]*?)' + _PIXELATED.encode(),
                     rb'\1style="image-rendering:optimizeQuality"', svg, count=1)
    return svg


def _save(fig: Any, spec: FigureSpec) -> bytes:
    buf = io.BytesIO()
    with math_as_paths(fig) if spec.text == "editable" else nullcontext(), markers_written_at_once():
        fig.savefig(buf, format="svg", metadata={"Date": None}, dpi=spec.raster_ppi)
    return buf.getvalue()


def check_panel_fonts(fig: Any, panel: Panel) -> tuple[str, ...]:
    """Every visible, non-empty text of ``fig`` should have its font installed.

    Returns:
        One message per font that is not: it names the panel, the text and
        the font, what matplotlib draws instead, and the installed fonts
        (``compose check`` reports the same as its ``font-substituted`` error).
    """
    from matplotlib import font_manager
    from matplotlib.text import Text

    seen, notes = set(), []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        prop = text.get_fontproperties()
        key = (tuple(prop.get_family()), prop.get_weight(), prop.get_style())
        if key in seen:
            continue
        seen.add(key)
        try:
            font_manager.findfont(prop, fallback_to_default=False)
        except ValueError:
            names = sorted({f.name for f in font_manager.fontManager.ttflist})
            family = ", ".join(repr(f) for f in prop.get_family())
            notes.append(f"{panel.key}.render: panel {panel.name!r}: text {text.get_text()[:40]!r} asks for font "
                         f"{family}, which is not installed (matplotlib draws it in "
                         f"{font_manager.fontManager.defaultFamily['ttf']} instead); installed fonts are "
                         f"{', '.join(names)}")
    return tuple(notes)


#: collections whose polygons tile a surface edge to edge: pcolormesh (QuadMesh), pcolor (PolyQuadMesh),
#: 3D surfaces and polygons (Poly3DCollection).
MESHES = ("QuadMesh", "PolyQuadMesh", "Poly3DCollection")


def fix_seams(fig: Any) -> int:
    """Rasterize, without antialiasing, the collections that would show seams
    (see module docstring): meshes (:data:`MESHES`) and any filled collection
    drawn with ``antialiased=False``. Returns how many."""
    from matplotlib.collections import Collection

    count = 0
    for ax in fig.axes:
        for artist in ax.get_children():
            if not isinstance(artist, Collection) or artist.get_rasterized():
                continue
            if type(artist).__name__ in MESHES or _all_aliased(artist) and _has_faces(artist):
                set_mesh_antialiased(artist, False)
                artist.set_rasterized(True)
                count += 1
    return count


def rasterize_data_artists(fig: Any) -> int:
    """Mark every data artist of every axes rasterized (text, axis, spines and
    the axes background stay vector); returns how many were marked."""
    from matplotlib.axis import Axis
    from matplotlib.spines import Spine
    from matplotlib.text import Text

    count = 0
    for ax in fig.axes:
        for artist in ax.get_children():
            if isinstance(artist, (Text, Axis, Spine)) or artist is ax.patch or artist.get_rasterized():
                continue
            if type(artist).__name__ in ("Legend", "AnchoredOffsetbox", "AnnotationBbox"):
                continue
            artist.set_rasterized(True)
            count += 1
    return count


def _all_aliased(collection: Any) -> bool:
    if constructor_antialiased(collection) is False:
        return True
    aa = collection.get_antialiased()
    try:
        return not any(bool(a) for a in aa)
    except TypeError:
        return not bool(aa)


def _has_faces(collection: Any) -> bool:
    if collection.get_array() is not None:  # colour-mapped: faces get their colours at draw time
        return True
    faces = collection.get_facecolor()
    return len(faces) > 0 and bool((faces[:, 3] > 0).any())
