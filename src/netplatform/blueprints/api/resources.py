"""``/api/v1/resources``: resolved resource values (what resolution found for each assignment)."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse

from ...clock import utc_now
from ...web.errors import Conflict
from .. import repository
from ..errors import DUPLICATE_DATA, resource_not_found
from ..repository import ResourceQuery, ResourceRecord
from ..resolutions import deletion_query, template_key, values_query
from ..schemas import DeletedEntries, ResolvedResource, ResolvedResourceIn
from . import _render as render
from ._http import database, errors, ok

router = APIRouter(prefix="/api/v1/resources", tags=["resolved resources"])
Required = Annotated[str, Query(max_length=255)]
Optional = Annotated[str | None, Query(max_length=255)]
MAX_VALUES = 1000


@router.post(
    "",
    summary="Store resolved values (each replaces the value of the same name, key and occurrence)",
    response_model=list[ResolvedResource],
    responses=errors(400),
)
def store_values(
    request: Request, values: Annotated[list[ResolvedResourceIn], Body(min_length=1, max_length=MAX_VALUES)]
) -> JSONResponse:
    now = utc_now()
    records = [_record(value, now) for value in values]
    repository.write_with_retry(database(request), repository.store_resources, records)
    return ok([render.resource(record) for record in records])


def _record(value: ResolvedResourceIn, now: datetime) -> ResourceRecord:
    key = template_key(
        value.blueprintName,
        value.blueprintVersion,
        value.artifactName,
        resolution_key=value.resolutionKey,
        resource_type=value.resourceType,
        resource_id=value.resourceId,
        occurrence=value.occurrence,
    )
    values_query(  # the same rule as reading: a resolution key or a resource, exactly one
        key.blueprint_name,
        key.blueprint_version,
        key.artifact_name,
        key.resolution_key,
        key.resource_type,
        key.resource_id,
    )
    return ResourceRecord(
        key=key,
        name=value.name,
        value=value.value if isinstance(value.value, str) else json.dumps(value.value),
        status=value.status,
        dictionary_name=value.dictionaryName,
        dictionary_source=value.dictionarySource,
        dictionary_version=value.dictionaryVersion,
        id=str(uuid.uuid4()),
        created_date=now,
    )


@router.get(
    "",
    summary="Resolved values of a resolution key, or of a resource",
    response_model=list[ResolvedResource],
    responses=errors(400),
)
def find_values(
    request: Request,
    bpName: Required,
    bpVersion: Required,
    artifactName: Optional = None,
    resolutionKey: Optional = None,
    resourceType: Optional = None,
    resourceId: Optional = None,
) -> JSONResponse:
    query = values_query(bpName, bpVersion, artifactName, resolutionKey, resourceType, resourceId)
    return ok([render.resource(record) for record in _find(request, query)])


def _find(request: Request, query: ResourceQuery) -> list[ResourceRecord]:
    with database(request).read() as session:
        return repository.find_resources(session, query)


@router.delete(
    "",
    summary="Delete every resolved value of a resolution key (or of a resource)",
    response_model=DeletedEntries,
    responses=errors(400),
)
def delete_values(
    request: Request,
    bpName: Required,
    bpVersion: Required,
    artifactName: Required,
    resolutionKey: Optional = None,
    resourceType: Optional = None,
    resourceId: Optional = None,
) -> JSONResponse:
    query = deletion_query(bpName, bpVersion, artifactName, resolutionKey, resourceType, resourceId)
    with database(request).write() as session:
        deleted = repository.delete_resources(session, query)
    return ok({"deletedEntries": deleted})


@router.get(
    "/resource",
    summary="One resolved value by name",
    response_model=ResolvedResource,
    responses=errors(404, 409),
)
def find_value(
    request: Request,
    bpName: Required,
    bpVersion: Required,
    artifactName: Required,
    resolutionKey: Required,
    name: Required,
) -> JSONResponse:
    query = ResourceQuery(
        bpName, bpVersion, artifact_name=artifactName, resolution_key=resolutionKey, name=name
    )
    found = _find(request, query)
    if not found:
        raise resource_not_found("No records found")
    if len(found) > 1:
        raise Conflict(
            f"Multiple records found for resource ({name}) under resolution key ({resolutionKey})",
            code=DUPLICATE_DATA,
        )
    return ok(render.resource(found[0]))
