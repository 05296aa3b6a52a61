"""Removals the authz service did not take when asked, kept until a retry succeeds."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from .. import tables


@dataclass(frozen=True)
class Removal:
    """A role of topic ``fqtn`` to delete (``member`` None), or ``member``'s membership of it."""

    id: int
    fqtn: str
    role: str
    member: str | None
    reason: str | None = None


def remember(session: Session, fqtn: str, role: str, member: str | None, reason: str) -> None:
    """Keep a removal to retry (once: a pending one of the same role and member is updated)."""
    table = tables.authz_removals
    same_member = table.c.member.is_(None) if member is None else table.c.member == member
    found = session.execute(select(table.c.id).where(table.c.role == role, same_member)).scalar()
    if found is not None:
        session.execute(update(table).where(table.c.id == found).values(fqtn=fqtn, reason=reason))
        return
    session.execute(insert(table).values(fqtn=fqtn, role=role, member=member, reason=reason))


def pending(session: Session) -> list[Removal]:
    table = tables.authz_removals
    found = session.execute(select(table).order_by(table.c.id)).mappings()
    return [Removal(row["id"], row["fqtn"], row["role"], row["member"], row["reason"]) for row in found]


def settle(session: Session, removal_id: int, reason: str | None) -> None:
    """Drop the removal once done (``reason`` None), else keep why it failed this time."""
    table = tables.authz_removals
    if reason is None:
        session.execute(delete(table).where(table.c.id == removal_id))
    else:
        session.execute(update(table).where(table.c.id == removal_id).values(reason=reason))
