"""The resvg engine (default): PDF and PNG from one parse of the SVG by usvg, resvg's SVG model.

usvg turns the composed SVG into a tree of paths, images and paint servers;
svg2pdf writes that tree as a vector PDF, resvg draws it as pixels. Both come
through the ``typst`` package: one wheel holding usvg, resvg and svg2pdf, no
system library. The canvas becomes one Typst page of exactly its size showing
the SVG as an image; Typst decodes an image once per process and reuses the
tree (its memoization), so the PDF and the PNG asked of one call are drawn
from one parse. (With two cores the export stage asks for them in two
workers, parsing twice with the same usvg: 0.01 s, and the same model.)

Why this binding (measured on volume_kv's composed SVG, 1.1 MB, 2 cores, one
process; see ``benchmarks/bench.py`` for the engine comparison):
``typst`` PDF 0.04 s and PNG at 300 dpi 0.13 s; ``resvg-py`` PNG 0.52 s (0.65 s
with the system fonts skipped) and no PDF; ``svg2pdf-py`` PDF only,
with a usvg of its own, so PNG and PDF could disagree; cairosvg PDF 0.57 s
and PNG 0.67 s. ``typst`` also pins the PDF's dates from a timestamp instead
of the clock, and writes PDF/A (``--pdf-standard``).

Sizes: the page is the root's ``width``/``height`` in pt (CSS units: 1 px =
1/96 in, SVG 2 section 8.2), so a 180 mm canvas at 300 dpi is
round(180 / 25.4 * 300) = 2126 px wide (Typst rounds the page size in pixels).

Photos: svg2pdf writes no ``/Interpolate``, so pdfium would draw a zoomed photo in blocks; the PDF's
smooth pictures get ``/Interpolate true``, data cells stay crisp (:mod:`composer.stages.export.pdfimages`).

Fonts: usvg draws ``<text>`` with the fonts Typst finds: the system's
(fontconfig's folders) and the folders of every font matplotlib knows (its
own DejaVu and STIX copies included), so editable text is drawn in the font
matplotlib measured it with. A ``<text>`` whose family the engine does not
have would be drawn in a fallback font: it is an error naming the family
(:func:`check_fonts`).
"""

from __future__ import annotations

import datetime
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from composer.errors import SvgError
from composer.kinds.outputs import Job, PdfPage
from composer.stages.export.downscale import reduced_photos
from composer.stages.export.pagegrid import on_pixel_grid
from composer.stages.export.pdfimages import interpolate_photos
from composer.text import realtext

#: the PDF's creation and modification date: fixed, so equal inputs give equal bytes
#: (the same instant cairosvg's PDFs were pinned to).
PDF_DATE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)

#: PDF standards the engine writes (``--pdf-standard``); Typst's names.
PDF_STANDARDS = ("1.4", "1.5", "1.6", "1.7", "2.0", "a-1b", "a-2b", "a-2u", "a-3b", "a-3u", "a-4", "ua-1")

#: the page: exactly the canvas, no margin, transparent where the SVG paints nothing.
_DOCUMENT = """#set document(title: sys.inputs.at("title", default: none))
#set page(width: {width_pt}pt, height: {height_pt}pt, margin: 0pt, fill: none)
#image("canvas.svg", width: {width_pt}pt, height: {height_pt}pt, fit: "stretch")
"""
#: with alt text, the whole page is one tagged figure carrying it (Typst writes a tagged PDF: a ``/Figure``
#: structure element with ``/Alt``, ``/MarkInfo``, ``/Lang``, the content marked); a block of the page's
#: size, so nothing moves (pdfium draws the page pixel for pixel as without it: tests/stages/export)
_ALT_FIGURE = ('#show: body => figure(alt: sys.inputs.at("alt"), block(width: {width_pt:.6f}pt, '
               'height: {height_pt:.6f}pt, body))\n')

def available() -> str | None:
    """None when the engine can run here, else one line saying why and the fix."""
    try:
        import typst  # noqa: F401
    except ImportError:
        return "the typst package is not installed"
    return None


