"""Shared fixtures: the repo's projects, built once per test run (across xdist workers), the CLI run in
process (``compose``), and the checks every test gets: SIGINT acts as Ctrl-C although pytest was started
with it ignored, and no test leaves a process running."""

from __future__ import annotations

import atexit
import base64
import contextlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import composer.stages  # noqa: F401  (registers the panel sources the layout loader reads: composer.layout.sources)

REPO = Path(__file__).resolve().parent.parent
_MARK = "COMPOSER_TEST_PROCESS"  # in the environment of every process a test starts: the pid of its pytest
DEMO = REPO / "tests" / "projects" / "demo"
FIDELITY = REPO / "tests" / "projects" / "fidelity"
SVG_NS = {"svg": "http://www.w3.org/2000/svg", "xlink": "http://www.w3.org/1999/xlink"}

# composer keeps typeset text in the user's cache (composer.incremental.usercache): the tests never read or
# write the real one. One temporary folder for this run, inherited by xdist workers and by every process a
# test starts; a test that counts typesetting takes its own (the ``user_cache`` fixture).
os.environ["COMPOSER_CACHE_DIR"] = tempfile.mkdtemp(prefix="composer-test-cache-")
atexit.register(shutil.rmtree, os.environ["COMPOSER_CACHE_DIR"], True)


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    """An empty user cache folder of this test's own (``$COMPOSER_CACHE_DIR``)."""
    folder = tmp_path / "user-cache"
    monkeypatch.setenv("COMPOSER_CACHE_DIR", str(folder))
    return folder


def pytest_configure(config):
    """SIGINT acts as Ctrl-C in this process and in every process a test starts, also when pytest was
    started with SIGINT ignored (``nohup pytest &``, ``trap '' INT``): an ignored signal stays ignored
    across fork and exec, so the ``compose`` a test started and stopped with SIGINT ran on, and the test
    failed at its timeout. A handled signal is reset to its default action at exec, so Python's own
    handler here gives every child the default back."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ[_MARK] = str(os.getpid())  # inherited by every process a test starts: found by _left_running


#: the test files that take longest (setup included), longest first: run before the others, so that with
#: ``--dist loadfile`` the two workers end together instead of one finishing the gallery alone at the end
#: (measured with ``--durations=0``; a scheduling hint, never a speed goal)
LONGEST_FIRST = ("test_gallery.py", "test_crossrender.py", "test_fuzz.py", "incremental/test_incremental.py",
                 "stages/test_colorbar.py", "test_seed_figures_b.py", "test_fidelity.py", "test_atomic.py",
                 "sandbox/test_isolation.py", "stages/test_export.py", "cli/test_serve.py",
                 "incremental/test_opened.py", "stages/test_guides.py", "lint/test_rules.py")


def pytest_collection_modifyitems(config, items):
    """The files of :data:`LONGEST_FIRST` first, in its order; every other file after them, as collected
    (each file's tests keep their order)."""
    def rank(item) -> int:
        path = item.nodeid.split("::")[0].removeprefix("tests/")
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)
    items[:] = sorted(items, key=rank)  # stable


def shared(tmp_path_factory, name: str, make: Callable[[Path], object]) -> Path:
    """A folder made once per test run, for every xdist worker: ``make(folder)`` fills it the first time
    (under a file lock, so a second worker asking meanwhile waits for it), later calls return it as made.
    Tests read it and never change it."""
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # basetemp is the worker's own folder; its parent the run's
        base = base.parent
    folder = base / "shared" / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder) + ".lock"):
        if not (folder / ".made").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a worker that failed half-way
            folder.mkdir()
            make(folder)
            (folder / ".made").write_text("")
    return folder


def _outputs(folder: Path, outputs: dict[str, Path]) -> dict[str, Path]:
    """Write (at the first build) or read ``folder/outputs.json``: format -> output file."""
    (folder / "outputs.json").write_text(json.dumps({kind: str(path) for kind, path in outputs.items()}))
    return outputs


