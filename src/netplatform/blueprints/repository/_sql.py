"""SQL helpers the repository modules share: substring search on lower-cased text, keyed upsert,
rows replacing those of the same unique key, the count of rows a statement changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, CursorResult, Insert, Result, Table, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session


def _like(text: str) -> str:
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def contains(column: Any, text: str) -> ColumnElement[bool]:
    """Case-insensitive substring test against a column of lower-cased text (``%`` is literal)."""
    condition: ColumnElement[bool] = column.like(_like(text), escape="\\")
    return condition


def upsert(session: Session, table: Table, key: dict[str, Any], values: dict[str, Any]) -> None:
    """Update the row of ``key`` (locked first), or insert it when there is none."""
    conditions = [table.c[name] == value for name, value in key.items()]
    found = session.execute(
        select(*[table.c[name] for name in key]).where(*conditions).with_for_update()
    ).first()
    if found is None:
        session.execute(insert(table).values(**key, **values))
    else:
        session.execute(update(table).where(*conditions).values(**values))


class Replacing:
    """An INSERT whose rows replace the rows of the same ``key`` (a unique key of ``table``), every
    other column taken from the new row: one statement per dialect (``ON CONFLICT DO UPDATE``),
    built once, where a DELETE then an INSERT were two statements. A row that replaces another
    updates it in place, locked as the DELETE locked it; two writers inserting one new key do
    not fail on the unique key, the later one's row stays."""

    def __init__(self, table: Table, key: Sequence[str]) -> None:
        self.statements: dict[str, Insert] = {}
        for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite)):
            statement = dialect.insert(table)
            kept = {c.name: statement.excluded[c.name] for c in table.c if c.name not in key}
            self.statements[name] = statement.on_conflict_do_update(index_elements=list(key), set_=kept)

    def run(self, session: Session, rows: dict[str, Any] | list[dict[str, Any]]) -> None:
        """Store ``rows`` (no two with one key: a statement cannot replace a row twice)."""
        statement = self.statements[session.get_bind().dialect.name]
        session.connection().execute(statement, rows)


def rows_changed(result: Result[Any]) -> int:
    """How many rows the UPDATE or DELETE statement of ``result`` changed."""
    assert isinstance(result, CursorResult)  # an UPDATE or DELETE statement's result counts its rows
    return int(result.rowcount or 0)