def convert(svg: bytes, kinds: Iterable[str], *, dpi: float, size_pt: tuple[float, float], title: str = "",
            pdf_standard: str | None = None, source: str = "canvas", folder: str | None = None,
            pdf_pages: Sequence[PdfPage] = (), alt: str = "", pdf_svg: bytes | None = None) -> dict[str, bytes]:
    """Export SVG bytes to each of ``kinds`` (``pdf``, ``png``) from one usvg parse.

    Args:
        svg: the composed canvas.
        dpi: PNG pixels per inch of the canvas's physical size.
        size_pt: the canvas's (width, height) in pt (:func:`composer.stages.export.canvas_size_pt`).
        title: the PDF's Title.
        pdf_standard: one of :data:`PDF_STANDARDS` (PDF/A: ``"a-2b"``...), or None.
        folder: an otherwise empty folder holding ``svg`` as ``canvas.svg``, made and removed by the
            caller (so a worker killed at its timeout leaves nothing behind); None: one of its own.
        pdf_pages: pdf panels the PDF and the PNG draw from their own page, when the panel's group is only
            placed (:func:`layered_document`): the PDF keeps it as a PDF object (Typst embeds the page: its
            fonts, text and vectors as they are; not in PDF/A, which embeds no PDF), the PNG draws it with
            Typst's PDF renderer (hayro), as a PDF viewer draws it; the SVG keeps the converted group.
        alt: the figure's description (:attr:`composer.stages.describe.AltText.description`): the PDF's
            page is one tagged figure with this ``/Alt`` (:data:`_ALT_FIGURE`); ``""``: none. PDF/UA-1
            (``pdf_standard="ua-1"``) needs it.
        pdf_svg: the canvas the PDF draws instead of ``svg``, its text as ``<text>`` naming its font files
            (:mod:`composer.text.realtext`): those files come before every other font (:func:`text_fonts_first`),
            so each character is drawn from the very file matplotlib outlined it from.

    Returns:
        kind -> bytes; the PNG without resolution metadata (the caller adds it).

    Raises:
        SvgError: the engine could not draw it (``source`` names the figure).
    """
    import typst

    if folder is None:
        with tempfile.TemporaryDirectory(prefix="composer-export-") as own:
            Path(own, "canvas.svg").write_bytes(svg)
            return convert(svg, kinds, dpi=dpi, size_pt=size_pt, title=title, pdf_standard=pdf_standard,
                           source=source, folder=own, pdf_pages=pdf_pages, alt=alt, pdf_svg=pdf_svg)
    has_text = b"<text" in svg
    if has_text:
        check_fonts(text_fonts(svg, source), file=source)
    width_pt, height_pt = size_pt
    document = _DOCUMENT.format(width_pt=f"{width_pt:.6f}", height_pt=f"{height_pt:.6f}").encode()
    out: dict[str, bytes] = {}
    # Typst's own embedded fonts never: a family neither the system nor matplotlib has is an error
    # (check_fonts), not a fallback; without <text> (every glyph an outline) no font at all (0.04 s
    # to load Typst's, 0.08 s to scan the system's)
    fonts = typst.Fonts(include_system_fonts=has_text, include_embedded_fonts=False,
                        font_paths=_without_last_resort(font_folders(), folder) if has_text else [])
    compiler = typst.Compiler(root=folder, font_paths=fonts)
    inputs = {"title": title} if title else {}
    layered = layered_document(svg, pdf_pages, size_pt, folder) if pdf_pages else None
    pdf_compiler, pdf_document, pdf_layered = compiler, document, layered
    real_fonts = realtext.font_files(pdf_svg) if pdf_svg is not None and "pdf" in kinds else []
    if pdf_svg is not None and real_fonts and "pdf" in kinds:
        Path(folder, "canvas-pdf.svg").write_bytes(pdf_svg)
        pdf_document = document.replace(b'#image("canvas.svg"', b'#image("canvas-pdf.svg"')
        pdf_layered = layered_document(pdf_svg, pdf_pages, size_pt, folder, prefix="pdf-") if pdf_pages else None
        pdf_compiler = typst.Compiler(root=folder, font_paths=typst.Fonts(
            include_system_fonts=False, include_embedded_fonts=False,
            font_paths=text_fonts_first(real_fonts, folder) + _without_last_resort(font_folders(), folder)))
    try:
        for kind in kinds:
            if kind == "pdf":
                embeds = pdf_layered is not None and not (pdf_standard or "").startswith("a-")  # PDF/A: no PDF
                drawn = pdf_layered if embeds and pdf_layered else pdf_document
                if alt:
                    drawn = _with_alt(drawn, size_pt)
                result = pdf_compiler.compile(input=drawn, format="pdf",
                                          timestamp=PDF_DATE,
                                          sys_inputs={**inputs, "alt": alt} if alt else inputs,
                                          pdf_standards=[pdf_standard] if pdf_standard else [])  # type: ignore[list-item]
                if isinstance(result, bytes) and not (pdf_standard or "").startswith("a-"):  # PDF/A forbids it
                    result = interpolate_photos(result, svg)
            elif kind == "png":
                reduced = reduced_photos(svg, dpi=dpi, size_pt=size_pt)  # photos shrunk as a browser does
                drawn = document
                if reduced is not None:
                    Path(folder, "canvas-png.svg").write_bytes(reduced)
                    drawn = document.replace(b'#image("canvas.svg"', b'#image("canvas-png.svg"')
                if layered is not None:  # the pdf panels' pages, between layers of the canvas the PNG draws
                    drawn = layered_document(reduced or svg, pdf_pages, size_pt, folder, prefix="png-",
                                             dpi=dpi) or drawn
                result = compiler.compile(input=drawn, format="png", ppi=dpi, sys_inputs=inputs)
            else:
                raise ValueError(f"the resvg engine does not write {kind}")
            if isinstance(result, list):  # one page, always; Typst returns a list for several
                result = result[0]
            assert isinstance(result, bytes)
            out[kind] = result
    except typst.TypstError as exc:
        raise SvgError(f"cannot export the {kind.upper()}: resvg: {_one_line(exc)}", file=source) from None
    return out


