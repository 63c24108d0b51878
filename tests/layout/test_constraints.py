"""The cross-key rules (composer/layout/constraints.py): each one refuses a layout in the loader, with its
one-line error, and in the JSON Schema, at that key or its table; a layout that keeps it passes both.

The expected messages are written out here, as a user reads them (the loader's words before the rules
were declared as data, unchanged); the schema is the one ``compose schema`` writes.
"""

from __future__ import annotations

import copy

import jsonschema
import pytest

from composer.errors import LayoutError
from composer.layout import constraints
from composer.layout.keys import TABLES
from composer.layout.loader import load_document
from composer.layout.schema import json_schema

VALIDATOR = jsonschema.Draft7Validator(json_schema())
FIG = {"width": "60mm", "height": "40mm"}
NODE = [{"name": "o", "at": ["0mm", "0mm"], "size": ["1mm", "1mm"]}]
AT = ["0mm", "0mm"]
SIZE = ["1mm", "1mm"]

#: (what, layout, key path of the error, message, the same layout with the rule kept)
CASES = [
    ("two placements", {"figure": FIG, "panels": {"p": {"render": "m:f", "at": AT, "cell": "A", "size": SIZE}}},
     "panels.p", "over-constrained: at and cell both place it; give one of at, cell, right_of, left_of, below, "
     "above", {"figure": FIG, "panels": {"p": {"render": "m:f", "at": AT, "size": SIZE}}}),
    ("no placement", {"figure": FIG, "text": [{"text": "x"}]},
     "text[0]", "under-constrained: give one of at, cell, right_of, left_of, below, above to place it",
     {"figure": FIG, "text": [{"text": "x", "at": AT}]}),
    ("no placement, a typo", {"figure": FIG, "panels": {"p": {"render": "m:f", "atx": AT, "size": SIZE}}},
     "panels.p", "under-constrained: give one of at, cell, right_of, left_of, below, above to place it (is "
     "'atx' a misspelling of 'at'?)", None),
    ("two sources", {"figure": FIG, "panels": {"p": {"render": "m:f", "svg": "a.svg", "at": AT, "size": SIZE}}},
     "panels.p", "give exactly one of render, svg, image, pdf, vegalite (got render, svg)", None),
    ("no source", {"figure": FIG, "panels": {"p": {"at": AT, "size": SIZE}}},
     "panels.p", "give exactly one of render, svg, image, pdf, vegalite (got none)", None),
    ("anchor with a relation", {"figure": FIG, "shape": NODE, "text": [{"text": "x", "below": "o", "anchor": "n"}]},
     "text[0].anchor", "below sets the anchor itself; use align (left, center, right)",
     {"figure": FIG, "shape": NODE, "text": [{"text": "x", "below": "o", "align": "left"}]}),
    ("align of another relation", {"figure": FIG, "shape": NODE, "text": [{"text": "x", "right_of": "o",
                                                                         "align": "left"}]},
     "text[0].align", "'left' is not a valid value; supported values are 'top', 'center', 'bottom'",
     {"figure": FIG, "shape": NODE, "text": [{"text": "x", "right_of": "o", "align": "top"}]}),
    ("beside and at", {"figure": FIG, "text": [{"text": "x", "beside": ["p"], "at": AT}]},
     "text[0]", "over-constrained: beside and at both place it; give one", None),
    ("beside and anchor", {"figure": FIG, "text": [{"text": "x", "beside": ["p"], "anchor": "n"}]},
     "text[0].anchor", "'anchor' does nothing here: beside sets the anchor itself: the text's side facing the "
     "panels", None),
    ("side without beside", {"figure": FIG, "text": [{"text": "x", "at": AT, "side": "left"}]},
     "text[0].side", "'side' does nothing here: side goes with beside (the side of the panels a text sits on)",
     {"figure": FIG, "text": [{"text": "x", "at": AT}]}),
    ("panel without size", {"figure": FIG, "panels": {"p": {"render": "m:f", "at": AT}}},
     "panels.p.size", "required key is missing (a panel placed with at or a relation needs a size)", None),
    ("colorbar with cell and size", {"figure": FIG, "grid": {"mosaic": "AB"},
                                     "colorbar": [{"for": ["p"], "cell": "A", "size": SIZE}]},
     "colorbar[0].size", "over-constrained: the grid cell gives the size; remove size or cell", None),
    ("named grid without size", {"figure": FIG, "grids": {"g": {"mosaic": "A", "at": AT}}},
     "grids.g", "a grid placed with at or a relation needs a size",
     {"figure": FIG, "grids": {"g": {"mosaic": "A", "at": AT, "size": SIZE}}}),
    # the schema refuses this too since the rule is declared once (before, it said only "size without a cell")
    ("named grid with cell and size", {"figure": FIG, "grid": {"mosaic": "AB"},
                                       "grids": {"g": {"mosaic": "A", "cell": "A", "size": SIZE}}},
     "grids.g.size", "over-constrained: the grid cell gives the size; remove size or cell",
     {"figure": FIG, "grid": {"mosaic": "AB"}, "grids": {"g": {"mosaic": "A", "cell": "A"}}}),
    ("line without points", {"figure": FIG, "shape": [{"kind": "line"}]},
     "shape[0].points", "required key is missing", None),
]


def _path(error: jsonschema.ValidationError) -> str:
    """A schema error's place as the loader names it: ``panels.p``, ``text[0]``."""
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@pytest.mark.parametrize("what, doc, key, message, kept", CASES, ids=[c[0] for c in CASES])
def test_a_cross_key_rule_is_refused_by_loader_and_schema_alike(what, doc, key, message, kept, tmp_path):
    with pytest.raises(LayoutError) as caught:
        load_document(copy.deepcopy(doc), tmp_path / "fig.toml", name="fig")
    assert str(caught.value) == f"{tmp_path / 'fig.toml'}: {key}: {message}"
    places = {_path(e) for e in VALIDATOR.iter_errors(doc)}  # the table, or the key in it
    assert any(p and (key == p or key.startswith((f"{p}.", f"{p}["))) for p in places), \
        f"the schema does not refuse {what} at {key} or its table: {sorted(places)}"
    if kept is not None:
        assert not list(VALIDATOR.iter_errors(kept)), f"the schema refuses {what} kept"
        load_document(copy.deepcopy(kept), tmp_path / "fig.toml", name="fig")


def test_every_rule_of_the_format_is_a_declared_rule():
    """No table keeps a schema rule of its own: each is a constraints rule, which the loader checks."""
    kinds = (constraints.ExactlyOne, constraints.Instead, constraints.ChoicesBy, constraints.Excludes,
             constraints.Refuses, constraints.CellOrSize, constraints.ByKind)
    for table in TABLES:
        for rule in table.rules:
            assert isinstance(rule, kinds), (table.kind, rule)
