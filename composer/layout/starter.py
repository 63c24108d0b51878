"""``compose new NAME``: a starter figure that builds at once.

Writes ``layouts/NAME.toml``, ``panels/NAME.py`` and ``data/NAME.csv`` (a
small, clearly synthetic table the starter plots) into the project folder,
creating the folders as needed. It never overwrites: if any of the three
exists, nothing is written.
"""

from __future__ import annotations

from pathlib import Path

from composer.errors import ProjectError
from composer.layout.model import NAME

LAYOUT = '''\
# {name}: a starter figure made by `compose new {name}`. Build it: compose build {name}
# Two matplotlib panels in a grid, their plot areas aligned, a title, an arrow
# between them and a footer whose numbers come from the data. Every key is in
# the layout reference (docs/reference/layout.md; compose schema --markdown).

[figure]
width = "120mm"
height = "62mm"
font = "DejaVu Sans"
font_size = "7pt"
data = "../data/{name}.csv"

[colors]
ink = "#1f2933"
accent = "#0f6cbd"
muted = "#7b8794"

[grid]
mosaic = """
TT
AB
FF
"""
columns = [1, 1]
rows = ["8mm", 1, "7mm"]
gutter = ["12mm", "2mm"]
margin = ["2mm", "4mm", "2mm", "4mm"]

[[text]]
text = "{title}"
cell = "T"
size = "9pt"
weight = "bold"
color = "ink"

[panels.curve]
render = "{name}:curve"
cell = "A"
label = "a"

[panels.bars]
render = "{name}:bars"
cell = "B"
label = "b"

[[align]]
panels = ["curve", "bars"]

[[arrow]]
from = "curve.e@0.4"
to = "bars.w@0.4"
color = "accent"
label = "− mean"
label_color = "muted"

[[text]]
text = "Example data (data/{name}.csv, synthetic): {{n}} points, mean {{mean:.2f}}, best step {{best_step:.0f}}."
cell = "F"
style = "italic"
color = "muted"
'''

PANELS = '''\
"""Panels of {name}: each function draws into a matplotlib Figure of its final size.

``data`` is data/{name}.csv as columns (numpy arrays); ``colors`` is the
layout's [colors] palette. A function may return data anchors
``{{"name": (ax, x, y)}}`` that arrows can point at (``to = "curve.name"``).
"""
from matplotlib.ticker import MaxNLocator


def curve(fig, data, colors):
    ax = fig.add_subplot()
    ax.plot(data["step"], data["value"], color=colors["accent"], marker="o", markersize=3)
    ax.set_xlabel("step")
    ax.set_ylabel("value")
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout(pad=0.3)
    best = data["value"].argmax()
    return {{"best": (ax, data["step"][best], data["value"][best])}}


def bars(fig, data, colors):
    ax = fig.add_subplot()
    ax.bar(data["step"], data["value"] - data["value"].mean(), color=colors["muted"])
    ax.axhline(0, color=colors["ink"], linewidth=0.6)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("step")
    ax.set_ylabel("value − mean")
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout(pad=0.3)


def values(data):
    """Numbers for {{fields}} in the layout's text, computed from the data (never typed by hand)."""
    return {{"n": len(data["step"]), "mean": float(data["value"].mean()),
            "best_step": float(data["step"][data["value"].argmax()])}}
'''

DATA = "step,value\n" + "".join(f"{i},{v}\n" for i, v in enumerate(
    (0.12, 0.35, 0.51, 0.62, 0.70, 0.74, 0.79, 0.77, 0.81, 0.83), start=1))


def new_figure(root: str | Path, name: str) -> list[Path]:
    """Write a starter figure ``name`` into the project folder ``root`` (created if missing).

    Returns:
        The files written: layout, panel module, data.

    Raises:
        ProjectError: ``name`` is not a valid figure name, or one of the files
            already exists (nothing is written then).
    """
    if not NAME.match(name):
        raise ProjectError(f"{name!r} is not a valid figure name; use letters, digits and _, "
                           "not starting with a digit (it is also the panel module's name)")
    root = Path(root)
    files = {
        root / "layouts" / f"{name}.toml": LAYOUT.format(name=name, title=f"{name}: a starter figure"),
        root / "panels" / f"{name}.py": PANELS.format(name=name),
        root / "data" / f"{name}.csv": DATA,
    }
    existing = [p for p in files if p.exists()] + [p for p in (root / "layouts" / f"{name}.py",) if p.exists()]
    if existing:
        shown = ", ".join(str(p.relative_to(root)) for p in existing)
        raise ProjectError(f"figure {name!r} already exists ({shown}); compose new never overwrites: "
                           "pick another name or remove the files")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return list(files)
