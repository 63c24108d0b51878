"""Q-TensorFormer result panels (seed: qtensorformer_figures.py, figures 2, 4, 7, 9 and 12).

Each renderer reads one results file shaped as the seed's ``outputs/*.json``
(``data/qtensorformer/``; example data). The seed plotted hard-coded fallback
numbers when a file was missing; here a missing file is a layout error and a
missing key a panel error naming the key, so a figure never shows numbers that
did not come from its data.
"""
from __future__ import annotations

import numpy as np
from matplotlib.cbook import STEP_LOOKUP_MAP
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator, ScalarFormatter

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


def roofline(fig, data, colors, equal_decades=False):
    """Roofline of each hardware entry with the operating point on each roof. Anchor: ``operating_point``.

    With ``equal_decades`` both log axes span the same number of decades (the larger data span plus 5 %
    each side, centred on each axis's data), so a square plot area (the layout's ``aspect = 1.0``) draws a
    decade equally long on both: the bandwidth roofs (attainable = intensity x bandwidth, slope 1 in
    log-log; Williams, Waterman & Patterson 2009, "Roofline", CACM 52(4)) then climb at 45 degrees."""
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
    if equal_decades:
        ys = np.concatenate([line.get_ydata() for line in ax.lines])
        spans = [np.log10([ai.min(), ai.max()]), np.log10([ys.min(), ys.max()])]
        half = 1.1 * max(hi - lo for lo, hi in spans) / 2
        ax.set_xlim(*(10 ** (spans[0].mean() + np.array([-half, half]))))
        ax.set_ylim(*(10 ** (spans[1].mean() + np.array([-half, half]))))
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
# --- Q-TensorFormer figures 11, 13, 14, 15, 16 (seed: plot_fig11_subsystem_breakdown, plot_fig13_pareto,
# plot_fig14_counter_hypothesis, plot_fig15_baseline_pareto, plot_fig16_baseline_improvements). Every number
# comes from the panel's data file (data/qtensorformer/; example data): no fallback, a missing key is a
# KeyError naming it. Drawn artists carry a gid (``wedge-...``, ``bar-...``) so tests find them in the SVG.

#: the seed's sub-systems of detailed_latency_profile.json, in its order: key -> (legend name, colour)
SUBSYSTEMS = {"tt_ffn_contraction_ms": ("TT-FFN contraction", "blue"),
              "info_state_zt_ms": ("information state $z_t$", "green"),
              "resource_allocator_ms": ("resource allocator", "vermillion"),
              "attention_and_projections_ms": ("attention and projections", "orange"),
              "core_slicing_overhead_ms": ("core slicing overhead", "purple"),
              "norms_and_residuals_ms": ("norms and residuals", "grey")}
INSIDE_PCT = 8.0  # wedges at least this share carry their percentage inside; smaller ones outside on a leader


def _ink_on(color: str) -> str:
    """White or black text for a fill: white when the fill's relative luminance (WCAG 2.1) is under 0.3."""
    from matplotlib.colors import to_rgb

    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(color)]
    return "#ffffff" if 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] < 0.3 else "#000000"


