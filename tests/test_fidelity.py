"""Print fidelity without a browser: text modes, font checks, rasters, heavy panels, imports, Inkscape, exports."""

from __future__ import annotations

import io
import re
import shutil
import subprocess

import numpy as np
import pytest
from lxml import etree

from composer.errors import ComposerWarning, LayoutError
from conftest import FIDELITY, SVG_NS, drawing, editable, font_file, ids_and_refs, run_compose

INKSCAPE = "http://www.inkscape.org/namespaces/inkscape"
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"


def _root(svg: bytes):
    return etree.fromstring(svg)


def _project(tmp_path, layout: str, panels: str | None = None, assets: dict | None = None):
    """A throwaway project: layouts/fig.toml, panels/fidelity.py (+ extra panel code), assets."""
    (tmp_path / "layouts").mkdir()
    (tmp_path / "panels").mkdir()
    shutil.copy(FIDELITY / "panels" / "fidelity.py", tmp_path / "panels" / "fidelity.py")
    if panels:
        (tmp_path / "panels" / "extra.py").write_text(panels)
    for name, data in (assets or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    (tmp_path / "layouts" / "fig.toml").write_text(layout)
    return tmp_path


def _fidelity_panels():
    import importlib.util

    spec = importlib.util.spec_from_file_location("fidelity_panels", FIDELITY / "panels" / "fidelity.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(root, formats=("svg",), **kw):
    from composer.pipeline import build

    return build("fig", root=root, formats=formats, **kw).outputs


# ─── text modes ─────────────────────────────────────────────────────────────

def test_text_mode_is_checked(tmp_path):
    root = _project(tmp_path, '[figure]\nwidth = "20mm"\nheight = "10mm"\ntext = "outlines"\n')
    with pytest.raises(LayoutError, match=r"figure.text: 'outlines' is not a valid value; supported values are "
                                          r"'selectable', 'paths', 'editable'"):
        _build(root)


def test_raster_key_only_on_render_panels(tmp_path):
    root = _project(tmp_path, '[figure]\nwidth = "20mm"\nheight = "10mm"\n[panels.d]\nsvg = "../d.svg"\n'
                              'at = ["0mm", "0mm"]\nsize = ["5mm", "5mm"]\nraster = true\n',
                    assets={"d.svg": '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>'})
    with pytest.raises(LayoutError, match=r"panels.d.raster: raster applies to render panels"):
        _build(root)


def test_paths_mode_has_no_text_but_imported(fidelity_builds):
    root = _root(fidelity_builds["fidelity"][0])
    texts = root.findall(".//svg:text", SVG_NS)
    assert texts and all(t.xpath("ancestor::svg:g[@id='panel-drawing']", namespaces=SVG_NS) for t in texts)
    assert root.find("svg:path[@id='text-rich']", SVG_NS) is not None or \
        root.find("svg:g[@id='text-rich']/svg:path", SVG_NS) is not None


def test_editable_canvas_text_is_text_at_composers_positions(fidelity_builds):
    from composer.stages.inputs import Project, read_inputs
    from composer.stages.typeset import typeset_figure

    root = _root(fidelity_builds["fidelity_editable"][0])
    group = root.find("svg:g[@id='text-rich']", SVG_NS)
    lines = group.findall("svg:text", SVG_NS)
    assert len(lines) == 2
    for line in lines:
        assert line.get(XML_SPACE) == "preserve"
        assert line.get("font-family") == "'DejaVu Sans', sans-serif"
        assert line.get("font-size") == "7"
        for tspan in line.findall("svg:tspan", SVG_NS):
            assert len(tspan.get("x").split()) == len(tspan.text)  # one x per character
    runs = {t.text: t for t in lines[0].findall("svg:tspan", SVG_NS)}
    assert runs["Bold"].get("font-weight") == "bold"
    assert runs["italic"].get("font-style") == "italic"
    assert runs["red"].get("fill") == "#b91c1c"
    # mathtext is outlines, never characters: no <text> holds a formula or its glyphs
    all_text = "".join(t.xpath("string()") for t in root.iter(f"{{{SVG_NS['svg']}}}text"))
    assert "$" not in all_text and "α" not in all_text and "∑" not in all_text
    assert group.findall("svg:path", SVG_NS), "the formula is drawn as a path"
    assert "math:" in lines[1].xpath("string()") and "≈ 0.5" in lines[1].xpath("string()")
    # the characters sit where composer measured them: the first at the block's left edge
    project = Project.at(FIDELITY)
    inputs = read_inputs(project, "fidelity")
    block = typeset_figure(inputs).texts[0][1]
    first_x = [float(t.get("x").split()[0]) for t in lines[0].findall("svg:tspan", SVG_NS)]
    widths = np.diff(first_x)
    assert widths.min() > 0 and first_x[-1] < first_x[0] + block.width_pt


def test_editable_panel_text_is_pinned_and_math_is_outlines(fidelity_builds):
    root = _root(fidelity_builds["fidelity_editable"][0])
    panel = root.find("svg:g[@id='panel-plot']", SVG_NS)
    texts = panel.findall(".//svg:text", SVG_NS)
    contents = [t.text for t in texts]
    assert "Bold title" in contents and "0.0" in contents and "  spaced" in contents  # spaces kept
    for t in texts:
        assert len(t.get("x").split()) == len(t.text), t.text
        assert t.get(XML_SPACE) == "preserve" and "text-anchor: start" in t.get("style")
    assert not any("$" in c or "α" in c or "∑" in c for c in contents)
    # the ylabel formula and the xlabel's math run are glyph outlines (matplotlib's <use> of glyph paths)
    assert panel.findall(".//svg:use", SVG_NS)


def _pdf_text(pdf: bytes) -> str:
    """The text pdfium extracts from page 1 (what a reader can search and copy)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        textpage = page.get_textpage()
        text = textpage.get_text_bounded()
        textpage.close()
        page.close()
    finally:
        doc.close()
    return re.sub(r"\s+", " ", text)


def test_editable_and_selectable_pdf_text_is_text(fidelity_builds):
    """Text that is text in the PDF, which neither a rasterized page nor outlines can give: pdfium extracts
    the layout's words (the rich [[text]], panel titles, matplotlib's title and tick labels, the imported
    SVG's own <text>) from the editable build and from the default build (``text = "selectable"``: outlines
    in the SVG, real text in the PDF; ``text = "paths"``: tests/text/test_realtext.py)."""
    for build, math in (("fidelity_editable", ("math: ≈ 0.5",)), ("fidelity", ("math: α", "∑", "βk ≈ 0.5"))):
        text = _pdf_text(fidelity_builds[build][1])  # editable: the formula outlines; selectable: text too
        for words in ("Bold, italic and red text", "imshow 56×56", "pcolormesh", "Bold title", "0.5",
                      "imported SVG text", *math):
            assert words in text, (build, words, text)


def test_editable_build_is_deterministic(fidelity_builds, tmp_path):
    from composer.pipeline import build

    shutil.copytree(FIDELITY, tmp_path / "p")
    layout = tmp_path / "p" / "layouts" / "fidelity.toml"
    layout.write_text(editable(layout.read_text()))
    again = build("fidelity", root=tmp_path / "p", formats=("svg",)).outputs["svg"].read_bytes()
    assert drawing(again) == drawing(fidelity_builds["fidelity_editable"][0])  # the record names each layout


# ─── fonts ──────────────────────────────────────────────────────────────────

def _font_layout(font: str, weight: str = "normal", mode: str = "editable") -> str:
    return (f'[figure]\nwidth = "40mm"\nheight = "10mm"\nfont = "{font}"\ntext = "{mode}"\n'
            f'[[text]]\ntext = "Font check"\nat = ["2mm", "5mm"]\nanchor = "w"\nweight = "{weight}"\n')


def test_editable_refuses_a_font_the_renderers_would_swap(tmp_path):
    """STIXGeneral ships inside matplotlib, so matplotlib measures with it; fontconfig (cairosvg,
    browsers) has no such font and would draw another."""
    from composer.text.fonts import fontconfig_font

    match = fontconfig_font("STIXGeneral")
    if match is None or match.family.casefold() == "stixgeneral":
        pytest.skip("fontconfig has STIXGeneral here (or no fontconfig): nothing would be swapped")
    root = _project(tmp_path, _font_layout("STIXGeneral"))
    with pytest.raises(LayoutError) as err:
        _build(root)
    message = str(err.value)
    assert re.match(r"layouts/fig\.toml:\d+:\d+: figure\.text: ", message)
    assert "'STIXGeneral'" in message and "STIXGeneral.ttf" in message and match.family in message
    assert "\n" not in message
    # with outlines, nothing can be swapped: the same layout builds
    (root / "layouts" / "fig.toml").write_text(_font_layout("STIXGeneral", mode="paths"))
    assert _build(root)["svg"].exists()


def test_editable_refuses_a_faked_bold(tmp_path):
    """WenQuanYi Micro Hei has one face, regular (fontconfig lists no other): asked for bold, renderers
    would fake it, so an editable build refuses."""
    styles = subprocess.run(["fc-list", "WenQuanYi Micro Hei", "style"], capture_output=True, text=True).stdout \
        if shutil.which("fc-list") else ""
    if font_file("WenQuanYi Micro Hei") is None or not styles:
        pytest.skip("needs WenQuanYi Micro Hei (.ci/run installs fonts-wqy-microhei) and fontconfig's fc-list")
    assert "bold" not in styles.lower(), styles
    root = _project(tmp_path, _font_layout("WenQuanYi Micro Hei", weight="bold"))
    with pytest.raises(LayoutError, match=r"'WenQuanYi Micro Hei' \(bold\).*with bold faked"):
        _build(root)


def test_panel_font_that_is_not_installed_is_a_warning(tmp_path):
    """Named in a warning (the panel is drawn in a worker process; the warning reaches the build),
    and ``compose check`` reports it as its font-substituted error."""
    panels = ("def label(fig, data):\n    ax = fig.add_axes([0, 0, 1, 1])\n"
              "    ax.text(0.5, 0.5, 'hello', fontfamily='No Such Font Sans')\n")
    root = _project(tmp_path, '[figure]\nwidth = "20mm"\nheight = "10mm"\n[panels.p]\nrender = "extra:label"\n'
                              'at = ["0mm", "0mm"]\nsize = ["20mm", "10mm"]\n', panels=panels)
    with pytest.warns(ComposerWarning, match=r"layouts/fig.toml: panels.p.render: panel 'p': text 'hello' asks for "
                                             r"font 'No Such Font Sans', which is not installed \(matplotlib draws "
                                             r"it in DejaVu Sans instead\)"):
        _build(root)


def test_imported_svg_font_swap_is_a_warning(tmp_path):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="20mm" height="10mm" viewBox="0 0 20 10">'
           '<text x="1" y="6" font-family="Helvetica Neue Imaginary" font-size="4">Hi</text></svg>')
    root = _project(tmp_path, '[figure]\nwidth = "20mm"\nheight = "10mm"\n[panels.logo]\nsvg = "../logo.svg"\n'
                              'at = ["0mm", "0mm"]\nsize = ["20mm", "10mm"]\n', assets={"logo.svg": svg})
    # Chromium's rule (Skia's fontconfig interface): fontconfig's match stands in only when it is a metric twin;
    # an unknown family has none, so the list's next font is drawn, here none: the standard font, Times New Roman
    # as fontconfig resolves it (Liberation Serif on Debian)
    standard = subprocess.run(["fc-match", "-f", "%{family[0]}", "Times New Roman"], capture_output=True,
                              text=True, check=True).stdout
    with pytest.warns(ComposerWarning, match=r"logo.svg: fonts not installed, drawn as Chromium here draws them: "
                                             r"'Helvetica Neue Imaginary' not at all .*the standard font "
                                             + re.escape(repr(standard))):
        _build(root)
    # a separate output folder: the folder above is up to date, and an up-to-date build renders nothing
    cli = run_compose(["fig", "--root", root, "--format", "svg", "--out", tmp_path / "cli-out"])
    assert cli.returncode == 0
    warning_lines = [line for line in cli.stderr.splitlines() if line.startswith("compose: warning: ")]
    assert len(warning_lines) == 1 and "Helvetica Neue Imaginary" in warning_lines[0]


# ─── rasters ────────────────────────────────────────────────────────────────

def test_no_raster_in_the_flagship_is_below_300_ppi(flagship_build):
    from composer.svg.images import PPI_TOLERANCE, raster_report

    report = raster_report(_root(flagship_build["svg"].read_bytes()))
    assert len(report) >= 6  # rgb, pca, fmap photos/maps; f-vector and key strips and the volume, rasterized
    low = [(r.owner, r.ppi) for r in report if r.ppi < 300 * PPI_TOLERANCE]
    assert not low, low


def test_nearest_heatmap_is_enlarged_by_pixel_repetition(fidelity_builds):
    import base64

    from PIL import Image

    from composer.svg.images import raster_report

    stripes = _fidelity_panels().stripes

    root = _root(fidelity_builds["fidelity"][0])
    heat = [r for r in raster_report(root) if r.owner == "panel-heat"]
    assert len(heat) == 1 and heat[0].ppi >= 300 and heat[0].nearest
    factor = heat[0].width_px // 56
    assert heat[0].width_px == 56 * factor and factor == 8  # ceil(300 / (56 px over 36 mm = 39.5 ppi))
    el = root.find(f".//svg:image[@id='{heat[0].element_id}']", SVG_NS)
    href = el.get("{http://www.w3.org/1999/xlink}href")
    with Image.open(io.BytesIO(base64.b64decode(href.split(",", 1)[1]))) as img:
        pixels = np.asarray(img.convert("L")).astype(int)
    blocks = pixels.reshape(56, factor, 56, factor)
    assert (blocks == blocks[:, :1, :, :1]).all()  # every block one value: nothing was interpolated
    gray = np.round(np.clip(stripes(), 0, 1) * 255)
    assert np.abs(blocks[:, 0, :, 0] - gray).max() <= 3  # the 256-entry colormap rounds


def test_smoothed_image_below_target_is_reported_not_resampled():
    import base64

    from PIL import Image

    from composer.svg.images import finish_rasters

    buf = io.BytesIO()
    Image.new("RGB", (10, 10), "red").save(buf, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()
    root = etree.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
                            f'<g id="panel-p"><image id="im" width="72" height="72" xlink:href="{uri}"/></g></svg>')
    with pytest.warns(ComposerWarning, match=r"panel p: image im has 10x10 px over 25.4x25.4 mm = 10 ppi, "
                                             r"below raster_ppi 300"):
        finish_rasters(root, 300)
    assert root.find(".//{http://www.w3.org/2000/svg}image").get("{http://www.w3.org/1999/xlink}href") == uri


def test_rasterized_mesh_lines_up_with_its_axes(fidelity_builds):
    """The pcolormesh, rasterized at 300 ppi, covers exactly its axes: every edge within one raster pixel."""
    from composer.svg.transform import cumulative

    root = _root(fidelity_builds["fidelity"][0])
    panel = root.find("svg:g[@id='panel-mesh']", SVG_NS)
    image = panel.find(".//svg:image", SVG_NS)
    a, _, _, d, e, f = cumulative(image)
    x, y = float(image.get("x", 0)), float(image.get("y", 0))
    w, h = float(image.get("width")), float(image.get("height"))
    xs = sorted((a * x + e, a * (x + w) + e))
    ys = sorted((d * y + f, d * (y + h) + f))  # matplotlib flips images: scale(1 -1)
    left, right, top, bottom = xs[0], xs[1], ys[0], ys[1]
    px, py = (float(v) for v in re.match(r"translate\(([-\d.]+) ([-\d.]+)\)", panel.get("transform")).groups())
    width_pt, height_pt = 40 / 25.4 * 72, 38 / 25.4 * 72  # the panel's box
    axes = (px + 0.14 * width_pt, py + (1 - 0.94) * height_pt, px + 0.96 * width_pt, py + (1 - 0.12) * height_pt)
    one_px = 72 / 300
    for got, want in zip((left, top, right, bottom), axes, strict=True):
        assert abs(got - want) <= one_px + 1e-3, (got, want)


def _mesh_panel(raster: str = "") -> str:
    return ('[figure]\nwidth = "30mm"\nheight = "30mm"\n[panels.m]\nrender = "extra:flat"\n'
            f'at = ["0mm", "0mm"]\nsize = ["30mm", "30mm"]\n{raster}\n')


FLAT = ("import numpy as np\n"
        "def flat(fig, data):\n    ax = fig.add_axes([0, 0, 1, 1])\n"
        "    ax.pcolormesh(np.full((40, 40), 0.5), cmap='viridis', vmin=0, vmax=1)\n    ax.set_axis_off()\n"
        "def flat3d(fig, data):\n    ax = fig.add_axes([-0.3, -0.3, 1.6, 1.6], projection='3d')\n"
        "    x, y = np.meshgrid(np.linspace(0, 1, 41), np.linspace(0, 1, 41))\n"
        "    ax.plot_surface(x, y, 0 * x, color='#3b82f6', shade=False, linewidth=0)\n"
        "    ax.view_init(elev=90, azim=-90)\n    ax.set_axis_off()\n")


@pytest.mark.parametrize("kind", ["flat", "flat3d"])
@pytest.mark.parametrize("raster,seams", [("", False), ("raster = false", True)])
def test_mesh_has_no_hairline_seams(tmp_path, raster, seams, kind):
    """A pcolormesh, and a 3D surface, of one colour must render as one colour; vector cells
    (raster = false) show seams."""
    from PIL import Image

    root = _project(tmp_path, _mesh_panel(raster).replace("extra:flat", f"extra:{kind}"), panels=FLAT)
    out = _build(root, formats=("svg", "png"), dpi=300)
    with Image.open(out["png"]) as img:
        rgb = np.asarray(img.convert("RGB")).astype(int)
    h, w = rgb.shape[:2]
    inner = rgb[h // 4:3 * h // 4, w // 4:3 * w // 4]  # well inside the mesh / the plane
    spread = int(np.abs(inner - inner[0, 0]).max())
    assert (spread > 20) == seams, spread


def test_dense_3d_panel_svg_stays_small(tmp_path):
    """A 200 x 200 surface (40,000 quads) in a 60 x 50 mm panel: under 1 MB of SVG (README), seam-free;
    drawn as vectors (raster = false) it is several MB."""
    from composer.mpl.savesvg import HEAVY_PANEL_BYTES

    layout = ('[figure]\nwidth = "64mm"\nheight = "54mm"\n[panels.s]\nrender = "fidelity:surface"\n'
              'at = ["2mm", "2mm"]\nsize = ["60mm", "50mm"]\nparams = { n = 200 }\n')
    root = _project(tmp_path, layout)
    svg = _build(root)["svg"].read_bytes()
    assert len(svg) < 1_000_000 and len(svg) < HEAVY_PANEL_BYTES
    assert _root(svg).findall(".//svg:g[@id='panel-s']//svg:image", SVG_NS)


def test_heavy_scatter_is_rasterized_but_keeps_vector_text(tmp_path):
    from composer.mpl.savesvg import HEAVY_PANEL_BYTES, vector_bytes

    panels = ("import numpy as np\n"
              "def cloud(fig, data, n=12000):\n    ax = fig.add_axes([0.2, 0.2, 0.75, 0.75])\n"
              "    t = np.arange(n)\n    ax.scatter(np.sin(t * 0.37), np.cos(t * 0.11), s=2)\n"
              "    ax.set_xlabel('x label')\n")
    base = ('[figure]\nwidth = "50mm"\nheight = "40mm"\n[panels.c]\nrender = "extra:cloud"\n'
            'at = ["0mm", "0mm"]\nsize = ["50mm", "40mm"]\n')
    root = _project(tmp_path, base, panels=panels)
    with pytest.warns(ComposerWarning) as said:
        svg = _build(root)["svg"].read_bytes()
    lines = [str(w.message) for w in said if "rasterized" in str(w.message)]
    # the build says so, in one line: which panel, why (its size), how to keep it vector
    assert len(lines) == 1 and "\n" not in lines[0], lines
    assert re.search(r"panel 'c': \d\.\d MB of vector markup \(over 1 MB\), so its data artists are rasterized "
                     r"at 300 ppi .*raster = false keeps it vector", lines[0]), lines[0]
    assert vector_bytes(svg) < HEAVY_PANEL_BYTES / 4
    panel = _root(svg).find("svg:g[@id='panel-c']", SVG_NS)
    assert panel.findall(".//svg:image", SVG_NS)  # the points
    assert len(panel.findall(".//svg:use", SVG_NS)) > 10  # tick labels and the x label: glyph outlines
    # raster = false keeps every point a vector, as asked
    (root / "layouts" / "fig.toml").write_text(base + "raster = false\n")
    assert vector_bytes(_build(root)["svg"].read_bytes()) > HEAVY_PANEL_BYTES


def test_raster_true_rasterizes_a_light_panel(fidelity_builds, tmp_path):
    layout = ('[figure]\nwidth = "50mm"\nheight = "30mm"\n[panels.p]\nrender = "fidelity:plot"\n'
              'at = ["0mm", "0mm"]\nsize = ["50mm", "30mm"]\n')
    root = _project(tmp_path, layout)
    assert not _root(_build(root)["svg"].read_bytes()).findall(".//svg:image", SVG_NS)
    (root / "layouts" / "fig.toml").write_text(layout + "raster = true\n")
    svg = _root(_build(root)["svg"].read_bytes())
    assert len(svg.findall(".//svg:image", SVG_NS)) == 1  # the line; ticks, labels and title stay vector


def test_flagship_3d_panel_is_small(flagship_build):
    panel = _root(flagship_build["svg"].read_bytes()).find("svg:g[@id='panel-volume']", SVG_NS)
    assert len(etree.tostring(panel)) < 100_000  # 172 kB of translucent vector quads before


# ─── imported SVG ───────────────────────────────────────────────────────────

def _import_project(tmp_path, svg: str, size=("40mm", "20mm")):
    layout = (f'[figure]\nwidth = "{size[0]}"\nheight = "{size[1]}"\n[panels.d]\nsvg = "../d.svg"\n'
              f'at = ["0mm", "0mm"]\nsize = ["{size[0]}", "{size[1]}"]\n')
    return _project(tmp_path, layout, assets={"d.svg": svg})


def test_imported_svg_without_viewbox_uses_px_user_units(tmp_path):
    """No viewBox: user units are CSS px, so a 200 x 100 px drawing fills a 200 x 100 px box exactly."""
    from PIL import Image

    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="200px" height="100px">'
           '<rect x="0" y="0" width="200" height="100" fill="#ff0000"/></svg>')
    root = _import_project(tmp_path, svg, size=("200px", "100px"))
    out = _build(root, formats=("svg", "png"), dpi=96)
    with Image.open(out["png"]) as img:
        rgb = np.asarray(img.convert("RGB"))
    assert rgb.shape[:2] == (100, 200)  # a px canvas: 96 dpi gives 1 px per CSS px
    assert (rgb[1:-1, 1:-1] == [255, 0, 0]).all()


def test_imported_svg_aspect_and_root_presentation(tmp_path):
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" preserveAspectRatio="xMinYMax meet" '
           'fill="#0f766e" font-family="DejaVu Sans" font-size="3"><circle cx="5" cy="5" r="5"/>'
           '<text x="0" y="9">ab</text></svg>')
    root = _import_project(tmp_path, svg)
    group = _root(_build(root)["svg"].read_bytes()).find("svg:g[@id='panel-d']", SVG_NS)
    assert group.get("transform").startswith("translate(0 0)")  # xMin: flush left (40 x 20 mm box, 20 mm drawing)
    inner = group.find("svg:svg", SVG_NS)  # the file's own viewport, which cuts it as a viewer does
    assert inner.get("fill") == "#0f766e" and inner.get("font-family") == "DejaVu Sans"
    text = inner.find("svg:text", SVG_NS)
    assert len(text.get("x").split()) == 2 and text.get(XML_SPACE) == "preserve"  # pinned per character
    (root / "d.svg").write_text(svg.replace("xMinYMax meet", "none"))
    group = _root(_build(root)["svg"].read_bytes()).find("svg:g[@id='panel-d']", SVG_NS)
    assert re.search(r"scale\(11\.3386 5\.66929\)", group.get("transform")), group.get("transform")


# ─── Inkscape ───────────────────────────────────────────────────────────────

def test_every_top_level_element_has_a_readable_inkscape_label(fidelity_builds):
    root = _root(fidelity_builds["fidelity_editable"][0])
    assert root.nsmap.get("inkscape") == INKSCAPE
    labels = {el.get("id"): el.get(f"{{{INKSCAPE}}}label") for el in root
              if etree.QName(el).localname not in ("title", "desc", "metadata")}  # they draw nothing
    assert all(labels.values()), labels
    assert labels["panel-heat"] == "panel heat (a, imshow 56×56)"
    assert labels["panel-drawing"] == "panel drawing (e)"
    assert labels["arrow-0"] == "arrow 0: plot.end -> drawing.w"
    assert labels["text-rich"].startswith("text: <b>Bold</b>, <i>italic</i>")
    assert labels["label-heat"] == "label a (heat)"
    ids, refs = ids_and_refs(fidelity_builds["fidelity_editable"][0])
    assert len(ids) == len(set(ids)) and refs <= set(ids)


# ─── exports ────────────────────────────────────────────────────────────────

def test_tiff_and_eps_exports(fidelity_builds, tmp_path):
    from PIL import Image

    from composer.pipeline import build

    shutil.copytree(FIDELITY, tmp_path / "p")
    out = build("fidelity", root=tmp_path / "p", formats=("tiff", "eps", "png"), dpi=200).outputs
    with Image.open(out["tiff"]) as tiff, Image.open(out["png"]) as png:
        assert tiff.info["compression"] == "tiff_lzw"
        assert tiff.info["dpi"] == (200, 200)
        assert tiff.size == png.size == (round(5 * 200), round(3.125 * 200))  # 480 x 300 CSS px = 5 x 3.125 in
        assert tiff.mode == "RGB"  # opaque canvas: no alpha channel
        assert (np.asarray(tiff) == np.asarray(png.convert("RGB"))).all()
    eps = out["eps"].read_bytes()
    assert eps.startswith(b"%!PS-Adobe-3.0 EPSF-3.0")
    assert b"%%BoundingBox: 0 0 360 225" in eps
    assert b"%%CreationDate: Sat Jan  1 00:00:00 2000" in eps
    again = build("fidelity", root=tmp_path / "p", formats=("eps",)).outputs["eps"].read_bytes()
    assert again == eps
    if shutil.which("gs") is None:
        pytest.skip("ghostscript is not installed: the EPS was checked, not rendered (.ci/run installs it)")
    import crossrender as cr

    shot = tmp_path / "eps.png"
    subprocess.run(["gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dEPSCrop", "-sDEVICE=png16m", "-r288",
                    "-dTextAlphaBits=4", "-dGraphicsAlphaBits=4", f"-sOutputFile={shot}", str(out["eps"])],
                   check=True, timeout=60)
    with Image.open(shot) as img:
        shown = cr.flatten(np.asarray(img.convert("RGBA")))
    reference = cr.render_composer(fidelity_builds["fidelity"][0], dpi=288)
    assert abs(shown.shape[0] - reference.shape[0]) <= 2 and abs(shown.shape[1] - reference.shape[1]) <= 2
    assert cr.difference(shown, reference).ok(), "ghostscript's EPS differs from cairosvg's PNG"


def test_unknown_format_lists_all(tmp_path):
    from composer.errors import ComposerError
    from composer.pipeline import build

    shutil.copytree(FIDELITY, tmp_path / "p")
    with pytest.raises(ComposerError, match=r"unknown format 'gif'; valid formats are svg, pdf, png, tiff, eps, pptx"):
        build("fidelity", root=tmp_path / "p", formats=("gif",))


def test_imported_svg_linked_png_is_inlined_and_kept_sharp(fidelity_builds):
    """The drawing links checker.png beside it: inlined (composer.svg.sanitize), and as data cells
    (image-rendering: pixelated) enlarged by repetition to raster_ppi like a heatmap."""
    from composer.svg.images import raster_report

    root = _root(fidelity_builds["fidelity"][0])
    image = root.find("svg:g[@id='panel-drawing']//svg:image", SVG_NS)
    assert image.get("{http://www.w3.org/1999/xlink}href").startswith("data:image/png;base64,")
    info = [r for r in raster_report(root) if r.owner == "panel-drawing"]
    assert len(info) == 1 and info[0].cells and info[0].width_px % 8 == 0 and info[0].ppi >= 300
