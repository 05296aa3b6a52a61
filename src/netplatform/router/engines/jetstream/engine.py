"""The NATS JetStream engine: a topic is a file-backed stream, a consumer group a durable pull consumer.

Issue 14, section 1. The router keeps topics' metadata and ACLs in its own database; here live
only the messages (one stream per topic, ``max_age`` = the retention) and the groups' positions
(one durable consumer per group, explicit acks, starting at the oldest retained message).
Every request goes over the engine's one connection (link.py), connecting again after a loss.

A fetch pulls messages (ack-pending on the server) and hands them over as a claim: the router
acks them once its answer is written, or naks them when it could not be, and JetStream gives
nak'd messages to the group's next pull before any newer one. A member that leaves during a
long poll leaves its pull request on the server until it expires; the subscription stays until
then, and naks a message that still arrives for it, so the group gets that one again at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from nats.aio.msg import Msg

from ..base import EngineUnavailable, PartlyStored, Periodic, StreamSpec, check_sizes, until_set
from .link import (
    API,
    CONNECT_TIMEOUT_S,
    ERR_CONSUMER_NOT_FOUND,
    ERR_PLACEMENT,
    ERR_STREAM_NAME_IN_USE,
    ERR_STREAM_NOT_FOUND,
    REQUEST_TIMEOUT_S,
    ApiError,
    Batch,
    Link,
    Pull,
    consumer_name,
    stream_name,
    stream_subject,
    unavailable,
)

log = logging.getLogger(__name__)

PROBE_AFTER_S = 0.5  # a no_wait pull still unanswered after this: is the consumer there?
READER_IDLE_S = 10.0  # an ephemeral reader left behind (engine died) is removed after this
ACK_WAIT_S = 30.0  # a member that dies between delivery and ack: the group gets it again after this
MAX_REPLICAS = 5  # JetStream's own ceiling


class _ConsumerGone(Exception):
    """The group's consumer vanished (dropped and recreated elsewhere): create it again."""


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
        self._link: Link | None = None
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

    def background(self) -> list[Periodic]:
        """None: the JetStream server keeps its streams' retention and its consumers' acks."""
        return []

    async def reachable(self) -> bool:
        """Whether JetStream answers an account-info request (connecting when need be)."""
        try:
            link = await self._connection()
            with unavailable("account info"):
                await link.api("INFO")
        except EngineUnavailable:
            return False
        return True

    async def close(self) -> None:
        self._closing = True
        link, self._link = self._link, None
        if link is not None:
            await link.close()

    async def _connection(self) -> Link:
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
            link = Link()
            with unavailable(f"connect to {self._url}"):
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
        with unavailable(f"create stream for {spec.topic!r}"):
            for replicas in range(max(1, min(spec.replicas, MAX_REPLICAS)), 0, -1):
                try:
                    await link.api(f"STREAM.CREATE.{name}", self._stream_config(spec.topic, replicas))
                    return
                except ApiError as error:
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

    async def _check_existing(self, link: Link, topic: str) -> None:
        """An existing stream with other settings (replicas, retention) is kept as it is."""
        info = await link.api(f"STREAM.INFO.{stream_name(topic)}")
        subjects = info.get("config", {}).get("subjects", [])
        if subjects != [stream_subject(topic)]:
            raise EngineUnavailable(f"stream {stream_name(topic)} exists with other subjects {subjects}")

    async def drop_stream(self, topic: str) -> None:
        link = await self._connection()
        name = stream_name(topic)
        with unavailable(f"delete stream for {topic!r}"):
            try:
                await link.api(f"STREAM.DELETE.{name}")
            except ApiError as error:
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
        subject, batch = stream_subject(topic), Batch(len(payloads))
        try:
            with unavailable(f"publish to {topic!r}"), link.batch(batch) as reply:
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
            with unavailable(f"fetch from {topic!r}"):
                pulled = await self._fetch(link, topic, group, limit, timeout_s, abandoned)
        except EngineUnavailable:
            if self._closing:
                return _Claim(self, [])  # close() cut the wait short; nothing was acked
            raise
        return _Claim(self, pulled)

    async def _fetch(
        self,
        link: Link,
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

    async def _ensure_consumer(self, link: Link, topic: str, group: str) -> None:
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
        except ApiError as error:
            if error.err_code == ERR_STREAM_NOT_FOUND:
                raise EngineUnavailable(f"no JetStream stream for topic {topic!r}") from None
            await link.api(f"CONSUMER.INFO.{stream}.{durable}")  # created meanwhile with other settings
        self._consumers.add((stream, durable))

    async def _pull_waiting(
        self,
        link: Link,
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
        link: Link,
        stream: str,
        durable: str,
        request: dict[str, Any],
        wait_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> list[Msg]:
        pull = Pull(int(request["batch"]))
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
    async def _answered_unless_left(pull: Pull, timeout_s: float, abandoned: asyncio.Event | None) -> bool:
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
    async def _check_consumer(link: Link, stream: str, durable: str) -> None:
        try:
            await link.api(f"CONSUMER.INFO.{stream}.{durable}")
        except ApiError as error:
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
        batch = Batch(1)
        with unavailable(f"confirm {verdict.decode()}"), link.batch(batch) as reply:
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
            with unavailable(f"read from {topic!r}"):
                messages = await self._read(link, topic, after, limit, timeout_s)
        except EngineUnavailable:
            if self._closing:
                return []
            raise
        return [
            (msg.metadata.sequence.stream, msg.data.decode("utf-8", errors="replace")) for msg in messages
        ]

    async def _read(self, link: Link, topic: str, after: int, limit: int, timeout_s: float) -> list[Msg]:
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
        except ApiError as error:
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
        with unavailable(f"read the head of {topic!r}"):
            try:
                info = await link.api(f"STREAM.INFO.{stream_name(topic)}")
            except ApiError as error:
                if error.err_code == ERR_STREAM_NOT_FOUND:
                    raise EngineUnavailable(f"no JetStream stream for topic {topic!r}") from None
                raise
        return int(info.get("state", {}).get("last_seq", 0))

    async def group_positions(self, topic: str) -> dict[str, int]:
        link = await self._connection()
        stream, positions = stream_name(topic), {}
        with unavailable(f"list groups of {topic!r}"):
            offset, total = 0, 1
            while offset < total:
                try:
                    page = await link.api(f"CONSUMER.LIST.{stream}", {"offset": offset})
                except ApiError as error:
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
