"""The policy service's database: every transaction the service objects run goes through here.

Each call is one transaction seen through a :class:`~.repository.Repository`. A write that
lost a race (two instances inserting the same entity at once: unique constraint; PostgreSQL
serialization failure or deadlock) is run again from the start by the kernel's
:func:`~netplatform.store.retry.write_with_retry`, so its rules see what the other one stored.

Every write also moves the entities' generation on, last in its transaction, and read answers
are cached per generation (:mod:`netplatform.store.generations`): a write acknowledged by any
instance is in the very next answer of every instance.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy.orm import Session

from ..store.db import Database
from ..store.generations import GenerationCache, bump
from ..store.retry import write_with_retry
from .media_types import Rendered
from .repository import Repository
from .tables import ENTITIES_SCOPE, generations

Result = TypeVar("Result")


class PolicyStore:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.answers: GenerationCache[Rendered] = GenerationCache(db, generations, ENTITIES_SCOPE)

    def write(self, work: Callable[[Repository], Result]) -> Result:
        """``work`` in one committed transaction (row locks taken in it hold until the commit)."""

        def unit(session: Session) -> Result:
            result = work(Repository(session))
            bump(session, generations, ENTITIES_SCOPE)
            return result

        return write_with_retry(self.db, unit)

    @contextmanager
    def reading(self) -> Iterator[Repository]:
        with self.db.read() as session:
            yield Repository(session)

    async def cached(self, key: Hashable, answer: Callable[[Repository], Rendered]) -> Rendered:
        """The rendered answer for ``key`` under the entities' current generation (computed by
        ``answer`` in a read transaction, in a worker thread, when this instance has none)."""
        return await self.answers.answer(key, lambda session: answer(Repository(session)))

    def add_to_counters(self, amounts: Mapping[str, int]) -> None:
        """One transaction adding to the counters (an atomic increment: no race to lose)."""
        with self.db.write() as session:
            Repository(session).add_to_counters(amounts)

    def reachable(self) -> bool:
        return self.db.ping()
