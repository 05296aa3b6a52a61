"""The execution's own threads: runs never take the threads or the event loop the other services
need.

Every service of a process shares one event loop and anyio's worker threads (40). A sync run
lasts as long as its workflow, and its ``sdnc`` source calls the config tree, whose handler
needs one of those threads too: runs that held them all made every other service wait (and
their own config tree reads time out). So a run holds one of :class:`RunPool`'s threads
instead, of which there are ``workers``; the event loop only waits on it. A request that finds
them all busy waits for one, in order of arrival, at most ``queue`` requests at once and each at
most ``wait_s``; otherwise it is refused at once (:class:`PoolFull`), and the route answers 503
with ``Retry-After``. Internal calls a run makes (the config tree over HTTP) are served by the
ordinary threads, never by this pool, so a run never waits on a pool it holds.

A slot is given back when the work in its thread has ended, not when the request that asked
for it went away (a client that disconnects does not stop a thread): the pool never runs more
than ``workers`` threads of work.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

T = TypeVar("T")


class PoolFull(Exception):
    """Every worker is busy and the queue is full, or the wait for one ran out."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s


class RunPool:
    """``workers`` threads, a queue of at most ``queue`` waiting requests, each waiting at most
    ``wait_s``. Used from one event loop (the app's); the threads hand slots back through it."""

    def __init__(self, workers: int, queue: int, wait_s: float, name: str = "blueprints-run") -> None:
        self.workers = workers
        self.queue = queue
        self.wait_s = wait_s
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._free = workers
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def retry_after_s(self) -> int:
        return max(1, math.ceil(self.wait_s))

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """A slot of the pool for the body of the ``async with``; PoolFull when none comes."""
        loop = asyncio.get_running_loop()
        await self._acquire(loop)
        held = Slot(self._executor, loop, self._release)
        try:
            yield held
        finally:
            held.give_back()

    async def _acquire(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        if len(self._waiting) >= self.queue:
            raise PoolFull(
                f"every execution worker is busy and {self.queue} runs are already waiting",
                self.retry_after_s,
            )
        turn: asyncio.Future[None] = loop.create_future()
        self._waiting.append(turn)
        expiry = loop.call_later(self.wait_s, self._expire, turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled() and turn.exception() is None:
                self._release()  # given a slot just as the request went away: pass it on
            raise
        finally:
            expiry.cancel()
            if turn in self._waiting:
                self._waiting.remove(turn)

    def _expire(self, turn: asyncio.Future[None]) -> None:
        if not turn.done():
            turn.set_exception(
                PoolFull(f"no execution worker was free within {self.wait_s:g} s", self.retry_after_s)
            )

    def _release(self) -> None:
        """On the event loop: the slot goes to the first request still waiting, else back."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


class Slot:
    """One held slot: :meth:`call` runs work on the pool's threads, one call at a time."""

    def __init__(
        self, executor: ThreadPoolExecutor, loop: asyncio.AbstractEventLoop, release: Callable[[], None]
    ) -> None:
        self._executor = executor
        self._loop = loop
        self._release = release
        self._last: Future[Any] | None = None

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        self._last = self._executor.submit(work, *args)
        return await asyncio.wrap_future(self._last)

    def give_back(self) -> None:
        """Now, or when the work still running in its thread ends (its request went away)."""
        last = self._last
        if last is None or last.done():
            self._release()
            return
        last.add_done_callback(lambda _: self._loop.call_soon_threadsafe(self._release))
