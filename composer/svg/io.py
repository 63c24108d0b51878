"""SVG input and output: one safe parser, one deterministic writer, atomic files.

Parsing never lets the parser expand entities, never loads a DTD and never
touches the network (lxml ``resolve_entities=False, no_network=True,
load_dtd=False``, ``huge_tree=False``: at most 256 levels of nesting and 10 MB
per text node). Internal general entities (``<!ENTITY fill "green">`` in the
document's own DOCTYPE, as browsers and resvg expand them) are expanded by
composer itself before parsing (:func:`expand_internal_entities`), with a bound
on what they add (:data:`MAX_ENTITY_EXPANSION` characters), which stops the
"billion laughs"; an external entity (``SYSTEM``/``PUBLIC``: it would read a
file or a URL), a parameter entity, a cycle or an expansion past the bound is
refused, in any encoding (the declaration is looked for in the bytes, and again
in the parsed document's internal DTD, so a UTF-16 file cannot slip past). A
file larger than :data:`MAX_SVG_BYTES` is refused before it is read.

Encodings: UTF-8 (with or without a byte-order mark), UTF-16 with its BOM, and
any encoding named in the XML declaration (``encoding="ISO-8859-1"``) are read
as XML says; bytes that are not valid in the declared (or default UTF-8)
encoding are refused with the line and column and how to fix it.

Writing (:func:`write_files_atomically`): every output is written to a
temporary ``.NAME.xxxxxx.tmp`` beside it, synced, then renamed over the old
file, so a reader (or a build killed at any moment) sees the old or the new
file, never a part of one; see that function for locking and clean-up.
"""

from __future__ import annotations

import glob
import os
import re
import tempfile
from pathlib import Path

from lxml import etree

from composer.errors import ProjectError, SvgError

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
#: Inkscape's namespace, for ``inkscape:label`` (:mod:`composer.stages.inkscape`).
INKSCAPE_NS = "http://www.inkscape.org/namespaces/inkscape"
NSMAP = {None: SVG_NS, "xlink": XLINK_NS, "inkscape": INKSCAPE_NS}
#: largest SVG composer reads (bytes); a matplotlib panel is well below 10 MB.
MAX_SVG_BYTES = 64 * 1024 * 1024

_ENTITY = re.compile(rb"<!ENTITY", re.IGNORECASE)
_DECLARED = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
         (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))


def svg_tag(name: str) -> str:
    """``"g"`` -> ``"{http://www.w3.org/2000/svg}g"``."""
    return f"{{{SVG_NS}}}{name}"


def href(el: etree._Element) -> str:
    """What an element (``<use>``, ``<image>``...) references: its ``href``, else its
    ``xlink:href`` (SVG 2, 16.1.2: ``href`` wins when both are set); "" for neither."""
    return el.get("href") or el.get(f"{{{XLINK_NS}}}href") or ""


def parse_svg(data: bytes, *, source: str) -> etree._Element:
    """Parse SVG bytes safely and return the root ``<svg>`` element.

    Raises:
        SvgError: larger than :data:`MAX_SVG_BYTES`, declares entities, is not
            well-formed XML, has bytes invalid in its encoding, or its root is
            not an SVG ``<svg>`` element.
    """
    if len(data) > MAX_SVG_BYTES:
        raise SvgError(f"SVG is {len(data)} bytes, more than the limit of {MAX_SVG_BYTES}", file=source)
    if _ENTITY.search(data) or _ENTITY.search(_as_ascii(data)):
        data = expand_internal_entities(data, source=source)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise SvgError(_syntax_message(exc, data), file=source) from None
    except ValueError as exc:  # lxml refuses some inputs before parsing (e.g. unknown encodings)
        raise SvgError(f"not well-formed XML: {exc}", file=source) from None
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise _entities(source)
    for entity in root.iter(etree.Entity):  # a reference left unresolved: its DTD is never loaded
        raise SvgError(f"uses the entity {entity.text} that it does not define (composer never loads external "
                       "DTDs); replace it by its text", file=source)
    if root.tag != svg_tag("svg"):
        raise SvgError(f"root element is {root.tag!r}, not an SVG <svg> (namespace {SVG_NS})", file=source)
    return root


