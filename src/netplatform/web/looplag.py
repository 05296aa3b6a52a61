"""How late the event loop runs what is ready: a probe per loop, exported on every service's /metrics.

Every service of a process shares one event loop, so work that holds the loop (a synchronous
call in a coroutine, a long parse, a full garbage collection) delays every request of every
service, and the request latency histograms only show it smeared over many routes. The probe
is a task that sleeps ``INTERVAL_S`` and measures how much later than asked it wakes: that
delay is the time a request that became ready at the same moment waited too.

One probe per event loop, however many apps run on it: each app's kernel lifespan takes a
share of the running loop's probe (:func:`probing`), the first share starts it and the last one
stops it. Each app's registry reports the loop it runs on, so every service's /metrics carries
the same figures in the all-in-one process:

- ``event_loop_lag_seconds``: a histogram of the wake-up delays, one sample per interval;
- ``event_loop_lag_max_seconds``: the longest delay of the last ``WINDOW_S`` seconds.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress

from prometheus_client.core import GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

INTERVAL_S = 0.05
"""How often the probe asks to be woken: short enough to see stalls of tens of milliseconds,
long enough to cost nothing (20 wake-ups a second)."""

WINDOW_S = 60.0
"""The max gauge covers this many seconds: a stall at start-up does not hide later ones forever."""

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class LoopLag:
    """The wake-up delays of one event loop: histogram counts and the recent samples."""

    def __init__(self, interval_s: float = INTERVAL_S) -> None:
        self.interval_s = interval_s
        self.bucket_counts = [0] * (len(BUCKETS) + 1)  # the last one: above every bound
        self.total_s = 0.0
        self.samples = 0
        # (loop time, lag) of the window; one sample per interval at most, so this bounds it.
        self.recent: deque[tuple[float, float]] = deque(maxlen=int(WINDOW_S / interval_s) + 1)
        self.users = 0
        self.task: asyncio.Task[None] | None = None

    def observe(self, lag_s: float, now: float) -> None:
        self.bucket_counts[bisect.bisect_left(BUCKETS, lag_s)] += 1
        self.total_s += lag_s
        self.samples += 1
        self.recent.append((now, lag_s))

    def max_recent(self, now: float) -> float:
        # tuple() copies under the GIL: a scrape runs in a worker thread while the loop appends.
        return max((lag for at, lag in tuple(self.recent) if at >= now - WINDOW_S), default=0.0)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + self.interval_s
            await asyncio.sleep(self.interval_s)
            now = loop.time()
            self.observe(max(0.0, now - due), now)


_probes: dict[asyncio.AbstractEventLoop, LoopLag] = {}


@asynccontextmanager
async def probing() -> AsyncIterator[LoopLag]:
    """A share of the running loop's probe for the duration of the block (an app's lifespan)."""
    loop = asyncio.get_running_loop()
    probe = _probes.get(loop)
    if probe is None:
        probe = _probes[loop] = LoopLag()
        probe.task = loop.create_task(probe.run(), name="event-loop-lag-probe")
    probe.users += 1
    try:
        yield probe
    finally:
        probe.users -= 1
        if probe.users == 0:
            del _probes[loop]
            await _stopped(probe)


async def _stopped(probe: LoopLag) -> None:
    if probe.task is not None:
        probe.task.cancel()
        with suppress(asyncio.CancelledError):
            await probe.task


class LoopLagCollector(Collector):
    """Reports the probe its app's lifespan attached (nothing before the app has started)."""

    def __init__(self) -> None:
        self.probe: LoopLag | None = None

    def collect(self) -> Iterator[Metric]:
        probe = self.probe
        if probe is None or probe.task is None:
            return
        counts = list(probe.bucket_counts)
        cumulative, buckets = 0, []
        for bound, count in zip([*map(str, BUCKETS), "+Inf"], counts, strict=True):
            cumulative += count
            buckets.append((bound, cumulative))
        yield HistogramMetricFamily(
            "event_loop_lag_seconds",
            "How much later than asked a task sleeping on the event loop woke up, sampled every "
            f"{INTERVAL_S} s (the time any ready request waited too)",
            buckets=buckets,
            sum_value=probe.total_s,
        )
        now = probe.task.get_loop().time()
        yield GaugeMetricFamily(
            "event_loop_lag_max_seconds",
            f"The longest event loop lag of the last {WINDOW_S:.0f} s",
            value=probe.max_recent(now),
        )


def register_loop_lag_metrics(registry: CollectorRegistry) -> LoopLagCollector:
    """The collector of an app's registry; its lifespan sets ``probe`` (see :func:`probing`)."""
    collector = LoopLagCollector()
    registry.register(collector)
    return collector
