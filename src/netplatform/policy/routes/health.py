"""The health report: GET /healthcheck (reference 5), served like the kernel's ``/health``.

A monitor polls it as often as ``/health``, so it is answered by a :class:`HealthShortcut` in
the service's middleware (:func:`healthcheck_shortcut`): inside the kernel, so the credentials
and the permission the route declares are still required and the request is counted, logged
and measured like any other, but without the framework's route matching and dependency
solving. The route stays declared for the OpenAPI document, the permission table and the
kernel's route table.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from starlette.middleware import Middleware
from starlette.types import Scope

from ...web.answers import reply
from ...web.health import HealthShortcut
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import HealthCheckDep, health_check_of
from ..healthcheck import HealthCheck
from ..media_types import answer_format, encode
from ..schemas import HealthReport
from ..spec import PERMISSIONS, SPEC
from ..statistics import PREFIX
from ._common import ALSO_YAML, documented

router = APIRouter(prefix=PREFIX, tags=["policy design"])

HEALTH_RESPONSES = {
    **documented(HealthReport),
    **answers(SPEC, HealthReport, status=503, description="Database unreachable", content=ALSO_YAML),
}


# Any policy.reader may ask (a health probe needs no write rights); the kernel's /health is public.
@router.get(
    "/healthcheck",
    summary="Health of the API and its database",
    responses=HEALTH_RESPONSES,
    openapi_extra=requires(PERMISSIONS.read("healthcheck")),
)
async def healthcheck(request: Request, health: HealthCheckDep) -> Response:
    return await _answer(request, health)


async def _answer(request: Request, health: HealthCheck) -> Response:
    report = await health.report()
    return reply(encode(report.model_dump(), answer_format(request)), report.code)


async def _shortcut_answer(scope: Scope) -> Response:
    request = Request(scope)  # scope["app"] is the policy app (Starlette sets it first)
    return await _answer(request, health_check_of(request))


def healthcheck_shortcut() -> Middleware:
    """The service middleware that answers ``GET /healthcheck`` before the framework routes it."""
    route = next(r for r in router.routes if isinstance(r, APIRoute) and r.name == "healthcheck")
    return Middleware(HealthShortcut, path=route.path, route=route, answer=_shortcut_answer)
