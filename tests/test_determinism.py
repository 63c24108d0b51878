"""Same inputs, same bytes: two builds in fresh processes (matplotlib's own
test_determinism does the same for its SVG backend)."""

from __future__ import annotations

import shutil
import subprocess
import sys

from conftest import DEMO


def test_fresh_processes_give_identical_svg_pdf_png(tmp_path):
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    outs = []
    for i in range(2):
        out = tmp_path / f"out{i}"
        env = {"PYTHONHASHSEED": str(i + 1), "PATH": "/usr/bin:/bin"}
        subprocess.run([sys.executable, "-m", "composer.cli", "demo", "--root", str(root), "--out", str(out),
                        "--dpi", "100"], check=True, env=env, capture_output=True)
        outs.append(out)
    for ext in ("svg", "pdf", "png"):
        first, second = (o / f"demo.{ext}" for o in outs)
        assert first.read_bytes() == second.read_bytes(), ext
    pdf = (outs[0] / "demo.pdf").read_bytes()
    assert b"/CreationDate (D:20000101000000Z)" in pdf
