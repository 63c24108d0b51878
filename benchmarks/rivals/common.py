"""What the rival scripts share: volume_kv's layout, data, panel functions and boxes, without composer.

The rivals (FigWorks, figquilt) run in a venv of their own (Python 3.12 or
later, see ``benchmarks/bench.py --rivals-venv``), where composer is not
installed: this module reads the layout with ``tomllib``, imports
``panels/volume_kv.py`` by path, and takes the panel boxes composer's layout
engine found from ``ROOT/boxes.json`` (written by bench.py outside the timing,
as for the hand-written baseline), so every tool draws the same panels with
the same functions at the same places.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import tomllib
from pathlib import Path

import numpy as np

MM_PT = 72 / 25.4


def mm(value: str) -> float:
    """``"36mm"`` -> pt (volume_kv writes every length in mm)."""
    return float(value.removesuffix("mm")) * MM_PT


class Figure:
    """volume_kv read for a rival: layout (dict), data, panel module, boxes (pt), text values.

    Args:
        root: the project (layouts/volume_kv.toml, data/, panels/, boxes.json).
    """

    def __init__(self, root: Path):
        self.layout = tomllib.loads((root / "layouts" / "volume_kv.toml").read_text())
        self.spec = self.layout["figure"]
        self.data = dict(np.load(root / "data" / "volume_kv.npz", allow_pickle=False))
        spec = importlib.util.spec_from_file_location("panels_volume_kv", root / "panels" / "volume_kv.py")
        assert spec is not None and spec.loader is not None
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)
        self.boxes = {n: tuple(b) for n, b in json.loads((root / "boxes.json").read_text()).items()}
        self.width_pt, self.height_pt = mm(self.spec["width"]), mm(self.spec["height"])
        params = self.spec.get("params", {})
        self.values = self.module.values(self.data, **params) if hasattr(self.module, "values") else {}

    def panels(self):
        """``(name, panel table, function, keyword arguments, box)`` of every rendered panel, in layout order."""
        shared = self.spec.get("params", {})
        for name, panel in self.layout["panels"].items():
            if "render" not in panel:
                continue
            func = getattr(self.module, panel["render"].split(":")[1])
            accepted = inspect.signature(func).parameters
            kwargs = {**{k: v for k, v in shared.items() if k in accepted}, **panel.get("params", {})}
            yield name, panel, func, kwargs, self.boxes[name]

    def fill(self, text: str) -> str:
        """A text's ``{fields}`` filled from ``values()`` (as composer fills them, without its minus sign)."""
        try:
            return text.format_map(self.values)
        except (KeyError, ValueError, IndexError):
            return text

    def point(self, at: str, offset=("0mm", "0mm")) -> tuple[float, float]:
        """``"rgb.s"`` plus an offset -> pt, for a panel or the canvas; other names: the canvas centre
        (the rivals place text and shapes by coordinates; these approximate composer's places)."""
        name, _, anchor = at.partition(".")
        if name == "canvas":
            x, y, w, h = 0.0, 0.0, self.width_pt, self.height_pt
        elif name in self.boxes:
            x, y, w, h = self.boxes[name]
        else:
            x, y, w, h = self.width_pt / 2, self.height_pt / 2, 0.0, 0.0
        fx = {"w": 0.0, "e": 1.0}.get(anchor[-1:], 0.5) if anchor not in ("n", "s") else 0.5
        fy = {"n": 0.0, "s": 1.0}.get(anchor[:1], 0.5)
        return x + fx * w + mm(offset[0]), y + fy * h + mm(offset[1])
