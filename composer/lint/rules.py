"""Check stage: lint the final figure for print (``compose check NAME``).

The check measures the composed SVG, not the layout: :mod:`composer.svg.measure`
walks the canvas accumulating every transform, so every size below is the
size on paper. It adds what only the model knows (element names, boxes,
connector ends) from the layout and the resolved geometry.

The rules, their levels and what each finds are declared once, in
:data:`composer.kinds.rules.RULES` (the loader reads the names for ``[check]
ignore``); :data:`RULES` here is its view, rule -> level. An error makes
``compose check`` exit 1. What is particular to each rule's measurement:
``overlap`` takes a text as the rectangle around its ink in its own frame
(:attr:`composer.svg.measure.TextRun.corners`), so neighbouring labels at 45
degrees whose axis-aligned extents overlap, but whose glyphs do not, are not
reported; ``outside-canvas`` shares its measurement with the build's warning
of clipped canvas text (:func:`clipped_text_warnings`).

Colour vision: deuteranopia, protanopia and tritanopia are simulated with the
model of Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model
for Simulation of Color Vision Deficiency", IEEE TVCG 15(6), at severity 100,
as implemented by colorspacious (``sRGB1+CVD``); distances are Euclidean in
CAM02-UCS (Luo, Cui & Li 2006, "Uniform colour spaces based on CIECAM02 colour
appearance model", Color Res. Appl. 31(4)), whose unit is scaled so that about
1 unit is a just-noticeable difference between large adjacent patches. Figure
colours are small marks and thin lines apart from each other, for which the
discriminable difference grows as the mark shrinks (Stone, Szafir & Setlur
2014, "An Engineering Model for Color Difference as a Function of Size"), so
composer asks for 10 units by default (``[check] cvd_min_distance``), and
reports a pair only if it is at least that far apart for normal vision: a pair
that is already close for everyone is a design choice, not a colour-vision
problem. The palette is the colours the canvas paints plus the colours of
panel artists with at most ``MAX_ARTIST_COLOURS`` colours (lines, markers,
bars, text); an artist with more, or a collection (``QuadMesh``,
``PathCollection``...) with more than a face and an edge colour, is a colour
map and is left out. Text colours are left out too: text is told apart by
reading it, and a colour that text shares with a line or a marker is already
in the palette through them. Colours drawn with opacity are taken as they
look on white.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from lxml import etree

from composer.errors import ImportFeature, LayoutError, did_you_mean
from composer.kinds.rules import LEVEL_OF
from composer.kinds.shapes import SHAPES
from composer.layout.model import CheckLimits, Figure
from composer.stages.geometry import Box, Geometry
from composer.stages.guides import guide_id
from composer.stages.named import Element, figure_elements
from composer.svg.geometry import BBox, overlap, union
from composer.svg.measure import Scene, TextRun, path_points, scene
from composer.units import PT_PER_UNIT, amount, say, say_pair

#: rule -> level: a live view of the declarations (:data:`composer.kinds.rules.RULES`)
RULES: Mapping[str, str] = LEVEL_OF

# Tolerances are composer's choices, not journal rules:
#: a connector end counts as touching an element within this distance (pt); ends are
#: resolved anchors, so a touching end is at distance 0 and anything past 1 pt is a gap
END_TOLERANCE_PT = 1.0
#: overlaps smaller than this in either direction are touching, not overlapping (pt);
#: outline extents are the hull of their control points, a little larger than the ink
OVERLAP_TOLERANCE_PT = 0.5
#: how far a drawing may pass the canvas edge before it is reported (pt): rounding only
EDGE_TOLERANCE_PT = 0.05
#: a panel artist painting more colours than this is a colour map, not a palette
MAX_ARTIST_COLOURS = 8
#: matplotlib collections, whose elements a colour map usually colours one by one
_COLLECTIONS = r"(QuadMesh|PolyCollection|Poly3DCollection|PathCollection|LineCollection|Line3DCollection|TriMesh)_\d+$"
#: colour-vision deficiencies simulated (colorspacious names, severity 100 = dichromacy)
CVD_TYPES = {"deuteranomaly": "deuteranopia", "protanomaly": "protanopia", "tritanomaly": "tritanopia"}


#: a piece of a finding's subject: words, or an element (shown by its name)
Part = str | Element


@dataclass(frozen=True)
class Finding:
    """One problem found.

    Attributes:
        rule: a key of :data:`RULES`; level: its level (``error``, ``warning``).
        subject: what it is about, as words and the elements they name
            (:class:`composer.stages.named.Element`: name, ``[check]`` key, kind and box in canvas pt),
            in the order written: ``(<panel rgb>, ": 3 texts ('0.5', …)")``, ``(<text title>, " / ",
            <arrow[1]>)``, ``(<arrow[0]>, " start")``, ``("#1f77b4 (", <panel a>, ") / #ff7f0e (", <panel b>,
            ")")``; a plain string is words alone (``"canvas"``, ``"figure.font"``). :attr:`element` is
            its text, :attr:`elements` its elements.
        problem: what is wrong, in words.
        measured, limit: the numbers compared (None when not a number), in ``unit``.
    """

    rule: str
    subject: tuple[Part, ...] | str
    problem: str
    measured: float | None = None
    limit: float | None = None
    unit: str = ""

    @property
    def level(self) -> str:
        return RULES[self.rule]

    @property
    def element(self) -> str:
        """The subject as text, each element by its name (``panel rgb: 3 texts ('0.5', …)``,
        ``text title / arrow[1]``): what the table and the JSON show."""
        return _text(self.subject)

    @property
    def elements(self) -> tuple[Element, ...]:
        """The elements the finding is about, each once, in the order the subject names them."""
        parts = (self.subject,) if isinstance(self.subject, str) else self.subject
        return tuple(dict.fromkeys(p for p in parts if isinstance(p, Element)))

    def as_dict(self) -> dict[str, Any]:
        """The finding as JSON data: ``rule``, ``level``, ``element`` (:attr:`element`), ``elements``
        (:meth:`composer.stages.named.Element.as_dict` of each: name, key, kind, ``box_pt``),
        ``problem``, ``measured``, ``limit``, ``unit``."""
        decimals = 3 + _DECIMALS.get(self.unit, 2) - 2  # 0.001 pt or mm, 0.00001 in or cm
        return {"rule": self.rule, "level": self.level, "element": self.element,
                "elements": [e.as_dict() for e in self.elements], "problem": self.problem,
                "measured": None if self.measured is None else round(self.measured, decimals),
                "limit": None if self.limit is None else round(self.limit, decimals), "unit": self.unit}


def _text(subject: tuple[Part, ...] | str) -> str:
    """A subject (:attr:`Finding.subject`) as text: its words, each element by its name."""
    if isinstance(subject, str):
        return subject
    return "".join(p if isinstance(p, str) else p.name for p in subject)


@dataclass(frozen=True)
class Report:
    """The result of checking one figure.

    Attributes:
        figure: its name; limits: what it was checked against.
        findings: sorted by level (errors first), rule, element.
        notes: what could not be checked, and why.
    """

    figure: str
    limits: CheckLimits
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.level == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error-level finding."""
        return not self.errors

    def summary(self) -> str:
        """One line: the figure, the counts and the limits used."""
        lim = self.limits
        counts = (f"{len(self.errors)} error{'s' * (len(self.errors) != 1)}, "
                  f"{len(self.warnings)} warning{'s' * (len(self.warnings) != 1)}")
        text = (f"text {_num(lim.min_font_pt)} to {_num(lim.max_font_pt)} pt" if lim.max_font_pt is not None
                else f"text >= {_num(lim.min_font_pt)} pt")
        return (f"compose check {self.figure}: {counts} (limits from {lim.source}: {text}, "
                f"lines >= {_num(lim.min_line_pt)} pt, rasters >= {_num(lim.min_ppi)} ppi, "
                f"colour distance >= {_num(lim.cvd_min_distance)} CAM02-UCS)")

    def table(self) -> str:
        """A readable table: level, rule, element, problem, measured, limit."""
        lines = [self.summary()]
        if self.findings:
            rows = [("level", "rule", "element", "problem", "measured", "limit")]
            rows += [(f.level, f.rule, f.element, f.problem, _quantity(f.measured, f.unit), _quantity(f.limit, f.unit))
                     for f in self.findings]
            caps = (7, 18, 60, 90, 16, 16)  # the element column is cut, with "…", past 60 characters
            widths = [min(max(len(r[i]) for r in rows), caps[i]) for i in range(len(rows[0]))]
            for row in rows:
                cells = [c if len(c) <= widths[i] or i != 2 else c[:widths[i] - 1] + "…" for i, c in enumerate(row)]
                lines.append("  ".join(c.ljust(widths[i]) for i, c in enumerate(cells)).rstrip())
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> str:
        """The report as JSON (deterministic key order)."""
        return json.dumps({
            "figure": self.figure,
            "ok": self.ok,
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "limits": {**dataclasses.asdict(self.limits),
                       "allow_overlap": [list(p) for p in self.limits.allow_overlap],
                       "ignore": {panel: list(rules) for panel, rules in self.limits.ignore}},
            "findings": [f.as_dict() for f in self.findings],
            "notes": list(self.notes),
        }, indent=2, ensure_ascii=False)


