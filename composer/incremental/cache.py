"""Panel cache: a rendered panel stored under a digest of everything it depends on.

A matplotlib panel is a pure function of its inputs (docs/design.md), so its SVG
and data anchors can be reused whenever these are unchanged. The cache key is
the sha256 of a canonical JSON document holding:

- the renderer's source: the definitions in its module that the function can
  reach by name (see :func:`renderer_digest`), and the bytes of every project
  module (``panels/*.py``, packages too) that its module imports, transitively;
- the function's name and the params it is called with (canonical JSON);
- the sha256 of the panel's data file (the figure's when it has none);
- the box size in pt;
- the rcParams composer sets (:func:`composer.stages.draft.rc_params`, which holds
  the font and font size and, through ``svg.hashsalt``, the panel's name),
  the raster ppi, and a digest of every other rcParam in force (a
  ``matplotlibrc`` or a style a panel module applies on import);
- the font file the figure's font resolves to (path, size, mtime);
- matplotlib's and numpy's versions and composer's fingerprint (version and
  a digest of its sources, :func:`composer.incremental.manifest.composer_fingerprint`), and the versions
  of the optional extras' libraries installed (plotnine, seaborn, Altair, vl-convert, plotly, kaleido:
  :func:`extra_versions`), which draw the panels whose renderers return their objects;
- the sha256 of every file the panel modules' own code opened while they were
  imported (``DATA = json.load(open(...))`` at module level), recorded by
  :mod:`composer.sandbox.audit`;
- for panels joined by ``[[align]]`` (drawn together, since aligning moves
  each one's axes by the others' plot areas): every member's own key and box,
  position included, and the aligns (:func:`group_signature`). A group is a
  hit only when all its members are.

Files a renderer opens by itself (``json.load(open("data/x.json"))``) are
known only once it ran: they are recorded in its worker
(:mod:`composer.sandbox.audit`) and kept in the entry, path and sha256, as a
compiler's depfile keeps the headers a source included. An entry any of whose
recorded files changed, appeared or vanished is stale: :meth:`PanelCache.load`
treats it as a miss, the panel is drawn again and its new entry replaces it.
Paths inside the project are kept relative to it (a moved project keeps its
cache), others absolute. ``compose NAME --no-cache`` renders everything.

Location: ``ROOT/build/.cache/panels/<2 hex>/<key>`` (``build/`` is the
project's generated folder and is gitignored; deleting it is always safe).
Entry format: one header line ``composer-panel-cache 6 <key>``, one line with
the sha256 of the payload, then the payload: canonical JSON of the panel's
data anchors, its warnings (``notes``), the fonts matplotlib substituted
while drawing it (``substituted``, for ``compose check``), the files it
opened (``opened``: path -> sha256 or null for a file it tried that did not
exist), its plot area and the records it reported for guides (``guides``:
kind -> records, :mod:`composer.stages.guides`), a newline, and the panel's SVG
bytes. The format is part of every key, so an entry of an older format (2 had
no ``substituted``, 3 no ``opened``, 4 no ``guides``, 5 errorbar and stem legend
entries as plain lines) is never looked up. A
panel a guide collects from has the guide kinds in its key (``guides``): it is
saved without its own legend. Entries are written
atomically (:func:`composer.svg.io.write_files_atomically`) and verified on
every read: an entry whose header, key or digest does not match is deleted
and the panel is rendered again, never used.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from composer.errors import ComposerError
from composer.incremental.manifest import bytes_digest, composer_fingerprint, file_digest
from composer.incremental.usercache import UserTextStore, font_files_digest
from composer.kinds import outputs
from composer.stages.guides import guides_from_json, guides_to_json
from composer.stages.render import RenderedPanel

_MAGIC = b"composer-panel-cache 6"
#: names whose use makes a module's globals reachable by string; such a module is hashed whole.
_DYNAMIC = frozenset({"globals", "vars", "eval", "exec", "__import__", "__getattr__"})


def cache_dir(root: Path) -> Path:
    """The panel cache of the project at ``root``: ``ROOT/build/.cache/panels``."""
    return Path(root) / "build" / ".cache" / "panels"


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces; TOML dates and times as ``{"type": ..., "iso": ...}``.

    Floats keep their exact repr, and ``1`` and ``1.0`` stay distinct, as they
    may draw differently.
    """
    def default(obj: Any) -> Any:
        if hasattr(obj, "isoformat"):
            return {"type": type(obj).__name__, "iso": obj.isoformat()}
        if isinstance(obj, (tuple, set, frozenset)):
            return sorted(obj) if isinstance(obj, (set, frozenset)) else list(obj)
        return {"type": type(obj).__name__, "repr": repr(obj)}

    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=default, ensure_ascii=False)


