"""Did the figure change? A figure as it was at a git revision against the figure as it is now.

::

    compose diff NAME [REV]   (REV: HEAD unless given)

    REV --git worktree (temporary)--> the project as it was --build (write nothing)--> SVG, PNG, boxes, texts
    the working tree ----------------------------------------build (write nothing)--> SVG, PNG, boxes, texts
        --compare--> FigureDiff: texts changed, elements moved or resized, canvas size, pixels changed
        --draw-----> OUT/NAME.diff.png (the figure now, faded to grey, changed pixels in two colours)

Both builds run the ordinary pipeline (:func:`composer.pipeline.build_layout`) with nothing written
but the project's panel cache (both builds read and fill it: a panel whose code, data and box are the
same at both revisions is drawn once, ever), and ask it for the figure's named elements with their
boxes (:func:`composer.stages.named.figure_elements`) and its texts
(:func:`composer.stages.named.figure_texts`): what changed is read from those records, never guessed
from pixels. The revision's tree is a ``git worktree add --detach`` in a temporary folder, removed
when the comparison ends, however it ends (an error, Ctrl-C). Files git does not track (a data file
in ``.gitignore``) are not in it: the build at that revision then fails on them, in one line naming
the revision.

Composer's outputs are deterministic (docs/design.md), so equal inputs give equal SVG bytes: the
figure changed exactly when the two SVGs differ (:attr:`FigureDiff.changed`). Both sides are drawn by
the composer that runs (the revision gives the project's files, not composer's code): a change found is
one of the figure's inputs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import hashlib
import io
import math
import re
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from composer.errors import ComposerError, ComposerWarning, ProjectError
from composer.pipeline import BuildOptions, BuildResult, build_layout
from composer.progress import Progress
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, deferred_interrupt
from composer.sandbox.parallel import available_cores
from composer.stages.geometry import Box
from composer.stages.inputs import Project
from composer.stages.named import Element, NamedText
from composer.units import PT_PER_UNIT, SAY_DECIMALS, layout_unit, say_pair

#: the diff image's resolution unless asked (dots per inch): enough to see a tick label change
DEFAULT_DPI = 150.0
#: how much of the current figure's ink the diff image keeps as grey under the changes (0.25: 25 %)
FADE = 0.25
#: sRGB of a pixel that lost ink (the figure at the revision was darker there) and of one that gained
#: ink: Okabe and Ito's vermillion and blue (2008), told apart under every colour-vision deficiency
REMOVED_RGB = (213, 94, 0)
ADDED_RGB = (0, 114, 178)
#: a change in a box's position or size below this (pt) is rounding, not a move (the SVG writes 3 decimals)
TOLERANCE_PT = 0.001

_NUMBER = re.compile(r"[-+\u2212]?(?:\d+(?:[.,]\d+)*|[.,]\d+)(?:[eE][-+\u2212]?\d+)?")


@dataclass(frozen=True)
class Revision:
    """One side of a comparison.

    Attributes:
        label: as the user named it (``"HEAD"``, ``"v1.0"``), or ``"now"`` for the working tree.
        commit: the commit's full hash; ``""`` for the working tree.
        width_pt, height_pt: the canvas's size (its SVG viewBox).
        unit: the unit of its ``[figure] width`` as written (``"mm"``), for messages.
        svg_sha256: the digest of its composed SVG.
        rendered, cached: its panels drawn by this build and those taken from the panel cache.
    """

    label: str
    commit: str
    width_pt: float
    height_pt: float
    unit: str
    svg_sha256: str
    rendered: tuple[str, ...] = ()
    cached: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """``HEAD (4e42041)``, or ``now`` for the working tree."""
        return f"{self.label} ({self.commit[:7]})" if self.commit else self.label


@dataclass(frozen=True)
class TextChange:
    """A text that differs between the two builds (:class:`composer.stages.named.NamedText`).

    Attributes:
        key: the text's name (``a.title``, ``text[0]``, ``b: xtick_3``). kind: ``canvas`` or ``panel``.
        before, after: the string at the revision and now; None where the text is not there (added,
            removed).
        numbers: the numbers that changed, ``(before, after)`` as written, in reading order, when the
            words around them are the same (``"n = 12"`` -> ``"n = 14"``: ``(("12", "14"),)``); else empty.
    """

    key: str
    kind: str
    before: str | None
    after: str | None
    numbers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ElementChange:
    """A named element (:class:`composer.stages.named.Element`) whose box moved or changed size.

    Attributes:
        name, key, kind: as :class:`~composer.stages.named.Element` names it.
        before, after: its box at the revision and now (canvas pt, top-left origin, y down).
        dx_pt, dy_pt: how far its top-left corner moved (right and down are positive).
        dwidth_pt, dheight_pt: how much wider and taller it got.
    """

    name: str
    key: str
    kind: str
    before: Box
    after: Box

    @property
    def dx_pt(self) -> float:
        return self.after.x_pt - self.before.x_pt

    @property
    def dy_pt(self) -> float:
        return self.after.y_pt - self.before.y_pt

    @property
    def dwidth_pt(self) -> float:
        return self.after.width_pt - self.before.width_pt

    @property
    def dheight_pt(self) -> float:
        return self.after.height_pt - self.before.height_pt

    @property
    def moved(self) -> bool:
        """Whether its top-left corner is elsewhere."""
        return abs(self.dx_pt) > TOLERANCE_PT or abs(self.dy_pt) > TOLERANCE_PT

    @property
    def resized(self) -> bool:
        """Whether its width or height changed."""
        return abs(self.dwidth_pt) > TOLERANCE_PT or abs(self.dheight_pt) > TOLERANCE_PT

    @property
    def distance_pt(self) -> float:
        """How far its top-left corner moved, in a straight line (pt)."""
        return float((self.dx_pt ** 2 + self.dy_pt ** 2) ** 0.5)


@dataclass(frozen=True)
class PixelChange:
    """What the two PNGs (at the same dpi, top-left corners together) differ by.

    Attributes:
        dpi: their resolution. width_px, height_px: the compared area (the larger of each side).
        changed: pixels whose colour differs (over white); removed: those where the revision had more
            ink (drawn ``REMOVED_RGB``); added: those where the figure now has more (``ADDED_RGB``).
        box_px: the smallest box holding every changed pixel, ``(x, y, width, height)`` px; None: none.
        where: ``(element name, changed pixels in its box)`` for every named element with changed pixels
            in its box at the revision or now (the boxes of :func:`~composer.stages.named.figure_elements`,
            each widened to whole pixels), in that list's order; boxes overlap (a label over its panel),
            so a pixel may count for two.
    """

    dpi: float
    width_px: int
    height_px: int
    changed: int
    removed: int
    added: int
    box_px: tuple[int, int, int, int] | None
    where: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class FigureDiff:
    """The comparison of figure ``name`` at a revision with the figure now (:func:`diff_figure`).

    Attributes:
        name: the figure. before, after: the two sides (:class:`Revision`).
        texts: texts changed, added or removed: canvas texts in document order, then panel texts.
        elements: elements that moved or changed size, in :func:`~composer.stages.named.figure_elements`'s order.
        added, removed: names of elements only now, and only at the revision.
        pixels: the pixels that differ (:class:`PixelChange`).
        image: where the diff image was written (None: not written).
        png: the diff image's bytes (the figure now faded to ``FADE`` grey, changed pixels coloured).
    """

    name: str
    before: Revision
    after: Revision
    texts: tuple[TextChange, ...]
    elements: tuple[ElementChange, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    pixels: PixelChange
    image: Path | None
    png: bytes = dataclasses.field(repr=False, default=b"")

    @property
    def changed(self) -> bool:
        """Whether the figure changed, that is whether its composed SVGs differ (equal inputs give equal bytes)."""
        return self.before.svg_sha256 != self.after.svg_sha256

    @property
    def resized_canvas(self) -> bool:
        """Whether the canvas's width or height changed."""
        return (abs(self.before.width_pt - self.after.width_pt) > TOLERANCE_PT
                or abs(self.before.height_pt - self.after.height_pt) > TOLERANCE_PT)

    def lines(self) -> list[str]:
        """The report as the command prints it: a first line saying whether the figure changed, then one
        line per change; lengths in the unit of the figure's ``[figure] width`` (its current one)."""
        unit = self.after.unit
        head = f"{self.name}: {self.before.name} -> {self.after.name}: "
        if not self.changed:
            return [head + "unchanged (the same SVG bytes)"]
        out = [head + "changed"]
        if self.resized_canvas:
            out.append(f"canvas: {say_pair(self.before.width_pt, self.before.height_pt, unit)} -> "
                       f"{say_pair(self.after.width_pt, self.after.height_pt, unit)}")
        for t in self.texts:
            if t.before is None:
                out.append(f"text added {t.key}: {t.after!r}")
            elif t.after is None:
                out.append(f"text removed {t.key}: {t.before!r}")
            else:
                numbers = (" (" + ", ".join(f"{a} -> {b}" for a, b in t.numbers) + ")") if t.numbers else ""
                out.append(f"text {t.key}: {t.before!r} -> {t.after!r}{numbers}")
        for e in self.elements:
            out.append(_element_line(e, unit))
        out += [f"element added: {name}" for name in self.added]
        out += [f"element removed: {name}" for name in self.removed]
        p = self.pixels
        where = f": {self.image}" if self.image is not None else ""
        out.append(f"pixels: {p.changed:,} of {p.width_px * p.height_px:,} changed at {p.dpi:g} dpi "
                   f"({p.removed:,} removed, {p.added:,} added){where}")
        if p.where:
            out.append("changed pixels in the box of: " + ", ".join(f"{name} ({n:,})" for name, n in p.where))
        return out

    def as_dict(self) -> dict[str, Any]:
        """The report as plain data (``compose diff --json``, the preview's Diff toggle): lengths in pt to
        0.001; ``unit``: the one messages use (the figure's ``[figure] width``'s)."""
        def box(b: Box) -> list[float]:
            return [round(v, 3) for v in (b.x_pt, b.y_pt, b.width_pt, b.height_pt)]

        def side(r: Revision) -> dict[str, Any]:
            return {"label": r.label, "commit": r.commit, "width_pt": round(r.width_pt, 3),
                    "height_pt": round(r.height_pt, 3), "svg_sha256": r.svg_sha256}

        return {
            "name": self.name, "changed": self.changed, "before": side(self.before), "after": side(self.after),
            "unit": self.after.unit,
            "texts": [{"key": t.key, "kind": t.kind, "before": t.before, "after": t.after,
                       "numbers": [list(n) for n in t.numbers]} for t in self.texts],
            "elements": [{"name": e.name, "key": e.key, "kind": e.kind, "before_pt": box(e.before),
                          "after_pt": box(e.after), "dx_pt": round(e.dx_pt, 3), "dy_pt": round(e.dy_pt, 3)}
                         for e in self.elements],
            "added": list(self.added), "removed": list(self.removed),
            "pixels": dataclasses.asdict(self.pixels),
            "image": str(self.image) if self.image is not None else None,
        }


