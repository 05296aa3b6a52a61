"""``/api/v1/resources``: resolved resource values (what resolution found for each assignment)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import ResolvedResourcesDep
from ..resolutions import deletion_query, named_value_query, values_query
from ..schemas import DeletedEntries, ResolvedResource, ResolvedResourceIn
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies

router = APIRouter(prefix="/api/v1/resources", tags=["resolved resources"])
Required = Annotated[str, Query(max_length=255)]
Optional = Annotated[str | None, Query(max_length=255)]
MAX_VALUES = 1000


@router.post(
    "",
    summary="Store resolved values (each replaces the value of the same name, key and occurrence)",
    responses=answers(SPEC, list[ResolvedResource], 400),
    openapi_extra=requires(PERMISSIONS.write("resources")),
)
def store_values(
    resources: ResolvedResourcesDep,
    values: Annotated[list[ResolvedResourceIn], Body(min_length=1, max_length=MAX_VALUES)],
) -> Response:
    return reply([bodies.resource(record) for record in resources.store(values)])


@router.get(
    "",
    summary="Resolved values of a resolution key, or of a resource",
    responses=answers(SPEC, list[ResolvedResource], 400),
    openapi_extra=requires(PERMISSIONS.read("resources")),
)
def find_values(
    resources: ResolvedResourcesDep,
    bpName: Required,
    bpVersion: Required,
    artifactName: Optional = None,
    resolutionKey: Optional = None,
    resourceType: Optional = None,
    resourceId: Optional = None,
) -> Response:
    query = values_query(bpName, bpVersion, artifactName, resolutionKey, resourceType, resourceId)
    return reply([bodies.resource(record) for record in resources.matching(query)])


@router.delete(
    "",
    summary="Delete every resolved value of a resolution key (or of a resource)",
    responses=answers(SPEC, DeletedEntries, 400),
    openapi_extra=requires(PERMISSIONS.write("resources")),
)
def delete_values(
    resources: ResolvedResourcesDep,
    bpName: Required,
    bpVersion: Required,
    artifactName: Required,
    resolutionKey: Optional = None,
    resourceType: Optional = None,
    resourceId: Optional = None,
) -> Response:
    query = deletion_query(bpName, bpVersion, artifactName, resolutionKey, resourceType, resourceId)
    return reply({"deletedEntries": resources.delete(query)})


@router.get(
    "/resource",
    summary="One resolved value by name",
    responses=answers(SPEC, ResolvedResource, 404, 409),
    openapi_extra=requires(PERMISSIONS.read("resources")),
)
def find_value(
    resources: ResolvedResourcesDep,
    bpName: Required,
    bpVersion: Required,
    artifactName: Required,
    resolutionKey: Required,
    name: Required,
) -> Response:
    query = named_value_query(bpName, bpVersion, artifactName, resolutionKey, name)
    return reply(bodies.resource(resources.one(query)))
