"""An edge node's side of the sites (``NETPLATFORM_DISTRIBUTION_CENTRAL_URL`` set): its own
database and spool; provisioning followed from central, logs shipped there.

- **Provisioning** (:meth:`CentralLink.follow`): a long poll of central's
  ``GET /internal/provisioning`` with the generation held; each new provisioning is written
  into the local tables in one transaction, as the difference (repository/replication.py), with
  the generation and the time central answered (``distribution_central``), so a node restarted
  while central is away starts and serves from its replica. A change at central reaches the edge
  within central's poll (0.2 s) and the write.
- **Where it is** (:meth:`CentralLink.announce`, every heartbeat): ``PUT /internal/nodes/{name}``
  at central with its site and URL, so central and the other edges can route to it.
- **Logs** (:meth:`CentralLink.ship`): the local records past the last one central took, in id
  order, in batches (``POST /internal/logs``); central takes each (node, id) once, so a batch sent
  again after a lost answer or a crash adds nothing, and after an outage shipping resumes where
  central's last answer left it. An edge's database is SQLite (one writer: ids commit in order).
- **Writes** (:class:`EdgeGuard`): feeds, subscriptions and routes are changed at central only;
  here they are refused with 409 naming central.

Publishing, forwarding, delivery, queues and logs stay local: while central is away the node
takes publishes for the feeds it knows and forwards to the nodes it knows (queued, retried with
the subscription's backoff until the link returns). It presents its node identity (``svc.node``
or ``NETPLATFORM_NODE_USER``: :func:`..nodes.node_identity`) to central, which requires
``platform.node``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import anyio
import httpx
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ...clock import now_ms
from ...settings import Settings
from ...store.blobs import BlobStore
from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ...web.errors import Conflict
from ...web.jobs import Job
from ..nodes import NodeRegistry, node_identity
from ..repository import Repositories
from ..repository.queue import QueueRepository
from ..repository.replication import ReplicationRepository, Row
from ..spec import SPEC

log = logging.getLogger("netplatform.distribution.sites")

PROVISIONING_PATH = "/internal/provisioning"
LOGS_PATH = "/internal/logs"
NODES_PATH = "/internal/nodes"
RETRY_S = 1.0
SHIP_BATCH = 500


class CentralError(Exception):
    """Central answered something other than what was asked."""


def _said(response: httpx.Response) -> str:
    return f"{response.status_code} {response.text[:200]}"


class CentralLink:
    """This edge node's link to central's provisioning."""

    def __init__(self, settings: Settings, db: Database, blobs: BlobStore, registry: NodeRegistry) -> None:
        if not settings.distribution_central_url:
            raise ValueError("an edge node needs NETPLATFORM_DISTRIBUTION_CENTRAL_URL")
        self.source = settings.distribution_central_url.rstrip("/")
        self.wait_s = settings.distribution_central_poll_s
        self.registry = registry
        self.blobs = blobs
        self.auth = httpx.BasicAuth(*node_identity(settings))
        self.verify: str | bool = str(settings.ca_bundle) if settings.ca_bundle else True
        self.unit = UnitOfWork(db, ReplicationRepository)
        self.logs = UnitOfWork(db, Repositories)

    def _client(self, timeout_s: float) -> httpx.AsyncClient:
        timeout = httpx.Timeout(timeout_s, connect=5)
        return httpx.AsyncClient(base_url=self.source, auth=self.auth, timeout=timeout, verify=self.verify)

    # --- provisioning --------------------------------------------------------------------------

    def generation(self) -> int:
        state = self.unit.read(lambda repo: repo.state(self.source))
        return -1 if state is None else state.generation

    async def follow(self, job: Job) -> None:
        """Follow central's provisioning until cancelled, reporting each pass on ``job``."""
        known = await anyio.to_thread.run_sync(self.generation)
        async with self._client(self.wait_s + 10) as client:
            while True:
                try:
                    known = await self._poll(client, known)
                except Exception as error:  # central away, a bad answer: counted, retried
                    job.failed(error)
                    if job.consecutive_failures == 1:
                        log.warning("%s does not answer (%r): serving from the replica", self.source, error)
                    await asyncio.sleep(RETRY_S)
                else:
                    if job.consecutive_failures:
                        log.info("%s answers again", self.source)
                    job.succeeded()

    async def _poll(self, client: httpx.AsyncClient, known: int) -> int:
        params = {"generation": str(known), "wait": f"{self.wait_s:g}"}
        response = await client.get(PROVISIONING_PATH, params=params)
        if response.status_code != 200:
            raise CentralError(f"GET {self.source}{PROVISIONING_PATH}: {_said(response)}")
        body = response.json()
        answered = now_ms()
        if not isinstance(body, dict) or not isinstance(body.get("generation"), int):
            raise CentralError(f"GET {self.source}{PROVISIONING_PATH} answered no generation")
        generation: int = body["generation"]
        provisioning = body.get("provisioning")
        if provisioning is not None and not isinstance(provisioning, dict):
            raise CentralError(f"GET {self.source}{PROVISIONING_PATH} answered no provisioning")
        await anyio.to_thread.run_sync(self._store, provisioning, generation, answered)
        return generation

    def _store(self, provisioning: dict[str, list[Row]] | None, generation: int, answered: int) -> None:
        """Write central's provisioning here; the deliveries queued for subscriptions it deleted
        go with them, as at central (and their files, once no other delivery needs them)."""

        def write(repo: ReplicationRepository) -> tuple[int, list[str]]:
            changed, unneeded = 0, []
            if provisioning is not None:
                deleted = repo.newly_deleted(provisioning)
                changed = repo.apply(provisioning, self.registry.name)
                unneeded = QueueRepository(repo.session).drop_deliveries(deleted, self.registry.name)
            repo.record_sync(self.source, generation, answered)
            return changed, unneeded

        changed, unneeded = self.unit.write(write)
        for blob in unneeded:
            self.blobs.delete(blob)
        if changed:
            log.info("provisioning replica of %s: generation %d, %d rows", self.source, generation, changed)

    # --- where this node is --------------------------------------------------------------------

    async def announce(self) -> None:
        body = {"site": self.registry.site, "url": self.registry.url}
        async with self._client(10) as client:
            response = await client.put(f"{NODES_PATH}/{self.registry.name}", json=body)
        if response.status_code != 200:
            raise CentralError(f"PUT {self.source}{NODES_PATH}: {_said(response)}")

    # --- logs ----------------------------------------------------------------------------------

    async def ship(self) -> int:
        """Ship every local record central has not taken yet; how many were sent."""
        sent = 0
        async with self._client(30) as client:
            while True:
                batch = await anyio.to_thread.run_sync(self._unshipped)
                if not batch:
                    return sent
                await self._send(client, batch)
                last = batch[-1]["id"]
                await anyio.to_thread.run_sync(self._shipped, last)
                sent += len(batch)
                if len(batch) < SHIP_BATCH:
                    return sent

    def _unshipped(self) -> list[dict[str, Any]]:
        state = self.unit.read(lambda repo: repo.state(self.source))
        after = 0 if state is None else state.shipped_log_id
        records = self.logs.read(lambda repo: repo.logs.after(after, SHIP_BATCH))
        return [{"id": origin, **record.shipped()} for origin, record in records]

    async def _send(self, client: httpx.AsyncClient, batch: list[dict[str, Any]]) -> None:
        response = await client.post(LOGS_PATH, json={"node": self.registry.name, "records": batch})
        if response.status_code != 200:
            raise CentralError(f"POST {self.source}{LOGS_PATH}: {_said(response)}")

    def _shipped(self, last_id: int) -> None:
        self.unit.write(lambda repo: repo.record_shipped(self.source, last_id))


# Provisioning writes: feeds (POST /, PUT/DELETE /feed/...), subscriptions (POST /subscribe/...,
# PUT/DELETE /subs/...) and routes (PUT/DELETE /internal/route/...).
_PROVISIONING_PREFIXES = ("/feed/", "/subscribe/", "/subs/", "/internal/route/")


def is_provisioning_write(method: str, path: str) -> bool:
    if method in ("GET", "HEAD", "OPTIONS"):
        return False
    return path == "/" or path.startswith(_PROVISIONING_PREFIXES)


class EdgeGuard:
    """At an edge node, changes to provisioning go to central: 409, naming it."""

    def __init__(self, app: ASGIApp, *, source: str) -> None:
        self.app = app
        self.source = source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and is_provisioning_write(scope["method"], scope["path"]):
            message = (
                f"This node's provisioning is a replica of {self.source}: make the change there"
                " (it reaches this node within seconds)"
            )
            response = SPEC.render_error(Request(scope), Conflict(message))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
