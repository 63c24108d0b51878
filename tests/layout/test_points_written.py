"""A point is said in a message as the layout wrote it: ``to = "p#nothere"`` was said
``to = "p#nothere.center"`` (the anchor composer fills in), a value the user never wrote and cannot
find in the layout. Written with its anchor (``"p#nothere.ne"``) it is said with it."""

from __future__ import annotations

import pytest

from composer.errors import LayoutError
from composer.pipeline import build
from conftest import layout_project

DRAWING = ('<svg xmlns="http://www.w3.org/2000/svg" width="100pt" height="50pt" viewBox="0 0 100 50">'
           '<rect id="box" x="10" y="10" width="30" height="30"/></svg>')


@pytest.mark.parametrize("written", ["p#nothere", "p#nothere.ne"])
def test_an_unknown_element_is_said_as_written(tmp_path, written):
    root = layout_project(tmp_path, f'''
[panels.p]
svg = "../figs/d.svg"
at = ["0pt", "0pt"]
size = ["100pt", "50pt"]

[[arrow]]
from = "p#box"
to = "{written}"
''', head='width = "100pt"\nheight = "50pt"\n')
    (root / "figs").mkdir()
    (root / "figs" / "d.svg").write_text(DRAWING)
    with pytest.raises(LayoutError) as caught:
        build("fig", root=root, formats=("svg",), jobs=1)
    message = str(caught.value)
    assert f'arrow[0].to: to = "{written}": ../figs/d.svg has no drawn element with id \'nothere\'' in message
    assert not (root / "build" / "fig.svg").exists()
