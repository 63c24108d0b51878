"""The stages of a build, in run order; :mod:`composer.pipeline` runs them.

:mod:`~composer.stages.inputs` (project, layout, data file, ``{fields}``; the project's panel modules
through :mod:`~composer.stages.usercode`) ->
:mod:`~composer.stages.typeset` (canvas text measured) -> :mod:`~composer.stages.geometry`
(every element a box in canvas pt, connectors routed) -> :mod:`~composer.stages.render` (each panel
drawn by matplotlib at its final size: :mod:`~composer.stages.draft`, :mod:`~composer.stages.aspect`,
:mod:`~composer.stages.align`, :mod:`~composer.stages.anchors`, with the records of its guides,
:mod:`~composer.stages.guides` and :mod:`~composer.stages.colormaps`) -> :mod:`~composer.stages.fragment`
(a panel's SVG made one safe group of the canvas) -> :mod:`~composer.stages.draw` (text, shapes, connectors as SVG) ->
:mod:`~composer.stages.compose` (the canvas SVG; :mod:`~composer.stages.inkscape` labels,
:mod:`~composer.stages.overlay` the ``--debug`` view) -> :mod:`~composer.stages.export` (PDF, PNG,
TIFF, EPS).
"""

# the panel sources register themselves with the layout format (composer.layout.sources) when imported
import composer.stages.sources  # noqa: E402,F401
