"""The database check behind ``GET /health``, at most one probe per interval.

Load balancers and monitors poll health often and in parallel; each poll probing the database
would cost a thread hop and a round trip per request. The answer is the result of the latest
probe when it is younger than ``max_age_s``, else a new probe that concurrent polls share.
A fresh process probes on its first poll, so a database that is down is reported at once.

:class:`HealthShortcut` answers the poll without the framework's routing: on a request this
cheap, matching it against every route of the service and solving its (empty) dependencies
cost more than the answer itself.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import anyio
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ..store.db import Database


class HealthProbe:
    def __init__(self, database: Database, *, max_age_s: float = 0.5) -> None:
        self.database = database
        self.max_age_s = max_age_s
        self._healthy = False
        self._checked_at = float("-inf")
        self._lock = anyio.Lock()

    async def healthy(self) -> bool:
        if self._fresh():
            return self._healthy
        async with self._lock:
            if not self._fresh():  # another poll may have probed while this one waited
                self._healthy = await anyio.to_thread.run_sync(self.database.ping)
                self._checked_at = time.monotonic()
        return self._healthy

    def _fresh(self) -> bool:
        return time.monotonic() - self._checked_at < self.max_age_s


class HealthShortcut:
    """``GET /health`` answered by ``answer`` before the framework routes the request.

    It sits inside the kernel's layer and the service's own middleware, so the request id,
    headers, metrics (under the route's template) and access log are those of any request;
    only the framework's route matching and dependency solving are skipped. The route stays
    declared, so the OpenAPI document and every other method on the path are unchanged.
    """

    def __init__(
        self, app: ASGIApp, *, path: str, route: BaseRoute, answer: Callable[[], Awaitable[Response]]
    ) -> None:
        self.app = app
        self.path = path
        self.route = route
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] == "GET"
            and scope["path"] == self.path
            and not scope.get("root_path")
        ):
            scope["route"] = self.route
            scope["path_params"] = {}
            response = await self.answer()
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
