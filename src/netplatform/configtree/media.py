"""Media types of the config tree: JSON in, JSON out (RFC 7951), no XML.

Requests may be ``application/json``, ``application/yang-data+json`` or the older
``application/yang.data+json``; anything else is 415. Responses are
``application/yang-data+json`` when the client's Accept asks for it, ``application/json``
otherwise, and 406 when the Accept header admits neither (an XML-only client).
"""

from __future__ import annotations

from .errors import not_acceptable, unsupported_media_type

JSON = "application/json"
YANG_DATA_JSON = "application/yang-data+json"
REQUEST_MEDIA_TYPES = (JSON, YANG_DATA_JSON, "application/yang.data+json")
_YANG_DATA_SPELLINGS = frozenset({YANG_DATA_JSON, "application/yang.data+json"})
_JSON_RANGES = frozenset({JSON, "application/*", "*/*"})


def response_media_type(accept: str | None) -> str:
    """The media type to answer with, given the request's Accept header."""
    if not accept or not accept.strip():
        return JSON
    wanted = {media for media, quality in _media_ranges(accept) if quality > 0}
    if wanted & _YANG_DATA_SPELLINGS:
        return YANG_DATA_JSON
    if wanted & _JSON_RANGES:
        return JSON
    raise not_acceptable(f"None of the accepted media types is offered; use {JSON} or {YANG_DATA_JSON}")


def require_json_request(content_type: str | None) -> None:
    """415 unless the body is declared as one of the JSON media types (absent: taken as JSON)."""
    if not content_type or not content_type.strip():
        return
    media = content_type.split(";", 1)[0].strip().lower()
    if media not in REQUEST_MEDIA_TYPES:
        raise unsupported_media_type(
            f"Unsupported media type {media}; send one of {', '.join(REQUEST_MEDIA_TYPES)}"
        )


def _media_ranges(accept: str) -> list[tuple[str, float]]:
    ranges = []
    for item in accept.split(","):
        media, *parameters = (part.strip() for part in item.split(";"))
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                quality = _quality(value.strip())
        if media:
            ranges.append((media.lower(), quality))
    return ranges


def _quality(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 1.0
