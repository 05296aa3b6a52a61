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
from ..periodic import Periodic
from ..repository import logs
from ..repository.logs import LogMark

log = logging.getLogger("netplatform.distribution.retention")

BATCH = 500
"""Records deleted in one transaction."""


class LogRetention:
    def __init__(self, db: Database, settings: Settings) -> None:
        self.db = db
        self.max_age_ms = int(settings.distribution_log_max_age_s * 1000)
        self.max_records = settings.distribution_log_max_records_per_feed
        self._job = Periodic(
            "distribution-log-retention", settings.distribution_log_prune_interval_s, self.prune
        )

    async def start(self) -> None:
        self._job.start()

    async def stop(self) -> None:
        await self._job.stop()

    def prune(self) -> int:
        """One pass over every feed; the number of records deleted."""
        if not self.max_age_ms and not self.max_records:
            return 0
        with self.db.read() as session:
            feed_ids = logs.feed_ids(session)
        age_mark = logs.age_mark(now_ms() - self.max_age_ms) if self.max_age_ms else None
        removed = sum(self._prune_feed(feed_id, age_mark) for feed_id in feed_ids)
        if removed:
            log.info("log retention removed %d records", removed)
        return removed

    def _prune_feed(self, feed_id: int, age_mark: LogMark | None) -> int:
        """Delete the feed's records up to the later of the two bounds' marks, a batch at a time."""
        marks = [age_mark] if age_mark else []
        if self.max_records:
            with self.db.read() as session:
                count_mark = logs.newest_past(session, feed_id, self.max_records)
            marks += [count_mark] if count_mark else []
        if not marks:
            return 0
        through = max(marks)
        removed = 0
        while True:
            with self.db.read() as session:
                ids = logs.prunable(session, feed_id, through, BATCH)
            if ids:
                with self.db.write() as session:
                    logs.delete_logs(session, ids)
            removed += len(ids)
            if len(ids) < BATCH:
                return removed
