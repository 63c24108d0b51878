"""Shared fixtures: the repo's projects, built once per test session."""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import composer.stages  # noqa: F401  (registers the panel sources the layout loader reads: composer.layout.sources)

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "projects" / "demo"
FIDELITY = REPO / "tests" / "projects" / "fidelity"
SVG_NS = {"svg": "http://www.w3.org/2000/svg", "xlink": "http://www.w3.org/1999/xlink"}


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory):
    """The demo project copied to a temp folder and built once (svg, pdf, png at 150 dpi)."""
    from composer.pipeline import build

    root = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(DEMO, root)
    result = build("demo", root=root, dpi=150)
    return root, result.outputs


@pytest.fixture(scope="session")
def flagship_build(tmp_path_factory):
    """The flagship volume_kv built from the repo's own layout into a temp folder (300 dpi)."""
    from composer.pipeline import build

    out = tmp_path_factory.mktemp("volume_kv")
    result = build("volume_kv", root=REPO, out=out, dpi=300)
    return result.outputs


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
    from composer.pipeline import build
    from composer.stages.export import export

    root = tmp_path_factory.mktemp("fidelity") / "fidelity"
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
    flag = tmp_path_factory.mktemp("flagship_editable")  # the repo's panels and data, the layout made editable
    (flag / "layouts").mkdir()
    (flag / "panels").symlink_to(REPO / "panels", target_is_directory=True)
    (flag / "data").symlink_to(REPO / "data", target_is_directory=True)
    (flag / "layouts" / "volume_kv.toml").write_text(editable((REPO / "layouts" / "volume_kv.toml").read_text()))
    result = build("volume_kv", root=flag, formats=("svg", "pdf"))
    out["volume_kv_editable"] = (result.outputs["svg"].read_bytes(), result.outputs["pdf"].read_bytes())
    smeared = smear_heatmap(out["fidelity"][0])
    out["fidelity_smeared"] = (smeared, export(smeared, ["pdf"])["pdf"])
    return out


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
