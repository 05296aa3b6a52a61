"""Log retention: log records past the configured age or count are pruned, so a busy feed cannot
grow the database without limit.

Every ``distribution_log_prune_interval_s`` each instance walks the feeds (deleted ones too, whose
records stay queryable) and deletes, per feed, the records older than
``distribution_log_max_age_s`` and all but the newest ``distribution_log_max_records_per_feed``.
The count bound is per feed, so a busy feed never pushes out a quiet feed's records. Deletes go in
small batches, each its own short transaction: found by a read, deleted by id, so a write never
holds SQLite's lock for long. Several instances may prune at once: both bounds only ever remove
records that are already past them, and a record another instance deleted first is simply gone.
"""

from __future__ import annotations

import logging

from ...clock import now_ms
from ...settings import Settings
from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..repository.logs import LogMark, LogRepository, age_mark

log = logging.getLogger("netplatform.distribution.retention")

BATCH = 500
"""Records deleted in one transaction."""


class LogRetention:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.unit = UnitOfWork(db, LogRepository)
        self.max_age_ms = int(settings.distribution_log_max_age_s * 1000)
        self.max_records = settings.distribution_log_max_records_per_feed

    def prune(self) -> int:
        """One pass over every feed; the number of records deleted."""
        if not self.max_age_ms and not self.max_records:
            return 0
        feed_ids = self.unit.read(lambda logs: logs.feed_ids())
        by_age = age_mark(now_ms() - self.max_age_ms) if self.max_age_ms else None
        removed = sum(self._prune_feed(feed_id, by_age) for feed_id in feed_ids)
        if removed:
            log.info("log retention removed %d records", removed)
        return removed

    def _prune_feed(self, feed_id: int, by_age: LogMark | None) -> int:
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
            batch = self._prune_batch(feed_id, through)
            removed += batch
            if batch < BATCH:
                return removed

    def _prune_batch(self, feed_id: int, through: LogMark) -> int:
        """Up to ``BATCH`` of the feed's records at or before ``through``: found by a read, deleted
        by id in a write of their own; how many."""
        ids = self.unit.read(lambda logs: logs.prunable(feed_id, through, BATCH))
        if ids:
            self.unit.write(lambda logs: logs.delete(ids), retry=False)
        return len(ids)
