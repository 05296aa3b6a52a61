"""Who may do what on the message router: callers, ACL checks and topic administrators.

Issue 14: an enabled ACL admits only the identities named on it, or callers holding a role named
on it; a disabled one (no grant ever made) admits every authenticated user. A caller's roles are
every role the authorization store gives it (issue 23: configured in NETPLATFORM_USERS or stored
through the authz service). Issue 36, point 5: an entry names an identity or a role, never
either (topic_model.Principal), so an identity named like a role passes nothing by its name.

Router administrators hold a permission, ``platform.router.admin|topics|write`` (and
``|mirror|write`` for the mirror settings): the platform's bus identity ``svc.bus`` and
``platform.admin`` hold both. No name is compared against a role, so an identity created with
the name ``platform.admin`` is no administrator. NETPLATFORM_ROUTER_ADMINS still names
identities (never roles) that are administrators besides. Administrators delete any topic, grant
and revoke on any topic, and are the only ones who may publish to the bridge-admin topic and to
every topic the router made for the platform (its messages make this router call other servers
and write into topics: issue 23's exploit).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from ..access.permissions import Permission
from .errors import access_denied
from .spec import PERMISSIONS
from .topic_model import Topic

ADMINISTER_TOPICS = PERMISSIONS.admin("topics")
"""Granting, revoking and deleting on every topic; publishing to the platform's topics."""
ADMINISTER_MIRRORS = PERMISSIONS.admin("mirror")
"""Telling the router its mirror settings (PUT /internal/mirror-settings)."""

Allows = Callable[[str, Permission], Awaitable[bool]]
"""Whether an identity holds a permission (the access directory's ``allows``)."""


@dataclass(frozen=True)
class Caller:
    """An authenticated identity, the roles it holds, and whether it may manage every topic's
    grants (``router.writer``'s write on topics; only looked up where a grant needs it)."""

    identity: str
    roles: frozenset[str] = frozenset()
    topic_writer: bool = False


def require_publisher(topic: Topic, caller: Caller) -> None:
    if not topic.writer_acl.admits(caller.identity, caller.roles):
        raise access_denied(f"{caller.identity} is not permitted to publish to topic {topic.name}")


def require_consumer(topic: Topic, caller: Caller) -> None:
    if not topic.reader_acl.admits(caller.identity, caller.roles):
        raise access_denied(f"{caller.identity} is not permitted to consume from topic {topic.name}")


class Administrators:
    """Who administers every topic besides each topic's owner: holders of the router's admin
    permission, and the identities NETPLATFORM_ROUTER_ADMINS names."""

    def __init__(
        self,
        allows: Allows,
        identities: Iterable[str] = (),
        bridge_admin_topic: Callable[[], str] = lambda: "",
    ) -> None:
        self.allows = allows
        self.identities = frozenset(identities)
        # The effective bridge-admin topic now ("": none); it follows the stored mirror settings.
        self.bridge_admin_topic = bridge_admin_topic

    async def includes(self, caller: Caller, permission: Permission = ADMINISTER_TOPICS) -> bool:
        return caller.identity in self.identities or await self.allows(caller.identity, permission)

    def guarded(self, topic: Topic) -> bool:
        """A topic only administrators publish to and manage: the bridge-admin topic (the effective
        one, whoever made it) and every topic the router made for the platform."""
        return topic.platform or topic.name == self.bridge_admin_topic()

    async def require_publisher(self, topic: Topic, caller: Caller) -> None:
        """The topic's writer ACL; on a guarded topic, router administrators only, whatever its ACL
        says (an ACL there can narrow who publishes, never widen it)."""
        if self.guarded(topic) and not await self.includes(caller):
            raise access_denied(
                f"{caller.identity} may not publish to the bridge-admin topic {topic.name}: "
                "only a router admin may"
            )
        require_publisher(topic, caller)

    async def require_manager(self, topic: Topic, caller: Caller, action: str) -> None:
        """Deleting a topic: its owner or a router admin (router.writer is checked before); a
        topic the router made for the platform, a router admin only."""
        if caller.identity == topic.owner and not topic.platform:
            return
        if not await self.includes(caller):
            raise access_denied(
                f"{caller.identity} may not {action} topic {topic.name}: only its owner or a router admin may"
            )

    @staticmethod
    def require_granter(topic: Topic, caller: Caller, action: str, *, admin: bool) -> None:
        """Granting and revoking: the topic's owner, a router admin (``admin``), or a holder of
        router.writer; on a topic the router made for the platform, a router admin only."""
        if admin or (not topic.platform and (caller.topic_writer or caller.identity == topic.owner)):
            return
        raise access_denied(
            f"{caller.identity} may not {action} topic {topic.name}: "
            + (
                "it is the platform's, only a router admin may"
                if topic.platform
                else "only its owner, a router admin or a router.writer may"
            )
        )
