"""Sanitize an imported SVG: nothing active, nothing from outside the project, bounded work.

People drop SVG files from the internet (icons, logos, exports of other tools)
into figures. :func:`load_svg` reads one such file and returns bytes that are
safe to merge into the canvas and to rasterize. Parsing is
:func:`composer.svg.io.parse_svg` (no entities, no DTD, no network, size limit).
Then :func:`sanitize`:

Removed (the figure is a static drawing; these only act in a browser):
    ``<script>``, ``<foreignObject>`` (HTML inside SVG), animation and event
    elements (``<set>``, ``<animate*>``, ``<handler>``, ``<listener>``,
    ``<discard>``), ``<iframe>``/``<embed>``/``<object>``/``<audio>``/
    ``<video>``/``<canvas>``, ``<metadata>``, every element outside the SVG
    namespace (``xi:include``, XHTML ``<script>``, editor data) or with a
    non-ASCII name, every event attribute (``on*``), ``xml:base``, attributes
    with non-ASCII names, and the target of every ``<a>`` link (its content
    stays).

References, each checked (the ``href``/``xlink:href`` of any element, and
``url(...)`` in attributes, ``style`` and ``<style>``):
    ``#id`` (inside the file) is kept. An ``<image>`` or ``<feImage>`` that
    names a PNG, JPEG or SVG file by a relative or absolute path *inside the
    project root* is inlined as a ``data:`` URI (an SVG image is sanitized in
    turn); a ``data:`` URI of those types is checked the same way. Everything
    else is refused with a one-line :class:`SvgError` naming the file and the
    href: ``http:``/``https:``/``file:`` and any other scheme or ``//host``,
    files outside the project root, missing files, other image types, links to
    another file from ``<use>``, gradients, patterns or CSS, and ``@import``.
    composer never fetches a URL, and cairosvg runs with ``unsafe=False``.

Bounded work (reference amplification, "``<use>`` bombs"):
    the *expanded size* of the document -- every element counts its drawing
    work (:func:`composer.svg.budget.element_work`: 1 plus its vertices), and every
    reference counts the expanded size of what it references, again for each
    referring element (a mid-marker once per vertex; a paint server referenced
    from ``<style>``, which may apply to every element, once per element) --
    must stay within :data:`MAX_EXPANDED_ELEMENTS`, summed over the file and
    the SVG images inlined into it. A reference cycle is refused. The count is
    computed with memoization, in time linear in the file, before anything is
    rasterized. An icon costs thousands of units, a matplotlib export of a
    20,000-point scatter about 600,000; the budget is calibrated against the
    export engine's time (:mod:`composer.svg.budget`).
"""

from __future__ import annotations

import base64
import binascii
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import tinycss2
from lxml import etree

from composer.errors import SvgError
from composer.svg.budget import MAX_FILE_WORK, element_work
from composer.svg.images import ImageTooLarge, ImageUnreadable, displayed_raster, gunzipped, skip_image
from composer.svg.io import MAX_SVG_BYTES, SVG_NS, XLINK_NS, parse_svg, read_limited

#: budget of expanded work per imported file, in :mod:`composer.svg.budget`'s units (see module docstring).
MAX_EXPANDED_ELEMENTS = MAX_FILE_WORK
#: largest image file or data URI inlined into an imported SVG, in bytes.
MAX_IMAGE_BYTES = 32 * 1024 * 1024
#: most pixels of one inlined raster image (about 7000 x 7000; 200 MB for cairo's RGBA surface).
MAX_IMAGE_PIXELS = 50_000_000
#: how deep SVG images may nest inside SVG images.
MAX_NESTING = 4

_XML_NS = "http://www.w3.org/XML/1998/namespace"
_HREFS = ("href", f"{{{XLINK_NS}}}href")
#: SVG elements removed with their content.
REMOVED = frozenset({
    "script", "foreignObject", "set", "animate", "animateMotion", "animateTransform", "animateColor",
    "discard", "handler", "listener", "iframe", "embed", "object", "audio", "video", "canvas", "metadata",
})
#: elements whose href may name an image file or a data: URI.
IMAGE_ELEMENTS = frozenset({"image", "feImage"})
#: paint servers: referencing one draws no geometry of its own.
PAINTS = frozenset({"linearGradient", "radialGradient", "stop"})
_IMAGE_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg"}
_URL_IN_VALUE = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
_ASCII_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:-]*$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass
class _Budget:
    """Expanded elements left, shared by a file and the SVG images inlined into it."""

    left: int = MAX_EXPANDED_ELEMENTS
    files: list[str] = field(default_factory=list)


