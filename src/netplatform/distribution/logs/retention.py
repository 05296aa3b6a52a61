"""Log retention: log records past the configured age or count are pruned, so a busy feed cannot
grow the database without limit.

Every ``distribution_log_prune_interval_s`` each instance walks the feeds (deleted ones too, whose
records stay queryable) and deletes, per feed, the records older than
``distribution_log_max_age_s`` and all but the newest ``distribution_log_max_records_per_feed``.
The count bound is per feed, so a busy feed never pushes out a quiet feed's records. Deletes go in
small batches, each its own short transaction: found by a read, deleted by id, so a write never
holds SQLite's lock for long. Several instances may prune at once: both bounds only ever remove
records that are already past them, and a record another instance deleted first is simply gone.
At an edge node (``NETPLATFORM_DISTRIBUTION_CENTRAL_URL``) a record is pruned only once central
has taken it (distribution/sites/edge.py ships them): an outage longer than the age bound loses
no record.
"""

from __future__ import annotations

import logging

from ...clock import now_ms
from ...settings import Settings
from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.logs import LogMark, LogRepository, age_mark
from ..repository.replication import ReplicationRepository

log = logging.getLogger("netplatform.distribution.retention")

BATCH = 500
"""Records deleted in one transaction."""


class LogRetention:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.unit = UnitOfWork(db, LogRepository)
        self.max_age_ms = int(settings.distribution_log_max_age_s * 1000)
        self.max_records = settings.distribution_log_max_records_per_feed
        central = settings.distribution_central_url
        self.central = central.rstrip("/") if central else None
        self.shipping = UnitOfWork(db, ReplicationRepository)

    def prune(self) -> int:
        """One pass over every feed; the number of records deleted."""
        if not self.max_age_ms and not self.max_records:
            return 0
        feed_ids = self.unit.read(lambda logs: logs.feed_ids())
        by_age = age_mark(now_ms() - self.max_age_ms) if self.max_age_ms else None
        shipped = self._shipped()
        removed = sum(self._prune_feed(feed_id, by_age, shipped) for feed_id in feed_ids)
        if removed:
            log.info("log retention removed %d records", removed)
        return removed

    def _shipped(self) -> int | None:
        """At an edge node, the last record central has taken (0: none yet); None elsewhere."""
        if self.central is None:
            return None
        source = self.central
        state = self.shipping.read(lambda repo: repo.state(source))
        return 0 if state is None else state.shipped_log_id

    def _prune_feed(self, feed_id: int, by_age: LogMark | None, shipped: int | None) -> int:
        """Delete the feed's records up to the later of the two bounds' marks, a batch at a time."""
        marks = [by_age] if by_age else []
        if self.max_records:
            count_mark = self.unit.read(lambda logs: logs.newest_past(feed_id, self.max_records))
            marks += [count_mark] if count_mark else []
        if not marks:
            return 0
        through = max(marks)
        removed = 0
        while True:
            batch = self._prune_batch(feed_id, through, shipped)
            removed += batch
            if batch < BATCH:
                return removed

    def _prune_batch(self, feed_id: int, through: LogMark, shipped: int | None) -> int:
        """Up to ``BATCH`` of the feed's records at or before ``through`` (and shipped, at an
        edge): found by a read, deleted by id in a write of their own; how many."""
        ids = self.unit.read(lambda logs: logs.prunable(feed_id, through, BATCH, shipped))
        if ids:
            self.unit.write(lambda logs: logs.delete(ids), retry=False)
        return len(ids)
