"""The logbook: the log records of a feed or subscription that match a query (spec 4.2 feedlog/sublog)."""

from __future__ import annotations

from ...store.db import Database
from ...store.unit_of_work import UnitOfWork
from ..log_model import LogRecord
from ..log_query import LogQuery
from ..repository import Repositories


class Logbook:
    def __init__(self, db: Database) -> None:
        self.unit = UnitOfWork(db, Repositories)

    def feed_log(self, feed_id: int, query: LogQuery) -> list[LogRecord]:
        """Records of the feed, deleted or not; an id that never existed simply has none."""
        return self.unit.read(lambda repo: repo.logs.feed_log(feed_id, query))

    def subscription_log(self, sub_id: int, query: LogQuery) -> list[LogRecord]:
        def work(repo: Repositories) -> list[LogRecord]:
            subscription = repo.subscriptions.find(sub_id, include_deleted=True)
            if subscription is None:
                return []
            return repo.logs.subscription_log(sub_id, subscription.feed_id, query)

        return self.unit.read(work)
