"""Feeds, publishers and subscribers, provisioned into the file-distribution service (reference 7).

Every change follows one pattern, under the feed's lock (:func:`feed_lock`):

1. read the stored state and apply the requested change in memory;
2. call the distribution service with the result (no database transaction is open meanwhile);
3. store the outcome: VALID with what the service answered; INVALID with the reason when the
   service could not be reached (the change is kept here and retried by a later request); or,
   when the service refused the input, nothing at all and a 400 with its message.

DELETED marks a delete that is recorded here but not yet confirmed there (service unreachable);
repeating the delete retries it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ....clock import wire_now
from ....store.db import Database
from ....store.locks import LockNamespace, advisory_lock
from ....store.secrets import Sealer
from ....store.unit_of_work import UnitOfWork
from ....web.errors import BadRequest
from ...credentials import publisher_id, publisher_password, publisher_username
from ...feed_state import FeedState, Held
from ...repository.bus_settings import BusSettingsRepository
from ...repository.feeds import FeedRepository, feed_repository
from ...schemas import DrPub, DrSub, Feed, Status
from .client import DistributionClient, Rejected, Unreachable
from .documents import accept_feed, accept_subscription, feed_document, subscription_document
from .routing import SiteRouting

Change = Callable[[FeedState], None]

NOT_PROVISIONED = "the feed is not provisioned in the distribution service yet"

log = logging.getLogger(__name__)


@contextmanager
def feed_lock(database: Database, ref: int) -> Iterator[None]:
    """Serialise the provisioning of one feed (a sequence of HTTP calls and short transactions).

    No database transaction is held while the distribution service is called (on SQLite that
    would block the very service being called); the lock holds across every instance.
    """
    with advisory_lock(database, LockNamespace.BUS_FEEDS, ref):
        yield


def _stamp(obj: Feed | DrPub | DrSub, status: Status, reason: str | None = None) -> None:
    obj.status = status
    obj.statusReason = reason
    obj.lastMod = wire_now()


def _name_publisher(pub: DrPub, feed_id: str | None) -> None:
    """A publisher gets its pubId as soon as its feed has an id (so it can be addressed, and retried)."""
    if pub.pubId is None and feed_id is not None:
        pub.pubId = publisher_id(feed_id)


class DistributionProvisioner:
    """Pushes feeds and their members to the distribution service and stores the outcome."""

    def __init__(self, database: Database, client: DistributionClient, sealer: Sealer) -> None:
        self.database = database
        self.feeds = feed_repository(sealer)  # the members' credentials sealed at rest
        self.unit: UnitOfWork[FeedRepository] = UnitOfWork(database, self.feeds)
        self.settings = UnitOfWork(database, BusSettingsRepository)
        self.client = client
        self.routing = SiteRouting(database, client)

    def url(self) -> str:
        """The distribution service's provisioning URL (the bus settings' ``drProvUrl``)."""
        return self.settings.read(lambda settings: settings.get().drProvUrl or "")

    def _load(self, ref: int) -> FeedState | None:
        return self.unit.read(lambda feeds: feeds.load_state(ref))

    def _store(self, state: FeedState) -> None:
        self.unit.write(lambda feeds: feeds.save_state(state), retry=False)

    def _drop(self, ref: int) -> None:
        self.unit.write(lambda feeds: feeds.delete_feed(ref), retry=False)

    # --- the feed itself -------------------------------------------------------------------------

    def provision(self, ref: int, change: Change, *, new: bool = False) -> FeedState | None:
        """Apply ``change`` to the stored feed and push the result; None if the feed is gone."""
        with feed_lock(self.database, ref):
            state = self._load(ref)
            if state is None:
                return None
            change(state)
            url = self.url()
            try:
                answer = self._push_feed(url, state)
            except Rejected as rejected:
                if new:
                    self._drop(ref)
                raise BadRequest(rejected.message, fields="feed") from None
            except Unreachable as failure:
                self._feed_failed(state, failure.message)
                return state
            self._feed_accepted(url, state, answer)
            self._reconcile_subs(url, state)
            return state

    def _push_feed(self, url: str, state: FeedState) -> dict[str, object]:
        live = [held.obj for held in state.pubs if held.obj.status != Status.DELETED.value]
        document = feed_document(state.feed, live)
        owner = state.feed.owner or ""
        if state.feed.feedId is None:
            return self.client.create_feed(url, document, owner)
        return self.client.update_feed(url, state.feed.feedId, document, owner)

    def _feed_failed(self, state: FeedState, reason: str) -> None:
        _stamp(state.feed, Status.INVALID, reason)
        for pub in state.pubs:
            if pub.obj.status != Status.DELETED.value:
                _name_publisher(pub.obj, state.feed.feedId)
                _stamp(pub.obj, Status.INVALID, reason)
        for sub in state.subs:
            if sub.obj.status != Status.DELETED.value and sub.obj.subId is None:
                _stamp(sub.obj, Status.INVALID, NOT_PROVISIONED)
        self._store(state)

    def _feed_accepted(self, url: str, state: FeedState, answer: dict[str, object]) -> None:
        feed = state.feed
        accept_feed(feed, answer)
        _stamp(feed, Status.VALID)
        kept: list[Held[DrPub]] = []
        for held in state.pubs:
            if held.obj.status == Status.DELETED.value:
                if held.ref is not None:
                    state.dropped_pubs.append(held.ref)
                continue
            _name_publisher(held.obj, feed.feedId)
            _stamp(held.obj, Status.VALID)
            kept.append(held)
        state.pubs = kept
        self._route_publishers(url, state)
        self._store(state)

    def _route_publishers(self, url: str, state: FeedState) -> None:
        """Each publisher's ingress route and publishURL; one that cannot be routed is INVALID."""
        pubs = [held.obj for held in state.pubs]
        for index, reason in self.routing.route_publishers(url, state.feed, pubs).items():
            _stamp(pubs[index], Status.INVALID, reason)

    # --- subscriptions -------------------------------------------------------------------------

    def _send_sub(self, url: str, state: FeedState, held: Held[DrSub]) -> None:
        """Create, update or delete one subscriber there and take in the answer (raises on failure)."""
        sub = held.obj
        if sub.status == Status.DELETED.value:
            if sub.subId is not None:
                self.client.delete_subscription(url, sub.subId)
            state.subs.remove(held)
            if held.ref is not None:
                state.dropped_subs.append(held.ref)
            return
        document = subscription_document(sub)
        if sub.subId is None:
            answer = self.client.create_subscription(url, state.feed.feedId or "", document)
        else:
            answer = self.client.update_subscription(url, sub.subId, document)
        accept_subscription(sub, answer)
        self.routing.bind(url, sub)
        _stamp(sub, Status.VALID)

    def _sub_failed(self, held: Held[DrSub], reason: str) -> None:
        """INVALID with the reason; a pending delete stays DELETED (repeat the delete to retry)."""
        deleting = held.obj.status == Status.DELETED.value
        _stamp(held.obj, Status.DELETED if deleting else Status.INVALID, reason)

    def _reconcile_subs(self, url: str, state: FeedState) -> None:
        """After the feed is in place: bring every subscriber that is not VALID in line there."""
        for held in list(state.subs):
            if held.obj.status == Status.VALID.value:
                continue
            try:
                self._send_sub(url, state, held)
            except (Unreachable, Rejected) as failure:
                self._sub_failed(held, failure.message)
            self._store(state)

    def provision_sub(self, ref: int, change: Callable[[FeedState], Held[DrSub]]) -> Held[DrSub] | None:
        """Apply a change that yields one subscriber, push it there, store the outcome.

        A subscriber the distribution service refuses is not stored (400); one it cannot be
        told about is stored INVALID (or DELETED, for a delete) with the reason.
        """
        with feed_lock(self.database, ref):
            state = self._load(ref)
            if state is None:
                return None
            held = change(state)
            if state.feed.feedId is None and held.obj.status != Status.DELETED.value:
                _stamp(held.obj, Status.INVALID, NOT_PROVISIONED)
            else:
                try:
                    self._send_sub(self.url(), state, held)
                except Unreachable as failure:
                    self._sub_failed(held, failure.message)
                except Rejected as rejected:
                    raise BadRequest(rejected.message, fields="subscription") from None
            self._store(state)
            return held

    # --- sites ------------------------------------------------------------------------------------

    def reroute(self, sites: set[str]) -> None:
        """The nodes of ``sites`` changed: provision again every feed with a member there, so that
        routes and publishURLs follow (a feed the service refuses now is logged and left as is)."""
        states = self.unit.read(lambda feeds: feeds.states())
        refs = [
            state.ref
            for state in states
            if state.feed.status != Status.DELETED.value and _members_at(state, sites)
        ]

        def resend_subs(state: FeedState) -> None:
            for held in state.subs:
                if held.obj.status == Status.VALID.value and held.obj.svcLocationName in sites:
                    held.obj.status = Status.NEW  # re-sent (and re-bound) by _reconcile_subs

        for ref in refs:
            try:
                self.provision(ref, resend_subs)
            except BadRequest as refused:
                log.warning("feed %s not provisioned again after a node change: %s", ref, refused)

    # --- deleting a feed -----------------------------------------------------------------------

    def remove_feed(self, ref: int) -> None:
        """Delete the subscriptions, then the feed, there; then here. Unreachable: keep it DELETED."""
        with feed_lock(self.database, ref):
            state = self._load(ref)
            if state is None:
                return
            url = self.url()
            owner = state.feed.owner or ""
            try:
                for held in list(state.subs):
                    if held.obj.subId is not None:
                        self.client.delete_subscription(url, held.obj.subId)
                    state.subs.remove(held)
                    if held.ref is not None:
                        state.dropped_subs.append(held.ref)
                if state.feed.feedId is not None:
                    self.client.delete_feed(url, state.feed.feedId, owner)
            except (Unreachable, Rejected) as failure:
                _stamp(state.feed, Status.DELETED, failure.message)
                self._store(state)
                return
            self._drop(ref)


def _members_at(state: FeedState, sites: set[str]) -> bool:
    locations = [held.obj.svcLocationName for held in state.pubs]
    locations += [held.obj.svcLocationName for held in state.subs]
    return any(site in sites for site in locations)


def new_publisher(location: str | None, username: str | None = None, password: str | None = None) -> DrPub:
    return DrPub(
        svcLocationName=location,
        username=username or publisher_username(),
        userpwd=password or publisher_password(),
        status=Status.NEW,
        lastMod=wire_now(),
    )
