"""Time as every service records it and shows it on the wire.

The wire form shared by the reference systems is UTC with milliseconds,
``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`` (``2024-03-07T14:02:11.093Z``). Stored times are either epoch
milliseconds or naive UTC datetimes: both sort the same way on SQLite and PostgreSQL.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def utc_now() -> datetime:
    """Now as a naive UTC datetime."""
    return datetime.now(UTC).replace(tzinfo=None)


def wire_time(moment: datetime) -> str:
    """The wire form of a datetime (naive ones are taken as UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def wire_time_ms(epoch_ms: int) -> str:
    """The wire form of epoch milliseconds."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def wire_now() -> str:
    return wire_time(utc_now())
