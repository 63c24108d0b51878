"""From release to the updated figure: an edit from the preview's page, timed through the real server and builder.

    python benchmarks/edit_latency.py            # volume_kv, 9 moves
    python benchmarks/edit_latency.py -n 21 --figure volume_kv

What is measured (no browser: the page's part is one POST and the events it already follows):
``compose serve FIGURE`` runs in a subprocess on a copy of the repository's project in a temporary
folder; once it has built and written ``elements.json``, each round

1. POSTs ``/FIGURE/edit`` moving one text by 1 mm (right, then back left: the same two layouts over
   and over, every panel in the panel cache), then
2. polls ``/state.json`` every 5 ms until the figure's ``svg`` token changes: the new SVG is on disk
   and the page would swap it in (the page learns it from ``/events`` as soon as the server's poll,
   every 50 ms, sees the file);

the time from sending the POST to seeing the new token is one sample. Then it waits until the builder
is idle again (``elements.json`` rewritten for that SVG) before the next round, as a person lets go
of one drag and looks before the next. Printed: the median and the spread of the samples, the median
of a *plain rebuild* of the same change (``composer.pipeline.build`` in one warm process, SVG + PDF +
PNG, as ``compose FIGURE`` after a save), and their ratio; and how many panels the builds rendered
(the edits must render none: the build lines of ``compose serve`` say so).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MM = 72 / 25.4


def _get(port: int, path: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
        return json.loads(answer.read())


def _post(port: int, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _wait(test, limit_s: float = 120.0, step_s: float = 0.005):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        found = test()
        if found:
            return found
        time.sleep(step_s)
    raise TimeoutError("the preview did not answer in time")


def _state(port: int, name: str) -> dict:
    return _get(port, "/state.json")["figures"][name]


def _elements(port: int, name: str) -> dict | None:
    try:
        return _get(port, f"/{name}/elements.json")
    except OSError:  # not listening yet, or 404: not built yet
        return None


def measure(name: str, rounds: int, element: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="edit-latency-"))
    root = work / "proj"
    root.mkdir()
    for part in ("layouts", "panels", "data", "styles"):
        if (REPO / part).exists():
            shutil.copytree(REPO / part, root / part)
    port = 18000 + os.getpid() % 1000
    env = {**os.environ, "COMPOSER_CACHE_DIR": str(work / "usercache")}
    log = open(work / "serve.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "composer.cli", "serve", name, "--root", str(root), "--port",
                               str(port)], stdout=log, stderr=subprocess.STDOUT, env=env)
    samples: list[float] = []
    answered: list[float] = []  # the POST's own answer: read, write back, load, check, write the file
    try:
        first = _wait(lambda: _elements(port, name), step_s=0.2)
        token = _state(port, name)["svg"]
        _wait(lambda: (e := _elements(port, name)) and e["token"] == token and e, step_s=0.05)
        for i in range(rounds):
            known = _elements(port, name) or first
            sign = 1 if i % 2 == 0 else -1
            before = _state(port, name)["svg"]
            started = time.perf_counter()
            status, answer = _post(port, f"/{name}/edit", {"id": element, "dx_pt": sign * MM, "dy_pt": 0.0,
                                                           "digest": known["digest"]})
            answered.append(time.perf_counter() - started)
            if status != 200:
                raise RuntimeError(f"edit refused: {status} {answer}")
            new = _wait(lambda old=before: (t := _state(port, name)["svg"]) != old and t)
            samples.append(time.perf_counter() - started)
            _wait(lambda token=new, text=answer["digest"]: (e := _elements(port, name)) and e["token"] == token
                  and e["digest"] == text, step_s=0.05)
            time.sleep(0.3)  # the builder's watcher running again
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    lines = (work / "serve.log").read_text().splitlines()
    rebuilt = [line for line in lines if "after" in line and "changed" in line]
    rendered = [line for line in rebuilt if "rendered" in line]
    plain = _plain_rebuilds(root, name, element, rounds)
    shutil.rmtree(work, ignore_errors=True)
    return {"samples": samples, "answered": answered, "builds": len(rebuilt), "rendered": rendered, "plain": plain,
            "lines": rebuilt}


def _plain_rebuilds(root: Path, name: str, element: str, rounds: int) -> list[float]:
    """The same change saved and built by :func:`composer.pipeline.build` in this (warm) process, all formats."""
    import tomllib

    from composer.edit.check import load_text
    from composer.edit.history import read_text, write_text
    from composer.edit.targets import targets
    from composer.edit.writeback import plan
    from composer.pipeline import build

    path = root / "layouts" / f"{name}.toml"
    build(name, root=root)  # warm: imports, panel cache
    times = []
    for i in range(rounds):
        text = read_text(path)
        figure = load_text(text, path, name=name, display=str(path))
        new, _ = plan(text, figure, targets(figure, tomllib.loads(text))[element], dx_pt=(1 if i % 2 == 0 else -1) * MM)
        write_text(path, new)
        started = time.perf_counter()
        build(name, root=root)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figure", default="volume_kv")
    parser.add_argument("--element", default="text:0", help="the element moved (an id of elements.json)")
    parser.add_argument("-n", "--rounds", type=int, default=9)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    found = measure(args.figure, args.rounds, args.element)
    samples, plain = found["samples"], found["plain"]
    median, plain_median = statistics.median(samples), statistics.median(plain)
    print(f"edit latency of {args.figure} ({args.element} moved 1 mm, {len(samples)} moves; load {load:.1f} -> "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print("| measure | median s | min s | max s |")
    print("|---|---|---|---|")
    print(f"| POST /edit -> new SVG token | {median:.3f} | {min(samples):.3f} | {max(samples):.3f} |")
    answered = found["answered"]
    print(f"| of which the POST's answer (file written) | {statistics.median(answered):.3f} | {min(answered):.3f} | "
          f"{max(answered):.3f} |")
    print(f"| plain rebuild of the same change (SVG + PDF + PNG, warm process) | {plain_median:.3f} | {min(plain):.3f} "
          f"| {max(plain):.3f} |")
    print(f"ratio edit / plain rebuild: {median / plain_median:.2f}; builds after edits: {found['builds']}, "
          f"of them rendering a panel: {len(found['rendered'])}")


if __name__ == "__main__":
    main()
