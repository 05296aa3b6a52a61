"""Response headers the catalog sets itself, around the whole app (401s and failures included).

* ``X-PLATFORM-InvocationID``: the client's, echoed, or a new UUID. The kernel's per-service
  response headers are computed from the request id alone, so the echo is done here.
* ``Allow`` on a 405: every method of the resource the path names. The framework names only the
  methods of the first route it tried, and a resource here often has one route per method. When
  several path templates match (``/blueprint-model/paged`` also fits ``/blueprint-model/{id}``),
  the resource is the most specific one: the template with the fewest parameters.
"""

from __future__ import annotations

import uuid

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INVOCATION_ID_HEADER = "X-PLATFORM-InvocationID"
_MAX_LENGTH = 200


class ResponseHeadersMiddleware:
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

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers[INVOCATION_ID_HEADER] = invocation_id
                if message["status"] == 405:
                    headers["Allow"] = ", ".join(allowed_methods(scope))
            await send(message)

        await self.app(scope, receive, send_with_headers)


def allowed_methods(scope: Scope) -> list[str]:
    matching = [
        route for route in scope["app"].state.route_table.routes if route.path_regex.match(scope["path"])
    ]
    if not matching:
        return []
    fewest = min(route.path.count("{") for route in matching)
    return sorted(
        {method for route in matching if route.path.count("{") == fewest for method in route.methods}
    )
