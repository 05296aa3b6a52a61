"""Generation counters and the answers cached under them, on SQLite and PostgreSQL.

Two :class:`Database` objects on one URL stand for two instances (each its own engine and its own
cache); a write through either must be in the next answer of both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import anyio
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, delete, insert, select
from sqlalchemy.orm import Session

from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.generations import (
    PRUNE_EVERY,
    GenerationCache,
    bump,
    changes_table,
    current,
    generations_table,
    read_at_one_generation,
    wait_past,
)
from netplatform.store.retry import write_with_retry
from netplatform.store.unit_of_work import UnitOfWork

SCOPE = "items"


@dataclass
class Instance:
    """One 'instance': its own Database (engine) and its own cache of the item names."""

    db: Database
    cache: GenerationCache[Session, tuple[str, ...]]
    computed: int = 0

    def names(self) -> tuple[str, ...]:
        def compute(session: Session) -> tuple[str, ...]:
            self.computed += 1
            return tuple(session.execute(select(ITEMS.c.name).order_by(ITEMS.c.name)).scalars())

        return self.cache.get("names", compute)


METADATA: MetaData = new_metadata()
GENERATIONS = generations_table("test_generations", METADATA)
ITEMS = Table("test_items", METADATA, Column("id", Integer, primary_key=True), Column("name", String(40)))


def add(db: Database, name: str) -> None:
    """A write of the scope: the data and the generation in one transaction."""

    def work(session: Session) -> None:
        session.execute(insert(ITEMS).values(name=name))
        bump(session, GENERATIONS, SCOPE)

    write_with_retry(db, work)


def _session(session: Session) -> Session:
    """The session itself as the unit's repository: these tests read the tables directly."""
    return session


@pytest.fixture
def instances(settings: Settings) -> Iterator[tuple[Instance, Instance]]:
    first = database_for(settings)
    METADATA.create_all(first.engine)
    second = Database(first.url)
    yield (
        Instance(first, GenerationCache(UnitOfWork(first, _session), GENERATIONS, SCOPE)),
        Instance(second, GenerationCache(UnitOfWork(second, _session), GENERATIONS, SCOPE)),
    )
    second.dispose()
    METADATA.drop_all(first.engine)


def test_a_scope_starts_at_zero_and_each_committed_write_moves_it_on(
    instances: tuple[Instance, Instance],
) -> None:
    db = instances[0].db
    with db.read() as session:
        assert current(session, GENERATIONS, SCOPE) == 0
    add(db, "a")
    add(db, "b")
    with db.read() as session:
        assert current(session, GENERATIONS, SCOPE) == 2
        assert current(session, GENERATIONS, "other") == 0
    with pytest.raises(RuntimeError), db.write() as session:
        bump(session, GENERATIONS, SCOPE)
        raise RuntimeError("rolled back")
    with db.read() as session:
        assert current(session, GENERATIONS, SCOPE) == 2


def test_an_answer_is_computed_once_per_generation(instances: tuple[Instance, Instance]) -> None:
    one, _ = instances
    add(one.db, "a")
    assert one.names() == ("a",)
    assert one.names() == ("a",)
    assert (one.computed, one.cache.hits, one.cache.misses) == (1, 1, 1)
    add(one.db, "b")
    assert one.names() == ("a", "b")
    assert one.computed == 2


def test_a_write_through_another_instance_is_in_the_next_answer(instances: tuple[Instance, Instance]) -> None:
    one, other = instances
    add(one.db, "a")
    assert one.names() == other.names() == ("a",)
    add(other.db, "b")
    assert one.names() == ("a", "b")
    with other.db.write() as session:
        session.execute(delete(ITEMS).where(ITEMS.c.name == "a"))
        bump(session, GENERATIONS, SCOPE)
    assert one.names() == other.names() == ("b",)


