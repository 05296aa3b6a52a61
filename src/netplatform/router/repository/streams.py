"""The embedded engine's queries: streams, their messages and consumer groups' positions.

Order per topic: publishing reserves a range of sequence numbers by UPDATE of the stream's
row. On PostgreSQL that row stays locked until the publishing transaction commits, so a later
range never commits before an earlier one and a reader that has seen sequence n has seen
everything below it. SQLite runs one writer at a time, which gives the same.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from ..tables import claims, group_positions, messages, streams


class StreamRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def _insert_absent(self, table: sa.Table, values: dict[str, object]) -> None:
        """INSERT that does nothing when the key exists (a concurrent creator won)."""
        dialect = postgresql if self.session.get_bind().dialect.name == "postgresql" else sqlite
        self.session.execute(dialect.insert(table).values(values).on_conflict_do_nothing())

    def stream_id(self, topic: str) -> int | None:
        return self.session.scalar(sa.select(streams.c.id).where(streams.c.topic == topic))

    def last_seq(self, topic: str) -> int | None:
        """The last sequence reserved in the topic's stream (committed: a rolled-back range rolls
        back its reservation too); None without a stream."""
        next_seq = self.session.scalar(sa.select(streams.c.next_seq).where(streams.c.topic == topic))
        return None if next_seq is None else int(next_seq) - 1

    def stream_ids(self) -> list[int]:
        return list(self.session.scalars(sa.select(streams.c.id)))

    def create(self, topic: str) -> None:
        self._insert_absent(streams, {"topic": topic, "next_seq": 1})

    def drop(self, topic: str) -> None:
        stream_id = self.stream_id(topic)
        if stream_id is None:
            return
        self.session.execute(sa.delete(messages).where(messages.c.stream_id == stream_id))
        self.session.execute(sa.delete(group_positions).where(group_positions.c.stream_id == stream_id))
        self.session.execute(sa.delete(claims).where(claims.c.stream_id == stream_id))
        self.session.execute(sa.delete(streams).where(streams.c.id == stream_id))

    def reserve(self, topic: str, count: int) -> tuple[int, int] | None:
        """(stream id, first sequence) of ``count`` new sequence numbers; None without a stream."""
        row = self.session.execute(
            sa.update(streams)
            .where(streams.c.topic == topic)
            .values(next_seq=streams.c.next_seq + count)
            .returning(streams.c.id, streams.c.next_seq)
        ).first()
        return None if row is None else (int(row[0]), int(row[1]) - count)

    def append(self, stream_id: int, first_seq: int, bodies: Sequence[str], published_ms: int) -> None:
        """One executemany straight to the driver: SQLAlchemy's per-row parameter processing
        (for columns that need none) cost a third of the CPU of a batched publish."""
        connection = self.session.connection()
        rows = [(stream_id, first_seq + offset, published_ms, body) for offset, body in enumerate(bodies)]
        connection.exec_driver_sql(_insert_messages(connection.dialect), rows)

    def lock_position(self, stream_id: int, group: str) -> int:
        """The group's position, its row locked (PostgreSQL) until commit; created at 0 when new."""
        self._insert_absent(group_positions, {"stream_id": stream_id, "group_name": group, "position": 0})
        query = (
            sa.select(group_positions.c.position)
            .where(group_positions.c.stream_id == stream_id, group_positions.c.group_name == group)
            .with_for_update()
        )
        return int(self.session.scalar(query) or 0)

    def position(self, stream_id: int, group: str) -> int:
        query = sa.select(group_positions.c.position).where(
            group_positions.c.stream_id == stream_id, group_positions.c.group_name == group
        )
        return int(self.session.scalar(query) or 0)

    def move(self, stream_id: int, group: str, position: int) -> None:
        self.session.execute(
            sa.update(group_positions)
            .where(group_positions.c.stream_id == stream_id, group_positions.c.group_name == group)
            .values(position=position)
        )

    def move_back(self, stream_id: int, group: str, position: int) -> None:
        """Lower the group's position to ``position``; one already lower stays (never forward)."""
        self.session.execute(
            sa.update(group_positions)
            .where(
                group_positions.c.stream_id == stream_id,
                group_positions.c.group_name == group,
                group_positions.c.position > position,
            )
            .values(position=position)
        )

    # -- claims whose answer is being written ------------------------------------------------

    def record_claim(self, stream_id: int, group: str, first_seq: int, holder: str, until_ms: int) -> int:
        row = self.session.execute(
            sa.insert(claims)
            .values(
                stream_id=stream_id, group_name=group, first_seq=first_seq, holder=holder, until_ms=until_ms
            )
            .returning(claims.c.id)
        ).one()
        return int(row[0])

    def forget_claim(self, claim_id: int) -> None:
        self.session.execute(sa.delete(claims).where(claims.c.id == claim_id))

    def lapsed_claims(
        self, now_ms: int, holder: str, holder_before_ms: int, limit: int
    ) -> list[tuple[int, int, str, int]]:
        """(id, stream id, group, first sequence) of claims past their lease, and of ``holder``'s
        whose lease ends at or before ``holder_before_ms`` (made by an earlier run of that
        instance, which is answering none of them). "At": a claim made in the very millisecond
        this run started may be the earlier run's, so it is given back too; were it this run's,
        its messages come again (a duplicate, never a loss)."""
        earlier_run = sa.and_(claims.c.holder == holder, claims.c.until_ms <= holder_before_ms)
        lapsed = sa.or_(claims.c.until_ms < now_ms, earlier_run)
        query = (
            sa.select(claims.c.id, claims.c.stream_id, claims.c.group_name, claims.c.first_seq)
            .where(lapsed)
            .order_by(claims.c.id)
            .limit(limit)
        )
        return [
            (int(i), int(stream), str(group), int(first))
            for i, stream, group, first in self.session.execute(query)
        ]

    def after(self, stream_id: int, position: int, limit: int) -> list[tuple[int, str]]:
        """(sequence, body) of up to ``limit`` messages after ``position``, oldest first."""
        query = (
            sa.select(messages.c.seq, messages.c.body)
            .where(messages.c.stream_id == stream_id, messages.c.seq > position)
            .order_by(messages.c.seq)
            .limit(limit)
        )
        return [(int(seq), body) for seq, body in self.session.execute(query)]

    def has_after(self, stream_id: int, position: int) -> bool:
        query = sa.select(messages.c.seq).where(messages.c.stream_id == stream_id, messages.c.seq > position)
        return self.session.scalar(query.limit(1)) is not None

    def lags(self, stream_id: int) -> dict[str, int]:
        """Messages each group has still to get: sequences have no gaps (a rolled-back range
        rolls back its reservation too), so the lag is arithmetic, not a count."""
        next_seq = int(
            self.session.scalar(sa.select(streams.c.next_seq).where(streams.c.id == stream_id)) or 1
        )
        first = self.session.scalar(
            sa.select(sa.func.min(messages.c.seq)).where(messages.c.stream_id == stream_id)
        )
        oldest = int(first) if first is not None else next_seq
        rows = self.session.execute(
            sa.select(group_positions.c.group_name, group_positions.c.position).where(
                group_positions.c.stream_id == stream_id
            )
        )
        return {name: next_seq - 1 - max(int(position), oldest - 1) for name, position in rows}

    def expired_up_to(self, stream_id: int, cutoff_ms: int, scan: int) -> int | None:
        """The last sequence among the ``scan`` oldest messages published before ``cutoff_ms``."""
        query = (
            sa.select(messages.c.seq, messages.c.published_ms)
            .where(messages.c.stream_id == stream_id)
            .order_by(messages.c.seq)
            .limit(scan)
        )
        last = None
        for seq, published_ms in self.session.execute(query):
            if published_ms >= cutoff_ms:
                break
            last = int(seq)
        return last

    def delete_up_to(self, stream_id: int, seq: int) -> int:
        deleted = self.session.execute(
            sa.delete(messages).where(messages.c.stream_id == stream_id, messages.c.seq <= seq)
        )
        return int(deleted.rowcount)  # type: ignore[attr-defined]


def _insert_messages(dialect: sa.Dialect) -> str:
    mark = "?" if dialect.paramstyle == "qmark" else "%s"
    table = dialect.identifier_preparer.format_table(messages)
    columns = "stream_id, seq, published_ms, body"
    # Constants only (no caller input): the table, its columns and the driver's placeholders.
    return f"INSERT INTO {table} ({columns}) VALUES ({mark}, {mark}, {mark}, {mark})"  # noqa: S608
