"""Message-router clients by topic and by site location, and the topics that may need bridges."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete
from sqlalchemy.orm import Session

from .. import tables
from ..schemas import MrClient, Topic
from .rows import CLIENTS, TOPICS, list_all


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