def load_svg(path: Path, *, project_root: Path, source: str) -> bytes:
    """Read, parse and sanitize an SVG file; return the sanitized document's bytes (UTF-8).

    Args:
        path: the SVG file (already known to be inside the project).
        project_root: the folder nothing outside of which may be read.
        source: how to name the file in errors (relative to the project).

    Raises:
        SvgError: unreadable, unsafe to parse (see :func:`parse_svg`), or a
            refused reference or amplification (see the module docstring).
    """
    data = read_limited(path, limit=MAX_SVG_BYTES, source=source)
    root = parse_svg(data, source=source)
    sanitize(root, source=source, base_dir=path.parent, project_root=project_root)
    etree.cleanup_namespaces(root)  # drop declarations of the namespaces whose elements were removed
    return etree.tostring(root, encoding="UTF-8", xml_declaration=True)


def sanitize(root: etree._Element, *, source: str, base_dir: Path | None, project_root: Path,
             _budget: _Budget | None = None, _depth: int = 0) -> etree._Element:
    """Sanitize a parsed SVG document in place (see the module docstring) and return it.

    Args:
        root: the ``<svg>`` root from :func:`composer.svg.io.parse_svg`.
        source: the file's name for errors.
        base_dir: folder that relative hrefs are resolved against (the file's);
            None for a document from a ``data:`` URI, which may name no file.
        project_root: files outside it are never read.

    Raises:
        SvgError: a refused reference, a reference cycle, or more than
            :data:`MAX_EXPANDED_ELEMENTS` expanded elements.
    """
    budget = _budget or _Budget()
    project_root = project_root.resolve()
    stack = [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):  # comments and PIs were removed by the parser; entity refs refused
            _remove(el)
            continue
        namespace, _, local = el.tag[1:].partition("}") if el.tag.startswith("{") else ("", "", el.tag)
        if el is not root and (namespace != SVG_NS or local in REMOVED or not _ASCII_NAME.match(local)):
            _remove(el)
            continue
        for attr in list(el.attrib):
            name = attr.rpartition("}")[2]
            if name.lower().startswith("on") or attr == f"{{{_XML_NS}}}base" or not _ASCII_NAME.match(name):
                del el.attrib[attr]  # non-ASCII names are no SVG's, and other XML parsers (expat) refuse some
            elif local == "a" and name == "href":
                del el.attrib[attr]  # a hyperlink: not followed when drawing; not kept in the figure
            elif name == "href":
                _check_href(el, attr, local, source=source, base_dir=base_dir, project_root=project_root,
                            budget=budget, depth=_depth)
            elif name == "style":
                _check_css(el.get(attr), source=source, where=f"<{local} style>", declarations=True)
            elif "url(" in el.get(attr).lower():
                _check_urls(el.get(attr), source=source, where=f"<{local} {name}>")
        if local == "style" and el.text:
            _check_css(el.text, source=source, where="<style>", declarations=False)
        stack.extend(reversed(list(el)))
    _spend(root, budget, source)
    return root


