"""One unit of work: a transaction seen through a service's repository.

A service object holds one :class:`UnitOfWork` per repository class and runs every transaction
through it, as a function of the repository::

    self.unit = UnitOfWork(db, TopicRepository)
    topic = self.unit.read(lambda topics: topics.get(name))
    self.unit.write(lambda topics: topics.insert(topic))

``read`` is a transaction that is rolled back (``read_one``: one statement, outside a transaction
on PostgreSQL); ``write`` one that is committed before it returns,
with the store's write semantics underneath (:meth:`~.db.Database.write`: SQLite writers queue,
BEGIN IMMEDIATE). ``retry=True`` (the default) runs work that lost a race again from the start
(:func:`~.retry.write_with_retry`: a unique key a concurrent writer took, a PostgreSQL
serialization failure or deadlock) and raises :class:`~.errors.WriteConflict` after the last
attempt; ``retry=False`` is one attempt, its failure raised as it is. With ``commits`` the writes
are group-committed (:class:`~.group_commit.GroupCommit`), each in its own savepoint.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy.orm import Session

from .db import Database
from .group_commit import GroupCommit
from .retry import write_with_retry

Repo = TypeVar("Repo")
Result = TypeVar("Result")


class UnitOfWork(Generic[Repo]):
    """Transactions through ``repository(session)``; blocking (call from worker threads)."""

    def __init__(
        self, db: Database, repository: Callable[[Session], Repo], *, commits: GroupCommit | None = None
    ) -> None:
        self.db = db
        self.repository = repository
        self.commits = commits

    def read(self, work: Callable[[Repo], Result]) -> Result:
        """``work`` in a read transaction (rolled back: a read never writes by accident)."""
        with self.db.read() as session:
            return work(self.repository(session))

    def read_one(self, work: Callable[[Repo], Result]) -> Result:
        """``work`` that runs one statement (:meth:`~.db.Database.read_one_statement`)."""
        with self.db.read_one_statement() as session:
            return work(self.repository(session))

    def write(self, work: Callable[[Repo], Result], *, retry: bool = True) -> Result:
        """``work`` in a committed transaction (durable when this returns), run again on a lost
        race unless ``retry`` is False."""

        def run(session: Session) -> Result:
            return work(self.repository(session))

        if self.commits is not None:
            return self.commits.run_with_retry(run) if retry else self.commits.run(run)
        if retry:
            return write_with_retry(self.db, run)
        with self.db.write() as session:
            return run(session)
