"""Fuzzing with hypothesis: generated and mutated layout files and SVG inputs.

Every failure must be a :class:`ComposerError` whose text is one line naming
the file (and, but for whole-file errors such as broken TOML, the key), never
another exception and never a hang. The stages run in process and without
matplotlib panels, so thousands of examples take seconds:

- layouts: ``read_inputs`` (load, validate, data, values) and ``compose``
  (geometry, typesetting, import, drawing) with each render panel replaced by
  a blank SVG of its box size that publishes the anchor ``peak``;
- SVG inputs: an svg panel's file through ``read_inputs`` (sanitize) and
  ``compose`` (import), then the resvg engine's PNG at a small size; the composed SVG must
  hold no active content and no reference outside itself.

Every run draws fresh examples: the seed is random unless ``FUZZ_SEED`` is set,
and a failure names it (``FUZZ_SEED=... pytest tests/test_fuzz.py`` draws the
same examples again; hypothesis also prints ``@reproduce_failure`` for the
shrunk example). A failing input is written to a file the failure names; moved
into ``tests/fuzz-corpus/`` (see its README) it is replayed by every run, with
the inputs kept there. ``FUZZ_EXAMPLES`` sets the examples per fuzzer
(:data:`EXAMPLES`, what the suite's time allows); each example is stopped by an
alarm after :data:`HANG_S` seconds.
"""

from __future__ import annotations

import copy
import datetime
import hashlib
import json
import math
import os
import random
import re
import shutil
import signal
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from lxml import etree

from composer.errors import ComposerError
from composer.stages.compose import compose
from composer.stages.export import export
from composer.stages.geometry import panel_boxes
from composer.stages.inputs import Inputs, Project, read_inputs
from composer.stages.render import RenderedPanel
from composer.stages.typeset import typeset_figure
from composer.svg.sanitize import REMOVED
from conftest import DEMO

#: examples per fuzzer and run; fresh ones every run, so the runs add up
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or 500)
#: the run's seed: FUZZ_SEED, or a random one (printed with any failure)
SEED = int(os.environ.get("FUZZ_SEED") or random.SystemRandom().randrange(2**32))
HANG_S = 10
#: errors about a whole file or the whole canvas, which have no key path
WHOLE_FILE = ("not valid TOML", "cannot read", "expected a table", "cannot export the", "exporting the")
#: past failures and hand-picked hard inputs, replayed by every run: toml/<demo|repo>-*.toml, svg/*.svg
CORPUS = Path(__file__).resolve().parent / "fuzz-corpus"
#: hypothesis's own database stays in the default place (.hypothesis/, git-ignored): a local rerun
#: replays a failure first. The deadline is the alarm's: a slow example on a busy machine is no failure.
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=False, print_blob=True)
REPO = DEMO.parent.parent.parent
#: (project, layout file) pairs the layouts are mutated from: the demo, and repo figures that use the
#: layout engine's grids, relative placement, styles, rich text, shapes and connectors
BASES = [("demo", "demo.toml"), ("repo", "volume_kv.toml"), ("repo", "qtf_architecture.toml"),
         ("repo", "sq_pipeline.toml"), ("repo", "qtf_results.toml"), ("repo", "cl_parameters.toml")]


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"example ran longer than {HANG_S} s")


