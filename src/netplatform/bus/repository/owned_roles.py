"""The authz roles the bus controller created (issue 36, point 6): the only ones it touches."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from .. import tables


class OwnedRoleRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def owned(self, roles: Iterable[str]) -> set[str]:
        """Those of ``roles`` the bus created."""
        wanted = list(roles)
        if not wanted:
            return set()
        table = tables.owned_roles
        return set(self.session.scalars(select(table.c.role).where(table.c.role.in_(wanted))))

    def record(self, role: str, fqtn: str, created: str) -> None:
        """The bus created ``role`` (for topic ``fqtn``); recorded once."""
        if not self.owned([role]):
            self.session.execute(insert(tables.owned_roles).values(role=role, fqtn=fqtn, created=created))

    def forget(self, role: str) -> None:
        """``role`` is deleted in authz: a role of that name made later is not the bus's."""
        self.session.execute(delete(tables.owned_roles).where(tables.owned_roles.c.role == role))
