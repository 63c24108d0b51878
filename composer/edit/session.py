"""The preview's edits of its figures, as the server answers them: ``/NAME/edit``, ``/undo``, ``/redo``,
``/open`` (the routes are :mod:`composer.cli.serve`'s; this is what they do, as plain calls that return
an HTTP status and a JSON body).

An edit runs, under one lock (one edit at a time, so the file is never read by one and written by
another in between):

1. the layout file read; its digest must be the one the page saw (else 409 ``changed-on-disk``);
   a Python layout is refused (409 ``python-layout``) with the values to type;
2. the element found in it (:mod:`composer.edit.targets`), its box and route in the last build's
   ``elements.json``;
3. the new text made (:func:`composer.edit.writeback.plan`), loaded by the loader and the moved boxes
   checked (:mod:`composer.edit.check`): a refusal is 422 ``invalid`` with one line, nothing written;
4. written (:class:`composer.edit.history.History`): the builder's watch loop sees the file change and
   rebuilds, and the page gets the new SVG through ``/events``.

Bodies: see :mod:`composer.cli.serve` (the routes' reference).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from composer.edit.check import boxes_of, check_place, load_text, moved_boxes
from composer.edit.history import ChangedOnDisk, History, digest, read_text
from composer.edit.targets import targets
from composer.edit.writeback import Refused, plan
from composer.errors import ComposerError

Answer = tuple[int, dict[str, Any]]
#: the layout texts of one figure whose boxes an editor remembers (:meth:`Editor._boxes`)
MAX_REMEMBERED = 256


class Editor:
    """The edits of the figures of one preview.

    Args:
        root: the project. state_dir: the preview's state folder (``STATE/NAME/elements.json``).
        editor: the command that opens a file at a line (``"code -g {path}:{line}"``: ``{path}`` and
            ``{line}`` filled in, split as a shell would split it, run without a shell), or None.
    """

    def __init__(self, root: Path, state_dir: Path, editor: str | None = None):
        self.root, self.state_dir, self.editor = Path(root), Path(state_dir), editor
        self.history = History()
        self.boxes: dict[str, dict[str, dict[str, Any]]] = {}  # figure -> layout digest -> element id -> box
        import composer.stages  # noqa: F401 - imported now (in compose, before the server forks), not at the
        # first edit: the panel sources the loader reads, registered (the first edit took 0.4 s more)

    def warm(self, name: str) -> bool:
        """Load figure ``name``'s TOML layout once (the figure dropped), so that what the loader imports on first
        use (matplotlib's colours) is imported before the server forks, not at the first edit; False when it
        is not a TOML layout or does not load."""
        try:
            path, shown = self.layout_path(name)
            if path.suffix != ".toml":
                return False
            load_text(read_text(path), path, name=name, display=shown)
        except (ComposerError, OSError, UnicodeDecodeError):
            return False
        return True

    # ─── what the page is shown ───────────────────────────────────────────
    def elements(self, name: str) -> dict[str, Any] | None:
        """``elements.json`` of figure ``name`` as the builder last wrote it, or None before the first."""
        try:
            return json.loads((self.state_dir / name / "elements.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def layout_path(self, name: str) -> tuple[Path, str]:
        """The layout file of figure ``name`` and how messages name it (``layouts/fig.toml``)."""
        from composer.stages.inputs import Project

        project = Project.at(self.root)
        path = project.layout_path(name)
        return path, project.display(path)

    # ─── the routes ───────────────────────────────────────────────────────
    def edit(self, name: str, body: Mapping[str, Any]) -> Answer:
        """``POST /NAME/edit``: move or resize one element (module docstring)."""
        if "id" not in body:
            return _bad("an edit is {\"id\", \"dx_pt\", \"dy_pt\", \"dw_pt\", \"dh_pt\", \"digest\"}: "
                        "\"id\" is missing")
        ident = str(body["id"])
        lengths: list[float] = []
        for field_name in ("dx_pt", "dy_pt", "dw_pt", "dh_pt"):
            value = body.get(field_name, 0.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return _bad(f"{field_name} must be a JSON number of points, not {json.dumps(value)[:40]}")
            try:
                lengths.append(float(value))
            except OverflowError:  # an integer of hundreds of digits
                return _bad(f"{field_name} is not a finite number of points ({len(str(value))} digits)")
        dx, dy, dw, dh = lengths
        seen = body.get("digest")
        if not isinstance(seen, str):
            return _bad(_NO_DIGEST)
        path, shown = self.layout_path(name)
        if path.suffix == ".py":
            return self._python(name, shown, ident, dx, dy, dw, dh)
        with self.history.lock:
            try:
                text = read_text(path)
                path = self._write_path(path, shown)
            except ComposerError as exc:
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(str(exc))}
            except (OSError, UnicodeDecodeError) as exc:  # the loader's own wording (read_document)
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(f"{shown}: cannot read: {exc}")}
            if digest(text) != seen:
                return self._changed(name, f"{shown} was changed on disk since the page loaded it; the page "
                                           "reloads it, and nothing was written")
            known = self.elements(name) or {}
            items = [dict(e) for e in known.get("elements", [])]
            now = self._boxes(name, known, digest(text))
            for e in items:
                e["box_pt"] = now.get(str(e.get("id")), e.get("box_pt"))
            element = next((e for e in items if e.get("id") == ident), None)
            try:
                figure = load_text(text, path, name=name, display=shown)
                target = targets(figure, tomllib.loads(text)).get(ident)
                if target is None:
                    raise Refused(f"{shown}: no element {ident!r} in the layout")
                box = element.get("box_pt") if element else None
                if box is None:  # nothing to check the move against: never written unchecked
                    raise Refused(f"no drawn box for {target.key} yet: the last build did not draw it; save a "
                                  "layout that builds first")
                new_text, change = plan(text, figure, target, dx_pt=dx, dy_pt=dy, dw_pt=dw, dh_pt=dh, box_pt=box,
                                        route_pt=element.get("route_pt") if element else None)
                new_figure = load_text(new_text, path, name=name, display=shown)
                boxes = boxes_of(items)
                moved: dict[str, tuple[float, float, float, float]] = {}
                if target.kind not in ("label", "waypoint"):
                    moved = moved_boxes(figure, target, boxes, dx, dy, dw, dh)
                    problem = check_place(new_figure, target, boxes, moved, file=shown)
                elif box is not None:  # a label or a waypoint: its own box, against the canvas's edge
                    own = {target.key: (float(box[0]), float(box[1]), float(box[2]), float(box[3]))}
                    moved = {target.key: (own[target.key][0] + dx, own[target.key][1] + dy, *own[target.key][2:])}
                    problem = check_place(new_figure, target, own, moved, file=shown)
                else:
                    problem = None
                if problem is not None:
                    raise Refused(problem)
                record = {"changed": change.as_dict(), "all_changed": [c.as_dict() for c in change.all]}
                new_digest = self.history.write(name, path, None, text, new_text, record)
                ids: dict[str, str] = {str(e["check_key"]): str(e.get("id")) for e in items if e.get("check_key")}
                ids[target.key] = ident  # a label's or waypoint's own box
                after: dict[str, Any] = {**now, **{ids[k]: list(b) for k, b in moved.items() if k in ids}}
                self._remember(name, digest(text), now, new_digest, after)
            except ChangedOnDisk as exc:
                return self._changed(name, str(exc))
            except ComposerError as exc:
                if exc.file is None and exc.key:  # a value of the file (writeback): where it is written
                    exc.file = shown
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(str(exc))}
            except OSError as exc:
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(f"{shown}: cannot write: {exc}")}
        undo, redo = self.history.counts(name)
        return 200, {"ok": True, "digest": new_digest, **record, "undo": undo, "redo": redo}

    def step(self, name: str, body: Mapping[str, Any], *, back: bool) -> Answer:
        """``POST /NAME/undo`` (``back``) or ``/NAME/redo``."""
        seen = body.get("digest")
        if not isinstance(seen, str):
            return _bad(_NO_DIGEST)
        path, shown = self.layout_path(name)
        if path.suffix == ".py":
            return 409, {"ok": False, "reason": "python-layout", "message": f"{shown} is a Python layout: "
                         "the page writes nothing into it, so there is nothing to undo", "values": {}}
        with self.history.lock:
            try:
                path = self._write_path(path, shown)
                new_digest, record = self.history.step(name, path, seen, back=back)
            except ChangedOnDisk as exc:
                return self._changed(name, str(exc))
            except Refused as exc:
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(str(exc))}
            except ComposerError as exc:
                return 409, {"ok": False, "reason": "nothing", "message": str(exc)}
            except (OSError, UnicodeDecodeError) as exc:
                return 422, {"ok": False, "reason": "invalid", "message": _one_line(f"{shown}: cannot read: {exc}")}

        def turned(change: Any) -> Any:
            return {**change, "before": change.get("after"), "after": change.get("before")} if back else change

        undo, redo = self.history.counts(name)
        return 200, {"ok": True, "digest": new_digest, "changed": turned(record["changed"]),
                     "all_changed": [turned(c) for c in record["all_changed"]], "undo": undo, "redo": redo}

    def open(self, name: str, body: Mapping[str, Any]) -> Answer:
        """``POST /NAME/open``: run the editor command on the element's line; the page follows ``url``."""
        ident = str(body.get("id", ""))
        element = next((e for e in (self.elements(name) or {}).get("elements", []) if e.get("id") == ident), None)
        path, _ = self.layout_path(name)
        line = element.get("line") if element else None
        url = element.get("editor_url") if element else f"vscode://file/{path.resolve()}"
        if self.editor:
            command = [part.replace("{path}", str(path.resolve())).replace("{line}", str(line or 1))
                       for part in shlex.split(self.editor)]
            try:
                subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
            except OSError as exc:
                return 422, {"ok": False, "reason": "editor", "message": f"--editor {self.editor!r}: {exc}",
                             "url": url}
        # ran: the command was started, so the page does not follow url too (the editor would open twice)
        return 200, {"ok": True, "url": url, "line": line, "ran": bool(self.editor)}

    # ─── the boxes of texts not built yet ─────────────────────────────────
    def _boxes(self, name: str, known: Mapping[str, Any], now: str) -> dict[str, Any]:
        """Element id -> box for the layout text of digest ``now``: ``elements.json``'s when it describes that
        text; else, when one of this preview's edits (or an undo, a redo) wrote that text, the boxes that
        edit left (the build of it may not have written its ``elements.json`` yet: a second drag soon after
        the first is checked where the first left the element); else ``elements.json``'s."""
        built = {e["id"]: e.get("box_pt") for e in known.get("elements", []) if "id" in e}
        if known.get("digest") == now:
            return built
        return dict(self.boxes.get(name, {}).get(now, built))

    def _remember(self, name: str, before: str, boxes_before: dict[str, Any], after: str,
                  boxes_after: dict[str, Any]) -> None:
        texts = self.boxes.setdefault(name, {})
        texts.setdefault(before, boxes_before)
        texts[after] = boxes_after
        while len(texts) > MAX_REMEMBERED:
            texts.pop(next(iter(texts)))

    def _write_path(self, path: Path, shown: str) -> Path:
        """The file an edit of ``path`` replaces: ``path``, or the file a symbolic link points to (the link, or
        a linked folder on the way) when it is inside the project (the link stays a link).

        Raises:
            Refused: the file is outside the project, through a link (the page writes only the project's files).
        """
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(Path(os.path.realpath(self.root))):
            raise Refused(f"{shown} is a link to {real}, outside the project: the page writes nothing there; "
                          "edit it by hand")
        return real

    # ─── refusals ─────────────────────────────────────────────────────────
    def _changed(self, name: str, message: str) -> Answer:
        return 409, {"ok": False, "reason": "changed-on-disk", "message": message}

    def _python(self, name: str, shown: str, ident: str, dx: float, dy: float, dw: float, dh: float) -> Answer:
        """A Python layout: the values a person would type, worked out on its document as ``layout()``
        returned it (``elements.json``'s ``raw``), nothing written."""
        known = self.elements(name) or {}
        raw = known.get("raw")
        element = next((e for e in known.get("elements", []) if e.get("id") == ident), None)
        values: dict[str, Any] = {}
        why = ""
        if isinstance(raw, dict) and element is not None:
            try:
                values = python_values(raw, element, dx, dy, dw, dh)
            except ComposerError as exc:
                why = f" ({exc})"
        shown_values = ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
        return 409, {"ok": False, "reason": "python-layout", "values": values,
                     "message": f"{shown} is a Python layout: composer cannot write a move into code; "
                                + (f"type {shown_values} for {element['key_path']}" if values and element
                                   else "change it in the code") + why}


def python_values(raw: Mapping[str, Any], element: Mapping[str, Any], dx: float, dy: float, dw: float,
                  dh: float) -> dict[str, Any]:
    """The values an edit of ``element`` (an item of ``elements.json``) gives its table in a layout
    document ``raw`` (a Python layout's), as :func:`composer.edit.writeback.plan` would write them: the
    table written alone as TOML, edited, read back.

    Raises:
        ComposerError: the edit cannot be written (:class:`composer.edit.writeback.Refused`).
    """
    from composer.edit.targets import Target, how_placed, raw_table

    key = str(element.get("key_path", ""))
    table_key = key.removesuffix(".label") if element.get("kind") == "label" else key
    table = raw_table(raw, table_key)
    if element.get("kind") == "waypoint":
        table = {"via": [table]}
    if not isinstance(table, Mapping):
        raise Refused(f"{key} is not a table of the document")
    text = "[t]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in table.items())
    kind = str(element.get("kind"))
    how = "point" if kind == "waypoint" else "label" if kind == "label" else how_placed(table)
    target = Target(str(element.get("id")), kind, str(element.get("name")), "t.via[0]" if kind == "waypoint" else "t",
                    how, str(element.get("anchor", "center")), resizable=bool(element.get("resizable", True)))

    class _Spec:  # the one thing plan reads of the figure: the unit of [figure] width
        unit = _unit_of(raw)

    class _Figure:
        spec = _Spec()

    figure: Any = _Figure()
    new_text, change = plan(text, figure, target, dx_pt=dx, dy_pt=dy, dw_pt=dw, dh_pt=dh,
                            box_pt=element.get("box_pt"), route_pt=element.get("route_pt"))
    new, old = tomllib.loads(new_text)["t"], tomllib.loads(text)["t"]
    return {k: v for k, v in new.items() if old.get(k) != v}


def _unit_of(raw: Mapping[str, Any]) -> str:
    from composer.units import PT_PER_UNIT, unit_of

    width = raw.get("figure", {}).get("width") if isinstance(raw.get("figure"), Mapping) else None
    unit = unit_of(width) if isinstance(width, str) else "mm"
    return unit if unit in PT_PER_UNIT else "mm"


def _toml(value: Any) -> str:
    """A value of a layout document as a TOML value (strings, numbers, booleans, arrays, inline tables)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Sequence):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


_NO_DIGEST = ("\"digest\" is missing: send the layout's digest from elements.json (the text the page saw), so "
              "that a file changed on disk is never overwritten")


def _bad(message: str) -> Answer:
    return 400, {"ok": False, "reason": "bad-request", "message": message}


def _one_line(message: str) -> str:
    return " ".join(message.split())
