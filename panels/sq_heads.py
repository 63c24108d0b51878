"""SpectralQuant per-head error maps: one layer x query-head heatmap per rotate-then-quantize arm.

Reads ``data/spectralquant/head_error.csv`` (example data, see ``data/make_gallery_data.py``): one row
per (layer, head) with a column per arm. Every map is drawn on one colour scale, the figure's shared
params ``vmin``/``vmax`` on a log norm, so the layout's ``[[colorbar]]`` can show it once for all of
them; the maps draw no colorbar and no axis titles of their own (the layout's shared titles name the
axes).
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import LogNorm

#: the colormap of every map (perceptually uniform, readable under colour-vision deficiency)
CMAP = "viridis"


def head_error(fig, data, arm, vmin, vmax, yticks=True):
    """The relative attention-output error of ``arm`` (a column of the CSV) per layer (y, 0 at the
    bottom) and query head (x), on ``LogNorm(vmin, vmax)``; KV groups of 7 heads marked by thin lines."""
    layers = data["layer"].astype(int)
    heads = data["head"].astype(int)
    grid = np.full((layers.max() + 1, heads.max() + 1), np.nan)
    grid[layers, heads] = data[arm]
    ax = fig.add_subplot()
    ax.imshow(grid, cmap=CMAP, norm=LogNorm(vmin=vmin, vmax=vmax), origin="lower", aspect="auto",
              interpolation="nearest")
    for edge in range(7, grid.shape[1], 7):  # GQA: 7 query heads share a KV head
        ax.axvline(edge - 0.5, color="white", lw=0.5, alpha=0.8)
    ax.set_xticks([0, 7, 14, 21, 27])
    ax.set_yticks([0, 9, 18, 27] if yticks else [])
    ax.tick_params(length=2)
    fig.tight_layout(pad=0.3)
