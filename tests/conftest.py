"""Shared fixtures: the repo's projects, built once per test session."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "tests" / "projects" / "demo"
SVG_NS = {"svg": "http://www.w3.org/2000/svg", "xlink": "http://www.w3.org/1999/xlink"}


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory):
    """The demo project copied to a temp folder and built once (svg, pdf, png at 150 dpi)."""
    from composer.build import build

    root = tmp_path_factory.mktemp("demo") / "demo"
    shutil.copytree(DEMO, root)
    result = build("demo", root=root, dpi=150)
    return root, result.outputs


@pytest.fixture(scope="session")
def flagship_build(tmp_path_factory):
    """The flagship volume_kv built from the repo's own layout into a temp folder (300 dpi)."""
    from composer.build import build

    out = tmp_path_factory.mktemp("volume_kv")
    result = build("volume_kv", root=REPO, out=out, dpi=300)
    return result.outputs


def read_png(path: Path) -> np.ndarray:
    """PNG -> (H, W, 4) uint8 RGBA array."""
    from PIL import Image

    with Image.open(path) as img:
        return np.asarray(img.convert("RGBA"))


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