def run_bounded(func) -> BaseException | None:
    """``func()`` under an alarm; returns the exception it raised (None if none)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_S)
    try:
        func()
    except BaseException as exc:  # noqa: BLE001 - judged by the caller
        return exc
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return None


def check_error(exc: BaseException | None, file: str) -> None:
    """No exception, or a one-line ComposerError naming the file (and a key unless whole-file)."""
    if exc is None:
        return
    if not isinstance(exc, ComposerError):
        raise AssertionError(f"raw {type(exc).__name__}, not a ComposerError") from exc
    line = str(exc)
    assert "\n" not in line and line.strip(), repr(line)
    assert exc.file, line
    if exc.file == file and not any(line.startswith(f"{file}: {w}") for w in WHOLE_FILE):
        assert exc.key, f"no key path in {line!r}"


# ------------------------------------------------------------------ TOML writing


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def to_toml(doc: dict) -> str:
    return "\n".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in doc.items()) + "\n"


# ------------------------------------------------------------------ layout strategies


class _Bytes:
    """Choices read from a byte string: one hypothesis draw drives a whole example (fast to generate),
    and hypothesis still shrinks and mutates the bytes."""

    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def __bool__(self) -> bool:
        return self.at < len(self.data)

    def pick(self, options):
        value = self.data[self.at] if self.at < len(self.data) else 0
        self.at += 1
        return copy.deepcopy(options[value % len(options)])  # pools hold lists and tables: never share them


UNITS = ["mm", "pt", "in", "cm", "px", "", "%", "em", "MM", " mm"]
NUMBERS = ["0", "-0", "1", "12.5", "-3", "1e3", "1e999", "-1e999", "1e-400", ".5", "5.", "nan", "inf", "00012",
           "1_000", "٣", "１２", "+4", "1e308", "1e30", "-1e30", "1e-30", "3e5", "0.0001"]
LENGTHS = [f"{n}{u}" for n in NUMBERS for u in UNITS]
NAMES = ["a", "b", "logo", "photo", "node", "x", "a1", "_", "1a", "a-b", "", "peak", "a b"]
REFS = [f"{e}.{a}" for e in NAMES
        for a in ["n", "s", "e", "w", "ne", "nw", "se", "sw", "center", "peak", "north", "", "."]]
TEXTS = ["{total:.1f}", "{scale}", "{nope}", "{}", "{0}", "{total:d}", "{{x}}", "{total!r}", "{", "}",
         "{total.real}", "{total[0]}", "$x$", "$\\alpha$", "$", "$$", "$\\frac$", "$x^$", "a\nb", "\n",
         "$\\sqrt[3]{x}$", "$\\mathbb{R}$", "αβ ℝ → ✓", "中", "\x00", "\t", "\u200b", "\u00a0", "\\$5",
         "$a$ and $b$", "x" * 300, "\n" * 20, "{total:>99999}", "{scale:.99999f}", "$\\" + "{" * 50 + "$"]
COLORS = ["black", "#ff0000", "#ff000080", "none", "C0", "0.5", "tab:blue", "#12", "rgb(1,2,3)", "#GGGGGG", "",
          "transparent", "(1, 0, 0)", "red ", "white"]
RENDERS = ["demo:line", "demo:heat", "demo:broken", "demo:values", "demo:nope", "x:y", "demo:_describe", "demo:np",
           "demo:__init__", "demo::line", ":", "demo:line:x", "demo"]
FILES = ["../assets/logo.svg", "../assets/photo.png", "../data/demo.npz", "/etc/passwd", "../../../etc/passwd",
         "../assets", "../layouts/demo.toml", "../assets/missing.svg", "nul\x00.svg", "x" * 300 + ".svg",
         "../assets/photo.png.svg", "../data/demo.npz/x.csv"]
FONTS = ["DejaVu Sans", "DejaVu Sans, WenQuanYi Micro Hei", "Comic Nonsense", "", ",", "DejaVu Sans,,", "'DejaVu Sans'"]
NUMBERS_ANY = [0, -1, 1, 7, 1e308, float("inf"), float("nan"), -0.0, 1e-320, 2**63 - 1, 0.5, 1.5, 10**6, True, False]
ODD = [datetime.datetime(2000, 1, 1, 1, 2, 3), datetime.date(1999, 12, 31), datetime.time(1, 2, 3), [], {}, ["1mm"],
       ["1mm", "2mm", "3mm"], ["1mm", 2], {"x": 1}, [[1]], [{}], "", "a", "render", "rect", "circle", "straight",
       "-|", "|-", "end", "start", "both", "none", "bold", "italic", "left", "center", "n", "top"]
ANY = LENGTHS[::7] + REFS[::11] + TEXTS + COLORS + RENDERS + FILES + FONTS + NUMBERS_ANY + ODD
KEYS = ["width", "height", "font", "font_size", "background", "data", "params", "label_size", "label_weight",
        "label_color", "label_offset", "raster_ppi", "render", "svg", "image", "at", "offset", "size", "label",
        "title", "text", "name", "anchor", "align", "weight", "style", "color", "opacity", "kind", "radius",
        "corner", "fill", "stroke", "stroke_width", "dash", "from", "to", "route", "head", "head_length",
        "head_width", "gap", "figure", "panels", "shape", "arrow", "bogus", "text_size", "text_color", "a", "c"]


def _pool(old) -> list:
    """Values of the kind a leaf already holds (a length for a length, a text for a text, ...)."""
    if isinstance(old, (bool, int, float)):
        return NUMBERS_ANY
    if isinstance(old, str):
        if re.fullmatch(r"-?[\d.]+[a-z]*", old):
            return LENGTHS
        if "." in old and ":" not in old and "/" not in old:
            return REFS
        if old.startswith("#") or old in ("white", "black", "none"):
            return COLORS
        if ":" in old and "/" not in old:
            return RENDERS
        if "/" in old:
            return FILES
        return TEXTS
    return ANY


def _paths(doc, prefix=()):
    """Every position (key path) in a nested dict/list document."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for key, value in items:
        out.append(prefix + (key,))
        if isinstance(value, (dict, list)):
            out.extend(_paths(value, prefix + (key,)))
    return out


