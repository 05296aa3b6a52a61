"""ASGI middleware that adds each answered API call to the statistics counters.

It runs inside the kernel's middleware (a request the kernel refuses, 401 or 413, never reaches
it) and counts when the response starts, before a byte of it is sent, so a client that reads
``/statistics`` right after a call always sees that call.
Counting is in memory (see :mod:`statistics`), so it adds nothing to the request's latency.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .statistics import Statistics, counters_for


class CountingMiddleware:
    def __init__(self, app: ASGIApp, *, statistics: Statistics) -> None:
        self.app = app
        self.statistics = statistics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                route = scope.get("route")
                counters = counters_for(scope["method"], getattr(route, "path", None), message["status"])
                self.statistics.record(counters)
            await send(message)

        await self.app(scope, receive, send_counted)
