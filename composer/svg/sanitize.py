"""Sanitize an imported SVG: nothing active, nothing from outside the project, bounded work.

People drop SVG files from the internet (icons, logos, exports of other tools)
into figures. :func:`load_svg` reads one such file and returns bytes that are
safe to merge into the canvas and to rasterize. Parsing is
:func:`composer.svg.io.parse_svg` (no entities, no DTD, no network, size limit).
Then :func:`sanitize`:

Removed (the figure is a static drawing; these only act in a browser):
    ``<script>``, a ``<foreignObject>`` (HTML inside SVG) that holds anything but text (one warning
    per file says how many are not drawn; one holding only text, as draw.io's and mermaid's labels
    do, is kept with its XHTML text elements and their ``style``/``class``/``id`` only, and drawn as
    SVG text at import: :mod:`composer.text.html`), animation and event
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
    turn); a ``data:`` URI of those types is checked the same way. A picture
    by a web address (``http:``, ``https:``, ``//host``) is drawn as nothing, as
    a browser shows an SVG image (it loads no external resource), with one note
    for the import to warn (:func:`noted`). Everything else is refused with a
    one-line :class:`SvgError` naming the file and the href: ``file:`` and any
    other scheme, ``//host`` or ``http:`` outside an ``<image>``/``<feImage>``,
    files outside the project root, missing files, other image types, links to
    another file from CSS, and ``@import`` of a URL or a file outside the project
    (an ``@import`` of a file inside it is dropped with a warning, as resvg applies
    none). A ``<use>``, gradient or pattern that
    names another file (or an id without ``#``) is drawn as viewers draw it: as
    if it named nothing, with a warning.
    composer never fetches a URL, and cairosvg runs with ``unsafe=False``.

Bounded work (reference amplification, "``<use>`` bombs"):
    the *expanded size* of the document -- every element counts its drawing
    work (:func:`composer.svg.budget.element_work`: about a microsecond of the export engine's time per unit),
    and every
    reference counts the expanded size of what it references, again for each
    referring element (a mid-marker once per vertex; a paint server referenced
    from ``<style>``, which may apply to every element, once per element) --
    must stay within :data:`MAX_EXPANDED_ELEMENTS`, summed over the file and
    the SVG images inlined into it (25 s of the engine's time). A reference cycle is broken where viewers
    break it, with one warning naming the file and the element (:func:`_break_cycle`). The count is
    computed with memoization, in time linear in the file, before anything is
    rasterized. An icon costs thousands of units, a matplotlib export of a
    100,000-point scatter about 6,600,000; the budget is calibrated against the
    export engine's time (:mod:`composer.svg.budget`).

Resolved for the engine (the same drawing, in terms every renderer reads alike):
    style sheets with a selector the engine's CSS cannot match (``:not()``, ``:nth-child()``,
    ``~``...), applied to the elements as the file alone is styled
    (:func:`composer.svg.css.inline_style_sheets`); percentages inside a ``<symbol>`` with a
    ``viewBox``, which are of that viewBox (:func:`composer.svg.viewbox.resolve_symbol_percentages`).
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import tinycss2
from lxml import etree

from composer.errors import ComposerWarning, SvgError
from composer.svg.budget import MAX_FILE_WORK, NOT_IN_PLACE, Frame, expand, vertices
from composer.svg.conditions import conditions_pass
from composer.svg.css import inline_style_sheets
from composer.svg.fontfaces import Face, face_element
from composer.svg.images import ImageTooLarge, ImageUnreadable, displayed_raster, gunzipped, skip_image
from composer.svg.io import MAX_SVG_BYTES, SVG_NS, XLINK_NS, parse_svg, read_limited, remove_keeping_tail
from composer.svg.viewbox import resolve_symbol_percentages

#: budget of expanded work per imported file, in :mod:`composer.svg.budget`'s units (see module docstring).
MAX_EXPANDED_ELEMENTS = MAX_FILE_WORK
#: largest image file or data URI inlined into an imported SVG, in bytes.
MAX_IMAGE_BYTES = 32 * 1024 * 1024
#: most pixels of one inlined raster image (about 7000 x 7000; 200 MB for cairo's RGBA surface).
MAX_IMAGE_PIXELS = 50_000_000
#: how deep SVG images may nest inside SVG images.
MAX_NESTING = 4
#: most reference cycles broken in one file (each costs one pass over it) before it is refused.
MAX_CYCLES = 100

_XML_NS = "http://www.w3.org/XML/1998/namespace"
#: what an SVG image that contains itself draws at the point of recursion
_EMPTY_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'
_HREFS = ("href", f"{{{XLINK_NS}}}href")
#: SVG elements removed with their content.
REMOVED = frozenset({
    "script", "foreignObject", "set", "animate", "animateMotion", "animateTransform", "animateColor",
    "discard", "handler", "listener", "iframe", "embed", "object", "audio", "video", "canvas", "metadata",
})
#: SMIL animation elements (SVG 2, 19): a browser plays them, composer draws the drawing as it stands
ANIMATIONS = frozenset({"set", "animate", "animateMotion", "animateTransform", "animateColor", "discard"})
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
    """Expanded elements left, shared by a file and the SVG images inlined into it; ``files``: the SVG
    image files being inlined, outermost first (an image of one of them is a recursion)."""

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
        SvgError: a refused reference, or more than :data:`MAX_EXPANDED_ELEMENTS`
            expanded elements (a reference cycle is broken, with a warning).
    """
    budget = _budget or _Budget()
    project_root = project_root.resolve()
    html = 0  # <foreignObject>s removed: what they hold is not drawn, one warning says so
    fonts: list[str] = []  # the families of each sheet's @font-face rules dropped
    embedded: list[Face] = []  # the faces @font-face rules embed as data: URLs, handed to the import
    animations = 0  # SMIL animation elements removed: the drawing as it stands before any, one note says so
    remote: list[str] = []  # the web addresses of pictures not drawn (no URL is fetched), one note says so
    stack = [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str):  # comments and PIs were removed by the parser; entity refs refused
            remove_keeping_tail(el)
            continue
        namespace, _, local = el.tag[1:].partition("}") if el.tag.startswith("{") else ("", "", el.tag)
        if el is not root and namespace == SVG_NS and local == "foreignObject" and is_text_only(el):
            _keep_html_text(el, source=source, base_dir=base_dir, project_root=project_root, budget=budget,
                            depth=_depth, remote=remote)  # drawn as SVG text and images at import (text.html)
        elif el is not root and (namespace != SVG_NS or local in REMOVED or not _ASCII_NAME.match(local)):
            html += namespace == SVG_NS and local == "foreignObject" and _shows_something(el)
            animations += namespace == SVG_NS and local in ANIMATIONS
            remove_keeping_tail(el)
            continue
        for attr in list(el.attrib):
            name = attr.rpartition("}")[2]
            if name.lower().startswith("on") or attr == f"{{{_XML_NS}}}base" or not _ASCII_NAME.match(name):
                del el.attrib[attr]  # non-ASCII names are no SVG's, and other XML parsers (expat) refuse some
            elif local == "a" and name == "href":
                del el.attrib[attr]  # a hyperlink: not followed when drawing; not kept in the figure
            elif name == "href":
                _check_href(el, attr, local, source=source, base_dir=base_dir, project_root=project_root,
                            budget=budget, depth=_depth, remote=remote)
            elif name == "style":
                _check_css(el.get(attr), source=source, where=f"<{local} style>", declarations=True)
            elif "url(" in el.get(attr).lower():
                _check_urls(el.get(attr), source=source, where=f"<{local} {name}>")
        if local == "style" and el.text:
            el.text = _drop_font_faces(_drop_imports(el.text, source=source, base_dir=base_dir,
                                                     project_root=project_root), source=source, fonts=fonts,
                                       embedded=embedded if _depth == 0 else None)
            _check_css(el.text, source=source, where="<style>", declarations=False)
        if local != "foreignObject":
            stack.extend(reversed(list(el)))
    if html:
        note(root, "html", str(html), source=source, nested=_depth > 0)
    if fonts:
        note(root, "fonts", ", ".join(dict.fromkeys(fonts)), source=source, nested=_depth > 0)
    for face in dict.fromkeys(embedded):  # last children of the root: composer.svg.fontfaces.taken_faces
        root.append(face_element(face))
    if remote:
        shown = ", ".join(repr(u if len(u) <= 80 else u[:77] + "...") for u in dict.fromkeys(remote[:3]))
        note(root, "remote", f"{len(remote)} image{'s' * (len(remote) > 1)} ({shown}{', ...' * (len(remote) > 3)})",
             source=source, nested=_depth > 0)
    if animations:
        note(root, "animation", f"{animations} animation element{'s' * (animations > 1)}", source=source,
             nested=_depth > 0)
    inline_style_sheets(root)  # rules the engine cannot match, applied as a browser applies them
    resolve_symbol_percentages(root)  # what the engine resolves against another viewport
    _spend(root, budget, source)
    return root


