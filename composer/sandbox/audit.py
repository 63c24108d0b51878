"""Files the user's code opens: recorded while it runs, with Python's audit hooks (PEP 578).

A renderer or ``values()`` may read a file composer was never told about
(``json.load(open("data/x.json"))``), or write one into the project
(``fig.savefig("x.png")``). :func:`recording` notes every ``open`` audit event
raised inside its block (``open()``, ``io.open``, ``os.open``, ``Path.read_text``,
numpy's and PIL's file access: all go through these) and gives, when the block
ends:

- ``read``: absolute path (symlinks resolved) -> sha256 of the file's bytes
  now, or None when it did not exist (a renderer that tried it and moved on
  depends on its absence too), for every file opened for reading;
- ``written``: every file opened for writing, appending or creating; a file
  the block wrote is not also one it read (a temporary file read back).

A module imported inside the block counts as its source file read (the
import system opens its ``.py``, or the ``__pycache__`` ``.pyc`` standing for
it, through ``io.open_code``): a module of your own outside the project, or one
of the project imported by a computed name. Not recorded, being no input of
the figure: Python's own and the installed packages' files
(``sys.prefix``, ``sys.base_prefix``, site-packages), composer's own package,
matplotlib's data, cache and config folders and every font file matplotlib
knows, system font folders, the system's time zone database (``zoneinfo.TZPATH``: pandas reads
``/usr/share/zoneinfo/Etc/UTC`` to know what UTC is), ``/proc``, ``/sys`` and ``/dev``. File
descriptors opened from a number (``open(3)``) have no path and are skipped.

An audit hook cannot be removed (``sys.addaudithook``): it is added once per
process, on the first :func:`recording`, and does nothing outside a recording
block but compare one string and read one global. composer records inside
its forked workers (:mod:`composer.sandbox.isolate`: renderers, ``values()``,
a Python layout) and, while it imports the panel modules (their module-level
code), in the build's own process: a build in the user's process
(``composer.build`` in a notebook) adds the hook there, idle outside those
moments.

:func:`run_recorded` is :func:`composer.sandbox.isolate.run_isolated` for a
call whose opened files the parent wants: the worker records, the files come
back with the result, and the innermost :func:`collecting` block of the
parent receives them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from composer.sandbox.isolate import run_isolated


@dataclass
class Opened:
    """What the user's code opened inside one :func:`recording` block (filled when it ends).

    Attributes:
        read: absolute path -> sha256 hex of its bytes (None: no such file), taken as the block first
            opened it, before the open itself: a file edited while it was read is then seen as changed
            by the next build, never mistaken for the version drawn.
        written: absolute paths opened for writing, appending or creating, sorted.
        events: the raw ``(path, wants_read, wants_write)`` seen so far (internal).
        first: path -> digest when first opened for reading (internal).
        known: resolved paths not to record (internal; :func:`recording`'s ``known``).
    """

    read: dict[str, str | None] = field(default_factory=dict)
    written: tuple[str, ...] = ()
    events: list[tuple[str, bool, bool]] = field(default_factory=list)
    first: dict[str, str | None] = field(default_factory=dict)
    known: frozenset[str] = frozenset()


#: the recordings in progress in this process (innermost last); the hook appends to each.
_ACTIVE: list[Opened] = []
_INSTALLED = False
#: set on the thread that hashes a file for the hook (its own open must not be recorded)
_BUSY = threading.local()


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _ACTIVE or getattr(_BUSY, "on", False):
        return
    try:
        path, mode, flags = args
        if isinstance(path, int) or path is None:
            return
        text = os.fsdecode(path)
        if sys._getframe(1).f_code.co_filename.startswith("<frozen importlib"):  # an import: io.open_code
            source = _source_of(text)
            if source is None:
                return
            text, wants_read, wants_write = source, True, False  # the module's source (a .pyc stands for it)
        elif isinstance(mode, str):
            wants_write = any(c in mode for c in "wax+")
            wants_read = "r" in mode or "+" in mode
        else:  # os.open: flags alone
            access = int(flags) & os.O_ACCMODE
            wants_write = access in (os.O_WRONLY, os.O_RDWR) or bool(int(flags) & os.O_CREAT)
            wants_read = access in (os.O_RDONLY, os.O_RDWR)
        text = os.path.abspath(text)
        for log in _ACTIVE:
            log.events.append((text, wants_read, wants_write))
        if wants_read and not wants_write:
            _hash_first(text)
    except Exception:  # noqa: BLE001 - an audit hook must never break the user's open()
        return


@contextmanager
def not_recorded() -> Iterator[None]:
    """Inside, this thread's opens are not recorded: composer's own reading and writing (a PDF page
    converted in a temporary folder) inside a :func:`recording` block of the user's code."""
    was = getattr(_BUSY, "on", False)
    _BUSY.on = True
    try:
        yield
    finally:
        _BUSY.on = was


def _hash_first(text: str) -> None:
    """Hash a file opened for reading the first time a recording sees it (before the open happens)."""
    real = os.path.realpath(text)
    logs = [log for log in _ACTIVE if real not in log.first and real not in log.known]
    if not logs or _ignored(real):
        return
    _BUSY.on = True
    try:
        digest = file_digest(real) if not os.path.isdir(real) else None
    finally:
        _BUSY.on = False
    for log in logs:
        log.first[real] = digest


def _ignored(path: str) -> bool:
    """A resolved path that is never an input: in a system folder, or one of matplotlib's fonts."""
    return path in _font_files() or any(path == s or path.startswith(s + os.sep) for s in _system_folders())


def _source_of(path: str) -> str | None:
    """The source file of a module the import system opens: ``x.py`` itself, ``x.py`` for
    ``__pycache__/x.cpython-311.pyc``; None for anything else (extension modules are not opened)."""
    if path.endswith(".py"):
        return os.path.abspath(path)
    if path.endswith(".pyc"):
        try:
            return os.path.abspath(importlib.util.source_from_cache(path))
        except (ValueError, NotImplementedError):  # a .pyc without a source (sourceless distribution)
            return None
    return None


def _install() -> None:
    global _INSTALLED
    if not _INSTALLED:
        sys.addaudithook(_hook)
        _INSTALLED = True


@contextmanager
def recording(known: Collection[str | os.PathLike[str]] = ()) -> Iterator[Opened]:
    """Record the files opened inside the block (see the module docstring); the yielded
    :class:`Opened` is filled when the block ends, also when it raises.

    ``known``: files the caller tracks already (absolute paths): not recorded, and not hashed again.
    """
    _install()
    log = Opened(known=frozenset(os.path.realpath(p) for p in known))
    _ACTIVE.append(log)
    try:
        yield log
    finally:
        _ACTIVE.remove(log)
        _settle(log)


def _settle(log: Opened) -> None:
    """Fill ``log.read`` and ``log.written`` from its raw events and first digests."""
    reads: set[str] = set()
    writes: set[str] = set()
    real_of: dict[str, str] = {}
    for text, wants_read, wants_write in log.events:
        # the path as the code opened it (a symlink stays one: retargeted, the file read is another),
        # known and ignored by where it leads
        path = os.path.normpath(text)
        real = real_of.setdefault(path, os.path.realpath(path))
        if real in log.known or _ignored(real):
            continue
        if wants_write:
            writes.add(path)
        elif wants_read:
            reads.add(path)
    written_real = {real_of[p] for p in writes}
    read: dict[str, str | None] = {}
    for path in sorted(reads - writes):
        real = real_of[path]
        if real in written_real or os.path.isdir(real):
            continue
        read[path] = log.first[real] if real in log.first else file_digest(real)
    log.read, log.written, log.events, log.first = read, tuple(sorted(writes)), [], {}


def file_digest(path: str) -> str | None:
    """sha256 hex of a file's bytes, or None when it cannot be read (gone, or not allowed)."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


_SKIP: tuple[str, ...] | None = None


def _system_folders() -> tuple[str, ...]:
    """Folders whose files are never an input of a figure (module docstring), resolved; once per process."""
    global _SKIP
    if _SKIP is None:
        import site
        import sysconfig

        folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/proc", "/sys", "/dev",
                   os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # composer's own package
                   "/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts"),
                   os.path.expanduser("~/.local/share/fonts"), "/Library/Fonts", "/System/Library/Fonts"}
        for name in ("stdlib", "platstdlib", "purelib", "platlib"):
            folders.add(sysconfig.get_paths().get(name, ""))
        import zoneinfo

        folders.update(zoneinfo.TZPATH)  # the time zone database: a library's clock, not the figure's data
        try:
            folders.update(site.getsitepackages())
            folders.add(site.getusersitepackages())
        except AttributeError:  # a virtualenv's old site module
            pass
        matplotlib, font_manager = sys.modules.get("matplotlib"), sys.modules.get("matplotlib.font_manager")
        complete = False
        try:  # matplotlib as the user's code imported it (this module imports nothing outside the standard library)
            if matplotlib is not None:
                folders.update({matplotlib.get_data_path(), matplotlib.get_cachedir(), matplotlib.get_configdir()})
            if font_manager is not None:
                folders.update(font_manager.X11FontDirectories)
                folders.update(font_manager.OSXFontDirectories)
                complete = True
        except Exception:  # noqa: BLE001 - not imported yet, being imported, or broken: its folders are not known
            pass
        found = tuple(sorted({os.path.realpath(f) for f in folders if f}))
        if complete:  # else asked again: matplotlib may be imported by then
            _SKIP = found
        return found
    return _SKIP


_FONTS: tuple[int, frozenset[str]] = (-1, frozenset())


def _font_files() -> frozenset[str]:
    """Every font file matplotlib's font list holds (resolved): matplotlib opens them while drawing text.
    Kept while the list keeps its length (composer may add a font installed late)."""
    global _FONTS
    font_manager = sys.modules.get("matplotlib.font_manager")
    try:
        entries = font_manager.fontManager.ttflist + font_manager.fontManager.afmlist  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - not imported (nothing drew text), or broken
        return frozenset()
    if _FONTS[0] != len(entries):
        _FONTS = (len(entries), frozenset(os.path.realpath(f.fname) for f in entries))
    return _FONTS[1]


# ─── across the fork ──────────────────────────────────────────────────────────

#: the collections in progress in this process (innermost last): what :func:`run_recorded` reports to.
_COLLECTING: list[list[tuple[str, Opened]]] = []


@contextmanager
def collecting() -> Iterator[list[tuple[str, Opened]]]:
    """Collect what every :func:`run_recorded` inside the block opened: a list of ``(who, Opened)``,
    filled as each call returns (a call that failed reports nothing)."""
    found: list[tuple[str, Opened]] = []
    _COLLECTING.append(found)
    try:
        yield found
    finally:
        _COLLECTING.remove(found)


def run_recorded(func: Callable[[], Any], *, timeout_s: float | None, who: str,
                 cwd: str | os.PathLike[str] | None = None) -> Any:
    """``run_isolated(func)``, recording the files ``func`` opens in the worker (:func:`recording`);
    they are added, as ``(who, Opened)``, to the innermost :func:`collecting` block, if any. What
    ``func`` prints is labelled ``who`` (:func:`composer.sandbox.isolate.capturing`).

    Returns and raises as :func:`composer.sandbox.isolate.run_isolated`.
    """
    def recorded() -> tuple[Any, Opened]:
        with recording() as log:
            value = func()
        return value, log

    value, log = run_isolated(recorded, timeout_s=timeout_s, cwd=cwd, label=who)
    if _COLLECTING:
        _COLLECTING[-1].append((who, log))
    return value
