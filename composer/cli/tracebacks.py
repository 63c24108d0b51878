"""The traceback of the user's code, as the ``compose`` command shows it below an error's line.

An error in the user's own code (a renderer, ``values()``, a panel module's import, a Python layout's
``layout()``) carries its traceback as data (:attr:`composer.errors.ComposerError.frames`, made where
the code ran, in its worker). The command prints it below the one-line error, most recent call last,
one frame as two lines (``FILE:LINE in FUNCTION``, then the source line), Python's order (one frame
repeated back to back, as a runaway recursion's, three times, then one line counting the rest); when it
was raised inside a library the user's code called, one line says how many frames, whose:

    compose: error: layouts/fig.toml: panels.b.render: panel 'b': fig:heat raised ValueError: ...
      traceback of your code (most recent call last; -v shows all 26 frames):
        panels/fig.py:10 in heat
          ax.plot(x, y[:-1])
        ... then 3 frames in matplotlib

By default only the user's frames are shown: those composer called (below composer's first frame)
that are neither composer's own nor in Python's or an installed package's folders. ``-v`` shows every
frame. Paths are relative to the current folder when inside it, else absolute.
"""

from __future__ import annotations

import os
import site
import sysconfig
from collections.abc import Sequence
from functools import cache

from composer.errors import Frame


@cache
def _composer_folder() -> str:
    """The folder of the composer package (this file is in its cli/)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@cache
def _library_folders() -> tuple[str, ...]:
    """Folders of composer, of Python's standard library and of installed packages (and scripts)."""
    folders = {_composer_folder()}
    paths = sysconfig.get_paths()
    for scheme_key in ("stdlib", "platstdlib", "purelib", "platlib", "scripts"):
        if paths.get(scheme_key):
            folders.add(os.path.realpath(paths[scheme_key]))
    try:
        folders.update(os.path.realpath(p) for p in site.getsitepackages())
        folders.add(os.path.realpath(site.getusersitepackages()))
    except AttributeError:  # an embedded Python's site module may lack them
        pass
    return tuple(sorted(folders))


def is_composers(frame: Frame) -> bool:
    """Whether ``frame`` is in composer's own package."""
    return _inside(frame.file, (_composer_folder(),))


def is_users(frame: Frame) -> bool:
    """Whether ``frame`` is the user's code: a real file outside composer, Python and installed packages."""
    if frame.file.startswith("<"):  # <frozen importlib._bootstrap>, <string>
        return False
    return not _inside(frame.file, _library_folders())


def _inside(file: str, folders: Sequence[str]) -> bool:
    path = os.path.realpath(file)
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


def users_frames(frames: Sequence[Frame]) -> list[Frame]:
    """The user's frames among ``frames`` (outermost first) that composer called: after composer's
    first frame (a script, notebook or test calling composer is the caller, not the failure)."""
    first = next((i for i, frame in enumerate(frames) if is_composers(frame)), None)
    below = frames if first is None else frames[first:]
    return [frame for frame in below if is_users(frame)]


def shown_path(file: str) -> str:
    """``file`` relative to the current folder when inside it, else as it is (absolute)."""
    if file.startswith("<") or not os.path.isabs(file):
        return file
    try:
        rel = os.path.relpath(file)
    except ValueError:  # another drive
        return file
    return file if rel.startswith("..") else rel


def traceback_lines(frames: Sequence[Frame], *, verbose: bool) -> list[str]:
    """The lines shown below an error's line for ``frames`` (outermost first): the user's frames, or with
    ``verbose`` every frame; ``[]`` when there are no frames. Without ``verbose`` and with no frame of
    the user's, one line says that ``-v`` shows them."""
    if not frames:
        return []
    shown = list(frames) if verbose else users_frames(frames)
    if not shown:
        return [f"  (no frame of your code; -v shows the traceback's {len(frames)} frames)"]
    if verbose:
        head = "  traceback (most recent call last):"
    else:
        head = f"  traceback of your code (most recent call last; -v shows all {len(frames)} frames):"
    lines = [head]
    for frame, repeated in _runs(shown):
        lines.append(f"    {shown_path(frame.file)}:{frame.line} in {frame.name}")
        if frame.code:
            lines.append(f"      {frame.code}")
        if repeated:
            lines.append(f"    [the frame above repeated {repeated} more time{'s' * (repeated != 1)}]")
    last = max(i for i, frame in enumerate(frames) if frame is shown[-1])
    below = [] if verbose else list(frames[last + 1:])
    if below:  # where it was raised: inside a library the user's code called (matplotlib, numpy)
        owners = list(dict.fromkeys(owner(frame) for frame in below))
        lines.append(f"    ... then {len(below)} frame{'s' * (len(below) != 1)} in {', '.join(owners)}")
    return lines


#: a frame repeated one after another (a runaway recursion) is shown this many times, then counted,
#: as Python's own traceback does (``traceback.StackSummary``: ``[Previous line repeated N more times]``)
REPEATS_SHOWN = 3


def _runs(frames: Sequence[Frame]) -> list[tuple[Frame, int]]:
    """``frames`` with each run of one frame repeated back to back (same file, line and function, as a
    recursion's) cut to its first :data:`REPEATS_SHOWN`: each frame shown, with the count of those
    left out after the last one of its run (else 0). A RecursionError's 1,000 frames are 4 lines."""
    shown: list[tuple[Frame, int]] = []
    n = 0
    while n < len(frames):
        end = n
        while end + 1 < len(frames) and frames[end + 1] == frames[n]:
            end += 1
        run = end - n + 1
        kept = min(run, REPEATS_SHOWN)
        shown += [(frames[n], 0)] * (kept - 1) + [(frames[n], run - kept)]
        n = end + 1
    return shown


def owner(frame: Frame) -> str:
    """Whose code a frame that is not the user's is: the top-level package or module under the library
    folder it is in (``matplotlib``, ``numpy``, ``json``, ``composer``), else its file."""
    path = os.path.realpath(frame.file)
    for folder in sorted(_library_folders(), key=len, reverse=True):  # the deepest: site-packages in lib/
        if path.startswith(folder + os.sep):
            if folder == _composer_folder():
                return "composer"
            top = path[len(folder) + 1:].split(os.sep)[0]
            return top[:-3] if top.endswith(".py") else top
    return frame.file
