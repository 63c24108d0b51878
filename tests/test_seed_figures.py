"""Q-TensorFormer seed figures 3, 5, 6, 8 and 10 (issue #16): each figure shows its data file's numbers.

The figures are built from a copy of the project with ``text = "editable"`` (panel and canvas text
stay ``<text>``, so a number can be read back; the geometry is the same as the gallery's build).
Plotted values are measured in the composed SVG, in canvas pt: an axis's scale is fitted to its own
tick marks and tick labels, and each bar top, bar height and line vertex is compared with the value
the data file gives, mapped through that scale. A key deleted from a data file makes the build fail
in one line naming the key (the seed plotted typed-in fallback numbers instead).
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil
import tomllib

import numpy as np
import pytest
from lxml import etree

from composer.cli.main import main
from conftest import REPO, SVG_NS, cumulative_transform, editable
from errlines import frames_block, without_frames

FIGURES = ("qtf_lofo", "qtf_adaptive_rank", "qtf_gqa_audit", "qtf_controller", "qtf_quantum")
DATA = REPO / "data" / "qtensorformer"
COLORS = tomllib.loads((REPO / "styles" / "qtensorformer.toml").read_text())["colors"]
TOL_PT = 0.05  # matplotlib writes coordinates to 1e-6 pt; composer places panels to 1e-3 pt


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def copy_project(dest):
    for folder in ("layouts", "panels", "data", "styles"):
        shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="module")
def svgs(tmp_path_factory):
    """Each figure's composed SVG (editable text), parsed: name -> root element."""
    root = copy_project(tmp_path_factory.mktemp("seeds") / "proj")
    for name in FIGURES:
        layout = root / "layouts" / f"{name}.toml"
        layout.write_text(editable(layout.read_text()))
        assert main([name, "--root", str(root), "--format", "svg"]) == 0, name
    return {name: etree.parse(str(root / "build" / f"{name}.svg")).getroot() for name in FIGURES}


# ─── reading the SVG ────────────────────────────────────────────────────────

def canvas_pt(el, x: float, y: float) -> tuple[float, float]:
    """A point in ``el``'s own coordinates, in canvas pt."""
    p = cumulative_transform(el) @ np.array([x, y, 1.0])
    return float(p[0]), float(p[1])


def by_id(root, pattern: str) -> list:
    rx = re.compile(pattern)
    return [el for el in root.iter() if isinstance(el.tag, str) and rx.fullmatch(el.get("id", ""))]


def number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def axes(root, panel: str) -> list:
    """The panel's matplotlib axes groups, in drawing order (a twin axis comes second)."""
    return by_id(root, rf"{re.escape(panel)}--axes_\d+")


def ticks(ax, panel: str, which: str) -> list[tuple[float, float]]:
    """(value, canvas position) of each labelled tick of ``ax``'s ``which`` ("x" or "y") axis: the
    tick label's number and the tick mark's x (for "x") or y (for "y") in pt."""
    out = []
    for tick in by_id(ax, rf"{re.escape(panel)}--{which}tick_\d+"):
        mark = next(u for u in tick.iter(f"{{{SVG_NS['svg']}}}use") if u.get("y") is not None)
        label = "".join(next(tick.iter(f"{{{SVG_NS['svg']}}}text")).itertext())
        x, y = canvas_pt(mark, float(mark.get("x")), float(mark.get("y")))
        out.append((number(label), x if which == "x" else y))
    assert len(out) >= 2, f"{panel}: fewer than two {which} ticks"
    return out


def scale(tick_list, transform=lambda v: v):
    """The axis scale fitted to its ticks: value -> pt (linear in ``transform(value)``); the ticks
    must lie on it to 0.01 pt."""
    t = np.array([transform(v) for v, _ in tick_list])
    pos = np.array([p for _, p in tick_list])
    slope, offset = np.polyfit(t, pos, 1)
    assert np.abs(slope * t + offset - pos).max() < 0.01, "ticks not on one scale"
    return lambda v: float(slope * transform(v) + offset)


def path_points(path) -> list[tuple[float, float]]:
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path.get("d"))]
    return [canvas_pt(path, x, y) for x, y in zip(nums[::2], nums[1::2])]


def style_of(el) -> dict[str, str]:
    return dict(kv.split(":", 1) for kv in (s.strip() for s in el.get("style", "").split(";")) if ":" in kv)


