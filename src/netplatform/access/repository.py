"""The authorization tables' repository: the queries both the kernel and the authz service run, in
the caller's transaction (it never opens one)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import ColumnElement, CursorResult, Executable, and_, or_, select
from sqlalchemy.orm import Session

from . import tables
from .permissions import Permission


def _grant_of(role: str, permission: Permission) -> list[ColumnElement[bool]]:
    p = tables.role_permissions.c
    return [
        p.role == role,
        p.type == permission.type,
        p.instance == permission.instance,
        p.action == permission.action,
    ]


class AccessRepository:
    """Identities, roles, their grants and memberships in the caller's transaction."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def password_hash(self, identity: str) -> str | None:
        found = self.session.execute(
            select(tables.identities.c.password_hash).where(tables.identities.c.id == identity)
        ).scalar()
        return str(found) if found is not None else None

    def memberships(self, user: str, now_ms: int) -> dict[str, int | None]:
        """The stored roles of ``user`` that have not expired, each with its expiry (None: never)."""
        m = tables.memberships.c
        rows = self.session.execute(
            select(m.role, m.expires).where(m.identity == user, or_(m.expires.is_(None), m.expires > now_ms))
        )
        return {str(role): (int(expires) if expires is not None else None) for role, expires in rows}

    def role_permissions(self, roles: Iterable[str]) -> list[tuple[str, Permission]]:
        """The stored grants of ``roles``: (role, permission) pairs."""
        names = sorted(set(roles))
        if not names:
            return []
        p = tables.role_permissions.c
        rows = self.session.execute(select(p.role, p.type, p.instance, p.action).where(p.role.in_(names)))
        return [(str(role), Permission(type_, instance, action)) for role, type_, instance, action in rows]

    def role_exists(self, role: str) -> bool:
        query = select(tables.roles.c.name).where(tables.roles.c.name == role)
        return self.session.execute(query).first() is not None

    def members(self, role: str, now_ms: int) -> dict[str, int | None]:
        """The unexpired members of a stored membership of ``role``."""
        m = tables.memberships.c
        rows = self.session.execute(
            select(m.identity, m.expires).where(
                and_(m.role == role, or_(m.expires.is_(None), m.expires > now_ms))
            )
        )
        return {str(user): (int(expires) if expires is not None else None) for user, expires in rows}

    # --- the authz service's own reads and writes ------------------------------------------

    def _changed(self, statement: Executable) -> bool:
        """Run an UPDATE or DELETE; whether it touched a row."""
        return bool(cast("CursorResult[Any]", self.session.execute(statement)).rowcount)

    def identity_exists(self, identity: str, *, lock: bool = False) -> bool:
        """Whether ``identity`` is stored; ``lock`` holds its row until the transaction ends
        (PostgreSQL; SQLite's write transactions are serial anyway), so a concurrent delete waits."""
        query = select(tables.identities.c.id).where(tables.identities.c.id == identity)
        return self.session.execute(query.with_for_update() if lock else query).first() is not None

    def identity_ids(self) -> list[str]:
        rows = self.session.execute(select(tables.identities.c.id).order_by(tables.identities.c.id))
        return [str(identity) for (identity,) in rows]

    def insert_identity(self, identity: str, password_hash: str, created_ms: int) -> None:
        self.session.execute(
            tables.identities.insert().values(id=identity, password_hash=password_hash, created=created_ms)
        )

    def update_password(self, identity: str, password_hash: str) -> bool:
        """Replace the stored hash; False when ``identity`` is not stored."""
        i = tables.identities.c
        return self._changed(
            tables.identities.update().where(i.id == identity).values(password_hash=password_hash)
        )

    def delete_identity(self, identity: str) -> bool:
        """Delete a stored identity and its memberships; False when it is not stored."""
        self.session.execute(tables.memberships.delete().where(tables.memberships.c.identity == identity))
        return self._changed(tables.identities.delete().where(tables.identities.c.id == identity))

    def stored_roles(self) -> dict[str, str]:
        """Every stored role's description, by name (in name order)."""
        r = tables.roles.c
        rows = self.session.execute(select(r.name, r.description).order_by(r.name))
        return {str(name): str(description or "") for name, description in rows}

    def role_description(self, role: str, *, lock: bool = False) -> str | None:
        """A stored role's description (None: no such stored role); ``lock`` as in :meth:`identity_exists`."""
        query = select(tables.roles.c.description).where(tables.roles.c.name == role)
        found = self.session.execute(query.with_for_update() if lock else query).first()
        return None if found is None else str(found[0] or "")

    def role_descriptions(self, roles: Iterable[str]) -> dict[str, str]:
        names = sorted(set(roles))
        if not names:
            return {}
        r = tables.roles.c
        rows = self.session.execute(select(r.name, r.description).where(r.name.in_(names)))
        return {str(name): str(description or "") for name, description in rows}

    def insert_role(self, role: str, description: str) -> None:
        self.session.execute(tables.roles.insert().values(name=role, description=description))

    def delete_role(self, role: str) -> bool:
        """Delete a stored role, its grants and its memberships; False when it is not stored."""
        self.session.execute(tables.role_permissions.delete().where(tables.role_permissions.c.role == role))
        self.session.execute(tables.memberships.delete().where(tables.memberships.c.role == role))
        return self._changed(tables.roles.delete().where(tables.roles.c.name == role))

    def is_granted(self, role: str, permission: Permission) -> bool:
        query = select(tables.role_permissions.c.role).where(*_grant_of(role, permission))
        return self.session.execute(query).first() is not None

    def insert_grant(self, role: str, permission: Permission) -> None:
        self.session.execute(
            tables.role_permissions.insert().values(
                role=role, type=permission.type, instance=permission.instance, action=permission.action
            )
        )

    def delete_grant(self, role: str, permission: Permission) -> bool:
        return self._changed(tables.role_permissions.delete().where(*_grant_of(role, permission)))

    def insert_membership(self, identity: str, role: str, expires_ms: int | None) -> None:
        self.session.execute(
            tables.memberships.insert().values(identity=identity, role=role, expires=expires_ms)
        )

    def delete_membership(self, identity: str, role: str) -> bool:
        m = tables.memberships.c
        return self._changed(tables.memberships.delete().where(m.identity == identity, m.role == role))

    def every_grant(self) -> list[tuple[str, Permission]]:
        """Every stored grant: (role, permission) pairs."""
        p = tables.role_permissions.c
        rows = self.session.execute(select(p.role, p.type, p.instance, p.action))
        return [(str(role), Permission(type_, instance, action)) for role, type_, instance, action in rows]