def _with_alt(document: bytes, size_pt: tuple[float, float]) -> bytes:
    """``document`` (:data:`_DOCUMENT` or :func:`layered_document`'s) with everything after its page set-up
    wrapped in one figure carrying ``sys.inputs.alt`` (:data:`_ALT_FIGURE`)."""
    head, page, body = document.partition(b"\n#set page(")
    line, _, rest = body.partition(b"\n")
    rule = _ALT_FIGURE.format(width_pt=size_pt[0], height_pt=size_pt[1]).encode()
    return head + page + line + b"\n" + rule + rest


def write(job: Job, kinds: tuple[str, ...]) -> dict[str, bytes]:
    """The engine's entry in :data:`composer.kinds.outputs.ENGINES`: :func:`convert` for one export job
    (looked up when called, so a test that replaces :func:`convert` replaces the engine's drawing)."""
    return convert(job.svg, kinds, dpi=job.dpi, size_pt=job.size_pt, title=job.title,
                   pdf_standard=job.pdf_standard, source=job.source, folder=job.folder, pdf_pages=job.pdf_pages,
                   alt=job.alt, pdf_svg=job.pdf_svg)


#: attributes a pdf panel's group may carry and still be drawn from its page: anything else (an opacity,
#: a clip, a filter, a mask) changes how the group draws, and the converted group is drawn instead
_PLACED_ONLY = {"id", "transform", "{http://www.inkscape.org/namespaces/inkscape}label",
                "{http://www.inkscape.org/namespaces/inkscape}groupmode",
                "aria-label", "role"}  # the panel's alt text (composer.stages.describe): nothing drawn
