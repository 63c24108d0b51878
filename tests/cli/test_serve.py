"""``compose NAME --serve`` / ``compose serve``: the live preview, over HTTP and in a real browser.

Each test serves a small project made in ``tmp_path`` (a shape and a text, no panel to render) in a
``compose`` subprocess and talks to it as a browser would: urllib for the pages, the SVG and the
server-sent events, then Debian's Chromium driven headless by Playwright for the page itself. The
expected values are worked out independently: the SVG served is the file in ``build/``, the error
shown is what a plain ``compose fig`` prints for the same layout, sizes are the layout's millimetres
in CSS pixels (96 px per inch), the listening address is read from ``/proc/net/tcp``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from composer.cli.serve import svg_size
from conftest import layout_project, process_alive, run_compose

MM_PT = 72 / 25.4  # pt per mm
MM_PX = 96 / 25.4  # CSS px per mm
LIMIT_S = 60.0  # longest wait for anything (a build, an event); never asserted as a speed
#: the one line of any compose stopped by Ctrl-C (tests/cli/test_interrupt.py): the preview ends the same way
INTERRUPTED = "compose: stopped serving; outputs left as the last build wrote them"

SHAPE_AND_TEXT = """
[[shape]]
name = "box"
at = ["5mm", "5mm"]
size = ["20mm", "10mm"]
fill = "#ff0000"
stroke = "none"

