"""A fresh database per test: a SQLite file in the test's folder, or a new PostgreSQL database.

Set NETPLATFORM_TEST_DATABASE_URL (e.g. postgresql://postgres@127.0.0.1:5432/postgres) to run
the suite against PostgreSQL; each test then gets its own database on that server, cloned from
a template that was migrated once per test process, and dropped afterwards.

:func:`migrate` brings a test's database to the newest revision. A SQLite file that does not
exist yet starts as a copy of one migrated once per test process (running every service's
migrations takes one to two seconds, the copy a millisecond); one that exists is upgraded.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from netplatform.settings import Settings
from netplatform.store.db import forget_database, normalize_url
from netplatform.store.migrate import upgrade

TEST_DATABASE_ENV = "NETPLATFORM_TEST_DATABASE_URL"

_template_lock = threading.Lock()
_template: str | None = None


def postgres_server_url() -> str | None:
    url = os.environ.get(TEST_DATABASE_ENV)
    return normalize_url(url) if url else None


def _url_of(server_url: str, name: str) -> str:
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def _migrated_template(admin: Engine, server_url: str) -> str:
    """One migrated database per test process, the template every test database is cloned from."""
    global _template
    with _template_lock:
        if _template is None:
            name = f"np_template_{uuid.uuid4().hex[:12]}"
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            settings = Settings(database_url=_url_of(server_url, name), users="admin:admin")
            upgrade(settings)
            forget_database(settings)  # a template must have no open connections
            atexit.register(_drop, server_url, name)
            _template = name
        return _template


def _drop(server_url: str, name: str) -> None:
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


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
        template = _migrated_template(admin, server_url)
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
        yield _url_of(server_url, name)
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


_sqlite_template_lock = threading.Lock()
_sqlite_template: Path | None = None


def migrate(settings: Settings) -> None:
    """``upgrade(settings)``; a SQLite database not created yet is copied from a migrated one."""
    if settings.database_url is None and not settings.sqlite_path.exists():
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_migrated_sqlite_template(), settings.sqlite_path)
        return
    upgrade(settings)


def _migrated_sqlite_template() -> Path:
    """One SQLite database per test process, migrated to the newest revision and closed (so its
    file holds everything: no write-ahead log beside it)."""
    global _sqlite_template
    with _sqlite_template_lock:
        if _sqlite_template is None:
            folder = Path(tempfile.mkdtemp(prefix="np_sqlite_template_"))
            atexit.register(shutil.rmtree, folder, ignore_errors=True)
            settings = Settings(data_dir=folder, users="admin:admin")
            upgrade(settings)
            forget_database(settings)
            wal = settings.sqlite_path.with_name(f"{settings.sqlite_path.name}-wal")
            if wal.exists() and wal.stat().st_size:
                raise RuntimeError(f"{wal} was left behind: a copy of the database alone would lack it")
            _sqlite_template = settings.sqlite_path
        return _sqlite_template
