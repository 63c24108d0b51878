"""What a PDF says about the figure beyond its drawing: its alt text as a tagged figure, and composer's provenance.

**Alt text.** The resvg engine's PDF is tagged by Typst itself (the page one ``/Figure`` structure element
with ``/Alt``: :mod:`composer.stages.export.resvg_engine`). cairo writes no structure at all, so a PDF
without a structure tree gets one here (:func:`tag_as_figure`, ISO 32000-1, 14.7 and 14.8, the
structure Typst writes): ``/StructTreeRoot`` -> ``/Document`` -> ``/Figure`` with ``/Alt``, the page's
content marked as that figure's one marked-content sequence (``/Figure <</MCID 0>> BDC ... EMC``, page
``/StructParents`` 0 and the parent tree pointing back), ``/MarkInfo <</Marked true>>`` and ``/Lang``.

The PDF is rewritten by qpdf (:mod:`pikepdf`) with an ``/ID`` derived from its content: equal inputs,
equal bytes.
"""

from __future__ import annotations

import io

#: the language the tagged PDF declares (``/Lang``): composer's messages and Typst's default
LANG = "en"


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