#: top-level elements that draw nothing where they stand: every layer keeps them (what the rest refers to)
_DEFINITIONS = {"defs", "style", "clipPath", "mask", "marker", "symbol", "pattern", "linearGradient",
                "radialGradient", "filter", "metadata", "title", "desc"}


def layered_document(svg: bytes, pages: Sequence[PdfPage], size_pt: tuple[float, float], folder: str, *,
                     prefix: str = "", dpi: float | None = None) -> bytes | None:
    """A Typst document drawing the canvas as layers, each pdf panel of ``pages`` drawn from its own page.

    The canvas's top-level elements are cut, in document order, at each pdf panel's group: the elements
    between two of them are one layer, an SVG of the whole canvas (its root's attributes, every
    top-level definition and style sheet) written to ``folder`` as ``PREFIXlayer-K.svg``; each panel's page
    is written as ``PREFIXpage-K.pdf`` and placed where its group's transform puts its viewBox (its crop box). So
    the stacking order is the canvas's: what is drawn after a panel (labels, arrows, texts) stays over it.
    For a PNG at ``dpi``, each page is drawn padded to the whole device pixels it touches
    (:func:`composer.stages.export.pagegrid.on_pixel_grid`), so Typst's texture of it lands pixel on pixel.

    A group is drawn from its page only when it is a top-level ``<g>`` whose transform is a translation
    and a positive scale per axis (as :func:`composer.svg.viewbox.place` writes) and which carries no other
    attribute (:data:`_PLACED_ONLY`: no opacity, clip, mask or filter); otherwise it stays in its layer,
    converted. Returns None when no group qualifies (then the one-image document is used).
    """
    from lxml import etree

    from composer.svg.io import parse_svg, svg_tag
    from composer.svg.transform import parse_transform

    root = parse_svg(svg, source="canvas")
    by_group = {page.group: page for page in pages}
    _unwrap_moves(root, set(by_group))
    placed: dict[int, tuple[PdfPage, tuple[float, float, float, float]]] = {}
    children = [child for child in root if isinstance(child.tag, str)]
    for i, child in enumerate(children):
        page = by_group.get(child.get("id") or "")
        if page is None or child.tag != svg_tag("g") or set(child.attrib) - _PLACED_ONLY:
            continue
        a, b, c, d, e, f = parse_transform(child.get("transform"))
        if b != 0 or c != 0 or a <= 0 or d <= 0:
            continue
        x, y, w, h = page.view_box
        placed[i] = (page, (a * x + e, d * y + f, a * w, d * h))
    if not placed:
        return None
    definitions = [c for c in children if etree.QName(c).localname in _DEFINITIONS]
    width_pt, height_pt = size_pt
    lines = ['#set document(title: sys.inputs.at("title", default: none))',
             f"#set page(width: {width_pt:.6f}pt, height: {height_pt:.6f}pt, margin: 0pt, fill: none)"]
    layer: list[etree._Element] = []
    count = {"layer": 0, "page": 0}

    def flush() -> None:
        if not layer:
            return
        doc = etree.Element(root.tag, attrib=dict(root.attrib), nsmap=root.nsmap)
        doc.text = root.text
        for el in definitions + layer:
            doc.append(_copy(el))
        name = f"{prefix}layer-{count['layer']}.svg"
        count["layer"] += 1
        Path(folder, name).write_bytes(etree.tostring(doc, encoding="UTF-8", xml_declaration=True))
        lines.append(f'#place(top + left, image("{name}", width: {width_pt:.6f}pt, height: {height_pt:.6f}pt, '
                     'fit: "stretch"))')
        layer.clear()

    for i, child in enumerate(children):
        if i in placed:
            flush()
            page, (x_pt, y_pt, w_pt, h_pt) = placed[i]
            name = f"{prefix}page-{count['page']}.pdf"
            count["page"] += 1
            data, number = page.data, page.page
            padded = on_pixel_grid(data, number, (x_pt, y_pt, w_pt, h_pt), dpi) if dpi else None
            if padded is not None:
                data, number = padded[0], 1
                x_pt, y_pt, w_pt, h_pt = padded[1]
            Path(folder, name).write_bytes(data)
            lines.append(f'#place(top + left, dx: {x_pt:.6f}pt, dy: {y_pt:.6f}pt, image("{name}", page: {number}, '
                         f'width: {w_pt:.6f}pt, height: {h_pt:.6f}pt, fit: "stretch"))')
        elif etree.QName(child).localname not in _DEFINITIONS:
            layer.append(child)
    flush()
    return ("\n".join(lines) + "\n").encode()