def _num(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


#: decimals of a measured length in the check's table and JSON, per unit: 0.01 pt, mm or px; in the
#: coarser cm and in, 0.0001 (a tolerance of 0.05 pt is 0.0007 in, which two decimals would show as 0)
_DECIMALS = {"cm": 4, "in": 4}


def _quantity(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    decimals = _DECIMALS.get(unit, 2)
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".") if abs(value) < 100 else f"{value:.0f}"
    return f"{text} {unit}".strip()


# ─── element names ────────────────────────────────────────────────────────

@dataclass(frozen=True)
class _Names:
    """Canvas element ids (as :func:`composer.stages.compose.compose` writes them) -> the figure's elements
    (:func:`composer.stages.named.figure_elements`: ``elements``, by name)."""

    figure: Figure
    elements: Mapping[str, Element]

    def of(self, top: str) -> tuple[Element, str]:
        """The element a canvas id belongs to, and words after its name (``""``; `` label`` for a
        connector's label): ``text-title`` is ``text title`` (key ``title``), ``panel-rgb`` ``panel rgb``,
        ``label-a`` ``a.label``, a guide's group or an element inside it (``legend-0--text_3``) the guide
        (``legend[0]``, or ``legend key`` for a guide named ``key``), ``arrow-1-label`` ``arrow[1]`` and
        `` label``; an unknown id is an element of no kind named as it is."""
        guide = self.guides().get(top.partition("--")[0])
        if guide is not None:
            return self.named(f"{guide.kind} {guide.name}" if guide.name else guide.key, guide.name or guide.key,
                              "guide"), ""
        kind, _, rest = top.partition("-")
        if kind == "panel":
            return self.named(f"panel {rest}", rest, kind), ""
        if kind in ("text", "shape"):
            rest = re.sub(r"-text$", "", rest)
            if rest.isdigit():
                return self.named(f"{kind}[{rest}]", f"{kind}[{rest}]", kind), ""
            return self.named(f"{kind} {rest}", rest, kind), ""
        if kind == "arrow" and rest.split("-")[0].isdigit():
            index = rest.split("-")[0]
            return self.named(f"arrow[{index}]", f"arrow[{index}]", kind), " label" if rest.endswith("-label") else ""
        if kind in ("label", "title"):
            return self.named(f"{rest}.{kind}", f"{rest}.{kind}", kind), ""
        return self.named(top, top, ""), ""

    def named(self, name: str, key: str | None = None, kind: str = "") -> Element:
        """The element of the figure called ``name`` (``panel rgb``, ``arrow[0]``); one that is not
        (an id the layout does not name) is an element without a box, ``key`` (else ``name``) and ``kind``."""
        found = self.elements.get(name)
        return found if found is not None else Element(name, name if key is None else key, kind)

    def display(self, top: str) -> str:
        """The name of the element of a canvas id as the check shows it (``arrow[1] label``)."""
        element, words = self.of(top)
        return element.name + words

    def guides(self) -> dict[str, Any]:
        """A guide's canvas id (:func:`composer.stages.guides.guide_id`) -> the guide."""
        return {guide_id(g, i): g for i, g in enumerate(self.figure.guides)}

    def keys(self) -> list[str]:
        """Every name ``allow_overlap`` may use."""
        f = self.figure
        keys = [p.name for p in f.panels]
        keys += [g.name or g.key for g in f.guides]
        keys += [t.name or f"text[{i}]" for i, t in enumerate(f.texts)]
        keys += [s.name or f"shape[{i}]" for i, s in enumerate(f.shapes)]
        keys += [f"arrow[{i}]" for i in range(len(f.arrows))]
        keys += [f"{p.name}.label" for p in f.panels if p.label] + [f"{p.name}.title" for p in f.panels if p.title]
        return keys


def _check_allowed(figure: Figure, names: _Names, file: str) -> set[frozenset[str]]:
    valid = names.keys()
    for i, pair in enumerate(figure.spec.check.allow_overlap):
        for name in pair:
            if name not in valid:
                raise LayoutError(f"{name!r} is not an element" + did_you_mean(name, valid)
                                  + f"; elements are {', '.join(valid) or '(none)'}",
                                  file=file, key=f"check.allow_overlap[{i}]")
    return {frozenset(p) for p in figure.spec.check.allow_overlap}


# ─── geometry helpers ─────────────────────────────────────────────────────

def _box(b: Box) -> BBox:
    return b.x_pt, b.y_pt, b.x_pt + b.width_pt, b.y_pt + b.height_pt


def _inside(inner: BBox, outer: BBox, tol: float) -> bool:
    return (inner[0] >= outer[0] - tol and inner[1] >= outer[1] - tol and inner[2] <= outer[2] + tol
            and inner[3] <= outer[3] + tol)


def _distance_to_box(p: tuple[float, float], b: BBox) -> float:
    dx = max(b[0] - p[0], 0.0, p[0] - b[2])
    dy = max(b[1] - p[1], 0.0, p[1] - b[3])
    return math.hypot(dx, dy)


Point = tuple[float, float]


def _penetration(a: list[Point], b: list[Point]) -> float:
    """How far two convex polygons overlap (pt): the least overlap of their projections on the
    edge normals of both (separating axis theorem; Gottschalk, Lin & Manocha 1996, "OBBTree",
    SIGGRAPH). Negative: apart (then only as far as the first separating axis found); zero: they
    touch, or one is a segment (two points) that crosses the other; for two axis-aligned boxes it
    is ``min(w, h)`` of :func:`composer.svg.geometry.overlap`."""
    depth = math.inf
    for poly in (a, b):
        for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
            length = math.hypot(x1 - x0, y1 - y0)
            if length < 1e-12:
                continue
            ax, ay = (y0 - y1) / length, (x1 - x0) / length
            pa = [ax * x + ay * y for x, y in a]
            pb = [ax * x + ay * y for x, y in b]
            depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
            if depth < 0:
                return depth
    return depth


def _meets(a: list[Point], b: list[Point]) -> bool:
    """Do two convex polygons (or segments) touch or overlap?"""
    return _penetration(a, b) > -1e-9


def _inset(quad: list[Point], d: float) -> list[Point] | None:
    """A rectangle (four corners in order, any rotation) moved in by ``d`` pt on every side
    (out for negative ``d``); None when nothing is left."""
    (x0, y0), (x1, y1), _, (x3, y3) = quad
    lu, lv = math.hypot(x1 - x0, y1 - y0), math.hypot(x3 - x0, y3 - y0)
    if lu <= 2 * d or lv <= 2 * d or lu == 0 or lv == 0:
        return None
    ux, uy = (x1 - x0) / lu * d, (y1 - y0) / lu * d
    vx, vy = (x3 - x0) / lv * d, (y3 - y0) / lv * d
    return [(x + su * ux + sv * vx, y + su * uy + sv * vy)
            for (x, y), (su, sv) in zip(quad, ((1, 1), (-1, 1), (-1, -1), (1, -1)))]


def _corners(b: BBox) -> list[Point]:
    return [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])]


