"""The git state a figure's provenance records: the commit checked out, and which inputs differ from it.

Standard library only (the no-op path, :func:`composer.incremental.manifest.stale_reason`, asks for the
commit). git itself answers (``git rev-parse``, ``ls-tree``, ``diff``: its index makes the comparison cheap
and reads no file's bytes composer already hashed); a project in no repository, or a machine without
git, has no commit, and nothing runs (a ``.git`` is looked for first).

"Clean" is said of the figure's inputs, not of the whole working tree: an input is *uncommitted* when it
is not in the commit's tree or its bytes differ from it (staged or not). A build's own outputs, an
edited README, another figure's data do not make a figure's provenance dirty, and its bytes do not
depend on them; equal inputs at the same commit give the same answer, so the manifest needs to record
only the commit.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

#: seconds a git call may take before it is given up (then: no commit known)
TIMEOUT_S = 10.0


def _git(top: Path, *args: str) -> str | None:
    """git's stdout for ``args`` in ``top``, or None when git is missing, fails or times out."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        done = subprocess.run(["git", "-C", str(top), *args], capture_output=True, timeout=TIMEOUT_S, env=env,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode("utf-8", "surrogateescape") if done.returncode == 0 else None


def repository(root: str | Path) -> Path | None:
    """The top folder of the git work tree holding ``root``, or None (no ``.git`` above it, or git says no)."""
    start = Path(root).resolve()
    if not any((folder / ".git").exists() for folder in (start, *start.parents)):
        return None
    top = _git(start, "rev-parse", "--show-toplevel")
    return Path(top.strip()).resolve() if top else None


def head_commit(root: str | Path) -> str | None:
    """The commit checked out in the repository holding ``root`` (40 hex digits), or None: no repository,
    no commit yet, or no git."""
    start = Path(root).resolve()
    if not any((folder / ".git").exists() for folder in (start, *start.parents)):
        return None  # no repository: no git call (the no-op path asks this of every figure)
    out = _git(start, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    return (out.strip() or None) if out else None


def uncommitted(top: Path, paths: Iterable[Path]) -> list[Path]:
    """Of ``paths`` (absolute), those whose bytes are not the commit's: outside the work tree ``top``, not
    in the tree of ``HEAD``, or differing from it (staged or not), in the order given. Every path when git
    cannot answer."""
    paths = [Path(p).resolve() for p in paths]
    inside = {p: p.relative_to(top).as_posix() for p in paths if p.is_relative_to(top)}
    if not inside:
        return paths
    names = sorted(inside.values())
    committed = _git(top, "ls-tree", "-r", "--name-only", "-z", "HEAD", "--", *names)
    changed = _git(top, "diff", "--no-ext-diff", "--no-renames", "--name-only", "-z", "HEAD", "--", *names)
    if committed is None or changed is None:
        return paths
    clean = set(committed.split("\0")) - set(changed.split("\0"))
    return [p for p in paths if inside.get(p) not in clean]
