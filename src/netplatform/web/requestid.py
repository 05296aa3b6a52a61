"""Request ids (and other correlation headers): the client's when it sends one, else a new UUID."""

from __future__ import annotations

import os

from starlette.datastructures import Headers
from starlette.requests import Request

REQUEST_ID_HEADER = "X-PLATFORM-RequestID"
_MAX_LENGTH = 200


# The variant nibble of an RFC 4122 UUID is 10xx: map any hex digit onto 8, 9, a or b.
_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}


def new_id() -> str:
    """A random (version 4) UUID as text; the same as ``str(uuid.uuid4())`` at a third of the
    cost, which shows on a request that is otherwise cheap."""
    h = os.urandom(16).hex()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def usable_or_new(given: str | None) -> str:
    """The client's value of a correlation header when it is usable, otherwise a new UUID."""
    if given:
        given = given.strip()
        if given and len(given) <= _MAX_LENGTH and given.isprintable():
            return given
    return new_id()


def echo_or_new(headers: Headers, name: str) -> str:
    """The client's value of header ``name`` when it is usable, otherwise a new UUID."""
    return usable_or_new(headers.get(name))


def request_id_from(headers: Headers) -> str:
    return echo_or_new(headers, REQUEST_ID_HEADER)


def current_request_id(request: Request) -> str:
    """The id the kernel assigned to this request (see :mod:`netplatform.web.middleware`)."""
    return str(request.scope.get("state", {}).get("request_id", ""))
