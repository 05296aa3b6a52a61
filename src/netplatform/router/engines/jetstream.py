"""The NATS JetStream engine: a topic is a file-backed stream, a consumer group a durable pull consumer.

Issue 14, section 1. The router keeps topics' metadata and ACLs in its own database; here live
only the messages (one stream per topic, ``max_age`` = the retention) and the groups' positions
(one durable consumer per group, explicit acks, starting at the oldest retained message).

Everything goes over one client connection per engine. Replies (publish acks, ack confirmations,
pulled messages) arrive on one wildcard inbox and are routed to the batch that asked for them,
so a batch of publishes or acks is pipelined: every request is written at once, in order, and
the batch waits once for all the answers. NATS keeps one connection's messages in order, which
keeps each topic's order. The client does not reconnect by itself: a lost connection fails what
is in flight at once (EngineUnavailable) and the next call connects again, every step bounded
by a timeout so that nothing hangs on a server that is down or silent.

A fetch pulls messages (ack-pending on the server) and hands them over as a claim: the router
acks them once its answer is written, or naks them when it could not be, and JetStream gives
nak'd messages to the group's next pull before any newer one. A member that leaves during a
long poll leaves its pull request on the server until it expires; the subscription stays until
then, and naks a message that still arrives for it, so the group gets that one again at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import nats
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from .base import EngineUnavailable, PartlyStored, StreamSpec, check_sizes, until_set

log = logging.getLogger(__name__)

API = "$JS.API"
SUBJECT_ROOT = "netplatform.router"
CONNECT_TIMEOUT_S = 2.0
REQUEST_TIMEOUT_S = 5.0
PROBE_AFTER_S = 0.5  # a no_wait pull still unanswered after this: is the consumer there?
READER_IDLE_S = 10.0  # an ephemeral reader left behind (engine died) is removed after this
ACK_WAIT_S = 30.0  # a member that dies between delivery and ack: the group gets it again after this
MAX_REPLICAS = 5  # JetStream's own ceiling
_SAFE_LEN = 32
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

# JetStream API error codes (nats-server's errors.json) the engine expects and handles.
ERR_STREAM_NOT_FOUND = 10059
ERR_CONSUMER_NOT_FOUND = 10014
ERR_STREAM_NAME_IN_USE = 10058
ERR_PLACEMENT = {10005, 10023, 10074}  # no suitable peers, insufficient resources, not clustered


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def _safe_name(prefix: str, name: str) -> str:
    """A JetStream name for ``name``: readable prefix, plus a hash over the whole name.

    Stream and consumer names may not hold '.', '*', '>', spaces or slashes; replacing those
    alone would map ``a.b`` and ``a_b`` to one stream, so the hash keeps distinct names apart.
    """
    return f"{prefix}_{_UNSAFE.sub('_', name)[:_SAFE_LEN]}_{_digest(name)}"


def stream_name(topic: str) -> str:
    return _safe_name("T", topic)


def stream_subject(topic: str) -> str:
    return f"{SUBJECT_ROOT}.{stream_name(topic)}"


def consumer_name(group: str) -> str:
    return _safe_name("G", group)


class _ApiError(Exception):
    """JetStream's API answered with an error."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.code = int(error.get("code", 0))
        self.err_code = int(error.get("err_code", 0))
        self.description = str(error.get("description", "unknown error"))
        super().__init__(f"{self.description} (code {self.code}, err_code {self.err_code})")


class _ConsumerGone(Exception):
    """The group's consumer vanished (dropped and recreated elsewhere): create it again."""


@contextlib.contextmanager
def _unavailable(what: str) -> Iterator[None]:
    """Turn a transport failure or an unexpected refusal into EngineUnavailable."""
    try:
        yield
    except (OSError, TimeoutError, nats.errors.Error, _ApiError) as error:
        raise EngineUnavailable(f"JetStream {what}: {error!r}") from error