[[text]]
name = "title"
text = "Hello"
at = ["{x}", "{y}"]
"""


def project(tmp_path: Path, x: str = "20mm", y: str = "25mm") -> Path:
    return layout_project(tmp_path, SHAPE_AND_TEXT.format(x=x, y=y))


def edit(root: Path, old: str, new: str, name: str = "fig") -> None:
    """Replace ``old`` by ``new`` in the layout as an editor saves: the whole new file at once (a rename), so
    the watcher never sees it half-written."""
    layout = root / "layouts" / f"{name}.toml"
    text = layout.read_text()
    assert old in text
    temp = layout.with_name(f".{layout.name}.saving")
    temp.write_text(text.replace(old, new))
    os.replace(temp, layout)


def cli_error(root: Path, tmp_path: Path) -> str:
    """What a plain ``compose fig`` prints on stderr for the project's layout as it is now (in a copy)."""
    copy = tmp_path / "copy"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root / "layouts", copy / "layouts")
    done = run_compose(["fig", "--root", copy, "--format", "svg"])
    assert done.returncode == 1, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (Linux: /proc/PID/task/*/children)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += [int(child), *descendants(int(child))]
    return found


class Served:
    """A running ``compose ... --serve``: its process, URL and output so far."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen([sys.executable, "-m", "composer.cli", *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        first = self.proc.stdout.readline()
        match = re.fullmatch(r"serving (\S+(?: figures)?) at (http://127\.0\.0\.1:(\d+)/)\n", first)
        if match is None:
            self.proc.kill()
            raise AssertionError(f"no URL line: {first!r}, {self.proc.communicate()}")
        self.what, self.url, self.port = match.group(1), match.group(2), int(match.group(3))
        self.out = ""
        self.err = ""

    def get(self, path: str) -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=LIMIT_S) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers.get("Content-Type", ""), exc.read()

    def state(self, name: str = "fig") -> dict:
        return json.loads(self.get("/state.json")[2])["figures"][name]

    def wait_state(self, test: Callable[[dict], bool], name: str = "fig") -> dict:
        deadline = time.monotonic() + LIMIT_S
        while time.monotonic() < deadline:
            state = self.state(name)
            if test(state):
                return state
            time.sleep(0.05)
        raise AssertionError(f"no such state in {LIMIT_S} s; last: {state}")

    def stop(self) -> int:
        """Ctrl-C, as a terminal sends it; returns the exit status (stdout and stderr kept)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=LIMIT_S)
        self.out, self.err = out, err
        return self.proc.returncode


@contextlib.contextmanager
def served(argv: list[str]) -> Iterator[Served]:
    server = Served(argv)
    try:
        yield server
    finally:
        if server.proc.poll() is None:
            server.stop()


def events(server: Served) -> Iterator[dict]:
    """The states the event stream sends, one per event, as they come."""
    with urllib.request.urlopen(server.url + "events", timeout=LIMIT_S) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        data = None
        for raw in stream:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and data is not None:
                yield data
                data = None


def next_event(stream: Iterator[dict], test: Callable[[dict], bool], name: str = "fig") -> dict:
    deadline = time.monotonic() + LIMIT_S
    for data in stream:
        if test(data["figures"][name]):
            return data["figures"][name]
        assert time.monotonic() < deadline, f"no such event; last: {data}"
    raise AssertionError("the event stream ended")


# ─── HTTP ──────────────────────────────────────────────────────────────────


@pytest.mark.e2e
def test_the_page_and_the_current_svg_are_served(tmp_path):
    root = project(tmp_path)
    left = root / "build" / ".serve-999999999"  # the state folder of a killed preview (no such pid)
    left.mkdir(parents=True)
    with served(["serve", "fig", "--debug", "--root", str(root), "--format", "svg"]) as server:
        assert server.what == "fig"
        built = server.wait_state(lambda s: s["builds"] >= 1 and s.get("svg"))
        assert built["error"] is None
        status, kind, page = server.get("/")
        assert status == 200 and kind.startswith("text/html")
        assert b"<title>compose</title>" in page and b'"figure": "fig"' in page
        assert b'"debug": true, "check": false' in page  # --debug: the overlay is on when the page opens
        status, kind, svg = server.get("/fig.svg")
        assert status == 200 and kind == "image/svg+xml"
        assert svg == (root / "build" / "fig.svg").read_bytes()
        assert server.get("/fig/")[0] == 200  # the figure's own page, as --all links it
        assert server.get("/other.svg")[0] == 404 and server.get("/../layouts/fig.toml")[0] == 404
        # a request naming another host (a page of another site through DNS rebinding) is refused
        request = urllib.request.Request(server.url + "fig.svg", headers={"Host": f"attacker.example:{server.port}"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=LIMIT_S)
        assert refused.value.code == 403
        assert not left.exists()
        # the page's size: the SVG's own width and height, 40 x 30 mm
        assert built["width_pt"] == pytest.approx(40 * MM_PT) and built["height_pt"] == pytest.approx(30 * MM_PT)
    assert server.proc.returncode == 130


@pytest.mark.e2e
def test_an_edit_sends_an_event_and_the_new_svg(tmp_path):
    root = project(tmp_path)
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        stream = events(server)
        first = next_event(stream, lambda s: s["builds"] >= 1 and s.get("svg") and s.get("findings") is not None)
        before = (root / "build" / "fig.svg").read_bytes()
        edit(root, 'text = "Hello"', 'text = "Howdy"')
        after = next_event(stream, lambda s: s["svg"] != first["svg"] and not s["building"]
                           and s["builds"] > first["builds"])
        svg = server.get("/fig.svg")[2]
        assert svg == (root / "build" / "fig.svg").read_bytes() != before
        assert b'aria-label="Howdy"' in svg and b"Hello" not in svg
        assert after["error"] is None
    lines = server.out.splitlines()
    assert lines[0].startswith("built fig in ") and lines[-1].endswith(" after layouts/fig.toml changed"), lines


@pytest.mark.e2e
def test_a_failed_build_is_the_clis_error_and_a_fix_clears_it(tmp_path):
    root = project(tmp_path)
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        good = server.wait_state(lambda s: s["builds"] >= 1 and s.get("svg"))
        svg = (root / "build" / "fig.svg").read_bytes()
        edit(root, 'size = ["20mm", "10mm"]', 'size = ["20mm", "10qq"]')
        failed = server.wait_state(lambda s: s["error"] is not None)
        expected = cli_error(root, tmp_path)
        assert "compose: error: " + failed["error"] == expected
        assert "10qq" in expected
        assert failed["svg"] == good["svg"] and server.get("/fig.svg")[2] == svg  # the last good figure stays
        edit(root, 'size = ["20mm", "10qq"]', 'size = ["20mm", "10mm"]')
        fixed = server.wait_state(lambda s: s["error"] is None and s["builds"] > failed["builds"])
        assert fixed["summary"].startswith(("built fig", "fig is up to date"))
    assert server.err.splitlines() == [expected, INTERRUPTED]


def listening(port: int) -> list[str]:
    """The local addresses listening on ``port`` (``/proc/net/tcp`` and ``tcp6``, state 0A = LISTEN)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as rows:
            for row in list(rows)[1:]:
                local, state = row.split()[1], row.split()[3]
                address, hex_port = local.split(":")
                if state == "0A" and int(hex_port, 16) == port:
                    found.append(address)
    return found


@pytest.mark.e2e
def test_it_listens_on_127_0_0_1_only_on_the_port_asked(tmp_path):
    root = project(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with served(["serve", "fig", "--root", str(root), "--format", "svg", "--port", str(port)]) as server:
        assert server.port == port
        assert listening(port) == ["0100007F"]  # 127.0.0.1, little-endian hex; nothing on tcp6
        assert server.get("/")[0] == 200
        # a second preview on the same port: one line, exit 1, nothing started
        done = run_compose(["serve", "fig", "--root", root, "--port", str(port)])
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == (f"compose: error: cannot serve on 127.0.0.1:{port}: Address already in use "
                               "(choose another --port, or leave it out for a free one)\n")


@pytest.mark.e2e
def test_ctrl_c_stops_every_process_in_one_line(tmp_path):
    root = project(tmp_path)
    server = Served(["serve", "fig", "--root", str(root), "--format", "svg"])
    server.wait_state(lambda s: s["builds"] >= 1 and s.get("findings") is not None)
    below = descendants(server.proc.pid)
    assert below, "the server process"
    assert server.stop() == 130
    assert server.err.splitlines() == [INTERRUPTED]
    deadline = time.monotonic() + LIMIT_S
    while any(process_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in below if process_alive(p)], "a process outlived compose"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
    assert not list((root / "build").glob(".serve-*"))  # the state files are gone


@pytest.mark.e2e
def test_the_server_dies_with_a_killed_compose(tmp_path):
    root = project(tmp_path)
    server = Served(["serve", "fig", "--root", str(root), "--format", "svg"])
    server.wait_state(lambda s: s["builds"] >= 1)
    below = descendants(server.proc.pid)
    server.proc.kill()  # SIGKILL: compose stops nothing itself; Linux ends the server (PR_SET_PDEATHSIG)
    server.proc.communicate(timeout=LIMIT_S)
    deadline = time.monotonic() + LIMIT_S
    while any(process_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert below and not [p for p in below if process_alive(p)]


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_that_is_not_one_is_one_line(tmp_path, port):
    root = project(tmp_path)
    done = run_compose(["serve", "fig", "--root", root, f"--port={port}"])
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"compose: error: --port {port} is not a port; give 1 to 65535, or leave it out for a free one\n"


def test_port_without_serve_is_refused(tmp_path):
    root = project(tmp_path)
    done = run_compose(["fig", "--root", root, "--port", "8000"])
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == ("compose: error: --port is the port of the live preview: compose serve NAME --port N "
                           "(see compose --help)\n")
    assert not (root / "build").exists()


@pytest.mark.e2e
def test_serve_all_has_an_index_and_rebuilds_each_figure(tmp_path):
    root = project(tmp_path)
    shutil.copy(root / "layouts" / "fig.toml", root / "layouts" / "other.toml")
    with served(["serve", "--all", "--root", str(root), "--format", "svg"]) as server:
        assert server.what == "2 figures"
        for name in ("fig", "other"):
            server.wait_state(lambda s: s["builds"] >= 1 and s.get("findings") is not None, name)
        status, _, index = server.get("/")
        assert status == 200 and b'"figure": null' in index and b'"names": ["fig", "other"]' in index
        assert server.get("/other/")[0] == 200
        assert server.get("/other.svg")[2] == (root / "build" / "other.svg").read_bytes()
        before = server.state("fig")
        edit(root, 'text = "Hello"', 'text = "Other"', name="other")
        server.wait_state(lambda s: b"Other" in server.get("/other.svg")[2] and not s["building"], "other")
        assert server.state("fig")["builds"] == before["builds"]  # its layout did not change
        below = descendants(server.proc.pid)
        assert len([p for p in below if process_alive(p)]) >= 3  # the server and one builder per figure
    assert server.proc.returncode == 130 and server.err.splitlines() == [INTERRUPTED]
    deadline = time.monotonic() + LIMIT_S
    while any(process_alive(p) for p in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in below if process_alive(p)]


@pytest.mark.e2e
def test_findings_carry_the_boxes_of_the_elements_they_name(tmp_path):
    root = project(tmp_path, x="5mm", y="5mm")  # the text's centre on the box's corner: it crosses the border
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        state = server.wait_state(lambda s: s.get("findings") is not None)
    crossing = [f for f in state["findings"] if f["rule"] == "overlap"]
    assert [f["element"] for f in crossing] == ["text title / shape box"]
    assert [e["name"] for e in crossing[0]["elements"]] == ["text title", "shape box"]
    text_box, shape_box = (e["box_pt"] for e in crossing[0]["elements"])
    assert shape_box == pytest.approx([5 * MM_PT, 5 * MM_PT, 20 * MM_PT, 10 * MM_PT], abs=1e-3)
    x, y, w, h = text_box  # centred on (5 mm, 5 mm)
    assert x + w / 2 == pytest.approx(5 * MM_PT, abs=1e-3) and y + h / 2 == pytest.approx(5 * MM_PT, abs=0.5)


# ─── the pieces ─────────────────────────────────────────────────────────────


def test_svg_size_reads_physical_units():
    assert svg_size(b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="180mm" '
                    b'height="1in" viewBox="0 0 510.236 72">') == \
        {"width_pt": pytest.approx(180 * MM_PT), "height_pt": 72.0, "viewbox": [0.0, 0.0, 510.236, 72.0]}
    assert svg_size(b'<svg width="100" height="50pt">')["width_pt"] == 75.0  # unitless: CSS px, 0.75 pt
    assert svg_size(b'<svg width="100%" height="50pt">') is None
    assert svg_size(b"<html>") is None



def test_the_preview_shows_a_figure_at_the_size_it_is_exported():
    """One rule for both (composer.svg.viewbox.canvas_size): a percentage takes the viewBox in CSS px (200 px =
    150 pt), upper-case units count, single quotes too."""
    from composer.stages.export import canvas_size_pt

    for head in (b'<svg width="100%" height="50pt" viewBox="0 0 200 100">', b"<svg width='2IN' height='1Cm'>",
                 b'<svg viewBox="0 0 200 100">'):
        size = svg_size(head)
        assert (size["width_pt"], size["height_pt"]) == pytest.approx(canvas_size_pt(head))
    assert svg_size(b'<svg width="100%" height="50pt" viewBox="0 0 200 100">')["width_pt"] == pytest.approx(150)


# ─── a real browser ──────────────────────────────────────────────────────────

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def browser_page(tmp_path):
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is not installed (.ci/run installs it: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra: "
                                                                 "pip install -e '.[test]'")
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1000, "height": 700})
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


@pytest.mark.e2e
def test_the_page_follows_edits_errors_and_fixes_without_reloading(tmp_path, browser_page):
    page = browser_page
    root = project(tmp_path, x="5mm", y="5mm")  # one finding to hover: the text crosses the box's border
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        page.goto(server.url)
        page.wait_for_function("document.getElementById('svg').dataset.token", timeout=LIMIT_S * 1000)
        page.evaluate("window.__kept = 'the same page'")
        # true size: 40 mm wide is 40 mm of CSS (96 px per inch); the + button zooms by 1.25
        assert page.locator("#sheet").bounding_box()["width"] == pytest.approx(40 * MM_PX, abs=0.5)
        page.click("#in")
        assert page.locator("#sheet").bounding_box()["width"] == pytest.approx(1.25 * 40 * MM_PX, abs=0.5)
        page.click("#actual")

        def shown_svg() -> str:
            return page.evaluate("fetch(document.getElementById('svg').src).then(r => r.text())")

        assert 'aria-label="Hello"' in shown_svg()
        token = page.evaluate("document.getElementById('svg').dataset.token")
        edit(root, 'text = "Hello"', 'text = "Howdy"')
        page.wait_for_function(f"document.getElementById('svg').dataset.token !== {token!r}", timeout=LIMIT_S * 1000)
        assert 'aria-label="Howdy"' in shown_svg()
        assert page.evaluate("window.__kept") == "the same page"  # swapped in place, not reloaded
        assert page.locator("#banner").is_hidden()

        edit(root, 'size = ["20mm", "10mm"]', 'size = ["20mm", "10qq"]')
        page.wait_for_selector("#banner:not([hidden])", timeout=LIMIT_S * 1000)
        assert page.inner_text("#banner") == cli_error(root, tmp_path)
        assert page.locator("#svg").is_visible() and 'aria-label="Howdy"' in shown_svg()  # the last good figure

        edit(root, 'size = ["20mm", "10qq"]', 'size = ["20mm", "10mm"]')
        edit(root, 'text = "Howdy"', 'text = "Fixed"')
        page.wait_for_selector("#banner", state="hidden", timeout=LIMIT_S * 1000)
        page.wait_for_function("document.getElementById('svg').dataset.token !== null", timeout=LIMIT_S * 1000)
        page.wait_for_function("fetch(document.getElementById('svg').src).then(r => r.text())"
                               ".then(t => t.includes('aria-label=\"Fixed\"'))", timeout=LIMIT_S * 1000)
        assert page.evaluate("window.__kept") == "the same page"

        # the findings: hovering one marks the box of the shape it names, 5 mm from the sheet's corner
        page.check("#check")
        finding = page.locator("#findings li", has_text="text crosses the border of a shape")
        finding.wait_for(timeout=LIMIT_S * 1000)
        finding.hover()
        sheet = page.locator("#sheet").bounding_box()
        marks = page.locator("#marks rect")
        marks.nth(1).wait_for(timeout=LIMIT_S * 1000)  # the marks the hover drew, laid out
        assert marks.count() == 2
        out_px = 1 * 96 / 72 + 1  # the mark's 1 pt margin, and half its 2 px stroke
        shape = marks.nth(1).bounding_box()
        assert shape["x"] - sheet["x"] == pytest.approx(5 * MM_PX - out_px, abs=0.75)
        assert shape["y"] - sheet["y"] == pytest.approx(5 * MM_PX - out_px, abs=0.75)
        assert shape["width"] == pytest.approx(20 * MM_PX + 2 * out_px, abs=0.75)
        assert shape["height"] == pytest.approx(10 * MM_PX + 2 * out_px, abs=0.75)
        page.mouse.move(0, 0)
        assert marks.count() == 0

        # the overlay replaces the figure while it is on
        page.check("#debug")
        page.wait_for_function("document.getElementById('overlay').dataset.token && "
                               "!document.getElementById('overlay').hidden", timeout=LIMIT_S * 1000)
        assert page.locator("#svg").is_hidden()
        page.screenshot(path=str(tmp_path / "serve.png"))
        page.uncheck("#debug")
        assert page.locator("#svg").is_visible() and page.locator("#overlay").is_hidden()
        assert page.evaluate("window.__kept") == "the same page"


@pytest.mark.e2e
def test_a_figure_in_a_subfolder_is_served(tmp_path):
    """`compose serve sub/x` (layouts/sub/x.toml) crashed at its first state file (no folder sub/)."""
    root = project(tmp_path)
    (root / "layouts" / "sub").mkdir()
    text = (root / "layouts" / "fig.toml").read_text()
    (root / "layouts" / "sub" / "x.toml").write_text(text)
    with served(["serve", "sub/x", "--root", str(root), "--format", "svg"]) as server:
        server.wait_state(lambda s: s["builds"] >= 1 and not s["building"], name="sub/x")
        status, _, svg = server.get("/sub/x.svg")
        assert status == 200 and svg == (root / "build" / "sub" / "x.svg").read_bytes()
    assert server.proc.returncode == 130 and server.err.splitlines() == [INTERRUPTED]


@pytest.mark.e2e
def test_a_preview_whose_server_died_says_so_and_ends(tmp_path):
    """The server process killed (SIGKILL): compose notices, says so in one line, exits 1 (it went on
    rebuilding a preview nobody could see)."""
    root = project(tmp_path)
    server = Served(["serve", "fig", "--root", str(root), "--format", "svg"])
    # the findings written: the build and its check (whose workers run after "building" is false) are over
    server.wait_state(lambda s: s["builds"] >= 1 and not s["building"] and s.get("findings") is not None)
    below = [pid for pid in descendants(server.proc.pid) if process_alive(pid)]
    assert len(below) == 1, below  # the server (no build or check runs)
    os.kill(below[0], signal.SIGKILL)
    out, err = server.proc.communicate(timeout=LIMIT_S)
    assert server.proc.returncode == 1, (out, err)
    assert err.splitlines() == ["compose: error: the preview server stopped unexpectedly"], err


@pytest.mark.e2e
def test_event_streams_past_the_cap_are_answered_503(tmp_path):
    """Each page following /events holds a server thread: past MAX_EVENT_STREAMS at once, one more is a 503
    line (it was one more thread, without bound), and the pages already open keep their streams."""
    from composer.cli.serve import MAX_EVENT_STREAMS

    def open_stream(port: int) -> tuple[socket.socket, bytes]:
        conn = socket.create_connection(("127.0.0.1", port), timeout=LIMIT_S)
        conn.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = conn.recv(4096)
            assert chunk, head
            head += chunk
        return conn, head

    root = project(tmp_path)
    with served(["serve", "fig", "--root", str(root), "--format", "svg"]) as server:
        server.wait_state(lambda s: s["builds"] >= 1)
        streams = [open_stream(server.port) for _ in range(MAX_EVENT_STREAMS)]
        try:
            assert all(head.startswith(b"HTTP/1.0 200 ") for _, head in streams)
            status, _, body = server.get("/events")
            assert status == 503 and body == f"at most {MAX_EVENT_STREAMS} preview pages at once; close some\n".encode()
            assert server.get("/state.json")[0] == 200  # the rest of the preview still answers
        finally:
            for conn, _ in streams:
                conn.close()
    assert server.proc.returncode == 130
