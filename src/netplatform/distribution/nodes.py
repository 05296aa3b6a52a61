"""This instance as a distribution node (spec 1.3): registration, heartbeat, who is up.

Every instance running distribution is a node named by ``NETPLATFORM_INSTANCE_NAME``, at site
``NETPLATFORM_SITE``, reached by other nodes and publishers at ``NETPLATFORM_NODE_URL``. It
registers when it starts, heartbeats every ``node_heartbeat_s`` and marks itself stopped on a
clean stop; a node whose heartbeat is older than ``node_down_after_s`` (or that stopped) is down.
At an edge on its own store (distribution/sites/) the other nodes are rows of central's
provisioning, whose heartbeats stay as they were at central's last provisioning change (a heartbeat
moves no generation): there another node is up unless it had stopped when last replicated, and
only central, where every node beats, knows which one went silent.
The heartbeat also sweeps this node's spooled files that lost their last delivery elsewhere (a
subscription deleted through another node), since only the holder may remove its blobs.
"""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass

import anyio

from ..access.platform import NODE, credential
from ..clock import now_ms
from ..settings import Settings
from ..store.blobs import BlobStore
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .repository import Repositories
from .repository.nodes import NodeRecord

log = logging.getLogger("netplatform.distribution.nodes")

_ALL_ADDRESSES = ("", "0.0.0.0", "::")  # noqa: S104 - recognised here, never bound


def default_node_url(settings: Settings) -> str:
    """scheme://host:port of the distribution listener (the host name when it listens everywhere)."""
    scheme = "https" if settings.tls_cert else "http"
    host = socket.getfqdn() if settings.host in _ALL_ADDRESSES else settings.host
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{settings.distribution_port}"


def node_identity(settings: Settings) -> tuple[str, str]:
    """The credentials this node presents to other nodes (forwarding): the platform's own
    ``svc.node``, whose password is derived from the platform key (access/platform.py), or
    ``NETPLATFORM_NODE_USER`` and ``NETPLATFORM_NODE_PASSWORD`` where the nodes do not share the
    key. Never a person's password. The receiving node requires ``platform.node`` of it."""
    user, password = settings.node_user, settings.node_password
    if bool(user) != bool(password):
        raise ValueError("NETPLATFORM_NODE_USER and NETPLATFORM_NODE_PASSWORD must be set together")
    return credential(settings, NODE, user, password)


@dataclass(frozen=True)
class NodeView:
    """A node as operators and routing see it."""

    record: NodeRecord
    up: bool


class NodeRegistry:
    def __init__(self, db: Database, blobs: BlobStore, settings: Settings) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.blobs = blobs
        self.name = settings.instance_name
        self.site = settings.site
        self.url = (settings.node_url or default_node_url(settings)).rstrip("/")
        self.heartbeat_s = settings.node_heartbeat_s
        self.down_after_ms = int(settings.node_down_after_s * 1000)
        self.edge = bool(settings.distribution_central_url)

    async def start(self) -> None:
        """Register this node (its heartbeat, :meth:`beat`, is a kernel job from then on)."""
        await anyio.to_thread.run_sync(self._register)
        log.info("distribution node %s of site %s at %s", self.name, self.site, self.url)

    async def stop(self) -> None:
        await anyio.to_thread.run_sync(self._mark_stopped)

    def _register(self) -> None:
        def work(repo: Repositories) -> int:
            repo.nodes.register(self.name, self.site, self.url, now_ms())
            return repo.queue.adopt_orphans(self.name, self.blobs.exists)

        adopted = self.unit.write(work, retry=False)
        if adopted:
            log.info("node %s adopted %d spooled files written before nodes existed", self.name, adopted)

    def _mark_stopped(self) -> None:
        self.unit.write(lambda repo: repo.nodes.mark_stopped(self.name, now_ms()), retry=False)

    def beat(self) -> None:
        """Say this node is alive, and delete the spooled files no row names any more."""

        def work(repo: Repositories) -> list[str]:
            repo.nodes.beat(self.name, now_ms())
            return repo.queue.sweep_unreferenced_files(self.name)

        for blob in self.unit.write(work, retry=False):
            self.blobs.delete(blob)

    # --- reading -------------------------------------------------------------------------------

    def nodes(self, site: str | None = None) -> list[NodeView]:
        records = self.unit.read(lambda repo: repo.nodes.all(site))
        moment = now_ms()
        return [self._view(record, moment) for record in records]

    def node(self, name: str) -> NodeView | None:
        record = self.unit.read(lambda repo: repo.nodes.find(name))
        return None if record is None else self._view(record, now_ms())

    def _view(self, record: NodeRecord, moment: int) -> NodeView:
        if self.edge and record.name != self.name:  # a replicated row: its heartbeat is not current
            return NodeView(record, record.stopped_ms is None)
        return NodeView(record, record.is_up(moment, self.down_after_ms))
