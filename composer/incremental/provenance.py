"""Provenance: which composer, which commit and which inputs made a figure, written into its files and read back.

A build records (:func:`gather`): composer's version; the git commit checked out and whether the
figure's inputs are as committed (:mod:`composer.incremental.gitstate`: an input is uncommitted when its
bytes are not the commit's), naming those that are not; and every input with its role and sha256: the
layout, style file, data files, panel modules (and the project modules they import), imported files
(svg, pdf, image panels), and the files panel code opened by itself. The digests are the ones the build
took for its manifest and caches before reading the inputs (:func:`composer.incremental.keys.input_digests`):
nothing is hashed twice, and what is recorded is what the build read. Paths are relative to the project
(absolute outside it), sorted; no clock is read, so equal inputs at the same commit give equal bytes.

The record is one JSON text (:meth:`Provenance.to_json`), written into the SVG's ``<metadata>``
(:func:`composer.stages.describe.describe`), the PDF's XMP and the PNG's ``iTXt``
(:mod:`composer.stages.export`). :func:`read` takes it back from any of the three, and :func:`compare`
says, for the project as it is now, which inputs changed or are gone (``compose provenance FILE``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from composer.errors import ComposerError
from composer.incremental import gitstate, manifest
from composer.layout.model import Figure
from composer.stages.sources import source_of

#: bump when the record's meaning changes
FORMAT = 1
#: the roles an input is recorded with, in the order the record lists them
ROLES = ("layout", "style", "data", "panel module", "imported", "opened by panel code", "other")


@dataclass(frozen=True)
class Input:
    """One input of a build: its path (relative to the project, absolute outside it), role
    (one of :data:`ROLES`) and sha256 (None: it could not be read)."""

    path: str
    role: str
    sha256: str | None


@dataclass(frozen=True)
class Provenance:
    """Where a figure comes from.

    Attributes:
        composer: composer's version (``composer.version.__version__``).
        commit: the git commit checked out when it was built, or None (no repository, no git).
        uncommitted: the inputs whose bytes are not the commit's (paths as in :attr:`inputs`); every input
            when there is no commit.
        inputs: every input, by role then path.
    """

    composer: str
    commit: str | None
    uncommitted: tuple[str, ...]
    inputs: tuple[Input, ...]

    @property
    def clean(self) -> bool | None:
        """Every input as committed (None: no commit to compare with)."""
        return None if self.commit is None else not self.uncommitted

    def to_json(self) -> str:
        """The record as one deterministic JSON text (sorted keys, no spaces, UTF-8 characters kept)."""
        data = {"format": FORMAT, "composer": self.composer,
                "git": {"commit": self.commit, "clean": self.clean, "uncommitted": list(self.uncommitted)},
                "inputs": [{"path": i.path, "role": i.role, "sha256": i.sha256} for i in self.inputs]}
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, *, file: str) -> Provenance:
        """The record :meth:`to_json` wrote.

        Raises:
            ComposerError: not such a record (naming ``file``).
        """
        try:
            data = json.loads(text)
            git = data["git"]
            inputs = tuple(Input(str(i["path"]), str(i["role"]), i["sha256"]) for i in data["inputs"])
            if data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format')!r}, this composer reads {FORMAT}")
            return cls(str(data["composer"]), git["commit"], tuple(str(p) for p in git["uncommitted"]), inputs)
        except (ValueError, KeyError, TypeError) as exc:
            raise ComposerError(f"its provenance record is not one composer can read ({exc})", file=file) from None


def roles(figure: Figure, layout: Path | None) -> dict[Path, str]:
    """Absolute path -> role, for the files whose role the layout says (the layout, its style and data
    files, the files of imported panels); every other input is a panel module (``.py``) or ``other``."""
    named: dict[Path, str] = {}
    for panel in figure.panels:
        if source_of(panel).imported:
            named[Path(panel.source).resolve()] = "imported"
    for data in (figure.spec.data, *(p.data for p in figure.panels)):
        if data is not None:
            named[Path(data).resolve()] = "data"
    for path in figure.files:  # what the layout names: style, data, imported files
        named.setdefault(Path(path).resolve(), "style" if Path(path).suffix == ".toml" else "other")
    if layout is not None:
        named[Path(layout).resolve()] = "layout"
    return named


def gather(root: Path, figure: Figure, layout: Path | None, digests: Mapping[Path, str | None],
           opened: Mapping[str, str | None] = {}) -> Provenance:  # noqa: B006 - read only
    """The provenance of a build of ``figure`` in the project ``root``.

    Args:
        layout: the layout file (None: a figure built in code).
        digests: absolute path -> sha256 of every input, as the build took them
            (:func:`composer.incremental.keys.input_digests`, the layout's included).
        opened: absolute path -> sha256 of the files panel code opened by itself (None: it was missing).
    """
    from composer.version import __version__

    root = Path(root).resolve()
    named = roles(figure, layout)
    found: dict[Path, tuple[str, str | None]] = {}
    for path, digest in digests.items():
        path = Path(path).resolve()
        found[path] = (named.get(path, "panel module" if path.suffix == ".py" else "other"), digest)
    for path_text, digest in opened.items():
        found.setdefault(Path(path_text).resolve(), ("opened by panel code", digest))
    top = gitstate.repository(root)
    commit = gitstate.head_commit(root) if top is not None else None
    existing = [p for p, (_, d) in found.items() if d is not None]
    dirty = set(gitstate.uncommitted(top, existing)) if top is not None and commit is not None else set(found)
    dirty |= {p for p, (_, d) in found.items() if d is None}  # a missing input is not the commit's either
    inputs = sorted((Input(manifest.display_path(p, root), role, d) for p, (role, d) in found.items()),
                    key=lambda i: (ROLES.index(i.role), i.path))
    shown = sorted(manifest.display_path(p, root) for p in dirty)
    return Provenance(__version__, commit, tuple(shown), tuple(inputs))


@dataclass(frozen=True)
class Difference:
    """An input whose file in the project now is not the one the figure was built from.

    Attributes:
        input: the input as recorded. state: ``"changed"`` (other bytes) or ``"missing"`` (no such file).
    """

    input: Input
    state: str


@dataclass(frozen=True)
class Comparison:
    """A figure's provenance against the project as it is now (``compose provenance FILE``).

    Attributes:
        file: the figure's file, as named. provenance: its record.
        differences: its inputs that changed or are gone, in the record's order.
        commit: the commit checked out now (None: none).
    """

    file: str
    provenance: Provenance
    differences: tuple[Difference, ...]
    commit: str | None

    @property
    def same(self) -> bool:
        """Every input is as recorded (the commit may have moved: unrelated files changed)."""
        return not self.differences

    def table(self) -> str:
        """The record and its differences as lines for a terminal."""
        p = self.provenance
        if p.commit is None:
            git = "no git commit (built outside a git repository, or in one before its first commit)"
        else:
            state = "clean" if p.clean else f"{len(p.uncommitted)} uncommitted: {', '.join(p.uncommitted)}"
            git = f"commit {p.commit} ({state})"
        now = "" if self.commit == p.commit else (f"; checked out now: {self.commit}" if self.commit
                                                     else "; no commit now")
        lines = [f"{self.file}: made by composer {p.composer} from {git}{now}"]
        states = {d.input.path: d.state for d in self.differences}
        width_role = max((len(i.role) for i in p.inputs), default=4)
        width_path = max((len(i.path) for i in p.inputs), default=4)
        lines.append(f"  {'role':<{width_role}}  {'file':<{width_path}}  {'sha256':<12}  now")
        for i in p.inputs:
            lines.append(f"  {i.role:<{width_role}}  {i.path:<{width_path}}  {(i.sha256 or 'unreadable')[:12]:<12}  "
                         f"{states.get(i.path, 'same')}")
        lines.append("every input is as recorded" if self.same else
                     f"{len(self.differences)} of {len(p.inputs)} inputs differ: "
                     + ", ".join(f"{d.input.path} ({d.state})" for d in self.differences))
        return "\n".join(lines)

    def to_json(self) -> str:
        """The comparison as JSON: the record's fields, ``differs`` (path -> state) and ``commit_now``."""
        data: dict[str, Any] = json.loads(self.provenance.to_json())
        data.update(file=self.file, commit_now=self.commit,
                    differs={d.input.path: d.state for d in self.differences})
        return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)


