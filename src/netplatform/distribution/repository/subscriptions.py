"""Subscriptions: stored (with their empty delivery queue), found, updated and soft-deleted."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ...store.secrets import SEALED_PREFIX
from ..subscription_model import DeliveryTarget, StoredFields, Subscription, SubscriptionFields
from ..tables import egress_routes, queues, subscriptions

# Built once: read by every group of publishes (see queue.py's prebuilt statements).
_LIVE_OF_FEED = (
    sa.select(subscriptions)
    .where(subscriptions.c.feed_id == sa.bindparam("feed_id"), subscriptions.c.deleted.is_(False))
    .order_by(subscriptions.c.id)
)


class SubscriptionRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def count_live(self) -> int:
        query = sa.select(sa.func.count()).where(subscriptions.c.deleted.is_(False))
        return int(self.session.execute(query).scalar_one())

    def insert(self, sub_id: int, feed_id: int, fields: StoredFields, subscriber: str, now_ms: int) -> None:
        """The subscription (its delivery queue rows are made per node as work arrives there)."""
        self.session.execute(
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

    def update(self, sub_id: int, fields: StoredFields) -> None:
        """Replace the updatable fields; a new delivery url forgets a learned redirect."""
        old_url = self.session.execute(
            sa.select(subscriptions.c.delivery_url).where(subscriptions.c.id == sub_id)
        ).scalar_one()
        self.session.execute(
            sa.update(subscriptions)
            .where(subscriptions.c.id == sub_id)
            .values(**_subscription_values(fields))
        )
        if old_url != fields.delivery.url:
            self.session.execute(
                sa.update(queues).where(queues.c.sub_id == sub_id).values(redirect_base=None)
            )

    def find(self, sub_id: int, *, lock: bool = False, include_deleted: bool = False) -> Subscription | None:
        query = sa.select(subscriptions).where(subscriptions.c.id == sub_id)
        if not include_deleted:
            query = query.where(subscriptions.c.deleted.is_(False))
        if lock:
            query = query.with_for_update()
        row = self.session.execute(query).mappings().first()
        return subscription_from_row(row) if row else None

    def live_of(self, feed_id: int) -> list[Subscription]:
        found = self.session.connection().execute(_LIVE_OF_FEED, {"feed_id": feed_id})
        return [subscription_from_row(row) for row in found.mappings()]

    def live_ids_of(self, feed_id: int) -> list[int]:
        query = (
            sa.select(subscriptions.c.id)
            .where(subscriptions.c.feed_id == feed_id, subscriptions.c.deleted.is_(False))
            .order_by(subscriptions.c.id)
        )
        return [int(sub_id) for sub_id in self.session.execute(query).scalars()]

    def clear_passwords(self) -> list[tuple[int, str]]:
        """The subscriptions whose delivery password is stored in clear (written before sealing
        existed), with that password."""
        column = subscriptions.c.delivery_password
        query = sa.select(subscriptions.c.id, column).where(
            ~column.startswith(SEALED_PREFIX, autoescape=True)
        )
        return [(int(sub_id), str(password)) for sub_id, password in self.session.execute(query)]

    def replace_password(self, sub_id: int, stored: str, sealed: str) -> None:
        """Store the sealed form of a clear password, unless the row changed meanwhile."""
        self.session.execute(
            sa.update(subscriptions)
            .where(subscriptions.c.id == sub_id, subscriptions.c.delivery_password == stored)
            .values(delivery_password=sealed)
        )

    def mark_deleted(self, sub_id: int) -> None:
        """Soft-delete the subscription; its egress route goes with it."""
        self.session.execute(
            sa.update(subscriptions).where(subscriptions.c.id == sub_id).values(deleted=True)
        )
        self.session.execute(sa.delete(egress_routes).where(egress_routes.c.sub_id == sub_id))


def _subscription_values(fields: StoredFields) -> dict[str, Any]:
    return {
        "delivery_url": fields.delivery.url,
        "delivery_user": fields.delivery.user,
        "delivery_password": fields.delivery.sealed_password,
        "use100": fields.delivery.use100,
        "metadata_only": fields.metadata_only,
        "follow_redirect": fields.follow_redirect,
        "suspend": fields.suspend,
        "decompress": fields.decompress,
        "privileged": fields.privileged,
        "groupid": fields.groupid,
    }


def subscription_from_row(row: Any) -> Subscription:
    """A subscription from a row holding the ``distribution_subscriptions`` columns."""
    return Subscription(
        id=row["id"],
        feed_id=row["feed_id"],
        fields=SubscriptionFields(
            delivery=DeliveryTarget(
                url=row["delivery_url"],
                user=row["delivery_user"],
                sealed_password=row["delivery_password"],
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
