"""Which publish request headers travel with the file to the subscribers (reference section 5).

Kept: the content headers (``Content-Type``, defaulting to ``application/octet-stream``, and
``Content-Language``, ``Content-MD5``, ``Content-Range``), ``X-BUS-DR-META``, and every ``X-*``
header that is not an ``X-BUS-DR-*`` one. The service adds ``X-PLATFORM-RequestID`` when the
publisher sent none and always ``X-BUS-DR-RECEIVED``; ``X-InvocationID`` is made fresh for every
delivery attempt, so a publisher's value is not kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..clock import wire_time_ms
from ..web.requestid import REQUEST_ID_HEADER

DEFAULT_CONTENT_TYPE = "application/octet-stream"
CONTENT_TYPE = "Content-Type"
CONTENT_HEADERS = ("Content-Type", "Content-Language", "Content-MD5", "Content-Range")
META_HEADER = "X-BUS-DR-META"
PUBLISH_ID_HEADER = "X-BUS-DR-PUBLISH-ID"
RECEIVED_HEADER = "X-BUS-DR-RECEIVED"
INVOCATION_HEADER = "X-InvocationID"


def captured_headers(
    headers: Iterable[tuple[str, str]],
    *,
    request_id: str,
    source_ip: str,
    local_ip: str,
    received_ms: int,
    with_content: bool,
) -> dict[str, str]:
    """The headers to forward, by their canonical names (content headers only for a body)."""
    given = {name.lower(): (name, _as_text(value)) for name, value in headers}
    kept: dict[str, str] = {}
    if with_content:
        kept[CONTENT_TYPE] = given.get("content-type", ("", DEFAULT_CONTENT_TYPE))[1] or DEFAULT_CONTENT_TYPE
        for name in CONTENT_HEADERS[1:]:
            if name.lower() in given:
                kept[name] = given[name.lower()][1]
    if META_HEADER.lower() in given:
        kept[META_HEADER] = given[META_HEADER.lower()][1]
    for lower, (name, value) in given.items():
        if (
            lower.startswith("x-")
            and not lower.startswith("x-bus-dr-")
            and lower != INVOCATION_HEADER.lower()
        ):
            kept[REQUEST_ID_HEADER if lower == REQUEST_ID_HEADER.lower() else name] = value
    kept.setdefault(REQUEST_ID_HEADER, request_id)
    kept[RECEIVED_HEADER] = f"{wire_time_ms(received_ms)};from={source_ip};by={local_ip}"
    return kept


def _as_text(value: str) -> str:
    """A header value as sent: the server reads header bytes as latin-1; UTF-8 bytes are turned back
    into the text they encode, so the client (which writes UTF-8) sends the very same bytes."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


def content_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name in CONTENT_HEADERS}


def other_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: value for name, value in headers.items() if name not in CONTENT_HEADERS}
