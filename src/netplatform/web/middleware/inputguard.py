"""Refuses NUL characters in the request path or query (400) before anything reaches a service."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import BadRequest, ErrorRenderer


class InputGuardMiddleware:
    def __init__(self, app: ASGIApp, *, renderer: ErrorRenderer) -> None:
        self.app = app
        self.renderer = renderer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _has_nul(scope):
            error = BadRequest("NUL characters are not allowed in a request path or query")
            await self.renderer(Request(scope), error)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _has_nul(scope: Scope) -> bool:
    raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    return b"\x00" in unquote_to_bytes(raw_path) or b"\x00" in unquote_to_bytes(
        scope.get("query_string", b"")
    )
