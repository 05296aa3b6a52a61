"""Queries: the only module of the bus controller that talks to the database.

Rows map to wire models mechanically (column = snake case of the field name), through a
:class:`Kind` per table. Functions take the session of the caller's transaction, so one
request's reads and writes commit (or roll back) together.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Generic, TypeVar

from sqlalchemy import Table, Text, and_, cast, delete, func, insert, or_, select, text, update
from sqlalchemy.engine import Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..store.db import Database
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


def agents_of_pairs(session: Session, pairs: Iterable[tuple[str, str]]) -> list[MirrorMaker]:
    """The agents bridging any of the (source, target) cluster pairs."""
    table = tables.mirror_makers
    wanted = [and_(table.c.source_cluster == s, table.c.target_cluster == t) for s, t in pairs]
    return list_all(session, MIRROR_MAKERS, or_(*wanted)) if wanted else []


def agents_holding(session: Session, fqtn: str) -> list[MirrorMaker]:
    """The agents whose whitelist holds the fqtn (a text prefilter, then an exact check)."""
    table = tables.mirror_makers
    quoted = json.dumps(fqtn)
    candidates = list_all(
        session, MIRROR_MAKERS, cast(table.c.topics, Text).contains(quoted, autoescape=True)
    )
    return [agent for agent in candidates if fqtn in (agent.topics or [])]


def save_mirror_maker(session: Session, agent: MirrorMaker, *, is_new: bool) -> None:
    if is_new:
        insert_object(session, MIRROR_MAKERS, agent)
    else:
        update_object(session, MIRROR_MAKERS, agent.mmName or "", agent)


# --- feeds, publishers, subscribers --------------------------------------------------------------


@dataclass
class Held(Generic[M]):
    """An object and its row id (None until it is stored)."""

    obj: M
    ref: int | None = None


@dataclass
class FeedState:
    """A feed with its publishers and subscribers, as one unit of provisioning."""

    ref: int
    feed: Feed
    pubs: list[Held[DrPub]] = field(default_factory=list)
    subs: list[Held[DrSub]] = field(default_factory=list)
    dropped_pubs: list[int] = field(default_factory=list)
    dropped_subs: list[int] = field(default_factory=list)

    def assembled(self) -> Feed:
        """The feed as the wire shows it: its publishers and subscribers, each with the feedId."""
        feed = self.feed.model_copy()
        feed.pubs = [held.obj.model_copy(update={"feedId": feed.feedId}) for held in self.pubs]
        feed.subs = [held.obj.model_copy(update={"feedId": feed.feedId}) for held in self.subs]
        return feed


def _held_feed(row: Row[Any]) -> Held[Feed]:
    return Held(to_model(FEEDS, row), int(row.id))


def find_feed(session: Session, name: str, version: str) -> Held[Feed] | None:
    table = tables.feeds
    row = session.execute(
        select(table).where(table.c.feed_name == name, table.c.feed_version == version)
    ).first()
    return _held_feed(row) if row else None


def feed_by_id(session: Session, feed_id: str) -> Held[Feed] | None:
    row = session.execute(select(tables.feeds).where(tables.feeds.c.feed_id == feed_id)).first()
    return _held_feed(row) if row else None


def feeds_named(session: Session, name: str, version: str | None) -> list[Held[Feed]]:
    table = tables.feeds
    conditions = [table.c.feed_name == name]
    if version is not None:
        conditions.append(table.c.feed_version == version)
    return [_held_feed(row) for row in session.execute(select(table).where(*conditions).order_by(table.c.id))]


def feed_ref_of_pub(session: Session, pub_id: str) -> int | None:
    found = session.execute(select(tables.pubs.c.feed_ref).where(tables.pubs.c.pub_id == pub_id)).scalar()
    return int(found) if found is not None else None


def feed_ref_of_sub(session: Session, sub_id: str) -> int | None:
    found = session.execute(select(tables.subs.c.feed_ref).where(tables.subs.c.sub_id == sub_id)).scalar()
    return int(found) if found is not None else None


def load_feed_state(session: Session, ref: int) -> FeedState | None:
    row = session.execute(select(tables.feeds).where(tables.feeds.c.id == ref)).first()
    if row is None:
        return None
    pubs = session.execute(
        select(tables.pubs).where(tables.pubs.c.feed_ref == ref).order_by(tables.pubs.c.id)
    )
    subs = session.execute(
        select(tables.subs).where(tables.subs.c.feed_ref == ref).order_by(tables.subs.c.id)
    )
    return FeedState(
        ref=ref,
        feed=to_model(FEEDS, row),
        pubs=[Held(to_model(PUBS, pub), int(pub.id)) for pub in pubs],
        subs=[Held(to_model(SUBS, sub), int(sub.id)) for sub in subs],
    )


def feed_states(session: Session, conditions: Iterable[Any] = ()) -> list[FeedState]:
    """Every feed matching the conditions, with its publishers and subscribers (three queries)."""
    feeds_found = session.execute(select(tables.feeds).where(*conditions).order_by(tables.feeds.c.id))
    states = {int(row.id): FeedState(int(row.id), to_model(FEEDS, row)) for row in feeds_found}
    if not states:
        return []
    refs = list(states)
    for pub in session.execute(
        select(tables.pubs).where(tables.pubs.c.feed_ref.in_(refs)).order_by(tables.pubs.c.id)
    ):
        states[int(pub.feed_ref)].pubs.append(Held(to_model(PUBS, pub), int(pub.id)))
    for sub in session.execute(
        select(tables.subs).where(tables.subs.c.feed_ref.in_(refs)).order_by(tables.subs.c.id)
    ):
        states[int(sub.feed_ref)].subs.append(Held(to_model(SUBS, sub), int(sub.id)))
    return list(states.values())


def feed_name_condition(name: str | None, version: str | None, match: str | None) -> list[Any]:
    """GET /feeds filters: name exact, ``startsWith`` or ``contains``; version exact."""
    table = tables.feeds
    conditions: list[Any] = []
    if name is not None:
        if match == "startsWith":
            conditions.append(table.c.feed_name.startswith(name, autoescape=True))
        elif match == "contains":
            conditions.append(table.c.feed_name.contains(name, autoescape=True))
        else:
            conditions.append(table.c.feed_name == name)
    if version is not None:
        conditions.append(table.c.feed_version == version)
    return conditions


def insert_feed(session: Session, state: FeedState) -> int:
    """Store a new feed with its publishers and subscribers; :class:`Duplicate` on name+version."""
    state.ref = insert_object(session, FEEDS, state.feed)
    save_feed_state(session, state)
    return state.ref


def save_feed_state(session: Session, state: FeedState) -> None:
    session.execute(
        update(tables.feeds).where(tables.feeds.c.id == state.ref).values(**to_values(FEEDS, state.feed))
    )
    _save_members(session, PUBS, state.ref, state.pubs, state.dropped_pubs)
    _save_members(session, SUBS, state.ref, state.subs, state.dropped_subs)
    state.dropped_pubs, state.dropped_subs = [], []


def _save_members(
    session: Session, kind: Kind[M], feed_ref: int, members: list[Held[M]], dropped: list[int]
) -> None:
    table = kind.table
    if dropped:
        session.execute(delete(table).where(table.c.id.in_(dropped)))
    for held in members:
        values = to_values(kind, held.obj)
        if held.ref is None:
            held.ref = int(
                session.execute(insert(table).values(**values, feed_ref=feed_ref)).inserted_primary_key[0]
            )
        else:
            session.execute(update(table).where(table.c.id == held.ref).values(**values))


def delete_feed_row(session: Session, ref: int) -> None:
    session.execute(delete(tables.pubs).where(tables.pubs.c.feed_ref == ref))
    session.execute(delete(tables.subs).where(tables.subs.c.feed_ref == ref))
    session.execute(delete(tables.feeds).where(tables.feeds.c.id == ref))


def first_central_location(session: Session) -> str | None:
    for location in list_all(session, LOCATIONS):
        if location.central:
            return location.svcLocationName
    return None


# --- one provisioning sequence per feed at a time ----------------------------------------------

_FEED_LOCK_CLASS = 0x6275  # "bu": the bus controller's advisory-lock namespace
_local_feed_locks = [threading.Lock() for _ in range(64)]
# Each PostgreSQL feed lock holds a pooled connection while its holder needs another for its
# transactions; capping the holders keeps the pool from filling with lock connections only.
_advisory_lock_slots = threading.BoundedSemaphore(4)


@contextmanager
def feed_lock(database: Database, ref: int) -> Iterator[None]:
    """Serialise the provisioning of one feed (a sequence of HTTP calls and short transactions).

    No database transaction is held while the distribution service is called (on SQLite that
    would block the very service being called). PostgreSQL: a session advisory lock, shared by
    every instance. SQLite: an in-process lock (SQLite is a single-host store).
    """
    if database.is_postgresql:
        with _advisory_lock_slots, database.engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:c, :k)"), {"c": _FEED_LOCK_CLASS, "k": ref})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(
                    text("SELECT pg_advisory_unlock(:c, :k)"), {"c": _FEED_LOCK_CLASS, "k": ref}
                )
                connection.commit()
        return
    with _local_feed_locks[ref % len(_local_feed_locks)]:
        yield
