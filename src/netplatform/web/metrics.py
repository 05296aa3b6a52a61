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

        # The label children of each (method, route, status) seen, so a request costs two
        # dict lookups instead of two label resolutions. Bounded: methods come from clients.
        self._children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        key = (method, route, status)
        children = self._children.get(key)
        if children is None:
            children = self._bind(key)
        children[0].inc()
        children[1].observe(seconds)

    def _bind(self, key: tuple[str, str, int]) -> tuple[Counter, Histogram]:
        method, route, status = key
        children = (
            self.requests.labels(self.service, method, route, str(status)),
            self.latency.labels(self.service, method, route),
        )
        if len(self._children) >= 1024:
            self._children.clear()
        self._children[key] = children
        return children

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
