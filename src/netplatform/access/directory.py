"""The decisions every service's kernel takes on every request: who the caller is, and whether
they hold a permission. From the database, through a cache that is never more than
:data:`REFRESH_S` behind it.

Every write to the authorization tables moves the ``access`` generation (database triggers).
The directory reads that generation at most every :data:`REFRESH_S` (lazily, on a request; the
requests that arrive meanwhile do not wait for it); when it moved, every remembered credential
and permission set is forgotten. So a grant, revoke, membership or password change made through
any instance applies on every instance within that time plus one read, well inside the two
seconds docs/security.md promises. A membership that expires is forgotten when it expires.

What is remembered: each identity's permission set with the decisions taken on it (per
generation), and verified ``Authorization`` header values (an argon2 check costs tens of
milliseconds and 64 MiB; a remembered one a dict lookup) with the hash each matched. When the
generation moves, a remembered header is checked again by reading its identity's hash (a
configured identity's never changes): the same hash means the same password, so only a changed
or deleted credential costs a new argon2 check. Credentials that fail are never remembered.

A check that is not remembered goes through the throttle of failed attempts
(:mod:`netplatform.access.throttle`, 429 past its bounds) and then the process's bounded pool of
check threads (:class:`.passwords.PasswordChecks`, 503 when full). Every name costs one argon2
verification: a configured identity's hash, a stored one's, or a stand-in for an unknown name.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from threading import Lock

import anyio
from prometheus_client import CollectorRegistry
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ..clock import now_ms
from ..settings import Settings
from ..store.db import Database, normalize_url
from ..store.generations import Generation
from ..store.secrets import sealer_for
from ..store.unit_of_work import UnitOfWork
from . import tables
from .bootstrap import ConfiguredIdentities
from .builtin import BUILTIN_ROLES
from .credentials import Credentials, parse_basic
from .errors import DecisionsUnavailable, TooManyFailures
from .passwords import ChecksBusy, PasswordChecks, checks_for, verify_password
from .permissions import Permission, any_matches
from .replica import Replica, replica_for
from .repository import AccessRepository
from .throttle import Throttle, throttle_for

log = logging.getLogger("netplatform.access")

# Which hash a password check was made against (the metrics show each: every name costs one).
AGAINST = ("configured", "stored", "absent")

REFRESH_S = 0.5
# How long decisions may still be taken from memory while the database cannot be read.
STALE_LIMIT_S = 2.0
_REMEMBERED_HEADERS = 4096
_REMEMBERED_USERS = 4096
_NEVER = 2**62


@dataclass(frozen=True)
class Verified:
    """A remembered ``Authorization`` header: its identity, the hash it matched, and the
    generation it was last known to match in."""

    user: str
    encoded: str
    epoch: int | None


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
    def __init__(
        self,
        db: Database,
        configured: ConfiguredIdentities,
        throttle: Throttle,
        checks: PasswordChecks,
        replica: Replica | None = None,
    ) -> None:
        self.unit = UnitOfWork(db, AccessRepository)
        self.configured = configured
        self.throttle = throttle
        self.checks = checks
        # At a site that follows a central directory (access/replica.py): past its offline bound,
        # no decision is taken.
        self.replica = replica
        self.generation = Generation(db, tables.generations, tables.GENERATION_SCOPE)
        self.checked_against = dict.fromkeys(AGAINST, 0)
        self._counting = Lock()
        self._epoch: int | None = None
        self._checked = float("-inf")
        self._verified: dict[str, Verified] = {}
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
        if self.replica is not None:
            await self.replica.loaded()
            stale = self.replica.stale()
            if stale is not None:
                raise DecisionsUnavailable(f"No authorization decision can be taken: {stale}")
        self._checked = now
        try:
            epoch = await anyio.to_thread.run_sync(self.generation.peek)
        except Exception as error:
            self._checked = last  # the next request tries again
            if now - last > STALE_LIMIT_S:
                log.warning("authorization data unreadable: %s", error)
                raise DecisionsUnavailable("Authorization data is unavailable; try again") from error
            return
        if epoch != self._epoch:
            self._epoch = epoch
            self._grants = {}

    # --- the remembered path ---------------------------------------------------------------

    def remembered(
        self, header: str | None, required: Permission | None, client: str | None = None
    ) -> tuple[str, bool] | None:
        """(identity, allowed) from memory alone, when everything needed is remembered and fresh
        and the throttle holds nothing against the name or the caller's address; else None (take
        :meth:`authenticate` and :meth:`allows`). On a hot route this is the whole cost of
        authorization: a clock read and a few dictionary lookups, no coroutine."""
        if header is None or time.monotonic() - self._checked >= REFRESH_S:
            return None
        verified = self._verified.get(header)
        if verified is None or verified.epoch != self._epoch:
            return None
        user = verified.user
        if self.throttle.may_hold(user, client):
            return None
        if required is None:
            return user, True
        grants = self._grants.get(user)
        if grants is None or grants.until_ms <= now_ms():
            return None
        return user, grants.allows(required)

    # --- authentication -------------------------------------------------------------------

    async def authenticate(self, header: str | None, client: str | None = None) -> str | None:
        """The identity an ``Authorization: Basic`` header proves, else None; ``client`` is the
        caller's address, for the throttle (429 past its bounds; 503 when the check threads and
        their queue are all taken)."""
        if header is None:
            return None
        await self.fresh()
        user = await self._still_verified(header)
        if user is not None:
            self._hold(user, client)
            return user
        credentials = parse_basic(header)
        if credentials is None:
            return None
        epoch = self._epoch
        encoded = await self.check(credentials, client)
        if encoded is None:
            return None
        if epoch == self._epoch:
            self._remember(header, Verified(credentials.user, encoded, epoch))
        return credentials.user

    async def check(self, credentials: Credentials, client: str | None) -> str | None:
        """The hash ``credentials`` match (None: they do not), through the throttle and the
        bounded pool; every failure is counted and logged with the name tried."""
        name = credentials.user
        self._hold(name, client)
        try:
            encoded = await self.checks.run(lambda: self._verify(name, credentials.password))
        except ChecksBusy:
            raise DecisionsUnavailable(
                "Too many credential checks at once; try again", retry_after_s=1
            ) from None
        if encoded is None:
            self.throttle.failed(name, client)
        else:
            self.throttle.succeeded(name, client)
        return encoded

    def _hold(self, name: str, client: str | None) -> None:
        """429 while the throttle holds the name from this address (docs/security.md)."""
        wait = self.throttle.retry_after(name, client)
        if wait is not None:
            raise TooManyFailures(
                "Too many failed authentication attempts; try again later", retry_after_s=wait
            )

    def _verify(self, name: str, password: str) -> str | None:
        """One argon2 verification whatever the name (on a check thread): against the configured
        identity's hash (configuration wins), a stored one's, or the stand-in for no identity."""
        stored = self.unit.read(lambda access: access.password_hash(name))
        configured = self.configured.directory.hashes_of(name)
        against = "configured" if configured else "stored" if stored else "absent"
        with self._counting:
            self.checked_against[against] += 1
        # A platform identity accepts the credential of each configured key (one, but during a
        # key rotation): one check per key.
        candidates: list[str | None] = [*configured] or [stored]
        for encoded in candidates:
            if verify_password(encoded, password):
                return encoded
        return None

    async def _still_verified(self, header: str) -> str | None:
        """The identity of a remembered header while the hash it matched is still its identity's
        (a configured identity's is configuration: no read; a stored one's is read again once
        the generation has moved)."""
        verified = self._verified.get(header)
        if verified is None:
            return None
        epoch = self._epoch
        if verified.epoch != epoch:
            configured = self.configured.directory.hashes_of(verified.user)
            if configured:
                unchanged = verified.encoded in configured
            else:
                unchanged = await anyio.to_thread.run_sync(self._stored_hash_is, verified)
            if not unchanged:
                self._verified.pop(header, None)
                return None
            self._verified[header] = Verified(verified.user, verified.encoded, epoch)
        return verified.user

    def _stored_hash_is(self, verified: Verified) -> bool:
        return self.unit.read(lambda access: access.password_hash(verified.user)) == verified.encoded

    def _remember(self, header: str, verified: Verified) -> None:
        if len(self._verified) >= _REMEMBERED_HEADERS:
            self._verified = {}
        self._verified[header] = verified

    # --- authorization --------------------------------------------------------------------

    async def allows(self, user: str, permission: Permission) -> bool:
        return (await self.grants(user)).allows(permission)

    async def knows(self, user: str) -> bool:
        """Whether ``user`` is an identity here (configured, or stored: at a site, replicated),
        one that could authenticate."""
        await self.fresh()
        if self.configured.directory.hashes_of(user):
            return True
        stored = await anyio.to_thread.run_sync(
            lambda: self.unit.read(lambda access: access.password_hash(user))
        )
        return stored is not None

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


_directories: dict[tuple[str, str, tuple[bytes, ...], str], AccessDirectory] = {}
_directories_lock = Lock()


def directory_for(settings: Settings, db: Database) -> AccessDirectory:
    """The process-wide directory of a database and user list (the apps of one process share it,
    with its throttle of failed attempts; the pool of check threads is the process's)."""
    keys = sealer_for(settings).keys.keys  # the platform identities' credentials derive from them
    key = (normalize_url(settings.effective_database_url), settings.users, keys, settings.authz_url or "")
    with _directories_lock:
        directory = _directories.get(key)
        if directory is None or directory.unit.db is not db:
            directory = AccessDirectory(
                db,
                ConfiguredIdentities.from_settings(settings),
                throttle_for(settings),
                checks_for(settings.auth_check_threads, settings.auth_check_queue),
                replica_for(settings, db),
            )
            _directories[key] = directory
        return directory


def register_authentication_metrics(
    registry: CollectorRegistry, service: str, directory: AccessDirectory
) -> None:
    """The password checks, failures and refusals of the process's directory (shared by its apps:
    each app's registry shows the same counts, labelled with its service)."""
    registry.register(_AuthenticationCollector(service, directory))


class _AuthenticationCollector(Collector):
    def __init__(self, service: str, directory: AccessDirectory) -> None:
        self.service = service
        self.directory = directory

    def collect(self) -> Iterator[Metric]:
        directory, service = self.directory, self.service
        checks = CounterMetricFamily(
            "password_checks",
            "argon2 verifications of credentials not remembered, by the hash they were made "
            "against: a configured identity's, a stored one's, or the stand-in for an unknown name",
            labels=["service", "against"],
        )
        for against, count in directory.checked_against.items():
            checks.add_metric([service, against], count)
        yield checks
        failures = CounterMetricFamily(
            "authentication_failures", "Credential checks that failed", labels=["service"]
        )
        failures.add_metric([service], directory.throttle.failures)
        yield failures
        throttled = CounterMetricFamily(
            "authentication_throttled",
            "Credential checks refused (429) because failed attempts passed a bound",
            labels=["service"],
        )
        throttled.add_metric([service], directory.throttle.throttled)
        yield throttled
        busy = CounterMetricFamily(
            "password_checks_busy",
            "Credential checks refused (503) because every check thread and queue place was taken",
            labels=["service"],
        )
        busy.add_metric([service], directory.checks.busy)
        yield busy
        threads = GaugeMetricFamily(
            "password_check_threads", "Threads that run password checks in this process", labels=["service"]
        )
        threads.add_metric([service], directory.checks.threads)
        yield threads
