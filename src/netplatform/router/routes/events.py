"""Event routes: publish to a topic, and fetch a consumer group's next messages (long poll)."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse

from ...web.bodies import RawBody
from ...web.openapi import error_responses
from ...web.permissions import per_object
from ..app import SPEC
from ..deps import CallerDep, EventsDep
from ..schemas import PublishResult
from ._common import PUBLISH_BODY, messages_of

router = APIRouter(prefix="/events", tags=["events"])

DEFAULT_TIMEOUT_MS = 15_000
MAX_TIMEOUT_MS = 60_000
DEFAULT_LIMIT = 1000
MAX_LIMIT = 10_000

TOPIC_ACL = "topic ACL"
"""The rule of publish and fetch, as the reference has it: any authenticated identity passes the
kernel, the topic's writer or reader ACL decides (and the bridge-admin topic admits router
admins only)."""

GroupPath = Annotated[str, Path(min_length=1, max_length=255)]


@router.post(
    "/{topic}",
    summary="Publish: a JSON object, a JSON array (one message per element) or text lines",
    responses={200: {"model": PublishResult}, **error_responses(SPEC, 403, 404, 415, 503)},
    openapi_extra={**PUBLISH_BODY, **per_object(TOPIC_ACL)},
)
async def publish(
    topic: str, request: Request, body: RawBody, events: EventsDep, caller: CallerDep
) -> JSONResponse:
    started = time.monotonic()
    messages = messages_of(request.headers.get("content-type"), body)
    count = await events.publish(topic, messages, caller)
    elapsed_ms = int((time.monotonic() - started) * 1000)
    return JSONResponse(PublishResult(count=count, serverTimeMs=elapsed_ms).model_dump())


@router.get(
    "/{topic}/{group}/{consumer}",
    summary="The group's next messages, oldest first; [] when the timeout passes with none",
    responses={200: {"model": list[str]}, **error_responses(SPEC, 403, 404, 503)},
    openapi_extra=per_object(TOPIC_ACL),
)
async def fetch(
    topic: str,
    group: GroupPath,
    consumer: GroupPath,
    events: EventsDep,
    caller: CallerDep,
    timeout_ms: Annotated[
        int, Query(alias="timeout", ge=0, le=MAX_TIMEOUT_MS, description="long poll, milliseconds")
    ] = DEFAULT_TIMEOUT_MS,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="most messages returned")] = DEFAULT_LIMIT,
) -> JSONResponse:
    messages = await events.fetch(topic, group, consumer, caller, limit=limit, timeout_s=timeout_ms / 1000)
    return JSONResponse(messages)