#: the XHTML namespace, of the HTML inside a ``<foreignObject>``
XHTML_NS = "http://www.w3.org/1999/xhtml"
#: the HTML elements of a text-only ``<foreignObject>``: text, line breaks and inline styling in blocks
#: (what :mod:`composer.text.html` lays out)
HTML_TEXT_ELEMENTS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "big", "blockquote", "body", "br", "center", "cite", "code", "dfn", "div",
    "em", "font", "h1", "h2", "h3", "h4", "h5", "h6", "html", "i", "kbd", "label", "li", "mark", "ol", "p", "pre",
    "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "tt", "u", "ul", "var", "wbr",
})
_MATHML_NS = "http://www.w3.org/1998/Math/MathML"
#: the attributes kept on those elements (what styles the text; links, handlers and the rest are dropped)
_HTML_ATTRIBUTES = frozenset({"style", "class", "id", "face", "color", "size", "dir", "lang", "align", "start"})


def is_text_only(fo: etree._Element) -> bool:
    """Whether a ``<foreignObject>`` holds only XHTML text elements (:data:`HTML_TEXT_ELEMENTS`), with or
    without text (mermaid's empty edge labels draw nothing, in a browser too), and pictures (``<img>`` whose
    ``src`` is a ``data:`` URI, a web address or a relative path, checked as an SVG ``<image>``'s is), lists
    included: a table, a form, an inner ``<svg>``, MathML... make it False. One whose conditions fail (Illustrator's
    ``requiredExtensions="&ns_ai;"``) is never drawn: False too."""
    if not conditions_pass(fo):
        return False
    for el in fo.iterdescendants():
        if not isinstance(el.tag, str):
            continue
        qname = etree.QName(el)
        if qname.namespace == XHTML_NS and qname.localname == "img" and _picture_source(el.get("src") or ""):
            continue
        if qname.namespace != XHTML_NS or qname.localname not in HTML_TEXT_ELEMENTS:
            return False
    return True


