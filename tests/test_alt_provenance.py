"""Alt text and provenance, read back from the three outputs of one small build (issue #24, items 2 and 3).

The figure is built once per module in a temporary project (a render panel, an svg panel, a data file
with the value the alt text prints); each test reads what it needs from that build: the SVG's
``<title>``/``<desc>``/``role``/panel labels (lxml), the PDF's structure tree (pikepdf) and its pixels
(pdfium), the PNG's ``iTXt`` (Pillow).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pytest
from lxml import etree
from PIL import Image

from composer.cli.main import main
from composer.errors import ComposerError, DataError, LayoutError
from composer.incremental import provenance
from composer.incremental.manifest import file_digest, stale_reason
from composer.pipeline import build, check

SVG = "{http://www.w3.org/2000/svg}"
LAYOUT = """\
[figure]
width = "60mm"
height = "30mm"
data = "../data/values.json"
alt = "Two panels; the peak is {peak:.2f} units."
label_offset = ["1pt", "8pt"]

[panels.curve]
render = "plots:line"
at = ["0mm", "0mm"]
size = ["30mm", "30mm"]
label = "a"
alt = "A line rising to {peak:.2f}, then falling."

[panels.sketch]
svg = "../data/sketch.svg"
at = ["30mm", "0mm"]
size = ["30mm", "30mm"]
alt = "A red square."
"""
PANELS = """\
def line(fig, data):
    ax = fig.add_subplot()
    ax.plot(data["x"], data["y"])
"""
SKETCH = ('<svg xmlns="http://www.w3.org/2000/svg" width="30mm" height="30mm" viewBox="0 0 30 30">'
          '<rect x="5" y="5" width="20" height="20" fill="#ff0000"/></svg>')
#: what the layout's templates say once filled, worked out by hand (peak = 3.25)
FIGURE_ALT = "Two panels; the peak is 3.25 units."
CURVE_ALT = "A line rising to 3.25, then falling."
DESCRIPTION = f"{FIGURE_ALT}\na: {CURVE_ALT}\nsketch: A red square."


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout.strip()


def make_project(root: Path) -> Path:
    """The figure's project, written here: ``layouts/fig.toml``, ``panels/plots.py``, ``data/``."""
    for folder in ("layouts", "panels", "data"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "layouts" / "fig.toml").write_text(LAYOUT)
    (root / "panels" / "plots.py").write_text(PANELS)
    (root / "data" / "values.json").write_text(json.dumps({"x": [0, 1, 2], "y": [1, 3.25, 2], "peak": 3.25}))
    (root / "data" / "sketch.svg").write_text(SKETCH)
    return root


def commit_all(root: Path, message: str) -> str:
    """Commit every file of the project (``build/`` ignored); the new commit's id."""
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The project in a git repository of its own, committed, and one build of the figure (SVG, PDF, PNG at
    40 dpi): the project root, the commit, and the three files' bytes."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = make_project(tmp_path_factory.mktemp("altprov") / "project")
    _git(root, "init", "-q")
    (root / ".gitignore").write_text("build/\n")
    commit = commit_all(root, "the figure")
    result = build("fig", root=root, formats=("svg", "pdf", "png"), dpi=40)
    return root, commit, {kind: path.read_bytes() for kind, path in result.outputs.items()}


def figure_alts(pdf: pikepdf.Pdf) -> list[str]:
    """The ``/Alt`` of every ``/Figure`` element of the PDF's structure tree, in tree order."""
    found = []

    def walk(node):
        if isinstance(node, pikepdf.Dictionary):
            if node.get("/S") == "/Figure":
                found.append(str(node.get("/Alt")))
            kids = node.get("/K")
            for kid in (kids if isinstance(kids, pikepdf.Array) else [kids] if kids is not None else []):
                walk(kid)

    walk(pdf.Root.StructTreeRoot)
    return found


