"""Authorization from a central site: this site's directory is a replica of the central one,
followed over HTTP, and every decision here is still taken locally, from the local tables.

The central authz service serves its directory (identities with their argon2 hashes, roles,
their permissions, memberships) at ``GET /internal/directory`` with the generation it is a copy
of; a request naming the generation it already has waits (a long poll) until the directory
changes or ``wait`` seconds pass. An instance with ``NETPLATFORM_AUTHZ_URL`` set follows it:
each new directory is written into the local tables in one transaction, as the difference to
what they hold, so the local generation moves and every instance of the site forgets its
remembered decisions within the kernel's refresh time (access/directory.py). A grant, revoke,
membership or password change made at central so applies at a connected site within about a
second.

While central does not answer, the site goes on deciding from its replica for
``NETPLATFORM_AUTHZ_OFFLINE_S``, counted from the last time central answered (kept in the local
table ``authz_replica``, so a restarted instance knows the replica's age without central); past
that, every request that needs a decision is answered 503. Writes stay central: the authz API of
a replica site refuses them, naming where they go.

The site presents its own identity to central: ``NETPLATFORM_AUTHZ_USER`` / ``_PASSWORD``, by
default the platform identity ``svc.node`` (access/platform.py), whose credential every site
that holds the platform key derives alike.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, cast

import anyio
import httpx
from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import CursorResult, delete, insert, select, update
from sqlalchemy.orm import Session

from ..clock import now_ms
from ..settings import Settings
from ..store.db import Database
from ..store.generations import read_at_one_generation
from ..store.unit_of_work import UnitOfWork
from . import tables
from .platform import NODE, credential

log = logging.getLogger("netplatform.access.replica")

FEED_PATH = "/internal/directory"
MAX_WAIT_S = 30.0
RETRY_S = 1.0
# A source that has not answered for a long poll's wait and this much more is away.
AWAY_AFTER_S = 10.0

Grant = tuple[str, str, str, str]  # role, type, instance, action
Member = tuple[str, str]  # identity, role


@dataclass(frozen=True)
class Snapshot:
    """The directory at one generation of its source."""

    generation: int
    identities: dict[str, tuple[str, int]]  # id -> (argon2 hash, created ms)
    roles: dict[str, str]  # name -> description
    grants: frozenset[Grant]
    memberships: dict[Member, int | None]  # -> expires ms

    def as_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation,
            "identities": [
                {"id": name, "passwordHash": hashed, "created": created}
                for name, (hashed, created) in sorted(self.identities.items())
            ],
            "roles": [{"name": name, "description": text} for name, text in sorted(self.roles.items())],
            "grants": [
                dict(zip(("role", "type", "instance", "action"), grant, strict=True))
                for grant in sorted(self.grants)
            ],
            "memberships": [
                {"identity": identity, "role": role, "expires": expires}
                for (identity, role), expires in sorted(self.memberships.items())
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> Snapshot:
        """The snapshot a source answered; ValueError when it is not one."""
        try:
            return cls(
                generation=int(data["generation"]),
                identities={
                    str(i["id"]): (str(i["passwordHash"]), int(i["created"])) for i in data["identities"]
                },
                roles={str(r["name"]): str(r["description"]) for r in data["roles"]},
                grants=frozenset(
                    (str(g["role"]), str(g["type"]), str(g["instance"]), str(g["action"]))
                    for g in data["grants"]
                ),
                memberships={
                    (str(m["identity"]), str(m["role"])): None if m["expires"] is None else int(m["expires"])
                    for m in data["memberships"]
                },
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a directory snapshot: {error!r}") from None


class PassReport(Protocol):
    """What a follower reports each pass on: the kernel's record of its job (web/jobs.py
    ``Job``, which runs it as ``jobs.loop("authz-replica", replica.follow)``)."""

    def succeeded(self) -> None: ...

    def failed(self, error: BaseException) -> None: ...


class ReplicaRepository:
    """The directory's rows as a whole, and the replica's own state row."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def snapshot(self, generation: int) -> Snapshot:
        execute = self.session.execute
        identities = tables.identities
        grants = tables.role_permissions
        members = tables.memberships
        return Snapshot(
            generation=generation,
            identities={
                row.id: (row.password_hash, row.created)
                for row in execute(select(identities.c.id, identities.c.password_hash, identities.c.created))
            },
            roles={row.name: row.description for row in execute(select(tables.roles))},
            grants=frozenset(
                (row.role, row.type, row.instance, row.action)
                for row in execute(select(grants.c.role, grants.c.type, grants.c.instance, grants.c.action))
            ),
            memberships={
                (row.identity, row.role): row.expires
                for row in execute(select(members.c.identity, members.c.role, members.c.expires))
            },
        )

    def replace(self, new: Snapshot) -> bool:
        """Make the local rows those of ``new``, touching only what differs; whether any did."""
        old = self.snapshot(new.generation)
        changed = False
        changed |= self._sync_identities(old.identities, new.identities)
        changed |= self._sync_roles(old.roles, new.roles)
        changed |= self._sync_grants(old.grants, new.grants)
        changed |= self._sync_memberships(old.memberships, new.memberships)
        return changed

    def _sync_identities(self, old: dict[str, tuple[str, int]], new: dict[str, tuple[str, int]]) -> bool:
        table = tables.identities
        gone = old.keys() - new.keys()
        if gone:
            self.session.execute(delete(table).where(table.c.id.in_(gone)))
        rows = [
            {"id": name, "password_hash": h, "created": c} for name, (h, c) in new.items() if name not in old
        ]
        if rows:
            self.session.execute(insert(table), rows)
        changed = [name for name in new.keys() & old.keys() if new[name] != old[name]]
        for name in changed:
            hashed, created = new[name]
            self.session.execute(
                update(table).where(table.c.id == name).values(password_hash=hashed, created=created)
            )
        return bool(gone or rows or changed)

    def _sync_roles(self, old: dict[str, str], new: dict[str, str]) -> bool:
        table = tables.roles
        gone = old.keys() - new.keys()
        if gone:
            self.session.execute(delete(table).where(table.c.name.in_(gone)))
        rows = [{"name": name, "description": text} for name, text in new.items() if name not in old]
        if rows:
            self.session.execute(insert(table), rows)
        changed = [name for name in new.keys() & old.keys() if new[name] != old[name]]
        for name in changed:
            self.session.execute(update(table).where(table.c.name == name).values(description=new[name]))
        return bool(gone or rows or changed)

    def _sync_grants(self, old: frozenset[Grant], new: frozenset[Grant]) -> bool:
        table = tables.role_permissions
        columns = (table.c.role, table.c.type, table.c.instance, table.c.action)
        for grant in old - new:
            self.session.execute(delete(table).where(*(c == v for c, v in zip(columns, grant, strict=True))))
        rows = [dict(zip(("role", "type", "instance", "action"), grant, strict=True)) for grant in new - old]
        if rows:
            self.session.execute(insert(table), rows)
        return bool(old - new or rows)

    def _sync_memberships(self, old: dict[Member, int | None], new: dict[Member, int | None]) -> bool:
        table = tables.memberships
        changed = False
        for identity, role in old.keys() - new.keys():
            self.session.execute(delete(table).where(table.c.identity == identity, table.c.role == role))
            changed = True
        for (identity, role), expires in new.items():
            if (identity, role) not in old:
                self.session.execute(insert(table).values(identity=identity, role=role, expires=expires))
                changed = True
            elif old[(identity, role)] != expires:
                where = (table.c.identity == identity, table.c.role == role)
                self.session.execute(update(table).where(*where).values(expires=expires))
                changed = True
        return changed

    def state(self, source: str) -> tuple[int, int] | None:
        """(source generation, last answer ms) of the replica of ``source``; None: never synced."""
        table = tables.replica
        row = self.session.execute(
            select(table.c.generation, table.c.synced).where(table.c.source == source)
        ).first()
        return None if row is None else (int(row.generation), int(row.synced))

    def record(self, source: str, generation: int, synced_ms: int) -> None:
        table = tables.replica
        done = self.session.execute(
            update(table).where(table.c.source == source).values(generation=generation, synced=synced_ms)
        )
        if not cast("CursorResult[Any]", done).rowcount:
            self.session.execute(insert(table).values(source=source, generation=generation, synced=synced_ms))