def _element_line(e: ElementChange, unit: str) -> str:
    """``moved panel b: 5.0 mm right, 2.0 mm down (5.4 mm); now at 80.0, 10.0 mm, 40.0 x 40.0 mm``.

    The numbers have the unit's usual decimals (:data:`composer.units.SAY_DECIMALS`), or as many more
    (up to 3 more) as a move or a change of size over :data:`TOLERANCE_PT` needs to show as more than 0:
    a box that moved 0.01 mm is said to have moved 0.01 mm, never "0.0 mm"."""
    ppu = PT_PER_UNIT.get(unit, 1.0)
    unit = unit if unit in PT_PER_UNIT else "pt"
    deltas = [d for d in (e.dx_pt, e.dy_pt, e.dwidth_pt, e.dheight_pt) if abs(d) > TOLERANCE_PT]
    decimals = SAY_DECIMALS[unit]
    while decimals < SAY_DECIMALS[unit] + 3 and any(round(abs(d) / ppu, decimals) == 0 for d in deltas):
        decimals += 1

    def num(length_pt: float) -> str:
        text = f"{length_pt / ppu:.{decimals}f}"
        return text.lstrip("-") if float(text) == 0 else text

    parts = []
    if e.moved:
        steps = [f"{num(abs(d))} {unit} {word[d > 0]}" for d, word in
                 ((e.dx_pt, ("left", "right")), (e.dy_pt, ("up", "down"))) if abs(d) > TOLERANCE_PT]
        parts.append(f"moved {', '.join(steps)} ({num(e.distance_pt)} {unit})")
    if e.resized:
        parts.append(f"resized from {num(e.before.width_pt)} x {num(e.before.height_pt)} {unit}")
    a = e.after
    return (f"{' and '.join(parts)}: {e.name}, now at {num(a.x_pt)}, {num(a.y_pt)} {unit}, "
            f"{num(a.width_pt)} x {num(a.height_pt)} {unit}")


