"""The health report of ``GET /healthcheck``: is the database reachable (reference 5)."""

from __future__ import annotations

from .policy_store import PolicyStore
from .schemas import HealthReport

REPORT_NAME = "Policy API"


class HealthCheck:
    """Probes the database on every call (the kernel's cached ``/health`` probe is another route)."""

    def __init__(self, store: PolicyStore, instance_name: str) -> None:
        self.store = store
        self.instance_name = instance_name

    def report(self) -> HealthReport:
        if self.store.reachable():
            return HealthReport(
                name=REPORT_NAME, url=self.instance_name, healthy=True, code=200, message="alive"
            )
        return HealthReport(
            name=REPORT_NAME,
            url=self.instance_name,
            healthy=False,
            code=503,
            message="unable to connect with database",
        )
