"""Provisioning of feeds and their subscriptions: the reference's order of checks, limits, the
owner rule and the framework feeds' permissions (:mod:`.access`).

Each operation is one transaction; the rows it changes are locked first (``FOR UPDATE``), so a
concurrent update, delete or create never slips between a check and the write. Endpoint
passwords are hashed before that transaction (argon2 is slow, :mod:`.endpoint_secrets`), so no
row waits on it. Blobs of queued deliveries dropped by a delete are removed after the commit
that forgets them. Delivery passwords are sealed before they reach a row (:mod:`.subscription_model`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..clock import now_ms
from ..settings import Settings
from ..store.blobs import BlobStore
from ..store.db import Database
from ..store.secrets import Sealer
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, Conflict, NotFound
from .access import Caller
from .endpoint_secrets import EndpointSecrets, stored_authorization
from .errors import FEED_NOT_FOUND, SUBSCRIPTION_NOT_FOUND
from .feed_model import Feed, FeedAuthorization, FeedFields
from .repository import Repositories
from .repository.counters import FEED_COUNTER, SUBSCRIPTION_COUNTER
from .repository.feeds import FeedRepository, NewFeed
from .repository.subscriptions import SubscriptionRepository
from .subscription_model import RequestedFields, Subscription, stored_fields


class Provisioning:
    def __init__(
        self, db: Database, blobs: BlobStore, settings: Settings, secrets: EndpointSecrets, sealer: Sealer
    ) -> None:
        self.unit = UnitOfWork(db, Repositories)
        self.secrets = secrets
        self.sealer = sealer
        self.blobs = blobs
        self.node = settings.instance_name  # removes only its own blobs; other nodes sweep theirs
        self.max_feeds = settings.distribution_max_feeds
        self.max_subscriptions = settings.distribution_max_subscriptions
        self.framework_on = settings.distribution_authz

    # --- feeds -----------------------------------------------------------------------------

    def ensure_feed_capacity(self) -> None:
        self.unit.read(lambda repo: self._check_feed_capacity(repo.feeds))

    def _check_feed_capacity(self, feeds: FeedRepository) -> None:
        if feeds.count_live() >= self.max_feeds:
            raise Conflict("Cannot create feed; the maximum number of feeds has been configured.")

    def create_feed(self, fields: FeedFields, caller: Caller) -> Feed:
        assert fields.version is not None
        version = fields.version
        framework = caller.creates_framework_feed(fields.authz_instance, self.framework_on)
        hashes = self.secrets.hashes_for(fields.authorization, None)
        authorization = stored_authorization(fields.authorization, hashes, None)
        new = NewFeed(authorization, caller.identity, framework, now_ms())

        def work(repo: Repositories) -> Feed:
            feed_id = repo.counters.next_id(FEED_COUNTER)  # holds the lock: creates queue here
            self._check_feed_capacity(repo.feeds)
            if repo.feeds.live_named(fields.name, version):
                raise BadRequest("This feed already exists in the database.")
            repo.feeds.insert(feed_id, fields, new)
            return _existing_feed(repo.feeds, feed_id)

        feed = self.unit.write(work, retry=False)
        self.secrets.remember_stored(feed.id, fields.authorization, authorization)
        return feed

    def feed(self, feed_id: int) -> Feed:
        return self.unit.read(lambda repo: _existing_feed(repo.feeds, feed_id))

    def feed_named(self, name: str, version: str) -> Feed:
        """The live feed of this name and version (the reference's ``GET /?name=&version=``), else 404."""
        feed = self.unit.read(lambda repo: repo.feeds.live_by_name(name, version))
        if feed is None:
            raise NotFound(FEED_NOT_FOUND)
        return feed

    def feed_ids(
        self, *, name: str | None = None, publisher: str | None = None, subscriber: str | None = None
    ) -> list[int]:
        """Ids of the live feeds matching every filter given (all live feeds without one)."""
        return self.unit.read(
            lambda repo: repo.feeds.live_ids(name=name, publisher=publisher, subscriber=subscriber)
        )

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

        def work(repo: Repositories) -> tuple[Feed, FeedAuthorization]:
            feed = _existing_feed(repo.feeds, feed_id, lock=True)
            caller.ensure_may_change_feed(feed, "edit")
            feed.ensure_unchanged_identity(fields)
            # Left-out passwords keep the hash the locked row has now.
            authorization = stored_authorization(fields.authorization, hashes, feed.authorization)
            repo.feeds.update(feed_id, fields, authorization, now_ms())
            return _existing_feed(repo.feeds, feed_id), authorization

        updated, authorization = self.unit.write(work, retry=False)
        self.secrets.remember_stored(feed_id, fields.authorization, authorization)
        return updated

    def delete_feed(self, feed_id: int, caller: Caller) -> None:
        """The feed and its subscriptions go, with their queued deliveries; logs stay."""

        def work(repo: Repositories) -> list[str]:
            feed = _existing_feed(repo.feeds, feed_id, lock=True)
            caller.ensure_may_change_feed(feed, "delete")
            sub_ids = repo.feeds.mark_deleted(feed_id)
            return repo.queue.drop_deliveries(sub_ids, self.node)

        self._remove(self.unit.write(work, retry=False))

    # --- subscriptions ---------------------------------------------------------------------

    def ensure_subscription_capacity(self) -> None:
        self.unit.read(lambda repo: self._check_subscription_capacity(repo.subscriptions))

    def _check_subscription_capacity(self, subscriptions: SubscriptionRepository) -> None:
        if subscriptions.count_live() >= self.max_subscriptions:
            raise Conflict(
                "Cannot create subscription; the maximum number of subscriptions has been configured."
            )

    def create_subscription(self, feed_id: int, fields: RequestedFields, caller: Caller) -> Subscription:
        clear = fields.delivery.password
        assert clear is not None  # a create never keeps a password (parse_subscription)
        stored = stored_fields(fields, self.sealer.seal(clear))

        def work(repo: Repositories) -> Subscription:
            sub_id = repo.counters.next_id(SUBSCRIPTION_COUNTER)
            caller.ensure_may_subscribe(_existing_feed(repo.feeds, feed_id, lock=True))
            self._check_subscription_capacity(repo.subscriptions)
            repo.subscriptions.insert(sub_id, feed_id, stored, caller.identity, now_ms())
            return _existing_subscription(repo.subscriptions, sub_id)

        return self.unit.write(work, retry=False)

    def subscription(self, sub_id: int) -> Subscription:
        return self.unit.read(lambda repo: _existing_subscription(repo.subscriptions, sub_id))

    def subscription_ids(self, feed_id: int) -> list[int]:
        """Ids of the feed's live subscriptions, oldest first; 404 when the feed is absent or deleted."""

        def work(repo: Repositories) -> list[int]:
            _existing_feed(repo.feeds, feed_id)
            return repo.subscriptions.live_ids_of(feed_id)

        return self.unit.read(work)

    def subscription_to_change(self, sub_id: int, caller: Caller) -> Subscription:
        subscription = self.subscription(sub_id)
        caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
        return subscription

    def update_subscription(self, sub_id: int, fields: RequestedFields, caller: Caller) -> Subscription:
        """Replace the updatable fields; a delivery password sent back as the mask (None) keeps
        the one the locked row has."""
        clear = fields.delivery.password
        sealed = None if clear is None else self.sealer.seal(clear)

        def work(repo: Repositories) -> Subscription:
            subscription = _existing_subscription(repo.subscriptions, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            kept = subscription.fields.delivery.sealed_password
            repo.subscriptions.update(sub_id, stored_fields(fields, sealed or kept))
            return _existing_subscription(repo.subscriptions, sub_id)

        return self.unit.write(work, retry=False)

    def delete_subscription(self, sub_id: int, caller: Caller) -> None:
        def work(repo: Repositories) -> list[str]:
            subscription = _existing_subscription(repo.subscriptions, sub_id, lock=True)
            caller.ensure_may_manage(subscription.subscriber, subscription.fields.groupid)
            repo.subscriptions.mark_deleted(sub_id)
            return repo.queue.drop_deliveries([sub_id], self.node)

        self._remove(self.unit.write(work, retry=False))

    def seal_clear_passwords(self) -> int:
        """Seal the delivery passwords an earlier version stored in clear; how many. Run at each
        start: after an upgrade it seals them once, later its one query finds none. Each row is
        changed only if it still holds the clear value read (instances starting together)."""
        clear = self.unit.read(lambda repo: repo.subscriptions.clear_passwords())
        if not clear:
            return 0
        sealed = [(sub_id, stored, self.sealer.seal(stored)) for sub_id, stored in clear]

        def work(repo: Repositories) -> None:
            for sub_id, stored, sealed_password in sealed:
                repo.subscriptions.replace_password(sub_id, stored, sealed_password)

        self.unit.write(work)
        return len(sealed)

    def _remove(self, blob_names: Iterable[str]) -> None:
        for name in blob_names:
            self.blobs.delete(name)


def _existing_feed(feeds: FeedRepository, feed_id: int, *, lock: bool = False) -> Feed:
    feed = feeds.find(feed_id, lock=lock)
    if feed is None:
        raise NotFound(FEED_NOT_FOUND)
    return feed


def _existing_subscription(
    subscriptions: SubscriptionRepository, sub_id: int, *, lock: bool = False
) -> Subscription:
    subscription = subscriptions.find(sub_id, lock=lock)
    if subscription is None:
        raise NotFound(SUBSCRIPTION_NOT_FOUND)
    return subscription
