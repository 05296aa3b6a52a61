"""Event routes: publish to a topic, and fetch a consumer group's next messages (long poll)."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from ...web.answers import reply
from ...web.bodies import RawBody
from ...web.openapi import answers, error_responses
from ...web.permissions import per_object
from ..deps import CallerDep, EventsDep
from ..engines.base import Claim
from ..errors import error_body
from ..events import Events
from ..schemas import PartialPublishResult, PublishResult
from ..spec import SPEC
from ._common import PUBLISH_BODY, Departure, messages_of

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
    responses={
        **answers(SPEC, PublishResult),
        **answers(
            SPEC, PartialPublishResult, status=207, description="Only the first `count` messages were stored"
        ),
        **error_responses(SPEC, 403, 404, 413, 415, 503),
    },
    openapi_extra={**PUBLISH_BODY, **per_object(TOPIC_ACL)},
)
async def publish(
    topic: str, request: Request, body: RawBody, events: EventsDep, caller: CallerDep
) -> Response:
    started = time.monotonic()
    messages = messages_of(request.headers.get("content-type"), body)
    published = await events.publish(topic, messages, caller)
    elapsed_ms = int((time.monotonic() - started) * 1000)
    if published.failure is None:
        return reply(PublishResult(count=published.count, serverTimeMs=elapsed_ms))
    # Some stored, not all (docs/router.md, "Decisions"): 207, the count, and why the rest failed.
    error = error_body(published.failure)
    answer = PartialPublishResult(count=published.count, serverTimeMs=elapsed_ms, error=error)
    return reply(answer, 207)


@router.get(
    "/{topic}/{group}/{consumer}",
    summary="The group's next messages, oldest first; [] when the timeout passes with none",
    responses=answers(SPEC, list[str], 403, 404, 503),
    openapi_extra=per_object(TOPIC_ACL),
)
async def fetch(
    topic: str,
    group: GroupPath,
    consumer: GroupPath,
    request: Request,
    events: EventsDep,
    caller: CallerDep,
    timeout_ms: Annotated[
        int, Query(alias="timeout", ge=0, le=MAX_TIMEOUT_MS, description="long poll, milliseconds")
    ] = DEFAULT_TIMEOUT_MS,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="most messages returned")] = DEFAULT_LIMIT,
) -> JSONResponse:
    departure = Departure(request.receive)
    try:
        claim = await events.fetch(
            topic, group, consumer, caller, limit=limit, timeout_s=timeout_ms / 1000, abandoned=departure.gone
        )
    except BaseException:
        await departure.stop()
        raise
    return _ClaimedAnswer(claim, events, departure)


class _ClaimedAnswer(JSONResponse):
    """The claimed messages as the answer; the claim is committed once the answer is written
    and released when it was not (the client left), so the group gets them again."""

    def __init__(self, claim: Claim, events: Events, departure: Departure) -> None:
        super().__init__(claim.messages)
        self.claim = claim
        self.events = events
        self.departure = departure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        written = False
        try:
            await asyncio.sleep(0)  # a disconnect the server has seen reaches the watcher first
            if not self.departure.gone.is_set():
                await super().__call__(scope, receive, send)
                # The server drops what is sent to a closed connection without a word: gone now
                # means the answer went nowhere. (Checked before the watcher sees the end of a
                # complete response, which it also reports as a disconnect.)
                written = not self.departure.gone.is_set()
        finally:
            await self.departure.stop()
            await self.events.settle(self.claim, delivered=written)
