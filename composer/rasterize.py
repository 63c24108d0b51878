"""Rasterize stage: the composed SVG -> PDF and PNG with cairosvg.

cairosvg runs with its default ``unsafe=False``: it never reads a file or URL
named by the SVG (composer inlines every image it imports, so nothing is lost).

PNG size: cairosvg sizes the surface from the root's width/height at ``dpi``,
so a 180 mm canvas at 300 dpi is round(180 / 25.4 * 300) = 2126 px wide.
PDF determinism: cairo writes a ``/CreationDate`` of the current time; it is
replaced by a fixed date of the same length, so the byte offsets in the
cross-reference table stay valid and equal inputs give equal bytes.
"""

from __future__ import annotations

import re

#: written into every PDF instead of the build time (same length as cairo's
#: ``D:YYYYMMDDHHmmSS+HH'mm``, so xref offsets do not move).
FIXED_PDF_DATE = b"D:20000101000000Z"


#: most elements :func:`expand_uses` copies; the ``<use>`` left beyond it go to
#: cairosvg as they are (which refuses more than 100,000 references).
MAX_EXPANDED = 100_000


def expand_uses(svg: bytes) -> bytes:
    """Replace every ``<use>`` of a plain element by a ``<g>`` holding a copy of it.

    Same drawing, faster rasterizing: cairosvg resolves each ``<use>`` by
    building wrappers for the *whole* document and searching it for the id,
    so the ~100 glyph and marker references of a matplotlib panel cost about
    0.25 s per export of volume_kv, while copies cost nothing. The
    replacement follows SVG 1.1, 5.6 ("the 'use' element"): the ``<g>`` gets
    every attribute of the ``<use>`` but x, y, width, height and href, and
    ``translate(x, y)`` appended to its transform. Left as they are:
    references to ``<svg>``/``<symbol>`` (width/height matter), to elements
    that hold ``<use>`` themselves or contain the ``<use>``, lengths with
    units, and everything past :data:`MAX_EXPANDED` copied elements. Ids
    inside the copies are dropped (references keep resolving to the
    originals). The SVG written to disk keeps its ``<use>``; only the input of
    cairosvg changes.

    Raises:
        SvgError: not a well-formed SVG (as :func:`composer.svgio.parse_svg`).
    """
    import copy

    from lxml import etree

    from .svgio import MAX_SVG_BYTES, XLINK_NS, parse_svg, svg_tag

    if b"<use" not in svg or len(svg) > MAX_SVG_BYTES:
        return svg
    root = parse_svg(svg, source="canvas")
    use_tag, href_keys = svg_tag("use"), (f"{{{XLINK_NS}}}href", "href")
    ids = {el.get("id"): el for el in root.iter() if isinstance(el.tag, str) and el.get("id")}
    # a copy has no id and sits elsewhere: a stylesheet with any selector but "*" could tell it from
    # its original (an imported logo's "#dot {fill: red}"), so only uses under plain stylesheets expand
    plain = {child: all(_universal_only(st.text or "") for st in child.iter(svg_tag("style")))
             for child in root if isinstance(child.tag, str)}
    if not all(_universal_only(st.text or "") for st in root if st.tag == svg_tag("style")):
        return svg
    budget = MAX_EXPANDED
    changed = False
    for use in list(root.iter(use_tag)):
        top = use
        while top.getparent() is not root:
            top = top.getparent()
        href = next((use.get(k) for k in href_keys if use.get(k)), "")
        target = ids.get(href[1:]) if href.startswith("#") else None
        if target is None or target.tag in (svg_tag("svg"), svg_tag("symbol")) or not plain.get(top, False):
            continue
        target_top = target
        while target_top.getparent() is not root:
            target_top = target_top.getparent()
        if not plain.get(target_top, False):
            continue
        members = list(target.iter())
        if any(el.tag == use_tag or el is use for el in members):
            continue
        try:
            x, y = float(use.get("x", 0)), float(use.get("y", 0))
        except ValueError:  # a length with a unit: cannot go into a transform
            continue
        if len(members) > budget:
            break
        budget -= len(members)
        group = etree.Element(svg_tag("g"))
        for key, value in use.attrib.items():
            if key not in ("x", "y", "width", "height", *href_keys):
                group.set(key, value)
        if x or y:
            shift = f"translate({use.get('x', '0')} {use.get('y', '0')})"
            group.set("transform", f"{use.get('transform')} {shift}" if use.get("transform") else shift)
        twin = copy.deepcopy(target)
        for el in twin.iter():
            if isinstance(el.tag, str):
                el.attrib.pop("id", None)
        twin.tail = None
        group.append(twin)
        group.tail = use.tail
        use.getparent().replace(use, group)
        changed = True
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") if changed else svg


def _universal_only(css: str) -> bool:
    """True when every rule of a stylesheet selects ``*`` or ``#scope *`` (matplotlib's, scoped), nothing else."""
    import tinycss2

    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "qualified-rule":
            return False
        for selector in tinycss2.serialize(rule.prelude).split(","):
            if not re.fullmatch(r"\s*(#[\w-]+\s+)?\*\s*", selector):
                return False
    return True


def to_png(svg: bytes, *, dpi: float = 300.0, source: str = "canvas") -> bytes:
    """Rasterize SVG bytes to PNG bytes at ``dpi`` (pixels per inch of the canvas's physical size).

    ``<use>`` are expanded first (:func:`expand_uses`): same pixels, faster.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    return _cairo(lambda: cairosvg.svg2png(bytestring=expand_uses(svg), dpi=dpi), "PNG", source)


def to_pdf(svg: bytes, *, source: str = "canvas") -> bytes:
    """Convert SVG bytes to vector PDF bytes with a pinned creation date.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    pdf = _cairo(lambda: cairosvg.svg2pdf(bytestring=expand_uses(svg)), "PDF", source)
    return pin_pdf_dates(pdf)


def _cairo(convert, kind: str, source: str) -> bytes:
    """Run a cairosvg conversion; its failures become one :class:`SvgError` line.

    cairosvg refuses, for instance, more than 100,000 ``<use>`` instantiations
    (a panel with very many markers: draw them with ``rasterized=True``).
    """
    from .errors import SvgError

    try:
        return convert()
    except MemoryError:
        raise SvgError(f"not enough memory to export the {kind}", file=source) from None
    except Exception as exc:  # noqa: BLE001 - cairosvg and cairo raise many kinds
        message = " ".join(str(exc).split()) or type(exc).__name__
        raise SvgError(f"cannot export the {kind}: cairosvg: {message}", file=source) from None


def pin_pdf_dates(pdf: bytes) -> bytes:
    """Replace ``/CreationDate (D:...)`` and ``/ModDate (D:...)`` with :data:`FIXED_PDF_DATE`.

    The replacement is padded to the original length, keeping xref offsets valid.
    """
    def fix(match: re.Match[bytes]) -> bytes:
        old = match.group(2)
        new = FIXED_PDF_DATE[: len(old)].ljust(len(old), b" ")
        return match.group(1) + new + b")"

    return re.sub(rb"(/(?:CreationDate|ModDate) \()(D:[^)]*)\)", fix, pdf)
