"""A background job of this instance: one blocking pass every so often, in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import anyio

log = logging.getLogger("netplatform.distribution")


class Periodic:
    """Run ``job`` every ``interval_s`` (the first time one interval after start) until stopped.

    A pass that fails is logged and the next one runs on time: a background job must outlive a
    database that is briefly unreachable.
    """

    def __init__(self, name: str, interval_s: float, job: Callable[[], object]) -> None:
        self.name = name
        self.interval_s = interval_s
        self.job = job
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await anyio.to_thread.run_sync(self.job)
            except Exception:
                log.exception("%s failed; trying again in %.1f s", self.name, self.interval_s)