def subsystem_pie(fig, data, colors, phase="prefill"):
    """Share of one phase's latency per sub-system (``{phase}_percentage_breakdown``, percent), clockwise from
    3 o'clock in the seed's order; wedge gids ``wedge-{phase}-{key}``. Small wedges (< ``INSIDE_PCT``) are
    labelled outside, stacked at least one line apart. Each wedge carries its sub-system's name as its label
    (both pies alike), which the layout's ``[[legend]]`` collects into one legend."""
    shares = data[f"{phase}_percentage_breakdown"]
    pct = [shares[k] for k in SUBSYSTEMS]
    ax = fig.add_subplot()
    wedges, _ = ax.pie(pct, colors=[colors[c] for _, c in SUBSYSTEMS.values()], startangle=0, counterclock=False,
                       wedgeprops={"edgecolor": "#ffffff", "linewidth": 0.8})
    outside = []
    for (key, (name, _)), wedge, p in zip(SUBSYSTEMS.items(), wedges, pct):
        wedge.set_gid(f"wedge-{phase}-{key}")
        wedge.set_label(name)
        mid = np.radians((wedge.theta1 + wedge.theta2) / 2)
        if p >= INSIDE_PCT:
            ax.text(0.62 * np.cos(mid), 0.62 * np.sin(mid), f"{p:.1f}%", ha="center", va="center",
                    fontsize=6.5, fontweight="bold", color=_ink_on(wedge.get_facecolor()))
        else:
            outside.append((mid, p))
    line = 0.17  # one 6 pt line at this radius-1 scale (the panel's pie is about 100 pt across)
    placed: list[float] = []
    for mid, p in sorted(outside, key=lambda o: np.sin(o[0])):
        y = 1.18 * np.sin(mid)
        if placed and y - placed[-1] < line:
            y = placed[-1] + line
        placed.append(y)
        side = 1 if np.cos(mid) >= 0 else -1
        ax.annotate(f"{p:.1f}%", (np.cos(mid), np.sin(mid)), xytext=(side * 1.28, y), ha="left" if side > 0
                    else "right", va="center", fontsize=6, fontweight="bold",
                    arrowprops={"arrowstyle": "-", "lw": 0.5, "color": colors["slate"], "shrinkA": 0, "shrinkB": 0})
    ax.set_xlim(-1.1, 1.6)
    ax.set_ylim(-1.1, 1.1)
    ax.set_aspect("equal")
    fig.subplots_adjust(0.01, 0.01, 0.99, 0.99)


def _frontier(xs, ys, lower_y=False):
    """Indices of the non-dominated points (lower x is better; higher y, or lower with ``lower_y``), by x."""
    sign = -1 if lower_y else 1
    better = [(x, sign * y) for x, y in zip(xs, ys)]
    keep = [i for i, (x, y) in enumerate(better)
            if not any(xj <= x and yj >= y and (xj, yj) != (x, y) for xj, yj in better)]
    return sorted(keep, key=lambda i: xs[i])


