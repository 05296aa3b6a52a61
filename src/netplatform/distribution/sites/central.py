"""Central's side of the sites: what edge nodes follow and send (``/internal/provisioning``,
``/internal/logs``, ``PUT /internal/nodes/{name}``), all held by ``platform.node``.

The provisioning feed is the whole replicated provisioning (feeds, subscriptions, routes, nodes:
repository/replication.py) at a generation: the sum of the provisioning scope's (feeds and
subscriptions, moved by triggers) and the network scope's (routes, moved by triggers; a node
registered or moved at central). Both only grow, so their sum moves on every change. A request
naming the generation the edge holds waits (a long poll) until it moves or ``wait`` passes; each
waiting request reads the two generations every :data:`POLL_S`, well inside the two seconds a
change may take to reach an edge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import anyio

from ...clock import now_ms
from ...store.db import Database
from ...store.generations import Ended, Generation, bump, read_at_one_generation, wait_past
from ...store.unit_of_work import UnitOfWork
from ..log_model import LogRecord
from ..repository import Repositories
from ..repository.replication import ReplicationRepository, Row
from ..tables import NETWORK_SCOPE, PROVISIONING_SCOPE, generations, network_generations

POLL_S = 0.2
MAX_WAIT_S = 30.0
MAX_SHIPPED = 1000
"""Log records one batch may carry."""


@dataclass(frozen=True)
class Announcement:
    """An edge node saying where it is (its heartbeat at central)."""

    name: str
    site: str
    url: str


class CentralSide:
    """What central serves its edges and takes from them."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.unit = UnitOfWork(db, Repositories)
        self.provisioned = Generation(db, generations, PROVISIONING_SCOPE)
        self.network = Generation(db, network_generations, NETWORK_SCOPE)

    def peek(self) -> int:
        return self.provisioned.peek() + self.network.peek()

    async def after(
        self, known: int, wait_s: float, ended: Ended | None = None
    ) -> tuple[int, dict[str, list[Row]] | None]:
        """(generation, the provisioning) once it is past ``known``; (generation, None) when it is
        not after ``wait_s`` seconds, or once ``ended`` says nobody waits."""
        current, moved = await wait_past(known, min(wait_s, MAX_WAIT_S), self._current, POLL_S, ended)
        if not moved:
            return current, None
        return await anyio.to_thread.run_sync(self._snapshot)

    async def _current(self) -> int:
        return await anyio.to_thread.run_sync(self.peek)

    def _snapshot(self) -> tuple[int, dict[str, list[Row]]]:
        """The provisioning as of one generation: read between two equal readings of it."""
        unit = UnitOfWork(self.db, ReplicationRepository)
        return read_at_one_generation(self.peek, lambda _: unit.read(lambda repo: repo.snapshot()))

    def announce(self, node: Announcement) -> None:
        """Register or refresh an edge node; a new node, or one whose site or URL changed, moves
        the network generation (the edges learn where it is)."""

        def work(repo: Repositories) -> None:
            known = repo.nodes.find(node.name)
            moment = now_ms()
            if known is None or (known.site, known.url, known.stopped_ms) != (node.site, node.url, None):
                repo.nodes.register(node.name, node.site, node.url, moment)
                bump(repo.session, network_generations, NETWORK_SCOPE)
            else:
                repo.nodes.beat(node.name, moment)

        self.unit.write(work)

    def take_logs(self, node: str, records: list[Any]) -> int:
        """The records an edge node shipped (``{"id": ..., **record}``); how many were new.
        ValueError when one is not a record."""
        shipped = [(_origin_id(item), LogRecord.from_shipped(item)) for item in records]
        return self.unit.write(lambda repo: repo.logs.take_shipped(node, shipped))


def _origin_id(item: Any) -> int:
    if not isinstance(item, dict) or not isinstance(item.get("id"), int) or item["id"] <= 0:
        raise ValueError("a shipped log record needs its positive integer id")
    return int(item["id"])
