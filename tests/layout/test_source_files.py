"""A file given to the wrong panel source is refused naming the key that draws it (a new user's slip:
``svg = "plot.pdf"`` for an R PDF). The file exists and its suffix is one another source registers:
the refusal says that key, with the value as the user wrote it; a suffix no source takes (``.gif``)
is refused as before, listing the suffixes the key takes.
"""

from __future__ import annotations

import pytest

import composer.stages  # noqa: F401  (registers the panel sources)
from composer.errors import LayoutError
from composer.layout.loader import load_document


@pytest.mark.parametrize("key, name, hint", [
    ("svg", "plot.pdf", "supported: .svg; a .pdf file is drawn by pdf = 'plot.pdf'"),
    ("image", "plot.svg", "supported: .png, .jpg, .jpeg; a .svg file is drawn by svg = 'plot.svg'"),
    ("pdf", "photo.JPG", "supported: .pdf; a .JPG file is drawn by image = 'photo.JPG'"),
    ("image", "anim.gif", "supported: .png, .jpg, .jpeg"),
])
def test_a_file_of_another_source_is_refused_naming_its_key(tmp_path, key, name, hint):
    (tmp_path / name).write_bytes(b"")
    doc = {"figure": {"width": "40mm", "height": "30mm"},
           "panels": {"p": {key: name, "at": ["0mm", "0mm"], "size": ["10mm", "10mm"]}}}
    with pytest.raises(LayoutError) as caught:
        load_document(doc, tmp_path / "fig.toml", name="fig")
    assert str(caught.value) == (f"{tmp_path / 'fig.toml'}: panels.p.{key}: {name!r} has an unsupported type; "
                                 f"{hint}")