def _remove(el: etree._Element) -> None:
    """Remove ``el`` and its content, keeping the text that follows it."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + el.tail
        else:
            parent.text = (parent.text or "") + el.tail
    parent.remove(el)


def _refused(source: str, where: str, href: str, why: str) -> SvgError:
    shown = href if len(href) <= 120 else href[:117] + "..."
    return SvgError(f"{where} refers to {shown!r}: {why}", file=source)


def _check_href(el: etree._Element, attr: str, local: str, *, source: str, base_dir: Path | None, project_root: Path,
                budget: _Budget, depth: int) -> None:
    href = (el.get(attr) or "").strip()
    where = f"<{local} {'xlink:href' if attr.startswith('{') else 'href'}>"
    if href.startswith("#"):
        return
    if not href:
        del el.attrib[attr]
        return
    parts = urlsplit(href)
    scheme = parts.scheme.lower()
    if scheme == "data":
        if local not in IMAGE_ELEMENTS:
            raise _refused(source, where, href, "a data: URI is allowed only in <image>")
        try:
            el.set(attr, _data_uri_image(href, source=source, where=where, project_root=project_root,
                                         budget=budget, depth=depth))
        except ImageUnreadable as exc:
            skip_image(el, attr, f"{source}: {where} holds a data: image that {exc}")
        return
    if scheme or parts.netloc:
        raise _refused(source, where, href, f"{(scheme + ':') if scheme else '//host'} links are never followed "
                       "(no file: or network access while composing); copy the file into the project and link "
                       "it by a relative path, or inline it")
    if local not in IMAGE_ELEMENTS:
        raise _refused(source, where, href, "a reference to another file; composer imports one file at a time: "
                       "copy what it refers to into this file and use '#id'")
    if parts.query or parts.fragment:
        raise _refused(source, where, href, "an image path with '?' or '#' is not supported")
    if base_dir is None:
        raise _refused(source, where, href, "an SVG inside a data: URI may not name files")
    try:
        path = Path(unquote(parts.path))
        path = (path if path.is_absolute() else base_dir / path).resolve()
        found = path.is_file()
    except (OSError, ValueError) as exc:  # a NUL byte, a name too long, a symlink loop
        raise _refused(source, where, href, f"not a usable path ({exc})") from None
    if not path.is_relative_to(project_root):
        raise _refused(source, where, href, f"{path} is outside the project {project_root}; composer reads files "
                       "from inside the project only")
    if not found:
        skip_image(el, attr, f"{source}: {where} refers to {href!r}: no such file ({path})")
        return
    shown = str(path.relative_to(project_root))
    data = read_limited(path, limit=MAX_IMAGE_BYTES, source=shown)
    try:
        el.set(attr, _inline(data, source=shown, where=where, href=href, project_root=project_root,
                             base_dir=path.parent, budget=budget, depth=depth, outer=source))
    except ImageUnreadable as exc:
        skip_image(el, attr, f"{source}: {where} refers to {href!r}, which {exc}")


def _data_uri_image(href: str, *, source: str, where: str, project_root: Path, budget: _Budget,
                    depth: int) -> str:
    """Check (and for SVG, sanitize) a ``data:`` image; return the URI to keep."""
    head, comma, payload = href[5:].partition(",")
    if not comma:
        raise _refused(source, where, href, "a malformed data: URI (no ',')")
    params = [p.strip().lower() for p in head.split(";")]
    try:
        if "base64" in params[1:]:
            data = base64.b64decode("".join(payload.split()), validate=True)
        else:
            data = unquote(payload).encode("utf-8", "surrogateescape")
    except (binascii.Error, ValueError, UnicodeEncodeError):
        raise _refused(source, where, href, "a data: URI whose content cannot be decoded") from None
    if len(data) > MAX_IMAGE_BYTES:
        raise _refused(source, where, href, f"an image of {len(data)} bytes, more than {MAX_IMAGE_BYTES}")
    mime = params[0] or "text/plain"
    if not mime.startswith("image/") and mime != "text/plain":  # untyped data: is text/plain (RFC 2397)
        raise _refused(source, where, href, f"a data: URI of type {mime}; images are PNG, JPEG, SVG, GIF, WebP")
    # the type only tells SVG from rasters (viewers sniff the bytes: image/jpg, an untyped JPEG)
    return _inline(data, source=f"{source} (data: image)", where=where, href=href, project_root=project_root,
                   base_dir=None, budget=budget, depth=depth, outer=source,
                   svg=True if mime == "image/svg+xml" else None)


def _inline(data: bytes, *, source: str, where: str, href: str, project_root: Path, base_dir: Path | None,
            budget: _Budget, depth: int, outer: str, svg: bool | None = None) -> str:
    """A PNG, JPEG or (sanitized) SVG image as a base64 ``data:`` URI.

    ``svg``: whether the data is SVG (from a data: URI's type), or None to tell by its first bytes.
    """
    try:
        data = gunzipped(data, limit=MAX_SVG_BYTES)  # .svgz
    except ImageUnreadable as exc:
        raise SvgError(f"{exc}", file=source) from None
    if svg is None:
        svg = data.lstrip()[:1] == b"<" or data.startswith(b"\xef\xbb\xbf") or data[:2] in (b"\xff\xfe", b"\xfe\xff")
    if svg:
        if depth + 1 > MAX_NESTING:
            raise _refused(outer, where, href, f"SVG images nested more than {MAX_NESTING} deep")
        inner = parse_svg(data, source=source)
        sanitize(inner, source=source, base_dir=base_dir, project_root=project_root, _budget=budget,
                 _depth=depth + 1)
        etree.cleanup_namespaces(inner)
        clean = etree.tostring(inner, encoding="UTF-8", xml_declaration=True)
        return "data:image/svg+xml;base64," + base64.b64encode(clean).decode("ascii")
    try:
        picture = displayed_raster(data, max_pixels=MAX_IMAGE_PIXELS)
    except ImageTooLarge as exc:
        raise SvgError(str(exc), file=source) from None  # a decompression bomb stays refused
    return f"data:{picture.mime};base64," + base64.b64encode(picture.data).decode("ascii")


def image_type(data: bytes, *, source: str) -> str:
    """The MIME type of PNG or JPEG bytes, after checking the pixel count.

    Raises:
        SvgError: not a PNG or JPEG that Pillow can read, or more than
            :data:`MAX_IMAGE_PIXELS` pixels (a "decompression bomb").
    """
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
            kind = img.format or ""
            if kind not in _IMAGE_TYPES:
                raise SvgError(f"is a {kind} image; supported images are PNG, JPEG and SVG", file=source)
            if width * height > MAX_IMAGE_PIXELS:
                raise SvgError(f"is {width}x{height} pixels, more than the limit of {MAX_IMAGE_PIXELS}",
                               file=source)
            img.load()  # every pixel decodes: a truncated file is refused here, not drawn half by a viewer
    except SvgError:
        raise
    except Exception:  # noqa: BLE001 - Pillow raises many kinds for broken files
        raise SvgError("is not a PNG, JPEG or SVG image Pillow can read (or it is truncated)", file=source) from None
    return _IMAGE_TYPES[kind]


def _check_urls(value: str, *, source: str, where: str) -> None:
    for match in _URL_IN_VALUE.finditer(value):
        _check_url(match.group(2).strip(), source=source, where=where)


def _check_url(url: str, *, source: str, where: str) -> None:
    if not url.startswith("#"):
        raise _refused(source, where, url, "url() may only name an element of this file ('#id'); composer "
                       "never reads other files or URLs")


def _check_css(css: str, *, source: str, where: str, declarations: bool) -> None:
    """Refuse any ``url()`` that is not ``#id`` and any ``@import``.

    Checked twice: in the raw text (CSS a parser would give up on) and in
    tinycss2's tokens (escapes such as ``\\75 rl(`` decoded).
    """
    _check_urls(css, source=source, where=where)
    nodes = tinycss2.parse_blocks_contents(css) if declarations else tinycss2.parse_stylesheet(css)
    stack = list(nodes)
    while stack:
        node = stack.pop()
        kind = getattr(node, "type", "")
        if kind == "url":
            _check_url(node.value.strip(), source=source, where=where)
        elif kind == "function" and node.lower_name == "url":
            strings = [t.value for t in node.arguments if getattr(t, "type", "") in ("string", "ident")]
            _check_url((strings[0] if strings else tinycss2.serialize(node.arguments)).strip(),
                       source=source, where=where)
        elif kind == "at-rule" and node.lower_at_keyword == "import":
            raise _refused(source, where, tinycss2.serialize(node.prelude).strip(), "@import reads another file; "
                           "put the rules into this <style>")
        for attr in ("prelude", "content", "arguments", "value"):
            child = getattr(node, attr, None)
            if isinstance(child, list):
                stack.extend(child)


# ------------------------------------------------------------------ reference amplification


def _local(el: etree._Element) -> str:
    return el.tag.rpartition("}")[2] if isinstance(el.tag, str) else ""


def _references(el: etree._Element) -> list[tuple[str, int]]:
    """(target id, times) for every reference of ``el`` (hrefs and url() in attributes)."""
    refs: list[tuple[str, int]] = []
    for attr, value in el.attrib.items():
        name = attr.rpartition("}")[2]
        if name == "href":
            if value.startswith("#"):
                refs.append((value[1:], 1))
            continue
        if "url(" not in value.lower():
            continue
        for match in _URL_IN_VALUE.finditer(value):
            target = match.group(2).strip()
            if target.startswith("#"):
                times = _vertices(el) if "marker" in name or ("marker" in value and name == "style") else 1
                refs.append((target[1:], times))
    return refs


def _vertices(el: etree._Element) -> int:
    """An upper bound of the vertices of a shape (for mid-markers): numbers in d/points / 2, at least 1."""
    text = el.get("d") or el.get("points") or ""
    return max(1, len(_NUMBER.findall(text)) // 2 + 1)


def _spend(root: etree._Element, budget: _Budget, source: str) -> None:
    """Charge the document's expanded size to ``budget``; refuse cycles and overruns."""
    elements = [el for el in root.iter() if isinstance(el.tag, str)]
    ids: dict[str, etree._Element] = {}
    for el in elements:
        ident = el.get("id")
        if ident is not None and ident not in ids:
            ids[ident] = el
    limit = budget.left
    cost: dict[int, int] = {}  # id(element) -> expanded size (capped at limit + 1)
    on_path: set[int] = set()
    names = {id(el): el.get("id") or f"<{_local(el)}>" for el in elements}

    def over(total: int) -> SvgError:
        return SvgError(f"expands to more than {MAX_EXPANDED_ELEMENTS} elements and path vertices through <use> "
                        "and other references (a 'use bomb' or a very large drawing: more than one export may "
                        "draw in time); refused before rasterizing",
                        file=source)

    def successors(el: etree._Element) -> list[tuple[etree._Element, int]]:
        out = [(child, 1) for child in el if isinstance(child.tag, str)]
        for target_id, times in _references(el):
            target = ids.get(target_id)
            if target is not None and _local(target) not in PAINTS:
                out.append((target, times))
        return out

    # iterative post-order DFS with memoization: linear in elements + references
    stack: list[tuple[etree._Element, list[tuple[etree._Element, int]], int, int]] = []
    key = id(root)
    stack.append((root, successors(root), 0, element_work(root)))
    on_path.add(key)
    while stack:
        el, succ, index, total = stack[-1]
        if index < len(succ):
            child, times = succ[index]
            stack[-1] = (el, succ, index + 1, total)
            ck = id(child)
            if ck in cost:
                total = min(limit + 1, total + times * cost[ck])
                stack[-1] = (el, succ, index + 1, total)
                if total > limit:
                    raise over(total)
                continue
            if ck in on_path:
                path = [names[id(e)] for e, *_ in stack]
                raise SvgError(f"reference cycle: {' -> '.join(path + [names[ck]])}", file=source)
            on_path.add(ck)
            stack.append((child, successors(child), 0, element_work(child)))
            continue
        stack.pop()
        on_path.discard(id(el))
        cost[id(el)] = total
        if stack:
            parent, psucc, pindex, ptotal = stack[-1]
            times = psucc[pindex - 1][1]
            ptotal = min(limit + 1, ptotal + times * total)
            stack[-1] = (parent, psucc, pindex, ptotal)
            if ptotal > limit:
                raise over(ptotal)
    total = cost[id(root)]
    # paint servers and patterns named from <style> may apply to every element
    css = " ".join(el.text or "" for el in elements if _local(el) == "style")
    for match in _URL_IN_VALUE.finditer(css):
        target = ids.get(match.group(2).strip()[1:])
        if target is not None and _local(target) not in PAINTS:
            total += len(elements) * cost.get(id(target), 1)
            if total > limit:
                raise over(total)
    budget.left -= total
    if budget.left < 0:
        raise over(total)
