"""Group commit: concurrent units share a transaction, each returns only once its own work is
committed, and one failing unit fails only its own caller."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Column, Integer, String, Table, select, text
from sqlalchemy.orm import Session

from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.errors import WriteConflict
from netplatform.store.group_commit import GroupCommit
from netplatform.store.retry import WRITE_ATTEMPTS, LostRace

metadata = new_metadata()
entries = Table(
    "kernel_test_group_entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("body", String(50), nullable=False, unique=True),
)


@pytest.fixture
def database(settings: Settings) -> Database:
    database = database_for(settings)
    metadata.create_all(database.engine)
    return database


def committed_bodies(database: Database) -> set[str]:
    """What another session sees: only committed rows."""
    with database.read() as session:
        return set(session.execute(select(entries.c.body)).scalars())


def insert(body: str) -> Callable[[Session], str]:
    def work(session: Session) -> str:
        session.execute(entries.insert().values(body=body))
        return body.upper()

    return work


def test_every_unit_is_committed_before_its_caller_returns(database: Database) -> None:
    commits = GroupCommit(database)
    start = threading.Barrier(12)

    def one(n: int) -> tuple[str, bool]:
        start.wait()
        result = commits.run(insert(f"entry-{n}"))
        return result, f"entry-{n}" in committed_bodies(database)

    with ThreadPoolExecutor(12) as pool:
        outcomes = list(pool.map(one, range(12)))
    assert outcomes == [(f"ENTRY-{n}", True) for n in range(12)]
    assert committed_bodies(database) == {f"entry-{n}" for n in range(12)}


def test_a_failing_unit_fails_only_its_own_caller(database: Database) -> None:
    commits = GroupCommit(database)
    commits.run(insert("taken"))
    start = threading.Barrier(8)

    def one(n: int) -> str:
        start.wait()
        body = "taken" if n == 3 else f"fresh-{n}"  # n == 3 breaks the unique constraint
        try:
            return str(commits.run(insert(body)))
        except Exception as error:
            return type(error).__name__

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(one, range(8)))
    assert outcomes[3] == "IntegrityError"
    assert [o for n, o in enumerate(outcomes) if n != 3] == [f"FRESH-{n}" for n in range(8) if n != 3]
    assert committed_bodies(database) == {"taken"} | {f"fresh-{n}" for n in range(8) if n != 3}


def test_an_exception_of_the_work_reaches_the_caller_and_nothing_is_kept(database: Database) -> None:
    def broken(session: Session) -> None:
        session.execute(entries.insert().values(body="half"))
        raise LookupError("refused")

    with pytest.raises(LookupError, match="refused"):
        GroupCommit(database).run(broken)
    assert committed_bodies(database) == set()


def test_lazy_writes_commit_and_leave_later_writes_durable(database: Database) -> None:
    levels = []
    for body, durable in (("lease", False), ("record", True)):
        with database.write(durable=durable) as session:
            session.execute(entries.insert().values(body=body))
            if database.is_sqlite:
                levels.append(session.execute(text("PRAGMA synchronous")).scalar())
    assert committed_bodies(database) == {"lease", "record"}
    if database.is_sqlite:
        assert levels == [1, 2]  # NORMAL for the lease only, FULL again after it


def test_a_unit_that_lost_a_race_runs_again_without_what_it_wrote(database: Database) -> None:
    commits = GroupCommit(database)
    attempts: list[int] = []

    def work(session: Session) -> str:
        attempts.append(len(attempts) + 1)
        if len(attempts) == 1:
            session.execute(entries.insert().values(body="first-attempt"))
            raise LostRace  # as a unit does that found a concurrent writer's row
        session.execute(entries.insert().values(body="second-attempt"))
        return "done"

    assert commits.run_with_retry(work) == "done"
    assert attempts == [1, 2]
    assert committed_bodies(database) == {"second-attempt"}


def test_a_unit_that_keeps_losing_is_a_conflict_and_other_errors_are_not_retried(database: Database) -> None:
    commits = GroupCommit(database)
    runs: list[str] = []

    def always_losing(session: Session) -> None:
        runs.append("lost")
        session.execute(entries.insert().values(body=f"lost-{len(runs)}"))
        raise LostRace

    with pytest.raises(WriteConflict):
        commits.run_with_retry(always_losing)
    assert len(runs) == WRITE_ATTEMPTS

    def failing(session: Session) -> None:
        runs.append("failed")
        raise ValueError("not a race")

    with pytest.raises(ValueError, match="not a race"):
        commits.run_with_retry(failing)
    assert runs.count("failed") == 1
    assert committed_bodies(database) == set()


def test_before_commit_runs_once_for_a_group_with_a_success_and_not_for_one_of_failures(
    database: Database,
) -> None:
    calls: list[int] = []

    def before_commit(session: Session) -> None:
        calls.append(len(session.execute(select(entries.c.body)).all()))

    commits = GroupCommit(database, before_commit=before_commit)
    commits.run(insert("kept"))
    assert calls == [1]  # after the unit, in its transaction: it sees the unit's row

    def refused(session: Session) -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        commits.run(refused)
    assert calls == [1]


def test_units_from_the_event_loop_share_groups_and_return_once_committed(database: Database) -> None:
    commits = GroupCommit(database)
    commits.run(insert("taken"))
    groups: list[int] = []  # the size of each group that committed

    def counted(body: str) -> Callable[[Session], str]:
        def work(session: Session) -> str:
            counts = session.info.setdefault("units", [0])
            if counts[0] == 0:
                groups.append(0)
            counts[0] += 1
            groups[-1] = counts[0]
            return insert(body)(session)

        return work

    async def one(n: int) -> tuple[str, bool]:
        body = "taken" if n == 5 else f"async-{n}"  # n == 5 breaks the unique constraint
        try:
            result = await commits.run_async(counted(body))
        except Exception as error:
            return type(error).__name__, False
        return result, await asyncio.to_thread(lambda: body in committed_bodies(database))

    async def all_of_them() -> list[tuple[str, bool]]:
        return await asyncio.gather(*(one(n) for n in range(20)))

    outcomes = asyncio.run(all_of_them())
    assert outcomes[5] == ("IntegrityError", False)
    expected = [(f"ASYNC-{n}", True) for n in range(20) if n != 5]
    assert [o for n, o in enumerate(outcomes) if n != 5] == expected
    assert committed_bodies(database) == {"taken"} | {f"async-{n}" for n in range(20) if n != 5}
    assert sum(groups) == 20 and len(groups) < 20  # units queued while a group committed shared one


async def until(condition: Callable[[], bool]) -> None:
    """Let the loop's other tasks run until ``condition`` holds (each runs to its next wait)."""
    for _ in range(10_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the condition never held")


def test_a_cancelled_unit_from_the_event_loop_hands_on_and_runs_only_if_taken(database: Database) -> None:
    commits = GroupCommit(database)
    entered, release = threading.Event(), threading.Event()

    def slow(session: Session) -> str:
        entered.set()
        release.wait(10)  # the first group holds the commit while the others queue
        return insert("first")(session)

    async def scenario() -> list[str]:
        first = asyncio.create_task(commits.run_async(slow))
        assert await asyncio.to_thread(entered.wait, 10)  # the first group is committing
        cancelled = asyncio.create_task(commits.run_async(insert("cancelled")))
        later = asyncio.create_task(commits.run_async(insert("later")))
        await until(lambda: len(commits._waiting) == 2)  # both queued behind it
        cancelled.cancel()
        await until(cancelled.done)
        release.set()
        done = [await first, await later]
        done.append(await commits.run_async(insert("after")))  # the lead was passed on, not lost
        return done

    assert asyncio.run(scenario()) == ["FIRST", "LATER", "AFTER"]
    assert committed_bodies(database) == {"first", "later", "after"}
