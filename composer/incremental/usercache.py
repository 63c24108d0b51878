"""The user's cache: typeset canvas text kept across projects and cleaned builds.

Typesetting a text as outlines depends only on the text, its style, the
font files and matplotlib, never on the project; so, as matplotlib keeps its
font list in ``~/.cache/matplotlib``, composer keeps every text it typeset
in the user's cache folder, and a new project, a copied one or a build after
``rm -rf build`` takes its canvas text from there instead of typesetting it
again (volume_kv: about 0.4 s of a cold build). The project's own text
cache (``build/.cache/text/NAME.json``, :class:`composer.incremental.cache.TextCache`)
is looked up first; this is the second tier.

Where: ``$COMPOSER_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/composer``
when ``XDG_CACHE_HOME`` is set to an absolute path, else
``~/.cache/composer`` (the XDG base directory rule, as matplotlib's
``get_cachedir``). Entries are in ``text-1/<2 hex>/<key>`` (``1``: the entry
format), one file per typeset text, content-keyed: the key
(:class:`composer.incremental.cache.TextCache`) is the sha256 of the
arguments of the typesetting, composer's fingerprint, matplotlib's version,
the rcParams in force and the sha256 of the bytes of every font file the
text can be drawn with (:func:`font_files_digest`), so a changed font file,
another matplotlib or another composer never finds an old entry.

Entry format: the header line ``composer-text-entry 1 <key>``, a line with
the sha256 of the payload, then the payload (canonical JSON of the block).
An entry is written to a temporary file in its folder and renamed into place
(POSIX ``rename`` is atomic: a reader sees a whole entry or none), verified
on every read (a damaged or foreign entry is deleted and the text typeset
again, never used), and its modification time is renewed when it is used;
the folder keeps itself under :data:`MAX_BYTES`, least recently used
entries first. Deleting the folder is always safe. A cache folder that
cannot be written (read-only home), or no home folder at all, only costs the time: nothing fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the environment variable that names the cache folder (tests point it at a temporary folder).
ENV_VAR = "COMPOSER_CACHE_DIR"
#: the folder of text entries inside the cache folder; the number is the entry format.
TEXT_FOLDER = "text-1"
_MAGIC = b"composer-text-entry 1"
#: the text entries keep themselves under this size (bytes); volume_kv's 24 texts take 0.4 MB.
MAX_BYTES = 256 * 1024 * 1024


def user_cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """composer's folder in the user's cache: ``$COMPOSER_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/composer`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG rule says),
    else ``~/.cache/composer``; None when there is no home folder either (no ``HOME`` and no
    password entry, as for a container's arbitrary user id: :meth:`pathlib.Path.home` raises), and so
    no user cache. Nothing is created."""
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR]).expanduser()
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "composer"
    try:
        return Path.home() / ".cache" / "composer"
    except (RuntimeError, KeyError):  # "Could not determine home directory."
        return None


@lru_cache(maxsize=64)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    """sha256 of a file's bytes, once per process for one (path, size, mtime)."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_content_digest(path: str) -> str | None:
    """sha256 of the bytes of the file at ``path`` (None when it cannot be read)."""
    try:
        st = os.stat(path)
        return _file_sha256(os.path.realpath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return None


#: the families mathtext draws a formula with, by ``mathtext.fontset`` (matplotlib's ``_mathtext``:
#: DejaVuSansFonts / DejaVuSerifFonts look these up with findfont; cm and stix use the fonts that ship
#: with matplotlib, which its version in the key covers).
_MATH_FAMILIES = {"dejavusans": ("DejaVu Sans", "DejaVu Sans Mono"),
                  "dejavuserif": ("DejaVu Serif", "DejaVu Sans Mono")}


def font_files_digest(text: str, style: Any) -> str | None:
    """A digest of the font files ``text`` in ``style`` (a :class:`composer.layout.model.TextStyle`) can be
    drawn with: their paths and the sha256 of their bytes.

    The files are those matplotlib lays the text out with: the first match of each family of the
    style's list (its fallback list), in the style's weight and slant, and bold or italic too when the
    text has ``<b>`` or ``<i>`` spans; for a formula (``$...$``) in the DejaVu mathtext fontsets, the
    DejaVu families mathtext looks up (in each weight and slant), and with ``mathtext.fontset = "custom"``
    the families of ``mathtext.rm``, ``it``, ``bf``, ``sf``, ``tt`` and ``cal``.

    Returns None when a family is not installed (the caller's check reports it; nothing is cached then).
    """
    import matplotlib
    from matplotlib import font_manager

    from composer.mpl.internals import fallback_font_paths
    from composer.text.metrics import font_families

    weights = {style.weight, *(("bold",) if "<b>" in text else ())}
    slants = {style.style, *(("italic",) if "<i>" in text else ())}
    lookups: list[tuple[list[str], str, str]] = [(font_families(style.font), w, s) for w in weights for s in slants]
    if "$" in text:
        if style.mathtext == "custom":
            rc: Any = matplotlib.rcParams  # its stub types the keys as literals
            families = [str(rc[f"mathtext.{k}"]) for k in ("rm", "it", "bf", "sf", "tt", "cal")]
            lookups.append(([f.split(":")[0] for f in families], "normal", "normal"))
        for family in _MATH_FAMILIES.get(style.mathtext, ()):
            lookups += [([family], w, s) for w in ("normal", "bold") for s in ("normal", "italic")]
    files: set[str] = set()
    try:
        for families, weight, slant in lookups:
            prop = font_manager.FontProperties(family=families, weight=weight, style=slant)  # type: ignore[arg-type]
            files.update(fallback_font_paths(prop))
    except (ValueError, RuntimeError):
        return None
    parts = []
    for path in sorted(files):
        digest = file_content_digest(path)
        if digest is None:
            return None
        parts.append(f"{path}\0{digest}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class UserTextStore:
    """Typeset-text entries in the user's cache folder (see the module docstring).

    Args:
        folder: composer's cache folder (default: :func:`user_cache_dir`); entries go to ``folder/text-1``.

    Raises:
        ValueError: no ``folder`` given and there is no user cache folder (:func:`user_cache_dir` is None).
    """

    def __init__(self, folder: Path | None = None):
        base = Path(folder) if folder is not None else user_cache_dir()
        if base is None:
            raise ValueError("no user cache folder: no COMPOSER_CACHE_DIR, XDG_CACHE_HOME or home folder")
        self.folder = base / TEXT_FOLDER

    @classmethod
    def default(cls) -> UserTextStore | None:
        """The store in :func:`user_cache_dir`, or None when there is none (no home folder): no user cache."""
        folder = user_cache_dir()
        return None if folder is None else cls(folder)

    def path(self, key: str) -> Path:
        """The file of the entry ``key`` (a sha256 hex digest)."""
        return self.folder / key[:2] / key

    def load(self, key: str) -> Any | None:
        """The JSON payload stored under ``key``, or None (missing, damaged or foreign: deleted)."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        header, _, rest = data.partition(b"\n")
        digest, _, payload = rest.partition(b"\n")
        try:
            if header != _MAGIC + b" " + key.encode() or hashlib.sha256(payload).hexdigest().encode() != digest:
                raise ValueError("damaged")
            value = json.loads(payload)
        except ValueError:
            _remove(path)
            return None
        try:
            os.utime(path)  # used: the last to be pruned
        except OSError:
            pass
        return value

    def store(self, entries: Mapping[str, Any]) -> None:
        """Write each ``key -> JSON payload`` atomically (a temporary file renamed into place), then keep
        the folder under :data:`MAX_BYTES`. Nothing is raised: a cache that cannot be written is skipped."""
        if not entries:
            return
        for key, value in entries.items():
            payload = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            data = b"%s %s\n%s\n%s" % (_MAGIC, key.encode(), hashlib.sha256(payload).hexdigest().encode(), payload)
            path = self.path(key)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{key[:8]}.", suffix=".tmp", dir=path.parent)
            except OSError:
                return
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(tmp, path)
            except OSError:
                _remove(Path(tmp))
                return
        self.prune(MAX_BYTES)

    def prune(self, max_bytes: int) -> list[Path]:
        """Delete the least recently used entries until the rest take at most ``max_bytes``; the deleted."""
        entries = []
        total = 0
        for path in _files(self.folder):
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime_ns, path, st.st_size))
            total += st.st_size
        removed: list[Path] = []
        for _, path, size in sorted(entries):
            if total <= max_bytes:
                break
            if _remove(path):
                removed.append(path)
                total -= size
        return removed


def _files(folder: Path) -> Iterable[Path]:
    try:
        subfolders = list(os.scandir(folder))
    except OSError:
        return
    for sub in subfolders:
        if sub.is_dir(follow_symlinks=False):
            try:
                yield from (Path(e.path) for e in os.scandir(sub.path) if e.is_file(follow_symlinks=False))
            except OSError:
                continue


def _remove(path: Path) -> bool:
    try:
        path.unlink()
        return True
    except OSError:
        return False
