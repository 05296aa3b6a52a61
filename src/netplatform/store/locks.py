"""Locks that hold across instances: PostgreSQL advisory locks, or in-process locks on SQLite.

A lock is named by a namespace (one per use, so two uses never collide) and a key. On
PostgreSQL it is a session advisory lock on a connection of its own, shared by every instance
of the platform; SQLite is a single-host store, so a lock within the process (or a file lock
for work across processes, see :func:`file_lock`) is enough there.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import text

from .db import Database

# Each held advisory lock keeps a pooled connection while its holder needs others for its
# transactions; capping the holders keeps the pool from filling with lock connections only.
_ADVISORY_SLOTS = threading.BoundedSemaphore(4)
_LOCAL_STRIPES = 64  # keys share a few in-process locks; a collision only serialises more
_LOCAL_LOCKS: dict[tuple[int, int], threading.Lock] = {}
_LOCAL_GUARD = threading.Lock()


@contextmanager
def advisory_lock(
    database: Database, namespace: int, key: int = 0, *, bounded: bool = True
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
        arguments = {"namespace": namespace, "key": key}
        connection.execute(text("SELECT pg_advisory_lock(:namespace, :key)"), arguments)
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:namespace, :key)"), arguments)
            connection.commit()


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
