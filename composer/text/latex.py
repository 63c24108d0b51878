"""Canvas text written in LaTeX: typeset by TeX (``latex`` -> DVI), outlined by ``dvisvgm --no-fonts``.

A text whose style says ``math = "latex"`` (``[figure] math``, or a text's, shape's ``text_math`` or
arrow's ``label_math``) is handed to a TeX installation instead of matplotlib's mathtext: the whole
string is LaTeX in text mode (``$...$`` for math, as in a document), one TeX box per line of the text
(composer's ``\\n``). mathtext stays the default, and needs nothing installed.

How a text is made, in one ``latex`` run and one ``dvisvgm`` run (about 0.1 s of CPU each, most of it
starting up; the typeset stage hands every LaTeX text of a figure that its text cache lacks to
:func:`prepare`, so a figure's texts share one run of each; the result is kept in the build's text
cache, :class:`composer.incremental.cache.TextCache`, keyed by the text, its style and the versions of
both programs, :func:`toolchain`):

1. A document (:func:`document`) sets every line in an ``\\hbox`` at the style's font size -- composer's
   pt is the PostScript point (1/72 in), TeX's is 1/72.27 in, so a 7 pt text is ``\\fontsize{7.026}``
   in TeX's points -- with ``fix-cm`` so Computer Modern scales to any size instead of the nearest
   design size (``amsmath`` and ``amssymb`` are loaded), and ships each box out as a page of its own:
   the box's top-left corner is the DVI origin, which dvisvgm writes as (0, 0), its baseline ``\\ht``
   below it. Each box's width, height and depth are written to the log (``\\typeout``), where
   :func:`run_tex` reads them.
2. ``dvisvgm --no-fonts --no-specials --exact-bbox`` (no ``\\special`` is run: PostScript, raw SVG
   and images are left out) writes each page as SVG with every glyph an outline (so the SVG,
   PDF and PNG draw the same glyphs, no font embedded) in PostScript points; :func:`page_outline` moves
   every glyph (``<use>``; a glyph of a font used at several sizes is itself a scaled ``<use>`` in
   ``<defs>``) and rule (``<rect>``: fraction bars, roots) to the line's baseline-left
   origin, y down, as one ``d``, written by composer (so dvisvgm's version comment and glyph ids never
   reach the output: same text, same bytes).
3. The line's ascent and descent are the larger of TeX's box and the glyphs' exact extent (ink that a
   box leaves out, such as a large operator's limits, still fits), and never below a plain text's
   (:data:`composer.text.metrics.MIN_ASCENT`, ``MIN_DESCENT``), so a LaTeX text's first baseline is
   where a plain text of the same size has it, at the text's anchor.

Fonts: TeX's Computer Modern, the font of LaTeX documents, unless the style's font is one a TeX
installation carries with its own LaTeX package (:data:`TEX_FONTS`: Latin Modern, Times, Helvetica,
found with ``kpsewhich``); DejaVu Sans, composer's default, is not among them, so a default figure's
LaTeX is in Computer Modern. The text's colour and opacity are the style's (applied by the draw
stage to the outline), its ``weight = "bold"`` is ``\\bfseries`` and ``style = "italic"`` ``\\itshape``.

Errors: a LaTeX error is a :class:`LatexError` (a ValueError: the typeset stage adds file and key)
with TeX's own message and the line of the text it is in, up to where TeX stopped; missing programs
are a :class:`LatexMissing` naming what to install.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lxml import etree

from composer.layout.model import TextStyle
from composer.svg.transform import Matrix, apply, multiply, parse_transform, translation
from composer.units import fmt

#: TeX points per PostScript point (TeX: 72.27 pt = 1 in; PostScript and composer: 72 pt = 1 in).
TEX_PT_PER_PT = 72.27 / 72.0
#: the programs, and the Debian packages that have them (texlive-latex-base: latex and the LaTeX
#: format; Computer Modern's Type 1 outlines come with its dependency texlive-base).
PROGRAMS = ("latex", "dvisvgm")
INSTALL_HINT = "apt-get install texlive-latex-base dvisvgm (Debian, Ubuntu), or TeX Live with dvisvgm"
#: seconds a TeX or dvisvgm run may take before it is stopped (a runaway macro loops for ever; a figure's
#: texts take well under a second).
TIMEOUT_S = 20.0

#: font families a TeX installation may carry -> (the preamble that selects them, a file that shows they
#: are installed). Matched case-insensitively against the first family of the style's font.
TEX_FONTS: dict[str, tuple[str, str]] = {
    "computer modern": ("", "cmr10.tfm"),
    "latin modern": ("\\usepackage{lmodern}\\usepackage[T1]{fontenc}", "lmodern.sty"),
    "latin modern roman": ("\\usepackage{lmodern}\\usepackage[T1]{fontenc}", "lmodern.sty"),
    "times": ("\\usepackage{mathptmx}", "ptmr7t.tfm"),
    "nimbus roman": ("\\usepackage{mathptmx}", "ptmr7t.tfm"),
    "helvetica": ("\\usepackage{helvet}\\renewcommand{\\familydefault}{\\sfdefault}", "phvr7t.tfm"),
    "nimbus sans": ("\\usepackage{helvet}\\renewcommand{\\familydefault}{\\sfdefault}", "phvr7t.tfm"),
}

_FONT_ARGS = re.compile(r"\{[\d.]+\}\{(?:\\bfseries)?(?:\\itshape)?\} ")
_BOX = re.compile(r"^COMPOSER-BOX (\d+) ([-\d.]+)pt ([-\d.]+)pt ([-\d.]+)pt$", re.M)
_PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "Z": 0}
_SVG = "{http://www.w3.org/2000/svg}"
_XLINK = "{http://www.w3.org/1999/xlink}href"


class LatexMissing(ValueError):
    """``latex`` or ``dvisvgm`` is not on PATH; the message names what to install."""


class LatexError(ValueError):
    """TeX refused the text: its message and the offending line of the text (see :func:`run_tex`)."""


@dataclass(frozen=True)
class LatexLine:
    """One line of LaTeX text, typeset (pt, from its baseline-left origin, y down).

    Attributes:
        d: the outline of every glyph and rule (SVG path data, absolute M/L/C/Q/Z), ``""`` for an empty line.
        width_pt: TeX's width of the line's box.
        ascent_pt, descent_pt: the larger of TeX's height (depth) and the outline's extent above
            (below) the baseline; 0 for an empty line (the caller applies a plain line's minimum).
    """

    d: str
    width_pt: float
    ascent_pt: float
    descent_pt: float


def missing_programs() -> list[str]:
    """The programs of :data:`PROGRAMS` that are not on PATH (looked up on every call: PATH may change)."""
    return [p for p in PROGRAMS if shutil.which(p) is None]


def require_tools() -> None:
    """Raises:
        LatexMissing: a program is missing; one line naming it and what to install."""
    missing = missing_programs()
    if missing:
        raise LatexMissing(f'math = "latex" needs {" and ".join(PROGRAMS)}, and {" and ".join(missing)} '
                           f"{'is' if len(missing) == 1 else 'are'} not installed: {INSTALL_HINT}; "
                           'math = "mathtext" (the default) needs nothing')


@cache
def toolchain(path: str | None = None) -> str:
    """A digest of the TeX installation a LaTeX text is made with: the first line of ``latex --version``
    and ``dvisvgm --version`` and the path of each program (``path``: the PATH it is looked up in,
    part of the cache key of :func:`functools.cache`). ``""`` when a program is missing."""
    found = [shutil.which(p, path=path) for p in PROGRAMS]
    if None in found:
        return ""
    lines = []
    for program in found:
        assert program is not None
        out = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=TIMEOUT_S,
                             check=False).stdout
        lines.append(f"{program} {out.splitlines()[0] if out else ''}")
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


@cache
def _has_tex_file(name: str) -> bool:
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    out = subprocess.run([kpsewhich, name], capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    return bool(out.stdout.strip())


def font_preamble(font: str) -> str:
    """The LaTeX preamble lines that select ``font``'s first family when TeX has it (:data:`TEX_FONTS`),
    else ``""``: Computer Modern, LaTeX's own."""
    first = font.split(",")[0].strip().strip("'\"").casefold()
    preamble, probe = TEX_FONTS.get(first, ("", ""))
    return preamble if preamble and _has_tex_file(probe) else ""


def document(texts: list[tuple[list[str], TextStyle]]) -> str:
    """The LaTeX document that typesets each line of every text (its lines and style; all of one font
    preamble, :func:`font_preamble`) as a page of its own (see the module docstring); the ``k``-th line of
    the document's texts (from 1) is on line ``FIRST_LINE + 2 (k - 1)`` of the document, its box closed on
    the next (a ``%`` in the text comments out only the rest of its own line); U+2212 is :data:`MINUS`."""
    head = [
        "\\documentclass{article}",
        "\\usepackage{fix-cm}\\usepackage{amsmath,amssymb}",
        font_preamble(texts[0][1].font),
        "\\pagestyle{empty}",
        "\\newcommand{\\composerfont}[3]{\\fontsize{#1}{#2}\\selectfont#3\\ignorespaces}",
        "\\newcommand{\\composerout}[1]{\\typeout{COMPOSER-BOX #1 \\the\\wd0 \\space\\the\\ht0 \\space\\the\\dp0}%",
        "\\shipout\\box0}",
        "\\begin{document}",
    ]
    assert len(head) + 1 == FIRST_LINE
    body: list[str] = []
    for lines, style in texts:
        size = style.size_pt * TEX_PT_PER_PT
        shape = ("\\bfseries" if style.weight == "bold" else "") + ("\\itshape" if style.style == "italic" else "")
        for line in lines:
            line = line.replace("\u2212", MINUS)
            body.append(f"{LINE_START}{{{size:.5f}}}{{{1.2 * size:.5f}}}{{{shape}}} {line}\n"
                        f"\\unskip}}\\composerout{{{len(body) + 1}}}")
    return "\n".join(head) + "\n" + "\n".join(body) + "\n\\end{document}\n"


#: what U+2212 (the minus sign composer fills negative numbers with, as matplotlib's tick labels have it,
#: :func:`composer.stages.typeset.fill_text`) is written as: LaTeX's minus, in text and in math alike
MINUS = "\\ensuremath{-}"
#: the document line of the text's first line (:func:`document`); each line of the text takes two
FIRST_LINE = 9
#: what the document writes before each line of the text (then the size, the baseline skip, the shape)
LINE_START = "\\setbox0=\\hbox{\\composerfont"

#: LaTeX texts typeset ahead by :func:`prepare`, by (text, style), taken by :func:`typeset_lines`
_PREPARED: dict[tuple[str, TextStyle], list[LatexLine]] = {}


def typeset_lines(text: str, style: TextStyle) -> list[LatexLine]:
    """Typeset every line (split on ``\\n``) of the LaTeX ``text`` in ``style`` (size, font, weight, style);
    taken from :func:`prepare` when it typeset the text ahead.

    Raises:
        LatexMissing: latex or dvisvgm is not installed.
        LatexError: TeX stopped at an error in the text (its message and the text's line).
    """
    ready = _PREPARED.pop((text, style), None)
    if ready is not None:
        return ready
    require_tools()
    return _typeset([(text.split("\n"), style)])[0]


def prepare(items: list[tuple[str, TextStyle]]) -> None:
    """Typeset the LaTeX texts ``items`` (text, style) ahead, in one TeX and one dvisvgm run per font preamble
    instead of one per text (a figure's equations: a TeX run starts in some 0.1 s of CPU, a line takes far
    less), for :func:`typeset_lines` to take. Best effort: with fewer than two texts, missing programs, or an
    error in any of them, nothing is prepared, and each text is typeset (and its error raised) on its own."""
    _PREPARED.clear()
    todo = list(dict.fromkeys(items))
    if len(todo) < 2 or missing_programs():
        return
    groups: dict[str, list[tuple[str, TextStyle]]] = {}
    for text, style in todo:
        groups.setdefault(font_preamble(style.font), []).append((text, style))
    for group in groups.values():
        try:
            done = _typeset([(text.split("\n"), style) for text, style in group])
        except (LatexError, subprocess.SubprocessError, OSError):
            continue
        _PREPARED.update(zip(group, done, strict=True))


def _typeset(texts: list[tuple[list[str], TextStyle]]) -> list[list[LatexLine]]:
    """Every text's lines typeset (:func:`document`, one latex and one dvisvgm run); raises as :func:`run_tex`."""
    lines = [line for text_lines, _ in texts for line in text_lines]
    with tempfile.TemporaryDirectory(prefix="composer-latex-") as tmp:
        folder = Path(tmp)
        boxes = run_tex(document(texts), folder, lines)
        try:
            converted = subprocess.run(["dvisvgm", "--no-fonts", "--no-specials", "--exact-bbox", "--page=1-",
                                        "--output=page-%p.svg", "--verbosity=1", "text.dvi"], cwd=folder,
                                       capture_output=True, timeout=TIMEOUT_S, check=False, env=_env())
        except subprocess.TimeoutExpired:
            raise LatexError(f"dvisvgm did not finish within {TIMEOUT_S:g} s") from None
        if converted.returncode != 0:
            said = converted.stderr.decode("utf-8", "replace").strip().splitlines()
            raise LatexError(f"dvisvgm failed: {said[-1] if said else f'exit status {converted.returncode}'}")
        pages = sorted(folder.glob("page-*.svg"), key=lambda p: int(p.stem.split("-")[1]))
        if len(pages) != len(lines):
            raise LatexError(f"dvisvgm wrote {len(pages)} pages for {len(lines)} lines of LaTeX")
        typeset = []
        for (width_tpt, height_tpt, depth_tpt), page in zip(boxes, pages, strict=True):
            baseline = height_tpt / TEX_PT_PER_PT
            d, top, bottom = page_outline(page.read_bytes(), baseline)
            typeset.append(LatexLine(d, width_tpt / TEX_PT_PER_PT, max(baseline, -top) if d else baseline,
                                     max(depth_tpt / TEX_PT_PER_PT, bottom) if d else depth_tpt / TEX_PT_PER_PT))
    out, start = [], 0
    for text_lines, _ in texts:
        out.append(typeset[start:start + len(text_lines)])
        start += len(text_lines)
    return out


def _env() -> dict[str, str]:
    """The environment of TeX's runs. A layout is untrusted input (docs/guide/hostile.md), and LaTeX can
    read and write files: kpathsea's ``openin_any`` and ``openout_any`` are ``p`` (paranoid: no absolute
    path, no ``..``, no dot file; TeX's own files are still found by name), so a text can read nothing
    but TeX's files and write only into its own temporary folder, and ``shell_escape`` is off (as
    ``-no-shell-escape``). The log's lines are not wrapped (``max_print_line``), and an error's context
    is as long as TeX allows (``error_line``), so an error reads whole. No TEXINPUTS or TEXMF of the
    user's: a stray ``.sty`` could change the text."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("TEXINPUTS", "TEXMF", "OPENIN", "OPENOUT",
                                                                            "SHELL_ESCAPE"))}
    env.update(openin_any="p", openout_any="p", shell_escape="f", SOURCE_DATE_EPOCH="0",
               max_print_line="10000", error_line="254", half_error_line="238")  # unwrapped log lines
    return env


def run_tex(source: str, folder: Path, lines: list[str]) -> list[tuple[float, float, float]]:
    """Run ``latex`` on ``source`` in ``folder`` (writes ``text.dvi``); each line's box as
    ``(width, height, depth)`` in TeX points, read from the log.

    Raises:
        LatexError: TeX stopped: its error message (the log's ``!`` line), the line of the text
            (``lines``, from 1) and the text up to where TeX stopped (its ``l.N`` line); or it ran
            longer than :data:`TIMEOUT_S`, or set other boxes than the lines'.
    """
    (folder / "text.tex").write_text(source, encoding="utf-8")
    try:
        done = subprocess.run(["latex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "text.tex"],
                              cwd=folder, capture_output=True, timeout=TIMEOUT_S, check=False, env=_env())
    except subprocess.TimeoutExpired:
        raise LatexError(f"TeX did not finish within {TIMEOUT_S:g} s (a macro that expands for ever?)") from None
    log = (folder / "text.log").read_text(encoding="utf-8", errors="replace") if (folder / "text.log").exists() \
        else done.stdout.decode("utf-8", "replace")
    if done.returncode != 0 or not (folder / "text.dvi").exists():
        raise LatexError(tex_error(log, lines))
    boxes = {int(m.group(1)): (float(m.group(2)), float(m.group(3)), float(m.group(4)))
             for m in _BOX.finditer(log)}
    if set(boxes) != set(range(1, len(lines) + 1)):  # the text shipped out pages or boxes of its own
        raise LatexError(f"TeX set {len(boxes)} boxes for {len(lines)} lines of text")
    return [boxes[n] for n in range(1, len(lines) + 1)]


def tex_error(log: str, lines: list[str]) -> str:
    """One line from a failed TeX run's log: ``LaTeX error: MESSAGE TeX stopped after "..."`` (with
    ``in line N ("LINE")`` for a text of several lines; both as written, backslashes single); TeX's
    ``l.N`` context gives the line and where TeX stopped in it."""
    rows = log.splitlines()
    start = next((k for k, r in enumerate(rows) if r.startswith("!")), None)
    message = "TeX stopped without a message"
    if start is not None:  # the "!" line and what continues it ("(inputenc) not set up for use with LaTeX.")
        said = [rows[start][1:].strip()]
        for row in rows[start + 1:start + 4] if said[0].startswith(("LaTeX Error", "Package ")) else ():
            if not row.strip() or row.startswith(("See the ", "Type ", "l.", "?", "...")):
                break
            said.append(row.strip())
        message = " ".join(said)
    at = next((m for r in rows if (m := re.match(r"^l\.(\d+) (.*)$", r))), None)
    if at is None:
        return f"LaTeX error: {message}"
    n = (int(at.group(1)) - FIRST_LINE) // 2 + 1
    stopped = at.group(2).strip()
    font = _FONT_ARGS.search(stopped)  # TeX shows the line's end only, after "..." when it is long
    if font is not None:
        stopped = stopped[font.end():]
    where = (f'TeX stopped after "{stopped}"' if not stopped.startswith(("\\unskip", "\\end{document}"))
             else "TeX stopped at the end of the text (an unclosed $ or {?)")
    if len(lines) > 1 and 1 <= n <= len(lines):
        return f'LaTeX error in line {n} ("{lines[n - 1]}"): {message} {where}'
    return f'LaTeX error: {message} {where}'


def page_outline(svg: bytes, baseline_pt: float) -> tuple[str, float, float]:
    """One dvisvgm page (``--no-fonts``: glyphs as ``<path>`` in ``<defs>``, placed by ``<use>``; rules as
    ``<rect>``) as ``(d, top, bottom)``: every glyph and rule as one path ``d`` in pt from the line's
    baseline-left origin (the page's origin is the box's top-left, its baseline ``baseline_pt`` below),
    y down, and the outline's extent above (``top``, negative above the baseline) and below the baseline."""
    root = etree.fromstring(svg, etree.XMLParser(resolve_entities=False, no_network=True))
    defined = {el.get("id"): el for defs in root.iter(f"{_SVG}defs") for el in defs if el.get("id")}

    def glyph(ident: str, depth: int = 0) -> tuple[str, Matrix] | None:
        """A defined glyph's outline and the transform onto its ``<use>``: a ``<path>``, or (for a font
        used at several sizes) a ``<use>`` in ``<defs>`` of another glyph, scaled."""
        el = defined.get(ident)
        if el is None or depth > 8:
            return None
        if el.tag == f"{_SVG}path":
            return el.get("d", ""), (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
        if el.tag == f"{_SVG}use":
            inner = glyph((el.get(_XLINK) or el.get("href") or "").lstrip("#"), depth + 1)
            if inner is not None:
                own = multiply(parse_transform(el.get("transform")),
                               translation(float(el.get("x", "0")), float(el.get("y", "0"))))
                return inner[0], multiply(own, inner[1])
        return None

    pieces: list[str] = []
    ys: list[float] = []
    page = next((g for g in root.iter(f"{_SVG}g") if (g.get("id") or "").startswith("page")), root)

    def walk(el: etree._Element, m: Matrix) -> None:
        m = multiply(m, parse_transform(el.get("transform")))
        tag = el.tag if isinstance(el.tag, str) else ""
        if tag == f"{_SVG}use":
            ref = (el.get(_XLINK) or el.get("href") or "").lstrip("#")
            placed = multiply(m, translation(float(el.get("x", "0")), float(el.get("y", "0"))))
            found = glyph(ref)
            if found is not None and found[0]:
                pieces.append(_absolute_d(found[0], multiply(placed, found[1]), ys))
        elif tag == f"{_SVG}rect":
            x, y = float(el.get("x", "0")), float(el.get("y", "0"))
            w, h = float(el.get("width", "0")), float(el.get("height", "0"))
            pieces.append(_absolute_d(f"M{x} {y}H{x + w}V{y + h}H{x}Z", m, ys))
        elif tag == f"{_SVG}path" and el.getparent() is not None and el.getparent().tag != f"{_SVG}defs":
            pieces.append(_absolute_d(el.get("d", ""), m, ys))
        for child in el:
            walk(child, m)

    walk(page, translation(0.0, -baseline_pt))
    d = " ".join(p for p in pieces if p)
    return d, (min(ys) if ys else 0.0), (max(ys) if ys else 0.0)


def _absolute_d(d: str, m: Matrix, ys: list[float]) -> str:
    """Path data ``d`` (any of M L H V C S Q T Z, absolute or relative) mapped by ``m``, written as absolute
    M/L/C/Q/Z with :func:`composer.units.fmt` coordinates; the y of every point written is added to ``ys``
    (control points included: the hull of a curve contains it, and a glyph's extremes are on-curve points
    in Type 1 outlines, so this is the outline's extent)."""
    tokens = _PATH_TOKEN.findall(d)
    out: list[str] = []
    x = y = sx = sy = 0.0
    last_ctrl: tuple[float, float] | None = None
    last_cmd = ""
    i, cmd = 0, ""

    def put(letter: str, pts: list[tuple[float, float]]) -> None:
        written = [(fmt(px), fmt(py)) for px, py in (apply(m, px, py) for px, py in pts)]
        ys.extend(float(py) for _, py in written)  # as written: the same outline, the same extent
        out.append(letter + " ".join(f"{px} {py}" for px, py in written))

    while i < len(tokens):
        if tokens[i].isalpha():
            cmd = tokens[i]
            i += 1
            if cmd in "Zz":
                out.append("Z")
                x, y = sx, sy
                last_cmd, last_ctrl = "Z", None
                continue
        if not cmd or cmd in "Zz":
            i += 1
            continue
        up, rel = cmd.upper(), cmd.islower()
        n = _ARGS[up]
        v = [float(t) for t in tokens[i:i + n]]
        if len(v) < n:
            break
        i += n
        if up == "H":
            v, up = [v[0] + (x if rel else 0.0), y], "L"
            rel = False
        elif up == "V":
            v, up = [x, v[0] + (y if rel else 0.0)], "L"
            rel = False
        pts = [(x + v[k], y + v[k + 1]) if rel else (v[k], v[k + 1]) for k in range(0, len(v), 2)]
        if up in ("S", "T"):
            reflect = (2 * x - last_ctrl[0], 2 * y - last_ctrl[1]) if last_ctrl and last_cmd in (
                ("C", "S") if up == "S" else ("Q", "T")) else (x, y)
            pts = [reflect, *pts]
            up = "C" if up == "S" else "Q"
        if up == "M":
            put("M", pts)
            sx, sy = pts[0]
            cmd = "l" if rel else "L"
        else:
            put(up, pts)
        last_ctrl = pts[-2] if up in ("C", "Q") else None
        last_cmd = up
        x, y = pts[-1]
    return "".join(out)
