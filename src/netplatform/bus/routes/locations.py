"""Site locations (``/svcLocations``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import JSONResponse, Response

from ...web.permissions import requires
from ..deps import SiteLocationsDep
from ..request_schemas import REQUIRED_BODY, SvcLocationRequest
from ..schemas import SvcLocation
from ..spec import PERMISSIONS
from ._common import DELETE_DONE, answers, new_router, no_content, reply

router = new_router("/svcLocations", "site locations")
Payload = Annotated[SvcLocation | None, Body()]


@router.post(
    "",
    summary="Create a site location",
    responses=answers(SvcLocation, 409),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("svcLocations"))},
)
def create_location(
    locations: SiteLocationsDep, body: Annotated[SvcLocationRequest, Body(default_factory=SvcLocationRequest)]
) -> JSONResponse:
    return reply(locations.create(body))


@router.get(
    "",
    summary="All site locations",
    responses=answers(list[SvcLocation]),
    openapi_extra=requires(PERMISSIONS.read("svcLocations")),
)
def list_locations(locations: SiteLocationsDep) -> JSONResponse:
    return reply(locations.all())


@router.get(
    "/{locationName}",
    summary="One site location",
    responses=answers(SvcLocation, 404),
    openapi_extra=requires(PERMISSIONS.read("svcLocations")),
)
def get_location(locations: SiteLocationsDep, locationName: str) -> JSONResponse:
    return reply(locations.get(locationName))


@router.put(
    "/{locationName}",
    summary="Update a site location (its cloudAvailabilityZone)",
    responses=answers(SvcLocation, 404),
    openapi_extra=requires(PERMISSIONS.write("svcLocations")),
)
def update_location(locations: SiteLocationsDep, locationName: str, body: Payload = None) -> JSONResponse:
    return reply(locations.update(locationName, body or SvcLocation()))


@router.delete(
    "/{locationName}",
    summary="Delete a site location",
    responses=answers(None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("svcLocations")),
    **DELETE_DONE,
)
def delete_location(locations: SiteLocationsDep, locationName: str) -> Response:
    locations.delete(locationName)
    return no_content()
