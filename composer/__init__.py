"""composer: multi-panel scientific figures from a layout file and panel functions.

Pipeline, one module per stage: :mod:`~composer.layout` (load) ->
:mod:`~composer.geometry` -> :mod:`~composer.render` ->
:mod:`~composer.fragment` (import) -> :mod:`~composer.draw` ->
:mod:`~composer.svgio` (write) -> :mod:`~composer.export` (PDF, PNG);
:mod:`~composer.build` runs them and :mod:`~composer.cli` is the command.
"""

__version__ = "0.1.0"

from .errors import ComposerError  # noqa: E402

__all__ = ["ComposerError", "__version__", "build", "load"]


def build_figure(figure, **kwargs):
    """Build a figure: a name (``layouts/NAME.toml``, see :func:`composer.build.build`) or a
    :class:`composer.api.Figure` (see :meth:`composer.api.Figure.build`).

    Also reachable as ``composer.build(...)``: importing the submodule
    :mod:`composer.build` rebinds that name to the module, which is therefore
    callable and calls this function.
    """
    if isinstance(figure, str):
        from .build import build as _build

        return _build(figure, **kwargs)
    return figure.build(**kwargs)


build = build_figure


def load(name, *, root="."):
    """The figure ``layouts/NAME.toml`` of the project at ``root`` as a :class:`composer.api.Figure`
    (shows inline in a notebook); see :func:`composer.api.load`."""
    from .api import load as _load

    return _load(name, root=root)
