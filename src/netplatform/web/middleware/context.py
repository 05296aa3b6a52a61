"""Per-request context: request id, service response headers, access log, metrics, last-resort errors.

It is the outermost kernel middleware, so the request id and the service's headers are on
every response, 401s and unexpected failures included.
"""

from __future__ import annotations

import logging
import time

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import ErrorRenderer, InternalError
from ..metrics import Metrics
from ..requestid import REQUEST_ID_HEADER, echo_or_new, request_id_from
from ..service import ServiceSpec

access_logger = logging.getLogger("netplatform.access")
error_logger = logging.getLogger("netplatform.error")


class RequestContextMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        spec: ServiceSpec,
        renderer: ErrorRenderer,
        metrics: Metrics,
        access_log: bool,
    ) -> None:
        self.app = app
        self.spec = spec
        self.renderer = renderer
        self.metrics = metrics
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_headers = Headers(scope=scope)
        request_id = request_id_from(request_headers)
        scope.setdefault("state", {})["request_id"] = request_id
        extra_headers = [
            (REQUEST_ID_HEADER, request_id),
            *((name, echo_or_new(request_headers, name)) for name in self.spec.echoed_headers),
            *self.spec.response_headers(request_id),
        ]
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                headers = MutableHeaders(scope=message)
                for name, value in extra_headers:
                    headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            error_logger.exception(
                "unhandled error in %s %s [%s]", scope["method"], scope["path"], request_id
            )
            if not response_started:
                response = self.renderer(Request(scope), InternalError("Internal server error"))
                await response(scope, receive, send_with_headers)
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("route")
            template = getattr(route, "path", None) or "<unmatched>"
            self.metrics.observe(scope["method"], template, status, elapsed)
            if self.access_log:
                access_logger.info(
                    "%s %s %s %d %.1fms",
                    scope["method"],
                    scope["path"],
                    scope.get("state", {}).get("user", "-"),
                    status,
                    elapsed * 1000,
                    extra={
                        "request_id": request_id,
                        "service": self.spec.name,
                        "method": scope["method"],
                        "path": scope["path"],
                        "status": status,
                        "duration_ms": round(elapsed * 1000, 2),
                        "client": (scope.get("client") or ("-",))[0],
                    },
                )
