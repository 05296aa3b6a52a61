"""Background jobs of a service, run once in the kernel, their failures counted and reported.

A job that fails and is retried forever, with nothing but a log line, is a failure nobody sees.
Every background loop of a service is therefore a :class:`Job` of its app's :class:`Jobs`:

- ``jobs.every(name, interval_s, work)``: the runner calls ``work`` every ``interval_s`` (a
  blocking function in a worker thread, or a coroutine function on the loop) until the app
  stops; a pass that raises is logged and counted, and the next one runs on time;
- ``jobs.loop(name, run)``: a job with a loop of its own (the delivery engine's workers, a
  mirror agent) reports each pass through the :class:`Job` it is given (``succeeded()`` /
  ``failed(error)``); the runner starts and stops it.

Each job has a bound (``alert_after_s``, by default ten periods and at least a minute): once its
failures have lasted longer than that without a success, ``/health`` answers ``DEGRADED`` naming
the job and its last error (still 200: the service serves; 503 is for what it cannot serve
without: its database). ``/metrics`` carries, per job, ``background_job_runs_total``,
``background_job_failures_total``, ``background_job_consecutive_failures`` and
``background_job_last_success_timestamp_seconds``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

import anyio
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

log = logging.getLogger("netplatform.jobs")

MIN_ALERT_S = 60.0
PERIODS_BEFORE_ALERT = 10

Work = Callable[[], object] | Callable[[], Awaitable[object]]


@dataclass
class Job:
    """One background job: what it has done, and whether its failures have lasted too long."""

    name: str
    alert_after_s: float
    runs: int = 0
    failures: int = 0
    consecutive_failures: int = 0
    last_success: float | None = None  # epoch seconds
    last_error: str = ""
    _failing_since: float | None = field(default=None, repr=False)  # monotonic

    def succeeded(self) -> None:
        self.runs += 1
        self.consecutive_failures = 0
        self.last_success = time.time()
        self._failing_since = None

    def failed(self, error: BaseException) -> None:
        self.runs += 1
        self.failures += 1
        self.consecutive_failures += 1
        self.last_error = f"{type(error).__name__}: {error}"[:300]
        if self._failing_since is None:
            self._failing_since = time.monotonic()

    def overdue(self) -> str | None:
        """Why this job counts as failing beyond its bound, else None."""
        if self._failing_since is None:
            return None
        failing_s = time.monotonic() - self._failing_since
        if failing_s < self.alert_after_s:
            return None
        return (
            f"background job {self.name} has failed {self.consecutive_failures} times in a row for"
            f" {failing_s:.0f} s: {self.last_error}"
        )


class Jobs:
    """The background jobs of one service app; started and stopped by the kernel's lifespan."""

    def __init__(self, service: str, registry: CollectorRegistry) -> None:
        self.service = service
        self.jobs: dict[str, Job] = {}
        self._runners: list[tuple[Job, Callable[[Job], Awaitable[None]]]] = []
        self._tasks: list[asyncio.Task[None]] = []
        registry.register(_JobCollector(self))

    def every(self, name: str, interval_s: float, work: Work, *, alert_after_s: float | None = None) -> Job:
        """Run ``work`` every ``interval_s`` seconds (first one interval after the start)."""
        job = self._add(name, alert_after_s or max(MIN_ALERT_S, PERIODS_BEFORE_ALERT * interval_s))

        async def periodic(job: Job) -> None:
            while True:
                await asyncio.sleep(interval_s)
                await run_pass(job, work, interval_s)

        self._runners.append((job, periodic))
        return job

    def loop(
        self, name: str, run: Callable[[Job], Awaitable[None]], *, alert_after_s: float = MIN_ALERT_S
    ) -> Job:
        """Run ``run(job)``, a loop of its own that reports its passes on ``job``."""
        job = self._add(name, alert_after_s)
        self._runners.append((job, run))
        return job

    def record(self, name: str, *, alert_after_s: float = MIN_ALERT_S) -> Job:
        """A job whose loop the service starts itself (several tasks sharing one record)."""
        return self._add(name, alert_after_s)

    def _add(self, name: str, alert_after_s: float) -> Job:
        if name in self.jobs:
            raise ValueError(f"a background job named {name} exists already")
        job = self.jobs[name] = Job(name, alert_after_s)
        return job

    def start(self) -> None:
        for job, run in self._runners:
            self._tasks.append(asyncio.create_task(_guarded(job, run), name=f"{self.service}:{job.name}"))

    async def stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def overdue(self) -> list[str]:
        """The reasons of every job failing beyond its bound."""
        return [reason for job in self.jobs.values() if (reason := job.overdue()) is not None]


async def run_pass(job: Job, work: Work, retry_s: float) -> None:
    """One pass of ``work`` recorded on ``job``; a failure is logged, never raised."""
    try:
        if inspect.iscoroutinefunction(work):
            await work()
        else:
            await anyio.to_thread.run_sync(work)
    except Exception as error:
        job.failed(error)
        # The traceback once per run of failures; then one line each, the count telling the rest.
        if job.consecutive_failures == 1:
            log.exception("background job %s failed; trying again in %.1f s", job.name, retry_s)
        else:
            log.warning(
                "background job %s failed again (%d in a row): %s", job.name, job.consecutive_failures, error
            )
    else:
        job.succeeded()


async def _guarded(job: Job, run: Callable[[Job], Awaitable[None]]) -> None:
    """A job's own loop that ends by an error is counted, logged, and started again."""
    while True:
        try:
            await run(job)
            return
        except Exception as error:
            job.failed(error)
            log.exception("background job %s stopped by an error; starting it again in 1 s", job.name)
            await asyncio.sleep(1.0)


class _JobCollector(Collector):
    def __init__(self, jobs: Jobs) -> None:
        self.jobs = jobs

    def collect(self) -> Iterator[Metric]:
        labels = ["service", "job"]
        runs = CounterMetricFamily("background_job_runs", "Passes of a background job", labels=labels)
        failures = CounterMetricFamily(
            "background_job_failures", "Failed passes of a background job", labels=labels
        )
        consecutive = GaugeMetricFamily(
            "background_job_consecutive_failures", "Failed passes since the last success", labels=labels
        )
        last = GaugeMetricFamily(
            "background_job_last_success_timestamp_seconds",
            "When the job last succeeded (epoch seconds; absent before its first success)",
            labels=labels,
        )
        for job in self.jobs.jobs.values():
            values = [self.jobs.service, job.name]
            runs.add_metric(values, job.runs)
            failures.add_metric(values, job.failures)
            consecutive.add_metric(values, job.consecutive_failures)
            if job.last_success is not None:
                last.add_metric(values, job.last_success)
        yield from (runs, failures, consecutive, last)