def _label_points(ax, xs, ys, labels, leader_color, fontsize=5.5, pad_pt=3.0):
    """Name each point at the first of sixteen spots around it (right, left, above, below and the
    diagonals, at ``pad_pt`` and, with a leader line, 3.5 x farther) whose text box stays inside the axes
    and clear of the labels placed so far, the points, the axes' lines and the legend, and (without a
    leader) is nearer its own point than any other; when none is clear, the spot with the fewest
    conflicts. Leaders are drawn in ``leader_color``. Call it after the axes are placed (``tight_layout``):
    it measures in display space."""
    px = ax.figure.dpi / 72
    lines = []
    for line in ax.lines:  # the lines as drawn (steps too), as display points every ~2 pt
        xy = line.get_xydata()
        if line.get_drawstyle() != "default":
            xy = np.transpose(STEP_LOOKUP_MAP[line.get_drawstyle()](xy[:, 0], xy[:, 1]))
        path = line.get_transform().transform(xy)
        for (x0, y0), (x1, y1) in zip(path[:-1], path[1:]):
            n = max(2, int(np.hypot(x1 - x0, y1 - y0) / (2 * px)))
            lines.extend(zip(np.linspace(x0, x1, n), np.linspace(y0, y1, n)))
    ring = [(1, 0, "left", "center"), (-1, 0, "right", "center"), (0, 1, "center", "bottom"),
            (0, -1, "center", "top"), (1, 1, "left", "bottom"), (-1, 1, "right", "bottom"),
            (1, -1, "left", "top"), (-1, -1, "right", "top")]
    spots = [(dx, dy, ha, va, 1.0) for dx, dy, ha, va in ring] + [(dx, dy, ha, va, 3.5) for dx, dy, ha, va in ring]
    marks = [ax.transData.transform((x, y)) for x, y in zip(xs, ys)]
    frame = ax.get_window_extent()
    legend = ax.get_legend()
    taken = [legend.get_window_extent()] if legend else []

    def gap(box, m):  # from a point to a box, 0 inside it
        return np.hypot(max(box.x0 - m[0], 0, m[0] - box.x1), max(box.y0 - m[1], 0, m[1] - box.y1))

    def conflicts(box, mark, far):
        inside = box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1
        own = gap(box, mark)
        others = [gap(box, m) for m in marks if m is not mark]
        return (10 * (not inside) + 3 * sum(box.overlaps(t) for t in taken)
                + sum(g < 3 * px for g in others)
                + (not far and any(g < own + 2 * px for g in others))  # a label reads as its nearest point's
                + any(box.x0 < lx < box.x1 and box.y0 < ly < box.y1 for lx, ly in lines))

    crowd = [sum(np.hypot(*(m - o)) < 20 * px for o in marks) for m in marks]
    for k in sorted(range(len(marks)), key=lambda k: -crowd[k]):  # the most crowded points choose first
        best = None
        for spot in spots:  # measured without the leader: an annotation's box includes its arrow
            dx, dy, ha, va, far = spot
            text = ax.annotate(labels[k], (xs[k], ys[k]), xytext=(dx * (pad_pt + 1) * far, dy * pad_pt * far),
                               textcoords="offset points", ha=ha, va=va, fontsize=fontsize)
            box = text.get_window_extent()
            text.remove()
            score = conflicts(box, marks[k], far > 1)
            if best is None or score < best[0]:
                best = (score, spot, box)
            if score == 0:
                break
        _, (dx, dy, ha, va, far), box = best
        leader = {"arrowstyle": "-", "lw": 0.4, "color": leader_color, "shrinkA": 0, "shrinkB": 2} if far > 1 else None
        ax.annotate(labels[k], (xs[k], ys[k]), xytext=(dx * (pad_pt + 1) * far, dy * pad_pt * far),
                    textcoords="offset points", ha=ha, va=va, fontsize=fontsize, arrowprops=leader)
        taken.append(box)


def _log_ticks(axis, values):
    """Plain-number major ticks on a log axis spanning ``values``: at 1-2-3-5 steps, or 1-2-5 when the
    values span more than 30x (the 3s would crowd the 2s)."""
    lo, hi = min(values), max(values)
    steps = [m * 10 ** e for e in range(int(np.floor(np.log10(lo))) - 1, int(np.ceil(np.log10(hi))) + 1)
             for m in ((1, 2, 3, 5) if hi / lo <= 30 else (1, 2, 5))]
    axis.set_major_locator(FixedLocator([s for s in steps if lo / 1.6 <= s <= hi * 1.6]))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))


def pareto_quality_latency(fig, data, colors):
    """Quality score vs latency per system (``systems``), ``ours`` starred, the Pareto frontier stepped (gid
    ``frontier``; points ``point-{name}``)."""
    systems = data["systems"]
    names = list(systems)
    lat = [systems[n]["latency_ms"] for n in names]
    q = [systems[n]["quality_score"] for n in names]
    ours = data["ours"]
    ax = fig.add_subplot()
    front = _frontier(lat, q)
    ax.step([lat[i] for i in front] + [max(lat) * 1.5], [q[i] for i in front] + [q[front[-1]]], where="post",
            color=colors["blue"], ls="--", lw=0.9, label="Pareto frontier", zorder=2, gid="frontier")
    for n, x, y in zip(names, lat, q):
        ax.scatter([x], [y], marker="*" if n == ours else "o", s=60 if n == ours else 16, zorder=4,
                   color=colors["vermillion"] if n == ours else colors["grey"], gid=f"point-{n}")
    ax.set_xscale("log")
    _log_ticks(ax.xaxis, lat)
    ax.set_xlim(min(lat) / 1.25, max(lat) * 1.25)
    ax.set_ylim(min(q) - 0.012, max(q) + 0.012)
    ax.set_xlabel("inference latency (ms)")
    ax.set_ylabel("quality score (0 to 1)")
    ax.legend(loc="lower right")
    fig.tight_layout(pad=0.3)
    _label_points(ax, lat, q, names, colors["grey"])


