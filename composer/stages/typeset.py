"""Typeset stage: fill every canvas text's ``{fields}`` and typeset it as outlines (pure, before rendering).

The canvas text (``[[text]]``, shape text, connector labels, panel labels
and titles) is typeset once here: its sizes place the elements
(:mod:`composer.stages.geometry`) and its outlines are drawn by
:mod:`composer.stages.compose`. Typesetting is the slow part of composing,
so a build passes a :class:`composer.incremental.cache.TextCache`
(:func:`text_cache`) and every :func:`typeset_text` inside goes through it;
the blocks are the same either way. The figure's LaTeX texts (``math = "latex"``) that the cache lacks
are typeset ahead in one TeX run (:func:`composer.text.latex.prepare`).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from composer.errors import ComposerError, LayoutError
from composer.kinds.shapes import SHAPES
from composer.layout.model import TextStyle
from composer.stages.inputs import MAX_TEXT_CHARS, Inputs, fill_fields
from composer.text.metrics import TextBlock, check_font, typeset


class TextStore(Protocol):
    """What :func:`text_cache` takes: :class:`composer.incremental.cache.TextCache`."""

    def typeset(self, text: str, style: Any, colors: tuple[tuple[str, str], ...] = (),
                width_pt: float | None = None) -> Any: ...

    def has(self, text: str, style: Any, colors: tuple[tuple[str, str], ...] = (),
            width_pt: float | None = None) -> bool: ...


#: the typeset-text cache of the build in progress, if any (set by :func:`text_cache`).
_TEXT_CACHE: contextvars.ContextVar[TextStore | None] = contextvars.ContextVar("composer_text_cache", default=None)


@contextlib.contextmanager
def text_cache(store: TextStore | None) -> Iterator[None]:
    """Inside the block, :func:`typeset_text` takes its blocks from ``store`` (None: typesets every text)."""
    token = _TEXT_CACHE.set(store)
    try:
        yield
    finally:
        _TEXT_CACHE.reset(token)


@dataclass(frozen=True)
class Typeset:
    """The canvas text of a figure, filled and typeset (pure, before rendering).

    Attributes:
        texts: each ``[[text]]``'s filled string and block.
        shapes: each shape's filled text and block (None without text) and its
            box size (fitted to the text where the layout gave none; None for
            lines and braces, and for shapes that fill a grid cell).
        arrow_labels: each arrow's filled label and block, or None.
    """

    texts: tuple[tuple[str, TextBlock], ...]
    shapes: tuple[tuple[str | None, TextBlock | None, tuple[float, float] | None], ...]
    arrow_labels: tuple[tuple[str, TextBlock] | None, ...]

    @property
    def text_sizes(self) -> list[tuple[float, float]]:
        return [(b.width_pt, b.height_pt) for _, b in self.texts]

    @property
    def shape_sizes(self) -> list[tuple[float, float] | None]:
        return [size for _, _, size in self.shapes]


def typeset_figure(inputs: Inputs) -> Typeset:
    """Fill every ``{field}`` and typeset every canvas text; fit shapes to their text.

    A shape with text and no size is the text plus ``padding`` on each side
    (a circle or ellipse encloses the text's box: its axes are the box's times
    sqrt 2); with only a width, the text wraps to it and the height follows.

    Raises:
        DataError: a field without a value. LayoutError: bad mathtext or markup.
    """
    figure, file = inputs.figure, inputs.file
    colors = tuple(figure.spec.colors.items())
    _prepare_latex(inputs, colors)
    texts: list[tuple[str, TextBlock]] = []
    for t in figure.texts:
        filled = fill_text(t.text, inputs, file, f"{t.key}.text")
        texts.append((filled, typeset_text(filled, t.style, file, f"{t.key}.text", colors, t.width_pt)))
    shapes: list[tuple[str | None, TextBlock | None, tuple[float, float] | None]] = []
    for s in figure.shapes:
        if s.place is None:
            shapes.append((None, None, None))
            continue
        width, height = s.size_pt
        shape_text = fill_text(s.text, inputs, file, f"{s.key}.text") if s.text else None
        block = None
        if shape_text is not None and s.text_style is not None:
            block = typeset_text(shape_text, s.text_style, file, f"{s.key}.text", colors, _wrap_pt(s))
        size: tuple[float, float] | None = None
        if s.place.cell is None:
            if width is not None and height is not None:
                size = (width, height)
            elif block is not None:
                grow = SHAPES[s.kind].text_grow  # an ellipse's text fits inside it: sqrt(2) larger
                w = width if width is not None else block.width_pt * grow + 2 * s.padding_pt
                h = height if height is not None else block.height_pt * grow + 2 * s.padding_pt
                if SHAPES[s.kind].square:
                    w = h = max(w, h)
                size = (w, h)
        shapes.append((shape_text, block, size))
    labels: list[tuple[str, TextBlock] | None] = []
    for a in figure.arrows:
        if a.label is None or a.label_style is None:
            labels.append(None)
            continue
        filled = fill_text(a.label, inputs, file, f"{a.key}.label")
        labels.append((filled, typeset_text(filled, a.label_style, file, f"{a.key}.label", colors)))
    return Typeset(tuple(texts), tuple(shapes), tuple(labels))


def _wrap_pt(shape: Any) -> float | None:
    """The width a shape's text wraps to: its width inside its padding, for the shapes that wrap."""
    width = shape.size_pt[0]
    return width - 2 * shape.padding_pt if width is not None and SHAPES[shape.kind].wraps else None


