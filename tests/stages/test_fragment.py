"""Importing a panel's SVG: ids prefixed, every reference rewritten, CSS scoped.

Golden input/expected pairs, as svgo's prefixIds tests do.
"""

from __future__ import annotations

from lxml import etree

from composer.stages.fragment import import_fragment, scope_css
from composer.svg.io import parse_svg
from composer.svg.viewbox import place, view_box

SOURCE = b"""<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     width="40pt" height="20pt" viewBox="0 0 40 20">
  <metadata>junk</metadata>
  <style>*{stroke-linecap: butt} #a, .k > #b {fill: url(#g)} @import url(evil.css); @media print {#a{fill:red}}</style>
  <defs><linearGradient id="g"/><clipPath id="c"><rect width="1" height="1"/></clipPath></defs>
  <rect id="a" fill="url(#g)" clip-path="url('#c')" style="stroke:url(#g);fill-opacity:.5"/>
  <use id="b" xlink:href="#a" href="#a"/>
  <use xlink:href="#nowhere"/>
  <rect mask="url(#missing)"/>
</svg>"""


def _imported():
    root = parse_svg(SOURCE, source="test.svg")
    return import_fragment(root, name="p", group_id="panel-p", source="test.svg")


def test_ids_are_prefixed_and_references_follow():
    group = _imported()
    xml = etree.tostring(group).decode()
    assert group.get("id") == "panel-p"
    ids = sorted(el.get("id") for el in group.iter() if el.get("id"))
    assert ids == ["p--a", "p--b", "p--c", "p--g", "panel-p"]
    assert 'fill="url(#p--g)"' in xml
    assert "clip-path=\"url(#p--c)\"" in xml
    # #a, drawn by the <use> #b, also gets its rule `#a {fill: url(#g)}` in its style (a browser matches no
    # scoped rule inside what a <use> draws): the reference in it follows too
    assert 'fill: url(#p--g); stroke: url(#p--g); fill-opacity: .5"' in xml  # after `*`'s stroke-linecap
    assert ' href="#p--a"' in xml
    assert "xlink:href" not in xml  # with href beside it, xlink:href is dropped: href wins (SVG 2, 16.1.2)


def test_dangling_references_are_removed_not_left_dangling():
    xml = etree.tostring(_imported()).decode()
    assert "#nowhere" not in xml and "#missing" not in xml
    assert 'mask="none"' in xml


def test_css_is_scoped_and_at_rules_dropped():
    group = _imported()
    css = group.find("{http://www.w3.org/2000/svg}style").text
    assert css.splitlines() == [
        "#panel-p * {stroke-linecap: butt}",
        "#panel-p #p--a, #panel-p .k > #p--b {fill: url(#p--g)}",
    ]
    assert "@import" not in css and "@media" not in css


def test_metadata_is_dropped():
    assert not _imported().findall(".//{http://www.w3.org/2000/svg}metadata")


def test_scope_css_leaves_nothing_global():
    out = scope_css("a{x:1} b , c{y:2}", scope="#s", mapping={})
    assert out == "#s a {x:1}\n#s b, #s c {y:2}"


def test_place_exact_and_contain():
    root = parse_svg(SOURCE, source="t")
    vb = view_box(root, source="t")
    group = import_fragment(root, name="p", group_id="panel-p", source="t")
    assert place(group, vb, x_pt=10, y_pt=5, width_pt=40, height_pt=20, fit="exact") == (10, 5, 40, 20)
    assert group.get("transform") == "translate(10 5)"
    x, y, w, h = place(group, vb, x_pt=0, y_pt=0, width_pt=80, height_pt=80, fit="contain")
    assert (x, y, w, h) == (0, 20, 80, 40)
    assert group.get("transform") == "translate(0 20) scale(2)"


def test_view_box_from_width_and_height_units():
    root = parse_svg(b'<svg xmlns="http://www.w3.org/2000/svg" width="96px" height="1in"/>', source="t")
    vb = view_box(root, source="t")
    # no viewBox: the user unit is the CSS px, so the content spans 96 x 96 user units (SVG 1.1, 7.2)
    assert (vb.width, vb.height) == (96.0, 96.0)


def test_a_repeated_id_is_kept_once_and_references_go_to_the_first():
    source = b"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">
      <linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient>
      <linearGradient id="g"><stop offset="0" stop-color="blue"/></linearGradient>
      <rect id="r" fill="url(#g)" width="5" height="5"/><circle id="r" r="1"/>
    </svg>"""
    group = import_fragment(parse_svg(source, source="dup.svg"), name="p", group_id="panel-p", source="dup.svg")
    ids = [el.get("id") for el in group.iter() if el.get("id")]
    assert sorted(ids) == ["p--g", "p--r", "panel-p"]
    first = next(el for el in group.iter() if el.get("id") == "p--g")
    assert first[0].get("stop-color") == "red"  # the browser's choice: the first in document order
    assert next(el for el in group.iter() if el.tag.endswith("rect")).get("fill") == "url(#p--g)"


def test_the_import_is_its_named_passes_in_order():
    """import_fragment is PASSES run in order (the foreign ones only for files made elsewhere): running them
    by hand gives the same group, and the orders the passes rely on hold."""
    from composer.stages.fragment import PASSES, Import

    names = [p.name for p in PASSES]
    assert len(set(names)) == len(names) and all(p.run.__doc__ for p in PASSES)
    assert names[-1] == "make-group"
    before = [("inline-used-styles", "scope-style-sheets"),
              ("resolve-css-transforms", "name-ids"), ("name-ids", "rewrite-references"),
              ("rewrite-references", "remove-empty-uses"), ("absolute-units-to-px", "resolve-non-scaling-strokes")]
    assert all(names.index(a) < names.index(b) for a, b in before)
    for viewport in (False, True):
        job = Import(parse_svg(SOURCE, source="test.svg"), name="p", group_id="panel-p", source="test.svg",
                     viewport=viewport)
        for step in PASSES:
            if viewport or not step.foreign:
                step.run(job)
        whole = import_fragment(parse_svg(SOURCE, source="test.svg"), name="p", group_id="panel-p",
                                source="test.svg", viewport=viewport)
        assert etree.tostring(job.group) == etree.tostring(whole)
    # composer's own panels skip the foreign passes: a 1mm stroke stays 1mm, a file made elsewhere has it in px
    doc = b'<svg xmlns="http://www.w3.org/2000/svg" width="10mm" height="10mm"><rect stroke-width="1mm"/></svg>'
    own = import_fragment(parse_svg(doc, source="t"), name="p", group_id="panel-p", source="t")
    foreign = import_fragment(parse_svg(doc, source="t"), name="p", group_id="panel-p", source="t", viewport=True)
    assert own.find(".//{http://www.w3.org/2000/svg}rect").get("stroke-width") == "1mm"
    assert foreign.find(".//{http://www.w3.org/2000/svg}rect").get("stroke-width") != "1mm"
