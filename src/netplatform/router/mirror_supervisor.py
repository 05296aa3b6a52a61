"""Runs the mirror agents (issue 14, section 2): the bridge-admin reader and one copy task per
agent and whitelisted topic, on whichever instance holds each lease.

The reader takes admin messages from this router's own bridge-admin topic through the engine
(``read``, by sequence, its position kept with each message it applies: mirror_agents.py).
A copy task reads a topic from the agent's source router (mirror_source.py), publishes the
batch here, and only then records the last source sequence: at least once, in order per
topic, and a restart resumes at the recorded position. A source that is down or refuses the
agent's credential, a local topic that does not exist yet, or one whose writer ACL does not
admit the agent's identity, is retried every ``retry_s``.

Issue 23: an agent reads its source with the mirror credential (NETPLATFORM_ROUTER_MIRROR_USER
and _PASSWORD), or with none, never another user's; it publishes here as that identity (else
the first NETPLATFORM_USERS entry), through the same checks as any publisher.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..web.errors import Conflict, NotFound
from .access import Caller
from .engines.base import Engine
from .events import Events
from .mirror_agents import ADMIN_READER, AgentStatus, MirrorAgents
from .mirror_source import SourceRouter
from .repository.mirrors import MirrorAgent
from .topic_model import Topic
from .topics import Topics

log = logging.getLogger(__name__)

SUPERVISE_S = 2.0  # how often leases are looked at (at once after an admin message here)
LEASE_S = 15.0  # an instance that stops renewing loses its agents to another after this
COPY_BATCH = 1000
ADMIN_BATCH = 100
ADMIN_POLL_S = 5.0  # the admin topic is local: a long poll costs nothing


@dataclass(frozen=True)
class MirrorConfig:
    admin_topic: str  # "" : no mirror agents on this router
    owner: str  # owns the admin topic when the router creates it (the first NETPLATFORM_USERS entry)
    credentials: tuple[str, str] | None  # for reading source routers; None: present none
    publisher: str  # the identity the agents publish here as (the writer ACLs decide)
    poll_s: float
    retry_s: float


class _AgentRun:
    """The copy tasks of one agent this instance holds, one per whitelisted topic."""

    def __init__(self, supervisor: MirrorSupervisor, agent: MirrorAgent) -> None:
        self.supervisor = supervisor
        self.name = agent.name
        self.source = SourceRouter(agent.source_url, supervisor.config.credentials)
        self.tasks: dict[str, asyncio.Task[None]] = {}

    async def update(self, agent: MirrorAgent) -> None:
        """Follow the agent's definition: its source, and the topics it copies."""
        if agent.source_url != self.source.base_url:
            await self.stop()
            self.source = SourceRouter(agent.source_url, self.supervisor.config.credentials)
        for topic in set(self.tasks) - set(agent.whitelist):
            self.tasks.pop(topic).cancel()
        for topic in agent.whitelist:
            if topic not in self.tasks or self.tasks[topic].done():
                copy = self.supervisor.copy_forever(self.source, self.name, topic)
                self.tasks[topic] = asyncio.create_task(copy, name=f"router-mirror-{self.name}-{topic}")

    async def stop(self) -> None:
        await _cancel(*self.tasks.values())
        self.tasks.clear()
        await self.source.close()


