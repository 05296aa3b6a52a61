"""Queries: the only module of the bus controller that talks to the database.

Rows map to wire models mechanically (column = snake case of the field name), through a
:class:`Kind` per table. Functions take the session of the caller's transaction, so one
request's reads and writes commit (or roll back) together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

from sqlalchemy import Table, delete, func, insert, select, update
from sqlalchemy.engine import Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from . import tables
from .schemas import (
    BusSettings,
    DrNode,
    DrPub,
    DrSub,
    Feed,
    MirrorMaker,
    MrClient,
    MrCluster,
    SvcLocation,
    Topic,
    WireModel,
)

M = TypeVar("M", bound=WireModel)


class Duplicate(Exception):
    """Another object already holds this unique key (possibly inserted concurrently)."""


@dataclass(frozen=True)
class Kind(Generic[M]):
    """One table, the column that is its natural key, and the wire model of its rows."""

    table: Table
    key: str
    model: type[M]


LOCATIONS = Kind(tables.locations, "svc_location_name", SvcLocation)
DR_NODES = Kind(tables.dr_nodes, "fqdn", DrNode)
CLUSTERS = Kind(tables.clusters, "svc_location_name", MrCluster)
TOPICS = Kind(tables.topics, "fqtn", Topic)
CLIENTS = Kind(tables.clients, "mr_client_id", MrClient)
MIRROR_MAKERS = Kind(tables.mirror_makers, "mm_name", MirrorMaker)
FEEDS = Kind(tables.feeds, "feed_id", Feed)
PUBS = Kind(tables.pubs, "pub_id", DrPub)
SUBS = Kind(tables.subs, "sub_id", DrSub)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


@cache
def _mapping(model: type[WireModel], table: Table) -> tuple[tuple[str, str], ...]:
    """(field, column) pairs of the model's fields that the table stores."""
    return tuple((field, _snake(field)) for field in model.model_fields if _snake(field) in table.c)


def to_model(kind: Kind[M], row: Row[Any]) -> M:
    values = row._mapping
    return kind.model.model_validate(
        {field: values[column] for field, column in _mapping(kind.model, kind.table)}
    )


def to_values(kind: Kind[M], obj: M) -> dict[str, Any]:
    return {column: getattr(obj, field) for field, column in _mapping(kind.model, kind.table)}


# --- generic access by natural key ----------------------------------------------------------


def get(session: Session, kind: Kind[M], key: str, *, for_update: bool = False) -> M | None:
    query = select(kind.table).where(kind.table.c[kind.key] == key)
    if for_update:
        query = query.with_for_update()
    row = session.execute(query).first()
    return to_model(kind, row) if row else None


def list_all(session: Session, kind: Kind[M], *conditions: Any) -> list[M]:
    query = select(kind.table).where(*conditions).order_by(kind.table.c.id)
    return [to_model(kind, row) for row in session.execute(query)]


def insert_object(session: Session, kind: Kind[M], obj: M, **extra: Any) -> int:
    """Insert and return the surrogate id; :class:`Duplicate` when the natural key is taken."""
    try:
        with session.begin_nested():
            result = session.execute(insert(kind.table).values(**to_values(kind, obj), **extra))
    except IntegrityError as error:
        raise Duplicate(str(error.orig)) from error
    return int(result.inserted_primary_key[0])


def update_object(session: Session, kind: Kind[M], key: str, obj: M, **extra: Any) -> None:
    values = to_values(kind, obj)
    values.pop(kind.key, None)
    session.execute(update(kind.table).where(kind.table.c[kind.key] == key).values(**values, **extra))


def delete_object(session: Session, kind: Kind[M], key: str) -> bool:
    result = session.execute(delete(kind.table).where(kind.table.c[kind.key] == key))
    return bool(result.rowcount)


# --- bus settings: the singleton row ---------------------------------------------------------


def bus_settings(session: Session, *, for_update: bool = False) -> BusSettings:
    """The settings object; ``for_update`` also takes the lock every message-router write holds."""
    query = select(tables.settings_table).where(tables.settings_table.c.id == 1)
    if for_update:
        query = query.with_for_update()
    row = session.execute(query).one()
    return BusSettings.model_validate(
        {field: row._mapping[column] for field, column in _mapping(BusSettings, tables.settings_table)}
    )


def save_bus_settings(session: Session, settings: BusSettings) -> None:
    values = {
        column: getattr(settings, field) for field, column in _mapping(BusSettings, tables.settings_table)
    }
    session.execute(update(tables.settings_table).where(tables.settings_table.c.id == 1).values(**values))


def next_client_id(session: Session, now_ms: int) -> str:
    """Epoch milliseconds, strictly increasing (bumped when equal); call holding the bus lock."""
    table = tables.settings_table
    last = session.execute(select(table.c.last_client_id).where(table.c.id == 1)).scalar_one()
    chosen = max(now_ms, int(last) + 1)
    session.execute(update(table).where(table.c.id == 1).values(last_client_id=chosen))
    return str(chosen)


# --- message-router clients ------------------------------------------------------------------


def clients_of_topic(session: Session, fqtn: str) -> list[MrClient]:
    return list_all(session, CLIENTS, tables.clients.c.fqtn == fqtn)


def clients_at(session: Session, location: str) -> list[MrClient]:
    return list_all(session, CLIENTS, tables.clients.c.svc_location_name == location)


def clients_by_topic(session: Session, fqtns: Iterable[str] | None = None) -> dict[str, list[MrClient]]:
    """Clients grouped by fqtn, each group in creation order (all topics when ``fqtns`` is None)."""
    conditions = [] if fqtns is None else [tables.clients.c.fqtn.in_(list(fqtns))]
    grouped: dict[str, list[MrClient]] = {}
    for client in list_all(session, CLIENTS, *conditions):
        grouped.setdefault(client.fqtn or "", []).append(client)
    return grouped


def delete_clients_of_topic(session: Session, fqtn: str) -> None:
    session.execute(delete(tables.clients).where(tables.clients.c.fqtn == fqtn))


def replicated_topics(session: Session) -> list[Topic]:
    """Topics whose replication case may need bridges (every case but NONE)."""
    column = tables.topics.c.replication_case
    return list_all(session, TOPICS, (column.is_(None)) | (column != "REPLICATION_NONE"))


def count_topics(session: Session) -> int:
    return int(session.execute(select(func.count()).select_from(tables.topics)).scalar_one())


# --- mirror makers ----------------------------------------------------------------------------


def save_mirror_maker(session: Session, agent: MirrorMaker, *, is_new: bool) -> None:
    if is_new:
        insert_object(session, MIRROR_MAKERS, agent)
    else:
        update_object(session, MIRROR_MAKERS, agent.mmName or "", agent)
