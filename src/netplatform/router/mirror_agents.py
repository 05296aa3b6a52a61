"""The mirror agents' durable state, as a service object: definitions, leases and positions.

Issue 14, section 2. The bus controller defines agents by messages on the bridge-admin topic
(mirror_messages.py); :meth:`MirrorAgents.apply` records one and the reader's position in that
topic in one transaction, so each admin message takes effect once, in order, even across a
crash. Positions are the last source sequence an agent copied per topic, recorded only after
the copy was published here (mirror_supervisor.py): a crash in between copies again, never
loses. Leases say which instance runs an agent (repository/mirrors.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from anyio.to_thread import run_sync

from ..clock import now_ms
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .mirror_messages import CreateAgent, MalformedAdminMessage, UpdateWhitelist, parse_admin_message
from .repository.mirrors import CopyStatus, MirrorAgent, MirrorRepository, TopicProgress

log = logging.getLogger(__name__)


CopyState = Literal["running", "failing", "starting"]
AgentState = Literal["running", "failing", "starting", "waiting"]

ADMIN_READER = ""
"""The lease and position name of the bridge-admin topic's reader (no agent has an empty name)."""


@dataclass(frozen=True)
class AgentStatus:
    """An agent as the router runs it: its definition, which instance holds it (None: none does,
    so nothing copies), and per topic the last source sequence copied and the copy status."""

    agent: MirrorAgent
    instance: str | None
    progress: dict[str, TopicProgress] = field(default_factory=dict)

    @property
    def held(self) -> bool:
        return self.instance is not None

    @property
    def positions(self) -> dict[str, int]:
        return {topic: found.position for topic, found in self.progress.items()}

    def topic_state(self, topic: str) -> CopyState:
        """running, failing (its last attempt failed) or starting (no attempt since its task began)."""
        found = self.progress.get(topic)
        if found is None or found.status.attempted_ms is None:
            return "starting"
        return "failing" if found.status.last_error is not None else "running"

    @property
    def state(self) -> AgentState:
        """waiting (no instance holds it), failing (some topic fails), starting (some topic has
        had no attempt yet), else running: every whitelisted topic's last attempt succeeded."""
        if not self.held:
            return "waiting"
        states = {self.topic_state(topic) for topic in self.agent.whitelist}
        if "failing" in states:
            return "failing"
        return "starting" if "starting" in states else "running"

    def _failing(self) -> list[CopyStatus]:
        if not self.held:
            return []
        found = (self.progress.get(topic) for topic in self.agent.whitelist)
        return [each.status for each in found if each is not None and each.status.last_error is not None]

    @property
    def last_error(self) -> str | None:
        """The most recent failure among the failing topics."""
        failing = self._failing()
        return max(failing, key=lambda status: status.attempted_ms or 0).last_error if failing else None

    @property
    def failing_since_ms(self) -> int | None:
        """Since when the agent fails: its earliest failing topic's first failure."""
        return min((status.failing_since_ms or 0 for status in self._failing()), default=None)


