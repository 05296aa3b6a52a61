"""The kernel's per-request work as one ASGI layer.

In order: request id and the service's response headers (on every response, 401s and
unexpected failures included), Basic authentication for routes that are not public (429 past
the throttle of failed attempts) and the route's permission (decided for the caller an
``X-PLATFORM-ACTING-FOR`` header names, when a platform identity allowed to act for it sends
one: access/acting.py), the NUL guard on path and query (400), the body limit (413, announced
or streamed), the body's media type and origin (415, 403: web/bodytypes.py), then the service;
around all of it the metrics, the access log and the last-resort answer: 503 when the database
could not serve (store.db.unavailable), else 500.

One layer rather than four because each layer costs a coroutine frame, a scope check and a
header parse per request, and on a hot GET those added up to a tenth of the request's CPU. The
request headers are scanned once for the few names the kernel reads.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ...access.acting import ACTING_FOR_HEADER, acting_permission
from ...access.credentials import parse_basic
from ...access.directory import AccessDirectory
from ...access.errors import DecisionRefused
from ...access.permissions import Permission
from ...logs import FrozenArgsRecord
from ...store.db import unavailable
from ..auth import client_address
from ..bodytypes import UNSAFE_METHODS, body_refusal
from ..errors import (
    ApiError,
    BadRequest,
    Forbidden,
    InternalError,
    PayloadTooLarge,
    ServiceUnavailable,
    Unauthorized,
    refusal_of,
)
from ..metrics import Metrics
from ..permissions import AUTHENTICATED
from ..requestid import REQUEST_ID_HEADER, usable_or_new
from ..routes import RouteTable
from ..service import ServiceSpec

access_logger = logging.getLogger("netplatform.access")
error_logger = logging.getLogger("netplatform.error")

RawHeader = tuple[bytes, bytes]

_AUTHORIZATION = b"authorization"
_CONTENT_LENGTH = b"content-length"
_TRANSFER_ENCODING = b"transfer-encoding"
_ACTING_FOR = ACTING_FOR_HEADER.lower().encode("latin-1")
_CONTENT_TYPE = b"content-type"
_ORIGIN = b"origin"
_HOST = b"host"


class KernelMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        *,
        spec: ServiceSpec,
        routes: RouteTable,
        access: AccessDirectory,
        limit: int | None,
        metrics: Metrics,
        access_log: bool,
    ) -> None:
        self.app = app
        self.spec = spec
        self.routes = routes
        self.access = access
        self.limit = limit
        self.metrics = metrics
        self.access_log = access_log
        self.renderer = spec.render_error
        self.challenge = f'Basic realm="{spec.realm or spec.name}"'
        # Correlation headers: the request id first, then the service's echoed ones.
        self.echoed = tuple(
            (name.lower().encode("latin-1"), name) for name in (REQUEST_ID_HEADER, *spec.echoed_headers)
        )
        self.read = frozenset(
            {
                _AUTHORIZATION,
                _CONTENT_LENGTH,
                _TRANSFER_ENCODING,
                _ACTING_FOR,
                _CONTENT_TYPE,
                _ORIGIN,
                _HOST,
                *(raw for raw, _ in self.echoed),
            }
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_headers = self._request_headers(scope)
        correlation = [(name, usable_or_new(request_headers.get(raw))) for raw, name in self.echoed]
        request_id = correlation[0][1]
        scope.setdefault("state", {})["request_id"] = request_id
        extra = _encoded([*correlation, *self.spec.response_headers(request_id)])
        replaced = frozenset(name for name, _ in extra)
        started = time.perf_counter()
        status = 500
        response_started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = message["status"]
                kept = [h for h in message.get("headers", ()) if h[0] not in replaced]
                message["headers"] = kept + extra
            await send(message)

        try:
            limit = self._limit(scope)
            refusal = await self._refusal(scope, request_headers, limit)
            if refusal is not None:
                await self.renderer(Request(scope), refusal)(scope, receive, send_with_headers)
            else:
                await self._bounded(scope, receive, send_with_headers, request_headers, limit)
        except Exception as error:
            failure = self._failure(scope, request_id, error)
            if not response_started:
                await self.renderer(Request(scope), failure)(scope, receive, send_with_headers)
        finally:
            self._record(scope, request_id, status, time.perf_counter() - started)

    @staticmethod
    def _failure(scope: Scope, request_id: str, error: Exception) -> ApiError:
        """The answer to an exception nothing else handled: 503 when the database could not serve
        (a client may try again once it is back; no traceback, the cause is outside), else 500."""
        if unavailable(error):
            error_logger.warning(
                "database unavailable in %s %s [%s]: %s", scope["method"], scope["path"], request_id, error
            )
            return ServiceUnavailable("The database is unavailable; try again later")
        error_logger.exception("unhandled error in %s %s [%s]", scope["method"], scope["path"], request_id)
        return InternalError("Internal server error")

    def _request_headers(self, scope: Scope) -> dict[bytes, str]:
        """The first value of each header the kernel reads (names arrive lower-cased)."""
        found: dict[bytes, str] = {}
        for name, value in scope["headers"]:
            if name in self.read and name not in found:
                found[name] = value.decode("latin-1")
        return found

    async def _refusal(self, scope: Scope, headers: dict[bytes, str], limit: int | None) -> ApiError | None:
        """The error the kernel answers instead of the service, if any (in this order):
        credentials and permission, NUL in the path or query, the body's size, its media type
        and origin (web/bodytypes.py)."""
        if not self.routes.is_public(scope):
            try:
                refusal = await self._access_refusal(
                    scope, headers.get(_AUTHORIZATION), headers.get(_ACTING_FOR)
                )
            except DecisionRefused as refused:  # throttled (429), no decision possible now (503)
                return refusal_of(refused)
            if refusal is not None:
                return refusal
        if _has_nul(scope):
            return BadRequest("NUL characters are not allowed in a request path or query")
        declared = headers.get(_CONTENT_LENGTH)
        if limit is not None and declared is not None and declared.isdigit() and int(declared) > limit:
            return PayloadTooLarge(f"Request body larger than {limit} bytes")
        if scope["method"] in UNSAFE_METHODS:
            has_body = _TRANSFER_ENCODING in headers or (declared or "0").strip() not in ("0", "")
            return body_refusal(
                scope["method"],
                self.routes.body(scope),
                headers.get(_CONTENT_TYPE),
                has_body,
                headers.get(_ORIGIN),
                headers.get(_HOST),
            )
        return None

    async def _access_refusal(
        self, scope: Scope, authorization: str | None, acting_for: str | None
    ) -> ApiError | None:
        """401 without valid credentials, 403 without the permission the route declares (the
        named caller's, when a platform identity acts for one: access/acting.py)."""
        required = self.routes.requirement(scope)
        needed = required if isinstance(required, Permission) else None
        client = client_address(scope)
        decided = self.access.remembered(authorization, needed, client) if acting_for is None else None
        if decided is None:
            found: tuple[str, bool] | ApiError | None
            if acting_for is None:
                found = await self._decide(authorization, needed, client)
            else:
                found = await self._decide_acting(scope, authorization, acting_for, needed, client)
            if isinstance(found, ApiError):
                return found
            if found is None:
                credentials = parse_basic(authorization)
                return Unauthorized(
                    "Authentication required" if credentials is None else "Bad credentials",
                    headers={"WWW-Authenticate": self.challenge},
                    extra={"user": credentials.user if credentials else None},
                )
            decided = found
        user, allowed = decided
        scope["state"]["user"] = user
        if isinstance(required, str) and required != AUTHENTICATED:
            # UNDECLARED: nobody's route (tests/web/test_permissions.py finds such routes).
            return Forbidden(f"{scope['method']} {scope['path']} declares no permission: nobody may call it")
        return None if allowed else Forbidden(f"User {user} does not have permission {required}")

    async def _decide(
        self, authorization: str | None, needed: Permission | None, client: str | None
    ) -> tuple[str, bool] | None:
        """(identity, allowed) through the database when memory does not hold the answer."""
        user = await self.access.authenticate(authorization, client)
        if user is None:
            return None
        return user, needed is None or await self.access.allows(user, needed)

    async def _decide_acting(
        self,
        scope: Scope,
        authorization: str | None,
        caller: str,
        needed: Permission | None,
        client: str | None,
    ) -> tuple[str, bool] | ApiError | None:
        """(caller, allowed) when the authenticated identity may act for ``caller`` here; 403
        when it may not (the request is never decided on its own permissions instead)."""
        presenter = await self.access.authenticate(authorization, client)
        if presenter is None:
            return None
        permission = acting_permission(self.spec.name, caller)
        if permission is None or not await self.access.allows(presenter, permission):
            scope["state"]["user"] = presenter
            return Forbidden(f"User {presenter} may not act for another identity ({ACTING_FOR_HEADER})")
        scope["state"]["acting_presenter"] = presenter
        return caller, needed is None or await self.access.allows(caller, needed)

    def _limit(self, scope: Scope) -> int | None:
        # Routes that stream their body (a 100 MiB publish) enforce limits of their own.
        if self.limit is None or self.routes.streams_body(scope):
            return None
        return self.limit

    async def _bounded(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, str], limit: int | None
    ) -> None:
        """The service, its body counted against the limit as it streams in.

        Only a chunked body needs counting: the server delivers exactly the announced
        Content-Length (already checked), and a request with neither header has no body.
        Raising from ``receive`` would reach the framework's body parser, which reports any
        failure as 400, so the kernel answers 413 itself and tells the app the client went away.
        """
        declared = headers.get(_CONTENT_LENGTH)
        announced = declared is not None and declared.isdigit()
        if limit is None or announced or _TRANSFER_ENCODING not in headers:
            await self.app(scope, receive, send)
            return
        received = 0
        refused = False

        async def counting_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request" and not refused:
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    error = PayloadTooLarge(f"Request body larger than {limit} bytes")
                    await self.renderer(Request(scope), error)(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def send_unless_refused(message: Message) -> None:
            if not refused:
                await send(message)

        await self.app(scope, counting_receive, send_unless_refused)

    def _record(self, scope: Scope, request_id: str, status: int, elapsed: float) -> None:
        route = scope.get("route")
        template = getattr(route, "path", None) or "<unmatched>"
        self.metrics.observe(scope["method"], template, status, elapsed)
        if self.access_log:
            _ACCESS.write(
                "%s %s %s %d %.1fms",
                (
                    scope["method"],
                    scope["path"],
                    scope.get("state", {}).get("user", "-"),
                    status,
                    elapsed * 1000,
                ),
                {
                    "request_id": request_id,
                    "service": self.spec.name,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 2),
                    "client": (scope.get("client") or ("-",))[0],
                },
            )


