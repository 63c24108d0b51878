"""Text: measured and drawn with matplotlib's font machinery, so every renderer shows the same glyphs.

:mod:`~composer.text.metrics` (canvas text: markup, mathtext, metrics, outlines),
:mod:`~composer.text.fonts` (the font asked for is the font every renderer draws with),
:mod:`~composer.text.pin` (``<text>`` pinned to matplotlib's layout, one x per character).
"""
