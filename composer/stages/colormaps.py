"""The colour mappings of a drawn panel, recorded for a shared ``[[colorbar]]`` (:mod:`composer.stages.guides`).

:func:`color_mappings` reads, in the panel's worker, how each of a Figure's plots maps values to
colours (colormap, norm and its parameters, contour levels) as plain data, :class:`ColorMapping`,
which pickles and keeps in the panel cache; the colorbar guide compares the mappings of the panels
it serves and redraws one of the norms in :data:`NORMS`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

#: ``[[colorbar]]``: the matplotlib norms a colour mapping is recorded (and redrawn) by, class name ->
#: (constructor keyword, how to read it off the norm); their signatures in ``matplotlib.colors``.
_NORM_PARAMS: dict[str, tuple[tuple[str, Callable[[Any], Any]], ...]] = {
    "Normalize": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "LogNorm": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "NoNorm": (("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "PowerNorm": (("gamma", lambda n: n.gamma), ("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax),
                  ("clip", lambda n: n.clip)),
    "AsinhNorm": (("linear_width", lambda n: n.linear_width), ("vmin", lambda n: n.vmin),
                  ("vmax", lambda n: n.vmax), ("clip", lambda n: n.clip)),
    "TwoSlopeNorm": (("vcenter", lambda n: n.vcenter), ("vmin", lambda n: n.vmin), ("vmax", lambda n: n.vmax)),
    "CenteredNorm": (("vcenter", lambda n: n.vcenter), ("halfrange", lambda n: n.halfrange),
                     ("clip", lambda n: n.clip)),
    # SymLogNorm is left out: its linscale and base are private (Normalize._scale)
    "BoundaryNorm": (("boundaries", lambda n: [float(b) for b in n.boundaries]), ("ncolors", lambda n: n.Ncmap),
                     ("clip", lambda n: n.clip), ("extend", lambda n: n.extend)),
}


#: the norms a shared colorbar redraws (``[[colorbar]]``: the others are an error naming these)
NORMS = tuple(_NORM_PARAMS)


#: ``extend`` values of a colorbar, and how two panels' combine (the shared bar shows both ends asked)
EXTENDS = ("neither", "min", "max", "both")


def _plain(value: Any) -> Any:
    """A norm parameter as plain data: bool, str, None as they are, integers (``ncolors``) as int, other
    numbers as float, sequences as tuples (JSON's lists read back as tuples: :meth:`ColorMapping.from_json`)."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_plain(v) for v in value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


@dataclass(frozen=True)
class ColorMapping:
    """How one matplotlib ScalarMappable of a panel maps values to colours (for ``[[colorbar]]``).

    Recorded in the panel's worker (:func:`color_mappings`), so it is plain data: it pickles, and
    :meth:`to_json` / :meth:`from_json` keep it in the panel cache.

    Attributes:
        cmap: the colormap's name (``Colormap.name``), for messages.
        colors: its lookup table, ``Colormap.N`` entries as ``#rrggbbaa`` (two colormaps of one name
            but other colours are different mappings).
        under, over, bad: its colours below ``vmin``, above ``vmax`` and for masked values, ``#rrggbbaa``.
        norm: the ``matplotlib.colors`` norm class name (:data:`_NORM_PARAMS`; another class, e.g.
            ``FuncNorm``, is recorded by name with ``known = False`` and cannot be redrawn).
        params: the norm's constructor keywords and values, in its signature's order (limits
            ``vmin``/``vmax`` included, after autoscaling: as the panel drew them).
        known: ``norm`` is one of :data:`_NORM_PARAMS`.
        extend: the ends its own colorbar or contour set extends (:data:`EXTENDS`); not part of
            :meth:`same_as` (the shared bar extends every end any panel asks).
        boundaries, values: a filled contour set's levels (``ContourSet.levels``) and the value of each band
            between two (``ContourSet.cvalues``: their midpoints, or the colour's index when drawn with
            ``colors=``), as ``Colorbar`` draws a contour set; () otherwise.
        below, above: a filled contour set's band below its first level and above its last, when its ``extend``
            adds it: (its outer boundary, its value), as ``Colorbar`` draws them in the extension triangles
            (``ContourSet._levels``: +-1e250, 1e-250 on a log scale; ``cvalues``); () otherwise.
        alpha: the opacity the plot draws its colours with (``Artist.get_alpha``; 1.0 when it sets none), which
            the shared bar is drawn with (``Colorbar(alpha=...)``, as matplotlib's own colorbar takes its
            mappable's); None for an array of alphas (one per value: ``imshow(..., alpha=array)``), which
            matplotlib's colorbar draws opaque (``Colorbar.set_alpha``). Part of :meth:`differs`.
    """

    cmap: str
    colors: tuple[str, ...]
    under: str
    over: str
    bad: str
    norm: str
    params: tuple[tuple[str, Any], ...]
    known: bool = True
    extend: str = "neither"
    boundaries: tuple[float, ...] = ()
    values: tuple[float, ...] = ()
    below: tuple[float, ...] = ()
    above: tuple[float, ...] = ()
    alpha: float | None = 1.0

    def differs(self, other: ColorMapping) -> tuple[str, str, str] | None:
        """The first thing two mappings differ in, as (what, this one's value, the other's), or None when
        they map every value to the same colour: same colours (lookup table, under/over/bad), same norm
        class and parameters (numbers equal within a relative 1e-9: float noise), same contour levels, same
        ``alpha`` (``"alpha"``; an array of alphas is said ``"per value"``)."""
        if self.colors != other.colors or (self.under, self.over, self.bad) != (other.under, other.over, other.bad):
            mine, theirs = self.cmap, other.cmap
            if mine == theirs:
                mine, theirs = f"{mine} (its colours)", f"{theirs} (other colours)"
            return "colormap", mine, theirs
        if self.norm != other.norm:
            return "norm", self.norm, other.norm
        for (name, a), (_, b) in zip(self.params, other.params):
            if not _close(a, b):
                return name, _say(a), _say(b)
        if not _close(list(self.boundaries), list(other.boundaries)):
            return "contour levels", _say(list(self.boundaries)), _say(list(other.boundaries))
        if not _close(self.alpha, other.alpha):
            return "alpha", _say_alpha(self.alpha), _say_alpha(other.alpha)
        return None

    def to_json(self) -> dict[str, Any]:
        """The mapping as JSON data (:meth:`from_json` reads it back equal)."""
        return {"cmap": self.cmap, "colors": list(self.colors), "under": self.under, "over": self.over,
                "bad": self.bad, "norm": self.norm, "params": [[k, v] for k, v in self.params],
                "known": self.known, "extend": self.extend, "boundaries": list(self.boundaries),
                "values": list(self.values), "below": list(self.below), "above": list(self.above),
                "alpha": self.alpha}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ColorMapping:
        """The mapping :meth:`to_json` wrote. Raises KeyError, TypeError, ValueError on other data."""
        return cls(cmap=str(data["cmap"]), colors=tuple(str(c) for c in data["colors"]), under=str(data["under"]),
                   over=str(data["over"]), bad=str(data["bad"]), norm=str(data["norm"]),
                   params=tuple((str(k), tuple(v) if isinstance(v, list) else v) for k, v in data["params"]),
                   known=bool(data["known"]), extend=str(data["extend"]),
                   boundaries=tuple(float(b) for b in data["boundaries"]),
                   values=tuple(float(v) for v in data["values"]),
                   below=tuple(float(v) for v in data.get("below", ())),
                   above=tuple(float(v) for v in data.get("above", ())),
                   alpha=None if data.get("alpha", 1.0) is None else float(data.get("alpha", 1.0)))


def _close(a: Any, b: Any) -> bool:
    """Equal parameters: numbers within a relative 1e-9 (and NaN to NaN), sequences item by item."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
            return a == b
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    return bool(a == b)


def _say(value: Any) -> str:
    """A parameter value for a message: numbers with 6 significant digits."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_say(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value) if isinstance(value, str) else str(value)


def _say_alpha(alpha: float | None) -> str:
    """An alpha for a message: ``0.5``, or ``per value`` for an array of alphas."""
    return "per value" if alpha is None else f"{alpha:g}"


def _alpha(artist: Any) -> float | None:
    """The opacity ``artist`` draws its colours with: its scalar ``get_alpha()`` (1.0 when None), None for an
    array of alphas (:attr:`ColorMapping.alpha`)."""
    import numpy as np

    alpha = artist.get_alpha() if hasattr(artist, "get_alpha") else None
    if alpha is None:
        return 1.0
    if np.ndim(alpha) != 0:
        return None
    return round(float(alpha), 6)


def _maps_values(artist: Any) -> bool:
    """A ScalarMappable whose colours come from values through its colormap: it holds an array of at least
    one finite, unmasked value, and is not an image of RGB(A) pixels (``imshow`` of an (M, N, 3|4) array
    shows the pixels as they are: no colormap, no norm)."""
    import numpy as np

    values = artist.get_array()
    if values is None:
        return False
    data = np.ma.masked_invalid(np.ma.asarray(values, dtype=float)) if np.size(values) else np.ma.asarray([])
    if data.ndim == 3:
        return False
    return bool(data.count())


def _fixed_colours(contour_set: Any) -> bool:
    """A contour set that maps no values to colours: iso-lines drawn in the colours given (``contour(...,
    colors="k")``: the colours name lines, they are no scale), or any contour set whose levels are all drawn in
    one colour. A filled one given several ``colors`` keeps them as its bands' scale (``fig.colorbar`` draws it)."""
    import numpy as np

    if contour_set.colors is not None and not contour_set.filled:
        return True
    drawn = np.asarray(contour_set.to_rgba(np.asarray(contour_set.cvalues)))  # with colors=: indices (NoNorm)
    return len(drawn) > 0 and bool((drawn == drawn[0]).all())


def color_mappings(fig: Any) -> tuple[ColorMapping, ...]:
    """The colour mappings of a drawn Figure's plots, one per distinct mapping, in drawing order: every
    ScalarMappable that maps values to colours (:func:`_maps_values`: images, meshes, scatters and
    contour sets coloured by at least one finite value; not an RGB(A) image, an all-NaN or fully masked
    array, an empty scatter) in its visible non-colorbar axes (:func:`composer.mpl.internals.is_colorbar`),
    and the figure's own images (``fig.figimage``). The colours of a colorbar's own axes are left out.

    ``extend``: the panel's own colorbar's for that mappable, else a contour set's, else a
    ``BoundaryNorm``'s, else ``"neither"``. Collected for ``[[colorbar]]`` by
    :func:`composer.stages.guides.collect_colorbar` in the panel's worker.
    """
    import numpy as np
    from matplotlib import colors as mcolors
    from matplotlib.cm import ScalarMappable
    from matplotlib.contour import ContourSet

    from composer.mpl.internals import contour_levels, is_colorbar

    def hexa(rgba: Any) -> str:
        return str(mcolors.to_hex(rgba, keep_alpha=True))

    found: list[ColorMapping] = []
    artists: list[Any] = list(fig.images)
    for ax in fig.axes:
        if ax.get_visible() and not is_colorbar(ax):
            artists += [a for a in ax.get_children() if isinstance(a, ScalarMappable)]
    for artist in artists:
        if not isinstance(artist, ScalarMappable) or not cast(Any, artist).get_visible() or not _maps_values(artist):
            continue
        if isinstance(artist, ContourSet) and _fixed_colours(artist):
            continue
        cmap, norm = artist.get_cmap(), artist.norm
        name = type(norm).__name__
        known = name in _NORM_PARAMS and type(norm) is getattr(mcolors, name, None)
        params = tuple((key, _plain(read(norm))) for key, read in _NORM_PARAMS[name]) if known else \
            (("vmin", _plain(norm.vmin)), ("vmax", _plain(norm.vmax)))
        own = getattr(artist, "colorbar", None)
        if own is not None:
            extend = str(own.extend)
        elif isinstance(artist, ContourSet):
            extend = str(artist.extend)
        else:
            extend = str(getattr(norm, "extend", "neither"))
        filled = artist if isinstance(artist, ContourSet) and artist.filled else None
        levels = list(filled.levels) if filled is not None else []
        values: list[float] = []
        below: tuple[float, ...] = ()
        above: tuple[float, ...] = ()
        if filled is not None:
            bounds, cvalues = contour_levels(filled), [float(v) for v in cast(Any, filled).cvalues]
            low, high = int(filled.extend in ("min", "both")), int(filled.extend in ("max", "both"))
            values = cvalues[low:len(cvalues) - high]
            below = (bounds[0], cvalues[0]) if low else ()
            above = (bounds[-1], cvalues[-1]) if high else ()
        mapping = ColorMapping(
            cmap=str(cmap.name), colors=tuple(hexa(c) for c in cmap(np.arange(cmap.N))),
            under=hexa(cmap.get_under()), over=hexa(cmap.get_over()), bad=hexa(cmap.get_bad()),
            norm=name, params=params, known=known, extend=extend if extend in EXTENDS else "neither",
            boundaries=tuple(float(b) for b in levels), values=tuple(values), below=below, above=above,
            alpha=_alpha(artist))
        if not any(m.differs(mapping) is None and m.extend == mapping.extend for m in found):
            found.append(mapping)
    return tuple(found)
