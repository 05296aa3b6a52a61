"""Roles and the permissions granted to them.

A built-in role (``access/builtin.py``) exists always: it cannot be created, deleted, granted
or ungranted here, since its permissions are code. A stored role is a row; deleting it deletes
its grants and memberships in the same transaction. A role only named by a NETPLATFORM_USERS
entry (never created) is known to the listings, with no permissions, so its configured
members can be seen.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..access.bootstrap import ConfiguredIdentities
from ..access.builtin import BUILTIN_ROLES, is_builtin
from ..access.permissions import Permission
from ..access.repository import AccessRepository
from ..store.db import Database
from ..store.unit_of_work import UnitOfWork
from .bounds import Bounds
from .errors import exists, not_found, refused
from .schemas import Perm, Role

BUILTIN_RULE = "is built in: its permissions are code, and it cannot be deleted"


def perms(permissions: Iterable[Permission]) -> list[Perm]:
    """Wire permissions, each once, in a stable order."""
    return [Perm.of(permission) for permission in sorted(set(permissions))]


def builtin_role(name: str) -> Role:
    description, granted = BUILTIN_ROLES[name]
    return Role(name=name, description=description, perms=perms(granted), builtin=True)


def stored_role(name: str, description: str, granted: Iterable[Permission]) -> Role:
    return Role(name=name, description=description, perms=perms(granted), builtin=False)


def configured_role_names(configured: ConfiguredIdentities) -> set[str]:
    return {role for held in configured.roles.values() for role in held}


def role_known(access: AccessRepository, configured: ConfiguredIdentities, role: str) -> bool:
    """Built in, stored, or named by a NETPLATFORM_USERS entry (what the listings answer for)."""
    return (
        is_builtin(role)
        or access.role_description(role) is not None
        or role in configured_role_names(configured)
    )


def describe_roles(access: AccessRepository, names: Iterable[str]) -> list[Role]:
    """The named roles with their permissions: built-in ones first (in their code order), then
    the others by name (a role only named by configuration has no description nor permissions)."""
    wanted = set(names)
    found = [builtin_role(name) for name in BUILTIN_ROLES if name in wanted]
    others = sorted(wanted - set(BUILTIN_ROLES))
    descriptions = access.role_descriptions(others)
    grants = access.role_permissions(others)
    for name in others:
        granted = (permission for role, permission in grants if role == name)
        found.append(stored_role(name, descriptions.get(name, ""), granted))
    return found


def require_stored_role(access: AccessRepository, role: str, *, lock: bool = False) -> None:
    """404 unless ``role`` is a stored role; 403 for a built-in one (it is code)."""
    if is_builtin(role):
        raise refused(f"Role {role} {BUILTIN_RULE}")
    if access.role_description(role, lock=lock) is None:
        raise not_found("role", role, "role")


class Roles:
    def __init__(self, db: Database, configured: ConfiguredIdentities) -> None:
        self.unit = UnitOfWork(db, AccessRepository)
        self.configured = configured
        self.bounds = Bounds(configured)

    def every(self) -> list[Role]:
        """The built-in roles with their permissions, then the stored ones by name."""
        stored, grants = self.unit.read(lambda access: (access.stored_roles(), access.every_grant()))
        granted: dict[str, list[Permission]] = {}
        for role, permission in grants:
            granted.setdefault(role, []).append(permission)
        found = [builtin_role(name) for name in BUILTIN_ROLES]
        for name, description in stored.items():
            if not is_builtin(name):
                found.append(stored_role(name, description, granted.get(name, ())))
        return found

    def create(self, name: str, description: str) -> Role:
        if is_builtin(name):
            raise exists(f"Role {name} exists: it {BUILTIN_RULE}", "name")

        def work(access: AccessRepository) -> None:
            if access.role_description(name) is not None:
                raise exists(f"Role {name} exists", "name")
            access.insert_role(name, description)

        self.unit.write(work)
        return Role(name=name, description=description, perms=[], builtin=False)

    def delete(self, name: str, caller: str) -> None:
        """Delete a stored role with its grants and memberships (``caller`` holding every
        permission of the role: deleting it revokes them from its members)."""
        if is_builtin(name):
            raise refused(f"Role {name} {BUILTIN_RULE}")

        def work(access: AccessRepository) -> None:
            if access.role_description(name, lock=True) is not None:
                self.bounds.role(access, caller, name, "delete")
            if not access.delete_role(name):
                raise not_found("role", name, "name")

        self.unit.write(work, retry=False)

    def grant(self, role: str, permission: Permission, caller: str) -> None:
        def work(access: AccessRepository) -> None:
            # The role's row stays locked until the grant commits, so a concurrent delete of
            # the role cannot leave the grant behind.
            require_stored_role(access, role, lock=True)
            self.bounds.permission(access, caller, permission, "grant")
            if access.is_granted(role, permission):
                raise exists(f"Role {role} is already granted {permission}", "perm")
            access.insert_grant(role, permission)

        self.unit.write(work)

    def ungrant(self, role: str, permission: Permission, caller: str) -> None:
        def work(access: AccessRepository) -> None:
            require_stored_role(access, role)
            self.bounds.permission(access, caller, permission, "revoke")
            if not access.delete_grant(role, permission):
                raise not_found("grant", f"{permission} to role {role}", "perm")

        self.unit.write(work, retry=False)

    def permissions_of(self, role: str) -> list[Perm]:
        def read(access: AccessRepository) -> list[Perm]:
            if not role_known(access, self.configured, role):
                raise not_found("role", role, "role")
            return describe_roles(access, [role])[0].perms

        return self.unit.read(read)
