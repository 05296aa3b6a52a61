"""What the message routers still have to be told, and the outcome of telling them.

Outcomes are written compare-and-set on ``lastMod``: a change made here while the router was
being called (a PUT, a new client) wins, and its own provisioning pass follows.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, cast

from sqlalchemy import CursorResult, delete, select, update

from ...clock import wire_now
from .. import tables
from ..schemas import MrClient, MrCluster, Status, WireModel
from .rows import CLIENTS, CLUSTERS, Kind, RowRepository


class RouterStateRepository(RowRepository):
    def clusters_in(self, statuses: Collection[str]) -> list[MrCluster]:
        return self.list_all(CLUSTERS, tables.clusters.c.status.in_(list(statuses)))

    def topics_to_provision(self, statuses: Collection[str]) -> list[str]:
        """Topics in one of the statuses, or with a client in one of them or DELETED (to revoke)."""
        topics, clients = tables.topics, tables.clients
        by_topic = select(topics.c.fqtn).where(topics.c.status.in_(list(statuses))).order_by(topics.c.id)
        client_statuses = [*statuses, Status.DELETED.value]
        by_client = select(clients.c.fqtn).where(clients.c.status.in_(client_statuses)).order_by(clients.c.id)
        found = [*self.session.execute(by_topic).scalars(), *self.session.execute(by_client).scalars()]
        return list(dict.fromkeys(found))

    def agents_in(self, statuses: Collection[str]) -> list[str]:
        table = tables.mirror_makers
        query = select(table.c.mm_name).where(table.c.status.in_(list(statuses))).order_by(table.c.id)
        return list(self.session.execute(query).scalars())

    def placed_clients(self, fqtn: str) -> list[MrClient]:
        """The topic's clients, DELETED ones included (their grants are still to be revoked)."""
        return self.list_all(CLIENTS, tables.clients.c.fqtn == fqtn)

    def set_outcome(
        self, kind: Kind[Any], key: str, obj: WireModel, status: Status, reason: str | None
    ) -> bool:
        """Store status and reason unless the object changed since it was read; True when stored."""
        if obj.status == status.value and getattr(obj, "statusReason", None) == reason:
            return True
        table = kind.table
        seen = table.c.last_mod.is_(None) if obj.lastMod is None else table.c.last_mod == obj.lastMod
        result = self.session.execute(
            update(table)
            .where(table.c[kind.key] == key, seen)
            .values(status=status.value, status_reason=reason, last_mod=wire_now())
        )
        return bool(cast("CursorResult[Any]", result).rowcount)

    def drop_deleted_client(self, client_id: str) -> None:
        clients = tables.clients
        self.session.execute(
            delete(clients).where(
                clients.c.mr_client_id == client_id, clients.c.status == Status.DELETED.value
            )
        )

    def mark_verified(self, kind: Kind[Any], key: str, obj: WireModel) -> None:
        """Stamp ``lastVerified`` on a VALID object unless it changed since it was read (its
        ``lastMod`` stays: a verification is no change)."""
        table = kind.table
        seen = table.c.last_mod.is_(None) if obj.lastMod is None else table.c.last_mod == obj.lastMod
        self.session.execute(
            update(table)
            .where(table.c[kind.key] == key, seen, table.c.status == Status.VALID.value)
            .values(last_verified=wire_now())
        )

    def valid_keys(self, kind: Kind[Any]) -> list[str]:
        """The keys of a kind's VALID objects, in creation order (what the reconcile verifies)."""
        return self.keys_in(kind, (Status.VALID.value,))

    def keys_in(self, kind: Kind[Any], statuses: Collection[str]) -> list[str]:
        """The keys of a kind's objects in one of ``statuses``, in creation order."""
        table = kind.table
        query = select(table.c[kind.key]).where(table.c.status.in_(list(statuses))).order_by(table.c.id)
        return [str(key) for key in self.session.execute(query).scalars()]

    def mark_new(self, kind: Kind[Any]) -> None:
        """Every object of the kind is to be provisioned again (the next pass pushes it)."""
        self.session.execute(
            update(kind.table).values(status=Status.NEW.value, status_reason=None, last_mod=wire_now())
        )
