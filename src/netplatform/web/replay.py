"""Answers of read-mostly GET routes replayed without the framework, while their data stands.

A route whose whole answer is a function of the request and of one generation scope of its
database (:mod:`netplatform.store.generations`) declares so with its service's marker, made by
:func:`replayable`. Its first answer is kept; a later request that is the same in every respect
an answer could depend on (path, query, headers, client address) gets the kept bytes again as
long as the scope's generation has not moved. A request like that costs the kernel's own work
and one shared read of the generation: the framework's routing, dependency solving, the thread
hop and the query are skipped, which on a hot GET is nine tenths of its time.

Why this never serves a stale answer:

* :func:`replayable` reads the generation *before* the route reads its data (FastAPI solves a
  route's own ``dependencies`` first), so an answer is never older than the generation it is
  kept under: the same ordering :class:`~netplatform.store.generations.GenerationCache` uses;
* a replay reads the generation afresh (a read that starts after the request arrived) and
  replays only when it is unchanged: a write acknowledged by any instance has moved it;
* only 200 answers are kept, and the kernel runs first, so authentication happens on every
  request; the credentials and every other header are part of what must match, so one
  caller's answer is never replayed to another.

An answer that is one object's (its marker has an ``object_of``: a feed, a config entry, a
topic, a policy type) stands across writes to other objects: when the generation has moved, the
scope's change log (store/generations.py) tells whether any change between the answer's
generation and the one just read touched its object's key or every object (NULL); if none did,
it is replayed and kept under the new generation. The change rows are written in the same
transaction as the generation they record, so a generation read after a write was acknowledged
comes with that write's key; an instance that can no longer see the whole stretch in the log
(pruned) treats the answer as changed.

The kernel's per-request headers (the request id and the echoed correlation ids) and a few
that no answer depends on are left out of the match; the kernel adds its headers to a replayed
answer as to any other, and the access log and metrics see it under its route.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Depends, Request
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..store.generations import Generation

_MARK = "netplatform.replayable"

# Headers no answer of this platform depends on: connection management, caching hints (every
# replay is revalidated anyway) and client identification.
UNRELATED_HEADERS = frozenset(
    {b"connection", b"keep-alive", b"user-agent", b"cache-control", b"pragma", b"accept-encoding", b"te"}
)

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024

Key = tuple[Any, ...]


def replayable(
    generation_of: Callable[[Request], Generation], object_of: Callable[[Request], str | None] | None = None
) -> Any:
    """A route dependency: this route's 200 answers may be replayed while the generation stands.

    Pass it in the route's ``dependencies=[...]``, or a router's to cover all of its GET routes
    (both are solved before the route's parameters, so before any data is read); other methods
    pass through unmarked. ``generation_of`` finds the scope's :class:`Generation` from the
    request. Each service makes one marker, in its ``deps.py``, named ``REPLAYABLE``::

        REPLAYABLE = replayable(OBJECTS.pick(lambda o: o.catalog))

    With ``object_of``, the answer is one object's: ``object_of(request)`` gives its key, as the
    scope's change log records it (store/migrations/watched_scopes.py), and the answer is then
    still replayed after writes to other objects (see :meth:`ReplayShortcut._stands`). Give it
    only to a route whose every read is of rows recorded under that key or under no key (NULL:
    every object); ``None`` from it (a path it cannot map) keeps the answer scope-wide.
    """

    async def mark(request: Request) -> None:
        if request.method != "GET":
            return
        generation = generation_of(request)
        state = request.scope.setdefault("state", {})
        earlier = state.get(_MARK)
        # A route's own marker after its router's: the generation the router's read is as good
        # (read before any data too), and one read is cheaper than two.
        value = earlier[1] if earlier is not None and earlier[0] is generation else await generation.current()
        found = object_of(request) if object_of is not None else None
        state[_MARK] = (generation, value, frozenset((found,)) if found is not None else None)

    return Depends(mark)


@dataclass
class _Kept:
    generation: Generation
    value: int
    keys: frozenset[str] | None  # the objects it shows; None: the whole scope
    route: Any
    start: Message
    body: bytes

    @property
    def size(self) -> int:
        return len(self.body) + sum(len(n) + len(v) for n, v in self.start.get("headers", ()))


@dataclass
class ReplayCounts:
    hits: int = 0
    carried: int = 0  # hits after the generation moved on, by writes to other objects
    misses: int = 0
    stale: int = 0
    kept_bytes: int = 0
    entries: OrderedDict[Key, _Kept] = field(default_factory=OrderedDict)


class ReplayShortcut:
    """The ASGI layer that keeps and replays answers of :func:`replayable` routes.

    It sits inside the kernel's layer (after authentication, inside the request id and access
    log), innermost of the kernel's shortcuts. At most ``max_bytes`` of answers are kept, least
    recently used first out; an answer larger than ``max_answer_bytes`` is never kept.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        kernel_headers: Iterable[bytes] = (),
        max_bytes: int = DEFAULT_MAX_BYTES,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        counts: ReplayCounts | None = None,
    ) -> None:
        self.app = app
        self.ignored = UNRELATED_HEADERS | frozenset(kernel_headers)
        self.max_bytes = max_bytes
        self.max_answer_bytes = max_answer_bytes
        self.counts = counts if counts is not None else ReplayCounts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        key = self._key(scope)
        kept = self.counts.entries.get(key)
        if kept is not None:
            if await self._stands(kept):
                await self._replay(scope, send, key, kept)
                return
            self._drop(key, kept)
        await self.app(scope, receive, self._keeping(scope, send, key, stale=kept is not None))

    def _key(self, scope: Scope) -> Key:
        headers = tuple(h for h in scope["headers"] if h[0] not in self.ignored)
        client = scope.get("client")
        return (
            scope.get("scheme"),
            scope.get("root_path", ""),
            scope["path"],
            # The raw path too: a %2F inside a key is not a slash to a route that reads it raw.
            scope.get("raw_path"),
            scope.get("query_string", b""),
            client[0] if client else None,
            headers,
        )

    async def _stands(self, kept: _Kept) -> bool:
        """Whether the kept answer is still the answer: the generation has not moved, or (an
        object's answer) no change since touched its object or every object. A fresh read of
        the generation, then the change log up to it, so a write acknowledged before the request
        arrived is seen. An answer that stands is kept under the generation read, so the next
        request compares from there."""
        now = await kept.generation.current()
        if now == kept.value:
            return True
        if kept.keys is None or not await kept.generation.unchanged(kept.keys, kept.value, now):
            return False
        self.counts.carried += 1
        kept.value = max(kept.value, now)
        return True

    async def _replay(self, scope: Scope, send: Send, key: Key, kept: _Kept) -> None:
        self.counts.hits += 1
        # While _stands awaited the database, other requests may have pushed this answer out,
        # or kept a newer one under its key: only the answer still kept moves to the young end.
        if self.counts.entries.get(key) is kept:
            self.counts.entries.move_to_end(key)
        scope["route"] = kept.route
        # Fresh message dicts: the layers outside rewrite the start message's headers in place.
        await send({**kept.start, "headers": list(kept.start.get("headers", ()))})
        await send({"type": "http.response.body", "body": kept.body, "more_body": False})

    def _keeping(self, scope: Scope, send: Send, key: Key, *, stale: bool) -> Send:
        """``send``, keeping the answer when the route marked it replayable and it is a 200."""
        start: Message | None = None
        chunks: list[bytes] = []
        size = 0

        async def keeping_send(message: Message) -> None:
            nonlocal start, size
            if message["type"] == "http.response.start":
                mark = scope.get("state", {}).get(_MARK)
                if mark is not None:
                    self._count(stale)
                    if message["status"] == 200:
                        start = {**message, "headers": list(message.get("headers", ()))}
            elif start is not None and message["type"] == "http.response.body":
                body = message.get("body", b"")
                size += len(body)
                if size > self.max_answer_bytes:
                    start = None
                    chunks.clear()
                else:
                    chunks.append(body)
                    if not message.get("more_body", False):
                        generation, value, keys = scope["state"][_MARK]
                        body = b"".join(chunks)
                        self._keep(key, _Kept(generation, value, keys, scope.get("route"), start, body))
            await send(message)

        return keeping_send

    def _count(self, stale: bool) -> None:
        if stale:
            self.counts.stale += 1
        else:
            self.counts.misses += 1

    def _keep(self, key: Key, kept: _Kept) -> None:
        self._drop(key)
        entries = self.counts.entries
        entries[key] = kept
        self.counts.kept_bytes += kept.size
        while self.counts.kept_bytes > self.max_bytes and entries:
            self._drop(next(iter(entries)))

    def _drop(self, key: Key, only: _Kept | None = None) -> None:
        """Forget the answer kept under ``key`` (given ``only``: if it is still that one, not a
        newer answer another request kept while this one awaited the database)."""
        kept = self.counts.entries.get(key)
        if kept is None or (only is not None and kept is not only):
            return
        del self.counts.entries[key]
        self.counts.kept_bytes -= kept.size


def register_replay_metrics(registry: CollectorRegistry, service: str, counts: ReplayCounts) -> None:
    """``answer_replays_total{service, result="hit"|"miss"|"stale"}`` and the bytes kept."""
    registry.register(_ReplayCollector(service, counts))


class _ReplayCollector(Collector):
    def __init__(self, service: str, counts: ReplayCounts) -> None:
        self.service = service
        self.counts = counts

    def collect(self) -> Any:
        replays = CounterMetricFamily(
            "answer_replays",
            "GET answers replayed while their generation stood (hit), first computed (miss), or "
            "computed again because the generation had moved (stale)",
            labels=["service", "result"],
        )
        counts = self.counts
        for result, count in (("hit", counts.hits), ("miss", counts.misses), ("stale", counts.stale)):
            replays.add_metric([self.service, result], count)
        yield replays
        carried = CounterMetricFamily(
            "answer_replays_across_writes",
            "Replays (counted as hits too) of an object's answer after writes to other objects "
            "of its scope had moved the generation on",
            labels=["service"],
        )
        carried.add_metric([self.service], counts.carried)
        yield carried
