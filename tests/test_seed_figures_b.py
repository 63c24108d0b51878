"""Q-TensorFormer seed figures 11, 13, 14, 15 and 16 (issue 16): each figure shows its data file's values.

Each figure is built from a copy of the project with ``text = "editable"`` (so panel text stays
``<text>`` and can be read back); the test reads the data file itself and finds what it says in the
SVG: the numbers printed, and the drawn geometry in pt (bar lengths, marker and line positions,
wedge sweeps) measured against the axis scale the SVG's own tick marks and tick labels give. The
expected values (shares, sums, relative improvements) are computed here from the data, not by the
renderers. A missing key fails the build with one error line naming it, never a fallback number.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import shutil

import numpy as np
import pytest
from lxml import etree

from composer.cli.main import main
from composer.pipeline import build
from conftest import REPO, editable
from errlines import frames_block, without_frames

FIGURES = ("qtf_subsystem_breakdown", "qtf_pareto", "qtf_counter_hypothesis", "qtf_baseline_pareto",
           "qtf_baseline_improvements")
QTF = REPO / "data" / "qtensorformer"
SVG = "{http://www.w3.org/2000/svg}"
SUBSYSTEMS = ("tt_ffn_contraction_ms", "info_state_zt_ms", "resource_allocator_ms", "attention_and_projections_ms",
              "core_slicing_overhead_ms", "norms_and_residuals_ms")


def load(name: str) -> dict:
    return json.loads((QTF / name).read_text(encoding="utf-8"))


def copy_project(root):
    for part in ("layouts", "panels", "data", "styles"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def svgs(tmp_path_factory):
    """name -> the parsed SVG of that figure, built with editable text from a copy of the project."""
    root = copy_project(tmp_path_factory.mktemp("seeds_b") / "proj")
    out = {}
    for name in FIGURES:
        layout = root / "layouts" / f"{name}.toml"
        layout.write_text(editable(layout.read_text(encoding="utf-8")), encoding="utf-8")
        result = build(name, root=root, formats=("svg",))
        out[name] = etree.fromstring(result.outputs["svg"].read_bytes())
    return out


# ─── reading the SVG ──────────────────────────────────────────────────────

def by_id(root, ident: str):
    found = [el for el in root.iter() if isinstance(el.tag, str) and el.get("id") == ident]
    assert len(found) == 1, f"{ident}: {len(found)} elements"
    return found[0]


def text_of(el) -> str:
    return "".join(el.itertext())


def panel_texts(root, panel: str) -> list[str]:
    """The strings matplotlib wrote as ``<text>`` inside panel ``panel``."""
    return [text_of(el) for el in root.iter(f"{SVG}text")
            if (el.getparent().get("id") or "").startswith(f"{panel}--")]


def canvas_texts(root) -> list[str]:
    """The canvas texts (headline, titles, footer): ``<text>`` outside every panel."""
    return [text_of(el) for el in root.iter(f"{SVG}text")
            if not any((a.get("id") or "").startswith("panel-") for a in el.iterancestors())]


def number(text: str) -> float:
    return float(text.replace("\u2212", "-"))


def scale(root, panel: str, axis: str, log: bool = False):
    """The axis's data -> pt map of one panel, from its tick marks (``<use>`` x or y) and tick labels:
    a straight line through the outermost two ticks (in log10 for a log axis), checked on the others."""
    ticks = []
    for group in root.iter(f"{SVG}g"):
        if re.fullmatch(rf"{re.escape(panel)}--{axis}tick_\d+", group.get("id") or ""):
            mark = next(group.iter(f"{SVG}use"))
            ticks.append((number(text_of(next(group.iter(f"{SVG}text")))), float(mark.get(axis))))
    assert len(ticks) >= 2, (panel, axis, ticks)
    f = np.log10 if log else (lambda v: v)
    (v0, p0), (v1, p1) = min(ticks), max(ticks)
    slope = (p1 - p0) / (f(v1) - f(v0))

    def to_pt(v):
        return p0 + slope * (f(v) - f(v0))
    for v, p in ticks:
        assert to_pt(v) == pytest.approx(p, abs=0.01)
    return to_pt


def path_points(el) -> np.ndarray:
    """The vertices (control points included) of the first ``<path>`` at or under ``el``, in pt."""
    path = el if el.tag == f"{SVG}path" else next(el.iter(f"{SVG}path"))
    nums = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", path.get("d"))]
    return np.array(nums).reshape(-1, 2)


def marker_at(root, ident: str) -> tuple[float, float]:
    """Where a one-point scatter (gid ``ident``) drew its marker: its ``<use>`` x, y."""
    use = next(by_id(root, ident).iter(f"{SVG}use"))
    return float(use.get("x")), float(use.get("y"))


def legends(root) -> list[str]:
    """The ids of every matplotlib legend group in the figure (a panel's own, or a collected one)."""
    return [el.get("id") for el in root.iter(f"{SVG}g") if re.fullmatch(r".+--legend_\d+", el.get("id") or "")]


def bar_extent(root, ident: str, axis: str) -> tuple[float, float]:
    """A bar's two edges along ``axis`` (``x`` for horizontal bars, ``y`` for vertical ones), in pt."""
    pts = path_points(by_id(root, ident))[:4]
    k = 0 if axis == "x" else 1
    return float(pts[:, k].min()), float(pts[:, k].max())


# ─── figure 11: two pies ──────────────────────────────────────────────────

def sweep_deg(points: np.ndarray) -> float:
    """The angle a wedge's arc sweeps: its path runs along the arc (Bézier control points included,
    each step under 90 degrees) and ends at the centre; the angle is the sum of the steps about it."""
    centre, arc = points[-1], points[:-1]
    angles = np.unwrap(np.arctan2(arc[:, 1] - centre[1], arc[:, 0] - centre[0]))
    return float(abs(np.degrees(angles[-1] - angles[0])))


@pytest.mark.parametrize("phase", ["prefill", "decode"])
def test_subsystem_pies_show_the_data_shares(svgs, phase):
    root = svgs["qtf_subsystem_breakdown"]
    data = load("detailed_latency_profile.json")
    shares = data[f"{phase}_percentage_breakdown"]
    total = sum(shares[k] for k in SUBSYSTEMS)
    sweeps = []
    for key in SUBSYSTEMS:
        sweep = sweep_deg(path_points(by_id(root, f"{phase}--wedge-{phase}-{key}")))
        assert sweep == pytest.approx(360 * shares[key] / total, abs=0.01), key
        sweeps.append(sweep)
    assert sum(sweeps) == pytest.approx(360, abs=0.01)
    texts = panel_texts(root, phase)
    for key in SUBSYSTEMS:
        assert f"{shares[key]:.1f}%" in texts, key
    titles = canvas_texts(root)
    if phase == "prefill":
        assert f"Prefill, T = {data['prefill_tokens']} tokens: {data['prefill_total_ms']:.2f} ms" in titles
    else:
        assert f"Decode, T = 1 (KV cached): {data['decode_total_ms']:.2f} ms" in titles
    assert any("SYNTHETIC example data" in t for t in titles)


def test_subsystem_pies_share_one_collected_legend_in_data_order(svgs):
    # one legend, collected from both pies' wedge labels ([[legend]]), none drawn inside a pie; its
    # entries are the sub-systems in the data's order. "information state $z_t$" is mathtext, which
    # stays outlines under text = "editable": that entry's group holds glyph paths and no <text>
    root = svgs["qtf_subsystem_breakdown"]
    assert legends(root) == ["legend-0--legend_1"]
    entries = [el for el in root.iter(f"{SVG}g") if re.fullmatch(r"legend-0--text_\d+", el.get("id") or "")]
    assert [el.get("id") for el in entries] == [f"legend-0--text_{i}" for i in range(1, 7)]
    shown = ["".join("".join(t.itertext()) for t in el.iter(f"{SVG}text")) or None for el in entries]
    assert shown == ["TT-FFN contraction", None, "resource allocator", "attention and projections",
                     "core slicing overhead", "norms and residuals"]
    assert len(list(entries[1].iter(f"{SVG}use"))) + len(list(entries[1].iter(f"{SVG}path"))) >= len("information")


# ─── figure 13: Pareto frontier and hypervolume margins ───────────────────

def test_pareto_points_and_margins_are_the_data(svgs):
    root = svgs["qtf_pareto"]
    data = load("pareto_frontiers.json")
    x_pt, y_pt = scale(root, "frontier", "x", log=True), scale(root, "frontier", "y")
    texts = panel_texts(root, "frontier")
    for name, s in data["systems"].items():
        assert marker_at(root, f"frontier--point-{name}") == pytest.approx(
            (x_pt(s["latency_ms"]), y_pt(s["quality_score"])), abs=0.01), name
        assert name in texts
    y_pt = scale(root, "margins", "y")
    texts = panel_texts(root, "margins")
    for dim, adv in data["hypervolume_advantage_pct"].items():
        top, bottom = bar_extent(root, f"margins--bar-{dim.replace(' ', '_')}", "y")
        assert bottom - top == pytest.approx(y_pt(0) - y_pt(adv), abs=0.01), dim
        assert f"+{adv:.1f}%" in texts
        assert all(word in texts for word in dim.split()), dim  # a two-word name is written on two lines
    assert f"Hypervolume margin over the {data['reference']}" in canvas_texts(root)


def test_pareto_frontier_is_the_non_dominated_points(svgs):
    """The dashed step line passes through the points no other system beats on both latency and quality."""
    root = svgs["qtf_pareto"]
    systems = load("pareto_frontiers.json")["systems"]
    front = sorted((s["latency_ms"], s["quality_score"]) for n, s in systems.items()
                   if not any(o["latency_ms"] <= s["latency_ms"] and o["quality_score"] >= s["quality_score"]
                              and o is not s for o in systems.values()))
    assert len(front) >= 2
    x_pt, y_pt = scale(root, "frontier", "x", log=True), scale(root, "frontier", "y")
    line = path_points(by_id(root, "frontier--frontier"))
    for lat, q in front:
        assert np.min(np.hypot(line[:, 0] - x_pt(lat), line[:, 1] - y_pt(q))) < 0.01
    others = [(s["latency_ms"], s["quality_score"]) for s in systems.values()
              if (s["latency_ms"], s["quality_score"]) not in front]
    for lat, q in others:  # a dominated point is off the line's corners
        assert np.min(np.hypot(line[:, 0] - x_pt(lat), line[:, 1] - y_pt(q))) > 1


# ─── figure 14: failure regimes ───────────────────────────────────────────

def test_counter_hypothesis_lines_and_floor_are_the_data(svgs):
    root = svgs["qtf_counter_hypothesis"]
    data = load("counter_hypothesis_results.json")
    rows = data["regime_1_large_batch_prefill"]["data"]
    batches = sorted(int(k[2:]) for k in rows)
    x_pt, y_pt = scale(root, "batch", "x", log=True), scale(root, "batch", "y", log=True)
    for kind, key in (("dense", "dense_gemm_latency_ms"), ("tt", "tt_contraction_latency_ms")):
        pts = path_points(by_id(root, f"batch--line-{kind}"))
        expected = [(x_pt(b), y_pt(rows[f"B_{b}"][key])) for b in batches]
        assert pts == pytest.approx(np.array(expected), abs=0.01), kind
    r = data["regime_3_micro_deadline"]
    floor = r["allocator_decision_ms"] + r["core_slicing_overhead_ms"]
    y_pt = scale(root, "deadline", "y")
    texts = panel_texts(root, "deadline")
    for part, value in (("allocator", r["allocator_decision_ms"]), ("slicing", r["core_slicing_overhead_ms"]),
                        ("floor", floor), ("target", r["target_sla_ms"])):
        top, bottom = bar_extent(root, f"deadline--bar-{part}", "y")
        assert bottom - top == pytest.approx(y_pt(0) - y_pt(value), abs=0.01), part
        assert f"{value:.2f} ms" in texts
    assert "latency (ms)" in canvas_texts(root)  # the one y title beside both panels


# ─── figures 15 and 16: fourteen architectures ────────────────────────────

@pytest.mark.parametrize("panel, x, y, x_log, y_log", [
    ("memory", "peak_ram_mb", "tokens_per_sec", True, False),
    ("quality", "tpot_ms", "cosine_fidelity", False, False),
    ("energy", "cost_per_million_tokens_usd", "energy_uj_per_tok", False, True)])
def test_baseline_pareto_points_are_the_data(svgs, panel, x, y, x_log, y_log):
    root = svgs["qtf_baseline_pareto"]
    data = load("baseline_comparison_master.json")
    x_pt, y_pt = scale(root, panel, "x", log=x_log), scale(root, panel, "y", log=y_log)
    texts = panel_texts(root, panel)
    for m in data["models"]:
        assert marker_at(root, f"{panel}--point-{m['model_id']}") == pytest.approx(
            (x_pt(m["metrics"][x]), y_pt(m["metrics"][y])), abs=0.01), m["model_id"]
        assert m["short_name"] in texts
    headline = f"Baseline Pareto frontiers: {len(data['models'])} architectures on three trade-offs"
    assert headline in canvas_texts(root)


def test_baseline_pareto_panels_share_one_collected_legend_in_data_order(svgs):
    # one legend collected from the three panels' labelled points and frontiers: each category once, in the
    # order the data's models first name it, then the frontier; no panel keeps a legend of its own
    root = svgs["qtf_baseline_pareto"]
    data = load("baseline_comparison_master.json")
    assert legends(root) == ["legend-0--legend_1"]
    categories = list(dict.fromkeys(m["category"] for m in data["models"]))
    assert len(categories) == 8
    assert panel_texts(root, "legend-0") == categories + ["Pareto frontier"]


def test_baseline_improvements_are_relative_to_each_baseline(svgs):
    root = svgs["qtf_baseline_improvements"]
    data = load("baseline_comparison_master.json")
    models = {m["model_id"]: m for m in data["models"]}
    target = models[data["target"]]
    baselines = [m for m in data["models"] if m["category"] != target["category"]]
    assert len(baselines) == 11
    x_pt = scale(root, "plot", "x")
    metrics = ("peak_ram_mb", "kv_cache_1k_mb", "dram_traffic_bytes_per_tok", "active_flops_m",
               "energy_uj_per_tok")
    signs = set()
    for key in metrics:
        for b in baselines:
            pct = (b["metrics"][key] - target["metrics"][key]) / b["metrics"][key] * 100
            left, right = bar_extent(root, f"plot--bar-{key}-{b['model_id']}", "x")
            assert (left, right) == pytest.approx(sorted((x_pt(0), x_pt(pct))), abs=0.01), (key, b["model_id"])
            signs.add(pct > 0)
    assert signs == {True, False}  # the data has a baseline that beats the target: drawn left of zero
    texts = panel_texts(root, "plot")
    assert [t for t in texts if t in {b["display_name"] for b in baselines}] == [b["display_name"] for b in baselines]
    assert f"Q-TensorFormer (Edge-SLA) against {len(baselines)} baselines: how much less it needs, cost by cost" \
        in canvas_texts(root)


# ─── no fallback numbers ──────────────────────────────────────────────────

def _drop(doc, path):
    *parents, last = path
    for key in parents:
        doc = doc[key]
    del doc[last]


@pytest.mark.parametrize("figure, file, path, named", [
    ("qtf_subsystem_breakdown", "detailed_latency_profile.json",
     ("decode_percentage_breakdown", "core_slicing_overhead_ms"), "core_slicing_overhead_ms"),
    ("qtf_subsystem_breakdown", "detailed_latency_profile.json", ("prefill_total_ms",), "prefill_total_ms"),
    ("qtf_pareto", "pareto_frontiers.json", ("systems", "DeeBERT", "latency_ms"), "latency_ms"),
    ("qtf_pareto", "pareto_frontiers.json", ("hypervolume_advantage_pct",), "hypervolume_advantage_pct"),
    ("qtf_counter_hypothesis", "counter_hypothesis_results.json",
     ("regime_3_micro_deadline", "target_sla_ms"), "target_sla_ms"),
    ("qtf_counter_hypothesis", "counter_hypothesis_results.json",
     ("regime_1_large_batch_prefill", "data", "B_32", "tt_contraction_latency_ms"), "tt_contraction_latency_ms"),
    ("qtf_baseline_pareto", "baseline_comparison_master.json", ("models", 3, "metrics", "tpot_ms"), "tpot_ms"),
    ("qtf_baseline_pareto", "baseline_comparison_master.json", ("models", 5, "short_name"), "short_name"),
    ("qtf_baseline_improvements", "baseline_comparison_master.json",
     ("models", 5, "metrics", "kv_cache_1k_mb"), "kv_cache_1k_mb"),
    ("qtf_baseline_improvements", "baseline_comparison_master.json", ("n_baselines",), "n_baselines"),
])
def test_a_missing_key_fails_the_build_naming_it(tmp_path, capsys, figure, file, path, named):
    root = copy_project(tmp_path / "proj")
    target = root / "data" / "qtensorformer" / file
    doc = json.loads(target.read_text(encoding="utf-8"))
    _drop(doc, path)
    target.write_text(json.dumps(doc), encoding="utf-8")
    assert main([figure, "--root", str(root), "--format", "svg"]) == 1
    err = capsys.readouterr().err
    # one error line; a KeyError raised in the panel code is followed by its frames, all in that code
    assert len(without_frames(err)) == 1 and named in without_frames(err)[0], err
    frames = [line for line in frames_block(err) if re.match(r"^    \S.*:\d+ in ", line)]
    assert all("panels/qtensorformer.py:" in line for line in frames), err
    assert not (root / "build" / f"{figure}.svg").exists()


def test_the_generator_writes_these_files(tmp_path):
    """data/make_gallery_data.py's figure 11-16 block is deterministic and the committed files are its output."""
    spec = importlib.util.spec_from_file_location("make_gallery_data", REPO / "data" / "make_gallery_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.HERE = tmp_path
    module.qtensorformer_results()
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert {p.name for p in written} == {"detailed_latency_profile.json", "pareto_frontiers.json",
                                         "counter_hypothesis_results.json", "baseline_comparison_master.json"}
    for rel in written:
        assert (tmp_path / rel).read_bytes() == (REPO / "data" / rel).read_bytes(), rel
        doc = json.loads((tmp_path / rel).read_text())
        assert doc["source"].startswith("SYNTHETIC")
    shares = load("detailed_latency_profile.json")
    for phase in ("prefill", "decode"):
        assert math.isclose(sum(shares[f"{phase}_percentage_breakdown"].values()), 100.0, abs_tol=1e-9)


# ─── docs/seeds.md ────────────────────────────────────────────────────────

#: the other half of issue 16, built on another branch: the only layouts docs/seeds.md may lack
OTHER_BRANCH = {"qtf_lofo", "qtf_adaptive_rank", "qtf_gqa_audit", "qtf_controller", "qtf_quantum"}


def _generate_module():
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_seeds_doc_is_what_the_generator_writes():
    from composer.stages.inputs import Project

    gen = _generate_module()
    doc = (REPO / "docs" / "seeds.md").read_text(encoding="utf-8")
    assert doc == gen.seeds_markdown(allow_missing=True), \
        "regenerate: python docs/generate.py --seeds-only (with --allow-missing while a layout is not built yet)"
    missing = {s.layout for s in gen.SEED_FIGURES} - set(Project.at(REPO).figures())
    assert missing <= OTHER_BRANCH, f"seed figures without a layout: {sorted(missing - OTHER_BRANCH)}"
    rows = [line for line in doc.splitlines() if line.startswith("| `")]
    assert len(rows) == len(gen.SEED_FIGURES) == 27
    for seed, row in zip(gen.SEED_FIGURES, rows):
        assert f"`{seed.function}`" in row and seed.layout in row
        if seed.layout not in missing:
            assert f"gallery/{seed.layout}.png" in row
    assert "(docs/seeds.md)" in (REPO / "README.md").read_text(encoding="utf-8")


def test_a_seed_layout_that_does_not_exist_stops_the_generator():
    gen = _generate_module()
    with pytest.raises(SystemExit, match="qtf_not_a_figure"):
        gen.layout_code(REPO, "qtf_not_a_figure")


def test_the_seed_table_has_all_27_figures():
    """1 + 1 + 6 + 3 + 16 figures of the five seed scripts, each function once, each layout once."""
    gen = _generate_module()
    per_script: dict[str, int] = {}
    for seed in gen.SEED_FIGURES:
        per_script[seed.script] = per_script.get(seed.script, 0) + 1
        assert (seed.span is None) == (seed.lines is None) != (seed.chars is None), seed
        if seed.span:
            assert seed.span[0] <= seed.span[1] and 0 < seed.lines <= seed.span[1] - seed.span[0] + 1
    assert per_script == {"volume_kv_method.py.txt": 1, "kvpath_delta.py.txt": 1, "spectralquant_figures.py.txt": 6,
                          "compression_ladder_figures.py.txt": 3, "qtensorformer_figures.py.txt": 16}
    assert len({(s.script, s.function) for s in gen.SEED_FIGURES}) == 27
    assert len({s.layout for s in gen.SEED_FIGURES}) == 27
    qtf = [s for s in gen.SEED_FIGURES if s.script.startswith("qtensorformer")]
    assert [int(re.match(r"plot_fig(\d+)_", s.function).group(1)) for s in qtf] == list(range(1, 17))


def test_code_lines_counts_code_only():
    gen = _generate_module()
    python = 'def f(x):\n    """Doc\n    more."""\n    # a comment\n\n    y = x  # trailing\n    return y\n'
    assert gen.code_lines(python) == 3                    # def, y =, return
    toml = 'a = 1\n# comment\n\n[b]\nmosaic = """\nAB\n"""\n'
    assert gen.code_lines(toml, python=False) == 5        # everything but the comment and the blank
    # the Q-TensorFormer seed's shape: "| " before every line, blank lines between, indentation lost
    seed = ('| import os \n\n| def f(): \n\n| """One line.""" \n\n| # comment \n\n| x = 1 \n\n| return x \n\n'
            '| def g(): \n\n| return 2 \n')
    assert gen.measure_seed(seed, "f") == ((3, 11), 3, None)   # def, x = 1, return x
    assert gen.measure_seed(seed, "g") == ((13, 15), 2, None)
    plain = 'path/to/script.py\n\n"""Module doc."""\nimport os\n\n\ndef f():\n    return 1\n\n\nX = 2\n'
    assert gen.measure_seed(plain, "f") == ((7, 8), 2, None)
    assert gen.measure_seed(plain, "(the whole script)") == ((1, 11), 4, None)  # not the path, not the doc
    flat = "import os def f(): x = 1 return x def g(): return 2"
    assert gen.measure_seed(flat, "f") == (None, None, len("def f(): x = 1 return x"))


def test_layout_code_counts_the_layout_and_what_its_renderers_use(tmp_path):
    gen = _generate_module()
    (tmp_path / "layouts").mkdir()
    (tmp_path / "panels").mkdir()
    (tmp_path / "layouts" / "fig.toml").write_text(
        '# a figure\n[figure]\nwidth = "40mm"\nheight = "30mm"\n\n[panels.a]\nrender = "mod:draw"\n'
        'size = ["10mm", "10mm"]\nat = ["0mm", "0mm"]\n', encoding="utf-8")
    (tmp_path / "panels" / "mod.py").write_text(
        'import numpy as np\n\nSCALE = 2\nUNUSED = 3\n\n\ndef _helper(v):\n    """Doc."""\n    return v * SCALE\n'
        '\n\ndef other():\n    return UNUSED\n\n\ndef draw(fig, data):\n    ax = fig.add_subplot()\n'
        '    # a comment\n    ax.plot([_helper(1)])\n', encoding="utf-8")
    layout_lines, renderer_lines, functions = gen.layout_code(tmp_path, "fig")
    assert layout_lines == 7                               # the TOML's lines that are not blank or comment
    assert renderer_lines == 1 + 2 + 3                     # SCALE; _helper's def, return; draw's three lines
    assert functions == ["mod:_helper", "mod:draw"]
