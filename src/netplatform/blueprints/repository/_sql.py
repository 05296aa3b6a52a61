"""SQL helpers the repository modules share: substring search on lower-cased text, keyed upsert,
the count of rows a statement changed."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, CursorResult, Result, Table, insert, select, update
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


def rows_changed(result: Result[Any]) -> int:
    """How many rows the UPDATE or DELETE statement of ``result`` changed."""
    assert isinstance(result, CursorResult)  # an UPDATE or DELETE statement's result counts its rows
    return int(result.rowcount or 0)