# ─── the comparison (pure) ──────────────────────────────────────────────


def compare_texts(before: Sequence[NamedText], after: Sequence[NamedText]) -> list[TextChange]:
    """The texts that differ: changed (both sides), added (now only), removed (revision only).

    Canvas texts are matched by key (their layout keys stay). The texts matplotlib drew in one panel
    or guide are matched by order instead, since matplotlib numbers them in drawing order (one tick
    more renames every text after it): the two sequences of strings are aligned
    (:class:`difflib.SequenceMatcher`, the longest matching blocks), so a tick inserted is one text
    added, the others unchanged; a run of strings replaced by as many is that many changes, each under
    its key now; what is left of a longer run is added or removed.

    Returns:
        The canvas's changes in the order of ``after``, then its removed texts in the order of
        ``before``; then each panel's and guide's changes (in the order of ``after``'s, then those only
        in ``before``), in reading order.
    """
    canvas_old = {t.key: t for t in before if t.kind == "canvas"}
    canvas_new = {t.key for t in after if t.kind == "canvas"}
    changes = [_change(canvas_old.get(t.key), t) for t in after if t.kind == "canvas"
               and (t.key not in canvas_old or canvas_old[t.key].text != t.text)]
    changes += [_change(t, None) for t in before if t.kind == "canvas" and t.key not in canvas_new]
    groups: dict[str, tuple[list[NamedText], list[NamedText]]] = {}
    for side, texts in enumerate((after, before)):
        for t in texts:
            if t.kind != "canvas":
                groups.setdefault(t.key.split(": ")[0], ([], []))[1 - side].append(t)
    for old, new in groups.values():
        matcher = difflib.SequenceMatcher(None, [t.text for t in old], [t.text for t in new], autojunk=False)
        for tag, i0, i1, j0, j1 in matcher.get_opcodes():
            if tag == "equal":
                continue
            pairs = min(i1 - i0, j1 - j0)
            changes += [_change(old[i0 + k], new[j0 + k]) for k in range(pairs)]
            changes += [_change(None, t) for t in new[j0 + pairs:j1]]
            changes += [_change(t, None) for t in old[i0 + pairs:i1]]
    return changes


