"""``/api/v1/configs``: configuration snapshots of a resource, RUNNING and CANDIDATE."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import JSONResponse, Response

from ...web.openapi import error_responses
from ...web.permissions import requires
from ..config_snapshots import ANY_STATUS, SNAPSHOT_STATUSES
from ..deps import ConfigSnapshotsDep
from ..formats import FORMAT_WORDS
from ..schemas import ConfigSnapshot
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import EMPTY_OK, TEXT_BODY, Name, StoredText, any_case, empty_ok, formatted, ok, text_responses

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
    responses={**TEXT_RESPONSES, **error_responses(SPEC, 404, 406)},
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def get_config(
    configs: ConfigSnapshotsDep,
    resourceType: QueryName,
    resourceId: QueryName,
    status: QueryStatus = "RUNNING",
    format: Format = "text/plain",
) -> Response:
    return formatted(configs.in_format(resourceType, resourceId, status, format))


@router.get(
    "/allByID",
    summary="Every snapshot of one resource id, newest first",
    response_model=list[ConfigSnapshot],
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def configs_by_id(
    configs: ConfigSnapshotsDep, resourceId: QueryName, status: AnyStatus = "ANY"
) -> JSONResponse:
    return ok([bodies.config(record) for record in configs.matching(resource_id=resourceId, status=status)])


@router.get(
    "/allByType",
    summary="Every snapshot of one resource type, newest first",
    response_model=list[ConfigSnapshot],
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def configs_by_type(
    configs: ConfigSnapshotsDep, resourceType: QueryName, status: AnyStatus = "ANY"
) -> JSONResponse:
    return ok(
        [bodies.config(record) for record in configs.matching(resource_type=resourceType, status=status)]
    )


@router.post(
    "/{resourceType}/{resourceId}/{status}",
    summary="Store (replace) the snapshot of a resource in one status; the body is the snapshot",
    response_model=ConfigSnapshot,
    responses=error_responses(SPEC, 400),
    openapi_extra={**TEXT_BODY, **requires(PERMISSIONS.write("configs"))},
)
def save_config(
    configs: ConfigSnapshotsDep, resourceType: Name, resourceId: Name, status: Status, snapshot: StoredText
) -> JSONResponse:
    return ok(bodies.config(configs.save(resourceType, resourceId, status, snapshot)))


@router.delete(
    "/{resourceType}/{resourceId}/{status}",
    summary="Delete the snapshot of a resource in one status (also when absent)",
    response_class=Response,
    responses=EMPTY_OK,
    openapi_extra=requires(PERMISSIONS.write("configs")),
)
def delete_config(
    configs: ConfigSnapshotsDep, resourceType: Name, resourceId: Name, status: Status
) -> Response:
    configs.delete(resourceType, resourceId, status)
    return empty_ok()
