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
from typing import Any

from sqlalchemy import BigInteger, Column, PrimaryKeyConstraint, String


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


def watching(dialect: str, generations: str, scope: str, tables: Sequence[str]) -> list[str]:
    """DDL for a migration: every write to ``tables`` moves ``scope``'s generation on.

    The database moves it (triggers, in the writing transaction), so no write path of the
    service, present or future, raw SQL included, can forget to: a service whose writes are
    spread over many places watches its tables this way instead of calling ``bump``
    (store/generations.py). The generation row must exist (the migration inserts it).

    On PostgreSQL the triggers are deferred to the commit (constraint triggers), so, as with
    ``bump`` called last, the generation row is locked only while a writer commits, not for
    the whole transaction: writers of different rows of the scope's tables still run side by
    side. SQLite fires at once, once per row; it has one writer at a time anyway.

    A later migration that rebuilds a watched table (``batch_alter_table`` on SQLite copies it
    into a new one) drops its triggers and must watch it again; tests/store/test_watched_scopes.py
    checks every watched table of the head schema.
    """
    _identifiers(generations, scope, *tables)
    # Identifiers and the scope are the service's own constants (checked above), not input.
    moved = f"UPDATE {generations} SET generation = generation + 1 WHERE scope = '{scope}'"  # noqa: S608
    if dialect == "postgresql":
        function = f"{generations}_bump"
        statements = [
            f"CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$ "  # noqa: S608
            f"BEGIN UPDATE {generations} SET generation = generation + 1 WHERE scope = TG_ARGV[0]; "
            "RETURN NULL; END $$"
        ]
        for table in tables:
            statements += [
                f"CREATE CONSTRAINT TRIGGER {table}_generation AFTER INSERT OR UPDATE OR DELETE ON {table} "
                f"DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {function}('{scope}')",
                # Constraint triggers cannot watch TRUNCATE; a statement trigger can.
                f"CREATE TRIGGER {table}_generation_truncate AFTER TRUNCATE ON {table} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {function}('{scope}')",
            ]
        return statements
    return [
        f"CREATE TRIGGER {table}_generation_{event.lower()} AFTER {event} ON {table} BEGIN {moved}; END"
        for table in tables
        for event in _ROW_EVENTS
    ]


def unwatching(
    dialect: str, generations: str, tables: Sequence[str], *, every_table: bool = True
) -> list[str]:
    """The DDL that undoes :func:`watching` (for a migration's downgrade). With ``every_table``
    False, ``tables`` are only some of the scope's: the others keep their triggers, and the
    PostgreSQL function they call stays."""
    _identifiers(generations, *tables)
    if dialect == "postgresql":
        drops = [
            f"DROP TRIGGER IF EXISTS {table}_{name} ON {table}"
            for table in tables
            for name in ("generation", "generation_truncate")
        ]
        return [*drops, f"DROP FUNCTION IF EXISTS {generations}_bump()"] if every_table else drops
    return [
        f"DROP TRIGGER IF EXISTS {table}_generation_{event.lower()}"
        for table in tables
        for event in _ROW_EVENTS
    ]


_ROW_EVENTS = ("INSERT", "UPDATE", "DELETE")


def _identifiers(*names: str) -> None:
    for name in names:
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ValueError(f"not a plain lower-case SQL identifier: {name!r}")