def _change(old: NamedText | None, new: NamedText | None) -> TextChange:
    """One :class:`TextChange`, under the key it has now (the revision's when it is gone)."""
    named = new if new is not None else old
    assert named is not None
    numbers = _numbers(old.text, new.text) if old is not None and new is not None else ()
    return TextChange(named.key, named.kind, old.text if old is not None else None,
                      new.text if new is not None else None, numbers)


def _numbers(before: str, after: str) -> tuple[tuple[str, str], ...]:
    """The numbers of ``before`` that ``after`` writes differently, when the rest of the two is equal."""
    if _NUMBER.sub("#", before) != _NUMBER.sub("#", after):
        return ()
    return tuple((a, b) for a, b in zip(_NUMBER.findall(before), _NUMBER.findall(after)) if a != b)


def compare_elements(before: Sequence[Element], after: Sequence[Element]
                     ) -> tuple[list[ElementChange], list[str], list[str]]:
    """``(changes, added, removed)``: the elements (by name) whose box moved or changed size, in the order
    of ``after``; the names only in ``after``; the names only in ``before``. An element without a box on
    either side is compared by name only."""
    old = {e.name: e for e in before}
    new = {e.name for e in after}
    changes = []
    for e in after:
        was = old.get(e.name)
        if was is None or was.box is None or e.box is None:
            continue
        change = ElementChange(e.name, e.key, e.kind, was.box, e.box)
        if change.moved or change.resized:
            changes.append(change)
    return (changes, [e.name for e in after if e.name not in old], [e.name for e in before if e.name not in new])


