"""The layout format's vocabulary: the names, choices and limits a layout's values are made of.

The words a key may take (``ROUTES``, ``HEADS``, ``SHAPE_KINDS``, ...), the compass anchors and the
words users write for them, relations and their alignments, and the format's numeric limits. The key
table (:mod:`composer.layout.keys`), the reader (:mod:`composer.layout.reader`), the model and the
stages read them here.
"""

from __future__ import annotations

import re

from composer.kinds import outputs
from composer.kinds.shapes import SHAPES

#: a name composer accepts for a figure, a panel, an element, a grid or a style: a Python identifier in
#: ASCII (it names files, ids and anchors: ``build/NAME.svg``, ``panel-NAME``, ``NAME.e``)
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: compass anchors every element has; (fx, fy) as fractions of the box,
#: from its top-left corner, y down.
COMPASS: dict[str, tuple[float, float]] = {
    "nw": (0.0, 0.0), "n": (0.5, 0.0), "ne": (1.0, 0.0),
    "w": (0.0, 0.5), "center": (0.5, 0.5), "e": (1.0, 0.5),
    "sw": (0.0, 1.0), "s": (0.5, 1.0), "se": (1.0, 1.0),
}
#: what a user may write for a compass anchor (``east``, ``top-left``), for the "did you mean" of a typo
COMPASS_WORDS: dict[str, str] = {
    "north": "n", "south": "s", "east": "e", "west": "w", "top": "n", "bottom": "s", "right": "e", "left": "w",
    "northwest": "nw", "northeast": "ne", "southwest": "sw", "southeast": "se",
    "north-west": "nw", "north-east": "ne", "south-west": "sw", "south-east": "se",
    "top-left": "nw", "top-right": "ne", "bottom-left": "sw", "bottom-right": "se",
    "topleft": "nw", "topright": "ne", "bottomleft": "sw", "bottomright": "se",
    "centre": "center", "middle": "center", "c": "center", "mid": "center",
}

ROUTES = ("straight", "-|", "|-", "arc")
HEADS = ("end", "start", "both", "none")
HEAD_STYLES = ("triangle", "open", "stealth", "bar")
WEIGHTS = ("normal", "bold")
STYLES = ("normal", "italic")
ALIGNS = ("left", "center", "right")
#: ``[[shape]] kind``: the shape classes' names (:data:`composer.kinds.shapes.SHAPES`), the default first.
SHAPE_KINDS = SHAPES.names()
SYMBOLS = ("+", "x", ".", "*")
#: ``[figure] text``: glyphs as outlines in the SVG and PNG and real text in the PDF (the default), outlines
#: everywhere, or canvas and panel text kept as ``<text>``.
TEXT_MODES = ("selectable", "paths", "editable")
#: ``[figure] math`` and a text's ``math``: ``$...$`` by matplotlib's mathtext (the default, nothing to
#: install), or the whole text as LaTeX, typeset by TeX (:mod:`composer.text.latex`).
MATH_MODES = ("mathtext", "latex")
#: export engines, default first, as built in (the table is :data:`composer.kinds.outputs.ENGINES`: the loader
#: reads it when it checks ``[figure] engine``, so an engine registered later is taken too).
ENGINES = outputs.engine_names()
#: relative placements and, for each, the alignments it takes.
RELATIONS: dict[str, tuple[str, ...]] = {
    "right_of": ("top", "center", "bottom"), "left_of": ("top", "center", "bottom"),
    "below": ("left", "center", "right"), "above": ("left", "center", "right"),
}
#: sides that take a fraction: ``"box.e@0.25"`` is a quarter of the way down the east side.
SIDES = ("n", "s", "e", "w")
#: the side of travel a brace or bracket bulges to; the side of an arrow's route its label sits on.
BRACE_SIDES = ("left", "right")
LABEL_SIDES = ("left", "right", "above", "below")
#: a panel label's size above the figure's font size, pt, when ``label_size`` is not given
LABEL_SIZE_ABOVE_FONT_PT = 1.0
#: each grid column's (row's) share when ``columns`` (``rows``) is not given: all equal
TRACK_SHARE = 1
#: an arrow's head (length, width) per pt of line width, when larger than the head's default
HEAD_PER_WIDTH = (4.5, 3.6)
#: ``[figure] labels``: the styles of automatic panel labels, shown as the first label of each
#: (:func:`composer.layout.presets.auto_label` writes the n-th).
LABEL_STYLES = ("a", "A", "(a)", "a)", "i", "(i)", "1")
#: ``[figure] label_at``: a panel label's corner at the panel's box, or at its plot area (axes).
LABEL_AT = ("box", "plot")
#: ``[[text]] side``: where a text ``beside`` panels sits, outside their combined plot areas.
BESIDE_SIDES = ("left", "right", "above", "below")
#: ``[[text]] rotate``: the largest turn, degrees either way (a full turn is the text unturned).
MAX_ROTATE_DEG = 360.0
#: the largest arc bend, degrees (:meth:`_Reader.degrees`)
MAX_BEND_DEG = 80
#: ``[panels.NAME] aspect_of``: what ``aspect`` (width / height) locks: the plot area (axes) or the box.
ASPECT_OF = ("plot", "box")
#: ``[[colorbar]] orientation``: the bar's long side, default first.
ORIENTATIONS = ("vertical", "horizontal")
#: ``[[align]] axis``: plot-area edges lined up.
ALIGN_AXES = ("x", "y", "both")
#: every ``align`` of any relation.
RELATION_ALIGNS = tuple(dict.fromkeys(a for aligns in RELATIONS.values() for a in aligns))
#: the relations, as keys of an element placed by one
RELATION_KEYS = tuple(RELATIONS)
#: the keys that place an element: exactly one of them (:data:`composer.layout.constraints.PLACEMENT`)
PLACEMENT_KEYS = ("at", "cell", *RELATION_KEYS)
#: the anchor of a shape's own box, by kind, when ``anchor`` is not given
SHAPE_ANCHORS = {k.name: k.default_anchor for k in SHAPES if k.boxed and k.default_anchor}
#: largest grid track ratio ("2fr"); a million to one is beyond any layout, and larger values overflow
#: the sum of the ratios to infinity.
MAX_RATIO = 1e6
