"""The optional extras of ``pyproject.toml`` whose libraries the user's own code imports.

A panel module that imports plotnine, seaborn, Altair or Plotly (to return their objects:
:mod:`composer.stages.results`) fails where it imports them when the extra is not installed; the
message of that ``ModuleNotFoundError`` then names what to install (:func:`install_hint`, read by
:func:`composer.stages.usercode.describe`). Standard library only, as every table of :mod:`composer.kinds`.

A new extra a user's code imports: one :class:`Extra` here, its line in ``pyproject.toml``.
"""

from __future__ import annotations

from dataclasses import dataclass

from composer.kinds import Registry


@dataclass(frozen=True)
class Extra:
    """One optional extra: ``pip install 'figure-composer[NAME]'``.

    Attributes:
        name: the extra's name in ``pyproject.toml`` (``"plots"``).
        modules: the top-level modules it installs that user code imports (``("plotnine", "seaborn")``).
    """

    name: str
    modules: tuple[str, ...]


#: the extras whose libraries a panel module may import
EXTRAS: Registry[Extra] = Registry("extra")
EXTRAS.add(Extra("plots", ("plotnine", "seaborn")))
EXTRAS.add(Extra("vega", ("altair", "vl_convert")))
EXTRAS.add(Extra("plotly", ("plotly", "kaleido")))


def install_hint(missing: str | None) -> str:
    """``"; composer's optional extra 'plots' installs it: pip install 'figure-composer[plots]'"`` for a
    top-level module an extra installs (``ModuleNotFoundError.name``: Python names the first module of a dotted
    import it could not find, so a missing ``seaborn.x`` of an installed seaborn gets no hint); ``""`` else."""
    for extra in EXTRAS:
        if missing in extra.modules:
            install = f"pip install 'figure-composer[{extra.name}]'"
            return f"; composer's optional extra {extra.name!r} installs it: {install}"
    return ""
