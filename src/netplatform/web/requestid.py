"""Request ids (and other correlation headers): the client's when it sends one, else a new UUID."""

from __future__ import annotations

import uuid

from starlette.datastructures import Headers
from starlette.requests import Request

REQUEST_ID_HEADER = "X-PLATFORM-RequestID"
_MAX_LENGTH = 200


def echo_or_new(headers: Headers, name: str) -> str:
    """The client's value of header ``name`` when it is usable, otherwise a new UUID."""
    given = headers.get(name, "").strip()
    if given and len(given) <= _MAX_LENGTH and given.isprintable():
        return given
    return str(uuid.uuid4())


def request_id_from(headers: Headers) -> str:
    return echo_or_new(headers, REQUEST_ID_HEADER)


def current_request_id(request: Request) -> str:
    """The id the kernel assigned to this request (see :mod:`netplatform.web.middleware`)."""
    return str(request.scope.get("state", {}).get("request_id", ""))
