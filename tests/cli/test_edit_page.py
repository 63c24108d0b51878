"""Editing a figure in ``compose serve``'s page (issue #25): Playwright drives Debian's Chromium on the real page
of a real ``compose serve --all``, with the mouse and the keyboard, as a person would.

One server for every step (e2e is CI's longest step): a small project with a matplotlib panel, a text, a
legend, two shapes and an arrow with a label (``fig.toml``), and a Python layout (``pyfig.py``). The steps run
in order on ``fig``, each checked at once:

- the layout file's new text against the text expected, written out here from the layout's own numbers
  (every other byte kept: the comments, the key order, the quoting);
- the figure's pixels: the page's sheet at 100 % (96 CSS px per inch), with the edit layer hidden, and the ink
  of the element moved found by its colour (blue text, yellow plot area, grey shape, red legend line, green label),
  where the layout's millimetres put it.

The page waits on conditions only (the file's digest in the page's elements.json, the SVG shown); lengths
expected are the layout's millimetres in CSS px (96 / 25.4 per mm), never read back from the code under test.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest
from test_serve import LIMIT_S, browser_page, served  # noqa: F401 - browser_page: the fixture

from conftest import read_png

MM_PX = 96 / 25.4  # CSS px per mm
WAIT_MS = LIMIT_S * 1000

FIG = """\
# the edit page's test figure: each edit changes one value, and this comment stays
[figure]
width = "70mm"
height = "45mm"
font_size = "8pt"

[panels.a]
render = "plots:ramp"   # a yellow plot area, a red line
at = ['4mm', '4mm']     # single quotes: kept as they are
size = ["30mm", "24mm"]

[[text]]
name = "title"
text = "Hi"
at = ["45mm", "36mm"]   # its top-left
anchor = "nw"
color = "#0000ff"

[[legend]]
name = "key"
from = ["a"]
at = ["45mm", "4mm"]
anchor = "nw"

[[shape]]
name = "src"
at = ["38mm", "28mm"]
size = ["4mm", "4mm"]
fill = "#dddddd"
stroke = "none"

[[shape]]
name = "node"
at = ["56mm", "27mm"]
size = ["10mm", "6mm"]
fill = "#dddddd"
stroke = "none"

[[arrow]]
from = "src.e"
to = "node.w"
label = "go"   # above the arrow at first
label_color = "#00aa00"
"""

PLOTS = """\
def ramp(fig, data):
    ax = fig.add_axes([0.2, 0.2, 0.7, 0.7])
    ax.set_facecolor("#ffcc00")
    ax.plot([0, 1], [0, 1], color="#ff0000", label="ramp")
    ax.set_xticks([])
    ax.set_yticks([])
"""

PYFIG = """\
def layout():
    return {"figure": {"width": "30mm", "height": "20mm"},
            "text": [{"name": "t", "text": "Py", "at": ["5mm", "5mm"], "anchor": "nw"}]}
"""

#: the ink of each element, by colour (RGB limits: antialiased edges left out)
BLUE = ((0, 60), (0, 60), (200, 255))
YELLOW = ((235, 255), (185, 225), (0, 60))
RED = ((200, 255), (0, 60), (0, 60))
GREEN = ((0, 60), (140, 200), (0, 60))
GREY = ((215, 228), (215, 228), (215, 228))  # the shapes' #dddddd


def swap(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` replaced by ``new``: the text expected after an edit of that value."""
    assert text.count(old) == 1, (old, text)
    return text.replace(old, new)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Page:
    """The figure's page, driven with the mouse and the keyboard, and read back."""

    def __init__(self, page, root: Path, tmp_path: Path, name: str = "fig"):
        self.page, self.tmp_path = page, tmp_path
        self.layout = root / "layouts" / (name + (".py" if name == "pyfig" else ".toml"))
        self.shots = 0

    def built(self) -> None:
        """Wait until the page shows the figure of the file as it is now, and knows its elements."""
        self.page.wait_for_function(
            "d => edit.data && edit.data.digest === d && edit.digest === d && current && !current.building"
            " && shown.svg === current.svg", arg=digest(self.layout), timeout=WAIT_MS)

    def box_px(self, element_id: str) -> tuple[float, float, float, float]:
        """The element's box as the page holds it (from elements.json), in the viewport's CSS px."""
        return tuple(self.page.evaluate(
            "id => { const b = boxOf(element(id)), r = document.getElementById('sheet').getBoundingClientRect(),"
            " k = ptPerPx(); return [r.left + b[0] / k, r.top + b[1] / k, b[2] / k, b[3] / k]; }", element_id))

    def centre(self, element_id: str) -> tuple[float, float]:
        x, y, w, h = self.box_px(element_id)
        return x + w / 2, y + h / 2

    def drag(self, start: tuple[float, float], by_mm: tuple[float, float], *, snap: bool = False,
             during=None) -> None:
        """Press at ``start`` (px), move by ``by_mm`` in steps, release; Alt held unless ``snap``."""
        mouse = self.page.mouse
        x, y = start
        if not snap:
            self.page.keyboard.down("Alt")
        mouse.move(x, y)
        mouse.down()
        dx, dy = by_mm[0] * MM_PX, by_mm[1] * MM_PX
        mouse.move(x + dx / 2, y + dy / 2, steps=4)
        if during is not None:
            during()
        mouse.move(x + dx, y + dy, steps=4)
        mouse.up()
        if not snap:
            self.page.keyboard.up("Alt")

    def answer(self) -> dict:
        """Wait for the server's answer to the edit just made, and return it."""
        self.page.wait_for_function("window.__answers > __seen", timeout=WAIT_MS)
        return self.page.evaluate("__seen = window.__answers, window.__answer")

    def message(self) -> tuple[str, str]:
        return self.page.inner_text("#edit-msg"), self.page.get_attribute("#edit-msg", "class") or ""

    def pixels(self) -> np.ndarray:
        """The sheet as shown (CSS px, at 100 %), without the edit layer's outlines."""
        self.page.evaluate("document.getElementById('editlayer').style.visibility = 'hidden'")
        self.shots += 1
        path = self.tmp_path / f"sheet-{self.shots}.png"
        self.page.locator("#sheet").screenshot(path=str(path))
        self.page.evaluate("document.getElementById('editlayer').style.visibility = ''")
        return read_png(path)


