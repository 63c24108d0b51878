"""Live preview in the browser: ``compose serve NAME``, ``compose serve --all`` (and the old ``compose NAME --serve``).

Two kinds of process, so that no build ever forks from a process running threads (see
:mod:`composer.cli.watch`):

- the **server** (:func:`start_server`): forked at start, before any build, from the one thread of
  ``compose``; it runs the standard library's :class:`http.server.ThreadingHTTPServer` on
  127.0.0.1 only and never builds. It dies with ``compose`` (``PR_SET_PDEATHSIG``) and ``compose``
  stops it on exit.
- the **builder**: ``compose`` itself runs the ordinary watch loop (:func:`composer.cli.watch.watch`)
  and, after each build, writes the figure's state (a build counter, the one-line error of a failed
  build, the check's findings) to ``STATE/NAME.json`` (``STATE`` is the folder ``OUT/.serve-PID``, removed
  on exit), replaced atomically. With ``--all``
  each figure has a builder process of its own (forked from ``compose``'s one thread before any
  build), and a lock file lets one build run at a time.

The server polls the state files and the figures' SVGs (every :data:`POLL_S` seconds) and tells the
pages through server-sent events (``/events``), so a page swaps the new SVG in place as soon as the
build writes it (``svg_first``: before PDF and PNG are exported), keeping its zoom and scroll.

After each successful build that changed something, the builder composes the figure once more with
the overlay and the check (:meth:`Builder._check`: panels from the panel cache, warnings not
repeated, the outputs and the build manifest untouched): that writes ``STATE/NAME/NAME.debug.svg``
(the overlay the page can show, as ``compose NAME --debug`` draws it) and gives the findings of
``compose check`` as data (:meth:`composer.lint.rules.Finding.as_dict`), each with the elements it
concerns: their names and their boxes in canvas pt, from the figure's geometry
(:mod:`composer.stages.named`), never read back from the overlay's drawing.

The state of a figure, as the page receives it (``/events``, ``/state.json``: ``{"figures": {NAME:
STATE}}``): ``name``, ``builds`` (a counter), ``building``, ``error`` (the one line of a failed build,
else null), ``summary`` (the CLI's line), ``svg``, ``debug`` and ``elements`` (tokens that change with each
file: the SVG, the overlay, ``elements.json``; null before it exists), ``width_pt``, ``height_pt`` and
``viewbox`` (of the SVG), ``findings`` (null until checked: a list of ``{"rule", "level", "element" (the
subject as text), "elements": [{"name", "key", "kind", "box_pt": [x, y, width, height] or null}],
"problem", "measured", "limit", "unit"}``), ``findings_error`` (why the check failed, else null),
``elements_error`` (why ``elements.json`` could not be written, a fault of composer's own, else null or
absent) and ``notes``.

Routes: ``/`` (the figure's page; with ``--all`` an index of every figure), ``/NAME/`` (a figure's
page), ``/NAME.svg`` (the file in the output folder) and ``/NAME.debug.svg`` (the overlay),
``/events`` (server-sent events: the state of every figure, as JSON, whenever one changes) and
``/state.json`` (the same, once); ``/NAME.diff.json`` (the figure now against its last commit, asked
by the page's Diff toggle: :class:`DiffRunner`) and ``/NAME.diff.png`` (its image).

**Editing from the page** (:mod:`composer.edit`). JSON in and out; lengths in canvas pt, y down, origin
at the canvas's top-left; ``ID`` an element's stable id (``panel:a``, ``text:title``, ``text:3``,
``shape:proj``, ``legend:0``, ``colorbar:heat``, ``connector:2.label``, ``connector:2.waypoint.0``:
:mod:`composer.edit.targets`):

- ``GET /NAME/elements.json``: ``STATE/NAME/elements.json``, written by the builder after each
  successful build (:meth:`Builder._elements`, in the same pass as the overlay and the findings), so
  it describes the SVG whose token it carries: ``{"token", "digest" (SHA-256 of the layout file's
  text), "layout": {"file", "path", "writable", "why"}, "canvas_pt", "elements": [{"id", "kind",
  "name", "key_path", "line", "box_pt", "movable", "resizable", "editor_url", "check_key", "how",
  "anchor", "route_pt" (a connector label's)}], "snap": {"x_pt": [{"at", "what"}], "y_pt": [...]}}``
  (:mod:`composer.edit.elements`); 404 before the first build. The state's ``elements`` token changes
  with the file.
- ``POST /NAME/edit`` ``{"id", "dx_pt", "dy_pt", "dw_pt", "dh_pt", "digest"}`` (a move of the box's
  top-left, a resize of its width and height; lengths are JSON numbers, ``digest`` is required):
  ``200 {"ok": true, "digest", "changed": {"key_path", "line", "before", "after"}, "all_changed":
  [{...}, ...], "undo", "redo"}`` (``changed``: the first key written; ``all_changed``: every key
  written, that one first, each alike: a resize writes ``size`` and ``at``, a label's move
  ``label_pos`` and ``label_side``); ``400 {"reason": "bad-request", "message"}`` for a body without
  ``id`` or ``digest`` or with a length that is not a number; ``409 {"reason": "changed-on-disk"}``
  when the file's digest is not ``digest``; ``422 {"reason": "invalid", "message"}`` (the loader's
  one line, the check's ``outside-canvas`` or ``overlap`` for the moved boxes, an element the last
  build drew no box for, a length past the loader's limit, a file that is not UTF-8, a link to a file
  outside the project, or why nothing can be written); ``409 {"reason": "python-layout", "message",
  "values"}`` for ``layouts/NAME.py``. Nothing is written unless the answer is 200. A symbolic link
  inside the project is written through (the file it points to is replaced, the link kept).
- ``POST /NAME/undo``, ``POST /NAME/redo`` ``{"digest"}`` (required): the same answers; each writes the
  file (:class:`composer.edit.history.History`), refused with ``changed-on-disk`` when the file is not
  what the last edit wrote (the history before such a change is dropped: undo never goes back past a
  change made outside the page).
- ``POST /NAME/open`` ``{"id"}``: runs ``--editor`` (``"code -g {path}:{line}"``), then ``200 {"ok":
  true, "url": editor_url, "line"}`` for the page to follow.

POSTs are answered only with the preview's own ``Host``, an ``Origin`` of its own (when sent) and a
body of type ``application/json`` (a page of another site cannot send one without a preflight,
which this server never answers). The edits run in the server process and never build: the loader
reads the new text (a TOML layout runs no code), and the moved boxes are checked against the last
build's boxes (``elements.json``) as the check measures them (:mod:`composer.edit.check`), with no
fork and no matplotlib; the file written, the builder's watch loop rebuilds as after any save.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from composer.errors import ComposerError, ComposerWarning
from composer.progress import Progress
from composer.sandbox.isolate import fork

#: the only address the preview listens on: this machine, never the network
HOST = "127.0.0.1"
#: how often the server looks at the state files and SVGs (s): a page updates within about this long
POLL_S = 0.05
#: a comment sent on an idle event stream this often (s), so a closed page is noticed and dropped
KEEPALIVE_S = 10.0
#: at most this many pages follow ``/events`` at once (each holds one server thread); one more is
#: answered 503. A closed page's stream ends at its next write (a keep-alive at the latest).
MAX_EVENT_STREAMS = 32
#: the page (inline JS and CSS), shipped as package data (pyproject.toml [tool.setuptools.package-data])
PAGE = "serve_page.html"
SVG_NS = "http://www.w3.org/2000/svg"
#: the largest body a POST route reads (an edit is a hundred bytes)
MAX_BODY_BYTES = 65536


@dataclass(frozen=True)
class Options:
    """The build options of every build of the preview (see :func:`composer.pipeline.build`)."""

    formats: tuple[str, ...]
    dpi: float
    jobs: int | None
    timeout_s: float | None
    engine: str | None
    pdf_standard: str | None


#: the program of a diff process: ``compose``'s main, with Ctrl-C handled again
_DIFF_MAIN = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
              "from composer.cli.main import main; sys.exit(main(sys.argv[1:]))")


@dataclass(frozen=True)
class DiffRunner:
    """``compose diff NAME HEAD`` for the page's Diff toggle, run by the server on request.

    The server runs threads and never builds in its own process (a fork of a threaded process may
    deadlock), so each diff is a fresh ``compose diff`` process (fork and exec at once), one at a time
    per figure, its image written to ``STATE/NAME/NAME.diff.png``. It is in ``compose``'s process group
    and takes Ctrl-C back (the server ignores it, and an ignored signal stays ignored across exec): a
    Ctrl-C stops it as it stops the preview, and it removes its git worktree.

    Attributes:
        root: the project. state_dir: the preview's state folder. dpi: of the diff image (192: two pixels per
            CSS pixel at the page's 100 %, sharp on a high-density screen and when zoomed in twice).
        jobs, timeout_s: as the preview's builds take them.
    """

    root: Path
    state_dir: Path
    dpi: float = 192.0
    jobs: int | None = None
    timeout_s: float | None = None
    locks: dict[str, threading.Lock] = dataclasses.field(default_factory=dict, compare=False)

    def command(self, name: str) -> list[str]:
        """The ``compose diff`` command line for figure ``name``."""
        return [sys.executable, "-c", _DIFF_MAIN, "diff", name, "HEAD", "--root", str(self.root), "--out",
                str(self.state_dir / name), "--json", "--dpi", f"{self.dpi:g}",
                *(["-j", str(self.jobs)] if self.jobs else []),
                *(["--timeout", f"{self.timeout_s:g}"] if self.timeout_s is not None else [])]

    def run(self, name: str) -> dict[str, Any]:
        """Compare figure ``name`` now with its last commit: ``{"report": FigureDiff.as_dict() or None,
        "error": the one line of compose diff's error, or None, "image": a token of the diff image or None}``."""
        lock = self.locks.setdefault(name, threading.Lock())
        with lock:
            (self.state_dir / name).mkdir(parents=True, exist_ok=True)
            limit = None if self.timeout_s is None else 4 * self.timeout_s + 60.0  # two builds, two exports
            try:
                done = subprocess.run(self.command(name), capture_output=True, text=True, timeout=limit,
                                      stdin=subprocess.DEVNULL, check=False)
            except subprocess.TimeoutExpired:
                return {"report": None, "error": f"compose diff {name} ran longer than {limit:g} s", "image": None}
            lines = [line for line in done.stderr.splitlines() if line.startswith("compose: error: ")]
            if done.returncode != 0 or not done.stdout.strip():
                said = lines[0].removeprefix("compose: error: ") if lines else f"exit status {done.returncode}"
                return {"report": None, "error": said, "image": None}
            image = self.state_dir / name / f"{name}.diff.png"
            return {"report": json.loads(done.stdout), "error": None, "image": _token(_stamp(image))}


# ─── the size of a figure ─────────────────────────────────────────────


def svg_size(svg_head: bytes) -> dict[str, Any] | None:
    """Width and height (pt) and viewBox of an SVG document, as it is exported
    (:func:`composer.svg.viewbox.canvas_size`: the one rule), for the page.

    ``svg_head`` is the start of the document (the root's start tag must be in it).

    Returns:
        ``{"width_pt", "height_pt", "viewbox": [x, y, w, h]}`` (the viewBox ``0 0 width height`` when the
        root has none), or None when the size cannot be read.
    """
    from composer.errors import SvgError
    from composer.svg.viewbox import canvas_size

    try:
        size = canvas_size(svg_head)
    except SvgError:
        return None
    box = size.view_box
    viewbox = [0.0, 0.0, size.width_pt, size.height_pt] if box is None else [box.x, box.y, box.width, box.height]
    return {"width_pt": size.width_pt, "height_pt": size.height_pt, "viewbox": viewbox}


# ─── the builder: the watch loop, telling the server about each build ───────


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` with ``data`` as JSON at once (a temporary sibling, then a rename)."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, ensure_ascii=False, sort_keys=True)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


class Builder:
    """Runs the watch loop of one figure and writes its state for the server after each build.

    Args:
        name: the figure. root: the project. out: the output folder (None: ``ROOT/build``).
        options: the build options. state_dir: where the state file ``NAME.json`` goes.
        report: called with each :class:`composer.cli.watch.WatchEvent` (prints the terminal line).
        summary: the one line of a successful build, ``summary(name, result, seconds)``.
        progress: makes the progress display of each build.
        lock: a file locked around each build (``--all``: one build at a time), or None.
    """

    def __init__(self, name: str, *, root: Path, out: Path | None, options: Options, state_dir: Path,
                 report: Callable[[Any], None], summary: Callable[[str, Any, float], str],
                 progress: Callable[[], Progress], lock: Path | None = None):
        self.name, self.root, self.out, self.options = name, root, out, options
        self.path = state_dir / f"{name}.json"
        self.debug_dir = state_dir / name  # the overlay: NAME.debug.svg
        self.path.parent.mkdir(parents=True, exist_ok=True)  # a figure in a subfolder: layouts/sub/x.toml
        self.report, self.summary, self.progress, self.lock = report, summary, progress, lock
        self.state: dict[str, Any] = {"name": name, "builds": 0, "building": True, "error": None, "summary": "",
                                      "findings": None, "findings_error": None}
        self.lock_fd: int | None = None
        self.started_with: tuple[int, int, int] | None = None  # the layout file's stamp as the build started
        self.waited_s = 0.0  # how long the build waited for the lock (not part of its time)
        self.checked = False

    def run(self, stop: threading.Event | None = None) -> int:
        """Build, then rebuild on every change until interrupted (or ``stop`` is set); returns the number
        of builds.

        Raises:
            KeyboardInterrupt: Ctrl-C. ComposerError: what :func:`composer.cli.watch.watch` raises
            before watching starts.
        """
        from composer.cli.watch import watch

        _write_json(self.path, self.state)
        o = self.options
        return watch(self.name, root=self.root, out=self.out, formats=o.formats, dpi=o.dpi, jobs=o.jobs,
                     timeout_s=o.timeout_s, on_build=self.on_build, progress=self._progress, engine=o.engine,
                     pdf_standard=o.pdf_standard, stop_event=stop)

    def _progress(self) -> Progress:
        """Called by the watch loop as each build starts: take the lock, say "building"."""
        if self.lock is not None and self.lock_fd is None:
            waiting = time.perf_counter()
            self.lock_fd = os.open(self.lock, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX)
            self.waited_s = time.perf_counter() - waiting
        self.state["building"] = True
        _write_json(self.path, self.state)
        self.started_with = self._layout_stamp()
        return self.progress()

    def _layout_stamp(self) -> tuple[int, int, int] | None:
        """The layout file's stamp now (:func:`_stamp`), None when it cannot be found."""
        from composer.stages.inputs import Project

        try:
            return _stamp(Project.at(self.root).layout_path(self.name))
        except ComposerError:
            return None

    def on_build(self, event: Any) -> None:
        """After each build: the terminal line, the state, and the overlay and findings when it changed."""
        try:
            event = dataclasses.replace(event, seconds=max(0.0, event.seconds - self.waited_s))
            self.waited_s = 0.0
            self.report(event)
            self.state.update(builds=self.state["builds"] + 1, building=False,
                              error=None if event.error is None else str(event.error))
            if event.error is None:
                self.state["summary"] = self.summary(self.name, event.result, event.seconds)
            _write_json(self.path, self.state)
            # the layout saved again while this build ran (an edit from the page, a nudge after a nudge): the
            # next build follows at once, so the check pass waits for it rather than delaying it
            superseded = self.started_with is not None and self._layout_stamp() != self.started_with
            if superseded:
                self.checked = False  # the next build checks, even one that finds nothing changed
            elif event.error is None and (not event.result.up_to_date or not self.checked):
                self._check()
                _write_json(self.path, self.state)
        finally:
            if self.lock_fd is not None:
                os.close(self.lock_fd)  # releases the lock
                self.lock_fd = None

    def _check(self) -> None:
        """Compose the figure once more with the overlay and the check, into ``STATE_DIR/NAME/``.

        The layout is built as a figure held in memory (:func:`composer.pipeline.build_figure`):
        panels come from the panel cache the build just filled, nothing is stored, and neither the
        outputs nor the build manifest the watch loop compares with are touched, so an edit made
        meanwhile is still seen as one.
        """
        from composer.layout.loader import load_layout
        from composer.pipeline import BuildOptions, build_figure
        from composer.sandbox.parallel import available_cores
        from composer.stages.inputs import Project

        o = self.options
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ComposerWarning)  # said once already, by the build itself
                project = Project.at(self.root)
                path = project.layout_path(self.name)
                shown = project.display(path)
                figure = load_layout(path, name=self.name, display=shown, timeout_s=o.timeout_s)
                # the overlay's PNG, which a debug build always makes, is not shown: made small (dpi)
                options = BuildOptions(formats=("svg",), dpi=24.0, debug=True, check=True, timeout_s=o.timeout_s,
                                       jobs=o.jobs or available_cores(), engine=o.engine, store=False, elements=True)
                result, _ = build_figure(project, figure, shown, options, out=self.debug_dir)
                try:
                    self._elements(result, path, shown)
                    self.state["elements_error"] = None
                except ComposerError:
                    raise
                except Exception as exc:  # noqa: BLE001 - composer's own fault: the preview goes on without edits
                    self.state["elements_error"] = f"elements.json not written: {type(exc).__name__}: {exc}"
        except ComposerError as exc:
            self.state.update(findings=None, findings_error=str(exc))
            return
        self.checked = True
        report = result.report
        findings = [finding.as_dict() for finding in report.findings] if report is not None else []
        self.state.update(findings=findings, findings_error=None,
                          notes=list(report.notes) if report is not None else [])

    def _elements(self, result: Any, path: Path, shown: str) -> None:
        """Write ``STATE/NAME/elements.json`` (:mod:`composer.edit.elements`) for the SVG on disk now.

        The layout's text is read once more: its digest is what an edit from the page must find on
        disk. A Python layout's document comes from its ``layout()`` (run in a forked worker, as a build
        runs it); it is not writable, and the page shows the values to type.
        """
        from composer.edit.elements import elements_document
        from composer.edit.history import digest, read_text, why_not_writable
        from composer.layout.loader import read_document

        text = read_text(path)
        python = path.suffix == ".py"
        why = ("a Python layout (layouts/NAME.py) is code: composer cannot write a move back into it; type the "
               "values the page shows" if python else why_not_writable(path, self.root))
        raw = read_document(path, display=shown) if python else tomllib.loads(text)
        out = Path(self.out) if self.out is not None else self.root / "build"
        document = elements_document(
            result, path=path.resolve(), display=shown, text=None if python else text, raw=raw,
            token=_token(_stamp(out / f"{self.name}.svg")), digest=digest(text), writable=why is None,
            why=why)
        if python:
            document["raw"] = _json_safe(raw)
        self.debug_dir.mkdir(parents=True, exist_ok=True)
        _write_json(self.debug_dir / "elements.json", document)


def _json_safe(value: Any) -> Any:
    """A layout document as JSON can hold it (what a Python layout returned; anything else as its text)."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


# ─── the server process ───────────────────────────────────────────────────


class _Figures:
    """In the server: what it knows of each figure, from the files the builders write; polled."""

    def __init__(self, names: Sequence[str], out_dir: Path, state_dir: Path):
        self.names, self.out_dir, self.state_dir = list(names), out_dir, state_dir
        self.version = 0
        self.states: dict[str, dict[str, Any]] = {n: {"name": n, "builds": 0, "building": True} for n in names}
        self.seen: dict[str, tuple[Any, ...]] = {}
        self.changed = threading.Condition()

    def poll(self) -> None:
        """Read what changed since the last poll; wake the event streams when anything did."""
        updated = False
        for name in self.names:
            files = (self.out_dir / f"{name}.svg", self.state_dir / name / f"{name}.debug.svg",
                     self.state_dir / f"{name}.json", self.state_dir / name / "elements.json")
            stamps = tuple(_stamp(f) for f in files)
            if stamps == self.seen.get(name):
                continue
            self.seen[name] = stamps
            state = dict(self.states[name])
            try:
                state.update(json.loads(files[2].read_text(encoding="utf-8")))
            except (OSError, ValueError):
                pass
            state["svg"] = _token(stamps[0])
            state["debug"] = _token(stamps[1])
            state["elements"] = _token(stamps[3])
            if stamps[0] is not None:
                with contextlib.suppress(OSError), open(files[0], "rb") as svg:
                    size = svg_size(svg.read(8192))
                    if size is not None:
                        state.update(size)
            self.states[name] = state
            updated = True
        if updated:
            with self.changed:
                self.version += 1
                self.changed.notify_all()

    def snapshot(self) -> tuple[int, dict[str, Any]]:
        with self.changed:
            return self.version, {"figures": {n: self.states[n] for n in self.names}}

    def run(self) -> None:
        while True:
            self.poll()
            time.sleep(POLL_S)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _token(stamp: tuple[int, int, int] | None) -> str | None:
    return None if stamp is None else hashlib.sha256(repr(stamp).encode()).hexdigest()[:16]


def _page(config: dict[str, Any]) -> bytes:
    """The page with its configuration (figure name, figures, initial toggles) filled in."""
    text = resources.files("composer.cli").joinpath(PAGE).read_text(encoding="utf-8")
    blob = json.dumps(config, ensure_ascii=False).replace("<", "\\u003c")
    return text.replace("/*CONFIG*/null", blob).encode("utf-8")


def _handler(figures: _Figures, single: str | None, toggles: dict[str, bool],
             diff: DiffRunner | None = None, editor: Any = None) -> type[BaseHTTPRequestHandler]:
    names = set(figures.names)
    streams = threading.BoundedSemaphore(MAX_EVENT_STREAMS)  # the /events answers now running

    class Handler(BaseHTTPRequestHandler):
        server_version = "compose-serve"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass  # the terminal shows compose's own lines only

        def _send(self, body: bytes, kind: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
            self.do_GET()

        def _own_host(self) -> bool:
            """The request names this preview's own address (else 403: a page of another site reaching this
            port through a name it controls, DNS rebinding)."""
            port = self.server.server_address[1]  # type: ignore[index]  # an (address, port) pair: AF_INET
            if self.headers.get("Host", f"{HOST}:{port}").lower() not in (f"{HOST}:{port}", f"localhost:{port}"):
                self._send(b"this preview answers to its own address only\n", "text/plain; charset=utf-8", 403)
                return False
            return True

        def _json(self, status: int, body: dict[str, Any]) -> None:
            self._send(json.dumps(body, ensure_ascii=False, sort_keys=True).encode(), "application/json", status)

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            """``/NAME/edit``, ``/NAME/undo``, ``/NAME/redo``, ``/NAME/open``: JSON in, JSON out. Only from
            this preview's own page: the Host is its own, an Origin (when sent) is too, and the body is
            ``application/json``, which a page of another site cannot send here without a preflight this
            server never answers."""
            if not self._own_host():
                return
            port = self.server.server_address[1]  # type: ignore[index]
            origin = self.headers.get("Origin")
            if origin is not None and origin.lower() not in (f"http://{HOST}:{port}", f"http://localhost:{port}"):
                self._json(403, {"ok": False, "reason": "forbidden",
                                 "message": "edits come from the preview's page only"})
                return
            if self.headers.get("Content-Type", "").split(";")[0].strip().lower() != "application/json":
                self._json(415, {"ok": False, "reason": "bad-request", "message": "send the body as application/json"})
                return
            path = unquote(urlsplit(self.path).path)
            name, _, action = path[1:].rpartition("/")
            if editor is None or name not in names or action not in ("edit", "undo", "redo", "open"):
                self._json(404, {"ok": False, "reason": "not-found", "message": f"no route {path}"})
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                if not 0 <= length <= MAX_BODY_BYTES:
                    raise ValueError(length)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError(body)
            except ValueError:
                self._json(400, {"ok": False, "reason": "bad-request", "message": "the body is not a JSON object"})
                return
            try:
                if action == "edit":
                    status, answer = editor.edit(name, body)
                elif action == "open":
                    status, answer = editor.open(name, body)
                else:
                    status, answer = editor.step(name, body, back=action == "undo")
            except ComposerError as exc:  # the project or the layout file went away
                status, answer = 422, {"ok": False, "reason": "invalid", "message": " ".join(str(exc).split())}
            except Exception as exc:  # noqa: BLE001 - composer's own fault: said to the page, the server goes on
                status, answer = 500, {"ok": False, "reason": "internal",
                                       "message": f"composer failed to {action}: {type(exc).__name__}: {exc}"}
            self._json(status, answer)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if not self._own_host():
                return
            path = unquote(urlsplit(self.path).path)
            config = {"names": figures.names, **toggles}
            if path.endswith("/elements.json") and path[1:].removesuffix("/elements.json") in names:
                found = editor.elements(path[1:].removesuffix("/elements.json")) if editor is not None else None
                if found is None:
                    self._json(404, {"ok": False, "reason": "not-built", "message": "no elements yet: not built"})
                else:
                    self._json(200, found)
                return
            if path == "/":
                self._send(_page({**config, "figure": single}), "text/html; charset=utf-8")
            elif path.strip("/") in names and not path.endswith("/"):
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", path + "/")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif path.endswith("/") and path.strip("/") in names:
                self._send(_page({**config, "figure": path.strip("/")}), "text/html; charset=utf-8")
            elif path == "/events":
                self._events()
            elif path == "/state.json":
                self._send(json.dumps(figures.snapshot()[1]).encode(), "application/json")
            elif path.endswith(".diff.json") and path[1:].removesuffix(".diff.json") in names and diff is not None:
                found = diff.run(path[1:].removesuffix(".diff.json"))
                self._send(json.dumps(found, sort_keys=True).encode(), "application/json")
            elif path.endswith(".diff.png") and path[1:].removesuffix(".diff.png") in names and diff is not None:
                name = path[1:].removesuffix(".diff.png")
                try:
                    body = (diff.state_dir / name / f"{name}.diff.png").read_bytes()
                except OSError:
                    self._send(b"no diff yet\n", "text/plain; charset=utf-8", 404)
                    return
                self._send(body, "image/png")
            elif path.endswith(".svg") and path[1:-4].removesuffix(".debug") in names:  # a figure's name only
                name = path[1:-4].removesuffix(".debug")
                file = (figures.state_dir / name if path.endswith(".debug.svg") else figures.out_dir) / path[1:]
                try:
                    body = file.read_bytes()
                except OSError:
                    self._send(b"not built yet\n", "text/plain; charset=utf-8", 404)
                    return
                self._send(body, "image/svg+xml")
            else:
                self._send(b"not found\n", "text/plain; charset=utf-8", 404)

        def _events(self) -> None:
            """Server-sent events: the state of every figure now, then again at each change
            (503 past :data:`MAX_EVENT_STREAMS` at once)."""
            if not streams.acquire(blocking=False):
                self._send(f"at most {MAX_EVENT_STREAMS} preview pages at once; close some\n".encode(),
                           "text/plain; charset=utf-8", 503)
                return
            try:
                self._stream()
            finally:
                streams.release()

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command == "HEAD":
                return
            last = -1

            def news() -> bool:
                return figures.version != last

            try:
                while True:
                    with figures.changed:
                        figures.changed.wait_for(news, timeout=KEEPALIVE_S)
                    version, data = figures.snapshot()
                    if version == last:
                        self.wfile.write(b": keep-alive\n\n")
                    else:
                        last = version
                        self.wfile.write(f"event: state\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
            except OSError:  # the page went away
                return

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a page closed mid-answer: nothing to tell


def bind(port: int) -> ThreadingHTTPServer:
    """Listen on 127.0.0.1:``port`` (0: a free port the system chooses); nothing is served yet.

    Raises:
        ComposerError: the port is not 0 to 65535, or cannot be listened on (in use, not allowed).
    """
    if not 0 <= port <= 65535:
        raise ComposerError(f"--port {port} is not a port; give 1 to 65535, or leave it out for a free one")
    try:
        return _Server((HOST, port), BaseHTTPRequestHandler, bind_and_activate=True)
    except OSError as exc:
        raise ComposerError(f"cannot serve on {HOST}:{port}: {exc.strerror or exc} "
                            "(choose another --port, or leave it out for a free one)") from None


def start_server(httpd: ThreadingHTTPServer, names: Sequence[str], out_dir: Path, state_dir: Path,
                 single: str | None, toggles: dict[str, bool], diff: DiffRunner | None = None,
                 editor: Any = None) -> int:
    """Fork the server process serving on ``httpd``'s socket; returns its pid. ``diff``: answers the page's
    Diff toggle (None: the routes are not found). ``editor``: a :class:`composer.edit.session.Editor`
    answering the edit routes (None: they are not found).

    Call it from a process running one thread (it forks). The child ignores Ctrl-C (``compose``
    stops it), dies with its parent, and runs until stopped (SIGTERM).
    """
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = fork()  # Ctrl-C held back across it (a Ctrl-C in os.fork's callbacks is lost)
    if pid == 0:  # the server
        code = 0
        try:
            from composer.sandbox.isolate import _die_with

            _die_with(parent)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            figures = _Figures(names, out_dir, state_dir)
            figures.poll()
            httpd.RequestHandlerClass = _handler(figures, single, toggles, diff, editor)
            threading.Thread(target=figures.run, daemon=True).start()
            httpd.serve_forever()
        except BaseException:  # noqa: BLE001 - the server's end is never compose's
            code = 1
        os._exit(code)
    httpd.socket.close()
    return pid


def _stop(pids: Sequence[int], sig: int, limit_s: float = 10.0) -> None:
    """Send ``sig`` to the children ``pids``, wait for them (SIGKILL after ``limit_s`` seconds), reap them."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    waiting = set(pids)
    deadline = time.monotonic() + limit_s
    while waiting:
        for pid in sorted(waiting):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                waiting.discard(pid)
        if waiting and time.monotonic() > deadline:
            for pid in waiting:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
            return
        if waiting:
            time.sleep(0.02)


@contextlib.contextmanager
def _server_watched(server: int, ended: threading.Event) -> Iterator[threading.Event]:
    """An event set when the server process ``server`` (a child of this one) has ended: a SIGCHLD
    handler looks at that one child (``waitpid(WNOHANG)``; the ends of panel workers, which raise
    SIGCHLD too, are left to their own reaping). Set, it ends the watch loop at its next look; the
    server is reaped by then."""

    def on_child(signum: int, frame: Any) -> None:
        try:
            done, _ = os.waitpid(server, os.WNOHANG)
        except ChildProcessError:
            done = server
        if done == server:
            ended.set()

    previous = signal.signal(signal.SIGCHLD, on_child)
    try:
        yield ended
    finally:
        signal.signal(signal.SIGCHLD, previous)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def _terminate_is_interrupt() -> Iterator[None]:
    """SIGTERM stops the preview as Ctrl-C does (KeyboardInterrupt), so everything is stopped the same way."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def serve(names: Sequence[str], *, root: str | Path = ".", out: str | Path | None = None, options: Options,
          port: int = 0, single: bool = True, toggles: dict[str, bool] | None = None,
          report: Callable[[str, Any], None], summary: Callable[[str, Any, float], str],
          progress: Callable[[], Progress] = Progress, started: Callable[[str], None] = print,
          editor: str | None = None) -> int:
    """Serve the live preview of ``names`` until interrupted (Ctrl-C or SIGTERM: KeyboardInterrupt).

    Args:
        names: the figures; ``single`` True: one figure, whose page is ``/``; False: ``/`` is an index.
        root, out, options: the project, output folder and build options of every build.
        port: the port on 127.0.0.1 (0: a free one the system chooses).
        toggles: the page's toggles at start (``{"debug": True}`` shows the overlay, ``"check"`` the findings).
        report: called as ``report(name, event)`` after each build (a :class:`composer.cli.watch.WatchEvent`).
        summary: the one line of a successful build, ``summary(name, result, seconds)`` (the page shows it).
        progress: makes the progress display of each build.
        started: called with the preview's URL once the server listens.
        editor: the command ``POST /NAME/open`` runs (``"code -g {path}:{line}"``), or None: the page
            follows the element's editor link only.

    Returns:
        1 when every builder of ``--all`` ended by itself (it could not watch), else it never returns.

    Raises:
        ComposerError: the project, a figure or an option is bad, or the port cannot be listened on
            (before anything starts). KeyboardInterrupt: stopped; the server, the builders and the
            state files are gone by then.
    """
    from composer.cli.watch import check_options
    from composer.stages.inputs import Project

    check_options(options.formats, options.dpi, options.jobs, options.timeout_s, options.engine,
                  options.pdf_standard)
    project = Project.at(root)
    for name in names:
        project.layout_path(name)
    out_dir = (Path(out) if out is not None else project.root / "build").resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    httpd = bind(port)
    state_dir = _state_dir(out_dir)
    children: list[int] = []
    server = -1
    server_ended = threading.Event()  # the server's end was seen (and it was reaped): single mode
    try:
        with _terminate_is_interrupt():
            runner = DiffRunner(project.root, state_dir, jobs=options.jobs, timeout_s=options.timeout_s)
            from composer.edit.session import Editor

            edits = Editor(project.root, state_dir, editor)
            for name in names:  # one load imports what the loader imports on first use
                if edits.warm(name):
                    break
            server = start_server(httpd, names, out_dir, state_dir, names[0] if single else None, toggles or {},
                                  runner, edits)
            started(f"http://{HOST}:{httpd.server_address[1]}/")

            def builder(name: str, lock: Path | None) -> Builder:
                return Builder(name, root=project.root, out=Path(out) if out is not None else None, options=options,
                               state_dir=state_dir, report=lambda event: report(name, event), summary=summary,
                               progress=progress, lock=lock)

            if single:
                with _server_watched(server, server_ended) as ended:
                    builder(names[0], None).run(stop=ended)
                raise ComposerError("the preview server stopped unexpectedly")  # run() returns only then
            import composer.cli.watch  # noqa: F401 - imported once, before the builders fork

            lock = state_dir / "build.lock"
            for name in names:
                children.append(_fork_builder(builder(name, lock)))
            while children:
                pid, _ = os.wait()
                if pid == server:
                    raise ComposerError("the preview server stopped unexpectedly")
                if pid in children:
                    children.remove(pid)
            return 1
    finally:
        _stop(children, signal.SIGTERM)  # a builder ends its build as at Ctrl-C (its workers with it)
        if server > 0 and not server_ended.is_set():
            _stop([server], signal.SIGTERM)
        shutil.rmtree(state_dir, ignore_errors=True)


def _state_dir(out_dir: Path) -> Path:
    """A new folder ``OUT/.serve-PID`` for this preview's state files; those of previews that no longer run
    (killed: nothing removed theirs) are removed first."""
    for old in out_dir.glob(".serve-*"):
        pid = old.name.removeprefix(".serve-")
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    path = out_dir / f".serve-{os.getpid()}"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    return path


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _fork_builder(builder: Builder) -> int:
    """Fork a process running ``builder`` (``--all``); it dies with ``compose`` and ends quietly on Ctrl-C
    or SIGTERM (KeyboardInterrupt: its build stops its workers)."""
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = fork()  # Ctrl-C held back across it (a Ctrl-C in os.fork's callbacks is lost)
    if pid != 0:
        return pid
    code = 0
    try:
        from composer.sandbox.isolate import _die_with

        _die_with(parent)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # fork() left the default action
        signal.signal(signal.SIGTERM, _interrupt)
        builder.run()
    except KeyboardInterrupt:
        code = 130
    except ComposerError as exc:
        print(f"compose: error: {exc}", file=sys.stderr)
        code = 1
    except BaseException:  # noqa: BLE001 - never let a builder run on into compose's own code
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
