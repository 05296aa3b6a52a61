"""Who may do what on the message router: callers, ACL checks and topic administrators.

Issue 14: an enabled ACL admits only identities on it, or callers holding a role named on it;
a disabled one (no grant ever made) admits every authenticated user. A caller's roles are
every role the authorization store gives it (issue 23: configured in NETPLATFORM_USERS or
stored through the authz service), so an ACL entry may name any of them.

Router administrators are the identities and roles of NETPLATFORM_ROUTER_ADMINS (by default
the first NETPLATFORM_USERS entry: the identity the bus controller provisions with) and every
holder of ``platform.admin``. They delete any topic, grant and revoke on any topic, and are
the only ones who may publish to the bridge-admin topic (its messages make this router call
other servers and write into topics: issue 23's exploit).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..access.builtin import ADMIN_ROLE
from .errors import access_denied
from .topic_model import Acl, Topic


@dataclass(frozen=True)
class Caller:
    """An authenticated identity, the roles it holds, and whether it may manage every topic's
    grants (``router.writer``'s write on topics; only looked up where a grant needs it)."""

    identity: str
    roles: frozenset[str] = frozenset()
    topic_writer: bool = False

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

    def __init__(self, entries: Iterable[str], bridge_admin_topic: Callable[[], str] = lambda: "") -> None:
        # platform.admin may do everything everywhere: it is a router administrator too.
        self.entries = frozenset(entries) | {ADMIN_ROLE}
        # The effective bridge-admin topic now ("": none); it follows the stored mirror settings.
        self.bridge_admin_topic = bridge_admin_topic

    def includes(self, caller: Caller) -> bool:
        return caller.named_in(self.entries)

    def require_publisher(self, topic: Topic, caller: Caller) -> None:
        """The topic's writer ACL; on the bridge-admin topic, router administrators only, whatever
        its ACL says (an ACL there can narrow who publishes, never widen it)."""
        if topic.name == self.bridge_admin_topic() and not self.includes(caller):
            raise access_denied(
                f"{caller.identity} may not publish to the bridge-admin topic {topic.name}: "
                "only a router admin may"
            )
        require_publisher(topic, caller)

    def require_manager(self, topic: Topic, caller: Caller, action: str) -> None:
        """Deleting a topic: its owner or a router admin (router.writer is checked before)."""
        if caller.identity != topic.owner and not self.includes(caller):
            raise access_denied(
                f"{caller.identity} may not {action} topic {topic.name}: only its owner or a router admin may"
            )

    def require_granter(self, topic: Topic, caller: Caller, action: str) -> None:
        """Granting and revoking: the topic's owner, a router admin, or a holder of router.writer."""
        if caller.topic_writer:
            return
        if caller.identity != topic.owner and not self.includes(caller):
            raise access_denied(
                f"{caller.identity} may not {action} topic {topic.name}: "
                "only its owner, a router admin or a router.writer may"
            )
