"""The transaction lock: held until its write transaction ends, by the transaction's own
connection on PostgreSQL; on SQLite the write transaction itself is the lock."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from netplatform.settings import Settings
from netplatform.store.db import Database, database_for
from netplatform.store.locks import LockNamespace, transaction_lock

KEY = 7


def _free_elsewhere(database: Database) -> bool:
    """Whether another connection can take the lock now (it gives it back at once)."""
    with database.engine.connect() as connection, connection.begin():
        arguments = {"namespace": int(LockNamespace.BUS_TOPOLOGY), "key": KEY}
        taken = connection.execute(text("SELECT pg_try_advisory_xact_lock(:namespace, :key)"), arguments)
        return bool(taken.scalar_one())


def test_the_lock_is_held_until_the_transaction_ends(settings: Settings) -> None:
    database = database_for(settings)
    if not database.is_postgresql:
        pytest.skip("PostgreSQL only: on SQLite the write transaction is the lock")
    assert _free_elsewhere(database)
    with database.write() as session:
        transaction_lock(session, LockNamespace.BUS_TOPOLOGY, KEY)
        assert not _free_elsewhere(database)
    assert _free_elsewhere(database)
    with pytest.raises(RuntimeError), database.write() as session:
        transaction_lock(session, LockNamespace.BUS_TOPOLOGY, KEY)
        raise RuntimeError("rolled back")
    assert _free_elsewhere(database)  # a rollback releases it too
