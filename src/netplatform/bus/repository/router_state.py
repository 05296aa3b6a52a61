"""What the message routers still have to be told, and the outcome of telling them.

Outcomes are written compare-and-set on ``lastMod``: a change made here while the router was
being called (a PUT, a new client) wins, and its own provisioning pass follows.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update
from sqlalchemy.orm import Session

from ...clock import wire_now
from .. import tables
from ..schemas import MrClient, MrCluster, Status, WireModel
from .rows import CLIENTS, CLUSTERS, Kind, list_all


def clusters_in(session: Session, statuses: Collection[str]) -> list[MrCluster]:
    return list_all(session, CLUSTERS, tables.clusters.c.status.in_(list(statuses)))


def topics_to_provision(session: Session, statuses: Collection[str]) -> list[str]:
    """Topics in one of the statuses, or with a client in one of them or DELETED (to revoke)."""
    topics, clients = tables.topics, tables.clients
    by_topic = select(topics.c.fqtn).where(topics.c.status.in_(list(statuses))).order_by(topics.c.id)
    client_statuses = [*statuses, Status.DELETED.value]
    by_client = select(clients.c.fqtn).where(clients.c.status.in_(client_statuses)).order_by(clients.c.id)
    found = [*session.execute(by_topic).scalars(), *session.execute(by_client).scalars()]
    return list(dict.fromkeys(found))


def agents_in(session: Session, statuses: Collection[str]) -> list[str]:
    table = tables.mirror_makers
    query = select(table.c.mm_name).where(table.c.status.in_(list(statuses))).order_by(table.c.id)
    return list(session.execute(query).scalars())


def placed_clients(session: Session, fqtn: str) -> list[MrClient]:
    """The topic's clients, DELETED ones included (their grants are still to be revoked)."""
    return list_all(session, CLIENTS, tables.clients.c.fqtn == fqtn)


def set_outcome(
    session: Session, kind: Kind[Any], key: str, obj: WireModel, status: Status, reason: str | None
) -> bool:
    """Store status and reason unless the object changed since it was read; True when stored."""
    if obj.status == status.value and getattr(obj, "statusReason", None) == reason:
        return True
    table = kind.table
    seen = table.c.last_mod.is_(None) if obj.lastMod is None else table.c.last_mod == obj.lastMod
    result = session.execute(
        update(table)
        .where(table.c[kind.key] == key, seen)
        .values(status=status.value, status_reason=reason, last_mod=wire_now())
    )
    return bool(cast("CursorResult[Any]", result).rowcount)


def drop_deleted_client(session: Session, client_id: str) -> None:
    clients = tables.clients
    session.execute(
        delete(clients).where(clients.c.mr_client_id == client_id, clients.c.status == Status.DELETED.value)
    )


def mark_verified(session: Session, kind: Kind[Any], key: str, obj: WireModel) -> None:
    """Stamp ``lastVerified`` on a VALID object unless it changed since it was read (its
    ``lastMod`` stays: a verification is no change)."""
    table = kind.table
    seen = table.c.last_mod.is_(None) if obj.lastMod is None else table.c.last_mod == obj.lastMod
    session.execute(
        update(table)
        .where(table.c[kind.key] == key, seen, table.c.status == Status.VALID.value)
        .values(last_verified=wire_now())
    )


def valid_keys(session: Session, kind: Kind[Any]) -> list[str]:
    """The keys of a kind's VALID objects, in creation order (what the reconcile verifies)."""
    table = kind.table
    query = select(table.c[kind.key]).where(table.c.status == Status.VALID.value).order_by(table.c.id)
    return [str(key) for key in session.execute(query).scalars()]


def mark_new(session: Session, kind: Kind[Any]) -> None:
    """Every object of the kind is to be provisioned again (the next pass pushes it)."""
    session.execute(
        update(kind.table).values(status=Status.NEW.value, status_reason=None, last_mod=wire_now())
    )
