"""Inputs stage: everything a figure reads from disk, and the ``{name:format}`` text fields.

:class:`Project` is the folder (``layouts/``, ``panels/``); :func:`read_inputs`
(a layout file) and :func:`read_figure_inputs` (a figure already loaded, from
a file or from :mod:`composer.api`) read its data files, panel modules,
``values()`` and imported SVG/image files into one :class:`Inputs`, the only
thing the pure stages after it (typeset, geometry, compose) are given.

No number in a figure is typed by hand and none is invented: a missing file,
key or field is a :class:`DataError` naming it.
"""

from __future__ import annotations

import csv
import json
import math
import re
import string
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from composer.errors import DataError, LayoutError, PanelError, ProjectError, did_you_mean, frames_of
from composer.layout.loader import load_layout
from composer.layout.model import Figure
from composer.sandbox.audit import run_recorded
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, WorkerFailure
from composer.stages.sources import Reading, source_of
from composer.stages.usercode import (
    MissingKey,
    accepted,
    describe,
    find_renderer,
    load_module,
    prepare_fork,
)
from composer.text.metrics import check_font


class DataFile(dict):
    """The dict a data file reads into; a missing key raises :class:`MissingKey`, naming the keys there are."""

    def __missing__(self, key: Any) -> Any:
        raise MissingKey(key, sorted(self, key=str))


def load_data(path: Path | None, *, display: str | None = None) -> dict[str, Any]:
    """Read ``.npz``, ``.json`` or ``.csv`` into a dict.

    Returns:
        ``.npz``: name -> numpy array (``allow_pickle=False``: a pickled array
        is refused, never executed). ``.json``: the top-level object.
        ``.csv``: column name -> 1-d array (float where every cell parses,
        else str). ``None`` -> ``{}``. A :class:`DataFile`: ``data["z"]``
        without ``z`` raises a KeyError naming the keys there are.

    Raises:
        DataError: unreadable file, pickled npz entry, JSON that is not an
            object, CSV without a header.
    """
    return DataFile(_read(path, display))


def _read(path: Path | None, display: str | None) -> dict[str, Any]:
    if path is None:
        return {}
    where = display or str(path)
    try:
        if path.suffix == ".npz":
            if not zipfile.is_zipfile(path):  # np.load would try pickle and blame "pickled data"
                raise DataError("not an .npz archive (numpy.savez writes one)", file=where)
            with np.load(path, allow_pickle=False) as npz:
                return {key: npz[key] for key in sorted(npz.files)}
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, dict):
                raise DataError("the top level of a JSON data file must be an object", file=where)
            return data
        with path.open(newline="", encoding="utf-8") as fh:
            lines = list(csv.reader(fh))
        if len(lines) < 2 or not any(lines[1:]):
            raise DataError("a CSV data file needs a header row and at least one data row", file=where)
        header = lines[0]
        numbered = [(n, row) for n, row in enumerate(lines[1:], start=2) if row]  # blank lines are skipped
        rows = [row for _, row in numbered]
        for i, name in enumerate(header):
            if name in header[:i]:
                raise DataError(f"column {name!r} appears twice in the header; name every column once",
                                file=where)
        for number, row in numbered:
            if len(row) != len(header):
                raise DataError(f"row {number} has {len(row)} cells, the header {len(header)}; every row needs "
                                "one cell per column", file=where)
        return {col: _column([row[i] for row in rows]) for i, col in enumerate(header)}
    except DataError:
        raise
    except ValueError as exc:  # npz with object arrays, bad JSON, bad CSV
        raise DataError(f"cannot read data: {exc}", file=where) from None
    except OSError as exc:
        raise DataError(f"cannot read data: {exc.strerror or exc}", file=where) from None


def _column(cells: list[str]) -> np.ndarray:
    try:
        return np.array([float(c) for c in cells])
    except ValueError:
        return np.array(cells)


