"""Read-mostly answers cached in the process, invalidated by a generation counter in the database.

A service keeps one counter per *scope* (a set of tables whose answers it caches) in a table of
its own, created by its migrations (:func:`generations_table` gives the shape, as
:func:`~.database_blobs.blob_chunks_table` does for blobs). Every write of the scope moves it
inside its own write transaction, either by calling :func:`bump` or through the triggers its
migrations install (store/migrations/watched_scopes.py), so the commit that changes the data
also makes the new generation visible to every instance at once: there is no message to lose.
:class:`Generation` reads it; the kernel's replay shortcut (web/replay.py) and
:class:`GenerationCache` serve answers under it.

:class:`GenerationCache` serves an answer computed once per generation. Each request reads the
generation (one primary-key SELECT, in a statement of its own); when it equals the generation
the cached answers were computed under, the cached answer is served, else the
answer is computed in a read transaction that reads the generation again, first, and is cached
under that generation. So:

* no stale read after an acknowledged write, by this instance or any other: the write's commit
  moved the generation, and an answer is only served under the generation it was cached with;
* reading the generation *before* the data is what makes this hold on PostgreSQL's READ
  COMMITTED (where each statement takes a fresh snapshot) as on SQLite (one snapshot per
  transaction): the data an answer was computed from is never older than its generation;
* the generation is read on every request, never cached itself: a cached generation would let
  one instance serve an answer another instance's acknowledged write has made stale.

A scope may also keep a change log (:func:`changes_table`): each generation step records the
keys of the objects it changed (NULL: every object), written by the same triggers or ``bump``
in the same transaction. :meth:`Generation.unchanged` reads it, once per step for all callers,
so the replay of one object's answer (web/replay.py) survives writes to the others.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import (
    BigInteger,
    Column,
    Index,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.orm import Session

from .db import Database, OneStatementRead
from .unit_of_work import UnitOfWork

Value = TypeVar("Value")
Repo = TypeVar("Repo")

DEFAULT_MAX_ENTRIES = 512
DEFAULT_KEEP = 4096
"""Generations of change rows kept per scope (the triggers of watched_scopes.py keep as many)."""
PRUNE_EVERY = 64
"""bump() drops the rows ``keep`` generations behind once every this many generations, not in
every write (a policy write group pays one statement less; the log keeps at most this many
generations more)."""
DEFAULT_MAX_KEYS = 65536
"""Object keys an instance remembers per scope before it forgets them all (see _ChangeLog)."""


def generations_table(name: str, metadata: MetaData) -> Table:
    """The shape of a generation table: one row per scope."""
    return Table(
        name,
        metadata,
        Column("scope", String(64), primary_key=True),
        Column("generation", BigInteger, nullable=False),
    )


def changes_table(name: str, metadata: MetaData) -> Table:
    """The shape of a change log: one row per object key a generation step changed (NULL: every
    object of the scope). Written by the triggers of store/migrations/watched_scopes.py, or by
    :func:`bump`; read by :class:`Generation` to keep replays of the objects a write left alone."""
    return Table(
        name,
        metadata,
        Column("scope", String(64), nullable=False),
        Column("generation", BigInteger, nullable=False),
        Column("object_key", Text, nullable=True),
        Index(f"ix_{name}_scope_generation", "scope", "generation"),
    )


def current(session: Session, table: Table, scope: str) -> int:
    """The scope's generation as this transaction sees it (0 before its first write)."""
    found = session.execute(select(table.c.generation).where(table.c.scope == scope)).scalar()
    return int(found) if found is not None else 0


