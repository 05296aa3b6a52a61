"""Publishers: each is an endpoint identity of its feed, so every change is a feed update there."""

from __future__ import annotations

from ..clock import wire_now
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from ..web.errors import BadRequest, NotFound
from .credentials import kept_or_new
from .feed_state import FeedState, Held
from .feeds import lookup_for_member
from .outbound.distribution.provisioning import DistributionProvisioner, new_publisher
from .schemas import DrPub, Status

CHANGEABLE = ("username", "svcLocationName")  # and userpwd, unless its mask comes back


def pub_not_found(pub_id: str) -> NotFound:
    return NotFound(f"DR_Pub with pubId = {pub_id} not found", fields="pubId")


def _with_feed_id(state: FeedState, held: Held[DrPub]) -> DrPub:
    return held.obj.model_copy(update={"feedId": state.feed.feedId})


def _find(state: FeedState, pub_id: str) -> Held[DrPub]:
    for held in state.pubs:
        if held.obj.pubId == pub_id and held.obj.status != Status.DELETED.value:
            return held
    raise pub_not_found(pub_id)


class Publishers:
    """The publishers of every feed; a change re-provisions the whole feed."""

    def __init__(self, db: Database, provisioner: DistributionProvisioner) -> None:
        self.unit = UnitOfWork(db, provisioner.feeds)
        self.provisioner = provisioner

    def all(self) -> list[DrPub]:
        states = self.unit.read(lambda feeds: feeds.states())
        return [pub for state in states for pub in state.assembled().pubs or []]

    def get(self, pub_id: str) -> DrPub:
        state = self.unit.read(lambda feeds: feeds.state_of(feeds.ref_of_pub(pub_id)))
        held = next((held for held in state.pubs if held.obj.pubId == pub_id), None) if state else None
        if state is None or held is None:
            raise pub_not_found(pub_id)
        return _with_feed_id(state, held)

    def create(self, body: DrPub) -> DrPub:
        ref = self.unit.read(lambda feeds: lookup_for_member(feeds, body, one_name_match=False).ref or 0)
        held = Held(new_publisher(body.svcLocationName, body.username, body.userpwd))
        state = self.provisioner.provision(ref, lambda state: state.pubs.append(held))
        if state is None:
            raise NotFound("feed not found", fields=f"feedId={body.feedId}")
        return _with_feed_id(state, held)

    def replace(self, pub_id: str, body: DrPub) -> DrPub:
        """New credentials or location for a publisher (fields absent from the body are kept, and
        so is the password when the body carries its mask)."""
        ref = self._feed_ref(pub_id)
        found: list[Held[DrPub]] = []

        def change(state: FeedState) -> None:
            held = _find(state, pub_id)
            for name in CHANGEABLE:
                if getattr(body, name) is not None:
                    setattr(held.obj, name, getattr(body, name))
            held.obj.userpwd = kept_or_new(body.userpwd, stored=held.obj.userpwd)
            held.obj.lastMod = wire_now()
            found.append(held)

        state = self.provisioner.provision(ref, change)
        if state is None or not found:
            raise pub_not_found(pub_id)
        return _with_feed_id(state, found[0])

    def delete(self, pub_id: str) -> None:
        ref = self._feed_ref(pub_id)

        def change(state: FeedState) -> None:
            held = _find(state, pub_id)
            live = [other for other in state.pubs if other.obj.status != Status.DELETED.value]
            if len(live) <= 1:
                raise BadRequest("Can't delete the last publisher of a feed", fields="pubId")
            held.obj.status = Status.DELETED
            held.obj.lastMod = wire_now()

        if self.provisioner.provision(ref, change) is None:
            raise pub_not_found(pub_id)

    def _feed_ref(self, pub_id: str) -> int:
        ref = self.unit.read(lambda feeds: feeds.ref_of_pub(pub_id))
        if ref is None:
            raise pub_not_found(pub_id)
        return ref
