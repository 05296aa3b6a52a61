"""Runs the mirror agents (issue 14, section 2): the bridge-admin reader and one copy task per
agent and whitelisted topic, on whichever instance holds each lease.

The reader takes admin messages from this router's own bridge-admin topic through the engine
(``read``, by sequence, its position kept with each message it applies: mirror_agents.py).
A copy task reads a topic from the agent's source router (mirror_source.py), publishes the
batch here, and only then records the last source sequence: at least once, in order per
topic, and a restart resumes at the recorded position. A source that is down or refuses the
agent's credential, a local topic that does not exist yet, or one whose writer ACL does not
admit the agent's identity, is retried every ``retry_s``.

Issue 36: an agent reads its source with the router's own mirror credential (``svc.mirror``, or
NETPLATFORM_ROUTER_MIRROR_USER and _PASSWORD: mirror_settings.py), never a user's, and connects
only to a source the bus controller told as a registered cluster's router (or
NETPLATFORM_ROUTER_MIRROR_SOURCES names); any other source is failing without a connection. It
publishes here as that identity, through the same checks as any publisher. The bridge-admin topic
is the platform's: the router makes it (``router_topics.platform``) and never reads a topic of
that name anyone else made, so what a writer published there is never applied.

Issue 24: the bridge-admin topic and the allowed sources are read from the database every round
(mirror_settings.py), so the supervisor follows what the bus controller stores: another topic
restarts the admin reader there, none stops every agent. Each copy task keeps its topic's copy
status in the database (``CopyTracker``), written on transitions and with each position, so
every instance lists what the agents do (GET /internal/mirror-agents).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ..clock import now_ms
from ..store.errors import WriteConflict
from ..web.errors import ApiError, Conflict, Forbidden, NotFound
from ..web.jobs import Job
from .access import ADMINISTER_MIRRORS, Caller
from .engines.base import Engine
from .errors import access_denied, admin_topic_not_adopted
from .events import Events
from .mirror_agents import ADMIN_READER, AgentStatus, MirrorAgents
from .mirror_settings import EffectiveSettings, MirrorSettings
from .mirror_source import SourceRouter, SourceUnavailable
from .repository.mirrors import CopyStatus, MirrorAgent, MirrorRepository, StoredSettings
from .repository.topics import TopicRepository
from .topic_model import Topic
from .topics import Topics

log = logging.getLogger(__name__)

T = TypeVar("T")

SUPERVISE_S = 2.0  # how often leases are looked at (at once after an admin message here)
FOLLOW_WAIT_S = 10.0  # the longest a settings PUT waits for this instance to follow it
LEASE_S = 15.0  # an instance that stops renewing loses its agents to another after this
COPY_BATCH = 1000
ADMIN_BATCH = 100
ADMIN_POLL_S = 5.0  # the admin topic is local: a long poll costs nothing
REASON_CHARS = 1000  # a lastError is a reason, not a dump (a database error may quote its SQL)


@dataclass(frozen=True)
class MirrorConfig:
    owner: str  # names the owner of the bridge-admin topic the router makes (svc.mirror)
    publisher: str  # the identity the agents publish here as (the writer ACLs decide)
    poll_s: float
    retry_s: float
    tls: ssl.SSLContext | None = None  # verifies HTTPS sources (NETPLATFORM_ROUTER_MIRROR_CA_BUNDLE)


class _LocalFailure(Exception):
    """Copying into this router failed (the topic, its ACL, the engine): said for ``lastError``."""


class CopyTracker:
    """One copy task's status, as last written to the database: written again only when it
    changes (the first attempt, success to failure and back, another error or source head while
    failing) or with a new position, never for an idle long poll."""

    def __init__(self, agents: MirrorAgents, agent: str, topic: str, status: CopyStatus) -> None:
        self.agents = agents
        self.agent = agent
        self.topic = topic
        self.status = status

    @property
    def attempted(self) -> bool:
        return self.status.attempted_ms is not None

    async def succeeded(self, position: int | None, head: int | None) -> None:
        old = self.status
        new = CopyStatus(head if head is not None else old.source_head, None, None, now_ms())
        if position is None and old.attempted_ms is not None and old.last_error is None:
            return  # still succeeding, nothing copied: nothing to write
        await self.agents.record(self.agent, self.topic, position, new)
        self.status = new

    async def failed(self, error: str, head: int | None = None) -> None:
        old = self.status
        head = head if head is not None else old.source_head
        if old.last_error == error and old.source_head == head:
            return  # the same failure again
        since = old.failing_since_ms if old.last_error is not None else None
        new = CopyStatus(head, error, since or now_ms(), now_ms())
        await self.agents.record(self.agent, self.topic, None, new)
        self.status = new


class _AgentRun:
    """The copy tasks of one agent this instance holds, one per whitelisted topic."""

    def __init__(self, supervisor: MirrorSupervisor, agent: MirrorAgent) -> None:
        self.supervisor = supervisor
        self.name = agent.name
        self.source = supervisor.source(agent.source_url)
        self.tasks: dict[str, asyncio.Task[None]] = {}

    async def update(self, agent: MirrorAgent) -> None:
        """Follow the agent's definition: its source, and the topics it copies."""
        if agent.source_url != self.source.base_url:
            await self.stop()
            self.source = self.supervisor.source(agent.source_url)
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
        settings: MirrorSettings,
        events: Events,
        topics: Topics,
        engine: Engine,
        config: MirrorConfig,
        roles: Callable[[str], Awaitable[frozenset[str]]],
        copies: Job,
    ) -> None:
        self.agents = agents
        self.settings = settings
        self.roles = roles  # an identity's roles in the authorization store (AccessDirectory.roles)
        self.events = events
        self.topics = topics
        self.engine = engine
        self.config = config
        self.admin_topic = ""  # the topic the admin reader reads ("": none, so no agents run)
        self.credentials = settings.credentials  # what the runs present to their sources
        self._runs: dict[str, _AgentRun] = {}
        self._admin: asyncio.Task[None] | None = None
        self._supervising = False  # the mirror-supervisor job runs supervise()
        # The admin reader's and the copy tasks' passes, reported to the kernel's job runner.
        self.copies = copies
        self._poke = asyncio.Event()
        self._followers: list[asyncio.Event] = []  # settings PUTs waiting for the next round
        self._renewed_at = 0.0

    async def start(self) -> None:
        """Free what a crash of this instance left held; :meth:`supervise`, the kernel's
        ``mirror-supervisor`` job, then follows whatever the settings say, now and later (the
        bus controller may tell this router its bridge-admin topic at any time)."""
        await self.agents.release_all()

    def source(self, url: str) -> SourceRouter:
        return SourceRouter(url, self.credentials, self.config.tls)

    async def configure(self, wanted: StoredSettings, caller: Caller) -> EffectiveSettings:
        """Store what the bus controller tells (PUT /internal/mirror-settings), for a router
        administrator only (they alone define agents); this instance has followed them when the
        answer goes out, the others follow within a round (SUPERVISE_S). The bridge-admin topic it
        names is made here first; one of that name the router did not make refuses the whole PUT
        (409), so nothing a writer published there is ever applied."""
        if not await self.topics.administrators.includes(caller, ADMINISTER_MIRRORS):
            raise access_denied(f"{caller.identity} may not set the mirror settings: only a router admin may")
        admin_topic = self.settings.admin_topic_of(wanted)
        if admin_topic:
            await self._ensure_admin_topic(admin_topic)
        effective = await self.settings.store(wanted)
        await self._next_round()
        return effective

    async def _next_round(self) -> None:
        """Wait for a supervising round begun after now: agents the settings stop have stopped
        copying (a listing that says none runs is then true), or FOLLOW_WAIT_S has passed."""
        if not self._supervising:
            return
        followed = asyncio.Event()
        self._followers.append(followed)
        self._poke.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(followed.wait(), FOLLOW_WAIT_S)

    async def close(self) -> None:
        """Stop every task and free the leases, so another instance takes over at once (the
        kernel has stopped the supervising job before)."""
        held = self._held()
        await self._stop_admin()
        await self._stop_runs()
        try:
            await self.agents.release(held)
        except Exception:  # the leases run out by themselves
            log.warning("mirror agents: could not release leases %s", sorted(held), exc_info=True)

    async def running(self) -> tuple[str, list[AgentStatus]]:
        """The effective bridge-admin topic and the agents this router runs, whichever instance
        holds each: none without a bridge-admin topic, whatever definitions the database keeps
        from an earlier setting."""
        admin_topic = (await self.settings.effective()).admin_topic
        if not admin_topic:
            return "", []
        return admin_topic, await self.agents.statuses()

    def _held(self) -> set[str]:
        admin = {ADMIN_READER} if self._admin is not None and not self._admin.done() else set()
        return admin | set(self._runs)

    # -- leases --------------------------------------------------------------------------------

    async def supervise(self, job: Job) -> None:
        """A round every SUPERVISE_S (at once when poked) until cancelled, each reported on
        ``job`` (the kernel's ``mirror-supervisor`` job: its metrics and /health bound)."""
        self._supervising = True
        try:
            while True:
                followers, self._followers = self._followers, []
                try:
                    await self._round()
                except Exception as error:  # a database hiccup: the next round tries again
                    job.failed(error)
                    log.warning(
                        "mirror agents: supervising failed (%d in a row): %r", job.consecutive_failures, error
                    )
                else:
                    job.succeeded()
                for followed in followers:
                    followed.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._poke.wait(), SUPERVISE_S)
                self._poke.clear()
        finally:
            self._supervising = False

    async def _round(self) -> None:
        """Follow the settings; renew what this instance holds (dropping what it lost), claim
        what is free, and make the runs follow their agents' definitions."""
        await self._follow(await self.settings.effective())
        if not self.admin_topic:
            return
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
            reader = self._read_admin(self.admin_topic)
            self._admin = asyncio.create_task(reader, name="router-mirror-admin")
        for name in held & set(definitions):
            run = self._runs.get(name) or self._runs.setdefault(name, _AgentRun(self, definitions[name]))
            await run.update(definitions[name])

    async def _follow(self, effective: EffectiveSettings) -> None:
        """Stop what the settings no longer allow: the admin reader of another topic, the runs
        presenting another credential, and everything when there is no admin topic. What stays
        held is taken up again by the round (a lease this instance holds is claimed again)."""
        changed = False
        if effective.admin_topic != self.admin_topic:
            log.info(
                "mirror agents: bridge-admin topic %s (was %s)",
                effective.admin_topic or "(none)",
                self.admin_topic or "(none)",
            )
            held = self._held()
            await self._stop_admin()
            if not effective.admin_topic:
                await self._stop_runs()
                await self.agents.release(held)
            self.admin_topic = effective.admin_topic
            changed = True
        if changed and effective.admin_topic and not effective.sources:
            log.warning(
                "mirror agents connect to no source: the bus controller told no registered cluster, "
                "and NETPLATFORM_ROUTER_MIRROR_SOURCES is unset"
            )

    async def _stop_admin(self) -> None:
        if self._admin is not None:
            await _cancel(self._admin)
            self._admin = None

    async def _stop_runs(self) -> None:
        for run in self._runs.values():
            await run.stop()
        self._runs.clear()

    async def _drop(self, lost: set[str]) -> None:
        for name in lost:
            log.warning(
                "mirror agents: lease of %r lost; another instance runs it", name or "the admin reader"
            )
            if name == ADMIN_READER:
                await self._stop_admin()
            elif name in self._runs:
                await self._runs.pop(name).stop()

    # -- the admin topic -----------------------------------------------------------------------

    async def _read_admin(self, topic: str) -> None:
        position: int | None = None
        while True:
            try:
                if position is None:
                    await self._ensure_admin_topic(topic)
                    position = await self.agents.position(ADMIN_READER, topic)
                batch = await self.engine.read(topic, position, ADMIN_BATCH, ADMIN_POLL_S)
                if batch:
                    await self._still_the_platforms(topic)
                for seq, text in batch:
                    await self.agents.apply(topic, seq, text)
                    position = seq
                    self._poke.set()
            except Exception as error:  # the engine or the database: start over from the record
                self.copies.failed(error)
                log.warning("mirror agents: reading %s failed: %s", topic, _described(error))
                position = None
                await asyncio.sleep(self.config.retry_s)

    async def _ensure_admin_topic(self, name: str) -> None:
        """The bridge-admin topic, made by this router for the platform when it is missing (its
        admin reader starts at its first message: a position kept for a topic of that name before
        is forgotten in the same transaction). One of that name anyone else made is never adopted:
        409, and the reader does not read it."""
        try:
            found = await self.topics.get(name)
        except NotFound:
            wanted = Topic(
                name, "mirror agents' admin messages", self.config.owner, False, 1, 1, platform=True
            )

            def fresh_reader(topics: TopicRepository) -> None:
                MirrorRepository(topics.session).forget_position(ADMIN_READER, name)

            with contextlib.suppress(Conflict, WriteConflict):  # made meanwhile: looked at below
                await self.topics.create(wanted, then=fresh_reader)
                return
            found = await self.topics.get(name)
        if not found.platform:
            raise admin_topic_not_adopted(name, found.owner)

    async def _still_the_platforms(self, name: str) -> None:
        """Before a batch is applied: the topic is still the one the router made (a router admin
        may have deleted it, and someone else made one of that name since)."""
        topic = await self.topics.get(name)
        if not topic.platform:
            raise admin_topic_not_adopted(name, topic.owner)

    # -- copying -------------------------------------------------------------------------------

    async def copy_forever(self, source: SourceRouter, agent: str, topic: str) -> None:
        """Copy ``topic`` from ``source`` until cancelled, retrying every failure, and keep the
        topic's copy status (CopyTracker) as it goes."""
        tracker: CopyTracker | None = None
        position = 0
        while True:
            try:
                if tracker is None:
                    begun = await self.agents.begin(agent, topic)
                    tracker, position = CopyTracker(self.agents, agent, topic, begun.status), begun.position
                failing = tracker.status.last_error is not None
                position = await self._copy_once(source, tracker, position)
                self.copies.succeeded()
                if failing:
                    log.info("mirror agent %s: copying %s from %s again", agent, topic, source.base_url)
            except Exception as error:
                self.copies.failed(error)
                reason = _reason(error)
                if tracker is not None and tracker.status.last_error is None:
                    log.warning(
                        "mirror agent %s: copying %s from %s failed (retrying every %.1fs): %s",
                        agent,
                        topic,
                        source.base_url,
                        self.config.retry_s,
                        reason,
                    )
                await self._record_failure(tracker, reason, getattr(error, "head", None))
                await asyncio.sleep(self.config.retry_s)

    async def _record_failure(self, tracker: CopyTracker | None, reason: str, head: int | None) -> None:
        if tracker is None:  # the database failed before the task began: nothing to record on
            log.warning("mirror agents: %s", reason)
            return
        try:
            await tracker.failed(reason, head)
        except Exception as error:  # the database: the next attempt records it
            log.warning("mirror agent %s: could not record its status: %r", tracker.agent, error)

    async def _copy_once(self, source: SourceRouter, tracker: CopyTracker, position: int) -> int:
        """One batch: read after ``position``, publish here, then record; the new position.

        The first attempt of a task does not wait at the source, so its status is known at once."""
        topic = tracker.topic
        await self._local(
            topic, self.topics.for_traffic(topic)
        )  # missing here: failing, whatever the source has
        if not self.settings.current.allows(source.base_url):
            raise SourceUnavailable(
                f"the source {source.base_url} is not the router of a cluster the bus controller "
                "registers: an agent connects to no other host"
            )
        wait_s = self.config.poll_s if tracker.attempted else 0.0
        read = await source.read(topic, position, limit=COPY_BATCH, timeout_s=wait_s)
        if read.router_id and read.router_id == await self.settings.router_id():
            raise SourceUnavailable(
                f"the source {source.base_url} is this router itself: copying a topic into itself "
                "would copy its own copies for ever"
            )
        if not read.messages:
            await tracker.succeeded(None, read.head)
            if self.config.poll_s <= 0:  # no long poll at the source: pause between empty reads
                await asyncio.sleep(self.config.retry_s)
            return position
        publisher = Caller(self.config.publisher, await self.roles(self.config.publisher))
        texts = [message for _seq, message in read.messages]
        try:
            published = await self._local(topic, self.events.publish(topic, texts, publisher))
        except _LocalFailure as error:
            raise _Failed(str(error), read.head) from error
        if published.count:
            await self.agents.record(tracker.agent, topic, read.messages[published.count - 1][0], None)
        if published.failure is not None:  # the first were stored: resume after them
            raise _Failed(f"publishing here failed part-way: {published.failure.message}", read.head)
        await tracker.succeeded(read.messages[-1][0], read.head)
        return read.messages[-1][0]

    @staticmethod
    async def _local(topic: str, work: Awaitable[T]) -> T:
        """``work`` on this router, its refusals said as the agent's failure."""
        try:
            return await work
        except NotFound as error:
            raise _LocalFailure(f"topic {topic} does not exist here") from error
        except Forbidden as error:
            raise _LocalFailure(f"publishing here refused: {error.message}") from error
        except (ApiError, WriteConflict) as error:
            raise _LocalFailure(f"publishing here failed: {error.message}") from error


class _Failed(Exception):
    """A failure after the source answered, with the source's head (the lag stays known)."""

    def __init__(self, reason: str, head: int | None) -> None:
        super().__init__(reason)
        self.head = head


def _described(error: Exception) -> str:
    return error.message if isinstance(error, ApiError) else repr(error)


def _reason(error: Exception) -> str:
    """What an agent's ``lastError`` says of a failure."""
    if isinstance(error, SourceUnavailable | _LocalFailure | _Failed):
        return str(error)[:REASON_CHARS]
    return f"{type(error).__name__}: {error}"[:REASON_CHARS]


async def _cancel(*tasks: asyncio.Task[None]) -> None:
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