def _picture_source(src: str) -> bool:
    """Whether an ``<img src>`` is one composer draws as an ``<image>``'s: a ``data:`` URI, a web address
    (drawn as nothing, noted), or a relative path (inlined from inside the project)."""
    parts = urlsplit(src.strip())
    return parts.scheme.lower() in ("data", "http", "https", "") and bool(src.strip())


def _shows_something(fo: etree._Element) -> bool:
    """Whether a browser would show anything of a ``<foreignObject>`` composer does not draw: its conditions
    pass and it holds text or an element outside an editor's private namespace (a private one, as
    Illustrator's ``<i:pgfRef>``, draws nothing in a browser either)."""
    if not conditions_pass(fo):
        return False
    for el in fo.iter():
        if (el.text or "").strip() or (el is not fo and (el.tail or "").strip()):
            return True
        if el is not fo and isinstance(el.tag, str) and etree.QName(el).namespace in (XHTML_NS, SVG_NS, _MATHML_NS):
            return True
    return False


def _keep_html_text(fo: etree._Element, *, source: str, base_dir: Path | None, project_root: Path, budget: _Budget,
                    depth: int, remote: list[str]) -> None:
    """Keep a text-only ``<foreignObject>``'s HTML with only the attributes that style its text
    (:data:`_HTML_ATTRIBUTES`), their CSS checked as any ``style`` is (no ``url()`` outside the file); an
    ``<img>``'s ``src`` checked and inlined as an SVG ``<image>``'s reference is (:func:`_check_href`)."""
    for el in fo.iterdescendants():
        if not isinstance(el.tag, str):
            continue
        if etree.QName(el).localname == "img":
            for attr in list(el.attrib):
                if attr not in _HTML_ATTRIBUTES | {"src", "width", "height"}:
                    del el.attrib[attr]
            if el.get("src"):
                _check_href(el, "src", "image", source=source, base_dir=base_dir, project_root=project_root,
                            budget=budget, depth=depth, remote=remote)
        for attr in list(el.attrib):
            if etree.QName(el).localname == "img" and attr in ("src", "width", "height"):
                continue
            if attr not in _HTML_ATTRIBUTES:
                del el.attrib[attr]
            elif attr == "style":
                _check_css(el.get(attr), source=source, where=f"<{etree.QName(el).localname} style>",
                           declarations=True)
            elif "url(" in (el.get(attr) or "").lower():
                del el.attrib[attr]


