"""What the layout format knows of panel sources: each source's table, registered by the source itself.

A panel's source is the one key that says what draws it (``render``, ``svg``,
``image``, ``pdf``). Each source is one module of :mod:`composer.stages.sources`
(its drawing, its inputs, what it reports to the geometry stage); the part of
it that the loader, the JSON Schema and the reference need is a
:class:`SourceTable`: plain data in the format's own terms (:class:`Key`), which
that module declares and registers here (:func:`register`), since this layer
may not import the stages. The ``[panels.NAME]`` table is then the panel's
common keys (:data:`composer.layout.keys.TABLES_BY_KIND` ``["panel"]`` as the
format declares it) completed by every registered source's keys, in
registration order: :func:`panel_table`, which :func:`register` installs in
:data:`~composer.layout.keys.TABLES` and
:data:`~composer.layout.keys.TABLES_BY_KIND`, so the loader's key checks, the
schema and the reference read one table.

Importing :mod:`composer.stages` registers the built-in sources; a layout read
before any source is registered fails with a :class:`RuntimeError` saying so
(a bug in the caller, never a user's error).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from composer.kinds import Registry
from composer.layout.constraints import ExactlyOne, panel_source
from composer.layout.keys import TABLES, TABLES_BY_KIND, TYPES, Key, Table, ValueType

#: the panel table as the format declares it: the keys every panel has, and the shared keys a source
#: may take (:attr:`SourceTable.takes`), without any source's own keys
BASE_PANEL_TABLE: Table = TABLES_BY_KIND["panel"]

#: keys of the base panel table that only the sources taking them accept (:attr:`SourceTable.takes`)
SHARED_KEYS = ("params", "data", "raster", "empty")


@dataclass(frozen=True)
class SourceTable:
    """The layout side of one panel source: its keys and what the loader's cross-checks need to know.

    Attributes:
        key: the key that chooses the source; its name is the source's name (``Panel.kind``) and
            its converted value the panel's ``source`` (``Key("pdf", "pdf_file", ...)``).
        keys: keys only this source takes (``page`` for ``pdf``), read into ``Panel.options`` by
            name; any other source's panel refuses them.
        takes: the shared panel keys of :data:`SHARED_KEYS` it accepts (``render``: all of them);
            a panel of a source that does not take one refuses it.
        matplotlib: the panel is drawn by matplotlib in the render stage: its value names a renderer
            (``"module:function"``, loaded by the inputs stage, called in a forked worker, its panel
            cached), it has a plot area and data anchors once drawn, guides (``[[legend]] from``) draw
            from it, ``[[align]]`` aligns it and ``aspect_of = "plot"`` locks its axes.
        element_ids: ``"panel#id"`` points reach the elements of its file: what its ``read`` returns is an
            SVG document, drawn fitted in the box as its ``preserveAspectRatio`` says (as ``svg`` draws it),
            whose element boxes :func:`composer.stages.geometry.imported_svgs` measures.
        article: ``"a"`` or ``"an"``, as messages say the source (``an svg panel``).
        note: what a panel of this source does with a key it does not take, said in the error
            (``"an svg panel is embedded as it is"``); default: ``"<article> <name> panel has no use for it"``.
        types: value types the source's keys use that the format's vocabulary does not have
            (:data:`composer.layout.keys.TYPES`), added to it while the source is registered.
    """

    key: Key
    keys: tuple[Key, ...] = ()
    takes: frozenset[str] = frozenset()
    matplotlib: bool = False
    element_ids: bool = False
    article: str = "a"
    note: str = ""
    types: tuple[ValueType, ...] = field(default=())

    @property
    def name(self) -> str:
        """The source's name: its key as written (``"pdf"``)."""
        return self.key.name

    def said(self) -> str:
        """The source's panels as messages name them: ``"an svg panel"``."""
        return f"{self.article} {self.name} panel"

    def refusal(self) -> str:
        """What a panel of this source does with a key it does not take (:attr:`note`)."""
        return self.note or f"{self.said()} has no use for it"


#: the registered sources' tables, by name, in registration order (:class:`composer.kinds.Registry`)
SOURCE_TABLES: Registry[SourceTable] = Registry("panel source")


#: the file value types made by :func:`file_type`, by name -> the suffixes they take
_FILE_SUFFIXES: dict[str, tuple[str, ...]] = {}