def bump(
    session: Session,
    table: Table,
    scope: str,
    *,
    changes: Table | None = None,
    keys: Callable[[], Iterable[str | None]] | None = None,
    keep: int = DEFAULT_KEEP,
) -> None:
    """Move the scope's generation on, in the caller's write transaction.

    The row stays locked until that transaction ends, so call it last in the transaction: writers
    of the scope queue on it only for the time of their commit. A scope with no row yet gets one;
    two first writers racing to insert it meet on the primary key, and the loser is run again by
    :func:`~.retry.write_with_retry`.

    With ``changes`` (a :func:`changes_table`), the objects changed are recorded under the new
    generation: ``keys()``, called once the row is locked (so it sees every write committed under
    an earlier generation), none or None meaning every object. Once every :data:`PRUNE_EVERY`
    generations the rows ``keep`` generations behind are dropped (the triggers of
    store/migrations/watched_scopes.py drop them in every write).
    """
    generation = session.execute(_moving(table), {"moved_scope": scope}).scalar()
    if generation is None:
        session.execute(insert(table).values(scope=scope, generation=1))
        generation = 1
    if changes is None:
        return
    changed = set(keys()) if keys is not None else set()
    rows = [{"scope": scope, "generation": generation, "object_key": key} for key in changed or {None}]
    session.execute(insert(changes), rows)
    if generation % PRUNE_EVERY == 0:
        session.execute(
            delete(changes).where(changes.c.scope == scope, changes.c.generation <= generation - keep)
        )


@functools.cache
def _moving(table: Table) -> Any:
    """``UPDATE ... SET generation = generation + 1 ... RETURNING generation`` for a scope, built
    once per table (a policy write runs it in every group)."""
    return (
        update(table)
        .where(table.c.scope == bindparam("moved_scope"))
        .values(generation=table.c.generation + 1)
        .returning(table.c.generation)
    )


Read = TypeVar("Read")
Ended = Callable[[], Awaitable[bool]]
"""Whether a long poll should answer now (web/longpoll.py: its client is gone, the process stops)."""


def read_at_one_generation(peek: Callable[[], int], read: Callable[[int], Read]) -> tuple[int, Read]:
    """``read(generation)`` as of one generation: run between two equal readings of it (under
    read committed, the statements of one read may see different commits). Blocking."""
    while True:
        before = peek()
        value = read(before)
        if peek() == before:
            return before, value


async def wait_past(
    known: int,
    wait_s: float,
    current: Callable[[], Awaitable[int]],
    poll_s: float,
    ended: Ended | None = None,
) -> tuple[int, bool]:
    """A long poll's wait: (the generation, True) as soon as it differs from ``known`` (read every
    ``poll_s``), or (the generation, False) when it has not within ``wait_s`` seconds, or when
    ``ended`` says nobody waits any more (web/longpoll.py)."""
    deadline = time.monotonic() + wait_s
    while True:
        now = await current()
        if now != known:
            return now, True
        if time.monotonic() >= deadline or (ended is not None and await ended()):
            return now, False
        await anyio.sleep(min(poll_s, max(0.0, deadline - time.monotonic())))


class Generation:
    """The generation of one scope as last committed, read on demand (never remembered).

    :meth:`current` is for callers on the event loop: requests arriving together share one read
    (:class:`_SharedRead`), one thread hop for all of them. :meth:`peek` is for worker threads.
    """

    def __init__(self, db: Database, table: Table, scope: str, *, changes: Table | None = None) -> None:
        self.db = db
        self.table = table
        self.scope = scope
        # The scope is the service's own constant, never a client's, so it is inlined.
        query = select(table.c.generation).where(table.c.scope == scope)
        self._peek_sql = str(query.compile(db.engine, compile_kwargs={"literal_binds": True}))
        self._reads = _SharedRead(self.peek)
        self.changes = _ChangeLog(db, changes, scope) if changes is not None else None

    async def current(self) -> int:
        value = await self._reads.current()
        if self.changes is not None:
            self.changes.start(value)
        return value

    async def unchanged(self, keys: frozenset[str], since: int, now: int) -> bool:
        """Whether no change between generation ``since`` and ``now`` (a generation read after
        the caller's request arrived) touched an object of ``keys`` or every object. False when
        the scope keeps no change log, or when its log no longer reaches back to ``since``."""
        if self.changes is None:
            return False
        return await self.changes.unchanged(keys, since, now)

    def in_transaction(self, session: Session) -> int:
        """The generation as ``session``'s transaction sees it."""
        return current(session, self.table, self.scope)

    def peek(self) -> int:
        """The generation last committed: one statement on a pooled DBAPI connection.

        A hit needs nothing else from the database, so it skips the ORM session and the explicit
        transaction (BEGIN, ROLLBACK) of :meth:`Database.read`: most of a hit's cost otherwise.
        """
        rows = self.db.rows_of_one_statement(self._peek_sql)
        row = rows[0] if rows else None
        return int(row[0]) if row is not None else 0


