"""Secrets stored only as slow salted hashes: argon2id (argon2-cffi's defaults, RFC 9106's
low-memory profile: 64 MiB, three passes). Verifying costs tens of milliseconds and 64 MiB on
purpose, so checks a client can cause run on :class:`PasswordChecks`, a few threads with a
bounded queue: however many requests arrive, at most that many hashes are in memory and on the
cores at once. The kernel remembers verified credentials (per generation), so a client that
authenticates again costs a dict lookup, not a check."""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

T = TypeVar("T")

PRODUCTION_HASHER = PasswordHasher()
_HASHER = PRODUCTION_HASHER
_ABSENT_PASSWORD = "netplatform: no such identity"  # noqa: S105 -- hashed, never accepted

# Verified against when an identity does not exist, so a wrong user name costs what a wrong
# password does (its existence does not show in the response time).
_ABSENT = _HASHER.hash(_ABSENT_PASSWORD)


def use_hasher(hasher: PasswordHasher) -> None:
    """Make new hashes (and the absent identity's) with ``hasher``: for the test suite only
    (tests/conftest.py), which would otherwise spend much of its time in argon2. No setting
    reaches this; a deployment always hashes with PRODUCTION_HASHER."""
    global _HASHER, _ABSENT
    _HASHER = hasher
    _ABSENT = hasher.hash(_ABSENT_PASSWORD)
    with _hashed_once_lock:
        _hashed_once.clear()


def hash_password(password: str) -> str:
    return _HASHER.hash(password)


def verify_password(encoded: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``encoded`` was made from; False for no (or an empty) hash,
    after the same work as a real check."""
    stored = bool(encoded)
    try:
        return _HASHER.verify(encoded if stored else _ABSENT, password) and stored  # type: ignore[arg-type]
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def is_hashed(value: str) -> bool:
    return value.startswith("$argon2")


_hashed_once: dict[bytes, str] = {}
_hashed_once_lock = threading.Lock()


def hash_configured(name: str, password: str) -> str:
    """The argon2 hash of a configured identity's password, made once per process: the apps a
    process builds (and a test session's many) share it, and start-up pays one hash per entry."""
    key = hashlib.sha256(f"{name}\x00{password}".encode()).digest()
    with _hashed_once_lock:
        found = _hashed_once.get(key)
    if found is None:
        found = hash_password(password)
        with _hashed_once_lock:
            found = _hashed_once.setdefault(key, found)
    return found


class ChecksBusy(Exception):
    """Every thread and queue place of :class:`PasswordChecks` is taken: answer 503 at once."""


class PasswordChecks:
    """argon2 work on ``threads`` threads with at most ``queue`` checks waiting.

    A check beyond that fails at once (:class:`ChecksBusy`) rather than waiting: unauthenticated
    load then costs at most ``threads`` cores and ``threads`` x 64 MiB, and a queued check waits
    at most ``queue / threads`` check times. Counts its refusals, for the metrics.
    """

    def __init__(self, threads: int, queue: int) -> None:
        self.threads = threads
        self.queue = queue
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="password-check")
        self._places = threading.BoundedSemaphore(threads + queue)
        self.busy = 0

    async def run(self, work: Callable[[], T]) -> T:
        """``work()`` on a check thread; ChecksBusy when none is free and the queue is full."""
        if not self._places.acquire(blocking=False):
            self.busy += 1
            raise ChecksBusy()
        try:
            future = self._pool.submit(work)
        except BaseException:
            self._places.release()
            raise
        # Released when the work ends, or when a check still queued is cancelled (its client left).
        future.add_done_callback(self._release)
        return await asyncio.wrap_future(future)

    def _release(self, future: Future[Any]) -> None:
        self._places.release()


def default_check_threads() -> int:
    """Half the cores, at least one: unauthenticated load never takes every core."""
    return max(1, (os.cpu_count() or 2) // 2)


_pools: dict[tuple[int, int], PasswordChecks] = {}
_pools_lock = threading.Lock()


def checks_for(threads: int, queue: int) -> PasswordChecks:
    """The process's pool of that size (0 threads: :func:`default_check_threads`)."""
    key = (threads or default_check_threads(), queue)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = PasswordChecks(*key)
        return pool