# ─── the rules ────────────────────────────────────────────────────────────

@dataclass
class _Context:
    figure: Figure
    geometry: Geometry
    scene: Scene
    names: _Names
    allowed: set[frozenset[str]]
    limits: CheckLimits
    arrows: dict[int, Any]
    findings: list[Finding] = field(default_factory=list)
    #: stroked lines, braces and brackets (:func:`_line_shapes`)
    lines: dict[str, tuple[list[tuple[list[Point], bool]], float]] = field(default_factory=dict)

    def add(self, *args: Any, **kwargs: Any) -> None:
        self.findings.append(Finding(*args, **kwargs))

    def add_length(self, rule: str, element: tuple[Part, ...] | str, problem: str, measured_pt: float,
                   limit_pt: float) -> None:
        """A finding about a length the engine derived (an overlap, a distance), given in pt and
        reported in the layout's unit (:attr:`composer.layout.model.FigureSpec.unit`), as the
        layout's errors are; font sizes and line widths stay in pt, their unit by convention."""
        unit = self.figure.spec.unit
        self.add(rule, element, problem, measured_pt / PT_PER_UNIT[unit], limit_pt / PT_PER_UNIT[unit], unit)

    def allowed_pair(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.allowed


def _describe_run(ctx: _Context, run: TextRun) -> tuple[tuple[Part, ...], str]:
    """(subject, allow key) of a text: ``(<panel rgb>, ": text '0.5'")`` or ``(<text title>,)``
    (:attr:`Finding.subject`)."""
    return _describe(ctx.names, run)


def _describe(names: _Names, run: TextRun) -> tuple[tuple[Part, ...], str]:
    """:func:`_describe_run` with the names alone."""
    element, _ = names.of(run.top)
    if run.top.startswith("panel-") or run.top in names.guides():
        return (element, f": text {_short(run.text)!r}"), element.key
    if run.element.endswith("-text") and run.top.startswith("shape-"):
        return (element, " (its text)"), element.key
    element, words = names.of(run.element)
    return _parts(element, words), element.key


def _parts(element: Element, words: str = "") -> tuple[Part, ...]:
    """A subject: ``element``, then ``words`` if any."""
    return (element, words) if words else (element,)


def _short(text: str, n: int = 24) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 1] + "…"


def _font_sizes(ctx: _Context) -> None:
    """``font-size``: texts below ``min_font_pt``, and above ``max_font_pt`` when the preset sets one; a panel's
    or a guide's texts are one finding per panel and side."""
    low = ctx.limits.min_font_pt
    high = ctx.limits.max_font_pt
    per_panel: dict[tuple[str, bool], list[TextRun]] = {}
    for run in ctx.scene.texts:
        if math.isnan(run.size_pt):
            continue
        large = high is not None and run.size_pt > high + 1e-6
        if run.size_pt >= low - 1e-6 and not large:
            continue
        limit = high if large else low
        assert limit is not None
        if run.top.startswith("panel-") or run.top in ctx.names.guides():  # a panel's or a guide's: one finding
            per_panel.setdefault((run.top, large), []).append(run)
        else:
            subject, _ = _describe_run(ctx, run)
            ctx.add("font-size", (*subject, f": {_short(run.text)!r}"), _size_problem(ctx, large), run.size_pt,
                    limit, "pt")
    for (top, large), runs in per_panel.items():
        element, words = ctx.names.of(top)
        name = element.key
        worst = max(r.size_pt for r in runs) if large else min(r.size_pt for r in runs)
        texts = ", ".join(repr(_short(r.text, 12)) for r in runs[:4]) + (", …" if len(runs) > 4 else "")
        scale = ctx.scene.panel_scale.get(name, 1.0)
        how = f" (the panel is scaled x{scale:.2f} to fit its box)" if abs(scale - 1.0) > 1e-3 else ""
        ctx.add("font-size", (*_parts(element, words), f": {len(runs)} text{'s' * (len(runs) > 1)} ({texts})"),
                _size_problem(ctx, large) + how, worst, high if large else low, "pt")


def _size_problem(ctx: _Context, large: bool) -> str:
    if not large:
        return "text smaller than the minimum size at print"
    return f"text larger than the largest size {ctx.limits.journal or 'the preset'} prints"


def fonts_in_use(figure: Figure) -> dict[str, str]:
    """font family -> the layout key that sets it, for every font the figure's text is set in: each canvas
    text's, shape text's and arrow label's font, and ``[figure] font`` when a panel label or a panel (its
    matplotlib text, or an imported file's text composer draws) uses it; a text in the figure's font is
    named ``figure.font``, where it is set. A figure of shapes alone sets no font."""
    fonts: dict[str, str] = {}
    if figure.panels:
        fonts[figure.spec.font] = "figure.font"
    if any(p.label for p in figure.panels):
        fonts.setdefault(figure.spec.label.font, "figure.font")
    own = [(t.style.font, f"{t.key}.font") for t in figure.texts]
    own += [(s.text_style.font, f"{s.key}.text_font") for s in figure.shapes if s.text_style is not None and s.text]
    own += [(a.label_style.font, f"{a.key}.label_font") for a in figure.arrows if a.label_style is not None and a.label]
    for font, key in own:  # the figure's font where it is the one inherited: fixed in [figure]
        fonts.setdefault(font, "figure.font" if font == figure.spec.font else key)
    return fonts


def _font_families(ctx: _Context) -> None:
    """``font-family``: a font the figure's text is set in (:func:`fonts_in_use`) that the preset's journal
    does not take."""
    from composer.text.metrics import METRIC_COMPATIBLE, font_families

    limits = ctx.limits
    if limits.fonts is None:
        return
    for font, key in fonts_in_use(ctx.figure).items():
        # every family of a list: the first sets the text, the others draw the characters it lacks
        for family in font_families(font):
            if not limits.takes_font(family):
                # a free twin of a font the journal takes (what composer offers when that font is missing)
                # has its metrics, not its name: the way out is the font itself
                twins = [f for f in limits.fonts
                         if family.casefold() in (n.casefold() for n in METRIC_COMPATIBLE.get(f.casefold(), ()))]
                how = (f"; it has {twins[0]}'s metrics but is not {twins[0]}: install {twins[0]} and set "
                       f"font = {twins[0]!r}" if twins else "")
                ctx.add("font-family", key, f"font {family!r} is not one {limits.journal or 'the preset'} takes; "
                                            f"use {' or '.join(limits.fonts)}{how}")