class GenerationCache(Generic[Repo, Value]):
    """Answers of one scope, each computed once per generation (at most ``max_entries`` kept),
    through ``unit``'s repository.

    The answers of older generations are dropped together as soon as a request sees a newer one.
    ``compute`` must only read: it runs in the request's read transaction.
    """

    def __init__(
        self,
        unit: UnitOfWork[Repo],
        table: Table,
        scope: str,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        changes: Table | None = None,
    ) -> None:
        self.unit = unit
        db = unit.db
        # The change log serves the replay of answers (web/replay.py); this cache keeps whole
        # generations.
        self.generation = Generation(db, table, scope, changes=changes)
        self.scope = scope
        self.max_entries = max_entries
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._entries: dict[Hashable, Value] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable, compute: Callable[[Repo], Value]) -> Value:
        """The answer for ``key``: cached under the current generation, else computed now.

        For a caller in a worker thread. An exception from ``compute`` (a 404, say) is raised
        and nothing is cached.
        """
        found = self._lookup(self.generation.peek(), key)
        return found.value if found is not None else self._compute(key, compute)

    async def answer(self, key: Hashable, compute: Callable[[Repo], Value]) -> Value:
        """:meth:`get` for a caller on the event loop: a hit costs no thread of its own.

        Requests arriving together share one read of the generation; only a miss computes, in a
        worker thread.
        """
        found = self._lookup(await self.generation.current(), key)
        if found is not None:
            return found.value
        return await anyio.to_thread.run_sync(self._compute, key, compute)

    def _lookup(self, generation: int, key: Hashable) -> _Found[Value] | None:
        with self._lock:
            if generation == self._generation and key in self._entries:
                self.hits += 1
                return _Found(self._entries[key])
            self.misses += 1
            return None

    def _compute(self, key: Hashable, compute: Callable[[Repo], Value]) -> Value:
        with self.unit.db.read() as session:
            # Read again in the computing transaction, before the data (see the module's notes).
            generation = self.generation.in_transaction(session)
            value = compute(self.unit.repository(session))
        self._store(generation, key, value)
        return value

    def _store(self, generation: int, key: Hashable, value: Value) -> None:
        with self._lock:
            if generation != self._generation:
                # A newer generation (or, in a race, an older one, which the next request corrects).
                self._generation = generation
                self._entries = {}
            elif len(self._entries) >= self.max_entries and key not in self._entries:
                self._entries.pop(next(iter(self._entries)))  # the oldest entry
            self._entries[key] = value


