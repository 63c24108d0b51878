"""SVG input and output: one safe parser, one deterministic writer, atomic files.

Parsing never expands entities, never loads a DTD and never touches the
network (lxml ``resolve_entities=False, no_network=True, load_dtd=False``);
a document that declares entities is refused outright, which stops the
"billion laughs" and external-entity attacks before the parser sees them.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from lxml import etree

from .errors import SvgError

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
NSMAP = {None: SVG_NS, "xlink": XLINK_NS}
#: largest SVG composer reads (bytes); a matplotlib panel is well below 10 MB.
MAX_SVG_BYTES = 64 * 1024 * 1024

_ENTITY = re.compile(rb"<!ENTITY", re.IGNORECASE)


def svg_tag(name: str) -> str:
    """``"g"`` -> ``"{http://www.w3.org/2000/svg}g"``."""
    return f"{{{SVG_NS}}}{name}"


def parse_svg(data: bytes, *, source: str) -> etree._Element:
    """Parse SVG bytes safely and return the root ``<svg>`` element.

    Raises:
        SvgError: larger than :data:`MAX_SVG_BYTES`, declares entities, is not
            well-formed XML, or its root is not an SVG ``<svg>`` element.
    """
    if len(data) > MAX_SVG_BYTES:
        raise SvgError(f"SVG is {len(data)} bytes, more than the limit of {MAX_SVG_BYTES}", file=source)
    if _ENTITY.search(data):
        raise SvgError("SVG declares XML entities (<!ENTITY>); refused, since entities can expand without bound "
                       "or read local files", file=source)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                             huge_tree=False, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as exc:
        raise SvgError(f"not well-formed XML: {exc}", file=source) from None
    if root.tag != svg_tag("svg"):
        raise SvgError(f"root element is {root.tag!r}, not an SVG <svg> (namespace {SVG_NS})", file=source)
    return root


def write_svg(root: etree._Element) -> bytes:
    """Serialize a canvas deterministically: UTF-8, XML declaration, final newline.

    Attribute order is insertion order (lxml), and every number was formatted by
    :func:`composer.units.fmt`, so equal trees give equal bytes.
    """
    etree.cleanup_namespaces(root, top_nsmap=NSMAP)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8") + b"\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_files_atomically(files: dict[Path, bytes]) -> None:
    """Write every file to a temporary sibling, then rename each into place.

    Nothing is renamed until every temporary file is fully written and synced,
    so a failure leaves all previous outputs untouched; each rename is atomic
    (POSIX ``rename``), so a reader sees the old or the new file, never a part.
    """
    temps: list[tuple[Path, Path]] = []
    try:
        for path, data in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps.append((Path(tmp), path))
            os.chmod(tmp, 0o666 & ~_umask())
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, path in temps:
            os.replace(tmp, path)
    finally:
        for tmp, _ in temps:
            if tmp.exists():
                tmp.unlink()
