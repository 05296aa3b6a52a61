"""The topics service object: create, read, delete topics and grant or revoke their ACL entries.

A topic lives in two places: its row here (the control plane) and its stream in the engine.
Create makes the stream first and then the row, delete drops the stream first and then the
row, so a failing engine (503) leaves the control plane as it was, and no row ever names a
topic whose stream was never made.

Publishes and fetches check the topic's ACLs through :meth:`Topics.for_traffic`, which keeps
what it read for ``ACL_CACHE_S``: a read transaction per message would cost more than the
message. A change made through this instance applies here at once; one made through another
instance applies here within ``ACL_CACHE_S``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from anyio.to_thread import run_sync

from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .access import Administrators, Caller
from .engines.base import Engine, EngineUnavailable, StreamSpec
from .errors import engine_unavailable, topic_exists, topic_not_found
from .repository.topics import TopicRepository
from .tables import READER, WRITER
from .topic_model import Principal, Topic

KINDS = {"producers": WRITER, "consumers": READER}
"""Path segment of a grant -> the ACL it changes."""

ACL_CACHE_S = 1.0


def stream_of(topic: Topic) -> StreamSpec:
    """What a topic asks of its stream in the engine (the model knows no engine)."""
    return StreamSpec(topic.name, partitions=topic.partition_count, replicas=topic.replication_count)


class Topics:
    def __init__(self, db: Database, engine: Engine, administrators: Administrators) -> None:
        self.unit = UnitOfWork(db, TopicRepository)
        self.engine = engine
        self.administrators = administrators
        self._recent: dict[str, tuple[float, Topic]] = {}
        self._loading: dict[str, asyncio.Future[Topic]] = {}
        self._changes = 0  # changes made through this instance, so a read begun before one is not kept

    async def names(self) -> list[str]:
        return await run_sync(self.unit.read, lambda topics: topics.names())

    async def get(self, name: str) -> Topic:
        topic: Topic | None = await run_sync(self.unit.read, lambda topics: topics.get(name))
        if topic is None:
            raise topic_not_found(name)
        return topic

    async def group_lags(self, name: str) -> list[tuple[str, int]]:
        """Each known consumer group of the topic and its lag, by group name; 404 for an unknown topic."""
        await self.get(name)
        try:
            lags = await self.engine.group_positions(name)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error
        return sorted(lags.items())

    async def for_traffic(self, name: str) -> Topic:
        """The topic for an ACL check: as read up to ``ACL_CACHE_S`` ago (an unknown name is not kept).

        One read per topic at a time: when the entry runs out under load, every concurrent
        publish would otherwise read the same row (a fifth of the CPU of single publishes)."""
        recent = self._recent.get(name)
        if recent is not None and time.monotonic() - recent[0] < ACL_CACHE_S:
            return recent[1]
        loading = self._loading.get(name)
        if loading is None:
            loading = asyncio.ensure_future(self._load(name, self._changes))
            self._loading[name] = loading
            loading.add_done_callback(lambda done: self._loaded(name, done))
        return await asyncio.shield(loading)

    async def _load(self, name: str, changes: int) -> Topic:
        read_at = time.monotonic()
        topic = await self.get(name)
        if changes == self._changes:  # no change here since the read began: it is current
            if len(self._recent) > 10_000:
                self._recent.clear()
            self._recent[name] = (read_at, topic)
        return topic

    def _loaded(self, name: str, done: asyncio.Future[Topic]) -> None:
        if self._loading.get(name) is done:
            del self._loading[name]
        if not done.cancelled():
            done.exception()  # retrieved: a 404 every waiter gave up on is not logged as lost

    def _forget(self, name: str) -> None:
        """A change made here: later traffic reads the topic again, not a read begun before."""
        self._changes += 1
        self._recent.pop(name, None)
        self._loading.pop(name, None)

    async def create(self, wanted: Topic, then: Callable[[TopicRepository], None] | None = None) -> Topic:
        """Create ``wanted`` (owner: its creator; ``platform``: made by the router itself, never
        through the API), and run ``then`` in the same transaction; 409 when the name is taken."""
        if await run_sync(self.unit.read, lambda topics: topics.exists(wanted.name)):
            raise topic_exists(wanted.name)
        try:
            await self.engine.ensure_stream(stream_of(wanted))
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error

        def insert(topics: TopicRepository) -> None:
            if topics.exists(wanted.name):
                raise topic_exists(wanted.name)
            topics.insert(wanted)
            if then is not None:
                then(topics)

        await run_sync(self.unit.write, insert)
        self._forget(wanted.name)
        return await self.get(wanted.name)

    async def delete(self, name: str, caller: Caller) -> None:
        topic = await self.get(name)
        await self.administrators.require_manager(topic, caller, "delete")
        try:
            await self.engine.drop_stream(name)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error
        await run_sync(self.unit.write, lambda topics: topics.delete(name))
        self._forget(name)

    async def grant(self, name: str, kind: str, principal: Principal, caller: Caller) -> Topic:
        """Add ``principal`` (an identity or a role) to the topic's ``kind`` ACL, enabling it."""
        await self._change_acl(name, caller, "grant on", lambda topics: topics.grant(name, kind, principal))
        return await self.get(name)

    async def revoke(self, name: str, kind: str, principal: Principal, caller: Caller) -> None:
        """Remove ``principal`` from the ACL; an emptied ACL stays enabled (admits no one)."""
        await self._change_acl(name, caller, "revoke on", lambda topics: topics.revoke(name, kind, principal))

    async def _change_acl(
        self, name: str, caller: Caller, action: str, change: Callable[[TopicRepository], None]
    ) -> None:
        admin = await self.administrators.includes(caller)

        def work(topics: TopicRepository) -> None:
            topic = topics.get(name, for_update=True)  # concurrent grants of one topic queue here
            if topic is None:
                raise topic_not_found(name)
            self.administrators.require_granter(topic, caller, action, admin=admin)
            change(topics)

        await run_sync(self.unit.write, work)
        self._forget(name)
