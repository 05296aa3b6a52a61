"""What the overview shows of a service's ``/metrics`` (Prometheus text, kernel web/metrics.py)."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")


@dataclass
class MetricsSummary:
    requests: int = 0
    by_class: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUS_CLASSES, 0))
    queue_depth: float | None = None
    delivery_outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> int:
        """Server errors: what an operator must look at (4xx are the clients' mistakes)."""
        return self.by_class["5xx"]


def summarize(text: str) -> MetricsSummary:
    """Request counts by status class, the delivery queue depth and delivery outcomes if exposed."""
    summary = MetricsSummary()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "http_requests_total":
                count = int(sample.value)
                summary.requests += count
                status_class = sample.labels.get("status", "")[:1] + "xx"
                if status_class in summary.by_class:
                    summary.by_class[status_class] += count
            elif sample.name == "distribution_queue_depth":
                summary.queue_depth = (summary.queue_depth or 0) + sample.value
            elif sample.name == "distribution_delivery_attempts_total":
                outcome = sample.labels.get("outcome", "?")
                summary.delivery_outcomes[outcome] = summary.delivery_outcomes.get(outcome, 0) + int(
                    sample.value
                )
    return summary


def bar_chart(values: dict[str, int], width: int = 240, bar_height: int = 16) -> dict[str, object]:
    """Geometry of a small horizontal bar chart, drawn as inline SVG by the template."""
    top = max(values.values(), default=0) or 1
    label_width = 40
    usable = width - label_width - 48
    bars = [
        {"label": label, "value": value, "y": index * (bar_height + 4), "w": round(usable * value / top, 1)}
        for index, (label, value) in enumerate(values.items())
    ]
    return {
        "bars": bars,
        "width": width,
        "height": len(bars) * (bar_height + 4),
        "bar_height": bar_height,
        "x0": label_width,
    }


@dataclass
class Rates:
    """Requests and server errors per second since the previous sample of one service."""

    requests_per_s: float
    errors_per_s: float
    history: list[float]  # the latest request rates, oldest first, for the small chart


class RateTracker:
    """The previous /metrics sample of each service, kept in this console process's memory.

    A rate needs two samples, so a service's first view has none; counters that went down (the
    service restarted) start afresh. Console instances keep their own samples.
    """

    HISTORY = 12

    def __init__(self) -> None:
        self._last: dict[str, tuple[float, int, int]] = {}
        self._history: dict[str, deque[float]] = {}

    def sample(self, service: str, summary: MetricsSummary, now: float | None = None) -> Rates | None:
        now = time.monotonic() if now is None else now
        previous = self._last.get(service)
        self._last[service] = (now, summary.requests, summary.errors)
        if previous is None or now <= previous[0] or summary.requests < previous[1]:
            self._history.pop(service, None)
            return None
        elapsed = now - previous[0]
        requests = (summary.requests - previous[1]) / elapsed
        errors = max(summary.errors - previous[2], 0) / elapsed
        history = self._history.setdefault(service, deque(maxlen=self.HISTORY))
        history.append(requests)
        return Rates(requests, errors, list(history))


def rate_chart(history: list[float], width: int = 120, height: int = 24) -> dict[str, object]:
    """Geometry of a small column chart of the latest request rates (inline SVG)."""
    top = max(history, default=0.0) or 1.0
    step = width / RateTracker.HISTORY
    bars = []
    for index, rate in enumerate(history):
        bar_height = max(round(height * rate / top, 1), 1.0)  # a zero rate still shows as a line
        bars.append({"x": round(index * step, 1), "y": round(height - bar_height, 1), "h": bar_height})
        bars[-1]["value"] = round(rate, 2)
    return {"bars": bars, "width": width, "height": height, "bar_width": round(step - 2, 1)}
