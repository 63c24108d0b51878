"""``compose check``: one planted fault per rule, the squeezed panel, the flagship, the CLI.

The fixture set is tests/projects/lint: ``clean.toml`` has no fault and every
other layout plants exactly one, named after its rule. Each rule's test
checks that the report names exactly that fault, on the planted element.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
from pathlib import Path

import pytest

from composer.cli.main import main
from composer.errors import LayoutError
from composer.lint.rules import RULES
from composer.pipeline import check
from conftest import REPO, snapshot
from errlines import without_frames

LINT = Path(__file__).resolve().parents[1] / "projects" / "lint"

#: rule -> (layout, text the finding's element must contain)
PLANTED = {
    "font-size": ("font_size", "panel tiny"),
    "line-width": ("line_width", "panel hair"),
    "raster-ppi": ("raster_ppi", "panel coarse: image 8x8 px"),
    "overlap": ("overlap_text", "text first / text second"),
    "outside-canvas": ("outside_canvas", "text edge"),
    "outside-panel": ("outside_panel", "panel spilled"),
    "font-missing": ("font_missing", "text[0].font"),
    "font-substituted": ("font_substituted", "panel fonts"),
    "dangling-connector": ("dangling_connector", "arrow[0] end"),
    "color-vision": ("color_vision", "shape green"),
    "figure-size": ("figure_size", "canvas"),
    "import-feature": ("import_feature", "panel web: "),
    "font-family": ("font_family", "figure.font"),
    "output-format": ("output_format", "build/output_format.png"),
    "output-dpi": ("output_dpi", "build/output_dpi.png"),
    "file-size": ("file_size", "build/file_size.svg"),
    "alt-text": ("alt_text", "figure.alt"),
    "pdf-fonts": ("pdf_fonts", "+DejaVuSans (Type 3)"),
}
#: rules measured on the files a build wrote: rule -> (formats, dpi) the planted layout is built with first
BUILT = {"output-format": (("png",), 300.0), "output-dpi": (("png",), 300.0), "file-size": (("svg",), 100.0),
         "pdf-fonts": (("pdf",), 100.0)}


def type3_pdf(path: Path) -> None:
    """A plot saved by matplotlib with its default ``pdf.fonttype = 3``: its text in a Type 3 DejaVu Sans."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(2.4, 1.2))
    fig.add_subplot().plot([0, 1], [0, 1])
    with __import__("matplotlib").rc_context({"pdf.fonttype": 3}):
        fig.savefig(path, format="pdf", metadata={"CreationDate": None})


@pytest.fixture(scope="module")
def lint_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lint") / "lint"
    shutil.copytree(LINT, root)
    return root


def _run(argv: list[str], capsys) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().out


def test_every_rule_has_a_planted_fault():
    assert set(PLANTED) == set(RULES)
    for layout, _ in PLANTED.values():
        assert (LINT / "layouts" / f"{layout}.toml").is_file()


def test_clean_figure_has_no_finding(lint_root):
    report = check("clean", root=lint_root)
    assert report.findings == () and report.ok, report.table()


@pytest.fixture(scope="module")
def built_root(tmp_path_factory) -> Path:
    """A copy of the lint project whose build/ the output rules' planted layouts are built into (lint_root's
    checks write nothing, and a test says so)."""
    root = tmp_path_factory.mktemp("built") / "lint"
    shutil.copytree(LINT, root)
    type3_pdf(root / "assets" / "type3.pdf")
    return root


@pytest.mark.parametrize("rule", sorted(PLANTED))
def test_planted_fault_is_found_alone(lint_root, built_root, rule):
    layout, element = PLANTED[rule]
    if rule in BUILT:  # measured on the files a build wrote: compose check reads them back
        from composer.pipeline import build

        formats, dpi = BUILT[rule]
        build(layout, root=built_root, formats=formats, dpi=dpi)
        lint_root = built_root
    report = check(layout, root=lint_root)
    assert [f.rule for f in report.findings] == [rule], report.table()
    finding = report.findings[0]
    assert element in finding.element, report.table()
    assert report.ok == (RULES[rule] != "error")


