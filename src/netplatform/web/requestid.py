"""Request ids: taken from ``X-PLATFORM-RequestID`` when the client sends one, else generated."""

from __future__ import annotations

import uuid

from starlette.datastructures import Headers
from starlette.requests import Request

REQUEST_ID_HEADER = "X-PLATFORM-RequestID"
_MAX_LENGTH = 200


def request_id_from(headers: Headers) -> str:
    """The client's request id when it is usable, otherwise a new UUID."""
    given = headers.get(REQUEST_ID_HEADER, "").strip()
    if given and len(given) <= _MAX_LENGTH and given.isprintable():
        return given
    return str(uuid.uuid4())


def current_request_id(request: Request) -> str:
    """The id the kernel assigned to this request (see :mod:`netplatform.web.middleware`)."""
    return str(request.scope.get("state", {}).get("request_id", ""))
