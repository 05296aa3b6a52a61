"""Feeds, subscriptions and the counters their ids come from."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..feeds import Endpoint, Feed, FeedAuthorization, FeedFields
from ..subscriptions import DeliveryTarget, Subscription, SubscriptionFields
from ..tables import counters, feeds, queues, subscriptions

FEED_COUNTER = "feed"
SUBSCRIPTION_COUNTER = "subscription"


def next_id(session: Session, counter: str) -> int:
    """The next id of a counter; its row stays locked until commit, so creates are serialised.

    Ids are ``max(every id ever given) + 1`` and never reused, deleted objects included.
    """
    current = session.execute(
        sa.select(counters.c.value).where(counters.c.name == counter).with_for_update()
    ).scalar_one()
    session.execute(sa.update(counters).where(counters.c.name == counter).values(value=current + 1))
    return int(current) + 1


# --- feeds ---------------------------------------------------------------------------------


def count_live_feeds(session: Session) -> int:
    return int(session.execute(sa.select(sa.func.count()).where(feeds.c.deleted.is_(False))).scalar_one())


def live_feed_named(session: Session, name: str, version: str) -> bool:
    query = sa.select(feeds.c.id).where(
        feeds.c.name == name, feeds.c.version == version, feeds.c.deleted.is_(False)
    )
    return session.execute(query).first() is not None


def _feed_values(fields: FeedFields) -> dict[str, Any]:
    authorization = fields.authorization
    return {
        "description": fields.description,
        "business_description": fields.business_description,
        "classification": authorization.classification,
        "endpoint_ids": [{"id": e.id, "password": e.password} for e in authorization.endpoint_ids],
        "endpoint_addrs": list(authorization.endpoint_addrs),
        "suspend": fields.suspend,
        "groupid": fields.groupid,
    }


def insert_feed(session: Session, feed_id: int, fields: FeedFields, publisher: str, now_ms: int) -> None:
    session.execute(
        sa.insert(feeds).values(
            id=feed_id,
            name=fields.name,
            version=fields.version,
            authz_instance=fields.authz_instance,
            publisher=publisher,
            deleted=False,
            created_ms=now_ms,
            modified_ms=now_ms,
            **_feed_values(fields),
        )
    )


def update_feed(session: Session, feed_id: int, fields: FeedFields, now_ms: int) -> None:
    """Replace the updatable fields (name, version, authz_instance and publisher stay)."""
    session.execute(
        sa.update(feeds).where(feeds.c.id == feed_id).values(modified_ms=now_ms, **_feed_values(fields))
    )


def find_feed(session: Session, feed_id: int, *, lock: bool = False) -> Feed | None:
    """The live feed with this id (None when absent or deleted); ``lock`` holds its row."""
    query = sa.select(feeds).where(feeds.c.id == feed_id, feeds.c.deleted.is_(False))
    if lock:
        query = query.with_for_update()
    row = session.execute(query).mappings().first()
    return _feed(row) if row else None


def mark_feed_deleted(session: Session, feed_id: int) -> list[int]:
    """Soft-delete the feed and its live subscriptions; the ids of those subscriptions."""
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
        session.execute(sa.update(subscriptions).where(subscriptions.c.id.in_(sub_ids)).values(deleted=True))
    return sub_ids


def _feed(row: Any) -> Feed:
    return Feed(
        id=row["id"],
        name=row["name"],
        version=row["version"],
        description=row["description"],
        business_description=row["business_description"],
        authorization=FeedAuthorization(
            classification=row["classification"],
            endpoint_ids=tuple(Endpoint(e["id"], e["password"]) for e in row["endpoint_ids"]),
            endpoint_addrs=tuple(row["endpoint_addrs"]),
        ),
        suspend=row["suspend"],
        groupid=row["groupid"],
        authz_instance=row["authz_instance"],
        publisher=row["publisher"],
    )


# --- subscriptions -------------------------------------------------------------------------


def count_live_subscriptions(session: Session) -> int:
    query = sa.select(sa.func.count()).where(subscriptions.c.deleted.is_(False))
    return int(session.execute(query).scalar_one())


def _subscription_values(fields: SubscriptionFields) -> dict[str, Any]:
    return {
        "delivery_url": fields.delivery.url,
        "delivery_user": fields.delivery.user,
        "delivery_password": fields.delivery.password,
        "use100": fields.delivery.use100,
        "metadata_only": fields.metadata_only,
        "follow_redirect": fields.follow_redirect,
        "suspend": fields.suspend,
        "decompress": fields.decompress,
        "privileged": fields.privileged,
        "groupid": fields.groupid,
    }


def insert_subscription(
    session: Session, sub_id: int, feed_id: int, fields: SubscriptionFields, subscriber: str, now_ms: int
) -> None:
    """The subscription and its (empty) delivery queue."""
    session.execute(
        sa.insert(subscriptions).values(
            id=sub_id,
            feed_id=feed_id,
            authz_instance=fields.authz_instance,
            subscriber=subscriber,
            created_date=now_ms,
            deleted=False,
            **_subscription_values(fields),
        )
    )
    session.execute(sa.insert(queues).values(sub_id=sub_id, retry_at_ms=0, retry_delay_s=0.0))


def update_subscription(session: Session, sub_id: int, fields: SubscriptionFields) -> None:
    """Replace the updatable fields; a new delivery url forgets a learned redirect."""
    old_url = session.execute(
        sa.select(subscriptions.c.delivery_url).where(subscriptions.c.id == sub_id)
    ).scalar_one()
    session.execute(
        sa.update(subscriptions).where(subscriptions.c.id == sub_id).values(**_subscription_values(fields))
    )
    if old_url != fields.delivery.url:
        session.execute(sa.update(queues).where(queues.c.sub_id == sub_id).values(redirect_base=None))


def find_subscription(
    session: Session, sub_id: int, *, lock: bool = False, include_deleted: bool = False
) -> Subscription | None:
    query = sa.select(subscriptions).where(subscriptions.c.id == sub_id)
    if not include_deleted:
        query = query.where(subscriptions.c.deleted.is_(False))
    if lock:
        query = query.with_for_update()
    row = session.execute(query).mappings().first()
    return subscription_from_row(row) if row else None


def live_subscriptions_of(session: Session, feed_id: int) -> list[Subscription]:
    query = (
        sa.select(subscriptions)
        .where(subscriptions.c.feed_id == feed_id, subscriptions.c.deleted.is_(False))
        .order_by(subscriptions.c.id)
    )
    return [subscription_from_row(row) for row in session.execute(query).mappings()]


def mark_subscription_deleted(session: Session, sub_id: int) -> None:
    session.execute(sa.update(subscriptions).where(subscriptions.c.id == sub_id).values(deleted=True))


def subscription_from_row(row: Any) -> Subscription:
    """A subscription from a row holding the ``distribution_subscriptions`` columns."""
    return Subscription(
        id=row["id"],
        feed_id=row["feed_id"],
        fields=SubscriptionFields(
            delivery=DeliveryTarget(
                url=row["delivery_url"],
                user=row["delivery_user"],
                password=row["delivery_password"],
                use100=row["use100"],
            ),
            metadata_only=row["metadata_only"],
            groupid=row["groupid"],
            follow_redirect=row["follow_redirect"],
            suspend=row["suspend"],
            decompress=row["decompress"],
            privileged=row["privileged"],
            authz_instance=row["authz_instance"],
        ),
        subscriber=row["subscriber"],
        created_date=row["created_date"],
    )