def _at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _base(which: int) -> tuple[str, str]:
    kind, name = BASES[which % len(BASES)]
    root = DEMO if kind == "demo" else REPO
    return kind, (root / "layouts" / name).read_text(encoding="utf-8")


def layout_from_bytes(data: bytes, free_text: str) -> tuple[str, bytes]:
    """A base layout (chosen by the first byte) with 1 to 3 mutations chosen by ``data``, as TOML.

    A mutation replaces a value (mostly by one of its own kind from the pools
    above, or by ``free_text``, any unicode), deletes a key, adds one, or renames
    one; leaves are chosen three times as often as whole tables.
    """
    b = _Bytes(data)
    kind, text = _base(b.pick(range(256)))
    doc = tomllib.loads(text)
    for _ in range(b.pick([1, 1, 1, 2, 3])):
        paths = _paths(doc)
        if not paths:
            break
        leaves = [p for p in paths if not isinstance(_at(doc, p), (dict, list))]
        path = b.pick(leaves if leaves and b.pick([1, 1, 1, 0]) else paths)
        parent, key = _at(doc, path[:-1]), path[-1]
        action = b.pick(["replace", "replace", "replace", "replace", "free", "delete", "add", "rename"])
        if action == "replace":
            parent[key] = b.pick(_pool(parent[key]) if b.pick([1, 1, 1, 0]) else ANY)
        elif action == "free":
            parent[key] = free_text
        elif action == "delete":
            del parent[key]
        elif action == "add":
            target = parent[key] if isinstance(parent[key], (dict, list)) else parent
            if isinstance(target, dict):
                target[b.pick(KEYS)] = b.pick(ANY)
            else:
                target.append(b.pick(ANY))
        elif action == "rename" and isinstance(parent, dict):
            parent[b.pick(KEYS)] = parent.pop(key)
    return kind, to_toml(doc).encode("utf-8")


INSERTS = [b"\xff", b"\x00", b'"', b"[", b"]", b"=", b"\n", b"{", b"#", b"\xe2\x82", b"'''", b"[[text]]\n",
           b"\\u12", b"-", b"[figure]\n", b"x = 1\n", b"\r", b"\t", b"\xef\xbb\xbf"]


