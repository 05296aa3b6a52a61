"""Feed and subscription operations: the reference's order of checks, limits and owner rule.

Each operation is one transaction; the rows it changes are locked first (``FOR UPDATE``), so a
concurrent update, delete or create never slips between a check and the write. Blobs of queued
deliveries dropped by a delete are removed after the commit that forgets them.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from ..clock import now_ms
from ..settings import Settings
from ..store.blobs import BlobStore
from ..store.db import Database
from ..web.errors import BadRequest, Conflict, NotFound
from .access import Caller
from .feeds import Feed, FeedFields
from .repository import provisioning as repo
from .repository.queue import drop_deliveries
from .subscriptions import Subscription, SubscriptionFields

FEED_NOT_FOUND = "Missing or bad feed number."
SUBSCRIPTION_NOT_FOUND = "Missing or bad subscription number."


class Provisioning:
    def __init__(self, db: Database, blobs: BlobStore, settings: Settings) -> None:
        self.db = db
        self.blobs = blobs
        self.max_feeds = settings.distribution_max_feeds
        self.max_subscriptions = settings.distribution_max_subscriptions

    # --- feeds -----------------------------------------------------------------------------

    def ensure_feed_capacity(self) -> None:
        with self.db.read() as session:
            self._check_feed_capacity(session)

    def _check_feed_capacity(self, session: Session) -> None:
        if repo.count_live_feeds(session) >= self.max_feeds:
            raise Conflict("Cannot create feed; the maximum number of feeds has been configured.")

    def create_feed(self, fields: FeedFields, caller: Caller) -> Feed:
        assert fields.version is not None
        with self.db.write() as session:
            feed_id = repo.next_id(session, repo.FEED_COUNTER)  # holds the lock: creates queue here
            self._check_feed_capacity(session)
            if repo.live_feed_named(session, fields.name, fields.version):
                raise BadRequest("This feed already exists in the database.")
            repo.insert_feed(session, feed_id, fields, caller.identity, now_ms())
            return self._existing_feed(session, feed_id)

    def feed(self, feed_id: int) -> Feed:
        with self.db.read() as session:
            return self._existing_feed(session, feed_id)

    def feed_to_change(self, feed_id: int, caller: Caller) -> Feed:
        """The feed when it exists (else 404) and the caller may change it (else 403)."""
        feed = self.feed(feed_id)
        caller.ensure_may_manage(feed.publisher, feed.groupid)
        return feed

    def update_feed(self, feed_id: int, fields: FeedFields, caller: Caller) -> Feed:
        with self.db.write() as session:
            feed = self._existing_feed(session, feed_id, lock=True)
            caller.ensure_may_manage(feed.publisher, feed.groupid)
            feed.ensure_unchanged_identity(fields)
            repo.update_feed(session, feed_id, fields, now_ms())
            return self._existing_feed(session, feed_id)

    def delete_feed(self, feed_id: int, caller: Caller) -> None:
        """The feed and its subscriptions go, with their queued deliveries; logs stay."""
        with self.db.write() as session:
            feed = self._existing_feed(session, feed_id, lock=True)
            caller.ensure_may_manage(feed.publisher, feed.groupid)
            sub_ids = repo.mark_feed_deleted(session, feed_id)
            unused_blobs = drop_deliveries(session, sub_ids)
        self._remove(unused_blobs)

    @staticmethod
    def _existing_feed(session: Session, feed_id: int, *, lock: bool = False) -> Feed:
        feed = repo.find_feed(session, feed_id, lock=lock)
        if feed is None:
            raise NotFound(FEED_NOT_FOUND)
        return feed

    # --- subscriptions ---------------------------------------------------------------------

    def ensure_subscription_capacity(self) -> None:
        with self.db.read() as session:
            self._check_subscription_capacity(session)

    def _check_subscription_capacity(self, session: Session) -> None:
        if repo.count_live_subscriptions(session) >= self.max_subscriptions:
            raise Conflict(
                "Cannot create subscription; the maximum number of subscriptions has been configured."
            )

    def create_subscription(self, feed_id: int, fields: SubscriptionFields, caller: Caller) -> Subscription:
        with self.db.write() as session:
            sub_id = repo.next_id(session, repo.SUBSCRIPTION_COUNTER)
            self._existing_feed(session, feed_id, lock=True)
            self._check_subscription_capacity(session)
            repo.insert_subscription(session, sub_id, feed_id, fields, caller.identity, now_ms())
            return self._existing_subscription(session, sub_id)

    def subscription(self, sub_id: int) -> Subscription:
        with self.db.read() as session:
            return self._existing_subscription(session, sub_id)

    def subscription_to_change(self, sub_id: int, caller: Caller) -> Subscription:
        subscription = self.subscription(sub_id)
        caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
        return subscription

    def update_subscription(self, sub_id: int, fields: SubscriptionFields, caller: Caller) -> Subscription:
        with self.db.write() as session:
            subscription = self._existing_subscription(session, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            repo.update_subscription(session, sub_id, fields)
            return self._existing_subscription(session, sub_id)

    def delete_subscription(self, sub_id: int, caller: Caller) -> None:
        with self.db.write() as session:
            subscription = self._existing_subscription(session, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            repo.mark_subscription_deleted(session, sub_id)
            unused_blobs = drop_deliveries(session, [sub_id])
        self._remove(unused_blobs)

    @staticmethod
    def _existing_subscription(session: Session, sub_id: int, *, lock: bool = False) -> Subscription:
        subscription = repo.find_subscription(session, sub_id, lock=lock)
        if subscription is None:
            raise NotFound(SUBSCRIPTION_NOT_FOUND)
        return subscription

    def _remove(self, blob_names: Iterable[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)
