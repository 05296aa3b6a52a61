"""Refuses request bodies above the service's limit, announced or streamed (413).

Routes declared with ``openapi_extra=STREAMED_BODY`` read their own body as a stream and
enforce their own limits, so a 100 MiB publish is never held against a JSON-sized bound.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import ErrorRenderer, PayloadTooLarge
from ..routes import RouteTable


class BodyLimitMiddleware:
    def __init__(
        self, app: ASGIApp, *, routes: RouteTable, limit: int | None, renderer: ErrorRenderer
    ) -> None:
        self.app = app
        self.routes = routes
        self.limit = limit
        self.renderer = renderer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.limit
        if scope["type"] != "http" or limit is None:
            await self.app(scope, receive, send)
            return
        if self.routes.streams_body(scope):
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            error = PayloadTooLarge(f"Request body larger than {limit} bytes")
            await self.renderer(Request(scope), error)(scope, receive, send)
            return
        received = 0
        refused = False

        async def counting_receive() -> Message:
            # Raising here would reach the framework's body parser, which reports any failure
            # as 400; so answer 413 ourselves and tell the app the client went away.
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    error = PayloadTooLarge(f"Request body larger than {limit} bytes")
                    await self.renderer(Request(scope), error)(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def send_unless_refused(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counting_receive, send_unless_refused)
