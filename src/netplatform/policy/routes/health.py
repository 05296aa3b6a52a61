"""The health report: GET /healthcheck (reference 5)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ...web.permissions import requires
from ..deps import HealthCheckDep
from ..media_types import YAML_MEDIA_TYPE, render
from ..schemas import HealthReport
from ..spec import PERMISSIONS
from ..statistics import PREFIX
from ._common import documented

router = APIRouter(prefix=PREFIX, tags=["policy design"])

HEALTH_RESPONSES = {
    **documented(HealthReport),
    503: {"model": HealthReport, "description": "Database unreachable", "content": {YAML_MEDIA_TYPE: {}}},
}


# Any policy.reader may ask (a health probe needs no write rights); the kernel's /health is public.
@router.get(
    "/healthcheck",
    summary="Health of the API and its database",
    responses=HEALTH_RESPONSES,
    openapi_extra=requires(PERMISSIONS.read("healthcheck")),
)
def healthcheck(request: Request, health: HealthCheckDep) -> Response:
    report = health.report()
    return render(request, report.model_dump(), report.code)
