"""Conditional processing as a browser evaluates it (SVG 2, 5.8): whether an element's
``requiredFeatures``, ``requiredExtensions`` and ``systemLanguage`` let it draw.

Read where a file is sanitized (a ``<foreignObject>`` no browser draws is dropped without a word) and
imported (:func:`composer.stages.fragment._resolve_switches`).
"""

from __future__ import annotations

from lxml import etree

__all__ = ["SUPPORTED_EXTENSIONS", "USER_LANGUAGE", "conditions_pass"]

#: the language a ``systemLanguage`` test is evaluated against: a browser's user language (resvg's
#: default, and what the suites' references assume, "en-US": ``en``, ``en-GB``, ``en-US`` pass). Fixed,
#: so a build does not depend on the machine's locale (the bytes are part of the determinism promise).
USER_LANGUAGE = "en"
#: the extensions a ``requiredExtensions`` test passes for: XHTML (``<foreignObject>`` text is drawn,
#: :mod:`composer.text.html`) and MathML, the two namespaces Chromium accepts there
SUPPORTED_EXTENSIONS = frozenset({"http://www.w3.org/1999/xhtml", "http://www.w3.org/1998/Math/MathML"})


def conditions_pass(el: etree._Element) -> bool:
    """Whether an element's conditional processing attributes evaluate to true, as a browser evaluates
    them (SVG 2, 5.8.2): ``requiredFeatures`` always (SVG 2 dropped it; Chromium and Firefox pass it);
    ``requiredExtensions`` when every URL it lists is one of :data:`SUPPORTED_EXTENSIONS` (an empty list
    fails); ``systemLanguage`` when one of its comma-separated language tags has the primary subtag of
    :data:`USER_LANGUAGE` (``en``, ``en-GB``, ``ru, en``; an empty value fails)."""
    extensions = el.get("requiredExtensions")
    if extensions is not None:
        listed = extensions.split()
        if not listed or any(url not in SUPPORTED_EXTENSIONS for url in listed):
            return False
    languages = el.get("systemLanguage")
    if languages is not None:
        tags = [tag.strip() for tag in languages.split(",") if tag.strip()]
        if not any(tag.split("-")[0].lower() == USER_LANGUAGE for tag in tags):
            return False
    return True
