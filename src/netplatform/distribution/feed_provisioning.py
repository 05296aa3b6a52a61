"""Provisioning of feeds and their subscriptions: the reference's order of checks, limits, the
owner rule and the framework feeds' permissions (:mod:`.access`).

Each operation is one transaction; the rows it changes are locked first (``FOR UPDATE``), so a
concurrent update, delete or create never slips between a check and the write. Endpoint
passwords are hashed before that transaction (argon2 is slow, :mod:`.endpoint_secrets`), so no
row waits on it. Blobs of queued deliveries dropped by a delete are removed after the commit
that forgets them.
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
from .endpoint_secrets import EndpointSecrets, stored_authorization
from .errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from .feed_model import Feed, FeedFields
from .repository import feeds as feed_rows
from .repository import subscriptions as subscription_rows
from .repository.counters import FEED_COUNTER, SUBSCRIPTION_COUNTER, next_id
from .repository.queue import drop_deliveries
from .subscription_model import Subscription, SubscriptionFields


class Provisioning:
    def __init__(self, db: Database, blobs: BlobStore, settings: Settings, secrets: EndpointSecrets) -> None:
        self.db = db
        self.secrets = secrets
        self.blobs = blobs
        self.node = settings.instance_name  # removes only its own blobs; other nodes sweep theirs
        self.max_feeds = settings.distribution_max_feeds
        self.max_subscriptions = settings.distribution_max_subscriptions
        self.framework_on = settings.distribution_authz

    # --- feeds -----------------------------------------------------------------------------

    def ensure_feed_capacity(self) -> None:
        with self.db.read() as session:
            self._check_feed_capacity(session)

    def _check_feed_capacity(self, session: Session) -> None:
        if feed_rows.count_live_feeds(session) >= self.max_feeds:
            raise Conflict("Cannot create feed; the maximum number of feeds has been configured.")

    def create_feed(self, fields: FeedFields, caller: Caller) -> Feed:
        assert fields.version is not None
        framework = caller.creates_framework_feed(fields.authz_instance, self.framework_on)
        hashes = self.secrets.hashes_for(fields.authorization, None)
        authorization = stored_authorization(fields.authorization, hashes, None)
        new = feed_rows.NewFeed(authorization, caller.identity, framework, now_ms())
        with self.db.write() as session:
            feed_id = next_id(session, FEED_COUNTER)  # holds the lock: creates queue here
            self._check_feed_capacity(session)
            if feed_rows.live_feed_named(session, fields.name, fields.version):
                raise BadRequest("This feed already exists in the database.")
            feed_rows.insert_feed(session, feed_id, fields, new)
            feed = self._existing_feed(session, feed_id)
        self.secrets.remember_stored(feed_id, fields.authorization, authorization)
        return feed

    def feed(self, feed_id: int) -> Feed:
        with self.db.read() as session:
            return self._existing_feed(session, feed_id)

    def feed_named(self, name: str, version: str) -> Feed:
        """The live feed of this name and version (the reference's ``GET /?name=&version=``), else 404."""
        with self.db.read() as session:
            feed = feed_rows.live_feed_by_name(session, name, version)
        if feed is None:
            raise NotFound(FEED_NOT_FOUND)
        return feed

    def feed_ids(
        self, *, name: str | None = None, publisher: str | None = None, subscriber: str | None = None
    ) -> list[int]:
        """Ids of the live feeds matching every filter given (all live feeds without one)."""
        with self.db.read() as session:
            return feed_rows.live_feed_ids(session, name=name, publisher=publisher, subscriber=subscriber)

    def feed_to_change(self, feed_id: int, caller: Caller) -> Feed:
        """The feed when it exists (else 404) and the caller may change it (else 403)."""
        feed = self.feed(feed_id)
        caller.ensure_may_change_feed(feed, "edit")
        return feed

    def feed_to_subscribe(self, feed_id: int, caller: Caller) -> Feed:
        """The feed when it exists (else 404) and the caller may subscribe to it (else 403)."""
        feed = self.feed(feed_id)
        caller.ensure_may_subscribe(feed)
        return feed

    def update_feed(self, feed_id: int, fields: FeedFields, caller: Caller) -> Feed:
        hashes = self.secrets.hashes_for(fields.authorization, self.feed(feed_id))
        with self.db.write() as session:
            feed = self._existing_feed(session, feed_id, lock=True)
            caller.ensure_may_change_feed(feed, "edit")
            feed.ensure_unchanged_identity(fields)
            # Left-out passwords keep the hash the locked row has now.
            authorization = stored_authorization(fields.authorization, hashes, feed.authorization)
            feed_rows.update_feed(session, feed_id, fields, authorization, now_ms())
            updated = self._existing_feed(session, feed_id)
        self.secrets.remember_stored(feed_id, fields.authorization, authorization)
        return updated

    def delete_feed(self, feed_id: int, caller: Caller) -> None:
        """The feed and its subscriptions go, with their queued deliveries; logs stay."""
        with self.db.write() as session:
            feed = self._existing_feed(session, feed_id, lock=True)
            caller.ensure_may_change_feed(feed, "delete")
            sub_ids = feed_rows.mark_feed_deleted(session, feed_id)
            unused_blobs = drop_deliveries(session, sub_ids, self.node)
        self._remove(unused_blobs)

    @staticmethod
    def _existing_feed(session: Session, feed_id: int, *, lock: bool = False) -> Feed:
        feed = feed_rows.find_feed(session, feed_id, lock=lock)
        if feed is None:
            raise NotFound(FEED_NOT_FOUND)
        return feed

    # --- subscriptions ---------------------------------------------------------------------

    def ensure_subscription_capacity(self) -> None:
        with self.db.read() as session:
            self._check_subscription_capacity(session)

    def _check_subscription_capacity(self, session: Session) -> None:
        if subscription_rows.count_live_subscriptions(session) >= self.max_subscriptions:
            raise Conflict(
                "Cannot create subscription; the maximum number of subscriptions has been configured."
            )

    def create_subscription(self, feed_id: int, fields: SubscriptionFields, caller: Caller) -> Subscription:
        with self.db.write() as session:
            sub_id = next_id(session, SUBSCRIPTION_COUNTER)
            caller.ensure_may_subscribe(self._existing_feed(session, feed_id, lock=True))
            self._check_subscription_capacity(session)
            subscription_rows.insert_subscription(session, sub_id, feed_id, fields, caller.identity, now_ms())
            return self._existing_subscription(session, sub_id)

    def subscription(self, sub_id: int) -> Subscription:
        with self.db.read() as session:
            return self._existing_subscription(session, sub_id)

    def subscription_ids(self, feed_id: int) -> list[int]:
        """Ids of the feed's live subscriptions, oldest first; 404 when the feed is absent or deleted."""
        with self.db.read() as session:
            self._existing_feed(session, feed_id)
            return subscription_rows.live_subscription_ids_of(session, feed_id)

    def subscription_to_change(self, sub_id: int, caller: Caller) -> Subscription:
        subscription = self.subscription(sub_id)
        caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
        return subscription

    def update_subscription(self, sub_id: int, fields: SubscriptionFields, caller: Caller) -> Subscription:
        with self.db.write() as session:
            subscription = self._existing_subscription(session, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            subscription_rows.update_subscription(session, sub_id, fields)
            return self._existing_subscription(session, sub_id)

    def delete_subscription(self, sub_id: int, caller: Caller) -> None:
        with self.db.write() as session:
            subscription = self._existing_subscription(session, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            subscription_rows.mark_subscription_deleted(session, sub_id)
            unused_blobs = drop_deliveries(session, [sub_id], self.node)
        self._remove(unused_blobs)

    @staticmethod
    def _existing_subscription(session: Session, sub_id: int, *, lock: bool = False) -> Subscription:
        subscription = subscription_rows.find_subscription(session, sub_id, lock=lock)
        if subscription is None:
            raise NotFound(SUBSCRIPTION_NOT_FOUND)
        return subscription

    def _remove(self, blob_names: Iterable[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)
