"""What the figure says about itself: its alt text and its provenance, written into the composed SVG.

**Alt text** (``[figure] alt``, ``[panels.NAME] alt``: text templates, ``{fields}`` filled like every
canvas text's, :func:`composer.stages.typeset.fill_text`). The SVG's root gets ``role="img"``, a
``<title>`` (the figure's alt) and a ``<desc>`` (:attr:`AltText.description`: the figure's alt, then a
line per panel with an alt, ``a: ...`` by its label, else its name), as WAI-ARIA's SVG mapping reads
them (SVG-AAM 1.0, 8.1: ``<title>`` is the accessible name, ``<desc>`` the description); each such panel's
``<g id="panel-NAME">`` gets a ``<title>`` and an ``aria-label`` of its own (a viewer shows the title on
hover). The PDF and the PNG have one place for a text, so they carry the description
(:mod:`composer.stages.export`: the PDF's tagged figure ``/Alt``, the PNG's ``iTXt`` ``Description``).

**Provenance** (``[figure] provenance``, on unless ``false``): the build's record
(:mod:`composer.incremental.provenance`: composer's version, the git commit, whether the figure's inputs
are as committed, every input's sha256), as one JSON text, in ``<metadata>`` as the text of a
``<provenance>`` element in :data:`PROVENANCE_NS`; the PDF's XMP and the PNG's ``iTXt`` carry the same
text. No clock is read: equal inputs give equal bytes.

Everything written here is a child of the root or of a panel's group that draws nothing
(``title``, ``desc``, ``metadata``), so the figure's pixels do not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from composer.errors import DataError
from composer.stages.inputs import Inputs
from composer.stages.typeset import fill_text
from composer.svg.io import svg_tag

#: the XML namespace of composer's provenance element in an SVG's ``<metadata>`` (a URN: no page is promised)
PROVENANCE_NS = "urn:figure-composer:provenance:1"
_PROVENANCE = f"{{{PROVENANCE_NS}}}provenance"
#: a character no XML 1.0 text can hold (XML 1.0, 2.2 Char: control characters but tab, newline and return;
#: U+FFFE, U+FFFF; a lone surrogate), so neither the SVG's <title> nor the PDF's XMP can carry it
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class AltText:
    """A figure's alt texts, their ``{fields}`` filled.

    Attributes:
        figure: ``[figure] alt``, or None.
        panels: ``(panel name, how the description names it, its alt)`` for every panel with an ``alt``,
            in layout order; the panel is named by its label when it has one (``"a"``), else its name.
    """

    figure: str | None
    panels: tuple[tuple[str, str, str], ...] = ()

    @property
    def description(self) -> str:
        """The whole description, one text: the figure's alt, then one line per panel (``a: ...``);
        ``""`` when nothing has an alt."""
        lines = [self.figure] if self.figure else []
        lines += [f"{shown}: {text}" for _, shown, text in self.panels]
        return "\n".join(lines)


def alt_text(inputs: Inputs) -> AltText:
    """The figure's and its panels' alt texts, filled (pure).

    Raises:
        DataError: a field without a value, at ``figure.alt`` or ``panels.NAME.alt``
            (:func:`composer.stages.inputs.fill_fields`), or a text holding a character XML cannot hold.
    """
    figure, file = inputs.figure, inputs.file
    alt = _filled(figure.spec.alt, inputs, file, "figure.alt") if figure.spec.alt else None
    panels = tuple((p.name, p.label or p.name, _filled(p.alt, inputs, file, f"{p.key}.alt"))
                   for p in figure.panels if p.alt)
    return AltText(alt, panels)


def _filled(template: str, inputs: Inputs, file: str, key: str) -> str:
    """One alt text filled; a character XML cannot hold (:data:`_NOT_XML`: ``\\b``, NUL, written in the
    layout or handed by a field) raises a DataError at ``key`` naming it, as no output could carry it."""
    text = fill_text(template, inputs, file, key)
    bad = _NOT_XML.search(text)
    if bad is not None:
        raise DataError(f"{text[:60]!r} holds {bad.group()!r} (U+{ord(bad.group()):04X}), a control character "
                        "no SVG, PDF or PNG text can carry; remove it", file=file, key=key)
    return text


def describe(root: etree._Element, alt: AltText, provenance: str | None = None) -> None:
    """Write ``alt`` and ``provenance`` (the JSON text of the build's record, or None) into the composed
    canvas ``root``, in place: ``<title>`` and ``<desc>`` first in the root (before anything drawn, where a
    reader looks for them), ``<metadata id="provenance">`` last, ``role="img"`` on the root, and each panel's
    ``<title>`` and ``aria-label`` (see the module docstring). Nothing is written for what is absent."""
    first: list[etree._Element] = []
    if alt.figure:
        first.append(_element("title", alt.figure))
    if alt.description and alt.description != alt.figure:
        first.append(_element("desc", alt.description))
    for i, element in enumerate(first):
        root.insert(i, element)
    if provenance is not None:
        metadata = etree.SubElement(root, svg_tag("metadata"), id="provenance")
        record = etree.SubElement(metadata, _PROVENANCE, nsmap={"composer": PROVENANCE_NS})
        record.text = provenance
    if alt.figure or alt.panels:
        root.set("role", "img")
    groups = {child.get("id"): child for child in root if isinstance(child.tag, str)}
    for name, _, text in alt.panels:
        group = groups.get(f"panel-{name}")
        if group is None:  # a source that draws no group of that id: its alt stays in the description
            continue
        group.set("aria-label", text)
        group.insert(0, _element("title", text))


def _element(tag: str, text: str) -> etree._Element:
    element = etree.Element(svg_tag(tag))
    element.text = text
    return element


def svg_provenance(svg: bytes, *, source: str = "SVG") -> str | None:
    """The provenance text :func:`describe` wrote into a composed SVG, or None when it has none.

    Raises:
        SvgError: ``svg`` is not an SVG composer can read (:func:`composer.svg.io.parse_svg`).
    """
    from composer.svg.io import parse_svg

    root = parse_svg(svg, source=source)
    for metadata in root.iterchildren(svg_tag("metadata")):
        record = metadata.find(_PROVENANCE)
        if record is not None:
            return record.text or ""
    return None


def svg_alt(svg: bytes, *, source: str = "SVG") -> tuple[str | None, str | None, dict[str, str]]:
    """``(title, desc, panel id -> aria-label)`` of a composed SVG's root and panel groups, as
    :func:`describe` wrote them (None where absent).

    Raises:
        SvgError: not an SVG composer can read.
    """
    from composer.svg.io import parse_svg

    root = parse_svg(svg, source=source)
    title = root.find(svg_tag("title"))
    desc = root.find(svg_tag("desc"))
    panels = {c.get("id"): c.get("aria-label") for c in root
              if isinstance(c.tag, str) and c.get("aria-label") is not None}
    return (title.text if title is not None else None, desc.text if desc is not None else None, panels)
