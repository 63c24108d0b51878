"""The cairosvg engine (``--engine cairosvg``, and every EPS): PDF, PNG and EPS with cairosvg and cairo.

Imported only when chosen: it needs cairosvg (``pip install cairosvg``; from a clone
``pip install -e '.[cairosvg]'``) and the cairo library (Debian: ``apt-get install libcairo2``). Everything in this
module beyond calling cairosvg works around cairosvg, and lives here for that
reason: ``<use>`` expansion (speed), restating a px canvas in pt, marking
data-cell images ``optimizeSpeed``, and the pinned PDF date (cairo dates PDFs
by the clock, in local time).

cairosvg runs with its default ``unsafe=False``: it never reads a file or URL
named by the SVG (composer inlines every image it imports, so nothing is lost).

PNG size: cairosvg sizes the surface from the root's width/height at ``dpi``,
so a 180 mm canvas at 300 dpi is round(180 / 25.4 * 300) = 2126 px wide.
cairosvg takes ``px`` as device pixels whatever the dpi, where a browser takes
a CSS px (1/96 in): a root size in px is restated in pt first
(:func:`physical_size`), so a 480 px canvas is 5 in, 1500 px at 300 dpi.

EPS: cairo's EPS surface (``cairosvg.svg2eps``); PostScript has no
transparency, so cairo draws translucent parts as embedded image fallbacks
at 300 dpi. Its ``%%CreationDate`` is pinned like the PDF's.
PDF determinism: cairo writes a ``/CreationDate`` of the current time; it is
replaced by a fixed date of the same length, so the byte offsets in the
cross-reference table stay valid and equal inputs give equal bytes.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator

from composer.kinds.outputs import Job
from composer.units import CSS_PT_PER_UNIT

#: written into every PDF instead of the build time (same length as cairo's
#: ``D:YYYYMMDDHHmmSS+HH'mm``, so xref offsets do not move).
FIXED_PDF_DATE = b"D:20000101000000Z"
#: written into every EPS as its ``%%CreationDate``.
FIXED_PS_DATE = b"Sat Jan  1 00:00:00 2000"


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
        SvgError: not a well-formed SVG (as :func:`composer.svg.io.parse_svg`).
    """
    import copy

    from lxml import etree

    from composer.svg.io import MAX_SVG_BYTES, XLINK_NS, parse_svg, svg_tag

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


def available() -> str | None:
    """None when cairosvg and the cairo library load, else why not (one line)."""
    try:
        import cairosvg  # noqa: F401
    except ImportError:
        return "the cairosvg package is not installed"
    except OSError as exc:  # cairocffi: "no library called "cairo-2" was found"
        return f"the cairo library is missing: {' '.join(str(exc).split())[:160]}"
    return None


_PIXELATED_IMAGE = re.compile(
    rb"""<image\b[^>]*\bstyle=(["'])[^"']*image-rendering\s*:\s*(?:pixelated|crisp-edges)[^>]*>""")


_CRISP_IN_STYLE = re.compile(rb"image-rendering\s*:\s*(?:pixelated|crisp-edges)")


def crisp_images(svg: bytes) -> bytes:
    """Keep data-cell images sharp in cairosvg.

    matplotlib marks ``interpolation="none"`` images with
    ``style="image-rendering:crisp-edges;image-rendering:pixelated"``, which
    resvg and browsers honour but cairosvg ignores (it knows only SVG 1.1's
    ``optimizeSpeed``, mapped to cairo's nearest-neighbour FILTER_FAST): each
    such ``<image>`` gets ``image-rendering="optimizeSpeed"``, and its ``style`` says ``optimizeSpeed``
    too (cairosvg lets ``style`` win over the attribute, and read ``pixelated`` there as the default,
    smooth: its PDF said ``/Interpolate true`` for data cells).
    """
    def add(match: re.Match[bytes]) -> bytes:
        tag = _CRISP_IN_STYLE.sub(b"image-rendering:optimizeSpeed", match.group(0))
        return tag if b'image-rendering="' in tag else tag[:6] + b' image-rendering="optimizeSpeed"' + tag[6:]

    return _PIXELATED_IMAGE.sub(add, svg)