def test_a_write_committed_while_an_answer_is_computed_is_in_the_next_answer(
    instances: tuple[Instance, Instance],
) -> None:
    """The answer computed meanwhile is cached under the generation read before the data, so the
    write's generation (newer) never serves it, whichever snapshot the computation saw."""
    one, other = instances
    add(one.db, "a")

    def compute(session: Session) -> tuple[str, ...]:
        add(other.db, "b")  # commits while this read transaction is open
        return tuple(session.execute(select(ITEMS.c.name).order_by(ITEMS.c.name)).scalars())

    assert one.cache.get("seen", compute) in (("a",), ("a", "b"))
    misses = one.cache.misses
    assert one.cache.get("seen", lambda session: ()) == ()  # recomputed: the generation moved on
    assert one.cache.misses == misses + 1
    assert one.names() == ("a", "b")


def test_a_failed_computation_caches_nothing(instances: tuple[Instance, Instance]) -> None:
    one, _ = instances

    def failing(session: Session) -> tuple[str, ...]:
        raise LookupError("not found")

    with pytest.raises(LookupError):
        one.cache.get("names", failing)
    assert one.names() == ()
    assert one.computed == 1


def test_the_cache_keeps_at_most_max_entries(instances: tuple[Instance, Instance]) -> None:
    one, _ = instances
    cache: GenerationCache[Session, int] = GenerationCache(
        UnitOfWork(one.db, _session), GENERATIONS, SCOPE, max_entries=2
    )
    for key in (1, 2, 3):

        def value(session: Session, key: int = key) -> int:
            return key

        assert cache.get(key, value) == key
    assert cache.get(3, lambda session: -1) == 3  # kept
    assert cache.get(1, lambda session: -1) == -1  # the oldest went first


CHANGES = changes_table("test_generation_changes", METADATA)


def test_bump_records_the_keys_under_the_new_generation_and_prunes_in_steps(
    instances: tuple[Instance, Instance],
) -> None:
    """Each bump records its keys (or NULL) under the generation it moved to; every PRUNE_EVERY
    generations the rows ``keep`` behind go, and only those."""
    db = instances[0].db
    keep = 3

    def moved(keys: tuple[str, ...]) -> None:
        def work(session: Session) -> None:
            bump(session, GENERATIONS, SCOPE, changes=CHANGES, keys=lambda: keys, keep=keep)

        write_with_retry(db, work)

    moved(("a", "b"))
    moved(())
    with db.read() as session:
        rows = set(session.execute(select(CHANGES.c.generation, CHANGES.c.object_key)))
    assert rows == {(1, "a"), (1, "b"), (2, None)}

    def generations() -> list[int]:
        with db.read() as session:
            return sorted(set(session.execute(select(CHANGES.c.generation)).scalars()))

    for _ in range(PRUNE_EVERY - 3):
        moved(("c",))
    assert generations() == list(range(1, PRUNE_EVERY))  # nothing pruned between the steps
    moved(("c",))
    assert generations() == list(range(PRUNE_EVERY - keep + 1, PRUNE_EVERY + 1))


def test_a_long_poll_answers_when_the_generation_moves_or_nobody_waits_any_more() -> None:
    """wait_past: the moved generation at once; with an hour to wait, a wait that ``ended`` says
    nobody awaits (the client gone, the process stopping: web/longpoll.py) answers at its next
    look instead of holding the request for the hour (the test would hang otherwise)."""
    seen = iter([4, 4, 4, 5])

    async def current() -> int:
        return next(seen)

    looks: list[int] = []

    async def ended() -> bool:
        looks.append(1)
        return len(looks) >= 2

    assert anyio.run(wait_past, 4, 3600.0, current, 0.001, None) == (5, True)
    assert anyio.run(wait_past, 7, 3600.0, lambda: _constant(7), 0.001, ended) == (7, False)
    assert len(looks) == 2


async def _constant(value: int) -> int:
    return value


def test_reads_at_one_generation_run_again_until_the_generation_held_still() -> None:
    generations = iter([1, 2, 2, 2])  # moved during the first read, not during the second
    reads: list[int] = []

    def read(generation: int) -> str:
        reads.append(generation)
        return f"rows at {generation}"

    assert read_at_one_generation(lambda: next(generations), read) == (2, "rows at 2")
    assert reads == [1, 2]
