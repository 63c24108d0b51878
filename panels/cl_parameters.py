"""Where the parameters live (seed: compression_ladder_figures.py, fig_parameters).

Two cuts in sequence, depth first, then vocabulary, as stacked bars of the
embedding table and the layer stack with the embedding's share printed in each
bar. Data: ``data/compression_ladder/compression_ladder.csv`` (columns cut,
layers, vocab, parameters, embedding_parameters, shipped; example data).
"""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Patch


def _rows(data, cut):
    """The rows of one cut, as a dict of arrays in file order."""
    keep = data["cut"] == cut
    if not keep.any():
        raise KeyError(f"no rows with cut == {cut!r} in the data")
    return {k: v[keep] for k, v in data.items()}


def _stacked(ax, labels, rows, colors, xlabel):
    total = rows["parameters"] / 1e6
    emb = rows["embedding_parameters"] / 1e6
    x = np.arange(len(labels))
    ax.bar(x, emb, width=0.62, color=colors["root"], zorder=3)
    ax.bar(x, total - emb, bottom=emb, width=0.62, color=colors["stack"], zorder=3)
    for i, (t, e) in enumerate(zip(total, emb)):
        ax.text(i, t + total.max() * 0.03, f"{t:,.0f}M", ha="center", va="bottom", fontsize=6.5,
                color=colors["ink"], fontweight="bold")
        # the share sits inside the embedding bar, or just above it when the bar is too short to hold it
        y = e / 2 if e > 0.08 * total.max() else e + 0.045 * total.max()
        ax.text(i, y, f"{e / t:.0%}", ha="center", va="center", fontsize=6.5, color="white", fontweight="bold")
    ax.set_xticks(x, labels)
    for tick, shipped in zip(ax.get_xticklabels(), rows["shipped"]):
        if shipped:
            tick.set_color(colors["root"])
            tick.set_fontweight("bold")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("parameters (millions)")
    ax.set_ylim(0, total.max() * 1.2)
    return x, total


def depth_cut(fig, data, colors):
    rows = _rows(data, "depth")
    ax = fig.add_subplot()
    _stacked(ax, [f"{n:.0f}L" for n in rows["layers"]], rows, colors,
             f"layers kept (vocabulary held at {rows['vocab'][0]:,.0f})")
    ax.legend(handles=[Patch(color=colors["root"], label="embedding table"),
                       Patch(color=colors["stack"], label="layer stack")], loc="upper right")
    fig.tight_layout(pad=0.3)


def vocabulary_cut(fig, data, colors):
    """Returns the data anchor ``root``: the top of the shipped model's bar."""
    rows = _rows(data, "vocabulary")
    ax = fig.add_subplot()
    x, total = _stacked(ax, [f"{v:,.0f}" for v in rows["vocab"]], rows, colors,
                        f"vocabulary entries kept (depth held at {rows['layers'][0]:.0f} layers)")
    fig.tight_layout(pad=0.3)
    i = int(np.flatnonzero(rows["shipped"])[0])
    return {"root": (ax, x[i], total[i] + total.max() * 0.1)}  # just above the bar's value label


def values(data):
    """Footer and title numbers, from the table."""
    depth, vocab = _rows(data, "depth"), _rows(data, "vocabulary")
    share = lambda rows, i: float(rows["embedding_parameters"][i] / rows["parameters"][i])  # noqa: E731
    root = int(np.flatnonzero(vocab["shipped"])[0])
    stack = depth["parameters"] - depth["embedding_parameters"]
    return {
        "layers_from": int(depth["layers"][0]), "layers_to": int(depth["layers"][-1]),
        "stack_lost": float(1 - stack[-1] / stack[0]),
        "vocab_from": int(vocab["vocab"][0]), "vocab_root": int(vocab["vocab"][root]),
        "share_teacher": share(depth, 0), "share_depth_cut": share(depth, -1), "share_root": share(vocab, root),
        "hidden": int(depth["embedding_parameters"][0] // depth["vocab"][0]),
    }
