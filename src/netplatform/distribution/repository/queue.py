"""The delivery queue: spooled files, one delivery row per file and subscription, and claims.

A worker claims a whole subscription queue (``distribution_queues`` row) with a lease, then
delivers that queue's rows in order; so order per subscription holds and two workers (of one
instance or of several over one database) never deliver the same subscription at once. On
PostgreSQL candidates are locked ``FOR UPDATE SKIP LOCKED``; everywhere the claim itself is a
conditional UPDATE that only succeeds on an unclaimed or expired queue. A crashed claimer's
lease runs out and its queue is claimed again: delivery is at least once.

A spooled file lives as long as one of its delivery rows does; whoever deletes the last row
deletes the file row and hands back the blob name to remove after commit. The file row is
locked first, so two transactions ending deliveries of one file never both miss the last one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..subscriptions import Subscription
from ..tables import deliveries, files, queues, subscriptions
from .provisioning import subscription_from_row


@dataclass(frozen=True)
class SpooledFile:
    """An accepted publish (PUT, with its blob) or retraction (DELETE, no blob)."""

    row: int
    publish_id: str
    feed_id: int
    file_id: str
    method: str
    blob: str | None
    content_length: int
    headers: dict[str, str]
    published_ms: int


@dataclass(frozen=True)
class DeliveryJob:
    """The head of a subscription queue: what to send, to whom, and how often it was tried."""

    delivery_id: int
    attempts: int
    subscription: Subscription
    file: SpooledFile
    redirect_base: str | None


def insert_file(session: Session, spooled: SpooledFile) -> int:
    result = session.execute(
        sa.insert(files).values(
            publish_id=spooled.publish_id,
            feed_id=spooled.feed_id,
            file_id=spooled.file_id,
            method=spooled.method,
            blob=spooled.blob,
            content_length=spooled.content_length,
            headers=spooled.headers,
            published_ms=spooled.published_ms,
        )
    )
    return int(result.inserted_primary_key[0])


def enqueue(session: Session, file_row: int, sub_ids: Iterable[int]) -> None:
    rows = [{"sub_id": sub_id, "file_row": file_row, "attempts": 0} for sub_id in sub_ids]
    if rows:
        session.execute(sa.insert(deliveries), rows)


def drop_deliveries(session: Session, sub_ids: list[int]) -> list[str]:
    """Remove every queued delivery of these subscriptions; the blobs no longer needed."""
    if not sub_ids:
        return []
    file_rows = sorted(
        int(row)
        for row in session.execute(
            sa.select(deliveries.c.file_row).where(deliveries.c.sub_id.in_(sub_ids)).distinct()
        ).scalars()
    )
    _lock_files(session, file_rows)
    session.execute(sa.delete(deliveries).where(deliveries.c.sub_id.in_(sub_ids)))
    return _remove_unreferenced_files(session, file_rows)


def finish_delivery(session: Session, delivery_id: int, file_row: int) -> list[str]:
    """The delivery has ended (delivered, refused or expired); the blobs no longer needed."""
    _lock_files(session, [file_row])
    session.execute(sa.delete(deliveries).where(deliveries.c.id == delivery_id))
    return _remove_unreferenced_files(session, [file_row])


def count_attempt(session: Session, delivery_id: int) -> None:
    session.execute(
        sa.update(deliveries).where(deliveries.c.id == delivery_id).values(attempts=deliveries.c.attempts + 1)
    )


def _lock_files(session: Session, file_rows: list[int]) -> None:
    if file_rows:
        session.execute(
            sa.select(files.c.id).where(files.c.id.in_(file_rows)).order_by(files.c.id).with_for_update()
        ).all()


def _remove_unreferenced_files(session: Session, file_rows: list[int]) -> list[str]:
    if not file_rows:
        return []
    still_needed = sa.exists().where(deliveries.c.file_row == files.c.id)
    unreferenced = session.execute(
        sa.select(files.c.id, files.c.blob).where(files.c.id.in_(file_rows), ~still_needed)
    ).all()
    if not unreferenced:
        return []
    session.execute(sa.delete(files).where(files.c.id.in_([row.id for row in unreferenced])))
    return [row.blob for row in unreferenced if row.blob]


# --- claims --------------------------------------------------------------------------------


def _is_free(now_ms: int) -> sa.ColumnElement[bool]:
    return sa.or_(queues.c.claimed_until_ms.is_(None), queues.c.claimed_until_ms < now_ms)


def _due_queues(now_ms: int) -> sa.Select[tuple[int]]:
    """Queues with work that are free, not suspended and not pausing; the longest due first."""
    return (
        sa.select(queues.c.sub_id)
        .join(subscriptions, subscriptions.c.id == queues.c.sub_id)
        .where(
            subscriptions.c.deleted.is_(False),
            subscriptions.c.suspend.is_(False),
            queues.c.retry_at_ms <= now_ms,
            _is_free(now_ms),
            sa.exists().where(deliveries.c.sub_id == queues.c.sub_id),
        )
        .order_by(queues.c.retry_at_ms, queues.c.sub_id)
        .limit(1)
    )


def any_queue_due(session: Session, now_ms: int) -> bool:
    """A read-only look first, so idle workers do not take the (SQLite) write lock to find nothing."""
    return session.execute(_due_queues(now_ms)).first() is not None


def claim_next_queue(session: Session, claimer: str, now_ms: int, lease_ms: int) -> int | None:
    """Claim the subscription queue that is due longest, has work and is free; its sub id."""
    candidate = session.execute(_due_queues(now_ms).with_for_update(skip_locked=True, of=queues)).scalar()
    if candidate is None:
        return None
    claimed = session.execute(
        sa.update(queues)
        .where(queues.c.sub_id == candidate, _is_free(now_ms))
        .values(claimed_by=claimer, claimed_until_ms=now_ms + lease_ms)
    )
    return int(candidate) if claimed.rowcount == 1 else None


def extend_claim(session: Session, sub_id: int, claimer: str, until_ms: int) -> bool:
    """Push the lease on; False when the claim was lost (lease ran out and another took it)."""
    result = session.execute(
        sa.update(queues)
        .where(queues.c.sub_id == sub_id, queues.c.claimed_by == claimer)
        .values(claimed_until_ms=until_ms)
    )
    return result.rowcount == 1


def release_claim(session: Session, sub_id: int, claimer: str, *, retry_at_ms: int | None = None) -> None:
    values: dict[str, Any] = {"claimed_by": None, "claimed_until_ms": None}
    if retry_at_ms is not None:
        values["retry_at_ms"] = retry_at_ms
    session.execute(
        sa.update(queues).where(queues.c.sub_id == sub_id, queues.c.claimed_by == claimer).values(**values)
    )


def release_all_claims(session: Session, claimer: str) -> int:
    """Free every queue held by ``claimer`` (a restarted instance frees its crashed claims)."""
    result = session.execute(
        sa.update(queues).where(queues.c.claimed_by == claimer).values(claimed_by=None, claimed_until_ms=None)
    )
    return result.rowcount


def postpone(session: Session, sub_id: int, retry_at_ms: int, delay_s: float) -> None:
    """Pause the whole subscription queue until ``retry_at_ms`` (backoff after a failure)."""
    session.execute(
        sa.update(queues)
        .where(queues.c.sub_id == sub_id)
        .values(retry_at_ms=retry_at_ms, retry_delay_s=delay_s)
    )


def reset_backoff(session: Session, sub_id: int) -> None:
    session.execute(sa.update(queues).where(queues.c.sub_id == sub_id).values(retry_delay_s=0.0))


def remember_redirect(session: Session, sub_id: int, base: str | None) -> None:
    session.execute(sa.update(queues).where(queues.c.sub_id == sub_id).values(redirect_base=base))


# --- reading the queue ---------------------------------------------------------------------


def head_of_queue(session: Session, sub_id: int) -> tuple[DeliveryJob | None, float]:
    """The oldest queued delivery of the subscription, and the queue's current backoff delay."""
    queue = session.execute(
        sa.select(queues.c.retry_delay_s, queues.c.redirect_base).where(queues.c.sub_id == sub_id)
    ).first()
    if queue is None:
        return None, 0.0
    row = (
        session.execute(
            sa.select(
                deliveries.c.id.label("delivery_id"),
                deliveries.c.attempts,
                files.c.id.label("file_row"),
                files.c.publish_id,
                files.c.feed_id.label("file_feed_id"),
                files.c.file_id,
                files.c.method,
                files.c.blob,
                files.c.content_length,
                files.c.headers,
                files.c.published_ms,
                *subscriptions.c,
            )
            .join(files, files.c.id == deliveries.c.file_row)
            .join(subscriptions, subscriptions.c.id == deliveries.c.sub_id)
            .where(deliveries.c.sub_id == sub_id)
            .order_by(deliveries.c.id)
            .limit(1)
        )
        .mappings()
        .first()
    )
    if row is None:
        return None, float(queue.retry_delay_s)
    spooled = SpooledFile(
        row=row["file_row"],
        publish_id=row["publish_id"],
        feed_id=row["file_feed_id"],
        file_id=row["file_id"],
        method=row["method"],
        blob=row["blob"],
        content_length=row["content_length"],
        headers=dict(row["headers"]),
        published_ms=row["published_ms"],
    )
    job = DeliveryJob(
        delivery_id=row["delivery_id"],
        attempts=row["attempts"],
        subscription=subscription_from_row(row),
        file=spooled,
        redirect_base=queue.redirect_base,
    )
    return job, float(queue.retry_delay_s)


def queue_depth(session: Session) -> int:
    """Deliveries waiting (in every subscription queue)."""
    return int(session.execute(sa.select(sa.func.count()).select_from(deliveries)).scalar_one())
