"""What a PDF says about the figure beyond its drawing: its alt text as a tagged figure, and composer's provenance.

**Alt text.** The resvg engine's PDF is tagged by Typst itself (the page one ``/Figure`` structure element
with ``/Alt``: :mod:`composer.stages.export.resvg_engine`). cairo writes no structure at all, so a PDF
without a structure tree gets one here (:func:`tag_as_figure`, ISO 32000-1, 14.7 and 14.8, the
structure Typst writes): ``/StructTreeRoot`` -> ``/Document`` -> ``/Figure`` with ``/Alt``, the page's
content marked as that figure's one marked-content sequence (``/Figure <</MCID 0>> BDC ... EMC``, page
``/StructParents`` 0 and the parent tree pointing back), ``/MarkInfo <</Marked true>>`` and ``/Lang``.

**Provenance.** composer's provenance record (JSON text, :mod:`composer.incremental.provenance`) is the
property ``composer:provenance`` of the PDF's XMP metadata (:data:`XMP_NS`), set through pikepdf's
``open_metadata`` (:func:`with_provenance`). Not in a PDF/A: PDF/A-1 to -4 accept an XMP property
outside the standard schemas only with an extension schema describing it (ISO 19005-2, 6.6.2.3), which
composer does not write; the PDF/A is left as the engine wrote it, and its SVG and PNG still hold the record.

The PDF is rewritten by qpdf (:mod:`pikepdf`) with an ``/ID`` derived from its content: equal inputs,
equal bytes.
"""

from __future__ import annotations

import io

#: the language the tagged PDF declares (``/Lang``): composer's messages and Typst's default
LANG = "en"
#: the XMP namespace of composer's property (the SVG's ``<metadata>`` uses the same)
XMP_NS = "urn:figure-composer:provenance:1"
_PROPERTY = f"{{{XMP_NS}}}provenance"


def _metadata_api() -> type:
    from pikepdf.models.metadata import PdfMetadata

    PdfMetadata.register_xml_namespace(XMP_NS, "composer")
    return PdfMetadata


def with_provenance(pdf: bytes, record: str) -> bytes:
    """``pdf`` with ``record`` as the XMP property ``composer:provenance`` (the other metadata kept, no
    editor or date added); ``pdf`` itself for an empty record or a PDF/A (see the module docstring).

    Raises:
        pikepdf.PdfError: ``pdf`` is not a PDF qpdf reads.
    """
    import pikepdf

    if not record:
        return pdf
    _metadata_api()
    doc = pikepdf.open(io.BytesIO(pdf))
    with doc.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
        if meta.pdfa_status:
            return pdf
        meta[_PROPERTY] = record
    out = io.BytesIO()
    doc.save(out, deterministic_id=True)
    return out.getvalue()


def pdf_provenance(pdf: bytes, *, source: str = "PDF") -> str | None:
    """The ``composer:provenance`` XMP property of a PDF (:func:`with_provenance`), or None.

    Raises:
        ComposerError: at ``source`` (the file as the user named it): not a PDF qpdf reads, in qpdf's words
            without the name of the in-memory stream it was read from.
    """
    import re

    import pikepdf

    from composer.errors import ComposerError

    _metadata_api()
    try:
        doc = pikepdf.open(io.BytesIO(pdf))
    except pikepdf.PdfError as exc:
        why = re.sub(r"^stream <[^>]*>:\s*", "", str(exc))  # qpdf names the BytesIO, by its address
        raise ComposerError(f"not a readable PDF ({why})", file=source) from None
    with doc.open_metadata() as meta:
        value = meta.get(_PROPERTY)
    return str(value) if value is not None else None


def tag_as_figure(pdf: bytes, alt: str) -> bytes:
    """``pdf`` (one page, no structure tree) tagged as one figure whose ``/Alt`` is ``alt``; ``pdf`` itself
    when it already has a structure tree (Typst's) or ``alt`` is empty.

    Raises:
        pikepdf.PdfError: ``pdf`` is not a PDF qpdf reads.
    """
    import pikepdf

    doc = pikepdf.open(io.BytesIO(pdf))
    if not alt or "/StructTreeRoot" in doc.Root or len(doc.pages) != 1:
        return pdf
    page = doc.pages[0]
    page.contents_coalesce()
    marked = b"/Figure <</MCID 0>> BDC\n" + page.Contents.read_bytes() + b"\nEMC\n"
    page.Contents = doc.make_stream(marked)
    page.obj.StructParents = 0
    tree = doc.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructTreeRoot))
    document = doc.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Document, P=tree))
    figure = doc.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name.Figure, P=document,
                                                  Alt=pikepdf.String(alt), Pg=page.obj, K=0))
    document.K = pikepdf.Array([figure])
    tree.K = pikepdf.Array([document])
    tree.ParentTree = doc.make_indirect(pikepdf.Dictionary(Nums=pikepdf.Array([0, pikepdf.Array([figure])])))
    tree.ParentTreeNextKey = 1
    doc.Root.StructTreeRoot = tree
    doc.Root.MarkInfo = pikepdf.Dictionary(Marked=True)
    doc.Root.Lang = pikepdf.String(LANG)
    out = io.BytesIO()
    doc.save(out, deterministic_id=True)
    return out.getvalue()
