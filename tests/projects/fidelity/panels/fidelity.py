"""Panels of the print-fidelity fixture: each one something renderers get wrong.

Every panel is deterministic (no random state, data made from formulas).
"""

import numpy as np

#: columns (and rows) of the heatmaps: the 56 x 56 case of the issue.
N = 56


def stripes():
    """56 x 56 values: columns alternate 0 / 1, with a faint row ramp so no two rows are equal."""
    cols = np.indices((N, N))[1] % 2
    rows = np.linspace(0.0, 0.15, N)[:, None]
    return np.abs(cols - rows)


def heat(fig, data, *, cmap="gray"):
    """imshow(interpolation="none"): matplotlib embeds the 56 x 56 pixels as they are."""
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(stripes(), cmap=cmap, vmin=0, vmax=1, interpolation="none")
    ax.set_axis_off()


def mesh(fig, data):
    """pcolormesh of the same 56 x 56 cells, with a frame and ticks: vector cells seam, so composer rasterizes them."""
    ax = fig.add_axes([0.14, 0.12, 0.82, 0.82])
    ax.pcolormesh(stripes(), cmap="magma", vmin=0, vmax=1)
    ax.set_xticks([0, 28, 56])
    ax.set_yticks([0, 28, 56])
    ax.tick_params(labelsize=5, length=2, pad=1)


def surface(fig, data, *, n=60):
    """A dense opaque 3D surface (n x n quads), a classic source of hairline seams."""
    from mpl_toolkits.mplot3d import Axes3D  # noqa: F401

    ax = fig.add_axes([0, 0, 1, 1], projection="3d")
    x, y = np.meshgrid(np.linspace(-2, 2, n), np.linspace(-2, 2, n))
    z = np.exp(-(x ** 2 + y ** 2)) * np.cos(2 * x)
    ax.plot_surface(x, y, z, cmap="viridis", rstride=1, cstride=1, linewidth=0)
    ax.set_axis_off()
    ax.view_init(elev=30, azim=-60)


def plot(fig, data):
    """Axes with tick labels, a bold title, mathtext labels and a rotated note."""
    ax = fig.add_axes([0.26, 0.3, 0.7, 0.55])
    x = np.linspace(0, 1, 50)
    ax.plot(x, x ** 2, color="#1f77b4", lw=1)
    ax.set_xlabel(r"time $t_i$ (s)", fontsize=6)
    ax.set_ylabel(r"$\sum_k \alpha_k^2$", fontsize=6)
    ax.set_title("Bold title", fontsize=7, fontweight="bold")
    ax.text(0.1, 0.6, "  spaced", fontsize=6, rotation=20)
    ax.tick_params(labelsize=5)
    return {"end": (ax, 1.0, 1.0)}