def compare_pixels(before_png: bytes, after_png: bytes, dpi: float,
                   boxes: Sequence[tuple[str, Sequence[Box]]] = ()) -> tuple[PixelChange, bytes]:
    """Compare two PNGs of one figure drawn at ``dpi`` and draw the diff image; ``boxes``: each named
    element's boxes (pt), to say in which the changed pixels lie (:attr:`PixelChange.where`).

    Each is put over white; the area compared is the larger width by the larger height, each image in
    its top-left corner (canvas coordinates start there), white beyond its edge. A pixel changed when
    its colour differs at all (the exports are deterministic: an unchanged figure gives equal pixels);
    it lost ink when the revision's grey there is darker than the current one (luma, ITU-R BT.601),
    else it gained ink.

    Returns:
        ``(pixels, png)``: the :class:`PixelChange`, and the diff image as PNG bytes: the current figure
        in grey faded to ``FADE`` of its ink, changed pixels in ``REMOVED_RGB`` or ``ADDED_RGB``.
    """
    import numpy as np

    a, b = _over_white(before_png), _over_white(after_png)
    height, width = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
    a, b = _padded(a, height, width), _padded(b, height, width)
    changed = np.any(a != b, axis=2)
    luma_a, luma_b = _luma(a), _luma(b)
    removed = changed & (luma_a < luma_b)
    added = changed & ~removed
    grey = np.rint(255.0 - FADE * (255.0 - luma_b)).astype(np.uint8)
    image = np.repeat(grey[:, :, None], 3, axis=2)
    image[removed] = REMOVED_RGB
    image[added] = ADDED_RGB
    ys, xs = np.nonzero(changed)
    box = (None if xs.size == 0 else
           (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)))
    where = []
    scale = dpi / 72.0
    for name, held in boxes:
        inside = np.zeros(changed.shape, dtype=bool)
        for b in held:
            x0, y0 = max(int(b.x_pt * scale), 0), max(int(b.y_pt * scale), 0)
            x1, y1 = math.ceil((b.x_pt + b.width_pt) * scale), math.ceil((b.y_pt + b.height_pt) * scale)
            inside[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)] = True  # a line's box of no height: one pixel
        count = int((changed & inside).sum())
        if count:
            where.append((name, count))
    pixels = PixelChange(dpi=float(dpi), width_px=int(width), height_px=int(height), changed=int(changed.sum()),
                         removed=int(removed.sum()), added=int(added.sum()), box_px=box, where=tuple(where))
    return pixels, _png(image, dpi)


