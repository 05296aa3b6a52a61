"""The decisions every service's kernel takes on every request: who the caller is, and whether
they hold a permission. From the database, through a cache that is never more than
:data:`REFRESH_S` behind it.

Every write to the authorization tables moves the ``access`` generation (database triggers).
The directory reads that generation at most every :data:`REFRESH_S` (lazily, on a request; the
requests that arrive meanwhile do not wait for it); when it moved, every remembered credential
and permission set is forgotten. So a grant, revoke, membership or password change made through
any instance applies on every instance within that time plus one read, well inside the two
seconds docs/security.md promises. A membership that expires is forgotten when it expires.

What is remembered per generation: verified ``Authorization`` header values (an argon2 check
costs tens of milliseconds; a remembered one a dict lookup) and each identity's permission set
with the decisions taken on it. Credentials that fail are never remembered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from threading import Lock

import anyio

from ..clock import now_ms
from ..settings import Settings
from ..store.db import Database, normalize_url
from ..store.generations import Generation
from ..store.unit_of_work import UnitOfWork
from ..web.auth import parse_basic
from ..web.errors import ServiceUnavailable
from ..web.permissions import Permission, any_matches
from . import tables
from .bootstrap import ConfiguredIdentities
from .builtin import BUILTIN_ROLES
from .passwords import verify_password
from .repository import AccessRepository

log = logging.getLogger("netplatform.access")

REFRESH_S = 0.5
# How long decisions may still be taken from memory while the database cannot be read.
STALE_LIMIT_S = 2.0
_REMEMBERED_HEADERS = 4096
_REMEMBERED_USERS = 4096
_NEVER = 2**62


@dataclass
class Grants:
    """What one identity holds: its roles and their permissions, valid until ``until_ms``."""

    roles: frozenset[str]
    permissions: frozenset[Permission]
    until_ms: int
    decisions: dict[Permission, bool] = field(default_factory=dict)

    def allows(self, permission: Permission) -> bool:
        decided = self.decisions.get(permission)
        if decided is None:
            decided = self.decisions[permission] = any_matches(self.permissions, permission)
        return decided


class AccessDirectory:
    def __init__(self, db: Database, configured: ConfiguredIdentities) -> None:
        self.unit = UnitOfWork(db, AccessRepository)
        self.configured = configured
        self.generation = Generation(db, tables.generations, tables.GENERATION_SCOPE)
        self._epoch: int | None = None
        self._checked = float("-inf")
        self._verified: dict[str, str] = {}
        self._grants: dict[str, Grants] = {}

    # --- freshness ------------------------------------------------------------------------

    async def fresh(self) -> None:
        """Forget what the database has changed since it was remembered (at most REFRESH_S old).

        One request reads the generation; the requests arriving while it reads go on with what
        is remembered (it was fresh a moment ago). No lock or event is shared: the apps of one
        process share this directory, and in tests they run on event loops of their own.
        """
        now = time.monotonic()
        last = self._checked
        if now - last < REFRESH_S:
            return
        self._checked = now
        try:
            epoch = await anyio.to_thread.run_sync(self.generation.peek)
        except Exception as error:
            self._checked = last  # the next request tries again
            if now - last > STALE_LIMIT_S:
                log.warning("authorization data unreadable: %s", error)
                raise ServiceUnavailable("Authorization data is unavailable; try again") from error
            return
        if epoch != self._epoch:
            self._epoch = epoch
            self._verified = {}
            self._grants = {}

    # --- the remembered path ---------------------------------------------------------------

    def remembered(self, header: str | None, required: Permission | None) -> tuple[str, bool] | None:
        """(identity, allowed) from memory alone, when everything needed is remembered and fresh;
        else None (take :meth:`authenticate` and :meth:`allows`). On a hot route this is the whole
        cost of authorization: a clock read and three dictionary lookups, no coroutine."""
        if header is None or time.monotonic() - self._checked >= REFRESH_S:
            return None
        user = self._verified.get(header)
        if user is None:
            return None
        if required is None:
            return user, True
        grants = self._grants.get(user)
        if grants is None or grants.until_ms <= now_ms():
            return None
        return user, grants.allows(required)

    # --- authentication -------------------------------------------------------------------

    async def authenticate(self, header: str | None) -> str | None:
        """The identity an ``Authorization: Basic`` header proves, else None."""
        if header is None:
            return None
        await self.fresh()
        user = self._verified.get(header)
        if user is not None:
            return user
        credentials = parse_basic(header)
        if credentials is None:
            return None
        epoch = self._epoch
        user = self.configured.authenticate(credentials)
        if user is None and credentials.user not in self.configured:
            stored = await anyio.to_thread.run_sync(
                self._verify_stored, credentials.user, credentials.password
            )
            user = credentials.user if stored else None
        if user is not None and epoch == self._epoch:
            if len(self._verified) >= _REMEMBERED_HEADERS:
                self._verified = {}
            self._verified[header] = user
        return user

    def _verify_stored(self, identity: str, password: str) -> bool:
        encoded = self.unit.read(lambda access: access.password_hash(identity))
        return verify_password(encoded, password)

    # --- authorization --------------------------------------------------------------------

    async def allows(self, user: str, permission: Permission) -> bool:
        return (await self.grants(user)).allows(permission)

    async def roles(self, user: str) -> frozenset[str]:
        """Every unexpired role ``user`` holds (configured and stored)."""
        return (await self.grants(user)).roles

    async def grants(self, user: str) -> Grants:
        await self.fresh()
        found = self._grants.get(user)
        if found is not None and found.until_ms > now_ms():
            return found
        epoch = self._epoch
        grants = await anyio.to_thread.run_sync(self.compute, user)
        if epoch == self._epoch:
            if len(self._grants) >= _REMEMBERED_USERS:
                self._grants = {}
            self._grants[user] = grants
        return grants

    def compute(self, user: str) -> Grants:
        """The grants of ``user`` as the database has them now (for worker threads)."""
        moment = now_ms()
        return self.unit.read(lambda access: grants_in(access, self.configured, user, moment))


def grants_in(access: AccessRepository, configured: ConfiguredIdentities, user: str, moment: int) -> Grants:
    """What ``user`` holds at ``moment``, read in the caller's transaction: its configured roles
    and unexpired stored memberships, with their stored and built-in permissions."""
    stored = access.memberships(user, moment)
    roles = configured.roles_of(user) | frozenset(stored)
    permissions = {permission for _, permission in access.role_permissions(roles)}
    permissions.update(_builtin_permissions(roles))
    until = min((expires for expires in stored.values() if expires is not None), default=_NEVER)
    return Grants(frozenset(roles), frozenset(permissions), until)


def role_permissions_in(access: AccessRepository, role: str) -> frozenset[Permission]:
    """A role's permissions: a built-in role's from code, a stored role's rows (none for a role
    only named by configuration, or by nothing)."""
    return frozenset(_builtin_permissions([role])) | {
        permission for _, permission in access.role_permissions([role])
    }


def _builtin_permissions(roles: Iterable[str]) -> set[Permission]:
    found: set[Permission] = set()
    for role in roles:
        builtin = BUILTIN_ROLES.get(role)
        if builtin is not None:
            found.update(builtin[1])
    return found


_directories: dict[tuple[str, str], AccessDirectory] = {}
_directories_lock = Lock()


def directory_for(settings: Settings, db: Database) -> AccessDirectory:
    """The process-wide directory of a database and user list (the apps of one process share it)."""
    key = (normalize_url(settings.effective_database_url), settings.users)
    with _directories_lock:
        directory = _directories.get(key)
        if directory is None or directory.unit.db is not db:
            directory = AccessDirectory(db, ConfiguredIdentities.from_settings(settings))
            _directories[key] = directory
        return directory
