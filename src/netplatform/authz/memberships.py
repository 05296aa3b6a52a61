"""Memberships: which identities hold which roles, and until when.

An identity holds the roles its NETPLATFORM_USERS entry lists (configuration: they cannot be
added or removed here) and its stored, unexpired memberships. An expired membership grants
nothing and is replaced when the same membership is added again.
"""

from __future__ import annotations

from ..access.bootstrap import ConfiguredIdentities
from ..access.builtin import is_builtin
from ..access.permissions import Permission
from ..access.repository import AccessRepository
from ..clock import now_ms
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .bounds import Bounds
from .errors import exists, not_found, refused
from .expiry import expiry_ms, wire_expiry
from .identities import CONFIGURED_RULE, identity_known
from .roles import describe_roles, perms, role_known
from .schemas import Member, MembershipAnswer, Perm, Role


class Memberships:
    def __init__(self, db: Database, configured: ConfiguredIdentities) -> None:
        self.unit = UnitOfWork(db, AccessRepository)
        self.configured = configured
        self.bounds = Bounds(configured)

    def add(self, user: str, role: str, expires: int | str | None, caller: str) -> MembershipAnswer:
        until = expiry_ms(expires, now_ms())

        def work(access: AccessRepository) -> None:
            # Both rows stay locked until the membership commits: a concurrent delete of the
            # identity or the role cannot leave it behind.
            if not identity_known(access, self.configured, user, lock=True):
                raise not_found("identity", user, "user")
            if not is_builtin(role) and access.role_description(role, lock=True) is None:
                raise not_found("role", role, "role")
            self.bounds.role(access, caller, role, "add members to")
            if role in self.configured.roles_of(user):
                raise exists(f"Identity {user} holds role {role}: its membership {CONFIGURED_RULE}", "role")
            if role in access.memberships(user, now_ms()):
                raise exists(f"Identity {user} is already a member of role {role}", "role")
            access.delete_membership(user, role)  # an expired one, if any
            access.insert_membership(user, role, until)

        self.unit.write(work)
        return MembershipAnswer(user=user, role=role, expires=wire_expiry(until))

    def remove(self, user: str, role: str, caller: str) -> None:
        """Remove a stored membership (expired or not), ``caller`` holding every permission of the role."""

        def work(access: AccessRepository) -> bool:
            self.bounds.role(access, caller, role, "remove members from")
            return access.delete_membership(user, role)

        removed = self.unit.write(work, retry=False)
        if removed:
            return
        if role in self.configured.roles_of(user):
            raise refused(f"The membership of {user} in role {role} {CONFIGURED_RULE}")
        raise not_found("membership", f"{user} in role {role}", "user")

    def roles_of(self, user: str) -> list[Role]:
        """The roles ``user`` holds now, with their permissions; 404 for an unknown identity."""
        return self.unit.read(lambda access: describe_roles(access, self._held(access, user)))

    def permissions_of(self, user: str) -> list[Perm]:
        """The union of the permissions of the roles ``user`` holds now."""
        held = self.unit.read(lambda access: describe_roles(access, self._held(access, user)))
        return perms(permission for role in held for permission in _permissions(role))

    def members_of(self, role: str) -> list[Member]:
        """The unexpired members of ``role``: configured ones first, then stored ones by name."""

        def read(access: AccessRepository) -> dict[str, int | None]:
            if not role_known(access, self.configured, role):
                raise not_found("role", role, "role")
            return access.members(role, now_ms())

        stored = self.unit.read(read)
        configured = self.configured.members_of(role)
        found = [Member(id=name, expires=None, configured=True) for name in configured]
        # A configured membership never expires, whatever a stored one of the same pair says.
        found += [
            Member(id=name, expires=wire_expiry(stored[name]))
            for name in sorted(stored)
            if name not in configured
        ]
        return found

    def _held(self, access: AccessRepository, user: str) -> set[str]:
        if not identity_known(access, self.configured, user):
            raise not_found("identity", user, "user")
        # The kernel's decision takes both: configured identities may hold stored memberships too.
        return set(self.configured.roles_of(user)) | set(access.memberships(user, now_ms()))


def _permissions(role: Role) -> list[Permission]:
    return [Permission(perm.type, perm.instance, perm.action) for perm in role.perms]
