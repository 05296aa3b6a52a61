"""Prometheus metrics of one service: request counts and latencies, plus what the service adds."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]


class Metrics:
    """One registry per service app, so several apps in one process never share series."""

    def __init__(self, service: str) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.service = service
        self.requests = Counter(
            "http_requests_total",
            "HTTP requests answered",
            ["service", "method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "http_request_duration_seconds",
            "Time from request start to response end",
            ["service", "method", "route"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
        )

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(self.service, method, route, str(status)).inc()
        self.latency.labels(self.service, method, route).observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
