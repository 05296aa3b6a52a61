"""The link to NATS JetStream: one client connection, its requests and their replies.

Everything goes over one client connection per engine. Replies (publish acks, ack confirmations,
pulled messages) arrive on one wildcard inbox and are routed to the batch that asked for them,
so a batch of publishes or acks is pipelined: every request is written at once, in order, and
the batch waits once for all the answers. NATS keeps one connection's messages in order, which
keeps each topic's order. The client does not reconnect by itself: a lost connection fails what
is in flight at once (EngineUnavailable) and the next call connects again, every step bounded
by a timeout so that nothing hangs on a server that is down or silent.

Here too: the JetStream API's subjects and error codes, and the names of the streams and
consumers that stand for topics and groups. What the router asks of them is in engine.py.
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
from typing import Any

import nats
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from ..base import EngineUnavailable

log = logging.getLogger(__name__)

API = "$JS.API"
SUBJECT_ROOT = "netplatform.router"
CONNECT_TIMEOUT_S = 2.0
REQUEST_TIMEOUT_S = 5.0
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


class ApiError(Exception):
    """JetStream's API answered with an error."""

    def __init__(self, error: dict[str, Any]) -> None:
        self.code = int(error.get("code", 0))
        self.err_code = int(error.get("err_code", 0))
        self.description = str(error.get("description", "unknown error"))
        super().__init__(f"{self.description} (code {self.code}, err_code {self.err_code})")


@contextlib.contextmanager
def unavailable(what: str) -> Iterator[None]:
    """Turn a transport failure or an unexpected refusal into EngineUnavailable."""
    try:
        yield
    except (OSError, TimeoutError, nats.errors.Error, ApiError) as error:
        raise EngineUnavailable(f"JetStream {what}: {error!r}") from error


class Batch:
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


class Pull(Batch):
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


class Link:
    """One client connection and the inbox on which every reply to it arrives."""

    def __init__(self) -> None:
        self.nc = Client()
        self.prefix = ""
        self._batches: dict[str, Batch] = {}
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
    def batch(self, batch: Batch) -> Iterator[str]:
        """Register ``batch`` for the replies to the reply subject this yields."""
        key = str(next(self._ids))
        self._batches[key] = batch
        try:
            yield f"{self.prefix}.{key}"
        finally:
            self._batches.pop(key, None)

    @contextlib.asynccontextmanager
    async def delivery(self, pull: Pull, linger_s: float) -> AsyncIterator[str]:
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

    def _linger(self, sub: Subscription, pull: Pull, linger_s: float) -> None:
        async def until_over() -> None:
            await self.answered(pull, linger_s)
            with contextlib.suppress(nats.errors.Error):
                await sub.unsubscribe()

        task = asyncio.create_task(until_over(), name="router-orphaned-pull")
        self._lingering.add(task)
        task.add_done_callback(self._lingering.discard)

    async def wait(self, batch: Batch, timeout_s: float) -> None:
        """Wait for ``batch`` to be answered; a server that stays silent is unavailable."""
        if not await self.answered(batch, timeout_s):
            raise EngineUnavailable(f"JetStream did not answer within {timeout_s:.1f}s")

    @staticmethod
    async def answered(batch: Batch, timeout_s: float) -> bool:
        try:
            await asyncio.wait_for(batch.finished.wait(), timeout_s)
        except TimeoutError:
            return False
        return True

    async def api(self, subject: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """One JetStream API request; an error answer raises ApiError."""
        payload = json.dumps(body).encode() if body is not None else b""
        try:
            msg = await self.nc.request(f"{API}.{subject}", payload, timeout=REQUEST_TIMEOUT_S)
        except nats.errors.NoRespondersError:
            raise EngineUnavailable("JetStream is not enabled on the server (no responders)") from None
        answer: dict[str, Any] = json.loads(msg.data)
        if "error" in answer:
            raise ApiError(answer["error"])
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
