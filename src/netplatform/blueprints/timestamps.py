"""Time as the catalog stores it (naive UTC) and as it shows it on the wire."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Now, as a naive UTC datetime: the form both databases store and sort the same way."""
    return datetime.now(UTC).replace(tzinfo=None)


def wire_timestamp(moment: datetime) -> str:
    """``yyyy-MM-dd'T'HH:mm:ss.SSS'Z'``, e.g. ``2024-03-07T14:02:11.093Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
