"""A topic's roles and its clients' memberships, provisioned in the authz service (issue 23, 2).

:class:`..router.provisioning.RouterProvisioner` calls these while it holds the provisioning lock
and has no transaction open, in the same pass as the router calls: a topic's roles are created
before its routers are told to grant them, a client's memberships after its grants. What authz
does not take when asked to add is retried with the object (it is INVALID); what it does not
take when asked to remove, where no object stays to retry it (a deleted topic's roles, a replaced
client's old memberships), is kept in ``bus_authz_removals`` and retried by the reconcile.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ....store.db import Database
from ....store.unit_of_work import UnitOfWork
from ...repository.authz_removals import AuthzRemovalRepository, Removal
from ...roles import Membership, role_description, topic_roles
from ...schemas import Topic
from .client import AuthzCallFailed, AuthzClient


class TopicRoles:
    """Calls that raise :class:`.client.AuthzCallFailed`, and removals that keep what failed."""

    def __init__(self, db: Database, authz: AuthzClient) -> None:
        self.removals = UnitOfWork(db, AuthzRemovalRepository)
        self.authz = authz

    def create(self, topic: Topic) -> None:
        """The topic's roles (one that exists already counts as created)."""
        for role in topic_roles(topic):
            self.authz.create_role(role, role_description(topic, role))

    def join(self, memberships: Iterable[Membership]) -> None:
        for identity, role in sorted(memberships):
            self.authz.add_member(identity, role)

    def leave(self, memberships: Iterable[Membership]) -> None:
        for identity, role in sorted(memberships):
            self.authz.remove_member(identity, role)

    def leave_or_keep(self, fqtn: str, memberships: Iterable[Membership]) -> str | None:
        """Remove the memberships; keep each that authz did not remove, to retry. The reasons."""
        failures = []
        for identity, role in sorted(memberships):
            reason = self._removed(self.authz.remove_member, identity, role)
            if reason:
                failures.append(reason)
                self._keep(fqtn, role, identity, reason)
        return "; ".join(failures) or None

    def delete(self, topic: Topic, now: Topic | None) -> None:
        """Delete a deleted topic's roles (their memberships go with them) unless ``now``, the
        topic of that name created again meanwhile, holds them; keep each that failed, to retry."""
        fqtn = topic.fqtn or ""
        in_use = set(topic_roles(now)) if now is not None else set()
        for role in topic_roles(topic):
            if role not in in_use:
                reason = self._removed(self.authz.delete_role, role)
                if reason:
                    self._keep(fqtn, role, None, reason)

    def retry(self, removal: Removal, now: Topic | None, needed: set[Membership]) -> str | None:
        """Remove it again unless it is in use again: ``now`` (the topic of that name now) holds
        the role, or one of its live clients needs the membership (``needed``). None when nothing
        is left to remove, else the reason."""
        roles = set(topic_roles(now)) if now is not None else set()
        if removal.member is None:
            return None if removal.role in roles else self._removed(self.authz.delete_role, removal.role)
        if removal.role not in roles:  # the role went with its topic, and the membership with it
            return None
        if (removal.member, removal.role) in needed:
            return None
        return self._removed(self.authz.remove_member, removal.member, removal.role)

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
