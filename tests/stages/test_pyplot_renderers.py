"""README "Panel functions": a renderer may draw with pyplot (``plt.gca()``, ``plt.plot()``,
``plt.imshow()``, ``plt.title()``): pyplot's current figure is the panel's while it runs. A renderer
that makes a figure of its own (``plt.subplots()``, ``plt.figure()``, ``plt.subplot_mosaic()``) and
leaves the panel's empty, or one that draws nothing at all without ``empty = true``, fails the build
with one line naming the panel, the line and the fix. pyplot's figure list is left as it was.

Expected pixels are worked out from matplotlib's default axes position (``figure.subplot.*`` of
``rcParamsDefault``) and the layout's mm, not from composer's code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import matplotlib.image
import numpy as np
import pytest

from composer.cli.main import main
from composer.pipeline import build
from conftest import layout_project, read_png

PYPLOT = '''
import matplotlib.pyplot as plt
import numpy as np


def line(fig, data):
    ax = plt.gca()
    plt.plot([0, 1], [0.5, 0.5], color="#ff0000", lw=4)
    ax.set_xlim(0, 1)
    plt.ylim(0, 1)
    plt.axis("off")
    plt.title("Tg")


def image(fig, data):
    im = plt.imshow(np.zeros((2, 2)), cmap="Blues", vmin=-1, vmax=0, aspect="auto")
    plt.axis("off")
    plt.colorbar(im).remove()
    plt.xlabel("x")


def extra(fig, data):
    """Draws on the panel, and makes (and leaves open) a figure of its own: that is allowed."""
    other = plt.figure()
    assert other.canvas.required_interactive_framework is None, type(other.canvas)  # never a GUI canvas
    assert plt.gcf() is other
    plt.figure(fig)
    plt.plot([0, 1], [0, 1])


def titled_elsewhere(fig, data):
    fig.suptitle("Accuracy")
    f, ax = plt.subplots(figsize=(3, 2))
    ax.bar([0, 1], [3, 4])


def closing(fig, data):
    """Draws, then closes every pyplot figure, as scripts often end."""
    plt.plot([0, 1], [0, 1])
    plt.close("all")


def with_subplots(fig, data):
    f, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])


def subplots_anchor(fig, data):
    f, ax = plt.subplots(1, 2)
    return {"p": (ax[0], 0, 0)}


def with_figure(fig, data):
    plt.figure(figsize=(2, 2))
    plt.plot([0, 1], [0, 1])


def with_mosaic(fig, data):
    f, axes = plt.subplot_mosaic("AB")
    axes["A"].plot([0, 1], [0, 1])


def nothing(fig, data):
    return None
'''


def project(tmp_path: Path, body: str) -> Path:
    root = layout_project(tmp_path, body, head='width = "60mm"\nheight = "30mm"\n')
    (root / "panels").mkdir()
    (root / "panels" / "pp.py").write_text(PYPLOT)
    return root


def one_panel(tmp_path: Path, function: str, extra: str = "") -> Path:
    return project(tmp_path, f"""
    [panels.a]
    render = "pp:{function}"
    at = ["0mm", "0mm"]
    size = ["30mm", "30mm"]
    {extra}
    """)


def line_of(text: str) -> int:
    """The 1-based line of ``text`` in the panel module."""
    return next(n for n, line in enumerate(PYPLOT.splitlines(), start=1) if text in line)


def test_pyplot_style_renderers_draw_on_the_panel(tmp_path):
    """At 254 dpi (10 px per mm): panel a (0-30 mm) shows the red 4 pt line at data y = 0.5 across its
    axes, and its title above the axes; panel b (30-60 mm) is filled by the blue image inside its
    axes and white outside them. The axes are matplotlib's default subplot (``figure.subplot.*``)."""
    root = project(tmp_path, """
    [panels.a]
    render = "pp:line"
    at = ["0mm", "0mm"]
    size = ["30mm", "30mm"]
    [panels.b]
    render = "pp:image"
    at = ["30mm", "0mm"]
    size = ["30mm", "30mm"]
    """)
    png = read_png(build("fig", root=root, formats=("png",), dpi=254, cache=False).outputs["png"])[..., :3].astype(int)
    assert png.shape[:2] == (300, 600)
    rc = matplotlib.rcParamsDefault
    left, right, bottom, top = (rc[f"figure.subplot.{s}"] for s in ("left", "right", "bottom", "top"))
    px = 300  # a panel is 30 mm = 300 px square

    def col(frac: float, panel_x: int = 0) -> int:
        return round(panel_x + frac * px)

    def row(frac_from_bottom: float) -> int:
        return round((1 - frac_from_bottom) * px)

    # panel a: the line at data y 0.5 of ylim (0, 1)
    y_line = row(bottom + 0.5 * (top - bottom))
    red = (png[..., 0] > 200) & (png[..., 1] < 60) & (png[..., 2] < 60)
    for x in range(col(left) + 5, col(right) - 5, 10):
        assert red[y_line, x], (y_line, x, png[y_line, x])
    assert not red[:, :col(left) - 3].any() and not red[:, col(right) + 3:px].any()  # only within the axes
    assert not red[row(top) + 3: y_line - 10, :px].any()
    dark = png.sum(axis=2) < 300
    assert dark[: row(top), col(left):col(right)].sum() > 20  # the title, above the axes
    # panel b: the image fills its axes
    blue = (png[..., 2] > 90) & (png[..., 0] < 60)
    inside = blue[row(top) + 3: row(bottom) - 3, col(left, px) + 3: col(right, px) - 3]
    assert inside.all(), inside.mean()
    assert not blue[:, px: col(left, px) - 3].any() and not blue[row(bottom) + 3:, px:].any()


