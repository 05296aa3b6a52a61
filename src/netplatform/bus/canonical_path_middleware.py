"""Request paths as the reference accepts them.

* a trailing slash is accepted on every path (``/feeds/?useExisting=true``);
* the same paths are also served under ``/webapi`` (the reference's context root);

Rewriting the path once, before routing, keeps every route declared (and documented) in one
form only.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

CONTEXT_ROOT = "/webapi"


def canonical_path(path: str) -> str:
    if path == CONTEXT_ROOT or path.startswith(CONTEXT_ROOT + "/"):
        path = path[len(CONTEXT_ROOT) :] or "/"
    if len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    return path


class CanonicalPathMiddleware:
    """Outermost: routing, auth and the access log all see the canonical path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            canonical = canonical_path(scope["path"])
            if canonical != scope["path"]:
                raw = scope.get("raw_path")
                scope = {**scope, "path": canonical}
                if raw is not None:
                    scope["raw_path"] = canonical_path(raw.decode("latin-1")).encode("latin-1")
        await self.app(scope, receive, send)