def _read_outputs(folder: Path) -> dict[str, Path]:
    return {kind: Path(path) for kind, path in json.loads((folder / "outputs.json").read_text()).items()}


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory):
    """The demo project copied to a temp folder and built once (svg, pdf, png at 150 dpi)."""
    from composer.pipeline import build

    def make(folder: Path) -> None:
        shutil.copytree(DEMO, folder / "demo")
        _outputs(folder, build("demo", root=folder / "demo", dpi=150).outputs)

    folder = shared(tmp_path_factory, "demo", make)
    return folder / "demo", _read_outputs(folder)


@pytest.fixture(scope="session")
def flagship_build(tmp_path_factory):
    """The flagship volume_kv built from the repo's own layout into a temp folder (300 dpi)."""
    from composer.pipeline import build

    def make(folder: Path) -> None:
        _outputs(folder, build("volume_kv", root=REPO, out=folder / "out", dpi=300).outputs)

    return _read_outputs(shared(tmp_path_factory, "volume_kv", make))


def editable(layout: str) -> str:
    """A TOML layout's text with ``text = "editable"`` added to its ``[figure]``."""
    return re.sub(r"^(\[figure\]\n)", r'\1text = "editable"\n', layout, count=1, flags=re.M)


def swap_glyph(layout: str) -> str:
    """The fidelity layout with one glyph changed: the 'a' of "italic" becomes an 'o' (7 pt italic)."""
    assert "<i>italic</i>" in layout
    return layout.replace("<i>italic</i>", "<i>itolic</i>")


@pytest.fixture(scope="session")
def fidelity_builds(tmp_path_factory, flagship_build):
    """SVG and PDF bytes of the print-fidelity figures: name -> (svg, pdf).

    ``fidelity`` and ``fidelity_editable`` (tests/projects/fidelity in both text
    modes), ``fidelity_glyph`` and ``fidelity_glyph_editable`` (one glyph
    swapped), ``fidelity_smeared`` (the heatmap drawn smoothed from its 56 x 56
    pixels), ``volume_kv`` and ``volume_kv_editable`` (the flagship).
    """
    folder = shared(tmp_path_factory, "fidelity", lambda folder: _fidelity_builds(folder, flagship_build))
    return {name: ((folder / f"{name}.svg").read_bytes(), (folder / f"{name}.pdf").read_bytes())
            for name in json.loads((folder / "names.json").read_text())}


def _fidelity_builds(folder: Path, flagship_build: dict[str, Path]) -> None:
    """Build the figures of ``fidelity_builds`` into ``folder``: NAME.svg, NAME.pdf and names.json."""
    from composer.pipeline import build
    from composer.stages.export import export

    root = folder / "project" / "fidelity"
    shutil.copytree(FIDELITY, root)
    layout = (root / "layouts" / "fidelity.toml").read_text()
    variants = {"fidelity_editable": editable(layout), "fidelity_glyph": swap_glyph(layout),
                "fidelity_glyph_editable": editable(swap_glyph(layout))}
    for name, text in variants.items():
        (root / "layouts" / f"{name}.toml").write_text(text)
    out = {}
    for name in ("fidelity", *variants):
        result = build(name, root=root, formats=("svg", "pdf"))
        out[name] = (result.outputs["svg"].read_bytes(), result.outputs["pdf"].read_bytes())
    out["volume_kv"] = (flagship_build["svg"].read_bytes(), flagship_build["pdf"].read_bytes())
    flag = folder / "flagship_editable"  # the repo's panels and data, the layout made editable
    (flag / "layouts").mkdir(parents=True)
    (flag / "panels").symlink_to(REPO / "panels", target_is_directory=True)
    (flag / "data").symlink_to(REPO / "data", target_is_directory=True)
    (flag / "layouts" / "volume_kv.toml").write_text(editable((REPO / "layouts" / "volume_kv.toml").read_text()))
    result = build("volume_kv", root=flag, formats=("svg", "pdf"))
    out["volume_kv_editable"] = (result.outputs["svg"].read_bytes(), result.outputs["pdf"].read_bytes())
    smeared = smear_heatmap(out["fidelity"][0])
    out["fidelity_smeared"] = (smeared, export(smeared, ["pdf"])["pdf"])
    for name, (svg, pdf) in out.items():
        (folder / f"{name}.svg").write_bytes(svg)
        (folder / f"{name}.pdf").write_bytes(pdf)
    (folder / "names.json").write_text(json.dumps(list(out)))


