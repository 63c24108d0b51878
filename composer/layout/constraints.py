"""The layout format's cross-key rules, each declared once: as data that gives both the JSON Schema's rule and
the loader's error.

A rule of a table (:attr:`composer.layout.keys.Table.rules`) constrains keys together: exactly one placement
(:data:`PLACEMENT`), the ``align`` a relation takes (:data:`RELATION_ALIGN`), keys a relation or ``beside``
sets itself (:data:`RELATION_ANCHOR`, :data:`BESIDE_SIDE`), a ``size`` unless a grid cell gives one
(:data:`PANEL_SIZE`, ...), one source of a panel (:func:`panel_source`). Each holds its key names and its
messages; ``schemas()`` writes its JSON Schema fragments (:mod:`composer.layout.schema`), and its check
(``given``, ``check``, ``refuse``) raises the loader's one-line error (:mod:`composer.layout.loader`) where the
loader reads those keys, so the schema and the loader cannot say different things.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from composer.errors import LayoutError
from composer.kinds.shapes import SHAPES
from composer.layout.vocabulary import PLACEMENT_KEYS, RELATION_KEYS, RELATIONS


class _Errors(Protocol):
    def err(self, key: str, message: str) -> LayoutError:
        """The error at key path ``key`` of the layout."""


class Read(Protocol):
    """What a rule's check reads of a table being read (:class:`composer.layout.section.Section`)."""

    @property
    def raw(self) -> Any:
        """The table as written."""

    @property
    def key(self) -> str:
        """The table's key path."""

    @property
    def reader(self) -> _Errors:
        """The layout's reader (its errors name the file)."""

    def misspelt(self, names: Iterable[str]) -> str:
        """A key given that is close to one of ``names``, as a message's tail, else ``""``."""

    def refuse(self, names: Iterable[str], why: str) -> None:
        """Raise if any of ``names`` is given: ``why`` says what the table takes instead."""


def _required(names: tuple[str, ...]) -> dict[str, Any]:
    """JSON Schema: one of ``names`` is given."""
    return {"required": [names[0]]} if len(names) == 1 else {"anyOf": [{"required": [n]} for n in names]}


@dataclass(frozen=True)
class ExactlyOne:
    """Exactly one of ``names`` is given.

    Attributes:
        names: the keys, in the order messages list them.
        over, under: the loader's message when two or more (``over``) or none (``under``) are given, at the
            table's key path; fields ``{given}`` (the keys given, joined by "and"), ``{got}`` (joined by
            commas, or "none"), ``{names}`` (every key) and, in ``under``, ``{misspelt}`` (a close misspelling).
    """

    names: tuple[str, ...]
    over: str
    under: str

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """``oneOf`` one key of :attr:`names` required."""
        return ({"oneOf": [{"required": [n]} for n in self.names]},)

    def given(self, t: Read) -> str:
        """The one key of :attr:`names` the table gives.

        Raises:
            LayoutError: two or more, or none, are given (:attr:`over`, :attr:`under`).
        """
        given = [k for k in self.names if k in t.raw]
        if len(given) == 1:
            return given[0]
        fields = {"given": " and ".join(given), "got": ", ".join(given) or "none", "names": ", ".join(self.names)}
        if given:
            raise t.reader.err(t.key, self.over.format(**fields))
        raise t.reader.err(t.key, self.under.format(**fields, misspelt=t.misspelt(self.names)))


@dataclass(frozen=True)
class Instead:
    """Key ``key`` places the element instead of one of ``of``'s keys: exactly one of them all.

    Attributes:
        over: the loader's message when ``key`` and one of ``of``'s keys are given, at the table's key path;
            field ``{other}`` (the first of ``of``'s keys given). Without ``key``, ``of`` checks the rest.
    """

    key: str
    of: ExactlyOne
    over: str

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """``oneOf`` one of ``of``'s keys or :attr:`key` required."""
        return ({"oneOf": [{"required": [n]} for n in (*self.of.names, self.key)]},)

    def check(self, t: Read) -> None:
        """Raises LayoutError (:attr:`over`): :attr:`key` and one of ``of``'s keys are given."""
        others = [k for k in self.of.names if k in t.raw]
        if self.key in t.raw and others:
            raise t.reader.err(t.key, self.over.format(other=others[0]))


@dataclass(frozen=True)
class ChoicesBy:
    """The values key ``key`` takes depend on which key of ``groups`` is given (``align``: the edges a relation
    lines up).

    Attributes:
        groups: keys that take the same values, in the schema's order.
        choices: key -> the values ``key`` takes with it.
    """

    key: str
    groups: tuple[tuple[str, ...], ...]
    choices: Mapping[str, tuple[str, ...]]

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """For each group: if one of its keys is given, :attr:`key` is one of its values."""
        return tuple({"if": _required(group),
                      "then": {"properties": {self.key: {"enum": list(self.choices[group[0]])}}}}
                     for group in self.groups)

    def of(self, given: str) -> tuple[str, ...]:
        """The values :attr:`key` takes with key ``given`` (the loader's converter checks them)."""
        return self.choices[given]


@dataclass(frozen=True)
class Excludes:
    """Any key of ``when`` given, none of ``refused`` may be.

    Attributes:
        message: the loader's message, at the refused key's path; fields ``{given}`` (the key of ``when``
            given) and those the loader passes (:meth:`check`).
    """

    when: tuple[str, ...]
    refused: tuple[str, ...]
    message: str

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """If one of :attr:`when` is given, none of :attr:`refused` is."""
        return ({"if": _required(self.when), "then": {"not": _required(self.refused)}},)

    def check(self, t: Read, given: str, **fields: str) -> None:
        """Raises LayoutError (:attr:`message`): ``given`` (a key of :attr:`when`) and a refused key are given."""
        for name in self.refused:
            if name in t.raw:
                raise t.reader.err(f"{t.key}.{name}", self.message.format(given=given, **fields))