def file_type(name: str, suffixes: tuple[str, ...], pattern: str, what: str) -> ValueType:
    """A value type for a file a source reads: a path relative to the layout file that exists and has one of
    ``suffixes`` (:meth:`composer.layout.reader.Reader.file_path`, which records it in ``Figure.files``);
    ``pattern`` is the schema's regular expression for it, ``what`` says it in the schema (``"an SVG file"``).
    A file of another source's type is refused naming that source's key (:func:`source_key_for`)."""
    shown = "path to " + "/".join(f"`{x}`" for x in suffixes[:2])
    _FILE_SUFFIXES[name] = suffixes
    return ValueType(name, shown, lambda reader, value, key: reader.file_path(value, key, suffixes, source_key_for), {
        "type": "string", "pattern": pattern, "description": f"{what}, relative to the layout file"})


def source_key_for(suffix: str) -> str:
    """The key of the registered source whose files have ``suffix`` (``".pdf"`` -> ``"pdf"``), "" when none."""
    for table in SOURCE_TABLES:
        if suffix.lower() in _FILE_SUFFIXES.get(table.key.type, ()):
            return table.key.name
    return ""


def register(table: SourceTable) -> None:
    """Make ``table``'s source a panel source of the layout format (the loader, schema and reference).

    Raises:
        ValueError: a source of that name is registered already, its name is a key every panel
            has, or one of its keys or value types clashes with the format's.
    """
    if table.name in SOURCE_TABLES:
        raise ValueError(f"panel source {table.name!r} is registered already")
    clash = {table.name, *(k.name for k in table.keys)} & BASE_PANEL_TABLE.key_names()
    if clash:
        raise ValueError(f"panel source {table.name!r}: {', '.join(sorted(clash))} is a key every panel has")
    owned = {k.name for t in SOURCE_TABLES for k in (t.key, *t.keys)}
    clash = {table.name, *(k.name for k in table.keys)} & owned
    if clash:
        raise ValueError(f"panel source {table.name!r}: {', '.join(sorted(clash))} belongs to another source")
    unknown_takes = set(table.takes) - set(SHARED_KEYS)
    if unknown_takes:
        raise ValueError(f"panel source {table.name!r} takes {', '.join(sorted(unknown_takes))}; the shared "
                         f"panel keys are {', '.join(SHARED_KEYS)}")
    for vtype in table.types:
        if vtype.name in TYPES:
            raise ValueError(f"panel source {table.name!r}: the value type {vtype.name!r} exists already")
    for key in (table.key, *table.keys):
        if key.type not in TYPES and key.type not in {t.name for t in table.types}:
            raise ValueError(f"panel source {table.name!r}: key {key.name!r} has the unknown type {key.type!r}")
    TYPES.update({t.name: t for t in table.types})
    SOURCE_TABLES.add(table)
    _install()


def unregister(name: str) -> None:
    """Remove the source ``name`` (a test's own source, when the test ends).

    Raises:
        KeyError: no source of that name is registered.
    """
    table = SOURCE_TABLES.remove(name)
    for vtype in table.types:
        TYPES.pop(vtype.name, None)
    _install()


def registered() -> tuple[SourceTable, ...]:
    """Every registered source's table, in registration order (the order messages and the reference list them).

    Raises:
        RuntimeError: none is registered: nothing imported :mod:`composer.stages`, which registers the
            built-in ones (a bug in the caller).
    """
    if not len(SOURCE_TABLES):
        raise RuntimeError("no panel source is registered: import composer.stages (composer.stages.sources "
                           "registers the built-in ones) before reading a layout")
    return tuple(SOURCE_TABLES)


def table(name: str) -> SourceTable:
    """The table of the registered source ``name`` (KeyError when there is none)."""
    return SOURCE_TABLES[name]


def names() -> tuple[str, ...]:
    """The registered sources' names, in registration order."""
    return tuple(t.name for t in registered())


def panel_table() -> Table:
    """The ``[panels.NAME]`` table: every registered source's key, then their own keys, then the base
    table's keys; its schema rules say exactly one source key."""
    tables = tuple(SOURCE_TABLES)
    chosen = tuple(t.key for t in tables)
    own = tuple(k for t in tables for k in t.keys)
    rules = (source_rule(),) if chosen else ()
    return dataclasses.replace(BASE_PANEL_TABLE, keys=(*chosen, *own, *BASE_PANEL_TABLE.keys),
                               rules=(*rules, *BASE_PANEL_TABLE.rules))


def source_rule() -> ExactlyOne:
    """Exactly one registered source's key (:func:`composer.layout.constraints.panel_source`): the panel table's
    schema rule, and the loader's check of it (:meth:`~composer.layout.constraints.ExactlyOne.given`).

    Raises:
        RuntimeError: no source is registered (:func:`registered`).
    """
    return panel_source(names())


def _install() -> None:
    """Put :func:`panel_table` where the format's readers look tables up (the list and the dict)."""
    full = panel_table()
    TABLES[next(i for i, t in enumerate(TABLES) if t.kind == "panel")] = full
    TABLES_BY_KIND["panel"] = full
