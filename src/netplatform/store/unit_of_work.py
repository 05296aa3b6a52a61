"""One unit of work: the one door to the database, a transaction seen through a service's
repository.

A service object holds one :class:`UnitOfWork` per repository class and runs every transaction
through it, as a function of the repository::

    self.unit = UnitOfWork(db, TopicRepository)
    topic = self.unit.read(lambda topics: topics.get(name))
    self.unit.write(lambda topics: topics.insert(topic))

Which door for what (DESIGN.md "One unit of work"):

* ``read(work)``: a transaction that is rolled back (a read never writes by accident);
  ``read_one(work)``: work of one statement, outside a transaction on PostgreSQL;
* ``write(work)``: one committed before it returns, with the store's write semantics
  underneath (:meth:`~.db.Database.write`: SQLite writers queue, BEGIN IMMEDIATE).
  ``retry=True`` (the default) runs work that lost a race again from the start
  (:func:`~.retry.write_with_retry`: a unique key a concurrent writer took, a PostgreSQL
  serialization failure or deadlock) and raises :class:`~.errors.WriteConflict` after the last
  attempt; ``retry=False`` is one attempt, its failure raised as it is; ``durable=False`` one
  attempt whose commit does not wait for the disk (state a restart rebuilds: claims, leases);
* ``UnitOfWork(db, Repo, grouped=True, before_commit=...)``: every write group-committed
  (:class:`~.group_commit.GroupCommit`), each in its own savepoint, concurrent writes sharing
  one transaction and one fsync; ``write_async(work)`` queues on the event loop;
* ``statement(select)``: a SELECT compiled once, its rows read on a pooled driver connection
  without a session (:class:`~.db.OneStatementRead`: the hottest reads);
* ``GenerationCache(unit, table, scope)`` (:mod:`.generations`): answers computed through the
  unit's repository once per generation.

Nothing outside store/ opens a session or a connection, or calls :class:`~.db.Database`'s
``read()`` / ``write()`` itself (tests/test_database_door.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy import ClauseElement
from sqlalchemy.orm import Session

from .db import Database, OneStatementRead
from .group_commit import GroupCommit
from .retry import write_with_retry

Repo = TypeVar("Repo")
Result = TypeVar("Result")


class UnitOfWork(Generic[Repo]):
    """Transactions through ``repository(session)``; blocking (call from worker threads), but
    :meth:`write_async`."""

    def __init__(
        self,
        db: Database,
        repository: Callable[[Session], Repo],
        *,
        grouped: bool = False,
        before_commit: Callable[[Session], None] | None = None,
    ) -> None:
        self.db = db
        self.repository = repository
        self.commits = GroupCommit(db, before_commit=before_commit) if grouped else None
        if before_commit is not None and not grouped:
            raise ValueError("before_commit is run once per group: give grouped=True")

    def read(self, work: Callable[[Repo], Result]) -> Result:
        """``work`` in a read transaction (rolled back: a read never writes by accident)."""
        with self.db.read() as session:
            return work(self.repository(session))

    def read_one(self, work: Callable[[Repo], Result]) -> Result:
        """``work`` that runs one statement (:meth:`~.db.Database.read_one_statement`)."""
        with self.db.read_one_statement() as session:
            return work(self.repository(session))

    def write(self, work: Callable[[Repo], Result], *, retry: bool = True, durable: bool = True) -> Result:
        """``work`` in a committed transaction (durable when this returns, unless ``durable`` is
        False), run again on a lost race unless ``retry`` is False."""

        def run(session: Session) -> Result:
            return work(self.repository(session))

        if not durable:
            if retry or self.commits is not None:
                raise ValueError("a write that is not durable is one attempt of its own (retry=False)")
            with self.db.write(durable=False) as session:
                return run(session)
        if self.commits is not None:
            return self.commits.run_with_retry(run) if retry else self.commits.run(run)
        if retry:
            return write_with_retry(self.db, run)
        with self.db.write() as session:
            return run(session)

    async def write_async(self, work: Callable[[Repo], Result]) -> Result:
        """``work`` group-committed from the event loop, one attempt (units queue on the loop and
        one worker thread commits each group: :meth:`~.group_commit.GroupCommit.run_async`)."""
        if self.commits is None:
            raise ValueError("write_async is for a grouped unit (grouped=True)")
        return await self.commits.run_async(lambda session: work(self.repository(session)))

    def statement(self, statement: ClauseElement) -> OneStatementRead:
        """``statement`` compiled once for this database; ``.rows(**values)`` runs it on a pooled
        driver connection, one statement and one snapshot, no session (name its parameters with
        ``bindparam``)."""
        return OneStatementRead(self.db, statement)
