"""Central's provisioning as rows, and an edge's replica of it (distribution/sites/).

The replicated tables travel as they are stored: feeds (endpoint passwords as argon2 hashes),
subscriptions (delivery passwords sealed with the platform key, which every site holds), the
ingress and egress routes and the nodes (name, site, URL). An edge writes only what differs, so
its own generations move only for what changed (its replayed GET answers stand otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from ..tables import central, egress_routes, feeds, ingress_routes, nodes, subscriptions

Row = dict[str, Any]

# In the order an edge applies them (a subscription names its feed).
REPLICATED: dict[str, sa.Table] = {
    "feeds": feeds,
    "subscriptions": subscriptions,
    "ingressRoutes": ingress_routes,
    "egressRoutes": egress_routes,
    "nodes": nodes,
}
# Feeds and subscriptions are never removed (soft-deleted: queued deliveries and logs name
# them); a route or node central no longer has goes.
_KEPT = frozenset({"feeds", "subscriptions"})


def _keys(table: sa.Table) -> list[sa.Column[Any]]:
    return list(table.primary_key.columns)


def _key(table: sa.Table, row: Row) -> tuple[Any, ...]:
    return tuple(row[column.name] for column in table.primary_key.columns)


def _everyone(_: Row) -> bool:
    return True


def _not_named(name: str, row: Row) -> bool:
    """Not this node's own row: an edge keeps its own, central's copy of it lags."""
    return bool(row["name"] != name)


@dataclass(frozen=True)
class CentralState:
    generation: int
    synced_ms: int | None
    shipped_log_id: int


class ReplicationRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def snapshot(self) -> dict[str, list[Row]]:
        """Every replicated table's rows (central's side)."""
        execute = self.session.connection().execute
        return {
            name: [dict(row) for row in execute(sa.select(table).order_by(*_keys(table))).mappings()]
            for name, table in REPLICATED.items()
        }

    def newly_deleted(self, snapshot: dict[str, list[Row]]) -> list[int]:
        """The subscriptions live here that ``snapshot`` has deleted (their queued deliveries go)."""
        live = set(
            self.session.connection()
            .execute(sa.select(subscriptions.c.id).where(subscriptions.c.deleted.is_(False)))
            .scalars()
        )
        return sorted(
            row["id"] for row in snapshot.get("subscriptions", []) if row["deleted"] and row["id"] in live
        )

    def apply(self, snapshot: dict[str, list[Row]], own_node: str) -> int:
        """Make the local replicated rows central's (this node's own row excepted); rows changed."""
        changed = 0
        for name, table in REPLICATED.items():
            keep: Callable[[Row], bool] = _everyone
            if table is nodes:
                keep = partial(_not_named, own_node)
            rows = [row for row in snapshot.get(name, []) if keep(row)]
            changed += self._sync(table, rows, name in _KEPT, keep)
        return changed

    def _sync(self, table: sa.Table, rows: list[Row], kept: bool, mine: Callable[[Row], bool]) -> int:
        execute = self.session.connection().execute
        local = {_key(table, dict(row)): dict(row) for row in execute(sa.select(table)).mappings()}
        local = {key: row for key, row in local.items() if mine(row)}
        wanted = {_key(table, row): row for row in rows}
        columns = [column.name for column in table.columns]
        changed = 0
        for key, row in wanted.items():
            values = {column: row.get(column) for column in columns}
            if key not in local:
                execute(sa.insert(table).values(**values))
            elif local[key] != values:
                execute(sa.update(table).where(*self._where(table, key)).values(**values))
            else:
                continue
            changed += 1
        if not kept:
            for key in local.keys() - wanted.keys():
                execute(sa.delete(table).where(*self._where(table, key)))
                changed += 1
        return changed

    @staticmethod
    def _where(table: sa.Table, key: tuple[Any, ...]) -> list[sa.ColumnElement[bool]]:
        return [column == value for column, value in zip(table.primary_key.columns, key, strict=True)]

    # --- an edge's progress ------------------------------------------------------------------

    def state(self, source: str) -> CentralState | None:
        row = self.session.execute(sa.select(central).where(central.c.source == source)).mappings().first()
        if row is None:
            return None
        return CentralState(int(row["generation"]), row["synced_ms"], int(row["shipped_log_id"]))

    def record_sync(self, source: str, generation: int, synced_ms: int) -> None:
        self._upsert(source, generation=generation, synced_ms=synced_ms)

    def record_shipped(self, source: str, last_id: int) -> None:
        self._upsert(source, shipped_log_id=last_id)

    def _upsert(self, source: str, **values: Any) -> None:
        done = cast(
            CursorResult[Any],
            self.session.execute(sa.update(central).where(central.c.source == source).values(**values)),
        )
        if not done.rowcount:
            row = {"source": source, "generation": -1, "synced_ms": None, "shipped_log_id": 0, **values}
            self.session.execute(sa.insert(central).values(**row))
