"""At a site whose directory is a replica of a central one (access/replica.py), the authz API
answers reads from the replica and refuses every change with 409, naming where it goes: a change
made here would be overwritten by the next copy, and would never reach the other sites."""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..web.errors import Conflict
from .errors import render_error

# Unsafe methods that change nothing: checking a password.
_READS = {("POST", "/authn/validate")}


class ReplicaGuard:
    def __init__(self, app: ASGIApp, *, source: str) -> None:
        self.app = app
        self.source = source

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] not in ("GET", "HEAD", "OPTIONS")
            and (scope["method"], scope["path"]) not in _READS
        ):
            message = (
                f"This site's authorization directory is a replica of {self.source}: make the change"
                " there (it reaches this site within seconds)"
            )
            response = render_error(Request(scope), Conflict(message, fields="Request"))
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