def toml_bytes_from(data: bytes) -> tuple[str, bytes]:
    """A base layout's own text (chosen by the first byte) with 1 to 3 byte-level edits chosen by ``data``."""
    b = _Bytes(data)
    kind, text = _base(b.pick(range(256)))
    out = bytearray(text.encode("utf-8"))
    for _ in range(b.pick([1, 2, 3])):
        at = b.pick(range(256)) * len(out) // 256
        op = b.pick(["insert", "delete", "flip", "truncate", "duplicate"])
        arg = b.pick(range(256))
        if op == "insert":
            out[at:at] = INSERTS[arg % len(INSERTS)]
        elif op == "delete":
            del out[at:at + 1 + arg % 20]
        elif op == "flip" and at < len(out):
            out[at] ^= 1 << (arg % 8)
        elif op == "truncate":
            del out[at:]
        elif op == "duplicate":
            out[at:at] = out[at:at + 1 + arg % 60]
    return kind, bytes(out)


mutated_layout = st.tuples(st.binary(min_size=2, max_size=24), st.text(max_size=12)).map(
    lambda args: layout_from_bytes(*args))
byte_mutated_layout = st.binary(min_size=2, max_size=16).map(toml_bytes_from)


# ------------------------------------------------------------------ harness


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    root = tmp_path_factory.mktemp("fuzz") / "demo"
    shutil.copytree(DEMO, root)
    return Project.at(root)


@pytest.fixture(scope="module")
def projects(project, tmp_path_factory) -> dict[str, Project]:
    """The demo project and a copy of the repo's figures (layouts, panels, data, styles)."""
    root = tmp_path_factory.mktemp("fuzz") / "repo"
    for folder in ("layouts", "panels", "data", "styles", "assets"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder)
    return {"demo": project, "repo": Project.at(root)}


_ANCHOR_REF = re.compile(r"^[A-Za-z_]\w*\.([A-Za-z_]\w*)$")


def blank_panels(inputs: Inputs, typeset) -> dict[str, RenderedPanel]:
    """Each render panel as an empty SVG of its box size, publishing every ``element.anchor`` name the
    layout mentions as a data anchor at its centre (so references to data anchors resolve)."""
    names = {m.group(1) for value in _strings(inputs.figure) for m in [_ANCHOR_REF.match(value)] if m}
    boxes = panel_boxes(inputs.figure, typeset.text_sizes, typeset.shape_sizes, file=inputs.file)
    out = {}
    for panel in inputs.figure.panels:
        if panel.kind == "render":
            w, h = boxes[panel.name].width_pt, boxes[panel.name].height_pt
            svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w!r}pt" height="{h!r}pt" '
                   f'viewBox="0 0 {w!r} {h!r}"><rect width="{w!r}" height="{h!r}" fill="#eee"/></svg>')
            out[panel.name] = RenderedPanel(svg=svg.encode(), anchors={n: (w / 2, h / 2) for n in names})
    return out


def _strings(figure) -> list[str]:
    try:
        return re.findall(r'"([^"\n]*)"', figure.path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, AttributeError):
        return []


def load_and_compose(project: Project, name: str) -> bytes:
    """The load+validate stage, typesetting, geometry and the composition, with blank panels."""
    inputs = read_inputs(project, name, timeout_s=HANG_S / 2)
    typeset = typeset_figure(inputs)
    svg = compose(inputs, blank_panels(inputs, typeset), typeset)
    assert_finite(svg, {f"panel-{p.name}" for p in inputs.figure.panels if p.kind != "image"})
    return svg


_NOT_FINITE = re.compile(r"(?<![A-Za-z#])(?:nan|inf)(?![A-Za-z])", re.IGNORECASE)


