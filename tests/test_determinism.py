"""Same inputs, same bytes: two builds in fresh processes (matplotlib's own
test_determinism does the same for its SVG backend)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import DEMO


@pytest.mark.e2e
@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_fresh_processes_give_identical_svg_pdf_png(tmp_path, engine):
    """Two processes with other hash seeds, time zones and clocks: the same bytes, the PDF dated 2000-01-01."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    outs = []
    for i, tz in enumerate(("UTC", "America/New_York")):
        out = tmp_path / f"out{i}"
        env = {"PYTHONHASHSEED": str(i + 1), "PATH": "/usr/bin:/bin", "TZ": tz}
        subprocess.run([sys.executable, "-m", "composer.cli", "demo", "--root", str(root), "--out", str(out),
                        "--dpi", "100", "--engine", engine], check=True, env=env, capture_output=True)
        outs.append(out)
        if i == 0:
            time.sleep(1.1)  # another second on the clock for the second build
    for ext in ("svg", "pdf", "png"):
        first, second = (o / f"demo.{ext}" for o in outs)
        assert first.read_bytes() == second.read_bytes(), ext
    pdf = (outs[0] / "demo.pdf").read_bytes()
    assert re.search(rb"/CreationDate\s*\(D:20000101000000Z\)", pdf)
