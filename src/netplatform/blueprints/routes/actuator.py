"""``GET /actuator/mappings``: the endpoint listing (spec 2.1), documented as 202 like the reference."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ...web.permissions import requires
from ..actuator import endpoint_listing
from ..deps import RouteTableDep
from ..schemas import EndpointListing
from ..spec import PERMISSIONS

router = APIRouter(prefix="/actuator", tags=["actuator"])


@router.get(
    "/mappings",
    summary="Every endpoint of this service",
    status_code=202,
    response_model=EndpointListing,
    openapi_extra=requires(PERMISSIONS.read("actuator")),
)
def mappings(routes: RouteTableDep) -> JSONResponse:
    return JSONResponse(endpoint_listing(routes.routes), status_code=202)
