"""A plotnine ``ggplot`` returned by a renderer, drawn as the panel's matplotlib figure.

``function(fig, data, **params)`` returns ``p`` (a ``plotnine.ggplot``) or ``(p, {name: (x, y)})``.
:class:`PlotnineResult` draws ``p + theme(...)`` with:

- ``figure_size`` the panel's box (inches = pt / 72) and ``dpi = 72`` (one display unit is one pt, as every
  panel of composer);
- the figure's font family (``[figure] font``) on every text, and the figure's font size
  (``[figure] font_size``) as the theme's **base size**: every text size of the theme is scaled by
  ``font_size / base``, ``base`` being the size of the theme's root ``text`` element (the ``base_size`` of
  every complete plotnine theme: 11 unless given), so the result is the theme drawn with
  ``base_size = font_size``, its axis text 0.8 of it as in ggplot2's ``theme_grey`` (Wickham, *ggplot2*,
  3rd ed., section 17.2). A theme made with ``base_size`` equal to the figure's font size is drawn
  exactly as written.

plotnine makes its own Figure (``plt.figure()``, caught by :func:`composer.mpl.internals.pyplot_on`);
the render stage saves it as any matplotlib panel, so its plot area is the union of its axes (its
facet panels; legends are not axes) and ``[[align]]`` aligns it: plotnine's layout is run once at the box's
size and then kept (its layout engine removed), so moved axes stay where they are moved; its axis titles,
plot title and caption (figure texts) move with the plot area's edges, its legend stays where plotnine put it.

Data anchors: ``(x, y)`` in the data units of the plot's first panel (its first facet), or
``(i, x, y)`` for facet panel ``i`` (0 first, in plotnine's order: row by row). A value on a transformed
scale (``scale_x_log10``) is given as data, untransformed; a category on a discrete scale by its
name (``("b", 2.0)``), or a number as the position (the categories sit at 1, 2, 3...).
"""

from __future__ import annotations

from typing import Any

from composer.stages.results.base import InFigure, ResultKind, Target, is_instance


class PlotnineResult(ResultKind):
    """A ``plotnine.ggplot`` (see the module docstring)."""

    name = "plotnine"
    what = "plotnine ggplot"

    def owns(self, obj: Any) -> bool:
        """A ``plotnine.ggplot`` (by its class, without importing plotnine)."""
        return is_instance(obj, "plotnine", "ggplot")

    def draw(self, obj: Any, target: Target) -> InFigure:
        """``obj`` drawn at the box with the figure's fonts (module docstring); anchors mapped to its axes.

        Raises:
            PanelError: plotnine is missing (what to install), or an anchor is not ``(x, y)`` /
                ``(i, x, y)`` of a panel the plot has.
        """
        try:
            from plotnine import theme
        except ImportError:
            raise target.missing("plotnine") from None
        width_pt, height_pt = target.size_pt
        plot = obj + theme(figure_size=(width_pt / 72.0, height_pt / 72.0), dpi=72)
        plot = plot + fonts_theme(plot.theme, target.font_families, target.font_size_pt)
        fig = plot.draw(show=False)
        fig.set_size_inches(width_pt / 72.0, height_pt / 72.0)
        # plotnine's layout engine places axes, legends and titles each time the figure is drawn; run it
        # once at the box's size and keep what it placed, so [[align]] and aspect_of = "plot" may move the
        # axes afterwards as they move a matplotlib panel's
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
        return InFigure(fig=fig, anchors=_anchors(plot, target), follow=tuple(fig.texts))


def fonts_theme(current: Any, families: list[str], size_pt: float) -> Any:
    """The partial plotnine theme that puts ``current``'s texts in ``families`` with base size ``size_pt``:
    each ``element_text`` size scaled by ``size_pt / base`` (``base``: the root ``text`` size, module docstring),
    the family set on the root ``text`` and on every text that names its own."""
    from plotnine import element_text, theme

    root = current.themeables.get("text")
    base = root.properties.get("size") if root is not None else None
    scale = size_pt / float(base) if isinstance(base, (int, float)) and base > 0 else 1.0
    family: Any = families if len(families) > 1 else families[0]
    texts: dict[str, Any] = {"text": element_text(size=size_pt, family=family)}
    for name, themeable in current.themeables.items():
        if name == "text" or type(themeable.theme_element).__name__ != "element_text":
            continue
        props = themeable.properties
        changed: dict[str, Any] = {}
        if isinstance(props.get("size"), (int, float)):
            changed["size"] = props["size"] * scale
        if "family" in props:
            changed["family"] = family
        if changed:
            texts[name] = element_text(**changed)
    return theme(**texts)


def _anchors(plot: Any, target: Target) -> dict[str, Any] | None:
    """The anchors given beside the plot as matplotlib's ``{name: (ax, x, y)}``, in the axes' coordinates
    (each value through its panel's scale: a transformed or discrete scale maps it)."""
    if not target.anchors:
        return None
    axes = list(plot.axs)
    layout = plot._build_objs.layout  # plotnine's built layout: the panels' trained scales
    usage = "a plotnine renderer returns (ggplot, {name: (x, y)}) or {name: (i, x, y)} for facet panel i"
    out: dict[str, Any] = {}
    for name, spec in target.anchors.items():
        if not (isinstance(spec, tuple) and len(spec) in (2, 3)):
            raise target.error(f"anchor {name!r}: {spec!r} is not (x, y) or (i, x, y); {usage}")
        index, x, y = (0, *spec) if len(spec) == 2 else spec
        if not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(axes)):
            raise target.error(f"anchor {name!r}: panel {index!r} is not one of the plot's panels 0 to "
                               f"{len(axes) - 1}; {usage}")
        out[name] = (axes[index], _position(layout, index, "x", x, target, name),
                     _position(layout, index, "y", y, target, name))
    return out


def _position(layout: Any, index: int, axis: str, value: Any, target: Target, name: str) -> float:
    """``value`` of panel ``index``'s ``axis`` scale where its axes draw it (a continuous scale's transform,
    a discrete scale's position of a category)."""
    panel = layout.layout.iloc[index]
    scales = layout.panel_scales_x if axis == "x" else layout.panel_scales_y
    scale = scales[int(panel[f"SCALE_{axis.upper()}"]) - 1]
    if is_instance(scale, "plotnine", "scale_discrete"):  # categories at 1, 2, 3... in the scale's order
        categories = [str(c) for c in scale.final_limits]
        if isinstance(value, str):
            if value not in categories:
                raise target.error(f"anchor {name!r}: {axis} = {value!r} is not a category of the plot's {axis} "
                                   f"scale ({', '.join(categories)})")
            return float(categories.index(value) + 1)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise target.error(f"anchor {name!r}: {axis} = {value!r} is neither a category of the plot's {axis} "
                               f"scale ({', '.join(categories)}) nor a position (1 to {len(categories)})")
        return float(value)
    try:
        return float(scale.transform([value])[0])
    except (TypeError, ValueError) as exc:
        raise target.error(f"anchor {name!r}: {axis} = {value!r} is not a value of the plot's {axis} scale "
                           f"({exc})") from None