def _line_widths(ctx: _Context) -> None:
    limit = ctx.limits.min_line_pt
    thin: dict[str, list[float]] = {}
    for stroke in ctx.scene.strokes:
        if stroke.width_pt < limit - 1e-6:
            thin.setdefault(stroke.top, []).append(stroke.width_pt)
    for top, widths in thin.items():
        subject = _parts(*ctx.names.of(top))
        count = f"{len(widths)} line{'s' * (len(widths) > 1)}"
        ctx.add("line-width", (*subject, f": {count}") if top.startswith("panel-") else subject,
                "line thinner than the minimum width at print", min(widths), limit, "pt")


def _rasters(ctx: _Context) -> None:
    limit = ctx.limits.min_ppi
    for r in ctx.scene.rasters:
        if r.width_pt <= 0 or r.height_pt <= 0:
            continue
        ppi = r.ppi
        if ppi < limit - 1e-6:
            ctx.add("raster-ppi", (*_parts(*ctx.names.of(r.top)), f": image {r.width_px}x{r.height_px} px printed "
                                   f"{say_pair(r.width_pt, r.height_pt, ctx.figure.spec.unit)}"),
                    "raster resolution below the minimum", ppi, limit, "ppi")


def _arrow_shapes(figure: Figure, svg: bytes) -> dict[int, tuple[list[tuple[list[tuple[float, float]], bool]], float]]:
    """Arrow index -> ([(points, filled)] for its line and heads, stroke width), read from the canvas."""
    from composer.svg.io import SVG_NS, parse_svg

    root = parse_svg(svg, source="composed figure")
    found = {}
    for i in range(len(figure.arrows)):
        group = root.find(f"{{{SVG_NS}}}g[@id='arrow-{i}']")
        if group is None:
            continue
        parts = []
        for path in group.iter(f"{{{SVG_NS}}}path"):
            if any(el.get("aria-label") is not None for el in (path, path.getparent())):
                continue  # the connector's label, a text
            filled = (path.get("fill") or "black") != "none"
            parts += [(points, filled) for points in path_points(path.get("d", ""))]
        found[i] = (parts, figure.arrows[i].width_pt)
    return found


def _overlaps(ctx: _Context) -> None:
    tol = OVERLAP_TOLERANCE_PT
    texts = [(run, *_describe_run(ctx, run)) for run in ctx.scene.texts if run.bbox[0] <= run.bbox[2]]
    # each text as the rectangle around its ink in its own frame: rotated for a rotated tick label,
    # whose axis-aligned extent covers its neighbours' although the glyphs are apart
    quads = {id(run): run.corners for run, _, _ in texts}
    # text on text
    for (a, da, ka), (b, db, kb) in combinations(texts, 2):
        if a.top == b.top and a.element == b.element:
            continue  # lines of one text
        if ka != kb and ctx.allowed_pair(ka, kb):
            continue
        w, h = overlap(a.bbox, b.bbox)
        if w > tol and h > tol:  # the ink extents meet: are the oriented rectangles apart?
            depth = _penetration(quads[id(a)], quads[id(b)])
            if depth > tol:
                ctx.add_length("overlap", (*da, " / ", *db), "text overlaps text", depth, tol)
    # panel over panel
    panels = [(p.name, _box(ctx.geometry.panels[p.name]), p.overlap) for p in ctx.figure.panels]
    for (na, ba, oa), (nb, bb, ob) in combinations(panels, 2):
        w, h = overlap(ba, bb)
        if w > 0.01 and h > 0.01 and not (oa or ob) and not ctx.allowed_pair(na, nb):  # overlap = true: an inset
            ctx.add_length("overlap", (ctx.names.named(f"panel {na}"), " / ", ctx.names.named(f"panel {nb}")),
                           "panel boxes overlap", min(w, h), 0.0)
    # text crossing a shape's border
    for i, shape in enumerate(ctx.figure.shapes):
        key = shape.name or f"shape[{i}]"
        shape_box = ctx.geometry.shapes[i]
        if shape_box is None:
            continue  # a line or a brace: no inside to cross into
        box = _box(shape_box)
        for run, display, tkey in texts:
            if tkey == key or ctx.allowed_pair(key, tkey):
                continue
            w, h = overlap(run.bbox, box)
            if w > tol and h > tol and not _inside(run.bbox, box, tol):
                depth = _penetration(quads[id(run)], _corners(box))
                if depth > tol:
                    shown = ctx.names.named(f"shape {shape.name}" if shape.name else key)
                    ctx.add_length("overlap", (*display, " / ", shown), "text crosses the border of a shape", depth,
                                   tol)
    # label over a connector
    for i, (parts, width) in ctx.arrows.items():
        akey = f"arrow[{i}]"
        for run, display, tkey in texts:
            if tkey == akey or ctx.allowed_pair(akey, tkey):
                continue  # its own label sits beside it by design
            if _drawn_on(quads[id(run)], parts, width):
                ctx.add("overlap", (*display, " / ", ctx.names.named(akey)), "text lies on a connector", None, None)


def _drawn_on(quad: list[Point], parts: list[tuple[list[Point], bool]], width_pt: float) -> bool:
    """Does a drawing of ``parts`` (``(points, filled)``: a stroked polyline, or a filled polygon
    such as a head) with strokes ``width_pt`` wide touch a text's rectangle ``quad`` by more than
    :data:`OVERLAP_TOLERANCE_PT`?"""
    inner = _inset(quad, OVERLAP_TOLERANCE_PT - width_pt / 2)
    if inner is None:
        return False
    for points, filled in parts:
        if filled and len(points) >= 3:  # a head
            if _meets(list(points), inner):
                return True
        elif any(_meets([p, q], inner) for p, q in zip(points, points[1:])):
            return True
    return False


def _lines_on_canvas_text(ctx: _Context) -> None:
    """``overlap``: a canvas text (a text, a panel label or title, a connector's or a shape's label)
    crossed by its own connector, or by a line, brace or bracket shape (stroke width included;
    a label over another connector is the connector rule of :func:`_overlaps`)."""
    arrows = {f"arrow[{i}]": i for i in ctx.arrows}
    for run in ctx.scene.texts:
        if run.top.startswith("panel-") or run.bbox[0] > run.bbox[2]:
            continue
        display, key = _describe_run(ctx, run)
        quad = run.corners
        own = arrows.get(key)  # a connector's label
        if own is not None:
            parts, width = ctx.arrows[own]
            if _drawn_on(quad, parts, width):
                ctx.add("overlap", (*display, " / ", ctx.names.named(key)), "text is crossed by its own connector",
                        None, None)
        for skey, (parts, width) in ctx.lines.items():
            if skey != key and not ctx.allowed_pair(skey, key) and _drawn_on(quad, parts, width):
                shown = skey if skey.startswith("shape[") else f"shape {skey}"
                ctx.add("overlap", (*display, " / ", ctx.names.named(shown)), "text is crossed by a line", None, None)