class MirrorSupervisor:
    def __init__(
        self,
        agents: MirrorAgents,
        events: Events,
        topics: Topics,
        engine: Engine,
        config: MirrorConfig,
        roles: Callable[[str], Awaitable[frozenset[str]]],
    ) -> None:
        self.agents = agents
        self.roles = roles  # an identity's roles in the authorization store (AccessDirectory.roles)
        self.events = events
        self.topics = topics
        self.engine = engine
        self.config = config
        self._runs: dict[str, _AgentRun] = {}
        self._admin: asyncio.Task[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._poke = asyncio.Event()
        self._renewed_at = 0.0

    async def start(self) -> None:
        if not self.config.admin_topic:
            return
        await self.agents.release_all()  # what a crash of this instance left held
        self._task = asyncio.create_task(self._supervise(), name="router-mirror-supervisor")

    async def close(self) -> None:
        """Stop every task and free the leases, so another instance takes over at once."""
        if self._task is None:
            return
        await _cancel(self._task)
        held = self._held()
        if self._admin is not None:
            await _cancel(self._admin)
        for run in self._runs.values():
            await run.stop()
        self._runs.clear()
        try:
            await self.agents.release(held)
        except Exception:  # the leases run out by themselves
            log.warning("mirror agents: could not release leases %s", sorted(held), exc_info=True)

    async def running(self) -> list[AgentStatus]:
        """The agents this router runs, whichever instance holds each: none without a
        bridge-admin topic, whatever definitions the database keeps from an earlier setting."""
        if not self.config.admin_topic:
            return []
        return await self.agents.statuses()

    def _held(self) -> set[str]:
        admin = {ADMIN_READER} if self._admin is not None and not self._admin.done() else set()
        return admin | set(self._runs)

    # -- leases --------------------------------------------------------------------------------

    async def _supervise(self) -> None:
        while True:
            try:
                await self._round()
            except Exception:  # a database hiccup: the next round tries again
                log.exception("mirror agents: supervising failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), SUPERVISE_S)
            self._poke.clear()

    async def _round(self) -> None:
        """Renew what this instance holds (dropping what it lost), claim what is free, and make
        the runs follow their agents' definitions."""
        held = self._held()
        if held and time.monotonic() - self._renewed_at >= LEASE_S / 3:
            kept = await self.agents.renew(held)
            self._renewed_at = time.monotonic()
            await self._drop(held - kept)
            held = kept
        definitions = {agent.name: agent for agent in await self.agents.agents()}
        held |= set(
            await self.agents.claim(name for name in [ADMIN_READER, *definitions] if name not in held)
        )
        if ADMIN_READER in held and (self._admin is None or self._admin.done()):
            self._admin = asyncio.create_task(self._read_admin(), name="router-mirror-admin")
        for name in held & set(definitions):
            run = self._runs.get(name) or self._runs.setdefault(name, _AgentRun(self, definitions[name]))
            await run.update(definitions[name])

    async def _drop(self, lost: set[str]) -> None:
        for name in lost:
            log.warning(
                "mirror agents: lease of %r lost; another instance runs it", name or "the admin reader"
            )
            if name == ADMIN_READER and self._admin is not None:
                await _cancel(self._admin)
            elif name in self._runs:
                await self._runs.pop(name).stop()

    # -- the admin topic -----------------------------------------------------------------------

    async def _read_admin(self) -> None:
        topic = self.config.admin_topic
        position: int | None = None
        while True:
            try:
                if position is None:
                    await self._ensure_admin_topic()
                    position = await self.agents.position(ADMIN_READER, topic)
                for seq, text in await self.engine.read(topic, position, ADMIN_BATCH, ADMIN_POLL_S):
                    await self.agents.apply(topic, seq, text)
                    position = seq
                    self._poke.set()
            except Exception as error:  # the engine or the database: start over from the record
                log.warning("mirror agents: reading %s failed: %r", topic, error)
                position = None
                await asyncio.sleep(self.config.retry_s)

    async def _ensure_admin_topic(self) -> None:
        """Create the bridge-admin topic when it is missing: the bus controller publishes to it."""
        name = self.config.admin_topic
        try:
            await self.topics.get(name)
            return
        except NotFound:
            pass
        wanted = Topic(name, "mirror agents' admin messages", self.config.owner, False, 1, 1)
        with contextlib.suppress(Conflict):  # another instance made it meanwhile
            await self.topics.create(wanted)

    # -- copying -------------------------------------------------------------------------------

    async def copy_forever(self, source: SourceRouter, agent: str, topic: str) -> None:
        """Copy ``topic`` from ``source`` until cancelled, retrying every failure."""
        position: int | None = None
        failing = False
        while True:
            try:
                if position is None:
                    position = await self.agents.position(agent, topic)
                position = await self._copy_once(source, agent, topic, position)
                if failing:
                    log.info("mirror agent %s: copying %s from %s again", agent, topic, source.base_url)
                failing = False
            except Exception as error:
                if not failing:
                    log.warning(
                        "mirror agent %s: copying %s from %s failed (retrying every %.1fs): %r",
                        agent,
                        topic,
                        source.base_url,
                        self.config.retry_s,
                        error,
                    )
                failing = True
                await asyncio.sleep(self.config.retry_s)

    async def _copy_once(self, source: SourceRouter, agent: str, topic: str, position: int) -> int:
        """One batch: read after ``position``, publish here, then record; the new position."""
        read = await source.read(topic, position, limit=COPY_BATCH, timeout_s=self.config.poll_s)
        if not read:
            if self.config.poll_s <= 0:  # no long poll at the source: pause between empty reads
                await asyncio.sleep(self.config.retry_s)
            return position
        publisher = Caller(self.config.publisher, await self.roles(self.config.publisher))
        published = await self.events.publish(topic, [message for _seq, message in read], publisher)
        if published.count:
            await self.agents.advance(agent, topic, read[published.count - 1][0])
        if published.failure is not None:  # the first were stored: resume after them
            raise published.failure
        return read[-1][0]


async def _cancel(*tasks: asyncio.Task[None]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