def bars(ax, panel: str) -> list[dict]:
    """The filled, clipped rectangles drawn in ``ax`` itself (its bars and spans; not the legend's
    patches), left to right: x centre, top, bottom (pt), fill and fill-opacity."""
    out = []
    for group in by_id(ax, rf"{re.escape(panel)}--patch_\d+"):
        if group.getparent() is not ax:
            continue
        path = group.find("svg:path", SVG_NS)
        style = {k.strip(): v.strip() for k, v in style_of(path).items()}
        if path.get("clip-path") is None or style.get("fill", "none") == "none":
            continue
        pts = path_points(path)
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        out.append({"x": (min(xs) + max(xs)) / 2, "top": min(ys), "bottom": max(ys), "fill": style["fill"],
                    "opacity": float(style.get("fill-opacity", 1)), "width": max(xs) - min(xs)})
    return sorted(out, key=lambda b: b["x"])


def lines(ax, panel: str, color: str) -> list[list[tuple[float, float]]]:
    """The vertices (pt) of every clipped line of ``ax`` stroked in ``color``."""
    out = []
    for group in by_id(ax, rf"{re.escape(panel)}--line2d_\d+"):
        path = group.find("svg:path", SVG_NS)
        if path is not None and path.get("clip-path") and style_of(path).get("stroke", "").strip() == color:
            out.append(path_points(path))
    return out


def texts(el) -> list[str]:
    """Every ``<text>`` under ``el``, its characters joined (tspans included)."""
    return ["".join(t.itertext()) for t in el.iter(f"{{{SVG_NS['svg']}}}text")]


def panel(root, name: str):
    return by_id(root, f"panel-{re.escape(name)}")[0]


def canvas_texts(root) -> list[str]:
    return [" ".join("".join(t.itertext()) for t in g.iter(f"{{{SVG_NS['svg']}}}text"))
            for g in by_id(root, r"text-\d+")]


def distance_to_polyline(point, vertices) -> float:
    p = np.array(point)
    best = math.inf
    for a, b in zip(vertices, vertices[1:]):
        a, b = np.array(a), np.array(b)
        t = np.clip(np.dot(p - a, b - a) / max(np.dot(b - a, b - a), 1e-12), 0, 1)
        best = min(best, float(np.linalg.norm(p - (a + t * (b - a)))))
    return best


# ─── figure 3: leave-one-feature-out ────────────────────────────────────────

def test_lofo_bar_heights_labels_and_highlight_come_from_the_data(svgs):
    data = load("information_state_ablation.json")
    drops = [v["r2_drop"] for v in data["lofo_ablations"].values()]
    root = svgs["qtf_lofo"]
    (ax,) = axes(root, "plot")
    y = scale(ticks(ax, "plot", "y"))
    drawn = bars(ax, "plot")
    assert len(drawn) == len(drops) == 8
    for bar, drop in zip(drawn, drops):  # in the data file's order, left to right
        assert bar["bottom"] == pytest.approx(y(0), abs=TOL_PT)
        assert bar["bottom"] - bar["top"] == pytest.approx(y(0) - y(drop), abs=TOL_PT)
    # the two largest drops in full colour, the others paler
    top_two = sorted(range(8), key=lambda i: -drops[i])[:2]
    assert [i for i, b in enumerate(drawn) if b["opacity"] == 1] == sorted(top_two)
    assert all(b["fill"] == COLORS["blue"] for b in drawn)
    labels = texts(panel(root, "plot"))
    for drop in drops:
        assert f"{drop:.3f}" in labels
    assert any(f"R² = {data['full_model_r2']:.3f}" in t for t in canvas_texts(root))
    assert any("SYNTHETIC example data" in t for t in canvas_texts(root))


# ─── figure 5: rank latency and traffic ─────────────────────────────────────

@pytest.mark.parametrize(("name", "metric"), [("latency", "latency_ms"), ("traffic", "memory_traffic_kb")])
def test_adaptive_rank_line_vertices_are_the_data(svgs, name, metric):
    data = load("adaptive_rank_results.json")
    ranks = data["ranks"]
    values = [data["empirical_rank_metrics"][f"rank_{r}"][metric] for r in ranks]
    root = svgs["qtf_adaptive_rank"]
    (ax,) = axes(root, name)
    x = scale(ticks(ax, name, "x"), math.log2)  # the rank axis is log2: 1, 2, 4, 8 evenly spaced
    y = scale(ticks(ax, name, "y"))
    color = COLORS["green" if name == "latency" else "orange"]
    (vertices,) = lines(ax, name, color)
    assert np.ravel(vertices) == pytest.approx(np.ravel([(x(r), y(v)) for r, v in zip(ranks, values)]), abs=TOL_PT)


