"""Time as the service records it: integer epoch milliseconds, and their wire form."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def format_ms(epoch_ms: int) -> str:
    """``2024-03-07T14:02:11.093Z``: UTC with milliseconds, the log records' date format."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"