def assert_finite(svg: bytes, imported_groups: set[str]) -> None:
    """Every coordinate composer computed is a finite number: no ``nan`` or ``inf`` in the geometry of
    the canvas, the panel groups and what composer drew (an imported file's own attributes are its own)."""
    root = etree.fromstring(svg)
    imported = {el for group in root if group.get("id") in imported_groups for el in group.iterdescendants()}
    for el in root.iter():
        if el in imported:
            continue
        for attr in ("x", "y", "width", "height", "viewBox", "transform", "d", "cx", "cy", "r", "rx", "points"):
            value = el.get(attr)
            if value is not None:
                assert not _NOT_FINITE.search(value), (el.tag, attr, value[:80])


def fuzz(name: str, strategy, body: Callable, saved: Path, suffix: Callable) -> Callable[[], None]:
    """A hypothesis test of ``body(example)`` over ``strategy`` with the run's seed.

    A failing example is written to ``saved`` (``suffix(example)`` names the file) and the failure's
    text gets a note: the seed, and how to keep the example in the corpus.
    """

    @seed(SEED)
    @FUZZ
    @given(strategy)
    def check(example) -> None:
        try:
            body(example)
        except BaseException as exc:
            saved.mkdir(parents=True, exist_ok=True)
            data = example[1] if isinstance(example, tuple) else example
            path = saved / f"{suffix(example)}-{hashlib.sha256(data).hexdigest()[:12]}.{name}"
            path.write_bytes(data)
            exc.add_note(f"fuzz seed {SEED}: FUZZ_SEED={SEED} draws this run's examples again; the failing "
                         f"{name} input is {path}: move it to {CORPUS / name}/ to replay it on every run")
            raise

    return check


def _layout_case(projects: dict[str, Project], kind: str, data: bytes) -> BaseException | None:
    project = projects[kind]
    (project.root / "layouts" / "fuzz.toml").write_bytes(data)
    exc = run_bounded(lambda: load_and_compose(project, "fuzz"))
    check_error(exc, "layouts/fuzz.toml")
    return exc


@pytest.fixture
def in_process_values(monkeypatch):
    """``values()`` runs in process here (its isolation is tested in tests/sandbox/test_isolation.py):
    a fork per example would double the time."""
    import composer.stages.inputs

    monkeypatch.setattr(composer.stages.inputs, "run_recorded", lambda func, timeout_s, who, cwd=None: func())


def test_fuzz_layout_files(projects, in_process_values, tmp_path_factory):
    """:data:`EXAMPLES` generated layouts: each builds its SVG canvas or fails with one clear ComposerError."""
    outcomes = {"ok": 0, "error": 0}

    def body(example: tuple[str, bytes]) -> None:
        exc = _layout_case(projects, *example)
        outcomes["error" if exc else "ok"] += 1

    fuzz("toml", st.one_of(mutated_layout, mutated_layout, byte_mutated_layout), body,
         tmp_path_factory.mktemp("fuzz-failures"), lambda example: example[0])()
    assert sum(outcomes.values()) >= EXAMPLES
    # both paths were exercised (about 1 in 10 builds, most fail; seen over many seeds: far above these)
    assert outcomes["ok"] > EXAMPLES // 50 and outcomes["error"] > EXAMPLES // 5, outcomes


LAYOUT_CORPUS = sorted((CORPUS / "toml").glob("*.toml"))


@pytest.mark.parametrize("path", LAYOUT_CORPUS, ids=[p.name for p in LAYOUT_CORPUS])
def test_layout_corpus(path, projects, in_process_values):
    """A saved layout (past failure or hard case) builds or fails with one clear ComposerError."""
    kind = path.name.split("-", 1)[0]
    assert kind in projects, f"{path.name}: a corpus layout's name starts with its project: demo- or repo-"
    _layout_case(projects, kind, path.read_bytes())


# ------------------------------------------------------------------ SVG strategies

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
TAGS = ["g", "defs", "use", "image", "rect", "circle", "path", "text", "tspan", "style", "script", "foreignObject",
        "a", "pattern", "clipPath", "mask", "marker", "linearGradient", "stop", "set", "animate", "filter",
        "feImage", "feGaussianBlur", "symbol", "switch", "svg", "metadata", "title", "textPath"]
