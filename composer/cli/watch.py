"""Watch mode: rebuild a figure whenever one of its inputs changes.

``compose watch NAME`` builds once, then waits for file changes with
`watchfiles <https://watchfiles.helpmanual.io>`_ (native file system events,
changes grouped until the writes settle) and rebuilds when the layout, a
panel module or a file the last build read (data, imported SVG or image)
changed, or a file panel code opened by itself while the last build ran
(recorded in its worker, :mod:`composer.sandbox.audit`), outside the project
too: such a file is watched itself (an editor's save that replaces it is seen
as its removal), or its folder while it does not exist. A change is an input's content changing: a
file saved with the text it had, or an editor's temporary file (``.fig.toml.swp``, ``fig.toml~``,
``4913``, ``sed``'s ``sedXXXXXX``), rebuilds nothing. Each rebuild is an ordinary incremental build: only the panels
whose inputs changed are rendered, exports only when the SVG changed. A
failed build reports its one-line error and watching goes on; the outputs
of the last good build stay in place.

Changed panel modules are imported again (:func:`composer.stages.usercode.forget_changed_modules`),
so the process never runs stale code.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from composer.errors import ComposerError
from composer.incremental import manifest
from composer.pipeline import FORMATS, BuildResult, build, check_outputs
from composer.progress import Progress
from composer.sandbox.isolate import DEFAULT_TIMEOUT_S, check_jobs, check_timeout
from composer.stages.export import check_chosen
from composer.stages.inputs import Project


@dataclass(frozen=True)
class WatchEvent:
    """One build of the watch loop.

    Attributes:
        result: the build's result, or None when it failed.
        error: the ComposerError of a failed build.
        seconds: wall time of the build.
        changed: the changed files (as shown to the user) that caused it;
            empty for the first build.
    """

    result: BuildResult | None
    error: ComposerError | None
    seconds: float
    changed: tuple[str, ...]


def check_options(formats: tuple[str, ...], dpi: float, jobs: int | None, timeout_s: float | None,
                  engine: str | None, pdf_standard: str | None) -> None:
    """Refuse the options no edit of the project can fix, before watching starts.

    Raises:
        ComposerError: a bad format, dpi, jobs, timeout, engine or PDF standard (one line).
    """
    check_outputs(formats, dpi)
    check_timeout(timeout_s)
    check_jobs(jobs)
    check_chosen(engine, pdf_standard)


def watch(name: str, *, root: str | Path = ".", out: str | Path | None = None,
          formats: tuple[str, ...] = FORMATS, dpi: float = 300.0, jobs: int | None = None,
          timeout_s: float | None = DEFAULT_TIMEOUT_S, on_build: Callable[[WatchEvent], None],
          stop_event: threading.Event | None = None,
          max_builds: int | None = None, progress: Callable[[], Progress] = Progress,
          debounce_ms: int = 400, engine: str | None = None, pdf_standard: str | None = None) -> int:
    """Build ``name``, then rebuild it on every relevant change until stopped.

    Args:
        name, root, out, formats, dpi, jobs, timeout_s, engine, pdf_standard: as for
            :func:`composer.pipeline.build`; each build writes the SVG first, then PDF and PNG
            (``svg_first``), so a viewer of the SVG updates at once.
        on_build: called after every build (also the first and failed ones).
        stop_event: set it to end the loop (checked at least every 0.2 s).
        max_builds: end after this many builds (the first one included).
        progress: makes the progress display of each build.
        debounce_ms: longest time changes are grouped before a rebuild.

    Returns:
        The number of builds run.

    Raises:
        ProjectError: ``root`` is not a project or the figure does not exist
            (checked before watching starts).
        ComposerError: a bad format, dpi, timeout, jobs, engine or PDF
            standard (also checked before watching starts: no edit can fix them).
    """
    import watchfiles

    check_options(formats, dpi, jobs, timeout_s, engine, pdf_standard)
    project = Project.at(root)
    project.layout_path(name)
    out_dir = Path(out) if out is not None else project.root / "build"
    opts = manifest.options(formats, dpi, engine, pdf_standard)
    builds = 0
    threads_before = _threads()  # this process's threads before any watcher: the caller's own

    before: dict[Path, tuple[int, int] | None] = {}  # the inputs as the last build started with them

    def run(changed: tuple[str, ...]) -> bool:
        nonlocal builds, before
        _wait_for_watcher_threads(threads_before)  # the closed watcher's thread ends: the build forks its
        # workers from the threads the caller runs (one, in compose watch)
        before = _snapshot(project, name, out_dir)
        started = time.perf_counter()
        try:
            result, error = build(name, root=project.root, out=out, formats=formats, dpi=dpi, jobs=jobs,
                                  timeout_s=timeout_s, progress=progress(), engine=engine,
                                  pdf_standard=pdf_standard, svg_first=True), None
        except ComposerError as exc:
            result, error = None, exc
        builds += 1
        on_build(WatchEvent(result=result, error=error, seconds=time.perf_counter() - started, changed=changed))
        return error is None

    # the first build, then: watch until a relevant change, close the watcher, build, watch again. The
    # watcher runs a thread of its own, and a build must not fork while it runs (Python 3.12+ warns: a
    # fork from a multi-threaded process may deadlock). A change made while no watcher ran is seen by
    # comparing with the manifest once the next watcher has started (its first timeout); after a failed
    # build, whose inputs the manifest does not record, or after one that saw an input change under it (and so
    # removed the manifest), by comparing with the inputs as they were when it started (_snapshot): a fix
    # saved while a broken layout was being built, or an edit saved while a slow panel rendered, is not lost.
    succeeded = run(())
    compare = True  # once the watcher runs, look for a change made during the last build
    ignore = [out_dir.resolve(), (project.root / "build").resolve()]
    while max_builds is None or builds < max_builds:
        changed: tuple[str, ...] | None = None
        for changes in watchfiles.watch(*watched_paths(project, name, out_dir),
                                        watch_filter=watchfiles.DefaultFilter(ignore_paths=ignore),
                                        stop_event=stop_event, yield_on_timeout=True, rust_timeout=200,
                                        debounce=debounce_ms, raise_interrupt=True):
            if not changes:
                if compare:  # the first timeout comes after the watcher started
                    compare = False
                    changed = _changed_during_build(project, name, out_dir, out, opts, succeeded, before) or None
                    if changed:
                        break
            else:
                relevant = _changed_inputs(project, name, out_dir, out, opts, succeeded,
                                           [Path(p) for _, p in changes])
                if relevant:
                    changed = relevant
                    break
        if changed is None:  # stop_event set
            break
        succeeded = run(changed)
        compare = True
    return builds


def _changed_inputs(project: Project, name: str, out_dir: Path, out: str | Path | None,
                    opts: Mapping[str, Any], succeeded: bool, paths: list[Path]) -> tuple[str, ...]:
    """Which of the files ``paths`` a watcher saw written are changed inputs of ``name`` (:func:`_relevant`),
    as shown to the user, sorted; empty when none is, or when the last build succeeded and every input
    still holds what it read (:func:`composer.incremental.manifest.stale_reason` is None: a save of the
    same text, a ``touch``)."""
    relevant = tuple(sorted({_shown(project, p) for p in paths if _relevant(project, name, out_dir, p)}))
    if relevant and succeeded and manifest.stale_reason(project.root, name, out, opts) is None:
        return ()
    return relevant


def _changed_during_build(project: Project, name: str, out_dir: Path, out: str | Path | None,
                          opts: Mapping[str, Any], succeeded: bool,
                          before: dict[Path, tuple[int, int] | None]) -> tuple[str, ...]:
    """The inputs (as shown to the user) changed while the last build ran (no watcher ran then); empty if none.

    After a successful build, the manifest it wrote says what changed
    (:func:`composer.incremental.manifest.stale_reason`); when it wrote none, because an input changed
    under it (:func:`composer.pipeline.build` then removes the manifest on purpose), or after a failed
    build, the inputs are compared with ``before``, their :func:`_snapshot` when the build started.
    Editors' and ``sed``'s temporary files are left out (:func:`_temporary`).
    """
    if succeeded:
        reason = manifest.stale_reason(project.root, name, out, opts)
        if reason is None:
            return ()
        if reason != "no previous build":
            return (_what_changed(reason),)
        moved = {p for p, was in before.items() if _stat(p) != was}  # the same files, as they are now
    else:
        now = _snapshot(project, name, out_dir)
        moved = {p for p in before.keys() | now.keys() if before.get(p) != now.get(p)}
    recorded = manifest.load(out_dir, name)
    return tuple(sorted({_shown(project, p) for p in moved if not _temporary(project, p, recorded)}))


# names editors and tools give the temporary files of a save: vim's swap files (.fig.toml.swp, .swo,
# .swx) and its write test (4913), backups (fig.toml~), emacs' lock and auto-save files (.#fig.toml,
# #fig.toml#), GNU sed -i's sedXXXXXX (mkostemp's 6 random characters)
_TEMPORARY = re.compile(r"\..*\.sw[a-px]|4913|.*~|\.#.*|#.*#|sed[A-Za-z0-9]{6}")


def _temporary(project: Project, path: Path, recorded: dict[str, Any] | None) -> bool:
    """Whether ``path`` is named as an editor's or ``sed``'s temporary file (:data:`_TEMPORARY`) and is
    no input the manifest ``recorded`` names."""
    if not _TEMPORARY.fullmatch(path.name):
        return False
    shown = _shown(project, path)
    return recorded is None or not (shown in recorded.get("inputs", {}) or shown in recorded.get("opened", {}))


def _what_changed(reason: str) -> str:
    """What a :func:`composer.incremental.manifest.stale_reason` names, as :attr:`WatchEvent.changed`
    holds it (the thing, not the sentence): ``"layouts/fig.toml changed"`` -> ``"layouts/fig.toml"``."""
    for prefix, suffix in (("a build of ", " was interrupted"), ("", " is missing or was modified"), ("", " changed")):
        if reason.startswith(prefix) and reason.endswith(suffix):
            return reason[len(prefix):len(reason) - len(suffix)]
    return "the outputs" if reason == "outputs differ" else reason


def _threads() -> int | None:
    """The number of threads of this process as Linux counts them (native ones too), or None elsewhere."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def _wait_for_watcher_threads(threads_before: int | None, limit_s: float = 2.0) -> None:
    """Wait (at most ``limit_s`` seconds) until this process runs no more threads than
    ``threads_before``, those it ran before :func:`watch` started any watcher (one in ``compose watch``): a
    closed watcher's thread ends within its timeout (200 ms), not at once. (Waiting for one thread in all
    made a watch called from a program running threads of its own, such as a notebook's kernel, wait the
    whole ``limit_s`` before each rebuild.)"""
    deadline = time.monotonic() + limit_s
    while (_threads() or 0) > (threads_before or 1) and time.monotonic() < deadline:
        time.sleep(0.01)


