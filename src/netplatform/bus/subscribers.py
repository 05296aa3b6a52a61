"""Subscribers: each is a subscription of the distribution service to its feed."""

from __future__ import annotations

from collections.abc import Callable

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import NotFound
from .checks import require
from .credentials import MASK
from .feed_state import FeedState, Held
from .feeds import SUB_FIELDS, held_feed, lookup_for_member, new_subscriber
from .outbound.distribution.provisioning import DistributionProvisioner
from .repository.feeds import FeedRepository
from .schemas import DrSub, Status

SubChange = Callable[[FeedState], Held[DrSub]]


def sub_not_found(sub_id: str) -> NotFound:
    return NotFound(f"subId {sub_id} not found", fields="subId")


def _with_feed_id(feed_id: str | None, held: Held[DrSub]) -> DrSub:
    return held.obj.model_copy(update={"feedId": feed_id})


def _find(state: FeedState, sub_id: str) -> Held[DrSub]:
    for held in state.subs:
        if held.obj.subId == sub_id and held.obj.status != Status.DELETED.value:
            return held
    raise sub_not_found(sub_id)


def _retry_or_add(state: FeedState, body: DrSub) -> Held[DrSub]:
    """A subscriber that failed before with the same deliveryURL is retried; else a new one is added."""
    fresh = new_subscriber(body)
    for held in state.subs:
        sub = held.obj
        if sub.subId is None and sub.status == Status.INVALID.value and sub.deliveryURL == body.deliveryURL:
            held.obj = fresh
            return held
    held = Held(fresh)
    state.subs.append(held)
    return held


class Subscribers:
    """The subscribers of every feed; each change is pushed there as one subscription."""

    def __init__(self, db: Database, provisioner: DistributionProvisioner) -> None:
        self.unit = UnitOfWork(db, provisioner.feeds)
        self.provisioner = provisioner

    def all(self) -> list[DrSub]:
        states = self.unit.read(lambda feeds: feeds.states())
        return [sub for state in states for sub in state.assembled().subs or []]

    def get(self, sub_id: str) -> DrSub:
        state = self.unit.read(lambda feeds: feeds.state_of(feeds.ref_of_sub(sub_id)))
        held = next((held for held in state.subs if held.obj.subId == sub_id), None) if state else None
        if state is None or held is None:
            raise sub_not_found(sub_id)
        return _with_feed_id(state.feed.feedId, held)

    def create(self, body: DrSub) -> DrSub:
        """A new subscriber; a repeated POST for a subscriber that failed before retries that one."""
        ref = self.unit.read(lambda feeds: lookup_for_member(feeds, body, one_name_match=True).ref or 0)
        missing = NotFound("feed not found", fields=f"feedId={body.feedId}")
        return self._provisioned(ref, lambda state: _retry_or_add(state, body), missing)

    def replace(self, sub_id: str, body: DrSub) -> DrSub:
        require(body.feedId, "feedId")
        require(body.svcLocationName, "svcLocationName")

        def feed_of_sub(feeds: FeedRepository) -> int:
            ref = held_feed(feeds, body.feedId or "", live=True).ref or 0
            if feeds.ref_of_sub(sub_id) != ref:
                raise sub_not_found(sub_id)
            return ref

        ref = self.unit.read(feed_of_sub)

        def change(state: FeedState) -> Held[DrSub]:
            held = _find(state, sub_id)
            stored = held.obj.userpwd
            for name in SUB_FIELDS:
                setattr(held.obj, name, getattr(body, name))
            if body.userpwd == MASK:  # sent back as an answer showed it: the password stays
                held.obj.userpwd = stored
            held.obj.status, held.obj.lastMod = Status.NEW, wire_now()
            return held

        return self._provisioned(ref, change, sub_not_found(sub_id))

    def delete(self, sub_id: str) -> None:
        ref = self.unit.read(lambda feeds: feeds.ref_of_sub(sub_id))
        if ref is None:
            raise sub_not_found(sub_id)

        def change(state: FeedState) -> Held[DrSub]:
            held = next((held for held in state.subs if held.obj.subId == sub_id), None)
            if held is None:
                raise sub_not_found(sub_id)
            held.obj.status, held.obj.lastMod = Status.DELETED, wire_now()
            return held

        if self.provisioner.provision_sub(ref, change) is None:
            raise sub_not_found(sub_id)

    def _provisioned(self, ref: int, change: SubChange, missing: NotFound) -> DrSub:
        held = self.provisioner.provision_sub(ref, change)
        if held is None:
            raise missing
        state = self.unit.read(lambda feeds: feeds.load_state(ref))
        return _with_feed_id(state.feed.feedId if state else None, held)
