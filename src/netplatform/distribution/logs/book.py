"""The logbook: the log records of a feed or subscription that match a query (spec 4.2 feedlog/sublog)."""

from __future__ import annotations

from ...store.db import Database
from ..repository import logs
from ..repository.subscriptions import find_subscription
from .query import LogQuery
from .records import LogRecord


class Logbook:
    def __init__(self, db: Database) -> None:
        self.db = db

    def feed_log(self, feed_id: int, query: LogQuery) -> list[LogRecord]:
        """Records of the feed, deleted or not; an id that never existed simply has none."""
        with self.db.read() as session:
            return logs.feed_log(session, feed_id, query)

    def subscription_log(self, sub_id: int, query: LogQuery) -> list[LogRecord]:
        with self.db.read() as session:
            subscription = find_subscription(session, sub_id, include_deleted=True)
            if subscription is None:
                return []
            return logs.subscription_log(session, sub_id, subscription.feed_id, query)
