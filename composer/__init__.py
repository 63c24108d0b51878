"""composer: multi-panel scientific figures from a layout file and panel functions.

Pipeline, one module per stage: :mod:`~composer.layout` (load) ->
:mod:`~composer.geometry` -> :mod:`~composer.render` ->
:mod:`~composer.fragment` (import) -> :mod:`~composer.draw` ->
:mod:`~composer.svgio` (write) -> :mod:`~composer.rasterize`;
:mod:`~composer.build` runs them and :mod:`~composer.cli` is the command.
"""

__version__ = "0.1.0"

from .errors import ComposerError  # noqa: E402

__all__ = ["ComposerError", "__version__", "build"]


def build(name, **kwargs):
    """Build a figure; see :func:`composer.build.build`."""
    from .build import build as _build

    return _build(name, **kwargs)
