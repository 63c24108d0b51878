"""End-to-end checks of a composed figure: XML invariants, sizes, pixels."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import numpy as np
import pytest
from lxml import etree

from composer.pipeline import render_panels
from composer.stages.export import export
from composer.stages.inputs import Project, read_inputs
from conftest import SVG_NS, cumulative_transform, ids_and_refs, read_png

MM = 72 / 25.4


def test_ids_unique_and_references_resolve(demo_build):
    _, outputs = demo_build
    ids, refs = ids_and_refs(outputs["svg"].read_bytes())
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert refs, "the demo has clip paths and glyph references; none found"
    assert refs <= set(ids), sorted(refs - set(ids))


def test_each_panel_is_one_group_with_prefixed_ids(demo_build):
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    for name in ("a", "b", "logo", "photo"):
        groups = root.findall(f"svg:g[@id='panel-{name}']", SVG_NS)
        assert len(groups) == 1, name
        inner = [el.get("id") for el in groups[0].iter() if el.get("id") and el is not groups[0]]
        assert all(i.startswith(f"{name}--") for i in inner), inner[:5]


def test_panel_css_is_scoped_to_its_group(demo_build):
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    styles = [el.text for el in root.iter("{http://www.w3.org/2000/svg}style")]
    assert len(styles) == 3  # two matplotlib panels and the logo
    for css in styles:
        for selector in css.split("{")[0].split(","):
            assert selector.strip().startswith("#panel-"), css
    # the logo's "#dot" rule follows its renamed element
    assert any(re.search(r"#panel-logo #logo--\d+", css) for css in styles)


def test_root_size_units_viewbox_and_background(demo_build):
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    assert root.get("width") == "120mm" and root.get("height") == "70mm"
    vb = [float(v) for v in root.get("viewBox").split()]
    assert vb == pytest.approx([0, 0, 120 * MM, 70 * MM], abs=1e-3)
    first = root[0]
    assert first.tag.endswith("rect") and first.get("fill") == "#ffffff"
    assert float(first.get("width")) == pytest.approx(120 * MM, abs=1e-3)


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
@pytest.mark.parametrize("dpi", [100, 300])
def test_png_size_is_exact(demo_build, dpi, engine):
    _, outputs = demo_build
    png = export(outputs["svg"].read_bytes(), ["png"], dpi=dpi, engine=engine)["png"]
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        assert img.size == (round(120 / 25.4 * dpi), round(70 / 25.4 * dpi))


def test_built_png_has_the_requested_dpi_size(demo_build):
    _, outputs = demo_build
    assert read_png(outputs["png"]).shape[:2] == (round(70 / 25.4 * 150), round(120 / 25.4 * 150))


def test_seven_pt_tick_label_stays_seven_pt(demo_build):
    """matplotlib writes path glyphs as ``scale(size/100)``; the whole chain must give 7 pt."""
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    panel = root.find("svg:g[@id='panel-a']", SVG_NS)
    sizes = []
    for use in panel.iter("{http://www.w3.org/2000/svg}use"):
        if "DejaVuSans" not in use.get("{http://www.w3.org/1999/xlink}href", ""):
            continue  # a marker, not a glyph
        m = cumulative_transform(use)
        sizes.append(round(abs(m[1, 1]) * 100, 6))  # glyph units are 1/100 of the font size
    assert sizes and set(sizes) >= {7.0}
    assert max(sizes) <= 7.0 + 1e-6  # tick and axis labels at 7 pt, nothing scaled up


def test_each_panel_alone_matches_its_region(demo_build):
    """Each matplotlib panel's own SVG, placed alone on a blank canvas of the same size by a
    nested ``<svg x y>`` (no merging), rasterizes to the same pixels as the composed figure."""
    root, outputs = demo_build
    dpi = 150
    composed = read_png(outputs["png"]).astype(int)
    inputs = read_inputs(Project.at(root), "demo")
    rendered = render_panels(inputs)
    # the boxes of tests/projects/demo/layouts/demo.toml: a at (5, 8) mm, 50 x 45 mm; b at (75, 8), 40 x 40
    boxes_mm = {"a": (5, 8, 50, 45), "b": (75, 8, 40, 40)}
    assert set(rendered) == set(boxes_mm)
    canvas = etree.fromstring(outputs["svg"].read_bytes())
    for name, panel in rendered.items():
        x_mm, y_mm, w_mm, h_mm = boxes_mm[name]
        box = SimpleNamespace(x_pt=x_mm * MM, y_pt=y_mm * MM, width_pt=w_mm * MM, height_pt=h_mm * MM)
        wrapper = etree.Element("{http://www.w3.org/2000/svg}svg", nsmap={None: SVG_NS["svg"]})
        for attr in ("width", "height", "viewBox"):
            wrapper.set(attr, canvas.get(attr))
        etree.SubElement(wrapper, "{http://www.w3.org/2000/svg}rect", width="100%", height="100%", fill="white")
        alone = etree.fromstring(panel.svg)
        alone.set("x", str(box.x_pt))
        alone.set("y", str(box.y_pt))
        alone.set("width", str(box.width_pt))  # user units (pt) here: "141pt" would mean 4/3 as much
        alone.set("height", str(box.height_pt))
        wrapper.append(alone)
        single = read_png(io.BytesIO(export(etree.tostring(wrapper), ["png"], dpi=dpi)["png"])).astype(int)
        x0, y0 = int(box.x_pt / 72 * dpi), int(box.y_pt / 72 * dpi)
        x1, y1 = int((box.x_pt + box.width_pt) / 72 * dpi), int((box.y_pt + box.height_pt) / 72 * dpi)
        region, reference = composed[y0:y1, x0:x1, :3], single[y0:y1, x0:x1, :3]
        assert reference.std() > 10, "the panel drew nothing"
        differ = np.abs(region - reference).max(axis=2) > 64
        assert differ.mean() < 0.01, (name, differ.mean())  # only the arrow crossing panel a differs
        shifted = single[y0 + 3:y1 + 3, x0 + 3:x1 + 3, :3]
        assert (np.abs(region - shifted).max(axis=2) > 64).mean() > differ.mean() + 0.01


def test_data_anchor_lands_on_the_data_point(demo_build):
    """The arrow from ``a.peak`` (demo:line's last point, x = n - 1, the rightmost of the markers
    matplotlib drew) starts one gap (1 pt, the default) from it; its route "-|" leaves horizontally."""
    _, outputs = demo_build
    svg = etree.fromstring(outputs["svg"].read_bytes())
    # the line's markers: matplotlib draws each as a <use x y> of one marker path, in the line's colour
    # (tick marks are <use x y> too, in black)
    box = svg.find("svg:g[@id='panel-a']", SVG_NS)
    points = [(cumulative_transform(u) @ [float(u.get("x")), float(u.get("y")), 1])[:2]
              for u in box.iter("{http://www.w3.org/2000/svg}use")
              if u.get("x") is not None and "#1f77b4" in (u.get("style") or "")]
    assert len(points) == 8  # params n = 8 in the demo layout
    peak = max(points, key=lambda p: p[0])
    arrow = svg.find("svg:g[@id='arrow-0']/svg:path", SVG_NS)
    start = np.array([float(v) for v in arrow.get("d")[1:].split(" L")[0].split()])
    assert start == pytest.approx(peak + [1.0, 0.0], abs=0.01)


def test_image_panel_is_inlined_and_fits_keeping_aspect(demo_build):
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    image = root.find("svg:g[@id='panel-photo']/svg:image", SVG_NS)
    href = image.get("{http://www.w3.org/1999/xlink}href")
    assert href.startswith("data:image/png;base64,")
    w, h = float(image.get("width")), float(image.get("height"))
    assert w / h == pytest.approx(30 / 20, rel=1e-3)
    assert w == pytest.approx(15 * MM, abs=1e-3) and h <= 10 * MM + 1e-3
    png = read_png(outputs["png"])
    dpi = 150
    cx = (30 * MM + w / 4) / 72 * dpi
    cy = (58 * MM + 5 * MM) / 72 * dpi
    assert tuple(png[round(cy), round(cx), :3]) == (255, 0, 0)
    assert tuple(png[round(cy), round(cx + w / 2 / 72 * dpi), :3]) == (0, 0, 255)


def test_text_fields_come_from_values_and_data(demo_build):
    _, outputs = demo_build
    root = etree.fromstring(outputs["svg"].read_bytes())
    labels = [el.get("aria-label") for el in root.iter() if el.get("aria-label")]
    assert "total = 285.0, scale = 2.5\n$\\alpha_i^2 + \\beta$ ok" in labels


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_pdf_is_vector_with_the_canvas_size(demo_build, engine):
    """The page is the canvas (120 x 70 mm), and it is drawn with paths, which a rasterized page cannot
    have: pdfium finds dozens of path objects, and exactly the SVG's two images (the heatmap and the
    photo), each a small part of the page, the photo exactly on its layout box: at (30 mm, 58 mm) from
    the top left, 15 x 10 mm (its 30 x 20 px fill the 15 mm width), so in PDF coordinates (y up) left
    30 mm, bottom 70 - 58 - 10 = 2 mm, right 45 mm, top 12 mm."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    _, outputs = demo_build
    pdf = export(outputs["svg"].read_bytes(), ["pdf"], engine=engine)["pdf"]
    assert pdf.startswith(b"%PDF")
    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        width, height = page.get_size()
        objects = list(page.get_objects(max_depth=64))
        kinds = [obj.type for obj in objects]
        images = [obj.get_bounds() for obj in objects if obj.type == raw.FPDF_PAGEOBJ_IMAGE]
        page.close()
    finally:
        doc.close()
    assert width == pytest.approx(120 * MM, abs=0.01) and height == pytest.approx(70 * MM, abs=0.01)
    svg = outputs["svg"].read_bytes()
    assert len(images) == svg.count(b"<image") == 2
    assert kinds.count(raw.FPDF_PAGEOBJ_PATH) >= 20  # glyphs, ticks, lines, arrows; a rasterized page has none
    for left, bottom, right, top in images:
        assert (right - left) * (top - bottom) < 0.25 * width * height  # no page-sized picture
    assert any(np.allclose(bounds, np.array([30, 2, 45, 12]) * MM, atol=0.05) for bounds in images), images
