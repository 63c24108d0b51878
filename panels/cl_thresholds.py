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
    for i, (t, f, n) in enumerate(zip(tp, fp, fn)):
        worse = f > t
        ax.text(t + f + n + 10, i, f"{f / t:.2f} fp per tp", va="center", fontsize=5.5,
                color=colors["down"] if worse else colors["muted"], fontweight="bold" if worse else "normal")
    ax.set_yticks(y, labels, fontsize=5.5)
    ax.set_xlabel(f"(document, label) pairs, out of {data['pairs'][0]:.0f}")
    ax.set_xlim(0, float((tp + fp + fn).max()) * 1.3)
    ax.invert_yaxis()
    ax.spines["left"].set_visible(False)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=3, handlelength=1.0, columnspacing=1.0,
              borderaxespad=0.2)
    fig.tight_layout(pad=0.3)


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
