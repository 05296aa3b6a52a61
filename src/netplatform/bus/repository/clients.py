"""Message-router clients by topic and by site location, and the topics that may need bridges."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete

from .. import tables
from ..schemas import MrClient, Topic
from .rows import CLIENTS, TOPICS, RowRepository


class ClientRepository(RowRepository):
    def of_topic(self, fqtn: str) -> list[MrClient]:
        return self.list_all(CLIENTS, tables.clients.c.fqtn == fqtn)

    def at(self, location: str) -> list[MrClient]:
        return self.list_all(CLIENTS, tables.clients.c.svc_location_name == location)

    def by_topic(self, fqtns: Iterable[str] | None = None) -> dict[str, list[MrClient]]:
        """Clients grouped by fqtn, each group in creation order (all topics when ``fqtns`` is None)."""
        conditions = [] if fqtns is None else [tables.clients.c.fqtn.in_(list(fqtns))]
        grouped: dict[str, list[MrClient]] = {}
        for client in self.list_all(CLIENTS, *conditions):
            grouped.setdefault(client.fqtn or "", []).append(client)
        return grouped

    def delete_of_topic(self, fqtn: str) -> None:
        self.session.execute(delete(tables.clients).where(tables.clients.c.fqtn == fqtn))

    def replicated_topics(self) -> list[Topic]:
        """Topics whose replication case may need bridges (every case but NONE)."""
        column = tables.topics.c.replication_case
        return self.list_all(TOPICS, (column.is_(None)) | (column != "REPLICATION_NONE"))
