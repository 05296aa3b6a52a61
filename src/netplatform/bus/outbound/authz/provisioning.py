"""A topic's roles and its clients' memberships, provisioned in the authz service (issue 23, 2).

:class:`..router.provisioning.RouterProvisioner` calls these while it holds the provisioning lock
and has no transaction open, in the same pass as the router calls: a topic's roles are created
before its routers are told to grant them, a client's memberships after its grants. What authz
does not take when asked to add is retried with the object (it is INVALID); what it does not
take when asked to remove, where no object stays to retry it (a deleted topic's roles, a replaced
client's old memberships), is kept in ``bus_authz_removals`` and retried by the reconcile.

Issue 36, point 6: the bus adopts only roles it created. Each role it creates (authz answered 2xx)
is recorded (``bus_owned_roles``); a role of that name that exists already and is not recorded
(authz answers 409) is someone else's, and the topic is INVALID naming the conflict. The bus adds
members to, removes members from and deletes only recorded roles, and the routers are granted
only those (``owned``), so no one gains a topic through a role that was not made for it, and no
topic's client joins a role someone else made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ....clock import wire_now
from ....store.db import Database
from ....store.unit_of_work import UnitOfWork
from ...repository.authz_removals import AuthzRemovalRepository, Removal
from ...repository.owned_roles import OwnedRoleRepository
from ...roles import Membership, role_description, topic_roles
from ...schemas import Topic
from .client import AuthzCallFailed, AuthzClient


class RoleConflict(AuthzCallFailed):
    """A role of the topic's role's name exists in authz and the bus did not create it."""


def _conflict(role: str, fqtn: str) -> RoleConflict:
    return RoleConflict(
        f"Failed to create role {role}: a role of that name exists in authz and was not created by the "
        f"bus controller, which does not adopt it for topic {fqtn} (delete or rename that role, or "
        "name the topic otherwise)"
    )


class TopicRoles:
    """Calls that raise :class:`.client.AuthzCallFailed`, and removals that keep what failed."""

    def __init__(self, db: Database, authz: AuthzClient) -> None:
        self.removals = UnitOfWork(db, AuthzRemovalRepository)
        self.roles = UnitOfWork(db, OwnedRoleRepository)
        self.authz = authz

    def owned(self, roles: Iterable[str]) -> set[str]:
        """Those of ``roles`` the bus created."""
        wanted = list(roles)
        return self.roles.read(lambda owned: owned.owned(wanted)) if wanted else set()

    def create(self, topic: Topic) -> None:
        """The topic's roles: created and recorded, or (recorded already) created again if they
        went; :class:`RoleConflict` for one that exists and is not the bus's."""
        fqtn = topic.fqtn or ""
        owned = self.owned(topic_roles(topic))
        for role in topic_roles(topic):
            created = self.authz.create_role(role, role_description(topic, role))
            if role in owned:
                continue
            if not created:
                raise _conflict(role, fqtn)
            self._record(role, fqtn)

    def _record(self, role: str, fqtn: str) -> None:
        self.roles.write(lambda repo: repo.record(role, fqtn, wire_now()), retry=False)

    def join(self, memberships: Iterable[Membership]) -> None:
        wanted = sorted(memberships)
        owned = self.owned(role for _identity, role in wanted)
        for identity, role in wanted:
            if role not in owned:  # never a member of a role the bus did not create
                raise AuthzCallFailed(
                    f"Failed to add user {identity} to role {role}: the role is not one the bus "
                    "controller created"
                )
            self.authz.add_member(identity, role)

    def leave(self, memberships: Iterable[Membership]) -> None:
        wanted = sorted(memberships)
        owned = self.owned(role for _identity, role in wanted)
        for identity, role in wanted:
            if role in owned:  # another's role's members are not the bus's to remove
                self.authz.remove_member(identity, role)

    def leave_or_keep(self, fqtn: str, memberships: Iterable[Membership]) -> str | None:
        """Remove the memberships of the bus's roles; keep each that authz did not remove, to
        retry. The reasons."""
        wanted = sorted(memberships)
        owned = self.owned(role for _identity, role in wanted)
        failures = []
        for identity, role in wanted:
            if role not in owned:
                continue
            reason = self._removed(self.authz.remove_member, identity, role)
            if reason:
                failures.append(reason)
                self._keep(fqtn, role, identity, reason)
        return "; ".join(failures) or None

    def delete(self, topic: Topic, now: Topic | None) -> None:
        """Delete a deleted topic's roles that the bus created (their memberships go with them)
        unless ``now``, the topic of that name created again meanwhile, holds them; keep each that
        failed, to retry."""
        fqtn = topic.fqtn or ""
        in_use = set(topic_roles(now)) if now is not None else set()
        for role in sorted(self.owned(topic_roles(topic)) - in_use):
            reason = self._deleted(role)
            if reason:
                self._keep(fqtn, role, None, reason)

    def retry(self, removal: Removal, now: Topic | None, needed: set[Membership]) -> str | None:
        """Remove it again unless it is in use again: ``now`` (the topic of that name now) holds
        the role, or one of its live clients needs the membership (``needed``), or the role is not
        the bus's (any more). None when nothing is left to remove, else the reason."""
        roles = set(topic_roles(now)) if now is not None else set()
        if removal.role not in self.owned([removal.role]):
            return None
        if removal.member is None:
            return None if removal.role in roles else self._deleted(removal.role)
        if removal.role not in roles:  # the role went with its topic, and the membership with it
            return None
        if (removal.member, removal.role) in needed:
            return None
        return self._removed(self.authz.remove_member, removal.member, removal.role)

    def _deleted(self, role: str) -> str | None:
        """Delete the bus's role and forget it once authz has none of that name; the reason it failed."""
        reason = self._removed(self.authz.delete_role, role)
        if reason is None:
            self.roles.write(lambda repo: repo.forget(role), retry=False)
        return reason

    @staticmethod
    def _removed(call: Callable[..., None], *args: str) -> str | None:
        try:
            call(*args)
        except AuthzCallFailed as failure:
            return failure.message
        return None

    def pending(self) -> list[Removal]:
        """The removals kept to retry (:meth:`retry`, then :meth:`settle`)."""
        return self.removals.read(lambda removals: removals.pending())

    def settle(self, removal: Removal, reason: str | None) -> None:
        self.removals.write(lambda removals: removals.settle(removal.id, reason), retry=False)

    def _keep(self, fqtn: str, role: str, member: str | None, reason: str) -> None:
        self.removals.write(lambda removals: removals.remember(fqtn, role, member, reason), retry=False)
