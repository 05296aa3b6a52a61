"""A feed with its publishers and subscribers as one unit of provisioning (reference 7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from .schemas import DrPub, DrSub, Feed, WireModel

M = TypeVar("M", bound=WireModel)


@dataclass
class Held(Generic[M]):
    """An object and its row id (None until it is stored)."""

    obj: M
    ref: int | None = None


@dataclass
class FeedState:
    """The feed's row id, the feed, its members, and the member rows to drop when it is stored."""

    ref: int
    feed: Feed
    pubs: list[Held[DrPub]] = field(default_factory=list)
    subs: list[Held[DrSub]] = field(default_factory=list)
    dropped_pubs: list[int] = field(default_factory=list)
    dropped_subs: list[int] = field(default_factory=list)

    def assembled(self) -> Feed:
        """The feed as the wire shows it: its publishers and subscribers, each with the feedId."""
        feed = self.feed.model_copy()
        feed.pubs = [held.obj.model_copy(update={"feedId": feed.feedId}) for held in self.pubs]
        feed.subs = [held.obj.model_copy(update={"feedId": feed.feedId}) for held in self.subs]
        return feed
