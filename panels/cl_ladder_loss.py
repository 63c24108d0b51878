"""The distillation ladder's own losses (seed: compression_ladder_figures.py, fig_ladder_loss).

Left: the three mean KD losses of every ladder stage, grouped bars with their
values. Right: total loss per layer removed, a line with annotated points.
Data: the ``depth`` rows of ``data/compression_ladder/compression_ladder.csv``
that have a ``kd_stage`` (example data).
"""
from __future__ import annotations

import numpy as np


def _stages(data):
    """Stage labels ("24 → 8"), layers removed, and the three loss columns as floats."""
    keep = (data["cut"] == "depth") & (data["kd_stage"] != "")
    if not keep.any():
        raise KeyError("no depth rows with a kd_stage in the data")
    layers = data["layers"][data["cut"] == "depth"]
    stages = [s.replace("to", " → ") for s in data["kd_stage"][keep]]
    removed = -np.diff(layers)
    losses = {k: data[k][keep].astype(float) for k in ("mean_interface_loss", "mean_total_loss", "mean_final_loss")}
    return stages, removed, losses


def stage_losses(fig, data, colors):
    stages, removed, losses = _stages(data)
    ax = fig.add_subplot()
    x = np.arange(len(stages))
    w = 0.26
    for off, key, color, label in ((-w, "mean_interface_loss", "root", "interface loss"),
                                   (0.0, "mean_total_loss", "green", "total loss"),
                                   (w, "mean_final_loss", "orange", "final-layer loss")):
        ax.bar(x + off, losses[key], width=w * 0.92, color=colors[color], zorder=3, label=label)
        for i, v in zip(x, losses[key]):
            ax.text(i + off, v + 0.004, f"{v:.3f}", ha="center", va="bottom", fontsize=5.5,
                    color=colors["ink"], fontweight="bold")
    ax.set_xticks(x, [f"{s}\n{d:.0f} layers removed" for s, d in zip(stages, removed)])
    ax.set_ylabel("mean KD loss over the distillation run")
    ax.set_ylim(0, losses["mean_interface_loss"].max() * 1.22)
    ax.legend(loc="upper right")
    fig.tight_layout(pad=0.3)


def per_layer(fig, data, colors):
    stages, removed, losses = _stages(data)
    per = losses["mean_total_loss"] / removed
    ax = fig.add_subplot()
    x = np.arange(len(stages))
    ax.plot(x, per, "-o", color=colors["root"], lw=1.6, ms=6, mec="white", mew=1.0, zorder=4)
    for i, v in zip(x, per):
        ax.annotate(f"{v:.4f}", (i, v), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=6.5,
                    color=colors["ink"], fontweight="bold")
    ax.set_xticks(x, stages)
    ax.set_xlim(-0.45, len(stages) - 0.55)
    ax.set_ylabel("total loss per layer removed")
    ax.set_ylim(0, per.max() * 1.3)
    fig.tight_layout(pad=0.3)


def values(data):
    stages, removed, losses = _stages(data)
    total = losses["mean_total_loss"]
    per = total / removed
    steps = "; ".join(f"{s} drops {d:.0f} layers for {t:.3f}" for s, d, t in zip(stages, removed, total))
    return {"steps": steps, "last_removed": int(removed[-1]), "first_removed": int(removed[0]),
            "per_layer_ratio": float(per[-1] / per[0]),
            "harder_each_step": "each step is harder than the last" if np.all(np.diff(per) > 0)
            else "the steps are not ordered by difficulty"}
