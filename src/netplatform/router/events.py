"""The events service object: publish to and fetch from a topic, with its ACL checked.

No HTTP here, so an in-process agent (a mirror agent) publishes through the same object and
the same checks as the routes, as its own identity (mirror_supervisor.py).

A fetch hands out a claim: the route writes the answer, then settles the claim (commit when
the answer was written, release otherwise), so a client that left takes nothing away.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Literal

from ..web.errors import ApiError
from .access import Caller, require_consumer
from .engines.base import Claim, Engine, EngineUnavailable, MessageTooLarge, PartlyStored
from .errors import engine_unavailable, message_too_large
from .topic_model import Topic
from .topics import Topics

Action = Literal["pub", "sub"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Decision:
    """Whether an identity may publish (``pub``) or fetch (``sub``) a topic here, and why not."""

    allowed: bool
    reason: str | None = None


@dataclass(frozen=True)
class Published:
    """What a publish stored: its first ``count`` messages. ``failure`` says why the others
    were not (None: all were)."""

    count: int
    failure: ApiError | None = None


class Events:
    def __init__(self, topics: Topics, engine: Engine) -> None:
        self.topics = topics
        self.engine = engine

    async def publish(self, topic: str, messages: list[str], caller: Caller) -> Published:
        """Append ``messages`` to ``topic`` in order, once all are durable; a failure after the
        first were stored answers how many were (nothing stored: the error is raised)."""
        await self.admit_publisher(topic, caller)
        if not messages:
            return Published(0)
        try:
            return Published(await self.engine.publish(topic, messages))
        except PartlyStored as error:
            return Published(error.stored, engine_unavailable(str(error)))
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error
        except MessageTooLarge as error:
            raise message_too_large(str(error)) from error

    async def admit_publisher(self, topic: str, caller: Caller) -> Topic:
        """The topic, when ``caller`` may publish to it (403 otherwise; 404 for an unknown topic):
        the one check of a publish and of :meth:`decide`."""
        found = await self.topics.for_traffic(topic)
        await self.topics.administrators.require_publisher(found, caller)
        return found

    async def admit_consumer(self, topic: str, caller: Caller) -> Topic:
        """The topic, when ``caller`` may fetch from it: the one check of a fetch and of :meth:`decide`."""
        found = await self.topics.for_traffic(topic)
        require_consumer(found, caller)
        return found

    async def decide(self, topic: str, caller: Caller | None, action: Action) -> Decision:
        """Whether ``caller`` may ``action`` the topic, decided by the checks a publish or a fetch
        takes (an unknown topic is the same 404); None is an identity unknown here."""
        if caller is None:
            return Decision(False, "no such identity here")
        admit = self.admit_publisher if action == "pub" else self.admit_consumer
        try:
            await admit(topic, caller)
        except ApiError as refused:
            if refused.status != 403:
                raise
            return Decision(False, refused.message)
        return Decision(True)

    async def read(self, topic: str, *, after: int, limit: int, timeout_s: float) -> list[tuple[int, str]]:
        """Messages after sequence ``after`` with their sequence numbers, consuming nothing: what a
        mirror agent of another router reads. No ACL applies: the route needs platform.node, the
        node-level trust of mirror agents, which are on no topic's reader ACL."""
        await self.topics.for_traffic(topic)  # an unknown topic is a 404
        try:
            return await self.engine.read(topic, after, limit, timeout_s)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error

    async def head(self, topic: str) -> int:
        """The topic's last sequence number (0: none yet), for a mirror agent's lag."""
        try:
            return await self.engine.head(topic)
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error

    async def fetch(
        self,
        topic: str,
        group: str,
        consumer: str,
        caller: Caller,
        *,
        limit: int,
        timeout_s: float,
        abandoned: asyncio.Event | None = None,
    ) -> Claim:
        """The group's next messages (up to ``limit``), waiting up to ``timeout_s`` for the first
        unless ``abandoned`` is set first; settle() the claim once the answer is out (or not)."""
        await self.admit_consumer(topic, caller)
        try:
            return await self.engine.fetch(
                topic, group, consumer, limit=limit, timeout_s=timeout_s, abandoned=abandoned
            )
        except EngineUnavailable as error:
            raise engine_unavailable(str(error)) from error

    @staticmethod
    async def settle(claim: Claim, *, delivered: bool) -> None:
        """Commit the claim when its answer was written, else give its messages back.

        Nobody is left to tell of a failure here, and nothing is lost by one: a commit that fails
        leaves the claim to lapse (JetStream's ack wait, the embedded engine's claim lease), so
        its messages come again, a duplicate; a release that fails gives them back the same way.
        """
        try:
            await (claim.commit() if delivered else claim.release())
        except EngineUnavailable as error:
            verb = "commit" if delivered else "release"
            log.warning("could not %s %d fetched messages: %s", verb, len(claim.messages), error)
