"""Log records: written in the transaction of the event they record, queried per feed or subscription,
pruned per feed past the retention bounds (age and count)."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..log_model import ExpiryReason, LogRecord, RecordType
from ..log_query import LogQuery
from ..tables import feeds, logs


def _log_values(record: LogRecord) -> dict[str, Any]:
    return {
        "type": str(record.type),
        "date_ms": record.date_ms,
        "feed_id": record.feed_id,
        "sub_id": record.sub_id,
        "publish_id": record.publish_id,
        "request_uri": record.request_uri,
        "method": record.method,
        "content_type": record.content_type,
        "content_length": record.content_length,
        "source_ip": record.source_ip,
        "endpoint_id": record.endpoint_id,
        "file_name": record.file_name,
        "status_code": record.status_code,
        "delivery_id": record.delivery_id,
        "expiry_reason": str(record.expiry_reason) if record.expiry_reason else None,
        "attempts": record.attempts,
        "node": record.node,
    }


def _record(row: Any) -> LogRecord:
    return LogRecord(
        type=RecordType(row["type"]),
        date_ms=row["date_ms"],
        feed_id=row["feed_id"],
        sub_id=row["sub_id"],
        publish_id=row["publish_id"],
        request_uri=row["request_uri"],
        method=row["method"],
        content_type=row["content_type"],
        content_length=row["content_length"],
        source_ip=row["source_ip"],
        endpoint_id=row["endpoint_id"],
        file_name=row["file_name"],
        status_code=row["status_code"],
        delivery_id=row["delivery_id"],
        expiry_reason=ExpiryReason(row["expiry_reason"]) if row["expiry_reason"] else None,
        attempts=row["attempts"],
        node=row["node"],
    )


LogMark = tuple[int, int]
"""A record's place in a feed's log order: ``(date_ms, id)``."""
LAST_ID = (1 << 63) - 1


def age_mark(before_ms: int) -> LogMark:
    """The mark that every record older than ``before_ms`` is at or before."""
    return (before_ms - 1, LAST_ID)


class LogRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def insert(self, record: LogRecord) -> None:
        self.insert_all([record])

    def insert_all(self, records: list[LogRecord]) -> None:
        """Several records in one statement (a run of deliveries is recorded together)."""
        if records:
            self.session.connection().execute(sa.insert(logs), [_log_values(record) for record in records])

    def feed_log(self, feed_id: int, query: LogQuery) -> list[LogRecord]:
        """The feed's publish records and the delivery and expiry records of all its subscriptions."""
        return self._select(logs.c.feed_id == feed_id, query)

    def subscription_log(self, sub_id: int, feed_id: int, query: LogQuery) -> list[LogRecord]:
        """The publish records of the subscription's feed and its own delivery and expiry records."""
        scope = sa.or_(
            sa.and_(logs.c.type == str(RecordType.PUBLISH), logs.c.feed_id == feed_id),
            logs.c.sub_id == sub_id,
        )
        return self._select(scope, query)

    def _select(self, scope: sa.ColumnElement[bool], query: LogQuery) -> list[LogRecord]:
        conditions = [
            scope,
            logs.c.type.in_([str(t) for t in query.types]),
            logs.c.date_ms.between(query.start_ms, query.end_ms),
        ]
        if query.publish_id is not None:
            conditions.append(logs.c.publish_id == query.publish_id)
        if query.file_name is not None:
            conditions.append(logs.c.file_name == query.file_name)
        if query.expiry_reason is not None:
            conditions.append(logs.c.expiry_reason == str(query.expiry_reason))
        if query.status is not None:
            conditions.append(logs.c.status_code >= query.status.lowest)
            if query.status.highest is not None:
                conditions.append(logs.c.status_code <= query.status.highest)
        statement = sa.select(logs).where(*conditions).order_by(logs.c.date_ms, logs.c.id)
        return [_record(row) for row in self.session.connection().execute(statement).mappings()]

    # --- sites: an edge ships its records to central (distribution/sites/) ----------------

    def after(self, last_id: int, limit: int) -> list[tuple[int, LogRecord]]:
        """Up to ``limit`` of this database's own records past id ``last_id``, by id."""
        statement = (
            sa.select(logs)
            .where(logs.c.id > last_id, logs.c.origin_id.is_(None))
            .order_by(logs.c.id)
            .limit(limit)
        )
        rows = self.session.connection().execute(statement).mappings()
        return [(int(row["id"]), _record(row)) for row in rows]

    def take_shipped(self, node: str, records: list[tuple[int, LogRecord]]) -> int:
        """Insert the records ``node`` shipped (each with its id there) that are not here yet;
        how many were new. A batch sent again after a lost answer adds nothing."""
        if not records:
            return 0
        origin_ids = [origin for origin, _ in records]
        held = set(
            self.session.connection()
            .execute(sa.select(logs.c.origin_id).where(logs.c.node == node, logs.c.origin_id.in_(origin_ids)))
            .scalars()
        )
        rows = [
            {**_log_values(record), "node": node, "origin_id": origin}
            for origin, record in records
            if origin not in held
        ]
        if rows:
            self.session.connection().execute(sa.insert(logs), rows)
        return len(rows)

    # --- retention -------------------------------------------------------------------------

    def feed_ids(self) -> list[int]:
        """Every feed that may have log records (deleted feeds keep theirs)."""
        found = self.session.connection().execute(sa.select(feeds.c.id).order_by(feeds.c.id))
        return [int(feed_id) for feed_id in found.scalars()]

    def newest_past(self, feed_id: int, keep: int) -> LogMark | None:
        """The newest of the feed's records that are not among its ``keep`` newest; None when it has
        no more."""
        row = (
            self.session.connection()
            .execute(
                sa.select(logs.c.date_ms, logs.c.id)
                .where(logs.c.feed_id == feed_id)
                .order_by(logs.c.date_ms.desc(), logs.c.id.desc())
                .offset(keep)
                .limit(1)
            )
            .first()
        )
        return None if row is None else (int(row.date_ms), int(row.id))

    def prunable(self, feed_id: int, through: LogMark, limit: int, up_to_id: int | None = None) -> list[int]:
        """Up to ``limit`` ids of the feed's records at or before ``through``, oldest first; with
        ``up_to_id``, only records with an id up to it (an edge keeps what it has not shipped)."""
        date_ms, row_id = through
        statement = (
            sa.select(logs.c.id)
            # the first condition is a range of the (feed_id, date_ms) index; the second settles ties
            .where(logs.c.feed_id == feed_id, logs.c.date_ms <= date_ms)
            .where(sa.or_(logs.c.date_ms < date_ms, logs.c.id <= row_id))
            .order_by(logs.c.date_ms, logs.c.id)
            .limit(limit)
        )
        if up_to_id is not None:
            statement = statement.where(logs.c.id <= up_to_id)
        return [int(found) for found in self.session.connection().execute(statement).scalars()]

    def delete(self, ids: list[int]) -> None:
        """Remove these records; ids another instance removed first are simply gone already."""
        self.session.connection().execute(sa.delete(logs).where(logs.c.id.in_(ids)))
