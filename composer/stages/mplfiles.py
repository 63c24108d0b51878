"""SVG files saved by matplotlib elsewhere, imported as panels: the seam fix rendered panels get.

A panel composer renders itself has its meshes (pcolormesh, 3D surfaces) rasterized without
antialiasing at ``[figure] raster_ppi`` (:func:`composer.mpl.savesvg.fix_seams`): vector
renderers antialias each cell alone and leave a hairline of background between cells that share
an edge, in every viewer, PDF viewers included. A file some other script saved with matplotlib
has the same seams; composer cannot redraw its Figure, but it can do the same to the SVG: each
group matplotlib wrote for a mesh collection (its id is the collection's class and a number,
``QuadMesh_1``, ``Poly3DCollection_2``: the classes of :data:`composer.mpl.savesvg.MESHES`) is
drawn alone by the resvg engine, antialiasing off (``shape-rendering: crispEdges``: each pixel
goes to exactly one cell, as Agg does for ``antialiased=False``), at ``raster_ppi`` at its final
size on the pixel grid of the canvas, and replaced by that image.

A file is matplotlib's when its root holds matplotlib's fixed preamble: ``<metadata>`` naming
matplotlib as its creator is removed by sanitizing (:mod:`composer.svg.sanitize`), so what is
read is the default style every matplotlib SVG writes
(``backend_svg.RendererSVG._write_default_style``: ``*{stroke-linejoin: round; stroke-linecap:
butt}``) and its top group ``figure_1``.
"""

from __future__ import annotations

import base64
import copy
import math
import re
from functools import partial

from lxml import etree

from composer.mpl.savesvg import MESHES
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, run_isolated
from composer.svg.io import XLINK_NS, svg_tag
from composer.svg.measure import path_points
from composer.svg.transform import Matrix, cumulative, multiply, parse_transform
from composer.units import fmt

_MESH_ID = re.compile(r"^(" + "|".join(MESHES) + r")_\d+$")
_DEFAULT_STYLE = re.compile(r"\*\s*\{\s*stroke-linejoin:\s*round;\s*stroke-linecap:\s*butt\s*\}")
_URL = re.compile(r"url\(\s*(['\"]?)#([^)'\"\s]+)\1\s*\)")
_HREFS = ("href", f"{{{XLINK_NS}}}href")


def matplotlib_made(root: etree._Element) -> bool:
    """Whether the (sanitized) document ``root`` was written by matplotlib's SVG backend (module docstring)."""
    has_figure = any(child.get("id") == "figure_1" for child in root if isinstance(child.tag, str))
    styles = root.iter(svg_tag("style"))
    return has_figure and any(_DEFAULT_STYLE.search(st.text or "") for st in styles)


def mesh_groups(root: etree._Element) -> list[etree._Element]:
    """The groups of a matplotlib-made document that hold a mesh collection, in document order
    (call before the ids are renumbered on import)."""
    return [el for el in root.iter(svg_tag("g")) if _MESH_ID.match(el.get("id") or "")]


def _matrix(m: Matrix) -> str:
    return "matrix(" + " ".join(f"{v:.9g}" for v in m) + ")"


def _inverse(m: Matrix) -> Matrix:
    a, b, c, d, e, f = m
    det = a * d - b * c
    return (d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det)


def _canvas_box(group: etree._Element) -> tuple[float, float, float, float] | None:
    """The extent of every path under ``group`` on the canvas (pt): the hull of its points."""
    xs: list[float] = []
    ys: list[float] = []
    for el in group.iter(svg_tag("path")):
        m = cumulative(el)
        for sub in path_points(el.get("d", "")):
            for x, y in sub:
                xs.append(m[0] * x + m[2] * y + m[4])
                ys.append(m[1] * x + m[3] * y + m[5])
    if not xs:
        return None
    return min(xs), min(ys), max(xs), max(ys)


def _referenced(group: etree._Element, ids: dict[str, etree._Element]) -> list[etree._Element]:
    """Elements outside ``group`` that its content refers to (clip paths, markers...), and theirs."""
    found: dict[str, etree._Element] = {}
    todo = [group]
    while todo:
        for el in todo.pop().iter():
            if not isinstance(el.tag, str):
                continue
            names = [m.group(2) for v in el.attrib.values() for m in _URL.finditer(v)]
            names += [el.get(a, "")[1:] for a in _HREFS if el.get(a, "").startswith("#")]
            for name in names:
                target = ids.get(name)
                if target is not None and name not in found and group not in target.iterancestors() \
                        and target is not group:
                    found[name] = target
                    todo.append(target)
    return list(found.values())


