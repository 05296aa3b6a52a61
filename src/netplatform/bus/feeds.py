"""Feeds: create (or retry), read, filter, update and delete; changes go through the provisioner.

Also the lookups publishers and subscribers share: the feed a new member names, by id or name.
"""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import Conflict, NotFound
from .checks import require, require_all
from .feed_state import FeedState, Held
from .outbound.distribution.provisioning import DistributionProvisioner, new_publisher
from .repository.feeds import FeedRepository, feed_name_condition
from .repository.rows import Duplicate
from .schemas import DrPub, DrSub, Feed, Status

REQUIRED = ("feedName", "feedVersion", "owner", "asprClassification")
DEFAULT_PUB_LOCATION = "aCentralLocation"
UNSPECIFIED_LOCATION = "notSpecified"
SUB_FIELDS = (
    "svcLocationName",
    "deliveryURL",
    "username",
    "userpwd",
    "use100",
    "suspended",
    "privilegedSubscriber",
    "decompress",
    "guaranteedDelivery",
    "guaranteedSequence",
)
RETRYABLE = (Status.INVALID.value, Status.DELETED.value)


def feed_not_found(feed_id: str) -> NotFound:
    return NotFound("feed not found", fields=f"feedId={feed_id}")


def new_subscriber(body: DrSub) -> DrSub:
    values = {name: getattr(body, name) for name in SUB_FIELDS}
    return DrSub(**values, status=Status.NEW, lastMod=wire_now())


def held_feed(feeds: FeedRepository, feed_id: str, *, live: bool = False) -> Held[Feed]:
    """The feed with this distribution id; ``live``: a feed being deleted counts as absent."""
    found = feeds.by_id(feed_id)
    if found is None or (live and found.obj.status == Status.DELETED.value):
        raise feed_not_found(feed_id)
    return found


def lookup_for_member(feeds: FeedRepository, body: DrPub | DrSub, *, one_name_match: bool) -> Held[Feed]:
    """The feed a new publisher or subscriber names: by feedId, else by feedName (+feedVersion)."""
    if body.feedId is None:
        name = require(body.feedName, "feedName")
        found = [
            held for held in feeds.named(name, body.feedVersion) if held.obj.status != Status.DELETED.value
        ]
        if not found:
            raise NotFound("feed not found", fields="feedName")
        if one_name_match and len(found) > 1:
            raise Conflict(
                f"feedName {name} matches {len(found)} feeds; give feedVersion or feedId", fields="feedName"
            )
        require(body.svcLocationName, "svcLocationName")
        return found[0]
    require(body.svcLocationName, "svcLocationName")
    return held_feed(feeds, body.feedId, live=True)


def _new_state(feeds: FeedRepository, body: Feed) -> FeedState:
    feed = Feed(
        feedName=body.feedName,
        feedVersion=body.feedVersion,
        feedDescription=body.feedDescription,
        owner=body.owner,
        asprClassification=body.asprClassification,
        formatUuid=body.formatUuid,
        suspended=bool(body.suspended),
        status=Status.NEW,
        lastMod=wire_now(),
    )
    if body.pubs:
        pubs = [
            new_publisher(p.svcLocationName or UNSPECIFIED_LOCATION, p.username, p.userpwd) for p in body.pubs
        ]
    else:
        pubs = [new_publisher(feeds.first_central_location() or DEFAULT_PUB_LOCATION)]
    subs = [new_subscriber(sub) for sub in body.subs or []]
    return FeedState(0, feed, [Held(pub) for pub in pubs], [Held(sub) for sub in subs])


class Feeds:
    """Feeds here and in the distribution service: reads are local, changes go through the provisioner."""

    def __init__(self, db: Database, provisioner: DistributionProvisioner) -> None:
        self.unit = UnitOfWork(db, provisioner.feeds)
        self.provisioner = provisioner

    def find(self, name: str | None, version: str | None, match: str | None) -> list[Feed]:
        states = self.unit.read(lambda feeds: feeds.states(feed_name_condition(name, version, match)))
        return [state.assembled() for state in states]

    def get(self, feed_id: str) -> Feed:
        state = self.unit.read(lambda feeds: feeds.load_state(held_feed(feeds, feed_id).ref or 0))
        if state is None:
            raise feed_not_found(feed_id)
        return state.assembled()

    def create(self, body: Feed, use_existing: bool) -> tuple[Feed, bool]:
        """A new feed, or a retry of one whose provisioning failed, or (useExisting) the stored
        one; and whether this call made it (its answer alone shows the credentials it holds)."""
        require_all(body, REQUIRED)
        name, version = body.feedName or "", body.feedVersion or ""
        conflict = Conflict("feed already exists", fields=f"feedName={name} + feedVersion={version}")

        def create(feeds: FeedRepository) -> tuple[Held[Feed] | None, Feed | None]:
            """The feed to provision, or (useExisting) the stored one to answer as it is."""
            found = feeds.find(name, version)
            if found is not None and found.obj.status not in RETRYABLE:
                if not use_existing:
                    raise conflict
                state = feeds.load_state(found.ref or 0)
                return None, state.assembled() if state else found.obj
            if found is None:
                try:
                    feeds.insert_feed(_new_state(feeds, body))
                except Duplicate:
                    raise conflict from None
                found = feeds.find(name, version)
            return found, None

        found, existing = self.unit.write(create, retry=False)
        if existing is not None:
            return existing, False
        assert found is not None and found.ref is not None
        is_new = found.obj.status == Status.NEW.value
        provisioned = self.provisioner.provision(found.ref, lambda state: None, new=is_new)
        if provisioned is None:
            raise NotFound("feed not found", fields="feedName")
        return provisioned.assembled(), True

    def update(self, feed_id: str, body: Feed) -> Feed:
        """Copy feedDescription and formatUuid, and suspended when present; push the feed."""
        ref = self.unit.read(lambda feeds: held_feed(feeds, feed_id, live=True).ref or 0)
        given = body.model_fields_set

        def change(state: FeedState) -> None:
            for name in ("feedDescription", "formatUuid"):
                if name in given:
                    setattr(state.feed, name, getattr(body, name))
            if body.suspended is not None:
                state.feed.suspended = body.suspended
            state.feed.lastMod = wire_now()

        state = self.provisioner.provision(ref, change)
        if state is None:
            raise feed_not_found(feed_id)
        return state.assembled()

    def delete(self, feed_id: str) -> None:
        ref = self.unit.read(lambda feeds: held_feed(feeds, feed_id).ref or 0)
        self.provisioner.remove_feed(ref)
