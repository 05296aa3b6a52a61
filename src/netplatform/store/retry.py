"""Transactions that lost a race, run again.

Two writers may both find a key free and both insert it; the database's unique constraint
stops the second. PostgreSQL may also end a transaction with a serialization failure or a
deadlock. In each case nothing was written and running the same work again from the start
sees the winner's row, so the loser answers as if it had come second (a 409, an identical
re-post, an update). Anything else is a real failure and is raised at once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from .db import Database
from .errors import WriteConflict

Result = TypeVar("Result")

WRITE_ATTEMPTS = 5
_RETRYABLE_SQLSTATES = frozenset({"40001", "40P01"})  # serialization failure, deadlock detected


class LostRace(Exception):
    """Raised by work that noticed a concurrent writer itself (not through the database)."""


def lost_a_race(error: BaseException) -> bool:
    """A unique key taken by a concurrent writer, or a serialization failure or deadlock."""
    if isinstance(error, LostRace | IntegrityError):
        return True
    return isinstance(error, DBAPIError) and getattr(error.orig, "sqlstate", None) in _RETRYABLE_SQLSTATES


def write_with_retry(
    db: Database, work: Callable[[Session], Result], *, attempts: int = WRITE_ATTEMPTS
) -> Result:
    """``work(session)`` in one committed transaction, run again when it lost a race.

    After ``attempts`` lost races it raises :class:`~.errors.WriteConflict` (the kernel answers
    409, asking to try again), never a 500.
    """
    for _attempt in range(attempts):
        try:
            with db.write() as session:
                return work(session)
        except (DBAPIError, LostRace) as error:
            if not lost_a_race(error):
                raise
    raise WriteConflict()