def _refused(source: str, where: str, href: str, why: str) -> SvgError:
    shown = href if len(href) <= 120 else href[:117] + "..."
    return SvgError(f"{where} refers to {shown!r}: {why}", file=source)


def _check_href(el: etree._Element, attr: str, local: str, *, source: str, base_dir: Path | None, project_root: Path,
                budget: _Budget, depth: int, remote: list[str]) -> None:
    """Check, and where allowed inline, the reference ``attr`` of ``el`` (see the module docstring). A picture
    by a web address (``http:``, ``https:``, ``//host``) is drawn as nothing, its address added to ``remote``.

    Raises:
        SvgError: a reference refused (another scheme, ``file:``, a path outside the project...).
    """
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
    if local in IMAGE_ELEMENTS and (scheme in ("http", "https") or (not scheme and parts.netloc)):
        del el.attrib[attr]  # as a browser shows an SVG image: no external resource is loaded, the rest drawn
        remote.append(href)
        return
    if scheme or parts.netloc:
        raise _refused(source, where, href, f"{(scheme + ':') if scheme else '//host'} links are never followed "
                       "(no file: or network access while composing); copy the file into the project and link "
                       "it by a relative path, or inline it")
    if local not in IMAGE_ELEMENTS:
        _skip_other_file(el, attr, where, href, source=source, base_dir=base_dir, project_root=project_root)
        return
    if parts.query or parts.fragment:  # a file's URL: the path names the file, as a viewer reads it
        warnings.warn(ComposerWarning(f"{source}: {where} refers to {href!r}: the file {parts.path!r} is drawn, "
                                      f"its {'?' if parts.query else '#'}{parts.query or parts.fragment} ignored"),
                      stacklevel=4)
    if base_dir is None:  # a data: URI has no folder to find the file in: viewers draw it as nothing
        del el.attrib[attr]
        warnings.warn(ComposerWarning(f"{source}: {where} refers to {href!r} from an SVG inside a data: URI, "
                                      "which has no folder to find files in; the image is skipped, as viewers "
                                      "skip it"), stacklevel=4)
        return
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
        what = "a folder, not a file" if path.is_dir() else "no such file"
        skip_image(el, attr, f"{source}: {where} refers to {href!r}: {what} ({path})")
        return
    shown = str(path.relative_to(project_root))
    data = read_limited(path, limit=MAX_IMAGE_BYTES, source=shown)
    try:
        el.set(attr, _inline(data, source=shown, where=where, href=href, project_root=project_root,
                             base_dir=path.parent, budget=budget, depth=depth, outer=source))
    except ImageUnreadable as exc:
        skip_image(el, attr, f"{source}: {where} refers to {href!r}, which {exc}")


def _skip_other_file(el: etree._Element, attr: str, where: str, href: str, *, source: str, base_dir: Path | None,
                     project_root: Path) -> None:
    """A ``<use>``, gradient or pattern ``href`` naming another file (``other.svg#a``) or no ``#``
    (``xlink:href="rect1"``, which is a file name): viewers, resvg among them, draw such a reference
    as nothing; so does composer, with one warning naming the file and the element (the reference is
    dropped; a ``<use>`` left without one is removed at import). It is never read. A path that
    leaves the project is refused all the same (SvgError), as for images.
    """
    path_text = unquote(urlsplit(href).path)
    if path_text:
        try:
            path = Path(path_text)
            path = (path if path.is_absolute() else (base_dir or project_root) / path).resolve()
        except (OSError, ValueError) as exc:
            raise _refused(source, where, href, f"not a usable path ({exc})") from None
        if not path.is_relative_to(project_root):
            raise _refused(source, where, href, f"{path} is outside the project {project_root}; composer reads "
                           "files from inside the project only")
    del el.attrib[attr]
    ident = el.get("id")
    named = f"<{_local(el)} id={ident!r}>" if ident else f"<{_local(el)}>"
    warnings.warn(ComposerWarning(f"{source}: {named} refers to {href!r}, another file ('#id' names an element of "
                                  "this one); the reference is skipped, as viewers skip it"), stacklevel=4)


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
        key = str(project_root / source) if base_dir is not None else None  # the SVG file being inlined
        if key is not None and key in budget.files:  # an image of itself, inside itself: viewers stop here
            warnings.warn(ComposerWarning(f"{outer}: {where} refers to {href!r}, an SVG image that contains "
                                          "itself; that inner image is drawn as nothing, as viewers do"),
                          stacklevel=4)
            return "data:image/svg+xml;base64," + base64.b64encode(_EMPTY_SVG).decode("ascii")
        if depth + 1 > MAX_NESTING:
            raise _refused(outer, where, href, f"SVG images nested more than {MAX_NESTING} deep")
        inner = parse_svg(data, source=source)
        if key is not None:
            budget.files.append(key)
        try:
            sanitize(inner, source=source, base_dir=base_dir, project_root=project_root, _budget=budget,
                     _depth=depth + 1)
        finally:
            if key is not None:
                budget.files.pop()
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