class _ChangeLog:
    """The last generation at which each object key of a scope changed, as far as this instance
    has read the scope's change log (:func:`changes_table`).

    It knows every change in the generations ``(floor, known]``; it is advanced to a newer
    generation by one read of the rows in between, shared by every request that needs it (the
    others wait for it). When the log no longer holds the first of them (pruned), or the gap is
    wider than it keeps, or the map grows past ``max_keys``, it forgets: ``floor`` moves to the
    new generation, so an answer kept under an older one counts as changed.
    """

    def __init__(self, db: Database, changes: Table, scope: str, *, max_keys: int = DEFAULT_MAX_KEYS) -> None:
        self.max_keys = max_keys
        self.floor = 0
        self.known: int | None = None
        self.last: dict[str | None, int] = {}
        self._lock = anyio.Lock()
        # Compiled once and run on a driver connection: this read is on the path of a replay.
        self._since = OneStatementRead(
            db,
            select(changes.c.generation, changes.c.object_key)
            .where(
                changes.c.scope == bindparam("scope"),
                changes.c.generation > bindparam("after"),
                changes.c.generation <= bindparam("upto"),
            )
            .order_by(changes.c.generation),
        )
        self.scope = scope
        self.reads = 0

    def start(self, first: int) -> None:
        """Begin at the first generation this instance read: every answer it keeps is under it
        or a later one, so changes before it are never needed."""
        if self.known is None:
            self.floor = self.known = first

    async def unchanged(self, keys: frozenset[str], since: int, now: int) -> bool:
        if self.known is None or now > self.known:
            await self._advance(now)
        if since < self.floor:
            return False
        last = self.last
        return last.get(None, 0) <= since and all(last.get(key, 0) <= since for key in keys)

    async def _advance(self, now: int) -> None:
        async with self._lock:
            known = self.known
            if known is not None and known >= now:
                return  # another request read this far while this one waited
            if known is None or now - known > DEFAULT_KEEP:
                self._forget(now)
                return
            rows = await anyio.to_thread.run_sync(self._read, known, now)
            if not rows or rows[0][0] != known + 1:
                self._forget(now)  # pruned: what changed just after ``known`` is not known
                return
            for generation, key in rows:
                self.last[key] = generation
            self.known = now
            if len(self.last) > self.max_keys:
                self._forget(now)

    def _read(self, after: int, upto: int) -> list[tuple[int, str | None]]:
        self.reads += 1
        found = self._since.rows(scope=self.scope, after=after, upto=upto)
        return [(int(generation), key) for generation, key in found]

    def _forget(self, now: int) -> None:
        self.floor = self.known = now
        self.last = {}


@dataclass(frozen=True)
class _Found(Generic[Value]):
    value: Value


class _SharedRead:
    """One read of the generation at a time, shared by the requests that arrived before it began.

    A request may only use a read whose statement starts after the request arrived (an older one
    could predate a write acknowledged before the request), so it joins the round that has not
    started yet, or opens one. A round starts when the previous read is done: while one read
    runs, the next round gathers every request that arrives, and one thread hop answers them all.
    """

    def __init__(self, read: Callable[[], int]) -> None:
        self._read = read
        self._running = anyio.Lock()
        self._gathering: _Round | None = None

    async def current(self) -> int:
        while True:
            joined = self._gathering
            if joined is None:
                return await self._lead()
            await joined.done.wait()
            if joined.value is not None:
                return joined.value
            # The round's leader failed or was cancelled: take part in the next round.

    async def _lead(self) -> int:
        own = self._gathering = _Round()
        try:
            async with self._running:
                self._gathering = None  # closed: whoever arrives from now on waits for the next
                own.value = await anyio.to_thread.run_sync(self._read)
        finally:
            if self._gathering is own:  # cancelled before it started
                self._gathering = None
            own.done.set()
        return own.value


class _Round:
    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: int | None = None


def register_cache_metrics(
    registry: CollectorRegistry, service: str, cache: GenerationCache[Any, Any]
) -> None:
    """``answer_cache_lookups_total{service, scope, result="hit"|"miss"}`` in a service's registry."""
    registry.register(_CacheCollector(service, cache))


class _CacheCollector(Collector):
    def __init__(self, service: str, cache: GenerationCache[Any, Any]) -> None:
        self.service = service
        self.cache = cache

    def collect(self) -> Iterator[CounterMetricFamily]:
        lookups = CounterMetricFamily(
            "answer_cache_lookups",
            "Cached read answers served (hit) or computed (miss)",
            labels=["service", "scope", "result"],
        )
        lookups.add_metric([self.service, self.cache.scope, "hit"], self.cache.hits)
        lookups.add_metric([self.service, self.cache.scope, "miss"], self.cache.misses)
        yield lookups
