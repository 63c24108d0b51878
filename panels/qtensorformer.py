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


# --- Q-TensorFormer figures 3, 5, 6, 8, 10
# Seed: plot_fig3_lofo, plot_fig5_adaptive_rank, plot_fig6_gqa_audit, plot_fig8_controller and
# plot_fig10_quantum. Every number comes from the figure's data file (a missing key is a KeyError
# naming it); the seed's fallback numbers and figure 8's random traces have no counterpart here.

from matplotlib.colors import to_rgba  # noqa: E402  (this block's own import, kept with it)


def _feature_label(key):
    """``"S_t (Dispersion)"`` -> ``"$S_t$\\nDispersion"``: the state symbol in math, its name under it."""
    symbol, name = key.split(" ", 1)
    return f"${symbol}$\n{name.strip('()')}"


def lofo(fig, data, colors, highlight=2):
    """R² lost when each feature of the 8-D information state is left out (bars, value on each); the
    ``highlight`` largest drops in full colour, the rest paler."""
    ablations = data["lofo_ablations"]
    features = list(ablations)
    drops = [ablations[f]["r2_drop"] for f in features]
    top = set(sorted(range(len(drops)), key=lambda i: -drops[i])[:highlight])
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    bars = ax.bar([_feature_label(f) for f in features], drops, width=0.6, zorder=3, lw=0.6,
                  edgecolor=colors["slate"],
                  color=[to_rgba(colors["blue"], 1.0 if i in top else 0.4) for i in range(len(drops))])
    ax.bar_label(bars, fmt="%.3f", padding=1.5, fontsize=6, fontweight="bold")
    ax.legend([bars[min(top)], bars[min(set(range(len(drops))) - top)]],
              [f"the {highlight} largest drops", "the other features"], loc="upper right")
    ax.set_ylim(0, max(drops) * 1.15)
    ax.set_xlabel("feature of the information state $z_t$ left out")
    ax.set_ylabel("R² lost when left out (ΔR²)")
    fig.tight_layout(pad=0.3)


