"""The database every service shares: one engine per URL, read and write sessions.

SQLite is the embedded default (WAL, foreign keys on, ``synchronous=FULL`` so an acknowledged
commit survives a power cut); PostgreSQL is the scale-out store, chosen by URL. Services see
only :meth:`Database.read` and :meth:`Database.write`:

* ``write()`` is one transaction that commits on exit. On SQLite it starts with
  ``BEGIN IMMEDIATE``, taking the write lock up front, so two writers queue instead of failing
  when one upgrades a read lock (SQLITE_BUSY_SNAPSHOT). Writers of one process also queue on an
  in-process lock first: SQLite's own busy handler waits by sleeping with growing pauses, which
  under 32 concurrent writers put p99 write latency near 2 s (0.3 s with the queue). Writers of
  other processes still meet on the busy timeout.
* ``read()`` is a plain transaction that is rolled back on exit; ``read_one_statement()`` a
  read of a single statement, outside a transaction on PostgreSQL.
* ``write(durable=False)`` is a write whose commit does not wait for the disk (SQLite
  ``synchronous=NORMAL`` for that transaction, PostgreSQL ``synchronous_commit=off``): it is atomic
  and survives a crash of the process, but a power cut may lose it. Only for state that a restart
  rebuilds anyway (delivery claims and leases); a later durable commit makes it durable too, as
  both logs are written in order.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, cast

from sqlalchemy import ClauseElement, Engine, MetaData, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import (
    DBAPIError,
    InterfaceError,
    InvalidatePoolError,
    OperationalError,
    PendingRollbackError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.compiler import SQLCompiler

from ..settings import Settings

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLITE_BUSY_TIMEOUT_MS = 30_000
RECONNECT_AFTER_ROLLBACK = "8s2b"
"""SQLAlchemy's code of "Can't reconnect until invalid transaction is rolled back": the
connection of a transaction was lost (not "7s2a", a session used after its own flush failed)."""


def unavailable(error: BaseException) -> bool:
    """Whether ``error`` (or what it was raised from) says the database could not serve: the server
    down or restarting, a connection lost, no pooled connection in time, a lock or disk it could
    not get. Such a request may succeed when tried again, so the kernel answers 503, not 500."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OperationalError | InterfaceError | PoolTimeout):
            return True
        if isinstance(seen, DBAPIError) and seen.connection_invalidated:
            return True
        if isinstance(seen, PendingRollbackError) and seen.code == RECONNECT_AFTER_ROLLBACK:
            return True  # its connection was lost inside a transaction (a group commit's, say)
        seen = seen.__cause__
    return False


def new_metadata() -> MetaData:
    """A MetaData with the project's constraint naming, so migrations name things stably."""
    return MetaData(naming_convention=NAMING_CONVENTION)


