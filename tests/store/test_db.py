"""The shared database: durability across reopen, concurrent writers, dialect set-up."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import Column, Integer, String, Table, bindparam, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, PendingRollbackError

from netplatform.settings import Settings
from netplatform.store.db import (
    Database,
    OneStatementRead,
    database_for,
    forget_database,
    new_metadata,
    unavailable,
)

metadata = new_metadata()
notes = Table(
    "kernel_test_notes", metadata, Column("id", Integer, primary_key=True), Column("body", String(50))
)


def abort_writes(database: Database) -> None:
    """Three writes of a row "lost" that raise before their commit, on whichever pooled
    connections come next: a connection left in autocommit would keep one."""
    for n in range(2, 5):
        try:
            with database.write() as session:
                session.execute(notes.insert().values(id=n, body="lost"))
                raise RuntimeError("abort")
        except RuntimeError:
            pass


def test_committed_writes_survive_reopening(settings: Settings) -> None:
    database = database_for(settings)
    metadata.create_all(database.engine)
    with database.write() as session:
        session.execute(notes.insert().values(body="kept"))
    forget_database(settings)
    reopened = database_for(settings)
    assert reopened is not database
    with reopened.read() as session:
        assert session.execute(select(notes.c.body)).scalars().all() == ["kept"]


def test_failed_write_leaves_nothing(settings: Settings) -> None:
    database = database_for(settings)
    metadata.create_all(database.engine)
    try:
        with database.write() as session:
            session.execute(notes.insert().values(body="lost"))
            raise RuntimeError("abort")
    except RuntimeError:
        pass
    with database.read() as session:
        assert session.execute(select(notes)).all() == []


def test_a_one_statement_read_leaves_its_connection_transactional(settings: Settings) -> None:
    """``read_one_statement`` runs outside a transaction on PostgreSQL (autocommit); the pooled
    connection it used goes back as it was, so a write failing on it later still leaves nothing."""
    database = database_for(settings)
    metadata.create_all(database.engine)
    with database.write() as session:
        session.execute(notes.insert().values(id=1, body="kept"))
    with database.read_one_statement() as session:
        assert session.execute(select(notes.c.body)).scalars().all() == ["kept"]
    abort_writes(database)
    with database.read() as session:
        assert session.execute(select(notes.c.body)).scalars().all() == ["kept"]


def test_a_compiled_one_statement_read_sees_committed_rows_and_leaves_writes_transactional(
    settings: Settings,
) -> None:
    """``OneStatementRead`` (a driver-level read, no session): its parameters by name on either
    driver, every committed row, and its pooled connection goes back transactional."""
    database = database_for(settings)
    metadata.create_all(database.engine)
    by_body = OneStatementRead(database, select(notes.c.id).where(notes.c.body == bindparam("body")))
    assert by_body.rows(body="kept") == []
    with database.write() as session:
        session.execute(notes.insert().values(id=1, body="kept"))
    assert [tuple(row) for row in by_body.rows(body="kept")] == [(1,)]
    abort_writes(database)
    assert by_body.rows(body="lost") == []


def test_a_failing_one_statement_read_raises_sqlalchemy_errors(settings: Settings) -> None:
    """A driver error of ``rows_of_one_statement`` arrives as SQLAlchemy's, as a session's would
    (the kernel's 503 decision reads those), and the pool still serves afterwards."""
    database = database_for(settings)
    metadata.create_all(database.engine)
    with pytest.raises(DBAPIError):
        database.rows_of_one_statement("SELECT no_such_column FROM kernel_test_notes")
    assert database.rows_of_one_statement("SELECT count(*) FROM kernel_test_notes")[0][0] == 0


def test_concurrent_read_modify_write_loses_nothing(settings: Settings) -> None:
    database = database_for(settings)
    metadata.create_all(database.engine)
    with database.write() as session:
        session.execute(notes.insert().values(id=1, body="0"))

    def bump() -> None:
        for _ in range(20):
            with database.write() as session:
                current = int(session.execute(select(notes.c.body).where(notes.c.id == 1)).scalar_one())
                session.execute(notes.update().where(notes.c.id == 1).values(body=str(current + 1)))

    if database.is_postgresql:
        # READ COMMITTED would let two transactions read the same value; lock the row as real code must.
        def bump() -> None:
            for _ in range(20):
                with database.write() as session:
                    row = select(notes.c.body).where(notes.c.id == 1).with_for_update()
                    current = int(session.execute(row).scalar_one())
                    session.execute(notes.update().where(notes.c.id == 1).values(body=str(current + 1)))

    threads = [threading.Thread(target=bump) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with database.read() as session:
        assert session.execute(select(notes.c.body)).scalar_one() == "80"


def test_sqlite_runs_in_wal_with_foreign_keys(settings: Settings) -> None:
    database = database_for(settings)
    if not database.is_sqlite:
        return
    with database.engine.connect() as connection:
        assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert connection.execute(text("PRAGMA synchronous")).scalar() == 2
    assert settings.sqlite_path.exists()


def _raised_from(cause: BaseException) -> RuntimeError:
    try:
        raise RuntimeError("the service's own words") from cause
    except RuntimeError as error:
        return error


def test_unavailable_names_the_failures_of_a_database_that_could_not_serve() -> None:
    """The kernel answers 503 for these (tests/web/test_kernel.py shows it through HTTP)."""
    refused = OperationalError("connect", {}, Exception("connection refused"))
    lost = PendingRollbackError("Can't reconnect until invalid transaction is rolled back", code="8s2b")
    assert unavailable(refused)
    assert unavailable(_raised_from(refused))
    assert unavailable(lost)  # a transaction whose connection went away (group commits)
    assert not unavailable(IntegrityError("insert", {}, Exception("duplicate key")))
    assert not unavailable(PendingRollbackError("a flush failed earlier", code="7s2a"))
    assert not unavailable(RuntimeError("a bug"))
