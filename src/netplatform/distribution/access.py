"""Who is calling a provisioning route, and whether they may create, change or subscribe to a feed
or change a subscription.

The kernel has already checked the route's own permission (``distribution.reader`` /
``distribution.writer``). On top of it, per object (docs/distribution.md "Authorization"):

* the caller is the identity named in ``X-BUS-DR-ON-BEHALF-OF`` only when the authenticated
  identity may act for others (``platform.distribution.actas|*|call``: the bus controller's
  ``svc.bus``, administrators); anyone else acts as itself: on a write the header, when sent,
  must name it (else 403), and ``X-BUS-DR-ON-BEHALF-OF-GROUP`` is theirs alone (a read does
  nothing with either);
* a legacy feed, and every subscription, follow the reference's owner rule: the caller is the
  object's owner, or names its group;
* a *framework* feed (created with ``X-EXCLUDE-AUTHZ: false`` while
  ``NETPLATFORM_DISTRIBUTION_AUTHZ`` was on) is governed by the permissions
  ``platform.distribution.feed|<its authz_instance>|<action>`` of the authenticated caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..access.directory import Grants
from ..access.permissions import Permission
from ..web.errors import BadRequest, Forbidden
from .feed_model import Feed, is_legacy_instance
from .spec import PERMISSIONS
from .subscription_model import PASSWORD_MASK

MAX_IDENTITY_LENGTH = 8
MAX_OWNER_LENGTH = 255
"""An owner is stored whole (tables.OwnerName): an identity's name, at most this long."""
ON_BEHALF_OF = "X-BUS-DR-ON-BEHALF-OF"
ON_BEHALF_OF_GROUP = "X-BUS-DR-ON-BEHALF-OF-GROUP"
EXCLUDE_AUTHZ = "X-EXCLUDE-AUTHZ"
ACT_AS = PERMISSIONS.act_as()
WRITE_SUBSCRIPTIONS = PERMISSIONS.write("subs")

FEED_PERMISSION_TYPE = "platform.distribution.feed"
NO_INSTANCE = "platform.distribution.NoInstanceDefined"


def feed_permission(authz_instance: str, action: str) -> Permission:
    """``platform.distribution.feed|<instance>|<action>``; an empty instance is the reference's
    ``platform.distribution.NoInstanceDefined``."""
    return Permission(FEED_PERMISSION_TYPE, authz_instance or NO_INSTANCE, action)


def may_act_for_others(grants: Grants | None) -> bool:
    return grants is not None and grants.allows(ACT_AS)


@dataclass(frozen=True)
class Caller:
    """Whom the request acts for (``identity``, the owner of what it creates) and the group it
    names; the authenticated platform identity and what it holds; ``X-EXCLUDE-AUTHZ`` as sent."""

    identity: str
    group: int = 0
    user: str = ""
    grants: Grants | None = None
    exclude_authz: str | None = None

    @classmethod
    def from_headers(
        cls,
        identity: str | None,
        group: str | None,
        *,
        user: str = "",
        grants: Grants | None = None,
        exclude_authz: str | None = None,
        writing: bool = True,
    ) -> Caller:
        """The reference's checks of the header (400), then, for a write (``writing``: the
        header decides the owner), whom it may name (403). A read does nothing with the header:
        any value of the right length is taken, as the reference's readers send it."""
        acting_for_others = may_act_for_others(grants)
        if not identity and acting_for_others:
            raise BadRequest(f"Missing {ON_BEHALF_OF} header.")
        if identity and len(identity) > MAX_IDENTITY_LENGTH:
            raise BadRequest(f"{ON_BEHALF_OF} header too long")
        group_number = _group_number(group)
        if not acting_for_others:
            if writing:
                identity = _own_identity(user, identity, group_number)
            else:
                identity, group_number = identity or user, 0
        assert identity
        return cls(identity, group_number, user, grants, exclude_authz)

    def shown_password(self) -> str | None:
        """What stands for a stored delivery password in an answer to this caller: the mask for a
        writer of subscriptions, nothing for a reader (a secret goes to no role below the writer)."""
        return PASSWORD_MASK if self.grants is not None and self.grants.allows(WRITE_SUBSCRIPTIONS) else None

    # --- the owner rule --------------------------------------------------------------------

    def may_manage(self, owner: str, groupid: int) -> bool:
        """The owner may; so may a caller naming the object's (positive) group."""
        return self.identity == owner or (self.group > 0 and self.group == groupid)

    def ensure_may_manage(self, owner: str, groupid: int) -> None:
        if not self.may_manage(owner, groupid):
            raise Forbidden("Policy Engine disallows access.")

    # --- the framework ---------------------------------------------------------------------

    def ensure_permitted(self, permission: Permission) -> None:
        if self.grants is None or not self.grants.allows(permission):
            raise Forbidden(f"User {self.user} does not have permission {permission}")

    def creates_framework_feed(self, authz_instance: str, framework_on: bool) -> bool:
        """Whether a feed this caller creates is a framework feed (400 or 403 when it may not
        create it at all). With the framework off the header has no effect: every feed is legacy."""
        if not framework_on:
            return False
        if self.exclude_authz is None:
            raise BadRequest(f"Missing {EXCLUDE_AUTHZ} header.")
        if self.exclude_authz.strip().lower() == "true":
            if not is_legacy_instance(authz_instance):
                raise Forbidden(f"{EXCLUDE_AUTHZ}: true is only allowed with a legacy authz_instance.")
            return False
        # Anything but "true" selects the framework (reference authz 4).
        self.ensure_permitted(feed_permission(authz_instance, "create"))
        return True

    def ensure_may_change_feed(self, feed: Feed, action: str) -> None:
        """``action`` is ``edit`` or ``delete``: the feed's permission, else the owner rule."""
        if feed.authz_framework:
            self.ensure_permitted(feed_permission(feed.authz_instance, action))
        else:
            self.ensure_may_manage(feed.publisher, feed.groupid)

    def ensure_may_subscribe(self, feed: Feed) -> None:
        """Subscribing to a framework feed needs its ``subscribe`` permission; a legacy feed's
        collection is open (the reference's owner rule)."""
        if feed.authz_framework:
            self.ensure_permitted(feed_permission(feed.authz_instance, "subscribe"))


def _own_identity(user: str, named: str | None, group: int) -> str:
    """The caller acting as itself: the header left out or naming it, no group claimed."""
    if named and named != user:
        raise Forbidden(
            f"User {user} may not act on behalf of {named}: without permission {ACT_AS}"
            f" {ON_BEHALF_OF} must name the caller itself or be left out"
        )
    if group > 0:
        raise Forbidden(
            f"User {user} may not act for group {group}: {ON_BEHALF_OF_GROUP} needs permission {ACT_AS}"
        )
    if len(user) > MAX_OWNER_LENGTH:
        raise Forbidden(
            f"An identity name longer than {MAX_OWNER_LENGTH} characters cannot own feeds or subscriptions"
        )
    return user


def _group_number(text: str | None) -> int:
    """The group header as a number; absent or not a number means no group."""
    try:
        return int(text.strip()) if text else 0
    except ValueError:
        return 0
