"""``GET /actuator/mappings``: the endpoint listing (spec 2.1), documented as 202 like the reference."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..actuator import endpoint_listing
from ..deps import RouteTableDep
from ..schemas import EndpointListing
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/actuator", tags=["actuator"])


@router.get(
    "/mappings",
    summary="Every endpoint of this service",
    status_code=202,
    responses=answers(SPEC, EndpointListing, status=202),
    openapi_extra=requires(PERMISSIONS.read("actuator")),
)
def mappings(routes: RouteTableDep) -> Response:
    return reply(endpoint_listing(routes.routes), 202)
