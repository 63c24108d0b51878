"""SpectralQuant result panels (seed: spectralquant_figures.py): bars, grouped bars, log-log lines.

Each renderer reads one results file shaped as the seed's ``results/v3/modal/*.json``
(``data/spectralquant/``; example data, see ``data/make_gallery_data.py``). A
missing key is a KeyError, reported by composer as an error naming the panel:
there are no fallback numbers. Colours come from the layout's palette
(``styles/spectralquant.toml``): ``fp16``, ``spectralquant_v2``, ``turboquant``,
``calib_uniform``.
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

METHODS = ("fp16", "spectralquant_v2", "turboquant")
METHOD_LABEL = {"fp16": "FP16", "spectralquant_v2": "SQ water-fill (b=3)", "turboquant": "Random Haar (b=3)"}
#: tick labels when a figure-wide legend names the methods (``short=True``).
METHOD_SHORT = {"fp16": "FP16", "spectralquant_v2": "SQ", "turboquant": "Haar"}
LEGEND = {"frameon": False, "handlelength": 1.2, "borderaxespad": 0.2}
#: legend labels that name each method in full (``long_names=True``), one label per colour in every
#: panel, so a figure can collect the panels' legends into one ([[legend]] in ``sq_results``).
METHOD_NAME = {"fp16": "FP16", "spectralquant_v2": "calibrated rotation + water-filled bits (SQ)",
               "turboquant": "random Haar rotation + uniform bits",
               "calib_uniform": "calibrated rotation + uniform bits"}


def _axes(fig):
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def _finish(fig):
    fig.tight_layout(pad=0.3)


def _bars(ax, values, colors, fmt, log=False, short=False):
    x = np.arange(len(METHODS))
    bars = ax.bar(x, values, color=[colors[m] for m in METHODS], width=0.6)
    if short:
        ax.set_xticks(x, [METHOD_SHORT[m] for m in METHODS])
    else:
        ax.set_xticks(x, [METHOD_LABEL[m] for m in METHODS], rotation=15, ha="right")
    for bar, v in zip(bars, values):
        ax.annotate(fmt.format(v), (bar.get_x() + bar.get_width() / 2, v), xytext=(0, 1.5),
                    textcoords="offset points", ha="center", va="bottom", fontsize="small")
    if log:
        ax.set_yscale("log")
        ax.set_ylim(min(values) / 1.6, max(values) * 2.2)
        _plain_log_ticks(ax.yaxis)
    else:
        ax.set_ylim(0, max(values) * 1.18)
    return bars


def perplexity(fig, data, colors, title=True, short=False):
    """WikiText perplexity per method, log scale, with value labels."""
    methods = data["methods"]
    ax = _axes(fig)
    _bars(ax, [methods[m]["perplexity"] for m in METHODS], colors, "{:,.2f}", log=True, short=short)
    ax.set_ylabel("perplexity (log)")
    if title:
        ax.set_title(f"{data['dataset']} perplexity\n(n_tokens = {methods['fp16']['n_tokens']:,})")
    _finish(fig)


def nll(fig, data, colors, title=True, short=False):
    """Average negative log-likelihood per token, per method."""
    methods = data["methods"]
    ax = _axes(fig)
    _bars(ax, [methods[m]["nll_per_token"] for m in METHODS], colors, "{:.3f}", short=short)
    ax.set_ylabel("NLL per token (nats)")
    if title:
        ax.set_title("Average negative\nlog-likelihood")
    _finish(fig)


def generation(fig, data, colors, legend=True, title=True, long_names=False):
    """Greedy-generation quality: three metrics, one bar per method, value labels."""
    metrics = {"mean_token_overlap_f1": "token-overlap F1\n(vs FP16 output)",
               "mean_distinct_1": "distinct-1\n(unigrams)",
               "mean_distinct_2": "distinct-2\n(bigrams)"}
    ax = _axes(fig)
    x = np.arange(len(metrics))
    width = 0.27
    for i, m in enumerate(METHODS):
        vals = [data["methods"][m]["metrics"][k] for k in metrics]
        bars = ax.bar(x + (i - 1) * width, vals, width=width * 0.95, color=colors[m],
                      label=(METHOD_NAME if long_names else METHOD_LABEL)[m])
        for bar, v in zip(bars, vals):
            ax.annotate(f"{v:.2f}", (bar.get_x() + bar.get_width() / 2, v), xytext=(0, 1.5),
                        textcoords="offset points", ha="center", va="bottom", fontsize=5.5)
    ax.set_xticks(x, list(metrics.values()))
    ax.set_ylim(0, 1.28)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylabel("score")
    if legend:
        ax.legend(loc="upper right", ncols=3, **LEGEND)
    if title:
        ax.set_title(f"Greedy generation, {data['n_prompts']} prompts ({data['model']}, b={data['bits']}, "
                     f"max_new={data['max_new_tokens']}, T={data['temperature']:.1f})")
    _finish(fig)


def longbench_macro(fig, data, colors, title=True, short=False):
    """LongBench macro score (mean over tasks) per method."""
    ax = _axes(fig)
    _bars(ax, [data["methods"][m]["aggregate"]["macro_score"] for m in METHODS], colors, "{:.3f}", short=short)
    ax.set_ylabel(f"mean of {len(data['tasks'])} tasks")
    if title:
        ax.set_title(f"LongBench macro score\n(n={data['n_per_task']}/task)")
    _finish(fig)


def longbench_tasks(fig, data, colors, legend=True, title=True, long_names=False):
    """LongBench per-task scores, grouped by task."""
    tasks = data["tasks"]
    ax = _axes(fig)
    x = np.arange(len(tasks))
    width = 0.27
    for i, m in enumerate(METHODS):
        per = {t["task"]: t["score"] for t in data["methods"][m]["per_task"]}
        ax.bar(x + (i - 1) * width, [per[t] for t in tasks], width=width * 0.95, color=colors[m],
               label=(METHOD_NAME if long_names else METHOD_LABEL)[m])
    ax.set_xticks(x, tasks, rotation=15, ha="right")
    ax.set_ylabel("per-task score")
    ax.set_ylim(0, 1.0)
    if legend:
        ax.legend(loc="upper left", **LEGEND)
    if title:
        ax.set_title(f"LongBench per task ({data['model']}, b={data['bits']}, "
                     f"in $\\leq$ {data['max_input_tokens']}, out = {data['max_new_tokens']})")
    _finish(fig)


def _plain_log_ticks(axis):
    """Log-axis ticks at 1, 2, 5 x 10^k written as plain numbers (10, 20, 50), no minor labels."""
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _decode(data, method, *, micro):
    points = [op for op in data["methods"][method]["operating_points"]
              if bool(op.get("microbenchmark", False)) == micro and (micro or op["end_to_end_measured"])]
    points.sort(key=lambda op: op["context_length"])
    return [op["context_length"] for op in points], [op["decode_ms_per_token_p50"] for op in points]


def _floor125(v):
    """The largest 1, 2 or 5 x 10^k at or below v (a log axis then starts on a labelled tick)."""
    k = 10.0 ** np.floor(np.log10(v))
    return max(m * k for m in (1, 2, 5) if m * k <= v)


def _log2_context(ax, contexts):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    low = min(min(line.get_ydata()) for line in ax.get_lines())
    ax.set_ylim(bottom=_floor125(low * 0.95))
    _plain_log_ticks(ax.yaxis)
    ax.xaxis.set_major_locator(FixedLocator(contexts))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xticklabels([str(c) for c in contexts])
    ax.set_xlabel("context length")


def latency_micro(fig, data, colors, legend=True, title=True):
    """KV compress+decompress microbenchmark, ms/token vs context, log-log."""
    ax = _axes(fig)
    for m, marker, label in (("spectralquant_v2", "o", "calibrated + water-filled"),
                             ("turboquant", "s", "random + uniform")):
        x, y = _decode(data, m, micro=True)
        ax.plot(x, y, marker=marker, markersize=3, color=colors[m], label=label)
    _log2_context(ax, x)
    ax.set_ylabel("ms / token (p50)")
    if legend:
        ax.legend(loc="upper left", **LEGEND)
    if title:
        ax.set_title("KV round-trip microbenchmark\n(diagnostic replay, not a serving kernel)")
    _finish(fig)


def latency_e2e(fig, data, colors, legend=True, title=True):
    """End-to-end decode time: FP16 reference vs the hooked replays, log-log."""
    ax = _axes(fig)
    for m, marker, label in (("fp16", "o", "FP16 reference pass"),
                             ("spectralquant_v2", "o", "calibrated, hooked replay"),
                             ("turboquant", "s", "random, hooked replay")):
        x, y = _decode(data, m, micro=False)
        ax.plot(x, y, marker=marker, markersize=3, color=colors[m], label=label)
    _log2_context(ax, x)
    ax.set_ylabel("ms / token (p50)")  # "decode" is in the title; longer, it overran the panel in sq_results
    if legend:
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.2), **LEGEND)
    if title:
        ax.set_title("End-to-end decode time\n(hooked replay is not a production kernel)")
    _finish(fig)


def attention_cosine(fig, data, colors, legend=True, title=True, long_names=False):
    """Attention-output cosine vs FP16 for three rotate-then-quantize arms, per (model, bits)."""
    arms = (("haar_uniform", "turboquant", "random Haar + uniform"),
            ("calib_uniform", "calib_uniform", "calib. rot. + uniform"),
            ("calib_waterfill", "spectralquant_v2", "calib. rot. + water-fill"))
    ax = _axes(fig)
    x = np.arange(len(data["model"]))
    width = 0.27
    for j, (column, color, label) in enumerate(arms):
        bars = ax.bar(x + (j - 1) * width, data[column], width=width * 0.95, color=colors[color],
                      label=METHOD_NAME[color] if long_names else label)
        for bar, v in zip(bars, data[column]):
            ax.annotate(f"{v:.2f}".removeprefix("0"), (bar.get_x() + bar.get_width() / 2, v), xytext=(0, 1.5),
                        textcoords="offset points", ha="center", va="bottom", fontsize=5.5)
    ax.set_xticks(x, [f"{m.split('-')[0]}\nb={b:.0f}" for m, b in zip(data["model"], data["bits"])])
    ax.set_ylim(0, 1.32)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylabel("cosine vs FP16")
    if legend:
        ax.legend(loc="upper center", ncols=3, **LEGEND)
    if title:
        ax.set_title("Attention-output fidelity at a fixed bit budget")
    _finish(fig)
