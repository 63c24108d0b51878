"""Build manifest: what the last successful build of a figure read and wrote.

The manifest makes the no-op path cheap: ``compose NAME`` first asks
:func:`fresh_outputs` whether anything changed since the last build, and only
when something did does it import the pipeline (lxml, numpy, matplotlib,
cairosvg). This module therefore imports the standard library only, and it
never parses the layout: it hashes the raw bytes of the files the previous
build recorded. That is sound because the set of files a build reads is a
function of those files' contents: a layout naming another data file or a
panel module importing another project module has different bytes itself.

Where: ``OUT/.NAME.manifest.json`` next to the outputs it describes (``OUT``
is ``ROOT/build`` unless ``--out`` says otherwise). It is written last and
atomically together with the outputs, so a build that fails or is killed
leaves the previous manifest, whose output digests then no longer match and
force a rebuild.

Contents (JSON): ``format``; ``environment`` (Python version, composer's own
fingerprint, and ``[size, mtime_ns]`` of the installed files the result
depends on: the ``__init__`` of matplotlib, numpy, cairosvg, lxml, ... and
the font files, so an upgrade or a replaced font forces a rebuild);
``options`` (output formats and PNG dpi); ``inputs`` (path -> sha256 of
every file the build read: the layout, panel modules and the project modules
they import, data files, imported SVG and image files); ``opened`` (path ->
sha256, or null for a file that did not exist, of every other file the
panel code, renderers and ``values()``, opened by itself while it ran,
recorded in its worker by :mod:`composer.sandbox.audit`: known only after the
build, like a compiler's depfile; paths outside the project are absolute);
``outputs`` (format
-> file, sha256, and for PDF/PNG the sha256 of the SVG they were made from
and the dpi, so exports are redone only when the SVG bytes changed);
``panels`` (panel -> cache key and last render time, used to schedule the
slowest panel first); ``panel_names`` (every panel of the figure, render panels or not: the
files ``--panels`` may have written, which ``compose clean`` deletes); ``warnings`` (the
messages of the ComposerWarnings the build issued, in order: a no-op build issues them again, see
:func:`recorded_warnings`, so a rebuild does not look cleaner than the build
that made the outputs); ``git`` (``{"commit": ...}``, when the outputs carry the build's provenance,
:mod:`composer.incremental.provenance`: they name the commit, so another commit checked out makes them
stale even when no input changed).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from composer.incremental.gitstate import head_commit  # standard library only
from composer.kinds.outputs import format_names, uses_dpi  # standard library only: the table of formats

#: bump when the manifest's meaning changes; an older manifest is then ignored
#: (2: ``warnings`` added; 3: ``opened`` added).
FORMAT = 3
#: read buffer for hashing files (1 MiB).
_CHUNK = 1 << 20


def manifest_path(out_dir: Path, name: str) -> Path:
    """``OUT/.NAME.manifest.json``."""
    return Path(out_dir) / f".{name}.manifest.json"


def file_digest(path: Path) -> str | None:
    """sha256 hex digest of a file's bytes, or None when it cannot be read."""
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(_CHUNK):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def bytes_digest(data: bytes) -> str:
    """sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


@cache
def composer_fingerprint() -> str:
    """composer's version and a digest of its own source files.

    Any edit to composer (not only a version bump) changes it, so neither the
    manifest nor the panel cache can outlive a change of the code that made
    them.
    """
    from composer.version import __version__

    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent.parent  # composer/, not composer/incremental/ where this is
    for path in sorted(package.rglob("*.py")):  # every subpackage (composer/stages/export/...) too
        h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"{__version__}+{h.hexdigest()[:16]}"


def stat_stamp(path: str | Path) -> list[int] | None:
    """``[size, mtime_ns]`` of a file, or None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def environment(files: Iterable[str | Path] = ()) -> dict[str, Any]:
    """The build environment as recorded in a manifest (see module docstring)."""
    return {
        "python": sys.version,
        "composer": composer_fingerprint(),
        "files": {str(p): stat_stamp(p) for p in sorted({str(f) for f in files})},
    }


