"""The health report of ``GET /healthcheck``: is the database reachable (reference 5).

It reads the kernel's health probe, the one behind ``/health``: at most one database probe per
interval however often monitors poll, shared by concurrent polls (web/health.py). The report
keeps the reference's shape and words.
"""

from __future__ import annotations

from ..web.health import HealthProbe
from .schemas import HealthReport

REPORT_NAME = "Policy API"


class HealthCheck:
    def __init__(self, probe: HealthProbe, instance_name: str) -> None:
        self.probe = probe
        self.instance_name = instance_name

    async def report(self) -> HealthReport:
        if await self.probe.healthy():
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
