"""The ``pdf`` panel source: one page of a PDF (made by R, Illustrator...), converted to vector SVG.

The inputs stage converts the page with ``pdftocairo`` (poppler-utils;
:mod:`composer.stages.pdf`, cached in ``build/.cache/pdf``: glyphs become
outlines) and sanitizes the result as an ``svg`` panel's file; composing
fits it in the box like an ``svg`` panel. Its own key ``page`` (1-based)
goes to ``Panel.options``. The PDF and PNG outputs draw the page itself in
the converted group's place when every font it uses is embedded
(:meth:`PdfSource.pdf_page`, docs/design.md "PDF panels"), and ``compose
check`` reads the page's text sizes from the PDF (:meth:`PdfSource.texts`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lxml import etree

from composer.errors import DataError
from composer.kinds.outputs import PdfPage
from composer.layout.keys import Key, ValueType
from composer.layout.model import Panel
from composer.layout.reader import Reader
from composer.layout.sources import SourceTable, file_type
from composer.stages.geometry import Box
from composer.stages.sources.base import (
    Drawing,
    PanelSource,
    Reading,
    SourceText,
    naming_the_file,
    placed,
    read_project_file,
    svg_aspect,
)


def page_number(reader: Reader, value: Any, key: str) -> int:
    """``page``: a 1-based page number, an integer >= 1.

    Raises:
        LayoutError: anything else (a bool, a float, 0), naming the key.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise reader.err(key, f"{value!r} is not a page number; give an integer from 1 (the first page)")
    return value


class PdfSource(PanelSource):
    """A PDF page's panel (see the module docstring)."""

    table = SourceTable(
        key=Key("pdf", "pdf_file", "a PDF page (made by R, Illustrator...), converted to vector SVG (glyphs as "
                                   "outlines) and fitted like `svg`; needs `pdftocairo` (poppler-utils)"),
        keys=(Key("page", "page", "pdf panels: the page to show, 1-based", default=1),),
        note="a pdf panel is embedded as it is",
        types=(file_type("pdf_file", (".pdf",), r"(?i)\.pdf$", "a PDF file"),
               ValueType("page", "integer >= 1", page_number,
                         {"type": "integer", "minimum": 1})))
    imported = True

    def read(self, panel: Panel, reading: Reading) -> bytes:
        """The page ``panel.options["page"]`` as a sanitized SVG document.

        Raises:
            LayoutError: the file is outside the project. DataError: the file or page cannot be converted
                (at ``panels.NAME.pdf``; a page past the last at ``panels.NAME.page``), or the converter is
                missing. SvgError: the converted page is refused by the sanitizer.
        """
        return read_project_file(panel, reading, lambda path, display, shown: _page_document(
            panel, path, reading, display, shown))

    def texts(self, panel: Panel) -> tuple[SourceText, ...]:
        """The page's text objects as pdfium reads them (:func:`composer.stages.pdf.page_texts`): their size
        on the page and their characters; the converted SVG draws them as outlines, which carry no size.

        Raises:
            DataError: pdfium cannot read the page.
        """
        from composer.stages.pdf import page_texts

        return tuple((t.size_pt, t.text) for t in page_texts(Path(panel.source), panel.options["page"]))

    def pdf_page(self, panel: Panel, document: bytes | None) -> PdfPage | None:
        """The page itself, for a PDF output to draw as it is (:class:`composer.kinds.outputs.PdfPage`: the
        converted page's viewBox is where its group's transform maps it), when every font its text uses is
        embedded in the file (:func:`composer.stages.pdf.fonts_embedded`): a font the file only names
        (R's ``pdf()`` Helvetica) would then be left for each reader's viewer to substitute, where the
        converted page draws fontconfig's match as outlines. None otherwise, or without a document."""
        from composer.stages.pdf import fonts_embedded
        from composer.svg.io import parse_svg
        from composer.svg.viewbox import view_box

        if document is None:
            return None
        path = Path(panel.source)
        page = panel.options["page"]
        try:
            if not fonts_embedded(path, page):
                return None
            data = path.read_bytes()
        except (DataError, OSError):
            return None  # drawn converted, as every other output draws it
        vb = view_box(parse_svg(document, source=str(path)), source=str(path))
        return PdfPage(group=f"panel-{panel.name}", data=data, page=page, view_box=(vb.x, vb.y, vb.width, vb.height))

    def file_aspect(self, panel: Panel, document: bytes) -> float:
        """The width / height of the converted page (its viewBox: :func:`svg_aspect`)."""
        return svg_aspect(document, source=str(panel.source))

    def draw(self, panel: Panel, box: Box, drawing: Drawing) -> etree._Element:
        """The converted page fitted in ``box`` keeping its aspect."""
        assert drawing.document is not None
        with naming_the_file(panel, drawing.figure, drawing.file):
            return placed(drawing.document, panel, box, source=str(panel.source), fit="contain", renumber=True)


def _crisp_unless_interpolated(root: etree._Element, smoothed: set[tuple[int, int]]) -> None:
    """Mark every ``<image>`` of a converted page ``image-rendering="optimizeSpeed"`` unless the PDF asks to
    smooth an image of its pixel size (``smoothed``: :func:`composer.stages.pdf.smoothed_image_sizes`): a PDF
    viewer draws an image without ``/Interpolate`` with square pixels, and every output then does too."""
    from composer.svg.io import svg_tag

    for image in root.iter(svg_tag("image")):
        try:
            size = (int(float(image.get("width", ""))), int(float(image.get("height", ""))))
        except ValueError:
            size = (0, 0)
        if size not in smoothed:
            image.set("image-rendering", "optimizeSpeed")


def _page_document(panel: Panel, path: Path, reading: Reading, display: str, shown: str) -> bytes:
    """A pdf panel's page as a sanitized SVG document (the conversion cached in ``build/.cache/pdf``)."""
    from composer.stages.pdf import PageRangeError, cache_dir, pdf_page_svg, smoothed_image_sizes
    from composer.svg.io import parse_svg
    from composer.svg.sanitize import sanitize

    page = panel.options["page"]
    try:
        svg = pdf_page_svg(path, page, source=shown, cache=cache_dir(reading.root))
    except PageRangeError as exc:
        raise DataError(exc.message, file=reading.file, key=f"{panel.key}.page") from None
    except DataError as exc:
        raise DataError(exc.message, file=reading.file, key=f"{panel.key}.pdf") from None
    source = f"{display} (page {page}, converted)"
    root = parse_svg(svg, source=source)
    _crisp_unless_interpolated(root, smoothed_image_sizes(path, page))
    sanitize(root, source=source, base_dir=path.parent, project_root=reading.root)
    etree.cleanup_namespaces(root)
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True)