def compare(provenance: Provenance, root: str | Path, *, file: str = "") -> Comparison:
    """``provenance`` against the project ``root`` now: each input's file hashed again (sha256)."""
    root = Path(root).resolve()
    differences = []
    for recorded in provenance.inputs:
        path = Path(recorded.path) if Path(recorded.path).is_absolute() else root / recorded.path
        if not path.is_file():
            differences.append(Difference(recorded, "missing"))
        elif manifest.file_digest(path) != recorded.sha256:
            differences.append(Difference(recorded, "changed"))
    return Comparison(file, provenance, tuple(differences), gitstate.head_commit(root))


def read(path: str | Path, *, shown: str | None = None) -> Provenance:
    """The provenance record in a figure's SVG, PDF or PNG (told apart by their first bytes).

    Raises:
        ComposerError: the file cannot be read, is none of the three, or holds no record (built with
            ``[figure] provenance = false``, by an older composer, or as a PDF/A).
    """
    from composer.stages.describe import svg_provenance
    from composer.stages.export import PNG_PROVENANCE
    from composer.stages.export.pdfmeta import pdf_provenance
    from composer.stages.export.png import texts_of

    file = shown or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ComposerError(f"cannot read it: {exc.strerror or exc}", file=file) from None
    if data.startswith(b"%PDF-"):
        text = pdf_provenance(data, source=file)
    elif data.startswith(b"\x89PNG\r\n\x1a\n"):
        try:
            text = texts_of(data).get(PNG_PROVENANCE)
        except ValueError as exc:
            raise ComposerError(f"not a readable PNG ({exc})", file=file) from None
    elif b"<svg" in data[:4096]:
        text = svg_provenance(data, source=file)
    else:
        raise ComposerError("not an SVG, PDF or PNG; compose provenance reads a figure's own files", file=file)
    if text is None:
        raise ComposerError("holds no provenance (built with [figure] provenance = false, as a PDF/A, or by an "
                            "older composer)", file=file)
    return Provenance.from_json(text, file=file)

