"""The unit of work, the one door to the database: reads roll back, writes commit, a lost race is
run again unless told not to, and the same holds when the writes are group-committed; a write
that need not be durable, a grouped write from the event loop and a compiled one-statement read
go through it too."""

from __future__ import annotations

import anyio
import pytest
from sqlalchemy import Column, Integer, String, Table, bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from netplatform.settings import Settings
from netplatform.store.db import Database, database_for, new_metadata
from netplatform.store.errors import WriteConflict
from netplatform.store.retry import WRITE_ATTEMPTS, LostRace
from netplatform.store.unit_of_work import UnitOfWork

metadata = new_metadata()
notes = Table(
    "store_test_unit_notes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("body", String(50), nullable=False, unique=True),
)


class Notes:
    """A repository: queries given a session, never a transaction of its own."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, body: str) -> None:
        self.session.execute(notes.insert().values(body=body))

    def bodies(self) -> set[str]:
        return set(self.session.execute(select(notes.c.body)).scalars())


@pytest.fixture
def database(settings: Settings) -> Database:
    database = database_for(settings)
    metadata.create_all(database.engine)
    return database


@pytest.fixture(params=["plain", "group commit"])
def unit(request: pytest.FixtureRequest, database: Database) -> UnitOfWork[Notes]:
    return UnitOfWork(database, Notes, grouped=request.param == "group commit")


def test_a_write_is_committed_and_a_read_is_rolled_back(unit: UnitOfWork[Notes]) -> None:
    unit.write(lambda repository: repository.add("kept"))

    def add_in_a_read(repository: Notes) -> set[str]:
        repository.add("dropped")
        return repository.bodies()

    assert unit.read(add_in_a_read) == {"kept", "dropped"}  # seen inside its own transaction only
    assert unit.read(lambda repository: repository.bodies()) == {"kept"}


def test_a_lost_race_runs_again_and_keeps_losing_is_a_write_conflict(unit: UnitOfWork[Notes]) -> None:
    runs: list[int] = []

    def wins_second(repository: Notes) -> str:
        runs.append(len(runs))
        repository.add(f"attempt-{len(runs)}")
        if len(runs) == 1:
            raise LostRace  # as work does that found a concurrent writer's row
        return "won"

    assert unit.write(wins_second) == "won"
    assert unit.read(lambda repository: repository.bodies()) == {"attempt-2"}

    def always_loses(repository: Notes) -> None:
        runs.append(len(runs))
        raise LostRace

    runs.clear()
    with pytest.raises(WriteConflict):
        unit.write(always_loses)
    assert len(runs) == WRITE_ATTEMPTS


def test_without_retry_a_lost_race_is_raised_as_it_is(unit: UnitOfWork[Notes]) -> None:
    unit.write(lambda repository: repository.add("taken"))
    runs: list[str] = []

    def duplicate(repository: Notes) -> None:
        runs.append("ran")
        repository.add("taken")  # the unique constraint refuses it: a lost race, not retried

    with pytest.raises(IntegrityError):
        unit.write(duplicate, retry=False)
    assert runs == ["ran"]
    assert unit.read(lambda repository: repository.bodies()) == {"taken"}


def test_a_write_that_need_not_be_durable_commits_and_is_one_attempt(database: Database) -> None:
    unit = UnitOfWork(database, Notes)
    unit.write(lambda repository: repository.add("lease"), retry=False, durable=False)
    assert unit.read(lambda repository: repository.bodies()) == {"lease"}
    with pytest.raises(ValueError, match="one attempt"):
        unit.write(lambda repository: repository.add("again"), durable=False)  # retry=True
    with pytest.raises(ValueError, match="one attempt"):
        UnitOfWork(database, Notes, grouped=True).write(
            lambda repository: repository.add("grouped"), retry=False, durable=False
        )


def test_a_grouped_unit_commits_from_the_event_loop(database: Database) -> None:
    unit = UnitOfWork(database, Notes, grouped=True)

    async def write_both() -> None:
        async with anyio.create_task_group() as group:
            for body in ("one", "two"):
                group.start_soon(unit.write_async, lambda repository, body=body: repository.add(body))

    anyio.run(write_both)
    assert unit.read(lambda repository: repository.bodies()) == {"one", "two"}
    with pytest.raises(ValueError, match="grouped"):
        anyio.run(UnitOfWork(database, Notes).write_async, lambda repository: None)


def test_a_compiled_statement_reads_through_the_unit(database: Database) -> None:
    unit = UnitOfWork(database, Notes)
    unit.write(lambda repository: repository.add("found"))
    query = unit.statement(select(notes.c.body).where(notes.c.body == bindparam("body")))
    assert [tuple(row) for row in query.rows(body="found")] == [("found",)]
    assert query.rows(body="absent") == []