def normalize_url(url: str) -> str:
    """Use psycopg 3 for PostgreSQL URLs that name no driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


class Database:
    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = normalize_url(url)
        self.engine = _create_engine(self.url, pool_size)
        self._read = sessionmaker(self.engine, expire_on_commit=False)
        immediate = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self._write = sessionmaker(immediate, expire_on_commit=False)
        lazy = immediate.execution_options(sqlite_synchronous="NORMAL")
        self._lazy_write = sessionmaker(lazy, expire_on_commit=False)
        autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._one_statement = sessionmaker(autocommit, expire_on_commit=False)
        # Reentrant, so a (mistaken) nested write waits on SQLite as before rather than hanging.
        self._writers: AbstractContextManager[object] = threading.RLock() if self.is_sqlite else nullcontext()

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    @property
    def is_postgresql(self) -> bool:
        return self.engine.dialect.name == "postgresql"

    @contextmanager
    def read(self) -> Iterator[Session]:
        with self._read() as session:
            try:
                yield session
            finally:
                session.rollback()

    @contextmanager
    def read_one_statement(self) -> Iterator[Session]:
        """A read of one statement: on PostgreSQL in autocommit, with no transaction around it
        (one statement sees one snapshot; neither a BEGIN nor a ROLLBACK is sent, two round
        trips saved); on SQLite a :meth:`read` (no round trips to save). A second statement
        would see another snapshot: for several, use :meth:`read`."""
        if not self.is_postgresql:
            with self.read() as session:
                yield session
            return
        with self._one_statement() as session:
            yield session

    def rows_of_one_statement(
        self, sql: str, parameters: Sequence[Any] | Mapping[str, Any] | None = None
    ) -> list[Any]:
        """The rows of one statement already compiled for this database (``sql`` in the driver's
        parameter style), run on a pooled DBAPI connection without the ORM session.

        For the hottest reads: the session's connection checkout, BEGIN, statement building and
        ROLLBACK cost ten times the query of one row by key on SQLite. One statement sees one
        snapshot either way. On PostgreSQL it runs in autocommit, so the driver sends neither a
        BEGIN before it nor the ROLLBACK the pool would send when the connection goes back. A
        driver error is raised as SQLAlchemy's (:func:`unavailable` knows it); a connection it
        says is gone is dropped from the pool.
        """
        connection = self.engine.raw_connection()
        driver: Any = connection.driver_connection
        dialect = self.engine.dialect
        autocommit = self.is_postgresql
        try:
            if autocommit:
                driver.autocommit = True
            cursor = connection.cursor()
            try:
                if parameters is None:
                    cursor.execute(sql)
                else:
                    cursor.execute(sql, parameters)
                return list(cursor.fetchall())
            finally:
                cursor.close()
        except dialect.loaded_dbapi.Error as error:
            gone = dialect.is_disconnect(error, driver, None)
            if gone:
                connection.invalidate(error)
            raise DBAPIError.instance(
                sql, parameters, error, dialect.loaded_dbapi.Error, connection_invalidated=gone
            ) from error
        finally:
            if autocommit and connection.is_valid and not driver.closed:
                driver.autocommit = False
            connection.close()  # back to the pool, which rolls back what the driver opened

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[Session]:
        sessions = self._write if durable else self._lazy_write
        with self._writers, sessions() as session, session.begin():
            if not durable and self.is_postgresql:
                session.execute(text("SET LOCAL synchronous_commit = off"))
            yield session

    def ping(self) -> bool:
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return True
        except SQLAlchemyError:
            return False

    def dispose(self) -> None:
        self.engine.dispose()


class OneStatementRead:
    """A SELECT compiled once for ``db``'s dialect, its rows read with
    :meth:`Database.rows_of_one_statement` (one statement: one snapshot). Name its parameters
    with ``bindparam("name")`` and give them to :meth:`rows` by name."""

    def __init__(self, db: Database, statement: ClauseElement) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=db.engine.dialect))
        self.db = db
        self.sql = str(compiled)
        # SQLite's driver takes parameters by position, psycopg's by name.
        self._order = tuple(compiled.positiontup or ()) if compiled.positional else None

    def rows(self, **values: Any) -> list[Any]:
        parameters = tuple(values[name] for name in self._order) if self._order is not None else values
        return self.db.rows_of_one_statement(self.sql, parameters)


def _create_engine(url: str, pool_size: int) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size * 2)
        _ping_when_idle(engine)
        return engine
    engine = create_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size * 2,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
    )
    _take_over_sqlite_transactions(engine)
    return engine


IDLE_PING_S = 1.0
"""A pooled server connection idle longer than this is pinged before it is used again."""


def _ping_when_idle(engine: Engine) -> None:
    """``pool_pre_ping``, for connections that sat idle only: a connection back from a
    transaction a moment ago is used as it is, which saves a round trip on nearly every
    transaction under load; one left alone for IDLE_PING_S is pinged, and replaced when the
    server does not answer (a restart, an idle timeout). A server gone in between is met by the
    transaction itself: the error is answered 503, and SQLAlchemy then discards every
    connection of the pool opened before it."""

    @event.listens_for(engine, "checkin")
    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle_since = record.info.pop("idle_since", None)
        if idle_since is None or time.monotonic() - idle_since < IDLE_PING_S:
            return  # just connected, or in steady use
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            # As pool_pre_ping does: every older connection goes, and the pool connects anew.
            raise InvalidatePoolError(str(error)) from error


def _take_over_sqlite_transactions(engine: Engine) -> None:
    """Let SQLAlchemy, not pysqlite, emit BEGIN (pysqlite's implicit BEGIN cannot be IMMEDIATE)."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in (
            "journal_mode=WAL",
            "foreign_keys=ON",
            "synchronous=FULL",
            f"busy_timeout={SQLITE_BUSY_TIMEOUT_MS}",
        ):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        options = connection.get_execution_options()
        _set_synchronous(connection, options.get("sqlite_synchronous", "FULL"))
        connection.exec_driver_sql(f"BEGIN {options.get('sqlite_begin', '')}".strip())


def _set_synchronous(connection: Any, level: str) -> None:
    """``PRAGMA synchronous`` for the transaction about to begin (set only when it changes)."""
    info = connection.connection.info
    if info.get("synchronous", "FULL") != level:
        connection.exec_driver_sql(f"PRAGMA synchronous={level}")
        info["synchronous"] = level


_databases: dict[str, Database] = {}
_databases_lock = threading.Lock()


def database_for(settings: Settings) -> Database:
    """The process-wide Database for the settings' URL (the apps of one process share it)."""
    url = normalize_url(settings.effective_database_url)
    with _databases_lock:
        database = _databases.get(url)
        if database is None:
            if url.startswith("sqlite"):
                settings.data_dir.mkdir(parents=True, exist_ok=True)
            database = Database(url, pool_size=settings.db_pool_size)
            _databases[url] = database
        return database


def forget_database(settings: Settings) -> None:
    """Close and drop the cached Database of these settings (tests and restarts)."""
    url = normalize_url(settings.effective_database_url)
    with _databases_lock:
        database = _databases.pop(url, None)
    if database is not None:
        database.dispose()
