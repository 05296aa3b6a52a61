"""The contract between the message router's service objects and a message engine.

The router keeps its control plane (topics, their descriptions and ACLs) in the project's
database whatever the engine; an engine holds only the data plane: one ordered stream of
messages per topic, and one durable position per consumer group on it. Two engines implement
this: the embedded one (messages in the project's own database) and NATS JetStream (a topic is
a stream, a consumer group a durable consumer).
"""

from __future__ import annotations

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


class Engine(Protocol):
    """One message engine. Every method is safe to call from many tasks at once."""

    name: str  # "embedded" or "jetstream", shown in /health details and docs

    async def start(self) -> None:
        """Connect and prepare (called once, in the service's lifespan, before any request)."""

    async def close(self) -> None:
        """Release connections and stop background work; pending fetches return what they have."""

    async def ensure_stream(self, spec: StreamSpec) -> None:
        """Create the topic's stream, or leave an existing one as it is (idempotent)."""

    async def drop_stream(self, topic: str) -> None:
        """Remove the topic's stream, its messages and its groups' positions (absent: no error)."""

    async def publish(self, topic: str, messages: list[str]) -> int:
        """Append ``messages`` in order; return how many were appended.

        Returns only once every message is durable in the engine (the caller acknowledges the
        publish with that count). The stream must exist (ensure_stream was called).
        """

    async def fetch(
        self, topic: str, group: str, consumer: str, *, limit: int, timeout_s: float
    ) -> list[str]:
        """Up to ``limit`` messages the group has not yet been given, oldest first.

        Waits up to ``timeout_s`` for the first message when none is waiting, then returns
        at once with what is there ([] when the time passes with nothing new). A group that has
        never fetched starts at the oldest retained message. Messages handed to one member of a
        group are not handed to another; the group's position is durable once this returns.
        """

    async def read(self, topic: str, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Up to ``limit`` messages with sequence numbers strictly after ``after``, oldest first,
        each with its sequence number; no group is involved and nothing moves.

        A topic's sequence numbers increase in publish order (embedded: the stream's sequence;
        JetStream: the stream sequence); a reader that keeps the last one it was given resumes
        there, losing nothing, which is what a mirror agent needs (a fetch moves its group before
        it answers). Expired messages are skipped. Long-polls as ``fetch`` does.
        """

    async def group_positions(self, topic: str) -> dict[str, int]:
        """How many messages each known group of the topic has still to fetch (its lag)."""
