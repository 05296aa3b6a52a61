"""``GET /internal/directory``: the directory for sites that replicate it (access/replica.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ...access.replica import MAX_WAIT_S
from ...web.answers import reply
from ...web.longpoll import ended
from ...web.openapi import answers
from ...web.permissions import requires
from ..deps import DirectoryFeedDep
from ..schemas import DirectoryAnswer
from ..spec import PERMISSIONS, SPEC

router = APIRouter(prefix="/internal", tags=["replication"])


@router.get(
    "/directory",
    summary="The directory (identities with hashes, roles, grants, memberships) once past a generation",
    responses=answers(SPEC, DirectoryAnswer, 400, 403),
    openapi_extra=requires(PERMISSIONS.internal("directory")),
)
async def directory(
    request: Request,
    feed: DirectoryFeedDep,
    after: Annotated[int, Query(description="the generation the caller holds (-1: none)", ge=-1)] = -1,
    wait: Annotated[
        float, Query(description="seconds to wait for a change (a long poll)", ge=0, le=MAX_WAIT_S)
    ] = 0,
) -> Response:
    generation, snapshot = await feed.after(after, wait, ended(request))
    return reply({"generation": generation, "directory": None if snapshot is None else snapshot.as_json()})