def _draw(pictures: list[tuple[bytes, tuple[float, float]]], raster_ppi: float) -> list[bytes]:
    """PNG of each ``(svg, size_pt)`` at ``raster_ppi``, by the resvg engine."""
    from composer.stages.export import resvg_engine

    return [resvg_engine.convert(svg, ("png",), dpi=raster_ppi, size_pt=size, source="mesh")["png"]
            for svg, size in pictures]


def rasterize_meshes(meshes: list[etree._Element], raster_ppi: float) -> int:
    """Replace each mesh group (placed: its ancestors carry the panel's transform) by its picture
    drawn without antialiasing at ``raster_ppi`` (module docstring). Returns how many were replaced.

    The picture covers the mesh's extent snapped outwards to the canvas's pixel grid at
    ``raster_ppi``, so its pixels fall on the grid a PNG of the canvas at that dpi has.
    """
    from composer.stages.export import resvg_engine

    if not meshes or resvg_engine.available() is not None:
        return 0
    top = meshes[0]
    while top.getparent() is not None:
        top = top.getparent()
    ids = {el.get("id"): el for el in top.iter() if isinstance(el.tag, str) and el.get("id")}
    pixel_pt = 72.0 / raster_ppi
    done = 0
    jobs: list[tuple[etree._Element, etree._Element, tuple[float, float, float, float], bytes]] = []
    for group in meshes:
        parent = group.getparent()
        box = _canvas_box(group)
        if parent is None or box is None:
            continue
        x0, y0 = math.floor(box[0] / pixel_pt) * pixel_pt, math.floor(box[1] / pixel_pt) * pixel_pt
        x1, y1 = math.ceil(box[2] / pixel_pt) * pixel_pt, math.ceil(box[3] / pixel_pt) * pixel_pt
        if x1 <= x0 or y1 <= y0:
            continue
        to_canvas = multiply(cumulative(parent), parse_transform(group.get("transform")))
        alone = etree.Element(svg_tag("svg"), nsmap={None: "http://www.w3.org/2000/svg", "xlink": XLINK_NS})
        alone.set("width", f"{fmt(x1 - x0)}pt")
        alone.set("height", f"{fmt(y1 - y0)}pt")
        alone.set("viewBox", f"{fmt(x0)} {fmt(y0)} {fmt(x1 - x0)} {fmt(y1 - y0)}")
        defs = etree.SubElement(alone, svg_tag("defs"))
        for target in _referenced(group, ids):
            twin = copy.deepcopy(target)
            twin.tail = None
            defs.append(twin)
        holder = etree.SubElement(alone, svg_tag("g"))
        holder.set("shape-rendering", "crispEdges")
        holder.set("transform", _matrix(to_canvas))
        mesh = copy.deepcopy(group)
        mesh.attrib.pop("transform", None)
        mesh.tail = None
        holder.append(mesh)
        jobs.append((group, parent, (x0, y0, x1, y1), etree.tostring(alone)))
    if not jobs:
        return 0
    # drawn in a forked worker, as exports are: the engine starts threads, and a process that forks
    # after threads started (the export workers) may deadlock in the child
    pictures = run_isolated(partial(_draw, [(svg, (b[2] - b[0], b[3] - b[1])) for _, _, b, svg in jobs],
                                    raster_ppi), timeout_s=DEFAULT_TIMEOUT_S, label=None)
    for (group, parent, (x0, y0, x1, y1), _), png in zip(jobs, pictures):
        image = etree.Element(svg_tag("image"))
        image.set("x", fmt(x0))
        image.set("y", fmt(y0))
        image.set("width", fmt(x1 - x0))
        image.set("height", fmt(y1 - y0))
        image.set("preserveAspectRatio", "none")
        image.set("transform", _matrix(_inverse(cumulative(parent))))
        image.set(f"{{{XLINK_NS}}}href", "data:image/png;base64," + base64.b64encode(png).decode("ascii"))
        image.tail = group.tail
        parent.replace(group, image)
        done += 1
    return done
