"""Helpers of the conformance tests (tests/svg/test_conformance_*.py): compose imported SVG files,
written in each test, into a canvas and read back its PNG pixels and pdfium's render of its PDF.

Every canvas is transparent and exported at 72 dpi, so one pt is one pixel: a probe at (x, y) px
reads the canvas at (x, y) pt. The expected values in the tests are worked out by hand from the SVG
specification, never from composer's output.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np

from composer.pipeline import build
from conftest import pdf_pixels

HEAD = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def compose(tmp_path: Path, canvas_pt: tuple[float, float], panels: dict[str, tuple[str | bytes, tuple, tuple]],
            *, engine: str = "resvg") -> tuple[np.ndarray, np.ndarray, list[str], bytes]:
    """Compose svg panels ``name -> (file text, (x, y) pt, (width, height) pt)`` on a transparent
    canvas (a text is written as UTF-8, bytes as they are); return (PNG RGBA, PDF rendered by pdfium on
    white as RGB, warnings, composed SVG)."""
    root = tmp_path / "proj"
    (root / "layouts").mkdir(parents=True, exist_ok=True)
    (root / "art").mkdir(exist_ok=True)
    toml = (f'[figure]\nwidth = "{canvas_pt[0]}pt"\nheight = "{canvas_pt[1]}pt"\nbackground = "none"\n'
            f'engine = "{engine}"\n')
    for name, (text, at, size) in panels.items():
        path = root / "art" / f"{name}.svg"
        path.write_bytes(text) if isinstance(text, bytes) else path.write_text(text, encoding="utf-8")
        toml += (f'[panels.{name}]\nsvg = "../art/{name}.svg"\nat = ["{at[0]}pt", "{at[1]}pt"]\n'
                 f'size = ["{size[0]}pt", "{size[1]}pt"]\n')
    (root / "layouts" / "fig.toml").write_text(toml, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build("fig", root=root, out=root / "out", formats=("svg", "png", "pdf"), dpi=72, cache=False)
    return (png_pixels(result.outputs["png"].read_bytes()), pdf_pixels(result.outputs["pdf"].read_bytes()),
            [str(w.message) for w in caught], result.outputs["svg"].read_bytes())


def png_pixels(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGBA")).astype(int)


def on_white(rgba: np.ndarray) -> np.ndarray:
    """RGBA pixels composited on white, RGB."""
    alpha = rgba[..., 3:4] / 255.0
    return (rgba[..., :3] * alpha + 255 * (1 - alpha)).round().astype(int)


def near(actual, expected, tol: int = 8) -> bool:
    """Each channel of ``actual`` within ``tol`` of ``expected``."""
    return bool(np.all(np.abs(np.asarray(actual)[: len(expected)] - np.asarray(expected)) <= tol))
