"""Memberships: which identities hold which roles, and until when.

An identity holds the roles its NETPLATFORM_USERS entry lists (configuration: they cannot be
added or removed here) and its stored, unexpired memberships. An expired membership grants
nothing and is replaced when the same membership is added again.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from ..access import queries
from ..access.bootstrap import ConfiguredIdentities
from ..access.builtin import is_builtin
from ..clock import now_ms
from ..store.db import Database
from ..store.retry import write_with_retry
from ..web.permissions import Permission
from .errors import exists, not_found, refused
from .expiry import expiry_ms, wire_expiry
from .identities import CONFIGURED_RULE, identity_known
from .roles import describe_roles, perms, role_known
from .schemas import Member, MembershipAnswer, Perm, Role


class Memberships:
    def __init__(self, db: Database, configured: ConfiguredIdentities) -> None:
        self.db = db
        self.configured = configured

    def add(self, user: str, role: str, expires: int | str | None) -> MembershipAnswer:
        until = expiry_ms(expires, now_ms())

        def work(session: Session) -> None:
            # Both rows stay locked until the membership commits: a concurrent delete of the
            # identity or the role cannot leave it behind.
            if not identity_known(session, self.configured, user, lock=True):
                raise not_found("identity", user, "user")
            if not is_builtin(role) and queries.role_description(session, role, lock=True) is None:
                raise not_found("role", role, "role")
            if role in self.configured.roles_of(user):
                raise exists(f"Identity {user} holds role {role}: its membership {CONFIGURED_RULE}", "role")
            if role in queries.memberships(session, user, now_ms()):
                raise exists(f"Identity {user} is already a member of role {role}", "role")
            queries.delete_membership(session, user, role)  # an expired one, if any
            queries.insert_membership(session, user, role, until)

        write_with_retry(self.db, work)
        return MembershipAnswer(user=user, role=role, expires=wire_expiry(until))

    def remove(self, user: str, role: str) -> None:
        """Remove a stored membership (expired or not)."""
        with self.db.write() as session:
            removed = queries.delete_membership(session, user, role)
        if removed:
            return
        if role in self.configured.roles_of(user):
            raise refused(f"The membership of {user} in role {role} {CONFIGURED_RULE}")
        raise not_found("membership", f"{user} in role {role}", "user")

    def roles_of(self, user: str) -> list[Role]:
        """The roles ``user`` holds now, with their permissions; 404 for an unknown identity."""
        with self.db.read() as session:
            return describe_roles(session, self._held(session, user))

    def permissions_of(self, user: str) -> list[Perm]:
        """The union of the permissions of the roles ``user`` holds now."""
        with self.db.read() as session:
            held = describe_roles(session, self._held(session, user))
        return perms(permission for role in held for permission in _permissions(role))

    def members_of(self, role: str) -> list[Member]:
        """The unexpired members of ``role``: configured ones first, then stored ones by name."""
        with self.db.read() as session:
            if not role_known(session, self.configured, role):
                raise not_found("role", role, "role")
            stored = queries.members(session, role, now_ms())
        configured = self.configured.members_of(role)
        found = [Member(id=name, expires=None, configured=True) for name in configured]
        # A configured membership never expires, whatever a stored one of the same pair says.
        found += [
            Member(id=name, expires=wire_expiry(stored[name]))
            for name in sorted(stored)
            if name not in configured
        ]
        return found

    def _held(self, session: Session, user: str) -> set[str]:
        if not identity_known(session, self.configured, user):
            raise not_found("identity", user, "user")
        # The kernel's decision takes both: configured identities may hold stored memberships too.
        return set(self.configured.roles_of(user)) | set(queries.memberships(session, user, now_ms()))


def _permissions(role: Role) -> list[Permission]:
    return [Permission(perm.type, perm.instance, perm.action) for perm in role.perms]
