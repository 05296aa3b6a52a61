"""Who is calling a provisioning route, and whether they may create, change or subscribe to a feed
or change a subscription.

The kernel has already checked the route's own permission (``distribution.reader`` /
``distribution.writer``). On top of it, per object (docs/distribution.md "Authorization"):

* a legacy feed, and every subscription, follow the reference's owner rule: the identity named in
  ``X-BUS-DR-ON-BEHALF-OF`` is the object's owner, or names its group;
* a *framework* feed (created with ``X-EXCLUDE-AUTHZ: false`` while
  ``NETPLATFORM_DISTRIBUTION_AUTHZ`` was on) is governed by the permissions
  ``platform.distribution.feed|<its authz_instance>|<action>`` of the authenticated caller.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..access.directory import Grants
from ..web.errors import BadRequest, Forbidden
from ..web.permissions import Permission
from .feed_model import Feed, is_legacy_instance

MAX_IDENTITY_LENGTH = 8
ON_BEHALF_OF = "X-BUS-DR-ON-BEHALF-OF"
ON_BEHALF_OF_GROUP = "X-BUS-DR-ON-BEHALF-OF-GROUP"
EXCLUDE_AUTHZ = "X-EXCLUDE-AUTHZ"

FEED_PERMISSION_TYPE = "platform.distribution.feed"
NO_INSTANCE = "platform.distribution.NoInstanceDefined"


def feed_permission(authz_instance: str, action: str) -> Permission:
    """``platform.distribution.feed|<instance>|<action>``; an empty instance is the reference's
    ``platform.distribution.NoInstanceDefined``."""
    return Permission(FEED_PERMISSION_TYPE, authz_instance or NO_INSTANCE, action)


@dataclass(frozen=True)
class Caller:
    """The identity in ``X-BUS-DR-ON-BEHALF-OF`` and the group of ``X-BUS-DR-ON-BEHALF-OF-GROUP``;
    the authenticated platform identity and what it holds; ``X-EXCLUDE-AUTHZ`` as sent."""

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
    ) -> Caller:
        if not identity:
            raise BadRequest(f"Missing {ON_BEHALF_OF} header.")
        if len(identity) > MAX_IDENTITY_LENGTH:
            raise BadRequest(f"{ON_BEHALF_OF} header too long")
        return cls(identity, _group_number(group), user, grants, exclude_authz)

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


def _group_number(text: str | None) -> int:
    """The group header as a number; absent or not a number means no group."""
    try:
        return int(text.strip()) if text else 0
    except ValueError:
        return 0
