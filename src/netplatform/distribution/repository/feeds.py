"""Feeds: stored, found, updated and soft-deleted (with their subscriptions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..feed_model import Endpoint, Feed, FeedAuthorization, FeedFields
from ..tables import egress_routes, feeds, ingress_routes, subscriptions


@dataclass(frozen=True)
class NewFeed:
    """What a create stores besides the body's fields."""

    authorization: FeedAuthorization  # passwords hashed
    publisher: str
    authz_framework: bool
    now_ms: int


# Built once: on every publish, building and keying the statement cost more than running it.
_LIVE_FEED = sa.select(feeds).where(feeds.c.id == sa.bindparam("feed_id"), feeds.c.deleted.is_(False))
_LIVE_FEED_LOCKED = _LIVE_FEED.with_for_update()


class FeedRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def count_live(self) -> int:
        return int(
            self.session.execute(sa.select(sa.func.count()).where(feeds.c.deleted.is_(False))).scalar_one()
        )

    def live_named(self, name: str, version: str) -> bool:
        query = sa.select(feeds.c.id).where(
            feeds.c.name == name, feeds.c.version == version, feeds.c.deleted.is_(False)
        )
        return self.session.execute(query).first() is not None

    def insert(self, feed_id: int, fields: FeedFields, new: NewFeed) -> None:
        self.session.execute(
            sa.insert(feeds).values(
                id=feed_id,
                name=fields.name,
                version=fields.version,
                authz_instance=fields.authz_instance,
                authz_framework=new.authz_framework,
                publisher=new.publisher,
                deleted=False,
                created_ms=new.now_ms,
                modified_ms=new.now_ms,
                **_feed_values(fields, new.authorization),
            )
        )

    def update(self, feed_id: int, fields: FeedFields, authorization: FeedAuthorization, now_ms: int) -> None:
        """Replace the updatable fields (name, version, authz_instance, authz_framework and publisher
        stay); ``authorization`` is the body's, passwords hashed."""
        self.session.execute(
            sa.update(feeds)
            .where(feeds.c.id == feed_id)
            .values(modified_ms=now_ms, **_feed_values(fields, authorization))
        )

    def find(self, feed_id: int, *, lock: bool = False) -> Feed | None:
        """The live feed with this id (None when absent or deleted); ``lock`` holds its row."""
        query = _LIVE_FEED_LOCKED if lock else _LIVE_FEED
        # On the session's connection: plain columns need none of the ORM's execution path.
        row = self.session.connection().execute(query, {"feed_id": feed_id}).mappings().first()
        return _feed(row) if row else None

    def live_by_name(self, name: str, version: str) -> Feed | None:
        """The live feed with this name and version (at most one: creates refuse a duplicate)."""
        query = sa.select(feeds).where(
            feeds.c.name == name, feeds.c.version == version, feeds.c.deleted.is_(False)
        )
        row = self.session.execute(query).mappings().first()
        return _feed(row) if row else None

    def live_ids(
        self, *, name: str | None = None, publisher: str | None = None, subscriber: str | None = None
    ) -> list[int]:
        """Ids of the live feeds, oldest first, narrowed by name, by publisher, or to the feeds the
        subscriber has a live subscription to (each filter only when given)."""
        query = sa.select(feeds.c.id).where(feeds.c.deleted.is_(False)).order_by(feeds.c.id)
        if name is not None:
            query = query.where(feeds.c.name == name)
        if publisher is not None:
            query = query.where(feeds.c.publisher == publisher)
        if subscriber is not None:
            subscribed = sa.select(subscriptions.c.feed_id).where(
                subscriptions.c.subscriber == subscriber, subscriptions.c.deleted.is_(False)
            )
            query = query.where(feeds.c.id.in_(subscribed))
        return [int(feed_id) for feed_id in self.session.execute(query).scalars()]

    def mark_deleted(self, feed_id: int) -> list[int]:
        """Soft-delete the feed and its live subscriptions (their routes go with them); the ids of
        those subscriptions."""
        session = self.session
        session.execute(sa.update(feeds).where(feeds.c.id == feed_id).values(deleted=True))
        sub_ids = [
            int(sub_id)
            for sub_id in session.execute(
                sa.select(subscriptions.c.id).where(
                    subscriptions.c.feed_id == feed_id, subscriptions.c.deleted.is_(False)
                )
            ).scalars()
        ]
        if sub_ids:
            session.execute(
                sa.update(subscriptions).where(subscriptions.c.id.in_(sub_ids)).values(deleted=True)
            )
            session.execute(sa.delete(egress_routes).where(egress_routes.c.sub_id.in_(sub_ids)))
        session.execute(sa.delete(ingress_routes).where(ingress_routes.c.feed_id == feed_id))
        return sub_ids


def _feed_values(fields: FeedFields, authorization: FeedAuthorization) -> dict[str, Any]:
    return {
        "description": fields.description,
        "business_description": fields.business_description,
        "classification": authorization.classification,
        "endpoint_ids": [{"id": e.id, "password_hash": e.password_hash} for e in authorization.endpoint_ids],
        "endpoint_addrs": list(authorization.endpoint_addrs),
        "suspend": fields.suspend,
        "groupid": fields.groupid,
    }


def _feed(row: Any) -> Feed:
    return Feed(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        description=row["description"],
        business_description=row["business_description"],
        authorization=FeedAuthorization(
            classification=row["classification"],
            endpoint_ids=tuple(Endpoint(e["id"], e["password_hash"]) for e in row["endpoint_ids"]),
            endpoint_addrs=tuple(row["endpoint_addrs"]),
        ),
        suspend=row["suspend"],
        groupid=row["groupid"],
        authz_instance=row["authz_instance"],
        publisher=row["publisher"],
        authz_framework=bool(row["authz_framework"]),
    )