def _drop_imports(css: str, *, source: str, base_dir: Path | None, project_root: Path) -> str:
    """The stylesheet without its ``@import`` rules of files inside the project, each dropped with one
    warning (resvg applies no ``@import``; composer never reads another file for CSS: its rules are
    not applied); an ``@import`` of a URL (``http:``...) or of a path outside the project is refused.

    Raises:
        SvgError: an ``@import`` of a URL, or of a file outside the project.
    """
    if "@" not in css:
        return css
    nodes = tinycss2.parse_stylesheet(css)
    kept = []
    for node in nodes:
        if getattr(node, "type", "") != "at-rule" or node.lower_at_keyword != "import":
            kept.append(node)
            continue
        target = ""
        for token in node.prelude:
            kind = getattr(token, "type", "")
            if kind in ("string", "url"):
                target = token.value
            elif kind == "function" and token.lower_name == "url":
                strings = [t.value for t in token.arguments if getattr(t, "type", "") in ("string", "ident")]
                target = strings[0] if strings else tinycss2.serialize(token.arguments)
            if target or kind not in ("whitespace", "comment"):
                break
        target = target.strip()
        parts = urlsplit(target)
        why = "@import reads another file; put the rules into this <style>"
        if not target or parts.scheme or parts.netloc:
            raise _refused(source, "<style>", target or tinycss2.serialize(node.prelude).strip(), why)
        try:
            path = Path(unquote(parts.path))
            path = (path if path.is_absolute() else (base_dir or project_root) / path).resolve()
        except (OSError, ValueError) as exc:
            raise _refused(source, "<style>", target, f"not a usable path ({exc})") from None
        if not path.is_relative_to(project_root):
            raise _refused(source, "<style>", target, f"{path} is outside the project {project_root}; {why}")
        warnings.warn(ComposerWarning(f"{source}: <style> imports {target!r}; composer reads no other file for "
                                      "CSS (nor does resvg): its rules are not applied; put them into this <style>"),
                      stacklevel=4)
    return tinycss2.serialize(kept)


def _drop_font_faces(css: str, *, source: str, fonts: list[str], embedded: list[Face] | None) -> str:
    """The stylesheet without its ``@font-face`` rules. A rule whose ``src`` is a font in a ``data:`` URL
    hands its faces to ``embedded`` (:func:`composer.svg.fontfaces.faces_of_rule`; at most
    :data:`~composer.svg.fontfaces.MAX_EMBEDDED_FONT_BYTES` in all), which the import draws its text in
    (:func:`composer.text.embedded.outline_embedded_text`); ``embedded`` is None in an SVG image inside the
    file, which is not imported on its own. Any other (``url(https://fonts.gstatic.com/...)``: composer reads
    no URL) adds its family to ``fonts``, noted once per file by :func:`sanitize`: its text is drawn in the
    installed font fontconfig gives for the family (:func:`composer.stages.fragment.name_missing_families`),
    not refused.
    """
    if "@" not in css or "font-face" not in css.lower():
        return css
    from composer.svg.fontfaces import MAX_EMBEDDED_FONT_BYTES, faces_of_rule

    kept, families = [], []
    for node in tinycss2.parse_stylesheet(css):
        if getattr(node, "type", "") == "at-rule" and node.lower_at_keyword == "font-face":
            used = sum(len(data) for data in dict.fromkeys(f.data for f in embedded or ()))
            faces, family = faces_of_rule(node, MAX_EMBEDDED_FONT_BYTES - used if embedded is not None else 0)
            if faces and embedded is not None:
                embedded.extend(faces)
            elif family:
                families.append(family)
            continue
        kept.append(node)
    if families:
        named = ", ".join(repr(f) for f in dict.fromkeys(families))
        fonts.append(named)
    return tinycss2.serialize(kept)


