"""``/api/v1/configs``: configuration snapshots of a resource, RUNNING and CANDIDATE."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response

from ...clock import utc_now
from .. import repository
from ..errors import resource_not_found
from ..formats import FORMAT_WORDS, media_type_of, rendered
from ..names import checked_name
from ..repository import ConfigRecord
from ..resolutions import ANY_STATUS, SNAPSHOT_STATUSES, snapshot_status
from ..schemas import ConfigSnapshot
from . import _render as render
from ._http import (
    EMPTY_OK,
    TEXT_BODY,
    Name,
    any_case,
    database,
    empty_ok,
    errors,
    ok,
    text_body,
    text_responses,
)

router = APIRouter(prefix="/api/v1/configs", tags=["configuration snapshots"])
QueryName = Annotated[str, Query(max_length=255)]
Status = Annotated[
    str, Path(description="RUNNING or CANDIDATE, any case", json_schema_extra=any_case(*SNAPSHOT_STATUSES))
]
QueryStatus = Annotated[
    str, Query(description="RUNNING or CANDIDATE, any case", json_schema_extra=any_case(*SNAPSHOT_STATUSES))
]
AnyStatus = Annotated[
    str,
    Query(
        description="RUNNING, CANDIDATE or ANY (every status), any case",
        json_schema_extra=any_case(*SNAPSHOT_STATUSES, ANY_STATUS),
    ),
]
Format = Annotated[
    str,
    Query(
        description="text/plain, application/json or application/xml; json and xml for short",
        json_schema_extra=any_case(*FORMAT_WORDS),
    ),
]
TEXT_RESPONSES = text_responses("The snapshot in the requested format")


@router.get(
    "",
    summary="One snapshot, as text, JSON or XML (converted when stored as the other)",
    response_class=Response,
    responses={**TEXT_RESPONSES, **errors(404, 406)},
)
def get_config(
    request: Request,
    resourceType: QueryName,
    resourceId: QueryName,
    status: QueryStatus = "RUNNING",
    format: Format = "text/plain",
) -> Response:
    snapshot = snapshot_status(status)
    media_type = media_type_of(format)
    with database(request).read() as session:
        record = repository.find_config(session, resourceType, resourceId, snapshot or "")
    if record is None:
        raise resource_not_found(
            f"No config snapshot found for resourceType({resourceType}), resourceId({resourceId}), "
            f"status({status})"
        )
    what = f"config snapshot ({resourceType}, {resourceId}, {snapshot})"
    return Response(rendered(record.config_snapshot, media_type, what), media_type=media_type)


@router.get(
    "/allByID",
    summary="Every snapshot of one resource id, newest first",
    response_model=list[ConfigSnapshot],
)
def configs_by_id(request: Request, resourceId: QueryName, status: AnyStatus = "ANY") -> JSONResponse:
    chosen = snapshot_status(status, any_allowed=True)
    with database(request).read() as session:
        records = repository.configs_matching(session, resource_id=resourceId, status=chosen)
    return ok([render.config(record) for record in records])


@router.get(
    "/allByType",
    summary="Every snapshot of one resource type, newest first",
    response_model=list[ConfigSnapshot],
)
def configs_by_type(request: Request, resourceType: QueryName, status: AnyStatus = "ANY") -> JSONResponse:
    chosen = snapshot_status(status, any_allowed=True)
    with database(request).read() as session:
        records = repository.configs_matching(session, resource_type=resourceType, status=chosen)
    return ok([render.config(record) for record in records])


@router.post(
    "/{resourceType}/{resourceId}/{status}",
    summary="Store (replace) the snapshot of a resource in one status; the body is the snapshot",
    response_model=ConfigSnapshot,
    responses=errors(400),
    openapi_extra=TEXT_BODY,
)
def save_config(
    request: Request,
    resourceType: Name,
    resourceId: Name,
    status: Status,
    snapshot: Annotated[str, Depends(text_body)],
) -> JSONResponse:
    record = ConfigRecord(
        resource_type=checked_name("resourceType", resourceType),
        resource_id=checked_name("resourceId", resourceId),
        status=snapshot_status(status) or "",
        config_snapshot=snapshot,
        id=str(uuid.uuid4()),
        created_date=utc_now(),
    )
    repository.write_with_retry(database(request), repository.replace_config, record)
    return ok(render.config(record))


@router.delete(
    "/{resourceType}/{resourceId}/{status}",
    summary="Delete the snapshot of a resource in one status (also when absent)",
    response_class=Response,
    responses=EMPTY_OK,
)
def delete_config(request: Request, resourceType: Name, resourceId: Name, status: Status) -> Response:
    chosen = snapshot_status(status) or ""
    with database(request).write() as session:
        repository.delete_config(
            session,
            checked_name("resourceType", resourceType),
            checked_name("resourceId", resourceId),
            chosen,
        )
    return empty_ok()
