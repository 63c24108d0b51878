"""SVG as plain data, with no knowledge of figures.

:mod:`~composer.svg.io` (one safe parser, one deterministic writer, atomic files),
:mod:`~composer.svg.sanitize` (nothing active or from outside), :mod:`~composer.svg.css` (the one CSS
cascade, tinycss2 + cssselect2), :mod:`~composer.svg.transform` (the one transform parser),
:mod:`~composer.svg.viewbox`, :mod:`~composer.svg.ids`, :mod:`~composer.svg.geometry` (Bézier curves,
boxes), :mod:`~composer.svg.images` (the one image walker: decoded size, drawn size, ppi) and
:mod:`~composer.svg.measure` (what a composed SVG draws, at final size, for the check).
"""
