"""Journal presets: figure widths, print limits and panel-label styles.

A layout may name a journal's figure width instead of a length::

    [figure]
    width = "nature.double"     # 183 mm
    height = "120mm"
    preset = "nature"           # check limits and panel-label style of Nature

``preset`` sets the limits ``compose check`` applies (smallest font, raster
ppi) and the panel-label style (bold lowercase ``a``, bold uppercase ``A`` or
``(a)``); keys written in the layout (``label_weight``, a ``[check]`` table)
still win over the preset.

Every number below names the author-guidelines page it comes from. Where a
journal's page gives no number for a limit, the preset leaves it as ``None``
and composer's default applies (see :class:`composer.layout.model.CheckLimits`);
composer never invents a journal's rule. Guidelines change: check the named
page before a submission, and correct the table here when it moved.

Text in quotation marks in the comments below was compared with a stored copy
of the named page when this table was written; the rest is paraphrased from
the named page and is the first thing to re-check when a journal complains.
"""

from __future__ import annotations

from dataclasses import dataclass

from composer.errors import LayoutError


@dataclass(frozen=True)
class LabelStyle:
    """How a journal writes panel labels.

    Attributes:
        case: ``"lower"`` (a, b, c) or ``"upper"`` (A, B, C).
        weight: ``"bold"`` or ``"normal"``.
        parens: wrap the letter in parentheses, ``(a)``.
    """

    case: str
    weight: str
    parens: bool = False

    def format(self, label: str) -> str:
        """``"a"``, ``"(A)"`` or ``"A"`` -> this style (``"A"`` for bold uppercase).

        Only the letter case and the parentheses change; a label that is not a
        single word (``"a, b"``) has its case changed and is otherwise kept.
        """
        text = label.strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1].strip()
        text = text.lower() if self.case == "lower" else text.upper()
        return f"({text})" if self.parens else text

    @property
    def labels(self) -> str:
        """The ``[figure] labels`` style this journal asks for: ``"a"``, ``"A"`` or ``"(a)"``."""
        return self.example

    @property
    def example(self) -> str:
        """The style applied to the first label, for messages: ``a``, ``A`` or ``(a)``."""
        return self.format("a")


@dataclass(frozen=True)
class Preset:
    """One journal's figure rules.

    Attributes:
        name: the key used in layouts (``nature``).
        title: the journal as people name it.
        widths: width name -> length with its unit as the journal states it
            (``{"single": "89mm", "double": "183mm"}``).
        min_font_pt: smallest text size at final size, or None (no number given).
        min_ppi: smallest raster resolution at final size, or None.
        max_height: tallest figure, as a length, or None.
        label: panel-label style, or None (the journal prescribes none).
        source: the guideline pages the numbers come from.
        min_width: narrowest figure, as a length, or None (PLOS: 2.63 in); the widest is the
            largest of :attr:`widths`.
        max_font_pt: largest text size at final size, or None (PLOS: 12 pt). Only where the
            journal's range covers every text of the figure, panel labels included (Nature's
            "Maximum text size: 7pt" is not held: its panel labels are 8 pt).
        fonts: the font families the journal takes for text in figures, or None (any); a family
            matches a name that starts with it and a space, so ``"Times"`` takes ``"Times New Roman"``
            (:meth:`composer.layout.model.CheckLimits.takes_font`).
        formats: the output formats (:data:`composer.kinds.outputs.FORMATS` names) the journal
            takes as figure files, or None (any): at least one output checked must be one.
        tiff_compression: the compression a TIFF figure file must have (``"lzw"``), or None.
        tiff_alpha: whether a TIFF figure file may carry an alpha channel.
        min_output_dpi, max_output_dpi: pixels per inch of a raster figure file (the PNG, the
            TIFF) at final size, measured as its pixel width over the canvas width, or None.
            These are the journal's numbers for a figure of text and lines drawn as pixels
            (line art, combination art), not for photographs inside it (:attr:`min_ppi`).
        max_file_mb: largest figure file, in MB of 10^6 bytes (the unit as journals write it;
            the stricter reading of "MB"), or None.
        requires_alt: the journal asks for alt text with every figure: ``compose check`` warns of a figure
            without ``[figure] alt`` (rule ``alt-text``). Set only where a source says so.
        refuses_type3: the journal's PDF checker rejects Type 3 fonts: ``compose check`` reports one in the
            figure's PDF as an error (rule ``pdf-fonts``; a pdf panel made by matplotlib's default
            ``pdf.fonttype = 3`` brings them). Set only where a source says so.
    """

    name: str
    title: str
    widths: dict[str, str]
    min_font_pt: float | None
    min_ppi: float | None
    max_height: str | None
    label: LabelStyle | None
    source: str
    min_width: str | None = None
    max_font_pt: float | None = None
    fonts: tuple[str, ...] | None = None
    formats: tuple[str, ...] | None = None
    tiff_compression: str | None = None
    tiff_alpha: bool = True
    min_output_dpi: float | None = None
    max_output_dpi: float | None = None
    max_file_mb: float | None = None
    requires_alt: bool = False
    refuses_type3: bool = False