def test_adaptive_rank_panels_are_lettered_and_share_one_x_title(svgs):
    data = load("adaptive_rank_results.json")
    root = svgs["qtf_adaptive_rank"]
    canvas = canvas_texts(root)
    assert any(f"{data['device']}, batch size {data['batch_size']}, {data['seq_len']} tokens" in t
               for t in canvas)
    labels = [el.get("{http://www.inkscape.org/namespaces/inkscape}label") for el in by_id(root, r"panel-\w+")]
    assert labels == ["panel latency (a, Forward latency)", "panel traffic (b, DRAM memory traffic)"]
    # no panel draws an x title of its own: the one "active TT rank" text is the canvas's
    assert not any("rank" in t for name in ("latency", "traffic") for t in texts(panel(root, name)))


# ─── figure 6: GQA/MQA audit, twin axes ─────────────────────────────────────

def test_gqa_bars_on_the_left_axis_latency_on_the_twin_axis(svgs):
    data = load("gqa_audit.json")
    seq = str(data["seq_len"])
    metrics = [c["seq_metrics"][seq] for c in data["configurations"].values()]
    root = svgs["qtf_gqa_audit"]
    left, twin = axes(root, "plot")
    y_kb = scale(ticks(left, "plot", "y"))
    y_ms = scale(ticks(twin, "plot", "y"))
    drawn = bars(left, "plot")
    assert len(drawn) == len(metrics) == 4
    for bar, m in zip(drawn, metrics):
        assert bar["bottom"] - bar["top"] == pytest.approx(y_kb(0) - y_kb(m["stored_kv_kb"]), abs=TOL_PT)
    (vertices,) = lines(twin, "plot", COLORS["vermillion"])
    assert [vy for _, vy in vertices] == pytest.approx([y_ms(m["decode_latency_ms"]) for m in metrics],
                                                       abs=TOL_PT)
    assert [vx for vx, _ in vertices] == pytest.approx([b["x"] for b in drawn], abs=TOL_PT)  # one per bar
    labels = texts(panel(root, "plot"))
    for m in metrics:
        assert f"{m['stored_kv_kb']:g}" in labels and f"{m['decode_latency_ms']:.2f} ms" in labels
    # one legend holds both axes' entries
    (legend,) = by_id(root, r"plot--legend_\d+")
    assert texts(legend) == [f"stored KV (KB at T = {seq})", "single-token decode latency (ms)"]
    assert any(f"T = {seq} tokens" in t for t in canvas_texts(root))


# ─── figure 8: controller step response ─────────────────────────────────────

def test_controller_traces_band_and_labels_come_from_the_data(svgs):
    data = load("controller_convergence.json")
    root = svgs["qtf_controller"]
    (ax,) = axes(root, "plot")
    x = scale(ticks(ax, "plot", "x"))
    y = scale(ticks(ax, "plot", "y"))
    for key, color in (("static_heuristic", "grey"), ("p_only", "orange"), ("pid_dual", "blue")):
        (vertices,) = lines(ax, "plot", COLORS[color])
        # matplotlib may drop collinear vertices: every data point lies on the drawn polyline
        worst = max(distance_to_polyline((x(s), y(v)), vertices)
                    for s, v in zip(data["steps"], data["traces"][key]))
        assert worst < TOL_PT, key
        ends = [(x(data["steps"][i]), y(data["traces"][key][i])) for i in (0, -1)]
        assert np.ravel([vertices[0], vertices[-1]]) == pytest.approx(np.ravel(ends), abs=TOL_PT)
    target, tol = data["target_latency_ms"], data["tolerance_pct"] / 100
    (band,) = bars(ax, "plot")
    assert (band["top"], band["bottom"]) == pytest.approx((y(target * (1 + tol)), y(target * (1 - tol))),
                                                          abs=TOL_PT)
    canvas = canvas_texts(root)
    assert f"SLA {target:.2f} ms ± {data['tolerance_pct']} %" in canvas
    assert (f"load step at token {data['disturbance_step']}: sequence length {data['seq_len_before']} → "
            f"{data['seq_len_after']}") in canvas