def test_svg_has_title_desc_role_and_panel_labels(built):
    _, _, out = built
    root = etree.fromstring(out["svg"])
    assert root.get("role") == "img"
    assert [root[0].tag, root[1].tag] == [f"{SVG}title", f"{SVG}desc"]  # first, before anything drawn
    assert root[0].text == FIGURE_ALT
    assert root[1].text == DESCRIPTION
    groups = {g.get("id"): g for g in root.iterchildren(f"{SVG}g")}
    for panel, text in (("panel-curve", CURVE_ALT), ("panel-sketch", "A red square.")):
        assert groups[panel].get("aria-label") == text
        assert groups[panel][0].tag == f"{SVG}title" and groups[panel][0].text == text


def test_pdf_structure_tree_carries_the_description(built):
    _, _, out = built
    pdf = pikepdf.open(io.BytesIO(out["pdf"]))
    assert pdf.Root.MarkInfo.Marked is True
    assert str(pdf.Root.Lang) == "en"
    assert figure_alts(pdf) == [DESCRIPTION]
    pdf.pages[0].contents_coalesce()
    content = pdf.pages[0].Contents.read_bytes()
    assert b"BDC" in content and b"EMC" in content  # the page's content is marked (an MCID of the figure)


def test_png_description(built):
    _, _, out = built
    with Image.open(io.BytesIO(out["png"])) as img:
        assert img.text["Description"] == DESCRIPTION


def test_alt_changes_no_pixel_of_the_pdf(tmp_path):
    """The tagged figure is the whole page: pdfium draws the PDF with alt text exactly as without."""
    import numpy as np
    import pypdfium2

    from composer.stages.export import export

    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="40pt" height="20pt" viewBox="0 0 40 20">'
           b'<rect width="40" height="20" fill="#fff"/><circle cx="10" cy="10" r="6" fill="#0050ff"/></svg>')
    plain = export(svg, ["pdf"], dpi=72)["pdf"]
    tagged = export(svg, ["pdf"], dpi=72, alt="A blue dot.")["pdf"]

    def pixels(data: bytes):
        doc = pypdfium2.PdfDocument(data)
        assert len(doc) == 1
        return np.asarray(doc[0].render(scale=3).to_pil().convert("RGB"))

    assert np.array_equal(pixels(plain), pixels(tagged))
    assert pixels(tagged)[30, 30].tolist() == [0, 80, 255]  # the dot's centre, (10 pt, 10 pt) at 3 px/pt


def test_pdf_ua_1_with_alt_and_without(tmp_path):
    """``--pdf-standard ua-1``: a PDF/UA-1 (XMP ``pdfuaid:part`` 1) with alt text; without, one line."""
    from composer.stages.export import export

    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="20pt" height="20pt" viewBox="0 0 20 20">'
           b'<rect width="20" height="20" fill="#0a0"/></svg>')
    pdf = pikepdf.open(io.BytesIO(export(svg, ["pdf"], pdf_standard="ua-1", alt="A green square.", title="t")["pdf"]))
    with pdf.open_metadata() as meta:
        assert meta.get("pdfuaid:part") == "1"
    with pytest.raises(ComposerError, match=r"PDF/UA-1 needs alt text.*\[figure\] alt"):
        export(svg, ["pdf"], pdf_standard="ua-1")


def test_a_preset_that_asks_for_alt_text(tmp_path):
    """PNAS asks for alt text: check warns without ``[figure] alt`` and says nothing once it is there."""
    root = tmp_path / "p"
    (root / "layouts").mkdir(parents=True)
    layout = root / "layouts" / "pnas.toml"
    body = '[figure]\nwidth = "pnas.single"\nheight = "30mm"\npreset = "pnas"\n'
    layout.write_text(body)
    found = check("pnas", root=root).findings
    assert [(f.rule, f.level, f.element) for f in found] == [("alt-text", "warning", "figure.alt")]
    layout.write_text(body + 'alt = "An empty canvas."\n')
    assert check("pnas", root=root).findings == ()


