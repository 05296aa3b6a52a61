"""Publish and retract: PUT/DELETE /publish/{feedId}/{fileId} (spec 4.2, section 5 rules 2 and 3).

These routes are public to the kernel (the feed's endpoint ids, or for a framework feed its
``publish`` permission, decide: :mod:`..publisher_gate`) and read
their body as a stream, which the :class:`~..publishing.Publisher` spools to the blob store.
A publish that passed every check but arrives at a node its ingress route excludes (spec 1.3)
is answered 307 to the same path on a live node of an allowed site, before its body is read.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Annotated

import anyio
from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from ...clock import now_ms
from ...web.answers import reply
from ...web.auth import PUBLIC
from ...web.errors import BadRequest
from ...web.openapi import answers
from ...web.requestid import current_request_id
from ...web.routes import STREAMED_BODY
from ..delivery.engine import DeliveryEngine
from ..delivery.metrics import DeliveryMetrics
from ..deps import OBJECTS
from ..file_headers import CONTENT_TYPE, META_HEADER, PUBLISH_ID_HEADER, captured_headers
from ..publishing import Admission, Arrival, Publisher
from ..routing import Routing
from ..spec import SPEC
from ..spool_space import declared_length

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


@dataclass(frozen=True)
class Services:
    """The service objects a publish goes through."""

    publisher: Publisher
    routing: Routing
    delivery: DeliveryEngine
    metrics: DeliveryMetrics


# One dependency for the four: FastAPI's solving of each was a visible share of a small publish
# (about 10 % of the GIL-holding samples with four).
ServicesDep = Annotated[
    Services,
    OBJECTS.depends(Services, lambda o: Services(o.publisher, o.routing, o.delivery, o.delivery_metrics)),
]
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
    services: ServicesDep,
    meta: MetaHeader = None,
) -> Response:
    return await _accept_publish(request, services, feed_id, file_id, "PUT")


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
    services: ServicesDep,
    meta: MetaHeader = None,
) -> Response:
    return await _accept_publish(request, services, feed_id, file_id, "DELETE")


@router.api_route("/{feed_id}", methods=["PUT", "DELETE"], include_in_schema=False, openapi_extra=PUBLIC)
async def publish_without_file_id(
    request: Request,
    feed_id: str,
    services: ServicesDep,
) -> Response:
    return await _accept_publish(request, services, feed_id, "", request.method)


async def _accept_publish(
    request: Request, services: Services, feed_id: str, file_id: str, method: str
) -> Response:
    """Admit, receive and commit a publish or retraction: its 204, or a 307 to an allowed node."""
    source_ip = request.client.host if request.client else ""
    # One thread hop of its own for a small file (the checks) and a share of its group's commit
    # (the body is kept in the file row): each hop is a measurable share of a small publish's cost.
    admitted = await anyio.to_thread.run_sync(_admit, request, services, feed_id, file_id, method, source_ip)
    if isinstance(admitted, str):
        return _redirect(request, admitted)
    admission, room = admitted
    arrival = await _receive(request, services.publisher, method, source_ip, room)
    publish_id, receivers = await services.publisher.accept(admission, arrival)
    services.delivery.wake(receivers)
    return _accepted(publish_id, method, services.metrics)


def _admit(
    request: Request, services: Services, feed_id: str, file_id: str, method: str, source_ip: str
) -> tuple[Admission, int | None] | str:
    """Every check before the body, in the reference's order (run in a worker thread): the
    admission and the room its body may take, or the URL of the node the publish belongs at."""
    publisher = services.publisher
    admission = publisher.admit(
        feed_id,
        file_id,
        request.headers.get("authorization"),
        source_ip,
        request.headers.get(META_HEADER),
    )
    target = services.routing.target_of(admission.ingress_route)
    if target is not None:
        return target
    if method != "PUT":
        return admission, None
    if not request.headers.get("content-type"):
        # Spec 4.2: "Content-type (required, application/octet-stream)"; the spec wins over the
        # reference, which defaulted a missing one.
        raise BadRequest("Missing Content-Type header.")
    return admission, publisher.room(declared_length(request.headers.get("content-length")))


def _redirect(request: Request, node_url: str) -> Response:
    """307 to the same path and query on ``node_url``; unlike the reference's 301 it keeps method and body."""
    raw_path = request.scope.get("raw_path") or request.url.path.encode()
    location = node_url + raw_path.decode("latin-1")
    if request.url.query:
        location += "?" + request.url.query
    return reply(None, 307, headers={"Location": location})


def _accepted(publish_id: str, method: str, metrics: DeliveryMetrics) -> Response:
    """The 204 of a committed publish."""
    metrics.published.labels(method).inc()
    return reply(None, 204, headers={PUBLISH_ID_HEADER: publish_id})


async def _receive(
    request: Request, publisher: Publisher, method: str, source_ip: str, room: int | None
) -> Arrival:
    """The body spooled to a durable blob (PUT, within ``room``) and the headers that travel with it."""
    received_ms = now_ms()
    has_body = method == "PUT"
    blob = inline = None
    length = 0
    if has_body:
        try:
            received = await publisher.receive(request.stream(), room)
        except ClientDisconnect:
            log.warning("publish to %s: the body was not received completely", request.url.path)
            raise BadRequest("Request body was not received completely") from None
        if isinstance(received, bytes):
            inline, length = received, len(received)
        else:
            blob, length = received.name, received.size
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
        body=inline,
    )
