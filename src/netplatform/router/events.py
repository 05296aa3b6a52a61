"""The events service object: publish to and fetch from a topic, with its ACL checked.

No HTTP here, so an in-process agent (a mirror agent) publishes through the same object and
the same checks as the routes, as its own identity (mirror_supervisor.py).
"""

from __future__ import annotations

from .access import Caller, require_consumer
from .engines.base import Engine, EngineUnavailable
from .errors import engine_unavailable, message_too_large
from .topics import Topics


class Events:
    def __init__(self, topics: Topics, engine: Engine) -> None:
        self.topics = topics
        self.engine = engine

    async def publish(self, topic: str, messages: list[str], caller: Caller) -> int:
        """Append ``messages`` to ``topic`` in order; the count, once all are durable."""
        self.topics.administrators.require_publisher(await self.topics.for_traffic(topic), caller)
        if not messages:
            return 0
        try:
            return await self.engine.publish(topic, messages)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error
        except ValueError as error:  # a message beyond the engine's size limit
            raise message_too_large(str(error)) from error

    async def read(self, topic: str, *, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Messages after sequence ``after`` with their sequence numbers, consuming nothing: what a
        mirror agent of another router reads. No ACL applies: the route needs platform.node, the
        node-level trust of mirror agents, which are on no topic's reader ACL."""
        await self.topics.for_traffic(topic)  # an unknown topic is a 404
        try:
            return await self.engine.read(topic, after, limit, timeout_s)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error

    async def fetch(
        self, topic: str, group: str, consumer: str, caller: Caller, *, limit: int, timeout_s: float
    ) -> list[str]:
        """The group's next messages (up to ``limit``), waiting up to ``timeout_s`` for the first."""
        require_consumer(await self.topics.for_traffic(topic), caller)
        try:
            return await self.engine.fetch(topic, group, consumer, limit=limit, timeout_s=timeout_s)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error