def test_blank_alt_is_refused(tmp_path):
    root = make_project(tmp_path / "p")
    layout = root / "layouts" / "fig.toml"
    layout.write_text(LAYOUT.replace('alt = "A red square."', 'alt = "  "'))
    with pytest.raises(LayoutError, match=r"panels\.sketch\.alt: .* is blank"):
        build("fig", root=root, formats=("svg",))
    assert not (root / "build" / "fig.svg").exists()


@pytest.mark.parametrize("where, char", [("layout", "\b"), ("field", "\x0b")])
def test_an_alt_holding_a_character_xml_cannot_hold_is_refused(tmp_path, where, char):
    """A control character (XML 1.0's Char has none but tab, newline and return), written in the layout
    (TOML's \\u0008) or handed by a field, is one error at the alt's key: lxml raised a ValueError with a
    traceback once the figure was composed."""
    root = make_project(tmp_path / "p")
    layout = root / "layouts" / "fig.toml"
    if where == "layout":
        layout.write_text(LAYOUT.replace('alt = "A red square."', 'alt = "A red\\u0008 square."'))
    else:
        (root / "data" / "values.json").write_text(json.dumps({"x": [0, 1], "y": [1, 2], "peak": 2, "name": f"a{char}b"}))
        layout.write_text(LAYOUT.replace('alt = "A red square."', 'alt = "A red {name}."'))
    with pytest.raises(DataError, match=rf"panels\.sketch\.alt: .* holds .*\(U\+{ord(char):04X}\)"):
        build("fig", root=root, formats=("svg",))
    assert not (root / "build" / "fig.svg").exists()


def test_cairosvg_pdf_is_tagged_after_the_fact():
    """cairo writes no structure: the PDF gets a /Figure with the alt text over the page's marked content,
    and pdfium draws it as the untagged PDF."""
    import numpy as np
    import pypdfium2

    from composer.stages.export import export, missing

    if missing("cairosvg"):
        pytest.skip("cairosvg is not installed")
    svg = (b'<svg xmlns="http://www.w3.org/2000/svg" width="30pt" height="20pt" viewBox="0 0 30 20">'
           b'<rect width="30" height="20" fill="#fff"/><rect x="5" y="5" width="10" height="10" fill="#f00"/></svg>')
    plain = export(svg, ["pdf"], engine="cairosvg")["pdf"]
    tagged = export(svg, ["pdf"], engine="cairosvg", alt="A red square.")["pdf"]
    assert tagged == export(svg, ["pdf"], engine="cairosvg", alt="A red square.")["pdf"]  # deterministic
    doc = pikepdf.open(io.BytesIO(tagged))
    figure = doc.Root.StructTreeRoot.K[0].K[0]
    assert (figure.S, str(figure.Alt), int(figure.K)) == ("/Figure", "A red square.", 0)
    assert doc.Root.StructTreeRoot.ParentTree.Nums[1][0].objgen == figure.objgen
    assert doc.Root.MarkInfo.Marked is True and str(doc.Root.Lang) == "en"
    assert doc.pages[0].Contents.read_bytes().startswith(b"/Figure <</MCID 0>> BDC")

    def pixels(data: bytes):
        return np.asarray(pypdfium2.PdfDocument(data)[0].render(scale=2).to_pil().convert("RGB"))

    assert np.array_equal(pixels(plain), pixels(tagged))
    assert pixels(tagged)[20, 20].tolist() == [255, 0, 0]  # (10 pt, 10 pt): inside the red square


# ─── provenance ─────────────────────────────────────────────────────────────

def expected_inputs(root: Path) -> list[tuple[str, str, str | None]]:
    """(path, role, sha256) of every input, hashed here with hashlib, in the record's order."""
    import hashlib

    def sha(rel: str) -> str:
        return hashlib.sha256((root / rel).read_bytes()).hexdigest()

    return [("layouts/fig.toml", "layout", sha("layouts/fig.toml")),
            ("data/values.json", "data", sha("data/values.json")),
            ("panels/plots.py", "panel module", sha("panels/plots.py")),
            ("data/sketch.svg", "imported", sha("data/sketch.svg"))]


