"""The delivery queue: spooled files, one delivery row per file and subscription, and claims.

Every file is held by one node (spec 1.3: node-local spools), and so is every delivery row of it;
a node only claims, delivers and forwards the rows it holds. A worker claims a whole subscription
queue of its node (``distribution_queues`` row for subscription and node) with a lease, then
delivers that queue's rows in order; so order per subscription and receiving node holds, and two
workers never deliver the same queue at once. On PostgreSQL candidates are locked ``FOR UPDATE
SKIP LOCKED``; everywhere the claim itself is a conditional UPDATE that only succeeds on an
unclaimed or expired queue. A crashed node's claims are freed when it restarts (at least once).

A delivery to a privileged subscription that succeeded keeps its row until the subscriber
acknowledges it (:meth:`QueueRepository.acknowledge`); meanwhile the row is offered again from
``offer_again_ms`` and is not the head of its queue before then
(:meth:`QueueRepository.await_acknowledgement`).

A spooled file lives as long as one of its delivery rows does; whoever deletes the last row
deletes the file row and, when the file is held by its own node, hands back the blob name to
remove after commit. A file of another node that lost its last row (a subscription deleted
elsewhere) is left for its holder, which sweeps such rows
(:meth:`QueueRepository.sweep_unreferenced_files`). The file row is locked first, so two
transactions ending deliveries of one file never both miss the last one.

Every statement runs on the session's connection (SQLAlchemy Core), and the ones every publish
or delivery runs are built once with their values bound at execution: on a 1 KiB file, the
ORM's execution path and building and keying each statement cost more than SQLite running it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.orm import Session

from ..subscription_model import Subscription
from ..tables import deliveries, egress_routes, files, nodes, queues, subscriptions
from .subscriptions import subscription_from_row

Millis = int | sa.BindParameter[int]
"""Epoch milliseconds, or a parameter bound to them when a statement is built once."""


@dataclass(frozen=True)
class SpooledFile:
    """An accepted publish (PUT, with its blob, or its ``body`` when that is small) or retraction
    (DELETE, neither)."""

    row: int
    node: str
    publish_id: str
    feed_id: int
    file_id: str
    method: str
    blob: str | None
    content_length: int
    headers: dict[str, str]
    published_ms: int
    body: bytes | None = None


@dataclass(frozen=True)
class NextHop:
    """The node a subscription is bound to (egress route) and its URL (None: never registered)."""

    node: str
    url: str | None


@dataclass(frozen=True)
class DeliveryJob:
    """The head of a subscription queue: what to send, to whom, and how often it was tried."""

    delivery_id: int
    attempts: int
    subscription: Subscription
    file: SpooledFile
    redirect_base: str | None
    bound_to: NextHop | None = None

    def forward_to(self) -> NextHop | None:
        """The node to forward to: the bound node when it is not the one holding the file."""
        if self.bound_to is None or self.bound_to.node == self.file.node:
            return None
        return self.bound_to


_INSERT_FILE = sa.insert(files)
_INSERT_DELIVERIES = sa.insert(deliveries)
# Built once per dialect (by "is PostgreSQL"): every publish runs it, and building it cost more
# than SQLite running it.
_NEW_QUEUES = {
    False: sqlite.insert(queues).on_conflict_do_nothing(),
    True: postgresql.insert(queues).on_conflict_do_nothing(),
}


def _is_free(now_ms: Millis) -> sa.ColumnElement[bool]:
    return sa.or_(queues.c.claimed_until_ms.is_(None), queues.c.claimed_until_ms < now_ms)


def _queue_of(
    sub_id: int | sa.BindParameter[int], node: str | sa.BindParameter[str]
) -> sa.ColumnElement[bool]:
    return sa.and_(queues.c.sub_id == sub_id, queues.c.node == node)


def _offerable(now_ms: Millis) -> sa.ColumnElement[bool]:
    """A delivery that is due: not delivered yet, or awaiting acknowledgement and due again."""
    return sa.or_(deliveries.c.offer_again_ms.is_(None), deliveries.c.offer_again_ms <= now_ms)


def _due_queues(node: sa.BindParameter[str], now_ms: sa.BindParameter[int]) -> sa.Select[int]:
    """``node``'s queues with due work that are free, not suspended and not pausing; the longest due
    first."""
    return (
        sa.select(queues.c.sub_id)
        .join(subscriptions, subscriptions.c.id == queues.c.sub_id)
        .where(
            queues.c.node == node,
            subscriptions.c.deleted.is_(False),
            subscriptions.c.suspend.is_(False),
            queues.c.retry_at_ms <= now_ms,
            _is_free(now_ms),
            sa.exists().where(
                deliveries.c.node == node, deliveries.c.sub_id == queues.c.sub_id, _offerable(now_ms)
            ),
        )
        .order_by(queues.c.retry_at_ms, queues.c.sub_id)
        .limit(1)
    )


# Built once, with their values bound at execution: a worker asks on every wake-up, and
# building and keying the statement cost more than running it.
_NODE = sa.bindparam("node", type_=sa.String)
_NOW_MS = sa.bindparam("now_ms", type_=sa.BigInteger)
_DUE_QUEUES = _due_queues(_NODE, _NOW_MS)
_CLAIMABLE_QUEUE = _DUE_QUEUES.with_for_update(skip_locked=True, of=queues)


def _jobs() -> sa.Select[Any]:
    """Deliveries with their file, subscription and bound node (egress route), as :func:`_job` reads them."""
    return (
        sa.select(
            deliveries.c.id.label("delivery_id"),
            deliveries.c.attempts,
            files.c.id.label("file_row"),
            files.c.node.label("file_node"),
            files.c.publish_id,
            files.c.feed_id.label("file_feed_id"),
            files.c.file_id,
            files.c.method,
            files.c.blob,
            files.c.body,
            files.c.content_length,
            files.c.headers,
            files.c.published_ms,
            egress_routes.c.node.label("bound_node"),
            nodes.c.url.label("bound_url"),
            *subscriptions.c,
        )
        .join(files, files.c.id == deliveries.c.file_row)
        .join(subscriptions, subscriptions.c.id == deliveries.c.sub_id)
        .outerjoin(egress_routes, egress_routes.c.sub_id == deliveries.c.sub_id)
        .outerjoin(nodes, nodes.c.name == egress_routes.c.node)
    )


_QUEUE_STATE = sa.select(queues.c.retry_delay_s, queues.c.redirect_base).where(
    _queue_of(sa.bindparam("sub_id"), _NODE)
)
_HEADS = (
    _jobs()
    .where(deliveries.c.sub_id == sa.bindparam("sub_id"), deliveries.c.node == _NODE, _offerable(_NOW_MS))
    .order_by(deliveries.c.id)
    .limit(sa.bindparam("limit"))
)


def _job(row: Any, redirect_base: str | None) -> DeliveryJob:
    return DeliveryJob(
        delivery_id=row["delivery_id"],
        attempts=row["attempts"],
        subscription=subscription_from_row(row),
        file=_spooled(row),
        redirect_base=redirect_base,
        bound_to=NextHop(row["bound_node"], row["bound_url"]) if row["bound_node"] else None,
    )


def _spooled(row: Any) -> SpooledFile:
    return SpooledFile(
        row=row["file_row"],
        node=row["file_node"],
        publish_id=row["publish_id"],
        feed_id=row["file_feed_id"],
        file_id=row["file_id"],
        method=row["method"],
        blob=row["blob"],
        content_length=row["content_length"],
        headers=dict(row["headers"]),
        published_ms=row["published_ms"],
        body=None if row["body"] is None else bytes(row["body"]),
    )


class QueueRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _run(self, statement: sa.Executable) -> CursorResult[Any]:
        """An INSERT, UPDATE or DELETE: its result is a cursor result (row count, inserted key)."""
        return self.session.connection().execute(statement)

    def insert_file(self, spooled: SpooledFile) -> int:
        values = {
            "node": spooled.node,
            "publish_id": spooled.publish_id,
            "feed_id": spooled.feed_id,
            "file_id": spooled.file_id,
            "method": spooled.method,
            "blob": spooled.blob,
            "body": spooled.body,
            "content_length": spooled.content_length,
            "headers": spooled.headers,
            "published_ms": spooled.published_ms,
        }
        # Values as parameters, not in the statement: the compiled INSERT is cached across publishes.
        result = self.session.connection().execute(_INSERT_FILE, values)
        key = result.inserted_primary_key
        assert key is not None  # a single-row INSERT always has one
        return int(key[0])

    def find_file(self, node: str, publish_id: str) -> int | None:
        """The row of the file ``node`` holds under ``publish_id`` (a forward may arrive twice)."""
        row = (
            self.session.connection()
            .execute(sa.select(files.c.id).where(files.c.node == node, files.c.publish_id == publish_id))
            .scalar()
        )
        return None if row is None else int(row)

    def is_queued(self, file_row: int, sub_id: int) -> bool:
        found = (
            self.session.connection()
            .execute(
                sa.select(deliveries.c.id).where(
                    deliveries.c.file_row == file_row, deliveries.c.sub_id == sub_id
                )
            )
            .first()
        )
        return found is not None

    def enqueue(self, file_row: int, node: str, sub_ids: Iterable[int]) -> None:
        """Queue the file (held by ``node``) for each subscription, on that node's queues."""
        chosen = list(sub_ids)
        rows = [{"sub_id": sub_id, "file_row": file_row, "node": node, "attempts": 0} for sub_id in chosen]
        if rows:
            self._ensure_queues(node, chosen)
            self.session.connection().execute(_INSERT_DELIVERIES, rows)

    def _ensure_queues(self, node: str, sub_ids: list[int]) -> None:
        """A queue row per subscription at ``node``, made the first time the node holds work for it."""
        connection = self.session.connection()
        values = [
            {"sub_id": sub_id, "node": node, "retry_at_ms": 0, "retry_delay_s": 0.0} for sub_id in sub_ids
        ]
        connection.execute(_NEW_QUEUES[connection.dialect.name == "postgresql"], values)

    def drop_deliveries(self, sub_ids: list[int], node: str) -> list[str]:
        """Remove every queued delivery of these subscriptions (at every node); ``node``'s blobs no
        longer needed."""
        if not sub_ids:
            return []
        file_rows = sorted(
            int(row)
            for row in self.session.connection()
            .execute(sa.select(deliveries.c.file_row).where(deliveries.c.sub_id.in_(sub_ids)).distinct())
            .scalars()
        )
        self._lock_files(file_rows)
        self.session.connection().execute(sa.delete(deliveries).where(deliveries.c.sub_id.in_(sub_ids)))
        return self._remove_unreferenced_files(file_rows, node)

    def finish_delivery(self, delivery_id: int, file_row: int, node: str) -> list[str]:
        """The delivery has ended (delivered, forwarded, refused or expired); the blobs no longer needed."""
        return self.finish_deliveries([(delivery_id, file_row)], node)

    def finish_deliveries(self, ended: list[tuple[int, int]], node: str) -> list[str]:
        """Several deliveries ended (their ids and file rows); the blobs no longer needed."""
        if not ended:
            return []
        file_rows = sorted({file_row for _, file_row in ended})
        self._lock_files(file_rows)
        self.session.connection().execute(
            sa.delete(deliveries).where(deliveries.c.id.in_([delivery for delivery, _ in ended]))
        )
        return self._remove_unreferenced_files(file_rows, node)

    def await_acknowledgement(self, delivery_id: int, offer_again_ms: int) -> None:
        """Delivered to a privileged subscription: kept, and offered again at ``offer_again_ms``."""
        self.session.connection().execute(
            sa.update(deliveries).where(deliveries.c.id == delivery_id).values(offer_again_ms=offer_again_ms)
        )

    def acknowledge(self, sub_id: int, publish_id: str, node: str) -> list[str] | None:
        """The subscriber is done with the file: its deliveries for the subscription end (at whichever
        node holds them). None when none is queued; else ``node``'s blobs no longer needed."""
        query = (
            sa.select(deliveries.c.id, deliveries.c.file_row)
            .join(files, files.c.id == deliveries.c.file_row)
            .where(deliveries.c.sub_id == sub_id, files.c.publish_id == publish_id)
        )
        found = self.session.connection().execute(query).all()
        if not found:
            return None
        file_rows = sorted({int(row.file_row) for row in found})
        self._lock_files(file_rows)
        self.session.connection().execute(
            sa.delete(deliveries).where(deliveries.c.id.in_([row.id for row in found]))
        )
        return self._remove_unreferenced_files(file_rows, node)

    def count_attempt(self, delivery_id: int) -> None:
        self.session.connection().execute(
            sa.update(deliveries)
            .where(deliveries.c.id == delivery_id)
            .values(attempts=deliveries.c.attempts + 1)
        )

    def _lock_files(self, file_rows: list[int]) -> None:
        if file_rows:
            self.session.connection().execute(
                sa.select(files.c.id).where(files.c.id.in_(file_rows)).order_by(files.c.id).with_for_update()
            ).all()

    def _remove_unreferenced_files(self, file_rows: list[int], node: str) -> list[str]:
        """Delete the rows of ``node``'s files no delivery needs; their blobs (another node's files
        stay for their holder to sweep: no node touches another's spool)."""
        if not file_rows:
            return []
        still_needed = sa.exists().where(deliveries.c.file_row == files.c.id)
        unreferenced = (
            self.session.connection()
            .execute(
                sa.select(files.c.id, files.c.blob).where(
                    files.c.id.in_(file_rows), files.c.node == node, ~still_needed
                )
            )
            .all()
        )
        if not unreferenced:
            return []
        self.session.connection().execute(
            sa.delete(files).where(files.c.id.in_([row.id for row in unreferenced]))
        )
        return [row.blob for row in unreferenced if row.blob]

    def sweep_unreferenced_files(self, node: str, limit: int = 500) -> list[str]:
        """Rows of ``node``'s files that lost their last delivery elsewhere; their blobs to remove."""
        still_needed = sa.exists().where(deliveries.c.file_row == files.c.id)
        rows = (
            self.session.connection()
            .execute(
                sa.select(files.c.id)
                .where(files.c.node == node, ~still_needed)
                .order_by(files.c.id)
                .limit(limit)
            )
            .scalars()
        )
        file_rows = [int(row) for row in rows]
        self._lock_files(file_rows)
        return self._remove_unreferenced_files(file_rows, node)

    # --- claims ----------------------------------------------------------------------------

    def any_due(self, node: str, now_ms: int) -> bool:
        """A read-only look first, so idle workers do not take the (SQLite) write lock to find nothing."""
        return (
            self.session.connection().execute(_DUE_QUEUES, {"node": node, "now_ms": now_ms}).first()
            is not None
        )

    def claim_next(self, node: str, now_ms: int, lease_ms: int) -> int | None:
        """Claim ``node``'s subscription queue that is due longest, has work and is free; its sub id.

        The claimer is the node itself: only the node holding the files may work on them.
        """
        candidate = (
            self.session.connection().execute(_CLAIMABLE_QUEUE, {"node": node, "now_ms": now_ms}).scalar()
        )
        if candidate is None:
            return None
        claimed = self._run(
            sa.update(queues)
            .where(_queue_of(candidate, node), _is_free(now_ms))
            .values(claimed_by=node, claimed_until_ms=now_ms + lease_ms),
        )
        return int(candidate) if claimed.rowcount == 1 else None

    def extend_claim(self, sub_id: int, node: str, until_ms: int) -> bool:
        """Push the lease on; False when the claim was lost (lease ran out and it was claimed again)."""
        result = self._run(
            sa.update(queues)
            .where(_queue_of(sub_id, node), queues.c.claimed_by == node)
            .values(claimed_until_ms=until_ms),
        )
        return result.rowcount == 1

    def release_claim(self, sub_id: int, node: str, *, retry_at_ms: int | None = None) -> None:
        values: dict[str, Any] = {"claimed_by": None, "claimed_until_ms": None}
        if retry_at_ms is not None:
            values["retry_at_ms"] = retry_at_ms
        self.session.connection().execute(
            sa.update(queues).where(_queue_of(sub_id, node), queues.c.claimed_by == node).values(**values)
        )

    def release_claims_except(self, claimer: str, kept: Collection[int]) -> int:
        """Free every queue held by ``claimer`` but those of ``kept`` (the sub ids its workers drain)."""
        held = queues.c.claimed_by == claimer
        condition = held if not kept else sa.and_(held, queues.c.sub_id.not_in(list(kept)))
        result = self._run(sa.update(queues).where(condition).values(claimed_by=None, claimed_until_ms=None))
        return int(result.rowcount)

    def release_all_claims(self, claimer: str) -> int:
        """Free every queue held by ``claimer`` (a restarted node frees its crashed claims)."""
        result = self._run(
            sa.update(queues)
            .where(queues.c.claimed_by == claimer)
            .values(claimed_by=None, claimed_until_ms=None),
        )
        return int(result.rowcount)

    def postpone(self, sub_id: int, node: str, retry_at_ms: int, delay_s: float) -> None:
        """Pause the subscription queue at ``node`` until ``retry_at_ms`` (backoff after a failure)."""
        self.session.connection().execute(
            sa.update(queues)
            .where(_queue_of(sub_id, node))
            .values(retry_at_ms=retry_at_ms, retry_delay_s=delay_s)
        )

    def reset_backoff(self, sub_id: int, node: str) -> None:
        self.session.connection().execute(
            sa.update(queues).where(_queue_of(sub_id, node)).values(retry_delay_s=0.0)
        )

    def remember_redirect(self, sub_id: int, base: str | None) -> None:
        """A subscriber's redirect is the subscription's, whichever node learned it."""
        self.session.connection().execute(
            sa.update(queues).where(queues.c.sub_id == sub_id).values(redirect_base=base)
        )

    # --- reading the queue -----------------------------------------------------------------

    def heads_of_queue(
        self, sub_id: int, node: str, now_ms: int, limit: int
    ) -> tuple[list[DeliveryJob], float]:
        """Up to ``limit`` of the oldest due deliveries of the subscription at ``node``, oldest first, and
        the queue's current backoff delay."""
        values = {"sub_id": sub_id, "node": node, "now_ms": now_ms, "limit": limit}
        connection = self.session.connection()
        queue = connection.execute(_QUEUE_STATE, values).first()
        if queue is None:
            return [], 0.0
        rows = connection.execute(_HEADS, values).mappings()
        return [_job(row, queue.redirect_base) for row in rows], float(queue.retry_delay_s)

    def depth(self, node: str | None = None) -> int:
        """Deliveries and forwards waiting at ``node`` (None: at every node), in every subscription queue."""
        statement = sa.select(sa.func.count()).select_from(deliveries)
        if node is not None:
            statement = statement.where(deliveries.c.node == node)
        return int(self.session.connection().execute(statement).scalar_one())

    def adopt_orphans(self, node: str, blob_held: Callable[[str], bool]) -> int:
        """Files spooled before nodes existed (node ``""``) whose blob this node holds become its own.

        Retractions (no blob) go to the first node that starts. The number adopted.
        """
        orphans = (
            self.session.connection()
            .execute(sa.select(files.c.id, files.c.blob).where(files.c.node == ""))
            .all()
        )
        adopted = [row.id for row in orphans if row.blob is None or blob_held(row.blob)]
        if not adopted:
            return 0
        self.session.connection().execute(sa.update(files).where(files.c.id.in_(adopted)).values(node=node))
        self.session.connection().execute(
            sa.update(deliveries).where(deliveries.c.file_row.in_(adopted)).values(node=node)
        )
        sub_ids = (
            self.session.connection()
            .execute(sa.select(deliveries.c.sub_id).where(deliveries.c.file_row.in_(adopted)).distinct())
            .scalars()
        )
        chosen = [int(sub_id) for sub_id in sub_ids]
        if chosen:
            self._ensure_queues(node, chosen)
        return len(adopted)

    # --- giving files up (spool space) -----------------------------------------------------

    def oldest_spooled(self, node: str, limit: int) -> list[int]:
        """Rows of up to ``limit`` of ``node``'s files that hold a body (a blob, or one kept in the
        row), oldest first."""
        statement = (
            sa.select(files.c.id)
            .where(files.c.node == node, sa.or_(files.c.blob.is_not(None), files.c.body.is_not(None)))
            .order_by(files.c.id)
            .limit(limit)
        )
        return [int(row) for row in self.session.connection().execute(statement).scalars()]

    def end_file(self, file_row: int, node: str) -> tuple[list[DeliveryJob], list[str]]:
        """Give up ``node``'s file: every delivery of it ends. The deliveries that were waiting (for
        their log records), and the blobs no longer needed."""
        self._lock_files([file_row])
        statement = (
            _jobs()
            .add_columns(queues.c.redirect_base)
            .outerjoin(
                queues, (queues.c.sub_id == deliveries.c.sub_id) & (queues.c.node == deliveries.c.node)
            )
            .where(deliveries.c.file_row == file_row)
            .order_by(deliveries.c.id)
        )
        jobs = [
            _job(row, row["redirect_base"]) for row in self.session.connection().execute(statement).mappings()
        ]
        self.session.connection().execute(sa.delete(deliveries).where(deliveries.c.file_row == file_row))
        return jobs, self._remove_unreferenced_files([file_row], node)
