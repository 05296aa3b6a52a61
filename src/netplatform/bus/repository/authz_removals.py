"""Removals the authz service did not take when asked, kept until a retry succeeds."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert, select, update

from .. import tables
from .removals import KeptRemovals


@dataclass(frozen=True)
class Removal:
    """A role of topic ``fqtn`` to delete (``member`` None), or ``member``'s membership of it."""

    id: int
    fqtn: str
    role: str
    member: str | None
    reason: str | None = None


class AuthzRemovalRepository(KeptRemovals):
    table = tables.authz_removals

    def remember(self, fqtn: str, role: str, member: str | None, reason: str) -> None:
        """Keep a removal to retry (once: a pending one of the same role and member is updated)."""
        table = self.table
        same_member = table.c.member.is_(None) if member is None else table.c.member == member
        found = self.session.execute(select(table.c.id).where(table.c.role == role, same_member)).scalar()
        if found is not None:
            self.session.execute(update(table).where(table.c.id == found).values(fqtn=fqtn, reason=reason))
            return
        self.session.execute(insert(table).values(fqtn=fqtn, role=role, member=member, reason=reason))

    def pending(self) -> list[Removal]:
        table = self.table
        found = self.session.execute(select(table).order_by(table.c.id)).mappings()
        return [Removal(row["id"], row["fqtn"], row["role"], row["member"], row["reason"]) for row in found]
