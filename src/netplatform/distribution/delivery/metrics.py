"""Metrics for operations: delivery queue depth, attempt outcomes and accepted publishes."""

from __future__ import annotations

import logging
import math

from prometheus_client import CollectorRegistry, Counter, Gauge
from sqlalchemy.exc import SQLAlchemyError

from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.queue import QueueRepository

log = logging.getLogger("netplatform.distribution")


class DeliveryMetrics:
    def __init__(self, registry: CollectorRegistry, db: Database, node: str) -> None:
        self.unit = UnitOfWork(db, QueueRepository)
        self.node = node
        self.queue_depth = Gauge(
            "distribution_queue_depth",
            "Deliveries and forwards waiting at this node, in every subscription queue",
            registry=registry,
        )
        self.queue_depth.set_function(self._count_queued)
        self.outcomes = Counter(
            "distribution_delivery_attempts_total",
            "Delivery and forward attempts by outcome (delivered, forwarded, redirected, refused, retry)"
            " and expiries",
            ["outcome"],
            registry=registry,
        )
        self.published = Counter(
            "distribution_published_total",
            "Accepted publishes and retractions",
            ["method"],
            registry=registry,
        )

    def _count_queued(self) -> float:
        try:
            return float(self.unit.read(lambda queue: queue.depth(self.node)))
        except SQLAlchemyError:
            log.warning("queue depth unavailable", exc_info=True)
            return math.nan
