"""Who may do what on the message router: callers, ACL checks and topic administrators.

Issue 14: an enabled ACL admits only identities on it, or callers holding a role named on it;
a disabled one (no grant ever made) admits every authenticated user. Granting, revoking and
deleting are for the topic's owner and the router's administrators (NETPLATFORM_ROUTER_ADMINS,
by default the first NETPLATFORM_USERS entry: the identity the bus controller provisions with).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import access_denied
from .topic_model import Acl, Topic


@dataclass(frozen=True)
class Caller:
    """An authenticated identity and the roles NETPLATFORM_USERS gives it."""

    identity: str
    roles: frozenset[str] = frozenset()

    def named_in(self, entries: Iterable[str]) -> bool:
        names = set(entries)
        return self.identity in names or not self.roles.isdisjoint(names)


def admits(acl: Acl, caller: Caller) -> bool:
    return not acl.enabled or caller.named_in(acl.users)


def require_publisher(topic: Topic, caller: Caller) -> None:
    if not admits(topic.writer_acl, caller):
        raise access_denied(f"{caller.identity} is not permitted to publish to topic {topic.name}")


def require_consumer(topic: Topic, caller: Caller) -> None:
    if not admits(topic.reader_acl, caller):
        raise access_denied(f"{caller.identity} is not permitted to consume from topic {topic.name}")


class Administrators:
    """The identities and roles that administer every topic, besides each topic's owner."""

    def __init__(self, entries: Iterable[str]) -> None:
        self.entries = frozenset(entries)

    def require_mirror_reader(self, topic: Topic, caller: Caller) -> None:
        """The internal read route: readers, and administrators too. Mirror agents read with the
        bus controller's identity, which is not on the reader ACLs it grants clients; an
        administrator could grant itself anyway, so admitting it gives nothing away."""
        if not caller.named_in(self.entries):
            require_consumer(topic, caller)

    def require_administrator(self, caller: Caller, action: str) -> None:
        if not caller.named_in(self.entries):
            raise access_denied(f"{caller.identity} may not {action}: only a router admin may")

    def require_manager(self, topic: Topic, caller: Caller, action: str) -> None:
        if caller.identity != topic.owner and not caller.named_in(self.entries):
            raise access_denied(
                f"{caller.identity} may not {action} topic {topic.name}: only its owner or a router admin may"
            )
