"""Nodes (spec 1.3): every instance running distribution, its site, URL and heartbeat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from ..tables import nodes


@dataclass(frozen=True)
class NodeRecord:
    name: str
    site: str
    url: str
    started_ms: int
    heartbeat_ms: int
    stopped_ms: int | None

    def is_up(self, now_ms: int, down_after_ms: int) -> bool:
        """Up: started and not stopped, with a heartbeat younger than ``down_after_ms``."""
        return self.stopped_ms is None and now_ms - self.heartbeat_ms <= down_after_ms


class NodeRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def register(self, name: str, site: str, url: str, now_ms: int) -> None:
        """Insert or refresh the node's row (a restart may change its site or URL)."""
        values = {"site": site, "url": url, "started_ms": now_ms, "heartbeat_ms": now_ms, "stopped_ms": None}
        updated = cast(
            CursorResult[Any],
            self.session.execute(sa.update(nodes).where(nodes.c.name == name).values(**values)),
        )
        if updated.rowcount == 0:
            self.session.execute(sa.insert(nodes).values(name=name, **values))

    def beat(self, name: str, now_ms: int) -> None:
        self.session.execute(sa.update(nodes).where(nodes.c.name == name).values(heartbeat_ms=now_ms))

    def mark_stopped(self, name: str, now_ms: int) -> None:
        self.session.execute(sa.update(nodes).where(nodes.c.name == name).values(stopped_ms=now_ms))

    def find(self, name: str) -> NodeRecord | None:
        row = self.session.execute(sa.select(nodes).where(nodes.c.name == name)).mappings().first()
        return _node(row) if row else None

    def all(self, site: str | None = None) -> list[NodeRecord]:
        query = sa.select(nodes).order_by(nodes.c.site, nodes.c.name)
        if site is not None:
            query = query.where(nodes.c.site == site)
        return [_node(row) for row in self.session.execute(query).mappings()]


def _node(row: Any) -> NodeRecord:
    return NodeRecord(
        name=row["name"],
        site=row["site"],
        url=row["url"],
        started_ms=row["started_ms"],
        heartbeat_ms=row["heartbeat_ms"],
        stopped_ms=row["stopped_ms"],
    )