def prepared(svg: bytes) -> bytes:
    """The SVG as cairosvg is given it: px size restated in pt, data cells marked, ``<use>`` expanded."""
    return expand_uses(crisp_images(physical_size(svg)))


def to_png(svg: bytes, *, dpi: float = 300.0, source: str = "canvas") -> bytes:
    """Rasterize SVG bytes to PNG bytes at ``dpi`` (pixels per inch of the canvas's physical size).

    ``<use>`` are expanded first (:func:`expand_uses`): same pixels, faster.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    return _cairo(lambda: cairosvg.svg2png(bytestring=prepared(svg), dpi=dpi), "PNG", source)


def to_eps(svg: bytes, *, source: str = "canvas") -> bytes:
    """Convert SVG bytes to EPS (vector, fonts embedded) with a pinned creation date.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairosvg

    eps = _cairo(lambda: cairosvg.svg2eps(bytestring=prepared(svg)), "EPS", source)
    return re.sub(rb"^%%CreationDate: [^\n]*", b"%%CreationDate: " + FIXED_PS_DATE, eps, count=1, flags=re.M)


_ROOT = re.compile(rb"<svg\b[^>]*>", re.S)
_PX_SIZE = re.compile(rb"""(?<![\w-])(width|height)=(["'])\s*([0-9]*\.?[0-9]+)\s*(?:px)?\s*\2""")


def physical_size(svg: bytes) -> bytes:
    """The SVG with a root ``width``/``height`` in px (or without a unit) restated in pt
    (1 px = 0.75 pt, CSS), since cairosvg would take them as device pixels."""
    root = _ROOT.search(svg)
    if root is None:
        return svg

    def pt(match: re.Match[bytes]) -> bytes:
        return match.group(1) + b'="' + f"{float(match.group(3)) * CSS_PT_PER_UNIT['px']:.6g}pt".encode() + b'"'

    tag = _PX_SIZE.sub(pt, root.group(0))
    return svg[:root.start()] + tag + svg[root.end():]


def to_pdf(svg: bytes, *, title: str = "", source: str = "canvas") -> bytes:
    """Convert SVG bytes to vector PDF bytes with a pinned creation date and ``title`` as its Title.

    Raises:
        SvgError: cairosvg could not draw it (``source`` names the figure).
    """
    import cairocffi
    from cairosvg.surface import PDFSurface

    class Titled(PDFSurface):  # cairosvg has no title option; cairo sets it before the surface ends
        def finish(self):
            if title:
                self.cairo.set_metadata(cairocffi.PDF_METADATA_TITLE, title)
            return super().finish()

    with _utc():
        pdf = _cairo(lambda: Titled.convert(bytestring=prepared(svg)), "PDF", source)
    return pin_pdf_dates(pdf)


def write(job: Job, kinds: tuple[str, ...]) -> dict[str, bytes]:
    """The engine's entry in :data:`composer.kinds.outputs.ENGINES`: each of ``kinds`` (``pdf``, ``png``,
    ``eps``) drawn by its own call (looked up when called, so a test may replace one)."""
    out: dict[str, bytes] = {}
    for kind in kinds:
        if kind == "pdf":
            out[kind] = to_pdf(job.svg, title=job.title, source=job.source)
        elif kind == "png":
            out[kind] = to_png(job.svg, dpi=job.dpi, source=job.source)
        elif kind == "eps":
            out[kind] = to_eps(job.svg, source=job.source)
        else:
            raise ValueError(f"the cairosvg engine does not write {kind}")
    return out


@contextlib.contextmanager
def _utc() -> Iterator[None]:
    """Run cairo in UTC: it dates a PDF in local time, ``D:...Z`` in UTC but ``D:...-05'00`` in New York,
    and a date of another length would move the bytes after it (the pinned date keeps its length)."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()


def _cairo(convert, kind: str, source: str) -> bytes:
    """Run a cairosvg conversion; its failures become one :class:`SvgError` line.

    cairosvg refuses, for instance, more than 100,000 ``<use>`` instantiations
    (a panel with very many markers: draw them with ``rasterized=True``).
    """
    from composer.errors import SvgError

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
