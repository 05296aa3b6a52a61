"""``X-PLATFORM-InvocationID`` on every response: the client's, echoed, or a new UUID.

The kernel's per-service response headers are computed from the request id alone, so the echo
is done here, by a middleware around the whole app (401s and failures included).
"""

from __future__ import annotations

import uuid

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INVOCATION_ID_HEADER = "X-PLATFORM-InvocationID"
_MAX_LENGTH = 200


class InvocationIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get(INVOCATION_ID_HEADER, "").strip()
        invocation_id = (
            given if given and len(given) <= _MAX_LENGTH and given.isprintable() else str(uuid.uuid4())
        )

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[INVOCATION_ID_HEADER] = invocation_id
            await send(message)

        await self.app(scope, receive, send_with_id)
