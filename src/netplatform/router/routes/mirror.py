"""The internal read route of mirror agents: a topic's messages by sequence number, consuming nothing.

A mirror agent of another router reads here (docs/router.md, "Mirror agents"): unlike a fetch,
which moves its group before answering, a read moves nothing, so an agent that dies between
reading and publishing reads the same messages again from the position it recorded.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ...web.openapi import error_responses
from ..app import SPEC
from ..deps import CallerDep, EventsDep
from ..schemas import MirroredMessage
from .events import DEFAULT_LIMIT, MAX_LIMIT, MAX_TIMEOUT_MS

router = APIRouter(prefix="/internal/mirror", tags=["mirror"])


@router.get(
    "/{topic}",
    summary="Messages after sequence `after`, oldest first, with their sequence numbers; moves nothing",
    responses={200: {"model": list[MirroredMessage]}, **error_responses(SPEC, 403, 404, 503)},
)
async def read(
    topic: str,
    events: EventsDep,
    caller: CallerDep,
    after: Annotated[int, Query(ge=0, le=2**62, description="last sequence already read; 0: none")] = 0,
    timeout_ms: Annotated[
        int, Query(alias="timeout", ge=0, le=MAX_TIMEOUT_MS, description="long poll, milliseconds")
    ] = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="most messages returned")] = DEFAULT_LIMIT,
) -> JSONResponse:
    read = await events.read(topic, caller, after=after, limit=limit, timeout_s=timeout_ms / 1000)
    return JSONResponse([{"seq": seq, "message": message} for seq, message in read])
