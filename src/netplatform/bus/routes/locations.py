"""Site locations (``/svcLocations``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body
from fastapi.responses import Response

from ...web.openapi import answers
from ...web.permissions import requires
from ..answers import reply
from ..deps import SiteLocationsDep
from ..request_schemas import REQUIRED_BODY, SvcLocationRequest
from ..schemas import SvcLocation
from ..spec import PERMISSIONS, SPEC
from ._common import DELETE_DONE, new_router

router = new_router("/svcLocations", "site locations")
Payload = Annotated[SvcLocation | None, Body()]


@router.post(
    "",
    summary="Create a site location",
    responses=answers(SPEC, SvcLocation, 409),
    openapi_extra={**REQUIRED_BODY, **requires(PERMISSIONS.write("svcLocations"))},
)
def create_location(
    locations: SiteLocationsDep, body: Annotated[SvcLocationRequest, Body(default_factory=SvcLocationRequest)]
) -> Response:
    return reply(locations.create(body))


@router.get(
    "",
    summary="All site locations",
    responses=answers(SPEC, list[SvcLocation]),
    openapi_extra=requires(PERMISSIONS.read("svcLocations")),
)
def list_locations(locations: SiteLocationsDep) -> Response:
    return reply(locations.all())


@router.get(
    "/{locationName}",
    summary="One site location",
    responses=answers(SPEC, SvcLocation, 404),
    openapi_extra=requires(PERMISSIONS.read("svcLocations")),
)
def get_location(locations: SiteLocationsDep, locationName: str) -> Response:
    return reply(locations.get(locationName))


@router.put(
    "/{locationName}",
    summary="Update a site location (its cloudAvailabilityZone)",
    responses=answers(SPEC, SvcLocation, 404),
    openapi_extra=requires(PERMISSIONS.write("svcLocations")),
)
def update_location(locations: SiteLocationsDep, locationName: str, body: Payload = None) -> Response:
    return reply(locations.update(locationName, body or SvcLocation()))


@router.delete(
    "/{locationName}",
    summary="Delete a site location",
    responses=answers(SPEC, None, 404, status=204),
    openapi_extra=requires(PERMISSIONS.write("svcLocations")),
    **DELETE_DONE,
)
def delete_location(locations: SiteLocationsDep, locationName: str) -> Response:
    locations.delete(locationName)
    return reply(None, 204)
