"""The policy service's database: every transaction the service objects run goes through here.

Each call is seen through a :class:`~.repository.Repository`, by a unit of work (the one door
to the database, :mod:`netplatform.store.unit_of_work`). Writes are group-committed (a grouped
unit): concurrent writes share one transaction
and one fsync, each in its own savepoint, and each returns only once the shared commit is
durable. A write that lost a race (two instances inserting the same entity at once: unique
constraint; PostgreSQL deadlock) is run again from the start in a later group, so its rules see
what the other one stored.

Every group with a write that succeeded also moves the entities' generation on, last in its
transaction, recording the objects it changed (:meth:`.repository.Repository.changed_objects`),
and read answers are cached per generation (:mod:`netplatform.store.generations`): a write
acknowledged by any instance is in the very next answer of every instance, and replayed answers
of the objects it left alone stand (web/replay.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TypeVar

from sqlalchemy.orm import Session

from ..store.db import Database
from ..store.generations import GenerationCache, bump
from ..store.unit_of_work import UnitOfWork
from .media_types import Rendered
from .repository import Repository
from .tables import ENTITIES_SCOPE, changes, generations

Result = TypeVar("Result")


class PolicyStore:
    def __init__(self, db: Database) -> None:
        # One move of the generation per group, in its transaction: as good as one per write.
        self.unit = UnitOfWork(db, Repository, grouped=True, before_commit=_bump)
        # The counters are no policy entity: their writes move no generation, outside the groups.
        self.counters = UnitOfWork(db, Repository)
        self.answers: GenerationCache[Repository, Rendered] = GenerationCache(
            self.unit, generations, ENTITIES_SCOPE, changes=changes
        )

    def write(self, work: Callable[[Repository], Result]) -> Result:
        """``work`` committed durably (row locks taken in it hold until the shared commit)."""
        return self.unit.write(work)

    def read(self, work: Callable[[Repository], Result]) -> Result:
        """``work`` in a read transaction."""
        return self.unit.read(work)

    async def cached(self, key: Hashable, answer: Callable[[Repository], Rendered]) -> Rendered:
        """The rendered answer for ``key`` under the entities' current generation (computed by
        ``answer`` in a read transaction, in a worker thread, when this instance has none)."""
        return await self.answers.answer(key, answer)

    def add_to_counters(self, amounts: Mapping[str, int]) -> None:
        """One transaction adding to the counters (an atomic increment: no race to lose)."""
        self.counters.write(lambda repository: repository.add_to_counters(amounts), retry=False)


def _bump(session: Session) -> None:
    bump(
        session,
        generations,
        ENTITIES_SCOPE,
        changes=changes,
        keys=lambda: Repository(session).changed_objects(),
    )