def _line_shapes(figure: Figure, svg: bytes) -> dict[str, tuple[list[tuple[list[Point], bool]], float]]:
    """Shape name (``shape[i]`` when unnamed) -> ([(points, False)] of its stroke, stroke width) for every
    stroked line, brace and bracket, read from the canvas (curves flattened by
    :func:`composer.svg.measure.path_points`)."""
    from composer.svg.io import SVG_NS, parse_svg

    root = parse_svg(svg, source="composed figure")
    found = {}
    for i, shape in enumerate(figure.shapes):
        if SHAPES[shape.kind].boxed or not shape.stroke:
            continue
        group = root.find(f"{{{SVG_NS}}}g[@id='shape-{shape.name or i}']")
        if group is None:
            continue
        parts = [(points, False) for path in group.iter(f"{{{SVG_NS}}}path")
                 for points in path_points(path.get("d", ""))]
        found[shape.name or f"shape[{i}]"] = (parts, shape.stroke_width_pt)
    return found


def _past_edge(box: BBox, canvas: BBox) -> tuple[str, float]:
    """The edge of ``canvas`` that ``box`` reaches farthest past (``left``, ``top``, ``right``,
    ``bottom``; the first of them on a tie) and by how much (pt; 0 or less: inside)."""
    beyond = {"left": canvas[0] - box[0], "top": canvas[1] - box[1], "right": box[2] - canvas[2],
              "bottom": box[3] - canvas[3]}
    side = max(beyond, key=lambda k: beyond[k])
    return side, beyond[side]


def _clipped_canvas_texts(names: _Names, texts: list[TextRun], canvas: BBox
                          ) -> list[tuple[tuple[Part, ...], str, float, str]]:
    """``(subject, edge, by_pt, top)`` of every canvas text (not a panel's) whose ink reaches more than
    :data:`EDGE_TOLERANCE_PT` past ``canvas``: what ``outside-canvas`` reports of texts and what the
    build warns about (:func:`clipped_text_warnings`)."""
    found = []
    for run in texts:
        if run.top.startswith("panel-") or run.bbox[0] > run.bbox[2]:
            continue
        side, by_pt = _past_edge(run.bbox, canvas)
        if by_pt > EDGE_TOLERANCE_PT:
            found.append((_describe(names, run)[0], side, by_pt, run.top))
    return found


def clipped_text_warnings(figure: Figure, svg: bytes) -> list[str]:
    """One message per canvas text, panel label or title the canvas edge clips, naming it, the edge and
    by how much in the layout's unit (``"text title: 1.2 mm past the top edge of the canvas, clipped"``).

    The texts are measured as ``compose check`` measures them (:func:`composer.svg.measure.scene`,
    :func:`_clipped_canvas_texts`), but only those that may reach the edge: a canvas element whose
    outlines' coordinates (on-curve and control points, whose hull holds the ink) all lie inside the
    canvas is left out, and so are the panels (whose texts are not asked about), which keeps the
    build from walking the whole figure as a check does.

    Args:
        figure: the loaded layout (names, unit). svg: the composed canvas.
    """
    from composer.svg.io import SVG_NS, parse_svg

    root = parse_svg(svg, source="composed figure")
    width_pt, height_pt = (float(v) for v in (root.get("viewBox") or "0 0 0 0").split()[2:])
    kept = [el for el in root if not (el.get("id") or "").startswith("panel-") and el.get("id") != "background"
            and _may_reach_edge(el, width_pt, height_pt)]
    if not any(el.tag == f"{{{SVG_NS}}}g" or el.tag == f"{{{SVG_NS}}}path" for el in kept):
        return []
    # the kept elements moved into an empty root (lxml's remove() of a panel of 100,000 elements took 37 s)
    shell = etree.Element(root.tag, dict(root.attrib), nsmap=root.nsmap)
    shell.extend(kept)
    measured = scene(etree.tostring(shell))
    canvas = (0.0, 0.0, measured.width_pt, measured.height_pt)
    unit = figure.spec.unit
    names = _Names(figure, {})
    guides = names.guides()
    worst: dict[tuple[str, str], float] = {}  # a guide's texts as one element: its name, each edge once
    for subject, side, by_pt, top in _clipped_canvas_texts(names, measured.texts, canvas):
        name = names.display(top) if top in guides else _text(subject)
        worst[name, side] = max(by_pt, worst.get((name, side), 0.0))
    return [f"{name}: {say(by_pt, unit)} past the {side} edge of the canvas, clipped"
            for (name, side), by_pt in worst.items()]


#: path commands whose arguments are all absolute coordinate pairs, and separators, as spaces
_COMMANDS_AS_SPACES = str.maketrans({c: " " for c in "MLQCZ,"})
#: what such path data is made of (deleted: anything left is something else)
_DROP_ABSOLUTE = str.maketrans("", "", "MLQCZ0123456789.,- \t\n\r")


def _may_reach_edge(el: etree._Element, width_pt: float, height_pt: float) -> bool:
    """Could a canvas element draw text within :data:`EDGE_TOLERANCE_PT` of the canvas edge or past it?
    True unless it holds no ``<text>``, no ``transform``, only absolute ``M``/``L``/``Q``/``C``/``Z`` path
    data, and every coordinate of that data lies inside the canvas by more than the tolerance."""
    import numpy as np

    tol = EDGE_TOLERANCE_PT
    for sub in el.iter():
        if not isinstance(sub.tag, str):
            continue
        if sub.get("transform") is not None or etree.QName(sub).localname in ("text", "use", "image"):
            return True
        d = sub.get("d")
        if d is None:
            continue
        if d.translate(_DROP_ABSOLUTE):  # a relative, H, V or A command, an exponent: measure it
            return True
        numbers = np.fromstring(d.translate(_COMMANDS_AS_SPACES), sep=" ")
        if len(numbers) % 2:
            return True
        xs, ys = numbers[0::2], numbers[1::2]
        if len(xs) and not (xs.min() > tol and xs.max() < width_pt - tol and ys.min() > tol
                            and ys.max() < height_pt - tol):
            return True
    return False


def _outside(ctx: _Context) -> None:
    canvas = (0.0, 0.0, ctx.scene.width_pt, ctx.scene.height_pt)
    tol = EDGE_TOLERANCE_PT

    def report(display: tuple[Part, ...], box: BBox) -> None:
        beyond = _past_edge(box, canvas)[1]
        if beyond > tol:
            ctx.add_length("outside-canvas", display, "drawn past the edge of the canvas", beyond, tol)

    for display, _, beyond, _ in _clipped_canvas_texts(ctx.names, ctx.scene.texts, canvas):
        ctx.add_length("outside-canvas", display, "drawn past the edge of the canvas", beyond, tol)
    outside_texts: dict[str, list[BBox]] = {}
    for run in ctx.scene.texts:
        if run.bbox[0] <= run.bbox[2] and run.top.startswith("panel-") and not _inside(run.bbox, canvas, tol):
            outside_texts.setdefault(run.top, []).append(run.bbox)
    for top, boxes in outside_texts.items():
        report((*_parts(*ctx.names.of(top)), f": {len(boxes)} text{'s' * (len(boxes) > 1)}"), union(boxes))
    for p in ctx.figure.panels:
        report((ctx.names.named(f"panel {p.name}"),), _box(ctx.geometry.panels[p.name]))
    for i, shape in enumerate(ctx.figure.shapes):
        half = shape.stroke_width_pt / 2 if shape.stroke else 0.0
        shape_box = ctx.geometry.shapes[i]
        if shape_box is None:
            pts = ctx.geometry.shape_points[i]
            if not pts:
                continue
            b = (min(p[0] for p in pts), min(p[1] for p in pts), max(p[0] for p in pts), max(p[1] for p in pts))
        else:
            b = _box(shape_box)
        name = f"shape {shape.name}" if shape.name else f"shape[{i}]"
        report((ctx.names.named(name),), (b[0] - half, b[1] - half, b[2] + half, b[3] + half))
    for i, (parts, width) in ctx.arrows.items():
        drawn = [p for points, _ in parts for p in points]
        if drawn:
            xs, ys = [p[0] for p in drawn], [p[1] for p in drawn]
            half = width / 2
            report((ctx.names.named(f"arrow[{i}]"),), (min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half))
    # panel text outside its own box
    for p in ctx.figure.panels:
        box = _box(ctx.geometry.panels[p.name])
        spill = [r for r in ctx.scene.texts if r.top == f"panel-{p.name}" and r.bbox[0] <= r.bbox[2]
                 and not _inside(r.bbox, box, OVERLAP_TOLERANCE_PT)]
        if spill:
            u = union([r.bbox for r in spill])
            beyond = max(box[0] - u[0], box[1] - u[1], u[2] - box[2], u[3] - box[3])
            texts = ", ".join(repr(_short(r.text, 12)) for r in spill[:4]) + (", …" if len(spill) > 4 else "")
            ctx.add_length("outside-panel", (ctx.names.named(f"panel {p.name}"), f": {texts}"),
                           "panel text drawn outside the panel's box", beyond, OVERLAP_TOLERANCE_PT)


