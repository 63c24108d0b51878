"""The project's own code: import its panel modules, find and call its renderers, word their failures.

:func:`load_module` imports ``panels/<module>.py`` from its source (never a ``.pyc``) and
:func:`forget_changed_modules` forgets the modules an edit made stale; :func:`find_renderer` and
:func:`call_params` check a renderer and the parameters it is called with; :func:`describe` words
what the user's code raised in this process in one line naming the line of the user's code, as
:meth:`composer.sandbox.isolate.WorkerFailure.worded` words what it raised in a worker. Used by the
inputs stage (panel modules, ``values()``) and by the drawing of panels (:mod:`composer.stages.draft`).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from composer.errors import LayoutError, PanelError, did_you_mean, exception_text, frames_of
from composer.kinds.extras import install_hint
from composer.layout.model import FigureSpec, Panel
from composer.sandbox.isolate import where


class MissingKey(KeyError):
    """``data["z"]`` on a data file without ``z``: the message lists the keys it has."""

    def __str__(self) -> str:
        key, keys = self.args
        return f"{key!r}; the data file has {', '.join(map(str, keys)) or 'no keys'}"


def load_module(panels_dir: Path, module: str, *, file: str, key: str) -> ModuleType:
    """Import ``panels_dir/module.py`` as ``composer_panels.<module>``; its own imports find the other
    modules of ``panels_dir`` first (as with ``panels_dir`` first on ``sys.path``, which is left alone).

    The project's modules are compiled from their source, never read from or written to
    ``__pycache__`` (:class:`_SourceOnly`): a ``.pyc`` Python trusts for an edited file of the same
    mtime second and size cannot be stale, and no file is written into the user's ``panels/``. They
    stay in ``sys.modules`` for the build, so forked workers and pickled results find them;
    :func:`imports_undone` takes them out again when the build ends.

    Raises:
        LayoutError: no such module file (lists the modules that exist).
        PanelError: importing it raised (names the module and the error).
    """
    path = panels_dir / f"{module}.py"
    if not path.is_file():
        existing = sorted(p.stem for p in panels_dir.glob("*.py")) if panels_dir.is_dir() else []
        raise LayoutError(f"panel module {module!r} not found at {path}; modules are "
                          f"{', '.join(existing) or '(none)'}", file=file, key=key)
    name = f"composer_panels.{module}"
    forget_changed_modules(panels_dir)
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path, loader=_SourceOnly(name, str(path)))
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    finder = _ProjectFinder(panels_dir)
    at = next((i for i, f in enumerate(sys.meta_path) if f is importlib.machinery.PathFinder), len(sys.meta_path))
    sys.meta_path.insert(at, finder)  # after the built-in and frozen modules, before sys.path
    try:
        spec.loader.exec_module(mod)
    except Exception as exc:  # the user's module; report it in one line
        raise PanelError(f"importing panels/{module}.py raised {describe(exc, panels_dir)}",
                         file=file, key=key, frames=frames_of(exc)) from None
    finally:
        sys.meta_path.remove(finder)
    sys.modules[name] = mod
    _remember_sources(panels_dir)
    return mod


class _SourceOnly(importlib.machinery.SourceFileLoader):
    """Loads a project module from its source alone: no ``__pycache__`` read or written."""

    def get_code(self, fullname: str) -> Any:
        return self.source_to_code(self.get_data(self.path), self.path)


class _ProjectFinder:
    """A ``sys.meta_path`` finder, for the import of a panel module only: modules (and packages) of
    ``panels_dir``, loaded by :class:`_SourceOnly`."""

    def __init__(self, panels_dir: Path) -> None:
        self.dirs = {str(panels_dir), str(panels_dir.resolve())}
        self.root = str(panels_dir)

    def _inside(self, path: str) -> bool:
        return any(path == d or path.startswith(os.path.join(d, "")) for d in self.dirs)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        places = [self.root] if path is None else [p for p in path if isinstance(p, str) and self._inside(p)]
        for place in places:
            spec = importlib.machinery.FileFinder(place, (_SourceOnly, [".py"])).find_spec(fullname, target)
            if spec is not None:
                return spec
        return None


@contextmanager
def imports_undone() -> Iterator[None]:
    """Leave ``sys.modules`` as it was for the project's modules: those :func:`load_module` imported
    inside the block (``composer_panels.*`` and what they imported from ``panels/``) are taken out at
    its end, and any that :func:`forget_changed_modules` took out are put back. What else was imported
    (numpy, matplotlib's backends, a panel's own ``import scipy``) stays, as after any import.

    For a build in the user's process (``composer.build``): the next build imports the project's
    modules again (a few ms; their source is compiled, no ``.pyc``).
    """
    before = dict(sys.modules)
    try:
        yield
    finally:
        for name, mod in list(sys.modules.items()):
            if before.get(name) is not mod and isinstance(getattr(mod, "__loader__", None), _SourceOnly):
                del sys.modules[name]
                _IMPORTED.pop(getattr(mod, "__file__", None) or "", None)
        for name, mod in before.items():
            if name not in sys.modules and isinstance(getattr(mod, "__loader__", None), _SourceOnly):
                sys.modules[name] = mod


#: source file -> sha256 of its bytes when composer (or a panel module) imported it (None: unreadable).
_IMPORTED: dict[str, str | None] = {}


def _project_modules(panels_dir: Path) -> dict[str, str]:
    """Module name -> file of the ``sys.modules`` entries whose file lies in ``panels_dir`` (panel
    modules and their project imports)."""
    prefixes = tuple({os.path.join(str(panels_dir), ""), os.path.join(str(panels_dir.resolve()), "")})
    found = {}
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None)
        if isinstance(file, str) and file.startswith(prefixes):
            found[name] = file
    return found


def _digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _remember_sources(panels_dir: Path) -> None:
    for file in _project_modules(panels_dir).values():
        _IMPORTED.setdefault(file, _digest(file))


def forget_changed_modules(panels_dir: Path) -> bool:
    """Forget imported project modules that are stale for ``panels_dir``.

    A long-lived process (``compose --watch``, a notebook, a test session)
    would otherwise keep running the old code of an edited panel module or of
    a project module it imports, or, having built another project before,
    the other project's module of the same name (``import helpers`` finds
    the one already in ``sys.modules``). So:

    - every module imported from another project's ``panels/`` is forgotten,
      and so is a module of this project imported after composer last looked
      (by a renderer, at render time): its source was never hashed;
    - when a file of this project's imported modules changed, all of them
      are forgotten (modules hold each other's old objects). Their next
      import compiles the source (:func:`load_module`): a ``.pyc``, which
      Python trusts when its source has the same mtime second and size (an
      edit of one digit can keep both), is never read.

    Returns:
        True when modules were forgotten.
    """
    here = _project_modules(panels_dir)
    elsewhere = {name: file for name, mod in list(sys.modules.items())
                 if isinstance(file := getattr(mod, "__file__", None), str) and file in _IMPORTED and name not in here}
    changed = [file for file in here.values() if file in _IMPORTED and _digest(file) != _IMPORTED[file]]
    # a project module imported later (inside a renderer) was never hashed: it cannot be trusted either
    unknown = {name: file for name, file in here.items() if file not in _IMPORTED}
    stale = {**elsewhere, **unknown, **(here if changed else {})}
    if not stale:
        return False
    for name, file in stale.items():
        del sys.modules[name]
        _IMPORTED.pop(file, None)
    importlib.invalidate_caches()
    return True


def find_renderer(module: ModuleType, function: str, *, file: str, key: str) -> Callable[..., Any]:
    """``getattr(module, function)``.

    Raises:
        LayoutError: no such function, or ``values`` (a module's ``values()`` fills text fields; it
            draws no panel): names the closest function and lists the module's renderers (its public
            functions but ``values``).
    """
    func = getattr(module, function, None)
    source = Path(module.__file__).name if module.__file__ else module.__name__
    names = sorted(n for n, v in vars(module).items() if inspect.isfunction(v) and v.__module__ == module.__name__
                   and not n.startswith("_") and n != "values")
    if function == "values" and callable(func):
        raise LayoutError(f"values() in {source} fills text fields; it is not a panel renderer; renderers are "
                          f"{', '.join(names) or '(none)'}", file=file, key=key)
    if not callable(func):
        raise LayoutError(f"function {function!r} not found in {source}" + did_you_mean(function, names)
                          + f"; functions are {', '.join(names) or '(none)'}", file=file, key=key)
    return func


def accepted(func: Callable[..., Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """The subset of ``params`` that ``func`` accepts as keywords (all with ``**kwargs``)."""
    sig = inspect.signature(func)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(params)
    return {k: v for k, v in params.items() if k in sig.parameters}


def call_params(func: Callable[..., Any], panel: Panel, spec: FigureSpec, *, file: str | None = None
                ) -> dict[str, Any]:
    """The keyword arguments a renderer is called with: the figure's shared params it
    accepts, ``colors`` (the palette) if it accepts that, then the panel's own params.

    Raises:
        PanelError: a panel param the function does not take (a misspelt
            ``binz``; names the closest one and lists those it takes), or a
            parameter without a default that nothing gives.
    """
    shared = {**spec.params, "colors": dict(spec.colors)}
    params = {**accepted(func, shared), **panel.params}
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):  # a builtin or C function: let the call itself complain
        return params
    positional = [p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) < 2 and not any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values()):
        raise PanelError(f"panel {panel.name!r}: {panel.source} takes {len(positional)} positional "
                         f"argument{'s' * (len(positional) != 1)} ({', '.join(p.name for p in positional) or 'none'}); "
                         "a renderer is def NAME(fig, data, **params): the matplotlib Figure to draw on, and the "
                         "figure's data", file=file, key=f"panels.{panel.name}.{panel.kind}")
    takes = [p for p in list(sig.parameters.values())[2:] if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    names = [p.name for p in takes]
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        own = [n for n in names if n != "colors"]  # colors: the palette, which composer gives
        for name in panel.params:
            if name not in names:
                raise PanelError(f"panel {panel.name!r}: {panel.source} takes no parameter {name!r}"
                                 + did_you_mean(name, own)
                                 + f"; it takes {', '.join(own) or 'none besides fig and data'}"
                                 + ("; colors, the palette, is given by composer" if "colors" in names else ""),
                                 file=file, key=f"{panel.key}.params.{name}")
    for p in takes:
        if p.default is p.empty and p.name not in params:
            raise PanelError(f"panel {panel.name!r}: {panel.source} needs parameter {p.name!r}; give it in "
                             f"params = {{ {p.name} = ... }} or [figure.params]", file=file, key=f"{panel.key}.params")
    return params


def prepare_fork() -> None:
    """Import in this process what every worker needs, so a forked worker need not.

    Imports matplotlib's Figure and SVG backend and loads the default font, once
    (a worker's imports are lost when it exits).
    """
    import matplotlib.backends.backend_agg  # noqa: F401 - pyplot's backend in a renderer (internals.pyplot_on)
    import matplotlib.backends.backend_svg  # noqa: F401 - savefig(format="svg") imports it lazily
    import matplotlib.figure  # noqa: F401
    import matplotlib.pyplot  # noqa: F401 - a renderer may draw with pyplot
    from matplotlib import font_manager

    font_manager.get_font(font_manager.findfont(font_manager.FontProperties()))


def user_dir(func: Callable[..., Any]) -> Path | None:
    """The folder of the renderer's source file (None for a callable without one)."""
    try:
        return Path(inspect.getfile(func)).parent
    except TypeError:
        try:
            return Path(inspect.getfile(type(func))).parent
        except TypeError:
            return None


def describe(exc: BaseException, user_dir: Path | None) -> str:
    """``ZeroDivisionError: division by zero (at volume_kv.py:12 in rgb: x = 1 / 0)``.

    Names the innermost traceback frame inside ``user_dir`` (the panels
    folder): the line of the user's own code that failed. A module that one of composer's optional
    extras installs and is missing says which (:func:`composer.kinds.extras.install_hint`).
    """
    frames = frames_of(exc)
    text = exception_text(exc)
    if isinstance(exc, MissingKey):  # a data column's KeyError, as the user's code sees it
        text = "KeyError" + text[len(type(exc).__name__):]
    if isinstance(exc, ModuleNotFoundError):  # plotnine, seaborn... of an extra not installed: what to install
        text += install_hint(exc.name)
    return f"{text}{where(frames, user_dir)}"
