"""Publish and retract (spec 4.2, section 5 rules 2 and 3): who may publish, what is accepted.

A publish is checked in the reference's order before a byte of the body is read (feed, file
id, credentials, address, suspension, metadata); then the body is spooled to a durable blob (a
small one, :data:`INLINE_BODY_MAX`, is kept in the file row instead) and one transaction records
the file (held by this node), one delivery per live subscription (which this node makes, or
forwards to the node a subscription is bound to), and the publish log record. Only after that
commit does the client get its 204 and publish id. Concurrent publishes share that transaction and
its fsync (group commit, :mod:`..store.group_commit`, queued on the event loop), each in its own
savepoint, so one refused publish does not touch the others. The spooled blob is the publisher's
until then: it is removed when the commit fails or no subscription takes it. A body that would
take the spool under its free-space floor is refused (503) before it is stored, or cut off with
nothing left behind (see :mod:`.spool_space`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from functools import partial

import anyio.to_thread

from ..clock import now_ms
from ..store.blobs import BlobRef, BlobStore
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, Forbidden, NotFound
from .feed_model import Feed
from .links import positive_id
from .log_model import LogRecord, RecordType
from .publisher_gate import PublisherGate
from .repository import Repositories
from .repository.queue import SpooledFile
from .repository.routing import IngressRoute, ingress_route_for
from .spool_space import SpoolSpace

MAX_METADATA_LENGTH = 4096
INLINE_BODY_MAX = 64 * 1024
"""A body of at most this many bytes is kept in its file row, not in a blob of the spool: the commit
that records the publish makes it durable too (no file written, fsynced, renamed, opened and
removed per small file; distribution_0007)."""
_UNSAFE_FILE_ID = re.compile(r"[/\x00-\x1f\x7f]")


class PublishIds:
    """``<epoch ms>.<instance>``, strictly increasing within this instance (ms bumped on a tie)."""

    def __init__(self, instance: str) -> None:
        self.instance = instance
        self._last_ms = 0
        self._lock = threading.Lock()

    def next(self) -> tuple[str, int]:
        """A new publish id and its time part (the file's publish time)."""
        with self._lock:
            self._last_ms = max(now_ms(), self._last_ms + 1)
            return f"{self._last_ms}.{self.instance}", self._last_ms


@dataclass(frozen=True)
class Admission:
    """A publish or retraction that passed every check, before its body is read."""

    feed: Feed
    file_id: str
    endpoint_id: str
    source_ip: str
    ingress_route: IngressRoute | None = None  # where this publisher may publish (None: anywhere)


@dataclass(frozen=True)
class Arrival:
    """What was received: the request as the publish record and the deliveries will tell it."""

    method: str
    request_uri: str
    content_type: str | None
    content_length: int
    blob: str | None
    headers: dict[str, str]
    body: bytes | None = None  # a small body, kept in the file row (INLINE_BODY_MAX)


def parse_feed_number(text: str) -> int:
    number = positive_id(text)
    if number is None:
        raise NotFound("Invalid request - Missing or bad feed number.")
    return number


def check_file_id(file_id: str) -> str:
    if not file_id:
        raise NotFound("Invalid request - Missing file ID.")
    if file_id in (".", "..") or _UNSAFE_FILE_ID.search(file_id):
        raise BadRequest("Invalid file ID.")
    return file_id


def check_metadata(value: str | None) -> None:
    """``X-BUS-DR-META``: at most 4096 characters of one flat JSON object."""
    if value is None:
        return
    if len(value) > MAX_METADATA_LENGTH:
        raise BadRequest("Metadata too long")
    try:
        parsed = json.loads(value)
    except ValueError:
        raise BadRequest("Malformed metadata") from None
    flat = isinstance(parsed, dict) and all(
        isinstance(item, str | int | float | bool) or item is None for item in parsed.values()
    )
    if not flat:
        raise BadRequest("Malformed metadata")


async def _read_up_to(chunks: AsyncIterator[bytes], limit: int) -> tuple[bytes, bool]:
    """The stream's first bytes, up to just past ``limit``, and whether it ended within ``limit``."""
    pending: list[bytes] = []
    size = 0
    async for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size > limit:
            return b"".join(pending), False
    return b"".join(pending), True


async def _chained(head: bytes, rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield head
    async for chunk in rest:
        yield chunk


def _receivers(repo: Repositories, feed_id: int) -> list[int]:
    """The feed's live subscriptions that take files now; 404 or 403 when the feed is gone or suspended.

    Read once per transaction and feed: the publishes of one group commit see the same feed row and
    subscriptions, as if they had followed each other at once (they do commit together).
    """
    known: dict[int, list[int]] = repo.session.info.setdefault("publish_receivers", {})
    if feed_id not in known:
        current = repo.feeds.find(feed_id, lock=True)
        if current is None:
            raise NotFound("Invalid request - Missing or bad feed number.")
        if current.suspend:
            raise Forbidden("Feed is suspended")
        subscribers = repo.subscriptions.live_of(feed_id)
        known[feed_id] = [sub.id for sub in subscribers if not sub.fields.suspend]
    return known[feed_id]


class Publisher:
    def __init__(
        self, db: Database, blobs: BlobStore, instance: str, space: SpoolSpace, gate: PublisherGate
    ) -> None:
        self.unit = UnitOfWork(db, Repositories)
        # Publishes commit in groups queued on the event loop (one worker thread per group).
        self.commits = UnitOfWork(db, Repositories, grouped=True)
        self.gate = gate
        self.blobs = blobs
        self.space = space
        self.node = instance  # the receiving node: it holds the file and its deliveries
        self.ids = PublishIds(instance)

    def admit(
        self,
        feed_number: str,
        file_id: str,
        authorization: str | None,
        source_ip: str,
        metadata: str | None,
    ) -> Admission:
        """Every check of a publish or retraction, in the reference's order (a worker thread:
        checking credentials may take an argon2 verification)."""
        number = parse_feed_number(feed_number)
        # The feed and its ingress routes in one read: a transaction per publish fewer.
        feed, routes = self.unit.read(
            lambda repo: (repo.feeds.find(number), repo.routes.ingress_routes(number))
        )
        if feed is None:
            raise NotFound("Invalid request - Missing or bad feed number.")
        check_file_id(file_id)
        endpoint_id = self.gate.admit(feed, authorization, source_ip)
        if feed.suspend:
            raise Forbidden("Feed is suspended")
        check_metadata(metadata)
        return Admission(feed, file_id, endpoint_id, source_ip, ingress_route_for(routes, endpoint_id))

    def room(self, declared_length: int | None) -> int | None:
        """Bytes a publish body may take (None: unbounded); 503 when the spool has no room for it."""
        return self.space.room(declared_length)

    async def receive(self, body: AsyncIterable[bytes], room: int | None) -> bytes | BlobRef:
        """The body of a publish within ``room`` (from :meth:`room`): its bytes when it is small
        (:data:`INLINE_BODY_MAX`; the commit of the publish stores them), else a blob stored
        durably before the publish is accepted; 503 (nothing stored) when it would take the spool
        under its floor."""
        chunks = aiter(body)
        head, ended = await _read_up_to(chunks, INLINE_BODY_MAX)
        if ended:
            self.space.check_room(len(head), room)
            return head
        return await self.space.store_within(_chained(head, chunks), room)

    async def accept(self, admission: Admission, arrival: Arrival) -> tuple[str, list[int]]:
        """Commit the file, its deliveries and the publish record; the publish id and the
        subscriptions it was queued for.

        The spooled blob is removed when the commit fails or no subscription takes the file.
        """
        try:
            publish_id, receivers = await self.commits.write_async(
                partial(self._record, admission=admission, arrival=arrival)
            )
        except BaseException:
            await self._discard(arrival.blob)
            raise
        if not receivers:
            await self._discard(arrival.blob)
        return publish_id, receivers

    async def _discard(self, blob: str | None) -> None:
        if blob is not None:
            await anyio.to_thread.run_sync(self.blobs.delete, blob)

    def _record(self, repo: Repositories, *, admission: Admission, arrival: Arrival) -> tuple[str, list[int]]:
        """Within the (shared) transaction: the file, its deliveries and the publish record; the
        publish id, and the subscriptions that take the file (none: the blob is not needed)."""
        feed = admission.feed
        receivers = _receivers(repo, feed.id)
        publish_id, published_ms = self.ids.next()
        if receivers:
            spooled = SpooledFile(
                row=0,
                node=self.node,
                publish_id=publish_id,
                feed_id=feed.id,
                file_id=admission.file_id,
                method=arrival.method,
                blob=arrival.blob,
                content_length=arrival.content_length,
                headers=arrival.headers,
                published_ms=published_ms,
                body=arrival.body,
            )
            repo.queue.enqueue(repo.queue.insert_file(spooled), self.node, receivers)
        repo.logs.insert(self._publish_record(admission, arrival, publish_id, published_ms, self.node))
        return publish_id, receivers

    @staticmethod
    def _publish_record(
        admission: Admission, arrival: Arrival, publish_id: str, date_ms: int, node: str
    ) -> LogRecord:
        return LogRecord(
            type=RecordType.PUBLISH,
            date_ms=date_ms,
            feed_id=admission.feed.id,
            publish_id=publish_id,
            request_uri=arrival.request_uri,
            method=arrival.method,
            content_type=arrival.content_type,
            content_length=arrival.content_length,
            source_ip=admission.source_ip,
            endpoint_id=admission.endpoint_id,
            file_name=admission.file_id,
            status_code=204,
            node=node,
        )
