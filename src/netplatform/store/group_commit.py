"""Group commit: many concurrent small writes share one transaction and so one fsync.

A caller hands :meth:`GroupCommit.run` a unit of work (a function of the session). Callers that
arrive while a transaction is being committed queue up; the first of them then leads: it runs every
queued unit in one new transaction, each inside its own savepoint, commits once, and releases them
all. So a unit returns only after its own changes are durable (the commit of the shared
transaction), never before; the cost of the commit's fsync is shared by everyone in the group.

A unit that raises has its savepoint rolled back and its caller gets the exception; the others are
not affected. When the shared commit itself fails, every caller of the group gets that error (none
was acknowledged). Nothing waits for a group to fill: a lone caller commits at once.

:meth:`GroupCommit.run_with_retry` is :func:`~.retry.write_with_retry` for grouped writes: a unit
that lost a race (a unique key a concurrent writer took first, a deadlock) runs again, in a
later group, and sees the winner's row; a failed shared commit is never run again.

:meth:`GroupCommit.run_async` is :meth:`~GroupCommit.run` for a caller on the event loop: units queue
on the loop, and one worker thread commits each group, so a unit costs its share of one thread hop
instead of a hop (and a blocked thread) of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio.to_thread
from sqlalchemy.orm import Session

from .db import Database
from .errors import WriteConflict
from .retry import WRITE_ATTEMPTS, lost_a_race

T = TypeVar("T")
MAX_GROUP = 64
"""Units in one transaction at most (bounds how long the write lock is held)."""


@dataclass(eq=False)
class _Unit(Generic[T]):
    work: Callable[[Session], T]
    done: threading.Event = field(default_factory=threading.Event)
    lead: bool = False
    result: Any = None
    error: BaseException | None = None
    own_error: bool = False  # raised by the unit itself (its savepoint), not by the shared commit

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[no-any-return]


class GroupCommit:
    """:meth:`run` blocks (call it from worker threads, never from the event loop);
    :meth:`run_async` is for the event loop. Use one of them for an instance: the two queue apart,
    so their units would not share groups.

    ``before_commit`` runs once per group in which a unit succeeded, in the shared transaction
    after every unit (a service moving its generation on once for the whole group rather than
    once per unit; a group of refused writes changed nothing, so it does not move it).
    """

    def __init__(self, db: Database, *, before_commit: Callable[[Session], None] | None = None) -> None:
        self.db = db
        self.before_commit = before_commit
        self._lock = threading.Lock()
        self._queued: list[_Unit[Any]] = []
        self._leading = False
        # run_async's queue, only touched on the event loop: each unit with the future its caller
        # awaits (True: lead the next group; False: committed, the outcome is in the unit).
        self._waiting: list[tuple[_Unit[Any], asyncio.Future[bool]]] = []
        self._committing = False

    def run(self, work: Callable[[Session], T]) -> T:
        """``work(session)`` committed durably, in a transaction shared with concurrent callers."""
        return self._committed(work).outcome()

    def run_with_retry(self, work: Callable[[Session], T], *, attempts: int = WRITE_ATTEMPTS) -> T:
        """:meth:`run`, with ``work`` run again when it lost a race
        (:class:`~.errors.WriteConflict` after ``attempts``)."""
        for _attempt in range(attempts):
            unit = self._committed(work)
            if not (unit.own_error and unit.error is not None and lost_a_race(unit.error)):
                return unit.outcome()
        raise WriteConflict()

    async def run_async(self, work: Callable[[Session], T]) -> T:
        """:meth:`run` from the event loop: ``work(session)`` committed durably (in a worker thread)
        in a transaction shared with the units queued meanwhile."""
        unit: _Unit[T] = _Unit(work)
        entry = (unit, asyncio.get_running_loop().create_future())
        self._waiting.append(entry)
        if self._committing and not await self._turn(entry):
            return unit.outcome()
        self._committing = True
        live = [queued for queued in self._waiting if not queued[1].cancelled()]  # callers gone: never run
        group, self._waiting = live[:MAX_GROUP], live[MAX_GROUP:]
        try:
            await anyio.to_thread.run_sync(self._commit, [queued for queued, _ in group])
        finally:
            for _, future in group:
                if not future.done():
                    future.set_result(False)
            self._pass_lead()
        return unit.outcome()

    async def _turn(self, entry: tuple[_Unit[Any], asyncio.Future[bool]]) -> bool:
        """Wait while other groups commit: True when this unit is to lead the next group, False
        when a group with it was committed."""
        try:
            return await entry[1]
        except asyncio.CancelledError:
            if entry in self._waiting:  # not taken into a group: it is never run
                self._waiting.remove(entry)
            elif entry[1].done() and not entry[1].cancelled() and entry[1].result():
                self._pass_lead()  # it was made leader as it was cancelled
            raise

    def _pass_lead(self) -> None:
        """The next queued unit leads the next group; none queued: the next caller leads."""
        for _, future in self._waiting:
            if not future.done():
                future.set_result(True)
                return
        self._committing = False

    def _committed(self, work: Callable[[Session], T]) -> _Unit[T]:
        unit: _Unit[T] = _Unit(work)
        with self._lock:
            self._queued.append(unit)
            unit.lead = not self._leading
            self._leading = True
        if not unit.lead:
            unit.done.wait()
        if unit.lead:
            self._lead()
        return unit

    def _lead(self) -> None:
        """Commit the queued units as one group, then pass the lead to a unit queued meanwhile."""
        with self._lock:
            group, self._queued = self._queued[:MAX_GROUP], self._queued[MAX_GROUP:]
        try:
            self._commit(group)
        finally:
            self._hand_over(group)

    def _hand_over(self, group: list[_Unit[Any]]) -> None:
        with self._lock:
            following = self._queued[0] if self._queued else None
            self._leading = following is not None
            if following is not None:
                following.lead = True
                following.done.set()
        for unit in group:
            unit.done.set()

    def _commit(self, group: list[_Unit[Any]]) -> None:
        try:
            with self.db.write() as session:
                for unit in group:
                    _run_in_savepoint(session, unit)
                if self.before_commit is not None and any(unit.error is None for unit in group):
                    self.before_commit(session)
        except BaseException as error:
            # A unit's own failure never gets here (its savepoint took it); this is the shared
            # transaction or its commit failing (disk, connection). Every caller is told, none
            # is run again: a commit that failed on the wire may still have landed, and running
            # the unit again would then record it twice. A caller's retry is the client's call.
            for unit in group:
                unit.result, unit.error, unit.own_error = None, error, False


def _run_in_savepoint(session: Session, unit: _Unit[Any]) -> None:
    try:
        with session.begin_nested():
            unit.result = unit.work(session)
    except Exception as error:  # the savepoint is rolled back; the group goes on
        unit.error, unit.own_error = error, True