# ─── figure 10: quantum overhead ────────────────────────────────────────────

def test_quantum_log_bars_and_budget_come_from_the_data(svgs):
    data = load("quantum_utility.json")
    overhead = data["latency_and_overhead"]
    lats = [overhead[k] for k in ("classical_sdpa_lat_ms", "surrogate_kernel_lat_ms", "statevector_sim_lat_ms")]
    root = svgs["qtf_quantum"]
    (ax,) = axes(root, "overhead")
    y = scale(ticks(ax, "overhead", "y"), math.log10)  # decades evenly spaced: a log axis
    drawn = bars(ax, "overhead")
    assert [b["top"] for b in drawn] == pytest.approx([y(v) for v in lats], abs=TOL_PT)
    labels = texts(panel(root, "overhead"))
    for v in lats:
        assert f"{v:g} ms" in labels
    (ax,) = axes(root, "budget")
    y = scale(ticks(ax, "budget", "y"))
    (bar,) = bars(ax, "budget")
    assert bar["bottom"] - bar["top"] == pytest.approx(y(0) - y(data["qpu_budget_ms"]), abs=TOL_PT)
    (sdpa,) = lines(ax, "budget", COLORS["blue"])
    assert {round(py, 3) for _, py in sdpa} == {round(y(overhead["classical_sdpa_lat_ms"]), 3)}
    canvas = canvas_texts(root)
    assert any(f"≤ {data['qpu_budget_ms']:.3f} ms" in t for t in canvas)
    assert any(f"{data['n_qubits']} qubits" in t for t in canvas)


# ─── the data: deterministic, synthetic, every key required ─────────────────

def test_the_data_files_are_what_the_generator_writes(tmp_path):
    spec = importlib.util.spec_from_file_location("make_gallery_data", REPO / "data" / "make_gallery_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.HERE = tmp_path
    module.qtensorformer_figures_3_5_6_8_10()
    written = sorted(p.name for p in (tmp_path / "qtensorformer").iterdir())
    assert written == ["adaptive_rank_results.json", "controller_convergence.json", "gqa_audit.json",
                       "information_state_ablation.json", "quantum_utility.json"]
    for name in written:
        assert (tmp_path / "qtensorformer" / name).read_bytes() == (DATA / name).read_bytes(), name
        assert load(name)["source"].startswith("SYNTHETIC")


MISSING = [("qtf_lofo", "information_state_ablation.json", ["lofo_ablations", "U_t (Uncertainty)", "r2_drop"]),
           ("qtf_lofo", "information_state_ablation.json", ["full_model_r2"]),
           ("qtf_adaptive_rank", "adaptive_rank_results.json", ["empirical_rank_metrics", "rank_4"]),
           ("qtf_adaptive_rank", "adaptive_rank_results.json", ["device"]),
           ("qtf_gqa_audit", "gqa_audit.json",
            ["configurations", "GQA (4:1)", "seq_metrics", "2048", "decode_latency_ms"]),
           ("qtf_controller", "controller_convergence.json", ["traces", "p_only"]),
           ("qtf_controller", "controller_convergence.json", ["tolerance_pct"]),
           ("qtf_quantum", "quantum_utility.json", ["latency_and_overhead", "surrogate_kernel_lat_ms"]),
           ("qtf_quantum", "quantum_utility.json", ["qpu_budget_ms"])]


@pytest.mark.parametrize(("name", "file", "keys"), MISSING, ids=[f"{n}-{k[-1]}" for n, _, k in MISSING])
def test_a_missing_key_fails_the_build_in_one_line_naming_it(tmp_path, capsys, name, file, keys):
    root = copy_project(tmp_path / "proj")
    path = root / "data" / "qtensorformer" / file
    doc = json.loads(path.read_text())
    node = doc
    for key in keys[:-1]:
        node = node[key]
    del node[keys[-1]]
    path.write_text(json.dumps(doc))
    assert main([name, "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err.strip()
    # one error line; a KeyError raised in the panel code is followed by its frames, all in that code
    assert err.startswith("compose: error: ") and len(without_frames(err)) == 1, err
    frames = [line for line in frames_block(err) if re.match(r"^    \S.*:\d+ in ", line)]
    assert all("panels/qtensorformer.py:" in line for line in frames), err
    assert repr(keys[-1]) in err or f"{{{keys[-1]}}}" in err, err
    assert not (root / "build" / f"{name}.svg").exists()
