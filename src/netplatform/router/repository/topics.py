"""Control-plane queries: topics and their ACL entries."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ...clock import now_ms
from ..tables import READER, WRITER, acl_entries, topics
from ..topic_model import Acl, Principal, Topic

_ENABLED = {WRITER: topics.c.writer_acl_enabled, READER: topics.c.reader_acl_enabled}


class TopicRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def names(self) -> list[str]:
        return list(self.session.scalars(sa.select(topics.c.name).order_by(topics.c.name)))

    def exists(self, name: str) -> bool:
        return self.session.scalar(sa.select(topics.c.name).where(topics.c.name == name)) is not None

    def get(self, name: str, *, for_update: bool = False) -> Topic | None:
        query = sa.select(topics).where(topics.c.name == name)
        if for_update:
            query = query.with_for_update()
        row = self.session.execute(query).mappings().first()
        if row is None:
            return None
        members: dict[str, list[Principal]] = {WRITER: [], READER: []}
        columns = acl_entries.c
        listed = sa.select(columns.kind, columns.principal, columns.identity).where(columns.topic == name)
        for kind, principal, entry in self.session.execute(listed.order_by(columns.identity)):
            members[kind].append(Principal(principal, entry))
        return Topic(
            name=row["name"],
            description=row["description"],
            owner=row["owner"],
            txenabled=row["txenabled"],
            partition_count=row["partition_count"],
            replication_count=row["replication_count"],
            writer_acl=Acl(row["writer_acl_enabled"], tuple(members[WRITER])),
            reader_acl=Acl(row["reader_acl_enabled"], tuple(members[READER])),
            platform=row["platform"],
        )

    def insert(self, topic: Topic) -> None:
        self.session.execute(
            sa.insert(topics).values(
                name=topic.name,
                description=topic.description,
                owner=topic.owner,
                txenabled=topic.txenabled,
                partition_count=topic.partition_count,
                replication_count=topic.replication_count,
                writer_acl_enabled=False,
                reader_acl_enabled=False,
                created_ms=now_ms(),
                platform=topic.platform,
            )
        )

    def delete(self, name: str) -> None:
        self.session.execute(sa.delete(acl_entries).where(acl_entries.c.topic == name))
        self.session.execute(sa.delete(topics).where(topics.c.name == name))

    def grant(self, name: str, kind: str, principal: Principal) -> None:
        """Add ``principal`` to the ACL (once) and enable the ACL."""
        self.session.execute(sa.update(topics).where(topics.c.name == name).values({_ENABLED[kind]: True}))
        present = sa.select(acl_entries.c.identity).where(_entry(name, kind, principal))
        if self.session.scalar(present) is None:
            values = {"topic": name, "kind": kind, "principal": principal.kind, "identity": principal.name}
            self.session.execute(sa.insert(acl_entries).values(values))

    def revoke(self, name: str, kind: str, principal: Principal) -> None:
        """Remove ``principal`` from the ACL; the ACL stays enabled."""
        self.session.execute(sa.delete(acl_entries).where(_entry(name, kind, principal)))


def _entry(topic: str, kind: str, principal: Principal) -> sa.ColumnElement[bool]:
    columns = acl_entries.c
    return sa.and_(
        columns.topic == topic,
        columns.kind == kind,
        columns.principal == principal.kind,
        columns.identity == principal.name,
    )
