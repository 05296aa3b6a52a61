"""Background jobs run by the kernel report their failures on /metrics and /health (web/jobs.py)."""

from __future__ import annotations

import re
import threading

import pytest

from netplatform.services import create_service_app
from netplatform.web.jobs import Job

from ..conftest import ADMIN, SettingsFactory
from ..support.databases import migrate
from ..support.servers import LiveServer, http_client
from ..support.waiting import wait_until


def _series(text: str, name: str, job: str) -> float | None:
    match = re.search(rf'^{name}\{{[^}}]*job="{job}"[^}}]*\}} (\S+)$', text, re.MULTILINE)
    return float(match.group(1)) if match else None


def test_a_failing_job_shows_on_metrics_and_health_within_its_bound_and_clears(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings()
    migrate(settings)
    app = create_service_app("policy", settings)
    broken = threading.Event()
    broken.set()

    def work() -> None:
        if broken.is_set():
            raise ConnectionError("the far end is away")

    app.state.jobs.every("test-probe", 0.05, work, alert_after_s=0.5)
    with LiveServer(app) as server, http_client(server.url, auth=ADMIN) as client:

        def failures() -> float:
            return _series(client.get("/metrics").text, "background_job_failures_total", "test-probe") or 0

        wait_until(lambda: failures() >= 2, timeout=10, what="failures counted on /metrics")
        wait_until(lambda: client.get("/health").json()["status"] == "DEGRADED", timeout=10, what="DEGRADED")
        answer = client.get("/health")
        assert answer.status_code == 200  # it still serves
        assert "test-probe" in answer.json()["reason"] and "the far end is away" in answer.json()["reason"]
        metrics = client.get("/metrics").text
        assert (_series(metrics, "background_job_consecutive_failures", "test-probe") or 0) >= 2
        assert _series(metrics, "background_job_last_success_timestamp_seconds", "test-probe") is None

        broken.clear()
        wait_until(lambda: client.get("/health").json()["status"] == "UP", timeout=10, what="UP again")
        metrics = client.get("/metrics").text
        assert _series(metrics, "background_job_consecutive_failures", "test-probe") == 0
        assert _series(metrics, "background_job_last_success_timestamp_seconds", "test-probe") is not None


def test_a_job_failing_for_less_than_its_bound_is_not_overdue() -> None:
    job = Job("probe", alert_after_s=60.0)
    job.failed(ConnectionError("away"))
    job.failed(ConnectionError("away"))
    assert job.overdue() is None and job.consecutive_failures == 2
    job.succeeded()
    assert job.consecutive_failures == 0 and job.last_success is not None


def test_two_jobs_of_one_name_are_refused(make_settings: SettingsFactory) -> None:
    app = create_service_app("policy", make_settings())
    app.state.jobs.every("twice", 1.0, lambda: None)
    with pytest.raises(ValueError, match="twice"):
        app.state.jobs.every("twice", 1.0, lambda: None)
