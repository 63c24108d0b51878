"""A build in the user's own process (``composer.build``) leaves that process as it found it.

The environment (``TZ`` and the rest), the umask, ``sys.path``, ``sys.meta_path`` and the project's
modules in ``sys.modules`` are the same after a build as before (what composer and the panels imported
from installed packages stays imported, as after any import), and no ``.pyc`` is written into (or
trusted from) the project's ``panels/``. Each case runs in a fresh interpreter, so what the test
session imported before does not hide a change.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO

HELPER = "SCALE = 1.0\n"

SCRIPT = r'''
import json, os, sys, time
import composer

def umask():
    with open("/proc/self/status") as f:  # read without setting it (os.umask sets it)
        return next(line.split()[1] for line in f if line.startswith("Umask:"))

def state():
    return {"environ": dict(os.environ), "umask": umask(), "path": list(sys.path),
            "meta_path": [repr(f) for f in sys.meta_path], "tzname": list(time.tzname),
            "cwd": os.getcwd()}

root, jobs, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3]
before, modules = state(), dict(sys.modules)
composer.build("demo", root=root, cache=False, jobs=jobs, dpi=50, engine=engine, formats=("svg", "pdf", "png"))
mid = state()
composer.build("demo", root=root, cache=False, jobs=jobs, dpi=50, engine=engine, formats=("svg", "pdf", "png"))
after = state()
added = sorted(n for n in set(sys.modules) - set(modules))
project = [n for n in added if n.startswith("composer_panels")
           or str(getattr(sys.modules[n], "__file__", None) or "").startswith(os.path.realpath(root))]
print(json.dumps({"before": before, "mid": mid, "after": after, "added": added, "project": project,
                  "removed": sorted(set(modules) - set(sys.modules)),
                  "replaced": sorted(n for n in modules if n in sys.modules and sys.modules[n] is not modules[n])}))
'''


@pytest.fixture
def project(tmp_path) -> Path:
    """The demo project, its panel module importing a project module of its own (``helpers``)."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns("__pycache__", "build"))
    (root / "panels" / "helpers.py").write_text(HELPER)
    demo = root / "panels" / "demo.py"
    demo.write_text("import helpers\n" + demo.read_text())
    return root


@pytest.mark.e2e
@pytest.mark.parametrize("jobs, engine", [(1, "resvg"), (2, "resvg"), (2, "cairosvg")])
def test_an_api_build_leaves_the_process_as_it_was(project, jobs, engine):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(project), str(jobs), engine], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "TZ": "America/New_York"})
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["before"]["environ"]["TZ"] == "America/New_York"  # the cairosvg engine sets TZ (in its worker)
    changed = {k for k in set(seen["before"]["environ"]) | set(seen["mid"]["environ"])
               if seen["before"]["environ"].get(k) != seen["mid"]["environ"].get(k)}
    assert changed == set(), f"the build changed environment variables {sorted(changed)}"
    assert seen["mid"] == seen["before"]
    assert seen["after"] == seen["before"]
    assert seen["project"] == [], "the project's modules stayed in sys.modules"
    assert "numpy" in seen["added"] or "numpy" in sys.modules  # control: imports of packages do stay
    assert seen["removed"] == [] and seen["replaced"] == []
    assert not (project / "panels" / "__pycache__").exists(), "a .pyc was written into the project"


@pytest.mark.e2e
def test_an_edit_of_the_same_size_and_mtime_is_seen_by_the_next_build(project):
    """Python trusts a ``.pyc`` whose source has the same mtime second and size; composer compiles the
    project's modules from source, so an edit that keeps both (1.0 -> 2.0) is drawn by the next build
    of the same process. The panel's image is the probe: its colour scale follows ``helpers.SCALE``."""
    code = r'''
import sys, composer
root = sys.argv[1]
first = composer.build("demo", root=root, cache=False, jobs=1, formats=("svg",)).outputs["svg"].read_bytes()
import importlib, os, pathlib
helper = pathlib.Path(root, "panels", "helpers.py")
stat = helper.stat()
helper.write_text(helper.read_text().replace("1.0", "2.0"))
os.utime(helper, ns=(stat.st_atime_ns, stat.st_mtime_ns))
second = composer.build("demo", root=root, cache=False, jobs=1, formats=("svg",)).outputs["svg"].read_bytes()
print("same" if first == second else "differs")
'''
    demo = project / "panels" / "demo.py"
    text = demo.read_text()
    # the heat map's data scaled by helpers.SCALE: a different scale draws different pixels
    assert "def heat(" in text
    demo.write_text(text.replace("def heat(fig, data", "def heat(fig, data", 1) + "\n\n_real_heat = heat\n\n"
                    "def heat(fig, data, **kw):\n"
                    "    ax = fig.add_subplot()\n"
                    "    ax.plot([0, 1], [0, helpers.SCALE])\n"
                    "    ax.set_ylim(0, 2)\n")
    (project / "panels" / "helpers.py").write_text("SCALE = 1.0\n")
    proc = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "differs"