def options(formats: Iterable[str], dpi: float, engine: str | None = None,
            pdf_standard: str | None = None) -> dict[str, Any]:
    """The CLI options that change the outputs: formats (as a sorted set), PNG dpi, and the
    export engine and PDF standard when given on the command line (None: the layout's)."""
    formats = sorted(set(formats))
    opts: dict[str, Any] = {"formats": formats, "dpi": float(dpi) if uses_dpi(formats) else None}
    if engine is not None:
        opts["engine"] = engine
    if pdf_standard is not None:
        opts["pdf_standard"] = pdf_standard
    return opts


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it (a moved project keeps its manifest valid), else absolute."""
    path = Path(path).resolve()
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def load(out_dir: Path, name: str) -> dict[str, Any] | None:
    """The manifest of figure ``name`` in ``out_dir``, or None when missing, unreadable or of another format."""
    try:
        data = json.loads(manifest_path(out_dir, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not _well_formed(data):
        return None
    return data


def _well_formed(data: dict[str, Any]) -> bool:
    """Every field a reader of the manifest uses has the type it expects (a damaged manifest is no manifest)."""
    def table(value: Any, item: Callable[[Any], bool]) -> bool:
        return isinstance(value, dict) and all(isinstance(k, str) and item(v) for k, v in value.items())

    def text(value: Any) -> bool:
        return isinstance(value, str)

    env = data.get("environment", {})
    return (table(env, lambda v: True)
            and all(text(env.get(k, "")) for k in ("python", "composer"))
            and table(env.get("files", {}), lambda v: isinstance(v, list))
            and table(data.get("options", {}), lambda v: True)
            and table(data.get("inputs", {}), text)
            and table(data.get("opened", {}), lambda v: v is None or text(v))
            and table(data.get("outputs", {}), lambda v: table(v, lambda _: True) and text(v.get("file"))
                      and text(v.get("sha256", "")))
            and table(data.get("panels", {}), lambda v: table(v, lambda _: True)
                      and isinstance(v.get("seconds", 0.0), (int, float)))
            and isinstance(data.get("panel_names", []), list) and all(text(n) for n in data.get("panel_names", []))
            and isinstance(data.get("warnings", []), list)
            and table(data.get("git", {}), lambda v: v is None or text(v)))


def dumps(manifest: Mapping[str, Any]) -> bytes:
    """Serialize a manifest deterministically (sorted keys, indented, final newline)."""
    return (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")


def stale_reason(root: str | Path, name: str, out_dir: str | Path | None,
                 opts: Mapping[str, Any]) -> str | None:
    """Why figure ``name`` must be rebuilt, or None when its outputs are up to date.

    Up to date means: a manifest exists for this figure in ``out_dir``; it was
    written by this composer (same source fingerprint) under this Python;
    every recorded environment file has the same size and mtime; the options
    are equal; every input file still has the recorded sha256; and every
    output exists with the recorded sha256, with no temporary file of a
    stopped build beside it (the build that follows removes those). Imports
    nothing outside the standard library and parses no layout.

    Returns:
        None, or a short reason such as ``"panels/volume_kv.py changed"``.
    """
    root = Path(root).resolve()
    out = Path(out_dir) if out_dir is not None else root / "build"
    manifest = load(out, name)
    if manifest is None:
        return "no previous build"
    if all((root / "layouts" / f"{name}{ext}").is_file() for ext in (".toml", ".py")):
        return f"layouts/{name}.toml and layouts/{name}.py both exist"  # the build says which to keep
    env = manifest.get("environment", {})
    if env.get("python") != sys.version or env.get("composer") != composer_fingerprint():
        return "composer or Python changed"
    for path, stamp in env.get("files", {}).items():
        if stat_stamp(path) != stamp:
            return f"{path} changed"
    if manifest.get("options") != dict(opts):
        return "options changed"
    if "git" in manifest and manifest["git"].get("commit") != head_commit(root):  # the outputs name the commit
        return "the git commit changed (the figure's provenance names it)"
    for rel, digest in manifest.get("inputs", {}).items():
        if file_digest(root / rel) != digest:
            return f"{rel} changed"
    for rel, digest in manifest.get("opened", {}).items():  # what panel code opened by itself
        now = file_digest(root / rel)
        if now != digest:
            return f"{rel} {'changed' if now and digest else 'appeared' if now else 'is gone'} (opened by panel code)"
    outputs = manifest.get("outputs", {})
    if sorted(outputs) != list(opts.get("formats", [])):
        return "outputs differ"
    for record in outputs.values():
        if file_digest(out / record["file"]) != record.get("sha256"):
            return f"{record['file']} is missing or was modified"
        if any(p.is_file() for p in out.glob(f".{glob.escape(record['file'])}.*.tmp")):
            # a build was stopped while writing it (or one is writing now): the next build removes them
            return f"a build of {record['file']} was interrupted"
    return None


def recorded_outputs(out_dir: str | Path, name: str) -> dict[str, Path]:
    """format -> output path as recorded by the manifest of ``name`` in ``out_dir`` (empty without one)."""
    outputs = (load(Path(out_dir), name) or {}).get("outputs", {})
    order = format_names()

    def rank(fmt: str) -> tuple[bool, int, str]:
        return (fmt not in order, order.index(fmt) if fmt in order else 0, fmt)

    return {fmt: Path(out_dir) / outputs[fmt]["file"] for fmt in sorted(outputs, key=rank)}


def recorded_warnings(out_dir: str | Path, name: str) -> list[str]:
    """The warning messages the last build of ``name`` in ``out_dir`` issued, in order (empty without a manifest).

    For the no-op path: the caller issues them again (as ``ComposerWarning``),
    so an up-to-date build reports what the build that made the outputs did.
    """
    recorded = (load(Path(out_dir), name) or {}).get("warnings", [])
    return [m for m in recorded if isinstance(m, str)] if isinstance(recorded, list) else []


def dependencies(out_dir: str | Path, name: str) -> list[str]:
    """Every file the last build of ``name`` in ``out_dir`` depended on, as its manifest names them
    (relative to the project when inside it, else absolute), sorted: the ``inputs`` and the files panel
    code ``opened``. Empty without a manifest."""
    recorded = load(Path(out_dir), name) or {}
    return sorted({*recorded.get("inputs", {}), *recorded.get("opened", {})})


def fresh_outputs(root: str | Path, name: str, out_dir: str | Path | None,
                  opts: Mapping[str, Any]) -> dict[str, Path] | None:
    """The outputs (format -> path) when figure ``name`` is up to date, else None (see :func:`stale_reason`)."""
    if stale_reason(root, name, out_dir, opts) is not None:
        return None
    return recorded_outputs(Path(out_dir) if out_dir is not None else Path(root).resolve() / "build", name)