# ─── renderer source ─────────────────────────────────────────────────────────

def _names(node: ast.AST) -> set[str]:
    """Every identifier a piece of code reads by name (over-approximation: locals too)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@lru_cache(maxsize=256)
def _parsed(source: bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


@lru_cache(maxsize=256)
def _module_index(source: bytes) -> tuple[bool, dict[str, list[tuple[str, frozenset[str]]]], list[str], frozenset[str],
                                          tuple[tuple[str | None, str], ...]]:
    """One parse of a module: (hashed whole?, top-level defs, other statements, their names, body order).

    ``defs``: name -> [(ast.dump, names it reads)] for each top-level
    def/class; other statements as ast.dumps; body order as (def name or None, dump).
    """
    tree = _parsed(source)
    if tree is None:
        return True, {}, [], frozenset(), ()
    everything: set[str] = set()  # the names of the whole module: the union of its statements' (one walk)
    defs: dict[str, list[tuple[str, frozenset[str]]]] = {}
    always: list[str] = []
    always_names: set[str] = set()
    order: list[tuple[str | None, str]] = []
    for node in tree.body:
        dump = ast.dump(node)
        names = _names(node)
        everything |= names
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.setdefault(node.name, []).append((dump, frozenset(names)))
            order.append((node.name, dump))
        else:
            always.append(dump)
            always_names |= names
            order.append((None, dump))
    dynamic = bool(_DYNAMIC & everything) or any(
        isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    return dynamic, defs, always, frozenset(always_names), tuple(order)


@lru_cache(maxsize=1024)
def function_closure(source: bytes, function: str) -> str:
    """A digest of the parts of a module's source that ``function`` can depend on.

    Kept: every top-level statement that is not a ``def``/``class`` (imports,
    constants, code run on import), and every top-level ``def``/``class``
    reachable by name from ``function`` or from those statements,
    transitively (decorators, defaults and annotations included). Each part is
    compared as its AST (``ast.dump``), so comments, blank lines and moving a
    function do not invalidate; editing one renderer leaves the other
    renderers of the same module cached. A module that reaches its globals
    dynamically (``globals()``, ``vars()``, ``eval``, ``exec``,
    ``__import__``, a module ``__getattr__``), or does not parse, is hashed
    whole.

    Returns:
        A sha256 hex digest.
    """
    dynamic, defs, _, always_names, order = _module_index(source)
    if dynamic:
        return "module:" + bytes_digest(source)
    todo = [function, *sorted(always_names)]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached or name not in defs:
            continue
        reached.add(name)
        for _, names in defs[name]:
            todo.extend(names)
    h = hashlib.sha256(function.encode())
    for def_name, dump in order:
        if def_name is None or def_name in reached:
            h.update(b"\0" + dump.encode())
    return "closure:" + h.hexdigest()


def project_imports(path: Path, panels_dir: Path) -> list[Path]:
    """Project modules a panel module imports, transitively (``path`` itself excluded).

    A module is a project module when ``panels_dir`` holds it (``name.py``
    or ``name/__init__.py``, dotted names as sub-folders). Every import
    statement counts, also inside functions. Sorted by path.

    Raises:
        Nothing: unreadable or unparsable files are simply not followed (the
        importer reports them).
    """
    panels_dir = Path(panels_dir).resolve()
    found: set[Path] = set()
    todo = [Path(path).resolve()]
    while todo:
        current = todo.pop()
        try:
            source = current.read_bytes()
        except OSError:
            continue
        for dotted in _imported_names(source):
            for candidate in _module_files(dotted, panels_dir):
                if candidate not in found and candidate != Path(path).resolve():
                    found.add(candidate)
                    todo.append(candidate)
    return sorted(found)


@lru_cache(maxsize=256)
def _imported_names(source: bytes) -> frozenset[str]:
    tree = _parsed(source)
    if tree is None:
        return frozenset()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(names)


def _module_files(dotted: str, panels_dir: Path) -> list[Path]:
    """Files in ``panels_dir`` that importing ``dotted`` executes (``a.b`` -> a/__init__.py, a/b.py ...)."""
    parts = dotted.split(".")
    files = []
    for i in range(1, len(parts) + 1):
        base = panels_dir.joinpath(*parts[:i])
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                files.append(candidate.resolve())
    return files


def renderer_digest(module_path: Path, function: str, panels_dir: Path) -> tuple[str, list[Path]]:
    """The source part of a panel's cache key, and the project files it covers.

    Returns:
        ``(digest, files)``: the digest of :func:`function_closure` of the
        renderer in its module plus the bytes of every project module it
        imports (:func:`project_imports`); ``files`` lists the module and
        those imports (for the build manifest).
    """
    module_path = Path(module_path).resolve()
    imports = project_imports(module_path, panels_dir)
    h = hashlib.sha256(function_closure(module_path.read_bytes(), function).encode())
    panels_root = Path(panels_dir).resolve()
    for path in imports:  # named relative to panels/, so a moved or copied project keeps its cache
        h.update(b"\0" + path.relative_to(panels_root).as_posix().encode() + b"\0"
                 + (file_digest(path) or "missing").encode())
    return h.hexdigest(), [module_path, *imports]


# ─── keys ────────────────────────────────────────────────────────────────────

def rc_digest() -> str:
    """A digest of every rcParam currently in force (backend excluded: it does not change an SVG)."""
    import matplotlib

    items = sorted((k, repr(v)) for k, v in dict.items(matplotlib.rcParams) if not k.startswith("backend"))
    return bytes_digest(repr(items).encode())


def panel_key(*, source: str, function: str, params: Mapping[str, Any], data: str | None,
              size_pt: tuple[float, float], rc: Mapping[str, Any], raster_ppi: float,
              font_file: str | None, rc_in_force: str, raster: bool | None = None,
              text_mode: str = "paths", empty: bool = False,
              opened: Mapping[str, str | None] | None = None, guides: Iterable[str] = ()) -> str:
    """The cache key of one panel (sha256 hex) from the parts listed in the module docstring.

    Args:
        source: :func:`renderer_digest` of the renderer.
        function: ``"module:function"``.
        params: the keyword arguments the renderer is called with.
        data: sha256 of the panel's data file, or None without data.
        size_pt: the box (width, height) in pt.
        rc: the rcParams composer renders with (:func:`composer.stages.draft.rc_params`).
        raster_ppi: ppi of rasters embedded in the panel SVG.
        font_file: the file the figure's font resolves to.
        rc_in_force: :func:`rc_digest`.
        raster: the panel's ``raster`` choice (None: automatic above the heavy-panel size).
        text_mode: the figure's ``text`` mode (paths or editable).
        empty: the panel's ``empty = true`` (it may draw nothing); in the key only when true, so
            the keys of other panels are what they were.
        opened: files the panel modules' code opened while they were imported (path -> sha256, None:
            missing; :mod:`composer.sandbox.audit`), known before the panel is drawn; the files the
            renderer itself opens are known after, and kept in its entry instead (module docstring).
        guides: the guide kinds collected from the panel (:func:`composer.stages.guides.kinds_of`); in the
            key only when some (its SVG is saved without its own legend then).
    """
    import matplotlib
    import numpy

    font_stamp = None
    if font_file:
        try:
            st = os.stat(font_file)
            font_stamp = [font_file, st.st_size, st.st_mtime_ns]
        except OSError:
            font_stamp = [font_file, None, None]
    parts = {
        "format": _MAGIC.decode(),
        "composer": composer_fingerprint(),
        "matplotlib": matplotlib.__version__,
        "numpy": numpy.__version__,
        **({"extras": extra_versions()} if extra_versions() else {}),
        "source": source,
        "function": function,
        "params": params,
        "data": data,
        "size_pt": [float(size_pt[0]), float(size_pt[1])],
        "rc": rc,
        "raster_ppi": float(raster_ppi),
        "font": font_stamp,
        "rc_in_force": rc_in_force,
        "raster": raster,
        "text_mode": text_mode,
        **({"empty": True} if empty else {}),
        **({"guides": sorted(guides)} if guides else {}),
        "opened": dict(sorted((opened or {}).items())),
    }
    return bytes_digest(canonical_json(parts).encode("utf-8"))


@lru_cache(maxsize=1)
def extra_versions() -> dict[str, str]:
    """Module -> installed version of the libraries of composer's optional extras
    (:data:`composer.kinds.extras.EXTRAS`: ``{"plotly": "6.1.2", "kaleido": "1.0.0", ...}``), those
    installed only; read once per process from the distributions' metadata (about 20 ms), without importing
    them. A panel whose renderer returns a Plotly figure is drawn by plotly and kaleido, whose upgrade must
    draw it again (the Chromium kaleido drives is not in it: its version is known only by running it). A
    module's distribution is its name, with ``-`` for ``_``, or that and ``-python`` (``vl-convert-python``)."""
    from importlib import metadata

    from composer.kinds.extras import EXTRAS

    found = {}
    for extra in EXTRAS:
        for module in extra.modules:
            dashed = module.replace("_", "-")
            for dist in dict.fromkeys((module, dashed, f"{dashed}-python")):
                try:
                    found[module] = metadata.version(dist)
                except metadata.PackageNotFoundError:
                    continue
                break
    return dict(sorted(found.items()))


