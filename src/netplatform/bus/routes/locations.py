"""Site locations (``/svcLocations``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Body, Request
from fastapi.responses import JSONResponse, Response

from .. import locations
from ..schemas import SvcLocation
from ._shared import DELETE_DONE, answers, database, new_router, no_content, reply, settings_of

router = new_router("/svcLocations", "site locations")
Payload = Annotated[SvcLocation | None, Body()]


@router.post("", summary="Create a site location", responses=answers(SvcLocation, 409))
def create_location(request: Request, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        location = locations.create(session, settings_of(request), body or SvcLocation())
    return reply(location)


@router.get("", summary="All site locations", responses=answers(list[SvcLocation]))
def list_locations(request: Request) -> JSONResponse:
    with database(request).read() as session:
        return reply(locations.list_locations(session))


@router.get("/{locationName}", summary="One site location", responses=answers(SvcLocation, 404))
def get_location(request: Request, locationName: str) -> JSONResponse:
    with database(request).read() as session:
        return reply(locations.get(session, locationName))


@router.put(
    "/{locationName}",
    summary="Update a site location (its cloudAvailabilityZone)",
    responses=answers(SvcLocation, 404),
)
def update_location(request: Request, locationName: str, body: Payload = None) -> JSONResponse:
    with database(request).write() as session:
        location = locations.update(session, settings_of(request), locationName, body or SvcLocation())
    return reply(location)


@router.delete(
    "/{locationName}",
    summary="Delete a site location",
    responses=answers(None, 404, status=204),
    **DELETE_DONE,
)
def delete_location(request: Request, locationName: str) -> Response:
    with database(request).write() as session:
        locations.delete(session, settings_of(request), locationName)
    return no_content()