def _distance_to_polyline(p: tuple[float, float], points: tuple[tuple[float, float], ...]) -> float:
    if len(points) == 1:
        return math.hypot(p[0] - points[0][0], p[1] - points[0][1])
    best = math.inf
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        dx, dy = x1 - x0, y1 - y0
        t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((p[0] - x0) * dx + (p[1] - y0) * dy) / (dx * dx + dy * dy)))
        best = min(best, math.hypot(p[0] - x0 - t * dx, p[1] - y0 - t * dy))
    return best


def _dangling(ctx: _Context) -> None:
    g = ctx.geometry
    boxes = [_box(b) for b in g.panels.values()] + [_box(b) for b in g.texts]
    boxes += [_box(b) for b in g.shapes if b is not None] + [_box(b) for b in g.guides if b is not None]
    lines = [pts for b, pts in zip(g.shapes, g.shape_points) if b is None and pts]
    anchors = list(g.data_anchors.values())
    for i, route in enumerate(g.arrows):
        for end, point in (("start", route.points[0]), ("end", route.points[-1])):
            nearest = min([_distance_to_box(point, b) for b in boxes]
                          + [_distance_to_polyline(point, pts) for pts in lines]
                          + [math.hypot(point[0] - a[0], point[1] - a[1]) for a in anchors] or [math.inf])
            if nearest > END_TOLERANCE_PT:
                unit = ctx.figure.spec.unit
                at = f"({amount(point[0], unit)}, {amount(point[1], unit)}) {unit}"
                ctx.add_length("dangling-connector", (ctx.names.named(f"arrow[{i}]"), f" {end}"),
                               f"connector {end} at {at} touches no element", nearest, END_TOLERANCE_PT)


def _palette(ctx: _Context) -> dict[str, list[Element]]:
    """Colour -> the elements that paint it (see module docstring for what counts)."""
    background = ctx.figure.spec.background
    per_artist: dict[tuple[str, str], set[str]] = {}
    for use in ctx.scene.colours:
        if not use.text:
            per_artist.setdefault((use.top, use.artist), set()).add(use.colour)
    palette: dict[str, list[Element]] = {}
    for (top, artist), colours in per_artist.items():
        kind = artist.rsplit("--", 1)[-1]
        if top.startswith("panel-") and (len(colours) > MAX_ARTIST_COLOURS
                                         or (re.match(_COLLECTIONS, kind) and len(colours) > 2)):
            continue  # a colour map: a collection coloured per element
        display = ctx.names.of(top)[0]  # a canvas element's id: no words after its name
        for colour in sorted(colours):
            if colour in ("#ffffff", background) or top == "background":
                continue
            users = palette.setdefault(colour, [])
            if display not in users:
                users.append(display)
    return palette


def _colour_vision(ctx: _Context) -> None:
    palette = _palette(ctx)
    if len(palette) < 2:
        return
    import numpy as np
    from colorspacious import cspace_convert

    colours = sorted(palette)
    rgb = np.array([[int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)] for c in colours])
    limit = ctx.limits.cvd_min_distance

    def distances(rgb1: np.ndarray) -> np.ndarray:
        jab = cspace_convert(np.clip(rgb1, 0, 1), "sRGB1", "CAM02-UCS")
        return np.linalg.norm(jab[:, None, :] - jab[None, :, :], axis=-1)

    normal = distances(rgb)
    simulated = {name: distances(cspace_convert(rgb, {"name": "sRGB1+CVD", "cvd_type": kind, "severity": 100},
                                                "sRGB1"))
                 for kind, name in CVD_TYPES.items()}
    for i, j in combinations(range(len(colours)), 2):
        if normal[i, j] < limit:
            continue
        name, worst = min(((n, d[i, j]) for n, d in simulated.items()), key=lambda x: x[1])
        if worst < limit:
            ci, cj = colours[i], colours[j]
            ctx.add("color-vision", (*_users(ci, palette[ci][:2]), " / ", *_users(cj, palette[cj][:2])),
                    f"colours look alike with {name} (normal vision: {normal[i, j]:.1f})", float(worst), limit,
                    "CAM02-UCS")


def _users(colour: str, elements: list[Element]) -> tuple[Part, ...]:
    """``colour (<e1>, <e2>)``: a colour and the elements that paint it, as a subject."""
    parts: list[Part] = [f"{colour} ("]
    for i, element in enumerate(elements):
        parts += [", ", element] if i else [element]
    return (*parts, ")")


def _figure_size(ctx: _Context) -> None:
    from composer.layout import presets

    spec = ctx.figure.spec
    if spec.preset is None:
        return
    preset = presets.PRESETS[spec.preset]
    from composer.units import to_pt

    widest = max(to_pt(w) for w in preset.widths.values())
    if spec.width_pt > widest + 0.01:
        ctx.add("figure-size", "canvas", f"wider than {preset.title}'s widest figure", spec.width_pt / 72 * 25.4,
                widest / 72 * 25.4, "mm")
    narrowest = ctx.limits.min_width_pt
    if narrowest is not None and spec.width_pt < narrowest - 0.01:
        ctx.add("figure-size", "canvas", f"narrower than {preset.title}'s narrowest figure",
                spec.width_pt / 72 * 25.4, narrowest / 72 * 25.4, "mm")
    if ctx.limits.max_height_pt is not None and spec.height_pt > ctx.limits.max_height_pt + 0.01:
        ctx.add("figure-size", "canvas", f"taller than {preset.title}'s tallest figure", spec.height_pt / 72 * 25.4,
                ctx.limits.max_height_pt / 72 * 25.4, "mm")


def _alt_text(ctx: _Context) -> None:
    """``alt-text``: a preset whose journal asks for alt text (:attr:`composer.layout.presets.Preset.requires_alt`)
    and no ``[figure] alt``."""
    from composer.layout import presets

    spec = ctx.figure.spec
    if spec.preset is None or not presets.PRESETS[spec.preset].requires_alt or spec.alt:
        return
    title = presets.PRESETS[spec.preset].title
    ctx.add("alt-text", "figure.alt", f"{title} asks for alt text with every figure; add [figure] alt = \"...\": what "
                                  "the figure shows, for a reader who cannot see it")