def group_signature(members: Iterable[tuple[str, str, tuple[float, float, float, float]]],
                    aligns: Iterable[tuple[list[str], str]]) -> str:
    """A digest of an aligned render group: each member's own key and box, and the aligns that join them.

    Args:
        members: (panel name, its :func:`panel_key`, its box (x, y, width,
            height) in canvas pt); aligning works in canvas coordinates, so
            positions count too.
        aligns: the ``[[align]]`` entries touching the group: (panels, axis), in layout order.
    """
    return bytes_digest(canonical_json({"members": [[n, k, list(b)] for n, k, b in members],
                                        "aligns": [[p, a] for p, a in aligns]}).encode("utf-8"))


# ─── entries ─────────────────────────────────────────────────────────────────

def encode_entry(key: str, panel: RenderedPanel, root: Path | None = None) -> bytes:
    """An entry's bytes: header, payload digest, payload (anchors, notes, substituted fonts and opened
    files as JSON + newline + SVG). ``root``: the project; opened files inside it are kept relative to it."""
    anchors = {name: [float(x), float(y)] for name, (x, y) in panel.anchors.items()}
    opened = {_relative(path, root): digest for path, digest in panel.opened.items()}
    meta = {"anchors": anchors, "notes": list(panel.notes), "substituted": dict(panel.substituted),
            "opened": opened, "plot_area": list(panel.plot_area) if panel.plot_area else None,
            "guides": guides_to_json(panel.guides)}
    payload = canonical_json(meta).encode("utf-8") + b"\n" + panel.svg
    return b"%s %s\n%s\n" % (_MAGIC, key.encode(), bytes_digest(payload).encode()) + payload


