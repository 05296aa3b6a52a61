"""Publish and retract: PUT/DELETE /publish/{feedId}/{fileId} (spec 4.2, section 5 rules 2 and 3).

These routes are public to the kernel (the feed's endpoint ids authenticate them) and stream
their body to the blob store themselves.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from ...clock import now_ms
from ...web.auth import PUBLIC, parse_basic
from ...web.errors import BadRequest
from ...web.requestid import current_request_id
from ...web.routes import STREAMED_BODY
from ..forwarding import CONTENT_TYPE, META_HEADER, PUBLISH_ID_HEADER, captured_headers
from ..publishing import Arrival, Publisher
from ._common import errors

log = logging.getLogger("netplatform.distribution")

router = APIRouter(prefix="/publish", tags=["publish"])

_PUBLISH_RESPONSES: dict[int | str, dict[str, Any]] = {
    204: {
        "description": "Accepted: stored durably and queued for every subscription",
        "headers": {
            PUBLISH_ID_HEADER: {"description": "<epoch ms>.<instance>", "schema": {"type": "string"}}
        },
    },
    **errors(401, 403, 404),
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
    summary="Publish a file (Basic credentials of one of the feed's endpoint_ids)",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra={**PUBLIC, **STREAMED_BODY, **_FILE_BODY},
)
async def publish_file(request: Request, feed_id: str, file_id: str, meta: MetaHeader = None) -> Response:
    return await _accept_publish(request, feed_id, file_id, "PUT")


@router.delete(
    "/{feed_id}/{file_id:any_path}",
    summary="Retract a published file",
    status_code=204,
    responses=_PUBLISH_RESPONSES,
    openapi_extra=PUBLIC,
)
async def retract_file(request: Request, feed_id: str, file_id: str, meta: MetaHeader = None) -> Response:
    return await _accept_publish(request, feed_id, file_id, "DELETE")


@router.api_route("/{feed_id}", methods=["PUT", "DELETE"], include_in_schema=False, openapi_extra=PUBLIC)
async def publish_without_file_id(request: Request, feed_id: str) -> Response:
    return await _accept_publish(request, feed_id, "", request.method)


async def _accept_publish(request: Request, feed_id: str, file_id: str, method: str) -> Response:
    publisher: Publisher = request.app.state.publisher
    source_ip = request.client.host if request.client else ""
    admission = await anyio.to_thread.run_sync(
        publisher.admit,
        feed_id,
        file_id,
        parse_basic(request.headers.get("authorization")),
        source_ip,
        request.headers.get(META_HEADER),
    )
    if method == "PUT" and not request.headers.get("content-type"):
        # Spec 4.2: "Content-type (required, application/octet-stream)"; the spec wins over the
        # reference, which defaulted a missing one.
        raise BadRequest("Missing Content-Type header.")
    arrival = await _receive(request, method, source_ip)
    try:
        publish_id, blob_needed = await anyio.to_thread.run_sync(publisher.accept, admission, arrival)
    except BaseException:
        _discard(request, arrival.blob)
        raise
    if not blob_needed:
        _discard(request, arrival.blob)
    request.app.state.delivery.wake()
    request.app.state.delivery_metrics.published.labels(method).inc()
    return Response(status_code=204, headers={PUBLISH_ID_HEADER: publish_id})


async def _receive(request: Request, method: str, source_ip: str) -> Arrival:
    """The body spooled to a durable blob (PUT) and the headers that travel with it."""
    received_ms = now_ms()
    has_body = method == "PUT"
    blob = None
    length = 0
    if has_body:
        try:
            stored = await request.app.state.blobs.put_stream(request.stream())
        except ClientDisconnect:
            log.warning("publish to %s: the body was not received completely", request.url.path)
            raise BadRequest("Request body was not received completely") from None
        blob, length = stored.name, stored.size
    server = request.scope.get("server") or ("", 0)
    headers = captured_headers(
        request.headers.items(),
        request_id=current_request_id(request),
        source_ip=source_ip,
        local_ip=str(server[0]),
        received_ms=received_ms,
        with_content=has_body,
    )
    return Arrival(
        method=method,
        request_uri=str(request.url),
        content_type=headers.get(CONTENT_TYPE),
        content_length=length,
        blob=blob,
        headers=headers,
    )


def _discard(request: Request, blob: str | None) -> None:
    if blob is not None:
        request.app.state.blobs.delete(blob)