def _over_white(png: bytes) -> Any:
    """A PNG as an (h, w, 3) uint8 array, composited over white."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        rgba = np.asarray(img.convert("RGBA")).astype(np.float64)
    alpha = rgba[:, :, 3:4] / 255.0
    return np.rint(rgba[:, :, :3] * alpha + 255.0 * (1.0 - alpha)).astype(np.uint8)


def _padded(rgb: Any, height: int, width: int) -> Any:
    import numpy as np

    out = np.full((height, width, 3), 255, dtype=np.uint8)
    out[:rgb.shape[0], :rgb.shape[1]] = rgb
    return out


def _luma(rgb: Any) -> Any:
    return rgb[:, :, 0] * 0.299 + rgb[:, :, 1] * 0.587 + rgb[:, :, 2] * 0.114


def _png(rgb: Any, dpi: float) -> bytes:
    """An (h, w, 3) uint8 array as PNG bytes (deterministic: no time, no text chunks), its ``pHYs`` at ``dpi``."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


# ─── the two builds ─────────────────────────────────────────────────────


def diff_figure(name: str, rev: str = "HEAD", *, root: str | Path = ".", out: str | Path | None = None,
                dpi: float = DEFAULT_DPI, jobs: int | None = None, timeout_s: float | None = DEFAULT_TIMEOUT_S,
                write: bool = True, progress: Callable[[], Progress] | None = None) -> FigureDiff:
    """Compare figure ``name`` as it was at git revision ``rev`` with the figure as it is now (the working
    tree, uncommitted changes included), and write the diff image ``OUT/NAME.diff.png``.

    Args:
        name: the figure, ``layouts/NAME.toml`` (or ``.py``) of the project at ``root``.
        rev: any revision git reads (``HEAD``, ``HEAD~2``, a tag, a commit).
        out: where the diff image goes (default ``ROOT/build``); nothing else is written there.
        dpi: the resolution both figures are drawn at for the pixel comparison and the diff image.
        jobs, timeout_s: as :func:`composer.pipeline.build` takes them, for each build.
        write: write the diff image (False: its bytes only, in :attr:`FigureDiff.png`).
        progress: makes the progress display of each build (default: shows nothing).

    Returns:
        A :class:`FigureDiff`.

    Raises:
        ProjectError: ``root`` is in no git repository, git is not installed, or ``rev`` is no commit.
        ComposerError: the figure cannot be built at one of the two, in one line that starts with
            which (``at HEAD (4e42041): layouts/fig.toml:3:9: ...``, ``now: ...``).
    """
    from composer.incremental.cache import cache_dir
    from composer.pipeline import check_outputs
    from composer.sandbox.isolate import check_jobs, check_timeout
    from composer.svg.io import write_files_atomically

    check_outputs(("png",), dpi)
    check_timeout(timeout_s)
    check_jobs(jobs)
    project = Project.at(root)
    project.layout_path(name)  # no such figure now: said before git runs
    out_dir = Path(out) if out is not None else project.root / "build"
    options = BuildOptions(formats=("svg",), dpi=dpi, timeout_s=timeout_s, jobs=jobs or available_cores(),
                           write=False, elements=True, panel_cache=cache_dir(project.root).resolve())
    make = progress or Progress
    top, prefix = _repository(project.root)
    commit = _commit(top, rev)
    with tempfile.TemporaryDirectory(prefix="composer-diff-") as scratch:  # no manifest: every export made
        now = _side("now", "", name, project.root, Path(scratch) / "now", options, make())
        with revision_tree(top, commit) as tree:
            then = _side(f"at {rev} ({commit[:7]})", commit, name, tree / prefix, Path(scratch) / "then", options,
                         make(), hide=tree)
    before, after = dataclasses.replace(then[0], label=rev), now[0]
    texts = compare_texts(then[1].texts, now[1].texts)
    elements, added, removed = compare_elements(then[1].elements, now[1].elements)
    drawn = drawn_alike(then[2], now[2], dpi, timeout_s=timeout_s, jobs=options.jobs)
    pixels, png = compare_pixels(*drawn, dpi, boxes=_boxes(then[1].elements, now[1].elements))
    image = out_dir / f"{name}.diff.png" if write else None
    if image is not None:
        with deferred_interrupt():
            write_files_atomically({image: png})
    return FigureDiff(name=name, before=before, after=after, texts=tuple(texts), elements=tuple(elements),
                      added=tuple(added), removed=tuple(removed), pixels=pixels, image=image, png=png)


