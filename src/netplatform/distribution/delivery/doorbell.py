"""How idle delivery workers learn of new work: one worker per ring, not all of them.

Every publish rings. Waking every idle worker for each publish made all of them query for a free
queue, though at most one new queue can have become due; under a stream of small publishes those
queries took as much time as the deliveries (issue 16). A ring wakes one idle worker; a worker that
claimed a queue rings again, so a burst that makes many queues due still spreads over the workers
one claim at a time. A ring while no worker waits is kept for the next one that would wait, so no
ring is lost between a worker's last look and its wait.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque


class Doorbell:
    """Call from the event loop's thread only."""

    def __init__(self) -> None:
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._kept = False

    def ring(self) -> None:
        """Wake one idle worker (or the next to wait, when none is waiting)."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._kept = True

    def ring_all(self) -> None:
        """Wake every idle worker (stopping)."""
        self._kept = True
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self, timeout_s: float) -> None:
        """Until rung or ``timeout_s`` passed."""
        if self._kept:
            self._kept = False
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, timeout_s)
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(waiter)
