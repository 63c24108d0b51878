"""The ``svg`` panel source: an SVG file (Inkscape, Illustrator, another tool's output), fitted in the box.

The file is read and sanitized by the inputs stage (:func:`composer.svg.sanitize.load_svg`: no
scripts, no outside references), imported as a group (its ids renumbered, its CSS scoped:
:func:`composer.stages.fragment.import_fragment`) and fitted in the box keeping its aspect as its
``preserveAspectRatio`` says. Its elements' ids are reachable as ``"panel#id"`` points
(:func:`composer.stages.geometry.imported_svgs`). A file matplotlib made has its meshes
rasterized at ``raster_ppi``, as a rendered panel's are.
"""

from __future__ import annotations

from lxml import etree

from composer.layout.keys import Key
from composer.layout.model import Panel
from composer.layout.sources import SourceTable, file_type
from composer.stages.geometry import Box
from composer.stages.mplfiles import matplotlib_made, mesh_groups, rasterize_meshes
from composer.stages.sources.base import (
    Drawing,
    PanelSource,
    Reading,
    naming_the_file,
    placed,
    read_project_file,
    svg_aspect,
)
from composer.svg.sanitize import load_svg


class SvgSource(PanelSource):
    """An SVG file's panel (see the module docstring)."""

    table = SourceTable(key=Key("svg", "svg_file", "an SVG file, fitted in the box keeping its aspect"),
                        element_ids=True, article="an", note="an svg panel is embedded as it is",
                        types=(file_type("svg_file", (".svg",), r"(?i)\.svg$", "an SVG file"),))
    imported = True

    def read(self, panel: Panel, reading: Reading) -> bytes:
        """The file, sanitized (:func:`composer.svg.sanitize.load_svg`).

        Raises:
            LayoutError: the file is outside the project. SvgError: it is not a usable SVG file.
        """
        return read_project_file(panel, reading,
                                 lambda path, display, _: load_svg(path, project_root=reading.root, source=display))

    def file_aspect(self, panel: Panel, document: bytes) -> float:
        """The width / height of the file's viewBox (:func:`svg_aspect`)."""
        return svg_aspect(document, source=str(panel.source))

    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """The file fitted in ``box`` keeping its aspect; a matplotlib file's meshes rasterized."""
        assert drawing.document is not None
        meshes: list[etree._Element] = []

        def find_meshes(doc: etree._Element) -> None:
            if matplotlib_made(doc):  # before ids change
                meshes.extend(mesh_groups(doc))

        with naming_the_file(panel, drawing.figure, drawing.file):
            group = placed(drawing.document, panel, box, source=str(panel.source), fit="contain", renumber=True,
                           before=find_meshes)
            rasterize_meshes(meshes, drawing.figure.spec.raster_ppi)  # a matplotlib file's seams
        return group
