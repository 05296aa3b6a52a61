"""ASGI middleware that adds each answered API call to the statistics counters.

It sits outside the kernel's middleware and counts when the response starts, before a byte
of it is sent, so a client that reads ``/statistics`` right after a call always sees that call.
Counting is a side channel: if it fails, the answer still goes out and the failure is logged.
"""

from __future__ import annotations

import logging

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .statistics import Statistics, counters_for

log = logging.getLogger("netplatform.policy")


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
                if counters:
                    try:
                        await anyio.to_thread.run_sync(self.statistics.record, counters)
                    except Exception:
                        log.exception("could not update the API statistics")
            await send(message)

        await self.app(scope, receive, send_counted)
