"""Q-TensorFormer result panels (seed: qtensorformer_figures.py, figures 2, 4, 7, 9 and 12).

Each renderer reads one results file shaped as the seed's ``outputs/*.json``
(``data/qtensorformer/``; example data). The seed plotted hard-coded fallback
numbers when a file was missing; here a missing file is a layout error and a
missing key a panel error naming the key, so a figure never shows numbers that
did not come from its data.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

HEADS = {"delta_quality": "ΔQuality", "delta_latency": "ΔLatency", "delta_memory": "ΔMemory",
         "delta_energy": "ΔEnergy", "delta_bandwidth": "ΔBandwidth"}
HEAD_COLORS = ("blue", "green", "orange", "vermillion", "purple")


def marginal_r2(fig, data, colors):
    """R² of each marginal-value prediction head, with the acceptance bar."""
    heads = data["regression_heads"]
    r2 = [heads[k]["r2_score"] for k in HEADS]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    bars = ax.bar(list(HEADS.values()), r2, color=[colors[c] for c in HEAD_COLORS], width=0.55,
                  edgecolor=colors["slate"], lw=0.6, zorder=3)
    bar_line = data["acceptance_r2"]
    ax.axhline(bar_line, color=colors["grey"], ls=":", lw=1.0, label=f"acceptance bar (R² ≥ {bar_line:.2f})")
    for bar, v in zip(bars, r2):
        ax.text(bar.get_x() + bar.get_width() / 2, v + 0.015, f"{v:.3f}", ha="center", va="bottom",
                fontsize=6, fontweight="bold")
    ax.set_ylim(0, 1.3)
    ax.set_yticks(np.arange(0, 1.01, 0.2))
    ax.set_ylabel("R² on held-out data")
    ax.legend(loc="upper right")
    fig.tight_layout(pad=0.3)


def nested_tt(fig, data, colors, experiment="Linear_128x256"):
    """Relative reconstruction error of nested slicing vs independent TT-SVD per rank, gaps annotated."""
    metrics = data["experiments"][experiment]["rank_metrics"]
    ranks = sorted(int(r) for r in metrics)
    indep = [metrics[str(r)]["indep_tt_rel_err"] for r in ranks]
    nested = [metrics[str(r)]["nested_slice_rel_err"] for r in ranks]
    ax = fig.add_subplot()
    ax.plot(ranks, indep, marker="o", color=colors["blue"], label="independent TT-SVD (per-rank optimum)")
    ax.plot(ranks, nested, marker="s", ls="--", color=colors["vermillion"], label="nested slicing (one core set)")
    for r, n in zip(ranks, nested):
        ax.annotate(f"gap {metrics[str(r)]['suboptimality_gap']:.3f}", (r, n), xytext=(4, 3),
                    textcoords="offset points", fontsize=5.5, color=colors["vermillion"], va="bottom")
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ranks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlim(ranks[0] / 1.3, ranks[-1] * 1.6)
    ax.set_xlabel("active tensor rank r")
    ax.set_ylabel(r"$\|W - W_r\|_F\,/\,\|W\|_F$")
    ax.legend(loc="lower left")
    fig.tight_layout(pad=0.3)


POLICIES = {"FIFO_Eviction": ("FIFO eviction", "grey", ":", "x"),
            "Attention_Sink_Eviction": ("attention sink (StreamingLLM)", "orange", "-.", "^"),
            "Uniform_INT8": ("uniform INT8", "green", "--", "s"),
            "Uniform_INT4": ("uniform INT4", "purple", "--", "d"),
            "Adaptive_QTensorFormer_KV": ("adaptive Q-TensorFormer KV", "blue", "-", "o")}


def rate_distortion(fig, data, colors, legend=True):
    """Attention-output cosine fidelity vs KV compression ratio, one line per policy. Anchor: ``ours_20x``."""
    budgets = data["budgets"]
    ratio = [data["compression_ratio"][b] for b in budgets]
    ax = fig.add_subplot()
    for key, (label, color, ls, marker) in POLICIES.items():
        fid = [data["policies"][key][b]["fidelity_cosine"] for b in budgets]
        ax.plot(ratio, fid, ls=ls, marker=marker, color=colors[color], label=label,
                lw=1.6 if ls == "-" else 1.0)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator(ratio))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([f"{r:g}x" for r in ratio])
    ax.set_xlabel("compression ratio vs FP16")
    ax.set_ylabel("attention-output cosine")
    ax.set_ylim(-0.15, 1.08)
    if legend:
        ax.legend(loc="lower left")
    fig.tight_layout(pad=0.3)
    last = budgets[-1]
    return {"ours_20x": (ax, data["compression_ratio"][last],
                         data["policies"]["Adaptive_QTensorFormer_KV"][last]["fidelity_cosine"])}


def roofline(fig, data, colors):
    """Roofline of each hardware entry with the operating point on each roof. Anchor: ``operating_point``."""
    ai = np.logspace(-1, 3, 200)
    point = data["arithmetic_intensity"]
    ax = fig.add_subplot()
    attained = []
    for hw, color in zip(data["hardware"], ("green", "blue")):
        roof = np.minimum(hw["peak_tflops"], ai * hw["bandwidth_gb_s"] / 1e3)
        ax.plot(ai, roof, color=colors[color],
                label=f"{hw['name']} ({hw['peak_tflops']:g} TFLOPS, {hw['bandwidth_gb_s']:g} GB/s)")
        attained.append(min(hw["peak_tflops"], point * hw["bandwidth_gb_s"] / 1e3))
    ax.scatter([point] * len(attained), attained, color=colors["vermillion"], s=18, zorder=5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOPs / byte)")
    ax.set_ylabel("attainable TFLOPS")
    ax.legend(loc="lower right")
    fig.tight_layout(pad=0.3)
    return {"operating_point": (ax, point, min(attained))}


#: one colour per hysteresis tau, from churning (warm) to settled (cool)
TAU_COLORS = ("vermillion", "orange", "green", "blue")


def _tau_labels(data):
    taus = list(data["hysteresis_analysis"])
    default = data["default_tau"]
    return taus, [t.removeprefix("tau_") + ("\n(default)" if t == default else "") for t in taus]


def hysteresis_churn(fig, data, colors, xlabel=True):
    taus, labels = _tau_labels(data)
    churn = [data["hysteresis_analysis"][t]["churn_rate_pct"] for t in taus]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    ax.bar(labels, churn, color=[colors[c] for c in TAU_COLORS], width=0.5,
           edgecolor=colors["slate"], lw=0.6, zorder=3)
    for i, c in enumerate(churn):
        ax.text(i, c + max(churn) * 0.02, f"{c:.1f}%", ha="center", va="bottom", fontsize=6, fontweight="bold")
    ax.set_ylim(0, max(churn) * 1.18)
    if xlabel:
        ax.set_xlabel("hysteresis τ")
    ax.set_ylabel("routing churn rate (%)")
    fig.tight_layout(pad=0.3)


def hysteresis_jitter(fig, data, colors, xlabel=True):
    taus, labels = _tau_labels(data)
    jitter = [data["hysteresis_analysis"][t]["latency_jitter_std_ms"] for t in taus]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    ax.bar(labels, jitter, color=[colors[c] for c in TAU_COLORS], width=0.5,
           edgecolor=colors["slate"], lw=0.6, zorder=3)
    for i, j in enumerate(jitter):
        ax.text(i, j + max(jitter) * 0.02, f"{j:.3f} ms", ha="center", va="bottom", fontsize=6, fontweight="bold")
    ax.set_ylim(0, max(jitter) * 1.18)
    if xlabel:
        ax.set_xlabel("hysteresis τ")
    ax.set_ylabel("latency std. dev. (ms)")
    fig.tight_layout(pad=0.3)
