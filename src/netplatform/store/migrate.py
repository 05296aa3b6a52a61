"""Alembic migrations: one branch per service, applied together.

Each service keeps its revisions in its own ``<service>/migrations/`` folder with its own
branch label, so services evolve their tables independently and ``upgrade`` applies every
branch head. Concurrent upgrades (several instances starting at once) are serialised: a
PostgreSQL advisory lock, or a file lock beside the SQLite database.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from ..settings import SERVICE_NAMES, Settings
from .db import Database, database_for
from .locks import LockNamespace, advisory_lock, file_lock

log = logging.getLogger("netplatform.migrate")


def service_migration_dirs() -> list[Path]:
    dirs = []
    for service in SERVICE_NAMES:
        spec = importlib.util.find_spec(f"netplatform.{service}")
        if spec is None or spec.origin is None:
            continue
        folder = Path(spec.origin).parent / "migrations"
        if folder.is_dir():
            dirs.append(folder)
    return dirs


def alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.set_main_option("path_separator", "os")
    config.set_main_option("version_locations", os.pathsep.join(str(d) for d in service_migration_dirs()))
    config.attributes["connection"] = connection
    return config


def upgrade(settings: Settings) -> None:
    """Bring the database to the newest revision of every service branch."""
    database = database_for(settings)
    with _migration_lock(database, settings), database.engine.connect() as connection:
        command.upgrade(alembic_config(connection), "heads")
        connection.commit()
    log.info("database schema is up to date (%s)", database.engine.url.render_as_string(hide_password=True))


@contextmanager
def _migration_lock(database: Database, settings: Settings) -> Iterator[None]:
    if database.is_postgresql:
        with advisory_lock(database, LockNamespace.MIGRATIONS, bounded=False):
            yield
        return
    database_file = database.engine.url.database
    lock_dir = Path(database_file).parent if database_file else settings.data_dir
    with file_lock(lock_dir / ".migrate.lock"):
        yield
