"""Media types of the config tree: JSON in, JSON out (RFC 7951), no XML.

Requests may be ``application/json``, ``application/yang-data+json`` or the older
``application/yang.data+json``; anything else is 415. Responses are
``application/yang-data+json`` when the client's Accept asks for it, ``application/json``
otherwise, and 406 when the Accept header admits neither (an XML-only client). Headers are
read by the kernel's parser (:mod:`netplatform.web.media`): a quality that is not a number is 0.
"""

from __future__ import annotations

from ..web.media import accept_ranges, parse_media_type, quality_of
from .errors import not_acceptable, unsupported_media_type

JSON = "application/json"
YANG_DATA_JSON = "application/yang-data+json"
REQUEST_MEDIA_TYPES = (JSON, YANG_DATA_JSON, "application/yang.data+json")
_YANG_DATA_SPELLINGS = (YANG_DATA_JSON, "application/yang.data+json")


def response_media_type(accept: str | None) -> str:
    """The media type to answer with, given the request's Accept header."""
    if not accept or not accept.strip():
        return JSON
    ranges = accept_ranges(accept)
    if quality_of(ranges, _YANG_DATA_SPELLINGS, wildcards=False)[0] > 0:
        return YANG_DATA_JSON
    if quality_of(ranges, (JSON,))[0] > 0:
        return JSON
    raise not_acceptable(f"None of the accepted media types is offered; use {JSON} or {YANG_DATA_JSON}")


def require_json_request(content_type: str | None) -> None:
    """415 unless the body is declared as one of the JSON media types (absent: taken as JSON)."""
    if not content_type or not content_type.strip():
        return
    media, _ = parse_media_type(content_type)
    if media not in REQUEST_MEDIA_TYPES:
        raise unsupported_media_type(
            f"Unsupported media type {media}; send one of {', '.join(REQUEST_MEDIA_TYPES)}"
        )