def smear_heatmap(svg: bytes) -> bytes:
    """The fidelity figure with its 56 x 56 heatmap broken the classic way: the data's own
    56 x 56 pixels, drawn with the renderers' default (smoothing) image rendering."""
    from PIL import Image

    def fix(match: re.Match[str]) -> str:
        tag = match.group(0)
        if 'id="heat--' not in tag:
            return tag
        data = base64.b64decode(re.sub(r"\s+", "", re.search(r'base64,([^"]*)"', tag).group(1)))
        with Image.open(io.BytesIO(data)) as img:
            pixels = np.asarray(img)
        step = pixels.shape[1] // 56
        small = Image.fromarray(np.ascontiguousarray(pixels[step // 2::step, step // 2::step]))
        buf = io.BytesIO()
        small.save(buf, format="PNG")
        tag = re.sub(r'base64,[^"]*"', "base64," + base64.b64encode(buf.getvalue()).decode() + '"', tag)
        tag = re.sub(r'\s*image-rendering="[^"]*"', "", tag)
        return re.sub(r"image-rendering:[\w-]+;?", "", tag)

    text = re.sub(r"<image\b[^>]*>", fix, svg.decode("utf-8"))
    assert "image-rendering" not in re.search(r'<image[^>]*id="heat--[^>]*>', text).group(0)
    return text.encode("utf-8")


def font_file(family: str) -> str | None:
    """The file of an installed font family: as matplotlib finds it, else (a font installed after
    matplotlib cached its font list, as ``.ci/run`` may do) by the family names of the system's font
    files. matplotlib's font list is left as it is: adding a late font is composer's job, tested too."""
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    try:
        return font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
    except ValueError:
        pass
    for path in sorted(font_manager.findSystemFonts()):
        try:
            if FT2Font(path).family_name == family:
                return path
        except (OSError, RuntimeError):
            continue
    return None


def read_png(path: Path) -> np.ndarray:
    """PNG -> (H, W, 4) uint8 RGBA array."""
    from PIL import Image

    with Image.open(path) as img:
        return np.asarray(img.convert("RGBA"))


def pdf_pixels(pdf: bytes | Path, dpi: float = 72.0) -> np.ndarray:
    """Page 1 of a PDF (bytes or a file) as pdfium draws it at ``dpi``, on white: RGB ints, shape (h, w, 3)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf.read_bytes() if isinstance(pdf, Path) else pdf)
    try:
        page = doc[0]
        image = page.render(scale=dpi / 72.0, fill_color=(255, 255, 255, 255)).to_pil()
        page.close()
    finally:
        doc.close()
    return np.asarray(image.convert("RGB")).astype(int)


#: composer's provenance record in a composed SVG (composer.stages.describe): what it names differs between
#: builds of other inputs (another layout file's bytes, a figure built in code) that draw the same figure
_PROVENANCE = re.compile(rb'<metadata id="provenance"><composer:provenance xmlns:composer="[^"]*">[^<]*'
                         rb'</composer:provenance></metadata>')


def drawing(svg: bytes | str) -> bytes:
    """A composed SVG without its provenance record: for comparing what two builds of different inputs drew."""
    data = svg.encode() if isinstance(svg, str) else svg
    stripped, count = _PROVENANCE.subn(b"", data)
    assert count <= 1, "two provenance records"
    return stripped


def ids_and_refs(svg: bytes) -> tuple[list[str], set[str]]:
    """All ids of an SVG and every id referenced by href/xlink:href/url(#...) (attributes and CSS)."""
    root = etree.fromstring(svg)
    ids, refs = [], set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        for attr, value in el.attrib.items():
            if attr == "id":
                ids.append(value)
            elif attr.endswith("href") and value.startswith("#"):
                refs.add(value[1:])
            refs.update(re.findall(r"url\(\s*['\"]?#([^)'\"\s]+)", value))
        if el.tag.endswith("style") and el.text:
            refs.update(re.findall(r"url\(\s*['\"]?#([^)'\"\s]+)", el.text))
    return ids, refs


def parse_transform(text: str | None) -> np.ndarray:
    """An SVG transform attribute -> 3x3 affine matrix (translate, scale, matrix, rotate)."""
    m = np.eye(3)
    for kind, args in re.findall(r"(\w+)\s*\(([^)]*)\)", text or ""):
        v = [float(a) for a in re.split(r"[\s,]+", args.strip()) if a]
        if kind == "translate":
            t = np.array([[1, 0, v[0]], [0, 1, v[1] if len(v) > 1 else 0], [0, 0, 1]])
        elif kind == "scale":
            sx = v[0]
            sy = v[1] if len(v) > 1 else sx
            t = np.diag([sx, sy, 1.0])
        elif kind == "matrix":
            t = np.array([[v[0], v[2], v[4]], [v[1], v[3], v[5]], [0, 0, 1]])
        elif kind == "rotate":
            a = np.radians(v[0])
            t = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
        else:
            raise ValueError(kind)
        m = m @ t
    return m


def cumulative_transform(el) -> np.ndarray:
    """The product of every transform from the root down to ``el`` (inclusive)."""
    chain = []
    while el is not None:
        chain.append(el.get("transform"))
        el = el.getparent()
    m = np.eye(3)
    for text in reversed(chain):
        m = m @ parse_transform(text)
    return m


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root/build`` (stray temp files included): its bytes and mtime."""
    return {str(p.relative_to(root)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted((root / "build").rglob("*")) if p.is_file()}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (``CI=true``) a skipped test fails: ``.ci/run`` installs every dependency a test needs
    (Chromium, fonts, ghostscript), so a skip there means an install step is missing."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI", "").lower() == "true" and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every test dependency must be installed: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """In CI, a whole module skipped at collection (``pytest.importorskip``, ``pytest.skip(...,
    allow_module_level=True)``) fails too, for the same reason."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("CI", "").lower() == "true" and report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every test dependency must be installed: {reason}"


def layout_project(tmp_path: Path, body: str, head: str = 'width = "40mm"\nheight = "30mm"\n') -> Path:
    """A project whose one layout is ``layouts/fig.toml``: ``[figure]`` with ``head``, then ``body``."""
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    (root / "layouts" / "fig.toml").write_text("[figure]\n" + head + textwrap.dedent(body), encoding="utf-8")
    return root


def demo_drawn_by(tmp_path: Path, module: str, source: str) -> Path:
    """A copy of the demo project whose panel ``b`` is drawn by ``MODULE:FUNCTION`` (``module``, a
    ``"name:function"``) written from ``source`` into ``panels/``."""
    root = tmp_path / "proj"
    shutil.copytree(DEMO, root)
    (root / "panels" / f"{module.split(':')[0]}.py").write_text(source)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('render = "demo:heat"', f'render = "{module}"'))
    return root


def process_alive(pid: int) -> bool:
    """The process runs (a zombie does not: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


@pytest.fixture
def render_log(tmp_path, monkeypatch):
    """The render counter of the incremental-build tests: their renderers append their name to the file
    ``$COMPOSER_TEST_RENDER_LOG``; returns a function giving the names written since its last call, in
    the order written."""
    log = tmp_path / "renders.log"
    monkeypatch.setenv("COMPOSER_TEST_RENDER_LOG", str(log))

    def renders() -> list[str]:
        names = log.read_text().split() if log.exists() else []
        log.write_text("")
        return names
    return renders


# ─── the CLI in process ─────────────────────────────────────────────────────


def python_warning_filters() -> None:
    """The warning filters of a Python started without -W (the warnings module's docs, "Default Warning
    Filter"), in place of pytest's."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.simplefilter("ignore", category, append=True)


class ComposeTimeout(BaseException):
    """:func:`run_compose` ran past its ``timeout_s`` (a BaseException: no ``except Exception`` in composer
    takes it for an error of its own)."""


def run_compose(argv: list[str], *, cwd: Path | str | None = None, env: dict[str, str | None] | None = None,
                merged: bool = False, timeout_s: float = 300) -> subprocess.CompletedProcess:
    """``compose ARGV`` run in this process, as a fresh ``compose`` process would run (its entry point,
    ``composer.cli.main.main``), at a fifth of the time: returns a ``CompletedProcess`` with the exit
    status and what it wrote to stdout and stderr (text), at the file-descriptor level too (the panels'
    workers and their children write there). ``merged``: stderr into stdout, in the order written, as a
    terminal (or ``stderr=subprocess.STDOUT``) shows them. ``cwd`` and ``env`` (variables added to the
    environment; None removes one) hold for the run only. A usage error or ``--help`` (SystemExit) is
    its exit status, as in a process. Past ``timeout_s`` (a hang guard, as ``subprocess.run``'s timeout;
    SIGALRM, main thread only) it raises :class:`ComposeTimeout`. The behaviours a fresh process alone
    shows (signals, kills, ``python -m composer``) are tested with one (the ``e2e`` tests)."""
    from composer.cli.main import main

    argv = [str(arg) for arg in argv]
    out_file = tempfile.TemporaryFile()
    err_file = out_file if merged else tempfile.TemporaryFile()
    sys.stdout.flush()
    sys.stderr.flush()
    saved_fds = os.dup(1), os.dup(2)
    saved_streams = sys.stdout, sys.stderr
    saved_sigint = signal.getsignal(signal.SIGINT)
    saved_cwd = os.getcwd()
    saved_env = {key: os.environ.get(key) for key in env or {}}
    alarm = threading.current_thread() is threading.main_thread()
    if alarm:
        def too_long(signum, frame):
            raise ComposeTimeout(f"compose {' '.join(argv)} still ran after {timeout_s:g} s")
        saved_alarm = signal.signal(signal.SIGALRM, too_long)
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        for key, value in (env or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if cwd is not None:
            os.chdir(cwd)
        os.dup2(out_file.fileno(), 1)
        os.dup2(err_file.fileno(), 2)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                      errors="backslashreplace", write_through=True)
        try:
            with warnings.catch_warnings():
                python_warning_filters()  # pytest's own show what Python ignores
                status = main(argv)
        except SystemExit as exc:  # argparse: a usage error, --help, --version
            if exc.code is None or isinstance(exc.code, int):
                status = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                status = 1
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, saved_alarm)
        with contextlib.suppress(ValueError, OSError):
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = saved_streams
        os.dup2(saved_fds[0], 1)
        os.dup2(saved_fds[1], 2)
        for fd in saved_fds:
            os.close(fd)
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        signal.signal(signal.SIGINT, saved_sigint)  # a Ctrl-C handled by compose ignores the next one
    texts = []
    for file in dict.fromkeys((out_file, err_file)):  # one file when merged
        file.seek(0)
        texts.append(file.read().decode("utf-8", "backslashreplace"))
        file.close()
    return subprocess.CompletedProcess(["compose", *argv], status, texts[0], texts[-1] if not merged else "")


class ForkedCompose:
    """``compose ARGV`` in a child process forked from this one (no exec): a process of its own, which
    signals, kills and ``/proc`` see as a fresh ``compose`` process, without the second a fresh Python
    spends importing composer (its modules are this process's, already imported). The part of
    :class:`subprocess.Popen`'s interface the tests use: ``pid``, ``stdout`` and ``stderr`` (text pipes),
    ``returncode``, ``poll``, ``wait``, ``communicate``, ``send_signal``, ``terminate``, ``kill``.

    The child runs as ``python -m composer.cli ARGV`` would: its stdout and stderr are the pipes (buffered
    as Python buffers a pipe), its signals have their default actions and SIGINT raises KeyboardInterrupt,
    Python's default warning filters, no atexit handler but those the run registers (run at its end, as at
    a Python's exit), an uncaught exception printed and status 1. ``env`` is its whole environment,
    ``cwd`` its folder, ``start_new_session`` as Popen's. Fork it from a test's own thread (the child has
    that one thread). What only a fresh interpreter shows (``python -m composer``, imports at start) is
    tested with one."""

    def __init__(self, argv: list[str], *, env: dict[str, str] | None = None, cwd: Path | str | None = None,
                 start_new_session: bool = False):
        self.args = ["compose", *map(str, argv)]
        self.returncode: int | None = None
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            status = 1
            try:
                os.close(out_r)
                os.close(err_r)
                status = self._child(out_w, err_w, env, cwd, start_new_session)
            finally:
                os._exit(status)
        os.close(out_w)
        os.close(err_w)
        self.pid = pid
        self.stdout = open(out_r, encoding="utf-8")  # noqa: SIM115  (closed by communicate)
        self.stderr = open(err_r, encoding="utf-8", errors="backslashreplace")  # noqa: SIM115

    def _child(self, out_w: int, err_w: int, env: dict[str, str] | None, cwd: Path | str | None,
               start_new_session: bool) -> int:
        import atexit
        import faulthandler
        import traceback

        if start_new_session:
            os.setsid()
        faulthandler.disable()  # pytest's, on its own copy of the terminal's stderr
        for signum in signal.valid_signals():
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                if signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN, None):
                    signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.close(out_w)
        os.close(err_w)
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding="utf-8",
                                      errors="backslashreplace", line_buffering=True)
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        atexit._clear()  # pytest's and this test run's: not this process's to run
        import logging

        for handler in list(logging.root.handlers):  # pytest's capture: a fresh Python logs through none
            logging.root.removeHandler(handler)
        logging.root.setLevel(logging.WARNING)
        python_warning_filters()
        sys.argv = ["compose", *self.args[1:]]
        from composer.cli.main import main

        try:
            status = main(self.args[1:])
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        except KeyboardInterrupt:  # as Python ends on an uncaught one: killed by SIGINT
            traceback.print_exc()
            sys.stdout.flush()
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            status = 130
        except BaseException:  # noqa: BLE001  (what an uncaught exception does to a Python)
            traceback.print_exc()
            status = 1
        atexit._run_exitfuncs()
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        return status

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.01)
        return self.returncode

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """What the child writes from now to its end on stdout and stderr; waits for its end."""
        texts: dict[str, str] = {}
        readers = [threading.Thread(target=lambda name=name, pipe=pipe: texts.__setitem__(name, pipe.read()),
                                    daemon=True) for name, pipe in (("out", self.stdout), ("err", self.stderr))]
        for reader in readers:
            reader.start()
        deadline = None if timeout is None else time.monotonic() + timeout
        for reader in readers:
            reader.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
            if reader.is_alive():
                raise subprocess.TimeoutExpired(self.args, timeout)
        self.stdout.close()
        self.stderr.close()
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()) + 5)
        return texts["out"], texts["err"]

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