#: the root attribute in which :func:`sanitize` leaves what the import reports (:func:`noted`): one line per
#: note, ``kind\tdetail``; the import stage, which knows the panel, warns each as a record the check reads
#: (:class:`composer.errors.ImportFeature`)
NOTES = "data-composer-notes"
#: kind -> (the feature, as the check names it for every file; what was done in this file; the warning)
_NOTED = {
    "html": ("HTML other than text in <foreignObject>", "{detail} not drawn",
             "{source}: {detail} <foreignObject> not drawn: they hold "
             "HTML other than text (a table, a form, a video, an image by another scheme than data: or a path, an "
             "inner document...), which composer does "
             "not draw; their SVG fallback is drawn where the file has one (in a <switch>); save the drawing with "
             "its content as SVG"),
    "remote": ("pictures linked by a web address", "{detail} not drawn",
               "{source}: {detail} linked by a web address not drawn: composer reads no URL (nor does a browser "
               "showing the file as an image), and draws the rest; to include a picture, download it into the "
               "project and link it by a relative path, or inline it as a data: URI"),
    "animation": ("SMIL animation", "{detail} left out: drawn as it stands before any",
                  "{source}: SMIL animation ({detail}) left out: drawn as it stands before any; a browser plays "
                  "it"),
    "fonts": ("web fonts (@font-face)", "{detail} not loaded",
              "{source}: <style> loads web fonts (@font-face {detail}); composer reads no "
              "URL or embedded font file: their text is drawn in the installed font fontconfig gives for the "
              "family; install the font to draw it"),
}


def note(root: etree._Element, kind: str, detail: str, *, source: str, nested: bool) -> None:
    """Leave a note (a kind of :data:`_NOTED` and its detail) of what the file draws differently from a browser
    on its root (:data:`NOTES`), for the import to report; in an SVG image inside the file (``nested``),
    which is not imported on its own, warn at once."""
    if nested:
        warnings.warn(ComposerWarning(_NOTED[kind][2].format(source=source, detail=detail)), stacklevel=3)
        return
    line = kind + "\t" + detail.replace("\t", " ").replace("\n", " ")
    root.set(NOTES, "\n".join(filter(None, [root.get(NOTES), line])))


def noted(root: etree._Element, *, source: str) -> list[tuple[str, str, str]]:
    """The notes :func:`note` left on the root, as ``(feature, detail, warning)``, taken off it."""
    out = []
    for line in root.attrib.pop(NOTES, "").split("\n"):
        kind, _, detail = line.partition("\t")
        if kind in _NOTED:
            feature, done, message = _NOTED[kind]
            out.append((feature, done.format(detail=detail), message.format(source=source, detail=detail)))
    return out


#: the CSS texts :func:`_check_css` passed, as ``(text, declarations)``: a file's ``style`` attributes repeat a few
#: values over thousands of elements (a PDF's drawing as SVG: the same fill on every path), and tokenizing each
#: again was a third of such an import's time. A text passes or fails whatever element holds it; bounded.
_CSS_PASSED: set[tuple[str, bool]] = set()
_CSS_PASSED_MAX = 8192


def _check_css(css: str, *, source: str, where: str, declarations: bool) -> None:
    """Refuse any ``url()`` that is not ``#id`` and any ``@import``.

    Checked twice: in the raw text (CSS a parser would give up on) and in
    tinycss2's tokens (escapes such as ``\\75 rl(`` decoded). A text that passed once is not checked again
    (:data:`_CSS_PASSED`).
    """
    if (css, declarations) in _CSS_PASSED:
        return
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
    if len(_CSS_PASSED) >= _CSS_PASSED_MAX:
        _CSS_PASSED.clear()
    _CSS_PASSED.add((css, declarations))


# ------------------------------------------------------------------ reference amplification


def _local(el: etree._Element) -> str:
    return el.tag.rpartition("}")[2] if isinstance(el.tag, str) else ""


