"""The embedded engine: messages and consumer-group positions in the project's own database.

Publishing uses group commit: publishes that arrive while a transaction is being committed
wait, then share the next transaction (and its one fsync), and each is acknowledged once that
transaction has committed. One committer runs per engine, so the messages of one topic enter
in the order their publishes arrived (queries: ../repository/streams.py, which also says how
order holds across instances on PostgreSQL).

A fetch claims the group's next messages and moves its durable position in one transaction
(the group's row locked on PostgreSQL, SQLite has one writer), so two members never get the
same message. When the answer cannot be written the claim is released: the position moves back
to just before the first claimed message (never forward), so the group gets them again; another
member's claim made meanwhile is given back with it, a duplicate rather than a loss. The claim
transaction also records the claim (``router_claims``) until its answer is written: a router
killed before that would otherwise have taken the messages from the group. A restarted instance
gives back the claims it left, at start; any instance gives back a claim older than its lease
(30 s, JetStream's ack wait), so even an instance that never comes back loses nothing: at least
once, as on JetStream. A fetch with nothing to claim waits: a publish through this engine wakes
it at once; publishes by other instances are seen by polling every ``poll_s``; a client that
leaves ends the wait. A background task deletes messages older than the retention.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sized
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

from anyio.to_thread import run_sync

from ...clock import now_ms
from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.streams import StreamRepository
from .base import EngineUnavailable, Periodic, StreamSpec, check_sizes, until_set

log = logging.getLogger(__name__)

BATCH_MESSAGES = 5000  # one group-commit transaction takes publishes up to about this many messages
PRUNE_SCAN = 1000  # messages looked at per retention step
CLAIM_LEASE_S = 30.0  # as JetStream's ack wait: an answer not written by then is given back
REAP_SCAN = 1000  # lapsed claims given back per transaction

S = TypeVar("S", bound=Sized)


@dataclass
class _Publish:
    topic: str
    messages: list[str]
    done: asyncio.Future[int] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class _Taken:
    """Rows one claim transaction took, and the id of the claim it recorded for them."""

    rows: list[tuple[int, str]]
    claim_id: int | None = None

    def __len__(self) -> int:
        return len(self.rows)


@dataclass
class _Claim:
    """Claimed rows: the group's position already moved past them, and a recorded claim holds
    them until the answer is written (see the module doc)."""

    engine: EmbeddedEngine
    topic: str
    group: str
    first_seq: int
    messages: list[str]
    claim_id: int | None = None

    async def commit(self) -> None:
        """The answer is out: forget the claim (the position moved already)."""
        if self.claim_id is None:
            return
        try:
            await run_sync(self.engine.forget_claim, self.claim_id)
        except Exception as error:  # left in place, it lapses: the messages come again, a duplicate
            raise EngineUnavailable(f"forgetting an answered claim failed: {error!r}") from error

    async def release(self) -> None:
        if not self.messages:
            return
        try:
            await run_sync(self.engine.give_back, self.topic, self.group, self.first_seq, self.claim_id)
        except Exception as error:  # the database: the contract speaks of the engine only
            raise EngineUnavailable(f"giving back claimed messages failed: {error!r}") from error


class _Wakeups:
    """One event per topic that has waiting fetches; a publish sets it and starts a new one."""

    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    def event(self, topic: str) -> asyncio.Event:
        return self._events.setdefault(topic, asyncio.Event())

    def wake(self, topic: str) -> None:
        event = self._events.pop(topic, None)
        if event is not None:
            event.set()

    def wake_all(self) -> None:
        for topic in list(self._events):
            self.wake(topic)


class EmbeddedEngine:
    """The Engine protocol (engines/base.py) on the project's database."""

    name = "embedded"

    def __init__(
        self,
        db: Database,
        *,
        retention_s: float,
        poll_s: float = 0.25,
        max_message_bytes: int = 1024 * 1024,
        instance: str = "router",
        claim_lease_s: float = CLAIM_LEASE_S,
    ) -> None:
        self.unit = UnitOfWork(db, StreamRepository)
        self.retention_s = retention_s
        self.poll_s = poll_s
        self.max_message_bytes = max_message_bytes
        self.instance = instance
        self.claim_lease_ms = int(claim_lease_s * 1000)
        self._started_ms = now_ms()
        self._queue: list[_Publish] = []
        self._committer: asyncio.Task[None] | None = None
        self._wakeups = _Wakeups()
        self._closing = False

    async def start(self) -> None:
        """Give back the claims an earlier run of this instance left (a crash); the retention and
        the reaper of lapsed claims are :meth:`background` work, run by the kernel's job runner."""
        self._closing = False
        self._started_ms = now_ms()
        try:
            await run_sync(self.give_back_lapsed)
        except Exception as error:  # the database is down: the reaper tries again
            log.warning("giving back claims left by an earlier run failed: %r", error)

    def background(self) -> list[Periodic]:
        """Retention (a tenth of it, between 0.5 s and a minute) and the reaper of lapsed claims
        (a quarter of the lease, between 0.5 and 10 s)."""
        return [
            Periodic("router-retention", min(max(self.retention_s / 10, 0.5), 60.0), self.prune),
            Periodic("router-claims", min(max(self.claim_lease_ms / 4000, 0.5), 10.0), self.reap),
        ]

    async def close(self) -> None:
        """End waiting fetches ([]), and let queued publishes commit."""
        self._closing = True
        self._wakeups.wake_all()
        if self._committer is not None:
            await asyncio.wait([self._committer])

    async def reachable(self) -> bool:
        """Its store is the project's database, which the kernel's health probe checks."""
        return True

    # -- streams ---------------------------------------------------------------------------

    async def ensure_stream(self, spec: StreamSpec) -> None:
        await run_sync(self.unit.write, lambda streams: streams.create(spec.topic))

    async def drop_stream(self, topic: str) -> None:
        await run_sync(self.unit.write, lambda streams: streams.drop(topic))

    async def head(self, topic: str) -> int:
        def read() -> int:
            last = self.unit.read(lambda streams: streams.last_seq(topic))
            if last is None:
                raise EngineUnavailable(f"no stream for topic {topic!r}")
            return last

        return await run_sync(read)

    async def group_positions(self, topic: str) -> dict[str, int]:
        def read(streams: StreamRepository) -> dict[str, int]:
            stream_id = streams.stream_id(topic)
            return {} if stream_id is None else streams.lags(stream_id)

        return await run_sync(self.unit.read, read)

    # -- publish (group commit) ------------------------------------------------------------

    async def publish(self, topic: str, messages: list[str]) -> int:
        if not messages:
            return 0
        check_sizes(messages, self.max_message_bytes)
        if self._closing:
            raise EngineUnavailable("the embedded engine is closed")
        pending = _Publish(topic, list(messages))
        self._queue.append(pending)
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_queued(), name="router-group-commit")
        count = await asyncio.shield(pending.done)
        self._wakeups.wake(topic)
        return count

    async def _commit_queued(self) -> None:
        """Commit what is queued, one transaction at a time, until the queue is empty."""
        while self._queue:
            batch: list[_Publish] = []
            size = 0
            while self._queue and (not batch or size + len(self._queue[0].messages) <= BATCH_MESSAGES):
                batch.append(self._queue.pop(0))
                size += len(batch[-1].messages)
            try:
                missing = await run_sync(self._commit, batch)
            except BaseException as error:  # every publish of the batch fails with it
                for pending in batch:
                    if not pending.done.done():
                        pending.done.set_exception(EngineUnavailable(f"publish failed: {error!r}"))
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for pending in batch:
                if pending.topic in missing:
                    pending.done.set_exception(EngineUnavailable(f"no stream for topic {pending.topic!r}"))
                else:
                    pending.done.set_result(len(pending.messages))

    def _commit(self, batch: list[_Publish]) -> set[str]:
        """Append every publish of the batch in one transaction; the topics that have no stream."""
        by_topic: dict[str, list[str]] = {}
        for pending in batch:
            by_topic.setdefault(pending.topic, []).extend(pending.messages)

        def work(streams: StreamRepository) -> set[str]:
            missing, published_ms = set(), now_ms()
            for topic in sorted(by_topic):  # one lock order for every instance: no deadlock
                bodies = by_topic[topic]
                reserved = streams.reserve(topic, len(bodies))
                if reserved is None:
                    missing.add(topic)
                else:
                    streams.append(reserved[0], reserved[1], bodies, published_ms)
            return missing

        return self.unit.write(work)

    # -- fetch -----------------------------------------------------------------------------

    async def fetch(
        self,
        topic: str,
        group: str,
        consumer: str,
        *,
        limit: int,
        timeout_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> _Claim:
        """``consumer`` needs no state here: a group's members share its one position."""
        taken = _Taken([])
        if limit >= 1:
            take = partial(self._claim, topic, group, limit)
            peek = partial(self._anything_new, topic, group)
            taken = await self._long_poll(topic, timeout_s, take, peek, abandoned)
        first = taken.rows[0][0] if taken.rows else 0
        return _Claim(self, topic, group, first, [body for _seq, body in taken.rows], taken.claim_id)

    async def read(self, topic: str, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """A plain read: no group, no write; every poll is the read itself."""
        if limit < 1:
            return []
        return await self._long_poll(topic, timeout_s, lambda: self._read_after(topic, after, limit), None)

    async def _long_poll(
        self,
        topic: str,
        timeout_s: float,
        take: Callable[[], S],
        peek: Callable[[], bool] | None,
        abandoned: asyncio.Event | None = None,
    ) -> S:
        """``take`` now; when it finds nothing, again on a publish here or when ``peek`` (polled
        every ``poll_s``; None: ``take`` itself) sees one by another instance, until the timeout
        or until ``abandoned`` is set (then nothing more is taken)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout_s, 0.0)
        wake = self._wakeups.event(topic)
        taken = await run_sync(take)
        while not taken and not self._closing:
            remaining = deadline - loop.time()
            if remaining <= 0 or (abandoned is not None and abandoned.is_set()):
                return taken  # empty
            await until_set(wake, abandoned, min(remaining, self.poll_s))
            woken = wake.is_set()
            wake = self._wakeups.event(topic)  # taken before looking, so no publish slips between
            if abandoned is not None and abandoned.is_set():
                return taken  # empty
            if woken or peek is None or await run_sync(peek):
                taken = await run_sync(take)
        return taken

    def _read_after(self, topic: str, after: int, limit: int) -> list[tuple[int, str]]:
        def read(streams: StreamRepository) -> list[tuple[int, str]]:
            stream_id = streams.stream_id(topic)
            if stream_id is None:
                raise EngineUnavailable(f"no stream for topic {topic!r}")
            return streams.after(stream_id, after, limit)

        return self.unit.read(read)

    def _claim(self, topic: str, group: str, limit: int) -> _Taken:
        def work(streams: StreamRepository) -> _Taken:
            stream_id = streams.stream_id(topic)
            if stream_id is None:
                raise EngineUnavailable(f"no stream for topic {topic!r}")
            position = streams.lock_position(stream_id, group)
            rows = streams.after(stream_id, position, limit)
            if not rows:
                return _Taken(rows)
            streams.move(stream_id, group, rows[-1][0])
            until_ms = now_ms() + self.claim_lease_ms
            return _Taken(rows, streams.record_claim(stream_id, group, rows[0][0], self.instance, until_ms))

        return self.unit.write(work)

    def forget_claim(self, claim_id: int) -> None:
        """An answered claim: not made durable on its own, since a claim that comes back after a
        power cut is only given back again (a duplicate)."""
        self.unit.write(lambda streams: streams.forget_claim(claim_id), retry=False, durable=False)

    def give_back(self, topic: str, group: str, first_seq: int, claim_id: int | None = None) -> None:
        """Move the group's position back to just before ``first_seq`` (a released claim)."""

        def work(streams: StreamRepository) -> None:
            stream_id = streams.stream_id(topic)
            if stream_id is not None:  # a dropped stream has nothing to give back
                streams.move_back(stream_id, group, first_seq - 1)
            if claim_id is not None:
                streams.forget_claim(claim_id)

        self.unit.write(work)
        self._wakeups.wake(topic)  # a member waiting on this instance takes them at once

    def give_back_lapsed(self) -> int:
        """Give back claims past their lease, and those an earlier run of this instance left
        (recorded before it started); how many."""
        own_before_ms = self._started_ms + self.claim_lease_ms  # leases of claims made before start

        def work(streams: StreamRepository) -> int:
            lapsed = streams.lapsed_claims(now_ms(), self.instance, own_before_ms, REAP_SCAN)
            for claim_id, stream_id, group, first_seq in lapsed:
                streams.move_back(stream_id, group, first_seq - 1)
                streams.forget_claim(claim_id)
            return len(lapsed)

        given = self.unit.write(work)
        if given:
            log.warning("gave back %d claimed answers that were never written (a router stopped)", given)
            self._wakeups.wake_all()
        return given

    def reap(self) -> None:
        """Give back every lapsed claim, a scan at a time (the ``router-claims`` job)."""
        while self.give_back_lapsed() == REAP_SCAN:
            pass

    def _anything_new(self, topic: str, group: str) -> bool:
        """A cheap read: has the stream a message past the group's position?"""

        def read(streams: StreamRepository) -> bool:
            stream_id = streams.stream_id(topic)
            return stream_id is not None and streams.has_after(stream_id, streams.position(stream_id, group))

        return self.unit.read(read)

    # -- retention -------------------------------------------------------------------------

    def prune(self) -> int:
        """Delete messages published longer than the retention ago; how many were deleted."""
        cutoff = now_ms() - int(self.retention_s * 1000)
        stream_ids = self.unit.read(lambda streams: streams.stream_ids())
        removed = 0
        for stream_id in stream_ids:
            batch = partial(_prune_batch, stream_id, cutoff)
            while (deleted := self.unit.write(batch, retry=False)) is not None:
                removed += deleted
        return removed


def _prune_batch(stream_id: int, cutoff_ms: int, streams: StreamRepository) -> int | None:
    """One scan's worth of the stream's expired messages deleted: how many, None when none is left."""
    last = streams.expired_up_to(stream_id, cutoff_ms, PRUNE_SCAN)
    return None if last is None else streams.delete_up_to(stream_id, last)