def scalar_values(data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` usable as text fields: numbers, strings, 0-d arrays."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, np.ndarray) and value.ndim == 0:
            value = value.item()
        if isinstance(value, (int, float, str, np.generic)) and not isinstance(value, bool):
            out[key] = value
    return out


def field_names(template: str) -> list[str]:
    """The top-level names of ``{name:format}`` fields in a text template.

    Raises:
        ValueError: malformed braces (the caller adds file and key).
    """
    names = []
    for _, field, _, conversion in string.Formatter().parse(template):
        if field is not None:
            if field == "" or field.isdigit():
                raise ValueError("positional fields like {} are not allowed; name the value: {name}")
            if not field.isidentifier():
                raise ValueError(f"{{{field}}}: a field is a value's name and a format, {{name:.2f}}; "
                                 "attributes and indexes (. and [ ]) are not allowed: compute the value in "
                                 "values(data)")
            if conversion:
                raise ValueError(f"{{{field}!{conversion}}}: a field is a value's name and a format, "
                                 "{name:.2f}; conversions (!r, !s, !a) are not allowed")
            names.append(field)
    return names


_MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$", re.DOTALL)


#: longest text composer typesets (characters); a figure's longest caption-like text is far shorter, and
#: a format such as ``{x:>99999}`` or ``{x:.99999f}`` would otherwise make a text that takes minutes.
MAX_TEXT_CHARS = 2000


_SIGN = re.compile(r"-(?=[0-9.])")


class _Number:
    """A number filled into a text: formatted as ``str.format`` would, with ``minus`` for the sign."""

    __slots__ = ("minus", "value")

    def __init__(self, value: Any, minus: str):
        self.value, self.minus = value, minus

    def __format__(self, spec: str) -> str:
        # a sign is a hyphen before a digit or a point (the number's and its exponent's), not a fill character
        return _SIGN.sub(self.minus, format(self.value, spec))


def fill_fields(template: str, values: Mapping[str, Any], *, file: str, key: str, minus: str = "-") -> str:
    """Fill ``{name:format}`` fields of a text template from ``values`` (``str.format`` rules).

    As in a Python f-string, literal braces are doubled, in mathtext too:
    ``"$d_{{KV}}$ = {d_kv}"``. A number's minus sign (and its exponent's) is
    written as ``minus`` (composer passes U+2212, as matplotlib's tick labels
    have it, unless ``axes.unicode_minus`` is off).

    Raises:
        DataError: a field has no value (lists the names that do; for a field
            inside ``$...$`` it reminds that mathtext braces are doubled), is
            None, NaN or infinite (a missing value is never printed as ``nan``), its
            format spec does not fit the value, has a nested ``{}`` or a width
            or precision over :data:`MAX_TEXT_CHARS`, or the filled text is
            longer than that.
    """
    filled = _fill_plain(template, values, template, file, key, minus)
    if len(filled) > MAX_TEXT_CHARS:
        raise DataError(f"{_short(template)!r} is {len(filled)} characters long when filled, more than the limit "
                        f"of {MAX_TEXT_CHARS}", file=file, key=key)
    return filled


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fill_plain(text: str, values: Mapping[str, Any], template: str, file: str, key: str, minus: str = "-") -> str:
    try:
        names = field_names(text)
        for _, field, spec, _ in string.Formatter().parse(text):
            if field is not None and spec:
                if "{" in spec or "}" in spec:
                    raise ValueError(f"the format of {{{field}}} has a nested field; write the format out")
                if any(int(n) > MAX_TEXT_CHARS for n in re.findall(r"\d+", spec)):
                    raise ValueError(f"the format of {{{field}}} asks for more than {MAX_TEXT_CHARS} characters")
    except ValueError as exc:
        raise DataError(f"{_short(template)!r}: {exc}", file=file, key=key) from None
    for name in names:
        if name not in values:
            known = (", ".join(sorted(values))
                     or "(none: give the figure a data file, or define values(data) in a panel module)")
            hint = ""
            if any(f"{{{name}" in m.group(0) for m in _MATH.finditer(template)):
                hint = " (for mathtext braces inside $...$ write {{ and }})"
            raise DataError(f"text field {{{name}}} has no value{hint}; values are {known}", file=file, key=key)
        value = values[name]
        if value is None:
            raise DataError(f"text field {{{name}}} is None, not a value to print; composer never prints a "
                            "missing value: fix the data file or values()", file=file, key=key)
        if not isinstance(value, (str, int, float, np.number, np.bool_)):
            raise DataError(f"text field {{{name}}} is a {type(value).__name__}; a field prints one number or "
                            "string: pick it in values(data)", file=file, key=key)
        if isinstance(value, (float, np.floating)) and not math.isfinite(value):
            raise DataError(f"text field {{{name}}} is {float(value)}, not a number to print; composer never "
                            "prints a missing value: fix the data file or values()", file=file, key=key)
    if minus != "-":
        values = {k: _Number(v, minus) if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                  else v for k, v in values.items()}
    try:
        return text.format_map(values)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        for _, field, spec, conversion in string.Formatter().parse(text):  # the field that fails, named
            if field is None:
                continue
            try:
                ("{0" + (f"!{conversion}" if conversion else "") + f":{spec}}}").format(values.get(field))
            except (ValueError, TypeError, OverflowError) as inner:
                value = values.get(field)
                shown = value.value if isinstance(value, _Number) else value
                raise DataError(f"text field {{{field}:{spec}}} cannot print {shown!r} "
                                f"({type(shown).__name__}): {inner}", file=file, key=key) from None
        raise DataError(f"cannot fill {_short(template)!r}: {exc}", file=file, key=key) from None


# ─── the figure's inputs ──────────────────────────────────────────────

@dataclass(frozen=True)
class Project:
    """A figure project: a folder with ``layouts/`` (and usually ``panels/``).

    Attributes:
        root: the project folder.
    """

    root: Path

    @classmethod
    def at(cls, root: str | Path = ".") -> Project:
        """The project rooted at ``root``.

        Raises:
            ProjectError: ``root`` has no ``layouts/`` folder.
        """
        path = Path(root).resolve()
        if not (path / "layouts").is_dir():
            raise ProjectError(f"{path} is not a composer project: it has no layouts/ folder "
                               "(run compose inside your figure project, or pass --root DIR; from Python, root=DIR)")
        return cls(path)

    @property
    def panels_dir(self) -> Path:
        return self.root / "panels"

    def figures(self) -> list[str]:
        """Names of the figures in ``layouts/`` (``NAME.toml`` or ``NAME.py``), sorted; a figure in a
        subfolder is named by its path (``layouts/sub/x.toml``: ``"sub/x"``, as ``compose sub/x`` builds it).
        Python files and folders whose names start with ``_`` or ``.`` are not figures (helpers, caches)."""
        layouts = self.root / "layouts"
        names = set()
        for path in layouts.rglob("*"):
            rel = path.relative_to(layouts)
            if (path.suffix in (".toml", ".py") and path.is_file()
                    and not any(part.startswith((".", "_")) for part in rel.parts[:-1])
                    and not (path.suffix == ".py" and path.name.startswith("_"))):
                names.add(rel.with_suffix("").as_posix())
        return sorted(names)

    def layout_path(self, name: str) -> Path:
        """``layouts/NAME.toml`` or ``layouts/NAME.py``.

        Raises:
            ProjectError: neither exists (lists the figures), or both do.
        """
        found = [p for p in (self.root / "layouts" / f"{name}.toml", self.root / "layouts" / f"{name}.py")
                 if p.is_file()]
        if not found:
            figures = self.figures()
            raise ProjectError(f"no figure {name!r} (no layouts/{name}.toml or .py){did_you_mean(name, figures)}; "
                               f"figures are {', '.join(figures) or '(none)'}")
        if len(found) > 1:
            raise ProjectError(f"figure {name!r} has two layouts, layouts/{name}.toml and layouts/{name}.py; "
                               "keep one")
        return found[0]

    def display(self, path: Path) -> str:
        """A path as shown in messages: relative to the project root when inside it."""
        try:
            return str(path.resolve().relative_to(self.root))
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class Inputs:
    """Everything read from disk for one figure, ready for the pure stages.

    Attributes:
        figure: the loaded layout.
        file: the layout file as shown in messages.
        data: panel name -> its data (dict of arrays); "" -> the figure's data.
        renderers: panel name -> renderer function (render panels only).
        values: text field name -> value: what the panel modules' ``values()``
            return (in module name order, a later module's entry over an
            earlier one's), over them the scalar entries of the figure's data
            file, over all the figure's shared params. ``values()`` fills only
            what data and params do not give, so it is called only when a text
            uses such a field (:func:`used_fields`); otherwise it does not run,
            and cannot fail the build.
        documents: panel name -> file bytes, for svg and image panels; for pdf panels the page as a
            sanitized SVG document.
        root: the project folder: the working folder panel code runs in (its relative paths are the
            project's, wherever compose was started).
    """

    figure: Figure
    file: str
    data: dict[str, Mapping[str, Any]]
    renderers: dict[str, Any]
    values: dict[str, Any]
    documents: dict[str, bytes]
    root: Path | None = None


def file_aspects(figure: Figure, documents: Mapping[str, bytes], *, file: str) -> Figure:
    """``figure`` with each ``aspect = "auto"`` panel locked to its file's own aspect
    (:meth:`composer.stages.sources.base.PanelSource.file_aspect`: a picture's pixels, an SVG's viewBox, a PDF
    page's), as ``aspect_of = "box"``: its box is then the largest of that aspect in its cell or ``size``
    (placed by ``align``), the picture drawn, on which its label and anchors sit.

    Raises:
        LayoutError: at ``panels.NAME.aspect``: the panel's source draws at its box and has no aspect of its own.
        SvgError, DataError: the file cannot be read (naming it).
    """
    import dataclasses

    panels = []
    for panel in figure.panels:
        if panel.aspect_auto:
            document = documents.get(panel.name)
            found = source_of(panel).file_aspect(panel, document) if document is not None else None
            if found is None:
                raise LayoutError(f"\"auto\" keeps a file's own aspect (image, svg and pdf panels); a {panel.kind} "
                                  "panel is drawn at its box: give aspect = width / height", file=file,
                                  key=f"{panel.key}.aspect")
            panel = dataclasses.replace(panel, aspect=found, aspect_of="box")
        panels.append(panel)
    return dataclasses.replace(figure, panels=tuple(panels)) if any(p.aspect_auto for p in panels) else figure


def read_inputs(project: Project, name: str, figure: Figure | None = None, *,
                timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Inputs:
    """Read the layout, data files, panel modules and imported files of a figure.

    ``figure``: the layout already loaded (by :func:`build`, which hashes the
    inputs between loading the layout and reading the rest).

    Raises:
        ProjectError, LayoutError, DataError, PanelError (see the stages).
    """
    layout_path = project.layout_path(name)
    file = project.display(layout_path)
    if figure is None:
        figure = load_layout(layout_path, name=name, display=file, timeout_s=timeout_s)
    return read_figure_inputs(project, figure, file, timeout_s=timeout_s)


def read_figure_inputs(project: Project, figure: Figure, file: str,
                       functions: Mapping[str, Any] | None = None, *,
                       timeout_s: float | None = DEFAULT_TIMEOUT_S) -> Inputs:
    """Read what a loaded figure needs: data files, panel modules, imported files.

    Args:
        figure: a loaded layout (from a file, or built in code: :mod:`composer.api`).
        file: how to name the layout in messages.
        functions: ``"module:function"`` -> renderer, used before
            ``panels/module.py`` is looked for (renderers defined in a notebook).
        timeout_s: wall-time limit of each module's ``values()`` (run in a
            forked worker, see :mod:`composer.sandbox.isolate`), or None.

    Raises:
        LayoutError, DataError, PanelError (see the stages).
    """
    functions = functions or {}
    check_font(figure.spec.font, file=file, key="figure.font")
    loaded: dict[Path, Mapping[str, Any]] = {}

    def data_of(path: Path | None) -> Mapping[str, Any]:
        if path is None:
            return {}
        if path not in loaded:
            loaded[path] = load_data(path, display=project.display(path))
        return loaded[path]

    figure_data = data_of(figure.spec.data)
    data = {"": figure_data}
    renderers: dict[str, Any] = {}
    modules: dict[str, Any] = {}
    documents: dict[str, bytes] = {}
    reading = Reading(root=project.root, panels_dir=project.panels_dir, file=file, display=project.display)
    for panel in figure.panels:
        data[panel.name] = data_of(panel.data) if panel.data else figure_data
        source = source_of(panel)
        if source.table.matplotlib and str(panel.source) in functions:
            renderers[panel.name] = functions[str(panel.source)]
        elif source.table.matplotlib:  # a renderer in panels/module.py, loaded with the module's values()
            module, function = str(panel.source).split(":")
            key = f"{panel.key}.{panel.kind}"
            if module not in modules:
                modules[module] = load_module(project.panels_dir, module, file=file, key=key)
            renderers[panel.name] = find_renderer(modules[module], function, file=file, key=key)
        document = source.read(panel, reading)
        if document is not None:
            documents[panel.name] = document
    figure = file_aspects(figure, documents, file=file)
    _check_shared_params(figure, [renderers[p.name] for p in figure.panels if p.name in renderers]
                         + [m.values for m in modules.values() if callable(getattr(m, "values", None))],
                         file)
    given = {**scalar_values(figure_data), **figure.spec.params}
    needed = used_fields(figure) - set(given)  # fields only a values() can fill
    asking = next((key for key, names in field_uses(figure) if names & needed), None)  # why values() runs
    computed: dict[str, Any] = {}
    for module_name, module in sorted(modules.items()):
        func = getattr(module, "values", None)
        if func is None or not needed:
            continue
        computed.update(_module_values(func, module_name, figure_data, figure.spec.params, project, file, timeout_s,
                                       has_data=figure.spec.data is not None, asking=asking))
    values = {**computed, **given}  # data and params over values(): the same text whether or not it ran
    return Inputs(figure=figure, file=file, data=data, renderers=renderers, values=values, documents=documents,
                  root=project.root)


def field_uses(figure: Figure) -> list[tuple[str, set[str]]]:
    """``(key path, field names)`` of every text template that uses ``{name:format}`` fields, in layout
    order: canvas texts, shape texts, arrow labels, panel titles, then the alt texts. A malformed template is
    left out (it is reported, with its key, when the text is filled)."""
    templates = ([(f"{t.key}.text", t.text) for t in figure.texts]
                 + [(f"{s.key}.text", s.text) for s in figure.shapes if s.text]
                 + [(f"{a.key}.label", a.label) for a in figure.arrows if a.label]
                 + [(f"{p.key}.title", p.title) for p in figure.panels if p.title]
                 + [("figure.alt", figure.spec.alt or "")] * bool(figure.spec.alt)
                 + [(f"{p.key}.alt", p.alt) for p in figure.panels if p.alt])
    uses = []
    for key, template in templates:
        try:
            names = set(field_names(template))
        except ValueError:
            continue
        if names:
            uses.append((key, names))
    return uses


def used_fields(figure: Figure) -> set[str]:
    """The names of the ``{name:format}`` fields the figure's texts use (:func:`field_uses`)."""
    return {name for _, names in field_uses(figure) for name in names}


def _check_shared_params(figure: Figure, functions: list[Any], file: str) -> None:
    """Every ``[figure] params`` key is taken by a panel function or a ``values()`` (as a keyword, or
    through ``**kwargs``) or printed by a text field; else it is a typo or a leftover.

    Raises:
        LayoutError: at ``figure.params.KEY``, with the closest name taken.
    """
    import inspect

    if not figure.spec.params:
        return
    taken: set[str] = set()
    for func in functions:
        try:
            parameters = inspect.signature(func).parameters.values()
        except (TypeError, ValueError):
            return  # a callable composer cannot inspect may take anything
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            return
        taken |= {p.name for p in parameters}
    taken |= used_fields(figure)
    for name in figure.spec.params:
        if name not in taken:
            raise LayoutError(f"no panel function, values() or text field takes {name!r}"
                              + did_you_mean(name, sorted(taken))
                              + "; a shared param must be used (or removed)", file=file, key=f"figure.params.{name}")


def _module_values(func, module_name: str, data: Mapping[str, Any], params: Mapping[str, Any], project: Project,
                   file: str, timeout_s: float | None, *, has_data: bool = True,
                   asking: str | None = None) -> dict[str, Any]:
    """``values(data, **params)`` of one panel module, run isolated like a renderer. Its errors are at
    ``figure.data`` (what it reads), or, without a data file, at ``asking``: the key of the first text
    whose field made it run."""
    who = f"values() in panels/{module_name}.py"
    key = "figure.data" if has_data else asking
    hint = "" if has_data else " (the figure has no data file: values(data) got an empty one; set [figure] data)"

    def call() -> dict[str, Any]:
        try:
            found = func(data, **accepted(func, params))
        except Exception as exc:  # noqa: BLE001  (the user's code)
            raise PanelError(f"{who} raised {describe(exc, project.panels_dir)}{hint}", file=file,
                             key=key, frames=frames_of(exc)) from None
        if not isinstance(found, dict):
            raise PanelError(f"{who} returned {type(found).__name__}, not a dict", file=file, key=key)
        return found

    prepare_fork()
    try:
        return run_recorded(call, timeout_s=timeout_s, who=who, cwd=project.root)  # files it opens: sandbox.audit
    except WorkerFailure as failure:
        raise PanelError(failure.worded(who, project.panels_dir), file=file, key=key,
                         frames=failure.frames) from None