def lint(figure: Figure, geometry: Geometry, svg: bytes, *, file: str,
         substituted: Mapping[str, str] | None = None, elements: Sequence[Element] | None = None,
         file_texts: Mapping[str, Sequence[tuple[float, str]]] | None = None,
         features: Sequence[ImportFeature] = ()) -> Report:
    """Check a composed figure (pure).

    Args:
        figure: the loaded layout (names, limits, allowed overlaps).
        geometry: its resolved boxes and connector routes.
        svg: the composed canvas (:func:`composer.stages.compose.compose`).
        file: the layout file, for errors.
        substituted: ``"panel NAME<TAB>font"`` -> message, for fonts matplotlib
            replaced while rendering the panels (carried by each panel:
            :attr:`composer.stages.render.RenderedPanel.substituted`).
        elements: the figure's elements with their boxes (:func:`composer.stages.named.figure_elements`,
            with the boxes of the panel labels and titles as drawn); None: made from ``geometry``, labels
            and titles without a box.
        file_texts: panel name -> ``(size_pt, text)`` of each text its file draws that the SVG cannot
            say the size of (a pdf panel's page, whose glyphs are outlines once converted:
            :meth:`composer.stages.sources.base.PanelSource.texts`), sizes in the file's pt; the check
            scales them by the panel's fit, as it scales everything the panel draws.
        features: what the import of each file drew differently from a browser, or could not draw, as
            the import recorded it (:class:`composer.errors.ImportFeature`, the warnings of the compose
            stage): one ``import-feature`` finding per panel, file and feature.

    Returns:
        A :class:`Report` with every finding, errors first, each naming its elements with their boxes
        (:attr:`Finding.subject`).

    Raises:
        LayoutError: ``[check] allow_overlap`` names an element that does not exist.
    """
    if elements is None:
        elements = figure_elements(figure, geometry)
    names = _Names(figure, {e.name: e for e in elements})
    allowed = _check_allowed(figure, names, file)
    measured = scene(svg)
    _add_file_texts(measured, file_texts or {})
    ctx = _Context(figure, geometry, measured, names, allowed, figure.spec.check, _arrow_shapes(figure, svg),
                   lines=_line_shapes(figure, svg))
    _font_sizes(ctx)
    _line_widths(ctx)
    _rasters(ctx)
    _overlaps(ctx)
    _lines_on_canvas_text(ctx)
    _outside(ctx)
    _dangling(ctx)
    _colour_vision(ctx)
    _figure_size(ctx)
    _font_families(ctx)
    _alt_text(ctx)
    for where, message in sorted((substituted or {}).items()):
        ctx.add("font-substituted", (names.named(where.split("\t")[0]),), message)
    _import_features(ctx, features)
    order = {"error": 0, "warning": 1}
    kept, left_out = _not_ignored(figure, ctx.findings, file)
    findings = sorted(kept, key=lambda f: (order[f.level], f.rule, f.element, f.problem))
    return Report(figure=figure.name, limits=figure.spec.check, findings=tuple(findings),
                  notes=tuple(dict.fromkeys(measured.notes)) + left_out)


#: bytes in a megabyte as journals write "MB" (the SI megabyte, the stricter of its readings)
BYTES_PER_MB = 1_000_000
#: TIFF tag 259 (Compression) values -> the names presets use (TIFF 6.0, section 8; Pillow's names in parentheses)
TIFF_COMPRESSIONS = {1: "none", 5: "lzw", 7: "jpeg", 8: "deflate", 32773: "packbits", 32946: "deflate"}


def output_findings(limits: CheckLimits, files: Mapping[str, tuple[str, bytes]],
                    size_pt: tuple[float, float]) -> list[Finding]:
    """The findings of the rules measured on a build's output files (pure): ``file-size``, ``output-format``,
    ``output-dpi``, ``pdf-fonts`` (:func:`pdf_font_findings`).

    Args:
        limits: the figure's limits (:attr:`composer.layout.model.FigureSpec.check`: the preset's and
            ``[check]``'s).
        files: format name -> (file name as the report shows it, its bytes), for each output measured.
        size_pt: the canvas's (width, height) in pt, the printed size of a raster output.

    Returns:
        The findings, in the order of ``files``; none when ``files`` is empty (nothing to measure).
    """
    from composer.kinds.outputs import FORMATS

    found: list[Finding] = []
    journal = limits.journal or "the preset"
    if limits.formats is not None and files and not any(kind in limits.formats for kind in files):
        takes = " or ".join(FORMATS[f].suffix.upper() if f in FORMATS else f.upper() for f in limits.formats)
        found.append(Finding("output-format", ", ".join(name for name, _ in files.values()),
                             f"{journal} takes figure files in {takes} only; build one with "
                             f"--format {limits.formats[0]}"))
    for kind, (name, data) in files.items():
        if limits.max_file_mb is not None and len(data) > limits.max_file_mb * BYTES_PER_MB:
            found.append(Finding("file-size", name, f"file larger than {journal} takes",
                                 len(data) / BYTES_PER_MB, limits.max_file_mb, "MB"))
        if kind == "pdf":
            found += pdf_font_findings(limits, name, data)
        raster = _raster_facts(data) if kind in FORMATS and FORMATS[kind].raster else None
        if raster is None:
            continue
        image_format, width_px, compression, alpha = raster
        width_in = size_pt[0] / 72
        dpi = width_px / width_in
        # against the pixels a raster of the canvas has at the limit (round(width_in * dpi), as the export makes
        # it): --dpi 300 passes a 300 dpi minimum whatever the rounding, --dpi 299 does not
        if limits.min_output_dpi is not None and width_px < round(width_in * limits.min_output_dpi):
            found.append(Finding("output-dpi", name, f"fewer pixels per inch than {journal} asks of a figure "
                                                     "drawn as pixels (raise --dpi)", dpi, limits.min_output_dpi,
                                 "dpi"))
        if limits.max_output_dpi is not None and width_px > round(width_in * limits.max_output_dpi):
            found.append(Finding("output-dpi", name, f"more pixels per inch than {journal} takes (lower --dpi)",
                                 dpi, limits.max_output_dpi, "dpi"))
        if image_format != "TIFF":
            continue
        if limits.tiff_compression is not None and compression != limits.tiff_compression:
            found.append(Finding("output-format", name, f"TIFF compressed as {compression}; {journal} asks for "
                                                        f"{limits.tiff_compression.upper()}"))
        if alpha and not limits.tiff_alpha:
            found.append(Finding("output-format", name, f"TIFF with an alpha channel, which {journal} refuses "
                                                        "(give the figure a background)"))
    return found


def pdf_font_findings(limits: CheckLimits, name: str, data: bytes) -> list[Finding]:
    """``pdf-fonts``: the fonts of a PDF output (:func:`composer.lint.pdffonts.pdf_fonts`) that a reader or a
    journal's checker would refuse: one not embedded (always: the viewer would draw another font), a Type 3
    font when the preset's journal rejects them (:attr:`composer.layout.model.CheckLimits.refuses_type3`:
    IEEE PDF eXpress and ICML's paper checker; matplotlib #30568, #28521), a family outside the preset's
    list (:attr:`~composer.layout.model.CheckLimits.fonts`, :func:`composer.lint.pdffonts.takes`). Each
    finding names the file and the font as ``pdffonts`` lists it; none for bytes that are not a PDF."""
    import pikepdf

    from composer.lint.pdffonts import pdf_fonts, takes

    try:
        fonts = pdf_fonts(data)
    except pikepdf.PdfError:
        return []
    journal = limits.journal or "the preset"
    found = []
    for font in fonts:
        subject = f"{name}: font {font.name} ({font.kind})"
        if not font.embedded:
            found.append(Finding("pdf-fonts", subject, "font not embedded: each viewer draws it in a font of its "
                                                       "own (embed it in the pdf panel's file)"))
        if font.kind == "Type 3" and limits.refuses_type3:
            found.append(Finding("pdf-fonts", subject, f"Type 3 font, which {journal}'s PDF checker rejects (save "
                                                       "the pdf panel with TrueType fonts: matplotlib's "
                                                       "pdf.fonttype = 42)"))
        if not takes(limits.fonts, font.family):
            found.append(Finding("pdf-fonts", subject, f"font {font.family!r} is not one {journal} takes; use "
                                                       f"{' or '.join(limits.fonts or ())}"))
    return found