def test_a_renderer_may_make_a_figure_of_its_own_if_it_draws_on_the_panel(tmp_path):
    """``extra`` makes a second figure with pyplot (never a GUI canvas) and goes back to the panel's; the
    build succeeds and the panel has the line."""
    root = one_panel(tmp_path, "extra")
    result = build("fig", root=root, formats=("svg",), cache=False)
    assert b"<path" in result.outputs["svg"].read_bytes()


def test_plt_close_all_after_drawing_keeps_the_panel(tmp_path):
    """``plt.close("all")`` at a renderer's end closes pyplot's figures, the panel's among them: the
    panel keeps what was drawn (it raised AttributeError: the panel's manager lacked ``_cidgcf``)."""
    root = one_panel(tmp_path, "closing")
    result = build("fig", root=root, formats=("svg",), cache=False)
    assert b"<path" in result.outputs["svg"].read_bytes()


@pytest.mark.parametrize(("function", "call", "fix"), [
    ("with_subplots", "f, ax = plt.subplots()", "use fig.subplots(), not plt.subplots()"),
    ("subplots_anchor", "f, ax = plt.subplots(1, 2)", "use fig.subplots(), not plt.subplots()"),
    ("with_figure", "plt.figure(figsize=(2, 2))", "draw on the fig argument"),
    ("with_mosaic", 'f, axes = plt.subplot_mosaic("AB")', "use fig.subplot_mosaic(...)"),
    ("titled_elsewhere", "f, ax = plt.subplots(figsize=(3, 2))", "use fig.subplots(), not plt.subplots()"),
])
def test_a_renderer_drawing_on_a_new_figure_fails_with_the_line_and_the_fix(tmp_path, capsys, function, call, fix):
    root = one_panel(tmp_path, function)
    capsys.readouterr()
    status = main(["fig", "--root", str(root), "--format", "svg", "--no-cache"])
    out, err = capsys.readouterr()
    assert status == 1, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "panels.a.render" in lines[0] and "panel 'a': pp:" + function in lines[0]
    assert f"(at pp.py:{line_of(call)} in {function}: {call})" in lines[0]
    assert fix in lines[0] and ("left the panel's figure empty" in lines[0] or function == "titled_elsewhere")
    assert "left the panel's figure without axes" in lines[0] or function != "titled_elsewhere"
    assert not (root / "build" / "fig.svg").exists()