class AccessLog:
    """One access record per request, without rebuilding what every record shares.

    ``Logger.info`` makes each record from scratch: it walks the stack for the caller and looks
    up the thread, process and module names, which came to a third of a ``/health`` request.
    Every access record of one thread in one process shares those, so the first record is kept
    as a template and the next ones copy it, then set the time, the message and the fields. The
    record goes through the logger's level, filters and handlers like any other.
    """

    def __init__(self, logger: logging.Logger) -> None:
        self.logger = logger
        self._templates: dict[tuple[int, int], dict[str, Any]] = {}

    def write(self, message: str, args: tuple[object, ...], fields: dict[str, object]) -> None:
        if not self.logger.isEnabledFor(logging.INFO):
            return
        template = self._template()
        # Its arguments are strings and numbers: the message is formatted on the log writer's
        # thread, off the request path (netplatform.logs).
        record = FrozenArgsRecord.__new__(FrozenArgsRecord)
        record.__dict__.update(template)
        created = time.time()
        record.created = created
        record.msecs = int((created - int(created)) * 1000) + 0.0
        record.relativeCreated = template["relativeCreated"] + (created - template["created"]) * 1000
        record.msg = message
        record.args = args
        record.__dict__.update(fields)
        self.logger.handle(record)

    def _template(self) -> dict[str, Any]:
        key = (os.getpid(), threading.get_ident())
        template = self._templates.get(key)
        if template is None:
            name = self.logger.name
            record = self.logger.makeRecord(name, logging.INFO, __file__, 0, "", (), None, "access")
            template = dict(record.__dict__)
            if len(self._templates) >= 64:  # threads come and go (tests); keep the map small
                self._templates.clear()
            self._templates[key] = template
        return template


_ACCESS = AccessLog(access_logger)


def _encoded(headers: Iterable[tuple[str, str]]) -> list[RawHeader]:
    return [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers]


def _has_nul(scope: Scope) -> bool:
    raw_path: bytes = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
    query: bytes = scope.get("query_string", b"")
    # Most requests carry neither a NUL nor an escape: skip the unquoting then.
    if b"\x00" in raw_path or b"\x00" in query:
        return True
    return (b"%" in raw_path and b"\x00" in unquote_to_bytes(raw_path)) or (
        b"%" in query and b"\x00" in unquote_to_bytes(query)
    )
