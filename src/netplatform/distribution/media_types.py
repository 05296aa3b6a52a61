"""Media types of the file-distribution service and the decisions it takes on them.

Feed and subscription bodies come as their vendor type (version absent, ``1.0`` or ``2.0``) or
``application/json``, else 415; log lists go out as the log-list type, and an Accept header
that admits neither it nor JSON is 406. Headers are read by the kernel's parser
(:mod:`netplatform.web.media`): a quality that is not a number (or not in 0..1) is 0.
"""

from __future__ import annotations

from ..web.errors import NotAcceptable, UnsupportedMediaType
from ..web.media import is_acceptable, parse_media_type

JSON = "application/json"
FEED_MEDIA_TYPE = "application/vnd.bus-dr.feed"
SUBSCRIPTION_MEDIA_TYPE = "application/vnd.bus-dr.subscription"
LOG_LIST_MEDIA_TYPE = "application/vnd.bus-dr.log-list"
LOG_LIST_CONTENT_TYPE = f"{LOG_LIST_MEDIA_TYPE}; version=1.0"
_VERSIONS = {None, "1.0", "2.0"}


def require_content_type(content_type: str | None, vendor_type: str) -> None:
    """The vendor media type (version absent, 1.0 or 2.0) or application/json, else 415."""
    media_type, params = parse_media_type(content_type)
    if media_type == JSON or (media_type == vendor_type and params.get("version") in _VERSIONS):
        return
    raise UnsupportedMediaType("Incorrect content-type")


def require_log_list_acceptable(accept: str | None) -> None:
    """406 unless the Accept header (when present) takes the log-list type or JSON."""
    if not is_acceptable(accept, (LOG_LIST_MEDIA_TYPE, JSON)):
        raise NotAcceptable(f"The Accept header does not allow {LOG_LIST_MEDIA_TYPE}")
