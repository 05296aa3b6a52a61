"""Grants cannot escalate: what an authz writer may pass on is bounded by what it holds.

The permission an operation declares (``perm|write``, ``userRole|write``, ``cred|write``) says
who may write the authorization tables at all; this module says how far. A writer may

* grant or revoke a permission only when its own permissions cover it (every permission the
  granted one could match is matched by one it holds: :func:`~netplatform.access.permissions.covers`);
* add a member to a role, remove one, or delete the role, only when it covers every permission
  of the role (built-in roles included; a role with no permissions, as the bus's topic roles,
  is within everyone's bound);
* change the password of an identity, or delete it, only when it covers every permission the
  identity holds (a new identity holds none).

``platform.admin`` holds ``*|*|*``, so it may do all. Every check reads the caller's grants and
the target's in the write's own transaction (not the decision cache), after the rows the write
changes are locked, so a concurrent change cannot slip between the check and the write.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..access.bootstrap import ConfiguredIdentities
from ..access.directory import grants_in, role_permissions_in
from ..access.permissions import Permission, covers
from ..access.repository import AccessRepository
from ..clock import now_ms
from .errors import refused

BOUND_RULE = "an authz writer may pass on only permissions it holds itself"


class Bounds:
    """The checks, over the identities of NETPLATFORM_USERS and the stored tables."""

    def __init__(self, configured: ConfiguredIdentities) -> None:
        self.configured = configured

    def held(self, access: AccessRepository, caller: str) -> frozenset[Permission]:
        return grants_in(access, self.configured, caller, now_ms()).permissions

    def permission(self, access: AccessRepository, caller: str, permission: Permission, verb: str) -> None:
        """403 unless ``caller`` covers ``permission`` (``verb``: grant, revoke)."""
        if not covers(self.held(access, caller), permission):
            raise refused(f"User {caller} may not {verb} {permission}: it does not hold it ({BOUND_RULE})")

    def role(self, access: AccessRepository, caller: str, role: str, verb: str) -> None:
        """403 unless ``caller`` covers every permission of ``role`` (``verb``: add members to, ...)."""
        beyond = _uncovered(self.held(access, caller), role_permissions_in(access, role))
        if beyond:
            raise refused(
                f"User {caller} may not {verb} role {role}: the role holds {_listed(beyond)}, "
                f"which {caller} does not ({BOUND_RULE})"
            )

    def identity(self, access: AccessRepository, caller: str, identity: str, verb: str) -> None:
        """403 unless ``caller`` covers every permission ``identity`` holds (``verb``: change the
        password of, delete)."""
        for role in sorted(access.memberships(identity, now_ms())):
            access.role_description(role, lock=True)  # a grant to one of its roles waits for us
        target = grants_in(access, self.configured, identity, now_ms()).permissions
        beyond = _uncovered(self.held(access, caller), target)
        if beyond:
            raise refused(
                f"User {caller} may not {verb} identity {identity}: it holds {_listed(beyond)}, "
                f"which {caller} does not ({BOUND_RULE})"
            )


def _uncovered(held: frozenset[Permission], wanted: Iterable[Permission]) -> list[Permission]:
    return sorted(permission for permission in set(wanted) if not covers(held, permission))


def _listed(permissions: list[Permission], most: int = 3) -> str:
    named = ", ".join(str(permission) for permission in permissions[:most])
    return named if len(permissions) <= most else f"{named} and {len(permissions) - most} more"