def _unwrap_moves(root: Any, groups: set[str]) -> None:
    """A top-level ``<g>`` that only moves what it holds (a ``transform`` and nothing else, as
    :mod:`composer.stages.panels` wraps a panel cut out of the canvas) and holds one of ``groups`` is
    replaced by its children, its transform written before each child's own: the same drawing, with the
    pdf panel's group at the top level where :func:`layered_document` finds it."""
    from lxml import etree

    for wrapper in list(root):
        if (not isinstance(wrapper.tag, str) or etree.QName(wrapper).localname != "g"
                or set(wrapper.attrib) != {"transform"}
                or not any(child.get("id") in groups for child in wrapper if isinstance(child.tag, str))):
            continue
        at = root.index(wrapper)
        for i, child in enumerate(list(wrapper)):
            if isinstance(child.tag, str):
                child.set("transform", f"{wrapper.get('transform')} {child.get('transform') or ''}".strip())
            root.insert(at + i, child)
        root.remove(wrapper)


def _copy(el: Any) -> Any:
    """A deep copy of an lxml element (the original stays in its tree)."""
    import copy

    return copy.deepcopy(el)


def _one_line(exc: Exception) -> str:
    message = getattr(exc, "message", "") or str(exc)
    hints = getattr(exc, "hints", None) or []
    text = " ".join(str(message).split())
    return f"{text} ({'; '.join(' '.join(h.split()) for h in hints)})" if hints else text


@lru_cache(maxsize=1)
def font_folders() -> list[str]:
    """Folders of every font file matplotlib knows that the system folders may not hold, sorted.

    matplotlib measures text with these files (its own ``mpl-data/fonts``,
    fonts added with ``font_manager.fontManager.addfont``), so the engine must
    draw with them too; the system folders Typst scans itself.
    """
    from matplotlib import font_manager

    system = ("/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "/System/Library/Fonts",
              os.path.expanduser("~/.fonts"), os.path.expanduser("~/.local/share/fonts"))
    folders = {os.path.dirname(f.fname) for f in font_manager.fontManager.ttflist}
    return sorted(d for d in folders if not any(d == s or d.startswith(s + os.sep) for s in system))


def text_fonts_first(files: Sequence[str], workdir: str) -> list[str]:
    """Font folders for a PDF with real text (:mod:`composer.text.realtext`): a folder of ``workdir``
    holding links to exactly ``files`` (the files matplotlib drew its outlines from), then the system's
    folders (:func:`system_font_folders`). Typst takes the first font of a family and style it finds,
    in the order of its folders when it scans no system fonts itself (measured: with
    ``include_system_fonts`` the system's DejaVu Sans 2.37 is taken over matplotlib's 2.35 whatever the
    folders), so the real text is drawn from the same file as the outlines it replaces."""
    linked = tempfile.mkdtemp(prefix="fonts-text-", dir=workdir)
    for i, path in enumerate(files):
        os.symlink(path, os.path.join(linked, f"{i:03d}-{os.path.basename(path)}"))
    return [linked, *system_font_folders()]


def system_font_folders() -> list[str]:
    """The system's font folders that exist, as matplotlib lists them (``font_manager.X11FontDirectories``,
    ``OSXFontDirectories``, ``MSUserFontDirectories``, and Windows' own ``%WINDIR%\\Fonts``): the folders
    Typst's own system scan reads (fontconfig's default ``<dir>`` entries on Linux)."""
    from matplotlib import font_manager

    folders = [*font_manager.X11FontDirectories, *font_manager.OSXFontDirectories,
               *getattr(font_manager, "MSUserFontDirectories", []),
               os.path.join(os.environ.get("WINDIR", "C:\\Windows"), "Fonts")]
    seen: list[str] = []
    for folder in folders:
        path = os.path.normpath(os.path.expanduser(folder))
        if os.path.isdir(path) and path not in seen:
            seen.append(path)
    return seen


