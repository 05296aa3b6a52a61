"""Publishers: each is an endpoint identity of its feed, so every change is a feed update there."""

from __future__ import annotations

from ..clock import wire_now
from ..web.errors import BadRequest, NotFound
from . import repository as repo
from .feeds import lookup_for_member
from .provisioning import Provisioner, new_publisher
from .repository import FeedState, Held
from .schemas import DrPub, Status


def pub_not_found(pub_id: str) -> NotFound:
    return NotFound(f"DR_Pub with pubId = {pub_id} not found", fields="pubId")


def _with_feed_id(state: FeedState, held: Held[DrPub]) -> DrPub:
    return held.obj.model_copy(update={"feedId": state.feed.feedId})


def list_pubs(provisioner: Provisioner) -> list[DrPub]:
    with provisioner.database.read() as session:
        return [pub for state in repo.feed_states(session) for pub in state.assembled().pubs or []]


def _feed_ref(provisioner: Provisioner, pub_id: str) -> int:
    with provisioner.database.read() as session:
        ref = repo.feed_ref_of_pub(session, pub_id)
    if ref is None:
        raise pub_not_found(pub_id)
    return ref


def _find(state: FeedState, pub_id: str) -> Held[DrPub]:
    for held in state.pubs:
        if held.obj.pubId == pub_id and held.obj.status != Status.DELETED.value:
            return held
    raise pub_not_found(pub_id)


def get(provisioner: Provisioner, pub_id: str) -> DrPub:
    with provisioner.database.read() as session:
        ref = repo.feed_ref_of_pub(session, pub_id)
        state = repo.load_feed_state(session, ref) if ref is not None else None
    if state is None:
        raise pub_not_found(pub_id)
    held = next((held for held in state.pubs if held.obj.pubId == pub_id), None)
    if held is None:
        raise pub_not_found(pub_id)
    return _with_feed_id(state, held)


def create(provisioner: Provisioner, body: DrPub) -> DrPub:
    with provisioner.database.read() as session:
        ref = lookup_for_member(session, body, one_name_match=False).ref or 0
    held = Held(new_publisher(body.svcLocationName, body.username, body.userpwd))
    state = provisioner.provision(ref, lambda state: state.pubs.append(held))
    if state is None:
        raise NotFound("feed not found", fields=f"feedId={body.feedId}")
    return _with_feed_id(state, held)


def replace(provisioner: Provisioner, pub_id: str, body: DrPub) -> DrPub:
    """New credentials or location for a publisher (fields absent from the body are kept)."""
    ref = _feed_ref(provisioner, pub_id)
    found: list[Held[DrPub]] = []

    def change(state: FeedState) -> None:
        held = _find(state, pub_id)
        for name in ("username", "userpwd", "svcLocationName"):
            if getattr(body, name) is not None:
                setattr(held.obj, name, getattr(body, name))
        held.obj.lastMod = wire_now()
        found.append(held)

    state = provisioner.provision(ref, change)
    if state is None or not found:
        raise pub_not_found(pub_id)
    return _with_feed_id(state, found[0])


def delete(provisioner: Provisioner, pub_id: str) -> None:
    ref = _feed_ref(provisioner, pub_id)

    def change(state: FeedState) -> None:
        held = _find(state, pub_id)
        live = [other for other in state.pubs if other.obj.status != Status.DELETED.value]
        if len(live) <= 1:
            raise BadRequest("Can't delete the last publisher of a feed", fields="pubId")
        held.obj.status = Status.DELETED.value
        held.obj.lastMod = wire_now()

    if provisioner.provision(ref, change) is None:
        raise pub_not_found(pub_id)
