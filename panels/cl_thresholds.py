"""Thresholds and over-prediction (seed: compression_ladder_figures.py, fig_thresholds).

Left: the threshold each run's frozen grid selected against the fraction of
pairs it predicts positive, one colour per arm, every point annotated with its
seed, and the actual positive rate as a dashed line. Right: true positives,
false positives and false negatives of every run as stacked horizontal bars.
Data: ``data/compression_ladder/seed_metrics.csv`` (arm, seed, threshold,
predicted_positive_rate, tp, fp, fn, pairs; example data).
"""
from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D

NAMES = {"task_agnostic_base": "task-free 4L root", "structural_copy_control": "structural copy control",
         "existing_specialized_separate_lineage": "specialised 4L, separate lineage"}
ARM_COLORS = ("root", "orange", "green")


def _arms(data):
    return list(dict.fromkeys(data["arm"]))


def _actual_rate(data):
    actual = (data["tp"] + data["fn"]) / data["pairs"]
    if np.ptp(actual) > 1e-9:
        raise ValueError("tp + fn differs between runs: the runs were not scored on the same pairs")
    return float(actual[0])


def thresholds(fig, data, colors):
    ax = fig.add_subplot()
    ax.grid(axis="both")
    arms = _arms(data)
    for arm, color in zip(arms, ARM_COLORS):
        rows = data["arm"] == arm
        ax.plot(data["threshold"][rows], data["predicted_positive_rate"][rows], "o", ms=6, color=colors[color],
                mec="white", mew=1.0, zorder=4)
        for seed, t, p in zip(data["seed"][rows], data["threshold"][rows], data["predicted_positive_rate"][rows]):
            ax.annotate(f"seed {seed:.0f}", (t, p), textcoords="offset points", xytext=(6, -2), fontsize=5.5,
                        color=colors["muted"])
    actual = _actual_rate(data)
    ax.axhline(actual, color=colors["down"], ls=(0, (5, 3)), lw=1.0, zorder=3)
    ax.set_xlim(0, data["threshold"].max() * 1.25)
    ax.set_ylim(actual - 0.035, data["predicted_positive_rate"].max() * 1.12)
    ax.text(0.004, actual - 0.005, f"actual positive rate {actual:.3f}", fontsize=6,
            color=colors["down"], ha="left", va="top")
    ax.set_xlabel("threshold the frozen grid selected for that run")
    ax.set_ylabel("fraction of (document, label) pairs\npredicted positive")
    ax.legend(handles=[Line2D([], [], marker="o", ls="", color=colors[c], ms=5, label=NAMES[a])
                       for a, c in zip(arms, ARM_COLORS)], loc="upper right")
    fig.tight_layout(pad=0.3)


def outcomes(fig, data, colors):
    ax = fig.add_subplot()
    ax.grid(axis="x")
    ax.grid(axis="y", visible=False)
    labels = [f"{NAMES[a].split(',')[0]}\nseed {s:.0f}, thr {t:.2f}"
              for a, s, t in zip(data["arm"], data["seed"], data["threshold"])]
    tp, fp, fn = data["tp"], data["fp"], data["fn"]
    y = np.arange(len(labels))
    ax.barh(y, tp, height=0.6, color=colors["root"], zorder=3, label="true pos.")
    ax.barh(y, fp, left=tp, height=0.6, color=colors["orange"], zorder=3, label="false pos.")
    ax.barh(y, fn, left=tp + fp, height=0.6, color=colors["stack"], zorder=3, label="false neg.")
    ends = []
    for i, (t, f, n) in enumerate(zip(tp, fp, fn)):
        worse = f > t
        ends.append(ax.annotate(f"{f / t:.2f} fp per tp", (t + f + n, i), xytext=(3, 0), textcoords="offset points",
                                va="center", fontsize=5.5, color=colors["down"] if worse else colors["muted"],
                                fontweight="bold" if worse else "normal"))
    ax.set_yticks(y, labels, fontsize=5.5)
    ax.set_xlabel(f"(document, label) pairs, out of {data['pairs'][0]:.0f}")
    ax.invert_yaxis()
    ax.spines["left"].set_visible(False)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=3, handlelength=1.0, columnspacing=1.0,
              borderaxespad=0.2)
    _room_for_bar_labels(fig, ax, ends)


def _room_for_bar_labels(fig, ax, labels, pad_pt=2.0):
    """Lay the panel out with every end-of-bar label inside the plot area.

    The labels sit at data x (a bar's end), so tight_layout, which moves the axes, cannot make room
    for them: it would shrink the axes and the labels would move with them. Instead the labels are
    left out of the layout and the x range is widened until the widest label, measured, ends
    ``pad_pt`` inside the axes; tight_layout runs again, as the new range may bring a new tick label.
    """
    for label in labels:
        label.set_in_layout(False)
    ax.set_xlim(0, max(label.xy[0] for label in labels))
    for _ in range(3):
        fig.tight_layout(pad=0.3)
        fig.draw_without_rendering()
        width_px = ax.get_window_extent().width
        xmax = ax.get_xlim()[1]
        need = 0.0
        for label in labels:
            # the label reaches this far right of the point it labels (offset + text), in px = pt
            reach = label.get_window_extent().x1 - ax.transData.transform(label.xy)[0]
            if reach + pad_pt >= width_px:
                raise ValueError(f"label {label.get_text()!r} is wider than the plot area")
            need = max(need, label.xy[0] * width_px / (width_px - pad_pt - reach))
        if need <= xmax * (1 + 1e-6):
            break
        ax.set_xlim(0, need)


def values(data):
    worst = int(np.argmax(data["fp"] / data["tp"]))
    spread = max(float(data["threshold"][data["arm"] == a].max() / data["threshold"][data["arm"] == a].min())
                 for a in _arms(data))
    over = int(np.sum(data["predicted_positive_rate"] > _actual_rate(data)))
    runs = len(data["arm"])
    return {"threshold_spread": spread, "over_predicting": "Every run" if over == runs else f"{over} of {runs} runs",
            "pairs": int(data["pairs"][0]),
            "worst_run": f"{NAMES[data['arm'][worst]]}, seed {data['seed'][worst]:.0f}",
            "worst_ratio": float(data["fp"][worst] / data["tp"][worst])}
