"""The config tree's queries: the only module that talks to the database.

Documents are stored as JSON text (ASCII, so any string a client sends survives both databases);
entries are found by a digest of their keys, so a key of any length is indexable. Callers that
read in order to rewrite pass ``for_update=True`` (``SELECT ... FOR UPDATE`` on PostgreSQL;
SQLite write transactions are serialised already).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ..store.unit_of_work import UnitOfWork
from .tables import containers, entries

Document = dict[str, Any]


class TreeRepository:
    """Rows of the config tree, within the caller's session (one transaction)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    # --- containers ----------------------------------------------------------------------

    def container(self, name: str, *, for_update: bool = False) -> Document | None:
        query = sa.select(containers.c.document).where(containers.c.name == name)
        text = self.session.execute(query.with_for_update() if for_update else query).scalar_one_or_none()
        return None if text is None else json.loads(text)

    def ensure_container(self, name: str) -> None:
        """Record that the container exists (a no-op when it does; concurrent callers never clash)."""
        insert = _dialect_insert(self.session)(containers).values(name=name, document="{}")
        self.session.execute(insert.on_conflict_do_nothing(index_elements=[containers.c.name]))

    def insert_container(self, name: str, document: Document) -> None:
        """Add a container row; raises IntegrityError when a concurrent writer added it first."""
        self.session.execute(sa.insert(containers).values(name=name, document=_dumps(document)))

    def update_container(self, name: str, document: Document) -> None:
        self.session.execute(
            sa.update(containers).where(containers.c.name == name).values(document=_dumps(document))
        )

    def delete_container(self, name: str) -> bool:
        result = self.session.execute(sa.delete(containers).where(containers.c.name == name))
        return _deleted_any(result)

    # --- entries ---------------------------------------------------------------------------

    def entry(
        self, container: str, list_name: str, keys: Sequence[Any], *, for_update: bool = False
    ) -> Document | None:
        query = sa.select(entries.c.document).where(*_entry_is(container, list_name, keys))
        text = self.session.execute(query.with_for_update() if for_update else query).scalar_one_or_none()
        return None if text is None else json.loads(text)

    def entries(self, container: str, list_name: str) -> list[Document]:
        """Every entry of a list, oldest first."""
        query = (
            sa.select(entries.c.document)
            .where(entries.c.container == container, entries.c.list == list_name)
            .order_by(entries.c.id)
        )
        return [json.loads(text) for text in self.session.execute(query).scalars()]

    def has_entries(self, container: str) -> bool:
        query = sa.select(entries.c.id).where(entries.c.container == container).limit(1)
        return self.session.execute(query).first() is not None

    def insert_entry(self, container: str, list_name: str, keys: Sequence[Any], document: Document) -> None:
        """Add an entry; raises IntegrityError when a concurrent writer added the same keys first."""
        key_text = _key_text(keys)
        self.session.execute(
            sa.insert(entries).values(
                container=container,
                list=list_name,
                key_digest=_digest(key_text),
                key_text=key_text,
                document=_dumps(document),
            )
        )

    def update_entry(self, container: str, list_name: str, keys: Sequence[Any], document: Document) -> None:
        self.session.execute(
            sa.update(entries).where(*_entry_is(container, list_name, keys)).values(document=_dumps(document))
        )

    def delete_entry(self, container: str, list_name: str, keys: Sequence[Any]) -> bool:
        result = self.session.execute(sa.delete(entries).where(*_entry_is(container, list_name, keys)))
        return _deleted_any(result)

    def delete_entries(self, container: str) -> None:
        self.session.execute(sa.delete(entries).where(entries.c.container == container))


class EntryReader:
    """One list entry's document, read by one statement outside any transaction (the config
    tree's hot GET: a node in one entry is in that entry's row alone)."""

    def __init__(self, unit: UnitOfWork[Any]) -> None:
        self.query = unit.statement(
            sa.select(entries.c.document).where(
                entries.c.container == sa.bindparam("container"),
                entries.c.list == sa.bindparam("list_name"),
                entries.c.key_digest == sa.bindparam("digest"),
            ),
        )

    def entry(self, container: str, list_name: str, keys: Sequence[Any]) -> Document | None:
        rows = self.query.rows(container=container, list_name=list_name, digest=_digest(_key_text(keys)))
        return json.loads(rows[0][0]) if rows else None


def _entry_is(container: str, list_name: str, keys: Sequence[Any]) -> list[sa.ColumnElement[bool]]:
    return [
        entries.c.container == container,
        entries.c.list == list_name,
        entries.c.key_digest == _digest(_key_text(keys)),
    ]


def entry_object(container: str, list_name: str, keys: Sequence[Any]) -> str:
    """An entry's key in the tree's change log, as the triggers of migration configtree_0003
    record it from the entry's row."""
    return f"entry:{container}|{list_name}|{_digest(_key_text(keys))}"


def _key_text(keys: Sequence[Any]) -> str:
    return json.dumps(list(keys), separators=(",", ":"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _dumps(document: Document) -> str:
    return json.dumps(document, separators=(",", ":"))


def _dialect_insert(session: Session) -> Any:
    """INSERT with ON CONFLICT support for the session's database (both dialects have it)."""
    return postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert


def _deleted_any(result: sa.Result[Any]) -> bool:
    """Whether a DELETE removed a row (a DELETE's result is a cursor result with a row count)."""
    return bool(cast("sa.CursorResult[Any]", result).rowcount)