def test_measured_values_of_planted_faults(lint_root):
    """The numbers are the figure's: 4 pt ticks, a 0.1 pt line, an 8 px image 50 mm wide,
    two overlapping texts, an arrow end 50 mm from anything, red/green under deuteranopia."""
    by_rule = {rule: check(layout, root=lint_root).findings[0] for rule, (layout, _) in PLANTED.items()
               if rule in ("font-size", "line-width", "raster-ppi", "dangling-connector", "color-vision",
                           "figure-size")}
    assert by_rule["font-size"].measured == pytest.approx(4.0, abs=1e-6)
    assert by_rule["line-width"].measured == pytest.approx(0.1, abs=1e-6)
    assert by_rule["raster-ppi"].measured == pytest.approx(8 / (50 / 25.4), rel=1e-3)
    # the arrow ends at (70 mm, 20 mm); the box it leaves ends at 20 mm: 50 mm away, said in the layout's mm
    dangling = by_rule["dangling-connector"]
    assert (dangling.measured, dangling.unit) == (pytest.approx(50.0, abs=0.01), "mm")
    assert "connector end at (70.0, 20.0) mm touches no element" in dangling.problem
    assert by_rule["color-vision"].measured < 10 and "deuteranopia" in by_rule["color-vision"].problem
    assert by_rule["figure-size"].measured == pytest.approx(200) and by_rule["figure-size"].limit == 170


def test_overlap_variants(lint_root):
    """A label on a connector is an overlap too; a pair in allow_overlap is not. Panels that overlap
    are refused by the layout engine already, unless one is an inset (overlap = true): not reported."""
    arrow = check("overlap_arrow", root=lint_root)
    assert [(f.rule, f.element) for f in arrow.findings] == [("overlap", "text on_arrow / arrow[0]")]
    with pytest.raises(LayoutError, match="panels 'left' and 'right' overlap"):
        check("overlap_panel", root=lint_root)
    panels = lint_root / "layouts" / "overlap_panel.toml"
    original_panels = panels.read_text()
    texts = lint_root / "layouts" / "overlap_text.toml"
    original_texts = texts.read_text()
    try:
        panels.write_text(original_panels.replace('at = ["45mm", "10mm"]', 'at = ["45mm", "10mm"]\noverlap = true'))
        assert check("overlap_panel", root=lint_root).findings == ()
        texts.write_text(original_texts + '\n[check]\nallow_overlap = [["first", "second"]]\n')
        assert check("overlap_text", root=lint_root).findings == ()
        texts.write_text(original_texts + '\n[check]\nallow_overlap = [["first", "third"]]\n')
        with pytest.raises(LayoutError, match=r"check.allow_overlap\[0\].*'third' is not an element"):
            check("overlap_text", root=lint_root)
    finally:
        panels.write_text(original_panels)
        texts.write_text(original_texts)


def _tick_runs(root: Path, layout: str):
    from composer.pipeline import render_panels
    from composer.stages.compose import compose
    from composer.stages.inputs import Project, read_inputs
    from composer.svg.measure import scene

    inputs = read_inputs(Project.at(root), layout)
    runs = [r for r in scene(compose(inputs, render_panels(inputs))).texts if r.top == "panel-ticks"]
    assert sorted(r.text for r in runs) == ["Random Haar (b=3)", "SQ water-\ufb01ll (b=3)"]
    return runs


def test_rotated_tick_labels_overlap_only_when_their_glyphs_do(lint_root):
    """Two 45-degree tick labels 16 pt apart along the axis (11.3 pt across their baselines) do not
    touch, though their axis-aligned extents overlap by tens of pt: no finding. 6 pt apart (4.2 pt
    across) they run into each other: one overlap, as deep as their ink height minus 4.2 pt."""
    from composer.svg.geometry import overlap as _overlap

    apart = _tick_runs(lint_root, "rotated_apart")
    w, h = _overlap(apart[0].bbox, apart[1].bbox)
    assert w > 20 and h > 20, "the axis-aligned extents overlap: the case the oriented boxes must tell apart"
    assert check("rotated_apart", root=lint_root).findings == ()

    touching = _tick_runs(lint_root, "rotated_touching")
    report = check("rotated_touching", root=lint_root)
    assert [(f.rule, f.level) for f in report.findings] == [("overlap", "error")], report.table()
    assert "SQ water" in report.findings[0].element and "Random Haar" in report.findings[0].element
    # the rotated run's ink height on the canvas (pt): its local box height times the frame's scale
    from composer.svg.transform import scale_of
    ink = [(r.local[3] - r.local[1]) * scale_of(r.frame) for r in touching]
    assert 5.5 < min(ink) < 7.0  # parentheses of 7 pt text
    # measured in pt on the canvas, reported in the layout's mm (x 25.4 / 72)
    assert report.findings[0].unit == "mm"
    assert report.findings[0].measured * 72 / 25.4 == pytest.approx(min(ink) - 6 * math.sin(math.radians(45)),
                                                                    abs=0.05)


