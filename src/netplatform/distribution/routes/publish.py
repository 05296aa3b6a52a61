"""Publish and retract: PUT/DELETE /publish/{feedId}/{fileId} (spec 4.2, section 5 rules 2 and 3).

These routes are public to the kernel (the feed's endpoint ids, or for a framework feed its
``publish`` permission, decide: :mod:`..publisher_gate`) and read
their body as a stream; they only translate HTTP: the walk from admission to commit is
:meth:`~..publish_service.PublishService.take`.
A publish that passed every check but arrives at a node its ingress route excludes (spec 1.3)
is answered 307 to the same path on a live node of an allowed site, before its body is read.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from ...web.answers import reply
from ...web.auth import PUBLIC
from ...web.errors import BadRequest
from ...web.openapi import answers
from ...web.requestid import current_request_id
from ...web.routes import STREAMED_BODY
from ..deps import PublishServiceDep
from ..file_headers import META_HEADER, PUBLISH_ID_HEADER
from ..publish_service import Elsewhere, PublishRequest, PublishService
from ..spec import SPEC

log = logging.getLogger("netplatform.distribution")

router = APIRouter(prefix="/publish", tags=["publish"])

_PUBLISH_RESPONSES = {
    **answers(
        SPEC,
        None,
        status=204,
        description="Accepted: stored durably and queued for every subscription",
        headers={PUBLISH_ID_HEADER: {"description": "<epoch ms>.<instance>", "schema": {"type": "string"}}},
    ),
    **answers(
        SPEC,
        None,
        401,
        403,
        404,
        503,
        status=307,
        description="This node's site is not one the publisher may publish at (ingress route): "
        "send the same request, with the same credentials, to the Location (a node of an allowed site)",
        headers={"Location": {"description": "The same path on that node", "schema": {"type": "string"}}},
    ),
}
_FILE_BODY = {
    "requestBody": {
        "required": False,
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


MetaHeader = Annotated[
    str | None, Header(alias=META_HEADER, description="A flat JSON object of at most 4096 characters")
]


@router.put(
    "/{feed_id}/{file_id:any_path}",
    summary="Publish a file (Basic credentials of one of the feed's endpoint_ids; of an identity "
    "holding the feed's publish permission for a framework feed)",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra={**PUBLIC, **STREAMED_BODY, **_FILE_BODY},
)
async def publish_file(
    request: Request,
    feed_id: str,
    file_id: str,
    service: PublishServiceDep,
    meta: MetaHeader = None,
) -> Response:
    return await _take(request, service, feed_id, file_id, "PUT")


@router.delete(
    "/{feed_id}/{file_id:any_path}",
    summary="Retract a published file",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra=PUBLIC,
)
async def retract_file(
    request: Request,
    feed_id: str,
    file_id: str,
    service: PublishServiceDep,
    meta: MetaHeader = None,
) -> Response:
    return await _take(request, service, feed_id, file_id, "DELETE")


@router.api_route("/{feed_id}", methods=["PUT", "DELETE"], include_in_schema=False, openapi_extra=PUBLIC)
async def publish_without_file_id(
    request: Request,
    feed_id: str,
    service: PublishServiceDep,
) -> Response:
    return await _take(request, service, feed_id, "", request.method)


async def _take(
    request: Request, service: PublishService, feed_id: str, file_id: str, method: str
) -> Response:
    """The request as the service takes it; its 204, or a 307 to the node it belongs at."""
    server = request.scope.get("server") or ("", 0)
    taken = PublishRequest(
        feed_id=feed_id,
        file_id=file_id,
        method=method,
        uri=str(request.url),
        headers=request.headers.items(),
        authorization=request.headers.get("authorization"),
        metadata=request.headers.get(META_HEADER),
        content_type=request.headers.get("content-type"),
        content_length=request.headers.get("content-length"),
        source_ip=request.client.host if request.client else "",
        local_ip=str(server[0]),
        request_id=current_request_id(request),
    )
    outcome = await service.take(taken, _body(request))
    if isinstance(outcome, Elsewhere):
        return _redirect(request, outcome.node_url)
    return reply(None, 204, headers={PUBLISH_ID_HEADER: outcome.publish_id})


async def _body(request: Request) -> AsyncIterator[bytes]:
    """The request's body; 400 when the client goes before it is complete."""
    try:
        async for chunk in request.stream():
            yield chunk
    except ClientDisconnect:
        log.warning("publish to %s: the body was not received completely", request.url.path)
        raise BadRequest("Request body was not received completely") from None


def _redirect(request: Request, node_url: str) -> Response:
    """307 to the same path and query on ``node_url``; unlike the reference's 301 it keeps method and body."""
    raw_path = request.scope.get("raw_path") or request.url.path.encode()
    location = node_url + raw_path.decode("latin-1")
    if request.url.query:
        location += "?" + request.url.query
    return reply(None, 307, headers={"Location": location})
