"""Subscribers: each is a subscription of the distribution service to its feed."""

from __future__ import annotations

from collections.abc import Callable

from ..clock import wire_now
from ..web.errors import NotFound
from . import repository as repo
from .checks import require
from .feeds import SUB_FIELDS, held_feed, lookup_for_member, new_subscriber
from .provisioning import Provisioner
from .repository import FeedState, Held
from .schemas import DrSub, Status


def sub_not_found(sub_id: str) -> NotFound:
    return NotFound(f"subId {sub_id} not found", fields="subId")


def _with_feed_id(state_feed_id: str | None, held: Held[DrSub]) -> DrSub:
    return held.obj.model_copy(update={"feedId": state_feed_id})


def list_subs(provisioner: Provisioner) -> list[DrSub]:
    with provisioner.database.read() as session:
        return [sub for state in repo.feed_states(session) for sub in state.assembled().subs or []]


def get(provisioner: Provisioner, sub_id: str) -> DrSub:
    with provisioner.database.read() as session:
        ref = repo.feed_ref_of_sub(session, sub_id)
        state = repo.load_feed_state(session, ref) if ref is not None else None
    held = next((held for held in state.subs if held.obj.subId == sub_id), None) if state else None
    if state is None or held is None:
        raise sub_not_found(sub_id)
    return _with_feed_id(state.feed.feedId, held)


def _provisioned(
    provisioner: Provisioner, ref: int, change: Callable[[FeedState], Held[DrSub]], missing: NotFound
) -> DrSub:
    held = provisioner.provision_sub(ref, change)
    if held is None:
        raise missing
    with provisioner.database.read() as session:
        state = repo.load_feed_state(session, ref)
    return _with_feed_id(state.feed.feedId if state else None, held)


def create(provisioner: Provisioner, body: DrSub) -> DrSub:
    """A new subscriber; a repeated POST for a subscriber that failed before retries that one."""
    with provisioner.database.read() as session:
        ref = lookup_for_member(session, body, one_name_match=True).ref or 0

    def change(state: FeedState) -> Held[DrSub]:
        fresh = new_subscriber(body)
        for held in state.subs:
            sub = held.obj
            if (
                sub.subId is None
                and sub.status == Status.INVALID.value
                and sub.deliveryURL == body.deliveryURL
            ):
                held.obj = fresh
                return held
        held = Held(fresh)
        state.subs.append(held)
        return held

    return _provisioned(provisioner, ref, change, NotFound("feed not found", fields=f"feedId={body.feedId}"))


def _find(state: FeedState, sub_id: str) -> Held[DrSub]:
    for held in state.subs:
        if held.obj.subId == sub_id and held.obj.status != Status.DELETED.value:
            return held
    raise sub_not_found(sub_id)


def replace(provisioner: Provisioner, sub_id: str, body: DrSub) -> DrSub:
    require(body.feedId, "feedId")
    require(body.svcLocationName, "svcLocationName")
    with provisioner.database.read() as session:
        ref = held_feed(session, body.feedId or "", live=True).ref or 0
        if repo.feed_ref_of_sub(session, sub_id) != ref:
            raise sub_not_found(sub_id)

    def change(state: FeedState) -> Held[DrSub]:
        held = _find(state, sub_id)
        for name in SUB_FIELDS:
            setattr(held.obj, name, getattr(body, name))
        held.obj.status, held.obj.lastMod = Status.NEW.value, wire_now()
        return held

    return _provisioned(provisioner, ref, change, sub_not_found(sub_id))


def delete(provisioner: Provisioner, sub_id: str) -> None:
    with provisioner.database.read() as session:
        ref = repo.feed_ref_of_sub(session, sub_id)
    if ref is None:
        raise sub_not_found(sub_id)

    def change(state: FeedState) -> Held[DrSub]:
        held = next((held for held in state.subs if held.obj.subId == sub_id), None)
        if held is None:
            raise sub_not_found(sub_id)
        held.obj.status, held.obj.lastMod = Status.DELETED.value, wire_now()
        return held

    if provisioner.provision_sub(ref, change) is None:
        raise sub_not_found(sub_id)
