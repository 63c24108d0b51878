"""Panels of the test project: small, fast, and each with something to check."""

import numpy as np


def line(fig, data, n=10):
    """A line plot with 7 pt tick labels and a data anchor at the last point."""
    ax = fig.add_subplot()
    x = np.arange(n)
    ax.plot(x, data["y"][:n], "o-", color="#1f77b4")
    ax.set_xlabel("x")
    ax.set_ylabel("$x^2$")
    ax.tick_params(labelsize=7)
    fig.subplots_adjust(left=0.22, bottom=0.2, right=0.95, top=0.95)
    return {"peak": (ax, n - 1, float(data["y"][n - 1]))}


def heat(fig, data):
    """A 4x4 heatmap filling its box exactly."""
    ax = fig.add_axes([0, 0, 1, 1])
    ax.imshow(np.arange(16).reshape(4, 4), interpolation="nearest", cmap="viridis")
    ax.set_axis_off()


def broken(fig, data):
    """A renderer that raises, for the error tests."""
    return 1 / 0


def values(data):
    """Text fields derived from the data."""
    return {"total": float(np.sum(data["y"]))}
