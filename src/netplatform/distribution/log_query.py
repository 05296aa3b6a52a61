"""The filters of a feed or subscription log query (spec 4.2, reference section 7)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TypeVar

from ..web.errors import BadRequest
from .log_model import NO_STATUS, ExpiryReason, RecordType

DAY_MS = 24 * 60 * 60 * 1000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_Choice = TypeVar("_Choice", RecordType, ExpiryReason)

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")
_STATUS_CLASSES = {"success": (200, 299), "redirect": (300, 399), "failure": (400, None)}


@dataclass(frozen=True)
class StatusFilter:
    """An inclusive range of status codes; ``highest`` None means no upper bound."""

    lowest: int
    highest: int | None


@dataclass(frozen=True)
class LogQuery:
    types: frozenset[RecordType]
    start_ms: int
    end_ms: int
    publish_id: str | None = None
    status: StatusFilter | None = None
    expiry_reason: ExpiryReason | None = None
    file_name: str | None = None


def parse_log_query(params: Mapping[str, str], now_ms: int, *, by_file_name: bool) -> LogQuery:
    """The query of a log request; ``by_file_name`` is true for feed logs (``filename`` applies)."""
    types = frozenset(RecordType)
    if "type" in params:
        types = frozenset({_parse(RecordType, params["type"], "bad type")})
    publish_id = params.get("publishId")
    if publish_id is not None and "'" in publish_id:
        raise _invalid("bad publishId")
    status = _parse_status(params["statusCode"]) if "statusCode" in params else None
    expiry_reason = None
    if "expiryReason" in params:
        expiry_reason = _parse(ExpiryReason, params["expiryReason"], "bad expiryReason")
        types = frozenset({RecordType.EXPIRY})
    start_ms, end_ms = _window(params.get("start"), params.get("end"), now_ms)
    return LogQuery(
        types=types,
        start_ms=start_ms,
        end_ms=end_ms,
        publish_id=publish_id,
        status=status,
        expiry_reason=expiry_reason,
        file_name=params.get("filename") if by_file_name else None,
    )


def _invalid(reason: str) -> BadRequest:
    return BadRequest(f"Invalid arguments: {reason}")


def _parse(kind: type[_Choice], text: str, reason: str) -> _Choice:
    try:
        return kind(text)
    except ValueError:
        raise _invalid(reason) from None


def _parse_status(text: str) -> StatusFilter:
    named = _STATUS_CLASSES.get(text.lower())
    if named is not None:
        return StatusFilter(*named)
    if re.fullmatch(r"-?\d{1,3}", text):
        code = int(text)
        if code == NO_STATUS or 100 <= code <= 599:
            return StatusFilter(code, code)
    raise _invalid("bad statusCode")


def _window(start: str | None, end: str | None, now_ms: int) -> tuple[int, int]:
    """Both bounds inclusive; a missing bound is 24 hours from the other (or from now)."""
    start_ms = _parse_time(start, "bad start") if start is not None else None
    end_ms = _parse_time(end, "bad end") if end is not None else None
    if start_ms is None and end_ms is None:
        return now_ms - DAY_MS, now_ms
    if start_ms is None:
        assert end_ms is not None
        return end_ms - DAY_MS, end_ms
    if end_ms is None:
        return start_ms, start_ms + DAY_MS
    return start_ms, end_ms


def _parse_time(text: str, reason: str) -> int:
    """RFC 3339 (with or without fractions, ``Z`` or an offset) or epoch milliseconds."""
    if re.fullmatch(r"\d{1,15}", text):
        return int(text)
    if not _RFC3339.fullmatch(text):
        raise _invalid(reason)
    try:
        moment = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        raise _invalid(reason) from None
    return (moment - _EPOCH) // timedelta(milliseconds=1)
