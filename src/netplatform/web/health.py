"""The database check behind ``GET /health``, at most one probe per interval.

Load balancers and monitors poll health often and in parallel; each poll probing the database
would cost a thread hop and a round trip per request. The answer is the result of the latest
probe when it is younger than ``max_age_s``, else a new probe that concurrent polls share.
A fresh process probes on its first poll, so a database that is down is reported at once.

:class:`HealthShortcut` answers the poll without the framework's routing: on a request this
cheap, matching it against every route of the service and solving its (empty) dependencies
cost more than the answer itself.

A service that needs more than the database (the message router's JetStream engine) adds a
:class:`HealthCheck`: it is probed with the database, named in every answer, and a check that
fails makes the answer 503 with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio
from starlette.responses import Response
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from ..store.db import Database

CHECK_TIMEOUT_S = 5.0  # a check that has not answered by then counts as down


@dataclass(frozen=True)
class HealthCheck:
    """Something besides the database a service needs: ``{field: name}`` in the answer."""

    field: str  # e.g. "engine"
    name: str  # e.g. "jetstream"
    reachable: Callable[[], Awaitable[bool]]


@dataclass(frozen=True)
class Health:
    """The latest probe: ``down`` names what failed (None: everything answered)."""

    down: str | None
    named: dict[str, str]


class HealthProbe:
    def __init__(self, database: Database, *, max_age_s: float = 0.5) -> None:
        self.database = database
        self.max_age_s = max_age_s
        self.checks: list[HealthCheck] = []
        self._health = Health("not probed yet", {})
        self._checked_at = float("-inf")
        self._lock = anyio.Lock()

    def add(self, check: HealthCheck) -> None:
        """Probe ``check`` too from now on (a service adds its own when it builds its app)."""
        self.checks.append(check)
        self._checked_at = float("-inf")

    async def healthy(self) -> bool:
        return (await self.health()).down is None

    async def health(self) -> Health:
        if self._fresh():
            return self._health
        async with self._lock:
            if not self._fresh():  # another poll may have probed while this one waited
                self._health = Health(await self._probe(), {c.field: c.name for c in self.checks})
                self._checked_at = time.monotonic()
        return self._health

    async def _probe(self) -> str | None:
        if not await anyio.to_thread.run_sync(self.database.ping):
            return "database unreachable"
        for check in self.checks:
            with anyio.move_on_after(CHECK_TIMEOUT_S):
                if await check.reachable():
                    continue
            return f"{check.field} {check.name} unreachable"
        return None

    def _fresh(self) -> bool:
        return time.monotonic() - self._checked_at < self.max_age_s


class HealthShortcut:
    """``GET <path>`` answered by ``answer(scope)`` before the framework routes the request.

    It sits inside the kernel's layer and the service's own middleware, so the request id,
    headers, metrics (under the route's template) and access log are those of any request;
    only the framework's route matching and dependency solving are skipped. Authentication and
    the route's permission are the kernel's, decided from its own route table before this layer,
    so a shortcut to a route that needs credentials still needs them. The route stays declared,
    so the OpenAPI document and every other method on the path are unchanged.
    """

    def __init__(
        self, app: ASGIApp, *, path: str, route: BaseRoute, answer: Callable[[Scope], Awaitable[Response]]
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
            response = await self.answer(scope)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
