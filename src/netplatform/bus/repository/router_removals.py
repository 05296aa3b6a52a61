"""Grants a router did not revoke when asked, kept until a retry succeeds (or is not needed)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import insert, select, update

from .. import tables
from .removals import KeptRemovals


@dataclass(frozen=True)
class RouterRemoval:
    """Revoke ``identity``'s ``kind`` grant (producers or consumers) on ``fqtn`` at ``router``."""

    id: int
    router: str
    fqtn: str
    kind: str
    identity: str
    reason: str | None = None


class RouterRemovalRepository(KeptRemovals):
    table = tables.router_removals

    def remember(self, router: str, fqtn: str, kind: str, identity: str, reason: str) -> None:
        """Keep a revoke to retry (once: a pending one of the same grant is updated)."""
        table = self.table
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
        table = self.table
        found = self.session.execute(select(table).order_by(table.c.id)).mappings()
        return [
            RouterRemoval(row["id"], row["router"], row["fqtn"], row["kind"], row["identity"], row["reason"])
            for row in found
        ]
