"""Locks that hold across instances: PostgreSQL advisory locks, or in-process locks on SQLite.

A lock is named by a namespace (one per use, so two uses never collide; every namespace of the
platform is listed in :class:`LockNamespace`) and a key. Two kinds:

* :func:`advisory_lock` holds across transactions (a provisioning pass that calls other
  services between short transactions). On PostgreSQL it is a session advisory lock on a
  connection of its own, shared by every instance of the platform; SQLite is a single-host store,
  so a lock within the process (or a file lock for work across processes, see
  :func:`file_lock`) is enough there.
* :func:`transaction_lock` holds until the write transaction it is taken in ends. On PostgreSQL
  it is a transaction advisory lock on that transaction's connection; on SQLite the write
  transaction already holds the database's write lock (``BEGIN IMMEDIATE``), which serialises
  every writer, so nothing more is taken.
"""

from __future__ import annotations

import enum
import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.orm import Session

from .db import Database


@enum.unique  # two uses of one namespace would serialise each other, or worse, not at all
class LockNamespace(enum.IntEnum):
    """Every advisory-lock namespace of the platform (PostgreSQL shares one lock space between
    the session and the transaction locks), and what each serialises."""

    MIGRATIONS = 0x6E65_7470
    """"netp": schema migrations, one process at a time (:mod:`.migrate`)."""
    BUS_TOPOLOGY = 0x6274
    """"bt": every bus write that changes or depends on the topology (settings, locations,
    clusters, topics, clients, bridges), one at a time, so a topic's bridges and client ids are
    computed from what the previous write left (a transaction lock: ``bus.repository.locks``)."""
    BUS_PROVISIONING = 0x6270
    """"bp": one router-provisioning pass of the bus at a time, so an agent's messages are never
    sent from a stale read."""
    BUS_RECONCILE = 0x6272
    """"br": one background reconcile of the bus (retries, then verification) at a time."""
    BUS_FEEDS = 0x6275
    """"bu": the provisioning of one feed in the distribution service (key: the feed's ref)."""


# Each held advisory lock keeps a pooled connection while its holder needs others for its
# transactions; capping the holders keeps the pool from filling with lock connections only.
_ADVISORY_SLOTS = threading.BoundedSemaphore(4)
_LOCAL_STRIPES = 64  # keys share a few in-process locks; a collision only serialises more
_LOCAL_LOCKS: dict[tuple[int, int], threading.Lock] = {}
_LOCAL_GUARD = threading.Lock()


@contextmanager
def advisory_lock(
    database: Database, namespace: LockNamespace, key: int = 0, *, bounded: bool = True
) -> Iterator[None]:
    """Hold lock ``(namespace, key)`` for the duration of the block, across every instance.

    ``bounded=False`` skips the cap on concurrent holders (for one-off locks such as migrations,
    taken before any request is served).
    """
    if not database.is_postgresql:
        with _local_lock(namespace, key):
            yield
        return
    slots = _ADVISORY_SLOTS if bounded else threading.Lock()
    with slots, database.engine.connect() as connection:
        arguments = {"namespace": int(namespace), "key": key}
        connection.execute(text("SELECT pg_advisory_lock(:namespace, :key)"), arguments)
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:namespace, :key)"), arguments)
            connection.commit()


def transaction_lock(session: Session, namespace: LockNamespace, key: int = 0) -> None:
    """Hold lock ``(namespace, key)`` until ``session``'s transaction ends, across every instance.

    Call it in a write transaction (:meth:`.db.Database.write`): on SQLite that transaction is the
    lock. Take it first in the transaction, so every holder locks in the same order."""
    if session.get_bind().dialect.name == "postgresql":
        arguments = {"namespace": int(namespace), "key": key}
        session.execute(text("SELECT pg_advisory_xact_lock(:namespace, :key)"), arguments)


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if needed), held across processes of this host."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _local_lock(namespace: int, key: int) -> threading.Lock:
    with _LOCAL_GUARD:
        return _LOCAL_LOCKS.setdefault((namespace, key % _LOCAL_STRIPES), threading.Lock())
