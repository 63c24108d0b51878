"""The plot-sources gallery figure (layouts/plot_sources.toml): one curve drawn by several plotting libraries,
each panel at its final size in the figure's font and size, their plot areas aligned by composer.

The curve is a formula, not data: the step response of a damped oscillator,
``y(t) = 1 - exp(-zeta w t) (cos(wd t) + zeta w / wd sin(wd t))`` with ``wd = w sqrt(1 - zeta^2)``
(Ogata, *Modern Control Engineering*, 5th ed., section 5-3), for ``w = 2`` rad/s and two damping ratios.
Each renderer returns its library's object and one data anchor, the first peak of the lighter damping, at
``t_p = pi / wd`` where ``y = 1 + exp(-zeta pi / sqrt(1 - zeta^2))`` (the same section's peak time and overshoot).
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pandas as pd

W = 2.0  # natural frequency, rad/s
DAMPING = (0.2, 0.5)
T = np.linspace(0.0, 8.0, 161)


def step(t: np.ndarray, zeta: float) -> np.ndarray:
    """The unit step response of a second-order system of damping ``zeta`` and natural frequency ``W``."""
    wd = W * math.sqrt(1 - zeta**2)
    return 1 - np.exp(-zeta * W * t) * (np.cos(wd * t) + zeta * W / wd * np.sin(wd * t))


def peak(zeta: float) -> tuple[float, float]:
    """(t_p, y(t_p)): the first peak of the step response."""
    root = math.sqrt(1 - zeta**2)
    return math.pi / (W * root), 1 + math.exp(-zeta * math.pi / root)


def curves() -> pd.DataFrame:
    """Both responses in long form: t, y, and the damping ratio as a label."""
    return pd.concat([pd.DataFrame({"t": T, "y": step(T, z), "damping": f"ζ = {z}"}) for z in DAMPING],
                     ignore_index=True)


def matplotlib_panel(fig, data, colors):
    """The curves drawn with matplotlib on the panel's figure."""
    ax = fig.subplots(gridspec_kw={"left": 0.2, "right": 0.97, "bottom": 0.2, "top": 0.97})
    for zeta, color in zip(DAMPING, (colors["accent"], colors["muted"])):
        ax.plot(T, step(T, zeta), color=color, lw=1, label=f"ζ = {zeta}")
    ax.set_xlim(0, 8)
    ax.set_ylim(0, 1.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("response")
    ax.legend(frameon=False, loc="lower right")
    return {"peak": (ax, *peak(DAMPING[0]))}


def plotnine_panel(fig, data, colors):
    """The curves as a ggplot (plotnine), which composer draws at the panel's size. Its theme's base size is
    the figure's font size (composer sets it in rcParams while the renderer runs); tick and legend text at
    the base size too, as matplotlib draws them."""
    from plotnine import (
        aes,
        element_blank,
        element_text,
        geom_line,
        ggplot,
        labs,
        scale_color_manual,
        scale_x_continuous,
        scale_y_continuous,
        theme,
        theme_bw,
    )

    size = matplotlib.rcParams["font.size"]
    plot = (ggplot(curves(), aes("t", "y", color="damping")) + geom_line(size=0.5)
            + scale_color_manual(values=[colors["accent"], colors["muted"]])
            + scale_x_continuous(limits=(0, 8), expand=(0, 0)) + scale_y_continuous(limits=(0, 1.8), expand=(0, 0))
            + labs(x="time (s)", y="response", color="")
            + theme_bw(base_size=size)
            + theme(axis_text=element_text(size=size), legend_text=element_text(size=size),
                    legend_title=element_blank(), legend_position=(0.97, 0.1), legend_background=element_blank(),
                    panel_grid_minor=element_blank()))
    return plot, {"peak": peak(DAMPING[0])}


def altair_panel(fig, data, colors):
    """The curves as an Altair chart, which composer draws at the panel's size through vl-convert (Vega-Lite),
    in the figure's font and size (Vega's px are CSS px: 1 px = 0.75 pt, so the 1 pt lines are 4/3 px). The
    ticks are those of the other panels (every 0.5, one decimal)."""
    import altair as alt

    ticks = [0.0, 0.5, 1.0, 1.5]
    line = alt.Chart(curves()).mark_line(strokeWidth=1 / 0.75, clip=True).encode(
        x=alt.X("t:Q", title="time (s)", scale=alt.Scale(domain=[0, 8], nice=False)),
        y=alt.Y("y:Q", title="response", scale=alt.Scale(domain=[0, 1.8], nice=False),
                axis=alt.Axis(values=ticks, format=".1f")),
        color=alt.Color("damping:N", title=None, scale=alt.Scale(range=[colors["accent"], colors["muted"]]),
                        legend=alt.Legend(orient="bottom-right")))
    chart = line.configure_axis(grid=False, domainColor="black", tickColor="black", titleFontWeight="normal")
    chart = chart.configure_view(stroke=None)
    return chart, {"peak": peak(DAMPING[0])}


def plotly_panel(fig, data, colors):
    """The curves as a Plotly figure, which composer draws at the panel's size through kaleido and Chromium,
    in the figure's font and size (its px are CSS px: 1 px = 0.75 pt, so the 1 pt lines are 4/3 px). The ticks
    are those of the other panels (every 0.5, one decimal)."""
    import plotly.graph_objects as go

    f = go.Figure()
    for zeta, color in zip(DAMPING, (colors["accent"], colors["muted"])):
        line = dict(color=color, width=1 / 0.75, simplify=False)  # 1 pt; every point drawn
        f.add_trace(go.Scatter(x=T, y=step(T, zeta), mode="lines", line=line, name=f"ζ = {zeta}"))
    f.update_layout(template="simple_white", legend=dict(x=0.97, y=0.03, xanchor="right", yanchor="bottom",
                                                         bgcolor="rgba(0,0,0,0)"))
    f.update_xaxes(range=[0, 8], dtick=2, title="time (s)")
    f.update_yaxes(range=[0, 1.8], dtick=0.5, tickformat=".1f", title="response")
    return f, {"peak": peak(DAMPING[0])}
