"""The database check behind ``GET /health``, at most one probe per interval.

Load balancers and monitors poll health often and in parallel; each poll probing the database
would cost a thread hop and a round trip per request. The answer is the result of the latest
probe when it is younger than ``max_age_s``, else a new probe that concurrent polls share.
A fresh process probes on its first poll, so a database that is down is reported at once.
"""

from __future__ import annotations

import time

import anyio

from ..store.db import Database


class HealthProbe:
    def __init__(self, database: Database, *, max_age_s: float = 0.5) -> None:
        self.database = database
        self.max_age_s = max_age_s
        self._healthy = False
        self._checked_at = float("-inf")
        self._lock = anyio.Lock()

    async def healthy(self) -> bool:
        if self._fresh():
            return self._healthy
        async with self._lock:
            if not self._fresh():  # another poll may have probed while this one waited
                self._healthy = await anyio.to_thread.run_sync(self.database.ping)
                self._checked_at = time.monotonic()
        return self._healthy

    def _fresh(self) -> bool:
        return time.monotonic() - self._checked_at < self.max_age_s