def _references(el: etree._Element) -> list[tuple[str, int, str]]:
    """(target id, times, attribute) for every reference of ``el`` (hrefs and url() in attributes)."""
    refs: list[tuple[str, int, str]] = []
    for attr, value in el.attrib.items():
        name = attr.rpartition("}")[2]
        if name == "href":
            if value.startswith("#"):
                refs.append((value[1:], 1, attr))
            continue
        if "url(" not in value.lower():
            continue
        for match in _URL_IN_VALUE.finditer(value):
            target = match.group(2).strip()
            if target.startswith("#"):
                times = _vertices(el) if "marker" in name or ("marker" in value and name == "style") else 1
                refs.append((target[1:], times, attr))
    return refs


def _vertices(el: etree._Element) -> int:
    """An upper bound of the vertices of a shape (for mid-markers): numbers in d/points / 2, at least 1."""
    text = el.get("d") or el.get("points") or ""
    return max(1, len(_NUMBER.findall(text)) // 2 + 1)


class _Cycle(Exception):
    """A reference cycle found by :func:`_expanded_size`: the elements along it, and the references
    (referring element, attribute, target id) that make it."""

    def __init__(self, names: list[str], edges: list[tuple[etree._Element, str, str]]):
        super().__init__(" -> ".join(names))
        self.names, self.edges = names, edges


def _spend(root: etree._Element, budget: _Budget, source: str) -> None:
    """Charge the document's expanded size to ``budget``; break reference cycles; refuse overruns.

    A reference cycle (a ``<use>`` of its own ancestor, a pattern whose content is painted with the
    pattern, a marker drawn with itself) is broken as viewers break it, at one of its references
    (:func:`_break_cycle`), with one warning naming the file and the element; then the count starts
    again (a cycle is rare; each pass removes one reference; at most :data:`MAX_CYCLES` of them).
    """
    broken: dict[str, tuple[list[str], list[str]]] = {}  # element as shown -> (what was done, cycles)
    for _ in range(MAX_CYCLES + 1):
        try:
            total = _expanded_size(root, budget.left, source)
        except _Cycle as cycle:
            shown, what, path = _break_cycle(cycle)
            done, paths = broken.setdefault(shown, ([], []))
            done.append(what)
            if path not in paths:
                paths.append(path)
            continue
        for shown, (done, paths) in broken.items():
            warnings.warn(ComposerWarning(f"{source}: {shown} closes a reference cycle ({'; '.join(paths)}): "
                                          f"{'; '.join(dict.fromkeys(done))}, as viewers do"), stacklevel=3)
        budget.left -= total
        if budget.left < 0:
            raise _over(source)
        return
    raise SvgError(f"has more than {MAX_CYCLES} reference cycles; refused", file=source)


#: ``marker: url(#m)`` (or ``marker-start``/``-mid``/``-end``) in a style sheet: the marker's id
_CSS_MARKER = re.compile(r"marker(?:-start|-mid|-end)?\s*:\s*url\(\s*['\"]?#([^)'\"\s]+)")

def _over(source: str) -> SvgError:
    return SvgError(f"expands to more than {MAX_EXPANDED_ELEMENTS:,} units of drawing work (about "
                    f"{MAX_EXPANDED_ELEMENTS / 1e6:g} s of the export engine: its elements, path vertices and text, "
                    "every <use> and other reference expanded; a 'use bomb' or a drawing too large for one export); "
                    "refused before rasterizing", file=source)


#: attributes whose reference, when it closes a cycle, is dropped first: marker references (a marker
#: drawn inside a marker is not drawn, as resvg and browsers do), then paints (painted ``none``).
_MARKER_ATTRIBUTES = frozenset({"marker", "marker-start", "marker-mid", "marker-end"})
_PAINT_ATTRIBUTES = frozenset({"fill", "stroke"})


def _break_cycle(cycle: _Cycle) -> tuple[str, str, str]:
    """Break a reference cycle where viewers do; return the element changed (``<use id='u1'>``),
    what was done (``its marker-end url(#m1) is dropped``) and the cycle (``m1 -> p1 -> m1``).

    The reference broken is, in this order: a marker reference along the cycle (removed: the
    shape is drawn without that marker), a ``fill``/``stroke`` paint (painted ``none``), or the
    reference that closes the cycle: a ``<use>`` is drawn as nothing (removed), another element's
    ``href`` (a gradient or pattern chain) is dropped, and an element whose ``clip-path``,
    ``mask`` or ``filter`` closes it is drawn as nothing (removed).
    """
    def rank(edge: tuple[etree._Element, str, str]) -> int:
        _, attr, _ = edge
        name = attr.rpartition("}")[2]
        if name in _MARKER_ATTRIBUTES or (name == "style" and "marker" in (edge[0].get(attr) or "")):
            return 0
        if name in _PAINT_ATTRIBUTES:
            return 1
        return 2

    best = min(range(len(cycle.edges)), key=lambda i: (rank(cycle.edges[i]), -i))
    el, attr, target = cycle.edges[best]
    name = attr.rpartition("}")[2]
    local = _local(el)
    shown = f"<{local} id={el.get('id')!r}>" if el.get("id") else f"<{local}>"
    if rank(cycle.edges[best]) < 2 or name == "style":
        value = el.get(attr) or ""
        if name == "style" or rank(cycle.edges[best]) == 1:
            el.set(attr, _url_to(value, target, "none"))
            what = f"its {name} url(#{target}) is taken as none"
        else:
            del el.attrib[attr]
            what = f"its {name} url(#{target}) is dropped"
    elif name == "href" and local != "use":
        del el.attrib[attr]
        what = f"its href #{target} is dropped"
    else:
        remove_keeping_tail(el)
        what = "it is drawn as nothing"
    return shown, what, str(cycle)


def _url_to(value: str, target: str, replacement: str) -> str:
    """``value`` with every ``url(#target)`` replaced by ``replacement``."""
    return _URL_IN_VALUE.sub(lambda m: replacement if m.group(2).strip() == f"#{target}" else m.group(0), value)


def _expanded_size(root: etree._Element, limit: int, source: str) -> int:
    """The expanded size of the document (see the module docstring), capped at ``limit + 1``.

    Raises:
        _Cycle: a reference cycle (the first one found).
        SvgError: more than ``limit``.
    """
    elements = [el for el in root.iter() if isinstance(el.tag, str)]
    ids: dict[str, etree._Element] = {}
    for el in elements:
        ident = el.get("id")
        if ident is not None and ident not in ids:
            ids[ident] = el
    cost: dict[int, int] = {}  # id(element) -> expanded size (capped at limit + 1)
    names = {id(el): el.get("id") or f"<{_local(el)}>" for el in elements}
    Successor = tuple[etree._Element, int, str]  # (element, times, attribute or "" for a child)

    def successors(el: etree._Element) -> list[Successor]:
        out: list[Successor] = [(child, 1, "") for child in el  # what defs, symbols... hold: only when referenced
                                if isinstance(child.tag, str) and _local(child) not in NOT_IN_PLACE]
        for target_id, times, attr in _references(el):
            target = ids.get(target_id)
            if target is not None and _local(target) not in PAINTS:
                out.append((target, times, attr))
        return out

    def cycle(frames: list[Frame], child: etree._Element) -> None:
        first = next(i for i, (e, *_) in enumerate(frames) if e is child)
        path = [e for e, *_ in frames[first:]]
        edges = [(e, s[i - 1][2], s[i - 1][0].get("id") or "") for e, s, i, _ in frames[first:]]
        raise _Cycle([names[id(e)] for e in path] + [names[id(child)]],
                     [(e, attr, target) for e, attr, target in edges if attr])

    # patterns, clip paths, masks... named from <style> may apply to every element, and a marker to every
    # vertex of every element (start, mid and end: vertices + 1 per path, as an attribute's is counted)
    css = " ".join(el.text or "" for el in elements if _local(el) == "style")
    named = [(m.group(2).strip()[1:], ids.get(m.group(2).strip()[1:])) for m in _URL_IN_VALUE.finditer(css)]
    for start in [root, *(t for _, t in named if t is not None and _local(t) not in PAINTS)]:
        if id(start) not in cost:
            expand(start, successors, cost, limit=limit, on_cycle=cycle)
    total = cost[id(root)]
    if total > limit:
        raise _over(source)
    markers = {m.group(1) for m in _CSS_MARKER.finditer(css)}
    per_vertex = len(elements) + sum(vertices(el) for el in elements) if markers else 0
    for target_id, target in named:
        if target is not None and _local(target) not in PAINTS:
            total += (per_vertex if target_id in markers else len(elements)) * cost.get(id(target), 1)
            if total > limit:
                raise _over(source)
    return total
