"""Sphinx configuration of composer's documentation site (the pages in ``docs/``).

Build it (``.ci/run`` does, warnings as errors)::

    pip install -e '.[docs]'
    sphinx-build -n -W --keep-going -b html docs build/docs

``-n`` (nitpicky) makes every cross-reference that resolves to nothing a warning, and ``-W`` every
warning an error: a link to a page, a heading (MyST's slug anchors) or a file of the repository that is
not there, and an API name the autodoc pages name but do not document, fail the build. External links
are not fetched (the build needs no network); ``composer_docs`` checks their form instead.

The gallery pages (``docs/gallery/*.md``) are written at the start of every build from ``layouts/`` by
``docs/_ext/composer_docs.py``; they are not kept in git.
"""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(DOCS / "_ext"))

import composer  # noqa: E402  (after the repository is on sys.path: the clone's package, not another)

project = "composer"
author = "the composer authors"
copyright = "composer authors, MIT licence"  # noqa: A001 - Sphinx's name for it
release = version = composer.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",  # the docstrings' Google-style Args / Returns / Raises sections
    "myst_parser",          # the Markdown pages (design.md, api.md, the guides)
    "composer_docs",        # the gallery pages, the external links' form, the seeds page's images
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "generate.py"]
templates_path: list[str] = []

# MyST: `[text](page.md#a-heading)` links to a heading by its GitHub-style slug, as on GitHub
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

# autodoc: the public API as ``composer`` exports it (docs/reference/python.md)
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False

# Every reference must resolve (-n). Names of the standard library and of the dependencies are not
# documented here and their inventories are not fetched (no network): they are left unlinked.
# Names of composer's internal modules, which the site does not document (the design notes describe them;
# their docstrings are read in the code), are left unlinked too; a name of the public API must resolve, and
# an unqualified one (``LayoutError`` in a Raises section) resolves to the one documented object of that
# name (composer_docs).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"composer\.(incremental|sandbox|stages|progress|svg|text|mpl|layout|lint|cli|guides|export)(\..*)?"),
    (r"py:.*", r"(pathlib|os|io|typing|collections|types|numpy|np|matplotlib|lxml|etree|datetime)(\..*)?"),
    (r"py:data", r"RULES"),  # the check's rule table, named in Finding's docstring: see docs/guide/check.md
    (r"py:class", r"(Path|Any|Callable|Iterable|Iterator|Mapping|Sequence|Axes|ndarray)"),
]

html_theme = "furo"
html_title = f"composer {release}"
html_static_path = ["_static"]
html_css_files = ["composer.css"]
html_show_sourcelink = False