def test_provenance_is_the_same_record_in_all_three_files(built):
    root, commit, out = built
    from composer.stages.describe import svg_provenance
    from composer.stages.export.pdfmeta import pdf_provenance

    svg_text = svg_provenance(out["svg"])
    with Image.open(io.BytesIO(out["png"])) as img:
        png_text = img.text["composer-provenance"]  # Pillow's reading of the iTXt chunk
    with pikepdf.open(io.BytesIO(out["pdf"])) as pdf, pdf.open_metadata() as meta:
        xmp_text = meta.get("{urn:figure-composer:provenance:1}provenance")
    assert svg_text == png_text == xmp_text == pdf_provenance(out["pdf"])
    record = json.loads(svg_text)
    assert record["git"] == {"commit": commit, "clean": True, "uncommitted": []}
    import composer

    assert record["composer"] == composer.__version__
    assert [(i["path"], i["role"], i["sha256"]) for i in record["inputs"]] == expected_inputs(root)
    metadata = etree.fromstring(out["svg"]).find(f"{SVG}metadata")
    assert metadata is not None and metadata[0].tag == "{urn:figure-composer:provenance:1}provenance"


def test_same_inputs_same_bytes(built, tmp_path):
    """A second build of the same commit and inputs (another output folder: no no-op) gives the same bytes."""
    root, _, out = built
    again = build("fig", root=root, out=tmp_path / "again", formats=("svg", "pdf", "png"), dpi=40)
    assert {k: p.read_bytes() for k, p in again.outputs.items()} == out