def read_limited(path: Path, *, limit: int, source: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (checked before reading).

    Raises:
        SvgError: not a regular file, larger than ``limit``, or unreadable.
    """
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise SvgError("is not a regular file", file=source)
        if size > limit:
            raise SvgError(f"is {size} bytes, more than the limit of {limit}", file=source)
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise SvgError(f"cannot read: {exc.strerror or exc}", file=source) from None
    if len(data) > limit:
        raise SvgError(f"is more than the limit of {limit} bytes", file=source)
    return data


def _entities(source: str, why: str = "") -> SvgError:
    return SvgError("SVG declares XML entities (<!ENTITY>) " + (why or "that composer cannot expand") + "; refused, "
                    "since such entities can expand without bound or read local files; replace each &name; by "
                    "its text", file=source)


#: most characters internal entities may add to a document when expanded (a billion laughs adds 3e9)
MAX_ENTITY_EXPANSION = 1_000_000
#: deepest nesting of entities within entities (``<!ENTITY e1 "&e0;">``, ``<!ENTITY e2 "&e1;">``...): libxml2's
#: own limit (Chromium's XML parser: "Maximum entity nesting depth exceeded" past 40 without XML_PARSE_HUGE).
#: A chain of 3,000 ran Python out of stack (a RecursionError's traceback) before this bound.
MAX_ENTITY_DEPTH = 40
_DOCTYPE = re.compile(r"<!DOCTYPE\s+[^\[>]*\[(?P<subset>.*?)\]\s*>", re.DOTALL)
_ENTITY_DECL = re.compile(r"""<!ENTITY\s+(?P<param>%\s+)?(?P<name>[^\s%"'<>]+)\s+"""
                          r"""(?P<rest>(?:"[^"]*"|'[^']*'|[^>"'])*)>""")
_ENTITY_REF = re.compile(r"&([A-Za-z_:][\w.:-]*);")
_PREDEFINED = frozenset({"lt", "gt", "amp", "quot", "apos"})


def expand_internal_entities(data: bytes, *, source: str) -> bytes:
    """The document with its internal general entities expanded, as a browser expands them, and their
    declarations removed (UTF-8 bytes, its XML declaration's encoding dropped).

    ``<!ENTITY name "text">`` in the DOCTYPE's internal subset: every ``&name;`` after the DOCTYPE is
    replaced by its text, itself expanded (an entity's text may refer to others); the predefined
    entities and character references are left to the parser. In text alone (no ``<``), quotes are
    written as references, so an expansion inside an attribute value stays one value.

    Raises:
        SvgError: an external entity (``SYSTEM``/``PUBLIC``), a parameter entity (``%``), an entity that
            refers to itself, entities nested more than :data:`MAX_ENTITY_DEPTH` deep, more than
            :data:`MAX_ENTITY_EXPANSION` characters added, or a document
            whose encoding cannot be read.
    """
    text = _decoded(data)
    if text is None:
        raise _entities(source, "in a document whose encoding composer cannot read")
    doctype = _DOCTYPE.search(text)
    if doctype is None:
        raise _entities(source, "outside an internal DTD subset")
    subset = doctype.group("subset")
    values: dict[str, str] = {}
    for decl in _ENTITY_DECL.finditer(subset):
        rest = decl.group("rest").strip()
        if decl.group("param"):
            raise _entities(source, f"(the parameter entity %{decl.group('name')})")
        if not rest or rest[0] not in "\"'" or rest[-1] != rest[0] or len(rest) < 2:
            raise _entities(source, f"(the external entity {decl.group('name')!r}, which reads another file or URL)")
        values.setdefault(decl.group("name"), rest[1:-1])  # the first declaration binds (XML 1.0, 4.2)
    if "<!ENTITY" in _ENTITY_DECL.sub("", subset).upper():
        raise _entities(source, "that composer cannot read")
    sizes: dict[str, int] = {}

    def size(name: str, seen: tuple[str, ...]) -> int:
        if name in sizes:
            return sizes[name]
        if name in seen:
            raise _entities(source, f"that refer to themselves ({' -> '.join((*seen, name))})")
        if len(seen) >= MAX_ENTITY_DEPTH:
            raise _entities(source, f"nested more than {MAX_ENTITY_DEPTH} deep (&{seen[0]}; goes through "
                            f"{seen[1]}, {seen[2]}, ...), past what a browser's XML parser expands")
        value = values[name]
        total = len(_ENTITY_REF.sub("", value))
        for ref in _ENTITY_REF.findall(value):
            if ref in values:
                total += size(ref, (*seen, name))
            if total > MAX_ENTITY_EXPANSION:
                break
        sizes[name] = total
        return total

    body = text[doctype.end():]
    added = 0
    for ref in _ENTITY_REF.findall(body):
        if ref in values:
            added += size(ref, ())
            if added > MAX_ENTITY_EXPANSION:
                raise _entities(source, f"that expand to more than {MAX_ENTITY_EXPANSION:,} characters")
    expanded: dict[str, str] = {}

    def expand(name: str) -> str:
        if name not in expanded:
            value = _ENTITY_REF.sub(lambda m: expand(m.group(1)) if m.group(1) in values else m.group(0),
                                    values[name])
            expanded[name] = value if "<" in value else value.replace('"', "&quot;").replace("'", "&apos;")
        return expanded[name]

    body = _ENTITY_REF.sub(lambda m: expand(m.group(1)) if m.group(1) in values and m.group(1) not in _PREDEFINED
                           else m.group(0), body)
    head = text[:doctype.start()] + text[doctype.start():doctype.end()].replace(subset, _ENTITY_DECL.sub("", subset))
    head = re.sub(r"""^(\s*<\?xml[^>]*?)\s+encoding\s*=\s*["'][^"']*["']""", r"\1", head)
    return (head + body).encode("utf-8")


def _decoded(data: bytes) -> str | None:
    """The document's text by its byte-order mark, else its declared encoding, else UTF-8; None when it
    cannot be decoded so."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), *_BOMS):
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(codec)
            except UnicodeDecodeError:
                return None
    declared = _DECLARED.match(data[:400])
    try:
        return data.decode(declared.group(1).decode("ascii") if declared else "utf-8")
    except (LookupError, UnicodeDecodeError):
        return None


#: the first bytes of a document without a byte-order mark in a wider encoding (XML 1.0, appendix F)
_UNMARKED = ((b"<\x00?\x00", "utf-16-le"), (b"\x00<\x00?", "utf-16-be"))


def document_text(data: bytes) -> str:
    """The text of SVG bytes (the whole document or only its start), decoded as :func:`parse_svg`
    reads it: by its byte-order mark (UTF-8, UTF-16, UTF-32), else by UTF-16's ``<?`` without one
    (XML 1.0, appendix F), else by the encoding its XML declaration names, else as UTF-8; bytes
    invalid in that encoding (or a character cut at the end of a start) become U+FFFD.

    For readers that look at the text with patterns (the root's size,
    :func:`composer.svg.viewbox.canvas_size`) so they see what the parser sees.
    """
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), *_BOMS):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, "replace")
    for start, codec in _UNMARKED:
        if data.startswith(start):
            return data.decode(codec, "replace")
    declared = _DECLARED.match(data[:400])
    try:
        return data.decode(declared.group(1).decode("ascii") if declared else "utf-8", "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def _as_ascii(data: bytes) -> bytes:
    """``data`` decoded by its byte-order mark (UTF-16/32) and re-encoded, or ``b""``."""
    head = data[:4]
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return data[len(bom):].decode(codec, "replace").encode("ascii", "replace")
    return b""


def _syntax_message(exc: etree.XMLSyntaxError, data: bytes) -> str:
    text = " ".join(str(exc).split())
    if "Invalid bytes in character encoding" in text or "not proper UTF-8" in text:
        declared = _DECLARED.match(data[:400])
        where = f"line {exc.lineno}, column {exc.position[1]}" if exc.position else "somewhere"
        if declared:
            return (f"has bytes that are not valid {declared.group(1).decode()} (the encoding it declares) at "
                    f"{where}; save it again in that encoding, or as UTF-8 with the declaration changed")
        return (f"is not valid UTF-8 at {where} and declares no other encoding; save it as UTF-8, or declare "
                "its encoding in the first line, e.g. <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>")
    return f"not well-formed XML: {text}"


def write_svg(root: etree._Element) -> bytes:
    """Serialize a canvas deterministically: UTF-8, XML declaration, final newline.

    Attribute order is insertion order (lxml), and every number was formatted by
    :func:`composer.units.fmt`, so equal trees give equal bytes.
    """
    etree.cleanup_namespaces(root, top_nsmap=NSMAP)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


def _umask() -> int:
    """The process's umask, read from ``/proc/self/status`` (Linux 4.7+) without changing it; elsewhere
    set and restored at once (a thread of the caller's creating a file in that instant gets mode 0o666)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_files_atomically(files: dict[Path, bytes], *, stale: tuple[str, ...] = ()) -> None:
    """Write every file to a temporary sibling, then rename each into place.

    ``stale``: names of other files in the same folders whose leftover temporary files are removed
    too (outputs left unchanged this time, whose temporaries a killed build may have left).

    Nothing is renamed until every temporary file is fully written and synced,
    so a failure leaves all previous outputs untouched; each rename is atomic
    (POSIX ``rename``), so a reader sees the old or the new file, never a part.
    A build killed between two renames leaves some outputs new and some old,
    each of them whole.

    Concurrent builds: the write phase holds an exclusive ``flock`` on each
    output folder, so two builds writing the same outputs take turns (each
    output ends up whole, from one build or the other, and equal builds give
    equal bytes). Holding the lock, leftover ``.NAME.*.tmp`` files of the
    outputs about to be written can only come from a build that was killed
    (SIGKILL, power loss) before it could remove them: they are deleted.
    Nothing else in the folder is touched.

    Raises:
        ProjectError: an output folder cannot be made (a file in its place,
            no permission) or a folder stands where an output goes; nothing
            is written then; or writing failed (disk full): if that was
            before the renames, every previous output is still in place.
    """
    folders = sorted({path.parent for path in files})
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ProjectError(f"cannot make the output folder {folder}: {exc.strerror or exc}") from None
    for path in files:
        if path.is_dir():
            raise ProjectError(f"cannot write {path}: a folder is in its place; remove the folder")
    locks = [_lock(folder) for folder in folders]  # sorted order: two builds cannot deadlock
    temps: list[tuple[Path, Path]] = []
    try:
        for folder, lock in zip(folders, locks):
            if lock is not None:
                remove_stale_temps(folder, [path.name for path in files if path.parent == folder] + list(stale))
        for path, data in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps.append((Path(tmp), path))
            os.chmod(tmp, 0o666 & ~_umask())
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for written, target in temps:
            os.replace(written, target)
        for folder in folders:
            _fsync_dir(folder)
    except OSError as exc:
        raise ProjectError(f"cannot write the outputs in {', '.join(map(str, folders))}: "
                           f"{exc.strerror or exc}") from None
    finally:
        for leftover, _ in temps:
            if leftover.exists():
                leftover.unlink()
        for lock in locks:
            if lock is not None:
                os.close(lock)  # releases the flock


def temp_names(folder: Path, names: list[str]) -> list[Path]:
    """Temporary files of :func:`write_files_atomically` for ``names`` in ``folder``."""
    return sorted(p for name in names for p in folder.glob(f".{glob.escape(name)}.*.tmp") if p.is_file())


def remove_stale_temps(folder: Path, names: list[str]) -> None:
    """Delete leftover temporary files of outputs ``names`` (call only while holding the folder's lock)."""
    for path in temp_names(folder, names):
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def _lock(folder: Path) -> int | None:
    """An fd holding an exclusive ``flock`` on ``folder``, or None where locking is unavailable."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; writes are still atomic, stale temps are kept
        return None
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:  # a file system without flock
        os.close(fd)
        return None
    return fd


def _fsync_dir(folder: Path) -> None:
    """Make the renames in ``folder`` durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_keeping_tail(el: etree._Element) -> None:
    """Remove ``el`` and its content from its parent, keeping the text that follows it (``el.tail``, which lxml
    stores on the element: inside a ``<text>`` it is drawn), appended to the previous sibling's tail or the
    parent's text. An element without a parent is left as it is."""
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
