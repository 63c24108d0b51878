"""Load stage: ``layouts/NAME.toml`` -> :class:`composer.layout.model.Figure`.

Every key is checked here, up front, so later stages never meet a bad value:
unknown keys, bad units, negative sizes, unknown enum values, duplicate or
unknown element names. Errors name the file, the key path, the bad value and
the valid choices, in the style of matplotlib's ``_api.check_in_list``.
References to anchors are checked by name here; data anchors published by a
renderer can only be checked after rendering (:mod:`composer.stages.geometry`).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from composer.errors import ComposerError, LayoutError, closest, did_you_mean
from composer.kinds import shapes as shape_kinds
from composer.kinds.rules import RULES
from composer.kinds.shapes import SHAPES
from composer.layout import presets, sources
from composer.layout.constraints import (
    BESIDE,
    BESIDE_SIDE,
    COLORBAR_SIZE,
    GRID_SIZE,
    PANEL_SIZE,
    PLACEMENT,
    RELATION_ALIGN,
    RELATION_ANCHOR,
    CellOrSize,
)
from composer.layout.model import (
    AUTO_HEIGHT_PT,
    Align,
    Arrow,
    CheckLimits,
    Colorbar,
    Figure,
    FigureSpec,
    Grid,
    Legend,
    Panel,
    Placement,
    Position,
    Shape,
    Text,
    TextStyle,
)
from composer.layout.positions import locate
from composer.layout.section import REQUIRED
from composer.layout.section import LayoutReader as _Reader
from composer.layout.section import Section as _Table
from composer.layout.vocabulary import (  # noqa: F401
    COMPASS,
    COMPASS_WORDS,
    HEAD_PER_WIDTH,
    LABEL_SIZE_ABOVE_FONT_PT,
    MAX_RATIO,
    RELATIONS,
    SHAPE_KINDS,
    TRACK_SHARE,
)
from composer.layout.vocabulary import PLACEMENT_KEYS as _PLACEMENT_KEYS
from composer.sandbox.audit import run_recorded
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure
from composer.units import to_pt

#: the smallest canvas side, pt (1 mm): smaller is a unit slip, and has no pixels to export.
MIN_CANVAS_PT = 72 / 25.4

def load_layout(path: Path, *, name: str | None = None, display: str | None = None,
                timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Figure:
    """Read and validate one layout file, TOML (``.toml``) or Python (``.py``).

    A Python layout defines ``layout() -> dict``: the same document a TOML
    file holds, built in code (loops for repeated rows); it is validated the
    same way, key by key.

    Args:
        path: the layout file.
        name: the figure's name (default: the file stem).
        display: how to name the file in errors (default: ``path``).
        timeout_s: a Python layout runs in a forked worker (as panel code
            does: :mod:`composer.sandbox.isolate`), stopped after this many seconds;
            None: no limit.

    Returns:
        A :class:`Figure` with every length in pt and every element reference
        checked against the declared names (compass anchors checked; data
        anchors checked after rendering).

    Raises:
        LayoutError: unreadable file, unknown key, bad value, over- or
            under-constrained placement; a Python layout that raised, exited,
            crashed or ran past ``timeout_s``; the message names the file and
            key path.
    """
    path = Path(path)
    r = _Reader(path, display or str(path))
    raw = _read_python(r, timeout_s) if path.suffix == ".py" else _read_toml(r)
    try:
        return layout_from_dict(raw, r, name=name or path.stem)
    except ComposerError as exc:  # a TOML layout's error: the line of its key too
        if exc.file == r.file:
            locate(exc, path)
        raise


def load_document(raw: dict[str, Any], path: Path, *, name: str, display: str | None = None) -> Figure:
    """Validate a layout document built in code as if it were the file ``path``.

    The same validator as :func:`load_layout` (:func:`layout_from_dict`):
    relative paths in the document resolve against ``path``'s folder, and
    errors name ``display`` (default: ``path``).

    Raises:
        LayoutError: as :func:`load_layout`.
    """
    path = Path(path)
    return layout_from_dict(raw, _Reader(path, display or str(path)), name=name)


def read_document(path: Path, *, display: str | None = None) -> dict[str, Any]:
    """The layout document of a TOML or Python layout file, unvalidated (``tomllib`` / ``layout()``).

    Raises:
        LayoutError: unreadable TOML, or a Python layout that fails or returns no dict.
    """
    path = Path(path)
    r = _Reader(path, display or str(path))
    return _read_python(r) if path.suffix == ".py" else _read_toml(r)


def _read_toml(r: _Reader) -> dict[str, Any]:
    try:
        text = r.path.read_text(encoding="utf-8")
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"not valid TOML: {exc}{_toml_hint(str(exc), text)}", file=r.file) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"cannot read: {exc}", file=r.file) from None


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _toml_hint(message: str, text: str) -> str:
    """The line tomllib stopped at, and what usually causes its error there (TOML 1.0: an inline table
    takes no comma after its last entry; a basic string ends on its line)."""
    found = _TOML_AT.search(message)
    if found is None:
        return ""
    lines = text.splitlines()
    number, column = int(found.group(1)), int(found.group(2))
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    shown = f": {line[:80]!r}" if line else ""
    before = lines[number - 1][:column - 1].rstrip() if 0 < number <= len(lines) else ""
    if number == 1 and line.startswith("\ufeff"):  # Notepad's UTF-8 "signature"; TOML is UTF-8 without one
        return f"{shown} (the file starts with a byte order mark, U+FEFF: save it as UTF-8 without one)"
    if "key part" in message and before.endswith(","):
        return f"{shown} (an inline table {{...}} takes no comma after its last entry)"
    if "Illegal character '\\n'" in message or "Unterminated string" in message:
        return f'{shown} (a "string" ends on its line: close its quote, or use """...""" for several lines)'
    return shown


def _read_python(r: _Reader, timeout_s: float | None = DEFAULT_TIMEOUT_S) -> dict[str, Any]:
    """Run a Python layout's ``layout()`` in a forked worker; its dict comes back by pickle."""
    def work() -> Any:
        import importlib.util

        spec = importlib.util.spec_from_file_location(f"composer_layouts.{r.path.stem}", r.path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        func = getattr(module, "layout", None)
        if not callable(func):
            raise LayoutError("a Python layout defines layout() returning the layout as a dict", file=r.file)
        return func()

    try:
        raw = run_recorded(work, timeout_s=timeout_s, who=f"the layout {r.file}",
                           cwd=r.path.resolve().parent.parent)  # in the project (layouts/NAME.py); files: sandbox.audit
    except WorkerFailure as failure:  # worded as a renderer's failure is, its frames carried
        raise LayoutError(failure.worded("running the layout", r.path.parent), file=r.file,
                          frames=failure.frames) from None
    if not isinstance(raw, dict):
        raise LayoutError(f"layout() returned {type(raw).__name__}, not a dict", file=r.file)
    return raw


def layout_from_dict(raw: dict[str, Any], r: _Reader, *, name: str) -> Figure:
    """Validate a layout document (parsed TOML, or a Python layout's dict) into a Figure."""
    top = r.section(raw, "", "layout")
    _styles(r, top)
    spec = _figure_spec(r, top.get("figure", default=None), top.get("check"))  # no [figure]: its own error
    for cls_name in r.classes:  # every text style is checked, used or not (a typo in one is found now)
        try:
            _text_style(r, r.section({"class": cls_name}, f"styles.{cls_name}", "text"), spec)
        except LayoutError as exc:  # a value of a shared style file's class: that file's error
            raise _from_its_file(r, exc) from None
    grids = []
    if "grid" in top.raw:
        grids.append(_grid(r, top.get("grid"), "", "grid", spec))
    else:
        top.asked.append("grid")
    grids += [_grid(r, v, n, f"grids.{n}", spec) for n, v in r.section(top.get("grids"), "grids", None).raw.items()]
    if spec.height_auto and spec.margin_pt is None:  # the space below: the [grid] margin's bottom, else none
        below = r.margin(top.raw["grid"].get("margin", "0pt"), "grid.margin")[2] if "grid" in top.raw else 0.0
        spec = dataclasses.replace(spec, margin_pt=below)
    written = tuple(_panel(r, n, v, spec) for n, v in r.section(top.get("panels"), "panels", None).raw.items())
    panels = _unique_labels(r, written, _auto_labels(r, spec, written))
    texts = tuple(_text(r, t, f"text[{i}]", spec) for i, t in enumerate(_array(r, top.get("text"), "text")))
    shapes = tuple(_shape(r, s, f"shape[{i}]", spec) for i, s in enumerate(_array(r, top.get("shape"), "shape")))
    arrows = tuple(_arrow(r, a, f"arrow[{i}]", spec) for i, a in enumerate(_array(r, top.get("arrow"), "arrow")))
    aligns = tuple(_align(r, a, f"align[{i}]") for i, a in enumerate(_array(r, top.get("align"), "align")))
    legends = tuple(_legend(r, g, f"legend[{i}]") for i, g in enumerate(_array(r, top.get("legend"), "legend")))
    colorbars = tuple(_colorbar(r, c, f"colorbar[{i}]")
                      for i, c in enumerate(_array(r, top.get("colorbar"), "colorbar")))
    top.done()
    figure = Figure(name=name, path=r.path, spec=spec, panels=panels, texts=texts, shapes=shapes, arrows=arrows,
                    grids=tuple(grids), aligns=aligns, files=tuple(dict.fromkeys(r.files)), legends=legends,
                    colorbars=colorbars)
    _check_names(r, figure)
    _check_check(r, figure)
    return figure


def overlap_names(figure: Figure) -> list[str]:
    """Every name ``[check] allow_overlap`` may use, in this order: panels, guides (name, else key), texts
    and shapes (name, else ``text[i]``/``shape[i]``), ``arrow[i]``, then ``NAME.label`` and ``NAME.title``
    of the panels that have them (as ``compose check`` names the elements it reports)."""
    names = [p.name for p in figure.panels]
    names += [g.name or g.key for g in figure.guides]
    names += [t.name or f"text[{i}]" for i, t in enumerate(figure.texts)]
    names += [s.name or f"shape[{i}]" for i, s in enumerate(figure.shapes)]
    names += [f"arrow[{i}]" for i in range(len(figure.arrows))]
    names += [f"{p.name}.label" for p in figure.panels if p.label]
    return names + [f"{p.name}.title" for p in figure.panels if p.title]


def _check_check(r: _Reader, figure: Figure) -> None:
    """``[check] allow_overlap`` names elements, and ``[check] ignore`` panels or guides and rules, that exist.

    Raises:
        LayoutError: at ``check.allow_overlap[i]`` or ``check.ignore.PANEL``, the first unknown name,
            the closest valid one and every valid one (one line).
    """
    limits = figure.spec.check
    valid = overlap_names(figure)
    for i, pair in enumerate(limits.allow_overlap):
        for name in pair:
            if name not in valid:
                raise r.err(f"check.allow_overlap[{i}]", f"{name!r} is not an element{did_you_mean(name, valid)}; "
                                                          f"elements are {', '.join(valid) or '(none)'}")
    guides = [g.name or g.key for g in figure.guides]  # as allow_overlap and compose check name them
    named = [p.name for p in figure.panels] + guides
    one, every = ("panel or guide", "panels and guides") if guides else ("panel", "panels")
    for panel, rules in limits.ignore:
        if panel not in named:
            raise r.err(f"check.ignore.{panel}", f"{panel!r} is not a {one}{did_you_mean(panel, named)}; "
                                                 f"{every} are {', '.join(named) or '(none)'}")
        for rule in rules:
            if rule not in RULES:  # the check's own table (composer.kinds.rules), below this layer
                close = did_you_mean(rule, RULES.names())
                raise r.err(f"check.ignore.{panel}", f"{rule!r} is not a rule of compose check{close}; "
                                                     f"rules are {', '.join(RULES.names())}")


def _unique_labels(r: _Reader, written: tuple[Panel, ...], labelled: tuple[Panel, ...]) -> tuple[Panel, ...]:
    """``labelled`` (the panels with their labels, :func:`_auto_labels`), checked that no two panels carry the
    same label: a reader of the paper could not tell which one the text means.

    Raises:
        LayoutError: at the second panel's ``label`` key when it wrote its label, else at the first's (one of
            the two wrote it: a letter of ``[figure] labels`` is never given twice), naming both panels.
    """
    owner: dict[str, Panel] = {}
    own = {p.name for p in written if isinstance(p.label, str)}
    for p in labelled:
        if not isinstance(p.label, str) or not p.label:
            continue
        first = owner.setdefault(p.label, p)
        if first is not p:
            at = p.name if p.name in own else first.name
            other = first.name if at == p.name else p.name
            raise r.err(f"panels.{at}.label", f"{p.label!r}: panel {other!r} has this label too, and two panels "
                                              "cannot carry one label; give this one another, or label = false "
                                              "(with [figure] labels) to leave it without")
    return labelled


def _auto_labels(r: _Reader, spec: FigureSpec, panels: tuple[Panel, ...]) -> tuple[Panel, ...]:
    """Each panel's label under ``[figure] labels``: the n-th letter of the style
    (:func:`composer.layout.presets.auto_label`) for the n-th panel in ``label_order``, or in the order
    the panels are written. A panel with its own ``label`` keeps it and takes its letter's place (the
    next panel gets the letter after); one with ``label = false`` is skipped and takes no letter, as
    R patchwork and cowplot leave a panel without a tag out of the count.

    Raises:
        LayoutError: ``label_order`` names a panel that does not exist, or leaves out one that takes a
            letter; ``label = false`` without ``[figure] labels`` (it would do nothing).
    """
    skipped = {p.name for p in panels if p.label is False}
    if spec.labels is None:
        if skipped:
            name = next(p.name for p in panels if p.name in skipped)
            raise r.err(f"panels.{name}.label", "label = false skips a panel of [figure] labels, and [figure] has "
                                                "no labels; without labels a panel has no label unless it has "
                                                "one: remove the key")
        return panels
    by_name = {p.name: p for p in panels}
    order = spec.label_order or tuple(n for n in by_name if n not in skipped)
    for i, name in enumerate(order):
        if name not in by_name:
            raise r.err(f"figure.label_order[{i}]", f"{name!r} is not a panel{did_you_mean(name, by_name)}"
                        f"; panels are {', '.join(by_name) or 'none'}")
        if name in skipped:
            raise r.err(f"figure.label_order[{i}]", f"panel {name!r} has label = false; remove it from "
                                                    "label_order, or give it a letter")
    missing = [n for n in by_name if n not in order and n not in skipped]
    if missing:
        raise r.err("figure.label_order", f"panel {missing[0]!r} is not listed; list every lettered panel in "
                                          "label_order, or set label = false on it")
    letters = {name: presets.auto_label(spec.labels, i) for i, name in enumerate(order)}
    journal = presets.PRESETS[spec.preset].label if spec.preset else None
    out = []
    for p in panels:
        if p.label is False:
            out.append(dataclasses.replace(p, label=None))
        elif p.label is None:
            letter = letters[p.name]
            out.append(dataclasses.replace(p, label=journal.format(letter) if journal else letter))
        else:
            out.append(p)
    return tuple(out)


def _array(r: _Reader, value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise r.err(key, f"expected an array of tables ([[{key}]]), got {value!r}")
    return value


def _styles(r: _Reader, top: _Table) -> None:
    """Read the palette and text classes: a shared style file first, then the layout's own tables.

    ``[figure] style = "../styles/paper.toml"`` names a file holding
    ``[colors]``, ``[styles.NAME]`` and ``[rcparams]``; the layout's tables of
    the same names add to and override it.
    """
    figure: dict[str, Any] = top.raw["figure"] if isinstance(top.raw.get("figure"), dict) else {}
    sources: list[tuple[dict[str, Any], _Reader]] = []
    if "style" in figure:
        style_path = r.file_path(figure["style"], "figure.style", (".toml",))
        sr = _Reader(style_path, str(Path(r.file).parent / figure["style"]), files=r.files)
        sources.append((_read_toml(sr), sr))
    sources.append((top.raw, r))
    for raw, reader in sources:
        tables = reader.section(raw, "", "style_file") if raw is not top.raw else top
        colors = reader.section(tables.get("colors"), "colors", None)
        for cname, value in colors.raw.items():
            r.name(cname, f"colors.{cname}")
            r.colors[cname] = reader.color(value, f"colors.{cname}") or "none"
        styles = reader.section(tables.get("styles"), "styles", None)
        for sname, value in styles.raw.items():
            r.name(sname, f"styles.{sname}")
            reader.section(value, f"styles.{sname}", "style")
            r.classes[sname] = {**r.classes.get(sname, {}), **value}
            _written_by(r, reader, [f"styles.{sname}.{k}" for k in value])
        rc = tables.get("rcparams")
        r.rcparams.update(rc)
        _written_by(r, reader, [f"rcparams.{k}" for k in rc or {}])
        if raw is not top.raw:
            tables.done()
    if r.rcparams:
        import matplotlib

        for key, value in r.rcparams.items():
            where = r.origins.get(f"rcparams.{key}", r.file)  # the style file's key, or the layout's
            if key not in matplotlib.rcParams:  # a misspelt key, told apart from a bad value for a real one
                raise LayoutError(f"unknown rcParam {key!r}{_did_you_mean(str(key), list(matplotlib.rcParams))}; "
                                  "valid keys are matplotlib's (matplotlib.rcParams.keys())", file=where,
                                  key=f"rcparams.{key}")
            if key in COMPOSER_RCPARAMS:
                raise LayoutError(f"composer sets {key} itself: {COMPOSER_RCPARAMS[key]}", file=where,
                                  key=f"rcparams.{key}")
            if key == "text.usetex" and value and shutil.which("latex") is None:
                raise LayoutError("text.usetex needs LaTeX, and no latex program is installed; mathtext "
                                  "($\\alpha$) needs none", file=where,
                                  key=f"rcparams.{key}")
            try:
                checker: Any = matplotlib.RcParams()  # validates a value, as matplotlib.rcParams would
                checker[key] = value
            except Exception as exc:  # noqa: BLE001 - matplotlib's validators also raise TypeError ([] for a
                # choice: unhashable), AttributeError ([] for a string) and RuntimeError (axes.xmargin = -1)
                why = " ".join(str(exc).split()).removeprefix(f"Key {key}: ")[:200] or type(exc).__name__
                raise LayoutError(f"{key!r} = {json.dumps(value, default=str)}: not a valid value for this "
                                  f"rcParam: {why}", file=where,
                                  key=f"rcparams.{key}") from None


def _written_by(r: _Reader, reader: _Reader, keys: list[str]) -> None:
    """Note that ``reader``'s file wrote the values of ``keys`` now in force (:attr:`Reader.origins`)."""
    for key in keys:
        if reader is r:
            r.origins.pop(key, None)
        else:
            r.origins[key] = reader.file


def _from_its_file(r: _Reader, exc: LayoutError) -> LayoutError:
    """``exc`` naming the file that wrote its key's value, when a shared style file did (else as it is)."""
    if exc.key is None or exc.key not in r.origins or exc.file != r.file:
        return exc
    return type(exc)(exc.message, file=r.origins[exc.key], key=exc.key, frames=exc.frames)


_SIZE = "a panel is drawn and saved at exactly its box's size (72 user units per inch)"
#: rcParams composer sets for every panel (see :func:`composer.stages.draft.rc_params`) and the reason; a layout's
#: [rcparams] may not change them (the panel would no longer fit its box, or the SVG would not merge).
COMPOSER_RCPARAMS = {
    "backend": "panels are drawn with matplotlib's SVG backend",
    "font.size": "[figure] font_size sets it, for panel and canvas text alike",
    "font.family": "[figure] font sets it (a family or a list), for panel and canvas text alike",
    "figure.dpi": _SIZE, "figure.figsize": _SIZE, "savefig.dpi": _SIZE, "savefig.bbox": _SIZE,
    "savefig.pad_inches": _SIZE, "savefig.format": "panels are saved as SVG",
    "svg.fonttype": "[figure] text = \"paths\" or \"editable\" chooses it",
    "svg.hashsalt": "each panel gets its own, for ids that never collide",
    "svg.image_inline": "images are inlined, so the figure is one file",
}


def _figure_spec(r: _Reader, raw: Any, check_raw: Any = None) -> FigureSpec:
    if raw is None:
        raise LayoutError("missing [figure] table (width and height are required)", file=r.file, key="figure")
    t = r.section(raw, "figure", "figure")
    t.asked.append("style")  # read by _styles
    width_text = t.get("width")  # a journal's width ("nature.double") is its length
    width = r.length(width_text, "figure.width")
    height_text = t.get("height")
    height_auto = height_text == "auto"
    height = AUTO_HEIGHT_PT if height_auto else r.length(height_text, "figure.height")
    margin = t.get("margin")
    if margin is not None and not height_auto:
        raise r.err("figure.margin", "margin is the space below the content of a height = \"auto\" canvas; with "
                                     f"height = {height_text!r} it does nothing: remove it (a [grid] has its own)")
    for key, value, text in (("figure.width", width, width_text), ("figure.height", height, height_text)):
        if value <= 0:
            raise r.err(key, f"{text!r} is zero; the canvas must have a positive size")
        if value < MIN_CANVAS_PT:
            raise r.err(key, f"{text!r} is less than 1 mm; no figure is that small (a unit slip?)")
    font = t.get("font")
    preset_raw = t.raw.get("preset")
    journal_min = (presets.PRESETS[preset_raw].min_font_pt  # a bad preset is refused by t.get below
                   if isinstance(preset_raw, str) and preset_raw in presets.PRESETS else None)
    # the format's default, or a journal preset's smallest text size when that is larger (IEEE: 8 pt)
    font_size = t.get("font_size", default=max(t.default("font_size"), journal_min or 0.0))
    background = t.get("background")
    data = t.get("data")
    params = t.get("params")
    preset = t.get("preset")
    journal = str(t.raw["width"]).partition(".")[0] if presets.is_width_name(t.raw["width"]) else None
    if preset is not None and journal is not None and journal != preset.name:
        raise r.err("figure.width", f"{t.raw['width']!r} is a {presets.PRESETS[journal].title} width, but "
                                    f"preset = {preset.name!r}; use a {preset.title} width "
                                    f"({', '.join(preset.name + '.' + w for w in preset.widths)}) or preset = "
                                    f"{journal!r}")
    label_size = t.get("label_size", default=font_size + LABEL_SIZE_ABOVE_FONT_PT)
    label_weight = t.get("label_weight", default=preset.label.weight if preset and preset.label
                         else t.default("label_weight"))
    label_color = t.get("label_color")
    label_offset = t.get("label_offset")
    labels = t.get("labels")
    if labels is not None and preset is not None and preset.label is not None and labels != preset.label.labels:
        raise r.err("figure.labels", f"{labels!r}: the {preset.title} preset labels panels "
                                     f"{preset.label.labels!r}; write labels = {preset.label.labels!r}, or "
                                     "remove the preset")
    label_order = t.get("label_order")
    if label_order is not None and labels is None:
        raise r.err("figure.label_order", "label_order orders the automatic labels, and [figure] has no labels; "
                                          "add labels = \"a\" (or another style), or remove label_order")
    label_at = t.get("label_at")
    raster_ppi = t.get("raster_ppi")
    text_mode = t.get("text")
    math = t.get("math")
    engine = t.get("engine")
    alt = _alt(r, t.get("alt"), "figure.alt")
    provenance = t.get("provenance")
    t.done()
    label = TextStyle(font=font, size_pt=label_size, weight=label_weight, color=label_color or t.default("label_color"),
                      mathtext=str(r.rcparams.get("mathtext.fontset", "dejavusans")),
                      editable=text_mode == "editable")
    return FigureSpec(width_pt=width, height_pt=height, width_text=width_text, height_text=height_text,
                      font=font, font_size_pt=font_size, background=background, data=data, params=params,
                      label=label, label_offset_pt=label_offset, raster_ppi=raster_ppi, colors=dict(r.colors),
                      rcparams=dict(r.rcparams), preset=preset.name if preset else None, text=text_mode, math=math,
                      engine=engine, labels=labels, label_order=label_order or (), label_at=label_at,
                      height_auto=height_auto, margin_pt=margin, alt=alt, provenance=provenance,
                      check=_check_limits(r, check_raw, preset))


#: the limits a journal preset states as the check reads them: the same name, unit and meaning in
#: :class:`composer.layout.presets.Preset` and :class:`CheckLimits`, copied as they are
_PRESET_LIMITS = ("max_font_pt", "fonts", "formats", "tiff_compression", "tiff_alpha", "min_output_dpi",
                  "max_output_dpi", "max_file_mb", "refuses_type3")


def _check_limits(r: _Reader, raw: Any, preset: presets.Preset | None) -> CheckLimits:
    """composer's defaults, then the preset's numbers, then the ``[check]`` table."""
    limits = CheckLimits()
    if preset is not None:
        limits = dataclasses.replace(
            limits, source=f"{preset.name} preset",
            min_font_pt=preset.min_font_pt if preset.min_font_pt is not None else limits.min_font_pt,
            min_ppi=preset.min_ppi if preset.min_ppi is not None else limits.min_ppi,
            max_height_pt=to_pt(preset.max_height) if preset.max_height else None,
            min_width_pt=to_pt(preset.min_width) if preset.min_width else None,
            journal=preset.title, **{name: getattr(preset, name) for name in _PRESET_LIMITS})
    if raw is None:
        return limits
    t = r.section(raw, "check", "check")
    found = {  # a key given overrides the preset's number; absent (None), the preset's or the default stays
        "min_font_pt": t.get("min_font_size", default=None),
        "min_line_pt": t.get("min_line_width", default=None),
        "min_ppi": t.get("min_ppi", default=None),
        "cvd_min_distance": t.get("cvd_min_distance", default=None),
        "max_file_mb": t.get("max_file_mb", default=None),
        "allow_overlap": t.get("allow_overlap", default=None),
        "ignore": t.get("ignore", default=None),
    }
    t.done()
    found = {k: v for k, v in found.items() if v is not None}
    if found:
        limits = dataclasses.replace(limits, **found, source=f"{limits.source} + [check]")
    return limits


def _placement(r: _Reader, t: _Table, default_anchor: str | None = None) -> Placement:
    """Read ``at``/``anchor``/``offset``, ``cell``, or one relation (``right_of``...) with ``gap``/``align``.

    Exactly one of at, cell, right_of, left_of, above, below; two are
    over-constrained, none under-constrained: both errors name the element.
    ``default_anchor``: the element's anchor when none is given (default: the
    format's for the table; a shape's depends on its kind).
    """
    if default_anchor is None:
        default_anchor = t.default("anchor")
    given = [k for k in _PLACEMENT_KEYS if k in t.raw]
    t.asked += [k for k in _PLACEMENT_KEYS if k not in given]
    how = PLACEMENT.given(t)
    offset = t.get("offset")
    if how == "cell":
        # a panel locked to an aspect takes align: where its box sits in the cell (_aspect)
        t.refuse(["anchor", "gap", *([] if "aspect" in t.raw else ["align"])], "a grid cell gives the whole box")
        value = t.get("cell")
        grid, _, area = value.rpartition(".")
        if offset != (0.0, 0.0):
            raise r.err(f"{t.key}.offset", "a grid cell gives the whole box; offset is for at and relations")
        return Placement(cell=(grid, area), anchor=default_anchor, key=f"{t.key}.cell")
    if how == "at":
        t.refuse(["gap", "align"], "they go with right_of, left_of, above or below; with at, use anchor "
                                   "and offset")
        at = t.get("at", lambda v, k: r.position(v, k, offset))
        anchor = t.get("anchor", default=default_anchor)
        return Placement(at=at, anchor=anchor, key=f"{t.key}.at")
    target = t.get(how)
    gap = t.get("gap")
    align = t.get("align", r.choice(RELATION_ALIGN.of(how)))  # the alignments this relation takes
    t.asked.append("anchor")
    RELATION_ANCHOR.check(t, how, choices=", ".join(RELATION_ALIGN.of(how)))
    edge = {"top": "n", "center": "", "bottom": "s", "left": "w", "right": "e"}[align]
    if how in ("right_of", "left_of"):
        near, own = ("e", "w") if how == "right_of" else ("w", "e")
        target_anchor, own_anchor = (edge + near if edge else near), (edge + own if edge else own)
        dx, dy = (gap if how == "right_of" else -gap), 0.0
    else:
        near, own = ("s", "n") if how == "below" else ("n", "s")
        target_anchor, own_anchor = near + edge, own + edge
        dx, dy = 0.0, (gap if how == "below" else -gap)
    at = Position(ref=(target, target_anchor or "center"), dx_pt=dx + offset[0], dy_pt=dy + offset[1],
                  key=f"{t.key}.{how}")
    return Placement(at=at, anchor=own_anchor, key=f"{t.key}.{how}")


def _size(r: _Reader, t: _Table, key: str = "size") -> tuple[float, float] | None:
    size = t.get(key)
    if size is not None and (size[0] <= 0 or size[1] <= 0):
        raise r.err(f"{t.key}.{key}", f"{t.raw[key]!r} has a zero side; a box must have a positive width and height")
    return size


def _grid(r: _Reader, raw: Any, name: str, key: str, spec: FigureSpec) -> Grid:
    t = r.section(raw, key, "grid" if name == "" else "grids")
    text = t.get("mosaic")
    mosaic = tuple(row.strip() for row in text.strip().splitlines() if row.strip())
    if not mosaic or len({len(row) for row in mosaic}) != 1:
        raise r.err(f"{key}.mosaic", f"{text!r}: every row of a mosaic needs the same number of cells")
    n_rows, n_cols = len(mosaic), len(mosaic[0])
    # as many tracks as the mosaic has columns (rows); none given: equal shares
    columns = t.get("columns", r.tracks(n_cols), (r.track(TRACK_SHARE, f"{key}.columns"),) * n_cols)
    rows = t.get("rows", r.tracks(n_rows), (r.track(TRACK_SHARE, f"{key}.rows"),) * n_rows)
    gutter = t.get("gutter")
    if name == "":
        margin = t.get("margin")
        for k in ("at", "size", "cell", *RELATIONS, "offset", "anchor", "gap", "align"):
            if k in t.raw:
                raise r.err(f"{key}.{k}", "the figure grid fills the canvas inside its margin; "
                                           "use [grids.NAME] for a grid placed elsewhere")
        top, right, bottom, left = margin
        size: tuple[float, float] | None
        place = Placement(at=Position(x_pt=left, y_pt=top, key=key), anchor="nw", key=key)
        size = (spec.width_pt - left - right, spec.height_pt - top - bottom)
        if spec.height_auto:  # the grid is as tall as its rows, and the canvas follows
            if any(row.length_pt is None for row in rows):
                raise r.err(f"{key}.rows", "height = \"auto\" fits the canvas to its content, so the grid's rows "
                                           "cannot share the canvas height: give every row a length "
                                           "(rows = [\"40mm\", \"30mm\"])")
            size = (size[0], sum(row.length_pt or 0.0 for row in rows) + gutter[1] * (len(rows) - 1))
        if size[0] <= 0 or size[1] <= 0:
            raise r.err(f"{key}.margin", "the margins leave no room on the canvas")
    else:
        r.name(name, key)
        if "margin" in t.raw:
            raise r.err(f"{key}.margin", "margin is for the figure [grid]; a named grid's box is its size")
        place = _placement(r, t)
        size = _size(r, t)
        GRID_SIZE.check(t)
    t.done()
    _areas(r, mosaic, key)
    return Grid(name=name, mosaic=mosaic, columns=columns, rows=rows, gutter_pt=gutter, place=place, size_pt=size,
                key=key)


def _areas(r: _Reader, mosaic: tuple[str, ...], key: str) -> None:
    """Every cell is one letter, digit or ``.``; every area letter must cover a rectangle of cells."""
    for row in mosaic:
        for c in row:
            if not (c.isascii() and (c.isalnum() or c == "." or c == "_")):
                raise r.err(f"{key}.mosaic", f"{row!r} has the cell {c!r}; a cell is one letter or digit naming "
                                             "an area, or '.' for an empty cell (no spaces between cells)")
    for letter in sorted({c for row in mosaic for c in row} - {"."}):
        cells = [(i, j) for i, row in enumerate(mosaic) for j, c in enumerate(row) if c == letter]
        rows = [i for i, _ in cells]
        cols = [j for _, j in cells]
        if len(cells) != (max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1):
            raise r.err(f"{key}.mosaic", f"area {letter!r} is not a rectangle of cells")


def _panel(r: _Reader, name: str, raw: Any, spec: FigureSpec) -> Panel:
    key = f"panels.{name}"
    r.name(name, key)
    t = r.section(raw, key, "panel")
    registered = sources.registered()
    chosen = sources.table(sources.source_rule().given(t))
    kind = chosen.name
    for s in registered:  # in this order: the valid keys a message lists
        if s is chosen:
            source = t.get(kind)
        else:
            t.asked.append(s.name)
    options = {k.name: t.get(k.name) for k in chosen.keys}
    _refuse_untaken(r, t, chosen, registered)
    place, size = _placed_and_sized(r, t, PANEL_SIZE)
    label = t.get("label")  # False: skipped by [figure] labels (see _auto_labels)
    journal_label = presets.PRESETS[spec.preset].label if spec.preset else None
    if isinstance(label, str) and journal_label:
        label = journal_label.format(label)  # the journal's style: a / A / (a)
    title = t.get("title")
    alt = _alt(r, t.get("alt"), f"{key}.alt")
    taken = {k: t.get(k) if k in chosen.takes else t.default(k) for k in sources.SHARED_KEYS}
    overlap = t.get("overlap")
    aspect, aspect_of, aspect_align = _aspect(r, t, place)
    if aspect == "auto" and chosen.matplotlib:
        raise r.err(f"{key}.aspect", "\"auto\" keeps a file's own aspect (image, svg and pdf panels); a "
                                     f"{kind} panel has none: give aspect = width / height")
    t.done()
    return Panel(name=name, kind=kind, source=source, place=place, size_pt=size, label=label, title=title,
                 params=taken["params"], data=taken["data"], overlap=overlap, raster=taken["raster"],
                 empty=taken["empty"], key=key, options=options,
                 aspect=aspect if not isinstance(aspect, str) else None, aspect_auto=aspect == "auto",
                 aspect_of=aspect_of, aspect_align=aspect_align, alt=alt)


def _alt(r: _Reader, text: str | None, key: str) -> str | None:
    """An ``alt`` as written: None when absent; a blank one is refused (it would say nothing to a reader)."""
    if text is not None and not text.strip():
        raise r.err(key, f"{text!r} is blank; write what it shows (a sentence), or remove the key")
    return text


def _refuse_untaken(r: _Reader, t: _Table, chosen: sources.SourceTable,
                    registered: tuple[sources.SourceTable, ...]) -> None:
    """Refuse the keys of other panel sources, and the shared keys the chosen source does not take
    (``page`` on an svg panel, ``params`` on an image panel): no key is accepted and ignored.

    Raises:
        LayoutError: at the key, naming the sources it applies to and what this panel does instead.
    """
    mine = {k.name for k in chosen.keys}
    others = {k.name: [s.name for s in registered if k.name in {o.name for o in s.keys}]
              for s in registered if s is not chosen for k in s.keys if k.name not in mine}
    others.update({k: [s.name for s in registered if k in s.takes]
                   for k in sources.SHARED_KEYS if k not in chosen.takes})
    for name, owners in others.items():
        t.refused.append(name)
        if name in t.raw:
            raise r.err(f"{t.key}.{name}", f"{name} applies to {' and '.join(owners) or 'no'} panels, so it does "
                                           f"nothing here: {chosen.refusal()}")


def _aspect(r: _Reader, t: _Table, place: Placement) -> tuple[float | str | None, str, str]:
    """A panel's ``aspect`` (a positive finite number, ``"auto"``: the file's own, with ``aspect_of = "box"``;
    or None), ``aspect_of`` and, in a cell, ``align`` (where the locked box sits; ``center`` otherwise).

    Raises:
        LayoutError: aspect is not a positive finite number (0, negative, nan, a string), or aspect_of
            without aspect.
    """
    aspect = t.get("aspect")
    if aspect is None:
        t.refuse(["aspect_of"], "it says what aspect locks; give aspect = width / height")
        return None, t.default("aspect_of"), "center"
    if aspect == "auto":  # the file's own, read by the inputs stage (composer.stages.inputs.file_aspects)
        t.refuse(["aspect_of"], "aspect = \"auto\" locks the box to the file's own aspect")
        return "auto", "box", t.get("align") if place.cell is not None else "center"
    aspect_of = t.get("aspect_of")
    align = t.get("align") if place.cell is not None else "center"
    return aspect, aspect_of, align


#: the font keys of a text (and, prefixed ``text_``, of a shape's text)
TEXT_STYLE_KEYS = ("class", "font", "size", "weight", "style", "color", "opacity", "math")


def _text_style(r: _Reader, t: _Table, spec: FigureSpec, prefix: str = "") -> TextStyle:
    """Font keys of a text (``size``, ``weight``...), on top of its ``class`` and the figure's defaults."""
    # a class names one of the declared text styles
    cls_name = t.get(f"{prefix}class", r.choice(tuple(r.classes)) if r.classes else _no_classes(r))
    base = dict(r.classes.get(cls_name, {})) if cls_name else {}
    cls = r.section(base, f"styles.{cls_name}", "style")

    def pick(name: str, figure_default: Any = None) -> Any:
        """The text's own key, else its class's, else the figure's (font, size) or the format's default."""
        fallback = cls.get(name) if figure_default is None else cls.get(name, default=figure_default)
        return t.get(f"{prefix}{name}", default=fallback)

    style = TextStyle(
        font=pick("font", spec.font),
        size_pt=pick("size", spec.font_size_pt),
        weight=pick("weight"),
        style=pick("style"),
        color=pick("color") or cls.default("color"),  # "none": text is never invisible
        opacity=pick("opacity"),
        mathtext=str(r.rcparams.get("mathtext.fontset", "dejavusans")),
        editable=spec.text == "editable",
        math=pick("math", spec.math),
    )
    cls.done()
    return style


def _default_text_style(r: _Reader, spec: FigureSpec) -> TextStyle:
    """The figure's text style with nothing set (for an element that draws no text)."""
    return _text_style(r, r.section({}, "", "text"), spec)


def _no_classes(r: _Reader) -> Callable[[Any, str], str]:
    def convert(value: Any, key: str) -> str:
        raise r.err(key, f"{value!r}: no text styles are defined; declare [styles.{value}] first")
    return convert


def _text(r: _Reader, raw: Any, key: str, spec: FigureSpec) -> Text:
    t = r.section(raw, key, "text")
    text = t.get("text")
    name = t.get("name")
    if "beside" in t.raw:
        BESIDE.check(t)
        BESIDE_SIDE.refuse(t)
        t.asked += list(_PLACEMENT_KEYS)
        place = Placement(beside=t.get("beside"), side=t.get("side"), gap_pt=t.get("gap"),
                          offset_pt=t.get("offset"), anchor="center", key=f"{key}.beside",  # lines centred
                          gap_auto="gap" not in t.raw)  # clear of the panels' tick labels (geometry)
    else:
        BESIDE_SIDE.refuse(t)
        t.asked.append("beside")
        place = _placement(r, t)
    rotate = t.get("rotate")
    if rotate and place.cell is not None:
        raise r.err(f"{key}.rotate", "a text filling a cell is wrapped to the cell's width; place a turned text "
                                     "with at, a relation or beside")
    align = t.get("justify")
    width = t.get("width")
    style = _text_style(r, t, spec)
    t.done()
    return Text(text=text, place=place, style=style, align=align, name=name, width_pt=width, key=key,
                rotate_deg=rotate)


def _sized() -> list[shape_kinds.ShapeKind]:
    """The boxed shape kinds sized by ``size`` that may hold a symbol (the circle's alternative: an ellipse)."""
    return [k for k in shape_kinds.with_("symbol") if not k.radius]


def _bulge_note() -> str:
    return f"side and depth shape {shape_kinds.listed(shape_kinds.with_('bulges'), 'or', plural=False)}"


def _shape(r: _Reader, raw: Any, key: str, spec: FigureSpec) -> Shape:
    t = r.section(raw, key, "shape")
    kind = t.get("kind")
    name = t.get("name")
    what = SHAPES[kind]  # its class: the keys it takes (composer.kinds.shapes)
    boxed = what.boxed  # rect, circle, ellipse: placed like a panel
    points: tuple[Position, ...] = ()
    place = None
    size: tuple[float | None, float | None] = (None, None)
    corner, side, depth = t.default("corner"), t.default("side"), t.default("depth")
    if boxed:
        place = _placement(r, t, what.default_anchor)
        t.refuse(["points"], f"a {kind} is placed by at, cell or a relation; points are for "
                             f"{shape_kinds.listed([k for k in SHAPES if not k.boxed])}")
        if what.radius:
            t.refuse(["size", "width", "height"], f"a {kind} takes radius (or "
                                                  f"{shape_kinds.listed(_sized(), 'or', plural=False)} takes size)")
            radius = t.get("radius")
            if radius is not None:
                if radius <= 0:
                    raise r.err(f"{key}.radius", f"{t.raw['radius']!r} is zero; a {kind} needs a positive radius")
                size = (2 * radius, 2 * radius)
        else:
            t.refuse(["radius"], f"radius is for {shape_kinds.listed(shape_kinds.with_('radius'), 'or', plural=False)}"
                                 f"; a {kind} takes size, or width and/or height")
            given = _size(r, t)
            width = t.get("width")
            height = t.get("height")
            if given is not None and (width is not None or height is not None):
                raise r.err(f"{key}.size", "over-constrained: give size, or width and/or height")
            size = given if given is not None else (width, height)
        corner = t.get("corner") if what.rounds else corner
        if not what.rounds:
            t.refuse(["corner"], f"corner rounds {shape_kinds.listed(shape_kinds.with_('rounds'), 'or', plural=False)}")
        t.refuse(["side", "depth"], _bulge_note())
    else:
        t.refuse([*_PLACEMENT_KEYS, "offset", "anchor", "gap", "align", "size", "width", "height", "radius",
                  "corner"], f"a {kind} is drawn through its points")
        points = t.get("points", default=REQUIRED)
        fewest, most = what.points
        if fewest == most and len(points) != fewest:
            raise r.err(f"{key}.points", f"a {kind} goes from one point to another: give {fewest} points"
                        if fewest == 2 else f"a {kind} takes {fewest} points")
        if len(points) < fewest:
            raise r.err(f"{key}.points", f"a {kind} needs at least {fewest} points")
        if what.bulges:
            side = t.get("side")
            depth = t.get("depth")
        else:
            t.refuse(["side", "depth"], _bulge_note())
    if boxed:
        fill = t.get("fill")
    else:
        t.refuse(["fill"], f"a {kind} is a stroke, never filled; its colour is stroke")
        fill = t.default("fill")
    stroke = t.get("stroke")
    stroke_width = t.get("stroke_width")
    dash = t.get("dash")
    opacity = t.get("opacity")
    symbol = t.get("symbol") if what.symbol else None
    if not what.symbol:
        t.refuse(["symbol"], "a symbol goes inside " + " or ".join(shape_kinds.a(k.name)
                                                                   for k in shape_kinds.with_("symbol")))
    if boxed and "text" in t.raw:
        text = t.get("text")
        padding = t.get("padding")
        text_style = _text_style(r, t, spec, prefix="text_")
    else:  # no text: the keys that set out and style one do nothing
        text_keys = ["padding", *(f"text_{k}" for k in TEXT_STYLE_KEYS)]
        if boxed:
            t.asked.append("text")
            t.refuse(text_keys, "padding and text_* set out and style a shape's text, and it has none")
        else:
            t.refuse(["text", *text_keys], f"a {kind} holds no text; add a [[text]] placed at one of its points")
        text, padding, text_style = None, t.default("padding"), _default_text_style(r, spec)
    t.done()
    if boxed and text is None and None in size and place is not None and place.cell is None:
        raise r.err(key, f"a {kind} without text needs a size" + (" (radius)" if what.radius else ""))
    return Shape(kind=kind, place=place, size_pt=size, name=name, corner_pt=corner, fill=fill,
                 stroke=stroke, stroke_width_pt=stroke_width, dash=dash, opacity=opacity, text=text,
                 text_style=text_style, padding_pt=padding, symbol=symbol, points=points, side=side,
                 depth_pt=depth, key=key)


def _arrow(r: _Reader, raw: Any, key: str, spec: FigureSpec) -> Arrow:
    t = r.section(raw, key, "arrow")
    start = t.get("from")
    end = t.get("to")
    width = t.get("width")
    route = t.get("route")
    via = t.get("via")
    if via and route == "arc":
        raise r.err(f"{key}.via", "an arc has no waypoints; use straight, -| or |- with via")
    if route == "arc":
        bend = t.get("bend")
    else:
        t.refuse(["bend"], "bend curves an arc: add route = \"arc\"")
        bend = t.default("bend")
    head = t.get("head")
    if head == "none":
        t.refuse(["head_style", "head_length", "head_width"], "they shape a head, and head = \"none\"")
    label = t.get("label")
    if label is None:
        t.refuse(["label_pos", "label_side", *(f"label_{k}" for k in TEXT_STYLE_KEYS)],
                 "they place and style a label, and the connector has none")
        label_style = _default_text_style(r, spec)
    else:
        label_style = _text_style(r, t, spec, prefix="label_")
    arrow = Arrow(
        start=start, end=end, route=route, via=via, bend_deg=bend,
        color=t.get("color") or t.default("color"),  # "none": a connector is never invisible
        width_pt=width,
        head=head,
        head_style=t.get("head_style"),
        # a head grows with a thick line: the format's size, or HEAD_PER_WIDTH x the width when larger
        head_length_pt=t.get("head_length", default=max(t.default("head_length"), HEAD_PER_WIDTH[0] * width)),
        head_width_pt=t.get("head_width", default=max(t.default("head_width"), HEAD_PER_WIDTH[1] * width)),
        gap_pt=t.get("gap"),
        dash=t.get("dash"),
        label=label,
        label_pos=t.get("label_pos"),
        label_side=t.get("label_side"),
        label_style=label_style,
        key=key,
    )
    t.done()
    return arrow


def _align(r: _Reader, raw: Any, key: str) -> Align:
    t = r.section(raw, key, "align")
    panels = t.get("panels")
    axis = t.get("axis")
    t.done()
    return Align(panels=panels, axis=axis, key=key)



def _placed_and_sized(r: _Reader, t: _Table, rule: CellOrSize) -> tuple[Placement, tuple[float, float] | None]:
    """The placement and ``size`` of an element that a grid cell sizes, or else ``size``: exactly one of
    them (``rule``: :data:`composer.layout.constraints.PANEL_SIZE`, ...)."""
    place = _placement(r, t)
    size = _size(r, t)
    rule.check(t)
    return place, size

def _guide_in_cell(t: _Table, place: Placement, *, sized: bool = False) -> None:
    """A guide in a grid cell: the keys a cell leaves nothing to do for (the other placements, offset, and size
    when the guide takes one) are refused, not read, so an unknown key's message does not list them as valid
    keys (each is an error there)."""
    if place.cell is not None:
        unusable = [k for k in (*_PLACEMENT_KEYS, "offset", *(["size"] if sized else []))
                    if k != "cell" and k not in t.raw]
        t.asked[:] = [k for k in t.asked if k not in unusable]
        t.refused += unusable


def _colorbar(r: _Reader, raw: Any, key: str) -> Colorbar:
    """``[[colorbar]]``: ``for`` (checked against the panels with the other guides'), a placement and a
    ``size`` unless in a cell, ``orientation``, ``label``, ``ticks``."""
    t = r.section(raw, key, "colorbar")
    panels = t.get("for")
    name = t.get("name")
    place, size = _placed_and_sized(r, t, COLORBAR_SIZE)
    _guide_in_cell(t, place, sized=True)
    colorbar = Colorbar(panels=panels, place=place, size_pt=size, orientation=t.get("orientation"),
                        label=t.get("label"), ticks=t.get("ticks"), name=name, key=key)
    t.done()
    return colorbar


def _legend(r: _Reader, raw: Any, key: str) -> Legend:
    """``[[legend]]``: ``from`` (checked against the panels by :func:`_check_names`), a placement, ``ncols``,
    ``title``, ``frame``."""
    t = r.section(raw, key, "legend")
    panels = t.get("from")
    name = t.get("name")
    place = _placement(r, t)
    _guide_in_cell(t, place)
    legend = Legend(panels=panels, place=place, ncols=t.get("ncols"), title=t.get("title"), frame=t.get("frame"),
                    name=name, key=key)
    t.done()
    return legend


def _check_guides(r: _Reader, figure: Figure) -> None:
    """Every panel a guide draws from (``[[legend]] from``, ``[[colorbar]] for``) is a matplotlib panel, named once.

    Raises:
        LayoutError: naming the entry, with the closest panel name and the valid ones.
    """
    plots = [p.name for p in figure.panels if sources.table(p.kind).matplotlib]
    kinds = {p.name: p.kind for p in figure.panels}
    for guide in figure.guides:
        field = guide.panels_key
        for i, name in enumerate(guide.panels):
            at = f"{guide.key}.{field}[{i}]"
            if name in guide.panels[:i]:
                raise r.err(at, f"{name!r} is listed twice")
            if name not in plots:
                kind = kinds.get(name, "")
                what = (f"{name!r} is {sources.table(kind).said()}, not a matplotlib one (a {guide.kind} is drawn "
                        "from what matplotlib panels report)" if kind
                        else f"no panel named {name!r}{_did_you_mean(name, plots)}")
                raise r.err(at, f'{field}[{i}] = "{name}": {what} (valid: {", ".join(plots) or "none"})')


def _check_names(r: _Reader, figure: Figure) -> None:
    """Names are unique; every reference names an element, grid or area that exists."""
    seen: dict[str, str] = {}
    for element, key in ([(p.name, p.key) for p in figure.panels]
                         + [(s.name, f"{s.key}.name") for s in figure.shapes if s.name]
                         + [(t.name, f"{t.key}.name") for t in figure.texts if t.name]
                         + [(g.name, f"{g.key}.name") for g in figure.guides if g.name]):
        if element in seen:
            raise r.err(key, f"name {element!r} is already used by {seen[element]}")
        seen[element] = key
    if "canvas" in seen:
        raise r.err(seen["canvas"], "'canvas' is reserved: it names the whole canvas (\"canvas.sw\")")
    names = figure.element_names() + ["canvas"]
    placements = [p.place for p in figure.panels] + [t.place for t in figure.texts]
    placements += [s.place for s in figure.shapes if s.place] + [g.place for g in figure.grids]
    placements += [g.place for g in figure.guides]
    positions = [p.at for p in placements if p.at is not None]
    positions += [a.start for a in figure.arrows] + [a.end for a in figure.arrows]
    positions += [v for a in figure.arrows for v in a.via] + [p for s in figure.shapes for p in s.points]
    renderers = {p.name for p in figure.panels if sources.table(p.kind).matplotlib}  # data anchors, aligns
    declared = {p.name: tuple(p.options.get("anchors") or ()) for p in figure.panels}  # a source's `anchors` key
    drawn_through = {s.name: s.kind for s in figure.shapes if s.name and s.place is None}
    kinds = "panel, text, shape or legend" if figure.guides else "panel, text or shape"  # and canvas
    for pos in positions:
        if pos.ref is None:
            continue
        element, anchor = pos.ref
        if "#" in element:
            _check_svg_element(r, figure, pos)
            continue
        if element not in names:
            boxed = [n for n in names if n not in drawn_through]  # a line or a brace has no anchors
            raise r.err(pos.key, f"{pos.written()}: no {kinds} named {element!r}{_did_you_mean(element, boxed)} "
                                 f"(valid: {', '.join(boxed)})")
        if element in drawn_through:
            if pos.key.rpartition(".")[2] in RELATIONS:
                raise r.err(pos.key, f"{pos.written()}: {element!r} is a {drawn_through[element]}: it has no box "
                                     "to place anything beside; place it relative to another element")
            raise r.err(pos.key, f"{pos.written()}: {element!r} is a {drawn_through[element]}, drawn "
                                 "through its points; it has no box and so no anchors: use the point it starts "
                                 "or ends at")
        own = declared.get(element, ())
        if anchor not in COMPASS and "@" not in anchor and element not in renderers and anchor not in own:
            raise r.err(pos.key, f"{pos.written()}: {element!r} has no anchor {anchor!r}"
                                 f"{_did_you_mean(anchor, [*COMPASS, *own])}; "
                                 f"valid anchors are {', '.join((*COMPASS, *own))}, or side@fraction (e@0.25)")
    if figure.spec.height_auto:
        for pos in positions:
            if pos.ref is not None and pos.ref[0] == "canvas" and _from_bottom(pos.ref[1]):
                raise r.err(pos.key, f"{pos.written()}: height = \"auto\" fits the canvas to its content, so "
                                     "nothing can be placed by the canvas's height; place it from canvas.n, "
                                     "canvas.nw, canvas.ne or another element")
    panel_names = [p.name for p in figure.panels]
    for text in figure.texts:
        for i, panel in enumerate(text.place.beside):
            if panel not in panel_names:
                raise r.err(f"{text.place.key}[{i}]", f"{panel!r} is not a panel{_did_you_mean(panel, panel_names)}; "
                                                      f"beside names panels (valid: {', '.join(panel_names)})")
    _check_guides(r, figure)
    grids = {g.name: g for g in figure.grids}
    areas = {name: sorted({c for row in g.mosaic for c in row} - {"."}) for name, g in grids.items()}
    cells = [f"{name}.{a}" if name else a for name, letters in areas.items() for a in letters]
    for place in placements:
        if place.cell is None:
            continue
        grid_name, area = place.cell
        written = ".".join(filter(None, place.cell))
        valid = f"(valid: {', '.join(cells) or 'none: declare a [grid] or [grids.NAME] first'})"
        if grid_name not in grids:
            # the grid whose name is closest, else the one grid with this area: "gg.A" for "g.A" or "A"
            close = closest(grid_name, [g for g in grids if g])
            holding = [g for g in grids if area in areas[g]]
            guess = close if close is not None else holding[0] if len(holding) == 1 else None
            hint = f"; did you mean {'.'.join(filter(None, (guess, area)))!r}?" if guess is not None else ""
            raise r.err(place.key, f"cell = \"{written}\": no grid {grid_name or '[grid]'!r}{hint} {valid}")
        if area not in areas[grid_name]:
            raise r.err(place.key, f"cell = \"{written}\": no area {area!r} in the mosaic {valid}")
    for align in figure.aligns:
        for i, name in enumerate(align.panels):
            if name in align.panels[:i]:
                raise r.err(f"{align.key}.panels[{i}]", f"{name!r} is listed twice")
            if name not in renderers:
                plots = [p.name for p in figure.panels if p.name in renderers]
                valid = ", ".join(plots) or "none: no panel is drawn by a renderer"
                kind = {p.name: p.kind for p in figure.panels}.get(name)
                what = (f"{name!r} is {sources.table(kind).said()}, not a matplotlib one" if kind
                        else f"no panel named {name!r}{_did_you_mean(name, plots)}")
                raise r.err(f"{align.key}.panels[{i}]", f'panels[{i}] = "{name}": {what}; aligned plot areas '
                                                        f"need matplotlib panels (valid: {valid})")


def _check_svg_element(r: _Reader, figure: Figure, pos: Position) -> None:
    """A ``"panel#id"`` reference names an svg panel (the id is checked against the file when it is
    read, :mod:`composer.stages.geometry`); a relation cannot take one (it names a whole element).

    Raises:
        LayoutError: no such panel, a panel of another kind, or a relation to an SVG element.
    """
    assert pos.ref is not None
    panel, _, ident = pos.ref[0].partition("#")
    kinds = {p.name: p.kind for p in figure.panels}
    svgs = [name for name, kind in kinds.items() if sources.table(kind).element_ids]
    if pos.key.rpartition(".")[2] in RELATIONS:
        raise r.err(pos.key, f"{pos.written()}: a relation places beside a whole element; to place at an "
                             f"element of an SVG, use at = \"{panel}#{ident}.{pos.ref[1]}\" with anchor")
    if panel not in kinds:
        raise r.err(pos.key, f"{pos.written()}: no panel named {panel!r}{_did_you_mean(panel, svgs)}; "
                             f"\"panel#id\" names an element of an svg panel (valid: {', '.join(svgs) or 'none'})")
    if not sources.table(kinds[panel]).element_ids:
        raise r.err(pos.key, f"{pos.written()}: {panel!r} is {sources.table(kinds[panel]).said()}, not an svg one; "
                             "\"panel#id\" names an "
                             f"element of an svg panel (valid: {', '.join(svgs) or 'none'})")


def _from_bottom(anchor: str) -> bool:
    """True when the anchor's point moves with the box's height (``s``, ``center``, ``e@0.5``...)."""
    side, at, _ = anchor.partition("@")
    if at:
        return side in ("e", "w", "s")
    return COMPASS.get(anchor, (0.0, 0.0))[1] != 0.0


def _did_you_mean(name: str, choices: list[str]) -> str:
    """``"; did you mean 'b'?"`` when one of ``choices`` is close to ``name`` (:func:`composer.errors.closest`;
    a compass word such as ``east`` means its anchor), else ``""``."""
    return did_you_mean(name, choices, COMPASS_WORDS)