def test_an_edited_data_file_is_named(built, tmp_path, capsys):
    root, commit, out = built
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    data = copy / "data" / "values.json"
    data.write_text(json.dumps({"x": [0, 1, 2], "y": [1, 4.5, 2], "peak": 4.5}))
    (copy / "data" / "sketch.svg").unlink()
    for kind in ("svg", "pdf", "png"):
        comparison = provenance.compare(provenance.read(copy / "build" / f"fig.{kind}"), copy)
        assert [(d.input.path, d.state) for d in comparison.differences] == [
            ("data/values.json", "changed"), ("data/sketch.svg", "missing")]
    assert main(["provenance", str(copy / "build" / "fig.pdf"), "--root", str(copy)]) == 0
    said = capsys.readouterr().out
    assert f"from commit {commit} (clean)" in said
    assert "2 of 4 inputs differ: data/values.json (changed), data/sketch.svg (missing)" in said
    assert main(["provenance", str(copy / "build" / "fig.png"), "--root", str(copy), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["differs"] == {"data/values.json": "changed",
                                                             "data/sketch.svg": "missing"}


def test_a_dirty_tree_is_said_and_a_commit_rebuilds(built, tmp_path):
    """Built with an uncommitted data file: not clean, naming it; once committed, the manifest's commit is
    stale and the next build says clean at the new commit."""
    root, commit, _ = built
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    (copy / "data" / "values.json").write_text(json.dumps({"x": [0, 1, 2], "y": [1, 2.5, 2], "peak": 2.5}))
    build("fig", root=copy, formats=("svg",), dpi=40)
    dirty = provenance.read(copy / "build" / "fig.svg")
    assert (dirty.commit, dirty.clean, dirty.uncommitted) == (commit, False, ("data/values.json",))
    assert dict((i.path, i.sha256) for i in dirty.inputs)["data/values.json"] == file_digest(
        copy / "data" / "values.json")
    assert stale_reason(copy, "fig", None, {"formats": ["svg"], "dpi": None}) is None
    second = commit_all(copy, "new data")
    assert "git commit changed" in stale_reason(copy, "fig", None, {"formats": ["svg"], "dpi": None})
    build("fig", root=copy, formats=("svg",), dpi=40)
    clean = provenance.read(copy / "build" / "fig.svg")
    assert (clean.commit, clean.clean, clean.uncommitted) == (second, True, ())


def test_provenance_false_leaves_it_out(tmp_path):
    root = make_project(tmp_path / "p")
    layout = root / "layouts" / "fig.toml"
    layout.write_text(LAYOUT.replace('[figure]\n', '[figure]\nprovenance = false\n', 1).replace(
        '\n[panels.curve]', '\n[panels.curve]', 1))
    result = build("fig", root=root, formats=("svg", "png"), dpi=20)
    svg = result.outputs["svg"].read_bytes()
    assert b"<metadata" not in svg and b"provenance" not in svg
    with Image.open(result.outputs["png"]) as img:
        assert "composer-provenance" not in img.text
    with pytest.raises(ComposerError, match="holds no provenance"):
        provenance.read(result.outputs["svg"])


def test_a_damaged_pdf_is_named_in_the_error(built, tmp_path):
    """A PDF cut short (its first 300 bytes: no page tree) is an error naming the file as given, in words
    that do not change from run to run (qpdf's message named the in-memory stream by its address)."""
    cut = tmp_path / "cut short ü.pdf"
    cut.write_bytes(built[2]["pdf"][:300])
    with pytest.raises(ComposerError) as caught:
        provenance.read(cut, shown="cut short ü.pdf")
    assert str(caught.value).startswith("cut short ü.pdf: not a readable PDF (") and " at 0x" not in str(caught.value)


def test_outside_git_no_commit(tmp_path):
    """A project in no repository: no commit, not clean (nothing to compare with)."""
    from composer.incremental.gitstate import repository

    root = make_project(tmp_path / "p")
    if repository(root) is not None:
        pytest.skip("the temporary folder lies inside a git repository")
    result = build("fig", root=root, formats=("svg",), dpi=20)
    record = provenance.read(result.outputs["svg"])
    assert (record.commit, record.clean) == (None, None)
    assert set(record.uncommitted) == {i.path for i in record.inputs}


def test_a_repository_before_its_first_commit_is_not_said_to_be_no_repository(tmp_path):
    """``git init`` and no commit yet (a new paper's first build): the record has no commit, and the
    table does not claim the figure was built outside a git repository."""
    root = make_project(tmp_path / "p")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    result = build("fig", root=root, formats=("svg",), dpi=20)
    record = provenance.read(result.outputs["svg"])
    assert record.commit is None
    head = provenance.compare(record, root, file="fig.svg").table().splitlines()[0]
    assert head == ("fig.svg: made by composer " + record.composer
                    + " from no git commit (built outside a git repository, or in one before its first commit)"), head


def test_a_pdf_panel_with_alt_is_still_drawn_from_its_page(tmp_path):
    """A pdf panel's alt (its group's aria-label and <title>) leaves the page embedded as it is in the PDF:
    its text stays text, inside the one tagged figure."""
    import pypdfium2

    from composer.stages.export import export

    if shutil.which("pdftocairo") is None:
        pytest.skip("pdftocairo (poppler-utils) is not installed")
    root = tmp_path / "p"
    for folder in ("layouts", "data"):
        (root / folder).mkdir(parents=True)
    page = (b'<svg xmlns="http://www.w3.org/2000/svg" width="40pt" height="20pt" viewBox="0 0 40 20">'
            b'<text x="2" y="14" font-family="DejaVu Sans" font-size="10">HELLO</text></svg>')
    (root / "data" / "page.pdf").write_bytes(export(page, ["pdf"])["pdf"])  # text as text, DejaVu embedded
    (root / "layouts" / "fig.toml").write_text(
        '[figure]\nwidth = "40pt"\nheight = "20pt"\nalt = "A page saying hello."\n\n'
        '[panels.page]\npdf = "../data/page.pdf"\nat = ["0pt", "0pt"]\nsize = ["40pt", "20pt"]\n'
        'alt = "The word HELLO."\n')
    pdf = build("fig", root=root, formats=("pdf",)).outputs["pdf"].read_bytes()
    doc = pypdfium2.PdfDocument(pdf)
    assert "HELLO" in doc[0].get_textpage().get_text_range()  # the page's own text, not outlines
    assert figure_alts(pikepdf.open(io.BytesIO(pdf))) == ["A page saying hello.\npage: The word HELLO."]