def test_separating_axis_overlap_depth():
    """Axis-aligned boxes overlap by min(w, h); a diamond beside a square's corner is apart though
    their axis-aligned extents overlap; a segment through a box meets it, one beside it does not."""
    from composer.lint.rules import _inset, _meets, _penetration

    square = [(0, 0), (10, 0), (10, 10), (0, 10)]
    assert _penetration(square, [(8, 7), (20, 7), (20, 20), (8, 20)]) == pytest.approx(2)
    diamond = [(15, 9), (21, 15), (15, 21), (9, 15)]  # extent 9..21: overlaps the square's by 1 x 1
    assert _penetration(square, diamond) < 0 and not _meets(square, diamond)
    nearer = [(x - 3, y - 3) for x, y in diamond]
    assert _penetration(square, nearer) == pytest.approx(2 / math.sqrt(2))  # along (1, 1): 20/√2 - 18/√2
    assert _meets([(-5, 5), (15, 5)], square) and not _meets([(-5, 11), (15, 11)], square)
    rotated = [(0, 0), (math.sqrt(50), math.sqrt(50)), (0, 2 * math.sqrt(50)), (-math.sqrt(50), math.sqrt(50))]
    inner = _inset(rotated, 1)
    assert _penetration(inner, rotated) == pytest.approx(8)  # a 10 x 10 square at 45 degrees, 1 pt in: 8 x 8
    assert _inset(square, 5) is None


def test_check_table_overrides_limits(lint_root):
    layout = lint_root / "layouts" / "font_size.toml"
    original = layout.read_text()
    try:
        layout.write_text(original.replace("[panels.tiny]", '[check]\nmin_font_size = "3.5pt"\n\n[panels.tiny]'))
        report = check("font_size", root=lint_root)
        assert report.findings == () and report.limits.min_font_pt == 3.5
        assert "[check]" in report.limits.source
    finally:
        layout.write_text(original)