class _Batch:
    """The replies to one batch of requests that share a reply subject."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.answered = 0
        self.succeeded = 0  # answers that were no error, before the first error (publish: stored)
        self.error: str | None = None
        self.finished = asyncio.Event()

    def feed(self, msg: Msg) -> None:
        """A publish ack or an ack confirmation; an error reply or a status marks the batch failed.

        Replies come in the order the requests were written (one connection, one stream), so
        ``succeeded`` counts the first requests that succeeded.
        """
        self.answered += 1
        headers = msg.headers or {}
        if "Status" in headers:
            self.error = self.error or f"status {headers['Status']} {headers.get('Description', '')}".strip()
        elif b'"error"' in msg.data:
            self.error = self.error or json.loads(msg.data)["error"].get("description", "error")
        elif self.error is None:
            self.succeeded += 1
        if self.answered >= self.expected:
            self.finished.set()

    def fail(self, reason: str) -> None:
        self.error = self.error or reason
        self.finished.set()


class _Pull(_Batch):
    """The answer to one pull request: messages until the batch is full or a status ends it."""

    def __init__(self, expected: int) -> None:
        super().__init__(expected)
        self.messages: list[Msg] = []
        self.gone = False
        self.orphaned = False  # the member left while the request waits on the server

    def feed(self, msg: Msg) -> None:
        if msg.reply.startswith("$JS.ACK."):
            self.messages.append(msg)
            if len(self.messages) >= self.expected:
                self.finished.set()
            return
        headers = msg.headers or {}
        status, description = headers.get("Status", ""), headers.get("Description", "")
        if status == "100":  # idle heartbeat
            return
        if status == "503" or "Consumer Deleted" in description:
            self.gone = True
        elif status not in ("404", "408"):  # no messages / request expired: a normal end
            self.error = self.error or f"status {status} {description}".strip()
        self.finished.set()

    async def receive(self, msg: Msg) -> None:
        if not self.orphaned:
            self.feed(msg)
            return
        if msg.reply.startswith("$JS.ACK."):
            await msg.nak()  # pulled for a member that left: the group's next pull gets it
        self.finished.set()  # a message or the expiry status: the request is over on the server


class _Link:
    """One client connection and the inbox on which every reply to it arrives."""

    def __init__(self) -> None:
        self.nc = Client()
        self.prefix = ""
        self._batches: dict[str, _Batch] = {}
        self._ids = itertools.count()
        self._lingering: set[asyncio.Task[None]] = set()

    async def open(self, url: str) -> None:
        await self.nc.connect(
            url.split(","),
            name="netplatform-router",
            allow_reconnect=False,  # the engine reconnects on the next call; see the module doc
            connect_timeout=int(CONNECT_TIMEOUT_S),
            # These two bound the first connect: each server is tried twice, without a pause.
            max_reconnect_attempts=1,
            reconnect_time_wait=0,
            ping_interval=10,
            max_outstanding_pings=2,
            skip_subject_validation=True,  # every subject here is built from safe names
            error_cb=self._on_error,
            disconnected_cb=self._on_lost,
            closed_cb=self._on_lost,
        )
        self.prefix = self.nc.new_inbox()
        await self.nc.subscribe(
            f"{self.prefix}.*", cb=self._on_reply, pending_msgs_limit=0, pending_bytes_limit=0
        )

    @property
    def usable(self) -> bool:
        return self.nc.is_connected

    async def close(self) -> None:
        for task in self._lingering:
            task.cancel()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.nc.close(), REQUEST_TIMEOUT_S)
        await self._on_lost()

    @contextlib.contextmanager
    def batch(self, batch: _Batch) -> Iterator[str]:
        """Register ``batch`` for the replies to the reply subject this yields."""
        key = str(next(self._ids))
        self._batches[key] = batch
        try:
            yield f"{self.prefix}.{key}"
        finally:
            self._batches.pop(key, None)

    @contextlib.asynccontextmanager
    async def delivery(self, pull: _Pull, linger_s: float) -> AsyncIterator[str]:
        """A subscription of its own for one pull: JetStream delivers messages under their
        original subject, so only the subscription tells which pull they answer. An orphaned
        pull keeps it until the request ends on the server (at most ``linger_s``)."""
        inbox = self.nc.new_inbox()
        with self.batch(pull):  # so that a lost connection ends the pull at once
            sub = await self.nc.subscribe(inbox, cb=pull.receive)
            try:
                yield inbox
            finally:
                if pull.orphaned:
                    self._linger(sub, pull, linger_s)
                else:
                    with contextlib.suppress(nats.errors.Error):
                        await sub.unsubscribe()

    def _linger(self, sub: Subscription, pull: _Pull, linger_s: float) -> None:
        async def until_over() -> None:
            await self.answered(pull, linger_s)
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()

        task = asyncio.create_task(until_over(), name="router-orphaned-pull")
        self._lingering.add(task)
        task.add_done_callback(self._lingering.discard)

    async def wait(self, batch: _Batch, timeout_s: float) -> None:
        """Wait for ``batch`` to be answered; a server that stays silent is unavailable."""
        if not await self.answered(batch, timeout_s):
            raise EngineUnavailable(f"JetStream did not answer within {timeout_s:.1f}s")

    @staticmethod
    async def answered(batch: _Batch, timeout_s: float) -> bool:
        try:
            await asyncio.wait_for(batch.finished.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def api(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One JetStream API request; an error answer raises _ApiError."""
        payload = json.dumps(body).encode() if body is not None else b""
        try:
            msg = await self.nc.request(f"{API}.{subject}", payload, timeout=REQUEST_TIMEOUT_S)
        except nats.errors.NoRespondersError:
            raise EngineUnavailable("JetStream is not enabled on the server (no responders)") from None
        answer: dict[str, Any] = json.loads(msg.data)
        if "error" in answer:
            raise _ApiError(answer["error"])
        return answer

    async def _on_reply(self, msg: Msg) -> None:
        batch = self._batches.get(msg.subject.rsplit(".", 1)[-1])
        if batch is not None:
            batch.feed(msg)

    async def _on_lost(self) -> None:
        for batch in list(self._batches.values()):
            batch.fail("connection to NATS lost")

    async def _on_error(self, error: Exception) -> None:
        log.debug("NATS connection error: %r", error)


