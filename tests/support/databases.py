"""A fresh database per test: a SQLite file in the test's folder, or a new PostgreSQL database.

Set NETPLATFORM_TEST_DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/postgres) to run
the suite against PostgreSQL; each test then gets its own database on that server, created
here and dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from netplatform.store.db import normalize_url

TEST_DATABASE_ENV = "NETPLATFORM_TEST_DATABASE_URL"


def postgres_server_url() -> str | None:
    url = os.environ.get(TEST_DATABASE_ENV)
    return normalize_url(url) if url else None


@contextmanager
def temporary_database() -> Iterator[str | None]:
    """Yield a database URL for one test (None: use the SQLite default under the data dir)."""
    server_url = postgres_server_url()
    if server_url is None:
        yield None
        return
    name = f"np_test_{uuid.uuid4().hex[:16]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