def read_snapshot(db: Database, peek: Callable[[], int]) -> Snapshot:
    """The directory as of one generation: read between two equal readings of the generation
    (under read committed, the statements of one read may see different commits)."""
    unit = UnitOfWork(db, ReplicaRepository)

    def read(generation: int) -> Snapshot:
        return unit.read(partial(ReplicaRepository.snapshot, generation=generation))

    return read_at_one_generation(peek, read)[1]


class Replica:
    """This site's copy of the central directory: follows it, and says when it is too old."""

    def __init__(self, settings: Settings, db: Database) -> None:
        if not settings.authz_url:
            raise ValueError("a replica needs NETPLATFORM_AUTHZ_URL")
        self.source = settings.authz_url.rstrip("/")
        self.offline_s = settings.authz_offline_s
        self.wait_s = min(settings.authz_poll_s, MAX_WAIT_S)
        self.user, self.password = credential(settings, NODE, settings.authz_user, settings.authz_password)
        self.verify: str | bool = str(settings.ca_bundle) if settings.ca_bundle else True
        self.unit = UnitOfWork(db, ReplicaRepository)
        self.generation = -1
        self.synced_ms: int | None = None  # when the source last answered
        self._loaded = False
        self._jobs: list[PassReport] = []
        self._following = False

    # --- how old the replica is ------------------------------------------------------------

    def load(self) -> None:
        """What the local table says of the last sync (a restart knows the replica's age)."""
        state = self.unit.read(lambda rows: rows.state(self.source))
        if state is not None:
            self.generation, self.synced_ms = state
        self._loaded = True

    async def loaded(self) -> None:
        if not self._loaded:
            await anyio.to_thread.run_sync(self.load)

    def age_s(self) -> float | None:
        """Seconds since the source last answered; None when it never has."""
        return None if self.synced_ms is None else max(0.0, (now_ms() - self.synced_ms) / 1000)

    def stale(self) -> str | None:
        """Why no decision may be taken from the replica now, else None."""
        age = self.age_s()
        if age is None:
            return f"no replica of the authorization directory of {self.source} yet; it has never answered"
        if age > self.offline_s:
            return (
                f"the authorization directory replica of {self.source} is {age:.0f} s old, beyond"
                f" NETPLATFORM_AUTHZ_OFFLINE_S={self.offline_s:g}"
            )
        return None

    def away(self) -> str | None:
        """While the source does not answer (but the replica is within its bound): for how long,
        and how long decisions go on."""
        age = self.age_s()
        if age is None or age <= self.wait_s + AWAY_AFTER_S or age > self.offline_s:
            return None
        return (
            f"{self.source} has not answered for {age:.0f} s: deciding from the replica for"
            f" {self.offline_s - age:.0f} s more"
        )

    def describe(self) -> str:
        age = self.age_s()
        when = "never synced" if age is None else f"{age:.0f} s since {self.source} last answered"
        return f"replica of {self.source}, generation {self.generation}, {when}"

    # --- following the source --------------------------------------------------------------

    async def follow(self, job: PassReport) -> None:
        """Follow the source until cancelled, reporting each pass on ``job``. The apps of one
        process share one follower: the first app's job follows, the others wait beside it."""
        self._jobs.append(job)
        try:
            if self._following:
                await asyncio.Event().wait()  # beside the follower, until cancelled
                return
            self._following = True
            try:
                await self._follow_forever()
            finally:
                self._following = False
        finally:
            self._jobs.remove(job)

    async def _follow_forever(self) -> None:
        await self.loaded()
        auth = httpx.BasicAuth(self.user, self.password)
        timeout = httpx.Timeout(self.wait_s + 10, connect=5)
        async with httpx.AsyncClient(
            base_url=self.source, auth=auth, timeout=timeout, verify=self.verify
        ) as client:
            while True:
                try:
                    await self._poll(client)
                except Exception as error:  # the source away, a bad answer: counted, retried
                    self._report(error)
                    await asyncio.sleep(RETRY_S)
                else:
                    self._report(None)

    async def _poll(self, client: httpx.AsyncClient) -> None:
        params = {"after": str(self.generation), "wait": f"{self.wait_s:g}"}
        response = await client.get(FEED_PATH, params=params)
        if response.status_code != 200:
            raise ReplicaError(
                f"GET {self.source}{FEED_PATH} answered {response.status_code}: {response.text[:200]}"
            )
        body = response.json()
        answered = now_ms()
        directory = body.get("directory") if isinstance(body, dict) else None
        generation = int(body["generation"]) if isinstance(body, dict) and "generation" in body else None
        if generation is None:
            raise ReplicaError(f"GET {self.source}{FEED_PATH} answered no generation")
        snapshot = Snapshot.from_json(directory) if directory is not None else None
        await anyio.to_thread.run_sync(self._store, snapshot, generation, answered)

    def _store(self, snapshot: Snapshot | None, generation: int, answered: int) -> None:
        def write(rows: ReplicaRepository) -> bool:
            changed = rows.replace(snapshot) if snapshot is not None else False
            rows.record(self.source, generation, answered)
            return changed

        changed = self.unit.write(write)
        if changed:
            log.info("authorization directory replica of %s now at generation %d", self.source, generation)
        self.generation, self.synced_ms = generation, answered

    def _report(self, error: Exception | None) -> None:
        for job in self._jobs:
            if error is None:
                job.succeeded()
            else:
                job.failed(error)


class ReplicaError(Exception):
    """The source answered something that is not its directory."""


_replicas: dict[tuple[str, str], Replica] = {}
_replicas_lock = threading.Lock()


def replica_for(settings: Settings, db: Database) -> Replica | None:
    """The process-wide replica of the settings' central authz (None: this site is central)."""
    if not settings.authz_url:
        return None
    key = (db.url, settings.authz_url)
    with _replicas_lock:
        replica = _replicas.get(key)
        if replica is None or replica.unit.db is not db:
            replica = _replicas[key] = Replica(settings, db)
        return replica


def register_replica_metrics(registry: CollectorRegistry, replica: Replica) -> None:
    registry.register(_ReplicaCollector(replica))


class _ReplicaCollector(Collector):
    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    def collect(self) -> Iterator[Metric]:
        age = GaugeMetricFamily(
            "authz_directory_age_seconds",
            "Seconds since the central authz service last answered this site's replica (absent: never)",
            labels=["source"],
        )
        seconds = self.replica.age_s()
        if seconds is not None:
            age.add_metric([self.replica.source], seconds)
        yield age
