"""composer's own Sphinx extension: what the site generates and checks beyond Sphinx and MyST.

- At the start of a build (``builder-inited``), the gallery pages ``docs/gallery/*.md`` are written from
  ``layouts/`` by ``docs/generate.py``'s :func:`write_gallery_pages` (only pages whose text changed);
- every external link is checked for its form, without fetching it (the build needs no network): an
  ``https``/``http`` URL with a host name holding a dot, or a ``mailto:``; anything else is a warning
  (an error under ``-W``);
- raw HTML ``<img src="...">`` (the seeds page's thumbnails, which MyST does not resolve) must name a file
  beside the page: a missing one is a warning; at the end the gallery's pictures are copied where such
  images find them in the HTML (``gallery/NAME.png``).

- an unqualified Python name in a docstring (``LayoutError`` in a Raises section) links to the one
  documented object of that name, which Sphinx does not look for (``missing-reference``).

Internal links (pages, headings, repository files) and API references are Sphinx's and MyST's own
warnings (``-n``).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

DOCS = Path(__file__).resolve().parent.parent
REPO = DOCS.parent
logger = logging.getLogger(__name__)

_IMG_SRC = re.compile(r"<img\b[^>]*\bsrc=\"([^\"]+)\"")


def _generate_module() -> Any:
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_gallery(app: Sphinx) -> None:
    """``builder-inited``: the gallery pages, from ``layouts/`` as they are now (``composer_gallery = False``
    in a ``conf.py``: none, for a site of another folder)."""
    if not app.config.composer_gallery:
        return
    written = _generate_module().write_gallery_pages(REPO)
    if written:
        logger.info("composer_docs: wrote %d gallery page(s)", len(written))


def bad_url_form(url: str) -> str | None:
    """Why ``url`` is not a well-formed external link, or None when it is (nothing is fetched)."""
    parts = urlsplit(url)
    if parts.scheme == "mailto":
        return None if re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", parts.path) else "not an e-mail address"
    if parts.scheme not in ("https", "http"):
        return f"scheme {parts.scheme!r} is not https, http or mailto"
    if any(c.isspace() for c in url):
        return "holds white space"
    host = parts.hostname or ""
    if "." not in host or host.startswith(".") or host.endswith("."):
        return f"host {host!r} is not a host name"
    return None


def check_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """``doctree-resolved``: external links' form, and the files raw ``<img>`` tags name."""
    for ref in doctree.findall(nodes.reference):
        uri = ref.get("refuri", "")
        if re.match(r"[a-z][a-z0-9+.-]*:", uri) and not uri.startswith(("#",)):
            problem = bad_url_form(uri)
            if problem:
                logger.warning("external link %s: %s", uri, problem, location=ref)
    source_dir = (Path(app.srcdir) / docname).parent
    for raw in doctree.findall(nodes.raw):
        if raw.get("format") != "html":
            continue
        for src in _IMG_SRC.findall(raw.astext()):
            if not re.match(r"[a-z]+:", src) and not (source_dir / src).is_file():
                logger.warning("raw <img> names %s, which is not a file beside %s", src, docname, location=raw)


def copy_gallery_pictures(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: ``docs/gallery/*.png`` to ``gallery/`` of the HTML, for raw ``<img>`` tags."""
    if exception is not None or app.builder.format != "html" or not app.config.composer_gallery:
        return
    out = Path(app.outdir) / "gallery"
    out.mkdir(parents=True, exist_ok=True)
    for png in sorted((DOCS / "gallery").glob("*.png")):
        shutil.copyfile(png, out / png.name)


def resolve_unqualified(app: Sphinx, env: Any, node: Any, contnode: nodes.Element) -> nodes.Element | None:
    """``missing-reference``: an unqualified Python name (``LayoutError`` in a docstring's Raises section,
    written where the module imports it) links to the one documented object whose name ends with it; none
    or several: left to Sphinx, which warns under ``-n``."""
    if node.get("refdomain") != "py" or "." in node.get("reftarget", ""):
        return None
    target = node["reftarget"]
    domain = env.get_domain("py")
    found = [(name, obj) for name, obj in domain.objects.items() if name.rsplit(".", 1)[-1] == target]
    if len(found) != 1:
        return None
    name, obj = found[0]
    from sphinx.util.nodes import make_refnode

    return make_refnode(app.builder, node["refdoc"], obj.docname, obj.node_id, contnode, name)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("composer_gallery", True, "env", bool)
    app.connect("missing-reference", resolve_unqualified)
    app.connect("builder-inited", write_gallery)
    app.connect("doctree-resolved", check_links)
    app.connect("build-finished", copy_gallery_pictures)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