BOLD_LOWER = LabelStyle("lower", "bold")
BOLD_UPPER = LabelStyle("upper", "bold")
PARENS_LOWER = LabelStyle("lower", "normal", parens=True)

PRESETS: dict[str, Preset] = {
    # Nature Research figure guide, "Building and exporting figure panels"
    # (research-figure-guide.nature.com/figures/building-and-exporting-figure-panels):
    # "89 mm (single column)", "183 mm (double column)", "The maximum height for a
    # Nature figure is 170 mm", "Minimum text size: 5pt" (maximum 7 pt).
    # Same guide, "Preparing figures - our specifications": "All photographic
    # images must be supplied at a minimum of 300 dpi".
    # Nature formatting guide (nature.com/nature/for-authors/formatting-guide):
    # panels labelled with lowercase bold letters (a, b, c).
    "nature": Preset(
        name="nature", title="Nature",
        widths={"single": "89mm", "double": "183mm"},
        min_font_pt=5.0, min_ppi=300.0, max_height="170mm", label=BOLD_LOWER,
        source="Nature Research figure guide: 'Building and exporting figure panels', "
               "'Preparing figures - our specifications'; Nature formatting guide"),
    # Science, "Preparing Your Art and Figures" (revised manuscripts,
    # sciencemag.org/site/feature/contribinfo/prep/prep_revfigs.xhtml): figures
    # sized to 1, 2 or 3 columns, 5.5 cm, 12 cm and 18.3 cm wide; "Raster line art
    # should have a minimum resolution of 600 dots per inch (dpi) and, preferably,
    # should have a resolution of 1200 dpi. Grayscale and color artwork should have
    # a minimum resolution of 400 dpi" (so a PNG or TIFF of the figure, text and
    # lines drawn as pixels, at least 600 dpi: min_output_dpi; photographs in it at
    # least 400 ppi: min_ppi); panels labelled with bold capital letters (A, B, C).
    # The page states no minimum font size, no maximum height and no file size.
    # Re-check: that page is science.org's archived one; a 2026 summary of the
    # current science.org "Instructions for preparing a revised manuscript" page
    # (K-Dense-AI/scientific-agent-skills, references/journal_requirements.md) says
    # "at least 300 dpi" there; the current page itself was not in the stored copies.
    "science": Preset(
        name="science", title="Science",
        widths={"single": "55mm", "double": "120mm", "triple": "183mm"},
        min_font_pt=None, min_ppi=400.0, max_height=None, label=BOLD_UPPER,
        min_output_dpi=600.0,
        source="Science: 'Preparing Your Art and Figures' (revised manuscripts)"),
    # Cell Press, "Figure guidelines" (cell.com/information-for-authors/figure-guidelines):
    # 85 mm (1 column), 114 mm (1.5 columns), 174 mm (full width); text at least
    # 6 pt at final size; color/grayscale images at least 300 dpi; panels labelled
    # with bold capital letters (A, B, C); "Maximum individual file size: 20 MB"
    # for final figures. Re-check: no stored copy of the Cell page itself was found
    # when the file-size limit was added; it is as two copies of the page state it
    # (K-Dense-AI/scientific-agent-skills references/journal_requirements.md, read
    # from the page on 2026-07-23; figureguild.com/journals/cell: "Maximum file
    # size: 20 MB per figure"). The same summary gives a recommended overall
    # maximum of 16.5 x 20 cm, narrower than the page's own 17.4 cm width: not held
    # here (max_height None) until the page is read again.
    "cell": Preset(
        name="cell", title="Cell",
        widths={"single": "85mm", "onehalf": "114mm", "double": "174mm"},
        min_font_pt=6.0, min_ppi=300.0, max_height=None, label=BOLD_UPPER,
        max_file_mb=20.0,
        source="Cell Press: 'Figure guidelines'"),
    # PNAS, "Digital Art Guidelines" (pnas.org author center): 1 column 8.7 cm
    # (3.42 in), 1.5 columns 11.4 cm (4.5 in), 2 columns 17.8 cm (7 in); text 6 to
    # 8 pt at final size; halftones at least 300 ppi; panels labelled with capital
    # letters (A, B, C).
    # Alt text: PNAS publishes alt text with every figure from volume 123 (2026) on, written by the
    # authors at submission (composer issue #24, "Why", citing the PNAS author center,
    # pnas.org/author-center/submitting-your-manuscript; that page was not among the stored copies
    # when this was written: re-check it). No other preset's source asks for alt text.
    "pnas": Preset(
        name="pnas", title="PNAS",
        widths={"single": "87mm", "onehalf": "114mm", "double": "178mm"},
        min_font_pt=6.0, min_ppi=300.0, max_height=None, label=BOLD_UPPER,
        source="PNAS: 'Digital Art Guidelines'; PNAS author center (alt text from volume 123)",
        requires_alt=True),
    # IEEE Author Center, "Size Requirements for Graphics"
    # (ieeeauthorcenter.ieee.org/.../size-requirements-for-graphics/): "one column
    # width (3.5 inches, 88.9 millimeters, or 21 picas) or two columns width
    # (7.16 inches, 182 millimeters, or 43 picas wide)".
    # IEEE "Guidelines for Author Supplied Electronic Text and Graphics": parts of a
    # figure are called out "(a), (b), (c)", "in a Times Roman font with a
    # consistent 8-point size" (taken here as the smallest text size); "The maximum
    # depth of a graphic is 9 inches or 54 picas".
    # IEEE Author Center, "Resolution and Size"
    # (journals.ieeeauthorcenter.ieee.org/create-your-ieee-journal-article/create-graphics-for-your-article/
    # resolution-and-size/): "IEEE standards for non-vector graphics for color and grayscale images are
    # >300dpi. IEEE standards for black and white line art are >600dpi" (read as at least: 300 ppi for
    # photographs in the figure, 600 dpi for the figure drawn as pixels, a PNG or TIFF of text and lines).
    "ieee": Preset(
        name="ieee", title="IEEE Transactions and Journals",
        widths={"single": "3.5in", "double": "7.16in"},
        min_font_pt=8.0, min_ppi=300.0, max_height="9in", label=PARENS_LOWER,
        min_output_dpi=600.0,
        # IEEE PDF eXpress (the PDF check IEEE conferences and journals run on submissions) flags Type 3
        # fonts, as authors report with matplotlib's default PDFs (matplotlib issues #30568, "rejected by
        # some publishers", and #28521; composer issue #24): refuses_type3
        refuses_type3=True,
        source="IEEE Author Center: 'Size Requirements for Graphics', 'Resolution and Size'; IEEE "
               "'Guidelines for Author Supplied Electronic Text and Graphics'; IEEE PDF eXpress (Type 3 fonts)"),
    # NeurIPS style file (neurips_2023.sty, the conference's LaTeX template):
    # \newgeometry{textheight=9in, textwidth=5.5in, ...}. The formatting
    # instructions ask for legible figures but give no font size or label style.
    "neurips": Preset(
        name="neurips", title="NeurIPS",
        widths={"text": "5.5in"},
        min_font_pt=None, min_ppi=None, max_height=None, label=None,
        source="NeurIPS LaTeX style file neurips_2023.sty (textwidth=5.5in)"),
    # ICML style file (icml2025.sty, the conference's LaTeX template):
    # \setlength\textwidth{6.75in}, \setlength\columnsep{0.25in}; two columns, so a
    # column is (6.75 in - 0.25 in) / 2 = 3.25 in. No font size or label style given.
    # ICML 2025 Author Instructions (icml.cc/Conferences/2025/AuthorInstructions):
    # "The submission PDF has a maximum size of 50MB while the camera ready version
    # will be limited to 20MB": the whole paper's limit, so no figure file can be
    # larger (max_file_mb; a figure near it leaves nothing for the rest).
    "icml": Preset(
        name="icml", title="ICML",
        widths={"single": "3.25in", "double": "6.75in"},
        min_font_pt=None, min_ppi=None, max_height=None, label=None,
        max_file_mb=20.0,
        # ICML's paper checker (papercheck.icml.cc/papercheck.html) rejects Type 3 fonts
        # (wiseodd/pub-ready-plots #32 turned pdf.fonttype = 42 on for it; matplotlib #30568, #28521)
        refuses_type3=True,
        source="ICML LaTeX style file icml2025.sty (textwidth 6.75in, columnsep 0.25in); "
               "ICML 2025 Author Instructions (camera-ready PDF at most 20MB); ICML paper checker (Type 3 fonts)"),
    # PLOS, "Figures" (journals.plos.org/plosmedicine/s/figures, the same page for
    # every PLOS journal; read as stored): "Width: 789 - 2250 pixels (at 300 dpi).
    # Height maximum: 2625 pixels (at 300 dpi)", in inches "Minimum width 2.63",
    # "Maximum width 7.5", "Height maximum 8.75"; "300 - 600 dpi"; "File Size <10 MB";
    # "Text within Figures: Arial, Times, or Symbol font only in 8-12 point";
    # "File Format: TIFF or EPS only". PLOS's own figure check, PACE
    # (pace.apexcovantage.com/Home/Guidelines, "PLOS Figure Requirements Assessed by
    # PACE"): "File compression (TIFF) LZW compressed", "Alpha Channels (TIFF) No
    # alpha channels", the same dimensions and "Resolution 300-600 PPI". PLOS
    # prescribes no column widths (a figure between the minimum and the maximum)
    # and no panel-label style beyond a letter; the 8 pt smallest text is also the
    # default text size a plos layout gets.
    "plos": Preset(
        name="plos", title="PLOS",
        widths={"min": "2.63in", "max": "7.5in"},
        min_font_pt=8.0, min_ppi=300.0, max_height="8.75in", label=None,
        min_width="2.63in", max_font_pt=12.0, fonts=("Arial", "Times", "Symbol"), formats=("tiff", "eps"),
        tiff_compression="lzw", tiff_alpha=False, min_output_dpi=300.0, max_output_dpi=600.0,
        max_file_mb=10.0,
        source="PLOS: 'Figures' (journals.plos.org/<journal>/s/figures); PACE: 'PLOS Figure Requirements "
               "Assessed by PACE'"),
    # eLife: its author guide for reviewed preprints (submit.elifesciences.org, as
    # stored) states no figure width, text size, resolution or file size; its LaTeX
    # class elife.cls (v1.11, 2022/06/01, the template eLife names) sets the page:
    # letterpaper (8.5 in), geometry left=6cm, right=1.3cm, so the text column is
    # 215.9 - 60 - 13 = 142.9 mm, and its fullwidth environment widens a figure by
    # 4.5 cm into the margin, 187.9 mm. Only those widths: nothing else is checked.
    "elife": Preset(
        name="elife", title="eLife",
        widths={"text": "142.9mm", "full": "187.9mm"},
        min_font_pt=None, min_ppi=None, max_height=None, label=None,
        source="eLife LaTeX class elife.cls v1.11 (letterpaper, left=6cm, right=1.3cm, fullwidth +4.5cm)"),
}

