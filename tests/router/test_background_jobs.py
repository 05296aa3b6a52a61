"""The router's background work runs on the kernel's job runner (issue 40, point 3): the embedded
engine's retention and reaper of lapsed claims, the mirror supervisor and the agents' copies
each report their passes on /metrics."""

from __future__ import annotations

import re

from ..support.waiting import wait_until
from .conftest import ADMIN, Router

RUNS = re.compile(r'^background_job_runs_total\{job="([^"]+)",service="router"\} (\S+)$', re.MULTILINE)


def job_runs(router: Router) -> dict[str, float]:
    with router.client(ADMIN) as client:
        answer = client.get("/metrics")
    assert answer.status_code == 200, answer.text
    return {job: float(runs) for job, runs in RUNS.findall(answer.text)}


def test_the_engine_and_the_mirror_supervisor_are_jobs_of_the_kernel(router: Router) -> None:
    embedded = router.engine == "embedded"
    expected = {"mirror-supervisor"} | ({"router-claims"} if embedded else set())  # every few seconds

    def every_job_ran() -> bool:
        runs = job_runs(router)
        return all(runs.get(job, 0) >= 1 for job in expected)

    wait_until(every_job_ran, 30, lambda: f"a run of each of {sorted(expected)}: {job_runs(router)}")
    registered = set(job_runs(router))
    assert "mirror-copies" in registered  # recorded, with no agent to run yet
    assert ("router-retention" in registered) == embedded  # every minute at the default retention
