"""Generations the database moves itself: the triggers a service's migrations install.

A service whose writes are spread over many places lets the database move its generation
(store/generations.py): its migration calls :func:`create_watched_scope`, which creates the
generation table with the scope's row and the triggers of :func:`watching` on the scope's tables.
This lives beside the Alembic environment because only migrations (and the tests of their
schema) run it; the request-time side, reading the generation and caching under it, is
store/generations.py.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Column, PrimaryKeyConstraint, String, Text

from ..generations import DEFAULT_KEEP


def create_watched_scope(op: Any, generations: str, scope: str, tables: Sequence[str]) -> None:
    """For a migration (``op`` is Alembic's): the generation table with the scope's row at 0,
    and the triggers of :func:`watching` on ``tables``."""
    created = op.create_table(
        generations,
        Column("scope", String(64), nullable=False),
        Column("generation", BigInteger(), nullable=False),
        PrimaryKeyConstraint("scope", name=f"pk_{generations}"),
    )
    op.bulk_insert(created, [{"scope": scope, "generation": 0}])
    for statement in watching(op.get_bind().dialect.name, generations, scope, tables):
        op.execute(statement)


def drop_watched_scope(op: Any, generations: str, tables: Sequence[str]) -> None:
    """Undo :func:`create_watched_scope` (a migration's downgrade)."""
    for statement in unwatching(op.get_bind().dialect.name, generations, tables):
        op.execute(statement)
    op.drop_table(generations)


@dataclass(frozen=True)
class Keyed:
    """A watched table whose writes change one object each: ``key`` is the SQL expression of
    the object's key over the written row, with ``{row}`` where the row goes (``NEW`` or
    ``OLD``), e.g. ``"'feed:' || {row}.id"``. A table given by its bare name changes
    "everything" in the scope (its change rows have a NULL key)."""

    table: str
    key: str


Watched = str | Keyed


@dataclass(frozen=True)
class ChangeLog:
    """Where :func:`watching` records each change's object key (``changes``, the shape of
    store/generations.py's ``changes_table``), keeping the last ``keep`` generations."""

    changes: str
    keep: int = DEFAULT_KEEP


def watching(
    dialect: str,
    generations: str,
    scope: str,
    tables: Sequence[Watched],
    *,
    log: ChangeLog | None = None,
) -> list[str]:
    """DDL for a migration: every write to ``tables`` moves ``scope``'s generation on.

    The database moves it (triggers, in the writing transaction), so no write path of the
    service, present or future, raw SQL included, can forget to: a service whose writes are
    spread over many places watches its tables this way instead of calling ``bump``
    (store/generations.py). The generation row must exist (the migration inserts it).

    With a ``log``, each move also records the written object's key (:class:`Keyed`; NULL for a
    table given by name) under the new generation, in the same transaction, and drops the rows
    ``log.keep`` generations behind: replays of other objects' answers then survive the write
    (web/replay.py). An UPDATE that changes the key records the old key too.

    On PostgreSQL the triggers are deferred to the commit (constraint triggers), so, as with
    ``bump`` called last, the generation row is locked only while a writer commits, not for
    the whole transaction: writers of different rows of the scope's tables still run side by
    side. SQLite fires at once, once per row; it has one writer at a time anyway.

    A later migration that rebuilds a watched table (``batch_alter_table`` on SQLite copies it
    into a new one) drops its triggers and must watch it again; tests/store/test_watched_scopes.py
    checks every watched table of the head schema.
    """
    _identifiers(generations, scope, *(_name(table) for table in tables), *([log.changes] if log else []))
    if dialect == "postgresql":
        return _postgresql(generations, scope, tables, log)
    return [
        f"CREATE TRIGGER {_name(table)}_generation_{event.lower()} AFTER {event} ON {_name(table)} "
        f"BEGIN {_sqlite_body(generations, scope, table, event, log)} END"
        for table in tables
        for event in _ROW_EVENTS
    ]


def _postgresql(generations: str, scope: str, tables: Sequence[Watched], log: ChangeLog | None) -> list[str]:
    function = f"{generations}_bump"
    # Identifiers and the scope are the service's own constants (checked), not input.
    statements = [
        f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"DECLARE moved bigint; BEGIN {_pg_move(generations, log)}"
        f"{_pg_record(log, 'NULL')}{_pg_prune(log)}RETURN NULL; END $$"
    ]
    for table in tables:
        name = _name(table)
        row_function = function
        if log is not None and isinstance(table, Keyed):
            row_function = f"{name}_generation_changed"
            statements.append(_pg_keyed_function(row_function, generations, table, log))
        statements += [
            f"CREATE CONSTRAINT TRIGGER {name}_generation AFTER INSERT OR UPDATE OR DELETE ON {name} "
            f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {row_function}('{scope}')",
            # Constraint triggers cannot watch TRUNCATE; a statement trigger can (everything changed).
            f"CREATE TRIGGER {name}_generation_truncate AFTER TRUNCATE ON {name} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {function}('{scope}')",
        ]
    return statements


def _pg_move(generations: str, log: ChangeLog | None) -> str:
    into = " RETURNING generation INTO moved" if log is not None else ""
    return f"UPDATE {generations} SET generation = generation + 1 WHERE scope = TG_ARGV[0]{into}; "  # noqa: S608


def _pg_record(log: ChangeLog | None, key: str) -> str:
    if log is None:
        return ""
    return f"INSERT INTO {log.changes} (scope, generation, object_key) VALUES (TG_ARGV[0], moved, {key}); "  # noqa: S608


def _pg_prune(log: ChangeLog | None) -> str:
    if log is None:
        return ""
    return f"DELETE FROM {log.changes} WHERE scope = TG_ARGV[0] AND generation <= moved - {log.keep}; "  # noqa: S608


def _pg_keyed_function(function: str, generations: str, table: Keyed, log: ChangeLog) -> str:
    new, old = table.key.format(row="NEW"), table.key.format(row="OLD")
    return (
        f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"DECLARE moved bigint; BEGIN {_pg_move(generations, log)}"
        f"IF TG_OP <> 'DELETE' THEN {_pg_record(log, new)}END IF; "
        f"IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND ({old}) IS DISTINCT FROM ({new})) "
        f"THEN {_pg_record(log, old)}END IF; "
        f"{_pg_prune(log)}RETURN NULL; END $$"
    )


def _sqlite_body(generations: str, scope: str, table: Watched, event: str, log: ChangeLog | None) -> str:
    # Identifiers and the scope are the service's own constants (checked), not input.
    moved = f"UPDATE {generations} SET generation = generation + 1 WHERE scope = '{scope}';"  # noqa: S608
    if log is None:
        return moved
    now = f"(SELECT generation FROM {generations} WHERE scope = '{scope}')"  # noqa: S608
    record = f"INSERT INTO {log.changes} (scope, generation, object_key) SELECT '{scope}', {now}, "
    if not isinstance(table, Keyed):
        recorded = f"{record}NULL;"
    elif event == "INSERT":
        recorded = f"{record}{table.key.format(row='NEW')};"
    elif event == "DELETE":
        recorded = f"{record}{table.key.format(row='OLD')};"
    else:
        new, old = table.key.format(row="NEW"), table.key.format(row="OLD")
        recorded = f"{record}{new}; {record}{old} WHERE ({old}) IS NOT ({new});"
    pruned = f"DELETE FROM {log.changes} WHERE scope = '{scope}' AND generation <= {now} - {log.keep};"  # noqa: S608
    return f"{moved} {recorded} {pruned}"


def unwatching(
    dialect: str, generations: str, tables: Sequence[Watched], *, every_table: bool = True
) -> list[str]:
    """The DDL that undoes :func:`watching` (for a migration's downgrade). With ``every_table``
    False, ``tables`` are only some of the scope's: the others keep their triggers, and the
    PostgreSQL function they call stays."""
    names = [_name(table) for table in tables]
    _identifiers(generations, *names)
    if dialect == "postgresql":
        drops = [
            f"DROP TRIGGER IF EXISTS {table}_{name} ON {table}"
            for table in names
            for name in ("generation", "generation_truncate")
        ]
        drops += [f"DROP FUNCTION IF EXISTS {table}_generation_changed()" for table in names]
        return [*drops, f"DROP FUNCTION IF EXISTS {generations}_bump()"] if every_table else drops
    return [
        f"DROP TRIGGER IF EXISTS {table}_generation_{event.lower()}"
        for table in names
        for event in _ROW_EVENTS
    ]


def create_change_log(
    op: Any, generations: str, scope: str, log: ChangeLog, before: Sequence[str], after: Sequence[Watched]
) -> None:
    """For a migration: the change table ``log.changes``, and the scope's triggers (watching
    ``before``, by name) replaced by ones that record each change's key (watching ``after``)."""
    create_changes_table(op, log.changes)
    dialect = op.get_bind().dialect.name
    for statement in [
        *unwatching(dialect, generations, before),
        *watching(dialect, generations, scope, after, log=log),
    ]:
        op.execute(statement)


def drop_change_log(
    op: Any, generations: str, scope: str, log: ChangeLog, before: Sequence[str], after: Sequence[Watched]
) -> None:
    """Undo :func:`create_change_log` (a migration's downgrade): the plain triggers again."""
    dialect = op.get_bind().dialect.name
    for statement in [
        *unwatching(dialect, generations, after),
        *watching(dialect, generations, scope, before),
    ]:
        op.execute(statement)
    drop_changes_table(op, log.changes)


def create_changes_table(op: Any, changes: str) -> None:
    """For a migration: a change log (the shape of store/generations.py's ``changes_table``)."""
    op.create_table(
        changes,
        Column("scope", String(64), nullable=False),
        Column("generation", BigInteger(), nullable=False),
        Column("object_key", Text(), nullable=True),
    )
    op.create_index(f"ix_{changes}_scope_generation", changes, ["scope", "generation"])


def drop_changes_table(op: Any, changes: str) -> None:
    op.drop_index(f"ix_{changes}_scope_generation", changes)
    op.drop_table(changes)


def _name(table: Watched) -> str:
    return table.table if isinstance(table, Keyed) else table


_ROW_EVENTS = ("INSERT", "UPDATE", "DELETE")


def _identifiers(*names: str) -> None:
    for name in names:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain lower-case SQL identifier: {name!r}")