IDS = ["a", "b", "c", "dot", "figure_1", "p1"]
HREFS = ["#a", "#b", "#c", "#dot", "#missing", "", "#", "http://127.0.0.1:9/x.png", "https://127.0.0.1:9/x",
         "file:///etc/passwd", "//127.0.0.1:9/x", "photo.png", "../assets/photo.png", "../../../../etc/passwd",
         "logo.svg", "logo.svg#dot", "javascript:alert(1)", "data:image/png;base64,iVBORw0KGgo=",
         "data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'/>", "data:text/html,<b>",
         "data:image/svg+xml;base64,!!!", "data:,", "data:image/png,", "mailto:x@y", "photo.png?x=1", "%2e%2e/x",
         "C:\\\\x.png", "ph%6fto.png"]
ATTRS = {
    "id": IDS,
    "href": HREFS,
    f"{{{XLINK}}}href": HREFS,
    "fill": ["red", "url(#a)", "url(#b)", "url(http://127.0.0.1:9/g#x)", "url('#c')", "url(", "url(#a) red", "none",
             "URL(file:///etc/passwd)"],
    "style": ["fill:red", "fill:url(#a)", "fill:url(http://127.0.0.1:9/x)", "x:\\75 rl(#a)", "@import 'x.css'",
              "fill:url(\"file:///x\")", "}{", "marker-mid:url(#a)"],
    "onload": ["alert(1)"],
    "onclick": ["x()"],
    "viewBox": ["0 0 40 20", "0 0 0 0", "0,0,10,10", "-5 -5 10 10", "a b c d", "1e999 0 1 1", "0 0 1e-300 1",
                "0 0 nan 1", "", "0 0 10"],
    "width": ["40", "10mm", "0", "-1", "1e999", "50%", "", "12pt", "nan"],
    "height": ["20", "10mm", "0", "-1", "1e999", "50%", "", "12pt"],
    "d": ["M0 0 L10 10", "M0 0" + " L1 1" * 50, "", "Z", "M"],
    "marker-mid": ["url(#a)", "url(#b)"],
    "transform": ["scale(2)", "translate(1e999)", "rotate(45)", "matrix(0 0 0 0 0 0)", "x"],
    "x": ["0", "1e309", "-5", "a"],
}
#: every (attribute, value) pair, drawn in one step
ATTR_PAIRS = [(name, value) for name, options in ATTRS.items() for value in options]
SVG_TEXTS = [None, None, "x", "café", "中", "a\tb", "]]>", "\u200b", "  ", "&"]
DAMAGE = [b"<", b"&", b"\xff", b"\x00", b"<!DOCTYPE svg>", b"]]>", b"<![CDATA[x]]>", b"<?pi x?>", b"<!-- c -->",
          b"&amp;", b"&lt;", b"<!DOCTYPE svg SYSTEM 'x.dtd'>"]


