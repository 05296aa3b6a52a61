"""PostgreSQL connections are pinged before use only when they sat idle (store/db.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from netplatform.settings import Settings
from netplatform.store import db as db_module
from netplatform.store.db import Database, database_for


@pytest.fixture
def database(settings: Settings) -> Iterator[Database]:
    found = database_for(settings)
    if not found.is_postgresql:
        pytest.skip("PostgreSQL only: SQLite has no server connection to lose")
    found.dispose()  # one pooled connection, made by this test
    yield found


def pooled_backend(database: Database) -> int:
    """The server process of the connection a read gets (it goes back to the pool after)."""
    with database.read() as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


def terminate(database: Database, pid: int) -> None:
    """Ends that server process from a connection outside the pool, as a server restart would."""
    outside = create_engine(database.engine.url)
    try:
        with outside.connect() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            connection.commit()
    finally:
        outside.dispose()


def test_an_idle_connection_the_server_dropped_is_replaced_before_use(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "IDLE_PING_S", 0.0)  # every pooled connection counts as idle
    gone = pooled_backend(database)
    terminate(database, gone)
    assert pooled_backend(database) != gone  # pinged, found dead, replaced: no error


def test_a_connection_in_steady_use_is_not_pinged(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "IDLE_PING_S", 3600.0)  # nothing counts as idle
    terminate(database, pooled_backend(database))
    # Not pinged, the dead connection is used: the transaction fails (the kernel answers 503)...
    with pytest.raises(OperationalError):
        pooled_backend(database)
    pooled_backend(database)  # ...and the pool has dropped it: the next one works