def _relative(path: str, root: Path | None) -> str:
    """``path`` relative to ``root`` (posix) when inside it, else as it is (absolute)."""
    if root is None:
        return path
    try:
        return Path(path).relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return path


def decode_entry(key: str, data: bytes, root: Path | None = None) -> RenderedPanel | None:
    """The panel stored in an entry, or None when the entry is not intact (wrong header, key or digest).
    Relative paths of its opened files are made absolute under ``root`` (default: the current folder)."""
    header, sep1, rest = data.partition(b"\n")
    digest, sep2, payload = rest.partition(b"\n")
    if not (sep1 and sep2) or header != b"%s %s" % (_MAGIC, key.encode()):
        return None
    if bytes_digest(payload).encode() != digest:
        return None
    anchors_json, sep3, svg = payload.partition(b"\n")
    if not sep3:
        return None
    try:
        meta = json.loads(anchors_json)
        anchors = {str(name): (float(xy[0]), float(xy[1])) for name, xy in meta["anchors"].items()}
        notes = tuple(str(note) for note in meta["notes"])
        substituted = {str(font): str(what) for font, what in meta["substituted"].items()}
        base = Path(root).resolve() if root is not None else Path.cwd()
        opened = {str(base / path): (None if digest is None else str(digest))
                  for path, digest in meta["opened"].items()}
        area = meta["plot_area"]
        plot_area = (float(area[0]), float(area[1]), float(area[2]), float(area[3])) if area else None
        guides = guides_from_json(meta["guides"])
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        return None
    return RenderedPanel(svg=svg, anchors=anchors, notes=notes, substituted=substituted, opened=opened,
                         plot_area=plot_area, guides=guides)


