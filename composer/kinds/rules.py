"""The print check's rules, declared once: name, level and what each finds.

:data:`RULES` is the one list of rule names: the loader reads it for ``[check] ignore`` (a build
refuses a misspelt rule at load, though the layout layer is below the check), the check reads each
rule's level from it (:data:`composer.lint.rules.RULES` is a view of it), and ``compose check``'s
documentation is its docs. The rules' code stays in :mod:`composer.lint.rules`: a declaration here
and the function that finds it there (what a new rule touches: docs/design.md, Extension points).

An error makes ``compose check`` exit 1; a warning is reported and does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from composer.kinds import Registry

#: the levels a finding has: an error fails the check, a warning does not
LEVELS = ("error", "warning")


@dataclass(frozen=True)
class Rule:
    """One rule of the print check.

    Attributes:
        name: as findings, reports and ``[check] ignore`` name it (``"font-size"``).
        level: one of :data:`LEVELS`.
        doc: what it finds (markdown, for the documentation).
    """

    name: str
    level: str
    doc: str

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"rule {self.name!r}: level {self.level!r} is not one of {LEVELS}")


#: every rule of ``compose check``, in the order reports and messages list them
RULES: Registry[Rule] = Registry("rule")

for _rule in (
    Rule("font-size", "error", "a text whose nominal size at final size is below `min_font_size`, or above the "
                               "largest size the preset's journal prints (PLOS: 12 pt), in canvas text and inside "
                               "panels (a panel scaled to fit its box scales its text)"),
    Rule("line-width", "error", "a stroke thinner than `min_line_width` at final size, in panels too"),
    Rule("raster-ppi", "error", "an embedded raster with fewer than `min_ppi` pixels per inch at final size"),
    Rule("overlap", "error", "text on text, a panel over a panel, a text crossing a shape's border, a label over "
                             "a connector; pairs listed in `[check] allow_overlap` are meant. A text is the "
                             "rectangle around its ink in its own frame, so a rotated tick label is a rotated "
                             "rectangle, tested with the separating axis theorem"),
    Rule("outside-canvas", "error", "anything drawn past the canvas edge (the build itself warns of canvas text "
                                    "the edge clips, by the same measurement)"),
    Rule("outside-panel", "warning", "panel text drawn outside its panel's box (shows on the canvas, where the "
                                     "panel's own SVG would have clipped it)"),
    Rule("font-missing", "error", "a font the layout names is not installed (nothing can be composed then)"),
    Rule("font-substituted", "error", "matplotlib drew panel text in another font than the one asked for"),
    Rule("dangling-connector", "error", "a connector end farther than `END_TOLERANCE_PT` from every element box "
                                        "(panels, texts, shapes, legends and colorbars) and data anchor"),
    Rule("color-vision", "warning", "two palette colours, distinguishable with normal colour vision, closer "
                                    "than `cvd_min_distance` for a simulated colour-vision deficiency"),
    Rule("figure-size", "error", "the canvas is wider, narrower or taller than the journal of the preset prints"),
    Rule("font-family", "error", "a font the layout sets for text that the preset's journal does not take (PLOS: "
                                 "Arial, Times or Symbol)"),
    Rule("output-format", "error", "measured on the files a build wrote from this canvas: none of them is in a "
                                   "format the preset's journal takes (PLOS: TIFF or EPS), or a TIFF is not "
                                   "compressed as the journal asks (PLOS: LZW) or carries an alpha channel it "
                                   "refuses"),
    Rule("output-dpi", "error", "measured on the files a build wrote: a PNG or TIFF whose pixels per inch at final "
                                "size (its pixel width over the canvas width) are outside the preset's range for "
                                "figures drawn as pixels (Science: at least 600; PLOS: 300 to 600)"),
    Rule("file-size", "error", "measured on the files a build wrote: an output larger than `max_file_mb` (the "
                               "preset's: PLOS 10 MB, Cell 20 MB, ICML 20 MB)"),
    Rule("pdf-fonts", "error", "measured on the PDF a build wrote: a font it does not embed (the reader's "
                               "viewer would draw another), a Type 3 font where the preset's journal rejects them "
                               "(IEEE PDF eXpress, ICML's paper checker), or a font outside the preset's list (PLOS: "
                               "Arial, Times or Symbol); each named as `pdffonts` lists it"),
    Rule("import-feature", "warning", "a feature of an imported file that composer draws differently from a "
                                      "browser or cannot draw, once per file and feature, as the import recorded "
                                      "it (a CSS transform SVG cannot express, fonts not installed drawn in "
                                      "fontconfig's match, SMIL animation, a <foreignObject> of HTML)"),
    Rule("alt-text", "warning", "the preset's journal asks for alt text with every figure (PNAS) and the layout "
                                "has no `[figure] alt`"),
):
    RULES.add(_rule)


class _Levels(Mapping[str, str]):
    """Rule name -> level, read from :data:`RULES` at each look-up (a rule added later is in it)."""

    def __getitem__(self, name: str) -> str:
        return RULES[name].level

    def __iter__(self) -> Iterator[str]:
        return iter(RULES.names())

    def __len__(self) -> int:
        return len(RULES)

    def __repr__(self) -> str:
        return repr(dict(self))


#: rule name -> level, a live view of :data:`RULES` (what :data:`composer.lint.rules.RULES` is)
LEVEL_OF: Mapping[str, str] = _Levels()