def auto_label(style: str, index: int) -> str:
    """The ``index``-th (0-based) automatic panel label of ``[figure] labels = style``.

    Letters count like spreadsheet columns (bijective base 26): a ... z, aa,
    ab ... az, ba ... zz, aaa; ``"A"`` the same in capitals. ``"i"`` styles are
    lower-case roman numerals (i, ii, iii, iv ... ix, x, xl, xc, cd, cm: the
    subtractive form, as LaTeX's ``\\roman`` counter writes them); ``"1"``
    counts from 1. The style's punctuation wraps the count: ``"(a)"`` -> ``(b)``,
    ``"a)"`` -> ``b)``, ``"(i)"`` -> ``(ii)``.

    Raises:
        ValueError: ``style`` is not one of :data:`composer.layout.vocabulary.LABEL_STYLES`
            or ``index`` is negative (a bug: the loader checks both).
    """
    if index < 0:
        raise ValueError(f"label index {index} is negative")
    n = index + 1
    core = style.strip("()")
    if core in ("a", "A"):
        letters = ""
        while n:
            n, rest = divmod(n - 1, 26)
            letters = chr(ord(core) + rest) + letters
        count = letters
    elif core == "i":
        count = ""
        for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                               (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
            times, n = divmod(n, value)
            count += numeral * times
    elif core == "1":
        count = str(n)
    else:
        raise ValueError(f"{style!r} is not a label style")
    if style not in (core, f"({core})", f"{core})"):
        raise ValueError(f"{style!r} is not a label style")
    return style.replace(core, count)


_CHOICES = ", ".join(repr(n) for n in PRESETS)


def get_preset(name: object, *, file: str | None = None, key: str | None = None) -> Preset:
    """The preset called ``name``.

    Raises:
        LayoutError: unknown name; lists the presets.
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise LayoutError(f"{name!r} is not a known preset; presets are {_CHOICES}", file=file, key=key)
    return PRESETS[name]


def is_width_name(value: object) -> bool:
    """True for ``"journal.width"`` strings (``"nature.double"``), not lengths."""
    if not isinstance(value, str) or "." not in value:
        return False
    journal, _, width = value.partition(".")
    return journal.isalpha() and width.isidentifier()


def named_width(value: str, *, file: str | None = None, key: str | None = None) -> str:
    """``"nature.double"`` -> ``"183mm"`` (the length as the journal states it).

    Raises:
        LayoutError: unknown journal (lists the presets) or width (lists the
            journal's widths).
    """
    journal, _, width = value.partition(".")
    if journal not in PRESETS:
        raise LayoutError(f"{value!r} names unknown journal {journal!r}; journals are {_CHOICES}",
                          file=file, key=key)
    widths = PRESETS[journal].widths
    if width not in widths:
        valid = ", ".join(f"{journal}.{w!s} ({length})" for w, length in widths.items())
        raise LayoutError(f"{value!r} is not a width of {PRESETS[journal].title}; valid widths are {valid}",
                          file=file, key=key)
    return widths[width]