def _failed(stored: int, reason: str) -> EngineUnavailable:
    """A failed publish: PartlyStored when its first messages were stored nonetheless."""
    return PartlyStored(stored, reason) if stored else EngineUnavailable(reason)


@dataclass
class _Claim:
    """Pulled messages, ack-pending on the server until the router settles them (ack_wait
    redelivers them should this process die first)."""

    engine: JetStreamEngine
    pulled: list[Msg]
    messages: list[str] = field(init=False)

    def __post_init__(self) -> None:
        self.messages = [msg.data.decode("utf-8", errors="replace") for msg in self.pulled]

    async def commit(self) -> None:
        await self.engine.settle(self.pulled, b"+ACK")

    async def release(self) -> None:
        await self.engine.settle(self.pulled, b"-NAK")


class JetStreamEngine:
    """The Engine protocol (engines/base.py) on a NATS JetStream server or cluster."""

    name = "jetstream"

    def __init__(self, url: str, *, retention_s: float, max_message_bytes: int = 1024 * 1024) -> None:
        self._url = url
        self._retention_s = retention_s
        self._configured_max = max_message_bytes
        self._server_max: int | None = None  # the server's max_payload, read on connect
        self._link: _Link | None = None
        self._lock = asyncio.Lock()
        self._closing = False
        self._consumers: set[tuple[str, str]] = set()  # (stream, consumer) known to exist

    @property
    def max_message_bytes(self) -> int:
        if self._server_max is None:
            return self._configured_max
        return min(self._configured_max, self._server_max)

    async def start(self) -> None:
        self._closing = False
        await self._connection()

    async def reachable(self) -> bool:
        """Whether JetStream answers an account-info request (connecting when need be)."""
        try:
            link = await self._connection()
            with _unavailable("account info"):
                await link.api("INFO")
        except EngineUnavailable:
            return False
        return True

    async def close(self) -> None:
        self._closing = True
        link, self._link = self._link, None
        if link is not None:
            await link.close()

    async def _connection(self) -> _Link:
        """The live connection, connecting (again) when there is none; bounded by the timeouts."""
        if self._link is not None and self._link.usable:
            return self._link
        if self._closing:
            raise EngineUnavailable("JetStream engine is closed")
        async with self._lock:
            if self._link is not None and self._link.usable:
                return self._link
            if self._link is not None:
                await self._link.close()
                self._link = None
            link = _Link()
            with _unavailable(f"connect to {self._url}"):
                bound = 2 * CONNECT_TIMEOUT_S * len(self._url.split(",")) + 1  # two tries each
                await asyncio.wait_for(link.open(self._url), bound)
            self._link, self._consumers = link, set()
            self._note_max_payload(link.nc.max_payload)
            return link

    def _note_max_payload(self, server_max: int) -> None:
        """The limit is clamped, not refused at start: the server is known only once connected,
        which may be long after the router started (docs/router.md, "Decisions")."""
        if server_max < self._configured_max and server_max != self._server_max:
            log.warning(
                "NETPLATFORM_ROUTER_MAX_MESSAGE_BYTES=%d is more than the NATS server accepts: "
                "messages are limited to its max_payload of %d bytes",
                self._configured_max,
                server_max,
            )
        self._server_max = server_max

    # -- streams ---------------------------------------------------------------------------

    async def ensure_stream(self, spec: StreamSpec) -> None:
        link = await self._connection()
        name = stream_name(spec.topic)
        with _unavailable(f"create stream for {spec.topic!r}"):
            for replicas in range(max(1, min(spec.replicas, MAX_REPLICAS)), 0, -1):
                try:
                    await link.api(f"STREAM.CREATE.{name}", self._stream_config(spec.topic, replicas))
                    return
                except _ApiError as error:
                    if error.err_code == ERR_STREAM_NAME_IN_USE:
                        return await self._check_existing(link, spec.topic)
                    if error.err_code not in ERR_PLACEMENT or replicas == 1:
                        raise

    def _stream_config(self, topic: str, replicas: int) -> dict[str, Any]:
        max_age_ns = int(self._retention_s * 1e9)
        return {
            "name": stream_name(topic),
            "description": topic,
            "subjects": [stream_subject(topic)],
            "retention": "limits",
            "storage": "file",
            "discard": "old",
            "max_age": max_age_ns,
            "num_replicas": replicas,
            # The server refuses a duplicate window longer than max_age (default 2 minutes).
            "duplicate_window": min(max_age_ns, 120 * 10**9),
        }

    async def _check_existing(self, link: _Link, topic: str) -> None:
        """An existing stream with other settings (replicas, retention) is kept as it is."""
        info = await link.api(f"STREAM.INFO.{stream_name(topic)}")
        subjects = info.get("config", {}).get("subjects", [])
        if subjects != [stream_subject(topic)]:
            raise EngineUnavailable(f"stream {stream_name(topic)} exists with other subjects {subjects}")

    async def drop_stream(self, topic: str) -> None:
        link = await self._connection()
        name = stream_name(topic)
        with _unavailable(f"delete stream for {topic!r}"):
            try:
                await link.api(f"STREAM.DELETE.{name}")
            except _ApiError as error:
                if error.err_code != ERR_STREAM_NOT_FOUND:
                    raise
        self._consumers = {known for known in self._consumers if known[0] != name}

    # -- publish ---------------------------------------------------------------------------

    async def publish(self, topic: str, messages: list[str]) -> int:
        if not messages:
            return 0
        link = await self._connection()
        check_sizes(messages, self.max_message_bytes)  # after connecting: the server's limit is known
        payloads = [message.encode() for message in messages]
        subject, batch = stream_subject(topic), _Batch(len(payloads))
        try:
            with _unavailable(f"publish to {topic!r}"), link.batch(batch) as reply:
                for payload in payloads:  # all written before any ack is awaited: pipelined, in order
                    await link.nc.publish(subject, payload, reply=reply)
                await link.wait(batch, REQUEST_TIMEOUT_S + len(payloads) / 1000)
        except EngineUnavailable as error:
            raise _failed(batch.succeeded, str(error)) from error
        if batch.error is not None:
            if batch.error.startswith("status 503"):
                raise _failed(batch.succeeded, f"no JetStream stream for topic {topic!r}")
            raise _failed(batch.succeeded, f"JetStream refused a message for {topic!r}: {batch.error}")
        return len(payloads)

    # -- consume ---------------------------------------------------------------------------

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
        """Pull for the group's durable consumer; ``consumer`` (the member) needs no state here."""
        if limit < 1:
            return _Claim(self, [])
        link = await self._connection()
        try:
            with _unavailable(f"fetch from {topic!r}"):
                pulled = await self._fetch(link, topic, group, limit, timeout_s, abandoned)
        except EngineUnavailable:
            if self._closing:
                return _Claim(self, [])  # close() cut the wait short; nothing was acked
            raise
        return _Claim(self, pulled)

    async def _fetch(
        self,
        link: _Link,
        topic: str,
        group: str,
        limit: int,
        timeout_s: float,
        abandoned: asyncio.Event | None,
    ) -> list[Msg]:
        stream, durable = stream_name(topic), consumer_name(group)
        try:
            await self._ensure_consumer(link, topic, group)
            return await self._pull_waiting(link, stream, durable, limit, timeout_s, abandoned)
        except _ConsumerGone:
            self._consumers.discard((stream, durable))
        await self._ensure_consumer(link, topic, group)  # once more, for a consumer dropped meanwhile
        try:
            return await self._pull_waiting(link, stream, durable, limit, timeout_s, abandoned)
        except _ConsumerGone:
            raise EngineUnavailable(f"the consumer of group {group!r} keeps vanishing") from None

    async def _ensure_consumer(self, link: _Link, topic: str, group: str) -> None:
        """Create the group's durable consumer unless this connection has seen it."""
        stream, durable = stream_name(topic), consumer_name(group)
        if (stream, durable) in self._consumers:
            return
        config = {
            "name": durable,
            "durable_name": durable,
            "description": group,  # group_positions reports groups by their own names
            "deliver_policy": "all",  # a new group starts at the oldest retained message
            "ack_policy": "explicit",
            "ack_wait": int(ACK_WAIT_S * 1e9),
            "max_deliver": -1,
            "max_ack_pending": -1,
            "replay_policy": "instant",
        }
        try:
            await link.api(f"CONSUMER.CREATE.{stream}.{durable}", {"stream_name": stream, "config": config})
        except _ApiError as error:
            if error.err_code == ERR_STREAM_NOT_FOUND:
                raise EngineUnavailable(f"no JetStream stream for topic {topic!r}") from None
            await link.api(f"CONSUMER.INFO.{stream}.{durable}")  # created meanwhile with other settings
        self._consumers.add((stream, durable))

    async def _pull_waiting(
        self,
        link: _Link,
        stream: str,
        durable: str,
        limit: int,
        timeout_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> list[Msg]:
        """What is waiting, else a long poll for one message and then what came with it."""
        messages = await self._pull(link, stream, durable, {"batch": limit, "no_wait": True}, 0.0)
        if not messages and timeout_s > 0 and not (abandoned is not None and abandoned.is_set()):
            # A batch of one ends as soon as a message comes, leaving no request open on the
            # server that would take later messages for a member no longer listening.
            wait = {"batch": 1, "expires": int(timeout_s * 1e9)}
            messages = await self._pull(link, stream, durable, wait, timeout_s, abandoned)
            if messages and limit > 1:
                rest = {"batch": limit - 1, "no_wait": True}
                messages += await self._pull(link, stream, durable, rest, 0.0)
        return messages

    async def _pull(
        self,
        link: _Link,
        stream: str,
        durable: str,
        request: dict[str, Any],
        wait_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> list[Msg]:
        pull = _Pull(int(request["batch"]))
        async with link.delivery(pull, wait_s + REQUEST_TIMEOUT_S) as reply:
            subject = f"{API}.CONSUMER.MSG.NEXT.{stream}.{durable}"
            await link.nc.publish(subject, json.dumps(request).encode(), reply=reply)
            # A pull for a consumer that no longer exists gets no answer at all (the API's
            # subscription takes it): a no_wait pull is answered at once, so silence means look.
            if "no_wait" in request and not await link.answered(pull, PROBE_AFTER_S):
                await self._check_consumer(link, stream, durable)
            if not await self._answered_unless_left(pull, wait_s + REQUEST_TIMEOUT_S, abandoned):
                return []
        if pull.gone:
            raise _ConsumerGone
        if pull.error is not None and (not pull.messages or not link.usable):
            raise EngineUnavailable(f"JetStream pull failed: {pull.error}")
        return pull.messages

    @staticmethod
    async def _answered_unless_left(pull: _Pull, timeout_s: float, abandoned: asyncio.Event | None) -> bool:
        """True once the pull is answered; False when its member left first, which orphans it
        (delivery() then keeps listening and naks what still comes); a silent server raises."""
        await until_set(pull.finished, abandoned, timeout_s)
        if pull.finished.is_set():
            return True
        if abandoned is not None and abandoned.is_set():
            pull.orphaned = True
            return False
        raise EngineUnavailable(f"JetStream did not answer within {timeout_s:.1f}s")

    @staticmethod
    async def _check_consumer(link: _Link, stream: str, durable: str) -> None:
        try:
            await link.api(f"CONSUMER.INFO.{stream}.{durable}")
        except _ApiError as error:
            if error.err_code in (ERR_CONSUMER_NOT_FOUND, ERR_STREAM_NOT_FOUND):
                raise _ConsumerGone from None
            raise

    async def settle(self, messages: list[Msg], verdict: bytes) -> None:
        """Ack (``+ACK``) or nak (``-NAK``) every message, and wait for the server to confirm
        the last one.

        Only the last asks for a confirmation: the acks go in order over one connection and the
        consumer applies them in the order they arrive, so the last one confirmed means all
        were applied. Asking for every one doubled the messages per fetched message (a fifth
        of the router's CPU in a drain: docs/performance/router.md). Naks in order put the
        messages back in that order, ahead of newer ones.
        """
        if not messages:
            return
        link = await self._connection()  # acks name their message, so any connection will do
        batch = _Batch(1)
        with _unavailable(f"confirm {verdict.decode()}"), link.batch(batch) as reply:
            for msg in messages[:-1]:
                await link.nc.publish(msg.reply, verdict)
            await link.nc.publish(messages[-1].reply, verdict, reply=reply)
            await link.wait(batch, REQUEST_TIMEOUT_S)
        if batch.error is not None:
            raise EngineUnavailable(f"JetStream did not confirm {verdict.decode()}: {batch.error}")

    # -- read without consuming (mirror agents) --------------------------------------------

    async def read(self, topic: str, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Through an ephemeral pull consumer starting at stream sequence ``after + 1``, unacked
        (ack policy none) and deleted afterwards: no group's position is touched."""
        if limit < 1:
            return []
        link = await self._connection()
        try:
            with _unavailable(f"read from {topic!r}"):
                messages = await self._read(link, topic, after, limit, timeout_s)
        except EngineUnavailable:
            if self._closing:
                return []
            raise
        return [
            (msg.metadata.sequence.stream, msg.data.decode("utf-8", errors="replace")) for msg in messages
        ]

    async def _read(self, link: _Link, topic: str, after: int, limit: int, timeout_s: float) -> list[Msg]:
        stream = stream_name(topic)
        config = {
            "description": "netplatform router read",
            "deliver_policy": "by_start_sequence",
            "opt_start_seq": max(after, 0) + 1,
            "ack_policy": "none",
            "replay_policy": "instant",
            "mem_storage": True,
            "num_replicas": 1,
            # Removed by the server should this engine die before deleting it.
            "inactive_threshold": int((timeout_s + READER_IDLE_S) * 1e9),
        }
        try:
            created = await link.api(f"CONSUMER.CREATE.{stream}", {"stream_name": stream, "config": config})
        except _ApiError as error:
            if error.err_code == ERR_STREAM_NOT_FOUND:
                raise EngineUnavailable(f"no JetStream stream for topic {topic!r}") from None
            raise
        reader = str(created["name"])
        try:
            return await self._pull_waiting(link, stream, reader, limit, timeout_s)
        except _ConsumerGone:
            raise EngineUnavailable(f"the reader of {topic!r} vanished (stream dropped?)") from None
        finally:
            with contextlib.suppress(Exception):
                await link.api(f"CONSUMER.DELETE.{stream}.{reader}")

    async def head(self, topic: str) -> int:
        link = await self._connection()
        with _unavailable(f"read the head of {topic!r}"):
            try:
                info = await link.api(f"STREAM.INFO.{stream_name(topic)}")
            except _ApiError as error:
                if error.err_code == ERR_STREAM_NOT_FOUND:
                    raise EngineUnavailable(f"no JetStream stream for topic {topic!r}") from None
                raise
        return int(info.get("state", {}).get("last_seq", 0))

    async def group_positions(self, topic: str) -> dict[str, int]:
        link = await self._connection()
        stream, positions = stream_name(topic), {}
        with _unavailable(f"list groups of {topic!r}"):
            offset, total = 0, 1
            while offset < total:
                try:
                    page = await link.api(f"CONSUMER.LIST.{stream}", {"offset": offset})
                except _ApiError as error:
                    if error.err_code == ERR_STREAM_NOT_FOUND:
                        return {}
                    raise
                consumers = page.get("consumers") or []
                for info in consumers:
                    if not info.get("config", {}).get("durable_name"):
                        continue  # an ephemeral reader (read), not a group
                    group = info.get("config", {}).get("description") or info.get("name", "")
                    positions[group] = int(info.get("num_pending", 0)) + int(info.get("num_ack_pending", 0))
                offset, total = offset + len(consumers), int(page.get("total", 0))
                if not consumers:
                    break
        return positions