def hypervolume_margins(fig, data, colors):
    """Hypervolume advantage of ``ours`` over ``reference`` per dimension (%), value on each bar, a name of
    two words on two lines; gids ``bar-{dimension}`` (spaces as ``_``)."""
    adv = data["hypervolume_advantage_pct"]
    dims = list(adv)
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    bars = ax.bar([d.replace(" ", "\n") for d in dims], [adv[d] for d in dims], color=colors["blue"], width=0.55,
                  edgecolor=colors["slate"], lw=0.6, zorder=3)
    for bar, d in zip(bars, dims):
        bar.set_gid(f"bar-{d.replace(' ', '_')}")
        ax.text(bar.get_x() + bar.get_width() / 2, adv[d] + max(adv.values()) * 0.02, f"+{adv[d]:.1f}%",
                ha="center", va="bottom", fontsize=6, fontweight="bold")
    ax.set_ylim(0, max(adv.values()) * 1.15)
    ax.set_ylabel("hypervolume advantage (%)")
    fig.tight_layout(pad=0.3)


def _batches(data):
    rows = data["regime_1_large_batch_prefill"]["data"]
    return sorted(int(k.removeprefix("B_")) for k in rows), rows


def large_batch_prefill(fig, data, colors, ylabel=True):
    """Dense GEMM vs sequential TT contraction latency over batch size (log-log); the batches where TT is
    slower are shaded as the failure regime. Points have gids ``point-dense-B`` and ``point-tt-B``."""
    batches, rows = _batches(data)
    dense = [rows[f"B_{b}"]["dense_gemm_latency_ms"] for b in batches]
    tt = [rows[f"B_{b}"]["tt_contraction_latency_ms"] for b in batches]
    ax = fig.add_subplot()
    slow = [b for b, d, t in zip(batches, dense, tt) if t > d]
    if slow:
        i = batches.index(slow[0])
        start = np.sqrt(batches[i - 1] * slow[0]) if i else slow[0] / 1.4
        ax.axvspan(start, batches[-1] * 1.4, color=colors["vermillion"], alpha=0.08, lw=0, zorder=0)
        ax.text(np.sqrt(start * batches[-1] * 1.4), min(dense + tt), "TT slower:\nfailure regime",
                ha="center", va="bottom", fontsize=6, color=colors["vermillion"])
    ax.plot(batches, dense, marker="o", color=colors["green"], label="dense GEMM (cuBLAS)")
    ax.plot(batches, tt, marker="s", color=colors["vermillion"], label="TT sequential contraction")
    for line, kind in zip(ax.lines, ("dense", "tt")):
        line.set_gid(f"line-{kind}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(batches))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(ScalarFormatter())
    _log_ticks(ax.yaxis, dense + tt)
    ax.set_xlim(batches[0] / 1.4, batches[-1] * 1.4)
    ax.set_xlabel("batch size B")
    if ylabel:
        ax.set_ylabel("latency (ms)")
    ax.legend(loc="upper left")
    fig.tight_layout(pad=0.3)


def micro_deadline_floor(fig, data, colors, ylabel=True):
    """The decision floor against a sub-millisecond SLA: allocator, slicing, their sum (the floor) and the
    target, each bar's value in ms above it; the target as a dotted line; gids ``bar-{part}``."""
    r = data["regime_3_micro_deadline"]
    parts = {"allocator": ("allocator\ndecision", r["allocator_decision_ms"], "orange"),
             "slicing": ("slicing\noverhead", r["core_slicing_overhead_ms"], "green"),
             "floor": ("total floor", r["allocator_decision_ms"] + r["core_slicing_overhead_ms"], "vermillion"),
             "target": ("target SLA", r["target_sla_ms"], "grey")}
    ax = fig.add_subplot()
    ax.grid(axis="x", visible=False)
    top = max(v for _, v, _ in parts.values())
    ax.axhline(r["target_sla_ms"], color=colors["grey"], ls=":", lw=1.0, zorder=2)
    for i, (key, (label, v, c)) in enumerate(parts.items()):
        bar = ax.bar([label], [v], color=colors[c], width=0.5, edgecolor=colors["slate"], lw=0.6, zorder=3)[0]
        bar.set_gid(f"bar-{key}")
        ax.text(i, v + top * 0.02, f"{v:.2f} ms", ha="center", va="bottom", fontsize=6, fontweight="bold",
                bbox={"facecolor": "#ffffff", "edgecolor": "none", "pad": 0.4}, zorder=4)  # clear of the SLA line
    ax.set_ylim(0, top * 1.18)
    if ylabel:
        ax.set_ylabel("latency (ms)")
    fig.tight_layout(pad=0.3)


#: the metrics of baseline_comparison_master.json: key -> (axis title, lower is better, log axis)
METRICS = {"peak_ram_mb": ("peak RAM (MB)", True, True),
           "tokens_per_sec": ("decode rate (tokens/s)", False, False),
           "tpot_ms": ("time per output token (ms)", True, False),
           "cosine_fidelity": ("cosine fidelity vs FP32", False, False),
           "cost_per_million_tokens_usd": ("inference cost ($ / 1M tokens)", True, False),
           "energy_uj_per_tok": ("energy (µJ / token)", True, True)}
#: baseline categories -> (colour, marker); the Okabe & Ito palette, one marker shape each
CATEGORIES = {"Dense": ("ink", "o"), "Quantization": ("orange", "s"), "Attention": ("sky", "^"),
              "Tensor-Train": ("green", "D"), "Conditional": ("yellow", "v"), "KV Cache": ("blue", "P"),
              "Sparse MoE": ("purple", "X"), "Adaptive QTF": ("vermillion", "*")}


def baseline_pareto(fig, data, colors, x="peak_ram_mb", y="tokens_per_sec"):
    """One trade-off of every model of ``models``: metric ``x`` against ``y`` (keys of ``METRICS``; which
    way is better is the layout's panel title), a marker per category (gids ``point-{model_id}``), the
    Pareto frontier stepped (gid ``frontier``), each point named by its ``short_name``. Points carry their
    category as label, the frontier "Pareto frontier" (drawn last, so it is the last legend entry), for the
    layout's ``[[legend]]``.

    Raises:
        KeyError: a missing key, named. ValueError: ``n_architectures`` is not the number of models.
    """
    models = data["models"]
    if len(models) != data["n_architectures"]:
        raise ValueError(f"n_architectures is {data['n_architectures']} but models lists {len(models)}")
    xs = [m["metrics"][x] for m in models]
    ys = [m["metrics"][y] for m in models]
    ax = fig.add_subplot()
    (xlabel, _, xlog), (ylabel, y_lower, ylog) = METRICS[x], METRICS[y]
    front = _frontier(xs, ys, lower_y=y_lower)
    fx, fy = [xs[i] for i in front], [ys[i] for i in front]
    for m, vx, vy in zip(models, xs, ys):
        c, marker = CATEGORIES[m["category"]]
        # a one-point line, not a scatter: the collected legend redraws its marker as drawn here
        # (marker size in pt = sqrt of scatter's s in pt^2: 6.5 pt stars, 4.2 pt others)
        ax.plot([vx], [vy], ls="", color=colors[c], marker=marker, ms=np.sqrt(42 if marker == "*" else 18),
                mew=0.4, mec=colors["slate"], zorder=4, gid=f"point-{m['model_id']}", label=m["category"])
    ax.step(fx + [max(xs) * 1.3], fy + [fy[-1]], where="post", color=colors["grey"], ls="--", lw=0.8, zorder=2,
            gid="frontier", label="Pareto frontier")
    for axis, log, vals in ((ax.xaxis, xlog, xs), (ax.yaxis, ylog, ys)):
        if log:
            (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log")
            _log_ticks(axis, vals)
    pad = 1.25 if xlog else None
    ax.set_xlim(*((min(xs) / pad, max(xs) * pad) if pad else
                  (min(xs) - 0.08 * np.ptp(xs), max(xs) + 0.08 * np.ptp(xs))))
    ax.set_ylim(min(ys) - 0.1 * np.ptp(ys), max(ys) + 0.1 * np.ptp(ys))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.tight_layout(pad=0.3)
    _label_points(ax, xs, ys, [m["short_name"] for m in models], colors["grey"], fontsize=5)


#: the improvement metrics of figure 16 (all lower-is-better): key -> (legend label, colour)
IMPROVEMENTS = {"peak_ram_mb": ("peak RAM", "blue"), "kv_cache_1k_mb": ("KV cache (1k tokens)", "green"),
                "dram_traffic_bytes_per_tok": ("DRAM traffic", "purple"), "active_flops_m": ("active FLOPs", "orange"),
                "energy_uj_per_tok": ("energy", "vermillion")}


def improvement_pct(target, baseline):
    """Relative improvement (%) of a lower-is-better metric: (baseline - target) / baseline x 100 (the seed's
    direction-aware formula, fig 16); positive when the target is lower."""
    return (baseline - target) / baseline * 100.0


def baseline_improvements(fig, data, colors):
    """Improvement of the ``target`` model over every model of another category (there must be
    ``n_baselines``), one bar per metric of ``IMPROVEMENTS`` (:func:`improvement_pct`), baselines top to
    bottom in file order; gids ``bar-{metric}-{model_id}``.

    Raises:
        KeyError: a missing key, named. ValueError: ``n_baselines`` is not the number of baselines.
    """
    models = {m["model_id"]: m for m in data["models"]}
    target = models[data["target"]]
    baselines = [m for m in data["models"] if m["category"] != target["category"]]
    if len(baselines) != data["n_baselines"]:
        raise ValueError(f"n_baselines is {data['n_baselines']} but models lists {len(baselines)} outside "
                         f"the target's category {target['category']!r}")
    ax = fig.add_subplot()
    for k in range(0, len(baselines), 2):  # every other baseline's group on a light band
        ax.axhspan(k - 0.5, k + 0.5, color=colors["grey"], alpha=0.07, lw=0, zorder=0)
    ax.grid(axis="y", visible=False)
    y = np.arange(len(baselines))
    height = 0.8 / len(IMPROVEMENTS)
    for i, (key, (label, c)) in enumerate(IMPROVEMENTS.items()):
        pct = [improvement_pct(target["metrics"][key], b["metrics"][key]) for b in baselines]
        bars = ax.barh(y + (i - (len(IMPROVEMENTS) - 1) / 2) * height, pct, height, color=colors[c], label=label,
                       edgecolor=colors["slate"], lw=0.3, zorder=3)
        for bar, b in zip(bars, baselines):
            bar.set_gid(f"bar-{key}-{b['model_id']}")
    ax.axvline(0, color=colors["ink"], lw=0.8, zorder=4)
    ax.set_yticks(y)
    ax.set_yticklabels([b["display_name"] for b in baselines])
    ax.set_ylim(len(baselines) - 0.5, -0.5)
    ax.set_xlabel(f"relative improvement over the baseline (%); positive: {target['display_name']} needs less")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(IMPROVEMENTS), borderaxespad=0.3)
    fig.tight_layout(pad=0.3)
