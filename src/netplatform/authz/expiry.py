"""When a membership ends: an RFC 3339 date-time or epoch milliseconds in, epoch milliseconds
stored, RFC 3339 (UTC, milliseconds) out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ..clock import wire_time_ms
from .errors import bad_request

# The last millisecond of year 9999: what a date-time can say, and far inside a BIGINT.
LATEST_MS = 253_402_300_799_999
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def expiry_ms(value: int | str | None, now_ms: int) -> int | None:
    """The epoch milliseconds a request's ``expires`` names (None: never); 400 when it is
    malformed, out of range, or already past."""
    if value is None:
        return None
    moment = value if isinstance(value, int) else _parse_date_time(value)
    if not 0 <= moment <= LATEST_MS:
        raise bad_request(f"expires must be between 0 and {LATEST_MS} epoch milliseconds", "expires")
    if moment <= now_ms:
        raise bad_request(f"expires is already past: {wire_time_ms(moment)}", "expires")
    return moment


def _parse_date_time(text: str) -> int:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        moment = None
    # RFC 3339 date-times carry their offset; a date alone or a local time is ambiguous.
    if moment is None or moment.tzinfo is None or "T" not in text.upper():
        raise bad_request(
            "expires must be an RFC 3339 date-time with its offset (2030-01-01T00:00:00Z) "
            "or epoch milliseconds",
            "expires",
        )
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def wire_expiry(expires_ms: int | None) -> str | None:
    return None if expires_ms is None else wire_time_ms(expires_ms)