def _rank_line(fig, data, colors, metric, ylabel, color, marker):
    ranks = data["ranks"]
    metrics = data["empirical_rank_metrics"]
    values = [metrics[f"rank_{r}"][metric] for r in ranks]
    ax = fig.add_subplot()
    ax.plot(ranks, values, marker=marker, color=colors[color], lw=1.6)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(ranks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlim(ranks[0] / 1.25, ranks[-1] * 1.25)
    ax.set_ylabel(ylabel)
    fig.tight_layout(pad=0.3)


def rank_latency(fig, data, colors):
    """Forward latency (ms) per active TT rank, log2 rank axis, no x title (the layout's shared one)."""
    _rank_line(fig, data, colors, "latency_ms", "forward latency (ms)", "green", "o")


def rank_traffic(fig, data, colors):
    """DRAM traffic (KB per forward pass) per active TT rank, as :func:`rank_latency`."""
    _rank_line(fig, data, colors, "memory_traffic_kb", "DRAM traffic (KB / pass)", "orange", "s")


def gqa_audit(fig, data, colors):
    """Stored KV (KB, bars, left axis) and single-token decode latency (ms, line, twin right axis) per
    attention configuration at ``seq_len`` tokens; one legend for both axes."""
    seq = str(data["seq_len"])
    configs = list(data["configurations"])
    metrics = [data["configurations"][c]["seq_metrics"][seq] for c in configs]
    stored = [m["stored_kv_kb"] for m in metrics]
    latency = [m["decode_latency_ms"] for m in metrics]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    bars = ax.bar(configs, stored, width=0.55, color=colors["blue"], edgecolor=colors["slate"], lw=0.6,
                  zorder=3, label=f"stored KV (KB at T = {seq})")
    ax.bar_label(bars, fmt="%g", padding=1.5, fontsize=6, fontweight="bold", color=colors["blue"])
    ax.set_ylim(0, max(stored) * 1.45)
    ax.set_xlim(-0.55, len(configs) - 0.3)  # room for the last point's label
    ax.set_ylabel("stored KV memory (KB)", color=colors["blue"])
    twin = ax.twinx()
    twin.grid(False)
    twin.spines["right"].set_visible(True)
    twin.plot(range(len(configs)), latency, marker="o", color=colors["vermillion"], lw=1.6, zorder=4,
              label="single-token decode latency (ms)")
    for i, v in enumerate(latency):
        twin.annotate(f"{v:.2f} ms", (i, v), xytext=(5, 3), textcoords="offset points", fontsize=6,
                      fontweight="bold", color=colors["vermillion"])
    # both axes start at zero; the latency axis ends lower, so each point sits above its bar
    twin.set_ylim(0, max(latency) * 1.2)
    twin.set_ylabel("decode latency (ms)", color=colors["vermillion"])
    handles, labels = ax.get_legend_handles_labels()
    twin_handles, twin_labels = twin.get_legend_handles_labels()
    ax.legend(handles + twin_handles, labels + twin_labels, loc="upper right")
    fig.tight_layout(pad=0.3)


#: controller traces: key in the data file -> (line colour, style, width)
TRACES = {"static_heuristic": ("grey", ":", 1.0), "p_only": ("orange", "--", 1.0), "pid_dual": ("blue", "-", 1.6)}


def controller(fig, data, colors):
    """Measured latency (ms) per generation step of three controllers around a load step, with the SLA
    target and its tolerance band; no legend (the layout labels each trace at its end). Anchors: each
    trace's last point (``static_heuristic``, ``p_only``, ``pid_dual``), ``step`` (the disturbance
    line's top) and ``band`` (the band's top at the first step)."""
    steps = data["steps"]
    target = data["target_latency_ms"]
    band = target * data["tolerance_pct"] / 100
    step_at = data["disturbance_step"]
    traces = {key: data["traces"][key] for key in TRACES}
    top = max(max(t) for t in traces.values()) * 1.1
    ax = fig.add_subplot()
    ax.axhspan(target - band, target + band, color=colors["green"], alpha=0.2, lw=0)
    ax.axhline(target, color=colors["green"], ls=":", lw=1.0)
    ax.axvline(step_at, color=colors["vermillion"], ls="--", lw=0.8)
    for key, (color, ls, lw) in TRACES.items():
        ax.plot(steps, traces[key], color=colors[color], ls=ls, lw=lw)
    ax.set_xlim(steps[0], steps[-1])
    ax.set_ylim(0, top)
    ax.set_xlabel("generation step (tokens)")
    ax.set_ylabel("measured latency (ms)")
    fig.tight_layout(pad=0.3)
    return {**{key: (ax, steps[-1], t[-1]) for key, t in traces.items()},
            "step": (ax, step_at, top), "band": (ax, steps[0], target + band)}


QUANTUM = {"classical_sdpa_lat_ms": ("classical\nSDPA", "blue"),
           "surrogate_kernel_lat_ms": ("classical\nsurrogate", "orange"),
           "statevector_sim_lat_ms": ("statevector\nsimulation", "vermillion")}


def quantum_overhead(fig, data, colors):
    """CPU forward latency of the attention backends (ms, log-scale bars, value on each)."""
    overhead = data["latency_and_overhead"]
    lats = [overhead[k] for k in QUANTUM]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    bars = ax.bar([label for label, _ in QUANTUM.values()], lats, width=0.5, zorder=3, lw=0.6,
                  color=[colors[c] for _, c in QUANTUM.values()], edgecolor=colors["slate"])
    ax.bar_label(bars, labels=[f"{v:g} ms" for v in lats], padding=1.5, fontsize=6, fontweight="bold")
    ax.set_yscale("log")
    decades = 10.0 ** np.arange(np.floor(np.log10(min(lats))), np.ceil(np.log10(max(lats))) + 1)
    ax.yaxis.set_major_locator(FixedLocator(decades))
    ax.yaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_major_formatter(lambda v, _: f"{v:g}")  # plain numbers, not 10^n: read at a glance
    ax.set_ylim(decades[0], max(lats) * 5)
    ax.set_ylabel("CPU forward latency (ms)")
    fig.tight_layout(pad=0.3)


def quantum_budget(fig, data, colors):
    """The physical-QPU latency budget (ms, one bar) against the classical SDPA latency (dotted line,
    labelled at its left end). Anchor: ``budget`` (the bar's top centre)."""
    budget = data["qpu_budget_ms"]
    sdpa = data["latency_and_overhead"]["classical_sdpa_lat_ms"]
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    ax.bar(["physical QPU\nbudget"], [budget], width=0.36, color=colors["green"], edgecolor=colors["slate"],
           lw=0.6, zorder=3)
    ax.axhline(sdpa, color=colors["blue"], ls=":", lw=1.0)
    ax.text(-0.76, sdpa * 1.3, f"classical\nSDPA\n{sdpa:g} ms", va="bottom", ha="left", fontsize=6,
            color=colors["blue"])
    ax.set_xlim(-0.8, 0.8)
    ax.set_ylim(0, budget * 1.4)
    ax.set_ylabel("latency threshold (ms)")
    fig.tight_layout(pad=0.3)
    return {"budget": (ax, 0, budget)}
