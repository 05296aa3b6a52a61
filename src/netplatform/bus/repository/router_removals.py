"""Grants a router did not revoke when asked, kept until a retry succeeds (or is not needed)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from .. import tables


@dataclass(frozen=True)
class RouterRemoval:
    """Revoke ``identity``'s ``kind`` grant (producers or consumers) on ``fqtn`` at ``router``."""

    id: int
    router: str
    fqtn: str
    kind: str
    identity: str
    reason: str | None = None


class RouterRemovalRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def remember(self, router: str, fqtn: str, kind: str, identity: str, reason: str) -> None:
        """Keep a revoke to retry (once: a pending one of the same grant is updated)."""
        table = tables.router_removals
        same = (
            table.c.router == router,
            table.c.fqtn == fqtn,
            table.c.kind == kind,
            table.c.identity == identity,
        )
        found = self.session.execute(select(table.c.id).where(*same)).scalar()
        if found is not None:
            self.session.execute(update(table).where(table.c.id == found).values(reason=reason))
            return
        self.session.execute(
            insert(table).values(router=router, fqtn=fqtn, kind=kind, identity=identity, reason=reason)
        )

    def pending(self) -> list[RouterRemoval]:
        table = tables.router_removals
        found = self.session.execute(select(table).order_by(table.c.id)).mappings()
        return [
            RouterRemoval(row["id"], row["router"], row["fqtn"], row["kind"], row["identity"], row["reason"])
            for row in found
        ]

    def settle(self, removal_id: int, reason: str | None) -> None:
        """Drop the revoke once done or no longer wanted (``reason`` None), else keep why it failed."""
        table = tables.router_removals
        if reason is None:
            self.session.execute(delete(table).where(table.c.id == removal_id))
        else:
            self.session.execute(update(table).where(table.c.id == removal_id).values(reason=reason))
