"""README "Hostile and broken input", **Limits**: each limit is refused with one line, exit status 1,
and the value at the limit is accepted.

Limits as the README states them: lengths up to 100,000 pt, grid ratios up to 1e6, texts up to 2,000
characters after filling fields, inlined images up to 32 MB and 50 million pixels, imported SVG files
up to 64 MB ("refused before reading"). Each case builds a tiny SVG-only figure.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from composer.cli.main import main

HEAD = """\
[figure]
width = "30mm"
height = "20mm"
"""


def project(tmp_path: Path, body: str) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    (root / "assets").mkdir(exist_ok=True)
    (root / "layouts" / "fig.toml").write_text(HEAD + textwrap.dedent(body), encoding="utf-8")
    return root


def compose(capsys, root: Path) -> tuple[int, str]:
    capsys.readouterr()
    status = main(["fig", "--root", str(root), "--format", "svg", "--no-cache"])
    return status, capsys.readouterr().err


def one_line_error(status: int, err: str, *fragments: str) -> str:
    assert status == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and re.match(r"compose: error: layouts/fig\.toml:\d+:\d+: ", lines[0]), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


SHAPE = """
[[shape]]
at = ["1mm", "1mm"]
size = ["{w}", "5mm"]
overlap = false
"""


@pytest.mark.parametrize("width, ok", [("100000pt", True), ("100001pt", False), ("3530cm", False)])
def test_lengths_are_at_most_100000_pt(tmp_path, width, ok):
    """100,000 pt is the limit (the loader's model, no drawing: a 35 m box would leave the canvas).
    3530 cm = 35300 mm = 100063 pt (x 72 / 25.4) is just over it, written in another unit."""
    from composer import load
    from composer.errors import LayoutError

    root = project(tmp_path, SHAPE.replace("overlap = false\n", "").format(w=width))
    fig = load("fig", root=root)
    if ok:
        assert fig.layout.shapes[0].size_pt[0] == pytest.approx(100000.0)
    else:
        # the limit in the unit the value was written in: 100000 pt = 100000 x 25.4 / 720 cm = 3527.78 cm
        limit = {"100001pt": "100000.0 pt", "3530cm": "3527.78 cm"}[width]
        with pytest.raises(LayoutError, match=r"shape\[0\]\.size\[0\]: .*at most " + re.escape(limit)):
            _ = fig.layout


@pytest.mark.parametrize("ratio, ok", [(1000000, True), (1000001, False)])
def test_grid_ratios_are_at_most_1e6(tmp_path, capsys, ratio, ok):
    root = project(tmp_path, f"""
    [grid]
    mosaic = "AB"
    columns = [1, {ratio}]
    """)
    status, err = compose(capsys, root)
    if ok:
        assert status == 0, err
    else:
        one_line_error(status, err, "grid.columns[1]", str(ratio))


def test_texts_are_at_most_2000_characters_after_filling_fields(tmp_path, capsys):
    """The template is 3 characters; the field's value makes the filled text 2,001 characters."""
    root = project(tmp_path, """
    [[text]]
    text = "{s}"
    at = ["15mm", "10mm"]
    """)
    layout = root / "layouts" / "fig.toml"
    layout.write_text(layout.read_text().replace('height = "20mm"\n', 'height = "20mm"\nparams = { s = "%s" }\n' % ("x" * 2001)))
    status, err = compose(capsys, root)
    one_line_error(status, err, "text[0].text", "2001", "2000")
    assert not (root / "build" / "fig.svg").exists()


IMAGE = """
[panels.p]
image = "../assets/{name}"
at = ["1mm", "1mm"]
size = ["10mm", "10mm"]
"""


def test_inlined_images_are_at_most_50_million_pixels(tmp_path, capsys):
    """7,072 x 7,072 = 50,013,184 pixels is over; a grey PNG of that size compresses to a few kB."""
    from PIL import Image

    root = project(tmp_path, IMAGE.format(name="big.png"))
    Image.new("L", (7072, 7072), 128).save(root / "assets" / "big.png")
    status, err = compose(capsys, root)
    one_line_error(status, err, "panels.p.image", "big.png", "7072x7072")
    assert not (root / "build" / "fig.svg").exists()


def test_inlined_images_are_at_most_32_mb(tmp_path, capsys):
    """A valid 10 x 10 PNG followed by junk up to 32 MiB + 1 byte (a sparse file): over the file limit."""
    from PIL import Image

    root = project(tmp_path, IMAGE.format(name="fat.png"))
    path = root / "assets" / "fat.png"
    Image.new("RGB", (10, 10), "red").save(path)
    with path.open("r+b") as f:
        f.truncate(32 * 1024 * 1024 + 1)
    status, err = compose(capsys, root)
    one_line_error(status, err, "panels.p.image", "fat.png", str(32 * 1024 * 1024 + 1))


def test_imported_svg_files_are_at_most_64_mb(tmp_path, capsys):
    """An SVG file of 64 MiB + 1 byte (sparse: its start is a valid root element) is refused in one line."""
    root = project(tmp_path, IMAGE.replace("image =", "svg =").format(name="huge.svg"))
    path = root / "assets" / "huge.svg"
    path.write_bytes(b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">')
    with path.open("r+b") as f:
        f.truncate(64 * 1024 * 1024 + 1)
    status, err = compose(capsys, root)
    one_line_error(status, err, "panels.p.svg", "huge.svg", str(64 * 1024 * 1024 + 1))