def watched_paths(project: Project, name: str, out_dir: Path) -> list[Path]:
    """What to watch for figure ``name``: the project folder, and each file outside it that panel code
    opened in the last build (its manifest's ``opened``): the file itself, or the nearest folder above it
    that exists when it does not. Sorted after the project, without duplicates.

    (A file is watched rather than its folder: watchfiles watches every path recursively, and the folder
    of a file outside the project may be the home folder.)
    """
    root = project.root.resolve()
    extra: set[Path] = set()
    for recorded in (manifest.load(out_dir, name) or {}).get("opened", {}):
        path = Path(recorded)
        if not path.is_absolute() or path.resolve().is_relative_to(root):
            continue  # inside the project: watched with it
        while not path.exists() and path.parent != path:
            path = path.parent
        if not path.resolve().is_relative_to(root) and not root.is_relative_to(path.resolve()):
            extra.add(path)
    return [project.root, *sorted(extra)]


def _snapshot(project: Project, name: str, out_dir: Path) -> dict[Path, tuple[int, int] | None]:
    """``(mtime_ns, size)`` (None: missing) of each file a change of which rebuilds ``name``
    (:func:`_relevant`): the layout, the ``.py`` files under ``panels/``, and the inputs and opened
    files the manifest records (without a manifest: every file of the project outside ``layouts/``,
    the output folders and the folders watchfiles ignores, ``.git`` or ``.venv``)."""
    import watchfiles

    root = project.root.resolve()
    skip_dirs = set(watchfiles.DefaultFilter.ignore_dirs)
    skip = {out_dir.resolve(), (root / "build").resolve(), (root / "layouts").resolve()}
    paths = {(root / "layouts" / f"{name}.toml")}
    if project.panels_dir.is_dir():
        paths |= {p for p in project.panels_dir.rglob("*.py") if not skip_dirs & set(p.parts)}
    recorded = manifest.load(out_dir, name)
    if recorded is not None:
        paths |= {root / shown for section in ("inputs", "opened") for shown in recorded.get(section, {})}
    else:
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if d not in skip_dirs and (here / d).resolve() not in skip)
            paths |= {here / f for f in files}
    return {path.resolve(): _stat(path) for path in paths}


def _stat(path: Path) -> tuple[int, int] | None:
    """``(mtime_ns, size)`` of the file at ``path``, None when it is missing or unreadable."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def _shown(project: Project, path: Path) -> str:
    return manifest.display_path(path, project.root)


def _relevant(project: Project, name: str, out_dir: Path, path: Path) -> bool:
    """The layout, a ``.py`` under ``panels/``, or an input or opened file the last build recorded (without
    a manifest: any file of the project outside ``layouts/`` but an editor's temporary file, :func:`_temporary`)."""
    path = path.resolve()
    if path == (project.root / "layouts" / f"{name}.toml").resolve():
        return True
    recorded = manifest.load(out_dir, name)
    if _temporary(project, path, recorded):
        return False
    if path.suffix == ".py" and path.is_relative_to(project.panels_dir.resolve()):
        return True
    if recorded is None:
        return path.is_relative_to(project.root.resolve()) and \
            not path.is_relative_to((project.root / "layouts").resolve())
    shown = manifest.display_path(path, project.root)
    return shown in recorded.get("inputs", {}) or shown in recorded.get("opened", {})
