"""What the signed-in user may do: their permissions as the authz service lists them, and the
checks a page makes before it offers an action.

Hiding an action is only courtesy: the services decide every call themselves (a forged form
still gets their 403). So a stale list costs at most a form shown or hidden a few seconds too
long, which is why the list is cached per session for a few seconds rather than read on every
page or kept for the session's 8 hours.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..access.permissions import Permission, ServicePermissions, any_matches

# The permission type of a run of one blueprint's workflows (blueprints/routes/execution.py).
EXECUTE_TYPE = "platform.blueprints.execution"
# How long a session's permissions are reused before the authz service is asked again.
GRANTS_TTL_S = 5.0
# Sessions remembered at most; beyond it the expired entries go (then the oldest, if need be).
GRANTS_CACHE_SIZE = 4096


def api_permission(service: str, resource: str, action: str) -> Permission:
    """A service's own API permission (``platform.<service>.api|<resource>|<action>``)."""
    return Permission(ServicePermissions(service).api_type, resource, action)


@dataclass(frozen=True)
class Grants:
    """The permissions of one identity; ``known`` False when the authz service could not say
    (every action is then hidden: the services would refuse what the user may not do anyway)."""

    permissions: tuple[Permission, ...] = ()
    known: bool = True

    def allows(self, required: Permission) -> bool:
        return any_matches(self.permissions, required)

    def can(self, service: str, resource: str, action: str = "write") -> bool:
        return self.allows(api_permission(service, resource, action))

    def may_execute(self, blueprint: str | None = None) -> bool:
        """May run a workflow (of ``blueprint``, or of some blueprint when None): blueprints.writer,
        or an ``execute`` grant of the execution type (the catalog's own rule, docs/execution.md)."""
        if self.can("blueprints", "execution"):
            return True
        if blueprint is None:
            return any(p.type in (EXECUTE_TYPE, "*") for p in self.permissions)
        return self.allows(Permission(EXECUTE_TYPE, blueprint, "execute"))

    @property
    def reads_access(self) -> bool:
        """May see the administrators' page (every read of the authz API)."""
        return self.can("authz", "*", "read")

    @property
    def manages_access(self) -> bool:
        """May create identities and change memberships (every write of the authz API)."""
        return self.can("authz", "*", "write")


NO_GRANTS = Grants()


def parse_permissions(body: Any) -> tuple[Permission, ...]:
    """``{"perm": [{"type","instance","action"}...]}``; entries that are no permission are left out
    (an entry the console cannot read grants nothing here, the services still decide)."""
    listed = body.get("perm") if isinstance(body, dict) else None
    found: list[Permission] = []
    for entry in listed if isinstance(listed, list) else []:
        if not isinstance(entry, dict):
            continue
        try:
            found.append(
                Permission.of(str(entry.get("type")), str(entry.get("instance")), str(entry.get("action")))
            )
        except ValueError:
            continue
    return tuple(found)


class GrantsCache:
    """Each session's grants for :data:`GRANTS_TTL_S`, by session id, in this process's memory."""

    def __init__(self, ttl_s: float = GRANTS_TTL_S, size: int = GRANTS_CACHE_SIZE) -> None:
        self._ttl_s = ttl_s
        self._size = size
        self._entries: dict[str, tuple[float, Grants]] = {}

    def get(self, sid: str) -> Grants | None:
        entry = self._entries.get(sid)
        if entry is None or entry[0] <= time.monotonic():
            return None
        return entry[1]

    def put(self, sid: str, grants: Grants) -> None:
        if len(self._entries) >= self._size:
            self._evict()
        self._entries[sid] = (time.monotonic() + self._ttl_s, grants)

    def forget(self, sid: str) -> None:
        self._entries.pop(sid, None)

    def _evict(self) -> None:
        now = time.monotonic()
        self._entries = {sid: entry for sid, entry in self._entries.items() if entry[0] > now}
        # Still full (many sessions within one TTL): drop the oldest half; they are read again.
        if len(self._entries) >= self._size:
            keep = sorted(self._entries.items(), key=lambda item: item[1][0])[len(self._entries) // 2 :]
            self._entries = dict(keep)
