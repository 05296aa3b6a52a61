"""``/api/v1/configs``: configuration snapshots of a resource, RUNNING and CANDIDATE."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from ...web.answers import reply
from ...web.openapi import answers
from ...web.permissions import requires
from ..config_snapshots import ANY_STATUS, SNAPSHOT_STATUSES
from ..deps import ConfigSnapshotsDep
from ..formats import FORMAT_WORDS
from ..schemas import ConfigSnapshot
from ..spec import PERMISSIONS, SPEC
from . import _response_bodies as bodies
from ._common import EMPTY, TEXT_BODY, TEXT_CONTENT, Name, StoredText, any_case

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


@router.get(
    "",
    summary="One snapshot, as text, JSON or XML (converted when stored as the other)",
    response_class=Response,
    responses=answers(
        SPEC, None, 404, 406, description="The snapshot in the requested format", content=TEXT_CONTENT
    ),
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def get_config(
    configs: ConfigSnapshotsDep,
    resourceType: QueryName,
    resourceId: QueryName,
    status: QueryStatus = "RUNNING",
    format: Format = "text/plain",
) -> Response:
    snapshot = configs.in_format(resourceType, resourceId, status, format)
    return reply(snapshot.text, media_type=snapshot.media_type)


@router.get(
    "/allByID",
    summary="Every snapshot of one resource id, newest first",
    responses=answers(SPEC, list[ConfigSnapshot]),
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def configs_by_id(configs: ConfigSnapshotsDep, resourceId: QueryName, status: AnyStatus = "ANY") -> Response:
    return reply(
        [bodies.config(record) for record in configs.matching(resource_id=resourceId, status=status)]
    )


@router.get(
    "/allByType",
    summary="Every snapshot of one resource type, newest first",
    responses=answers(SPEC, list[ConfigSnapshot]),
    openapi_extra=requires(PERMISSIONS.read("configs")),
)
def configs_by_type(
    configs: ConfigSnapshotsDep, resourceType: QueryName, status: AnyStatus = "ANY"
) -> Response:
    return reply(
        [bodies.config(record) for record in configs.matching(resource_type=resourceType, status=status)]
    )


@router.post(
    "/{resourceType}/{resourceId}/{status}",
    summary="Store (replace) the snapshot of a resource in one status; the body is the snapshot",
    responses=answers(SPEC, ConfigSnapshot, 400),
    openapi_extra={**TEXT_BODY, **requires(PERMISSIONS.write("configs"))},
)
def save_config(
    configs: ConfigSnapshotsDep, resourceType: Name, resourceId: Name, status: Status, snapshot: StoredText
) -> Response:
    return reply(bodies.config(configs.save(resourceType, resourceId, status, snapshot)))


@router.delete(
    "/{resourceType}/{resourceId}/{status}",
    summary="Delete the snapshot of a resource in one status (also when absent)",
    response_class=Response,
    responses=answers(SPEC, None, content=EMPTY),
    openapi_extra=requires(PERMISSIONS.write("configs")),
)
def delete_config(
    configs: ConfigSnapshotsDep, resourceType: Name, resourceId: Name, status: Status
) -> Response:
    configs.delete(resourceType, resourceId, status)
    return reply(None)