def ink(pixels: np.ndarray, colour, x_mm: tuple[float, float] = (0, 1e9),
        y_mm: tuple[float, float] = (0, 1e9)) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom; px) of the pixels of ``colour`` between ``x_mm`` from the sheet's left
    and ``y_mm`` from its top."""
    rgb = pixels[..., :3].astype(int)
    hit = np.ones(rgb.shape[:2], bool)
    for c, (lo, hi) in enumerate(colour):
        hit &= (rgb[..., c] >= lo) & (rgb[..., c] <= hi)
    columns = np.arange(hit.shape[1])
    hit[:, (columns < x_mm[0] * MM_PX) | (columns > x_mm[1] * MM_PX)] = False
    rows = np.arange(hit.shape[0])
    hit[(rows < y_mm[0] * MM_PX) | (rows > y_mm[1] * MM_PX), :] = False
    ys, xs = np.nonzero(hit)
    assert xs.size, f"no ink of {colour}"
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True)
    (root / "panels").mkdir()
    (root / "layouts" / "fig.toml").write_text(FIG, encoding="utf-8")
    (root / "layouts" / "pyfig.py").write_text(PYFIG, encoding="utf-8")
    (root / "panels" / "plots.py").write_text(PLOTS, encoding="utf-8")
    return root


def line_of(text: str, header: str, n: int = 0) -> int:
    """The line (from 1) of the ``n``-th ``header`` (``[[text]]``) in ``text``."""
    return [i for i, line in enumerate(text.splitlines(), 1) if line.startswith(header)][n]


@pytest.mark.e2e
def test_edits_made_in_the_page_are_written_into_the_layout(tmp_path, browser_page, project):  # noqa: F811
    page = browser_page
    opened = tmp_path / "opened"  # what the --editor command makes: a file named after the line it was given
    with served(["serve", "--all", "--root", str(project), "--format", "svg", "--editor", f"touch {opened}-{{line}}"]
                ) as server:
        page.goto(server.url + "fig/")
        page.evaluate("window.__answers = 0; window.__seen = 0; window.addEventListener('compose:edited',"
                      " (e) => { window.__answer = e.detail; window.__answers += 1; })")
        fig = Page(page, project, tmp_path)
        fig.built()
        text = FIG
        first = fig.pixels()
        assert page.locator("#editlayer.on").count() == 1

        # select the text by clicking it: its key path, its line, a link to the editor
        page.mouse.click(*fig.centre("text:title"))
        assert page.inner_text("#sel-key") == "[text[0]]"
        assert page.inner_text("#sel-open") == f"layouts/fig.toml:{line_of(FIG, '[[text]]')}"
        assert page.get_attribute("#sel-open", "href") == (
            f"vscode://file{project / 'layouts' / 'fig.toml'}:{line_of(FIG, '[[text]]')}")
        page.click("#sel-open")  # POST /open: the server runs --editor with the file and the line
        page.wait_for_function("document.getElementById('edit-msg').textContent.startsWith('opened')", timeout=WAIT_MS)
        assert Path(f"{opened}-{line_of(FIG, '[[text]]')}").exists()
        assert page.evaluate("window.__answers") == 0  # the same page still (an editor's link opens outside it)

        # drag the text 3 mm right: placed by coordinates, its at changes, in mm
        blue = ink(first, BLUE)
        fig.drag(fig.centre("text:title"), (3, 0))
        assert fig.answer()["ok"]
        text = swap(text, 'at = ["45mm", "36mm"]   # its top-left', 'at = ["48mm", "36mm"]   # its top-left')
        assert fig.layout.read_text() == text
        fig.built()
        moved = ink(fig.pixels(), BLUE)
        assert moved[0] - blue[0] == pytest.approx(3 * MM_PX, abs=1)
        assert moved[1] == pytest.approx(blue[1], abs=1)

        # drag the panel 2 mm down: its at, in its own quotes; the panel is not drawn again (same size: from cache)
        yellow = ink(fig.pixels(), YELLOW)
        fig.drag(fig.centre("panel:a"), (0, 2))
        assert fig.answer()["ok"]
        text = swap(text, "at = ['4mm', '4mm']", "at = ['4mm', '6mm']")
        assert fig.layout.read_text() == text
        fig.built()
        assert "(1 panel from cache" in page.get_attribute("#status", "title")
        now = ink(fig.pixels(), YELLOW)
        assert now[1] - yellow[1] == pytest.approx(2 * MM_PX, abs=1)
        assert now[0] == pytest.approx(yellow[0], abs=1)

        # resize the panel by its bottom-right handle, 4 mm wider and 2 mm taller: its size
        page.mouse.click(*fig.centre("panel:a"))
        assert page.locator("#editlayer .handle").count() == 8
        x, y, w, h = fig.box_px("panel:a")
        fig.drag((x + w, y + h), (4, 2))
        assert fig.answer()["ok"]
        text = swap(text, 'size = ["30mm", "24mm"]', 'size = ["34mm", "26mm"]')
        assert fig.layout.read_text() == text
        fig.built()
        grown = ink(fig.pixels(), YELLOW)  # the plot area is 0.7 of the panel (add_axes), from 0.2 of it
        assert (grown[2] - grown[0]) - (now[2] - now[0]) == pytest.approx(0.7 * 4 * MM_PX, abs=1.5)
        assert (grown[3] - grown[1]) - (now[3] - now[1]) == pytest.approx(0.7 * 2 * MM_PX, abs=1.5)
        assert grown[0] - now[0] == pytest.approx(0.2 * 4 * MM_PX, abs=1)

        # resize a shape by its left edge, 2 mm wider to the left: its at and its size; its right edge stays
        # (its ink read above the arrow, whose antialiased edge is grey too)
        node = ink(fig.pixels(), GREY, x_mm=(44, 70), y_mm=(27.5, 29))
        page.mouse.click(*fig.centre("shape:node"))
        x, y, w, h = fig.box_px("shape:node")
        fig.drag((x, y + h / 2), (-2, 0))
        assert fig.answer()["ok"]
        text = swap(text, 'at = ["56mm", "27mm"]', 'at = ["54mm", "27mm"]')
        text = swap(text, 'size = ["10mm", "6mm"]', 'size = ["12mm", "6mm"]')
        assert fig.layout.read_text() == text
        fig.built()
        now = ink(fig.pixels(), GREY, x_mm=(44, 70), y_mm=(27.5, 29))
        assert now[0] - node[0] == pytest.approx(-2 * MM_PX, abs=1)
        assert now[2] == pytest.approx(node[2], abs=1)

        # drag the legend 2 mm left and 1 mm down: its at
        legend = ink(fig.pixels(), RED, x_mm=(40, 70))
        fig.drag(fig.centre("legend:key"), (-2, 1))
        assert fig.answer()["ok"]
        text = swap(text, 'at = ["45mm", "4mm"]', 'at = ["43mm", "5mm"]')
        assert fig.layout.read_text() == text
        fig.built()
        now = ink(fig.pixels(), RED, x_mm=(38, 70))
        assert now[0] - legend[0] == pytest.approx(-2 * MM_PX, abs=1)
        assert now[1] - legend[1] == pytest.approx(1 * MM_PX, abs=1)

        # drag the arrow's label across its line, straight down: label_side, added under its label
        green = ink(fig.pixels(), GREEN)
        assert green[3] < 30 * MM_PX  # above the arrow (y = 30 mm)
        fig.drag(fig.centre("connector:0.label"), (0, 5))
        assert fig.answer()["ok"]
        text = swap(text, 'label = "go"   # above the arrow at first\n',
                    'label = "go"   # above the arrow at first\nlabel_side = "below"\n')
        assert fig.layout.read_text() == text
        fig.built()
        green_now = ink(fig.pixels(), GREEN)
        assert green_now[1] > 30 * MM_PX  # below it
        assert (green_now[0] + green_now[2]) / 2 == pytest.approx((green[0] + green[2]) / 2, abs=1)

        # nudge the text with the arrow keys: 0.5 mm a press, 0.1 mm with Shift
        page.mouse.click(*fig.centre("text:title"))
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Shift+ArrowUp")
        text = swap(text, 'at = ["48mm", "36mm"]', 'at = ["47mm", "35.9mm"]')
        page.wait_for_function("d => edit.digest === d && !edit.busy && !edit.queue.length",
                               arg=hashlib.sha256(text.encode()).hexdigest(), timeout=WAIT_MS)
        assert fig.layout.read_text() == text
        fig.built()
        before_snap = text

        # snap: the text dragged to 0.9 mm right of the panel's plot area (left at 4 + 0.2 x 34 mm) lands on it
        page.evaluate("window.__seen = window.__answers")
        fig.drag(fig.centre("text:title"), (10.8 + 0.9 - 47, 0), snap=True,
                 during=lambda: None)
        assert fig.answer()["ok"]
        text = swap(text, 'at = ["47mm", "35.9mm"]', 'at = ["10.8mm", "35.9mm"]')
        assert fig.layout.read_text() == text
        fig.built()
        shot = fig.pixels()
        assert ink(shot, BLUE)[0] == pytest.approx(ink(shot, YELLOW)[0], abs=1.5)

        # undo (Ctrl+Z, the button) and redo (Ctrl+Shift+Z): each an edit of the file
        page.keyboard.press("Control+z")
        assert fig.answer()["ok"]
        assert fig.layout.read_text() == before_snap
        fig.built()
        assert ink(fig.pixels(), BLUE)[0] == pytest.approx((47 * MM_PX) + blue[0] - 45 * MM_PX, abs=1)
        page.keyboard.press("Control+Shift+z")
        assert fig.answer()["ok"]
        assert fig.layout.read_text() == text
        fig.built()
        page.click("#undo")
        assert fig.answer()["ok"]
        assert fig.layout.read_text() == before_snap
        page.click("#redo")
        assert fig.answer()["ok"]
        assert fig.layout.read_text() == text
        fig.built()

        # the file edited in an editor during a drag: the drop is refused, the outside edit kept, the page says so
        outside = swap(text, 'text = "Hi"', 'text = "Ho"')

        def save_outside() -> None:
            temp = fig.layout.with_name(".fig.toml.saving")
            temp.write_text(outside, encoding="utf-8")
            os.replace(temp, fig.layout)

        fig.drag(fig.centre("text:title"), (5, 0), during=save_outside)
        answer = fig.answer()
        assert not answer["ok"] and answer["reason"] == "changed-on-disk"
        said, level = fig.message()
        assert said.startswith("the file changed on disk; reloaded") and "warn" in level
        assert fig.layout.read_text() == outside
        text = outside
        fig.built()
        assert 'aria-label="Ho"' in page.evaluate("fetch(document.getElementById('svg').src).then(r => r.text())")

        # an invalid drop (the text off the canvas, past its right edge): refused with the check's words, unwritten
        fig.drag(fig.centre("text:title"), (70, 0))
        answer = fig.answer()
        assert not answer["ok"] and answer["reason"] == "invalid"
        said, level = fig.message()
        assert said == "refused: " + answer["message"] and "error" in level
        assert fig.layout.read_text() == text
        assert "\n" not in answer["message"]

        # a Python layout: the page says it cannot write it back, and shows the values to type
        page.goto(server.url + "pyfig/")
        page.evaluate("window.__answers = 0; window.__seen = 0; window.addEventListener('compose:edited',"
                      " (e) => { window.__answer = e.detail; window.__answers += 1; })")
        py = Page(page, project, tmp_path, "pyfig")
        py.built()
        said, level = py.message()
        assert "layouts/pyfig.py is a Python layout" in said and "warn" in level
        fig.drag(py.centre("text:t"), (2, 0))
        answer = py.answer()
        assert not answer["ok"] and answer["reason"] == "python-layout"
        assert answer["values"] == {"at": ["7mm", "5mm"]}
        said, level = py.message()
        assert said == answer["message"] + '\nthe values to type:\nat = ["7mm", "5mm"]' and "warn" in level
        assert page.locator("#edit-tools").is_hidden()  # nothing written, nothing to undo
        assert py.layout.read_text() == PYFIG
        page.screenshot(path=str(tmp_path / "python.png"))