class MirrorAgents:
    def __init__(self, db: Database, holder: str, *, lease_s: float) -> None:
        self.unit = UnitOfWork(db, MirrorRepository)
        self.holder = holder  # this instance (NETPLATFORM_INSTANCE_NAME)
        self.lease_ms = int(lease_s * 1000)

    # -- definitions ---------------------------------------------------------------------------

    async def apply(self, admin_topic: str, seq: int, text: str) -> str:
        """Apply admin message ``seq``; what became of it (also logged). Never raises for a bad one."""
        try:
            message = parse_admin_message(text)
        except MalformedAdminMessage as error:
            await run_sync(self.unit.write, lambda mirrors: mirrors.advance(ADMIN_READER, admin_topic, seq))
            log.warning("mirror agents: ignored admin message %d of %s: %s", seq, admin_topic, error)
            return "malformed"

        def work(mirrors: MirrorRepository) -> str:
            outcome = _apply(mirrors, message)
            mirrors.advance(ADMIN_READER, admin_topic, seq)
            return outcome

        outcome = await run_sync(self.unit.write, work)
        level = logging.WARNING if outcome == "unknown agent" else logging.INFO
        log.log(
            level,
            "mirror agents: admin message %d (%s %s): %s",
            seq,
            type(message).__name__,
            message.name,
            outcome,
        )
        return outcome

    async def agents(self) -> list[MirrorAgent]:
        return await run_sync(self.unit.read, lambda mirrors: mirrors.agents())

    async def agents_named(self, names: Iterable[str]) -> list[MirrorAgent]:
        wanted = list(names)
        return await run_sync(self.unit.read, lambda mirrors: mirrors.agents_named(wanted))

    async def statuses(self) -> list[AgentStatus]:
        """Every defined agent with its holder and positions, by name; read in one transaction, so
        any instance answers the same."""

        def read(mirrors: MirrorRepository) -> list[AgentStatus]:
            agents = sorted(mirrors.agents(), key=lambda agent: agent.name)
            names = [agent.name for agent in agents]
            holders = mirrors.holders(names, now_ms())
            positions = mirrors.positions_of(names)
            return [
                AgentStatus(agent, holders.get(agent.name), positions.get(agent.name, {})) for agent in agents
            ]

        return await run_sync(self.unit.read, read)

    # -- positions -----------------------------------------------------------------------------

    async def position(self, agent: str, topic: str) -> int:
        return await run_sync(self.unit.read, lambda mirrors: mirrors.position(agent, topic))

    async def advance(self, agent: str, topic: str, position: int) -> None:
        await run_sync(self.unit.write, lambda mirrors: mirrors.advance(agent, topic, position))

    async def record(self, agent: str, topic: str, position: int | None, status: CopyStatus | None) -> None:
        """A copy's new position and status, or either alone, in one transaction."""
        await run_sync(self.unit.write, lambda mirrors: mirrors.record(agent, topic, position, status))

    async def begin(self, agent: str, topic: str) -> TopicProgress:
        """A copy task starts: its recorded position, with the status of an earlier run (another
        instance's, or before a restart) cleared to "no attempt yet", so no instance lists a
        status this run has not seen."""

        def work(mirrors: MirrorRepository) -> TopicProgress:
            position = mirrors.position(agent, topic)
            head = mirrors.positions_of([agent]).get(agent, {}).get(topic)
            status = CopyStatus(source_head=head.status.source_head if head else None)
            mirrors.record(agent, topic, None, status)
            return TopicProgress(position, status)

        return await run_sync(self.unit.write, work)

    # -- leases --------------------------------------------------------------------------------

    async def claim(self, names: Iterable[str]) -> list[str]:
        """Take what leases of ``names`` are free; those now held by this instance."""
        wanted = list(names)
        now = now_ms()
        free = await run_sync(self.unit.read, lambda mirrors: mirrors.claimable(wanted, self.holder, now))
        if not free:
            return []

        def work(mirrors: MirrorRepository) -> list[str]:
            until = now + self.lease_ms
            return [name for name in free if mirrors.claim(name, self.holder, now, until)]

        return await run_sync(self.unit.write, work)

    async def renew(self, names: Iterable[str]) -> set[str]:
        wanted = list(names)
        until = now_ms() + self.lease_ms
        return await run_sync(self.unit.write, lambda mirrors: mirrors.renew(wanted, self.holder, until))

    async def release(self, names: Iterable[str]) -> None:
        wanted = list(names)
        await run_sync(self.unit.write, lambda mirrors: mirrors.release(wanted, self.holder))

    async def release_all(self) -> None:
        await run_sync(self.unit.write, lambda mirrors: mirrors.release_all(self.holder))


def _apply(mirrors: MirrorRepository, message: CreateAgent | UpdateWhitelist) -> str:
    stamp = now_ms()
    if isinstance(message, UpdateWhitelist):
        if not mirrors.set_whitelist(message.name, message.topics, stamp):
            return "unknown agent"
        return f"whitelist {','.join(message.topics) or '(empty)'}"
    source = mirrors.source_of(message.name)
    if source is None:
        mirrors.insert_agent(message.name, message.source_url, message.consumer, message.producer, stamp)
        return f"created, source {message.source_url}"
    mirrors.redefine_agent(message.name, message.source_url, message.consumer, message.producer, stamp)
    if source != message.source_url:  # another router's sequence numbers: start its topics afresh
        mirrors.forget_positions(message.name)
        return f"redefined, source {message.source_url} (was {source})"
    return "unchanged"