def _boxes(before: Sequence[Element], after: Sequence[Element]) -> list[tuple[str, list[Box]]]:
    """Each element's boxes at the revision and now, by name: those of ``after`` in its order, then those only
    in ``before``."""
    held: dict[str, list[Box]] = {}
    for e in (*after, *before):
        if e.box is not None and e.box not in held.setdefault(e.name, []):
            held[e.name].append(e.box)
    return [(name, boxes) for name, boxes in held.items() if boxes]


def _side(label: str, commit: str, name: str, root: Path, out: Path, options: BuildOptions, progress: Progress,
          *, hide: Path | None = None) -> tuple[Revision, BuildResult, bytes]:
    """Build one side: ``(revision, result, svg)``. An error is raised again as one line starting with
    ``label``, the temporary tree's folder (``hide``) left out of its words. The warnings of a build of
    the past (``hide`` given) are not issued: they were the past's (a build now issues its own)."""
    try:
        with warnings.catch_warnings():
            if hide is not None:
                warnings.simplefilter("ignore", ComposerWarning)
            result, made = build_layout(name, options, root=root, out=out, progress=progress)
    except ComposerError as exc:
        text = str(exc)
        if hide is not None:
            text = text.replace(f"{hide.resolve()}/", "").replace(f"{hide}/", "")
        raise type(exc)(f"{label}: {text}", frames=exc.frames) from None
    width_pt, height_pt, unit = _canvas(made["svg"])
    side = Revision(label=label, commit=commit, width_pt=width_pt, height_pt=height_pt, unit=unit,
                    svg_sha256=hashlib.sha256(made["svg"]).hexdigest(), rendered=result.rendered,
                    cached=result.cached)
    return side, result, made["svg"]


def drawn_alike(before_svg: bytes, after_svg: bytes, dpi: float, *, timeout_s: float | None = DEFAULT_TIMEOUT_S,
                jobs: int = 1) -> tuple[bytes, bytes]:
    """Both composed SVGs as PNGs on one canvas, so that what did not change gives the same pixels.

    A PNG is a whole number of pixels wide, so an export scales a canvas of 55.9 mm and one of 57 mm at
    100 dpi by slightly different factors (220/220.08 and 224/224.41): every edge would move a fraction
    of a pixel and the whole figure would look changed. Each SVG is put on a canvas of the larger width
    and height of the two, rounded up to whole pixels at ``dpi`` (its own drawing where it was, the rest
    transparent: white in the comparison), and exported by the default engine
    (:func:`composer.stages.export.export`), so both are drawn at exactly ``dpi`` / 72 px per pt.
    (The panels of PDF pages are drawn from their converted SVG on both sides, as the figure's SVG holds
    them.)

    Raises:
        SvgError: the engine could not draw one of them.
    """
    from composer.stages.export import export

    sizes = [_canvas(svg)[:2] for svg in (before_svg, after_svg)]
    width_px = math.ceil(max(w for w, _ in sizes) * dpi / 72.0 - 1e-6)
    height_px = math.ceil(max(h for _, h in sizes) * dpi / 72.0 - 1e-6)
    width_pt, height_pt = width_px * 72.0 / dpi, height_px * 72.0 / dpi
    drawn = [export(_on_canvas(svg, width_pt, height_pt), ["png"], dpi=dpi, timeout_s=timeout_s, jobs=jobs,
                    source="compose diff")["png"] for svg in (before_svg, after_svg)]
    return drawn[0], drawn[1]


