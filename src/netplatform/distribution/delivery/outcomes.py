"""What a delivery attempt's answer means for the queue (reference section 6), and the backoff."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..log_model import NO_STATUS


class Outcome(Enum):
    DELIVERED = "delivered"
    REDIRECTED = "redirected"  # a learned redirect: try again at once at the new base
    REFUSED = "refused"  # final: expiry reason notRetryable
    RETRY = "retry"  # 429, 5xx, no answer: the subscription pauses


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    redirect_base: str | None = None


def judge(
    status: int, location: str | None, *, follow_redirect: bool, delivered_url: str, file_name: str
) -> Verdict:
    """The outcome of an answer with ``status`` (``-1``: none) to a delivery at ``delivered_url``."""
    if 200 <= status <= 299:
        return Verdict(Outcome.DELIVERED)
    if 300 <= status <= 399:
        base = learned_redirect_base(location, delivered_url, file_name) if follow_redirect else None
        return Verdict(Outcome.REDIRECTED, base) if base else Verdict(Outcome.REFUSED)
    if status == NO_STATUS or status == 429 or status >= 500:
        return Verdict(Outcome.RETRY)
    return Verdict(Outcome.REFUSED)


def learned_redirect_base(location: str | None, delivered_url: str, file_name: str) -> str | None:
    """The new base URL when ``location`` ends with ``/<file>`` and differs from where we sent."""
    suffix = "/" + file_name
    if not location or not location.endswith(suffix) or location == delivered_url:
        return None
    base = location[: -len(suffix)]
    return base if base.startswith("https://") else None


def next_delay(current_s: float, initial_s: float, maximum_s: float) -> float:
    """First failure waits ``initial_s``; each further failure doubles, up to ``maximum_s``."""
    return min(maximum_s, initial_s if current_s <= 0 else current_s * 2)
