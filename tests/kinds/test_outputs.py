"""Output formats and export engines are one table each (composer/kinds/outputs.py): a format or an engine
added to the table alone is taken by the library, the command line, the layout and the export stage.

The toy entries are registered here, for the time of a ``with`` block, and their outputs checked
against numbers worked out by hand from the layout (mm -> px at the dpi), never against composer's own
reading of them.
"""

from __future__ import annotations

import io
import json

import pytest

import composer
from composer.cli.main import main
from composer.errors import ComposerError
from composer.kinds import Registry
from composer.kinds.outputs import ENGINES, FORMATS, Engine, Job, OutputFormat, drawn_as, engine_for
from composer.stages.export import _plan, check_engine

#: a canvas of 60 x 30 mm whose left half is red: at 127 dpi, 60 / 25.4 * 127 = 300 px by 150 px,
#: columns 0-149 red (30 mm = 150 px exactly), 150-299 the white background
TOY = """[figure]
width = "60mm"
height = "30mm"
{engine}
[[shape]]
kind = "rect"
at = ["0mm", "0mm"]
size = ["30mm", "30mm"]
fill = "#ff0000"
stroke = "none"
"""


def png_to_ppm(png: bytes, job: Job) -> bytes:
    """The toy format's convert: the PNG's pixels as a plain-text PPM (P3), composited over white."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        rgb = Image.alpha_composite(Image.new("RGBA", img.size, "white"), img.convert("RGBA")).convert("RGB")
    width, height = rgb.size
    rows = (" ".join(f"{r} {g} {b}" for r, g, b in (rgb.getpixel((x, y)) for x in range(width)))
            for y in range(height))
    return f"P3\n{width} {height}\n255\n".encode() + "\n".join(rows).encode() + b"\n"


PPM = OutputFormat("ppm", "plain-text PPM, the PNG's pixels", options=("dpi",), made_from="png",
                   convert=png_to_ppm)


def read_ppm(data: bytes) -> tuple[int, int, list[list[tuple[int, int, int]]]]:
    """A plain PPM read by hand: (width, height, rows of (r, g, b))."""
    words = data.decode("ascii").split()
    assert words[0] == "P3" and words[3] == "255"
    width, height = int(words[1]), int(words[2])
    values = [int(w) for w in words[4:]]
    assert len(values) == width * height * 3
    pixels = [tuple(values[i:i + 3]) for i in range(0, len(values), 3)]
    return width, height, [pixels[y * width:(y + 1) * width] for y in range(height)]  # type: ignore[misc]


@pytest.fixture
def toy_project(tmp_path):
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "layouts" / "toy.toml").write_text(TOY.format(engine=""), encoding="utf-8")
    return root


def check_toy_ppm(data: bytes) -> None:
    width, height, rows = read_ppm(data)
    assert (width, height) == (300, 150)
    assert rows[75][10] == rows[0][0] == rows[149][149] == (255, 0, 0)
    assert rows[75][250] == rows[0][150] == rows[149][299] == (255, 255, 255)


def test_a_format_added_to_the_table_is_built_by_the_library_and_the_command(toy_project, capsys):
    assert "ppm" not in FORMATS
    with FORMATS.registered(PPM):
        result = composer.build("toy", root=toy_project, formats=("svg", "ppm"), dpi=127)
        assert set(result.outputs) == {"svg", "ppm"}
        assert result.outputs["ppm"] == toy_project / "build" / "toy.ppm"
        check_toy_ppm(result.outputs["ppm"].read_bytes())
        (toy_project / "build" / "toy.ppm").unlink()

        capsys.readouterr()
        assert main(["build", "toy", "--root", str(toy_project), "--format", "svg,ppm", "--dpi", "127"]) == 0
        assert "toy.ppm" in capsys.readouterr().out
        check_toy_ppm((toy_project / "build" / "toy.ppm").read_bytes())
        # the manifest reads the table too: unchanged, nothing to do; a new dpi makes the PPM again
        assert main(["build", "toy", "--root", str(toy_project), "--format", "svg,ppm", "--dpi", "127"]) == 0
        assert "up to date" in capsys.readouterr().out
        assert main(["build", "toy", "--root", str(toy_project), "--format", "svg,ppm", "--dpi", "63.5"]) == 0
        assert read_ppm((toy_project / "build" / "toy.ppm").read_bytes())[:2] == (150, 75)  # half of 127 dpi

        with pytest.raises(SystemExit):
            main(["build", "--help"])
        assert "ppm (plain-text PPM, the PNG's pixels)" in " ".join(capsys.readouterr().out.split())
    # cleaned up: the format is gone from every reader
    assert "ppm" not in FORMATS
    assert main(["build", "toy", "--root", str(toy_project), "--format", "svg,ppm"]) == 1
    err = capsys.readouterr().err
    assert "unknown format 'ppm'" in err and "valid formats are svg, pdf, png, tiff, eps, pptx" in err
    with pytest.raises(ComposerError, match="unknown format 'ppm'"):
        composer.build("toy", root=toy_project, formats=("ppm",))


def write_size(job: Job, kinds: tuple[str, ...]) -> dict[str, bytes]:
    """The toy engine: the canvas size as JSON (the one format it writes)."""
    assert kinds == ("size",)
    return {"size": json.dumps({"width_pt": job.size_pt[0], "height_pt": job.size_pt[1], "dpi": job.dpi}).encode()}


def test_an_engine_added_to_the_table_is_taken_by_the_layout_and_the_command(toy_project, capsys):
    sizer = Engine("sizer", "the canvas size as JSON (a test's)", install="nothing to install", writes=("size",),
                   write=write_size)
    size = OutputFormat("size", "the canvas size (a test's)", suffix="size.json", engines=("sizer",))
    layout = toy_project / "layouts" / "toy.toml"
    layout.write_text(TOY.format(engine='engine = "sizer"'), encoding="utf-8")
    with ENGINES.registered(sizer), FORMATS.registered(size):
        assert engine_for("size", "resvg") == "sizer"  # the only engine that writes it, whatever the choice
        assert engine_for("png", "sizer") == "resvg"  # sizer draws no PNG: the first of png's engines does
        result = composer.build("toy", root=toy_project, formats=("svg", "size"), dpi=127)
        written = json.loads(result.outputs["size"].read_text())
        assert result.outputs["size"].name == "toy.size.json"
        # 60 mm x 30 mm in pt: 60 / 25.4 * 72 = 170.079 pt, 85.039 pt
        assert written == pytest.approx({"width_pt": 170.0787, "height_pt": 85.0394, "dpi": 127}, abs=1e-3)
        capsys.readouterr()
        assert main(["build", "toy", "--root", str(toy_project), "--format", "size", "--engine", "sizer", "--no-cache"]) == 0
    # without it, the layout's choice is refused with the valid engines, at its key
    with pytest.raises(ComposerError, match=r"toy.toml:\d+:\d+: figure.engine: 'sizer' is not a valid value; supported "
                                            r"values are 'resvg', 'cairosvg'"):
        composer.build("toy", root=toy_project, formats=("svg",))
    with pytest.raises(SystemExit, match="1"):
        main(["build", "toy", "--root", str(toy_project), "--engine", "sizer"])
    assert "invalid choice: 'sizer' (choose from 'resvg', 'cairosvg')" in capsys.readouterr().err


def test_which_engine_writes_what_is_read_from_the_table():
    assert engine_for("eps", "resvg") == "cairosvg"  # PostScript is cairo's alone
    assert engine_for("tiff", "cairosvg") == "cairosvg" and drawn_as("tiff") == "png"
    assert engine_for("pdf", "resvg") == "resvg"
    # one parse for every format with one job; a worker per drawn format with two (TIFF with its PNG)
    assert _plan(("pdf", "png", "tiff"), "resvg", 1) == [("resvg", ("pdf", "png", "tiff"))]
    assert _plan(("pdf", "png", "tiff"), "resvg", 2) == [("resvg", ("pdf",)), ("resvg", ("png", "tiff"))]
    assert _plan(("pdf", "png", "tiff", "eps"), "cairosvg", 1) == [
        ("cairosvg", ("pdf",)), ("cairosvg", ("png", "tiff")), ("cairosvg", ("eps",))]
    assert _plan(("png", "eps"), "resvg", 1) == [("resvg", ("png",)), ("cairosvg", ("eps",))]
    with pytest.raises(ComposerError, match=r"pdf standard 'a-2b' needs the resvg engine"):
        check_engine("cairosvg", ["pdf"], "a-2b")


def test_a_registry_refuses_a_name_twice_and_names_the_closest():
    things: Registry[OutputFormat] = Registry("thing")
    things.add(OutputFormat("alpha", "a"))
    with pytest.raises(ValueError, match="thing 'alpha' is registered already"):
        things.add(OutputFormat("alpha", "again"))
    with pytest.raises(ComposerError, match=r"unknown thing 'alpah'; did you mean 'alpha'\?; valid things are alpha"):
        things.get("alpah")
    with things.registered(OutputFormat("beta", "b")):
        assert things.names() == ("alpha", "beta")
    assert things.names() == ("alpha",)


@pytest.mark.parametrize("given", ["", ",", " , "])
def test_no_format_at_all_is_said_so_not_an_unknown_empty_name(given, tmp_path, capsys):
    """``compose --format ""`` named the format ``''`` as unknown; the API's ``formats=()`` too."""
    assert main(["new", "fig", "--root", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["build", "fig", "--root", str(tmp_path), "--format", given]) == 1
    assert capsys.readouterr().err == ("compose: error: no output format given; valid formats are "
                                       + ", ".join(FORMATS.names()) + "\n")
    assert not (tmp_path / "build").exists()