#: the panel cache is kept under this size: after each store the least
#: recently used entries are deleted down to 3/4 of it.
MAX_CACHE_BYTES = 1 << 30


@dataclass
class PanelCache:
    """A folder of verified cache entries, kept under :data:`MAX_CACHE_BYTES`.

    An entry's modification time is its last use (a successful build touches
    the entries it used), so pruning deletes the least recently used first.

    Attributes:
        directory: where entries live (:func:`cache_dir`).
        root: the project, whose files the entries name relative to it (None: absolute paths).
        repaired: keys whose entries were found corrupt (and deleted) by :meth:`load`.
        stale: keys whose entries were intact but a file their panel opened changed (:meth:`load`).
    """

    directory: Path
    root: Path | None = None
    repaired: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)

    def path(self, key: str) -> Path:
        """The entry file of ``key``: ``DIR/<key[:2]>/<key>``."""
        return self.directory / key[:2] / key

    def load(self, key: str) -> RenderedPanel | None:
        """The cached panel for ``key``; None on a miss. A corrupt entry is deleted and counts as a miss;
        so does an entry any of whose opened files changed, appeared or vanished (listed in ``stale``)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        panel = decode_entry(key, data, self.root)
        if panel is None:
            self.repaired.append(key)
            try:
                path.unlink()
            except OSError:
                pass
            return None
        if any(file_digest(Path(file)) != digest for file, digest in panel.opened.items()):
            self.stale.append(key)
            return None
        return panel

    def touch(self, keys: Iterable[str]) -> None:
        """Mark entries as used now (their mtime), for pruning; called after a successful build."""
        for key in keys:
            try:
                os.utime(self.path(key))
            except OSError:
                pass

    def store(self, panels: Mapping[str, RenderedPanel]) -> None:
        """Write entries (key -> panel) atomically. A cache that cannot be written is skipped, not an error."""
        from composer.svg.io import write_files_atomically

        if not panels:
            return
        try:
            write_files_atomically({self.path(key): encode_entry(key, panel, self.root)
                                    for key, panel in panels.items()})
            self.prune(MAX_CACHE_BYTES, keep=panels.keys())
        except OSError:
            pass

    def prune(self, max_bytes: int, *, keep: Iterable[str] = ()) -> list[str]:
        """Delete least recently used entries until the cache holds at most 3/4 of ``max_bytes``.

        Nothing happens while the cache is under ``max_bytes``; entries of
        ``keep`` (the build's own) are never deleted. Returns the deleted keys.
        """
        entries = []
        for sub in (os.scandir(self.directory) if self.directory.is_dir() else ()):
            if sub.is_dir():
                for entry in os.scandir(sub.path):
                    st = entry.stat()
                    entries.append((st.st_mtime_ns, st.st_size, entry.name, entry.path))
        total = sum(size for _, size, _, _ in entries)
        if total <= max_bytes:
            return []
        kept = set(keep)
        deleted = []
        for _, size, name, path in sorted(entries):
            if total <= max_bytes * 3 // 4:
                break
            if name in kept:
                continue
            try:
                os.unlink(path)
            except OSError:
                continue
            total -= size
            deleted.append(name)
        return deleted

    def remove(self, keys: Iterable[str]) -> int:
        """Delete the entries of ``keys``; returns how many existed."""
        count = 0
        for key in keys:
            try:
                self.path(key).unlink()
                count += 1
            except OSError:
                pass
        return count


def clean(root: Path, names: Iterable[str], *, out_dir: Path | None = None, whole_cache: bool) -> list[Path]:
    """Delete what composer wrote for figures ``names``: outputs, build manifest, cache entries.

    Args:
        root: the project folder.
        names: figure names.
        out_dir: where their outputs are (default ``ROOT/build``).
        whole_cache: also delete the whole cache folder ``ROOT/build/.cache``
            (``compose clean`` without a name; when it is a symbolic link, the link is removed, not the
            folder it points to); else only the figures' typeset text and the panel entries their
            manifests name that no other figure's manifest (in ``out_dir`` or ``ROOT/build``) names too.

    Returns:
        The files and folders deleted: also the panels ``--panels`` wrote
        (``OUT/NAME/PANEL.FORMAT`` for the panels the manifest names, imported ones included), and
        ``OUT/NAME/`` once empty. Nothing else in ``out_dir`` is touched.

    Raises:
        ComposerError: a file or folder cannot be deleted (one line naming it and why). Each folder to
            delete from is checked first: when one is not writable, nothing is deleted.
    """
    from composer.incremental.manifest import load, manifest_path

    out = Path(out_dir) if out_dir is not None else Path(root) / "build"
    names = list(names)
    store = PanelCache(cache_dir(root))
    shared = set() if whole_cache else _panel_keys(_other_manifests(out, Path(root) / "build", names))
    files: set[Path] = set()
    folders: list[Path] = []  # OUT/NAME/ of --panels: removed once empty
    for name in names:
        recorded = load(out, name) or {}
        files |= {out / rec["file"] for rec in recorded.get("outputs", {}).values()}
        # the default outputs even without a manifest (others only as it records them)
        files |= {out / file for file in (*outputs.files(name, outputs.DEFAULT_FORMATS).values(),
                                          f"{name}.debug.svg", f"{name}.debug.png")}
        files.add(manifest_path(out, name))
        files.add(text_cache_path(root, name))
        if not whole_cache:
            files |= {store.path(p["key"]) for p in recorded.get("panels", {}).values()
                      if "key" in p and p["key"] not in shared}
        alone = out / name  # --panels
        named = {*recorded.get("panels", {}), *recorded.get("panel_names", [])}  # render panels, then all
        files |= {alone / file for panel in named for file in outputs.files(panel).values()}
        folders.append(alone)
    doomed = sorted(path for path in files if path.is_file())
    whole = store.directory.parent  # ROOT/build/.cache: panels and text
    tree = whole_cache and (whole.is_symlink() or whole.is_dir())
    _check_deletable([path.parent for path in doomed] + (_folders_of(whole) if tree else []))
    removed: list[Path] = []
    for path in doomed:
        _delete(path.unlink, path, removed)
    for alone in folders:
        if alone.is_dir() and not alone.is_symlink() and not any(alone.iterdir()):
            _delete(alone.rmdir, alone, removed)
    if tree:
        import shutil

        _delete(whole.unlink if whole.is_symlink() else lambda: shutil.rmtree(whole), whole, removed)
    return removed


def _other_manifests(out: Path, build: Path, names: list[str]) -> list[dict[str, Any]]:
    """The manifests (``.NAME.manifest.json``) in ``out`` and ``build`` of figures not in ``names``."""
    from composer.incremental.manifest import load

    found = []
    for folder in sorted({out, build}):
        for path in sorted(folder.glob(".*.manifest.json")) if folder.is_dir() else []:
            other = path.name[1:-len(".manifest.json")]
            if other not in names and (recorded := load(folder, other)) is not None:
                found.append(recorded)
    return found


def _panel_keys(manifests: list[dict[str, Any]]) -> set[str]:
    """The panel-cache keys the ``manifests`` name."""
    return {p["key"] for m in manifests for p in m.get("panels", {}).values() if "key" in p}


def _folders_of(whole: Path) -> list[Path]:
    """The folders deleting ``whole`` writes to: its parent (for a symbolic link), else each folder in it too."""
    if whole.is_symlink():
        return [whole.parent]
    return [whole.parent, *(Path(folder) for folder, _, _ in os.walk(whole))]


def _check_deletable(folders: Iterable[Path]) -> None:
    """Raise ComposerError (one line) naming the first of ``folders`` this process cannot delete from."""
    for folder in sorted(set(folders)):
        if not os.access(folder, os.W_OK | os.X_OK):
            raise ComposerError(f"cannot delete in {folder}: this user may not write to it; nothing was removed")


def _delete(remove: Callable[[], object], path: Path, removed: list[Path]) -> None:
    """Run ``remove`` (which deletes ``path``) and append ``path`` to ``removed``; an OSError becomes a
    ComposerError (one line) naming the path, why, and how much was removed before."""
    try:
        remove()
    except OSError as exc:
        before = f"{len(removed)} file{'s' * (len(removed) != 1)} removed before it" if removed else "nothing removed"
        raise ComposerError(f"cannot delete {path}: {exc.strerror or exc}; {before}") from None
    removed.append(path)


# ─── typeset canvas text ─────────────────────────────────────────────────────

_TEXT_MAGIC = b"composer-text-cache 4"  # 2: editable runs kept; 3: font files by content; 4: outlined glyphs


class TextCache:
    """Typeset canvas text kept between builds (``ROOT/build/.cache/text/NAME.json``), and across
    projects and cleaned builds in the user's cache (:mod:`composer.incremental.usercache`).

    Typesetting the canvas text as outlines (:func:`composer.text.metrics.typeset`)
    is the largest part of composing a figure (about 0.4 s for volume_kv),
    and an edit of a panel leaves every text as it was. A block is stored
    under the sha256 of its arguments (the filled text, its style, the
    palette, the wrap width) and of what it is made with: composer's
    fingerprint, matplotlib's version, the rcParams in force and the paths
    and sha256 of the bytes of the font files the text can be drawn with
    (:func:`composer.incremental.usercache.font_files_digest`); a LaTeX text's, also of the versions
    of latex and dvisvgm (:func:`composer.text.latex.toolchain`). A block is
    looked up in this build's blocks, then the project's file, then the
    user's cache, and typeset only when none has it. The project's file
    holds exactly the blocks the last successful build used; the blocks
    typeset afresh also go to the user's cache. Both are written atomically
    and verified when read (a damaged file or entry is ignored and deleted).

    Args:
        path: the project's cache file.
        user: the user's cache (default: :class:`~composer.incremental.usercache.UserTextStore` in
            :func:`~composer.incremental.usercache.user_cache_dir`, none when that is None); None: the
            project's file only.
    """

    def __init__(self, path: Path, user: UserTextStore | None | Literal["default"] = "default"):
        import matplotlib

        self.path = Path(path)
        self.user = UserTextStore.default() if user == "default" else user
        self._env = canonical_json([composer_fingerprint(), matplotlib.__version__, rc_digest()])
        self._stored: dict[str, Any] = self._read()
        self._used: dict[str, Any] = {}
        self._fresh: dict[str, Any] = {}

    def _read(self) -> dict[str, Any]:
        try:
            data = self.path.read_bytes()
        except OSError:
            return {}
        header, _, rest = data.partition(b"\n")
        digest, _, payload = rest.partition(b"\n")
        try:
            if header != _TEXT_MAGIC or bytes_digest(payload).encode() != digest:
                raise ValueError("damaged")
            stored = json.loads(payload)
            if not isinstance(stored, dict):
                raise ValueError("damaged")
            return stored
        except ValueError:
            try:
                self.path.unlink()
            except OSError:
                pass
            return {}

    def key(self, text: str, style: Any, colors: tuple[tuple[str, str], ...] = (), width_pt: float | None = None,
            *, fonts: str | None | Literal["find"] = "find") -> str:
        """The sha256 hex key a block is stored under (see the class docstring); ``fonts``: the
        :func:`~composer.incremental.usercache.font_files_digest` when already known."""
        if fonts == "find":
            fonts = font_files_digest(text, style)
        made_with: list[Any] = [self._env, fonts, text, repr(style), [list(c) for c in colors], width_pt]
        if getattr(style, "math", None) == "latex":  # typeset by TeX: its programs' versions too
            from composer.text.latex import toolchain

            made_with.append(toolchain())
        return bytes_digest(canonical_json(made_with).encode("utf-8"))

    def has(self, text: str, style: Any, colors: tuple[tuple[str, str], ...] = (),
            width_pt: float | None = None) -> bool:
        """True when :meth:`typeset` would find these arguments' block without typesetting it (this build's
        blocks, the project's file, the user's cache)."""
        fonts = font_files_digest(text, style)
        key = self.key(text, style, colors, width_pt, fonts=fonts)
        return key in self._used or key in self._stored or (
            self.user is not None and fonts is not None and self.user.load(key) is not None)

    def typeset(self, text: str, style: Any, colors: tuple[tuple[str, str], ...] = (),
                width_pt: float | None = None) -> Any:
        """:func:`composer.text.metrics.typeset`, from the cache when these arguments were typeset before.

        Raises:
            ValueError: as :func:`composer.text.metrics.typeset` (errors are not cached).
        """
        from composer.text.metrics import typeset

        fonts = font_files_digest(text, style)
        key = self.key(text, style, colors, width_pt, fonts=fonts)
        if key in self._used:
            return _block_from_json(self._used[key])
        for tier in ("project", "user"):
            raw = self._stored.get(key) if tier == "project" else (
                self.user.load(key) if self.user is not None and fonts is not None else None)
            if raw is None:
                continue
            try:
                block = _block_from_json(raw)
            except (KeyError, TypeError, ValueError):
                continue
            self._used[key] = raw
            return block
        block = typeset(text, style, colors, width_pt)
        self._used[key] = _block_to_json(block)
        if fonts is not None:  # a font that is not installed: nothing for the user's cache
            self._fresh[key] = self._used[key]
        return block

    def save(self) -> None:
        """Write the blocks this build used to the project's file (atomically), when they differ from the
        file's, and those it typeset afresh to the user's cache."""
        if self.user is not None:
            self.user.store(self._fresh)
            self._fresh = {}
        if set(self._used) == set(self._stored):
            return
        from composer.svg.io import write_files_atomically

        payload = canonical_json(self._used).encode("utf-8")
        try:
            write_files_atomically({self.path: b"%s\n%s\n" % (_TEXT_MAGIC, bytes_digest(payload).encode()) + payload})
        except OSError:
            pass


def text_cache_path(root: Path, name: str) -> Path:
    """``ROOT/build/.cache/text/NAME.json``."""
    return Path(root) / "build" / ".cache" / "text" / f"{name}.json"


def _block_to_json(block: Any) -> dict[str, Any]:
    """A typeset block as JSON: outline pieces, sizes, and the runs of editable text (each with its style)."""
    return {"lines": [{"pieces": [list(p) for p in line.pieces], "width_pt": float(line.width_pt),
                       "ascent_pt": float(line.ascent_pt), "descent_pt": float(line.descent_pt),
                       "runs": [{"text": run.text, "style": dataclasses.asdict(run.style), "x_pt": float(run.x_pt),
                                 "char_x_pt": [float(x) for x in run.char_x_pt], "math_d": run.math_d}
                                for run in line.runs],
                       "glyphs": [[g.font_file, g.index, g.chars, g.x_pt, g.y_pt, g.size_pt, g.fill, g.opacity]
                                  for g in line.glyphs]}
                      for line in block.lines],
            "width_pt": float(block.width_pt), "height_pt": float(block.height_pt)}


def _block_from_json(raw: dict[str, Any]) -> Any:
    from composer.layout.model import TextStyle
    from composer.text.metrics import Line, Run, TextBlock
    from composer.text.realtext import Glyph

    lines = tuple(Line(pieces=tuple((str(c), str(d)) for c, d in line["pieces"]), width_pt=float(line["width_pt"]),
                       ascent_pt=float(line["ascent_pt"]), descent_pt=float(line["descent_pt"]),
                       runs=tuple(Run(text=str(r["text"]), style=TextStyle(**r["style"]), x_pt=float(r["x_pt"]),
                                      char_x_pt=tuple(float(x) for x in r["char_x_pt"]),
                                      math_d=None if r["math_d"] is None else str(r["math_d"]))
                                  for r in line["runs"]),
                       glyphs=tuple(Glyph(str(f), int(i), str(c), float(x), float(y), float(z),
                                          None if fill is None else str(fill), float(o))
                                    for f, i, c, x, y, z, fill, o in line.get("glyphs", ())))
                  for line in raw["lines"])
    return TextBlock(lines=lines, width_pt=float(raw["width_pt"]), height_pt=float(raw["height_pt"]))