def _raster_facts(data: bytes) -> tuple[str, int, str, bool] | None:
    """``(format, width in pixels, TIFF compression name or "", alpha channel)`` of an image file's bytes, read
    back with Pillow; None when they are not an image Pillow reads (a PPTX's zip)."""
    import io

    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            compression = ""
            if img.format == "TIFF":
                code = img.tag_v2.get(259, 1)  # type: ignore[attr-defined]  # TiffImageFile's tags
                compression = TIFF_COMPRESSIONS.get(int(code), f"code {code}")
            return str(img.format), img.size[0], compression, "A" in img.getbands()
    except (UnidentifiedImageError, OSError):
        return None


def with_outputs(report: Report, findings: Sequence[Finding], notes: Sequence[str] = ()) -> Report:
    """``report`` with ``findings`` (:func:`output_findings`) and ``notes`` added, errors first as :func:`lint`
    orders them."""
    order = {"error": 0, "warning": 1}
    merged = sorted([*report.findings, *findings], key=lambda f: (order[f.level], f.rule, f.element, f.problem))
    return dataclasses.replace(report, findings=tuple(merged), notes=report.notes + tuple(notes))


def _import_features(ctx: _Context, features: Sequence[ImportFeature]) -> None:
    """``import-feature``: each feature of an imported file composer draws differently from a browser, once
    per panel, file and feature (the import records it: :class:`composer.errors.ImportFeature`)."""
    seen: set[tuple[str, str, str]] = set()
    for feature in features:
        key = (feature.panel, feature.file, feature.feature)
        if key in seen:
            continue
        seen.add(key)
        shown = _as_written(ctx.figure, feature)
        subject: tuple[Part, ...] = ((ctx.names.named(f"panel {feature.panel}"), f": {shown}")
                                     if feature.panel else (shown,))
        detail = f" ({feature.detail})" if feature.detail else ""
        ctx.add("import-feature", subject, f"drawn differently from a browser: {feature.feature}{detail}")


def _as_written(figure: Figure, feature: ImportFeature) -> str:
    """The file of ``feature`` as the layout names it (``../assets/web.svg``) when it is its panel's file,
    else as the import named it."""
    import os
    from pathlib import PurePath

    for panel in figure.panels:
        if panel.name != feature.panel or not panel.source:
            continue
        own, named = PurePath(str(panel.source)).parts, PurePath(feature.file).parts
        if named and own[-len(named):] == named:  # absolute, or relative to the project, as the import says
            return os.path.relpath(panel.source, figure.path.parent)
    return feature.file


def _add_file_texts(measured: Scene, file_texts: Mapping[str, Sequence[tuple[float, str]]]) -> None:
    """Add to ``measured`` the texts panels' files report (``lint``'s ``file_texts``), at the scale each
    panel is drawn at (:attr:`composer.svg.measure.Scene.panel_scale`); their extent is unknown (an
    empty box), so only their size is checked."""
    for name, texts in sorted(file_texts.items()):
        scale = measured.panel_scale.get(name)
        if scale is None:
            continue  # the panel is not drawn
        for size_pt, text in texts:
            measured.texts.append(TextRun(top=f"panel-{name}", element=f"panel-{name}", size_pt=size_pt * scale,
                                          bbox=(math.inf, math.inf, -math.inf, -math.inf), label=text,
                                          estimated=True))


def _guide_names(figure: Figure) -> dict[str, str]:
    """A guide's name in findings' elements (``legend[0]``, ``legend key``: :meth:`_Names.of`) -> the name
    ``[check]`` gives it (``legend[0]``, ``key``: its name, else its layout key, as ``allow_overlap``)."""
    return {(f"{g.kind} {g.name}" if g.name else g.key): g.name or g.key for g in figure.guides}


def _finding_panels(finding: Finding) -> set[str]:
    """The panels and guides a finding is about (:attr:`Finding.elements`), by their ``[check]`` names:
    a panel's name, a guide's name or else its layout key (``legend[0]``)."""
    return {e.key for e in finding.elements if e.kind in ("panel", "guide")}


def _not_ignored(figure: Figure, findings: list[Finding], file: str) -> tuple[list[Finding], tuple[str, ...]]:
    """``findings`` without those ``[check] ignore`` leaves out, and one note per panel (or guide) and rule
    saying how many were left out. A guide is named as ``allow_overlap`` names it: its name, else its layout
    key (``legend[0]``).

    Raises:
        LayoutError: at ``check.ignore.PANEL``, a panel or guide the figure does not have or a rule the check
            does not know, with the valid names.
    """
    guides = _guide_names(figure)
    panels = [p.name for p in figure.panels]
    named = panels + list(guides.values())
    ignore: dict[str, set[str]] = {}
    for panel, rules in figure.spec.check.ignore:
        key = f"check.ignore.{panel}"
        if panel not in named:
            one, all_ = ("panel or guide", "panels and guides") if guides else ("panel", "panels")
            raise LayoutError(f"{panel!r} is not a {one}" + did_you_mean(panel, named)
                              + f"; {all_} are {', '.join(named) or '(none)'}", file=file, key=key)
        for rule in rules:
            if rule not in RULES:
                raise LayoutError(f"{rule!r} is not a rule of compose check" + did_you_mean(rule, RULES)
                                  + f"; rules are {', '.join(RULES)}", file=file, key=key)
        ignore.setdefault(panel, set()).update(rules)
    if not ignore:
        return findings, ()
    kept: list[Finding] = []
    counts: dict[tuple[str, str], int] = {}
    for finding in findings:
        hit = sorted(p for p in _finding_panels(finding) if finding.rule in ignore.get(p, ()))
        if hit:
            counts[(hit[0], finding.rule)] = counts.get((hit[0], finding.rule), 0) + 1
        else:
            kept.append(finding)
    shown = {name: display for display, name in guides.items()}
    notes = tuple(f"{shown.get(panel, f'panel {panel}')}: {n} {rule} finding{'s' * (n > 1)} not reported "
                  "([check] ignore)" for (panel, rule), n in sorted(counts.items()))
    return kept, notes


def font_findings(figure: Figure) -> list[Finding]:
    """Every font the layout names that is not installed (``font-missing``)."""
    from composer.text.metrics import check_font

    fonts: dict[str, str] = {figure.spec.font: "figure.font", figure.spec.label.font: "figure.font"}
    for t in figure.texts:
        fonts.setdefault(t.style.font, f"{t.key}.font")
    for s in figure.shapes:
        if s.text_style is not None and s.text:
            fonts.setdefault(s.text_style.font, f"{s.key}.text_font")
    for a in figure.arrows:
        if a.label_style is not None and a.label:
            fonts.setdefault(a.label_style.font, f"{a.key}.label_font")
    found = []
    for font, key in fonts.items():
        try:
            check_font(font)
        except LayoutError as exc:
            found.append(Finding("font-missing", key, " ".join(exc.message.split(";")[:1])))
    return found
