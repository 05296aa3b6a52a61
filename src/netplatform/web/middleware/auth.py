"""Basic authentication in front of every route that is not declared public."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from ..auth import UserDirectory, parse_basic
from ..errors import ErrorRenderer, Unauthorized
from ..routes import RouteTable


class BasicAuthMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: RouteTable,
        directory: UserDirectory,
        realm: str,
        renderer: ErrorRenderer,
    ) -> None:
        self.app = app
        self.routes = routes
        self.directory = directory
        self.realm = realm
        self.renderer = renderer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not self.routes.is_public(scope):
            credentials = parse_basic(Headers(scope=scope).get("authorization"))
            user = self.directory.authenticate(credentials)
            if user is None:
                error = Unauthorized(
                    "Authentication required" if credentials is None else "Bad credentials",
                    headers={"WWW-Authenticate": f'Basic realm="{self.realm}"'},
                    extra={"user": credentials.user if credentials else None},
                )
                await self.renderer(Request(scope), error)(scope, receive, send)
                return
            scope.setdefault("state", {})["user"] = user
        await self.app(scope, receive, send)