def _matplotlib_svg(path: Path, width_in: float, height_in: float) -> None:
    """A matplotlib figure saved as SVG with 7 pt tick labels (glyphs as paths), deterministic."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "lint", "font.size": 7}):
        fig = Figure(figsize=(width_in, height_in), dpi=72)
        ax = fig.add_subplot()
        ax.plot([0, 1, 2], [0, 1, 4])
        ax.tick_params(labelsize=7)
        fig.subplots_adjust(left=0.2, bottom=0.2, right=0.95, top=0.95)
        fig.savefig(path, format="svg", metadata={"Date": None})


def test_squeezed_panel_reports_real_size(lint_root):
    """A matplotlib SVG with 7 pt tick labels, imported into a box 0.6 times its size, has
    4.2 pt tick labels on paper, and the check says so; in a box of its own size it has 7 pt."""
    (lint_root / "assets").mkdir(exist_ok=True)
    _matplotlib_svg(lint_root / "assets" / "seven_pt.svg", 2.0, 1.5)  # 144 x 108 pt
    layout = lint_root / "layouts" / "squeezed.toml"
    template = ('[figure]\nwidth = "120mm"\nheight = "60mm"\n\n[panels.squeezed]\nsvg = "../assets/seven_pt.svg"\n'
                'at = ["5mm", "5mm"]\nsize = ["{w}pt", "{h}pt"]\n')
    layout.write_text(template.format(w=144 * 0.6, h=108 * 0.6))
    report = check("squeezed", root=lint_root)
    assert [f.rule for f in report.findings] == ["font-size"], report.table()
    finding = report.findings[0]
    assert finding.measured == pytest.approx(4.2, abs=1e-3)
    assert finding.element.startswith("panel squeezed") and "scaled x0.60" in finding.problem

    layout.write_text(template.format(w=144, h=108))
    assert check("squeezed", root=lint_root).findings == ()
    from composer.pipeline import render_panels
    from composer.stages.compose import compose
    from composer.stages.inputs import Project, read_inputs
    from composer.svg.measure import scene

    inputs = read_inputs(Project.at(lint_root), "squeezed")
    sizes = {round(t.size_pt, 6) for t in scene(compose(inputs, render_panels(inputs))).texts}
    assert sizes == {7.0}


def test_cli_check_table_json_and_exit_status(lint_root, capsys):
    code, out = _run(["check", "clean", "--root", str(lint_root)], capsys)
    assert code == 0 and out.startswith("compose check clean: 0 errors, 0 warnings")
    code, out = _run(["check", "font_size", "--root", str(lint_root)], capsys)
    assert code == 1
    header = out.splitlines()[1].split()
    assert header == ["level", "rule", "element", "problem", "measured", "limit"]
    assert "font-size" in out and "4 pt" in out and "5 pt" in out
    code, out = _run(["check", "color_vision", "--root", str(lint_root)], capsys)
    assert code == 0, "a warning alone does not fail the check"
    code, out = _run(["check", "raster_ppi", "--root", str(lint_root), "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["errors"] == 1
    assert report["findings"][0]["rule"] == "raster-ppi" and report["findings"][0]["unit"] == "ppi"
    assert report["limits"]["min_ppi"] == 300
    assert not (lint_root / "build").exists(), "compose check writes nothing"


def test_build_with_check_writes_outputs_and_fails_on_error(lint_root, capsys, tmp_path):
    code, out = _run(["line_width", "--root", str(lint_root), "--out", str(tmp_path), "--check",
                      "--format", "svg"], capsys)
    assert code == 1 and (tmp_path / "line_width.svg").is_file()
    assert "line-width" in out and "panel hair" in out


def test_flagship_passes_check():
    """The flagship has no error-level finding (warnings are listed in the failure message)."""
    report = check("volume_kv", root=REPO)
    assert report.ok, report.table()
    assert {f.rule for f in report.findings} <= {r for r, level in RULES.items() if level == "warning"}


def test_font_missing_stops_before_composing(lint_root, capsys):
    code, out = _run(["check", "font_missing", "--root", str(lint_root)], capsys)
    assert code == 1
    assert "'Composer Lint No Such Font' is not installed" in out
    assert "the other rules did not run" in out


def test_table_is_readable_for_long_element_names():
    from composer.layout.model import CheckLimits
    from composer.lint.rules import Finding, Report

    report = Report("x", CheckLimits(), (Finding("overlap", "e" * 100, "text overlaps text", 1.0, 0.5, "pt"),))
    line = report.table().splitlines()[2]
    assert "e" * 59 + "…" in line and "text overlaps text" in line and line.endswith("0.5 pt")
    assert io.StringIO(report.to_json()).read().count('"rule"') == 1


def test_font_substitution_is_seen_on_every_check(lint_root):
    """matplotlib warns about a missing font once per process; the check still sees it each time."""
    for _ in range(2):
        assert [f.rule for f in check("font_substituted", root=lint_root).findings] == ["font-substituted"]


# ─── the check renders through the build's own path: isolation, timeout, -j, cache ──────────

CHECKED = '''"""Panels for the check-path tests: each render is logged (COMPOSER_TEST_RENDER_LOG), two are hostile."""
import os
import time

import numpy as np


def _log(name):
    path = os.environ.get("COMPOSER_TEST_RENDER_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(name + "\\n")


def substituted(fig, data):
    _log("substituted")
    ax = fig.add_axes([0.1, 0.1, 0.8, 0.8])
    ax.set_axis_off()
    ax.text(0.5, 0.5, "substituted", fontsize=7, fontfamily="Composer Lint Missing Font", ha="center")


def plain(fig, data):
    _log("plain")
    ax = fig.add_subplot()
    ax.plot(np.arange(4), np.arange(4) ** 2, color="#0072b2", lw=1.0)
    fig.subplots_adjust(left=0.25, bottom=0.25, right=0.95, top=0.95)


def hangs(fig, data):
    fig.add_subplot()
    time.sleep(600)


def aborts(fig, data):
    os.abort()
'''

CHECKED_LAYOUT = '''[figure]
width = "120mm"
height = "60mm"

[panels.fonts]
render = "checked:{first}"
at = ["5mm", "5mm"]
size = ["50mm", "45mm"]

[panels.plain]
render = "checked:plain"
at = ["65mm", "5mm"]
size = ["50mm", "45mm"]

[panels.coarse]
image = "../assets/coarse.png"
at = ["5mm", "52mm"]
size = ["6mm", "6mm"]
'''


@pytest.fixture
def checked_root(tmp_path, monkeypatch) -> Path:
    """The lint project with panels/checked.py and layouts subst (a font substituted, a coarse image),
    hang and abort (its first panel hangs or aborts); clean is built, so build/ has outputs and a cache."""
    root = tmp_path / "lint"
    shutil.copytree(LINT, root)
    (root / "panels" / "checked.py").write_text(CHECKED)
    for name, first in (("subst", "substituted"), ("hang", "hangs"), ("abort", "aborts")):
        (root / "layouts" / f"{name}.toml").write_text(CHECKED_LAYOUT.format(first=first))
    monkeypatch.setenv("COMPOSER_TEST_RENDER_LOG", str(tmp_path / "renders.log"))
    from composer.pipeline import build

    build("clean", root=root, formats=("svg",))  # ("compose clean" is a command word)
    return root


def _renders(root: Path) -> list[str]:
    """Panels rendered since the last call (read from the render log, which is then emptied)."""
    log = root.parent / "renders.log"
    names = log.read_text().split() if log.exists() else []
    log.write_text("")
    return sorted(names)


def _fails_in_one_line(root: Path, argv: list[str], capsys) -> str:
    before = snapshot(root)
    assert before, "build/ should hold the clean figure's outputs and cache"
    capsys.readouterr()
    status = main([*argv, "--root", str(root)])
    out, err = capsys.readouterr()
    assert status == 1 and out == "", (out, err)
    assert "Traceback" not in err
    lines = [line for line in without_frames(err) if not line.startswith("findfont:")]
    assert len(lines) == 1, err
    assert snapshot(root) == before, "a failed check changed build/"
    return lines[0]


@pytest.mark.parametrize("argv", [["check", "hang"], ["hang", "--check"]], ids=["compose check", "--check"])
def test_check_stops_a_hanging_panel_at_the_timeout(checked_root, argv, capsys):
    line = _fails_in_one_line(checked_root, [*argv, "--timeout", "2"], capsys)
    assert re.match(r"compose: error: layouts/hang\.toml:\d+:\d+: panels\.fonts\.render: panel 'fonts': ", line), line
    assert line.split(": ", 3)[3].startswith("panels.fonts.render: panel 'fonts': "
                           "checked:hangs did not finish: still running after 2 s (the timeout)"), line
    assert "checked.py:" in line and "time.sleep(600)" in line, line


@pytest.mark.parametrize("argv", [["check", "abort", "-j", "1"], ["abort", "--check", "-j", "2"]],
                         ids=["compose check", "--check"])
def test_check_reports_a_crashing_panel_in_one_line(checked_root, argv, capsys):
    line = _fails_in_one_line(checked_root, argv, capsys)
    assert re.match(r"compose: error: layouts/abort\.toml:\d+:\d+: panels\.fonts\.render: panel 'fonts': ", line), line
    assert line.split(": ", 3)[3].startswith("panels.fonts.render: panel 'fonts': "
                           "checked:aborts crashed: the worker process was killed by signal SIGABRT"), line
    assert "os.abort()" in line, line


def test_a_second_check_is_served_from_the_cache_with_the_same_findings(checked_root, tmp_path):
    from composer.pipeline import build

    def findings(report) -> list[tuple[str, str, str]]:
        return [(f.rule, f.element, f.problem) for f in report.findings]

    first = build("subst", root=checked_root, formats=("svg",), check=True, jobs=2)
    assert _renders(checked_root) == ["plain", "substituted"]
    assert set(first.rendered) == {"fonts", "plain"} and first.cached == ()
    assert [(f.rule, f.element) for f in first.report.findings] == [
        ("font-substituted", "panel fonts"), ("raster-ppi", "panel coarse: image 8x8 px printed 6.0 x 6.0 mm")]

    second = build("subst", root=checked_root, formats=("svg",), check=True, jobs=1)
    assert _renders(checked_root) == [], "the second check rendered again"
    assert second.rendered == () and set(second.cached) == {"fonts", "plain"}
    assert second.report.to_json() == first.report.to_json()

    # compose check: the same report from the same cache entries, and nothing written
    before = snapshot(checked_root)
    assert check("subst", root=checked_root).to_json() == first.report.to_json()
    assert _renders(checked_root) == [] and snapshot(checked_root) == before

    # a check with no cache renders afresh and still finds the same (the substitution is seen every time)
    fresh = build("subst", root=checked_root, out=tmp_path / "fresh", formats=("svg",), check=True, cache=False)
    assert _renders(checked_root) == ["plain", "substituted"]
    assert findings(fresh.report) == findings(first.report)


def test_compose_check_fills_no_cache_but_a_build_check_does(checked_root):
    """compose check writes nothing, so a second one renders again; a build made with --check
    fills the cache, and compose check then renders nothing."""
    from composer.pipeline import build

    shutil.rmtree(checked_root / "build")
    first = check("subst", root=checked_root)
    assert _renders(checked_root) == ["plain", "substituted"]
    assert not (checked_root / "build").exists()
    build("subst", root=checked_root, formats=("svg",), check=True)
    assert _renders(checked_root) == ["plain", "substituted"]
    assert check("subst", root=checked_root).to_json() == first.to_json()
    assert _renders(checked_root) == []


def test_a_cache_entry_without_font_substitutions_is_not_used():
    """Entries of the older format (no ``substituted``) cannot be read as "no substitution"."""
    import json as _json

    from composer.incremental.cache import _MAGIC, canonical_json, decode_entry, encode_entry
    from composer.incremental.manifest import bytes_digest
    from composer.stages.render import RenderedPanel

    panel = RenderedPanel(svg=b"<svg/>", anchors={}, notes=(), substituted={"X": "font 'X' is not installed"})
    assert decode_entry("k", encode_entry("k", panel)) == panel
    payload = canonical_json({"anchors": {}, "notes": []}).encode() + b"\n<svg/>"
    old = b"%s k\n%s\n" % (_MAGIC, bytes_digest(payload).encode()) + payload
    assert decode_entry("k", old) is None
    old_magic = b"composer-panel-cache 2 k\n%s\n" % bytes_digest(payload).encode() + payload
    assert decode_entry("k", old_magic) is None
    assert _json.loads(encode_entry("k", panel).split(b"\n")[2])["substituted"] == {"X": "font 'X' is not installed"}


def test_check_all_reports_every_figure_and_fails_on_any(tmp_path, capsys):
    """compose check --all: a paper's CI checks every figure in one command."""
    from composer.cli.main import main

    root = tmp_path / "paper"
    for name in ("fig1", "fig2"):
        assert main(["new", name, "--root", str(root)]) == 0
    capsys.readouterr()
    assert main(["check", "--all", "--root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "compose check fig1: 0 errors" in out and "compose check fig2: 0 errors" in out
    assert out.rstrip().endswith("checked 2 figures: no errors")
    layout = root / "layouts" / "fig2.toml"
    layout.write_text(layout.read_text().replace('font_size = "7pt"', 'font_size = "4pt"'))  # below 5 pt
    assert main(["check", "--all", "--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "compose check fig1: 0 errors" in out and out.rstrip().endswith("checked 2 figures: 1 failed: fig2")


def test_a_strongly_bent_arc_is_measured_along_its_curve(tmp_path, capsys):
    """An arc's control point lies far off the curve: the check measures the drawn curve, not its hull."""
    from composer.cli.main import main

    root = tmp_path / "paper"
    assert main(["new", "arc", "--root", str(root)]) == 0
    layout = root / "layouts" / "arc.toml"
    layout.write_text(layout.read_text().replace('to = "bars.w@0.4"', 'to = "bars.w@0.4"\nroute = "arc"\nbend = 80'))
    capsys.readouterr()
    assert main(["check", "arc", "--root", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["errors"] == 0 and report["warnings"] == 0, report


def test_check_all_json_names_a_figure_that_cannot_be_checked(tmp_path, capsys):
    from composer.cli.main import main

    root = tmp_path / "paper"
    assert main(["new", "fig1", "--root", str(root)]) == 0
    (root / "layouts" / "broken.toml").write_text('[figure]\nwidth = "20mm"\nhieght = "10mm"\n')
    capsys.readouterr()
    assert main(["check", "--all", "--json", "--root", str(root)]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["fig1"]["ok"] is True
    assert found["broken"]["ok"] is False and "is 'hieght' a misspelling of 'height'" in found["broken"]["error"]


def test_a_panel_with_alt_text_or_an_aria_label_is_still_measured(lint_root):
    """An ``aria-label`` is any element's accessible name: a panel's ``alt`` puts one on the panel's group,
    and imported drawings carry them (Vega-Lite marks). The check measures what such a group draws (the
    planted 4 pt tick labels, a 0.1 pt line of an imported SVG at scale 1), and the alt text is no text."""
    (lint_root / "data").mkdir(exist_ok=True)
    (lint_root / "data" / "aria.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
        '<g aria-label="a thin mark" role="graphics-symbol">'
        '<path d="M10 25 H90" stroke="#000000" stroke-width="0.1"/></g></svg>')
    (lint_root / "layouts" / "alt_measured.toml").write_text(
        '[figure]\nwidth = "80mm"\nheight = "100mm"\nalt = "two panels, described"\n\n'
        '[panels.tiny]\nrender = "lint:tiny_text"\nat = ["5mm", "5mm"]\nsize = ["50mm", "45mm"]\n'
        'alt = "the tiny tick labels panel"\n\n'
        '[panels.web]\nsvg = "../data/aria.svg"\nat = ["5mm", "60mm"]\nsize = ["100pt", "50pt"]\n'
        'alt = "an imported drawing"\n')
    report = check("alt_measured", root=lint_root)
    sizes = [f for f in report.findings if f.rule == "font-size"]
    assert [f.element.split(":")[0] for f in sizes] == ["panel tiny"], report.table()
    assert sizes[0].measured == pytest.approx(4.0, abs=0.05)
    widths = [f for f in report.findings if f.rule == "line-width"]
    assert [f.element.split(":")[0] for f in widths] == ["panel web"], report.table()
    assert widths[0].measured == pytest.approx(0.1, abs=0.005)
    assert not any("described" in f.element or "tiny tick" in f.element or "imported drawing" in f.element
                   or "thin mark" in f.element for f in report.findings), report.table()


def test_what_an_imported_file_has_outside_its_page_is_not_measured(lint_root):
    """An imported file is cut at its viewport (an Inkscape page with notes beside it): a text wholly
    outside is not drawn, so it is neither too small, nor outside the panel or the canvas, and neither are
    the swatches and the hairline beside the page (colours, lines); the 3 pt text on
    the page is still found (and alone: its size is the one measured)."""
    (lint_root / "data").mkdir(exist_ok=True)
    (lint_root / "data" / "page.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
        '<rect width="100" height="50" fill="#ffffff"/>'
        '<text x="10" y="25" font-family="DejaVu Sans" font-size="3">on the page</text>'
        '<text x="150" y="25" font-family="DejaVu Sans" font-size="2">beside the page</text>'
        '<text x="400" y="-30" font-family="DejaVu Sans" font-size="2">far off the canvas</text>'
        # swatches beside the page: colours alike with tritanopia, and a 0.1 pt line (at scale 1)
        '<rect x="150" y="0" width="10" height="10" fill="#ffff33"/>'
        '<rect x="165" y="0" width="10" height="10" fill="#ffff99"/>'
        '<path d="M150 40 H190" stroke="#000000" stroke-width="0.1"/></svg>')
    (lint_root / "layouts" / "off_page.toml").write_text(
        '[figure]\nwidth = "80mm"\nheight = "30mm"\n\n'
        '[panels.page]\nsvg = "../data/page.svg"\nat = ["5mm", "5mm"]\nsize = ["100pt", "50pt"]\n')
    report = check("off_page", root=lint_root)
    assert [(f.rule, f.element) for f in report.findings] == [("font-size", "panel page: 1 text ('on the page')")], \
        report.table()
    assert report.findings[0].measured == pytest.approx(3.0, abs=0.01)
