"""Who may publish to or retract from a feed (spec section 5 rule 2, reference authz 4).

* A legacy feed, and any feed while ``NETPLATFORM_DISTRIBUTION_AUTHZ`` is off: Basic credentials
  of one of the feed's ``endpoint_ids`` (checked against their argon2id hashes, verified values
  remembered: :mod:`.endpoint_secrets`).
* A framework feed while the framework is on: Basic credentials of a platform identity holding
  ``platform.distribution.feed|<authz_instance>|publish``; the endpoint ids are not used.

Either way a non-empty ``endpoint_addrs`` limits the addresses a publish may come from.
The gate runs in the worker thread of a publish's checks; the framework's decisions are taken
on the event loop (the process's :class:`~netplatform.access.directory.AccessDirectory`).
"""

from __future__ import annotations

import anyio.from_thread

from ..access.credentials import parse_basic
from ..access.directory import AccessDirectory
from ..access.permissions import Permission
from ..web.errors import Forbidden, Unauthorized
from .access import feed_permission
from .addresses import address_allowed
from .endpoint_secrets import EndpointSecrets
from .feed_model import Feed

PUBLISH_REALM = 'Basic realm="publish"'
# The publish log records name the publisher in a column of this width (an endpoint id's).
MAX_PUBLISHER_NAME = 20


def _unauthorized(message: str) -> Unauthorized:
    return Unauthorized(message, headers={"WWW-Authenticate": PUBLISH_REALM})


class PublisherGate:
    def __init__(self, access: AccessDirectory, framework_on: bool, secrets: EndpointSecrets) -> None:
        self.access = access
        self.framework_on = framework_on
        self.secrets = secrets

    def admit(self, feed: Feed, authorization: str | None, source_ip: str) -> str:
        """The publisher's name for the records (its endpoint id, or its identity); 401 for
        missing or wrong credentials, 403 without the permission or from another address."""
        if feed.authz_framework and self.framework_on:
            publisher = self._permitted_identity(feed, authorization)
        else:
            publisher = self._endpoint(feed, authorization)
        addresses = feed.authorization.endpoint_addrs
        if addresses and not address_allowed(source_ip, addresses):
            raise Forbidden("Publisher not permitted for this feed")
        return publisher

    def _endpoint(self, feed: Feed, authorization: str | None) -> str:
        credentials = parse_basic(authorization)
        if authorization is None or credentials is None:
            raise _unauthorized("Missing or bad Authorization header")
        endpoints = feed.authorization.endpoint_ids
        endpoint = self.secrets.endpoint_of(feed.id, endpoints, authorization, credentials)
        if endpoint is None:
            raise _unauthorized("Publisher not permitted for this feed")
        return endpoint

    def _permitted_identity(self, feed: Feed, authorization: str | None) -> str:
        if parse_basic(authorization) is None:
            raise _unauthorized("Missing or bad Authorization header")
        permission = feed_permission(feed.authz_instance, "publish")
        user, allowed = anyio.from_thread.run(self._decide, authorization, permission)
        if user is None:
            raise _unauthorized("Publisher not permitted for this feed")
        if not allowed:
            raise Forbidden(f"User {user} does not have permission {permission}")
        return user[:MAX_PUBLISHER_NAME]

    async def _decide(self, authorization: str | None, permission: Permission) -> tuple[str | None, bool]:
        user = await self.access.authenticate(authorization)
        if user is None:
            return None, False
        return user, await self.access.allows(user, permission)
