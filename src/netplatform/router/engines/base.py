"""The contract between the message router's service objects and a message engine.

The router keeps its control plane (topics, their descriptions and ACLs) in the project's
database whatever the engine; an engine holds only the data plane: one ordered stream of
messages per topic, and one durable position per consumer group on it. Two engines implement
this: the embedded one (messages in the project's own database) and NATS JetStream (a topic is
a stream, a consumer group a durable consumer).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class StreamSpec:
    """What a topic asks of its stream. ``replicas`` is a wish; an engine caps it at what it has."""

    topic: str
    partitions: int = 1
    replicas: int = 1


class EngineUnavailable(Exception):
    """The engine could not be reached or did not answer; nothing is known to have changed."""


class PartlyStored(EngineUnavailable):
    """A publish failed after its first ``stored`` messages were durable (JetStream only: the
    embedded engine stores a publish in one transaction). The others may be stored too when the
    failure left their fate unknown (a lost connection): a client that sends them again gets
    each at least once."""

    def __init__(self, stored: int, reason: str) -> None:
        super().__init__(reason)
        self.stored = stored


class MessageTooLarge(ValueError):
    """A message of a publish is over the size limit; nothing of the publish was stored."""


def check_sizes(messages: Sequence[str], limit: int) -> None:
    """Refuse the whole publish when any message's UTF-8 form exceeds ``limit`` bytes.

    A UTF-8 character takes at most 4 bytes, so only messages longer than a quarter of the limit
    are encoded to be measured: the common small message costs a ``len``.
    """
    for index, message in enumerate(messages):
        if len(message) > limit // 4 and len(message.encode()) > limit:
            raise MessageTooLarge(f"message {index} is larger than the limit of {limit} bytes")


async def until_set(first: asyncio.Event, second: asyncio.Event | None, timeout_s: float) -> None:
    """Wait until ``first`` or ``second`` (when given) is set, at most ``timeout_s``."""
    if second is None:  # the common case (no client to watch): one waiter, as wait_for makes
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first.wait(), max(timeout_s, 0.0))
        return
    waiters = [asyncio.ensure_future(event.wait()) for event in (first, second)]
    try:
        await asyncio.wait(waiters, timeout=max(timeout_s, 0.0), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()


@dataclass(frozen=True)
class Periodic:
    """Background work of an engine, run by the kernel's job runner (web/jobs.py) every
    ``interval_s`` under ``name``: a blocking function (run in a worker thread)."""

    name: str
    interval_s: float
    work: Callable[[], object]


class Claim(Protocol):
    """Messages a fetch took for a group, not yet the group's for good.

    The router writes the answer, then commits; when the answer could not be written (the client
    left), it releases, and the group's next fetch gets the messages again, oldest first.
    """

    @property
    def messages(self) -> list[str]: ...

    async def commit(self) -> None:
        """The answer was written: the messages are gone from the group."""

    async def release(self) -> None:
        """The answer was not written: give the messages back to the group."""


class Engine(Protocol):
    """One message engine. Every method is safe to call from many tasks at once."""

    name: str  # "embedded" or "jetstream", shown in /health details and docs

    @property
    def max_message_bytes(self) -> int:
        """The largest message a publish may carry (UTF-8 bytes): the setting, or less when the
        engine itself takes less (JetStream: the server's max_payload, known once connected)."""

    async def start(self) -> None:
        """Connect and prepare (called once, in the service's lifespan, before any request)."""

    def background(self) -> list[Periodic]:
        """The engine's periodic work (retention, lapsed claims), for the kernel's job runner:
        the router's app registers each as a job, with its metrics and /health bound."""

    async def reachable(self) -> bool:
        """Whether the engine answers now (what /health reports); bounded in time."""

    async def close(self) -> None:
        """Release connections and stop background work; pending fetches return what they have."""

    async def ensure_stream(self, spec: StreamSpec) -> None:
        """Create the topic's stream, or leave an existing one as it is (idempotent)."""

    async def drop_stream(self, topic: str) -> None:
        """Remove the topic's stream, its messages and its groups' positions (absent: no error)."""

    async def publish(self, topic: str, messages: list[str]) -> int:
        """Append ``messages`` in order; return how many were appended.

        Returns only once every message is durable in the engine (the caller acknowledges the
        publish with that count). The stream must exist (ensure_stream was called). A message
        over ``max_message_bytes``: MessageTooLarge, nothing stored. A failure after the first
        messages were stored: PartlyStored; before any was: EngineUnavailable.
        """

    async def fetch(
        self,
        topic: str,
        group: str,
        consumer: str,
        *,
        limit: int,
        timeout_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> Claim:
        """Claim up to ``limit`` messages the group has not yet been given, oldest first.

        Waits up to ``timeout_s`` for the first message when none is waiting, then claims at
        once what is there (an empty claim when the time passes with nothing new). When
        ``abandoned`` is set (the client left) the wait ends and nothing is claimed. A group
        that has never fetched starts at the oldest retained message. Messages claimed for one
        member of a group are not claimed for another until released.
        """

    async def read(self, topic: str, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Up to ``limit`` messages with sequence numbers strictly after ``after``, oldest first,
        each with its sequence number; no group is involved and nothing moves.

        A topic's sequence numbers increase in publish order (embedded: the stream's sequence;
        JetStream: the stream sequence); a reader that keeps the last one it was given resumes
        there, losing nothing, which is what a mirror agent needs (a fetch moves its group before
        it answers). Expired messages are skipped. Long-polls as ``fetch`` does.
        """

    async def head(self, topic: str) -> int:
        """The topic's last sequence number (0: nothing was ever published), what ``read`` would
        reach at most now: a mirror agent's lag is this minus its position."""

    async def group_positions(self, topic: str) -> dict[str, int]:
        """How many messages each known group of the topic has still to fetch (its lag)."""