def _prepare_latex(inputs: Inputs, colors: tuple[tuple[str, str], ...]) -> None:
    """Typeset the figure's LaTeX texts that the text cache does not have in one TeX run
    (:func:`composer.text.latex.prepare`), before the texts are typeset one by one; a text whose fields
    cannot be filled is left to the loop, which reports it where it stands."""
    figure, file = inputs.figure, inputs.file
    wanted: list[tuple[str, TextStyle, str, float | None]] = []
    for t in figure.texts:
        wanted.append((t.text, t.style, f"{t.key}.text", t.width_pt))
    for s in figure.shapes:
        if s.place is not None and s.text and s.text_style is not None:
            wanted.append((s.text, s.text_style, f"{s.key}.text", _wrap_pt(s)))
    for a in figure.arrows:
        if a.label is not None and a.label_style is not None:
            wanted.append((a.label, a.label_style, f"{a.key}.label", None))
    store = _TEXT_CACHE.get()
    items = []
    for template, style, key, width_pt in wanted:
        if style.math != "latex":
            continue
        try:
            text = fill_text(template, inputs, file, key)
        except ComposerError:
            continue
        if len(text) <= MAX_TEXT_CHARS and (store is None or not store.has(text, style, colors, width_pt)):
            items.append((text, style))
    if len(items) > 1:
        from composer.text.latex import prepare

        prepare(items)


def fill_text(template: str, inputs: Inputs, file: str, key: str) -> str:
    """Fill a text's ``{fields}`` from ``inputs.values`` (:func:`composer.stages.inputs.fill_fields`);
    negative numbers get matplotlib's minus sign (U+2212) unless the layout's rcParams turn
    ``axes.unicode_minus`` off, so text and tick labels agree.

    Raises:
        DataError: a field without a value, or one that cannot be printed (see ``fill_fields``).
    """
    minus = "\u2212" if inputs.figure.spec.rcparams.get("axes.unicode_minus", True) else "-"
    return fill_fields(template, inputs.values, file=file, key=key, minus=minus)


def typeset_text(text: str, style: TextStyle, file: str, key: str, colors: tuple[tuple[str, str], ...] = (),
                 width_pt: float | None = None) -> TextBlock:
    """Typeset one filled canvas text (:func:`composer.text.metrics.typeset`; from the text cache of
    the build in progress when there is one), wrapped to ``width_pt`` when given.

    Raises:
        LayoutError: at ``key`` of ``file``: a font that is not installed, a text longer than
            :data:`composer.stages.inputs.MAX_TEXT_CHARS`, or bad mathtext or markup.
    """
    check_font(style.font, file=file, key=key)
    if len(text) > MAX_TEXT_CHARS:
        raise LayoutError(f"text of {len(text)} characters is longer than the limit of {MAX_TEXT_CHARS}",
                          file=file, key=key)
    store = _TEXT_CACHE.get()
    try:
        if store is not None:
            block: TextBlock = store.typeset(text, style, colors, width_pt)
            return block
        return typeset(text, style, colors, width_pt)
    except ValueError as exc:
        raise LayoutError(f"cannot typeset {text!r}: {' '.join(str(exc).split())}", file=file, key=key) from None