@lru_cache(maxsize=1)
def last_resort_files() -> frozenset[str]:
    """The font files matplotlib knows whose glyphs are placeholders for every character: Last Resort
    (``LastResortHE-Regular.ttf``, shipped in ``mpl-data/fonts`` since matplotlib 3.8, "Last Resort
    High-Efficiency"), which maps every code point to a box showing its block. Given such a font, the
    engine's fallback takes it for any character no real font has, and then draws the whole run in it
    (every letter a box); no browser has it (fontconfig does not know matplotlib's folder), and draws
    the font's own empty box for that character alone."""
    from matplotlib import font_manager

    return frozenset(os.path.realpath(f.fname) for f in font_manager.fontManager.ttflist
                     if f.name.casefold().startswith("last resort"))


def _without_last_resort(folders: list[str], workdir: str) -> list[str]:
    """``folders``, each one holding a :func:`last_resort_files` file replaced by a folder of ``workdir``
    holding links to its other entries (Typst takes folders only, and follows links)."""
    out = []
    excluded = last_resort_files()
    for i, path in enumerate(folders):
        try:
            entries = sorted(os.listdir(path))
        except OSError:
            continue
        if not any(os.path.realpath(os.path.join(path, e)) in excluded for e in entries):
            out.append(path)
            continue
        linked = tempfile.mkdtemp(prefix=f"fonts-{i}-", dir=workdir)  # one per call: PDF and PNG may run at once
        for entry in entries:
            if os.path.realpath(os.path.join(path, entry)) not in excluded:
                os.symlink(os.path.join(path, entry), os.path.join(linked, entry))
        out.append(linked)
    return out


@lru_cache(maxsize=1)
def families() -> frozenset[str]:
    """Every font family the engine can draw with (casefolded)."""
    import typst

    fonts = typst.Fonts(include_system_fonts=True, include_embedded_fonts=False, font_paths=font_folders())
    return frozenset(f.casefold() for f in fonts.families())  # the same set convert() draws with


def text_fonts(svg: bytes, source: str) -> dict[str, str]:
    """family -> who uses it (the label or id of its top-level element), for the first family of
    every font a ``<text>`` of the SVG asks for (:func:`composer.text.fonts.svg_text_fonts`: style
    attributes, ``<style>`` rules and inheritance)."""
    from composer.svg.io import parse_svg
    from composer.text.fonts import svg_text_fonts

    root = parse_svg(svg, source=source)

    def owner_of(el) -> str:
        top = el
        for anc in el.iterancestors():
            if anc is root:
                break
            top = anc
        return top.get("{http://www.inkscape.org/namespaces/inkscape}label") or top.get("id") or "canvas text"

    used: dict[str, str] = {}
    for tf in svg_text_fonts(root, owner_of):
        used.setdefault(tf.families[0], tf.owner or "canvas text")
    return used


def check_fonts(used: Mapping[str, str], *, file: str | None) -> None:
    """Every family a ``<text>`` asks for first must be one the engine has.

    Args:
        used: family -> who uses it (``"canvas text"``, ``"panel schem (schem.svg)"``).

    Raises:
        SvgError: names the family, who uses it, and the fix.
    """
    from composer.text.fonts import GENERIC_FAMILIES

    have = families()
    for family, owner in used.items():
        if family in GENERIC_FAMILIES or family.casefold() in have:
            continue
        raise SvgError(f"{owner}: font {family!r} is not installed for the resvg engine, which would draw its "
                       "text in another font; install the font (e.g. in ~/.local/share/fonts) or draw the text "
                       "as paths", file=file)