@dataclass(frozen=True)
class Refuses:
    """``when`` given, the keys ``refused`` do nothing (``why``); not given, the keys ``otherwise`` do nothing
    (``otherwise_why``): the loader refuses them (:meth:`composer.layout.section.Section.refuse`)."""

    when: str
    refused: tuple[str, ...]
    why: str
    otherwise: tuple[str, ...]
    otherwise_why: str

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """If :attr:`when` is given none of :attr:`refused` is, else none of :attr:`otherwise`."""
        return ({"if": {"required": [self.when]}, "then": {"not": _required(self.refused)},
                 "else": {"not": _required(self.otherwise)}},)

    def refuse(self, t: Read) -> None:
        """Refuse the keys that do nothing in this use of the table (raises LayoutError when one is given)."""
        if self.when in t.raw:
            t.refuse(list(self.refused), self.why)
        else:
            t.refuse(list(self.otherwise), self.otherwise_why)


@dataclass(frozen=True)
class CellOrSize:
    """A ``size`` unless a grid ``cell`` gives it, never both.

    Attributes:
        missing: the loader's message when neither is given, at ``KEY.size`` (``missing_at_size``) or at the
            table's path; field ``{misspelt}`` (a close misspelling of ``size``).
        over: the message when both are given, at ``KEY.size``.
    """

    missing: str
    missing_at_size: bool = True
    over: str = "over-constrained: the grid cell gives the size; remove size or cell"
    #: neither may be given too (the element then has a size of its own: a ``[[colorbar]]`` sized from its panels)
    optional: bool = False

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """With ``cell`` no ``size``, else ``size`` required (unless :attr:`optional`)."""
        if self.optional:
            return ({"if": {"required": ["cell"]}, "then": {"not": {"required": ["size"]}}},)
        return ({"if": {"required": ["cell"]}, "then": {"not": {"required": ["size"]}},
                 "else": {"required": ["size"]}},)

    def check(self, t: Read) -> None:
        """Raises LayoutError: neither ``cell`` nor ``size`` is given (:attr:`missing`; unless :attr:`optional`),
        or both (:attr:`over`)."""
        if "cell" not in t.raw and "size" not in t.raw and not self.optional:
            raise t.reader.err(f"{t.key}.size" if self.missing_at_size else t.key,
                               self.missing.format(misspelt=t.misspelt(["size"])))
        if "cell" in t.raw and "size" in t.raw:
            raise t.reader.err(f"{t.key}.size", self.over)


@dataclass(frozen=True)
class ByKind:
    """Key ``key`` one of ``values`` (a shape drawn through points): the keys ``required`` are required;
    otherwise the rules ``otherwise`` hold (a boxed shape is placed like a panel)."""

    key: str
    values: tuple[str, ...]
    required: tuple[str, ...]
    otherwise: tuple[Rule, ...]

    def schemas(self) -> tuple[dict[str, Any], ...]:
        """If :attr:`key` is one of :attr:`values`, :attr:`required`; else all of :attr:`otherwise`."""
        return ({"if": {"required": [self.key], "properties": {self.key: {"enum": list(self.values)}}},
                 "then": {"required": list(self.required)},
                 "else": {"allOf": [s for rule in self.otherwise for s in rule.schemas()]}},)


Rule = ExactlyOne | Instead | ChoicesBy | Excludes | Refuses | CellOrSize | ByKind

#: exactly one placement: a point, a grid cell or a relation to another element
PLACEMENT = ExactlyOne(PLACEMENT_KEYS, over="over-constrained: {given} both place it; give one of {names}",
                       under="under-constrained: give one of {names} to place it{misspelt}")
#: the edges a relation lines up: ``top``/``center``/``bottom`` beside, ``left``/``center``/``right`` above or below
RELATION_ALIGN = ChoicesBy("align", (("right_of", "left_of"), ("above", "below")), RELATIONS)
#: a relation sets the element's anchor itself
RELATION_ANCHOR = Excludes(RELATION_KEYS, ("anchor",), "{given} sets the anchor itself; use align ({choices})")
#: the rules of an element placed like a panel
PLACED = (PLACEMENT, RELATION_ALIGN, RELATION_ANCHOR)
#: a ``[[text]]`` placed ``beside`` panels, or like any element
BESIDE = Instead("beside", PLACEMENT, over="over-constrained: beside and {other} both place it; give one")
#: what ``beside`` sets itself, and what goes with it alone
BESIDE_SIDE = Refuses("beside", ("anchor", "align"), "beside sets the anchor itself: the text's side facing the panels",
                      ("side",), "side goes with beside (the side of the panels a text sits on)")
#: the size of a panel, a colorbar and a named grid
PANEL_SIZE = CellOrSize("required key is missing (a panel placed with at or a relation needs a size){misspelt}")
COLORBAR_SIZE = CellOrSize("required key is missing (a colorbar placed with at or a relation needs a size){misspelt}",
                           optional=True)  # without either: sized from its panels' plot areas (stages.guides)
GRID_SIZE = CellOrSize("a grid placed with at or a relation needs a size", missing_at_size=False)
#: a shape drawn through its points (a line, a brace, a bracket) needs them; a boxed one is placed like a panel
SHAPE_POINTS = ByKind("kind", tuple(k.name for k in SHAPES if not k.boxed), ("points",), PLACED)


def panel_source(names: tuple[str, ...]) -> ExactlyOne:
    """A panel's one source, of the registered sources ``names`` (:func:`composer.layout.sources.source_rule`)."""
    return ExactlyOne(names, over="give exactly one of {names} (got {got})",
                      under="give exactly one of {names} (got {got})")
