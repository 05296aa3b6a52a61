"""The node-to-node hop (spec 1.3): PUT /internal/forward/{publishId}.

A node forwards a file for a subscription bound to this node (egress route), as its node
identity (``platform.node``: ``platform.distribution.internal|forward|call``). The body is
the file as published, streamed to this node's blob store; the ``X-NETPLATFORM-FORWARD``
header carries the rest (:class:`~..schemas.ForwardEnvelope`). The answer is 204 only once the
file is durable here and queued, so the sender may drop its copy.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Header, Request
from fastapi.responses import Response
from starlette.requests import ClientDisconnect

from ...web.answers import reply
from ...web.errors import BadRequest
from ...web.openapi import answers
from ...web.permissions import requires
from ...web.routes import STREAMED_BODY
from ..deps import DeliveryEngineDep, ForwardingDep
from ..forward_sender import FORWARD_HEADER, FORWARD_PATH
from ..forwarding import parse_envelope
from ..spec import PERMISSIONS, SPEC
from ..spool_space import declared_length

log = logging.getLogger("netplatform.distribution.forward")

router = APIRouter(prefix=FORWARD_PATH, tags=["nodes"])

_FILE_BODY: dict[str, Any] = {
    "requestBody": {
        "required": False,
        "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}},
    }
}


@router.put(
    "/{publish_id}",
    summary="Take a file another node forwards for a subscription bound to this node",
    status_code=204,
    responses=answers(
        SPEC,
        None,
        409,
        503,
        status=204,
        description="Held durably here and queued (or its subscription is gone)",
    ),
    openapi_extra={**STREAMED_BODY, **_FILE_BODY, **requires(PERMISSIONS.internal("forward"))},
)
async def take_forwarded_file(
    request: Request,
    publish_id: str,
    forwarding: ForwardingDep,
    delivery: DeliveryEngineDep,
    envelope_header: Annotated[
        str | None, Header(alias=FORWARD_HEADER, description="The ForwardEnvelope as JSON (ASCII); required")
    ] = None,
) -> Response:
    envelope = parse_envelope(envelope_header, publish_id)
    blob = None
    if envelope.method == "PUT":
        try:
            length = declared_length(request.headers.get("content-length"))
            blob = await forwarding.spool(request.stream(), length)
        except ClientDisconnect:
            raise BadRequest("Request body was not received completely") from None
    if await anyio.to_thread.run_sync(forwarding.accept, envelope, blob):
        delivery.wake()
    return reply(None, 204)