def test_a_renderer_that_draws_nothing_fails_unless_the_panel_says_empty(tmp_path, capsys):
    root = one_panel(tmp_path, "nothing")
    for argv in (["fig"], ["check", "fig"]):  # compose check builds the figure: it fails too
        capsys.readouterr()
        status = main([*argv, "--root", str(root), "--format", "svg", "--no-cache"] if argv == ["fig"]
                      else [*argv, "--root", str(root)])
        err = capsys.readouterr().err
        assert status == 1, (argv, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert "panel 'a': pp:nothing drew nothing" in lines[0] and "empty = true" in lines[0], lines[0]
    blank = one_panel(tmp_path / "blank", "nothing", "empty = true")
    result = build("fig", root=blank, formats=("png",), dpi=100, cache=False)
    png = read_png(result.outputs["png"])
    assert png.shape[0] == round(30 / 25.4 * 100)


def test_empty_applies_to_render_panels_only(tmp_path, capsys):
    root = project(tmp_path, """
    [panels.a]
    image = "x.png"
    at = ["0mm", "0mm"]
    size = ["30mm", "30mm"]
    empty = true
    """)
    matplotlib.image.imsave(root / "layouts" / "x.png", np.zeros((4, 4, 3)))
    capsys.readouterr()
    assert main(["fig", "--root", str(root), "--format", "svg", "--no-cache"]) == 1
    assert "panels.a.empty" in capsys.readouterr().err


def test_pyplot_figure_list_is_unchanged_by_a_build_in_process(tmp_path):
    """The Python API builds in the user's process: the user's pyplot figures, and which one is current,
    are as before; ``draw_panel`` called right here (no worker) closes the figure the renderer made."""
    import matplotlib.pyplot as plt

    from composer.layout.loader import load_layout
    from composer.stages.draft import draw_panel

    mine = plt.figure()
    other = plt.figure()
    plt.figure(mine)
    before = plt.get_fignums()
    try:
        root = project(tmp_path, """
        [panels.a]
        render = "pp:line"
        at = ["0mm", "0mm"]
        size = ["30mm", "30mm"]
        [panels.b]
        render = "pp:extra"
        at = ["30mm", "0mm"]
        size = ["30mm", "30mm"]
        """)
        build("fig", root=root, formats=("svg",), cache=False)
        assert plt.get_fignums() == before and plt.gcf() is mine

        import importlib.util
        spec = importlib.util.spec_from_file_location("pp_here", root / "panels" / "pp.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        figure = load_layout(root / "layouts" / "fig.toml", name="fig")
        panel = figure.panels[1]
        draft = draw_panel(module.extra, panel, figure.spec, {}, size_pt=(85.0, 85.0), file="fig.toml")
        assert draft.fig.axes and draft.fig.canvas.manager is None
        assert plt.get_fignums() == before and plt.gcf() is mine
        with pytest.raises(Exception, match="fig.subplots"):
            draw_panel(module.with_subplots, panel, figure.spec, {}, size_pt=(85.0, 85.0), file="fig.toml")
        assert plt.get_fignums() == before and plt.gcf() is mine
        assert len(mine.axes) == 0 and len(other.axes) == 0  # nothing drawn on the user's figures
    finally:
        plt.close(mine)
        plt.close(other)


FAKE_GUI = """
import os
from matplotlib.backend_bases import FigureCanvasBase, FigureManagerBase, _Backend

with open(os.environ["FAKE_GUI_MARK"], "a") as mark:
    mark.write("loaded\\n")


class FigureCanvasFake(FigureCanvasBase):
    required_interactive_framework = None


@_Backend.export
class _BackendFake(_Backend):
    FigureCanvas = FigureCanvasFake
    FigureManager = FigureManagerBase

    @classmethod
    def new_figure_manager_given_figure(cls, num, figure):
        with open(os.environ["FAKE_GUI_MARK"], "a") as mark:
            mark.write("window\\n")
        return super().new_figure_manager_given_figure(num, figure)
"""


@pytest.mark.e2e
def test_pyplot_backend_is_never_used_for_a_pyplot_renderer(tmp_path):
    """The user's pyplot backend (``MPLBACKEND``, here a stand-in GUI backend that notes when it is
    loaded and when it opens a window) is never loaded, even for a renderer's ``plt.figure()``: pyplot
    draws with Agg's canvas, which needs no GUI."""
    root = one_panel(tmp_path, "extra")
    (tmp_path / "fakegui").mkdir()
    (tmp_path / "fakegui" / "fake_gui.py").write_text(FAKE_GUI)
    mark = tmp_path / "mark.txt"
    env = {**os.environ, "MPLBACKEND": "module://fake_gui", "FAKE_GUI_MARK": str(mark),
           "PYTHONPATH": os.pathsep.join([str(tmp_path / "fakegui"), os.environ.get("PYTHONPATH", "")])}
    probe = subprocess.run([sys.executable, "-c", "import matplotlib.pyplot as plt; plt.figure()"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0 and mark.read_text() == "loaded\nwindow\n", (probe.stderr, mark.read_text())
    mark.unlink()
    proc = subprocess.run([sys.executable, "-m", "composer.cli", "fig", "--root", str(root), "--format", "svg",
                           "--no-cache"], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (root / "build" / "fig.svg").is_file()
    assert not mark.exists(), mark.read_text()


def test_taking_empty_away_fails_the_next_build_although_the_panel_was_cached(tmp_path, capsys):
    """``empty`` is part of the panel's cache key: the blank panel built with ``empty = true`` is not
    reused once the layout no longer says so."""
    root = one_panel(tmp_path, "nothing", "empty = true")
    argv = ["fig", "--root", str(root), "--format", "svg"]
    assert main(argv) == 0
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace("empty = true", ""))
    capsys.readouterr()
    assert main(argv) == 1
    assert "drew nothing" in capsys.readouterr().err
