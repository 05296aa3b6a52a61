"""Time as the bus controller writes it: ``lastMod`` and epoch milliseconds."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def last_mod() -> str:
    """Now in UTC as ``yyyy-MM-ddTHH:mm:ss.SSSZ``."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def epoch_ms() -> int:
    return time.time_ns() // 1_000_000