def svg_from_bytes(data: bytes) -> bytes:
    """A tree of SVG elements with attributes from the pools above, in some encoding, maybe damaged.

    The bytes choose: the root viewBox, then per element its tag, parent, up to
    three attributes and a text, and at the end encoding and damage.
    """
    b = _Bytes(data)
    root = etree.Element(f"{{{SVG}}}svg", nsmap={None: SVG, "xlink": XLINK})
    root.set("viewBox", b.pick(["0 0 40 20", "0 0 40 20", "0 0 40 20", "0 0 0 20", "a", "0 0 1e999 1"]))
    encoding = b.pick(["UTF-8", "UTF-8", "UTF-8", "UTF-16", "ISO-8859-1", "ascii"])
    damage = b.pick([None, None, None, None, "insert", "delete", "flip", "bom", "entity"])
    where, bit = b.pick(range(256)), b.pick(range(256))
    elements = [root]
    while b and len(elements) < 16:
        el = etree.SubElement(b.pick(elements), f"{{{SVG}}}{b.pick(TAGS)}")
        for _ in range(b.pick([0, 1, 1, 2, 3])):
            name, value = b.pick(ATTR_PAIRS)
            el.set(name, value)
        el.text = b.pick(SVG_TEXTS)
        elements.append(el)
    out = bytearray(etree.tostring(root, xml_declaration=True, encoding=encoding))
    at = where * len(out) // 256
    if damage == "insert":
        out[at:at] = DAMAGE[bit % len(DAMAGE)]
    elif damage == "delete":
        del out[at:at + 1 + bit % 40]
    elif damage == "flip" and at < len(out):
        out[at] ^= 1 << (bit % 8)
    elif damage == "bom":
        out[0:0] = b"\xef\xbb\xbf"
    elif damage == "entity":
        out = bytearray(b'<!DOCTYPE svg [<!ENTITY e "x">]>' + bytes(out).split(b"?>", 1)[-1])
    return bytes(out)


svg_document = st.binary(min_size=4, max_size=80).map(svg_from_bytes)


SVG_LAYOUT = '''[figure]
width = "30mm"
height = "15mm"

[panels.logo]
svg = "../assets/fuzz.svg"
at = ["1mm", "1mm"]
size = ["28mm", "13mm"]
'''


def _svg_case(project: Project, data: bytes) -> BaseException | None:
    """``data`` as an svg panel's file: imported (sanitized, inert), the canvas exported to PNG, or an error."""
    (project.root / "layouts" / "svgfuzz.toml").write_text(SVG_LAYOUT)
    (project.root / "assets" / "fuzz.svg").write_bytes(data)

    def build_svg() -> None:
        svg = load_and_compose(project, "svgfuzz")
        assert_inert(svg)
        export(svg, ["png"], dpi=20, source="layouts/svgfuzz.toml", timeout_s=HANG_S)  # forked, as in a build

    exc = run_bounded(build_svg)
    check_error(exc, "layouts/svgfuzz.toml")
    return exc


def test_fuzz_svg_inputs(project, tmp_path_factory):
    """:data:`EXAMPLES` generated SVG files as an svg panel: imported safely, rasterized, or one clear error."""
    outcomes = {"ok": 0, "error": 0}

    def body(data: bytes) -> None:
        exc = _svg_case(project, data)
        outcomes["error" if exc else "ok"] += 1

    fuzz("svg", svg_document, body, tmp_path_factory.mktemp("fuzz-failures"), lambda data: "svg")()
    assert sum(outcomes.values()) >= EXAMPLES
    assert outcomes["ok"] > EXAMPLES // 10 and outcomes["error"] > EXAMPLES // 10, outcomes


SVG_CORPUS = sorted((CORPUS / "svg").glob("*.svg"))


@pytest.mark.parametrize("path", SVG_CORPUS, ids=[p.name for p in SVG_CORPUS])
def test_svg_corpus(path, project):
    """A saved SVG input (past failure or hard case): imported safely, rasterized, or one clear error."""
    _svg_case(project, path.read_bytes())


def assert_inert(svg: bytes) -> None:
    """No removed element, no event attribute, no reference leaving the document."""
    root = etree.fromstring(svg)
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        assert el.tag.startswith(f"{{{SVG}}}"), el.tag
        assert el.tag.rpartition("}")[2] not in REMOVED, el.tag
        for attr, value in el.attrib.items():
            name = attr.rpartition("}")[2]
            assert not name.lower().startswith("on"), attr
            if name == "href":
                assert value.startswith(("#", "data:image/png;", "data:image/jpeg;", "data:image/svg+xml;")), value
            for url in re.findall(r"url\(\s*['\"]?([^)'\"]*)", value, re.IGNORECASE):
                assert url.startswith("#") or url == "", value