@pytest.fixture
def cli() -> Callable[..., subprocess.CompletedProcess]:
    """:func:`run_compose`: ``cli(["demo", "--root", root])`` -> CompletedProcess(returncode, stdout,
    stderr)."""
    return run_compose


# ─── no test leaves a process running ───────────────────────────────────────


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux: /proc/PID/task/*/children)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found |= {int(child), *_descendants(int(child))}
    return found


def _last_pid() -> int:
    """The pid Linux gave last (the fifth field of /proc/loadavg)."""
    with open("/proc/loadavg") as loadavg:
        return int(loadavg.read().split()[4])


def _left_running(since_pid: int, before: set[int]) -> dict[int, str]:
    """The processes this test started that still run (zombies do not: they run nothing): this process's
    descendants, and processes given a pid since ``since_pid`` with this pytest's mark in their
    environment (a process that detached, ``setsid`` or a double fork, is no descendant any more)."""
    me = os.getpid()
    candidates = _descendants(me)
    last = _last_pid()
    mark = f"{_MARK}={me}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        new = since_pid < pid <= last if since_pid <= last else (pid > since_pid or pid <= last)
        if new and pid not in candidates and pid != me:
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/environ", "rb") as environ:
                    if mark in environ.read().split(b"\0"):
                        candidates.add(pid)
    left = {}
    for pid in candidates - before:
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ", 1)[1][0] == "Z":
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                left[pid] = cmdline.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    return left


@pytest.fixture(autouse=True)
def _no_process_left() -> Iterator[None]:
    """A test that leaves a process running fails (at its teardown) naming it, and the process is
    killed. A process being stopped is given 10 s to end."""
    since = _last_pid()
    before = _descendants(os.getpid())
    yield
    left = _left_running(since, before)
    deadline = time.monotonic() + 10
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = _left_running(since, before)
    if left:
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        pytest.fail("the test left processes running (now killed): "
                    + "; ".join(f"{pid} {command[:120]}" for pid, command in sorted(left.items())), pytrace=False)