def _on_canvas(svg: bytes, width_pt: float, height_pt: float) -> bytes:
    """A composed SVG on a canvas of ``width_pt`` x ``height_pt`` from the same top-left corner (its
    viewBox is in pt, as composer writes it: only the root's size and viewBox change)."""
    from lxml import etree

    from composer.units import fmt

    root = etree.fromstring(svg, etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True))
    root.set("width", f"{fmt(width_pt)}pt")
    root.set("height", f"{fmt(height_pt)}pt")
    root.set("viewBox", f"0 0 {fmt(width_pt)} {fmt(height_pt)}")
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")


def _canvas(svg: bytes) -> tuple[float, float, str]:
    """The composed SVG's canvas: width and height in pt (its viewBox, pt by design) and the unit of its width."""
    head = svg[:4096].decode("utf-8", "replace")
    root = re.search(r"<svg\b[^>]*>", head)
    tag = root.group(0) if root else ""
    box = re.search(r'viewBox="([^"]*)"', tag)
    width = re.search(r'\bwidth="([^"]*)"', tag)
    numbers = [float(v) for v in box.group(1).replace(",", " ").split()] if box else [0.0, 0.0, 0.0, 0.0]
    unit = layout_unit(width.group(1) if width else None)
    return numbers[2], numbers[3], unit if unit in PT_PER_UNIT else "pt"


# ─── git ────────────────────────────────────────────────────────────────


def _git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd``; its stdout, stripped.

    Raises:
        ProjectError: git is not installed, or it failed (its first line of stderr said why).
    """
    try:
        done = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=cwd, capture_output=True,
                              text=True, check=False)
    except FileNotFoundError:
        raise ProjectError("compose diff needs git, which is not installed (apt-get install git, brew install "
                           "git)") from None
    if done.returncode != 0:
        said = next((line for line in done.stderr.splitlines() if line.strip()), f"exit status {done.returncode}")
        raise ProjectError(f"git {args[0]}: {said.strip()}")
    return done.stdout.strip()


def _repository(root: Path) -> tuple[Path, str]:
    """``(top, prefix)``: the git work tree holding the project at ``root`` and the project's folder in it
    (``""``, or ``"paper/figures"``).

    Raises:
        ProjectError: ``root`` is in no git repository (or git is missing).
    """
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
    except ProjectError as exc:
        if "not a git repository" not in str(exc):
            raise
        raise ProjectError(f"{root}: not in a git repository; compose diff compares the figure with a commit "
                           "(git init, git commit, then change the figure)") from None
    prefix = _git(root, "rev-parse", "--show-prefix")
    return Path(top), prefix.rstrip("/")


def _commit(top: Path, rev: str) -> str:
    """The full hash of the commit ``rev`` names.

    Raises:
        ProjectError: ``rev`` names no commit of the repository.
    """
    if rev.startswith("-"):
        raise ProjectError(f"{rev!r} is no revision (a revision does not start with '-')")
    try:
        return _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except ProjectError:
        raise ProjectError(f"{rev!r}: no such commit in {top} (give a commit, a branch or a tag: HEAD, HEAD~1, "
                           "v1.0)") from None


@contextlib.contextmanager
def revision_tree(top: Path, commit: str) -> Iterator[Path]:
    """The repository at ``top`` as it was at ``commit``: a detached ``git worktree`` in a temporary folder,
    removed (with git's record of it) when the block ends, also on an error or Ctrl-C (a Ctrl-C during
    the removal waits for it: :func:`composer.sandbox.isolate.deferred_interrupt`).

    Raises:
        ProjectError: git could not make the worktree.
    """
    scratch = Path(tempfile.mkdtemp(prefix="composer-rev-"))
    tree = scratch / "tree"
    try:
        _git(top, "worktree", "add", "--detach", "--quiet", str(tree), commit)
        yield tree
    finally:
        with deferred_interrupt():
            with contextlib.suppress(ProjectError):
                _git(top, "worktree", "remove", "--force", str(tree))
            shutil.rmtree(scratch, ignore_errors=True)
            with contextlib.suppress(ProjectError):
                _git(top, "worktree", "prune")
